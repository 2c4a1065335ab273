/* SPDX-License-Identifier: MIT */
/* vt_lock: a futex lock (Drepper, "Futexes Are Tricky", mutex 3) whose word holds its owner:
 * 0 free, the owner's thread id when held, with VT_LOCK_WAITERS when waiters may be asleep.
 * Uncontended, a round trip is one compare-exchange and one exchange, against ~45 instructions
 * of glibc's pthread_mutex_lock + unlock, and a pair of allocation and free takes it twice
 * (three glibc round trips were ~190 of the ~1 470 instructions a pair added at depth 0:
 * docs/benchmarks.md). Like a default pthread mutex it is not recursive and not fair. Unlike
 * one, it may be reset in the fork child (vt_track_after_fork_child) without undefined
 * behaviour, it is AS-safe, and a thread can tell that it holds it: a signal handler that forks
 * while its thread holds the lock must not wait for it (vt_track_fork_prepare).
 * ThreadSanitizer sees the acquire and release of the atomics. */
#ifndef VT_LOCK_H
#define VT_LOCK_H

#include "vt_internal.h"

#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#define VT_LOCK_WAITERS (1 << 30) /* thread ids are below 2^22 (PID_MAX_LIMIT) */
extern atomic_int vt_lock_word;

/* This thread's id, cached (forgotten in the fork child, whose thread has a new one). */
extern __thread uint32_t vt_tls_tid __attribute__((tls_model("initial-exec")));

static inline uint32_t vt_current_tid(void)
{
    if (VT_UNLIKELY(!vt_tls_tid))
        vt_tls_tid = (uint32_t)syscall(SYS_gettid);
    return vt_tls_tid;
}

void vt_lock_slow(int self, int c);
/* How many takes found the lock held, in this process so far. */
unsigned long vt_lock_contended_takes(void);

/* Inline: the take and the give are on every recorded call. */
static inline void vt_lock_take(void)
{
    int self = (int)vt_current_tid(), c = 0;
    if (VT_LIKELY(atomic_compare_exchange_strong_explicit(
            &vt_lock_word, &c, self, memory_order_acquire, memory_order_relaxed)))
        return;
    vt_lock_slow(self, c);
}

static inline void vt_lock_give(void)
{
    if (VT_UNLIKELY(atomic_exchange_explicit(&vt_lock_word, 0, memory_order_release) &
                    VT_LOCK_WAITERS))
        syscall(SYS_futex, &vt_lock_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Whether this thread holds vt_lock (a signal handler that forks inside vramtrace's work). */
static inline bool vt_lock_held_here(void)
{
    int owner = atomic_load_explicit(&vt_lock_word, memory_order_relaxed) & ~VT_LOCK_WAITERS;
    return owner == (int)vt_current_tid();
}

/* The fork child: its one thread has a new id. */
static inline void vt_lock_forget_tid(void)
{
    vt_tls_tid = 0;
}

/* The fork child: the lock set free (a release store, so ThreadSanitizer sees an unlock); the
 * parent's threads that waited on it do not exist here. */
static inline void vt_lock_reset(void)
{
    atomic_store_explicit(&vt_lock_word, 0, memory_order_release);
}

#endif

/* SPDX-License-Identifier: MIT */
/* vt_lock (vt_lock.h): its word, its contended path, and the out-of-line take and give for the
 * files whose calls are not on the recording path. */
#include "vt_lock.h"

atomic_int vt_lock_word;
__thread uint32_t vt_tls_tid __attribute__((tls_model("initial-exec")));

/* Takes that found the lock held: counted here, in the contended path only, so the common path
 * pays nothing for it (bench/threads_scaling.sh reads it from the verbose exit log). */
static atomic_ulong contended_takes;

unsigned long vt_lock_contended_takes(void)
{
    return atomic_load_explicit(&contended_takes, memory_order_relaxed);
}

void vt_lock_slow(int self, int c)
{
    atomic_fetch_add_explicit(&contended_takes, 1, memory_order_relaxed);
    /* A short spin first: the critical sections are a few hundred instructions. */
    for (int spin = 0; spin < 64 && c != 0; spin++) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        c = atomic_load_explicit(&vt_lock_word, memory_order_relaxed);
        if (c == 0 && atomic_compare_exchange_strong_explicit(
                          &vt_lock_word, &c, self, memory_order_acquire, memory_order_relaxed))
            return;
    }
    for (;;) {
        if (c == 0) {
            /* Taken as contended: others may still sleep, so the release must wake one. */
            if (atomic_compare_exchange_strong_explicit(&vt_lock_word, &c, self | VT_LOCK_WAITERS,
                                                        memory_order_acquire, memory_order_relaxed))
                return;
            continue;
        }
        if (!(c & VT_LOCK_WAITERS)) {
            int want = c | VT_LOCK_WAITERS;
            if (!atomic_compare_exchange_strong_explicit(
                    &vt_lock_word, &c, want, memory_order_relaxed, memory_order_relaxed))
                continue;
            c = want;
        }
        syscall(SYS_futex, &vt_lock_word, FUTEX_WAIT_PRIVATE, c, NULL, NULL, 0);
        c = atomic_load_explicit(&vt_lock_word, memory_order_relaxed);
    }
}

void vt_track_lock(void)
{
    vt_lock_take();
}

void vt_track_unlock(void)
{
    vt_lock_give();
}

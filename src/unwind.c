/* SPDX-License-Identifier: MIT */
/* Native call-sites: raw instruction pointers from libunwind's unw_backtrace into a caller's
 * stack buffer, without the frames of libvramtrace.so itself. Symbolization happens elsewhere
 * (offline, or per unique stack for the rules). AS-safe: libunwind's local unwinding is, and
 * it is warmed up once in init so the recording path allocates nothing (heaptrack
 * Trace::setup). */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "vt_internal.h"

#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Our own text, so call-sites start at the caller of the shim. */
static uintptr_t self_lo, self_hi;

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t marker = (uintptr_t)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (marker >= lo && marker < hi) {
            /* The whole object: from its first to its last loadable segment. */
            uintptr_t obj_lo = UINTPTR_MAX, obj_hi = 0;
            for (int j = 0; j < info->dlpi_phnum; j++) {
                const ElfW(Phdr) *p = &info->dlpi_phdr[j];
                if (p->p_type != PT_LOAD)
                    continue;
                uintptr_t a = info->dlpi_addr + p->p_vaddr;
                obj_lo = a < obj_lo ? a : obj_lo;
                obj_hi = a + p->p_memsz > obj_hi ? a + p->p_memsz : obj_hi;
            }
            self_lo = obj_lo;
            self_hi = obj_hi;
            return 1;
        }
    }
    return 0;
}

#if defined(__has_feature)
#    define VT_HAS_FEATURE_TSAN __has_feature(thread_sanitizer) /* clang */
#else
#    define VT_HAS_FEATURE_TSAN 0
#endif

/* vt_backtrace: unw_backtrace, except under ThreadSanitizer (VRAMTRACE_SANITIZE=thread). There
 * unw_backtrace's per-thread trace cache, whose TSD destructor re-arms itself to run in the last
 * destructor round, runs after TSan has retired the exiting thread and crashes inside TSan's
 * mutex interceptor (seen in t_cap_threads; TSan's own thread teardown plays the same last-round
 * trick). The step-by-step unwind has no trace cache; it is slower, and only in that build. */
static int vt_backtrace(void **raw, int n_max)
{
#if defined(__SANITIZE_THREAD__) || VT_HAS_FEATURE_TSAN
    unw_context_t context;
    unw_cursor_t cursor;
    if (unw_getcontext(&context) != 0 || unw_init_local(&cursor, &context) != 0)
        return 0;
    int n = 0;
    while (n < n_max && unw_step(&cursor) > 0) {
        unw_word_t ip;
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0)
            break;
        raw[n++] = (void *)(uintptr_t)ip;
    }
    return n;
#else
    return unw_backtrace(raw, n_max);
#endif
}

/* ---- per-thread frame buffers ----------------------------------------------------------------- */

enum { OWN_FRAMES_MAX = 8 }; /* frames of libvramtrace.so itself at the top of a capture */

/* What a capture needs, per thread, in one anonymous mapping made at the thread's first call and
 * unmapped at its exit (a pthread key's destructor): the frames, off the program's stack, the
 * thread's stack bounds, looked up once (pthread_getattr_np), for vt_stack_room, and the stack
 * the capture runs on (vt_run_capture), above a guard page:
 *   [vt_frames_t, page-rounded][guard page][capture stack, CAPTURE_STACK_BYTES]
 * The capture stack is reserved, not committed: a capture touches ~10 KiB of it. It is large
 * because a signal handler of the program that interrupts a capture runs on it too. */
struct vt_frames_s {
    void *raw[VT_MAX_FRAMES + OWN_FRAMES_MAX];
    void *ips[VT_MAX_FRAMES];
    uintptr_t stack_lo, stack_hi; /* 0: unknown */
    void *capture_stack_top;      /* NULL: none (the guard page could not be made) */
};

#define PAGE_BYTES          4096u
#define CAPTURE_STACK_BYTES (128u << 10)
#define FRAMES_HEAD_BYTES   ((sizeof(vt_frames_t) + PAGE_BYTES - 1) / PAGE_BYTES * PAGE_BYTES)
#define FRAMES_MAP_BYTES    (FRAMES_HEAD_BYTES + PAGE_BYTES + CAPTURE_STACK_BYTES)

static __thread vt_frames_t *tls_frames __attribute__((tls_model("initial-exec")));
static pthread_key_t frames_key;
static bool frames_key_made;

static void frames_release(void *p)
{
    tls_frames = NULL; /* a later call in this thread's exit maps a new one */
    munmap(p, FRAMES_MAP_BYTES);
}

/* The main thread's stack: from the top the loader recorded down to RLIMIT_STACK below it (it
 * grows on demand up to there; pthread_getattr_np would read /proc/self/maps with stdio). */
extern void *__libc_stack_end;

static void main_stack_bounds(vt_frames_t *f)
{
    struct rlimit limit;
    uintptr_t hi = (uintptr_t)__libc_stack_end;
    if (!hi || getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
        limit.rlim_cur >= hi)
        return;
    f->stack_lo = hi - limit.rlim_cur;
    f->stack_hi = hi + PAGE_BYTES; /* the frames above it: arguments, environment, auxv */
}

/* This thread's frame buffer, made at its first call; NULL when it cannot be mapped. */
vt_frames_t *vt_thread_frames(void)
{
    vt_frames_t *f = tls_frames;
    if (VT_LIKELY(f))
        return f;
    void *p = mmap(NULL, FRAMES_MAP_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    f = p;
    if (mprotect((char *)p + FRAMES_HEAD_BYTES, PAGE_BYTES, PROT_NONE) == 0)
        f->capture_stack_top = (char *)p + FRAMES_MAP_BYTES;
    pthread_attr_t attr;
    if ((pid_t)syscall(SYS_gettid) == getpid()) {
        main_stack_bounds(f);
    } else if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void *addr = NULL;
        size_t size = 0;
        if (pthread_attr_getstack(&attr, &addr, &size) == 0 && addr) {
            f->stack_lo = (uintptr_t)addr;
            f->stack_hi = (uintptr_t)addr + size;
        }
        pthread_attr_destroy(&attr);
    }
    if (frames_key_made)
        pthread_setspecific(frames_key, f);
    tls_frames = f;
    return f;
}

void **vt_frames_ips(vt_frames_t *f)
{
    return f->ips;
}

/* Whether sp is on an alternate signal stack now (the kernel's own test); *lo: its bottom. */
static bool on_signal_stack(uintptr_t sp, uintptr_t *lo)
{
    stack_t ss;
    if (sigaltstack(NULL, &ss) != 0 || !(ss.ss_flags & SS_ONSTACK) || sp <= (uintptr_t)ss.ss_sp ||
        sp > (uintptr_t)ss.ss_sp + ss.ss_size)
        return false;
    *lo = (uintptr_t)ss.ss_sp;
    return true;
}

/* vt_stack_room: whether this thread's stack has bytes left below the caller's frame: on the
 * thread's own stack (bounds from vt_thread_frames) or on an alternate signal stack. A stack of
 * the program's own making (makecontext, a coroutine) is not known: no room. */
__attribute__((noinline)) bool vt_stack_room(vt_frames_t *f, size_t bytes)
{
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    if (!f->stack_lo)
        return true;
    if (sp > f->stack_lo && sp <= f->stack_hi)
        return sp - f->stack_lo >= bytes;
    uintptr_t lo = 0;
    return on_signal_stack(sp, &lo) && sp - lo >= bytes;
}

__attribute__((noinline)) bool vt_run_capture(vt_frames_t *f, void (*fn)(void *), void *arg)
{
#if VT_HAVE_STACK_SWITCH
    /* Never from an alternate signal stack: the kernel tells whether a thread is on it by its
     * stack pointer, so a second signal arriving while we ran elsewhere would be delivered at
     * the top of the alternate stack, over the frames of the handler we interrupted. On the
     * thread's own stack (the bounds test, no system call) or a stack of the program's making
     * (asked), switching is safe. */
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0), lo = 0;
    if (f->capture_stack_top &&
        ((sp > f->stack_lo && sp <= f->stack_hi) || !on_signal_stack(sp, &lo))) {
        vt_call_on_stack(fn, arg, f->capture_stack_top);
        return true;
    }
#endif
    if (!vt_stack_room(f, VT_CAPTURE_STACK_BYTES))
        return false;
    fn(arg);
    return true;
}

/* vt_unwind_init: per-thread caches for libunwind (no global lock on the recording path) and
 * one unwind to make libunwind do its one-time allocations now. Called once from init. */
void vt_unwind_init(void)
{
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    frames_key_made = pthread_key_create(&frames_key, frames_release) == 0;
    dl_iterate_phdr(find_self, (void *)(uintptr_t)&vt_unwind_init);
    void *warm[8];
    vt_backtrace(warm, 8);
}

/* The most frames of libvramtrace.so itself seen at the top of this thread's stack (the shim,
 * the recording path, this file): each unwound frame costs ~75 instructions, so the unwind asks
 * for max_frames plus these rather than plus OWN_FRAMES_MAX (4 frames fewer through the
 * runtime door, ~300 instructions at depth 64). */
static __thread int tls_own_frames __attribute__((tls_model("initial-exec")));

/* vt_unwind: at most max_frames return addresses of the current thread, innermost first,
 * starting at the first frame outside libvramtrace.so among the first OWN_FRAMES_MAX ones.
 * Returns the number written. */
int vt_unwind(void **ips, int max_frames)
{
    vt_frames_t *f = vt_thread_frames();
    if (max_frames <= 0 || !f)
        return 0;
    void **raw = f->raw;
    if (max_frames > VT_MAX_FRAMES)
        max_frames = VT_MAX_FRAMES;
    int asked = max_frames + tls_own_frames;
    int n = vt_backtrace(raw, asked);
    int skip = 0;
    while (skip < n && (uintptr_t)raw[skip] >= self_lo && (uintptr_t)raw[skip] < self_hi)
        skip++;
    if (skip > tls_own_frames) {
        tls_own_frames = skip < OWN_FRAMES_MAX ? skip : OWN_FRAMES_MAX;
        /* More of our own frames than asked for: when the stack went on, ask again as many as
         * the full count would have, so the answer is the same as with it. */
        if (n == asked && n - skip < max_frames && asked < max_frames + OWN_FRAMES_MAX) {
            n = vt_backtrace(raw, max_frames + OWN_FRAMES_MAX);
            skip = 0;
            while (skip < n && (uintptr_t)raw[skip] >= self_lo && (uintptr_t)raw[skip] < self_hi)
                skip++;
        }
    }
    int n_out = n - skip < max_frames ? n - skip : max_frames;
    if (n_out <= 0)
        return 0;
    memcpy(ips, raw + skip, (size_t)n_out * sizeof *ips);
    return n_out;
}

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
#include <string.h>

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

/* vt_unwind_init: per-thread caches for libunwind (no global lock on the recording path) and
 * one unwind to make libunwind do its one-time allocations now. Called once from init. */
void vt_unwind_init(void)
{
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
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
    enum { OWN_FRAMES_MAX = 8 };
    void *raw[VT_MAX_FRAMES + OWN_FRAMES_MAX];
    if (max_frames <= 0)
        return 0;
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

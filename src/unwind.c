/* SPDX-License-Identifier: MIT */
/* Native call-sites: raw instruction pointers, exactly those libunwind's unw_backtrace gives,
 * into a caller's buffer, without the frames of libvramtrace.so itself. On x86-64 most captures
 * never enter libunwind: a process-wide cache holds the unwind rule of each return address met
 * (CFA = %rsp or %rbp + offset, return address at CFA-8, %rbp unchanged or saved), read from
 * .eh_frame (cfi.c) and checked against one libunwind step the first time, and a short loop
 * applies those rules; any frame it does not know or understand, or a frame outside the thread's
 * stack, sends the whole capture to unw_backtrace. Symbolization happens elsewhere (offline, or
 * per unique stack for the rules). AS-safe: libunwind's local unwinding is, and it is warmed up
 * once in init so the recording path allocates nothing (heaptrack Trace::setup). */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "vt_internal.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- libunwind, opened when it is first needed ---------------------------------------------- */

/* libunwind is not linked: every process that gets LD_PRELOAD (most of them never use CUDA)
 * would pay at its start for opening, mapping and relocating it and liblzma, ~0.2 ms of CPU
 * here (bench/loads.sh, docs/benchmarks.md). vt_unwind_init opens it, at the process's first
 * call-site (vt_callsites_setup); tests that capture without init open it at their first
 * capture. Its functions are called through this table, by their names in libunwind.h: the
 * macros below send the calls in this file there. Where it cannot be opened (one warning, since
 * every call-site is then unknown), captures the rule cache cannot answer have no frames. */
#define VT_STR_(x) #x
#define VT_STR(x)  VT_STR_(x)
static struct {
#if defined(__x86_64__) /* elsewhere unw_getcontext is inline code of the header */
    int (*getcontext)(unw_context_t *);
#endif
    int (*init_local)(unw_cursor_t *, unw_context_t *);
    int (*step)(unw_cursor_t *);
    int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
    int (*backtrace)(void **, int);
    int (*set_caching_policy)(unw_addr_space_t, unw_caching_policy_t);
    unw_addr_space_t *local_addr_space;
} unw_fns;
static bool unw_opened; /* written once, under unw_once */
static pthread_once_t unw_once = PTHREAD_ONCE_INIT;

static void unw_open(void)
{
    void *h = dlopen(VT_LIBUNWIND_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        vt_warn("cannot open %s (%s): call-sites have no native frames", VT_LIBUNWIND_SONAME,
                why ? why : "not found");
        return;
    }
#if defined(__x86_64__)
    *(void **)&unw_fns.getcontext = dlsym(h, VT_STR(unw_tdep_getcontext));
#endif
    *(void **)&unw_fns.init_local = dlsym(h, VT_STR(unw_init_local));
    *(void **)&unw_fns.step = dlsym(h, VT_STR(unw_step));
    *(void **)&unw_fns.get_reg = dlsym(h, VT_STR(unw_get_reg));
    *(void **)&unw_fns.backtrace = dlsym(h, "unw_backtrace");
    *(void **)&unw_fns.set_caching_policy = dlsym(h, VT_STR(unw_set_caching_policy));
    unw_fns.local_addr_space = dlsym(h, VT_STR(unw_local_addr_space));
    unw_opened = unw_fns.init_local && unw_fns.step && unw_fns.get_reg && unw_fns.backtrace &&
                 unw_fns.set_caching_policy && unw_fns.local_addr_space;
#if defined(__x86_64__)
    unw_opened = unw_opened && unw_fns.getcontext;
#endif
    if (!unw_opened)
        vt_warn("%s lacks a function we call: call-sites have no native frames",
                VT_LIBUNWIND_SONAME);
}

/* Whether libunwind's functions can be called, opening it the first time. */
static inline bool unw_ready(void)
{
    if (VT_LIKELY(__atomic_load_n(&unw_opened, __ATOMIC_ACQUIRE)))
        return true;
    pthread_once(&unw_once, unw_open);
    return __atomic_load_n(&unw_opened, __ATOMIC_ACQUIRE);
}

#if defined(__x86_64__)
#    undef unw_getcontext
#    define unw_getcontext(uc) unw_fns.getcontext(uc)
#endif
#undef unw_init_local
#define unw_init_local(c, uc) unw_fns.init_local(c, uc)
#undef unw_step
#define unw_step(c) unw_fns.step(c)
#undef unw_get_reg
#define unw_get_reg(c, r, v) unw_fns.get_reg(c, r, v)
#define unw_backtrace(b, n)  unw_fns.backtrace(b, n)
#undef unw_set_caching_policy
#define unw_set_caching_policy(as, p) unw_fns.set_caching_policy(as, p)
#undef unw_local_addr_space
#define unw_local_addr_space (*unw_fns.local_addr_space)

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
__attribute__((always_inline)) static inline int vt_backtrace(void **raw, int n_max)
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
    /* The few words first, then the frames, innermost first: a capture of up to ~240 frames
     * touches the first page only, so a new thread's buffer faults in one page for them. */
    uintptr_t stack_lo, stack_hi; /* 0: unknown */
    void *capture_stack_top;      /* NULL: none (the guard page could not be made) */
    /* Where the rule-cache walk met a return address without a rule: the frame the cache is
     * filled from. */
    uintptr_t stop_ip, stop_sp, stop_bp;
    uint64_t fast_captures; /* captures the rules answered */
    void *ips[VT_MAX_FRAMES];
    void *raw[VT_MAX_FRAMES + OWN_FRAMES_MAX];
#ifdef VT_UNWIND_CHECK
    void *check[VT_MAX_FRAMES + OWN_FRAMES_MAX];
#endif
};

#define PAGE_BYTES          4096u
#define CAPTURE_STACK_BYTES (128u << 10)
#define FRAMES_HEAD_BYTES   ((sizeof(vt_frames_t) + PAGE_BYTES - 1) / PAGE_BYTES * PAGE_BYTES)
#define FRAMES_MAP_BYTES    (FRAMES_HEAD_BYTES + PAGE_BYTES + CAPTURE_STACK_BYTES)

static __thread vt_frames_t *tls_frames __attribute__((tls_model("initial-exec")));
static pthread_key_t frames_key;
static bool frames_key_made;

/* The mappings of threads that have exited, kept for the threads that come next (a pool's
 * workers come and go): a thread that takes one makes no system call and faults in no page at
 * its first call, where a new mapping costs an mmap, an mprotect and page faults, ~20 µs of a
 * first call's ~25 (bench/first_call). Lock-free slots (an exchange takes, a compare-and-swap
 * gives back), so that taking one stays AS-safe; past the last slot a mapping is unmapped. */
#define SPARE_FRAMES 64
static vt_frames_t *spare_frames[SPARE_FRAMES];

static vt_frames_t *spare_take(void)
{
    for (unsigned i = 0; i < SPARE_FRAMES; i++)
        if (__atomic_load_n(&spare_frames[i], __ATOMIC_RELAXED)) {
            vt_frames_t *f = __atomic_exchange_n(&spare_frames[i], NULL, __ATOMIC_ACQUIRE);
            if (f)
                return f;
        }
    return NULL;
}

static void frames_release(void *p)
{
    tls_frames = NULL; /* a later call in this thread's exit takes another one */
    for (unsigned i = 0; i < SPARE_FRAMES; i++) {
        vt_frames_t *none = NULL;
        if (__atomic_compare_exchange_n(&spare_frames[i], &none, (vt_frames_t *)p, false,
                                        __ATOMIC_RELEASE, __ATOMIC_RELAXED))
            return;
    }
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

/* The guard page below the capture stack: a guard marker where the kernel has them (Linux 6.13,
 * MADV_GUARD_INSTALL), which leaves the mapping whole, else PROT_NONE, which splits it in three
 * (an mprotect now and a longer munmap later: ~8 µs of a new mapping's ~25 here). */
static bool make_guard(void *page)
{
#ifndef MADV_GUARD_INSTALL
#    define MADV_GUARD_INSTALL 102
#endif
    return madvise(page, PAGE_BYTES, MADV_GUARD_INSTALL) == 0 ||
           mprotect(page, PAGE_BYTES, PROT_NONE) == 0;
}

/* This thread's frame buffer, made at its first call; NULL when it cannot be mapped. */
vt_frames_t *vt_thread_frames(void)
{
    vt_frames_t *f = tls_frames;
    if (VT_LIKELY(f))
        return f;
    f = spare_take();
    if (f) {
        /* What was the exited thread's alone; the capture stack and its guard stay. */
        f->stack_lo = f->stack_hi = 0;
        f->stop_ip = f->stop_sp = f->stop_bp = 0;
        f->fast_captures = 0;
    } else {
        void *p = mmap(NULL, FRAMES_MAP_BYTES, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        f = p;
        if (make_guard((char *)p + FRAMES_HEAD_BYTES))
            f->capture_stack_top = (char *)p + FRAMES_MAP_BYTES;
    }
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
 * one unwind to make libunwind do its one-time allocations now. Called once, by the call-site
 * setup (vt_callsites_setup). */
static void warm_up(void *arg)
{
    void *warm[8];
    (void)arg;
    vt_backtrace(warm, 8);
}

void vt_unwind_init(void)
{
    bool ready = unw_ready();
    if (ready)
        unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    frames_key_made = pthread_key_create(&frames_key, frames_release) == 0;
    dl_iterate_phdr(find_self, (void *)(uintptr_t)&vt_unwind_init);
    /* On the capture stack: this runs at the process's first call-site, in whichever thread
     * takes it, whose own stack may be small (libunwind's first unwind parses DWARF on it). */
    vt_frames_t *f = ready ? vt_thread_frames() : NULL;
    if (f)
        vt_run_capture(f, warm_up, NULL);
}

/* ---- the rule cache and its walk ------------------------------------------------------------ */

#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__) && !VT_HAS_FEATURE_TSAN
#    define VT_FAST_UNWIND 1
#else
#    define VT_FAST_UNWIND 0
#endif

/* A rule in one word: bits 0-1 the kind (0: no rule yet, else vt_cfi_kind_t), bit 2 the CFA
 * from %rbp (else %rsp), bits 16-31 rbp_off, bits 32-63 cfa_off (both signed). */
#define RULE_KIND(r)     ((unsigned)(r)&3u)
#define RULE_FROM_RBP(r) (((r) >> 2) & 1u)
#define RULE_RBP_OFF(r)  ((intptr_t)(int16_t)(uint16_t)((r) >> 16))
#define RULE_CFA_OFF(r)  ((intptr_t)(int32_t)(uint32_t)((r) >> 32))

#if VT_FAST_UNWIND /* the cache serves the walk only, which is x86-64's outside TSan */
static uint64_t rule_pack(vt_cfi_rule_t rule)
{
    return (uint64_t)rule.kind | (uint64_t)rule.cfa_from_rbp << 2 |
           (uint64_t)(uint16_t)rule.rbp_off << 16 | (uint64_t)(uint32_t)rule.cfa_off << 32;
}

/* Open addressing, insert-only, shared by every thread without a lock: a slot's return address
 * is claimed with a compare-and-swap, then its rule stored; a reader that sees the address
 * before the rule takes it for a miss. Slots are never reused and each word is written once, so
 * a rule once seen is the address's for good (relaxed loads: the word says it all). Like libunwind's own trace cache, it is not told about modules unloaded
 * and others loaded at the same addresses. 1 MiB of zero pages, touched as rules come. */
#    define RULE_SLOTS  (1u << 16)
#    define RULE_PROBES 8
static struct rule_slot_s {
    uintptr_t ra;
    uint64_t rule;
} rule_slots[RULE_SLOTS];

static inline unsigned rule_hash(uintptr_t ra)
{
    return (unsigned)(((uint64_t)ra * 0x9e3779b97f4a7c15ULL) >> 48);
}

static inline uint64_t rule_find(uintptr_t ra)
{
    unsigned slot = rule_hash(ra);
    for (int i = 0; i < RULE_PROBES; i++, slot = (slot + 1) & (RULE_SLOTS - 1)) {
        uintptr_t key = __atomic_load_n(&rule_slots[slot].ra, __ATOMIC_RELAXED);
        if (key == ra)
            return __atomic_load_n(&rule_slots[slot].rule, __ATOMIC_RELAXED);
        if (!key)
            return 0;
    }
    return 0;
}

static void rule_add(uintptr_t ra, uint64_t rule)
{
    unsigned slot = rule_hash(ra);
    for (int i = 0; i < RULE_PROBES; i++, slot = (slot + 1) & (RULE_SLOTS - 1)) {
        uintptr_t key = 0;
        if (__atomic_compare_exchange_n(&rule_slots[slot].ra, &key, ra, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            __atomic_store_n(&rule_slots[slot].rule, rule, __ATOMIC_RELEASE);
            return;
        }
        if (key == ra) /* another thread's */
            return;
    }
}
#endif

/* Captures of this thread the rules answered (tests, benchmarks). */
uint64_t vt_unwind_fast_count(void)
{
    vt_frames_t *f = vt_thread_frames();
    return f ? f->fast_captures : 0;
}

enum { WALK_UNKNOWN = -1, WALK_OTHER = -2 };

#if VT_FAST_UNWIND
/* vt_fast_backtrace(raw, max, f): unw_backtrace's answer from the rules alone, or WALK_UNKNOWN
 * (a return address without a rule: f->stop_* say where) or WALK_OTHER (libunwind's to do).
 * The entry takes the caller's return address, stack pointer and %rbp as unw_getcontext
 * would, and goes on in vt_fast_walk. */
int vt_fast_backtrace(void **raw, int max, vt_frames_t *f);
__asm__(".text\n"
        ".p2align 4\n"
        ".globl vt_fast_backtrace\n"
        ".hidden vt_fast_backtrace\n"
        ".type vt_fast_backtrace, @function\n"
        "vt_fast_backtrace:\n"
        ".cfi_startproc\n"
        "    movq (%rsp), %rcx\n"
        "    leaq 8(%rsp), %r8\n"
        "    movq %rbp, %r9\n"
        "    jmp vt_fast_walk\n"
        ".cfi_endproc\n"
        ".size vt_fast_backtrace, .-vt_fast_backtrace\n");

/* The walk: each frame's CFA from its rule, checked to lie above the last one and within the
 * stack before anything is read from it; stops as unw_backtrace does (max frames, the
 * outermost frame, a return address below 0x4000). A capture that runs on the thread's capture
 * stack (vt_run_capture) leaves it once, through vt_call_on_stack's frame, whose CFA is on the
 * thread's own stack. Reads only the stack's return-address and saved-%rbp slots, which
 * AddressSanitizer does not own. */
__attribute__((used, visibility("hidden"), no_sanitize_address)) int
vt_fast_walk(void **raw, int max, vt_frames_t *f, uintptr_t ip, uintptr_t sp, uintptr_t bp)
{
    uintptr_t hi = f->stack_hi, switch_ip = 0;
#    if VT_HAVE_STACK_SWITCH
    uintptr_t capture_hi = (uintptr_t)f->capture_stack_top;
    if (sp < capture_hi && sp >= capture_hi - CAPTURE_STACK_BYTES) {
        hi = capture_hi;
        switch_ip = (uintptr_t)vt_call_on_stack;
    } else
#    endif
        if (sp < f->stack_lo || sp >= hi) {
        return WALK_OTHER;
    }
    if (max <= 0)
        return 0;
    void **out = raw, **end = raw + max;
    *out++ = (void *)ip;
    while (out < end) {
        /* The first probe inline: the table is sparse, most rules are where they hash. */
        const struct rule_slot_s *slot = &rule_slots[rule_hash(ip)];
        uint64_t rule = __atomic_load_n(&slot->ra, __ATOMIC_RELAXED) == ip
                            ? __atomic_load_n(&slot->rule, __ATOMIC_RELAXED)
                            : rule_find(ip);
        if (VT_UNLIKELY(RULE_KIND(rule) != VT_CFI_STANDARD)) {
            if (RULE_KIND(rule) == VT_CFI_LAST)
                break;
            if (RULE_KIND(rule) == VT_CFI_OTHER)
                return WALK_OTHER;
            f->stop_ip = ip;
            f->stop_sp = sp;
            f->stop_bp = bp;
            return WALK_UNKNOWN;
        }
        uintptr_t cfa = (RULE_FROM_RBP(rule) ? bp : sp) + (uintptr_t)RULE_CFA_OFF(rule);
        /* sp + 8 <= cfa <= hi: the return address's slot above this frame, within the stack. A
         * rule from %rsp keeps its saved %rbp above sp (checked when it was added); one from %rbp
         * is checked here. */
        if (VT_UNLIKELY(cfa < sp + 8 || cfa > hi)) {
            /* Off the capture stack: only vt_call_on_stack's frame (its return address within
             * the trampoline's few instructions), onto the thread's stack, with its saved %rbp
             * and return address at CFA-16 and CFA-8. */
            if (ip - switch_ip >= 64 || cfa - 16 < f->stack_lo || cfa > f->stack_hi)
                return WALK_OTHER;
            switch_ip = 0;
            hi = f->stack_hi;
            sp = cfa - 16;
        }
        intptr_t rbp_off = RULE_RBP_OFF(rule);
        ip = *(const uintptr_t *)(cfa - 8);
        if (rbp_off) {
            uintptr_t slot_at = cfa + (uintptr_t)rbp_off;
            if (VT_UNLIKELY(slot_at < sp))
                return WALK_OTHER;
            bp = *(const uintptr_t *)slot_at;
        }
        sp = cfa;
        if (ip < 0x4000)
            break;
        *out++ = (void *)ip;
    }
    return (int)(out - raw);
}

/* Rules for the return addresses from where the walk stopped outwards, at most max of them:
 * each read from .eh_frame and kept only when one libunwind step from the same registers
 * agrees with it (CFA, return address, %rbp); an address libunwind ends the stack at is the
 * outermost frame, as libunwind's own trace cache remembers it. libunwind starts from a
 * context of the stopped frame, its instruction pointer on the call (as for a return address)
 * and the other registers this function's own: the rules kept read none of them. */
__attribute__((noinline, no_sanitize_address)) static void fill_rules(const vt_frames_t *f, int max)
{
    unw_context_t context;
    unw_cursor_t cursor;
    if (unw_getcontext(&context) != 0)
        return;
    context.uc_mcontext.gregs[REG_RIP] = (greg_t)(f->stop_ip - 1);
    context.uc_mcontext.gregs[REG_RSP] = (greg_t)f->stop_sp;
    context.uc_mcontext.gregs[REG_RBP] = (greg_t)f->stop_bp;
    if (unw_init_local(&cursor, &context) != 0)
        return;
    uintptr_t ip = f->stop_ip, sp = f->stop_sp, bp = f->stop_bp;
    for (int i = 0; i < max; i++) {
        int step = unw_step(&cursor);
        bool known = RULE_KIND(rule_find(ip)) != 0;
        if (step <= 0) {
            if (!known)
                rule_add(ip, step == 0 ? VT_CFI_LAST : VT_CFI_OTHER);
            return;
        }
        unw_word_t next_ip, next_sp, next_bp;
        if (unw_get_reg(&cursor, UNW_REG_IP, &next_ip) != 0 ||
            unw_get_reg(&cursor, UNW_REG_SP, &next_sp) != 0 ||
            unw_get_reg(&cursor, UNW_X86_64_RBP, &next_bp) != 0)
            return;
        if (!known) {
            vt_cfi_rule_t rule = vt_cfi_rule(ip);
            uint64_t packed = VT_CFI_OTHER;
            /* The walk reads a rule from %rsp without checking its %rbp slot is above sp. */
            if (rule.kind == VT_CFI_STANDARD && !rule.cfa_from_rbp &&
                (rule.cfa_off < 8 || rule.rbp_off < -rule.cfa_off))
                rule.kind = VT_CFI_OTHER;
            if (rule.kind == VT_CFI_STANDARD) {
                uintptr_t cfa = (rule.cfa_from_rbp ? bp : sp) + (uintptr_t)(intptr_t)rule.cfa_off;
                if (cfa == next_sp && *(const uintptr_t *)(cfa - 8) == next_ip &&
                    (rule.rbp_off ? *(const uintptr_t *)(cfa + (uintptr_t)(intptr_t)rule.rbp_off)
                                  : bp) == next_bp)
                    packed = rule_pack(rule);
            }
            rule_add(ip, packed);
        }
        ip = next_ip;
        sp = next_sp;
        bp = next_bp;
    }
}
#endif

#ifdef VT_UNWIND_CHECK
/* The check build: every capture the rules answered is taken again by unw_backtrace from the
 * same function and must be the same, past the first frame (two call-sites here). */
static void check_same(void *const *fast, int n_fast, void *const *slow, int n_slow)
{
    bool same = n_fast == n_slow;
    for (int i = 1; same && i < n_fast; i++)
        same = fast[i] == slow[i];
    if (same)
        return;
    fprintf(stderr, "vramtrace: unwind check: the rule cache gave %d frames, unw_backtrace %d\n",
            n_fast, n_slow);
    for (int i = 0; i < n_fast || i < n_slow; i++)
        fprintf(stderr, "  %3d %18p %18p\n", i, i < n_fast ? fast[i] : NULL,
                i < n_slow ? slow[i] : NULL);
    abort();
}
#endif

/* The capture itself: the frames as unw_backtrace gives them, raw[0] this function's own
 * return address (one call-site of the walk, so a rule filled for it serves the retry), raw[1]
 * the caller's. Never inlined and never a tail call, so that both ways give the same frames. */
__attribute__((noinline)) static int capture(vt_frames_t *f, void **raw, int max)
{
    int n;
#if VT_FAST_UNWIND
    for (int fills = 0;; fills++) {
        n = vt_fast_backtrace(raw, max, f);
        if (n != WALK_UNKNOWN || fills == 1 || !unw_ready())
            break;
        fill_rules(f, max);
    }
    if (n >= 0) {
        f->fast_captures++;
#    ifdef VT_UNWIND_CHECK
        check_same(raw, n, f->check, unw_backtrace(f->check, max));
#    endif
        return n;
    }
#else
    (void)f;
#endif
    n = unw_ready() ? vt_backtrace(raw, max) : 0;
    __asm__ volatile("" : : "r"(n) : "memory"); /* not a tail call: this frame is raw[0]'s */
    return n;
}

int vt_unwind_raw(void **raw, int n)
{
    vt_frames_t *f = vt_thread_frames();
    int got = f ? capture(f, raw, n) : 0;
    __asm__ volatile("" : : "r"(got) : "memory"); /* not a tail call: this frame is raw[1]'s */
    return got;
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
    int n = capture(f, raw, asked);
    int skip = 0;
    while (skip < n && (uintptr_t)raw[skip] >= self_lo && (uintptr_t)raw[skip] < self_hi)
        skip++;
    if (skip > tls_own_frames) {
        tls_own_frames = skip < OWN_FRAMES_MAX ? skip : OWN_FRAMES_MAX;
        /* More of our own frames than asked for: when the stack went on, ask again as many as
         * the full count would have, so the answer is the same as with it. */
        if (n == asked && n - skip < max_frames && asked < max_frames + OWN_FRAMES_MAX) {
            n = capture(f, raw, max_frames + OWN_FRAMES_MAX);
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

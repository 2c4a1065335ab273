/* SPDX-License-Identifier: MIT */
/* The program's own references to CUDA, reached without exporting a single CUDA name: every
 * loaded object's call and address slots (its GOT) that name a row of hooks.def are pointed at
 * our shims (got.c), so a process that never loads CUDA finds no CUDA symbol in its global
 * scope, while a program linked with -lcuda or -lcudart is traced as before (docs/design.md,
 * doors 3 and 4). The slots are turned three times over: during the loader's startup, for the
 * objects already relocated, before any constructor runs (a NEEDED library's constructor may
 * allocate before ours runs); in our constructor, for the rest; and after every load, through
 * the dlsym, dlopen and dlmopen doors here (the exports; resolve.c answers dlsym). */
#include "vt_internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- the refresh ------------------------------------------------------------------------------ */

/* Objects already looked at for good (patched, or naming none of the shims' functions), by the
 * address of their dynamic section (unique while loaded): a refresh after a load looks only at
 * the new ones. Cleared when any object was unloaded, since a new one may then sit at a freed
 * address. Past the table's size an object is simply looked at again at every refresh (a pass
 * over slots already turned writes nothing). */
#define MAX_DONE 4096
#define HOT_DONE 64 /* as many as most processes have, in .data (VT_HOT_DATA); the rest in .bss */
static pthread_mutex_t refresh_lock VT_HOT_DATA = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t done_first[HOT_DONE] VT_HOT_DATA;
static uintptr_t done_more[MAX_DONE - HOT_DONE];
static size_t n_done VT_HOT_DATA;
static unsigned long long seen_adds VT_HOT_DATA, seen_subs VT_HOT_DATA; /* the loader's counters
                                                                          at the last refresh */
/* Whether an object looked at is the CUDA driver or runtime, or names a shim's function. */
static bool found_cuda VT_HOT_DATA;
/* Whether real functions were stored by the visitor since vt_pin_reals last ran. */
static bool reals_unpinned VT_HOT_DATA;
/* Whether the startup patch left an object that names a shim's function to the constructor. */
static bool startup_left VT_HOT_DATA;

VT_NO_SANITIZE static uintptr_t *done_at(size_t i)
{
    return i < HOT_DONE ? &done_first[i] : &done_more[i - HOT_DONE];
}

VT_NO_SANITIZE static bool was_done(uintptr_t dynamic)
{
    for (size_t i = 0; i < n_done; i++)
        if (*done_at(i) == dynamic)
            return true;
    return false;
}

VT_NO_SANITIZE static void note_done(uintptr_t dynamic)
{
    if (n_done < MAX_DONE)
        *done_at(n_done++) = dynamic;
}

/* Whether path names the CUDA driver or runtime (libcuda.so*, libcudart.so*). No libc: asked at
 * startup too. */
VT_NO_SANITIZE static bool is_cuda_file(const char *path)
{
    const char *base = path;
    for (const char *p = path; p && *p; p++)
        if (*p == '/')
            base = p + 1;
    static const char driver[] = "libcuda.so", runtime[] = "libcudart.so";
    size_t i = 0;
    while (base && driver[i] && base[i] == driver[i])
        i++;
    if (base && !driver[i])
        return true;
    for (i = 0; base && runtime[i] && base[i] == runtime[i];)
        i++;
    return base && !runtime[i];
}

bool vt_loads_found_cuda(void)
{
    return found_cuda;
}

/* True when the object belongs to the program's own namespace (the loader's list in _r_debug;
 * found by its dynamic section). An object dlmopened into another namespace never saw the
 * preloaded library, and its references lead to its own copy of CUDA, whose functions must not
 * become the real ones of ours: it is left alone. */
VT_NO_SANITIZE static bool in_base_namespace(const struct dl_phdr_info *info)
{
    uintptr_t dynamic = 0;
    for (int i = 0; i < info->dlpi_phnum && !dynamic; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dynamic = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
    for (const struct link_map *l = _r_debug.r_map; l && dynamic; l = l->l_next)
        if ((uintptr_t)l->l_ld == dynamic)
            return true;
    return false;
}

/* Whether a listed object is relocated. glibc lists an object (and counts it in dlpi_adds) when
 * it maps it, before it relocates it, and relocates it holding its own load lock, not the list
 * lock dl_iterate_phdr takes: a walk can meet an object another thread's dlopen is relocating.
 * Patching one then is unsafe twice over: the loader's later relocation overwrites the slot (the
 * object, marked done, is never turned again), and a slot under RELRO is written by making
 * its page writable and read-only again, after which the loader's next store to that page
 * faults. Nothing public says when an object's relocation is done (link_map's l_relocated is
 * private), but every dlopen of the program passes our doors, which count the loads in flight:
 * when no other thread has one in flight, every listed object is relocated (a dlopen lists its
 * objects after the door counted it, under the list lock the walk holds, and uncounts it only
 * after glibc returned; this thread's own loads in flight, when a constructor asks for a
 * refresh, have relocated all their objects before running any constructor). Otherwise the
 * walk turns only the object its own dlopen door returned, and leaves the others, unmarked, to
 * the next refresh (each load's own door refreshes after it). A dlopen outside our doors (glibc
 * opening a module for itself, a caller of the function glibc's own handle gives) is not
 * counted: for those, vt_got_relocated's reading of the object's last relocation is what
 * stands between the walk and an object being relocated. */
static unsigned long loads_in_flight VT_HOT_DATA; /* door dlopens in flight, every thread */
static __thread unsigned long my_loads_in_flight; /* this thread's */

typedef struct refresh_s {
    bool first;
    bool deferred;           /* an object was left for the next refresh */
    unsigned long long adds; /* dlpi_adds read under the list lock */
    bool settled;            /* no other thread's door load in flight */
    uintptr_t done_ld;       /* the dynamic section of an object known relocated (0: none) */
} refresh_t;

static uintptr_t dynamic_of(const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            return info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
    return 0;
}

static int refresh_one(struct dl_phdr_info *info, size_t size, void *ctx)
{
    refresh_t *r = ctx;
    if (r->first) {
        r->first = false;
        if (info->dlpi_adds == seen_adds && info->dlpi_subs == seen_subs)
            return 1; /* nothing loaded or unloaded since the last refresh */
        if (info->dlpi_subs != seen_subs) {
            n_done = 0;
            vt_modules_unloaded(); /* the call-sites' caches, by address, may be stale */
        }
        seen_subs = info->dlpi_subs;
        r->adds = info->dlpi_adds;
        r->settled = __atomic_load_n(&loads_in_flight, __ATOMIC_SEQ_CST) == my_loads_in_flight;
    }
    (void)size;
    uintptr_t dynamic = dynamic_of(info);
    if (is_cuda_file(info->dlpi_name))
        found_cuda = true;
    if (!dynamic || vt_is_own_address(info->dlpi_phdr) || was_done(dynamic) ||
        !in_base_namespace(info))
        return 0;
    if (!vt_got_names(info->dlpi_addr, (const void *)dynamic, vt_is_hooked_name)) {
        note_done(dynamic);
        return 0;
    }
    found_cuda = true;
    bool relocated = r->settled || (r->done_ld && dynamic == r->done_ld);
    if (!relocated || vt_got_relocated(info) == 0) {
        r->deferred = true;
        return 0;
    }
    vt_got_patch(info, vt_patch_visit, NULL);
    reals_unpinned = true;
    note_done(dynamic);
    return 0;
}

/* The refresh; done: an object the caller knows relocated (its dlopen returned it), or NULL. */
static void refresh(const struct link_map *done)
{
    int saved_errno = errno;
    int cancel_state = 0;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    pthread_mutex_lock(&refresh_lock);
    refresh_t r = {.first = true, .done_ld = done ? (uintptr_t)done->l_ld : 0};
    dl_iterate_phdr(refresh_one, &r);
    if (!r.first && !r.deferred && r.adds)
        seen_adds = r.adds; /* every object listed then was looked at */
    if (reals_unpinned) {
        reals_unpinned = false;
        vt_pin_reals(); /* outside dl_iterate_phdr: it takes the loader's lock */
    }
    pthread_mutex_unlock(&refresh_lock);
    pthread_setcancelstate(cancel_state, &cancel_state);
    errno = saved_errno;
}

void vt_loads_refresh(void)
{
    refresh(NULL);
}

/* ---- at startup, before any constructor --------------------------------------------------------- */

/* The loader relocates every object before it runs any constructor, and relocates a preloaded
 * library after the program's NEEDED libraries (and before the program). Our own relocation ends
 * with the IRELATIVE relocation of vt_loads_startup below, whose resolver is therefore the first
 * code of ours to run. It looks at every object once: one that names none of the shims'
 * functions in its call and address slots (every object of a process that does not use CUDA)
 * is done for good, told by its dynamic section alone (vt_got_names); one that does is patched
 * when it is relocated already (the others would be overwritten by their own relocation, and a
 * read-only RELRO page of theirs would stop it; the loader relocates one object at a time here,
 * so any of its slots tells: vt_got_relocated); the constructor's refresh does the rest. Nothing here may
 * call libc beyond syscall and getpagesize: the thread's TLS is not initialised yet (locale, a
 * sanitizer runtime's state; dl_iterate_phdr is intercepted by the sanitizers, which would start
 * their runtime there). So the loader's list is walked directly (_r_debug: the program's
 * namespace, the only one yet), and an object to patch has its program headers read from its
 * ELF header at its load address, taken only when they describe the dynamic section the loader
 * has for it. */
VT_NO_SANITIZE static void startup_one(const struct link_map *l)
{
    if (!l->l_ld || vt_is_own_address(l->l_ld))
        return;
    if (is_cuda_file(l->l_name))
        found_cuda = true;
    if (!vt_got_names(l->l_addr, l->l_ld, vt_is_hooked_name)) {
        note_done((uintptr_t)l->l_ld);
        return;
    }
    found_cuda = true;
    startup_left = true;
    const ElfW(Ehdr) *e = (const ElfW(Ehdr) *)l->l_addr;
    /* The header is at the load address when the first segment starts at 0, as it does but in
     * odd links: mincore tells whether that page is mapped at all before it is read (the system
     * call itself: the sanitizers intercept mincore). */
    unsigned char resident;
    uintptr_t page = (uintptr_t)getpagesize();
    if (!l->l_addr || syscall(SYS_mincore, l->l_addr & ~(page - 1), 1, &resident) != 0)
        return;
    if (e->e_ident[EI_MAG0] != ELFMAG0 || e->e_ident[EI_MAG1] != ELFMAG1 ||
        e->e_ident[EI_MAG2] != ELFMAG2 || e->e_ident[EI_MAG3] != ELFMAG3)
        return;
    struct dl_phdr_info info = {.dlpi_addr = l->l_addr,
                                .dlpi_name = l->l_name,
                                .dlpi_phdr = (const ElfW(Phdr) *)(l->l_addr + e->e_phoff),
                                .dlpi_phnum = e->e_phnum};
    bool dynamic_matches = false;
    for (int i = 0; i < info.dlpi_phnum; i++)
        if (info.dlpi_phdr[i].p_type == PT_DYNAMIC)
            dynamic_matches = l->l_addr + info.dlpi_phdr[i].p_vaddr == (uintptr_t)l->l_ld;
    /* Not marked done: the constructor's refresh visits it again, when the real functions
     * that objects relocated later bind are known (a weak call slot not bound yet waits for
     * one: vt_patch_visit). */
    if (dynamic_matches && vt_got_relocated(&info) == 1) {
        vt_got_patch_alone(&info, vt_patch_visit, NULL);
        reals_unpinned = true;
    }
}

/* The last object the loader mapped at startup (every object up to it in the list was; they
 * are never unloaded): dlsym(RTLD_NEXT, …) from one of them searches the global scope. */
static const struct link_map *startup_last VT_HOT_DATA;

/* What vt_loads_startup calls, from the constructor: a refresh for the objects the startup patch
 * left (not relocated yet, or patched before the real functions that objects relocated after
 * them bind were known) and for any loaded since. None of either, the common case of a process
 * without CUDA, and there is nothing to do: no library call, no lock. The list's end is read
 * without the loader's lock: an object being added meanwhile by another thread's dlopen is
 * looked at by that dlopen's door, or by the next refresh (seen_adds is still 0). */
static void startup_rest(void)
{
    if (startup_left || !startup_last || __atomic_load_n(&startup_last->l_next, __ATOMIC_ACQUIRE))
        refresh(NULL);
}

VT_NO_SANITIZE static void (*startup_resolver(void))(void)
{
    for (const struct link_map *l = _r_debug.r_map; l; l = l->l_next) {
        startup_one(l);
        startup_last = l;
    }
    return startup_rest;
}

void vt_loads_startup(void) __attribute__((ifunc("startup_resolver")));

/* ---- dlsym(RTLD_NEXT, …) of a hooked name ----------------------------------------------------- */

/* A program, or a library of it, that looks a CUDA function up with dlsym(RTLD_NEXT, name) means
 * "the next definition after me", usually the real one, and calls it: the call must be recorded,
 * as it was when libvramtrace.so exported the name. glibc finds the caller from the return
 * address and searches after it: from an object the loader mapped at startup, the global scope
 * (the program, the preloads, their dependencies, then objects dlopened RTLD_GLOBAL); from an
 * object a dlopen mapped as the one it opened, that object's own dependencies. No public call
 * searches after a given object, so the door works out glibc's answer from what is public, and
 * only where it can prove it; elsewhere glibc answers, unrecorded as before:
 * - the caller before libvramtrace.so in the global scope (the program, a preload listed
 *   before ours): our own glibc RTLD_NEXT answer, when no object between the caller and us
 *   defines the name (nothing of ours does);
 * - the caller after us, mapped at startup: our answer, when the object that defines it comes
 *   after the caller in the list (the global scope keeps that order: startup objects first, in
 *   the list's order, then those added later);
 * - the caller an object a dlopen door mapped as the one opened: the lookup through its own
 *   handle (its own scope, in glibc's order), when the object does not define the name itself.
 * resolve.c then hands out the shim only when that answer is the real function it calls. */

/* The objects our dlopen doors mapped as the one opened (not a dependency): glibc's RTLD_NEXT
 * from them searches their own scope. By link map, with the load address and dynamic section
 * to tell a freed map reused by another object. */
#define MAX_OPENED 256
typedef struct opened_s {
    const struct link_map *map;
    uintptr_t addr, ld;
} opened_t;
static opened_t opened[MAX_OPENED];
static unsigned n_opened;
static pthread_mutex_t opened_lock = PTHREAD_MUTEX_INITIALIZER;

static void note_opened(void *handle)
{
    const struct link_map *map = handle;
    pthread_mutex_lock(&opened_lock);
    unsigned slot = n_opened;
    for (unsigned i = 0; i < n_opened; i++)
        if (opened[i].map == map)
            slot = i; /* a map freed and reused */
    if (slot < MAX_OPENED) {
        opened[slot] = (opened_t){map, map->l_addr, (uintptr_t)map->l_ld};
        n_opened += slot == n_opened;
    }
    pthread_mutex_unlock(&opened_lock);
}

static bool was_opened(const struct link_map *map)
{
    bool found = false;
    pthread_mutex_lock(&opened_lock);
    for (unsigned i = 0; i < n_opened && !found; i++)
        found = opened[i].map == map && opened[i].addr == map->l_addr &&
                opened[i].ld == (uintptr_t)map->l_ld;
    pthread_mutex_unlock(&opened_lock);
    return found;
}

/* What the walk of the loader's list tells about the caller (x), us and the object defining our
 * own answer (c): positions in the program's namespace (-1: not there), the objects between the
 * caller and us, and the caller's span. */
#define MAX_BETWEEN 16
typedef struct next_walk_s {
    const struct link_map *x, *own, *c;
    int x_at, own_at, c_at, startup_end_at;
    const struct link_map *between[MAX_BETWEEN];
    int n_between; /* -1: too many */
    bool listed;
    uintptr_t lo, hi;
} next_walk_t;

/* dl_iterate_phdr callback: the list is read while dl_iterate_phdr holds the loader's list
 * lock, so no object joins or leaves it meanwhile. */
static int next_walk_one(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    next_walk_t *w = ctx;
    if (!w->listed) {
        w->listed = true;
        int at = 0;
        for (const struct link_map *l = _r_debug.r_map; l; l = l->l_next, at++) {
            if (l == w->x)
                w->x_at = at;
            if (l == w->own)
                w->own_at = at;
            if (l == w->c)
                w->c_at = at;
            if (l == startup_last)
                w->startup_end_at = at;
            if (w->x_at < 0 || w->own_at >= 0 || l == w->x || w->n_between < 0)
                continue;
            if (w->n_between < MAX_BETWEEN)
                w->between[w->n_between++] = l;
            else
                w->n_between = -1;
        }
    }
    uintptr_t dynamic = 0, lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC)
            dynamic = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD) {
            lo = info->dlpi_addr + ph->p_vaddr < lo ? info->dlpi_addr + ph->p_vaddr : lo;
            hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi
                     ? info->dlpi_addr + ph->p_vaddr + ph->p_memsz
                     : hi;
        }
    }
    if (info->dlpi_addr != w->x->l_addr || dynamic != (uintptr_t)w->x->l_ld)
        return 0;
    w->lo = lo;
    w->hi = hi;
    return 1;
}

/* The object holding address p, or NULL. */
static const struct link_map *object_of(const void *p)
{
    Dl_info info;
    void *map = NULL;
    return p && dladdr1(p, &info, &map, RTLD_DL_LINKMAP) ? map : NULL;
}

/* glibc's answer to dlsym(RTLD_NEXT, name) from the code at caller when it is proven (above),
 * with the caller's span in *lo, *hi; NULL otherwise. */
static void *proven_next(const char *name, const void *caller, uintptr_t *lo, uintptr_t *hi)
{
    static const char own_marker;
    void *(*sym)(void *, const char *) = vt_real_dlsym();
    next_walk_t w = {.x = object_of(caller),
                     .own = object_of(&own_marker),
                     .x_at = -1,
                     .own_at = -1,
                     .c_at = -1,
                     .startup_end_at = -1};
    if (!w.x || !w.own || !sym)
        return NULL;
    /* Called here, so glibc searches after libvramtrace.so. */
    void *ours = sym(RTLD_NEXT, name);
    w.c = object_of(ours);
    dl_iterate_phdr(next_walk_one, &w);
    if (w.x_at < 0 || w.hi == 0)
        return NULL; /* another namespace, or gone */
    *lo = w.lo;
    *hi = w.hi;
    if (w.x_at <= w.startup_end_at) {
        if (!ours || w.c_at < 0)
            return NULL;
        if (w.x_at > w.own_at)
            return w.x_at < w.c_at ? ours : NULL;
        if (w.n_between < 0)
            return NULL;
        for (int i = 0; i < w.n_between; i++) {
            void *def = sym((void *)w.between[i], name);
            if (def && object_of(def) == w.between[i])
                return NULL;
        }
        return ours;
    }
    if (!was_opened(w.x))
        return NULL;
    void *def = sym((void *)w.x, name);
    return def && object_of(def) != w.x ? def : NULL;
}

/* The shim for dlsym(RTLD_NEXT, name) from the code at caller, or NULL (glibc answers). */
static void *next_door(const char *name, const void *caller)
{
    int saved_errno = errno;
    uintptr_t lo = 0, hi = 0;
    void *next = proven_next(name, caller, &lo, &hi);
    void *wrapper = next ? vt_dlsym_next(name, next, lo, hi) : NULL;
    if (wrapper)
        dlerror(); /* as after glibc's own successful lookup: no error left */
    errno = saved_errno;
    return wrapper;
}

/* ---- the dlsym door ------------------------------------------------------------------------------ */

/* The exported dlsym. glibc takes the caller of dlsym(RTLD_NEXT, …) and dlsym's error state
 * from the return address, so the forward must be a jump that leaves the caller's return
 * address in place — at every optimisation level, which C cannot promise (HAMi-core PR #315;
 * door 1 of docs/design.md). The stub keeps the two argument registers across the intercept call
 * (given the return address as a third) and tail-jumps to glibc when it returns NULL. vt_dlsym_door: resolve.c's answer, and the
 * objects loaded where no door of ours saw it patched once a CUDA name is asked for. */
VT_NO_SANITIZE void *vt_dlsym_door(void *handle, const char *name, const void *caller);
VT_NO_SANITIZE void *vt_dlsym_door(void *handle, const char *name, const void *caller)
{
    void *wrapper = NULL;
    if (!vt_real_dlsym())
        return NULL; /* the stub's forward needs it */
    if (handle != RTLD_NEXT)
        wrapper = vt_dlsym_intercept(handle, name);
    else if (vt_is_hooked_name(name) && !vt_is_own_address(caller))
        wrapper = next_door(name, caller);
    if (wrapper)
        vt_loads_refresh();
    return wrapper;
}

#if defined(__x86_64__)
__asm__(".text\n"
        ".globl dlsym\n"
        ".type dlsym, @function\n"
        "dlsym:\n"
        "    .cfi_startproc\n"
        "    mov (%rsp), %rdx\n" /* the caller's return address: vt_dlsym_door's third argument */
        "    push %rdi\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    push %rsi\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    sub $8, %rsp\n" /* 16-byte alignment at the call */
        "    .cfi_adjust_cfa_offset 8\n"
        "    call vt_dlsym_door\n"
        "    add $8, %rsp\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    pop %rsi\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    pop %rdi\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    test %rax, %rax\n"
        "    jz 1f\n"
        "    ret\n"
        "1:  jmp *vt_real_dlsym_ptr(%rip)\n"
        "    .cfi_endproc\n"
        ".size dlsym, .-dlsym\n");
#else
/* Elsewhere the forward is a C tail call, which GCC and clang emit at -O1 and above; the
 * dlsym_rtld_next test catches a build where it is not. */
VT_EXPORT void *dlsym(void *handle, const char *name)
{
    void *wrapper = vt_dlsym_door(handle, name, __builtin_return_address(0));
    if (wrapper)
        return wrapper;
    return vt_real_dlsym_ptr(handle, name);
}
#endif

/* ---- the dlopen and dlmopen doors ---------------------------------------------------------------- */

/* glibc resolves a dlopen by its caller (taken from the return address): the caller's
 * namespace, $ORIGIN in the name, and the caller's RPATH/RUNPATH for a bare name. Our door
 * calls glibc itself, so it reproduces those from the caller's object before it calls: the name
 * with $ORIGIN expanded, a bare name searched in the caller's own directories (dlinfo's search
 * list, in glibc's order, less the tail it shares with ours) unless an object of that name is
 * loaded already, and the caller's namespace. What is left (LD_LIBRARY_PATH, the cache, the
 * default directories) does not depend on the caller. */

typedef void *(*dlopen_fn)(const char *, int);
typedef void *(*dlmopen_fn)(Lmid_t, const char *, int);

/* glibc's own function of that name (the first of three symbol versions it has), looked up
 * once into *cache. */
static void *real_symbol(void **cache, const char *name, const char *const versions[3])
{
    void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    for (size_t i = 0; i < 3 && !f; i++)
        f = dlvsym(RTLD_NEXT, name, versions[i]);
    __atomic_store_n(cache, f, __ATOMIC_RELEASE);
    return f;
}

static dlopen_fn real_dlopen(void)
{
    static void *cache;
    static const char *const versions[3] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17"};
    return (dlopen_fn)real_symbol(&cache, "dlopen", versions);
}

static dlmopen_fn real_dlmopen(void)
{
    static void *cache;
    static const char *const versions[3] = {"GLIBC_2.34", "GLIBC_2.3.4", "GLIBC_2.17"};
    return (dlmopen_fn)real_symbol(&cache, "dlmopen", versions);
}

/* The name with every $ORIGIN / ${ORIGIN} replaced by the caller's directory, into out; false
 * when it does not fit (the name then goes to glibc as it is). */
static bool expand_origin(void *caller, const char *name, char *out, size_t cap)
{
    char origin[PATH_MAX];
    if (dlinfo(caller, RTLD_DI_ORIGIN, origin) != 0)
        return false;
    size_t n = 0, origin_len = strlen(origin);
    for (const char *p = name; *p;) {
        size_t skip = strncmp(p, "$ORIGIN", 7) == 0 ? 7 : strncmp(p, "${ORIGIN}", 9) == 0 ? 9 : 0;
        const char *piece = skip ? origin : p;
        size_t len = skip ? origin_len : 1;
        if (n + len >= cap)
            return false;
        memcpy(out + n, piece, len);
        n += len;
        p += skip ? skip : 1;
    }
    out[n] = '\0';
    return true;
}

/* True when path is an ELF object of our own class and machine, as glibc requires of a
 * candidate before it takes it (a wrong-architecture file is skipped, not an error). */
static bool is_our_kind(const char *path)
{
    extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ElfW(Ehdr) e;
    bool ok = read(fd, &e, sizeof e) == (ssize_t)sizeof e &&
              memcmp(e.e_ident, ELFMAG, SELFMAG) == 0 &&
              e.e_ident[EI_CLASS] == __ehdr_start.e_ident[EI_CLASS] &&
              e.e_machine == __ehdr_start.e_machine;
    close(fd);
    return ok;
}

static Dl_serinfo *search_list(void *object)
{
    Dl_serinfo size;
    if (dlinfo(object, RTLD_DI_SERINFOSIZE, &size) != 0)
        return NULL;
    Dl_serinfo *list = malloc(size.dls_size);
    if (!list)
        return NULL;
    *list = size;
    if (dlinfo(object, RTLD_DI_SERINFO, list) != 0) {
        free(list);
        return NULL;
    }
    return list;
}

/* The caller's own directories' file for a bare name, into out; false when none. */
static bool search_as(void *caller, const char *name, char *out, size_t cap)
{
    static char own_marker;
    Dl_info own_info;
    void *own = NULL;
    if (!dladdr1(&own_marker, &own_info, &own, RTLD_DL_LINKMAP) || !own)
        return false;
    Dl_serinfo *theirs = search_list(caller), *ours = search_list(own);
    bool found = false;
    if (theirs && ours) {
        /* The directories both search last (LD_LIBRARY_PATH when the caller has no RUNPATH,
         * the default ones) are searched by glibc for us, in the same place of the order. */
        unsigned shared = 0;
        while (shared < theirs->dls_cnt && shared < ours->dls_cnt &&
               strcmp(theirs->dls_serpath[theirs->dls_cnt - 1 - shared].dls_name,
                      ours->dls_serpath[ours->dls_cnt - 1 - shared].dls_name) == 0)
            shared++;
        for (unsigned i = 0; i + shared < theirs->dls_cnt && !found; i++) {
            const char *dir = theirs->dls_serpath[i].dls_name;
            size_t dir_len = strlen(dir), name_len = strlen(name);
            if (dir_len + 1 + name_len >= cap)
                continue;
            memcpy(out, dir, dir_len);
            out[dir_len] = '/';
            memcpy(out + dir_len + 1, name, name_len + 1);
            found = is_our_kind(out);
        }
    }
    free(theirs);
    free(ours);
    return found;
}

static void *open_in(bool base, Lmid_t ns, const char *name, int mode)
{
    return base ? real_dlopen()(name, mode) : real_dlmopen()(ns, name, mode);
}

/* What the caller's dlopen (have_ns false) or dlmopen(ns, …) would open, opened. No lock is
 * held across glibc's dlopen: the constructors it runs may load more. */
static void *open_as(const void *return_address, bool have_ns, Lmid_t ns, const char *file,
                     int mode)
{
    int saved_errno = errno;
    Dl_info info;
    void *caller = NULL;
    if (!dladdr1(return_address, &info, &caller, RTLD_DL_LINKMAP) || !caller)
        caller = _r_debug.r_map; /* code outside any object (JIT): as from the program */
    if (!have_ns && dlinfo(caller, RTLD_DI_LMID, &ns) != 0)
        ns = LM_ID_BASE;
    bool base = !have_ns && ns == LM_ID_BASE;
    char *expanded = malloc(2 * PATH_MAX), *found = expanded ? expanded + PATH_MAX : NULL;
    const char *name = file;
    void *handle = NULL;
    if (expanded && strchr(name, '$') && expand_origin(caller, name, expanded, PATH_MAX))
        name = expanded;
    bool probed = false; /* name was tried with RTLD_NOLOAD already */
    if (found && !strchr(name, '/')) {
        errno = saved_errno;
        /* Not into a new namespace: that would make one (there are 16 in all). */
        if (ns != LM_ID_NEWLM)
            handle = open_in(base, ns, name, mode | RTLD_NOLOAD);
        probed = ns != LM_ID_NEWLM;
        if (!handle && search_as(caller, name, found, PATH_MAX)) {
            name = found;
            probed = false;
        }
    }
    if (!handle) {
        /* Whether this dlopen maps the object it opens (glibc's RTLD_NEXT from it then searches
         * its own scope: proven_next). */
        void *before = base && !probed ? real_dlopen()(name, RTLD_LAZY | RTLD_NOLOAD) : NULL;
        if (before)
            dlclose(before); /* NOLOAD took a reference */
        dlerror();           /* our own failed attempts leave no error behind */
        errno = saved_errno;
        handle = open_in(base, ns, name, mode);
        if (handle && base && !before)
            note_opened(handle);
    }
    free(expanded);
    return handle;
}

static void *door(const void *return_address, bool have_ns, Lmid_t ns, const char *file, int mode)
{
    int cancel_state = 0;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    /* Counted in flight around glibc's work (the refresh above). */
    __atomic_fetch_add(&loads_in_flight, 1, __ATOMIC_SEQ_CST);
    my_loads_in_flight++;
    void *handle = open_as(return_address, have_ns, ns, file, mode);
    my_loads_in_flight--;
    __atomic_fetch_sub(&loads_in_flight, 1, __ATOMIC_SEQ_CST);
    pthread_setcancelstate(cancel_state, &cancel_state);
    if (handle)
        refresh(have_ns ? NULL : handle); /* keeps errno */
    return handle;
}

VT_EXPORT void *dlopen(const char *file, int mode)
{
    const void *caller = __builtin_return_address(0);
    /* Our own loads (pinning a real function's object) need nothing of this. */
    if (vt_is_own_address(caller) || !file)
        return real_dlopen()(file, mode);
    return door(caller, false, LM_ID_BASE, file, mode);
}

VT_EXPORT void *dlmopen(Lmid_t ns, const char *file, int mode)
{
    const void *caller = __builtin_return_address(0);
    if (vt_is_own_address(caller) || !file)
        return real_dlmopen()(ns, file, mode);
    return door(caller, true, ns, file, mode);
}

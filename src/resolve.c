/* SPDX-License-Identifier: MIT */
/* Where the real CUDA functions come from, and the two doors that hand out our wrappers
 * instead: dlsym's answer (static cudart, cuBLAS, cuDNN, NCCL and XLA look the driver up with
 * it; the export itself is in loads.c) and the substitution step behind cuGetProcAddress and cudaGetDriverEntryPoint
 * (docs/design.md, doors 1 and 2); and the visitor that points an object's references at the
 * wrappers (loads.c, doors 3 and 4). Everything here is AS-safe after the first call:
 * dlsym/dladdr/dlopen(RTLD_NOLOAD) only, no malloc of our own. */
#include "vt_internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>

vt_real_t vt_real;

/* glibc's dlsym, bootstrapped with dlvsym: calling the public dlsym from here would reach our
 * own export (HAMi-core #174, vgpu-manager PR #89). Read by the assembly stub in loads.c. */
void *(*vt_real_dlsym_ptr)(void *, const char *)__attribute__((visibility("hidden")));

VT_NO_SANITIZE void *(*vt_real_dlsym(void))(void *, const char *)
{
    void *(*f)(void *, const char *) = __atomic_load_n(&vt_real_dlsym_ptr, __ATOMIC_ACQUIRE);
    if (VT_LIKELY(f))
        return f;
    /* glibc ≥ 2.34 defines dlsym@@GLIBC_2.34 and keeps dlsym@GLIBC_2.2.5 (x86-64) as the same
     * function; aarch64's oldest node is GLIBC_2.17. */
    static const char *const versions[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17"};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0] && !f; i++)
        f = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", versions[i]);
    __atomic_store_n(&vt_real_dlsym_ptr, f, __ATOMIC_RELEASE);
    return f;
}

/* Our own ELF header, placed by the linker: where libvramtrace.so is mapped, known without a
 * relocation, a lock or a call (the startup patch runs before our relocation is complete). */
extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));

/* True when p lies inside libvramtrace.so itself: between our header and the end of our last
 * loadable segment. */
VT_NO_SANITIZE bool vt_is_own_address(const void *p)
{
    static uintptr_t own_end VT_HOT_DATA; /* computed once from our program headers */
    uintptr_t start = (uintptr_t)&__ehdr_start;
    uintptr_t end = __atomic_load_n(&own_end, __ATOMIC_RELAXED);
    if (!end) {
        const ElfW(Phdr) *ph =
            (const ElfW(Phdr) *)((const char *)&__ehdr_start + __ehdr_start.e_phoff);
        uintptr_t first = UINTPTR_MAX;
        for (int i = 0; i < __ehdr_start.e_phnum; i++)
            if (ph[i].p_type == PT_LOAD) {
                first = ph[i].p_vaddr < first ? ph[i].p_vaddr : first;
                end = ph[i].p_vaddr + ph[i].p_memsz > end ? ph[i].p_vaddr + ph[i].p_memsz : end;
            }
        end = start - first + end;
        __atomic_store_n(&own_end, end, __ATOMIC_RELAXED);
    }
    return (uintptr_t)p >= start && (uintptr_t)p < end;
}

/* ---- the slot table, generated from hooks.def --------------------------------------------- */

typedef struct slot_s {
    const char *name;   /* exported name */
    const char *base;   /* cuGetProcAddress base name, or NULL for runtime / call-only rows */
    int version;        /* cuGetProcAddress ABI version */
    bool per_thread;    /* a _ptsz variant */
    size_t real_offset; /* where in vt_real the real pointer lives */
    void *wrapper;      /* our export, or NULL for call-only rows */
} slot_t;

static const slot_t slots[] = {
#define VT_HOOK_CU(name, base, ver, variant)                                                       \
    {#name, #base, ver, sizeof(#variant) > 1, offsetof(vt_real_t, name), (void *)&name},
#define VT_HOOK_RT(name) {#name, NULL, 0, false, offsetof(vt_real_t, name), (void *)&name},
#define VT_REAL_CU(name) {#name, NULL, 0, false, offsetof(vt_real_t, name), NULL},
#include "hooks.def"
#undef VT_HOOK_CU
#undef VT_HOOK_RT
#undef VT_REAL_CU
};
#define N_SLOTS (sizeof slots / sizeof slots[0])

VT_NO_SANITIZE static void **slot_ptr(const slot_t *s)
{
    return (void **)((char *)&vt_real + s->real_offset);
}

/* Keeps the object that holds real loaded for the rest of the process: a slot keeps its
 * pointer for good, and a program may dlclose the driver or the runtime and open it again at
 * another address, where the old pointer would lead into unmapped or foreign code (a SIGSEGV
 * traced that did not happen untraced: faults_dlmove). A dlopen(RTLD_NOLOAD) of the object's
 * own name takes a reference that is never given back; the program's dlclose then leaves it
 * mapped, which is all that differs. The main program (no name) is never unloaded anyway. */
static void pin_object_of(void *real)
{
    Dl_info info;
    if (dladdr(real, &info) && info.dli_fname && info.dli_fname[0])
        (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
}

/* The objects that hold a shim as their "next" function: a dlsym(RTLD_NEXT, …) from them was
 * answered with it (vt_dlsym_next). Such an object usually defines the name itself and chains
 * to the next definition (an interposer), so its own function must never become the slot's
 * real one: the shim would call it, and it the shim, for ever. Only grows: an object unloaded
 * leaves a range no real function of a later object will be refused by but by coincidence. */
#define MAX_NEXT_HOLDERS 32
typedef struct next_holder_s {
    size_t slot; /* index in slots[] */
    uintptr_t lo, hi;
} next_holder_t;
static next_holder_t next_holders[MAX_NEXT_HOLDERS];
static unsigned n_next_holders; /* entries published (release) */
static pthread_mutex_t next_holders_lock = PTHREAD_MUTEX_INITIALIZER;

/* True when p lies in an object that holds slot s's shim as its next function. */
VT_NO_SANITIZE static bool holds_shim_as_next(const slot_t *s, const void *p)
{
    /* Sequentially consistent with the slot's stores (slot_store, vt_patch_visit) and with
     * vt_dlsym_next's publication and reading of the slot: either a store sees the holder, or
     * vt_dlsym_next sees the stored function. */
    unsigned n = __atomic_load_n(&n_next_holders, __ATOMIC_SEQ_CST);
    for (unsigned i = 0; i < n; i++)
        if (next_holders[i].slot == (size_t)(s - slots) && (uintptr_t)p >= next_holders[i].lo &&
            (uintptr_t)p < next_holders[i].hi)
            return true;
    return false;
}

/* Publishes a real pointer for a slot, unless it is one of our own exports (a driver built
 * without -Bsymbolic, or a lookup through RTLD_DEFAULT, hands those back: storing one would
 * recurse forever; HAMi-core PRs #215, #326) or an object's that calls the shim as its next
 * function (the same recursion), and pins its object when it is new to the slot. False when
 * not stored. */
static bool slot_store(const slot_t *s, void *real)
{
    if (!real || vt_is_own_address(real) || holds_shim_as_next(s, real))
        return false;
    if (__atomic_exchange_n(slot_ptr(s), real, __ATOMIC_SEQ_CST) != real)
        pin_object_of(real);
    return true;
}

static bool is_runtime_slot(const slot_t *s)
{
    return s->name[0] == 'c' && s->name[1] == 'u' && s->name[2] == 'd' && s->name[3] == 'a';
}

/* vt_resolve_real: the slot's real function when no door has filled it yet. Driver functions
 * come from the loaded libcuda.so.1 (an allocation that reached a shim means the program has
 * it), else from the next object after us; runtime functions from the next object. Returns
 * NULL when there is none; the shim then returns the "not found" code. */
static void *resolve(size_t slot_offset, const char *name);

void *vt_resolve_real(size_t slot_offset, const char *name)
{
    int cancel_state = 0; /* cancellation points below (dlopen, a warning's write) */
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    void *real = resolve(slot_offset, name);
    pthread_setcancelstate(cancel_state, &cancel_state);
    return real;
}

/* dl_iterate_phdr callback of find_in_runtime: the first loaded CUDA runtime's file name. */
static int runtime_path(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "/libcudart.so"))
        return 0;
    *(const char **)out = info->dlpi_name;
    return 1;
}

/* A runtime function from the loaded CUDA runtime itself, wherever it was loaded: a program
 * may have opened it without RTLD_GLOBAL (ctypes, a plugin that links it). */
static void *find_in_runtime(void *(*sym)(void *, const char *), const char *name)
{
    const char *path = NULL;
    dl_iterate_phdr(runtime_path, &path);
    void *runtime = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (!runtime)
        return NULL;
    void *real = sym(runtime, name);
    dlclose(runtime); /* NOLOAD took a reference */
    return real;
}

static void *resolve(size_t slot_offset, const char *name)
{
    const slot_t *s = NULL;
    for (size_t i = 0; i < N_SLOTS && !s; i++)
        if (slots[i].real_offset == slot_offset)
            s = &slots[i];
    void *(*sym)(void *, const char *) = vt_real_dlsym();
    if (!s || !sym)
        return NULL;
    void *real = NULL;
    if (!is_runtime_slot(s)) {
        void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        if (driver) {
            real = sym(driver, name);
            dlclose(driver); /* NOLOAD took a reference */
        }
    }
    /* We export none of these names, so the global scope's answer is the real one. */
    if (!real || vt_is_own_address(real))
        real = sym(RTLD_DEFAULT, name);
    if ((!real || vt_is_own_address(real)) && is_runtime_slot(s))
        real = find_in_runtime(sym, name);
    dlerror(); /* the lookups that failed leave no error for the program to read */
    slot_store(s, real);
    void *published = __atomic_load_n(slot_ptr(s), __ATOMIC_ACQUIRE);
    if (!published) {
        static bool warned[N_SLOTS];
        if (!warned[s - slots]) {
            warned[s - slots] = true;
            vt_warn("cannot find the real '%s'", name);
        }
    }
    return published;
}

/* vt_pin_reals: pins the object of every real function stored since the last call without
 * being pinned (vt_patch_visit's), as slot_store does. Serialised by the caller. */
void vt_pin_reals(void)
{
    static void *pinned[N_SLOTS]; /* the value each slot had when last pinned */
    for (size_t i = 0; i < N_SLOTS; i++) {
        void *real = __atomic_load_n(slot_ptr(&slots[i]), __ATOMIC_ACQUIRE);
        if (real && real != pinned[i]) {
            pinned[i] = real;
            pin_object_of(real);
        }
    }
}

/* ---- the dlsym door ------------------------------------------------------------------------- */

/* vt_dlsym_intercept: our wrapper for an exactly-named hooked export, looked up through the
 * caller's own handle so the real pointer is the one the caller would have got; NULL for
 * everything else, which the stub then forwards to glibc with the caller's return address.
 * RTLD_NEXT requests are not answered here: loads.c works out the caller's next definition
 * and asks vt_dlsym_next. Not instrumented: the ASan runtime resolves its
 * interceptors through here before its shadow exists; only "cu" names go on to
 * instrumented code. */
VT_NO_SANITIZE void *vt_dlsym_intercept(void *handle, const char *name)
{
    void *(*sym)(void *, const char *) = vt_real_dlsym();
    /* name is compared through a volatile copy: glibc declares dlsym's arguments nonnull. */
    const char *volatile checked_name = name;
    if (!sym || !checked_name || checked_name[0] != 'c' || checked_name[1] != 'u' ||
        handle == RTLD_NEXT)
        return NULL;
    for (size_t i = 0; i < N_SLOTS; i++) {
        const slot_t *s = &slots[i];
        if (!s->wrapper || strcmp(s->name, name) != 0)
            continue;
        /* A runtime name is ours only where the program's own lookup searches the global
         * scope, as a preloaded definition would have been found: elsewhere (a handle of the
         * runtime itself) the runtime reaches the driver through the other doors. */
        if (!s->base && handle != RTLD_DEFAULT && handle != (void *)_r_debug.r_map)
            return NULL;
        void *real = sym(handle, name);
        /* NULL (no CUDA loaded where the caller looks: glibc's own answer and error follow),
         * one of our shims, or an interposer that calls the shim next (its calls are
         * recorded there). */
        if (!real || vt_is_own_address(real) || holds_shim_as_next(s, real))
            return real;
        vt_ensure_init();
        vt_note_cuda_used();
        slot_store(s, real);
        return s->wrapper;
    }
    return NULL;
}

/* strcmp(a, b) == 0 without libc: the visitor runs while the loader relocates. */
VT_NO_SANITIZE static bool same_name(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* The row of a hooked name that has a shim, or NULL. No libc: the dlsym door asks it of every
 * RTLD_NEXT lookup, the sanitizers' own among them before their runtime is ready. */
VT_NO_SANITIZE static const slot_t *hooked_slot(const char *name)
{
    if (!name || name[0] != 'c' || name[1] != 'u')
        return NULL;
    for (size_t i = 0; i < N_SLOTS; i++)
        if (slots[i].wrapper && same_name(slots[i].name, name))
            return &slots[i];
    return NULL;
}

VT_NO_SANITIZE bool vt_is_hooked_name(const char *name)
{
    return hooked_slot(name) != NULL;
}

/* True when a and b are functions of the same loaded object. */
static bool same_object(const void *a, const void *b)
{
    Dl_info info;
    void *map_a = NULL, *map_b = NULL;
    return dladdr1(a, &info, &map_a, RTLD_DL_LINKMAP) &&
           dladdr1(b, &info, &map_b, RTLD_DL_LINKMAP) && map_a && map_a == map_b;
}

/* vt_dlsym_next: the answer to dlsym(RTLD_NEXT, name) from the object spanning [lo, hi), whose
 * answer from glibc is next (loads.c proved it): the shim when next is the real function the
 * shim calls (the slot's, or one of the same object: a driver's alias), which the caller then
 * calls as its "next" definition; NULL (glibc answers) otherwise: an interposer's own function
 * that the slot already calls must stay the caller's next, or it would be skipped. */
void *vt_dlsym_next(const char *name, void *next, uintptr_t lo, uintptr_t hi)
{
    const slot_t *s = hooked_slot(name);
    if (!s || !next || vt_is_own_address(next) || holds_shim_as_next(s, next))
        return NULL;
    void *real = __atomic_load_n(slot_ptr(s), __ATOMIC_ACQUIRE);
    if (real && real != next && !same_object(real, next))
        return NULL;
    pthread_mutex_lock(&next_holders_lock);
    unsigned n = n_next_holders;
    bool known = false;
    for (unsigned i = 0; i < n && !known; i++)
        known = next_holders[i].slot == (size_t)(s - slots) && next_holders[i].lo == lo &&
                next_holders[i].hi == hi;
    if (!known && n < MAX_NEXT_HOLDERS) {
        next_holders[n] = (next_holder_t){(size_t)(s - slots), lo, hi};
        __atomic_store_n(&n_next_holders, n + 1, __ATOMIC_SEQ_CST);
        known = true;
    }
    /* The slot may have been given the caller's own function meanwhile: then it stays the
     * caller's next as glibc says (checked under the lock that orders the holders). */
    real = __atomic_load_n(slot_ptr(s), __ATOMIC_SEQ_CST);
    bool recursive = real && (uintptr_t)real >= lo && (uintptr_t)real < hi;
    pthread_mutex_unlock(&next_holders_lock);
    if (!known || recursive)
        return NULL;
    vt_ensure_init();
    vt_note_cuda_used();
    if (!real)
        slot_store(s, next);
    return s->wrapper;
}

/* vt_patch_visit: the got.c visitor of vt_loads_refresh and vt_loads_startup: a call or address
 * slot naming one of our shims is pointed at it, its bound value kept as the real function
 * (NULL: left as it is). A lazy slot not bound yet has no real value to keep; VT_REAL finds one
 * on the first call. Nothing is pinned here: the visitor runs inside dl_iterate_phdr, which
 * holds the loader's list lock, and dlopen or dladdr there could deadlock with a dlopen on
 * another thread (vt_pin_reals does it afterwards); at startup the loader is not ready for
 * them either. */
VT_NO_SANITIZE void *vt_patch_visit(void *ctx, const char *name, void *current, bool bound,
                                    bool weak)
{
    (void)ctx;
    if (name[0] != 'c' || name[1] != 'u')
        return NULL;
    for (size_t i = 0; i < N_SLOTS; i++) {
        const slot_t *s = &slots[i];
        if (!s->wrapper || !same_name(s->name, name))
            continue;
        /* Ours already; or the object's own interposer, which calls the shim next. */
        if (bound && (vt_is_own_address(current) || holds_shim_as_next(s, current)))
            return NULL;
        /* A weak call not bound yet is turned only when its address slot, visited first,
         * found the function: otherwise it may resolve to nothing. */
        if (!bound && weak && !__atomic_load_n(slot_ptr(s), __ATOMIC_ACQUIRE))
            return NULL;
        if (bound)
            __atomic_store_n(slot_ptr(s), current, __ATOMIC_SEQ_CST);
        return s->wrapper;
    }
    return NULL;
}

/* ---- the cuGetProcAddress door ---------------------------------------------------------------- */

/* vt_substitute: after the real lookup succeeded with *pfn, replace it by our wrapper when
 * (symbol, version, per-thread flag) is exactly one of our rows: among the rows for the base
 * name, the highest ABI version not above the caller's, preferring the _ptsz row when the
 * per-thread flag asks for it (cuda.h doc of cuGetProcAddress). Unknown names and ABIs pass
 * through untouched. A caller newer than our table may be given a newer ABI we do not know:
 * we substitute only when the driver hands out the same function as for the newest version
 * we know. */
static void substitute(const char *symbol, void **pfn, int cuda_version, uint64_t flags);

/* Cancellation off: the lookup may log or pin the object (file system calls). */
void vt_substitute(const char *symbol, void **pfn, int cuda_version, uint64_t flags)
{
    int cancel_state = 0;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    substitute(symbol, pfn, cuda_version, flags);
    pthread_setcancelstate(cancel_state, &cancel_state);
}

static void substitute(const char *symbol, void **pfn, int cuda_version, uint64_t flags)
{
    if (!symbol || !pfn || !*pfn || vt_is_own_address(*pfn))
        return;
    bool want_per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    const slot_t *best = NULL;
    for (size_t i = 0; i < N_SLOTS; i++) {
        const slot_t *s = &slots[i];
        if (!s->base || strcmp(s->base, symbol) != 0 || s->version > cuda_version ||
            (s->per_thread && !want_per_thread))
            continue;
        if (!best || s->version > best->version || (s->version == best->version && s->per_thread))
            best = s;
    }
    if (!best)
        return;
    if (cuda_version > VT_CUDA_ABI_VERSION) {
        __typeof__(&cuGetProcAddress_v2) gpa = VT_REAL(cuGetProcAddress_v2);
        void *known = NULL;
        CUresult rc =
            gpa ? gpa(symbol, &known, VT_CUDA_ABI_VERSION, flags, NULL) : CUDA_ERROR_NOT_FOUND;
        if (rc != CUDA_SUCCESS || known != *pfn) {
            vt_log(1, "'%s' at version %d is not an ABI we know: not traced", symbol, cuda_version);
            return;
        }
    }
    if (!slot_store(best, *pfn))
        return;
    vt_note_cuda_used();
    *pfn = best->wrapper;
}

/* ---- device of the caller or of a pointer, from the real driver ------------------------------ */

int vt_current_device(void)
{
    __typeof__(&cuCtxGetDevice) get = VT_REAL(cuCtxGetDevice);
    CUdevice dev = 0;
    if (!get || get(&dev) != CUDA_SUCCESS)
        return 0;
    return dev;
}

/* The calling thread's current context (0: none or unknown) and its device. The device of a
 * context never changes, so each thread keeps the last one it asked of the driver: the common
 * call is then one cuCtxGetCurrent, as cheap as the cuCtxGetDevice it replaces. A destroyed
 * context's handle may come back for another device: vt_context_destroyed bumps a generation
 * that makes every thread ask again. */
static unsigned ctx_generation;
static __thread uint64_t tls_ctx __attribute__((tls_model("initial-exec")));
static __thread int tls_ctx_device __attribute__((tls_model("initial-exec")));
static __thread unsigned tls_ctx_generation __attribute__((tls_model("initial-exec")));

void vt_context_destroyed(void)
{
    __atomic_fetch_add(&ctx_generation, 1, __ATOMIC_RELAXED);
}

/* No vt_cancel_hold before cuCtxGetCurrent and cuCtxGetDevice (every allocation asks): they read
 * the calling thread's current context and reach no cancellation point. */
int vt_current_context(uint64_t *ctx)
{
    __typeof__(&cuCtxGetCurrent) get = VT_REAL(cuCtxGetCurrent);
    CUcontext c = NULL;
    if (!get || get(&c) != CUDA_SUCCESS || !c) {
        *ctx = 0;
        return vt_current_device();
    }
    *ctx = (uint64_t)(uintptr_t)c;
    unsigned generation = __atomic_load_n(&ctx_generation, __ATOMIC_RELAXED);
    if (VT_LIKELY(*ctx == tls_ctx && generation == tls_ctx_generation))
        return tls_ctx_device;
    int device = vt_current_device();
    tls_ctx = *ctx;
    tls_ctx_device = device;
    tls_ctx_generation = generation;
    return device;
}

/* The primary context of each device, as cuDevicePrimaryCtxRetain handed it out (0: not seen):
 * its teardown frees what it made, not what created contexts on the device made. */
static uint64_t primary_ctx[VT_MAX_DEVICES];

void vt_note_primary_context(int device, uint64_t ctx)
{
    if (device >= 0 && device < VT_MAX_DEVICES)
        __atomic_store_n(&primary_ctx[device], ctx, __ATOMIC_RELAXED);
}

uint64_t vt_primary_context(int device)
{
    return device >= 0 && device < VT_MAX_DEVICES
               ? __atomic_load_n(&primary_ctx[device], __ATOMIC_RELAXED)
               : 0;
}

int vt_device_of_pointer(uint64_t p)
{
    vt_cancel_hold(); /* a driver query: not known to be free of cancellation points */
    __typeof__(&cuPointerGetAttribute) get = VT_REAL(cuPointerGetAttribute);
    int ordinal = -1;
    if (!get || get(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (CUdeviceptr)p) != CUDA_SUCCESS)
        return -1;
    return ordinal;
}

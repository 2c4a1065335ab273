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

VT_NO_SANITIZE static void *(*real_dlsym(void))(void *, const char *)
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
    static uintptr_t own_end; /* computed once from our program headers */
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

/* Publishes a real pointer for a slot, unless it is one of our own exports (a driver built
 * without -Bsymbolic, or a lookup through RTLD_DEFAULT, hands those back: storing one would
 * recurse forever; HAMi-core PRs #215, #326), and pins its object when it is new to the slot. */
static void slot_store(const slot_t *s, void *real)
{
    if (!real || vt_is_own_address(real))
        return;
    if (__atomic_exchange_n(slot_ptr(s), real, __ATOMIC_ACQ_REL) != real)
        pin_object_of(real);
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
    void *(*sym)(void *, const char *) = real_dlsym();
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
 * RTLD_NEXT requests are never intercepted: resolving them here would search from our
 * library instead of the caller's. Not instrumented: the ASan runtime resolves its
 * interceptors through here before its shadow exists; only "cu" names go on to
 * instrumented code. */
VT_NO_SANITIZE void *vt_dlsym_intercept(void *handle, const char *name)
{
    void *(*sym)(void *, const char *) = real_dlsym();
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
         * or one of our shims. */
        if (!real || vt_is_own_address(real))
            return real;
        vt_ensure_init();
        vt_note_cuda_used();
        slot_store(s, real);
        return s->wrapper;
    }
    return NULL;
}

/* vt_patch_visit: the got.c visitor of vt_loads_refresh and vt_loads_startup: a call or address
 * slot naming one of our shims is pointed at it, its bound value kept as the real function
 * (NULL: left as it is). A lazy slot not bound yet has no real value to keep; VT_REAL finds one
 * on the first call. Nothing is pinned here: the visitor runs inside dl_iterate_phdr, which
 * holds the loader's list lock, and dlopen or dladdr there could deadlock with a dlopen on
 * another thread (vt_pin_reals does it afterwards); at startup the loader is not ready for
 * them either. */
/* strcmp(a, b) == 0 without libc: the visitor runs while the loader relocates. */
VT_NO_SANITIZE static bool same_name(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

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
        if (bound && vt_is_own_address(current))
            return NULL;
        /* A weak call not bound yet is turned only when its address slot, visited first,
         * found the function: otherwise it may resolve to nothing. */
        if (!bound && weak && !__atomic_load_n(slot_ptr(s), __ATOMIC_ACQUIRE))
            return NULL;
        if (bound)
            __atomic_store_n(slot_ptr(s), current, __ATOMIC_RELEASE);
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
    vt_note_cuda_used();
    slot_store(best, *pfn);
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
static __thread uint64_t tls_ctx;
static __thread int tls_ctx_device;
static __thread unsigned tls_ctx_generation;

void vt_context_destroyed(void)
{
    __atomic_fetch_add(&ctx_generation, 1, __ATOMIC_RELAXED);
}

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
    __typeof__(&cuPointerGetAttribute) get = VT_REAL(cuPointerGetAttribute);
    int ordinal = -1;
    if (!get || get(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (CUdeviceptr)p) != CUDA_SUCCESS)
        return -1;
    return ordinal;
}

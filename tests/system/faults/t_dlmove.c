/* SPDX-License-Identifier: MIT */
/* t_dlmove: the driver (libcuda.so.1) and the runtime (libcudart.so.13) dlopened, used, dlclosed
 * and opened again at another address, by a program linked with neither (so the dlclose really
 * unloads them). vramtrace resolves each real function once and keeps the pointer; if the
 * library could go away under it, the second round would call into an unmapped or reused
 * address (SIGSEGV; it did before the pinning in resolve.c). faults.sh runs it untraced and traced: the same output
 * and exit status, both rounds recorded.
 *
 * To make the second load land elsewhere, the page where the first one started is taken by an
 * anonymous mapping once the library is gone. Each step prints its CUDA result on stdout and
 * where the library was on stderr. */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <sys/mman.h>

typedef int (*cuInit_fn)(unsigned flags);
typedef int (*cuRetain_fn)(void **ctx, int device);
typedef int (*cuSetCurrent_fn)(void *ctx);
typedef int (*cuMemAlloc_fn)(unsigned long long *dptr, size_t size_bytes);
typedef int (*cuMemFree_fn)(unsigned long long dptr);
typedef int (*cudaMalloc_fn)(void **ptr, size_t size_bytes);
typedef int (*cudaFree_fn)(void *ptr);

/* Where lib was loaded. */
static void *base_of(void *lib)
{
    struct link_map *map = NULL;
    return dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map ? (void *)map->l_addr : NULL;
}

/* Takes the page at base once lib is unloaded, so the next load of it goes elsewhere. */
static void block(void *base)
{
    if (base)
        (void)mmap(base, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
}

/* One pair through the driver API. Returns the driver's load address. */
static void *driver_round(const char *what, int *failed)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
        printf("%s: driver dlopen failed\n", what);
        *failed = 1;
        return NULL;
    }
    cuInit_fn init = (cuInit_fn)dlsym(lib, "cuInit");
    cuRetain_fn retain = (cuRetain_fn)dlsym(lib, "cuDevicePrimaryCtxRetain");
    cuSetCurrent_fn set = (cuSetCurrent_fn)dlsym(lib, "cuCtxSetCurrent");
    cuMemAlloc_fn alloc = (cuMemAlloc_fn)dlsym(lib, "cuMemAlloc_v2");
    cuMemFree_fn release = (cuMemFree_fn)dlsym(lib, "cuMemFree_v2");
    if (!init || !retain || !set || !alloc || !release) {
        printf("%s: a driver symbol is missing\n", what);
        *failed = 1;
        return NULL;
    }
    void *ctx = NULL;
    unsigned long long p = 0;
    int i = init(0), r = retain(&ctx, 0), s = set(ctx);
    int a = alloc(&p, 1 << 20);
    int f = a == 0 ? release(p) : -1;
    printf("%s: cuInit %d retain %d set %d cuMemAlloc %d cuMemFree %d\n", what, i, r, s, a, f);
    *failed |= i || r || s || a || f;
    void *base = base_of(lib);
    fprintf(stderr, "%s: at %p\n", what, base); /* faults.sh: the untraced run really moved */
    dlclose(lib);
    return base;
}

/* One pair through the runtime. Returns the runtime's load address. */
static void *runtime_round(const char *what, int *failed)
{
    void *lib = dlopen("libcudart.so.13", RTLD_NOW);
    if (!lib) {
        printf("%s: runtime dlopen failed\n", what);
        *failed = 1;
        return NULL;
    }
    cudaMalloc_fn alloc = (cudaMalloc_fn)dlsym(lib, "cudaMalloc");
    cudaFree_fn release = (cudaFree_fn)dlsym(lib, "cudaFree");
    void *p = NULL;
    int a = alloc ? alloc(&p, 1 << 20) : -1;
    int f = a == 0 && release ? release(p) : -1;
    printf("%s: cudaMalloc %d cudaFree %d\n", what, a, f);
    *failed |= a || f;
    void *base = base_of(lib);
    fprintf(stderr, "%s: at %p\n", what, base);
    dlclose(lib);
    return base;
}

int main(void)
{
    int failed = 0;
    block(driver_round("driver, first load", &failed));
    driver_round("driver, loaded again", &failed);
    block(runtime_round("runtime, first load", &failed));
    runtime_round("runtime, loaded again", &failed);
    return failed;
}

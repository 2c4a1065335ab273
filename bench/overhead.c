/* SPDX-License-Identifier: MIT */
/* bench/overhead: the time one allocation + free pair costs through each door vramtrace
 * intercepts, so bench/overhead.sh can subtract an untraced run from a traced one.
 *   driver   cuMemAlloc_v2 + cuMemFree_v2 reached the way static cudart, cuBLAS and NCCL reach
 *            them: dlopen("libcuda.so.1"), dlsym "cuGetProcAddress_v2", then lookups by base
 *            name and ABI version (under LD_PRELOAD the dlsym and cuGetProcAddress doors hand
 *            out vramtrace's wrappers here);
 *   runtime  cudaMalloc + cudaFree of libcudart.so.13, bound through the global scope as a
 *            program linked with -lcudart binds them (under LD_PRELOAD: vramtrace's exports).
 * Whatever libcuda.so.1 / libcudart.so.13 LD_LIBRARY_PATH finds is used: the simulated device
 * (tests/sim) or a real one. Output, one line per path: "<path> <ns per pair> <pairs>", and
 * "# ..." lines naming the libraries. Usage: overhead [PAIRS] [SIZE_BYTES] [LIVE].
 * LIVE allocations are made through each door first and stay live while the pairs run, as in a
 * real program: with none, every pair takes vramtrace's live table (and the simulator's) from
 * empty to one entry and back, which costs the table's creation and destruction each time. */
#include "vt_cuda.h"
#include "bench.h"

#include <link.h>

/* The file a dlopen handle came from, for the "# ..." lines. */
static const char *path_of(void *handle)
{
    struct link_map *map = NULL;
    return dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map ? map->l_name : "?";
}

static __typeof__(&cuGetProcAddress_v2) gpa;

/* One driver function by (base name, ABI version), as cudart 13 asks for it. */
static void *driver_fn(const char *base)
{
    void *fn = NULL;
    CUdriverProcAddressQueryResult status;
    if (gpa(base, &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS || !fn)
        bench_die("cuGetProcAddress_v2 lookup failed");
    return fn;
}

static double bench_driver(long pairs, size_t size, long live)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        bench_die("cannot dlopen libcuda.so.1 (set LD_LIBRARY_PATH)");
    gpa = (__typeof__(gpa))dlsym(h, "cuGetProcAddress_v2");
    if (!gpa)
        bench_die("no cuGetProcAddress_v2 in libcuda.so.1");
    printf("# driver: %s\n", path_of(h));
    __typeof__(&cuInit) init = driver_fn("cuInit");
    __typeof__(&cuDeviceGet) device_get = driver_fn("cuDeviceGet");
    __typeof__(&cuDevicePrimaryCtxRetain) retain = driver_fn("cuDevicePrimaryCtxRetain");
    __typeof__(&cuCtxSetCurrent) set_current = driver_fn("cuCtxSetCurrent");
    __typeof__(&cuMemAlloc_v2) mem_alloc = driver_fn("cuMemAlloc");
    __typeof__(&cuMemFree_v2) mem_free = driver_fn("cuMemFree");
    CUdevice dev;
    CUcontext ctx;
    if (init(0) != CUDA_SUCCESS || device_get(&dev, 0) != CUDA_SUCCESS ||
        retain(&ctx, dev) != CUDA_SUCCESS || set_current(ctx) != CUDA_SUCCESS)
        bench_die("no device");
    for (long i = 0; i < live; i++) {
        CUdeviceptr p;
        if (mem_alloc(&p, size) != CUDA_SUCCESS)
            bench_die("cuMemAlloc_v2 failed");
    }

    long warm = pairs / 10 + 1;
    uint64_t t0 = 0;
    for (long i = -warm; i < pairs; i++) {
        if (i == 0)
            t0 = bench_now_ns();
        CUdeviceptr p;
        if (mem_alloc(&p, size) != CUDA_SUCCESS || mem_free(p) != CUDA_SUCCESS)
            bench_die("cuMemAlloc_v2/cuMemFree_v2 failed");
    }
    return (double)(bench_now_ns() - t0) / (double)pairs;
}

static double bench_runtime(long pairs, size_t size, long live)
{
    printf("# runtime: %s\n", path_of(bench_cudart()));
    __typeof__(&cudaMalloc) rt_malloc = (__typeof__(rt_malloc))bench_cudart_fn("cudaMalloc");
    __typeof__(&cudaFree) rt_free = (__typeof__(rt_free))bench_cudart_fn("cudaFree");
    for (long i = 0; i < live; i++) {
        void *p;
        if (rt_malloc(&p, size) != cudaSuccess)
            bench_die("cudaMalloc failed");
    }

    long warm = pairs / 10 + 1;
    uint64_t t0 = 0;
    for (long i = -warm; i < pairs; i++) {
        if (i == 0)
            t0 = bench_now_ns();
        void *p;
        if (rt_malloc(&p, size) != cudaSuccess || rt_free(p) != cudaSuccess)
            bench_die("cudaMalloc/cudaFree failed");
    }
    return (double)(bench_now_ns() - t0) / (double)pairs;
}

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? atol(argv[1]) : 200000;
    size_t size = argc > 2 ? (size_t)atol(argv[2]) : 4096;
    long live = argc > 3 ? atol(argv[3]) : 0;
    if (pairs <= 0 || size == 0 || live < 0)
        bench_die("usage: overhead [PAIRS] [SIZE_BYTES] [LIVE]");
    double driver = bench_driver(pairs, size, live);
    double runtime = bench_runtime(pairs, size, live);
    printf("driver %.1f %ld\n", driver, pairs);
    printf("runtime %.1f %ld\n", runtime, pairs);
    return 0;
}

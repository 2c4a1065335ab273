/* SPDX-License-Identifier: MIT */
/* The no-malloc check through the real shims: run under LD_PRELOAD=libvramtrace.so on the
 * simulated device, it counts every allocator call in the process (malloc is interposed in this
 * executable, which comes before the preload in symbol lookup) during 1000 cuMemAlloc_v2 /
 * cuMemFree_v2 pairs after a warm-up, and prints the count. The simulator mallocs per
 * allocation itself, so nomalloc_preload.sh runs the program with and without the preload and
 * requires the same count: whatever vramtrace adds is an allocation on the recording path. */
#include "vt_cuda.h"
#include "nomalloc.h"

#include <stdio.h>

#define N_WARM  10
#define N_PAIRS 1000

static int failed;

static void pairs(void *arg)
{
    int n = *(int *)arg;
    for (int i = 0; i < n; i++) {
        CUdeviceptr p = 0;
        if (cuMemAlloc_v2(&p, 4096 + (size_t)i % 7 * 512) != CUDA_SUCCESS ||
            cuMemFree_v2(p) != CUDA_SUCCESS)
            failed = 1;
    }
}

int main(void)
{
    if (!nm_self_test()) {
        fprintf(stderr, "nomalloc_preload: the malloc interposer does not count\n");
        return 1;
    }
    CUdevice dev;
    CUcontext ctx;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
        cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
        fprintf(stderr, "nomalloc_preload: no simulated device\n");
        return 1;
    }
    int n = N_WARM;
    pairs(&n); /* warm-up: real functions resolved, the arena mapped, the tid cached */
    n = N_PAIRS;
    unsigned long calls = nm_calls_in(pairs, &n);
    if (failed) {
        fprintf(stderr, "nomalloc_preload: a cuMemAlloc_v2/cuMemFree_v2 call failed\n");
        return 1;
    }
    printf("allocator calls in %d pairs: %lu\n", N_PAIRS, calls);
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* Door (1), XLA's way: dlsym(handle_of_libcuda, "<versioned export>") for each function, no
 * -lcuda and no cuGetProcAddress (XLA, hence JAX and TensorFlow; docs/design.md). Proves the
 * dlsym door hands out our wrapper for each hooked exported name, honouring the caller's
 * handle, passes unhooked names through to the driver, and that allocations through the
 * returned pointers are counted (expected/xla.txt). */
#include <dlfcn.h>
#include <string.h>
#include "sim_test.h"

#define KiB ((size_t)1 << 10)

CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);

static void *driver;

/* dlsym on the driver's handle, and whether the answer is ours (1) or the driver's (0). */
static void *lookup(const char *name, int want_ours)
{
    void *fn = dlsym(driver, name);
    Dl_info info;
    int ours = fn && dladdr(fn, &info) && info.dli_fname &&
               strstr(info.dli_fname, "libvramtrace.so") != NULL;
    VT_CHECK(name, fn != NULL && ours == want_ours);
    return fn;
}

int main(void)
{
    driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    VT_CHECK("dlopen libcuda.so.1", driver != NULL);
    if (!driver)
        return vt_test_done();
    __typeof__(&cuInit) init = lookup("cuInit", 0);
    __typeof__(&cuDeviceGet) device_get = lookup("cuDeviceGet", 0);
    __typeof__(&cuDevicePrimaryCtxRetain) retain = lookup("cuDevicePrimaryCtxRetain", 1);
    __typeof__(&cuCtxSetCurrent) set_current = lookup("cuCtxSetCurrent", 0);
    __typeof__(&cuDeviceGetDefaultMemPool) default_pool = lookup("cuDeviceGetDefaultMemPool", 0);
    __typeof__(&cuMemAlloc_v2) mem_alloc = lookup("cuMemAlloc_v2", 1);
    __typeof__(&cuMemFree_v2) mem_free = lookup("cuMemFree_v2", 1);
    __typeof__(&cuMemAllocFromPoolAsync) from_pool = lookup("cuMemAllocFromPoolAsync", 1);
    __typeof__(&cuMemFreeAsync) free_async = lookup("cuMemFreeAsync", 1);
    __typeof__(&cuMemAllocAsync_ptsz) async_ptsz = lookup("cuMemAllocAsync_ptsz", 1);
    __typeof__(&cuMemHostAlloc) host_alloc = lookup("cuMemHostAlloc", 1);
    __typeof__(&cuMemFreeHost) free_host = lookup("cuMemFreeHost", 1);
    VT_CHECK("the 32-bit-ABI export is not ours either", dlsym(driver, "cuMemAlloc") == NULL);
    if (!(init && device_get && retain && set_current && default_pool && mem_alloc && mem_free &&
          from_pool && free_async && async_ptsz && host_alloc && free_host))
        return vt_test_done();
    CUdevice dev;
    CUcontext ctx;
    CUmemoryPool pool = NULL;
    VT_CHECK_EQ("init", init(0), CUDA_SUCCESS);
    VT_CHECK_EQ("device", device_get(&dev, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("retain", retain(&ctx, dev), CUDA_SUCCESS);
    VT_CHECK_EQ("current", set_current(ctx), CUDA_SUCCESS);
    VT_CHECK_EQ("default pool", default_pool(&pool, dev), CUDA_SUCCESS);

    /* device: 1 MiB (the preallocation), +32 KiB from the pool, +2 KiB async: peak 1 MiB + 34
     * KiB; the 32 KiB freed, 1 MiB + 2 KiB live at exit. pinned: 4 KiB, freed. */
    CUdeviceptr big = 0, p = 0, q = 0;
    void *h = NULL;
    VT_CHECK_EQ("alloc 1 MiB", mem_alloc(&big, 1024 * KiB), CUDA_SUCCESS);
    VT_CHECK_EQ("from pool 32 KiB", from_pool(&p, 32 * KiB, pool, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("async ptsz 2 KiB", async_ptsz(&q, 2 * KiB, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("free async", free_async(p, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("host alloc 4 KiB", host_alloc(&h, 4 * KiB, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("free host", free_host(h), CUDA_SUCCESS);
    (void)mem_free;
    return vt_test_done();
}

/* SPDX-License-Identifier: MIT */
/* Door (2) through the runtime: cudaGetDriverEntryPoint, cudaGetDriverEntryPointByVersion and
 * their _ptsz twins, as PyTorch (expandable segments), NCCL and TransformerEngine fetch driver
 * functions. Proves they hand out libvramtrace.so's wrappers for hooked names (the _ptsz one
 * where the per-thread default stream is meant) and the driver's functions otherwise, and that
 * allocations through them are counted once (expected/entry.txt). */
#include <stdint.h>
#ifdef VT_TEST_REAL_CUDA_HEADERS
#    include <cuda.h>
#endif
#include "cap_rt.h"

#define KiB ((size_t)1 << 10)

int main(void)
{
    VT_CHECK("the simulated libcudart.so.13 is loaded", cap_sim_runtime_loaded());
    VT_CHECK_EQ("context", cudaFree(NULL), cudaSuccess);
    void *alloc = NULL, *release = NULL, *async = NULL, *free_async = NULL, *info = NULL;
    void *create = NULL, *vmm_release = NULL, *legacy_async = NULL;
    enum cudaDriverEntryPointQueryResult st;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    VT_CHECK_EQ("entry point", cudaGetDriverEntryPoint("cuMemAlloc", &alloc, 0, &st), cudaSuccess);
    VT_CHECK_EQ("entry point ptsz", cudaGetDriverEntryPoint_ptsz("cuMemAllocAsync", &async, 0, &st),
                cudaSuccess);
#pragma GCC diagnostic pop
    VT_CHECK_EQ("by version",
                cudaGetDriverEntryPointByVersion("cuMemFree", &release, 12000, 0, &st),
                cudaSuccess);
    VT_CHECK_EQ("by version ptsz",
                cudaGetDriverEntryPointByVersion_ptsz("cuMemFreeAsync", &free_async, 12000, 0, &st),
                cudaSuccess);
    VT_CHECK_EQ("legacy async",
                cudaGetDriverEntryPointByVersion("cuMemAllocAsync", &legacy_async, 12000, 0, &st),
                cudaSuccess);
    VT_CHECK_EQ("cuMemCreate",
                cudaGetDriverEntryPointByVersion("cuMemCreate", &create, 12000, 0, &st),
                cudaSuccess);
    VT_CHECK_EQ("cuMemRelease",
                cudaGetDriverEntryPointByVersion("cuMemRelease", &vmm_release, 12000, 0, &st),
                cudaSuccess);
    VT_CHECK_EQ("cuMemGetInfo",
                cudaGetDriverEntryPointByVersion("cuMemGetInfo", &info, 12000, 0, &st),
                cudaSuccess);
    VT_CHECK("hooked names give our wrappers", cap_is_ours(alloc) && cap_is_ours(release) &&
                                                   cap_is_ours(async) && cap_is_ours(free_async) &&
                                                   cap_is_ours(create) && cap_is_ours(vmm_release));
    VT_CHECK("the _ptsz twin gives the per-thread wrapper", async != legacy_async);
    VT_CHECK("cuMemGetInfo is the driver's", info && !cap_is_ours(info));
    if (!(alloc && release && async && free_async && create && vmm_release))
        return vt_test_done();

    /* 256 KiB + 4 KiB async + 2 MiB VMM handle: peak 2363392; all freed. */
    CUdeviceptr p = 0, q = 0;
    CUmemGenericAllocationHandle h = 0;
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    VT_CHECK_EQ("alloc", ((__typeof__(&cuMemAlloc_v2))alloc)(&p, 256 * KiB), CUDA_SUCCESS);
    VT_CHECK_EQ("async ptsz", ((__typeof__(&cuMemAllocAsync))async)(&q, 4 * KiB, NULL),
                CUDA_SUCCESS);
    VT_CHECK_EQ("create", ((__typeof__(&cuMemCreate))create)(&h, 2048 * KiB, &prop, 0),
                CUDA_SUCCESS);
    VT_CHECK_EQ("free async ptsz", ((__typeof__(&cuMemFreeAsync))free_async)(q, NULL),
                CUDA_SUCCESS);
    VT_CHECK_EQ("release", ((__typeof__(&cuMemRelease))vmm_release)(h), CUDA_SUCCESS);
    VT_CHECK_EQ("free", ((__typeof__(&cuMemFree_v2))release)(p), CUDA_SUCCESS);
    VT_CHECK_EQ("clean end", cudaGetLastError(), cudaSuccess);
    return vt_test_done();
}

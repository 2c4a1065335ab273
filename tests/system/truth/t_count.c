/* SPDX-License-Identifier: MIT */
/* Memory the device counts without a matching free call, for tests that compare vramtrace's
 * report with the simulated device's own figures (tests/truth/count.sh).
 *   t_count contexts   allocations in the primary context and in two created contexts; one
 *                      created context destroyed with its memory live, then the primary
 *                      context reset while the other created context still holds memory
 *   t_count arrays     arrays of every kind (1D, 2D, 3D, layered, cubemap, layered cubemap,
 *                      mipmapped: driver and runtime), rows a multiple of 512 bytes, so their
 *                      logical size is what the simulated device charges
 *   t_count padded     one array whose rows the device pads (100 floats)
 *   t_count pools T    stream-ordered allocations from the default pool, its release
 *                      threshold T (0, 1G or max), through the runtime and the driver, with
 *                      synchronizations of each kind and a trim; and a pool of the program's
 *                      own (cuMemAllocFromPoolAsync); then a request the device cannot hold
 *                      (out of memory)
 *   t_count streams    a pool that lets no stream reuse another's frees before a
 *                      synchronization: a free on one stream, an allocation on another
 *   t_count current    a pool of the program's own made the device's current pool
 *                      (cuDeviceSetMemPool): cuMemAllocAsync and cudaMallocAsync allocate from
 *                      it, then from the default pool again once cudaDeviceSetMemPool says so
 * Exits 0 when every call answered as the driver must. */
#include <stdio.h>
#include <string.h>
#include "t_rt_common.h"
#include "sim_test.h"

#define MIB ((size_t)1 << 20)

static int n_errors;

static void check(const char *what, CUresult rc)
{
    if (rc != CUDA_SUCCESS && n_errors++ < 10)
        fprintf(stderr, "t_count: %s: %d\n", what, (int)rc);
}

static CUdeviceptr alloc(size_t bytes)
{
    CUdeviceptr p = 0;
    check("cuMemAlloc", cuMemAlloc_v2(&p, bytes));
    return p;
}

static CUdeviceptr managed(size_t bytes)
{
    CUdeviceptr p = 0;
    check("cuMemAllocManaged", cuMemAllocManaged(&p, bytes, CU_MEM_ATTACH_GLOBAL));
    return p;
}

/* The primary context's memory, a created context's memory of every kind dropped with it, a
 * second created context's kept through the primary context's reset. */
static int contexts(void)
{
    CUdevice dev = 0;
    CUcontext first, second, popped;
    alloc(3 * MIB);
    managed(MIB);
    check("cuCtxCreate first", cuCtxCreate_v2(&first, 0, dev)); /* pushed: current */
    alloc(5 * MIB);
    managed(2 * MIB);
    CUdeviceptr async = 0, pitched = 0;
    size_t pitch = 0;
    check("cuMemAllocAsync", cuMemAllocAsync(&async, 2 * MIB, NULL));
    check("cuMemAllocPitch", cuMemAllocPitch_v2(&pitched, &pitch, 3000, 100, 4));
    CUdeviceptr freed = alloc(MIB);
    check("cuMemFree", cuMemFree_v2(freed));
    check("cuCtxCreate second", cuCtxCreate_v2(&second, 0, dev)); /* now the current one */
    CUdeviceptr seven = alloc(7 * MIB);
    check("cuCtxPopCurrent", cuCtxPopCurrent_v2(&popped)); /* the first one again */
    check("cuCtxDestroy first", cuCtxDestroy_v2(first));   /* its memory goes; popped */
    check("cuCtxPushCurrent", cuCtxPushCurrent_v2(second));
    alloc(MIB);
    check("cuMemFree", cuMemFree_v2(seven));
    check("cuCtxPopCurrent", cuCtxPopCurrent_v2(&popped)); /* the primary context again */
    alloc(4 * MIB);
    check("cuDevicePrimaryCtxReset", cuDevicePrimaryCtxReset_v2(dev));
    check("cuCtxPushCurrent", cuCtxPushCurrent_v2(second));
    alloc(2 * MIB); /* the second context's 3 MiB live at exit */
    return n_errors != 0;
}

/* ---- arrays ------------------------------------------------------------------------------ */

static CUarray array3d(size_t w, size_t h, size_t d, CUarray_format format, unsigned channels,
                       unsigned flags)
{
    CUDA_ARRAY3D_DESCRIPTOR desc = {w, h, d, format, channels, flags};
    CUarray a = NULL;
    check("cuArray3DCreate", cuArray3DCreate_v2(&a, &desc));
    return a;
}

static void rt_check(const char *what, cudaError_t rc)
{
    if (rc != cudaSuccess && n_errors++ < 10)
        fprintf(stderr, "t_count: %s: %d\n", what, (int)rc);
}

static int arrays(void)
{
    CUDA_ARRAY_DESCRIPTOR one_d = {1024, 0, CU_AD_FORMAT_FLOAT, 1};
    CUDA_ARRAY_DESCRIPTOR two_d = {256, 100, CU_AD_FORMAT_UNSIGNED_INT8, 4};
    CUarray a1 = NULL, a2 = NULL;
    check("cuArrayCreate 1D", cuArrayCreate_v2(&a1, &one_d));
    check("cuArrayCreate 2D", cuArrayCreate_v2(&a2, &two_d));
    CUarray volume = array3d(128, 64, 8, CU_AD_FORMAT_FLOAT, 1, 0);
    CUarray layers = array3d(512, 32, 5, CU_AD_FORMAT_HALF, 1, CUDA_ARRAY3D_LAYERED);
    array3d(256, 256, 6, CU_AD_FORMAT_UNSIGNED_INT8, 2, CUDA_ARRAY3D_CUBEMAP);
    array3d(128, 128, 12, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED);
    CUmipmappedArray m1 = NULL, m2 = NULL, m3 = NULL;
    CUDA_ARRAY3D_DESCRIPTOR mip_2d = {2048, 64, 0, CU_AD_FORMAT_FLOAT, 1, 0};
    CUDA_ARRAY3D_DESCRIPTOR mip_layered = {
        1024, 16, 3, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED};
    CUDA_ARRAY3D_DESCRIPTOR mip_3d = {256, 16, 8, CU_AD_FORMAT_FLOAT, 1, 0};
    check("cuMipmappedArrayCreate 2D", cuMipmappedArrayCreate(&m1, &mip_2d, 3));
    check("cuMipmappedArrayCreate layered", cuMipmappedArrayCreate(&m2, &mip_layered, 2));
    check("cuMipmappedArrayCreate 3D", cuMipmappedArrayCreate(&m3, &mip_3d, 2));
    /* The runtime's doors: cudaMallocArray is hooked itself, the others reach the driver. */
    struct cudaChannelFormatDesc f32 = {32, 0, 0, 0, cudaChannelFormatKindFloat};
    struct cudaChannelFormatDesc u8x4 = {8, 8, 8, 8, cudaChannelFormatKindUnsigned};
    cudaArray_t r1 = NULL, r2 = NULL;
    cudaMipmappedArray_t r3 = NULL;
    rt_check("cudaMallocArray", cudaMallocArray(&r1, &f32, 1024, 16, 0));
    struct cudaExtent volume_extent = {128, 8, 4};
    rt_check("cudaMalloc3DArray", cudaMalloc3DArray(&r2, &u8x4, volume_extent, 0));
    struct cudaExtent mip_extent = {512, 32, 0};
    rt_check("cudaMallocMipmappedArray", cudaMallocMipmappedArray(&r3, &f32, mip_extent, 2, 0));
    /* Some freed, the rest live at the end. */
    check("cuArrayDestroy", cuArrayDestroy(a1));
    check("cuArrayDestroy", cuArrayDestroy(volume));
    check("cuMipmappedArrayDestroy", cuMipmappedArrayDestroy(m2));
    rt_check("cudaFreeArray", cudaFreeArray(r1));
    rt_check("cudaFreeMipmappedArray", cudaFreeMipmappedArray(r3));
    (void)a2, (void)layers, (void)m1, (void)m3, (void)r2;
    return n_errors != 0;
}

static int padded(void)
{
    array3d(100, 10, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    return n_errors != 0;
}

/* ---- stream-ordered pools ------------------------------------------------------------------ */

/* A pool of the program's own on device 0. */
static CUmemoryPool own_pool(void)
{
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 0;
    CUmemoryPool own = NULL;
    check("cuMemPoolCreate", cuMemPoolCreate(&own, &props));
    return own;
}

static void *rt_async(size_t bytes)
{
    void *p = NULL;
    rt_check("cudaMallocAsync", cudaMallocAsync(&p, bytes, 0));
    return p;
}

static int pools(const char *threshold_name)
{
    cuuint64_t threshold = !strcmp(threshold_name, "max")  ? UINT64_MAX
                           : !strcmp(threshold_name, "1G") ? (cuuint64_t)1 << 30
                                                           : 0;
    cudaMemPool_t pool = NULL;
    rt_check("cudaDeviceGetDefaultMemPool", cudaDeviceGetDefaultMemPool(&pool, 0));
    rt_check("cudaMemPoolSetAttribute",
             cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    void *a = rt_async(3 * MIB), *b = rt_async(5 * MIB), *c = rt_async(MIB);
    rt_check("cudaFreeAsync", cudaFreeAsync(b, 0));
    rt_check("cudaStreamSynchronize", cudaStreamSynchronize(0)); /* 0: shrinks to 4 MiB */
    void *d = rt_async(6 * MIB);                                 /* grows again */
    rt_check("cudaFreeAsync", cudaFreeAsync(a, 0));
    rt_check("cudaFreeAsync", cudaFreeAsync(d, 0));
    rt_check("cudaDeviceSynchronize", cudaDeviceSynchronize());
    CUdeviceptr e = 0;
    check("cuMemAllocAsync", cuMemAllocAsync(&e, 7 * MIB, NULL)); /* the driver's door */
    check("cuMemFreeAsync", cuMemFreeAsync(e, NULL));
    CUevent done;
    check("cuEventCreate", cuEventCreate(&done, 0));
    check("cuEventRecord", cuEventRecord(done, NULL));
    check("cuEventSynchronize", cuEventSynchronize(done));
    void *f = rt_async(2 * MIB);
    check("cuCtxSynchronize", cuCtxSynchronize());
    rt_check("cudaMemPoolTrimTo", cudaMemPoolTrimTo(pool, 0)); /* down to what is used */
    rt_check("cudaFreeAsync", cudaFreeAsync(c, 0));
    /* A pool of the program's own, live at the end. */
    CUmemoryPool own = own_pool();
    check("cuMemPoolSetAttribute",
          cuMemPoolSetAttribute(own, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold));
    CUdeviceptr g = 0, h = 0;
    check("cuMemAllocFromPoolAsync", cuMemAllocFromPoolAsync(&g, 3 * MIB, own, NULL));
    check("cuMemAllocFromPoolAsync", cuMemAllocFromPoolAsync(&h, 4 * MIB, own, NULL));
    check("cuMemFreeAsync", cuMemFreeAsync(g, NULL));
    check("cuStreamSynchronize", cuStreamSynchronize(NULL));
    /* More than the device has, while the pools hold their reservations: out of memory. */
    void *huge = NULL;
    if (cudaMallocAsync(&huge, (size_t)64 << 30, 0) != cudaErrorMemoryAllocation && n_errors++ < 10)
        fprintf(stderr, "t_count: cudaMallocAsync of 64 GiB did not run out of memory\n");
    (void)cudaGetLastError();
    (void)f;
    return n_errors != 0;
}

/* Stream-ordered allocations without a pool go to the device's current pool. */
static int current(void)
{
    CUmemoryPool own = own_pool(), def = NULL;               /* the device's pool 1 */
    check("cuDeviceSetMemPool", cuDeviceSetMemPool(0, own)); /* the default one is pool 2 */
    CUdeviceptr a = 0;
    check("cuMemAllocAsync", cuMemAllocAsync(&a, 3 * MIB, NULL)); /* own: 4 MiB reserved */
    void *b = rt_async(2 * MIB);                                  /* own: 6 MiB */
    check("cuMemFreeAsync", cuMemFreeAsync(a, NULL));
    rt_check("cudaStreamSynchronize", cudaStreamSynchronize(0)); /* own: 2 MiB */
    check("cuDeviceGetDefaultMemPool", cuDeviceGetDefaultMemPool(&def, 0));
    rt_check("cudaDeviceSetMemPool", cudaDeviceSetMemPool(0, (cudaMemPool_t)def));
    void *c = rt_async(5 * MIB); /* default: 6 MiB, the device 8 MiB */
    rt_check("cudaFreeAsync", cudaFreeAsync(c, 0));
    rt_check("cudaFreeAsync", cudaFreeAsync(b, 0));
    check("cuCtxSynchronize", cuCtxSynchronize());
    return n_errors != 0;
}

/* A free on one stream, then an allocation of the same size on another, from a pool that lets
 * no stream reuse what another freed before a synchronization: the pool grows, though the bytes
 * allocated since its last sample, less those freed, fit what it reserved. The same on one
 * stream reuses the freed memory. */
static int streams(void)
{
    CUmemoryPool own = own_pool();
    static const CUmemPool_attribute reuse[3] = {CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES,
                                                 CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC,
                                                 CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES};
    for (int i = 0; i < 3; i++) {
        int off = 0;
        check("cuMemPoolSetAttribute", cuMemPoolSetAttribute(own, reuse[i], &off));
    }
    CUstream a, b;
    check("cuStreamCreate", cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
    check("cuStreamCreate", cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
    CUdeviceptr x = 0, y = 0, z = 0;
    check("cuMemAllocFromPoolAsync", cuMemAllocFromPoolAsync(&x, 4 * MIB, own, a)); /* 4 MiB */
    check("cuMemFreeAsync", cuMemFreeAsync(x, a));
    check("cuMemAllocFromPoolAsync", cuMemAllocFromPoolAsync(&y, 4 * MIB, own, a)); /* reused */
    check("cuMemFreeAsync", cuMemFreeAsync(y, a));
    check("cuMemAllocFromPoolAsync", cuMemAllocFromPoolAsync(&z, 4 * MIB, own, b)); /* 8 MiB */
    check("cuMemFreeAsync", cuMemFreeAsync(z, b));
    check("cuStreamSynchronize", cuStreamSynchronize(b)); /* threshold 0: back to nothing */
    check("cuStreamDestroy", cuStreamDestroy_v2(a));
    check("cuStreamDestroy", cuStreamDestroy_v2(b));
    return n_errors != 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || sim_test_context(0) != CUDA_SUCCESS) {
        fprintf(stderr, "usage: t_count contexts|arrays|padded|pools 0|1G|max|current|streams\n");
        return 2;
    }
    if (!strcmp(argv[1], "contexts"))
        return contexts();
    if (!strcmp(argv[1], "arrays"))
        return arrays();
    if (!strcmp(argv[1], "padded"))
        return padded();
    if (!strcmp(argv[1], "current"))
        return current();
    if (!strcmp(argv[1], "streams"))
        return streams();
    if (!strcmp(argv[1], "pools") && argc == 3)
        return pools(argv[2]);
    fprintf(stderr, "t_count: unknown mode '%s'\n", argv[1]);
    return 2;
}

/* SPDX-License-Identifier: MIT */
/* The simulated runtime's device, copy, array, texture, graph, capture and pool entry points
 * (sim_runtime.def), called as a program linked with -lcudart calls them: results checked
 * against the driver's answers, each error path, and the thread's last error after each failure.
 * Run with VTSIM_DEVICE_COUNT=2 and VTSIM_DEVICE_MEMORY=1G. */
#include <stdint.h>
#include <string.h>
#include "t_rt_common.h"

#define MiB ((size_t)1 << 20)

static void expect_last_error(const char *name, cudaError_t want)
{
    VT_CHECK_EQ(name, cudaGetLastError(), want);
}

static size_t used_bytes(void)
{
    size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    return total - free;
}

static void test_device(void)
{
    int v = 0;
    VT_CHECK_EQ("attribute", cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0),
                cudaSuccess);
    VT_CHECK_EQ("132 SMs", v, 132);
    VT_CHECK_EQ("managed", cudaDeviceGetAttribute(&v, cudaDevAttrManagedMemory, 1), cudaSuccess);
    VT_CHECK_EQ("supported", v, 1);
    VT_CHECK_EQ("bad attribute", cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)0, 0),
                cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("bad device", cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 2),
                cudaErrorInvalidDevice);
    expect_last_error("recorded", cudaErrorInvalidDevice);
    VT_CHECK_EQ("NULL", cudaDeviceGetAttribute(NULL, cudaDevAttrWarpSize, 0),
                cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);

    struct cudaDeviceProp p;
    memset(&p, 0xff, sizeof p);
    VT_CHECK_EQ("properties", cudaGetDeviceProperties(&p, 1), cudaSuccess);
    VT_CHECK("name", strcmp(p.name, "vramtrace simulated GPU") == 0);
    VT_CHECK("capacity", p.totalGlobalMem == T_RT_GIB);
    VT_CHECK("compute 9.0, 132 SMs", p.major == 9 && p.minor == 0 && p.multiProcessorCount == 132);
    VT_CHECK("limits", p.maxThreadsPerBlock == 1024 && p.maxThreadsDim[2] == 64 &&
                           p.maxGridSize[0] == 2147483647 && p.warpSize == 32);
    VT_CHECK("memory", p.sharedMemPerBlock == 49152 && p.totalConstMem == 65536 &&
                           p.textureAlignment == 512 && p.canMapHostMemory == 1);
#ifdef VT_TEST_REAL_CUDA_HEADERS
    VT_CHECK("the fields vt_cuda.h keeps opaque",
             p.managedMemory == 1 && p.concurrentManagedAccess == 1 && p.pciBusID == 2 &&
                 p.memoryPoolsSupported == 1 && p.l2CacheSize == 52428800 &&
                 p.sharedMemPerBlockOptin == 232448 && p.maxTexture2D[1] == 65536 &&
                 p.unifiedAddressing == 1 && p.multiGpuBoardGroupID == 1 && p.reserved[55] == 0);
    VT_CHECK("the UUID", p.uuid.bytes[15] == 1);
#endif
    VT_CHECK_EQ("properties bad device", cudaGetDeviceProperties(&p, 5), cudaErrorInvalidDevice);
    expect_last_error("recorded", cudaErrorInvalidDevice);

    unsigned flags = 0;
    VT_CHECK_EQ("set flags", cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost),
                cudaSuccess);
    VT_CHECK_EQ("get flags", cudaGetDeviceFlags(&flags), cudaSuccess);
    VT_CHECK_EQ("blocking sync and map host", flags,
                cudaDeviceScheduleBlockingSync | cudaDeviceMapHost);
    VT_CHECK_EQ("bad flags", cudaSetDeviceFlags(0x100), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("get flags NULL", cudaGetDeviceFlags(NULL), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);

    int can = -1;
    VT_CHECK_EQ("peer", cudaDeviceCanAccessPeer(&can, 0, 1), cudaSuccess);
    VT_CHECK_EQ("yes", can, 1);
    VT_CHECK_EQ("peer bad device", cudaDeviceCanAccessPeer(&can, 0, 2), cudaErrorInvalidDevice);
    expect_last_error("recorded", cudaErrorInvalidDevice);
    VT_CHECK_EQ("enable", cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
    VT_CHECK_EQ("enable twice", cudaDeviceEnablePeerAccess(1, 0), (cudaError_t)704);
    expect_last_error("recorded", (cudaError_t)704);
    VT_CHECK_EQ("disable", cudaDeviceDisablePeerAccess(1), cudaSuccess);
    VT_CHECK_EQ("disable twice", cudaDeviceDisablePeerAccess(1), (cudaError_t)705);
    expect_last_error("recorded", (cudaError_t)705);
    VT_CHECK_EQ("enable self", cudaDeviceEnablePeerAccess(0, 0), cudaErrorInvalidDevice);
    VT_CHECK_EQ("enable bad device", cudaDeviceEnablePeerAccess(7, 0), cudaErrorInvalidDevice);
    expect_last_error("recorded", cudaErrorInvalidDevice);

    char bus[16];
    int dev = -1;
    VT_CHECK_EQ("bus id", cudaDeviceGetPCIBusId(bus, sizeof bus, 1), cudaSuccess);
    VT_CHECK_EQ("by bus id", cudaDeviceGetByPCIBusId(&dev, bus), cudaSuccess);
    VT_CHECK_EQ("device 1", dev, 1);
    VT_CHECK_EQ("bus id bad device", cudaDeviceGetPCIBusId(bus, sizeof bus, 3),
                cudaErrorInvalidDevice);
    VT_CHECK_EQ("unknown bus", cudaDeviceGetByPCIBusId(&dev, "0000:09:00.0"),
                cudaErrorInvalidDevice);
    expect_last_error("recorded", cudaErrorInvalidDevice);

    size_t lim = 0;
    VT_CHECK_EQ("set limit", cudaDeviceSetLimit(cudaLimitMallocHeapSize, 32 * MiB), cudaSuccess);
    VT_CHECK_EQ("get limit", cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize), cudaSuccess);
    VT_CHECK_EQ("32 MiB", lim, 32 * MiB);
    VT_CHECK_EQ("bad limit", cudaDeviceGetLimit(&lim, (enum cudaLimit)99), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    enum cudaFuncCache cfg = cudaFuncCachePreferNone;
    VT_CHECK_EQ("set cache", cudaDeviceSetCacheConfig(cudaFuncCachePreferL1), cudaSuccess);
    VT_CHECK_EQ("get cache", cudaDeviceGetCacheConfig(&cfg), cudaSuccess);
    VT_CHECK_EQ("L1", cfg, cudaFuncCachePreferL1);
    VT_CHECK_EQ("bad cache", cudaDeviceSetCacheConfig((enum cudaFuncCache)9),
                cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    int least = 9, greatest = 9;
    VT_CHECK_EQ("priority range", cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
    VT_CHECK("0 and -5", least == 0 && greatest == -5);
    VT_CHECK_EQ("profiler start", cudaProfilerStart(), cudaSuccess);
    VT_CHECK_EQ("profiler stop", cudaProfilerStop(), cudaSuccess);
}

static void test_copies(void)
{
    size_t before = used_bytes();
    void *d = NULL;
    size_t pitch = 0;
    unsigned char host[64 * 8], back[64 * 8];
    for (int i = 0; i < (int)sizeof host; i++)
        host[i] = (unsigned char)i;
    VT_CHECK_EQ("pitched", cudaMallocPitch(&d, &pitch, 64, 8), cudaSuccess);
    VT_CHECK_EQ("2D to device", cudaMemcpy2D(d, pitch, host, 64, 64, 8, cudaMemcpyHostToDevice),
                cudaSuccess);
    memset(back, 0, sizeof back);
    VT_CHECK_EQ("2D back", cudaMemcpy2DAsync(back, 64, d, pitch, 64, 8, cudaMemcpyDeviceToHost, 0),
                cudaSuccess);
    VT_CHECK("round trip", memcmp(host, back, sizeof host) == 0);
    VT_CHECK_EQ("2D default kind", cudaMemcpy2D(back, 64, d, pitch, 64, 8, cudaMemcpyDefault),
                cudaSuccess);
    VT_CHECK_EQ("2D rows past the allocation",
                cudaMemcpy2D(d, pitch, host, 64, 64, 9, cudaMemcpyHostToDevice),
                cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("2D pitch below width",
                cudaMemcpy2D(d, 32, host, 64, 64, 2, cudaMemcpyHostToDevice),
                cudaErrorInvalidPitchValue);
    expect_last_error("recorded", cudaErrorInvalidPitchValue);
    VT_CHECK_EQ("2D bad kind", cudaMemcpy2D(d, pitch, host, 64, 64, 2, (enum cudaMemcpyKind)7),
                cudaErrorInvalidMemcpyDirection);
    expect_last_error("recorded", cudaErrorInvalidMemcpyDirection);
    VT_CHECK_EQ("memset async", cudaMemsetAsync(d, 0x5a, 64, 0), cudaSuccess);
    VT_CHECK_EQ("memset 2D", cudaMemset2D(d, pitch, 0x11, 64, 8), cudaSuccess);
    VT_CHECK_EQ("memset 2D async", cudaMemset2DAsync(d, pitch, 0x22, 64, 8, 0), cudaSuccess);
    cudaMemcpy(back, (char *)d + 7 * pitch, 64, cudaMemcpyDeviceToHost);
    VT_CHECK("last row set", back[0] == 0x22 && back[63] == 0x22);
    VT_CHECK_EQ("memset 2D past", cudaMemset2D(d, pitch, 0, 64, 9), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("memset async past", cudaMemsetAsync(d, 0, pitch * 8 + 1, 0),
                cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    cudaFree(d);

    struct cudaPitchedPtr pp;
    struct cudaExtent ext = {16, 4, 3};
    VT_CHECK_EQ("3D allocation", cudaMalloc3D(&pp, ext), cudaSuccess);
    VT_CHECK_EQ("memset 3D", cudaMemset3D(pp, 0x33, ext), cudaSuccess);
    unsigned char vol[16 * 4 * 3];
    struct cudaMemcpy3DParms p3;
    memset(&p3, 0, sizeof p3);
    p3.srcPtr = pp;
    p3.dstPtr.ptr = vol, p3.dstPtr.pitch = 16, p3.dstPtr.xsize = 16, p3.dstPtr.ysize = 4;
    p3.extent = ext;
    p3.kind = cudaMemcpyDeviceToHost;
    VT_CHECK_EQ("3D copy", cudaMemcpy3D(&p3), cudaSuccess);
    VT_CHECK("every byte set", vol[0] == 0x33 && vol[sizeof vol - 1] == 0x33);
    VT_CHECK_EQ("3D copy async", cudaMemcpy3DAsync(&p3, 0), cudaSuccess);
    p3.extent.depth = 4;
    VT_CHECK_EQ("3D past the allocation", cudaMemcpy3D(&p3), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("3D NULL", cudaMemcpy3D(NULL), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    cudaFree(pp.ptr);

    /* arrays: 3D, 2D copies to and from, info, mipmaps */
    struct cudaChannelFormatDesc f4 =
        cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    VT_CHECK("channel desc", f4.x == 32 && f4.y == 0 && f4.f == cudaChannelFormatKindFloat);
    cudaArray_t arr;
    struct cudaExtent ae = {64, 32, 2};
    VT_CHECK_EQ("3D array", cudaMalloc3DArray(&arr, &f4, ae, cudaArraySurfaceLoadStore),
                cudaSuccess);
    VT_CHECK_EQ("charged by the layout", used_bytes() - before, 512 * 32 * 2);
    struct cudaChannelFormatDesc got;
    struct cudaExtent gext;
    unsigned flags;
    VT_CHECK_EQ("info", cudaArrayGetInfo(&got, &gext, &flags, arr), cudaSuccess);
    VT_CHECK("info values", got.x == 32 && got.f == cudaChannelFormatKindFloat &&
                                gext.width == 64 && gext.depth == 2 &&
                                flags == cudaArraySurfaceLoadStore);
    VT_CHECK_EQ("info bad array", cudaArrayGetInfo(&got, &gext, &flags, (cudaArray_t)host),
                cudaErrorInvalidResourceHandle);
    expect_last_error("recorded", cudaErrorInvalidResourceHandle);
    float rows[2][64], rb[2][64];
    for (int i = 0; i < 128; i++)
        rows[i / 64][i % 64] = (float)i;
    VT_CHECK_EQ("2D to array",
                cudaMemcpy2DToArray(arr, 0, 3, rows, sizeof rows[0], sizeof rows[0], 2,
                                    cudaMemcpyHostToDevice),
                cudaSuccess);
    VT_CHECK_EQ(
        "2D from array",
        cudaMemcpy2DFromArray(rb, sizeof rb[0], arr, 0, 3, sizeof rb[0], 2, cudaMemcpyDeviceToHost),
        cudaSuccess);
    VT_CHECK("array round trip", memcmp(rows, rb, sizeof rows) == 0);
    VT_CHECK_EQ("2D to array past",
                cudaMemcpy2DToArray(arr, 0, 31, rows, sizeof rows[0], sizeof rows[0], 2,
                                    cudaMemcpyHostToDevice),
                cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("2D to NULL array",
                cudaMemcpy2DToArray(NULL, 0, 0, rows, 256, 256, 1, cudaMemcpyHostToDevice),
                cudaErrorInvalidResourceHandle);
    expect_last_error("recorded", cudaErrorInvalidResourceHandle);
    memset(&p3, 0, sizeof p3);
    p3.srcArray = arr;
    p3.srcPos.y = 3;
    p3.dstPtr.ptr = rb, p3.dstPtr.pitch = sizeof rb[0], p3.dstPtr.ysize = 2;
    p3.extent.width = 64, p3.extent.height = 2, p3.extent.depth = 1; /* width in elements */
    p3.kind = cudaMemcpyDeviceToHost;
    memset(rb, 0, sizeof rb);
    VT_CHECK_EQ("3D from an array", cudaMemcpy3D(&p3), cudaSuccess);
    VT_CHECK("elements, not bytes", memcmp(rows, rb, sizeof rows) == 0);

    cudaTextureObject_t tex = 0;
    cudaSurfaceObject_t surf = 0;
    struct cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = arr;
    struct cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 1;
    size_t mid = used_bytes();
    VT_CHECK_EQ("texture", cudaCreateTextureObject(&tex, &rd, &td, NULL), cudaSuccess);
    VT_CHECK_EQ("surface", cudaCreateSurfaceObject(&surf, &rd), cudaSuccess);
    VT_CHECK_EQ("cost nothing", used_bytes(), mid);
    VT_CHECK_EQ("texture NULL desc", cudaCreateTextureObject(&tex, &rd, NULL, NULL),
                cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    void *lin;
    cudaMalloc(&lin, 4096);
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = lin;
    rd.res.linear.desc = f4;
    rd.res.linear.sizeInBytes = 4096;
    cudaTextureObject_t tex2;
    VT_CHECK_EQ("linear texture", cudaCreateTextureObject(&tex2, &rd, &td, NULL), cudaSuccess);
    rd.res.linear.sizeInBytes = 8192;
    VT_CHECK_EQ("linear past", cudaCreateTextureObject(&tex2, &rd, &td, NULL),
                cudaErrorInvalidValue);
    rd.res.linear.desc.y = 16;
    VT_CHECK_EQ("bad channel desc", cudaCreateTextureObject(&tex2, &rd, &td, NULL),
                cudaErrorInvalidChannelDescriptor);
    expect_last_error("recorded", cudaErrorInvalidChannelDescriptor);
    VT_CHECK_EQ("destroy texture", cudaDestroyTextureObject(tex), cudaSuccess);
    VT_CHECK_EQ("destroy twice", cudaDestroyTextureObject(tex), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("destroy surface", cudaDestroySurfaceObject(surf), cudaSuccess);
    VT_CHECK_EQ("destroy surface twice", cudaDestroySurfaceObject(surf), cudaErrorInvalidValue);
    cudaDestroyTextureObject(tex2);
    cudaFree(lin);
    VT_CHECK_EQ("free array", cudaFreeArray(arr), cudaSuccess);

    cudaMipmappedArray_t mip;
    cudaArray_t level;
    struct cudaExtent me = {128, 128, 0};
    VT_CHECK_EQ("mipmapped", cudaMallocMipmappedArray(&mip, &f4, me, 3, 0), cudaSuccess);
    VT_CHECK_EQ("level", cudaGetMipmappedArrayLevel(&level, mip, 1), cudaSuccess);
    VT_CHECK_EQ("level info", cudaArrayGetInfo(NULL, &gext, NULL, level), cudaSuccess);
    VT_CHECK("64 x 64", gext.width == 64 && gext.height == 64);
    VT_CHECK_EQ("level past", cudaGetMipmappedArrayLevel(&level, mip, 3), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("free mipmapped", cudaFreeMipmappedArray(mip), cudaSuccess);
    VT_CHECK_EQ("free twice", cudaFreeMipmappedArray(mip), cudaErrorInvalidResourceHandle);
    expect_last_error("recorded", cudaErrorInvalidResourceHandle);
    VT_CHECK_EQ("free NULL", cudaFreeMipmappedArray(NULL), cudaSuccess);
    struct cudaChannelFormatDesc bad =
        cudaCreateChannelDesc(24, 0, 0, 0, cudaChannelFormatKindFloat);
    VT_CHECK_EQ("bad format", cudaMalloc3DArray(&arr, &bad, ae, 0),
                cudaErrorInvalidChannelDescriptor);
    expect_last_error("recorded", cudaErrorInvalidChannelDescriptor);
    VT_CHECK_EQ("mipmapped bad format", cudaMallocMipmappedArray(&mip, &bad, me, 2, 0),
                cudaErrorInvalidChannelDescriptor);
    VT_CHECK_EQ("3D array NULL", cudaMalloc3DArray(NULL, &f4, ae, 0), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("all back", used_bytes(), before);

    /* peer copies */
    void *a0, *a1;
    int x = 99, y = 0;
    cudaMalloc(&a0, 4);
    cudaSetDevice(1);
    cudaMalloc(&a1, 4);
    cudaMemcpy(a1, &x, 4, cudaMemcpyHostToDevice);
    cudaSetDevice(0);
    VT_CHECK_EQ("peer copy", cudaMemcpyPeer(a0, 0, a1, 1, 4), cudaSuccess);
    VT_CHECK_EQ("peer copy async", cudaMemcpyPeerAsync(a0, 0, a1, 1, 4, 0), cudaSuccess);
    cudaMemcpy(&y, a0, 4, cudaMemcpyDeviceToHost);
    VT_CHECK_EQ("copied", y, 99);
    VT_CHECK_EQ("peer bad device", cudaMemcpyPeer(a0, 0, a1, 4, 4), cudaErrorInvalidDevice);
    expect_last_error("recorded", cudaErrorInvalidDevice);
    VT_CHECK_EQ("peer past", cudaMemcpyPeer(a0, 0, a1, 1, 8), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    cudaFree(a0);
    cudaSetDevice(1);
    cudaFree(a1);
    cudaSetDevice(0);
}

static void test_host_and_managed(void)
{
    void *h, *d = NULL;
    unsigned flags = 0;
    VT_CHECK_EQ("mapped", cudaHostAlloc(&h, 4096, cudaHostAllocMapped), cudaSuccess);
    VT_CHECK_EQ("device pointer", cudaHostGetDevicePointer(&d, h, 0), cudaSuccess);
    VT_CHECK("the host pointer", d == h);
    VT_CHECK_EQ("flags", cudaHostGetFlags(&flags, h), cudaSuccess);
    VT_CHECK_EQ("mapped", flags, cudaHostAllocMapped);
    VT_CHECK_EQ("device pointer of the stack", cudaHostGetDevicePointer(&d, &flags, 0),
                cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("device pointer NULL", cudaHostGetDevicePointer(NULL, h, 0), cudaErrorInvalidValue);
    VT_CHECK_EQ("flags of the stack", cudaHostGetFlags(&flags, &flags), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);

    struct cudaPointerAttributes pa;
    void *dev, *man;
    cudaMalloc(&dev, 64);
    cudaMallocManaged(&man, 4096, cudaMemAttachGlobal);
    VT_CHECK_EQ("attributes of device memory", cudaPointerGetAttributes(&pa, dev), cudaSuccess);
    VT_CHECK("device", pa.type == cudaMemoryTypeDevice && pa.device == 0 &&
                           pa.devicePointer == dev && pa.hostPointer == NULL);
    VT_CHECK_EQ("attributes of pinned memory", cudaPointerGetAttributes(&pa, h), cudaSuccess);
    VT_CHECK("host", pa.type == cudaMemoryTypeHost && pa.hostPointer == h);
    VT_CHECK_EQ("attributes of managed memory", cudaPointerGetAttributes(&pa, man), cudaSuccess);
    VT_CHECK("managed", pa.type == cudaMemoryTypeManaged);
    VT_CHECK_EQ("attributes of the stack", cudaPointerGetAttributes(&pa, &flags), cudaSuccess);
    VT_CHECK("unregistered", pa.type == cudaMemoryTypeUnregistered);
    VT_CHECK_EQ("attributes NULL", cudaPointerGetAttributes(NULL, dev), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);

    struct cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
    VT_CHECK_EQ("prefetch", cudaMemPrefetchAsync(man, 4096, loc, 0, 0), cudaSuccess);
    VT_CHECK_EQ("advise", cudaMemAdvise(man, 4096, cudaMemAdviseSetReadMostly, loc), cudaSuccess);
    VT_CHECK_EQ("attach", cudaStreamAttachMemAsync(0, man, 0, cudaMemAttachSingle), cudaSuccess);
    VT_CHECK_EQ("prefetch device memory", cudaMemPrefetchAsync(dev, 64, loc, 0, 0),
                cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("advise past", cudaMemAdvise(man, 8192, cudaMemAdviseSetReadMostly, loc),
                cudaErrorInvalidValue);
    VT_CHECK_EQ("attach bad flags", cudaStreamAttachMemAsync(0, man, 0, 9), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);

    cudaIpcMemHandle_t ipc;
    void *opened;
    VT_CHECK_EQ("ipc handle", cudaIpcGetMemHandle(&ipc, dev), cudaSuccess);
    VT_CHECK_EQ("open in the same process",
                cudaIpcOpenMemHandle(&opened, ipc, cudaIpcMemLazyEnablePeerAccess),
                cudaErrorDeviceUninitialized);
    expect_last_error("recorded", cudaErrorDeviceUninitialized);
    VT_CHECK_EQ("ipc of managed memory", cudaIpcGetMemHandle(&ipc, man), cudaErrorInvalidValue);
    VT_CHECK_EQ("close unknown", cudaIpcCloseMemHandle(dev), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    cudaFree(dev);
    cudaFree(man);
    cudaFreeHost(h);
}

static int host_node_runs;
static void host_node(void *arg)
{
    (void)arg;
    host_node_runs++;
}

static void test_graphs_and_pools(void)
{
    size_t before = used_bytes();
    cudaStream_t s;
    int prio = 9;
    unsigned flags = 9;
    VT_CHECK_EQ("stream with priority", cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -3),
                cudaSuccess);
    VT_CHECK_EQ("priority", cudaStreamGetPriority(s, &prio), cudaSuccess);
    VT_CHECK_EQ("-3", prio, -3);
    VT_CHECK_EQ("flags", cudaStreamGetFlags(s, &flags), cudaSuccess);
    VT_CHECK_EQ("non-blocking", flags, cudaStreamNonBlocking);
    VT_CHECK_EQ("priority NULL", cudaStreamGetPriority(s, NULL), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("create NULL", cudaStreamCreateWithPriority(NULL, 0, 0), cudaErrorInvalidValue);

    /* capture: an allocation freed in the graph and one left live */
    cudaGraph_t g = NULL;
    cudaGraphExec_t ex;
    void *tmp = NULL, *kept = NULL;
    enum cudaStreamCaptureStatus st;
    VT_CHECK_EQ("begin", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    VT_CHECK_EQ("capturing", cudaStreamIsCapturing(s, &st), cudaSuccess);
    VT_CHECK_EQ("active", st, cudaStreamCaptureStatusActive);
    VT_CHECK_EQ("alloc", cudaMallocAsync(&tmp, 3 * MiB, s), cudaSuccess);
    VT_CHECK_EQ("alloc kept", cudaMallocAsync(&kept, MiB, s), cudaSuccess);
    VT_CHECK_EQ("set", cudaMemsetAsync(kept, 1, MiB, s), cudaSuccess);
    VT_CHECK_EQ("host func", cudaLaunchHostFunc(s, host_node, NULL), cudaSuccess);
    VT_CHECK_EQ("free", cudaFreeAsync(tmp, s), cudaSuccess);
    VT_CHECK_EQ("nothing charged yet", used_bytes(), before);
    void *sync_alloc;
    VT_CHECK_EQ("cudaMalloc during a global capture", cudaMalloc(&sync_alloc, 512),
                (cudaError_t)900);
    expect_last_error("recorded", (cudaError_t)900);
    VT_CHECK_EQ("end: invalidated", cudaStreamEndCapture(s, &g), (cudaError_t)901);
    expect_last_error("recorded", (cudaError_t)901);

    enum cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    VT_CHECK_EQ("begin again", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    VT_CHECK_EQ("relax the thread", cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
    VT_CHECK_EQ("was global", mode, cudaStreamCaptureModeGlobal);
    VT_CHECK_EQ("cudaMalloc while relaxed", cudaMalloc(&sync_alloc, 512), cudaSuccess);
    VT_CHECK_EQ("cudaFree while relaxed", cudaFree(sync_alloc), cudaSuccess);
    VT_CHECK_EQ("restore", cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
    VT_CHECK_EQ("alloc", cudaMallocAsync(&tmp, 3 * MiB, s), cudaSuccess);
    VT_CHECK_EQ("alloc kept", cudaMallocAsync(&kept, MiB, s), cudaSuccess);
    VT_CHECK_EQ("host func", cudaLaunchHostFunc(s, host_node, NULL), cudaSuccess);
    VT_CHECK_EQ("free", cudaFreeAsync(tmp, s), cudaSuccess);
    VT_CHECK_EQ("sync while capturing", cudaStreamSynchronize(s), (cudaError_t)900);
    VT_CHECK_EQ("end", cudaStreamEndCapture(s, &g), (cudaError_t)901);
    expect_last_error("recorded", (cudaError_t)901);
    VT_CHECK_EQ("begin a third time", cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal),
                cudaSuccess);
    VT_CHECK_EQ("alloc", cudaMallocAsync(&tmp, 3 * MiB, s), cudaSuccess);
    VT_CHECK_EQ("alloc kept", cudaMallocAsync(&kept, MiB, s), cudaSuccess);
    VT_CHECK_EQ("host func", cudaLaunchHostFunc(s, host_node, NULL), cudaSuccess);
    VT_CHECK_EQ("free", cudaFreeAsync(tmp, s), cudaSuccess);
    VT_CHECK_EQ("end", cudaStreamEndCapture(s, &g), cudaSuccess);
    size_t n = 0;
    VT_CHECK_EQ("nodes", cudaGraphGetNodes(g, NULL, &n), cudaSuccess);
    VT_CHECK_EQ("4 nodes", n, 4);
    VT_CHECK_EQ("instantiate", cudaGraphInstantiate(&ex, g, 0), cudaSuccess);
    VT_CHECK_EQ("upload", cudaGraphUpload(ex, s), cudaSuccess);
    VT_CHECK_EQ("launch", cudaGraphLaunch(ex, s), cudaSuccess);
    VT_CHECK_EQ("sync", cudaStreamSynchronize(s), cudaSuccess);
    VT_CHECK_EQ("the host node ran", host_node_runs, 1);
    unsigned long long v = 0;
    VT_CHECK_EQ("used", cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &v),
                cudaSuccess);
    VT_CHECK_EQ("the kept MiB", v, MiB);
    VT_CHECK_EQ("reserved high",
                cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &v),
                cudaSuccess);
    VT_CHECK_EQ("4 MiB reserved (3 + 1 live at once)", v, 4 * MiB);
    VT_CHECK_EQ("relaunch while kept is live", cudaGraphLaunch(ex, s), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("free kept", cudaFree(kept), cudaSuccess);
    VT_CHECK_EQ("trim", cudaDeviceGraphMemTrim(0), cudaSuccess);
    VT_CHECK_EQ("given back", used_bytes(), before);
    VT_CHECK_EQ(
        "reset high",
        cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &(unsigned long long){0}),
        cudaSuccess);
    VT_CHECK_EQ("attr bad device",
                cudaDeviceGetGraphMemAttribute(4, cudaGraphMemAttrUsedMemHigh, &v),
                cudaErrorInvalidDevice);
    expect_last_error("recorded", cudaErrorInvalidDevice);
    VT_CHECK_EQ("trim bad device", cudaDeviceGraphMemTrim(4), cudaErrorInvalidDevice);
    VT_CHECK_EQ("exec destroy", cudaGraphExecDestroy(ex), cudaSuccess);
    VT_CHECK_EQ("graph destroy", cudaGraphDestroy(g), cudaSuccess);
    VT_CHECK_EQ("launch destroyed", cudaGraphLaunch(ex, s), cudaErrorInvalidValue);
    VT_CHECK_EQ("end without begin", cudaStreamEndCapture(s, &g), (cudaError_t)401);
    expect_last_error("recorded", (cudaError_t)401);

    /* a graph built by hand */
    cudaGraphNode_t an, hn, en, sn, fn;
    struct cudaMemAllocNodeParams ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = 1; /* cudaMemAllocationTypePinned */
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    ap.bytesize = 2 * MiB;
    VT_CHECK_EQ("graph", cudaGraphCreate(&g, 0), cudaSuccess);
    VT_CHECK_EQ("alloc node", cudaGraphAddMemAllocNode(&an, g, NULL, 0, &ap), cudaSuccess);
    struct cudaMemsetParams sp = {ap.dptr, 0, 7, 4, 16, 1};
    VT_CHECK_EQ("memset node", cudaGraphAddMemsetNode(&sn, g, &an, 1, &sp), cudaSuccess);
    struct cudaHostNodeParams hp = {host_node, NULL};
    VT_CHECK_EQ("host node", cudaGraphAddHostNode(&hn, g, &sn, 1, &hp), cudaSuccess);
    VT_CHECK_EQ("empty node", cudaGraphAddEmptyNode(&en, g, &hn, 1), cudaSuccess);
    VT_CHECK_EQ("free node", cudaGraphAddMemFreeNode(&fn, g, &en, 1, ap.dptr), cudaSuccess);
    VT_CHECK_EQ("instantiate with flags", cudaGraphInstantiateWithFlags(&ex, g, 0), cudaSuccess);
    VT_CHECK_EQ("launch", cudaGraphLaunch(ex, 0), cudaSuccess);
    VT_CHECK_EQ("launch again", cudaGraphLaunch(ex, 0), cudaSuccess);
    VT_CHECK_EQ("device sync", cudaDeviceSynchronize(), cudaSuccess);
    VT_CHECK_EQ("host node ran twice more", host_node_runs, 3);
    ap.bytesize = 0;
    VT_CHECK_EQ("alloc node of 0 bytes", cudaGraphAddMemAllocNode(&an, g, NULL, 0, &ap),
                cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("free node NULL", cudaGraphAddMemFreeNode(&fn, g, NULL, 0, NULL),
                cudaErrorInvalidValue);
    hp.fn = NULL;
    VT_CHECK_EQ("host node NULL", cudaGraphAddHostNode(&hn, g, NULL, 0, &hp),
                cudaErrorInvalidValue);
    sp.elementSize = 3;
    VT_CHECK_EQ("memset node bad size", cudaGraphAddMemsetNode(&sn, g, NULL, 0, &sp),
                cudaErrorInvalidValue);
    VT_CHECK_EQ("graph flags", cudaGraphCreate(&g, 1), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    cudaGraphExecDestroy(ex);
    VT_CHECK_EQ("instantiate bad flags", cudaGraphInstantiate(&ex, g, 0x100),
                cudaErrorInvalidValue);
    cudaGraphDestroy(g);
    cudaDeviceGraphMemTrim(0);

    /* pools */
    cudaMemPool_t pool;
    struct cudaMemPoolProps pp;
    memset(&pp, 0, sizeof pp);
    pp.allocType = 1;
    pp.location.type = cudaMemLocationTypeDevice;
    pp.location.id = 0;
    VT_CHECK_EQ("pool", cudaMemPoolCreate(&pool, &pp), cudaSuccess);
    unsigned long long never = UINT64_MAX, got = 0;
    VT_CHECK_EQ("threshold", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &never),
                cudaSuccess);
    void *pa;
    VT_CHECK_EQ("from pool", cudaMallocFromPoolAsync(&pa, 3 * MiB, pool, s), cudaSuccess);
    VT_CHECK_EQ("free", cudaFreeAsync(pa, s), cudaSuccess);
    VT_CHECK_EQ("sync", cudaStreamSynchronize(s), cudaSuccess);
    VT_CHECK_EQ("reserved", cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &got),
                cudaSuccess);
    VT_CHECK_EQ("kept: never released", got, 4 * MiB);
    VT_CHECK_EQ("bad attribute", cudaMemPoolGetAttribute(pool, (enum cudaMemPoolAttr)99, &got),
                cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("destroy", cudaMemPoolDestroy(pool), cudaSuccess);
    VT_CHECK_EQ("destroy twice", cudaMemPoolDestroy(pool), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    pp.location.id = 9;
    VT_CHECK_EQ("pool on a bad device", cudaMemPoolCreate(&pool, &pp), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    cudaStreamDestroy(s);
    VT_CHECK_EQ("all back", used_bytes(), before);
}

int main(void)
{
    VT_CHECK("the simulated libcudart.so.13 is loaded", t_rt_sim_runtime_loaded());
    test_device();
    test_copies();
    test_host_and_managed();
    test_graphs_and_pools();
    VT_CHECK_EQ("clean end", cudaGetLastError(), cudaSuccess);
    return vt_test_done();
}

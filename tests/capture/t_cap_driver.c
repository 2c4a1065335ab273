/* SPDX-License-Identifier: MIT */
/* Door (3), -lcuda: every hooked driver export of src/hooks.def called by name, in an order
 * whose bytes are known, so that the exit report of libvramtrace.so (expected/driver.txt) proves
 * exactly what each hook counts: device, pitch, managed, pinned (alloc, alloc host, register),
 * stream-ordered (legacy and _ptsz, default pool and an explicit one), VMM handles (counted from
 * cuMemCreate until the last release and the last unmap; a host-located handle is pinned),
 * arrays (logical bytes, mipmap levels), graph memory (the driver's reserve after launch, trim
 * and exec destroy), IPC (the child of a fork opens the parent's handle: the `imported` series
 * of the child's own report), and context teardown dropping live memory. Device 0's peak is
 * the moment pitched, stream-ordered and VMM memory are all live; graphs run on device 2 and
 * arrays on device 3, so each peak is one sum of known sizes. Run with VTSIM_DEVICE_COUNT=4
 * and VTSIM_DEVICE_MEMORY=1G. */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sim_test.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)

/* Exports cuda.h declares only under --default-stream per-thread, or only under another name
 * (cuda.h maps cuGetProcAddress and cuIpcOpenMemHandle to their _v2 exports): linked by their
 * exported names, the 4-argument and 4010 ABIs. */
CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream);
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                      CUstream hStream);
CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream);
CUresult cap_get_proc_address_v1(const char *symbol, void **pfn, int cudaVersion,
                                 cuuint64_t flags) __asm__("cuGetProcAddress");
CUresult cap_ipc_open_v1(CUdeviceptr *pdptr, CUipcMemHandle handle,
                         unsigned int Flags) __asm__("cuIpcOpenMemHandle");

static unsigned char registered[64 * KiB] __attribute__((aligned(4096)));

/* The lookup doors of the driver itself, called by name: what they hand out allocates and frees
 * under the tracker (512 bytes, device series). */
static void lookups(void)
{
    __typeof__(&cuMemAlloc_v2) alloc = NULL;
    __typeof__(&cuMemFree_v2) release = NULL;
    CUdriverProcAddressQueryResult st;
    VT_CHECK_EQ("gpa v2", cuGetProcAddress_v2("cuMemAlloc", (void **)&alloc, 12000, 0, &st),
                CUDA_SUCCESS);
    VT_CHECK_EQ("gpa v1", cap_get_proc_address_v1("cuMemFree", (void **)&release, 3020, 0),
                CUDA_SUCCESS);
    CUdeviceptr p = 0;
    VT_CHECK("fetched", alloc && release);
    if (alloc && release) {
        VT_CHECK_EQ("alloc through gpa v2", alloc(&p, 512), CUDA_SUCCESS);
        VT_CHECK_EQ("free through gpa v1", release(p), CUDA_SUCCESS);
    }
}

static void pinned(void **kept)
{
    void *a = NULL;
    VT_CHECK_EQ("host alloc 8 KiB", cuMemHostAlloc(&a, 8 * KiB, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("alloc host 16 KiB (kept)", cuMemAllocHost_v2(kept, 16 * KiB), CUDA_SUCCESS);
    VT_CHECK_EQ("register 64 KiB", cuMemHostRegister_v2(registered, sizeof registered, 0),
                CUDA_SUCCESS);
    VT_CHECK_EQ("free host", cuMemFreeHost(a), CUDA_SUCCESS);
    VT_CHECK_EQ("unregister", cuMemHostUnregister(registered), CUDA_SUCCESS);
}

/* 2000 + 3000 + 5000 + 7000 bytes on top of what is live, until stream_ordered_free frees
 * them by four different calls. */
static CUmemoryPool stream_ordered_alloc(CUdeviceptr out[4])
{
    CUmemoryPool pool = NULL;
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 0;
    VT_CHECK_EQ("pool", cuMemPoolCreate(&pool, &props), CUDA_SUCCESS);
    VT_CHECK_EQ("async", cuMemAllocAsync(&out[0], 2000, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("async ptsz", cuMemAllocAsync_ptsz(&out[1], 3000, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("from pool", cuMemAllocFromPoolAsync(&out[2], 5000, pool, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("from pool ptsz", cuMemAllocFromPoolAsync_ptsz(&out[3], 7000, pool, NULL),
                CUDA_SUCCESS);
    return pool;
}

static void stream_ordered_free(CUmemoryPool pool, const CUdeviceptr p[4])
{
    VT_CHECK_EQ("free async", cuMemFreeAsync(p[0], NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("free async ptsz", cuMemFreeAsync_ptsz(p[1], NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("free async pool", cuMemFreeAsync(p[2], NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("cuMemFree of a pool allocation", cuMemFree_v2(p[3]), CUDA_SUCCESS);
    VT_CHECK_EQ("sync", cuCtxSynchronize(), CUDA_SUCCESS);
    VT_CHECK_EQ("pool destroy", cuMemPoolDestroy(pool), CUDA_SUCCESS);
}

/* A 2 MiB device handle stays counted after both its references are released, until
 * vmm_end unmaps it; a 2 MiB host-located handle is pinned memory. Reservations count nothing.
 * Returns the reserved range. */
static CUdeviceptr vmm_begin(void)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    CUmemGenericAllocationHandle h = 0, again = 0;
    CUdeviceptr va = 0;
    VT_CHECK_EQ("reserve", cuMemAddressReserve(&va, 4 * MiB, 0, 0, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("create", cuMemCreate(&h, 2 * MiB, &prop, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("map", cuMemMap(va, 2 * MiB, 0, h, 0), CUDA_SUCCESS);
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    VT_CHECK_EQ("set access", cuMemSetAccess(va, 2 * MiB, &access, 1), CUDA_SUCCESS);
    VT_CHECK_EQ("retain", cuMemRetainAllocationHandle(&again, (void *)(uintptr_t)va), CUDA_SUCCESS);
    VT_CHECK_EQ("release", cuMemRelease(h), CUDA_SUCCESS);
    VT_CHECK_EQ("release the retained reference", cuMemRelease(again), CUDA_SUCCESS);
    return va;
}

/* Returns the host-located handle, still to be released. */
static CUmemGenericAllocationHandle vmm_end(CUdeviceptr va)
{
    VT_CHECK_EQ("unmap: the last use", cuMemUnmap(va, 2 * MiB), CUDA_SUCCESS);
    VT_CHECK_EQ("address free", cuMemAddressFree(va, 4 * MiB), CUDA_SUCCESS);
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_HOST;
    CUmemGenericAllocationHandle host = 0;
    VT_CHECK_EQ("create on the host", cuMemCreate(&host, 2 * MiB, &prop, 0), CUDA_SUCCESS);
    return host;
}

/* On device 3, alone, so its peak is their sum. Logical bytes: 100×50 float4 = 80000; 1000
 * uchar, height 0 = 1000; 64×32×8 ushort2 = 65536; 4 mipmap levels of 64×2 uchar = 128 + 32 +
 * 16 + 8 = 184. All live at once: 146720. */
static void arrays(void)
{
    CUarray a2 = NULL, a1 = NULL, a3 = NULL;
    CUmipmappedArray mip = NULL;
    CUDA_ARRAY_DESCRIPTOR d2 = {100, 50, CU_AD_FORMAT_FLOAT, 4};
    CUDA_ARRAY_DESCRIPTOR d1 = {1000, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1};
    CUDA_ARRAY3D_DESCRIPTOR d3 = {64, 32, 8, CU_AD_FORMAT_UNSIGNED_INT16, 2, 0};
    CUDA_ARRAY3D_DESCRIPTOR dm = {64, 2, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0};
    VT_CHECK_EQ("array 2D", cuArrayCreate_v2(&a2, &d2), CUDA_SUCCESS);
    VT_CHECK_EQ("array 1D", cuArrayCreate_v2(&a1, &d1), CUDA_SUCCESS);
    VT_CHECK_EQ("array 3D", cuArray3DCreate_v2(&a3, &d3), CUDA_SUCCESS);
    VT_CHECK_EQ("mipmapped", cuMipmappedArrayCreate(&mip, &dm, 4), CUDA_SUCCESS);
    VT_CHECK_EQ("destroy 2D", cuArrayDestroy(a2), CUDA_SUCCESS);
    VT_CHECK_EQ("destroy 1D", cuArrayDestroy(a1), CUDA_SUCCESS);
    VT_CHECK_EQ("destroy 3D", cuArrayDestroy(a3), CUDA_SUCCESS);
    VT_CHECK_EQ("destroy mipmapped", cuMipmappedArrayDestroy(mip), CUDA_SUCCESS);
}

/* On device 2, alone. Graph 1 allocates 3 MiB and frees it in-graph: the driver reserves 4 MiB at launch until the
 * trim. Graph 2's 1 MiB (a 2 MiB reserve) is freed by cuMemFreeAsync, an address the tracker
 * never saw (unmatched_frees=1); its reserve stays across both exec destroys until the trim. */
static void graphs(void)
{
    CUDA_MEM_ALLOC_NODE_PARAMS np;
    memset(&np, 0, sizeof np);
    np.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    np.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    np.poolProps.location.id = 2;
    np.bytesize = 3 * MiB;
    CUgraph g1 = NULL, g2 = NULL;
    CUgraphNode alloc_node = NULL, free_node = NULL;
    CUgraphExec e1 = NULL, e2 = NULL;
    VT_CHECK_EQ("graph 1", cuGraphCreate(&g1, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("alloc node", cuGraphAddMemAllocNode(&alloc_node, g1, NULL, 0, &np), CUDA_SUCCESS);
    VT_CHECK_EQ("free node", cuGraphAddMemFreeNode(&free_node, g1, &alloc_node, 1, np.dptr),
                CUDA_SUCCESS);
    VT_CHECK_EQ("instantiate 1", cuGraphInstantiateWithFlags(&e1, g1, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("launch 1", cuGraphLaunch(e1, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("relaunch 1 ptsz", cuGraphLaunch_ptsz(e1, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("trim", cuDeviceGraphMemTrim(2), CUDA_SUCCESS);

    np.dptr = 0;
    np.bytesize = MiB;
    VT_CHECK_EQ("graph 2", cuGraphCreate(&g2, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("alloc node 2", cuGraphAddMemAllocNode(&alloc_node, g2, NULL, 0, &np),
                CUDA_SUCCESS);
    VT_CHECK_EQ("instantiate 2", cuGraphInstantiateWithFlags(&e2, g2, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("launch 2", cuGraphLaunch(e2, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("free the graph allocation", cuMemFreeAsync(np.dptr, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("exec destroy 2", cuGraphExecDestroy(e2), CUDA_SUCCESS);
    VT_CHECK_EQ("exec destroy 1", cuGraphExecDestroy(e1), CUDA_SUCCESS);
    VT_CHECK_EQ("trim again", cuDeviceGraphMemTrim(2), CUDA_SUCCESS);
    cuGraphDestroy(g1);
    cuGraphDestroy(g2);
}

/* 12 KiB shared with a child, which opens it through both ABIs (24 KiB imported at its peak),
 * closes one and exits normally with the other still open: its own report says so. */
static void ipc(void)
{
    CUdeviceptr p = 0;
    CUipcMemHandle h;
    VT_CHECK_EQ("alloc 12 KiB", cuMemAlloc_v2(&p, 12 * KiB), CUDA_SUCCESS);
    VT_CHECK_EQ("ipc handle", cuIpcGetMemHandle(&h, p), CUDA_SUCCESS);
    fflush(stdout);
    fflush(stderr);
    pid_t child = fork();
    if (child == 0) {
        CUdeviceptr o1 = 0, o2 = 0;
        int ok =
            cuIpcOpenMemHandle_v2(&o1, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) == CUDA_SUCCESS &&
            cap_ipc_open_v1(&o2, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) == CUDA_SUCCESS &&
            cuIpcCloseMemHandle(o1) == CUDA_SUCCESS;
        exit(ok ? 0 : 1); /* exit, not _exit: the destructor prints the child's report */
    }
    int status = -1;
    waitpid(child, &status, 0);
    VT_CHECK("child opened the handle", WIFEXITED(status) && WEXITSTATUS(status) == 0);
    VT_CHECK_EQ("free 12 KiB", cuMemFree_v2(p), CUDA_SUCCESS);
}

/* Makes device's primary context current. */
static void use_device(int device)
{
    CUcontext c = NULL;
    VT_CHECK_EQ("retain", cuDevicePrimaryCtxRetain(&c, device), CUDA_SUCCESS);
    VT_CHECK_EQ("current", cuCtxSetCurrent(c), CUDA_SUCCESS);
}

/* Device 1: 1 MiB + 8 KiB managed dropped by a reset, then 2 MiB dropped by the last release. */
static void teardown(CUcontext ctx0)
{
    CUcontext c1 = NULL;
    CUdeviceptr a = 0, m = 0, b = 0;
    VT_CHECK_EQ("retain 1", cuDevicePrimaryCtxRetain(&c1, 1), CUDA_SUCCESS);
    VT_CHECK_EQ("current 1", cuCtxSetCurrent(c1), CUDA_SUCCESS);
    VT_CHECK_EQ("alloc on 1", cuMemAlloc_v2(&a, MiB), CUDA_SUCCESS);
    VT_CHECK_EQ("managed on 1", cuMemAllocManaged(&m, 8 * KiB, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
    VT_CHECK_EQ("reset 1", cuDevicePrimaryCtxReset_v2(1), CUDA_SUCCESS);
    VT_CHECK_EQ("retain 1 again", cuDevicePrimaryCtxRetain(&c1, 1), CUDA_SUCCESS);
    VT_CHECK_EQ("current 1 again", cuCtxSetCurrent(c1), CUDA_SUCCESS);
    VT_CHECK_EQ("alloc 2 MiB on 1", cuMemAlloc_v2(&b, 2 * MiB), CUDA_SUCCESS);
    VT_CHECK_EQ("last release of 1", cuDevicePrimaryCtxRelease_v2(1), CUDA_SUCCESS);
    VT_CHECK_EQ("back to 0", cuCtxSetCurrent(ctx0), CUDA_SUCCESS);
}

int main(void)
{
    VT_CHECK_EQ("context", sim_test_context(0), CUDA_SUCCESS);
    CUcontext ctx0 = NULL;
    cuCtxGetCurrent(&ctx0);

    CUdeviceptr kept = 0, pitched = 0, managed = 0, bad = 0;
    size_t pitch = 0;
    VT_CHECK_EQ("1 MiB (kept)", cuMemAlloc_v2(&kept, MiB), CUDA_SUCCESS);
    lookups();
    /* device 0: 1 MiB + 10240 + 17000 + 2 MiB = peak 3172968 */
    VT_CHECK_EQ("pitch 1000 x 10", cuMemAllocPitch_v2(&pitched, &pitch, 1000, 10, 4), CUDA_SUCCESS);
    VT_CHECK_EQ("pitch", pitch, 1024); /* 10240 bytes counted */
    CUdeviceptr async[4] = {0, 0, 0, 0};
    CUmemoryPool pool = stream_ordered_alloc(async);
    CUdeviceptr va = vmm_begin();
    VT_CHECK_EQ("free pitched", cuMemFree_v2(pitched), CUDA_SUCCESS);
    stream_ordered_free(pool, async);
    CUmemGenericAllocationHandle host = vmm_end(va);
    VT_CHECK_EQ("managed 4 KiB", cuMemAllocManaged(&managed, 4 * KiB, CU_MEM_ATTACH_GLOBAL),
                CUDA_SUCCESS);
    VT_CHECK_EQ("free managed", cuMemFree_v2(managed), CUDA_SUCCESS);

    /* pinned: the 2 MiB host handle + 8 KiB + 16 KiB + 64 KiB = peak 2187264 */
    void *kept_host = NULL;
    pinned(&kept_host);
    VT_CHECK_EQ("release the host handle", cuMemRelease(host), CUDA_SUCCESS);
    use_device(2);
    graphs();
    use_device(3);
    arrays();
    VT_CHECK_EQ("back to 0", cuCtxSetCurrent(ctx0), CUDA_SUCCESS);
    ipc();
    teardown(ctx0);

    /* Three failures, no memory: zero bytes, more than the device has, an unknown address. */
    VT_CHECK_EQ("zero bytes", cuMemAlloc_v2(&bad, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("out of memory", cuMemAlloc_v2(&bad, 2 * GiB), CUDA_ERROR_OUT_OF_MEMORY);
    VT_CHECK_EQ("unknown free", cuMemFree_v2(kept + 64), CUDA_ERROR_INVALID_VALUE);
    return vt_test_done();
}

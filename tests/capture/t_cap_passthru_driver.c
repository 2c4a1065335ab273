/* SPDX-License-Identifier: MIT */
/* Pass-through, driver side: every hooked driver export of src/hooks.def on its success path
 * and its error paths (before cuInit, NULL out-pointers, zero sizes, bad flags, unknown and
 * double frees, invalid handles and streams, out of memory on a 64 MiB device, IPC in the same
 * process and in a fork child), one transcript line per call (cap_transcript.h). passthru.sh
 * requires the same transcript with and without libvramtrace.so: the hooks change no return
 * code, no out-param, no errno. */
#include <dlfcn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cap_transcript.h"
#include "sim_test.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream);
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                      CUstream hStream);
CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream);
CUresult cuStreamSynchronize_ptsz(CUstream hStream);
CUresult cap_get_proc_address_v1(const char *symbol, void **pfn, int cudaVersion,
                                 cuuint64_t flags) __asm__("cuGetProcAddress");
CUresult cap_ipc_open_v1(CUdeviceptr *pdptr, CUipcMemHandle handle,
                         unsigned int Flags) __asm__("cuIpcOpenMemHandle");

static unsigned char registered[64 * KiB] __attribute__((aligned(4096)));
static CUstream bad_stream = (CUstream)&registered[8];

static void lookups(void)
{
    void *fn;
    CUdriverProcAddressQueryResult st;
    struct {
        const char *symbol;
        int version;
        cuuint64_t flags;
    } keys[] = {
        {"cuMemAlloc", 12000, 0},      {"cuMemAlloc", 3020, 2},        {"cuMemAlloc", 2000, 0},
        {"cuMemAllocAsync", 11020, 2}, {"cuNoSuchThing", 12000, 0},    {"cuMemAlloc", 13010, 0},
        {"cuMemAlloc", 12000, 8},      {"cuGetProcAddress", 11030, 0}, {"cuMemGetInfo", 3020, 0}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char label[128];
        snprintf(label, sizeof label, "cuGetProcAddress_v2(%s, %d, %llu)", keys[i].symbol,
                 keys[i].version, (unsigned long long)keys[i].flags);
        fn = CAP_SENTINEL;
        st = (CUdriverProcAddressQueryResult)7;
        CAP_CALL(label,
                 cuGetProcAddress_v2(keys[i].symbol, &fn, keys[i].version, keys[i].flags, &st));
        cap_ptr("pfn", fn);
        printf(" status=%d", (int)st);
        cap_end();
        snprintf(label, sizeof label, "cuGetProcAddress(%s, %d, %llu)", keys[i].symbol,
                 keys[i].version, (unsigned long long)keys[i].flags);
        fn = CAP_SENTINEL;
        CAP_CALL(label,
                 cap_get_proc_address_v1(keys[i].symbol, &fn, keys[i].version, keys[i].flags));
        cap_ptr("pfn", fn);
        cap_end();
    }
    CAP_CALL("cuGetProcAddress_v2 NULL symbol", cuGetProcAddress_v2(NULL, &fn, 12000, 0, &st));
    cap_end();
    CAP_CALL("cuGetProcAddress_v2 NULL pfn",
             cuGetProcAddress_v2("cuMemAlloc", NULL, 12000, 0, &st));
    cap_end();
    CAP_CALL("cuGetProcAddress NULL symbol", cap_get_proc_address_v1(NULL, &fn, 12000, 0));
    cap_end();
    /* The dlsym door: a hooked name found, then not found, through the driver's handle. */
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    dlerror();
    fn = dlsym(h, "cuMemAlloc_v2");
    const char *err = dlerror();
    printf("dlsym(libcuda, cuMemAlloc_v2): %s dlerror=%s\n", cap_class(fn), err ? err : "(none)");
    fn = dlsym(h, "cuMemAllocPitch_v3");
    err = dlerror();
    printf("dlsym(libcuda, cuMemAllocPitch_v3): %s dlerror=%s\n", cap_class(fn),
           err ? "set" : "(none)");
    dlclose(h);
}

static void device_memory(void)
{
    CUdeviceptr d = CAP_DPTR_SENTINEL, e = CAP_DPTR_SENTINEL;
    size_t pitch = 7;
    CAP_CALL("cuMemAlloc_v2 1 MiB", cuMemAlloc_v2(&d, MiB));
    cap_num("dptr", d);
    cap_end();
    CAP_CALL("cuMemAlloc_v2 NULL", cuMemAlloc_v2(NULL, MiB));
    cap_end();
    e = CAP_DPTR_SENTINEL;
    CAP_CALL("cuMemAlloc_v2 0", cuMemAlloc_v2(&e, 0));
    cap_num("dptr", e);
    cap_end();
    CAP_CALL("cuMemAlloc_v2 OOM", cuMemAlloc_v2(&e, 128 * MiB));
    cap_num("dptr", e);
    cap_end();
    CAP_CALL("cuMemAllocPitch_v2", cuMemAllocPitch_v2(&e, &pitch, 1000, 10, 4));
    cap_num("dptr", e);
    cap_num("pitch", pitch);
    cap_end();
    CAP_CALL("cuMemFree_v2 pitched", cuMemFree_v2(e));
    cap_end();
    e = CAP_DPTR_SENTINEL;
    pitch = 7;
    CAP_CALL("cuMemAllocPitch_v2 NULL pitch", cuMemAllocPitch_v2(&e, NULL, 1000, 10, 4));
    cap_num("dptr", e);
    cap_end();
    CAP_CALL("cuMemAllocPitch_v2 element 3", cuMemAllocPitch_v2(&e, &pitch, 1000, 10, 3));
    cap_num("dptr", e);
    cap_num("pitch", pitch);
    cap_end();
    CAP_CALL("cuMemAllocPitch_v2 height 0", cuMemAllocPitch_v2(&e, &pitch, 1000, 0, 4));
    cap_num("dptr", e);
    cap_end();
    CAP_CALL("cuMemAllocPitch_v2 OOM", cuMemAllocPitch_v2(&e, &pitch, 1 << 20, 100, 4));
    cap_num("dptr", e);
    cap_end();
    CAP_CALL("cuMemFree_v2", cuMemFree_v2(d));
    cap_end();
    CAP_CALL("cuMemFree_v2 double", cuMemFree_v2(d));
    cap_end();
    CAP_CALL("cuMemFree_v2 interior", cuMemFree_v2(d + 512));
    cap_end();
    CAP_CALL("cuMemFree_v2 0", cuMemFree_v2(0));
    cap_end();
    e = CAP_DPTR_SENTINEL;
    CAP_CALL("cuMemAllocManaged", cuMemAllocManaged(&e, 4 * KiB, CU_MEM_ATTACH_GLOBAL));
    cap_ptr("dptr", (void *)(uintptr_t)e); /* managed memory is host memory: not deterministic */
    cap_end();
    CAP_CALL("cuMemFree_v2 managed", cuMemFree_v2(e));
    cap_end();
    e = CAP_DPTR_SENTINEL;
    CAP_CALL("cuMemAllocManaged 0", cuMemAllocManaged(&e, 0, CU_MEM_ATTACH_GLOBAL));
    cap_num("dptr", e);
    cap_end();
    CAP_CALL("cuMemAllocManaged bad flags", cuMemAllocManaged(&e, 4 * KiB, 7));
    cap_num("dptr", e);
    cap_end();
    CAP_CALL("cuMemAllocManaged NULL", cuMemAllocManaged(NULL, 4 * KiB, CU_MEM_ATTACH_GLOBAL));
    cap_end();
}

static void pinned(void)
{
    void *p = CAP_SENTINEL, *q = CAP_SENTINEL;
    CAP_CALL("cuMemHostAlloc", cuMemHostAlloc(&p, 8 * KiB, CU_MEMHOSTALLOC_DEVICEMAP));
    cap_ptr("pp", p);
    cap_end();
    CAP_CALL("cuMemHostAlloc 0", cuMemHostAlloc(&q, 0, 0));
    cap_ptr("pp", q);
    cap_end();
    CAP_CALL("cuMemHostAlloc NULL", cuMemHostAlloc(NULL, 8 * KiB, 0));
    cap_end();
    CAP_CALL("cuMemHostAlloc bad flags", cuMemHostAlloc(&q, 8 * KiB, 0x80));
    cap_ptr("pp", q);
    cap_end();
    CAP_CALL("cuMemAllocHost_v2", cuMemAllocHost_v2(&q, 4 * KiB));
    cap_ptr("pp", q);
    cap_end();
    CAP_CALL("cuMemAllocHost_v2 NULL", cuMemAllocHost_v2(NULL, 4 * KiB));
    cap_end();
    CAP_CALL("cuMemFreeHost", cuMemFreeHost(p));
    cap_end();
    CAP_CALL("cuMemFreeHost double", cuMemFreeHost(p));
    cap_end();
    CAP_CALL("cuMemFreeHost NULL", cuMemFreeHost(NULL));
    cap_end();
    CAP_CALL("cuMemFreeHost not pinned", cuMemFreeHost(registered));
    cap_end();
    CAP_CALL("cuMemFreeHost alloc host", cuMemFreeHost(q));
    cap_end();
    CAP_CALL("cuMemHostRegister_v2", cuMemHostRegister_v2(registered, sizeof registered, 0));
    cap_end();
    CAP_CALL("cuMemHostRegister_v2 again", cuMemHostRegister_v2(registered, sizeof registered, 0));
    cap_end();
    CAP_CALL("cuMemHostRegister_v2 0", cuMemHostRegister_v2(registered + 4096, 0, 0));
    cap_end();
    CAP_CALL("cuMemHostRegister_v2 NULL", cuMemHostRegister_v2(NULL, 4096, 0));
    cap_end();
    CAP_CALL("cuMemHostUnregister", cuMemHostUnregister(registered));
    cap_end();
    CAP_CALL("cuMemHostUnregister again", cuMemHostUnregister(registered));
    cap_end();
    CAP_CALL("cuMemHostUnregister NULL", cuMemHostUnregister(NULL));
    cap_end();
}

static void stream_ordered(void)
{
    CUmemoryPool pool = NULL;
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    cuMemPoolCreate(&pool, &props);
    CUdeviceptr a = CAP_DPTR_SENTINEL, b = CAP_DPTR_SENTINEL, c = CAP_DPTR_SENTINEL,
                d = CAP_DPTR_SENTINEL, x = CAP_DPTR_SENTINEL;
    CAP_CALL("cuMemAllocAsync", cuMemAllocAsync(&a, 2000, NULL));
    cap_num("dptr", a);
    cap_end();
    CAP_CALL("cuMemAllocAsync_ptsz", cuMemAllocAsync_ptsz(&b, 3000, NULL));
    cap_num("dptr", b);
    cap_end();
    CAP_CALL("cuMemAllocFromPoolAsync", cuMemAllocFromPoolAsync(&c, 5000, pool, NULL));
    cap_num("dptr", c);
    cap_end();
    CAP_CALL("cuMemAllocFromPoolAsync_ptsz", cuMemAllocFromPoolAsync_ptsz(&d, 7000, pool, NULL));
    cap_num("dptr", d);
    cap_end();
    CAP_CALL("cuMemAllocAsync bad stream", cuMemAllocAsync(&x, 2000, bad_stream));
    cap_num("dptr", x);
    cap_end();
    CAP_CALL("cuMemAllocAsync_ptsz 0", cuMemAllocAsync_ptsz(&x, 0, NULL));
    cap_num("dptr", x);
    cap_end();
    CAP_CALL("cuMemAllocAsync NULL", cuMemAllocAsync(NULL, 2000, NULL));
    cap_end();
    CAP_CALL("cuMemAllocAsync OOM", cuMemAllocAsync(&x, 128 * MiB, NULL));
    cap_num("dptr", x);
    cap_end();
    CAP_CALL("cuMemAllocFromPoolAsync NULL pool", cuMemAllocFromPoolAsync(&x, 5000, NULL, NULL));
    cap_num("dptr", x);
    cap_end();
    CAP_CALL("cuMemAllocFromPoolAsync_ptsz 0", cuMemAllocFromPoolAsync_ptsz(&x, 0, pool, NULL));
    cap_num("dptr", x);
    cap_end();
    CAP_CALL("cuMemFreeAsync bad stream", cuMemFreeAsync(a, bad_stream));
    cap_end();
    CAP_CALL("cuMemFreeAsync", cuMemFreeAsync(a, NULL));
    cap_end();
    CAP_CALL("cuMemFreeAsync double", cuMemFreeAsync(a, NULL));
    cap_end();
    CAP_CALL("cuMemFreeAsync_ptsz", cuMemFreeAsync_ptsz(b, NULL));
    cap_end();
    CAP_CALL("cuMemFreeAsync_ptsz unknown", cuMemFreeAsync_ptsz(b + 4096, NULL));
    cap_end();
    CAP_CALL("cuMemFreeAsync pool", cuMemFreeAsync(c, NULL));
    cap_end();
    CAP_CALL("cuMemFreeAsync_ptsz pool", cuMemFreeAsync_ptsz(d, NULL));
    cap_end();
    CAP_CALL("cuMemFreeAsync 0", cuMemFreeAsync(0, NULL));
    cap_end();
    cuCtxSynchronize();
    cuMemPoolDestroy(pool);
}

static void vmm(void)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    CUmemGenericAllocationHandle h = 0, again = 0, host = 0, x = 0;
    CUdeviceptr va = CAP_DPTR_SENTINEL, vb = CAP_DPTR_SENTINEL;
    CAP_CALL("cuMemAddressReserve", cuMemAddressReserve(&va, 8 * MiB, 0, 0, 0));
    cap_num("ptr", va);
    cap_end();
    CAP_CALL("cuMemAddressReserve 0", cuMemAddressReserve(&vb, 0, 0, 0, 0));
    cap_num("ptr", vb);
    cap_end();
    CAP_CALL("cuMemAddressReserve NULL", cuMemAddressReserve(NULL, 2 * MiB, 0, 0, 0));
    cap_end();
    CAP_CALL("cuMemCreate", cuMemCreate(&h, 2 * MiB, &prop, 0));
    cap_ptr("handle", (void *)(uintptr_t)h);
    cap_end();
    CAP_CALL("cuMemCreate unaligned", cuMemCreate(&x, MiB, &prop, 0));
    cap_end();
    CAP_CALL("cuMemCreate NULL handle", cuMemCreate(NULL, 2 * MiB, &prop, 0));
    cap_end();
    CAP_CALL("cuMemCreate OOM", cuMemCreate(&x, 128 * MiB, &prop, 0));
    cap_end();
    prop.location.id = 5;
    CAP_CALL("cuMemCreate bad device", cuMemCreate(&x, 2 * MiB, &prop, 0));
    cap_end();
    prop.location.id = 0;
    prop.location.type = CU_MEM_LOCATION_TYPE_HOST;
    CAP_CALL("cuMemCreate host", cuMemCreate(&host, 2 * MiB, &prop, 0));
    cap_end();
    CAP_CALL("cuMemMap", cuMemMap(va, 2 * MiB, 0, h, 0));
    cap_end();
    CAP_CALL("cuMemMap overlap", cuMemMap(va, 2 * MiB, 0, h, 0));
    cap_end();
    CAP_CALL("cuMemMap bad handle", cuMemMap(va + 4 * MiB, 2 * MiB, 0, h + 999, 0));
    cap_end();
    CAP_CALL("cuMemMap host handle", cuMemMap(va + 2 * MiB, 2 * MiB, 0, host, 0));
    cap_end();
    CAP_CALL("cuMemRetainAllocationHandle", cuMemRetainAllocationHandle(&again, (void *)va));
    printf(" same=%d", again == h);
    cap_end();
    CAP_CALL("cuMemRetainAllocationHandle unmapped",
             cuMemRetainAllocationHandle(&x, (void *)(va + 6 * MiB)));
    cap_end();
    CAP_CALL("cuMemRetainAllocationHandle NULL", cuMemRetainAllocationHandle(NULL, (void *)va));
    cap_end();
    CAP_CALL("cuMemRelease", cuMemRelease(h));
    cap_end();
    CAP_CALL("cuMemRelease retained", cuMemRelease(again));
    cap_end();
    CAP_CALL("cuMemRelease third", cuMemRelease(h));
    cap_end();
    CAP_CALL("cuMemRelease unknown", cuMemRelease(0));
    cap_end();
    CAP_CALL("cuMemUnmap part", cuMemUnmap(va, MiB));
    cap_end();
    CAP_CALL("cuMemUnmap", cuMemUnmap(va, 4 * MiB));
    cap_end();
    CAP_CALL("cuMemUnmap again", cuMemUnmap(va, 2 * MiB));
    cap_end();
    CAP_CALL("cuMemRelease host", cuMemRelease(host));
    cap_end();
    CAP_CALL("cuMemAddressFree wrong size", cuMemAddressFree(va, 2 * MiB));
    cap_end();
    CAP_CALL("cuMemAddressFree", cuMemAddressFree(va, 8 * MiB));
    cap_end();
    CAP_CALL("cuMemAddressFree double", cuMemAddressFree(va, 8 * MiB));
    cap_end();
}

/* A handle exported as a file descriptor and imported in the same process: the import's success
 * and error paths, and a mapping of the imported handle. */
static void vmm_shareable(void)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    CUmemGenericAllocationHandle h = 0, imported = 0, x = 0;
    CUdeviceptr va = 0;
    int fd = -1;
    cuMemAddressReserve(&va, 2 * MiB, 0, 0, 0);
    cuMemCreate(&h, 2 * MiB, &prop, 0);
    cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    CAP_CALL("cuMemImportFromShareableHandle",
             cuMemImportFromShareableHandle(&imported, (void *)(intptr_t)fd,
                                            CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    cap_ptr("handle", (void *)(uintptr_t)imported);
    cap_end();
    CAP_CALL("cuMemImportFromShareableHandle unknown fd",
             cuMemImportFromShareableHandle(&x, (void *)(intptr_t)-1,
                                            CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    cap_end();
    CAP_CALL("cuMemImportFromShareableHandle NULL",
             cuMemImportFromShareableHandle(NULL, (void *)(intptr_t)fd,
                                            CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    cap_end();
    CAP_CALL("cuMemMap imported", cuMemMap(va, 2 * MiB, 0, imported, 0));
    cap_end();
    CAP_CALL("cuMemUnmap imported", cuMemUnmap(va, 2 * MiB));
    cap_end();
    CAP_CALL("cuMemRelease imported", cuMemRelease(imported));
    cap_end();
    CAP_CALL("cuMemRelease exported", cuMemRelease(h));
    cap_end();
    cuMemAddressFree(va, 2 * MiB);
    close(fd);
}

static void arrays(void)
{
    CUarray a = CAP_SENTINEL, x = CAP_SENTINEL;
    CUmipmappedArray m = CAP_SENTINEL, y = CAP_SENTINEL;
    CUDA_ARRAY_DESCRIPTOR d2 = {100, 50, CU_AD_FORMAT_FLOAT, 4};
    CUDA_ARRAY_DESCRIPTOR bad = {0, 50, CU_AD_FORMAT_FLOAT, 4};
    CUDA_ARRAY_DESCRIPTOR bad_channels = {100, 50, CU_AD_FORMAT_FLOAT, 3};
    CUDA_ARRAY3D_DESCRIPTOR d3 = {64, 32, 8, CU_AD_FORMAT_UNSIGNED_INT16, 2, 0};
    CUDA_ARRAY3D_DESCRIPTOR huge = {1 << 16, 1 << 12, 64, CU_AD_FORMAT_FLOAT, 4, 0};
    CAP_CALL("cuArrayCreate_v2", cuArrayCreate_v2(&a, &d2));
    cap_ptr("array", a);
    cap_end();
    CAP_CALL("cuArrayCreate_v2 width 0", cuArrayCreate_v2(&x, &bad));
    cap_ptr("array", x);
    cap_end();
    CAP_CALL("cuArrayCreate_v2 3 channels", cuArrayCreate_v2(&x, &bad_channels));
    cap_ptr("array", x);
    cap_end();
    CAP_CALL("cuArrayCreate_v2 NULL desc", cuArrayCreate_v2(&x, NULL));
    cap_ptr("array", x);
    cap_end();
    CAP_CALL("cuArrayCreate_v2 NULL handle", cuArrayCreate_v2(NULL, &d2));
    cap_end();
    CAP_CALL("cuArrayDestroy", cuArrayDestroy(a));
    cap_end();
    CAP_CALL("cuArrayDestroy double", cuArrayDestroy(a));
    cap_end();
    CAP_CALL("cuArrayDestroy NULL", cuArrayDestroy(NULL));
    cap_end();
    a = CAP_SENTINEL;
    CAP_CALL("cuArray3DCreate_v2", cuArray3DCreate_v2(&a, &d3));
    cap_ptr("array", a);
    cap_end();
    CAP_CALL("cuArray3DCreate_v2 OOM", cuArray3DCreate_v2(&x, &huge));
    cap_ptr("array", x);
    cap_end();
    CAP_CALL("cuArray3DCreate_v2 NULL desc", cuArray3DCreate_v2(&x, NULL));
    cap_end();
    CAP_CALL("cuArrayDestroy 3D", cuArrayDestroy(a));
    cap_end();
    CAP_CALL("cuMipmappedArrayCreate", cuMipmappedArrayCreate(&m, &d3, 3));
    cap_ptr("mipmap", m);
    cap_end();
    CAP_CALL("cuMipmappedArrayCreate 0 levels", cuMipmappedArrayCreate(&y, &d3, 0));
    cap_ptr("mipmap", y);
    cap_end();
    CAP_CALL("cuMipmappedArrayCreate NULL desc", cuMipmappedArrayCreate(&y, NULL, 2));
    cap_ptr("mipmap", y);
    cap_end();
    CAP_CALL("cuMipmappedArrayDestroy", cuMipmappedArrayDestroy(m));
    cap_end();
    CAP_CALL("cuMipmappedArrayDestroy double", cuMipmappedArrayDestroy(m));
    cap_end();
}

static void graphs(void)
{
    CUDA_MEM_ALLOC_NODE_PARAMS np;
    memset(&np, 0, sizeof np);
    np.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    np.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    np.bytesize = 3 * MiB;
    CUgraph g = NULL;
    CUgraphNode n = NULL;
    CUgraphExec e = NULL;
    cuGraphCreate(&g, 0);
    cuGraphAddMemAllocNode(&n, g, NULL, 0, &np);
    cuGraphInstantiateWithFlags(&e, g, 0);
    CAP_CALL("cuGraphLaunch", cuGraphLaunch(e, NULL));
    cap_end();
    CAP_CALL("cuGraphLaunch_ptsz while live", cuGraphLaunch_ptsz(e, NULL));
    cap_end();
    CAP_CALL("cuGraphLaunch bad stream", cuGraphLaunch(e, bad_stream));
    cap_end();
    CAP_CALL("cuMemFreeAsync graph allocation", cuMemFreeAsync(np.dptr, NULL));
    cap_end();
    CAP_CALL("cuGraphLaunch_ptsz", cuGraphLaunch_ptsz(e, NULL));
    cap_end();
    CAP_CALL("cuMemFree_v2 graph allocation", cuMemFree_v2(np.dptr));
    cap_end();
    CAP_CALL("cuDeviceGraphMemTrim", cuDeviceGraphMemTrim(0));
    cap_end();
    CAP_CALL("cuDeviceGraphMemTrim bad device", cuDeviceGraphMemTrim(9));
    cap_end();
    CAP_CALL("cuGraphExecDestroy", cuGraphExecDestroy(e));
    cap_end();
    CAP_CALL("cuGraphExecDestroy double", cuGraphExecDestroy(e));
    cap_end();
    CAP_CALL("cuGraphLaunch destroyed", cuGraphLaunch(e, NULL));
    cap_end();
    CAP_CALL("cuGraphLaunch_ptsz NULL", cuGraphLaunch_ptsz(NULL, NULL));
    cap_end();
    cuGraphDestroy(g);
}

static void ipc(void)
{
    CUdeviceptr p = 0, o = CAP_DPTR_SENTINEL;
    CUipcMemHandle h, junk;
    cuMemAlloc_v2(&p, 12 * KiB);
    cuIpcGetMemHandle(&h, p);
    memset(&junk, 0x5a, sizeof junk);
    CAP_CALL("cuIpcOpenMemHandle_v2 same process",
             cuIpcOpenMemHandle_v2(&o, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    cap_num("dptr", o);
    cap_end();
    CAP_CALL("cuIpcOpenMemHandle junk",
             cap_ipc_open_v1(&o, junk, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    cap_num("dptr", o);
    cap_end();
    CAP_CALL("cuIpcOpenMemHandle_v2 bad flags", cuIpcOpenMemHandle_v2(&o, h, 0));
    cap_num("dptr", o);
    cap_end();
    CAP_CALL("cuIpcCloseMemHandle not opened", cuIpcCloseMemHandle(p));
    cap_end();
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        CUdeviceptr o1 = CAP_DPTR_SENTINEL, o2 = CAP_DPTR_SENTINEL;
        CAP_CALL("child cuIpcOpenMemHandle_v2",
                 cuIpcOpenMemHandle_v2(&o1, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
        cap_num("dptr", o1);
        cap_end();
        CAP_CALL("child cuIpcOpenMemHandle",
                 cap_ipc_open_v1(&o2, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
        cap_num("dptr", o2);
        cap_end();
        CAP_CALL("child cuIpcOpenMemHandle_v2 NULL",
                 cuIpcOpenMemHandle_v2(NULL, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
        cap_end();
        CAP_CALL("child cuIpcCloseMemHandle", cuIpcCloseMemHandle(o1));
        cap_end();
        CAP_CALL("child cuIpcCloseMemHandle double", cuIpcCloseMemHandle(o1));
        cap_end();
        exit(0);
    }
    int status = -1;
    waitpid(child, &status, 0);
    printf("child exit: %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    cuMemFree_v2(p);
}

/* Synchronizations and trims (where pools are sampled), each with an error. */
static void synchronizations(CUcontext ctx0)
{
    CUstream bad_stream = (CUstream)(uintptr_t)0x10;
    CAP_CALL("cuCtxSynchronize", cuCtxSynchronize());
    cap_end();
    cuCtxSetCurrent(NULL); /* no context: an error */
    CAP_CALL("cuCtxSynchronize no context", cuCtxSynchronize());
    cap_end();
    cuCtxSetCurrent(ctx0);
    CAP_CALL("cuStreamSynchronize", cuStreamSynchronize(NULL));
    cap_end();
    CAP_CALL("cuStreamSynchronize bad stream", cuStreamSynchronize(bad_stream));
    cap_end();
    CAP_CALL("cuStreamSynchronize_ptsz", cuStreamSynchronize_ptsz(NULL));
    cap_end();
    CAP_CALL("cuStreamSynchronize_ptsz bad stream", cuStreamSynchronize_ptsz(bad_stream));
    cap_end();
    CUevent ev = NULL;
    cuEventCreate(&ev, 0);
    cuEventRecord(ev, NULL);
    CAP_CALL("cuEventSynchronize", cuEventSynchronize(ev));
    cap_end();
    CAP_CALL("cuEventSynchronize NULL", cuEventSynchronize(NULL));
    cap_end();
    cuEventDestroy_v2(ev);
    CUmemoryPool pool = NULL;
    CUdeviceptr p = CAP_DPTR_SENTINEL;
    cuDeviceGetDefaultMemPool(&pool, 0);
    cuMemAllocAsync(&p, MiB, NULL);
    cuMemFreeAsync(p, NULL);
    CAP_CALL("cuMemPoolTrimTo", cuMemPoolTrimTo(pool, 0));
    cap_end();
    CAP_CALL("cuMemPoolTrimTo bad pool", cuMemPoolTrimTo((CUmemoryPool)(uintptr_t)0x10, 0));
    cap_end();
    CAP_CALL("cuDeviceSetMemPool", cuDeviceSetMemPool(0, pool));
    cap_end();
    CAP_CALL("cuDeviceSetMemPool bad pool", cuDeviceSetMemPool(0, (CUmemoryPool)(uintptr_t)0x10));
    cap_end();
}

static void contexts(CUcontext ctx0)
{
    CUcontext c1 = NULL;
    CUdeviceptr a = CAP_DPTR_SENTINEL;
    CAP_CALL("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&c1, 1));
    cap_end();
    CAP_CALL("cuDevicePrimaryCtxRetain bad device", cuDevicePrimaryCtxRetain(&c1, 7));
    cap_end();
    cuCtxSetCurrent(c1);
    cuMemAlloc_v2(&a, MiB);
    CAP_CALL("cuDevicePrimaryCtxReset_v2", cuDevicePrimaryCtxReset_v2(1));
    cap_end();
    CAP_CALL("cuMemFree_v2 after reset", cuMemFree_v2(a));
    cap_end();
    CAP_CALL("cuDevicePrimaryCtxReset_v2 bad device", cuDevicePrimaryCtxReset_v2(7));
    cap_end();
    CAP_CALL("cuDevicePrimaryCtxRelease_v2 no reference", cuDevicePrimaryCtxRelease_v2(1));
    cap_end();
    cuDevicePrimaryCtxRetain(&c1, 1);
    cuDevicePrimaryCtxRetain(&c1, 1);
    CAP_CALL("cuDevicePrimaryCtxRelease_v2 not last", cuDevicePrimaryCtxRelease_v2(1));
    cap_end();
    CAP_CALL("cuDevicePrimaryCtxRelease_v2 last", cuDevicePrimaryCtxRelease_v2(1));
    cap_end();
    CAP_CALL("cuDevicePrimaryCtxRelease_v2 bad device", cuDevicePrimaryCtxRelease_v2(-1));
    cap_end();
    /* A created context destroyed with memory live: the memory goes with it. */
    CUcontext c2 = NULL;
    cuCtxSetCurrent(ctx0);
    cuCtxCreate_v2(&c2, 0, 0);
    cuMemAlloc_v2(&a, MiB);
    CAP_CALL("cuCtxDestroy_v2", cuCtxDestroy_v2(c2));
    cap_end();
    CAP_CALL("cuMemFree_v2 after cuCtxDestroy", cuMemFree_v2(a));
    cap_end();
    CAP_CALL("cuCtxDestroy_v2 destroyed", cuCtxDestroy_v2(c2));
    cap_end();
    cuCtxSetCurrent(ctx0);
}

int main(void)
{
    CUdeviceptr d = CAP_DPTR_SENTINEL;
    CAP_CALL("cuMemAlloc_v2 before cuInit", cuMemAlloc_v2(&d, MiB));
    cap_num("dptr", d);
    cap_end();
    lookups();
    printf("context: %d\n", (int)sim_test_context(0));
    CUcontext ctx0 = NULL;
    cuCtxGetCurrent(&ctx0);
    device_memory();
    pinned();
    stream_ordered();
    synchronizations(ctx0);
    vmm();
    vmm_shareable();
    arrays();
    graphs();
    ipc();
    contexts(ctx0);
    CAP_CALL("cuMemAlloc_v2 at the end", cuMemAlloc_v2(&d, 512));
    cap_num("dptr", d);
    cap_end();
    return 0;
}

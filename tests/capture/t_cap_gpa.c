/* SPDX-License-Identifier: MIT */
/* Door (2), the static-cudart way: not linked with -lcuda; dlopen("libcuda.so.1"), one
 * dlsym(h, "cuGetProcAddress_v2"), then every function by base name, ABI version and stream
 * flag, including cuGetProcAddress fetched through itself at 11030 (4 arguments) and 12000 (5)
 * and used for the later lookups, as cudart 13 does (docs/design.md, "How CUDA reaches the driver").
 * Proves: the pointers handed out for hooked (name, version, flag) keys are libvramtrace.so's
 * wrappers, those for unhooked names and for the 32-bit ABI ("cuMemAlloc", 2000) are exactly
 * the driver's answer, and allocations through the fetched pointers are counted
 * (expected/gpa.txt). argv[1], when given, is the version cuMemAlloc is asked for: a driver
 * newer than the library's table (VTSIM_DRIVER_VERSION=13020, asked at 13020) still gets it
 * wrapped when the ABI is the one the table knows. */
#include <dlfcn.h>
#include <string.h>
#include "sim_test.h"

#define KiB ((size_t)1 << 10)

static void *driver;

/* 1 when fn lies in libvramtrace.so, 0 when in the driver, -1 otherwise. */
static int owner(void *fn)
{
    Dl_info info;
    if (!fn || !dladdr(fn, &info) || !info.dli_fname)
        return -1;
    if (strstr(info.dli_fname, "libvramtrace.so"))
        return 1;
    return strstr(info.dli_fname, "libcuda.so") ? 0 : -1;
}

/* The driver's own export of an unhooked name: the dlsym door passes those through. */
static void *driver_export(const char *name)
{
    return dlsym(driver, name);
}

int main(int argc, char **argv)
{
    int alloc_version = argc > 1 ? atoi(argv[1]) : 12000;
    driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    VT_CHECK("dlopen libcuda.so.1", driver != NULL);
    if (!driver)
        return vt_test_done();
    sim_gpa_v2_fn gpa = (sim_gpa_v2_fn)dlsym(driver, "cuGetProcAddress_v2");
    VT_CHECK_EQ("dlsym(cuGetProcAddress_v2) is our wrapper", owner((void *)gpa), 1);
    if (!gpa)
        return vt_test_done();
    CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)7;
    sim_gpa_v1_fn gpa1 = NULL;
    sim_gpa_v2_fn gpa2 = NULL;
    VT_CHECK_EQ("gpa@11030", gpa("cuGetProcAddress", (void **)&gpa1, 11030, 0, &st), CUDA_SUCCESS);
    VT_CHECK_EQ("gpa@11030 is the 4-argument wrapper", owner((void *)gpa1), 1);
    VT_CHECK_EQ("gpa@12000", gpa("cuGetProcAddress", (void **)&gpa2, 12000, 0, &st), CUDA_SUCCESS);
    VT_CHECK_EQ("gpa@12000 is the 5-argument wrapper", owner((void *)gpa2), 1);
    VT_CHECK("two ABIs, two functions", (void *)gpa1 != (void *)gpa2);
    if (!gpa1 || !gpa2)
        return vt_test_done();

    /* Hooked keys give wrappers, one per variant; unhooked names give the driver's function. */
    void *fn = NULL, *legacy = NULL, *ptsz = NULL;
    gpa2("cuMemAllocAsync", &legacy, 12000, 0, NULL);
    gpa2("cuMemAllocAsync", &ptsz, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, NULL);
    VT_CHECK_EQ("cuMemAllocAsync wrapped", owner(legacy), 1);
    VT_CHECK_EQ("cuMemAllocAsync flag 2 wrapped", owner(ptsz), 1);
    VT_CHECK("the legacy and _ptsz wrappers differ", legacy != ptsz);
    gpa1("cuMemAllocAsync", &fn, 11020, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
    VT_CHECK("v1 door, same _ptsz wrapper", fn == ptsz);
    gpa2("cuMemGetInfo", &fn, 3020, 0, &st);
    VT_CHECK_EQ("cuMemGetInfo is not hooked: the driver's", owner(fn), 0);
    VT_CHECK("cuMemGetInfo exactly the export", fn == driver_export("cuMemGetInfo_v2"));
    gpa2("cuCtxSynchronize", &fn, 2000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st);
    VT_CHECK("cuCtxSynchronize the driver's", fn == driver_export("cuCtxSynchronize"));
    fn = (void *)1;
    st = (CUdriverProcAddressQueryResult)7;
    VT_CHECK_EQ("cuMemAlloc@2000", gpa2("cuMemAlloc", &fn, 2000, 0, &st), CUDA_SUCCESS);
    VT_CHECK("cuMemAlloc@2000 left alone (no 32-bit ABI here)", fn == NULL);
    VT_CHECK_EQ("cuMemAlloc@2000 status", st, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    void *ipc1 = NULL, *ipc2 = NULL;
    gpa2("cuIpcOpenMemHandle", &ipc1, 4010, 0, NULL);
    gpa2("cuIpcOpenMemHandle", &ipc2, 11000, 0, NULL);
    VT_CHECK("cuIpcOpenMemHandle: a wrapper per ABI",
             owner(ipc1) == 1 && owner(ipc2) == 1 && ipc1 != ipc2);

    /* Allocate through fetched pointers only, as a private cudart does. */
    __typeof__(&cuInit) init = NULL;
    __typeof__(&cuDeviceGet) device_get = NULL;
    __typeof__(&cuDevicePrimaryCtxRetain) retain = NULL;
    __typeof__(&cuCtxSetCurrent) set_current = NULL;
    __typeof__(&cuMemAlloc_v2) mem_alloc = NULL;
    __typeof__(&cuMemFree_v2) mem_free = NULL;
    __typeof__(&cuMemAllocAsync) alloc_async = NULL;
    __typeof__(&cuMemFreeAsync) free_async = NULL;
    __typeof__(&cuMemAllocHost_v2) alloc_host = NULL;
    __typeof__(&cuMemFreeHost) free_host = NULL;
    __typeof__(&cuMemAllocManaged) alloc_managed = NULL;
    gpa2("cuInit", (void **)&init, 2000, 0, NULL);
    gpa2("cuDeviceGet", (void **)&device_get, 2000, 0, NULL);
    gpa1("cuDevicePrimaryCtxRetain", (void **)&retain, 7000, 0);
    gpa1("cuCtxSetCurrent", (void **)&set_current, 4000, 0);
    gpa2("cuMemAlloc", (void **)&mem_alloc, alloc_version,
         CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, NULL);
    gpa1("cuMemFree", (void **)&mem_free, 3020, 0);
    alloc_async = (__typeof__(alloc_async))ptsz;
    gpa2("cuMemFreeAsync", (void **)&free_async, 11020,
         CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, NULL);
    gpa1("cuMemAllocHost", (void **)&alloc_host, 3020, 0);
    gpa2("cuMemFreeHost", (void **)&free_host, 2000, 0, NULL);
    gpa2("cuMemAllocManaged", (void **)&alloc_managed, 6000, 0, NULL);
    VT_CHECK("all fetched", init && device_get && retain && set_current && mem_alloc && mem_free &&
                                alloc_async && free_async && alloc_host && free_host &&
                                alloc_managed);
    VT_CHECK("the allocation calls are wrappers",
             owner((void *)mem_alloc) == 1 && owner((void *)mem_free) == 1 &&
                 owner((void *)free_async) == 1 && owner((void *)alloc_host) == 1 &&
                 owner((void *)free_host) == 1 && owner((void *)alloc_managed) == 1);
    VT_CHECK("context calls are the driver's",
             owner((void *)init) == 0 && owner((void *)set_current) == 0);
    if (!(init && device_get && retain && set_current && mem_alloc && mem_free && alloc_async &&
          free_async && alloc_host && free_host && alloc_managed))
        return vt_test_done();
    CUdevice dev;
    CUcontext ctx;
    VT_CHECK_EQ("init", init(0), CUDA_SUCCESS);
    VT_CHECK_EQ("device", device_get(&dev, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("retain", retain(&ctx, dev), CUDA_SUCCESS);
    VT_CHECK_EQ("current", set_current(ctx), CUDA_SUCCESS);

    /* device: 64 KiB, +4 KiB async (peak 68 KiB), 64 KiB freed; 4 KiB live at exit.
     * pinned: 8 KiB, freed. managed: 16 KiB, live at exit. */
    CUdeviceptr a = 0, b = 0, m = 0;
    void *h = NULL;
    VT_CHECK_EQ("alloc 64 KiB", mem_alloc(&a, 64 * KiB), CUDA_SUCCESS);
    VT_CHECK_EQ("alloc async ptsz 4 KiB", alloc_async(&b, 4 * KiB, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("free 64 KiB", mem_free(a), CUDA_SUCCESS);
    VT_CHECK_EQ("alloc host 8 KiB", alloc_host(&h, 8 * KiB), CUDA_SUCCESS);
    VT_CHECK_EQ("free host", free_host(h), CUDA_SUCCESS);
    VT_CHECK_EQ("managed 16 KiB", alloc_managed(&m, 16 * KiB, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
    VT_CHECK_EQ("double free", mem_free(a), CUDA_ERROR_INVALID_VALUE);
    return vt_test_done();
}

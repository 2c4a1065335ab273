/* SPDX-License-Identifier: MIT */
/* Every entry point of the simulated driver, called directly as a program linked with -lcuda
 * calls it: the success path with exact results, and each error path the real driver has.
 * Run with VTSIM_DEVICE_COUNT=2 and VTSIM_DEVICE_MEMORY=1G. */
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sim_test.h"

#define GiB (1ULL << 30)
#define MiB (1ULL << 20)

static void test_before_init(void)
{
    CUdevice dev;
    int count, version = 0;
    CUdeviceptr p;
    VT_CHECK_EQ("cuDeviceGet before cuInit", cuDeviceGet(&dev, 0), CUDA_ERROR_NOT_INITIALIZED);
    VT_CHECK_EQ("cuDeviceGetCount before cuInit", cuDeviceGetCount(&count),
                CUDA_ERROR_NOT_INITIALIZED);
    VT_CHECK_EQ("cuMemAlloc before cuInit", cuMemAlloc_v2(&p, 1), CUDA_ERROR_NOT_INITIALIZED);
    VT_CHECK_EQ("cuDriverGetVersion works before cuInit", cuDriverGetVersion(&version),
                CUDA_SUCCESS);
    VT_CHECK_EQ("driver version", version, 13000);
    VT_CHECK_EQ("cuDriverGetVersion(NULL)", cuDriverGetVersion(NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("cuInit(flags != 0)", cuInit(1), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("cuInit(0)", cuInit(0), CUDA_SUCCESS);
    VT_CHECK_EQ("cuInit twice", cuInit(0), CUDA_SUCCESS);
}

static void test_devices(void)
{
    CUdevice dev = -1;
    int count = 0, value = 0;
    char name[64];
    size_t total = 0;
    VT_CHECK_EQ("cuDeviceGetCount", cuDeviceGetCount(&count), CUDA_SUCCESS);
    VT_CHECK_EQ("VTSIM_DEVICE_COUNT devices", count, 2);
    VT_CHECK_EQ("cuDeviceGetCount(NULL)", cuDeviceGetCount(NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("cuDeviceGet(1)", cuDeviceGet(&dev, 1), CUDA_SUCCESS);
    VT_CHECK_EQ("device ordinal", dev, 1);
    VT_CHECK_EQ("cuDeviceGet(2)", cuDeviceGet(&dev, 2), CUDA_ERROR_INVALID_DEVICE);
    VT_CHECK_EQ("cuDeviceGet(-1)", cuDeviceGet(&dev, -1), CUDA_ERROR_INVALID_DEVICE);
    VT_CHECK_EQ("cuDeviceGet(NULL)", cuDeviceGet(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("cuDeviceGetName", cuDeviceGetName(name, sizeof name, 0), CUDA_SUCCESS);
    VT_CHECK("device name", strcmp(name, "vramtrace simulated GPU") == 0);
    VT_CHECK_EQ("cuDeviceGetName truncates", cuDeviceGetName(name, 5, 0), CUDA_SUCCESS);
    VT_CHECK("truncated name", strcmp(name, "vram") == 0);
    VT_CHECK_EQ("cuDeviceGetName(NULL)", cuDeviceGetName(NULL, 5, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("cuDeviceGetName bad device", cuDeviceGetName(name, 5, 7),
                CUDA_ERROR_INVALID_DEVICE);
    VT_CHECK_EQ("cuDeviceTotalMem", cuDeviceTotalMem_v2(&total, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("VTSIM_DEVICE_MEMORY capacity", total, GiB);
    VT_CHECK_EQ("cuDeviceTotalMem(NULL)", cuDeviceTotalMem_v2(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("cuDeviceTotalMem bad device", cuDeviceTotalMem_v2(&total, 9),
                CUDA_ERROR_INVALID_DEVICE);
    VT_CHECK_EQ("attribute major",
                cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0),
                CUDA_SUCCESS);
    VT_CHECK_EQ("compute capability 9.x", value, 9);
    VT_CHECK_EQ("attribute warp size",
                cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1), CUDA_SUCCESS);
    VT_CHECK_EQ("warp size", value, 32);
    VT_CHECK_EQ(
        "attribute VMM",
        cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0),
        CUDA_SUCCESS);
    VT_CHECK_EQ("VMM supported", value, 1);
    VT_CHECK_EQ("unknown attribute", cuDeviceGetAttribute(&value, (CUdevice_attribute)9999, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("attribute NULL", cuDeviceGetAttribute(NULL, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0),
                CUDA_ERROR_INVALID_VALUE);
}

static void test_errors(void)
{
    const char *s = NULL;
    VT_CHECK_EQ("cuGetErrorName", cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &s), CUDA_SUCCESS);
    VT_CHECK("OOM name", s && strcmp(s, "CUDA_ERROR_OUT_OF_MEMORY") == 0);
    VT_CHECK_EQ("cuGetErrorString", cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s), CUDA_SUCCESS);
    VT_CHECK("OOM text", s && strcmp(s, "out of memory") == 0);
    VT_CHECK_EQ("unknown code", cuGetErrorString((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK("unknown code gives NULL", s == NULL);
    VT_CHECK_EQ("cuGetErrorName(NULL)", cuGetErrorName(CUDA_SUCCESS, NULL),
                CUDA_ERROR_INVALID_VALUE);
}

static void test_contexts(void)
{
    CUcontext ctx = NULL, cur = (CUcontext)1;
    CUdevice dev = -1;
    CUdeviceptr p;
    unsigned int flags = 7;
    int active = 7;
    VT_CHECK_EQ("no current context", cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    VT_CHECK("current is NULL", cur == NULL);
    VT_CHECK_EQ("cuMemAlloc without context", cuMemAlloc_v2(&p, 1), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("cuCtxGetDevice without context", cuCtxGetDevice(&dev), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("cuCtxSynchronize without context", cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("primary state before retain", cuDevicePrimaryCtxGetState(0, &flags, &active),
                CUDA_SUCCESS);
    VT_CHECK_EQ("inactive", active, 0);
    VT_CHECK_EQ("release unretained", cuDevicePrimaryCtxRelease_v2(0), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("retain", cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("retain NULL", cuDevicePrimaryCtxRetain(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("retain bad device", cuDevicePrimaryCtxRetain(&cur, 5), CUDA_ERROR_INVALID_DEVICE);
    VT_CHECK_EQ("state after retain", cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
    VT_CHECK_EQ("active", active, 1);
    VT_CHECK_EQ("state NULL", cuDevicePrimaryCtxGetState(0, NULL, &active),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("set invalid context", cuCtxSetCurrent((CUcontext)&flags),
                CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("set current", cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    VT_CHECK_EQ("get current", cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    VT_CHECK("current is the primary context", cur == ctx);
    VT_CHECK_EQ("cuCtxGetCurrent(NULL)", cuCtxGetCurrent(NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("cuCtxGetDevice", cuCtxGetDevice(&dev), CUDA_SUCCESS);
    VT_CHECK_EQ("device 0", dev, 0);
    VT_CHECK_EQ("cuCtxGetDevice(NULL)", cuCtxGetDevice(NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("cuCtxSynchronize", cuCtxSynchronize(), CUDA_SUCCESS);
}

static void test_device_memory(void)
{
    CUdeviceptr a = 0, b = 0, big = 0, base = 0;
    size_t free0, total, size = 0;
    VT_CHECK_EQ("cuMemGetInfo", cuMemGetInfo_v2(&free0, &total), CUDA_SUCCESS);
    VT_CHECK_EQ("nothing used", total - free0, 0);
    VT_CHECK_EQ("cuMemGetInfo NULLs", cuMemGetInfo_v2(NULL, &total), CUDA_SUCCESS);
    VT_CHECK_EQ("cuMemAlloc", cuMemAlloc_v2(&a, 1000), CUDA_SUCCESS);
    VT_CHECK_EQ("512-byte aligned", a % 512, 0);
    VT_CHECK_EQ("charged rounded to 512", sim_test_used_bytes(), 1024);
    VT_CHECK_EQ("second cuMemAlloc", cuMemAlloc_v2(&b, 1), CUDA_SUCCESS);
    VT_CHECK("distinct, non-overlapping", b >= a + 1000 || a >= b + 1);
    VT_CHECK_EQ("cuMemAlloc(NULL)", cuMemAlloc_v2(NULL, 1), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("cuMemAlloc(0 bytes)", cuMemAlloc_v2(&big, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("over capacity", cuMemAlloc_v2(&big, GiB), CUDA_ERROR_OUT_OF_MEMORY);
    VT_CHECK_EQ("out-param untouched on failure", big, 0);
    VT_CHECK_EQ("huge", cuMemAlloc_v2(&big, (size_t)-1), CUDA_ERROR_OUT_OF_MEMORY);
    VT_CHECK_EQ("address range", cuMemGetAddressRange_v2(&base, &size, a + 10), CUDA_SUCCESS);
    VT_CHECK("range base", base == a);
    VT_CHECK_EQ("range size", size, 1000);
    VT_CHECK_EQ("range NULL outputs", cuMemGetAddressRange_v2(NULL, NULL, a), CUDA_SUCCESS);
    VT_CHECK_EQ("range of unknown address", cuMemGetAddressRange_v2(&base, &size, 0x1234),
                CUDA_ERROR_NOT_FOUND);
    int ordinal = -1;
    unsigned int memtype = 0;
    VT_CHECK_EQ("pointer ordinal",
                cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, a),
                CUDA_SUCCESS);
    VT_CHECK_EQ("on device 0", ordinal, 0);
    VT_CHECK_EQ("pointer type",
                cuPointerGetAttribute(&memtype, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a), CUDA_SUCCESS);
    VT_CHECK_EQ("device memory", memtype, CU_MEMORYTYPE_DEVICE);
    VT_CHECK_EQ("pointer range size",
                cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, a + 1), CUDA_SUCCESS);
    VT_CHECK_EQ("range size attribute", size, 1000);
    VT_CHECK_EQ("pointer unknown",
                cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, 8),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("pointer bad attribute",
                cuPointerGetAttribute(&ordinal, (CUpointer_attribute)77, a),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("cuMemFree", cuMemFree_v2(a), CUDA_SUCCESS);
    VT_CHECK_EQ("double free", cuMemFree_v2(a), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("free of unknown", cuMemFree_v2(0x42), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("free of 0", cuMemFree_v2(0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("free interior", cuMemFree_v2(b + 1), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("free b", cuMemFree_v2(b), CUDA_SUCCESS);
    CUdeviceptr c = 0;
    VT_CHECK_EQ("alloc after frees", cuMemAlloc_v2(&c, 1000), CUDA_SUCCESS);
    VT_CHECK("addresses are never reused", c != a && c != b);
    cuMemFree_v2(c);
    VT_CHECK_EQ("everything given back", sim_test_used_bytes(), 0);
}

static void test_capacity(void)
{
    CUdeviceptr all = 0, one = 0;
    VT_CHECK_EQ("exactly the capacity", cuMemAlloc_v2(&all, GiB), CUDA_SUCCESS);
    VT_CHECK_EQ("device full", cuMemAlloc_v2(&one, 1), CUDA_ERROR_OUT_OF_MEMORY);
    size_t free_bytes = 1, total = 0;
    cuMemGetInfo_v2(&free_bytes, &total);
    VT_CHECK_EQ("no free bytes", free_bytes, 0);
    VT_CHECK_EQ("free it", cuMemFree_v2(all), CUDA_SUCCESS);
    VT_CHECK_EQ("fits again", cuMemAlloc_v2(&one, 1), CUDA_SUCCESS);
    cuMemFree_v2(one);
}

static void test_pitch_and_copies(void)
{
    CUdeviceptr p = 0, q = 0;
    size_t pitch = 0;
    VT_CHECK_EQ("pitch alloc", cuMemAllocPitch_v2(&p, &pitch, 100, 3, 4), CUDA_SUCCESS);
    VT_CHECK_EQ("pitch rounded to 512", pitch, 512);
    VT_CHECK_EQ("pitch × height charged", sim_test_used_bytes(), 1536);
    VT_CHECK_EQ("pitch bad element size", cuMemAllocPitch_v2(&q, &pitch, 100, 3, 3),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("pitch zero height", cuMemAllocPitch_v2(&q, &pitch, 100, 0, 4),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("pitch NULL pitch", cuMemAllocPitch_v2(&q, NULL, 100, 1, 4),
                CUDA_ERROR_INVALID_VALUE);

    int in[4] = {1, 2, 3, 4}, out[4] = {0};
    VT_CHECK_EQ("unwritten memory reads", cuMemcpyDtoH_v2(out, p, sizeof out), CUDA_SUCCESS);
    VT_CHECK("as zeros", out[0] == 0 && out[3] == 0);
    VT_CHECK_EQ("HtoD", cuMemcpyHtoD_v2(p + 512, in, sizeof in), CUDA_SUCCESS);
    VT_CHECK_EQ("DtoH", cuMemcpyDtoH_v2(out, p + 512, sizeof out), CUDA_SUCCESS);
    VT_CHECK("round trip", memcmp(in, out, sizeof in) == 0);
    VT_CHECK_EQ("alloc q", cuMemAlloc_v2(&q, 64), CUDA_SUCCESS);
    VT_CHECK_EQ("DtoD", cuMemcpyDtoD_v2(q, p + 512, sizeof in), CUDA_SUCCESS);
    memset(out, 0, sizeof out);
    VT_CHECK_EQ("unified copy device to host", cuMemcpy((CUdeviceptr)out, q, sizeof out),
                CUDA_SUCCESS);
    VT_CHECK("DtoD then unified copy", memcmp(in, out, sizeof in) == 0);
    VT_CHECK_EQ("memset D32", cuMemsetD32_v2(q, 0xdeadbeef, 4), CUDA_SUCCESS);
    VT_CHECK_EQ("read back", cuMemcpyDtoH_v2(out, q, sizeof out), CUDA_SUCCESS);
    VT_CHECK("D32 pattern", (unsigned)out[0] == 0xdeadbeef && (unsigned)out[3] == 0xdeadbeef);
    VT_CHECK_EQ("memset D8", cuMemsetD8_v2(q, 0x11, 16), CUDA_SUCCESS);
    cuMemcpyDtoH_v2(out, q, sizeof out);
    VT_CHECK("D8 pattern", (unsigned)out[2] == 0x11111111u);
    VT_CHECK_EQ("memset D32 misaligned", cuMemsetD32_v2(q + 1, 0, 1), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("memset past the end", cuMemsetD8_v2(q, 0, 65), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("copy past the end", cuMemcpyHtoD_v2(q + 60, in, sizeof in),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("copy to unknown", cuMemcpyHtoD_v2(0x300000000000ULL - 512, in, 4),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("copy from NULL host", cuMemcpyHtoD_v2(q, NULL, 4), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("async HtoD", cuMemcpyHtoDAsync_v2(q, in, sizeof in, NULL), CUDA_SUCCESS);
    memset(out, 0, sizeof out);
    VT_CHECK_EQ("async DtoH", cuMemcpyDtoHAsync_v2(out, q, sizeof out, NULL), CUDA_SUCCESS);
    VT_CHECK("async round trip", memcmp(in, out, sizeof in) == 0);
    VT_CHECK_EQ("async bad stream", cuMemcpyDtoHAsync_v2(out, q, 4, (CUstream)&pitch),
                CUDA_ERROR_INVALID_HANDLE);
    cuMemFree_v2(p);
    cuMemFree_v2(q);
    VT_CHECK_EQ("pitch and copies given back", sim_test_used_bytes(), 0);
}

static void test_managed_and_host(void)
{
    CUdeviceptr m = 0;
    void *h = NULL, *h2 = NULL;
    VT_CHECK_EQ("managed", cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
    ((volatile char *)m)[4095] = 7; /* host-accessible */
    VT_CHECK_EQ("managed is not device capacity", sim_test_used_bytes(), 0);
    int is_managed = 0;
    VT_CHECK_EQ("managed attribute",
                cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m),
                CUDA_SUCCESS);
    VT_CHECK_EQ("is managed", is_managed, 1);
    VT_CHECK_EQ("managed bad flags", cuMemAllocManaged(&m, 16, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("managed SINGLE is for streams", cuMemAllocManaged(&m, 16, CU_MEM_ATTACH_SINGLE),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("managed zero", cuMemAllocManaged(&m, 0, CU_MEM_ATTACH_HOST),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("managed free", cuMemFree_v2(m), CUDA_SUCCESS);

    VT_CHECK_EQ("host alloc", cuMemHostAlloc(&h, 8192, CU_MEMHOSTALLOC_PORTABLE), CUDA_SUCCESS);
    memset(h, 1, 8192);
    VT_CHECK_EQ("host alloc bad flags", cuMemHostAlloc(&h2, 16, 0x80), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("host alloc NULL", cuMemHostAlloc(NULL, 16, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("alloc host", cuMemAllocHost_v2(&h2, 100), CUDA_SUCCESS);
    VT_CHECK_EQ("alloc host zero", cuMemAllocHost_v2(&h2, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("pinned host is not device capacity", sim_test_used_bytes(), 0);
    unsigned int memtype = 0;
    VT_CHECK_EQ("host type",
                cuPointerGetAttribute(&memtype, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)h),
                CUDA_SUCCESS);
    VT_CHECK_EQ("host memory", memtype, CU_MEMORYTYPE_HOST);
    VT_CHECK_EQ("free host", cuMemFreeHost(h), CUDA_SUCCESS);
    VT_CHECK_EQ("free host twice", cuMemFreeHost(h), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("cuMemFree of host memory", cuMemFree_v2((CUdeviceptr)h2),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("free host 2", cuMemFreeHost(h2), CUDA_SUCCESS);

    static char buf[16384];
    VT_CHECK_EQ("register", cuMemHostRegister_v2(buf, 8192, CU_MEMHOSTREGISTER_PORTABLE),
                CUDA_SUCCESS);
    VT_CHECK_EQ("register overlap", cuMemHostRegister_v2(buf + 4096, 8192, 0),
                CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    VT_CHECK_EQ("register bad flags", cuMemHostRegister_v2(buf + 8192, 16, 0x100),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("register NULL", cuMemHostRegister_v2(NULL, 16, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("register zero", cuMemHostRegister_v2(buf + 8192, 0, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("unregister unknown", cuMemHostUnregister(buf + 8192),
                CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    VT_CHECK_EQ("unregister", cuMemHostUnregister(buf), CUDA_SUCCESS);
    VT_CHECK_EQ("unregister twice", cuMemHostUnregister(buf),
                CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    VT_CHECK_EQ("unregister NULL", cuMemHostUnregister(NULL), CUDA_ERROR_INVALID_VALUE);
}

static void test_arrays(void)
{
    CUarray arr = NULL, arr3 = NULL;
    CUmipmappedArray mip = NULL;
    CUDA_ARRAY_DESCRIPTOR d = {100, 10, CU_AD_FORMAT_FLOAT, 1};
    VT_CHECK_EQ("array", cuArrayCreate_v2(&arr, &d), CUDA_SUCCESS);
    VT_CHECK_EQ("array charged (512-byte rows)", sim_test_used_bytes(), 512 * 10);
    CUDA_ARRAY3D_DESCRIPTOR d3 = {128, 4, 2, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0};
    VT_CHECK_EQ("3D array", cuArray3DCreate_v2(&arr3, &d3), CUDA_SUCCESS);
    VT_CHECK_EQ("3D array charged", sim_test_used_bytes(), 512 * 10 + 512 * 4 * 2);
    VT_CHECK_EQ("array destroy", cuArrayDestroy(arr), CUDA_SUCCESS);
    VT_CHECK_EQ("array destroy twice", cuArrayDestroy(arr), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("3D array destroy", cuArrayDestroy(arr3), CUDA_SUCCESS);
    CUDA_ARRAY_DESCRIPTOR bad = {100, 1, (CUarray_format)0x77, 1};
    VT_CHECK_EQ("array bad format", cuArrayCreate_v2(&arr, &bad), CUDA_ERROR_INVALID_VALUE);
    bad.Format = CU_AD_FORMAT_HALF;
    bad.NumChannels = 3;
    VT_CHECK_EQ("array 3 channels", cuArrayCreate_v2(&arr, &bad), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("array NULL descriptor", cuArrayCreate_v2(&arr, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("3D array NULL handle", cuArray3DCreate_v2(NULL, &d3), CUDA_ERROR_INVALID_VALUE);
    CUDA_ARRAY3D_DESCRIPTOR dm = {1024, 1024, 0, CU_AD_FORMAT_FLOAT, 1, 0};
    VT_CHECK_EQ("mipmapped", cuMipmappedArrayCreate(&mip, &dm, 3), CUDA_SUCCESS);
    VT_CHECK_EQ("mipmapped charged: 3 levels", sim_test_used_bytes(),
                4096 * 1024 + 2048 * 512 + 1024 * 256);
    VT_CHECK_EQ("mipmapped zero levels", cuMipmappedArrayCreate(&mip, &dm, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("mipmapped as plain array", cuArrayDestroy((CUarray)mip),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("mipmapped destroy", cuMipmappedArrayDestroy(mip), CUDA_SUCCESS);
    VT_CHECK_EQ("mipmapped destroy twice", cuMipmappedArrayDestroy(mip), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("arrays given back", sim_test_used_bytes(), 0);
    CUDA_ARRAY_DESCRIPTOR huge = {1 << 20, 1 << 20, CU_AD_FORMAT_FLOAT, 4};
    VT_CHECK_EQ("array over capacity", cuArrayCreate_v2(&arr, &huge), CUDA_ERROR_OUT_OF_MEMORY);
}

static void test_streams_events(void)
{
    CUstream s = NULL;
    CUevent e = NULL;
    VT_CHECK_EQ("stream", cuStreamCreate(&s, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("stream bad flags", cuStreamCreate(&s, 8), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("stream NULL", cuStreamCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("sync", cuStreamSynchronize(s), CUDA_SUCCESS);
    VT_CHECK_EQ("sync default", cuStreamSynchronize(NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("event", cuEventCreate(&e, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("event NULL", cuEventCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("record", cuEventRecord(e, s), CUDA_SUCCESS);
    VT_CHECK_EQ("record bad stream", cuEventRecord(e, (CUstream)&e), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("event sync", cuEventSynchronize(e), CUDA_SUCCESS);
    VT_CHECK_EQ("event destroy", cuEventDestroy_v2(e), CUDA_SUCCESS);
    VT_CHECK_EQ("event destroy twice", cuEventDestroy_v2(e), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("event sync destroyed", cuEventSynchronize(e), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("stream destroy", cuStreamDestroy_v2(s), CUDA_SUCCESS);
    VT_CHECK_EQ("stream destroy twice", cuStreamDestroy_v2(s), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("sync destroyed", cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE);
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    VT_CHECK_EQ("exchange capture mode", cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
    VT_CHECK_EQ("the old mode is global", mode, CU_STREAM_CAPTURE_MODE_GLOBAL);
    VT_CHECK_EQ("exchange back", cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
    VT_CHECK_EQ("relaxed was set", mode, CU_STREAM_CAPTURE_MODE_RELAXED);
    mode = (CUstreamCaptureMode)7;
    VT_CHECK_EQ("bad mode", cuThreadExchangeStreamCaptureMode(&mode), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("NULL mode", cuThreadExchangeStreamCaptureMode(NULL), CUDA_ERROR_INVALID_VALUE);
}

/* cuMemAllocAsync_ptsz and friends exist only as exports under the default headers. */
CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream);
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                      CUstream hStream);
CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream);

static cuuint64_t pool_attr(CUmemoryPool pool, CUmemPool_attribute attr)
{
    cuuint64_t v = ~0ULL;
    cuMemPoolGetAttribute(pool, attr, &v);
    return v;
}

static void test_pools(void)
{
    CUmemoryPool def = NULL, pool = NULL;
    CUdeviceptr a = 0, b = 0, c = 0;
    VT_CHECK_EQ("default pool", cuDeviceGetDefaultMemPool(&def, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("default pool NULL", cuDeviceGetDefaultMemPool(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("default pool bad device", cuDeviceGetDefaultMemPool(&pool, 4),
                CUDA_ERROR_INVALID_DEVICE);
    VT_CHECK_EQ("async alloc", cuMemAllocAsync(&a, 1000, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("pool reserves 2 MiB", pool_attr(def, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT),
                2 * MiB);
    VT_CHECK_EQ("pool used", pool_attr(def, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 1024);
    VT_CHECK_EQ("device charged the reservation", sim_test_used_bytes(), 2 * MiB);
    VT_CHECK_EQ("async alloc ptsz", cuMemAllocAsync_ptsz(&b, 3 * MiB, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("pool grows in 2 MiB steps", pool_attr(def, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT),
                4 * MiB);
    VT_CHECK_EQ("async free", cuMemFreeAsync(a, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("async free twice", cuMemFreeAsync(a, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("async free ptsz", cuMemFreeAsync_ptsz(b, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("reservation stays until a sync", sim_test_used_bytes(), 4 * MiB);
    VT_CHECK_EQ("used high", pool_attr(def, CU_MEMPOOL_ATTR_USED_MEM_HIGH), 1024 + 3 * MiB);
    cuuint64_t keep = 2 * MiB;
    VT_CHECK_EQ("set threshold",
                cuMemPoolSetAttribute(def, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep), CUDA_SUCCESS);
    VT_CHECK_EQ("threshold", pool_attr(def, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD), 2 * MiB);
    VT_CHECK_EQ("sync", cuCtxSynchronize(), CUDA_SUCCESS);
    VT_CHECK_EQ("sync releases down to the threshold",
                pool_attr(def, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 2 * MiB);
    VT_CHECK_EQ("trim", cuMemPoolTrimTo(def, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("trimmed", pool_attr(def, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0);
    VT_CHECK_EQ("device given back", sim_test_used_bytes(), 0);
    cuuint64_t zero = 0, one = 1;
    VT_CHECK_EQ("reset high", cuMemPoolSetAttribute(def, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &zero),
                CUDA_SUCCESS);
    VT_CHECK_EQ("high reset to current", pool_attr(def, CU_MEMPOOL_ATTR_USED_MEM_HIGH), 0);
    VT_CHECK_EQ("high can only be reset",
                cuMemPoolSetAttribute(def, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &one),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("current is read-only",
                cuMemPoolSetAttribute(def, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &zero),
                CUDA_ERROR_INVALID_VALUE);
    int reuse = 0;
    VT_CHECK_EQ("reuse attr",
                cuMemPoolGetAttribute(def, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &reuse),
                CUDA_SUCCESS);
    VT_CHECK_EQ("reuse on", reuse, 1);
    VT_CHECK_EQ("get attr NULL", cuMemPoolGetAttribute(def, CU_MEMPOOL_ATTR_USED_MEM_HIGH, NULL),
                CUDA_ERROR_INVALID_VALUE);

    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 1;
    VT_CHECK_EQ("pool create", cuMemPoolCreate(&pool, &props), CUDA_SUCCESS);
    VT_CHECK_EQ("from pool", cuMemAllocFromPoolAsync(&c, 5000, pool, NULL), CUDA_SUCCESS);
    int ordinal = -1;
    cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, c);
    VT_CHECK_EQ("pool on device 1 allocates there", ordinal, 1);
    VT_CHECK_EQ("device 0 not charged", sim_test_used_bytes(), 0);
    VT_CHECK_EQ("destroy with allocation outstanding", cuMemPoolDestroy(pool), CUDA_SUCCESS);
    VT_CHECK_EQ("destroyed pool is invalid", cuMemAllocFromPoolAsync(&a, 16, pool, NULL),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("free the outstanding allocation", cuMemFreeAsync(c, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("pool create ptsz path", cuMemPoolCreate(&pool, &props), CUDA_SUCCESS);
    VT_CHECK_EQ("from pool ptsz", cuMemAllocFromPoolAsync_ptsz(&c, 64, pool, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("cuMemFree frees stream-ordered memory", cuMemFree_v2(c), CUDA_SUCCESS);
    VT_CHECK_EQ("trim to keep", cuMemPoolTrimTo(pool, 1), CUDA_SUCCESS);
    VT_CHECK_EQ("trim keeps a granule", pool_attr(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT),
                2 * MiB);
    VT_CHECK_EQ("pool destroy", cuMemPoolDestroy(pool), CUDA_SUCCESS);
    VT_CHECK_EQ("pool destroy twice", cuMemPoolDestroy(pool), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("default pool cannot be destroyed", cuMemPoolDestroy(def),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("trim invalid", cuMemPoolTrimTo((CUmemoryPool)&props, 0), CUDA_ERROR_INVALID_VALUE);
    props.location.id = 9;
    VT_CHECK_EQ("pool bad device", cuMemPoolCreate(&pool, &props), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("pool NULL props", cuMemPoolCreate(&pool, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("async zero", cuMemAllocAsync(&a, 0, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("async NULL", cuMemAllocAsync(NULL, 8, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("async bad stream", cuMemAllocAsync(&a, 8, (CUstream)&props),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("async over capacity", cuMemAllocAsync(&a, GiB + 1, NULL),
                CUDA_ERROR_OUT_OF_MEMORY);
    VT_CHECK_EQ("free of unknown", cuMemFreeAsync(0x99, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("pools given back", sim_test_used_bytes(), 0);
}

static void test_vmm(void)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    VT_CHECK_EQ("granularity",
                cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
                CUDA_SUCCESS);
    VT_CHECK_EQ("2 MiB", gran, 2 * MiB);
    VT_CHECK_EQ("granularity bad option",
                cuMemGetAllocationGranularity(&gran, &prop, (CUmemAllocationGranularity_flags)5),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("granularity NULL prop",
                cuMemGetAllocationGranularity(&gran, NULL, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
                CUDA_ERROR_INVALID_VALUE);
    CUmemGenericAllocationHandle h = 0, h2 = 0, again = 0;
    VT_CHECK_EQ("create", cuMemCreate(&h, 4 * MiB, &prop, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("physical bytes charged at create", sim_test_used_bytes(), 4 * MiB);
    VT_CHECK_EQ("create not a multiple", cuMemCreate(&h2, 3 * MiB + 1, &prop, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("create flags", cuMemCreate(&h2, 2 * MiB, &prop, 1), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("create over capacity", cuMemCreate(&h2, GiB, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
    CUdeviceptr va = 0;
    VT_CHECK_EQ("reserve", cuMemAddressReserve(&va, 8 * MiB, 0, 0, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("reserve aligned", va % (2 * MiB), 0);
    VT_CHECK_EQ("reserving costs nothing", sim_test_used_bytes(), 4 * MiB);
    VT_CHECK_EQ("reserve not a multiple", cuMemAddressReserve(&va, MiB, 0, 0, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("reserve bad alignment", cuMemAddressReserve(&va, 2 * MiB, 3, 0, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("map", cuMemMap(va, 4 * MiB, 0, h, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("map same handle twice elsewhere", cuMemMap(va + 4 * MiB, 2 * MiB, 2 * MiB, h, 0),
                CUDA_SUCCESS);
    VT_CHECK_EQ("mapping costs nothing", sim_test_used_bytes(), 4 * MiB);
    VT_CHECK_EQ("map overlapping", cuMemMap(va, 2 * MiB, 0, h, 0), CUDA_ERROR_ALREADY_MAPPED);
    VT_CHECK_EQ("map outside a reservation", cuMemMap(0x10000000, 2 * MiB, 0, h, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("map past the handle", cuMemMap(va + 6 * MiB, 2 * MiB, 4 * MiB, h, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("map unknown handle", cuMemMap(va + 6 * MiB, 2 * MiB, 0, 12345, 0),
                CUDA_ERROR_INVALID_VALUE);
    CUmemAccessDesc acc;
    memset(&acc, 0, sizeof acc);
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    VT_CHECK_EQ("set access", cuMemSetAccess(va, 6 * MiB, &acc, 1), CUDA_SUCCESS);
    VT_CHECK_EQ("set access unmapped", cuMemSetAccess(va, 8 * MiB, &acc, 1),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("set access no descriptors", cuMemSetAccess(va, 2 * MiB, &acc, 0),
                CUDA_ERROR_INVALID_VALUE);
    int v = 99, w = 0;
    VT_CHECK_EQ("write through mapping 2", cuMemcpyHtoD_v2(va + 4 * MiB, &v, 4), CUDA_SUCCESS);
    VT_CHECK_EQ("read through mapping 1", cuMemcpyDtoH_v2(&w, va + 2 * MiB, 4), CUDA_SUCCESS);
    VT_CHECK_EQ("two mappings of one handle alias", w, 99);
    VT_CHECK_EQ("retain", cuMemRetainAllocationHandle(&again, (void *)(va + 100)), CUDA_SUCCESS);
    VT_CHECK("retain returns the same handle", again == h);
    VT_CHECK_EQ("retain unmapped", cuMemRetainAllocationHandle(&again, (void *)(va + 7 * MiB)),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("release", cuMemRelease(h), CUDA_SUCCESS);
    VT_CHECK_EQ("release retained", cuMemRelease(h), CUDA_SUCCESS);
    VT_CHECK_EQ("still mapped: still charged", sim_test_used_bytes(), 4 * MiB);
    VT_CHECK_EQ("release once too often", cuMemRelease(h), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("unmap part of a mapping", cuMemUnmap(va, 2 * MiB), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("address free while mapped", cuMemAddressFree(va, 8 * MiB),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("unmap first", cuMemUnmap(va, 4 * MiB), CUDA_SUCCESS);
    VT_CHECK_EQ("one mapping left: charged", sim_test_used_bytes(), 4 * MiB);
    VT_CHECK_EQ("unmap second", cuMemUnmap(va + 4 * MiB, 2 * MiB), CUDA_SUCCESS);
    VT_CHECK_EQ("last mapping gone: released", sim_test_used_bytes(), 0);
    VT_CHECK_EQ("unmap nothing", cuMemUnmap(va, 2 * MiB), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("address free wrong size", cuMemAddressFree(va, 2 * MiB), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("address free", cuMemAddressFree(va, 8 * MiB), CUDA_SUCCESS);
    VT_CHECK_EQ("address free twice", cuMemAddressFree(va, 8 * MiB), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("release unknown", cuMemRelease(777), CUDA_ERROR_INVALID_VALUE);

    prop.location.type = CU_MEM_LOCATION_TYPE_HOST;
    VT_CHECK_EQ("host-located create", cuMemCreate(&h2, 2 * MiB, &prop, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("host-located is not device memory", sim_test_used_bytes(), 0);
    VT_CHECK_EQ("release host-located", cuMemRelease(h2), CUDA_SUCCESS);
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 5;
    VT_CHECK_EQ("create bad device", cuMemCreate(&h2, 2 * MiB, &prop, 0), CUDA_ERROR_INVALID_VALUE);
}

/* A handle exported as a file descriptor and imported again: one charge, two handles to the same
 * bytes, freed when both are released and unmapped. */
static void test_vmm_shareable(void)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    CUmemGenericAllocationHandle plain = 0, h = 0, imported = 0;
    int fd = -1;
    VT_CHECK_EQ("create not exportable", cuMemCreate(&plain, 2 * MiB, &prop, 0), CUDA_SUCCESS);
    VT_CHECK_EQ(
        "export without the type requested",
        cuMemExportToShareableHandle(&fd, plain, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
        CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("release not exportable", cuMemRelease(plain), CUDA_SUCCESS);
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    VT_CHECK_EQ("create exportable", cuMemCreate(&h, 2 * MiB, &prop, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("export other type",
                cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_NONE, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("export unknown handle",
                cuMemExportToShareableHandle(&fd, 777, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("export",
                cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                CUDA_SUCCESS);
    VT_CHECK("export gives a descriptor", fd >= 0);
    VT_CHECK_EQ("import unknown descriptor",
                cuMemImportFromShareableHandle(&imported, (void *)(intptr_t)-5,
                                               CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("import",
                cuMemImportFromShareableHandle(&imported, (void *)(intptr_t)fd,
                                               CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
                CUDA_SUCCESS);
    VT_CHECK("import is another handle", imported && imported != h);
    VT_CHECK_EQ("import charges nothing", sim_test_used_bytes(), 2 * MiB);
    CUdeviceptr va = 0;
    VT_CHECK_EQ("reserve", cuMemAddressReserve(&va, 4 * MiB, 0, 0, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("map the exported", cuMemMap(va, 2 * MiB, 0, h, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("map the imported", cuMemMap(va + 2 * MiB, 2 * MiB, 0, imported, 0), CUDA_SUCCESS);
    int v = 42, w = 0;
    VT_CHECK_EQ("write through the exported", cuMemcpyHtoD_v2(va + 8, &v, 4), CUDA_SUCCESS);
    VT_CHECK_EQ("read through the imported", cuMemcpyDtoH_v2(&w, va + 2 * MiB + 8, 4),
                CUDA_SUCCESS);
    VT_CHECK_EQ("the two handles share their bytes", w, 42);
    VT_CHECK_EQ("release the exported", cuMemRelease(h), CUDA_SUCCESS);
    VT_CHECK_EQ("unmap the exported", cuMemUnmap(va, 2 * MiB), CUDA_SUCCESS);
    VT_CHECK_EQ("the imported holds it", sim_test_used_bytes(), 2 * MiB);
    VT_CHECK_EQ("unmap the imported", cuMemUnmap(va + 2 * MiB, 2 * MiB), CUDA_SUCCESS);
    VT_CHECK_EQ("still held by the imported handle", sim_test_used_bytes(), 2 * MiB);
    VT_CHECK_EQ("release the imported", cuMemRelease(imported), CUDA_SUCCESS);
    VT_CHECK_EQ("both gone: freed", sim_test_used_bytes(), 0);
    VT_CHECK_EQ("release the imported twice", cuMemRelease(imported), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("import of a freed handle",
                cuMemImportFromShareableHandle(&imported, (void *)(intptr_t)fd,
                                               CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("address free", cuMemAddressFree(va, 4 * MiB), CUDA_SUCCESS);
    close(fd);
}

static void test_graphs(void)
{
    CUgraph g = NULL;
    CUgraphNode an = NULL, fn = NULL;
    CUgraphExec ex = NULL;
    CUDA_MEM_ALLOC_NODE_PARAMS np;
    memset(&np, 0, sizeof np);
    np.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    np.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    np.poolProps.location.id = 0;
    np.bytesize = 3 * MiB;
    VT_CHECK_EQ("graph", cuGraphCreate(&g, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("graph flags", cuGraphCreate(&g, 1), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("alloc node", cuGraphAddMemAllocNode(&an, g, NULL, 0, &np), CUDA_SUCCESS);
    VT_CHECK("alloc node address", np.dptr != 0 && np.dptr % 512 == 0);
    VT_CHECK_EQ("adding a node reserves nothing", sim_test_used_bytes(), 0);
    CUDA_MEM_ALLOC_NODE_PARAMS bad = np;
    bad.bytesize = 0;
    VT_CHECK_EQ("alloc node zero", cuGraphAddMemAllocNode(&an, g, NULL, 0, &bad),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("alloc node bad graph", cuGraphAddMemAllocNode(&an, (CUgraph)&np, NULL, 0, &np),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("instantiate", cuGraphInstantiateWithFlags(&ex, g, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("launch", cuGraphLaunch(ex, NULL), CUDA_SUCCESS);
    cuuint64_t v = 0;
    VT_CHECK_EQ("graph used",
                cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &v),
                CUDA_SUCCESS);
    VT_CHECK_EQ("used = allocation", v, 3 * MiB);
    cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT, &v);
    VT_CHECK_EQ("reserved in 2 MiB steps", v, 4 * MiB);
    VT_CHECK_EQ("device charged the reservation", sim_test_used_bytes(), 4 * MiB);
    int w = 5, r = 0;
    VT_CHECK_EQ("graph memory is writable", cuMemcpyHtoD_v2(np.dptr, &w, 4), CUDA_SUCCESS);
    cuMemcpyDtoH_v2(&r, np.dptr, 4);
    VT_CHECK_EQ("graph memory round trip", r, 5);
    VT_CHECK_EQ("relaunch while live", cuGraphLaunch_ptsz(ex, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("free graph allocation", cuMemFreeAsync(np.dptr, NULL), CUDA_SUCCESS);
    cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &v);
    VT_CHECK_EQ("used back to 0", v, 0);
    VT_CHECK_EQ("reservation kept until trim", sim_test_used_bytes(), 4 * MiB);
    VT_CHECK_EQ("trim", cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
    VT_CHECK_EQ("trimmed", sim_test_used_bytes(), 0);
    cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH, &v);
    VT_CHECK_EQ("reserved high", v, 4 * MiB);
    cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &v);
    VT_CHECK_EQ("used high", v, 3 * MiB);
    VT_CHECK_EQ("graph attr bad", cuDeviceGetGraphMemAttribute(0, (CUgraphMem_attribute)9, &v),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("graph attr bad device",
                cuDeviceGetGraphMemAttribute(7, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &v),
                CUDA_ERROR_INVALID_DEVICE);
    VT_CHECK_EQ("trim bad device", cuDeviceGraphMemTrim(7), CUDA_ERROR_INVALID_DEVICE);

    /* A second graph frees in-graph: the allocation lives only during the launch. */
    CUgraph g2 = NULL;
    CUgraphExec ex2 = NULL;
    np.dptr = 0;
    np.bytesize = MiB;
    VT_CHECK_EQ("graph 2", cuGraphCreate(&g2, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("alloc node 2", cuGraphAddMemAllocNode(&an, g2, NULL, 0, &np), CUDA_SUCCESS);
    VT_CHECK_EQ("free node", cuGraphAddMemFreeNode(&fn, g2, &an, 1, np.dptr), CUDA_SUCCESS);
    VT_CHECK_EQ("free node NULL address", cuGraphAddMemFreeNode(&fn, g2, NULL, 0, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("instantiate 2", cuGraphInstantiateWithFlags(&ex2, g2, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("launch 2", cuGraphLaunch(ex2, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("relaunch after in-graph free", cuGraphLaunch(ex2, NULL), CUDA_SUCCESS);
    cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &v);
    VT_CHECK_EQ("nothing live after", v, 0);
    VT_CHECK_EQ("freed in graph: unknown now", cuMemFree_v2(np.dptr), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("exec destroy", cuGraphExecDestroy(ex), CUDA_SUCCESS);
    VT_CHECK_EQ("exec destroy twice", cuGraphExecDestroy(ex), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("launch destroyed", cuGraphLaunch(ex, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("exec destroy 2", cuGraphExecDestroy(ex2), CUDA_SUCCESS);
    VT_CHECK_EQ("graph destroy", cuGraphDestroy(g), CUDA_SUCCESS);
    VT_CHECK_EQ("graph destroy 2", cuGraphDestroy(g2), CUDA_SUCCESS);
    VT_CHECK_EQ("graph destroy twice", cuGraphDestroy(g), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("instantiate destroyed", cuGraphInstantiateWithFlags(&ex, g, 0),
                CUDA_ERROR_INVALID_VALUE);
    cuDeviceGraphMemTrim(0);
    VT_CHECK_EQ("graphs given back", sim_test_used_bytes(), 0);
}

static void test_ipc(void)
{
    CUdeviceptr p = 0, opened = 0;
    CUipcMemHandle h;
    VT_CHECK_EQ("alloc", cuMemAlloc_v2(&p, 4096), CUDA_SUCCESS);
    VT_CHECK_EQ("get handle", cuIpcGetMemHandle(&h, p), CUDA_SUCCESS);
    VT_CHECK_EQ("get handle interior", cuIpcGetMemHandle(&h, p + 8), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("get handle again", cuIpcGetMemHandle(&h, p), CUDA_SUCCESS);
    VT_CHECK_EQ("open in the same process",
                cuIpcOpenMemHandle_v2(&opened, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
                CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("open bad flags", cuIpcOpenMemHandle_v2(&opened, h, 0), CUDA_ERROR_INVALID_VALUE);
    CUipcMemHandle junk;
    memset(&junk, 0x5a, sizeof junk);
    VT_CHECK_EQ("open junk", cuIpcOpenMemHandle(&opened, junk, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("close unknown", cuIpcCloseMemHandle(p), CUDA_ERROR_INVALID_VALUE);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        /* The peer process: both ABI versions open the handle at a new address, not charged. */
        size_t before = sim_test_used_bytes();
        CUdeviceptr o1 = 0, o2 = 0;
        int ok =
            cuIpcOpenMemHandle_v2(&o1, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) == CUDA_SUCCESS &&
            cuIpcOpenMemHandle(&o2, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) == CUDA_SUCCESS && o1 &&
            o2 && o1 != o2 && sim_test_used_bytes() == before &&
            cuIpcCloseMemHandle(o1) == CUDA_SUCCESS && cuIpcCloseMemHandle(o2) == CUDA_SUCCESS &&
            cuIpcCloseMemHandle(o2) == CUDA_ERROR_INVALID_VALUE;
        _exit(ok ? 0 : 1);
    }
    int status = -1;
    waitpid(child, &status, 0);
    VT_CHECK("peer process opens and closes the handle",
             WIFEXITED(status) && WEXITSTATUS(status) == 0);
    cuMemFree_v2(p);
}

static void test_second_device(void)
{
    CUcontext c1 = NULL;
    CUdeviceptr a = 0, b = 0;
    VT_CHECK_EQ("alloc on device 0", cuMemAlloc_v2(&a, 1 << 20), CUDA_SUCCESS);
    VT_CHECK_EQ("retain device 1", cuDevicePrimaryCtxRetain(&c1, 1), CUDA_SUCCESS);
    VT_CHECK_EQ("switch", cuCtxSetCurrent(c1), CUDA_SUCCESS);
    VT_CHECK_EQ("device 1 is empty", sim_test_used_bytes(), 0);
    VT_CHECK_EQ("alloc on device 1", cuMemAlloc_v2(&b, 1 << 20), CUDA_SUCCESS);
    int ordinal = -1;
    cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, b);
    VT_CHECK_EQ("device 1 ordinal", ordinal, 1);
    VT_CHECK("per-device address ranges", b > a + (1 << 20));
    VT_CHECK_EQ("device 1 charged", sim_test_used_bytes(), 1 << 20);
    VT_CHECK_EQ("release device 1: context gone", cuDevicePrimaryCtxRelease_v2(1), CUDA_SUCCESS);
    VT_CHECK_EQ("allocation gone with it",
                cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, b),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("destroyed context can't allocate", cuMemAlloc_v2(&b, 1),
                CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("reset device 0", cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
    VT_CHECK_EQ("reset frees device 0's memory",
                cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, a),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("reset bad device", cuDevicePrimaryCtxReset_v2(3), CUDA_ERROR_INVALID_DEVICE);
}

/* Tens of GiB allocated cost no host memory: backing exists only for what is written. */
static void test_large_is_free(void)
{
    CUcontext c0 = NULL;
    cuDevicePrimaryCtxRetain(&c0, 0);
    cuCtxSetCurrent(c0);
    CUdeviceptr a = 0;
    VT_CHECK_EQ("1 GiB minus a page", cuMemAlloc_v2(&a, GiB - 4096), CUDA_SUCCESS);
    char byte = 1;
    VT_CHECK_EQ("touch its last byte", cuMemcpyHtoD_v2(a + GiB - 4097, &byte, 1), CUDA_SUCCESS);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    VT_CHECK("resident set stays small (< 64 MiB)", ru.ru_maxrss < 64 * 1024);
    cuMemFree_v2(a);
}

int main(void)
{
    test_before_init();
    test_devices();
    test_errors();
    test_contexts();
    test_device_memory();
    test_capacity();
    test_pitch_and_copies();
    test_managed_and_host();
    test_arrays();
    test_streams_events();
    test_pools();
    test_vmm();
    test_vmm_shareable();
    test_graphs();
    test_ipc();
    test_second_device();
    test_large_is_free();
    return vt_test_done();
}

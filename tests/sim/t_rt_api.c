/* SPDX-License-Identifier: MIT */
/* Every entry point of the simulated libcudart.so.13 (src/cuda_runtime.def plus the host stubs),
 * called the way a program linked with -lcudart calls them, with exact results and exact error
 * codes on the success and the error paths, and the per-thread last-error state after each.
 * Runs with VTSIM_DEVICE_COUNT=2 and VTSIM_DEVICE_MEMORY=1G, so out-of-memory is real and the
 * device accounting (cudaMemGetInfo) is checked to the byte. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "t_rt_common.h"

#define CAPACITY_BYTES T_RT_GIB
#define SENTINEL       ((void *)0x5e47)

/* The device's free bytes now; 0 (and a failure) when cudaMemGetInfo fails. */
static size_t free_bytes(void)
{
    size_t free = 0, total = 0;
    VT_CHECK_EQ("cudaMemGetInfo", cudaMemGetInfo(&free, &total), cudaSuccess);
    VT_CHECK_EQ("total is the capacity", total, CAPACITY_BYTES);
    return free;
}

/* The last error is `want`, and reading it cleared it. */
static void expect_last_error(const char *name, cudaError_t want)
{
    VT_CHECK_EQ(name, cudaPeekAtLastError(), want);
    VT_CHECK_EQ(name, cudaGetLastError(), want);
    VT_CHECK_EQ(name, cudaGetLastError(), cudaSuccess);
}

static void test_versions_and_errors(void)
{
    int v = -1;
    VT_CHECK_EQ("runtime version", cudaRuntimeGetVersion(&v), cudaSuccess);
    VT_CHECK_EQ("runtime version", v, 13000);
    VT_CHECK_EQ("driver version", cudaDriverGetVersion(&v), cudaSuccess);
    VT_CHECK_EQ("driver version", v, 13000);
    VT_CHECK_EQ("runtime version NULL", cudaRuntimeGetVersion(NULL), cudaErrorInvalidValue);
    VT_CHECK_EQ("driver version NULL", cudaDriverGetVersion(NULL), cudaErrorInvalidValue);
    expect_last_error("version NULL recorded", cudaErrorInvalidValue);

    VT_CHECK("string", strcmp(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory") == 0);
    VT_CHECK("name",
             strcmp(cudaGetErrorName(cudaErrorMemoryAllocation), "cudaErrorMemoryAllocation") == 0);
    VT_CHECK("string 35",
             strcmp(cudaGetErrorString(cudaErrorInsufficientDriver),
                    "CUDA driver version is insufficient for CUDA runtime version") == 0);
    VT_CHECK("name 0", strcmp(cudaGetErrorName(cudaSuccess), "cudaSuccess") == 0);
    VT_CHECK("string 0", strcmp(cudaGetErrorString(cudaSuccess), "no error") == 0);
    VT_CHECK("name 9", strcmp(cudaGetErrorName(T_RT_ERROR_INVALID_CONFIGURATION),
                              "cudaErrorInvalidConfiguration") == 0);
    VT_CHECK("unknown code string",
             strcmp(cudaGetErrorString((cudaError_t)12345), "unrecognized error code") == 0);
    VT_CHECK("unknown code name",
             strcmp(cudaGetErrorName((cudaError_t)12345), "unrecognized error code") == 0);
}

static void test_last_error(void)
{
    void *p = NULL;
    VT_CHECK_EQ("clean start", cudaGetLastError(), cudaSuccess);
    VT_CHECK_EQ("cudaFree(NULL)", cudaFree(NULL), cudaSuccess);
    VT_CHECK_EQ("NULL out-pointer", cudaMalloc(NULL, 16), cudaErrorInvalidValue);
    VT_CHECK_EQ("peek", cudaPeekAtLastError(), cudaErrorInvalidValue);
    VT_CHECK_EQ("peek does not reset", cudaPeekAtLastError(), cudaErrorInvalidValue);
    VT_CHECK_EQ("a success", cudaMalloc(&p, 16), cudaSuccess);
    VT_CHECK_EQ("success does not clear", cudaPeekAtLastError(), cudaErrorInvalidValue);
    VT_CHECK_EQ("a second failure", cudaFree(SENTINEL), cudaErrorInvalidValue);
    VT_CHECK_EQ("a third failure", cudaSetDevice(7), cudaErrorInvalidDevice);
    VT_CHECK_EQ("the latest failure wins", cudaGetLastError(), cudaErrorInvalidDevice);
    VT_CHECK_EQ("get resets", cudaGetLastError(), cudaSuccess);
    VT_CHECK_EQ("peek after reset", cudaPeekAtLastError(), cudaSuccess);
    VT_CHECK_EQ("free", cudaFree(p), cudaSuccess);
}

static void *other_thread_error(void *arg)
{
    (void)arg;
    /* The last error is per thread: this thread starts clean and its failure stays here. */
    cudaError_t clean = cudaPeekAtLastError();
    cudaMalloc(NULL, 1);
    return (void *)(uintptr_t)(clean == cudaSuccess && cudaGetLastError() == cudaErrorInvalidValue);
}

static void test_last_error_per_thread(void)
{
    VT_CHECK_EQ("fail here", cudaMemGetInfo(NULL, NULL), cudaErrorInvalidValue);
    pthread_t t;
    void *ok = NULL;
    VT_CHECK_EQ("thread", pthread_create(&t, NULL, other_thread_error, NULL), 0);
    pthread_join(t, &ok);
    VT_CHECK("other thread clean, own error", ok == (void *)1);
    expect_last_error("this thread's error untouched", cudaErrorInvalidValue);
}

static void test_device_memory(void)
{
    size_t start = free_bytes();
    VT_CHECK_EQ("nothing allocated yet", start, CAPACITY_BYTES);
    void *a = SENTINEL, *b = SENTINEL;
    VT_CHECK_EQ("1 MiB", cudaMalloc(&a, T_RT_MIB), cudaSuccess);
    VT_CHECK("device address", a != NULL && a != SENTINEL);
    VT_CHECK_EQ("1 MiB charged", start - free_bytes(), T_RT_MIB);
    VT_CHECK_EQ("1000 bytes", cudaMalloc(&b, 1000), cudaSuccess);
    VT_CHECK_EQ("rounded to 512", start - free_bytes(), T_RT_MIB + 1024);
    VT_CHECK("512-byte aligned", ((uintptr_t)a & 511) == 0 && ((uintptr_t)b & 511) == 0);

    void *z = SENTINEL;
    VT_CHECK_EQ("zero bytes", cudaMalloc(&z, 0), cudaSuccess);
    VT_CHECK("zero bytes is NULL", z == NULL);

    void *big = SENTINEL;
    VT_CHECK_EQ("out of memory", cudaMalloc(&big, 2 * CAPACITY_BYTES), cudaErrorMemoryAllocation);
    VT_CHECK("out-pointer untouched", big == SENTINEL);
    VT_CHECK_EQ("just over the free bytes", cudaMalloc(&big, free_bytes() + 1),
                cudaErrorMemoryAllocation);
    expect_last_error("OOM recorded", cudaErrorMemoryAllocation);
    void *small = NULL;
    VT_CHECK_EQ("OOM is not sticky", cudaMalloc(&small, 4096), cudaSuccess);
    VT_CHECK_EQ("free small", cudaFree(small), cudaSuccess);

    VT_CHECK_EQ("free a", cudaFree(a), cudaSuccess);
    VT_CHECK_EQ("free b", cudaFree(b), cudaSuccess);
    VT_CHECK_EQ("all back", free_bytes(), start);
    VT_CHECK_EQ("double free", cudaFree(a), cudaErrorInvalidValue);
    VT_CHECK_EQ("unknown pointer", cudaFree((void *)0x1234), cudaErrorInvalidValue);
    expect_last_error("bad free recorded", cudaErrorInvalidValue);
}

static void test_pitched_and_arrays(void)
{
    size_t start = free_bytes();
    void *p = SENTINEL;
    size_t pitch = 0;
    VT_CHECK_EQ("pitch", cudaMallocPitch(&p, &pitch, 100, 10), cudaSuccess);
    VT_CHECK_EQ("pitch rounds to 512", pitch, 512);
    VT_CHECK_EQ("pitch × height charged", start - free_bytes(), 5120);
    VT_CHECK_EQ("free pitched", cudaFree(p), cudaSuccess);
    VT_CHECK_EQ("odd width", cudaMallocPitch(&p, &pitch, 513, 1), cudaSuccess);
    VT_CHECK_EQ("odd width pitch", pitch, 1024);
    VT_CHECK_EQ("pitch NULL", cudaMallocPitch(&p, NULL, 100, 10), cudaErrorInvalidValue);
    VT_CHECK_EQ("pitch width 0", cudaMallocPitch(&p, &pitch, 0, 10), cudaErrorInvalidValue);

    struct cudaPitchedPtr pp;
    struct cudaExtent extent = {100, 10, 3};
    memset(&pp, 0, sizeof pp);
    size_t before = free_bytes();
    VT_CHECK_EQ("3D", cudaMalloc3D(&pp, extent), cudaSuccess);
    VT_CHECK("3D pointer", pp.ptr != NULL);
    VT_CHECK_EQ("3D pitch", pp.pitch, 512);
    VT_CHECK_EQ("3D xsize", pp.xsize, 100);
    VT_CHECK_EQ("3D ysize", pp.ysize, 10);
    VT_CHECK_EQ("3D charged", before - free_bytes(), 512 * 10 * 3);
    VT_CHECK_EQ("3D NULL", cudaMalloc3D(NULL, extent), cudaErrorInvalidValue);
    VT_CHECK_EQ("free 3D", cudaFree(pp.ptr), cudaSuccess);

    struct cudaChannelFormatDesc f1 = {32, 0, 0, 0, cudaChannelFormatKindFloat};
    cudaArray_t arr = NULL;
    before = free_bytes();
    VT_CHECK_EQ("array", cudaMallocArray(&arr, &f1, 100, 10, cudaArrayDefault), cudaSuccess);
    VT_CHECK("array handle", arr != NULL);
    VT_CHECK_EQ("array charged", before - free_bytes(), 512 * 10);
    VT_CHECK_EQ("free array", cudaFreeArray(arr), cudaSuccess);
    VT_CHECK_EQ("array freed", free_bytes(), before);
    VT_CHECK_EQ("double free array", cudaFreeArray(arr), cudaErrorInvalidResourceHandle);
    VT_CHECK_EQ("free NULL array", cudaFreeArray(NULL), cudaSuccess);

    struct cudaChannelFormatDesc u4 = {8, 8, 8, 8, cudaChannelFormatKindUnsigned};
    VT_CHECK_EQ("uchar4 array", cudaMallocArray(&arr, &u4, 64, 0, 0), cudaSuccess);
    VT_CHECK_EQ("1D uchar4 charged", before - free_bytes(), 512);
    VT_CHECK_EQ("free uchar4", cudaFreeArray(arr), cudaSuccess);

    const struct cudaChannelFormatDesc bad[] = {
        {32, 0, 32, 0, cudaChannelFormatKindFloat},  /* a gap */
        {24, 0, 0, 0, cudaChannelFormatKindSigned},  /* no 24-bit format */
        {8, 8, 8, 0, cudaChannelFormatKindUnsigned}, /* three channels */
        {16, 8, 0, 0, cudaChannelFormatKindSigned},  /* mixed sizes */
        {64, 0, 0, 0, cudaChannelFormatKindFloat},   /* no double format */
        {8, 0, 0, 0, cudaChannelFormatKindNone},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        arr = (cudaArray_t)SENTINEL;
        VT_CHECK_EQ("bad channel descriptor", cudaMallocArray(&arr, &bad[i], 16, 16, 0),
                    cudaErrorInvalidChannelDescriptor);
        VT_CHECK("array untouched", arr == (cudaArray_t)SENTINEL);
    }
    VT_CHECK_EQ("array NULL desc", cudaMallocArray(&arr, NULL, 16, 16, 0), cudaErrorInvalidValue);
    VT_CHECK_EQ("array width 0", cudaMallocArray(&arr, &f1, 0, 16, 0), cudaErrorInvalidValue);
    VT_CHECK_EQ("array too big", cudaMallocArray(&arr, &f1, 1 << 20, 1 << 20, 0),
                cudaErrorMemoryAllocation);
    expect_last_error("array OOM recorded", cudaErrorMemoryAllocation);

    VT_CHECK_EQ("free pitched", cudaFree(p), cudaSuccess);
}

static void test_copies(void)
{
    unsigned char src[4096], back[4096], host2[4096];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i * 7 + 3);
    void *d1 = NULL, *d2 = NULL;
    VT_CHECK_EQ("d1", cudaMalloc(&d1, sizeof src), cudaSuccess);
    VT_CHECK_EQ("d2", cudaMalloc(&d2, sizeof src), cudaSuccess);
    VT_CHECK_EQ("HtoD", cudaMemcpy(d1, src, sizeof src, cudaMemcpyHostToDevice), cudaSuccess);
    VT_CHECK_EQ("DtoD", cudaMemcpy(d2, d1, sizeof src, cudaMemcpyDeviceToDevice), cudaSuccess);
    memset(back, 0, sizeof back);
    VT_CHECK_EQ("DtoH", cudaMemcpy(back, d2, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
    VT_CHECK("round trip", memcmp(src, back, sizeof src) == 0);

    memset(back, 0, sizeof back);
    VT_CHECK_EQ("default kind in", cudaMemcpy(d1, src + 1, 100, cudaMemcpyDefault), cudaSuccess);
    VT_CHECK_EQ("default kind out", cudaMemcpy(back, d1, 100, cudaMemcpyDefault), cudaSuccess);
    VT_CHECK("default round trip", memcmp(src + 1, back, 100) == 0);
    VT_CHECK_EQ("HtoH", cudaMemcpy(host2, src, sizeof src, cudaMemcpyHostToHost), cudaSuccess);
    VT_CHECK("HtoH copied", memcmp(src, host2, sizeof src) == 0);

    VT_CHECK_EQ("memset", cudaMemset(d1, 0x5a, 100), cudaSuccess);
    VT_CHECK_EQ("memset back", cudaMemcpy(back, d1, 101, cudaMemcpyDeviceToHost), cudaSuccess);
    VT_CHECK("memset bytes", back[0] == 0x5a && back[99] == 0x5a && back[100] == src[100]);
    VT_CHECK_EQ("memset int value keeps the low byte", cudaMemset(d1, 0x1ff, 1), cudaSuccess);
    VT_CHECK_EQ("memset back", cudaMemcpy(back, d1, 1, cudaMemcpyDeviceToHost), cudaSuccess);
    VT_CHECK_EQ("low byte", back[0], 0xff);

    VT_CHECK_EQ("bad kind", cudaMemcpy(d1, src, 16, (enum cudaMemcpyKind)7),
                cudaErrorInvalidMemcpyDirection);
    expect_last_error("bad kind recorded", cudaErrorInvalidMemcpyDirection);
    VT_CHECK_EQ("past the end", cudaMemcpy(d1, src, sizeof src + 1, cudaMemcpyHostToDevice),
                cudaErrorInvalidValue);

    cudaStream_t s = NULL;
    VT_CHECK_EQ("stream", cudaStreamCreate(&s), cudaSuccess);
    memset(back, 0, sizeof back);
    VT_CHECK_EQ("async HtoD", cudaMemcpyAsync(d2, src + 5, 256, cudaMemcpyHostToDevice, s),
                cudaSuccess);
    VT_CHECK_EQ("async DtoD", cudaMemcpyAsync(d1, d2, 256, cudaMemcpyDeviceToDevice, s),
                cudaSuccess);
    VT_CHECK_EQ("async DtoH", cudaMemcpyAsync(back, d1, 256, cudaMemcpyDeviceToHost, s),
                cudaSuccess);
    VT_CHECK_EQ("async default", cudaMemcpyAsync(host2, back, 256, cudaMemcpyDefault, s),
                cudaSuccess);
    VT_CHECK_EQ("sync", cudaStreamSynchronize(s), cudaSuccess);
    VT_CHECK("async round trip", memcmp(src + 5, host2, 256) == 0);
    VT_CHECK_EQ("async bad kind", cudaMemcpyAsync(d1, src, 1, (enum cudaMemcpyKind)9, s),
                cudaErrorInvalidMemcpyDirection);
    VT_CHECK_EQ("destroy", cudaStreamDestroy(s), cudaSuccess);
    VT_CHECK_EQ("async on a destroyed stream",
                cudaMemcpyAsync(d1, src, 1, cudaMemcpyHostToDevice, s),
                cudaErrorInvalidResourceHandle);
    VT_CHECK_EQ("async DtoD on a destroyed stream",
                cudaMemcpyAsync(d1, d2, 1, cudaMemcpyDeviceToDevice, s),
                cudaErrorInvalidResourceHandle);
    expect_last_error("bad stream recorded", cudaErrorInvalidResourceHandle);

    VT_CHECK_EQ("free d1", cudaFree(d1), cudaSuccess);
    VT_CHECK_EQ("free d2", cudaFree(d2), cudaSuccess);
    VT_CHECK_EQ("copy from freed", cudaMemcpy(back, d1, 16, cudaMemcpyDeviceToHost),
                cudaErrorInvalidValue);
    VT_CHECK_EQ("memset freed", cudaMemset(d1, 0, 16), cudaErrorInvalidValue);
    expect_last_error("freed recorded", cudaErrorInvalidValue);
}

static void test_managed_and_pinned(void)
{
    size_t start = free_bytes();
    unsigned char back[64];

    char *m = NULL;
    VT_CHECK_EQ("managed", cudaMallocManaged((void **)&m, 4096, cudaMemAttachGlobal), cudaSuccess);
    VT_CHECK("managed pointer", m != NULL);
    memset(m, 0x33, 4096); /* host-writable */
    VT_CHECK_EQ("managed readable as device memory",
                cudaMemcpy(back, m + 100, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
    VT_CHECK("managed bytes", back[0] == 0x33 && back[63] == 0x33);
    VT_CHECK_EQ("managed not charged to the device", free_bytes(), start);
    VT_CHECK_EQ("managed free", cudaFree(m), cudaSuccess);
    VT_CHECK_EQ("managed attach host", cudaMallocManaged((void **)&m, 64, cudaMemAttachHost),
                cudaSuccess);
    VT_CHECK_EQ("managed free", cudaFree(m), cudaSuccess);
    VT_CHECK_EQ("managed bad flags", cudaMallocManaged((void **)&m, 64, 0), cudaErrorInvalidValue);
    VT_CHECK_EQ("managed 0 bytes", cudaMallocManaged((void **)&m, 0, cudaMemAttachGlobal),
                cudaErrorInvalidValue);
    VT_CHECK_EQ("managed NULL", cudaMallocManaged(NULL, 64, cudaMemAttachGlobal),
                cudaErrorInvalidValue);

    char *h = NULL;
    void *d = NULL;
    VT_CHECK_EQ("pinned", cudaMallocHost((void **)&h, 4096), cudaSuccess);
    memset(h, 0x44, 4096);
    VT_CHECK_EQ("d", cudaMalloc(&d, 4096), cudaSuccess);
    VT_CHECK_EQ("from pinned", cudaMemcpy(d, h, 4096, cudaMemcpyHostToDevice), cudaSuccess);
    VT_CHECK_EQ("back", cudaMemcpy(back, (char *)d + 4000, 64, cudaMemcpyDeviceToHost),
                cudaSuccess);
    VT_CHECK("pinned bytes", back[0] == 0x44 && back[63] == 0x44);
    VT_CHECK_EQ("free d", cudaFree(d), cudaSuccess);
    VT_CHECK_EQ("pinned not charged", free_bytes(), start);
    VT_CHECK_EQ("free pinned", cudaFreeHost(h), cudaSuccess);
    VT_CHECK_EQ("double free pinned", cudaFreeHost(h), cudaErrorInvalidValue);
    VT_CHECK_EQ("free NULL pinned", cudaFreeHost(NULL), cudaSuccess);
    VT_CHECK_EQ("pinned NULL", cudaMallocHost(NULL, 64), cudaErrorInvalidValue);
    VT_CHECK_EQ("pinned is not device memory", cudaMallocHost((void **)&h, 64), cudaSuccess);
    VT_CHECK_EQ("cudaFree of pinned", cudaFree(h), cudaErrorInvalidValue);
    VT_CHECK_EQ("free pinned", cudaFreeHost(h), cudaSuccess);

    VT_CHECK_EQ("host alloc",
                cudaHostAlloc((void **)&h, 4096, cudaHostAllocMapped | cudaHostAllocPortable),
                cudaSuccess);
    h[4095] = 1;
    VT_CHECK_EQ("free host alloc", cudaFreeHost(h), cudaSuccess);
    VT_CHECK_EQ("host alloc write-combined",
                cudaHostAlloc((void **)&h, 64, cudaHostAllocWriteCombined), cudaSuccess);
    VT_CHECK_EQ("free host alloc", cudaFreeHost(h), cudaSuccess);
    VT_CHECK_EQ("host alloc bad flags", cudaHostAlloc((void **)&h, 64, 0x100),
                cudaErrorInvalidValue);
    VT_CHECK_EQ("host alloc NULL", cudaHostAlloc(NULL, 64, 0), cudaErrorInvalidValue);

    static char buf[8192];
    VT_CHECK_EQ("register", cudaHostRegister(buf, sizeof buf, cudaHostRegisterDefault),
                cudaSuccess);
    VT_CHECK_EQ("register twice", cudaHostRegister(buf + 100, 100, cudaHostRegisterPortable),
                cudaErrorHostMemoryAlreadyRegistered);
    VT_CHECK_EQ("unregister", cudaHostUnregister(buf), cudaSuccess);
    VT_CHECK_EQ("unregister twice", cudaHostUnregister(buf), cudaErrorHostMemoryNotRegistered);
    expect_last_error("713 recorded", cudaErrorHostMemoryNotRegistered);
    VT_CHECK_EQ("register NULL", cudaHostRegister(NULL, 64, 0), cudaErrorInvalidValue);
    VT_CHECK_EQ("register mapped read-only",
                cudaHostRegister(buf, 64, cudaHostRegisterMapped | cudaHostRegisterReadOnly),
                cudaSuccess);
    VT_CHECK_EQ("unregister", cudaHostUnregister(buf), cudaSuccess);
    VT_CHECK_EQ("nothing left charged", free_bytes(), start);
}

static void test_stream_ordered(void)
{
    size_t start = free_bytes();
    void *p = SENTINEL, *q = SENTINEL;
    VT_CHECK_EQ("async", cudaMallocAsync(&p, T_RT_MIB, 0), cudaSuccess);
    VT_CHECK_EQ("pool reserves 2 MiB", start - free_bytes(), 2 * T_RT_MIB);
    VT_CHECK_EQ("async ptsz", cudaMallocAsync_ptsz(&q, T_RT_MIB, cudaStreamPerThread), cudaSuccess);
    VT_CHECK("distinct", p != q && q != SENTINEL);
    VT_CHECK_EQ("still 2 MiB", start - free_bytes(), 2 * T_RT_MIB);
    VT_CHECK_EQ("free async", cudaFreeAsync(p, 0), cudaSuccess);
    VT_CHECK_EQ("free async ptsz", cudaFreeAsync_ptsz(q, cudaStreamPerThread), cudaSuccess);
    VT_CHECK_EQ("reservation kept until a sync", start - free_bytes(), 2 * T_RT_MIB);
    VT_CHECK_EQ("sync", cudaDeviceSynchronize(), cudaSuccess);
    VT_CHECK_EQ("released at the sync", free_bytes(), start);
    VT_CHECK_EQ("free async twice", cudaFreeAsync(p, 0), cudaErrorInvalidValue);
    VT_CHECK_EQ("async NULL", cudaMallocAsync(NULL, 64, 0), cudaErrorInvalidValue);
    VT_CHECK_EQ("async ptsz NULL", cudaMallocAsync_ptsz(NULL, 64, 0), cudaErrorInvalidValue);
    VT_CHECK_EQ("async 0 bytes", cudaMallocAsync(&p, 0, 0), cudaErrorInvalidValue);
    VT_CHECK_EQ("async OOM", cudaMallocAsync(&p, 2 * CAPACITY_BYTES, 0), cudaErrorMemoryAllocation);
    expect_last_error("async OOM recorded", cudaErrorMemoryAllocation);

    cudaStream_t s = NULL;
    VT_CHECK_EQ("stream", cudaStreamCreate(&s), cudaSuccess);
    VT_CHECK_EQ("destroy", cudaStreamDestroy(s), cudaSuccess);
    VT_CHECK_EQ("async on a destroyed stream", cudaMallocAsync(&p, 64, s),
                cudaErrorInvalidResourceHandle);
    VT_CHECK_EQ("free async on a destroyed stream", cudaFreeAsync_ptsz(p, s),
                cudaErrorInvalidResourceHandle);

    cudaMemPool_t pool = NULL;
    VT_CHECK_EQ("default pool", cudaDeviceGetDefaultMemPool(&pool, 0), cudaSuccess);
    VT_CHECK("pool handle", pool != NULL);
    VT_CHECK_EQ("default pool bad device", cudaDeviceGetDefaultMemPool(&pool, 7),
                cudaErrorInvalidDevice);
    VT_CHECK_EQ("default pool NULL", cudaDeviceGetDefaultMemPool(NULL, 0), cudaErrorInvalidValue);
    VT_CHECK_EQ("from pool", cudaMallocFromPoolAsync(&p, 3 * T_RT_MIB, pool, 0), cudaSuccess);
    VT_CHECK_EQ("from pool ptsz", cudaMallocFromPoolAsync_ptsz(&q, 512, pool, cudaStreamPerThread),
                cudaSuccess);
    VT_CHECK_EQ("pool grew to 4 MiB", start - free_bytes(), 4 * T_RT_MIB);
    VT_CHECK_EQ("from pool NULL", cudaMallocFromPoolAsync(NULL, 64, pool, 0),
                cudaErrorInvalidValue);
    VT_CHECK_EQ("from a bad pool", cudaMallocFromPoolAsync(&p, 64, (cudaMemPool_t)SENTINEL, 0),
                cudaErrorInvalidValue);
    VT_CHECK_EQ("free", cudaFreeAsync(p, 0), cudaSuccess);
    VT_CHECK_EQ("free", cudaFreeAsync(q, 0), cudaSuccess);
    VT_CHECK_EQ("trim keeps 2 MiB", cudaMemPoolTrimTo(pool, 2 * T_RT_MIB), cudaSuccess);
    VT_CHECK_EQ("trimmed to 2 MiB", start - free_bytes(), 2 * T_RT_MIB);
    VT_CHECK_EQ("trim to 0", cudaMemPoolTrimTo(pool, 0), cudaSuccess);
    VT_CHECK_EQ("trimmed", free_bytes(), start);
    VT_CHECK_EQ("trim a bad pool", cudaMemPoolTrimTo((cudaMemPool_t)SENTINEL, 0),
                cudaErrorInvalidValue);
    expect_last_error("bad pool recorded", cudaErrorInvalidValue);
}

static void test_streams_and_events(void)
{
    cudaStream_t s = NULL;
    cudaEvent_t ev = NULL;
    VT_CHECK_EQ("stream", cudaStreamCreate(&s), cudaSuccess);
    VT_CHECK_EQ("event", cudaEventCreate(&ev), cudaSuccess);
    VT_CHECK_EQ("record", cudaEventRecord(ev, s), cudaSuccess);
    VT_CHECK_EQ("record default stream", cudaEventRecord(ev, 0), cudaSuccess);
    VT_CHECK_EQ("event sync", cudaEventSynchronize(ev), cudaSuccess);
    VT_CHECK_EQ("stream sync", cudaStreamSynchronize(s), cudaSuccess);
    VT_CHECK_EQ("default stream sync", cudaStreamSynchronize(0), cudaSuccess);
    VT_CHECK_EQ("device sync", cudaDeviceSynchronize(), cudaSuccess);
    VT_CHECK_EQ("stream destroy", cudaStreamDestroy(s), cudaSuccess);
    VT_CHECK_EQ("record on a destroyed stream", cudaEventRecord(ev, s),
                cudaErrorInvalidResourceHandle);
    VT_CHECK_EQ("sync a destroyed stream", cudaStreamSynchronize(s),
                cudaErrorInvalidResourceHandle);
    VT_CHECK_EQ("stream destroy twice", cudaStreamDestroy(s), cudaErrorInvalidResourceHandle);
    VT_CHECK_EQ("event destroy", cudaEventDestroy(ev), cudaSuccess);
    VT_CHECK_EQ("event destroy twice", cudaEventDestroy(ev), cudaErrorInvalidResourceHandle);
    VT_CHECK_EQ("sync a destroyed event", cudaEventSynchronize(ev), cudaErrorInvalidResourceHandle);
    expect_last_error("bad handle recorded", cudaErrorInvalidResourceHandle);
    VT_CHECK_EQ("stream NULL", cudaStreamCreate(NULL), cudaErrorInvalidValue);
    VT_CHECK_EQ("event NULL", cudaEventCreate(NULL), cudaErrorInvalidValue);
}

static void test_entry_points(void)
{
    void *fn = SENTINEL;
    enum cudaDriverEntryPointQueryResult st = (enum cudaDriverEntryPointQueryResult)7;
    void *want = dlsym(dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD), "cuMemFree_v2");
    VT_CHECK_EQ("by version", cudaGetDriverEntryPointByVersion("cuMemFree", &fn, 12000, 0, &st),
                cudaSuccess);
    VT_CHECK("cuMemFree_v2", fn == want && want != NULL);
    VT_CHECK_EQ("status", st, cudaDriverEntryPointSuccess);
    fn = SENTINEL;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    VT_CHECK_EQ("runtime version", cudaGetDriverEntryPoint("cuMemFree", &fn, 0, NULL), cudaSuccess);
    VT_CHECK("cuMemFree_v2 at 13000", fn == want);
    fn = SENTINEL;
    VT_CHECK_EQ("ptsz twin", cudaGetDriverEntryPoint_ptsz("cuMemFree", &fn, 0, &st), cudaSuccess);
    VT_CHECK("cuMemFree_v2 ptsz", fn == want);
    VT_CHECK_EQ("NULL symbol", cudaGetDriverEntryPoint(NULL, &fn, 0, &st), cudaErrorInvalidValue);
#pragma GCC diagnostic pop
    fn = SENTINEL;
    VT_CHECK_EQ("by version ptsz",
                cudaGetDriverEntryPointByVersion_ptsz("cuMemFree", &fn, 12000, 0, &st),
                cudaSuccess);
    VT_CHECK("cuMemFree_v2 by version ptsz", fn == want);
    expect_last_error("NULL symbol recorded", cudaErrorInvalidValue);
}

static void test_devices(void)
{
    int n = -1, d = -1;
    VT_CHECK_EQ("count", cudaGetDeviceCount(&n), cudaSuccess);
    VT_CHECK_EQ("two devices", n, 2);
    VT_CHECK_EQ("count NULL", cudaGetDeviceCount(NULL), cudaErrorInvalidValue);
    VT_CHECK_EQ("device", cudaGetDevice(&d), cudaSuccess);
    VT_CHECK_EQ("device 0 by default", d, 0);
    VT_CHECK_EQ("device NULL", cudaGetDevice(NULL), cudaErrorInvalidValue);
    VT_CHECK_EQ("set 2", cudaSetDevice(2), cudaErrorInvalidDevice);
    VT_CHECK_EQ("set -1", cudaSetDevice(-1), cudaErrorInvalidDevice);
    VT_CHECK_EQ("unchanged", cudaGetDevice(&d), cudaSuccess);
    VT_CHECK_EQ("still 0", d, 0);
    expect_last_error("invalid device recorded", cudaErrorInvalidDevice);

    struct cudaDeviceProp prop;
    memset(&prop, 0xab, sizeof prop);
    VT_CHECK_EQ("1008 bytes", sizeof prop, 1008);
    VT_CHECK_EQ("properties", cudaGetDeviceProperties(&prop, 1), cudaSuccess);
    VT_CHECK("name", strcmp(prop.name, "vramtrace simulated GPU") == 0);
    VT_CHECK_EQ("totalGlobalMem", prop.totalGlobalMem, CAPACITY_BYTES);
    VT_CHECK_EQ("warpSize", prop.warpSize, 32);
    VT_CHECK_EQ("maxThreadsPerBlock", prop.maxThreadsPerBlock, 1024);
    VT_CHECK_EQ("major", prop.major, 9);
    VT_CHECK_EQ("minor", prop.minor, 0);
    VT_CHECK_EQ("multiProcessorCount", prop.multiProcessorCount, 132);
    VT_CHECK_EQ("sharedMemPerBlock", prop.sharedMemPerBlock, 49152);
    VT_CHECK_EQ("totalConstMem", prop.totalConstMem, 65536);
    VT_CHECK_EQ("integrated", prop.integrated, 0);
    VT_CHECK_EQ("canMapHostMemory", prop.canMapHostMemory, 1);
    VT_CHECK_EQ("regsPerBlock", prop.regsPerBlock, 65536);
    size_t tail = 56 * sizeof(int), nonzero = 0; /* the reserved ints at the end */
    for (size_t i = sizeof prop - tail; i < sizeof prop; i++)
        nonzero += ((unsigned char *)&prop)[i] != 0;
    VT_CHECK_EQ("the reserved tail zeroed", nonzero, 0);
    VT_CHECK_EQ("properties bad device", cudaGetDeviceProperties(&prop, 2), cudaErrorInvalidDevice);
    VT_CHECK_EQ("properties NULL", cudaGetDeviceProperties(NULL, 0), cudaErrorInvalidValue);
    expect_last_error("properties NULL recorded", cudaErrorInvalidValue);
}

static void *thread_device(void *arg)
{
    (void)arg;
    int d = -1;
    cudaGetDevice(&d);
    return (void *)(uintptr_t)(d + 1);
}

/* Two devices: allocations land on the thread's current device, each device has its own
 * capacity, a new thread starts on device 0, and cudaDeviceReset frees only its device. */
static void test_device_switching(void)
{
    size_t start0 = free_bytes();
    void *p0 = NULL, *p1 = NULL;
    VT_CHECK_EQ("on 0", cudaMalloc(&p0, 4 * T_RT_MIB), cudaSuccess);
    VT_CHECK_EQ("set 1", cudaSetDevice(1), cudaSuccess);
    int d = -1;
    VT_CHECK_EQ("device", cudaGetDevice(&d), cudaSuccess);
    VT_CHECK_EQ("now 1", d, 1);
    VT_CHECK_EQ("device 1 untouched", free_bytes(), CAPACITY_BYTES);
    VT_CHECK_EQ("on 1", cudaMalloc(&p1, 8 * T_RT_MIB), cudaSuccess);
    VT_CHECK_EQ("device 1 charged", CAPACITY_BYTES - free_bytes(), 8 * T_RT_MIB);
    VT_CHECK("different address ranges", p0 != p1);

    pthread_t t;
    void *got = NULL;
    pthread_create(&t, NULL, thread_device, NULL);
    pthread_join(t, &got);
    VT_CHECK("a new thread starts on device 0", got == (void *)1);

    VT_CHECK_EQ("reset 1", cudaDeviceReset(), cudaSuccess);
    VT_CHECK_EQ("device 1 memory gone", free_bytes(), CAPACITY_BYTES);
    VT_CHECK_EQ("freeing after reset", cudaFree(p1), cudaErrorInvalidValue);
    VT_CHECK_EQ("usable again", cudaMalloc(&p1, T_RT_MIB), cudaSuccess);
    VT_CHECK_EQ("free", cudaFree(p1), cudaSuccess);

    VT_CHECK_EQ("back to 0", cudaSetDevice(0), cudaSuccess);
    VT_CHECK_EQ("device 0 kept its allocation", start0 - free_bytes(), 4 * T_RT_MIB);
    VT_CHECK_EQ("free on 0", cudaFree(p0), cudaSuccess);
    VT_CHECK_EQ("device 0 back", free_bytes(), start0);
    expect_last_error("free after reset recorded", cudaErrorInvalidValue);
}

static char fake_fatbin[16];
static volatile int n_host_calls;
/* Different bodies, so that no identical-code folding can give them one address. */
static void fake_kernel(void)
{
    n_host_calls += 1;
}
static void not_a_kernel(void)
{
    n_host_calls += 2;
}

/* What nvcc's host stubs do: register, push a configuration, pop it, get the kernel handle,
 * launch; and cudaLaunchKernel with the host function. */
static void test_launches(void)
{
    dim3 one = {1, 1, 1}, big_block = {2048, 1, 1}, zero = {0, 1, 1};
    void *args[1] = {NULL};
    VT_CHECK_EQ("unregistered", cudaLaunchKernel((const void *)fake_kernel, one, one, args, 0, 0),
                cudaErrorInvalidDeviceFunction);
    expect_last_error("unregistered recorded", cudaErrorInvalidDeviceFunction);

    void **h = __cudaRegisterFatBinary(fake_fatbin);
    VT_CHECK("module handle", h != NULL && *h == (void *)fake_fatbin);
    __cudaRegisterFunction(h, (const char *)fake_kernel, (char *)"_Z11fake_kernelv",
                           "_Z11fake_kernelv", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterVar(h, fake_fatbin, (char *)"dev_var", "dev_var", 0, 4, 0, 0);
    __cudaRegisterFatBinaryEnd(h);
    VT_CHECK_EQ("init module", __cudaInitModule(h), 1);

    VT_CHECK_EQ("launch", cudaLaunchKernel((const void *)fake_kernel, one, one, args, 0, 0),
                cudaSuccess);
    VT_CHECK_EQ(
        "launch ptsz",
        cudaLaunchKernel_ptsz((const void *)fake_kernel, one, one, args, 0, cudaStreamPerThread),
        cudaSuccess);
    VT_CHECK_EQ("block too big",
                cudaLaunchKernel((const void *)fake_kernel, one, big_block, args, 0, 0),
                T_RT_ERROR_INVALID_CONFIGURATION);
    VT_CHECK_EQ("empty grid", cudaLaunchKernel((const void *)fake_kernel, zero, one, args, 0, 0),
                T_RT_ERROR_INVALID_CONFIGURATION);
    expect_last_error("bad configuration recorded", T_RT_ERROR_INVALID_CONFIGURATION);
    VT_CHECK_EQ("not a kernel", cudaLaunchKernel((const void *)not_a_kernel, one, one, args, 0, 0),
                cudaErrorInvalidDeviceFunction);

    dim3 g = {4, 2, 1}, b = {128, 1, 1}, g2, b2;
    size_t shared = 0;
    cudaStream_t stream = NULL;
    VT_CHECK_EQ("push", __cudaPushCallConfiguration(g, b, 256, cudaStreamPerThread), 0);
    VT_CHECK_EQ("pop", __cudaPopCallConfiguration(&g2, &b2, &shared, &stream), cudaSuccess);
    VT_CHECK("popped what was pushed", g2.x == 4 && g2.y == 2 && b2.x == 128 && shared == 256 &&
                                           stream == cudaStreamPerThread);
    VT_CHECK_EQ("pop empty", __cudaPopCallConfiguration(&g2, &b2, &shared, &stream),
                cudaErrorMissingConfiguration);
    expect_last_error("pop empty recorded", cudaErrorMissingConfiguration);

    cudaKernel_t k = NULL;
    VT_CHECK_EQ("get kernel", __cudaGetKernel(&k, (const void *)fake_kernel), cudaSuccess);
    VT_CHECK("kernel handle", k != NULL);
    VT_CHECK_EQ("launch handle", __cudaLaunchKernel(k, g, b, args, 0, 0), cudaSuccess);
    VT_CHECK_EQ("launch handle ptsz", __cudaLaunchKernel_ptsz(k, g, b, args, 0, 0), cudaSuccess);
    cudaStream_t s = NULL;
    cudaStreamCreate(&s);
    VT_CHECK_EQ("launch on a stream", __cudaLaunchKernel(k, g, b, args, 0, s), cudaSuccess);
    cudaStreamDestroy(s);
    VT_CHECK_EQ("launch on a destroyed stream", __cudaLaunchKernel(k, g, b, args, 0, s),
                cudaErrorInvalidResourceHandle);
    VT_CHECK_EQ("get kernel of a host function", __cudaGetKernel(&k, (const void *)not_a_kernel),
                cudaErrorInvalidDeviceFunction);
    VT_CHECK_EQ("get kernel NULL", __cudaGetKernel(NULL, (const void *)fake_kernel),
                cudaErrorInvalidValue);
    VT_CHECK_EQ("launch a bogus handle",
                __cudaLaunchKernel((cudaKernel_t)SENTINEL, g, b, args, 0, 0),
                cudaErrorInvalidDeviceFunction);
    expect_last_error("bogus handle recorded", cudaErrorInvalidDeviceFunction);

    __cudaUnregisterFatBinary(h);
    VT_CHECK_EQ("unregistered again",
                cudaLaunchKernel((const void *)fake_kernel, one, one, args, 0, 0),
                cudaErrorInvalidDeviceFunction);
    expect_last_error("after unregister recorded", cudaErrorInvalidDeviceFunction);
}

int main(void)
{
    VT_CHECK("the simulated libcudart.so.13 is loaded", t_rt_sim_runtime_loaded());
    test_versions_and_errors();
    test_last_error();
    test_last_error_per_thread();
    test_device_memory();
    test_pitched_and_arrays();
    test_copies();
    test_managed_and_pinned();
    test_stream_ordered();
    test_streams_and_events();
    test_entry_points();
    test_devices();
    test_device_switching();
    test_launches();
    VT_CHECK_EQ("everything freed", free_bytes(), CAPACITY_BYTES);
    VT_CHECK_EQ("reset 0", cudaDeviceReset(), cudaSuccess);
    VT_CHECK_EQ("clean end", cudaGetLastError(), cudaSuccess);
    return vt_test_done();
}

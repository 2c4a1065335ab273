/* SPDX-License-Identifier: MIT */
/* Pass-through, runtime side: every runtime hook of src/hooks.def through the simulated
 * libcudart.so.13, on success and error paths (NULL out-pointers, zero sizes, bad flags and
 * descriptors, unknown and double frees, invalid streams and pools, out of memory on a 64 MiB
 * device, bad entry-point requests). Each transcript line also carries cudaPeekAtLastError
 * and cudaGetLastError after the call: the hooks must make no runtime call of their own that
 * would change the thread's error state. passthru.sh requires the same transcript with and
 * without libvramtrace.so. */
#include <stdint.h>
#include "cap_transcript.h"
#include "t_rt_common.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

static unsigned char registered[64 * KiB] __attribute__((aligned(4096)));
static cudaStream_t bad_stream = (cudaStream_t)&registered[8];

/* Ends a runtime call's line with the thread's error state, peeked then consumed. */
static void rt_end(void)
{
    int peek = (int)cudaPeekAtLastError();
    int last = (int)cudaGetLastError();
    printf(" peek=%d last=%d\n", peek, last);
}

static void device_memory(void)
{
    void *p = CAP_SENTINEL, *q = CAP_SENTINEL;
    size_t pitch = 7;
    CAP_CALL("cudaMalloc 1 MiB", cudaMalloc(&p, MiB));
    cap_num("ptr", (uintptr_t)p);
    rt_end();
    CAP_CALL("cudaMalloc 0", cudaMalloc(&q, 0));
    cap_ptr("ptr", q);
    rt_end();
    q = CAP_SENTINEL;
    CAP_CALL("cudaMalloc NULL", cudaMalloc(NULL, MiB));
    rt_end();
    CAP_CALL("cudaMalloc OOM", cudaMalloc(&q, 128 * MiB));
    cap_ptr("ptr", q);
    rt_end();
    CAP_CALL("cudaMallocPitch", cudaMallocPitch(&q, &pitch, 1000, 10));
    cap_num("ptr", (uintptr_t)q);
    cap_num("pitch", pitch);
    rt_end();
    CAP_CALL("cudaFree pitched", cudaFree(q));
    rt_end();
    q = CAP_SENTINEL;
    CAP_CALL("cudaMallocPitch NULL pitch", cudaMallocPitch(&q, NULL, 1000, 10));
    cap_ptr("ptr", q);
    rt_end();
    CAP_CALL("cudaMallocPitch OOM", cudaMallocPitch(&q, &pitch, 1 << 20, 100));
    cap_ptr("ptr", q);
    rt_end();
    struct cudaPitchedPtr pp = {CAP_SENTINEL, 7, 7, 7};
    struct cudaExtent extent = {300, 4, 3};
    CAP_CALL("cudaMalloc3D", cudaMalloc3D(&pp, extent));
    cap_num("ptr", (uintptr_t)pp.ptr);
    printf(" pitch=%zu xsize=%zu ysize=%zu", pp.pitch, pp.xsize, pp.ysize);
    rt_end();
    CAP_CALL("cudaFree 3D", cudaFree(pp.ptr));
    rt_end();
    CAP_CALL("cudaMalloc3D NULL", cudaMalloc3D(NULL, extent));
    rt_end();
    CAP_CALL("cudaFree", cudaFree(p));
    rt_end();
    CAP_CALL("cudaFree double", cudaFree(p));
    rt_end();
    CAP_CALL("cudaFree NULL", cudaFree(NULL));
    rt_end();
    CAP_CALL("cudaFree host pointer", cudaFree(registered));
    rt_end();
    q = CAP_SENTINEL;
    CAP_CALL("cudaMallocManaged", cudaMallocManaged(&q, 4 * KiB, cudaMemAttachGlobal));
    cap_ptr("ptr", q);
    rt_end();
    CAP_CALL("cudaFree managed", cudaFree(q));
    rt_end();
    q = CAP_SENTINEL;
    CAP_CALL("cudaMallocManaged bad flags", cudaMallocManaged(&q, 4 * KiB, 7));
    cap_ptr("ptr", q);
    rt_end();
    CAP_CALL("cudaMallocManaged NULL", cudaMallocManaged(NULL, 4 * KiB, cudaMemAttachGlobal));
    rt_end();
}

static void arrays(void)
{
    cudaArray_t a = CAP_SENTINEL, x = CAP_SENTINEL;
    struct cudaChannelFormatDesc f32 = {32, 0, 0, 0, cudaChannelFormatKindFloat};
    struct cudaChannelFormatDesc odd = {7, 0, 0, 0, cudaChannelFormatKindUnsigned};
    CAP_CALL("cudaMallocArray", cudaMallocArray(&a, &f32, 100, 10, 0));
    cap_ptr("array", a);
    rt_end();
    CAP_CALL("cudaMallocArray bad desc", cudaMallocArray(&x, &odd, 100, 10, 0));
    cap_ptr("array", x);
    rt_end();
    CAP_CALL("cudaMallocArray NULL desc", cudaMallocArray(&x, NULL, 100, 10, 0));
    cap_ptr("array", x);
    rt_end();
    CAP_CALL("cudaMallocArray width 0", cudaMallocArray(&x, &f32, 0, 10, 0));
    cap_ptr("array", x);
    rt_end();
    CAP_CALL("cudaFreeArray", cudaFreeArray(a));
    rt_end();
    CAP_CALL("cudaFreeArray double", cudaFreeArray(a));
    rt_end();
    CAP_CALL("cudaFreeArray NULL", cudaFreeArray(NULL));
    rt_end();
}

static void pinned(void)
{
    void *p = CAP_SENTINEL, *q = CAP_SENTINEL;
    CAP_CALL("cudaMallocHost", cudaMallocHost(&p, 4 * KiB));
    cap_ptr("ptr", p);
    rt_end();
    CAP_CALL("cudaMallocHost NULL", cudaMallocHost(NULL, 4 * KiB));
    rt_end();
    CAP_CALL("cudaMallocHost 0", cudaMallocHost(&q, 0));
    cap_ptr("ptr", q);
    rt_end();
    q = CAP_SENTINEL;
    CAP_CALL("cudaHostAlloc", cudaHostAlloc(&q, 12 * KiB, cudaHostAllocMapped));
    cap_ptr("ptr", q);
    rt_end();
    void *r = CAP_SENTINEL;
    CAP_CALL("cudaHostAlloc bad flags", cudaHostAlloc(&r, 12 * KiB, 0x80));
    cap_ptr("ptr", r);
    rt_end();
    CAP_CALL("cudaFreeHost", cudaFreeHost(p));
    rt_end();
    CAP_CALL("cudaFreeHost double", cudaFreeHost(p));
    rt_end();
    CAP_CALL("cudaFreeHost NULL", cudaFreeHost(NULL));
    rt_end();
    CAP_CALL("cudaFreeHost host alloc", cudaFreeHost(q));
    rt_end();
    CAP_CALL("cudaHostRegister", cudaHostRegister(registered, sizeof registered, 0));
    rt_end();
    CAP_CALL("cudaHostRegister again", cudaHostRegister(registered, sizeof registered, 0));
    rt_end();
    CAP_CALL("cudaHostRegister NULL", cudaHostRegister(NULL, 4096, 0));
    rt_end();
    CAP_CALL("cudaHostUnregister", cudaHostUnregister(registered));
    rt_end();
    CAP_CALL("cudaHostUnregister again", cudaHostUnregister(registered));
    rt_end();
    CAP_CALL("cudaHostUnregister NULL", cudaHostUnregister(NULL));
    rt_end();
}

static void stream_ordered(void)
{
    cudaMemPool_t pool = NULL;
    void *a = CAP_SENTINEL, *b = CAP_SENTINEL, *c = CAP_SENTINEL, *d = CAP_SENTINEL,
         *x = CAP_SENTINEL;
    cudaDeviceGetDefaultMemPool(&pool, 0);
    CAP_CALL("cudaMallocAsync", cudaMallocAsync(&a, 1000, NULL));
    cap_num("ptr", (uintptr_t)a);
    rt_end();
    CAP_CALL("cudaMallocAsync_ptsz", cudaMallocAsync_ptsz(&b, 3000, NULL));
    cap_num("ptr", (uintptr_t)b);
    rt_end();
    CAP_CALL("cudaMallocFromPoolAsync", cudaMallocFromPoolAsync(&c, 5000, pool, NULL));
    cap_num("ptr", (uintptr_t)c);
    rt_end();
    CAP_CALL("cudaMallocFromPoolAsync_ptsz", cudaMallocFromPoolAsync_ptsz(&d, 7000, pool, NULL));
    cap_num("ptr", (uintptr_t)d);
    rt_end();
    CAP_CALL("cudaMallocAsync bad stream", cudaMallocAsync(&x, 1000, bad_stream));
    cap_ptr("ptr", x);
    rt_end();
    CAP_CALL("cudaMallocAsync 0", cudaMallocAsync(&x, 0, NULL));
    cap_ptr("ptr", x);
    rt_end();
    CAP_CALL("cudaMallocAsync_ptsz NULL", cudaMallocAsync_ptsz(NULL, 1000, NULL));
    rt_end();
    CAP_CALL("cudaMallocAsync OOM", cudaMallocAsync(&x, 128 * MiB, NULL));
    cap_ptr("ptr", x);
    rt_end();
    CAP_CALL("cudaMallocFromPoolAsync NULL pool", cudaMallocFromPoolAsync(&x, 5000, NULL, NULL));
    cap_ptr("ptr", x);
    rt_end();
    CAP_CALL("cudaMallocFromPoolAsync_ptsz 0", cudaMallocFromPoolAsync_ptsz(&x, 0, pool, NULL));
    cap_ptr("ptr", x);
    rt_end();
    CAP_CALL("cudaFreeAsync bad stream", cudaFreeAsync(a, bad_stream));
    rt_end();
    CAP_CALL("cudaFreeAsync", cudaFreeAsync(a, NULL));
    rt_end();
    CAP_CALL("cudaFreeAsync double", cudaFreeAsync(a, NULL));
    rt_end();
    CAP_CALL("cudaFreeAsync_ptsz", cudaFreeAsync_ptsz(b, NULL));
    rt_end();
    CAP_CALL("cudaFreeAsync_ptsz NULL", cudaFreeAsync_ptsz(NULL, NULL));
    rt_end();
    CAP_CALL("cudaFreeAsync pool", cudaFreeAsync(c, NULL));
    rt_end();
    CAP_CALL("cudaFreeAsync_ptsz pool", cudaFreeAsync_ptsz(d, NULL));
    rt_end();
    CAP_CALL("cudaFreeAsync NULL", cudaFreeAsync(NULL, NULL));
    rt_end();
}

static void entry_points(void)
{
    struct {
        const char *symbol;
        unsigned version;
        unsigned long long flags;
    } keys[] = {{"cuMemAlloc", 12000, 0},      {"cuMemAllocAsync", 12000, 2},
                {"cuMemAllocAsync", 11000, 0}, {"cuNoSuchThing", 12000, 0},
                {"cuMemAlloc", 13010, 0},      {"cuMemAlloc", 12000, 4},
                {"cuMemAlloc", 12000, 3},      {"cuGetProcAddress", 11030, 0},
                {"cuMemGetInfo", 3020, 0},     {"cuMemCreate", 12000, 0}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char label[128];
        void *fn;
        enum cudaDriverEntryPointQueryResult st;
        snprintf(label, sizeof label, "cudaGetDriverEntryPointByVersion(%s, %u, %llu)",
                 keys[i].symbol, keys[i].version, keys[i].flags);
        fn = CAP_SENTINEL;
        st = (enum cudaDriverEntryPointQueryResult)7;
        CAP_CALL(label, cudaGetDriverEntryPointByVersion(keys[i].symbol, &fn, keys[i].version,
                                                         keys[i].flags, &st));
        cap_ptr("fn", fn);
        printf(" status=%d", (int)st);
        rt_end();
        snprintf(label, sizeof label, "cudaGetDriverEntryPointByVersion_ptsz(%s, %u, %llu)",
                 keys[i].symbol, keys[i].version, keys[i].flags);
        fn = CAP_SENTINEL;
        st = (enum cudaDriverEntryPointQueryResult)7;
        CAP_CALL(label, cudaGetDriverEntryPointByVersion_ptsz(keys[i].symbol, &fn, keys[i].version,
                                                              keys[i].flags, &st));
        cap_ptr("fn", fn);
        printf(" status=%d", (int)st);
        rt_end();
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        snprintf(label, sizeof label, "cudaGetDriverEntryPoint(%s, %llu)", keys[i].symbol,
                 keys[i].flags);
        fn = CAP_SENTINEL;
        st = (enum cudaDriverEntryPointQueryResult)7;
        CAP_CALL(label, cudaGetDriverEntryPoint(keys[i].symbol, &fn, keys[i].flags, &st));
        cap_ptr("fn", fn);
        printf(" status=%d", (int)st);
        rt_end();
        snprintf(label, sizeof label, "cudaGetDriverEntryPoint_ptsz(%s, %llu)", keys[i].symbol,
                 keys[i].flags);
        fn = CAP_SENTINEL;
        st = (enum cudaDriverEntryPointQueryResult)7;
        CAP_CALL(label, cudaGetDriverEntryPoint_ptsz(keys[i].symbol, &fn, keys[i].flags, &st));
        cap_ptr("fn", fn);
        printf(" status=%d", (int)st);
        rt_end();
    }
    void *fn = CAP_SENTINEL;
    CAP_CALL("cudaGetDriverEntryPoint NULL symbol", cudaGetDriverEntryPoint(NULL, &fn, 0, NULL));
    cap_ptr("fn", fn);
    rt_end();
    CAP_CALL("cudaGetDriverEntryPoint NULL funcPtr",
             cudaGetDriverEntryPoint("cuMemAlloc", NULL, 0, NULL));
    rt_end();
#pragma GCC diagnostic pop
    CAP_CALL("cudaGetDriverEntryPointByVersion NULL symbol",
             cudaGetDriverEntryPointByVersion(NULL, &fn, 12000, 0, NULL));
    cap_ptr("fn", fn);
    rt_end();
    CAP_CALL("cudaGetDriverEntryPointByVersion_ptsz NULL funcPtr",
             cudaGetDriverEntryPointByVersion_ptsz("cuMemAlloc", NULL, 12000, 0, NULL));
    rt_end();
}

int main(void)
{
    device_memory();
    arrays();
    pinned();
    stream_ordered();
    entry_points();
    void *p = CAP_SENTINEL;
    CAP_CALL("cudaDeviceReset", cudaDeviceReset());
    rt_end();
    CAP_CALL("cudaMalloc after reset", cudaMalloc(&p, 512));
    cap_num("ptr", (uintptr_t)p);
    rt_end();
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* Door (4), the runtime: every runtime hook of src/hooks.def called through the simulated
 * libcudart.so.13 (which reaches the driver through the dlsym and cuGetProcAddress doors, so
 * every driver call it makes passes a hook too). Proves each runtime call is exactly one event
 * (allocs/frees/failed in expected/runtime.txt equal the calls made, never the runtime's inner
 * driver calls as well), the runtime sizes (pitch × rows, (x+y+z+w)/8 × width × max(height,1)),
 * cudaMalloc(0)'s NULL counted as a failure, and cudaDeviceReset dropping live memory. */
#include <stdint.h>
#include "cap_rt.h"

#define KiB ((size_t)1 << 10)

static unsigned char registered[64 * KiB] __attribute__((aligned(4096)));

int main(void)
{
    VT_CHECK("the simulated libcudart.so.13 is loaded", cap_sim_runtime_loaded());
    VT_CHECK_EQ("init through cudaFree(NULL)", cudaFree(NULL), cudaSuccess);

    /* device: 1 MiB + 10240 + 6144 + 4000 + 1024 + 1000 + 3000 + 5000 + 7000 = peak 1085984 */
    void *kept = NULL, *zero = (void *)1, *huge = NULL, *pitched = NULL;
    void *a = NULL, *b = NULL, *c = NULL, *d = NULL;
    size_t pitch = 0;
    struct cudaPitchedPtr p3;
    struct cudaExtent extent = {300, 4, 3};
    cudaArray_t arr = NULL, arr1d = NULL;
    struct cudaChannelFormatDesc f32 = {32, 0, 0, 0, cudaChannelFormatKindFloat};
    struct cudaChannelFormatDesc u8x4 = {8, 8, 8, 8, cudaChannelFormatKindUnsigned};
    cudaMemPool_t pool = NULL;
    VT_CHECK_EQ("malloc 1 MiB", cudaMalloc(&kept, 1024 * KiB), cudaSuccess);
    VT_CHECK_EQ("malloc 0: success, NULL", cudaMalloc(&zero, 0), cudaSuccess);
    VT_CHECK("malloc 0 gives NULL", zero == NULL);
    VT_CHECK_EQ("malloc 2 GiB: out of memory", cudaMalloc(&huge, 2048 * 1024 * KiB),
                cudaErrorMemoryAllocation);
    VT_CHECK_EQ("clear", cudaGetLastError(), cudaErrorMemoryAllocation);
    VT_CHECK_EQ("pitch", cudaMallocPitch(&pitched, &pitch, 1000, 10), cudaSuccess);
    VT_CHECK_EQ("pitch 1024", pitch, 1024);
    VT_CHECK_EQ("3D", cudaMalloc3D(&p3, extent), cudaSuccess);
    VT_CHECK_EQ("3D pitch 512", p3.pitch, 512);
    VT_CHECK_EQ("array float 100x10", cudaMallocArray(&arr, &f32, 100, 10, 0), cudaSuccess);
    VT_CHECK_EQ("array uchar4 256", cudaMallocArray(&arr1d, &u8x4, 256, 0, 0), cudaSuccess);
    VT_CHECK_EQ("default pool", cudaDeviceGetDefaultMemPool(&pool, 0), cudaSuccess);
    VT_CHECK_EQ("async", cudaMallocAsync(&a, 1000, NULL), cudaSuccess);
    VT_CHECK_EQ("async ptsz", cudaMallocAsync_ptsz(&b, 3000, NULL), cudaSuccess);
    VT_CHECK_EQ("from pool", cudaMallocFromPoolAsync(&c, 5000, pool, NULL), cudaSuccess);
    VT_CHECK_EQ("from pool ptsz", cudaMallocFromPoolAsync_ptsz(&d, 7000, pool, NULL), cudaSuccess);
    VT_CHECK_EQ("free async", cudaFreeAsync(a, NULL), cudaSuccess);
    VT_CHECK_EQ("free async ptsz", cudaFreeAsync_ptsz(b, NULL), cudaSuccess);
    VT_CHECK_EQ("free async pool", cudaFreeAsync(c, NULL), cudaSuccess);
    VT_CHECK_EQ("cudaFree of a pool allocation", cudaFree(d), cudaSuccess);
    VT_CHECK_EQ("free pitched", cudaFree(pitched), cudaSuccess);
    VT_CHECK_EQ("free 3D", cudaFree(p3.ptr), cudaSuccess);
    VT_CHECK_EQ("free array", cudaFreeArray(arr), cudaSuccess);
    VT_CHECK_EQ("free array 1D", cudaFreeArray(arr1d), cudaSuccess);
    VT_CHECK_EQ("free NULL array: nothing", cudaFreeArray(NULL), cudaSuccess);
    VT_CHECK_EQ("free unknown", cudaFree((char *)kept + 64), cudaErrorInvalidValue);
    VT_CHECK_EQ("clear", cudaGetLastError(), cudaErrorInvalidValue);
    VT_CHECK_EQ("free 1 MiB", cudaFree(kept), cudaSuccess);

    /* pinned: 4 KiB (kept) + 12 KiB + 64 KiB registered = peak 80 KiB. */
    void *host = NULL, *host2 = NULL;
    VT_CHECK_EQ("malloc host 4 KiB", cudaMallocHost(&host, 4 * KiB), cudaSuccess);
    VT_CHECK_EQ("host alloc 12 KiB", cudaHostAlloc(&host2, 12 * KiB, cudaHostAllocMapped),
                cudaSuccess);
    VT_CHECK_EQ("register", cudaHostRegister(registered, sizeof registered, 0), cudaSuccess);
    VT_CHECK_EQ("free host", cudaFreeHost(host2), cudaSuccess);
    VT_CHECK_EQ("free host NULL: nothing", cudaFreeHost(NULL), cudaSuccess);
    VT_CHECK_EQ("unregister", cudaHostUnregister(registered), cudaSuccess);

    /* cudaDeviceReset drops 512 KiB of device and 8 KiB of managed memory. */
    void *m = NULL, *e = NULL;
    VT_CHECK_EQ("managed 8 KiB", cudaMallocManaged(&m, 8 * KiB, cudaMemAttachGlobal), cudaSuccess);
    VT_CHECK_EQ("malloc 512 KiB", cudaMalloc(&e, 512 * KiB), cudaSuccess);
    VT_CHECK_EQ("device reset", cudaDeviceReset(), cudaSuccess);
    VT_CHECK_EQ("clean end", cudaGetLastError(), cudaSuccess);
    return vt_test_done();
}

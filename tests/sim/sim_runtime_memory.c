/* SPDX-License-Identifier: MIT */
/* The simulated CUDA runtime's memory, copy, stream and event APIs: each one makes the thread's
 * primary context current, forwards to the driver entry point the real libcudart 13.0 uses for it
 * (its dynamic imports, nm -D), and maps the result. Runtime-side argument errors are
 * cudaErrorInvalidValue; every failure is recorded as the thread's last error. */
#include <stdint.h>
#include "sim_runtime.h"

/* ---- device memory ----------------------------------------------------------------------- */

/* A zero-byte request succeeds with NULL, as with the real runtime (the driver refuses 0). */
SIM_RT_EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    cudaError_t e = sim_rt_ctx_and_check(!devPtr);
    if (e != cudaSuccess)
        return sim_rt_fail(e);
    if (size == 0) {
        *devPtr = NULL;
        return cudaSuccess;
    }
    CUdeviceptr dptr;
    e = sim_rt_error(sim_rt_cu.cuMemAlloc_v2(&dptr, size));
    if (e == cudaSuccess)
        *devPtr = (void *)(uintptr_t)dptr;
    return sim_rt_fail(e);
}

/* cudaFree(NULL) does nothing but, like every call, initialises the runtime and the context:
 * the classic idiom for forcing that (cuda_runtime_api.h: "If devPtr is 0, no operation"). */
SIM_RT_EXPORT cudaError_t cudaFree(void *devPtr)
{
    cudaError_t e = sim_rt_context();
    if (e == cudaSuccess && devPtr)
        e = sim_rt_error(sim_rt_cu.cuMemFree_v2((CUdeviceptr)(uintptr_t)devPtr));
    return sim_rt_fail(e);
}

/* The driver wants an element size of 4, 8 or 16 and rounds the pitch the same way for each;
 * 4 is the one that accepts every width in bytes. */
#define SIM_RT_PITCH_ELEMENT_BYTES 4u

SIM_RT_EXPORT cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    cudaError_t e = sim_rt_ctx_and_check(!devPtr || !pitch);
    if (e != cudaSuccess)
        return sim_rt_fail(e);
    CUdeviceptr dptr;
    size_t got_pitch;
    e = sim_rt_error(
        sim_rt_cu.cuMemAllocPitch_v2(&dptr, &got_pitch, width, height, SIM_RT_PITCH_ELEMENT_BYTES));
    if (e == cudaSuccess) {
        *devPtr = (void *)(uintptr_t)dptr;
        *pitch = got_pitch;
    }
    return sim_rt_fail(e);
}

/* A pitched allocation of extent.width bytes × height rows × depth slices: one pitched block of
 * height × depth rows. */
SIM_RT_EXPORT cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr,
                                       struct cudaExtent extent)
{
    cudaError_t e = sim_rt_ctx_and_check(!pitchedDevPtr);
    if (e != cudaSuccess)
        return sim_rt_fail(e);
    if (extent.depth && extent.height > SIZE_MAX / extent.depth)
        return sim_rt_fail(cudaErrorMemoryAllocation);
    CUdeviceptr dptr;
    size_t pitch;
    e = sim_rt_error(sim_rt_cu.cuMemAllocPitch_v2(
        &dptr, &pitch, extent.width, extent.height * extent.depth, SIM_RT_PITCH_ELEMENT_BYTES));
    if (e == cudaSuccess) {
        pitchedDevPtr->ptr = (void *)(uintptr_t)dptr;
        pitchedDevPtr->pitch = pitch;
        pitchedDevPtr->xsize = extent.width;
        pitchedDevPtr->ysize = extent.height;
    }
    return sim_rt_fail(e);
}

/* Maps a channel descriptor to the driver's array format: 1, 2 or 4 leading channels of one
 * size; signed and unsigned 8/16/32-bit, half and float. Returns 0 or -1. */
int sim_rt_channel_format(const struct cudaChannelFormatDesc *desc, CUarray_format *format,
                          unsigned *n_channels)
{
    int bits[4] = {desc->x, desc->y, desc->z, desc->w};
    unsigned n = 0;
    while (n < 4 && bits[n] > 0)
        n++;
    for (unsigned i = n; i < 4; i++)
        if (bits[i] != 0)
            return -1; /* a gap, or a negative size */
    for (unsigned i = 1; i < n; i++)
        if (bits[i] != bits[0])
            return -1;
    if (n != 1 && n != 2 && n != 4)
        return -1;
    switch (desc->f) {
    case cudaChannelFormatKindSigned:
        *format = bits[0] == 8    ? CU_AD_FORMAT_SIGNED_INT8
                  : bits[0] == 16 ? CU_AD_FORMAT_SIGNED_INT16
                  : bits[0] == 32 ? CU_AD_FORMAT_SIGNED_INT32
                                  : (CUarray_format)0;
        break;
    case cudaChannelFormatKindUnsigned:
        *format = bits[0] == 8    ? CU_AD_FORMAT_UNSIGNED_INT8
                  : bits[0] == 16 ? CU_AD_FORMAT_UNSIGNED_INT16
                  : bits[0] == 32 ? CU_AD_FORMAT_UNSIGNED_INT32
                                  : (CUarray_format)0;
        break;
    case cudaChannelFormatKindFloat:
        *format = bits[0] == 16   ? CU_AD_FORMAT_HALF
                  : bits[0] == 32 ? CU_AD_FORMAT_FLOAT
                                  : (CUarray_format)0;
        break;
    default:
        return -1;
    }
    if (*format == 0)
        return -1;
    *n_channels = n;
    return 0;
}

/* flags (surface load/store, texture gather) change nothing the simulation observes. */
SIM_RT_EXPORT cudaError_t cudaMallocArray(cudaArray_t *array,
                                          const struct cudaChannelFormatDesc *desc, size_t width,
                                          size_t height, unsigned int flags)
{
    (void)flags;
    cudaError_t e = sim_rt_ctx_and_check(!array || !desc);
    if (e != cudaSuccess)
        return sim_rt_fail(e);
    CUDA_ARRAY_DESCRIPTOR ad = {width, height, (CUarray_format)0, 0};
    if (sim_rt_channel_format(desc, &ad.Format, &ad.NumChannels) != 0)
        return sim_rt_fail(cudaErrorInvalidChannelDescriptor);
    CUarray handle;
    e = sim_rt_error(sim_rt_cu.cuArrayCreate_v2(&handle, &ad));
    if (e == cudaSuccess)
        *array = (cudaArray_t)handle;
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaFreeArray(cudaArray_t array)
{
    cudaError_t e = sim_rt_context();
    if (e == cudaSuccess && array)
        e = sim_rt_error(sim_rt_cu.cuArrayDestroy((CUarray)array));
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    cudaError_t e = sim_rt_ctx_and_check(!devPtr);
    if (e != cudaSuccess)
        return sim_rt_fail(e);
    CUdeviceptr dptr;
    e = sim_rt_error(sim_rt_cu.cuMemAllocManaged(&dptr, size, flags));
    if (e == cudaSuccess)
        *devPtr = (void *)(uintptr_t)dptr;
    return sim_rt_fail(e);
}

/* ---- pinned host memory ------------------------------------------------------------------ */

/* cudart 13 never asks the driver for cuMemAllocHost: cudaMallocHost is cuMemHostAlloc with
 * flags 0 (measured on libcudart 13.0). */
SIM_RT_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    cudaError_t e = sim_rt_ctx_and_check(!ptr);
    if (e != cudaSuccess)
        return sim_rt_fail(e);
    return sim_rt_fail(sim_rt_error(sim_rt_cu.cuMemHostAlloc(ptr, size, 0)));
}

/* The cudaHostAlloc* flags have the values of the CU_MEMHOSTALLOC_* ones. */
SIM_RT_EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    cudaError_t e = sim_rt_ctx_and_check(!pHost);
    if (e != cudaSuccess)
        return sim_rt_fail(e);
    return sim_rt_fail(sim_rt_error(sim_rt_cu.cuMemHostAlloc(pHost, size, flags)));
}

/* Like free(NULL), cudaFreeHost(NULL) is a successful no-op. */
SIM_RT_EXPORT cudaError_t cudaFreeHost(void *ptr)
{
    cudaError_t e = sim_rt_context();
    if (e == cudaSuccess && ptr)
        e = sim_rt_error(sim_rt_cu.cuMemFreeHost(ptr));
    return sim_rt_fail(e);
}

/* The cudaHostRegister* flags have the values of the CU_MEMHOSTREGISTER_* ones. */
SIM_RT_EXPORT cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    SIM_RT_FORWARD(cuMemHostRegister_v2(ptr, size, flags));
}

SIM_RT_EXPORT cudaError_t cudaHostUnregister(void *ptr)
{
    SIM_RT_FORWARD(cuMemHostUnregister(ptr));
}

/* ---- stream-ordered allocation: the _ptsz exports reach the driver's _ptsz variants ------ */

static cudaError_t malloc_async(void **devPtr, size_t size, cudaStream_t hStream, int ptsz)
{
    cudaError_t e = sim_rt_ctx_and_check(!devPtr);
    if (e != cudaSuccess)
        return e;
    CUdeviceptr dptr;
    CUresult rc = ptsz ? sim_rt_cu.cuMemAllocAsync_ptsz(&dptr, size, hStream)
                       : sim_rt_cu.cuMemAllocAsync(&dptr, size, hStream);
    if (rc == CUDA_SUCCESS)
        *devPtr = (void *)(uintptr_t)dptr;
    return sim_rt_error(rc);
}

SIM_RT_EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    return sim_rt_fail(malloc_async(devPtr, size, hStream, 0));
}

SIM_RT_EXPORT cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream)
{
    return sim_rt_fail(malloc_async(devPtr, size, hStream, 1));
}

SIM_RT_EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    SIM_RT_FORWARD(cuMemFreeAsync((CUdeviceptr)(uintptr_t)devPtr, hStream));
}

SIM_RT_EXPORT cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream)
{
    SIM_RT_FORWARD(cuMemFreeAsync_ptsz((CUdeviceptr)(uintptr_t)devPtr, hStream));
}

static cudaError_t malloc_from_pool(void **ptr, size_t size, cudaMemPool_t memPool,
                                    cudaStream_t stream, int ptsz)
{
    cudaError_t e = sim_rt_ctx_and_check(!ptr);
    if (e != cudaSuccess)
        return e;
    CUdeviceptr dptr;
    CUresult rc = ptsz ? sim_rt_cu.cuMemAllocFromPoolAsync_ptsz(&dptr, size, memPool, stream)
                       : sim_rt_cu.cuMemAllocFromPoolAsync(&dptr, size, memPool, stream);
    if (rc == CUDA_SUCCESS)
        *ptr = (void *)(uintptr_t)dptr;
    return sim_rt_error(rc);
}

SIM_RT_EXPORT cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                                  cudaStream_t stream)
{
    return sim_rt_fail(malloc_from_pool(ptr, size, memPool, stream, 0));
}

SIM_RT_EXPORT cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size,
                                                       cudaMemPool_t memPool, cudaStream_t stream)
{
    return sim_rt_fail(malloc_from_pool(ptr, size, memPool, stream, 1));
}

SIM_RT_EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    cudaError_t e = sim_rt_ctx_and_check(!memPool);
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuDeviceGetDefaultMemPool(memPool, device));
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
    SIM_RT_FORWARD(cuDeviceSetMemPool(device, memPool));
}

SIM_RT_EXPORT cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
    cudaError_t e = sim_rt_ctx_and_check(!memPool);
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuDeviceGetMemPool(memPool, device));
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    SIM_RT_FORWARD(cuMemPoolTrimTo(memPool, minBytesToKeep));
}

/* ---- information ------------------------------------------------------------------------- */

SIM_RT_EXPORT cudaError_t cudaMemGetInfo(size_t *free, size_t *total)
{
    cudaError_t e = sim_rt_ctx_and_check(!free || !total);
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuMemGetInfo_v2(free, total));
    return sim_rt_fail(e);
}

/* ---- copies and sets --------------------------------------------------------------------- */

static CUresult copy_sync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    CUdeviceptr d = (CUdeviceptr)(uintptr_t)dst, s = (CUdeviceptr)(uintptr_t)src;
    switch (kind) {
    case cudaMemcpyHostToDevice:
        return sim_rt_cu.cuMemcpyHtoD_v2(d, src, count);
    case cudaMemcpyDeviceToHost:
        return sim_rt_cu.cuMemcpyDtoH_v2(dst, s, count);
    case cudaMemcpyDeviceToDevice:
        return sim_rt_cu.cuMemcpyDtoD_v2(d, s, count);
    default: /* host to host and cudaMemcpyDefault: unified addressing decides */
        return sim_rt_cu.cuMemcpy(d, s, count);
    }
}

static int kind_valid(enum cudaMemcpyKind kind)
{
    return kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault;
}

SIM_RT_EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                                     enum cudaMemcpyKind kind)
{
    cudaError_t e = sim_rt_context();
    if (e == cudaSuccess && !kind_valid(kind))
        e = cudaErrorInvalidMemcpyDirection;
    if (e == cudaSuccess)
        e = sim_rt_error(copy_sync(dst, src, count, kind));
    return sim_rt_fail(e);
}

/* Every kind reaches the driver's asynchronous copy of that direction (cuMemcpyAsync for host to
 * host and cudaMemcpyDefault), so a copy on a capturing stream becomes a graph node. */
SIM_RT_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                          enum cudaMemcpyKind kind, cudaStream_t stream)
{
    cudaError_t e = sim_rt_context();
    if (e == cudaSuccess && !kind_valid(kind))
        e = cudaErrorInvalidMemcpyDirection;
    if (e != cudaSuccess)
        return sim_rt_fail(e);
    CUdeviceptr d = (CUdeviceptr)(uintptr_t)dst, s = (CUdeviceptr)(uintptr_t)src;
    CUresult rc;
    switch (kind) {
    case cudaMemcpyHostToDevice:
        rc = sim_rt_cu.cuMemcpyHtoDAsync_v2(d, src, count, stream);
        break;
    case cudaMemcpyDeviceToHost:
        rc = sim_rt_cu.cuMemcpyDtoHAsync_v2(dst, s, count, stream);
        break;
    case cudaMemcpyDeviceToDevice:
        rc = sim_rt_cu.cuMemcpyDtoDAsync_v2(d, s, count, stream);
        break;
    default:
        rc = sim_rt_cu.cuMemcpyAsync(d, s, count, stream);
        break;
    }
    return sim_rt_fail(sim_rt_error(rc));
}

SIM_RT_EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    SIM_RT_FORWARD(cuMemsetD8_v2((CUdeviceptr)(uintptr_t)devPtr, (unsigned char)value, count));
}

/* SPDX-License-Identifier: MIT */
/* The simulated CUDA runtime's pitched, 3D, array and peer copies and sets, arrays made from
 * channel descriptors, mapped host memory, pointer attributes, managed-memory hints and IPC: each
 * builds the driver's parameters and forwards to the driver entry point of the same purpose. */
#include <stdint.h>
#include <string.h>
#include "sim_runtime.h"

/* The memory types of a copy of `kind`: host or device on each side; unified when the runtime
 * infers it (cudaMemcpyDefault). 0 for an unknown kind. */
static int kind_types(enum cudaMemcpyKind kind, CUmemorytype *src, CUmemorytype *dst)
{
    switch (kind) {
    case cudaMemcpyHostToHost:
        *src = *dst = CU_MEMORYTYPE_HOST;
        return 1;
    case cudaMemcpyHostToDevice:
        *src = CU_MEMORYTYPE_HOST, *dst = CU_MEMORYTYPE_DEVICE;
        return 1;
    case cudaMemcpyDeviceToHost:
        *src = CU_MEMORYTYPE_DEVICE, *dst = CU_MEMORYTYPE_HOST;
        return 1;
    case cudaMemcpyDeviceToDevice:
        *src = *dst = CU_MEMORYTYPE_DEVICE;
        return 1;
    case cudaMemcpyDefault:
        *src = *dst = CU_MEMORYTYPE_UNIFIED;
        return 1;
    default:
        return 0;
    }
}

/* One side of a driver copy: memory of `type` at ptr (or an array). */
static void side_set(CUmemorytype type, const void *ptr, CUarray array, int is_src,
                     CUDA_MEMCPY3D *c)
{
    if (is_src) {
        c->srcMemoryType = array ? CU_MEMORYTYPE_ARRAY : type;
        c->srcHost = ptr;
        c->srcDevice = (CUdeviceptr)(uintptr_t)ptr;
        c->srcArray = array;
    } else {
        c->dstMemoryType = array ? CU_MEMORYTYPE_ARRAY : type;
        c->dstHost = (void *)ptr;
        c->dstDevice = (CUdeviceptr)(uintptr_t)ptr;
        c->dstArray = array;
    }
}

/* A 2D copy between pitched memory or arrays, synchronous or on a stream. */
static cudaError_t copy2d(void *dst, size_t dpitch, cudaArray_t dst_array, size_t dx, size_t dy,
                          const void *src, size_t spitch, cudaArray_const_t src_array, size_t sx,
                          size_t sy, size_t width, size_t height, enum cudaMemcpyKind kind,
                          cudaStream_t stream, int is_async)
{
    cudaError_t e = sim_rt_context();
    if (e != cudaSuccess)
        return e;
    CUmemorytype st, dt;
    if (!kind_types(kind, &st, &dt))
        return cudaErrorInvalidMemcpyDirection;
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    side_set(st, src, (CUarray)src_array, 1, &c);
    side_set(dt, dst, (CUarray)dst_array, 0, &c);
    c.srcXInBytes = sx, c.srcY = sy, c.srcPitch = spitch;
    c.dstXInBytes = dx, c.dstY = dy, c.dstPitch = dpitch;
    c.WidthInBytes = width, c.Height = height, c.Depth = 1;
    if ((!src_array && spitch < width) || (!dst_array && dpitch < width))
        return cudaErrorInvalidPitchValue;
    return sim_rt_error(is_async ? sim_rt_cu.cuMemcpy3DAsync_v2(&c, stream)
                                 : sim_rt_cu.cuMemcpy3D_v2(&c));
}

SIM_RT_EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                       size_t width, size_t height, enum cudaMemcpyKind kind)
{
    return sim_rt_fail(
        copy2d(dst, dpitch, NULL, 0, 0, src, spitch, NULL, 0, 0, width, height, kind, NULL, 0));
}

SIM_RT_EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                                            size_t spitch, size_t width, size_t height,
                                            enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return sim_rt_fail(
        copy2d(dst, dpitch, NULL, 0, 0, src, spitch, NULL, 0, 0, width, height, kind, stream, 1));
}

SIM_RT_EXPORT cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                              const void *src, size_t spitch, size_t width,
                                              size_t height, enum cudaMemcpyKind kind)
{
    if (!dst)
        return sim_rt_fail(cudaErrorInvalidResourceHandle);
    return sim_rt_fail(copy2d(NULL, 0, dst, wOffset, hOffset, src, spitch, NULL, 0, 0, width,
                              height, kind, NULL, 0));
}

SIM_RT_EXPORT cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
                                                size_t wOffset, size_t hOffset, size_t width,
                                                size_t height, enum cudaMemcpyKind kind)
{
    if (!src)
        return sim_rt_fail(cudaErrorInvalidResourceHandle);
    return sim_rt_fail(copy2d(dst, dpitch, NULL, 0, 0, NULL, 0, src, wOffset, hOffset, width,
                              height, kind, NULL, 0));
}

/* The bytes of one element of an array, from its descriptor; 0 when it is no array. */
static size_t array_element_bytes(cudaArray_t array)
{
    CUDA_ARRAY3D_DESCRIPTOR d;
    if (!array || sim_rt_cu.cuArray3DGetDescriptor_v2(&d, (CUarray)array) != CUDA_SUCCESS)
        return 0;
    size_t format = d.Format == CU_AD_FORMAT_FLOAT || d.Format == CU_AD_FORMAT_SIGNED_INT32 ||
                            d.Format == CU_AD_FORMAT_UNSIGNED_INT32
                        ? 4
                    : d.Format == CU_AD_FORMAT_HALF || d.Format == CU_AD_FORMAT_SIGNED_INT16 ||
                            d.Format == CU_AD_FORMAT_UNSIGNED_INT16
                        ? 2
                        : 1;
    return format * d.NumChannels;
}

/* With an array on either side, extent.width and the positions' x are in elements (of that
 * array) rather than bytes, as cuda_runtime_api.h documents. */
static cudaError_t copy3d(const struct cudaMemcpy3DParms *p, cudaStream_t stream, int is_async)
{
    cudaError_t e = sim_rt_ctx_and_check(!p);
    if (e != cudaSuccess)
        return e;
    CUmemorytype st, dt;
    if (!kind_types(p->kind, &st, &dt))
        return cudaErrorInvalidMemcpyDirection;
    size_t elem = p->srcArray   ? array_element_bytes(p->srcArray)
                  : p->dstArray ? array_element_bytes(p->dstArray)
                                : 1;
    if (!elem)
        return cudaErrorInvalidResourceHandle;
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    side_set(st, p->srcPtr.ptr, (CUarray)p->srcArray, 1, &c);
    side_set(dt, p->dstPtr.ptr, (CUarray)p->dstArray, 0, &c);
    c.srcXInBytes = p->srcPos.x * (p->srcArray ? elem : 1);
    c.srcY = p->srcPos.y, c.srcZ = p->srcPos.z;
    c.srcPitch = p->srcPtr.pitch, c.srcHeight = p->srcPtr.ysize;
    c.dstXInBytes = p->dstPos.x * (p->dstArray ? elem : 1);
    c.dstY = p->dstPos.y, c.dstZ = p->dstPos.z;
    c.dstPitch = p->dstPtr.pitch, c.dstHeight = p->dstPtr.ysize;
    c.WidthInBytes = p->extent.width * elem;
    c.Height = p->extent.height, c.Depth = p->extent.depth;
    return sim_rt_error(is_async ? sim_rt_cu.cuMemcpy3DAsync_v2(&c, stream)
                                 : sim_rt_cu.cuMemcpy3D_v2(&c));
}

SIM_RT_EXPORT cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
    return sim_rt_fail(copy3d(p, NULL, 0));
}

SIM_RT_EXPORT cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    return sim_rt_fail(copy3d(p, stream, 1));
}

static cudaError_t copy_peer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                             cudaStream_t stream, int is_async)
{
    cudaError_t e = sim_rt_context();
    CUcontext dc, sc;
    if (e == cudaSuccess)
        e = sim_rt_primary(dstDevice, &dc);
    if (e == cudaSuccess)
        e = sim_rt_primary(srcDevice, &sc);
    if (e != cudaSuccess)
        return e;
    CUdeviceptr d = (CUdeviceptr)(uintptr_t)dst, s = (CUdeviceptr)(uintptr_t)src;
    return sim_rt_error(is_async ? sim_rt_cu.cuMemcpyPeerAsync(d, dc, s, sc, count, stream)
                                 : sim_rt_cu.cuMemcpyPeer(d, dc, s, sc, count));
}

SIM_RT_EXPORT cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                                         size_t count)
{
    return sim_rt_fail(copy_peer(dst, dstDevice, src, srcDevice, count, NULL, 0));
}

SIM_RT_EXPORT cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src,
                                              int srcDevice, size_t count, cudaStream_t stream)
{
    return sim_rt_fail(copy_peer(dst, dstDevice, src, srcDevice, count, stream, 1));
}

/* ---- sets -------------------------------------------------------------------------------- */

SIM_RT_EXPORT cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count,
                                          cudaStream_t stream)
{
    SIM_RT_FORWARD(
        cuMemsetD8Async((CUdeviceptr)(uintptr_t)devPtr, (unsigned char)value, count, stream));
}

SIM_RT_EXPORT cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                                       size_t height)
{
    SIM_RT_FORWARD(cuMemsetD2D8_v2((CUdeviceptr)(uintptr_t)devPtr, pitch, (unsigned char)value,
                                   width, height));
}

SIM_RT_EXPORT cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                            size_t height, cudaStream_t stream)
{
    SIM_RT_FORWARD(cuMemsetD2D8Async((CUdeviceptr)(uintptr_t)devPtr, pitch, (unsigned char)value,
                                     width, height, stream));
}

/* A 3D set is a 2D set of height × depth rows of the pitched allocation (cudaMalloc3D's layout:
 * ysize rows per slice). */
SIM_RT_EXPORT cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value,
                                       struct cudaExtent extent)
{
    cudaError_t e = sim_rt_context();
    if (e != cudaSuccess || !extent.width || !extent.height || !extent.depth)
        return sim_rt_fail(e);
    CUdeviceptr base = (CUdeviceptr)(uintptr_t)pitchedDevPtr.ptr;
    for (size_t z = 0; e == cudaSuccess && z < extent.depth; z++)
        e = sim_rt_error(sim_rt_cu.cuMemsetD2D8_v2(
            base + z * pitchedDevPtr.pitch * pitchedDevPtr.ysize, pitchedDevPtr.pitch,
            (unsigned char)value, extent.width, extent.height));
    return sim_rt_fail(e);
}

/* ---- arrays ------------------------------------------------------------------------------ */

SIM_RT_EXPORT struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                                 enum cudaChannelFormatKind f)
{
    struct cudaChannelFormatDesc d = {x, y, z, w, f};
    return d;
}

/* The driver's descriptor of an array of `desc` elements over `extent`; 0 or -1. */
static int array3d_desc(const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
                        unsigned flags, CUDA_ARRAY3D_DESCRIPTOR *d)
{
    memset(d, 0, sizeof *d);
    if (sim_rt_channel_format(desc, &d->Format, &d->NumChannels) != 0)
        return -1;
    d->Width = extent.width, d->Height = extent.height, d->Depth = extent.depth;
    d->Flags = flags; /* cudaArray* flags have the CUDA_ARRAY3D_* values */
    return 0;
}

SIM_RT_EXPORT cudaError_t cudaMalloc3DArray(cudaArray_t *array,
                                            const struct cudaChannelFormatDesc *desc,
                                            struct cudaExtent extent, unsigned int flags)
{
    cudaError_t e = sim_rt_ctx_and_check(!array || !desc);
    if (e != cudaSuccess)
        return sim_rt_fail(e);
    CUDA_ARRAY3D_DESCRIPTOR d;
    if (array3d_desc(desc, extent, flags, &d) != 0)
        return sim_rt_fail(cudaErrorInvalidChannelDescriptor);
    return sim_rt_fail(sim_rt_error(sim_rt_cu.cuArray3DCreate_v2((CUarray *)array, &d)));
}

SIM_RT_EXPORT cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray,
                                                   const struct cudaChannelFormatDesc *desc,
                                                   struct cudaExtent extent, unsigned int numLevels,
                                                   unsigned int flags)
{
    cudaError_t e = sim_rt_ctx_and_check(!mipmappedArray || !desc);
    if (e != cudaSuccess)
        return sim_rt_fail(e);
    CUDA_ARRAY3D_DESCRIPTOR d;
    if (array3d_desc(desc, extent, flags, &d) != 0)
        return sim_rt_fail(cudaErrorInvalidChannelDescriptor);
    return sim_rt_fail(sim_rt_error(
        sim_rt_cu.cuMipmappedArrayCreate((CUmipmappedArray *)mipmappedArray, &d, numLevels)));
}

SIM_RT_EXPORT cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray)
{
    cudaError_t e = sim_rt_context();
    if (e == cudaSuccess && mipmappedArray)
        e = sim_rt_error(sim_rt_cu.cuMipmappedArrayDestroy((CUmipmappedArray)mipmappedArray));
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *levelArray,
                                                     cudaMipmappedArray_const_t mipmappedArray,
                                                     unsigned int level)
{
    SIM_RT_FORWARD(
        cuMipmappedArrayGetLevel((CUarray *)levelArray, (CUmipmappedArray)mipmappedArray, level));
}

SIM_RT_EXPORT cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc,
                                           struct cudaExtent *extent, unsigned int *flags,
                                           cudaArray_t array)
{
    cudaError_t e = sim_rt_context();
    CUDA_ARRAY3D_DESCRIPTOR d;
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuArray3DGetDescriptor_v2(&d, (CUarray)array));
    if (e != cudaSuccess)
        return sim_rt_fail(e);
    if (desc) {
        int bits = d.Format == CU_AD_FORMAT_FLOAT || d.Format == CU_AD_FORMAT_SIGNED_INT32 ||
                           d.Format == CU_AD_FORMAT_UNSIGNED_INT32
                       ? 32
                   : d.Format == CU_AD_FORMAT_HALF || d.Format == CU_AD_FORMAT_SIGNED_INT16 ||
                           d.Format == CU_AD_FORMAT_UNSIGNED_INT16
                       ? 16
                       : 8;
        enum cudaChannelFormatKind kind =
            d.Format == CU_AD_FORMAT_FLOAT || d.Format == CU_AD_FORMAT_HALF
                ? cudaChannelFormatKindFloat
            : d.Format == CU_AD_FORMAT_SIGNED_INT8 || d.Format == CU_AD_FORMAT_SIGNED_INT16 ||
                    d.Format == CU_AD_FORMAT_SIGNED_INT32
                ? cudaChannelFormatKindSigned
                : cudaChannelFormatKindUnsigned;
        *desc =
            cudaCreateChannelDesc(bits, d.NumChannels > 1 ? bits : 0, d.NumChannels > 2 ? bits : 0,
                                  d.NumChannels > 3 ? bits : 0, kind);
    }
    if (extent)
        *extent = (struct cudaExtent){d.Width, d.Height, d.Depth};
    if (flags)
        *flags = d.Flags;
    return cudaSuccess;
}

/* ---- mapped host memory, pointers, managed memory, IPC ----------------------------------- */

SIM_RT_EXPORT cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    cudaError_t e = sim_rt_ctx_and_check(!pDevice);
    CUdeviceptr d;
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuMemHostGetDevicePointer_v2(&d, pHost, flags));
    if (e == cudaSuccess)
        *pDevice = (void *)(uintptr_t)d;
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
    SIM_RT_FORWARD(cuMemHostGetFlags(pFlags, pHost));
}

/* Any pointer is described: one the driver does not know is unregistered host memory. */
SIM_RT_EXPORT cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                                                   const void *ptr)
{
    cudaError_t e = sim_rt_ctx_and_check(!attributes);
    if (e != cudaSuccess)
        return sim_rt_fail(e);
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)ptr;
    unsigned type = 0;
    int device = 0, managed = 0;
    memset(attributes, 0, sizeof *attributes);
    if (sim_rt_cu.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) !=
        CUDA_SUCCESS) {
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = -2; /* what the runtime reports for unregistered memory */
        attributes->hostPointer = (void *)ptr;
        return cudaSuccess;
    }
    sim_rt_cu.cuPointerGetAttribute(&device, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p);
    sim_rt_cu.cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, p);
    attributes->device = device;
    attributes->type = managed                        ? cudaMemoryTypeManaged
                       : type == CU_MEMORYTYPE_DEVICE ? cudaMemoryTypeDevice
                                                      : cudaMemoryTypeHost;
    attributes->devicePointer = (void *)ptr;
    if (attributes->type != cudaMemoryTypeDevice)
        attributes->hostPointer = (void *)ptr;
    return cudaSuccess;
}

static CUmemLocation location_of(struct cudaMemLocation l)
{
    CUmemLocation c = {(CUmemLocationType)l.type, l.id};
    return c;
}

SIM_RT_EXPORT cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                               struct cudaMemLocation location, unsigned int flags,
                                               cudaStream_t stream)
{
    SIM_RT_FORWARD(cuMemPrefetchAsync_v2((CUdeviceptr)(uintptr_t)devPtr, count,
                                         location_of(location), flags, stream));
}

SIM_RT_EXPORT cudaError_t cudaMemAdvise(const void *devPtr, size_t count,
                                        enum cudaMemoryAdvise advice,
                                        struct cudaMemLocation location)
{
    SIM_RT_FORWARD(cuMemAdvise_v2((CUdeviceptr)(uintptr_t)devPtr, count, (CUmem_advise)advice,
                                  location_of(location)));
}

SIM_RT_EXPORT cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                                   unsigned int flags)
{
    SIM_RT_FORWARD(cuStreamAttachMemAsync(stream, (CUdeviceptr)(uintptr_t)devPtr, length, flags));
}

SIM_RT_EXPORT cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr)
{
    SIM_RT_FORWARD(cuIpcGetMemHandle((CUipcMemHandle *)handle, (CUdeviceptr)(uintptr_t)devPtr));
}

SIM_RT_EXPORT cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle,
                                               unsigned int flags)
{
    cudaError_t e = sim_rt_ctx_and_check(!devPtr);
    CUipcMemHandle h;
    CUdeviceptr d;
    memcpy(&h, &handle, sizeof h);
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuIpcOpenMemHandle_v2(&d, h, flags));
    if (e == cudaSuccess)
        *devPtr = (void *)(uintptr_t)d;
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaIpcCloseMemHandle(void *devPtr)
{
    SIM_RT_FORWARD(cuIpcCloseMemHandle((CUdeviceptr)(uintptr_t)devPtr));
}

/* SPDX-License-Identifier: MIT */
/* The simulated CUDA runtime's texture and surface objects: the runtime's descriptors translated
 * to the driver's (channel descriptors to array formats) and forwarded. */
#include <stdint.h>
#include <string.h>
#include "sim_runtime.h"

#define SIM_TRSF_READ_AS_INTEGER        0x01
#define SIM_TRSF_NORMALIZED_COORDINATES 0x02
#define SIM_TRSF_SRGB                   0x10

/* 0, or cudaErrorInvalidChannelDescriptor / cudaErrorInvalidValue for a bad descriptor. */
static cudaError_t resource_to_driver(const struct cudaResourceDesc *r, CUDA_RESOURCE_DESC *d)
{
    if (!r)
        return cudaErrorInvalidValue;
    memset(d, 0, sizeof *d);
    d->resType = (CUresourcetype)r->resType;
    d->flags = r->flags;
    switch (r->resType) {
    case cudaResourceTypeArray:
        d->res.array.hArray = (CUarray)r->res.array.array;
        return cudaSuccess;
    case cudaResourceTypeMipmappedArray:
        d->res.mipmap.hMipmappedArray = (CUmipmappedArray)r->res.mipmap.mipmap;
        return cudaSuccess;
    case cudaResourceTypeLinear:
        d->res.linear.devPtr = (CUdeviceptr)(uintptr_t)r->res.linear.devPtr;
        d->res.linear.sizeInBytes = r->res.linear.sizeInBytes;
        return sim_rt_channel_format(&r->res.linear.desc, &d->res.linear.format,
                                     &d->res.linear.numChannels) == 0
                   ? cudaSuccess
                   : cudaErrorInvalidChannelDescriptor;
    case cudaResourceTypePitch2D:
        d->res.pitch2D.devPtr = (CUdeviceptr)(uintptr_t)r->res.pitch2D.devPtr;
        d->res.pitch2D.width = r->res.pitch2D.width;
        d->res.pitch2D.height = r->res.pitch2D.height;
        d->res.pitch2D.pitchInBytes = r->res.pitch2D.pitchInBytes;
        return sim_rt_channel_format(&r->res.pitch2D.desc, &d->res.pitch2D.format,
                                     &d->res.pitch2D.numChannels) == 0
                   ? cudaSuccess
                   : cudaErrorInvalidChannelDescriptor;
    default:
        return cudaErrorInvalidValue;
    }
}

SIM_RT_EXPORT cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                                  const struct cudaResourceDesc *pResDesc,
                                                  const struct cudaTextureDesc *pTexDesc,
                                                  const struct cudaResourceViewDesc *pResViewDesc)
{
    cudaError_t e = sim_rt_ctx_and_check(!pTexObject || !pTexDesc);
    CUDA_RESOURCE_DESC r;
    if (e == cudaSuccess)
        e = resource_to_driver(pResDesc, &r);
    if (e != cudaSuccess)
        return sim_rt_fail(e);
    CUDA_TEXTURE_DESC t;
    memset(&t, 0, sizeof t);
    for (int i = 0; i < 3; i++)
        t.addressMode[i] = (CUaddress_mode)pTexDesc->addressMode[i];
    t.filterMode = (CUfilter_mode)pTexDesc->filterMode;
    t.mipmapFilterMode = (CUfilter_mode)pTexDesc->mipmapFilterMode;
    t.flags = (pTexDesc->readMode == cudaReadModeElementType ? SIM_TRSF_READ_AS_INTEGER : 0) |
              (pTexDesc->normalizedCoords ? SIM_TRSF_NORMALIZED_COORDINATES : 0) |
              (pTexDesc->sRGB ? SIM_TRSF_SRGB : 0);
    t.maxAnisotropy = pTexDesc->maxAnisotropy;
    t.mipmapLevelBias = pTexDesc->mipmapLevelBias;
    t.minMipmapLevelClamp = pTexDesc->minMipmapLevelClamp;
    t.maxMipmapLevelClamp = pTexDesc->maxMipmapLevelClamp;
    memcpy(t.borderColor, pTexDesc->borderColor, sizeof t.borderColor);
    CUDA_RESOURCE_VIEW_DESC v;
    if (pResViewDesc) {
        memset(&v, 0, sizeof v);
        v.format = (int)pResViewDesc->format;
        v.width = pResViewDesc->width, v.height = pResViewDesc->height;
        v.depth = pResViewDesc->depth;
        v.firstMipmapLevel = pResViewDesc->firstMipmapLevel;
        v.lastMipmapLevel = pResViewDesc->lastMipmapLevel;
        v.firstLayer = pResViewDesc->firstLayer, v.lastLayer = pResViewDesc->lastLayer;
    }
    return sim_rt_fail(
        sim_rt_error(sim_rt_cu.cuTexObjectCreate(pTexObject, &r, &t, pResViewDesc ? &v : NULL)));
}

SIM_RT_EXPORT cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
    SIM_RT_FORWARD(cuTexObjectDestroy(texObject));
}

SIM_RT_EXPORT cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
                                                  const struct cudaResourceDesc *pResDesc)
{
    cudaError_t e = sim_rt_ctx_and_check(!pSurfObject);
    CUDA_RESOURCE_DESC r;
    if (e == cudaSuccess)
        e = resource_to_driver(pResDesc, &r);
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuSurfObjectCreate(pSurfObject, &r));
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject)
{
    SIM_RT_FORWARD(cuSurfObjectDestroy(surfObject));
}

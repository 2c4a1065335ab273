/* SPDX-License-Identifier: MIT */
/* Texture and surface objects of the simulated driver: descriptors that name an array, a
 * mipmapped array or a range of device memory. They cost no device memory; creating one checks
 * the resource as the driver does (a live array; a linear or pitched range inside one live
 * allocation, 512-byte aligned, rows pitched on 32 bytes; a surface needs an array made with
 * CUDA_ARRAY3D_SURFACE_LDST). */
#include <stdlib.h>
#include "sim_internal.h"

#define SIM_TEXTURE_ALIGNMENT       512 /* CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT */
#define SIM_TEXTURE_PITCH_ALIGNMENT 32  /* CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT */

typedef struct sim_texture_s {
    unsigned long long handle;
    int is_surface;
    CUDA_RESOURCE_DESC resource;
    CUDA_TEXTURE_DESC texture;
    int has_view;
    CUDA_RESOURCE_VIEW_DESC view;
    struct sim_texture_s *next;
} sim_texture_t;

static sim_texture_t *sim_textures;
static unsigned long long sim_next_texture = 1;

static size_t element_bytes(CUarray_format format, unsigned channels)
{
    CUDA_ARRAY3D_DESCRIPTOR d = {1, 0, 0, format, channels, 0};
    size_t row, rows, slices;
    return sim_array_layout(&d, &row, &rows, &slices) ? row : 0;
}

/* CUDA_SUCCESS when the resource is usable; sim_lock held. */
static CUresult resource_check(const CUDA_RESOURCE_DESC *r, int for_surface)
{
    if (!r || r->flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    switch (r->resType) {
    case CU_RESOURCE_TYPE_ARRAY: {
        sim_array_t *a = sim_array_lookup(r->res.array.hArray);
        if (!a)
            return CUDA_ERROR_INVALID_HANDLE;
        return !for_surface || (sim_array_flags(a) & CUDA_ARRAY3D_SURFACE_LDST)
                   ? CUDA_SUCCESS
                   : CUDA_ERROR_INVALID_VALUE;
    }
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
        if (for_surface)
            return CUDA_ERROR_INVALID_VALUE;
        return sim_mipmapped_lookup(r->res.mipmap.hMipmappedArray) ? CUDA_SUCCESS
                                                                   : CUDA_ERROR_INVALID_HANDLE;
    case CU_RESOURCE_TYPE_LINEAR: {
        size_t elem = element_bytes(r->res.linear.format, r->res.linear.numChannels);
        if (for_surface || !elem || r->res.linear.devPtr % SIM_TEXTURE_ALIGNMENT ||
            r->res.linear.sizeInBytes == 0 ||
            !sim_alloc_containing(r->res.linear.devPtr, r->res.linear.sizeInBytes))
            return CUDA_ERROR_INVALID_VALUE;
        return CUDA_SUCCESS;
    }
    case CU_RESOURCE_TYPE_PITCH2D: {
        size_t elem = element_bytes(r->res.pitch2D.format, r->res.pitch2D.numChannels);
        size_t w = r->res.pitch2D.width, h = r->res.pitch2D.height, p = r->res.pitch2D.pitchInBytes;
        if (for_surface || !elem || !w || !h || r->res.pitch2D.devPtr % SIM_TEXTURE_ALIGNMENT ||
            p % SIM_TEXTURE_PITCH_ALIGNMENT || w > p / elem || h > (size_t)-1 / p ||
            !sim_alloc_containing(r->res.pitch2D.devPtr, (h - 1) * p + w * elem))
            return CUDA_ERROR_INVALID_VALUE;
        return CUDA_SUCCESS;
    }
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult object_create(unsigned long long *handle, const CUDA_RESOURCE_DESC *r,
                              const CUDA_TEXTURE_DESC *t, const CUDA_RESOURCE_VIEW_DESC *v,
                              int is_surface)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!handle || (!is_surface && !t))
        return CUDA_ERROR_INVALID_VALUE;
    sim_texture_t *x = calloc(1, sizeof *x);
    if (!x)
        return CUDA_ERROR_OUT_OF_MEMORY;
    SIM_LOCK();
    rc = resource_check(r, is_surface);
    if (rc == CUDA_SUCCESS) {
        x->handle = sim_next_texture++;
        x->is_surface = is_surface;
        x->resource = *r;
        if (t)
            x->texture = *t;
        if (v) {
            x->has_view = 1;
            x->view = *v;
        }
        x->next = sim_textures;
        sim_textures = x;
        *handle = x->handle;
    } else {
        free(x);
    }
    SIM_UNLOCK();
    return rc;
}

static CUresult object_destroy(unsigned long long handle, int is_surface)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    SIM_LOCK();
    CUresult rc = CUDA_ERROR_INVALID_VALUE;
    for (sim_texture_t **pp = &sim_textures; *pp; pp = &(*pp)->next) {
        if ((*pp)->handle == handle && (*pp)->is_surface == is_surface) {
            sim_texture_t *x = *pp;
            *pp = x->next;
            free(x);
            rc = CUDA_SUCCESS;
            break;
        }
    }
    SIM_UNLOCK();
    return rc;
}

/* A copy of the descriptors of a live object, or NULL; sim_lock held. */
static sim_texture_t *object_find(unsigned long long handle, int is_surface)
{
    for (sim_texture_t *x = sim_textures; x; x = x->next)
        if (x->handle == handle && x->is_surface == is_surface)
            return x;
    return NULL;
}

SIM_EXPORT CUresult cuTexObjectCreate(CUtexObject *pTexObject, const CUDA_RESOURCE_DESC *pResDesc,
                                      const CUDA_TEXTURE_DESC *pTexDesc,
                                      const CUDA_RESOURCE_VIEW_DESC *pResViewDesc)
{
    return object_create(pTexObject, pResDesc, pTexDesc, pResViewDesc, 0);
}

SIM_EXPORT CUresult cuTexObjectDestroy(CUtexObject texObject)
{
    return object_destroy(texObject, 0);
}

SIM_EXPORT CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc, CUtexObject texObject)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pResDesc)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_texture_t *x = object_find(texObject, 0);
    if (x)
        *pResDesc = x->resource;
    SIM_UNLOCK();
    return x ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *pTexDesc, CUtexObject texObject)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pTexDesc)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_texture_t *x = object_find(texObject, 0);
    if (x)
        *pTexDesc = x->texture;
    SIM_UNLOCK();
    return x ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuSurfObjectCreate(CUsurfObject *pSurfObject,
                                       const CUDA_RESOURCE_DESC *pResDesc)
{
    return object_create(pSurfObject, pResDesc, NULL, NULL, 1);
}

SIM_EXPORT CUresult cuSurfObjectDestroy(CUsurfObject surfObject)
{
    return object_destroy(surfObject, 1);
}

SIM_EXPORT CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc,
                                                CUsurfObject surfObject)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pResDesc)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_texture_t *x = object_find(surfObject, 1);
    if (x)
        *pResDesc = x->resource;
    SIM_UNLOCK();
    return x ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

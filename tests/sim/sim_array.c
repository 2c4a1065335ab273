/* SPDX-License-Identifier: MIT */
/* CUDA arrays of the simulated driver (cuArrayCreate, cuArray3DCreate, cuMipmappedArrayCreate and
 * the runtime's cudaMallocArray, cudaMalloc3DArray, cudaMallocMipmappedArray). The layout the
 * charge assumes, documented in docs/simulator.md: one element is the format's size × the
 * channels; a row is width × element bytes rounded up to 512 bytes; a level is row × height (at
 * least 1) × depth (at least 1; the layers of a layered array, 6 × layers for a cubemap); a
 * mipmapped array is the sum of its levels, each halving width, height and depth (never below 1).
 * The contents live in host memory of that layout, made on the first copy into the array, so that
 * copies in and out round-trip. An array belongs to the context that made it. */
#include <stdlib.h>
#include <string.h>
#include "sim_internal.h"

#define SIM_ARRAY_LAYERED 0x01 /* CUDA_ARRAY3D_LAYERED */
#define SIM_ARRAY_CUBEMAP 0x04 /* CUDA_ARRAY3D_CUBEMAP */

struct sim_array_s {
    int device;
    sim_ctx_t *ctx;
    int is_mipmapped;
    sim_array_t *parent; /* a level of a mipmapped array: charged to the parent */
    CUDA_ARRAY3D_DESCRIPTOR desc;
    size_t row_bytes, row_pitch_bytes, rows, slices; /* the layout of one level */
    size_t charged_bytes;
    unsigned n_levels;
    sim_array_t **levels; /* a mipmapped array's levels, made on demand */
    void *backing;
    sim_array_t *next;
};

static sim_array_t *sim_arrays;

static size_t format_bytes(CUarray_format f)
{
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8:
        return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF:
        return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT:
        return 4;
    default:
        return 0;
    }
}

/* Fills the layout of one level; 0 for an invalid descriptor or one too large to address. */
size_t sim_array_layout(const CUDA_ARRAY3D_DESCRIPTOR *d, size_t *row_bytes, size_t *rows,
                        size_t *slices)
{
    size_t elem = format_bytes(d->Format) * d->NumChannels;
    if (!elem || d->Width == 0 ||
        (d->NumChannels != 1 && d->NumChannels != 2 && d->NumChannels != 4))
        return 0;
    if ((d->Flags & SIM_ARRAY_CUBEMAP) &&
        (d->Width != d->Height || (!(d->Flags & SIM_ARRAY_LAYERED) && d->Depth != 6)))
        return 0;
    if (d->Width > ((size_t)1 << 40) / elem || d->Height > ((size_t)1 << 24) ||
        d->Depth > ((size_t)1 << 24))
        return 0;
    *row_bytes = d->Width * elem;
    *rows = d->Height ? d->Height : 1;
    *slices = d->Depth ? d->Depth : 1;
    size_t pitch = sim_round_up(*row_bytes, SIM_ALIGN_BYTES);
    if (*rows * *slices > (size_t)-1 / pitch)
        return 0;
    return pitch * *rows * *slices;
}

static sim_array_t *array_find(const void *handle, int is_mipmapped)
{
    for (sim_array_t *a = sim_arrays; a; a = a->next)
        if (a == handle && a->is_mipmapped == is_mipmapped)
            return a;
    return NULL;
}

/* A live array (not mipmapped) or a level of one, for copies and resource descriptors. */
sim_array_t *sim_array_lookup(CUarray handle)
{
    sim_array_t *a = array_find(handle, 0);
    if (a)
        return a;
    for (sim_array_t *m = sim_arrays; m; m = m->next)
        for (unsigned i = 0; m->levels && i < m->n_levels; i++)
            if (m->levels[i] && (void *)m->levels[i] == (void *)handle)
                return m->levels[i];
    return NULL;
}

sim_array_t *sim_mipmapped_lookup(CUmipmappedArray handle)
{
    return array_find(handle, 1);
}

unsigned sim_array_flags(const sim_array_t *a)
{
    return a->desc.Flags;
}

size_t sim_array_row_bytes(const sim_array_t *a)
{
    return a->row_bytes;
}

size_t sim_array_rows(const sim_array_t *a)
{
    return a->rows;
}

size_t sim_array_slices(const sim_array_t *a)
{
    return a->slices;
}

/* The bytes of row (y, z) of an array from byte x, for len bytes; NULL when out of bounds. */
void *sim_array_row(sim_array_t *a, size_t x, size_t y, size_t z, size_t len, int for_write)
{
    if (x > a->row_bytes || len > a->row_bytes - x || y >= a->rows || z >= a->slices)
        return NULL;
    if (!a->backing) {
        static char zeros[4096];
        if (!for_write && len <= sizeof zeros)
            return zeros;
        if (!(a->backing = sim_host_map(a->row_pitch_bytes * a->rows * a->slices)))
            return NULL;
    }
    return (char *)a->backing + (z * a->rows + y) * a->row_pitch_bytes + x;
}

static sim_array_t *array_new(const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    sim_array_t *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->desc = *d;
    if (!sim_array_layout(d, &a->row_bytes, &a->rows, &a->slices)) {
        free(a);
        return NULL;
    }
    a->row_pitch_bytes = sim_round_up(a->row_bytes, SIM_ALIGN_BYTES);
    return a;
}

static void array_free(sim_array_t *a)
{
    for (unsigned i = 0; a->levels && i < a->n_levels; i++)
        if (a->levels[i])
            array_free(a->levels[i]);
    free(a->levels);
    if (a->backing)
        sim_host_unmap(a->backing, a->row_pitch_bytes * a->rows * a->slices);
    free(a);
}

/* Charges and registers a (charged_bytes set); sim_lock held. */
static CUresult array_register(sim_array_t *a, void **handle)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc == CUDA_SUCCESS)
        rc = sim_charge(dev, a->charged_bytes);
    if (rc != CUDA_SUCCESS) {
        array_free(a);
        return rc;
    }
    a->device = dev;
    a->ctx = sim_current_ctx();
    a->next = sim_arrays;
    sim_arrays = a;
    sim_series_add(&sim_devices[dev].allocs, a->charged_bytes);
    *handle = a;
    return CUDA_SUCCESS;
}

static void array_unregister(sim_array_t *a)
{
    for (sim_array_t **pp = &sim_arrays; *pp; pp = &(*pp)->next) {
        if (*pp == a) {
            *pp = a->next;
            break;
        }
    }
    sim_uncharge(a->device, a->charged_bytes);
    sim_series_remove(&sim_devices[a->device].allocs, a->charged_bytes);
    array_free(a);
}

static CUresult array_create(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pHandle || !d)
        return CUDA_ERROR_INVALID_VALUE;
    sim_array_t *a = array_new(d);
    if (!a)
        return CUDA_ERROR_INVALID_VALUE;
    a->charged_bytes = a->row_pitch_bytes * a->rows * a->slices;
    SIM_LOCK();
    rc = array_register(a, (void **)pHandle);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray)
{
    if (!pAllocateArray)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_ARRAY3D_DESCRIPTOR d = {pAllocateArray->Width,  pAllocateArray->Height,      0,
                                 pAllocateArray->Format, pAllocateArray->NumChannels, 0};
    return array_create(pHandle, &d);
}

SIM_EXPORT CUresult cuArray3DCreate_v2(CUarray *pHandle,
                                       const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray)
{
    return array_create(pHandle, pAllocateArray);
}

SIM_EXPORT CUresult cuArrayDestroy(CUarray hArray)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    sim_array_t *a = array_find(hArray, 0);
    if (a)
        array_unregister(a);
    SIM_UNLOCK();
    return a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor, CUarray hArray)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pArrayDescriptor)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_array_t *a = sim_array_lookup(hArray);
    if (a) {
        pArrayDescriptor->Width = a->desc.Width;
        pArrayDescriptor->Height = a->desc.Height;
        pArrayDescriptor->Format = a->desc.Format;
        pArrayDescriptor->NumChannels = a->desc.NumChannels;
    }
    SIM_UNLOCK();
    return a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor,
                                              CUarray hArray)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pArrayDescriptor)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_array_t *a = sim_array_lookup(hArray);
    if (a)
        *pArrayDescriptor = a->desc;
    SIM_UNLOCK();
    return a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* ---- mipmapped arrays -------------------------------------------------------------------- */

static CUDA_ARRAY3D_DESCRIPTOR level_desc(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned level)
{
    CUDA_ARRAY3D_DESCRIPTOR l = *d;
    int layered = (d->Flags & (SIM_ARRAY_LAYERED | SIM_ARRAY_CUBEMAP)) != 0;
    for (unsigned i = 0; i < level; i++) {
        l.Width = l.Width > 1 ? l.Width / 2 : 1;
        l.Height = l.Height > 1 ? l.Height / 2 : l.Height;
        if (!layered) /* layers and cube faces do not shrink */
            l.Depth = l.Depth > 1 ? l.Depth / 2 : l.Depth;
    }
    return l;
}

SIM_EXPORT CUresult cuMipmappedArrayCreate(CUmipmappedArray *pHandle,
                                           const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
                                           unsigned int numMipmapLevels)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pHandle || !pMipmappedArrayDesc || numMipmapLevels == 0 || numMipmapLevels > 32)
        return CUDA_ERROR_INVALID_VALUE;
    sim_array_t *a = array_new(pMipmappedArrayDesc);
    if (!a)
        return CUDA_ERROR_INVALID_VALUE;
    a->is_mipmapped = 1;
    a->n_levels = numMipmapLevels;
    a->levels = calloc(numMipmapLevels, sizeof *a->levels);
    size_t total = 0;
    for (unsigned i = 0; a->levels && i < numMipmapLevels; i++) {
        CUDA_ARRAY3D_DESCRIPTOR l = level_desc(pMipmappedArrayDesc, i);
        size_t row, rows, slices, bytes = sim_array_layout(&l, &row, &rows, &slices);
        if (!bytes || total + bytes < total) {
            array_free(a);
            return CUDA_ERROR_INVALID_VALUE;
        }
        total += bytes;
    }
    if (!a->levels) {
        array_free(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->charged_bytes = total;
    SIM_LOCK();
    rc = array_register(a, (void **)pHandle);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMipmappedArrayGetLevel(CUarray *pLevelArray, CUmipmappedArray hMipmappedArray,
                                             unsigned int level)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pLevelArray)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_array_t *m = array_find(hMipmappedArray, 1);
    CUresult rc = !m                     ? CUDA_ERROR_INVALID_HANDLE
                  : level >= m->n_levels ? CUDA_ERROR_INVALID_VALUE
                                         : CUDA_SUCCESS;
    if (rc == CUDA_SUCCESS && !m->levels[level]) {
        CUDA_ARRAY3D_DESCRIPTOR l = level_desc(&m->desc, level);
        sim_array_t *a = array_new(&l);
        if (a) {
            a->parent = m;
            a->device = m->device;
            m->levels[level] = a;
        } else {
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    if (rc == CUDA_SUCCESS)
        *pLevelArray = (CUarray)m->levels[level];
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    sim_array_t *a = array_find(hMipmappedArray, 1);
    if (a)
        array_unregister(a);
    SIM_UNLOCK();
    return a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* A context's destruction frees its arrays. sim_lock held. */
void sim_array_teardown(sim_ctx_t *ctx)
{
    for (sim_array_t *a = sim_arrays, *next; a; a = next) {
        next = a->next;
        if (a->ctx == ctx)
            array_unregister(a);
    }
}

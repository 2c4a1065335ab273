/* SPDX-License-Identifier: MIT */
/* Pitched 2D and 3D copies and sets of the simulated driver (cuMemcpy2D, cuMemcpy3D,
 * cuMemsetD2D*), between host, device, unified and array memory. A device or unified side must
 * lie, rows, pitch and all, inside one live allocation (device) or be host memory (unified); an
 * array side inside the array's extent: anything else is CUDA_ERROR_INVALID_VALUE, as a wrong
 * size is an error on a GPU. */
#include <string.h>
#include "sim_internal.h"

/* One side of a copy: where its region starts and how its rows are laid out. */
typedef struct side_s {
    CUmemorytype type;
    char *base; /* host, device or unified: the first byte of the region's first row */
    sim_array_t *array;
    size_t x, y, z; /* array: where the region starts */
    size_t pitch, height;
} side_t;

/* Resolves one side of a width × rows × slices region; sim_lock held. */
static CUresult side_open(side_t *s, CUmemorytype type, const void *host, CUdeviceptr dev,
                          CUarray array, size_t x, size_t y, size_t z, size_t pitch, size_t height,
                          size_t width, size_t rows, size_t slices, int for_write)
{
    memset(s, 0, sizeof *s);
    s->type = type;
    if (type == CU_MEMORYTYPE_ARRAY) {
        s->array = sim_array_lookup(array);
        if (!s->array)
            return CUDA_ERROR_INVALID_HANDLE;
        if (x > sim_array_row_bytes(s->array) || width > sim_array_row_bytes(s->array) - x ||
            y > sim_array_rows(s->array) || rows > sim_array_rows(s->array) - y ||
            z > sim_array_slices(s->array) || slices > sim_array_slices(s->array) - z)
            return CUDA_ERROR_INVALID_VALUE;
        s->x = x, s->y = y, s->z = z;
        return CUDA_SUCCESS;
    }
    if (pitch < width || (slices > 1 && height < rows))
        return CUDA_ERROR_INVALID_VALUE;
    if (slices > 1 && height && z > (size_t)-1 / height / (pitch ? pitch : 1))
        return CUDA_ERROR_INVALID_VALUE;
    size_t first = (z * height + y) * pitch + x;
    size_t span = ((slices - 1) * height + (rows - 1)) * pitch + width;
    s->pitch = pitch;
    s->height = height;
    switch (type) {
    case CU_MEMORYTYPE_HOST:
        if (!host)
            return CUDA_ERROR_INVALID_VALUE;
        s->base = (char *)host + first;
        return CUDA_SUCCESS;
    case CU_MEMORYTYPE_DEVICE:
        s->base = sim_resolve(dev + first, span, for_write);
        break;
    case CU_MEMORYTYPE_UNIFIED:
        s->base = sim_unified_view(dev + first, span, for_write);
        break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    return s->base ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static char *side_row(const side_t *s, size_t row, size_t slice, size_t width, int for_write)
{
    if (s->array)
        return sim_array_row(s->array, s->x, s->y + row, s->z + slice, width, for_write);
    return s->base + (slice * s->height + row) * s->pitch;
}

CUresult sim_copy3d(const CUDA_MEMCPY3D *p)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    size_t w = p->WidthInBytes, rows = p->Height ? p->Height : 1, slices = p->Depth ? p->Depth : 1;
    if (w == 0)
        return CUDA_SUCCESS;
    side_t src, dst;
    rc = side_open(&src, p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcXInBytes,
                   p->srcY, p->srcZ, p->srcPitch, p->srcHeight, w, rows, slices, 0);
    if (rc == CUDA_SUCCESS)
        rc =
            side_open(&dst, p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstXInBytes,
                      p->dstY, p->dstZ, p->dstPitch, p->dstHeight, w, rows, slices, 1);
    for (size_t k = 0; rc == CUDA_SUCCESS && k < slices; k++) {
        for (size_t r = 0; r < rows; r++) {
            char *to = side_row(&dst, r, k, w, 1), *from = side_row(&src, r, k, w, 0);
            if (!to || !from)
                return CUDA_ERROR_OUT_OF_MEMORY;
            memmove(to, from, w);
        }
    }
    return rc;
}

static CUresult copy3d_locked(const CUDA_MEMCPY3D *p)
{
    SIM_LOCK();
    CUresult rc = sim_copy3d(p);
    SIM_UNLOCK();
    return rc;
}

/* An asynchronous copy on a capturing stream becomes a memcpy node, run when the graph runs:
 * 1 and *rc when it was captured (or swallowed by an invalidated capture), 0 otherwise. */
int sim_capture_copy(CUstream stream, const CUDA_MEMCPY3D *p, CUresult *rc)
{
    SIM_LOCK();
    int invalid;
    sim_capture_t *c = p->WidthInBytes ? sim_capture_active(stream, &invalid) : NULL;
    if (c) {
        sim_node_t node;
        memset(&node, 0, sizeof node);
        node.type = CU_GRAPH_NODE_TYPE_MEMCPY;
        node.copy = *p;
        *rc = invalid ? CUDA_SUCCESS : sim_capture_add(c, &node, NULL);
    }
    SIM_UNLOCK();
    return c != NULL;
}

/* The 3D form of a 2D copy: depth 1. */
static void copy2d_as_3d(const CUDA_MEMCPY2D *p, CUDA_MEMCPY3D *out)
{
    CUDA_MEMCPY3D q;
    memset(&q, 0, sizeof q);
    q.srcXInBytes = p->srcXInBytes, q.srcY = p->srcY, q.srcMemoryType = p->srcMemoryType;
    q.srcHost = p->srcHost, q.srcDevice = p->srcDevice, q.srcArray = p->srcArray;
    q.srcPitch = p->srcPitch;
    q.dstXInBytes = p->dstXInBytes, q.dstY = p->dstY, q.dstMemoryType = p->dstMemoryType;
    q.dstHost = p->dstHost, q.dstDevice = p->dstDevice, q.dstArray = p->dstArray;
    q.dstPitch = p->dstPitch;
    q.WidthInBytes = p->WidthInBytes, q.Height = p->Height, q.Depth = 1;
    *out = q;
}

static CUresult copy2d(const CUDA_MEMCPY2D *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_MEMCPY3D q;
    copy2d_as_3d(p, &q);
    return copy3d_locked(&q);
}

SIM_EXPORT CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *pCopy)
{
    return copy2d(pCopy);
}

SIM_EXPORT CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *pCopy)
{
    return copy2d(pCopy);
}

SIM_EXPORT CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy, CUstream hStream)
{
    CUresult rc = sim_stream_check(hStream);
    if (rc != CUDA_SUCCESS || !pCopy)
        return rc != CUDA_SUCCESS ? rc : CUDA_ERROR_INVALID_VALUE;
    CUDA_MEMCPY3D q;
    copy2d_as_3d(pCopy, &q);
    return sim_capture_copy(hStream, &q, &rc) ? rc : copy3d_locked(&q);
}

SIM_EXPORT CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *pCopy)
{
    return copy3d_locked(pCopy);
}

SIM_EXPORT CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *pCopy, CUstream hStream)
{
    CUresult rc = sim_stream_check(hStream);
    if (rc != CUDA_SUCCESS || !pCopy)
        return rc != CUDA_SUCCESS ? rc : CUDA_ERROR_INVALID_VALUE;
    return sim_capture_copy(hStream, pCopy, &rc) ? rc : copy3d_locked(pCopy);
}

SIM_EXPORT CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *pCopy)
{
    return copy2d(pCopy);
}

SIM_EXPORT CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *pCopy, CUstream hStream)
{
    return cuMemcpy2DAsync_v2(pCopy, hStream);
}

SIM_EXPORT CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *pCopy)
{
    return copy3d_locked(pCopy);
}

SIM_EXPORT CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *pCopy, CUstream hStream)
{
    return cuMemcpy3DAsync_v2(pCopy, hStream);
}

SIM_EXPORT CUresult cuMemcpyAtoA_v2(CUarray dstArray, size_t dstOffset, CUarray srcArray,
                                    size_t srcOffset, size_t ByteCount)
{
    /* Linear offsets inside two arrays of one row each way is the common use (1D arrays). */
    CUDA_MEMCPY3D q;
    memset(&q, 0, sizeof q);
    q.srcMemoryType = q.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    q.srcArray = srcArray, q.dstArray = dstArray;
    q.srcXInBytes = srcOffset, q.dstXInBytes = dstOffset;
    q.WidthInBytes = ByteCount, q.Height = 1, q.Depth = 1;
    return copy3d_locked(&q);
}

/* ---- 2D sets: Width elements in each of Height rows, dstPitch bytes apart ---------------- */

/* Sets width elements of elem_bytes in each of height rows, pitch bytes apart; sim_lock held. */
CUresult sim_set2d(CUdeviceptr dst, size_t pitch, unsigned value, unsigned elem_bytes, size_t width,
                   size_t height)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS || !width || !height)
        return rc;
    if (width > (size_t)-1 / elem_bytes || dst % elem_bytes || (height > 1 && pitch % elem_bytes))
        return CUDA_ERROR_INVALID_VALUE;
    side_t s;
    rc = side_open(&s, CU_MEMORYTYPE_DEVICE, NULL, dst, NULL, 0, 0, 0,
                   height > 1 ? pitch : width * elem_bytes, height, width * elem_bytes, height, 1,
                   1);
    for (size_t r = 0; rc == CUDA_SUCCESS && r < height; r++) {
        char *row = side_row(&s, r, 0, width * elem_bytes, 1);
        for (size_t i = 0; i < width; i++)
            memcpy(row + i * elem_bytes, &value, elem_bytes); /* little-endian: the low bytes */
    }
    return rc;
}

static CUresult set2d(CUdeviceptr dst, size_t pitch, unsigned value, unsigned elem_bytes,
                      size_t width, size_t height, CUstream stream, int is_async)
{
    CUresult rc = is_async ? sim_stream_check(stream) : CUDA_SUCCESS;
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    int invalid;
    sim_capture_t *c = is_async && width && height ? sim_capture_active(stream, &invalid) : NULL;
    if (c) { /* a memset node, run when the graph runs */
        sim_node_t node;
        memset(&node, 0, sizeof node);
        node.type = CU_GRAPH_NODE_TYPE_MEMSET;
        node.set.dst = dst, node.set.pitch = pitch, node.set.value = value;
        node.set.elementSize = elem_bytes, node.set.width = width, node.set.height = height;
        rc = invalid ? CUDA_SUCCESS : sim_capture_add(c, &node, NULL);
    } else {
        rc = sim_set2d(dst, pitch, value, elem_bytes, width, height);
    }
    SIM_UNLOCK();
    return rc;
}

/* A 1D asynchronous set: one row of n elements. */
CUresult sim_memset_async(CUdeviceptr dst, unsigned value, unsigned elem_bytes, size_t n,
                          CUstream stream)
{
    if (n > (size_t)-1 / elem_bytes)
        return CUDA_ERROR_INVALID_VALUE;
    return set2d(dst, n * elem_bytes, value, elem_bytes, n, 1, stream, 1);
}

SIM_EXPORT CUresult cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                                    size_t Width, size_t Height)
{
    return set2d(dstDevice, dstPitch, uc, 1, Width, Height, NULL, 0);
}

SIM_EXPORT CUresult cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
                                     size_t Width, size_t Height)
{
    return set2d(dstDevice, dstPitch, us, 2, Width, Height, NULL, 0);
}

SIM_EXPORT CUresult cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
                                     size_t Width, size_t Height)
{
    return set2d(dstDevice, dstPitch, ui, 4, Width, Height, NULL, 0);
}

SIM_EXPORT CUresult cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                                      size_t Width, size_t Height, CUstream hStream)
{
    return set2d(dstDevice, dstPitch, uc, 1, Width, Height, hStream, 1);
}

SIM_EXPORT CUresult cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
                                       size_t Width, size_t Height, CUstream hStream)
{
    return set2d(dstDevice, dstPitch, us, 2, Width, Height, hStream, 1);
}

SIM_EXPORT CUresult cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
                                       size_t Width, size_t Height, CUstream hStream)
{
    return set2d(dstDevice, dstPitch, ui, 4, Width, Height, hStream, 1);
}

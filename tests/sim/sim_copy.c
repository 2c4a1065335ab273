/* SPDX-License-Identifier: MIT */
/* Linear copies and sets of the simulated driver. Every device range must lie inside one live
 * allocation or VMM mapping (CUDA_ERROR_INVALID_VALUE otherwise, as a wrong size is an error on a
 * GPU); with unified addressing, any other address is host memory the caller owns. Work completes
 * when issued: an asynchronous form checks its stream and then does what the synchronous one does.
 * The _ptds/_ptsz exports are the same functions (the per-thread default stream is a default
 * stream here). */
#include <string.h>
#include "sim_internal.h"

/* Unified addressing: a device address resolves through the registry; anything else is host
 * memory the caller owns. NULL for a simulated device or VMM address that is not live. */
void *sim_unified_view(CUdeviceptr p, size_t len, int for_write)
{
    void *view = sim_resolve(p, len, for_write);
    if (view)
        return view;
    if ((p >= SIM_VMM_VA_BASE && p < SIM_VA_END) || p == 0)
        return NULL;
    return (void *)p;
}

static CUresult copy(CUdeviceptr dst, CUdeviceptr src, size_t n, int dst_device, int src_device)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS || n == 0)
        return rc;
    void *to = dst_device ? sim_resolve(dst, n, 1) : sim_unified_view(dst, n, 1);
    void *from = src_device ? sim_resolve(src, n, 0) : sim_unified_view(src, n, 0);
    if (!to || !from)
        return CUDA_ERROR_INVALID_VALUE;
    memmove(to, from, n);
    return CUDA_SUCCESS;
}

static CUresult copy_locked(CUdeviceptr dst, CUdeviceptr src, size_t n, int dst_device,
                            int src_device)
{
    SIM_LOCK();
    CUresult rc = copy(dst, src, n, dst_device, src_device);
    SIM_UNLOCK();
    return rc;
}

/* CUDA_SUCCESS when the stream is usable; a stream-taking call checks it first. */
CUresult sim_stream_check(CUstream s)
{
    SIM_LOCK();
    int ok = sim_valid_stream(s, NULL);
    SIM_UNLOCK();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    if (!srcHost && ByteCount)
        return CUDA_ERROR_INVALID_VALUE;
    return copy_locked(dstDevice, (CUdeviceptr)srcHost, ByteCount, 1, 0);
}

SIM_EXPORT CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    if (!dstHost && ByteCount)
        return CUDA_ERROR_INVALID_VALUE;
    return copy_locked((CUdeviceptr)dstHost, srcDevice, ByteCount, 0, 1);
}

SIM_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    return copy_locked(dstDevice, srcDevice, ByteCount, 1, 1);
}

SIM_EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
    return copy_locked(dst, src, ByteCount, 0, 0);
}

/* Peer copies: the contexts only have to be live; the addresses say where the bytes are. */
SIM_EXPORT CUresult cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                                 CUcontext srcContext, size_t ByteCount)
{
    SIM_LOCK();
    CUresult rc = sim_ctx_lookup(dstContext) && sim_ctx_lookup(srcContext)
                      ? copy(dstDevice, srcDevice, ByteCount, 1, 1)
                      : CUDA_ERROR_INVALID_CONTEXT;
    SIM_UNLOCK();
    return rc;
}

/* An asynchronous linear copy: a memcpy node on a capturing stream, else done now. A host side
 * is HOST memory, a device side DEVICE, and a cuMemcpyAsync side UNIFIED. */
static CUresult copy_async(CUdeviceptr dst, CUmemorytype dst_type, CUdeviceptr src,
                           CUmemorytype src_type, size_t n, CUstream stream)
{
    CUresult rc = sim_stream_check(stream);
    if (rc != CUDA_SUCCESS)
        return rc;
    CUDA_MEMCPY3D q;
    memset(&q, 0, sizeof q);
    q.srcMemoryType = src_type, q.dstMemoryType = dst_type;
    q.srcHost = (const void *)src, q.srcDevice = src, q.srcPitch = n;
    q.dstHost = (void *)dst, q.dstDevice = dst, q.dstPitch = n;
    q.WidthInBytes = n, q.Height = 1, q.Depth = 1;
    if (sim_capture_copy(stream, &q, &rc))
        return rc;
    return copy_locked(dst, src, n, dst_type == CU_MEMORYTYPE_DEVICE,
                       src_type == CU_MEMORYTYPE_DEVICE);
}

SIM_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost,
                                         size_t ByteCount, CUstream hStream)
{
    if (!srcHost && ByteCount)
        return CUDA_ERROR_INVALID_VALUE;
    return copy_async(dstDevice, CU_MEMORYTYPE_DEVICE, (CUdeviceptr)srcHost, CU_MEMORYTYPE_HOST,
                      ByteCount, hStream);
}

SIM_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                         CUstream hStream)
{
    if (!dstHost && ByteCount)
        return CUDA_ERROR_INVALID_VALUE;
    return copy_async((CUdeviceptr)dstHost, CU_MEMORYTYPE_HOST, srcDevice, CU_MEMORYTYPE_DEVICE,
                      ByteCount, hStream);
}

SIM_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                         size_t ByteCount, CUstream hStream)
{
    return copy_async(dstDevice, CU_MEMORYTYPE_DEVICE, srcDevice, CU_MEMORYTYPE_DEVICE, ByteCount,
                      hStream);
}

SIM_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
                                  CUstream hStream)
{
    return copy_async(dst, CU_MEMORYTYPE_UNIFIED, src, CU_MEMORYTYPE_UNIFIED, ByteCount, hStream);
}

SIM_EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext,
                                      CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount,
                                      CUstream hStream)
{
    SIM_LOCK();
    int contexts_ok = sim_ctx_lookup(dstContext) && sim_ctx_lookup(srcContext);
    SIM_UNLOCK();
    return contexts_ok ? cuMemcpyDtoDAsync_v2(dstDevice, srcDevice, ByteCount, hStream)
                       : CUDA_ERROR_INVALID_CONTEXT;
}

SIM_EXPORT CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void *srcHost,
                                         size_t ByteCount)
{
    return cuMemcpyHtoD_v2(dstDevice, srcHost, ByteCount);
}

SIM_EXPORT CUresult cuMemcpyDtoH_v2_ptds(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    return cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount);
}

SIM_EXPORT CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                         size_t ByteCount)
{
    return cuMemcpyDtoD_v2(dstDevice, srcDevice, ByteCount);
}

SIM_EXPORT CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
    return cuMemcpy(dst, src, ByteCount);
}

SIM_EXPORT CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice, const void *srcHost,
                                              size_t ByteCount, CUstream hStream)
{
    return cuMemcpyHtoDAsync_v2(dstDevice, srcHost, ByteCount, hStream);
}

SIM_EXPORT CUresult cuMemcpyDtoHAsync_v2_ptsz(void *dstHost, CUdeviceptr srcDevice,
                                              size_t ByteCount, CUstream hStream)
{
    return cuMemcpyDtoHAsync_v2(dstHost, srcDevice, ByteCount, hStream);
}

SIM_EXPORT CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                              size_t ByteCount, CUstream hStream)
{
    return cuMemcpyDtoDAsync_v2(dstDevice, srcDevice, ByteCount, hStream);
}

SIM_EXPORT CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
                                       CUstream hStream)
{
    return cuMemcpyAsync(dst, src, ByteCount, hStream);
}

/* ---- arrays, addressed linearly: byte offset o is row o / row bytes, column o % row bytes -- */

/* Copies n bytes between an array at byte offset `offset` and `mem` (host or unified view).
 * sim_lock held. */
static CUresult array_linear(CUarray array, size_t offset, void *mem, size_t n, int into_array)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    sim_array_t *a = sim_array_lookup(array);
    if (!a)
        return CUDA_ERROR_INVALID_HANDLE;
    size_t row_bytes = sim_array_row_bytes(a), rows = sim_array_rows(a);
    size_t total = row_bytes * rows * sim_array_slices(a);
    if (offset > total || n > total - offset) /* checked before any byte moves */
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t done = 0; done < n;) {
        size_t at = offset + done, x = at % row_bytes, row = at / row_bytes;
        size_t len = row_bytes - x < n - done ? row_bytes - x : n - done;
        char *p = sim_array_row(a, x, row % rows, row / rows, len, into_array);
        if (!p)
            return CUDA_ERROR_INVALID_VALUE;
        if (into_array)
            memcpy(p, (char *)mem + done, len);
        else
            memcpy((char *)mem + done, p, len);
        done += len;
    }
    return CUDA_SUCCESS;
}

static CUresult array_host(CUarray array, size_t offset, void *host, size_t n, int into_array)
{
    if (!host && n)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    CUresult rc = array_linear(array, offset, host, n, into_array);
    SIM_UNLOCK();
    return rc;
}

static CUresult array_device(CUarray array, size_t offset, CUdeviceptr dptr, size_t n,
                             int into_array)
{
    SIM_LOCK();
    void *view = n ? sim_resolve(dptr, n, !into_array) : NULL;
    CUresult rc =
        n && !view ? CUDA_ERROR_INVALID_VALUE : array_linear(array, offset, view, n, into_array);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemcpyHtoA_v2(CUarray dstArray, size_t dstOffset, const void *srcHost,
                                    size_t ByteCount)
{
    return array_host(dstArray, dstOffset, (void *)srcHost, ByteCount, 1);
}

SIM_EXPORT CUresult cuMemcpyAtoH_v2(void *dstHost, CUarray srcArray, size_t srcOffset,
                                    size_t ByteCount)
{
    return array_host(srcArray, srcOffset, dstHost, ByteCount, 0);
}

SIM_EXPORT CUresult cuMemcpyDtoA_v2(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice,
                                    size_t ByteCount)
{
    return array_device(dstArray, dstOffset, srcDevice, ByteCount, 1);
}

SIM_EXPORT CUresult cuMemcpyAtoD_v2(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset,
                                    size_t ByteCount)
{
    return array_device(srcArray, srcOffset, dstDevice, ByteCount, 0);
}

SIM_EXPORT CUresult cuMemcpyHtoAAsync_v2(CUarray dstArray, size_t dstOffset, const void *srcHost,
                                         size_t ByteCount, CUstream hStream)
{
    CUresult rc = sim_stream_check(hStream);
    return rc != CUDA_SUCCESS ? rc : cuMemcpyHtoA_v2(dstArray, dstOffset, srcHost, ByteCount);
}

SIM_EXPORT CUresult cuMemcpyAtoHAsync_v2(void *dstHost, CUarray srcArray, size_t srcOffset,
                                         size_t ByteCount, CUstream hStream)
{
    CUresult rc = sim_stream_check(hStream);
    return rc != CUDA_SUCCESS ? rc : cuMemcpyAtoH_v2(dstHost, srcArray, srcOffset, ByteCount);
}

/* ---- sets -------------------------------------------------------------------------------- */

static CUresult memset_elements(CUdeviceptr dst, const void *value, size_t elem_bytes, size_t n)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS || n == 0)
        return rc;
    if (n > (size_t)-1 / elem_bytes || dst % elem_bytes)
        return CUDA_ERROR_INVALID_VALUE;
    char *to = sim_resolve(dst, n * elem_bytes, 1);
    if (!to)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < n; i++)
        memcpy(to + i * elem_bytes, value, elem_bytes);
    return CUDA_SUCCESS;
}

static CUresult memset_locked(CUdeviceptr dst, const void *value, size_t elem_bytes, size_t n)
{
    SIM_LOCK();
    CUresult rc = memset_elements(dst, value, elem_bytes, n);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    return memset_locked(dstDevice, &uc, 1, N);
}

SIM_EXPORT CUresult cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N)
{
    return memset_locked(dstDevice, &us, 2, N);
}

SIM_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    return memset_locked(dstDevice, &ui, 4, N);
}

SIM_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N,
                                    CUstream hStream)
{
    return sim_memset_async(dstDevice, uc, 1, N, hStream);
}

SIM_EXPORT CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N,
                                     CUstream hStream)
{
    return sim_memset_async(dstDevice, us, 2, N, hStream);
}

SIM_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N,
                                     CUstream hStream)
{
    return sim_memset_async(dstDevice, ui, 4, N, hStream);
}

SIM_EXPORT CUresult cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    return cuMemsetD8_v2(dstDevice, uc, N);
}

SIM_EXPORT CUresult cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    return cuMemsetD32_v2(dstDevice, ui, N);
}

SIM_EXPORT CUresult cuMemsetD8Async_ptsz(CUdeviceptr dstDevice, unsigned char uc, size_t N,
                                         CUstream hStream)
{
    return cuMemsetD8Async(dstDevice, uc, N, hStream);
}

SIM_EXPORT CUresult cuMemsetD32Async_ptsz(CUdeviceptr dstDevice, unsigned int ui, size_t N,
                                          CUstream hStream)
{
    return cuMemsetD32Async(dstDevice, ui, N, hStream);
}

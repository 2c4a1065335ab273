/* SPDX-License-Identifier: MIT */
/* The simulated driver's ordinary memory: device, pitched, managed, pinned-host and registered
 * host allocations, arrays, IPC handles, copies and sets, and the information queries. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sim_internal.h"

/* The host view of device bytes [ptr, ptr+len): the allocation's backing, made on first write.
 * Returns NULL when the range is not inside one live allocation or VMM mapping. sim_lock held. */
void *sim_resolve(CUdeviceptr ptr, size_t len, int for_write)
{
    sim_alloc_t *a = sim_alloc_containing(ptr, len);
    if (!a)
        return sim_vmm_resolve(ptr, len);
    if (!a->backing) {
        static char zeros[4096];
        if (!for_write && len <= sizeof zeros)
            return zeros; /* never written: reads as zeros without costing memory */
        a->backing = sim_host_map(a->size_bytes);
        if (!a->backing)
            return NULL;
    }
    return (char *)a->backing + (ptr - a->base);
}

/* Device memory in the current context: charge, take an address, register. sim_lock held. */
static CUresult device_alloc(CUdeviceptr *dptr, size_t size_bytes)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!dptr || size_bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    size_t charged = sim_round_up(size_bytes, SIM_ALIGN_BYTES);
    if (charged < size_bytes || (rc = sim_charge(dev, charged)) != CUDA_SUCCESS)
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUdeviceptr base = sim_va_take(dev, size_bytes, SIM_ALIGN_BYTES);
    if (!base || !sim_alloc_add(base, size_bytes, charged, SIM_KIND_DEVICE, dev)) {
        sim_uncharge(dev, charged);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *dptr = base;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    SIM_LOCK();
    CUresult rc = device_alloc(dptr, bytesize);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
                                       size_t Height, unsigned int ElementSizeBytes)
{
    if (!pPitch || WidthInBytes == 0 || Height == 0 ||
        (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
        return CUDA_ERROR_INVALID_VALUE;
    size_t pitch = sim_round_up(WidthInBytes, SIM_ALIGN_BYTES);
    if (Height > (size_t)-1 / pitch)
        return CUDA_ERROR_OUT_OF_MEMORY;
    SIM_LOCK();
    CUresult rc = device_alloc(dptr, pitch * Height);
    SIM_UNLOCK();
    if (rc == CUDA_SUCCESS)
        *pPitch = pitch;
    return rc;
}

SIM_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    int dev;
    SIM_LOCK();
    CUresult rc = sim_current_device(&dev);
    if (rc == CUDA_SUCCESS &&
        (!dptr || bytesize == 0 || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS) {
        /* Managed memory is host-accessible and may oversubscribe the device: not charged. */
        void *p = sim_host_map(bytesize);
        sim_alloc_t *a =
            p ? sim_alloc_add((CUdeviceptr)p, bytesize, 0, SIM_KIND_MANAGED, dev) : NULL;
        if (!a) {
            if (p)
                sim_host_unmap(p, bytesize);
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            a->backing = p;
            *dptr = (CUdeviceptr)p;
        }
    }
    SIM_UNLOCK();
    return rc;
}

/* cuMemFree_v2 frees any device-addressable allocation: ordinary, managed, stream-ordered (the
 * driver synchronizes first) and graph allocations. */
SIM_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    int dev;
    SIM_LOCK();
    CUresult rc = sim_current_device(&dev);
    sim_alloc_t *a = rc == CUDA_SUCCESS ? sim_alloc_find(dptr) : NULL;
    if (rc == CUDA_SUCCESS && (!a || a->kind == SIM_KIND_HOST ||
                               a->kind == SIM_KIND_HOST_REGISTERED || a->kind == SIM_KIND_IPC))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS) {
        if (a->kind == SIM_KIND_ASYNC)
            sim_async_free(a);
        else if (a->kind == SIM_KIND_GRAPH)
            sim_graph_free(a);
        sim_alloc_remove(a);
    }
    SIM_UNLOCK();
    return rc;
}

/* ---- pinned host memory ------------------------------------------------------------------ */

static CUresult host_alloc(void **pp, size_t bytesize, unsigned int Flags)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pp || bytesize == 0 ||
        (Flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                             CU_MEMHOSTALLOC_WRITECOMBINED)))
        return CUDA_ERROR_INVALID_VALUE;
    void *p = sim_host_map(bytesize);
    sim_alloc_t *a = p ? sim_alloc_add((CUdeviceptr)p, bytesize, 0, SIM_KIND_HOST, dev) : NULL;
    if (!a) {
        if (p)
            sim_host_unmap(p, bytesize);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->backing = p;
    *pp = p;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    SIM_LOCK();
    CUresult rc = host_alloc(pp, bytesize, Flags);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    SIM_LOCK();
    CUresult rc = host_alloc(pp, bytesize, 0);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemFreeHost(void *p)
{
    int dev;
    SIM_LOCK();
    CUresult rc = sim_current_device(&dev);
    sim_alloc_t *a = rc == CUDA_SUCCESS ? sim_alloc_find((CUdeviceptr)p) : NULL;
    if (rc == CUDA_SUCCESS && (!a || a->kind != SIM_KIND_HOST))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        sim_alloc_remove(a);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    int dev;
    SIM_LOCK();
    CUresult rc = sim_current_device(&dev);
    if (rc == CUDA_SUCCESS &&
        (!p || bytesize == 0 ||
         (Flags & ~(unsigned)(CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                              CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY))))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS) {
        sim_alloc_t *a, *tmp;
        CUdeviceptr lo = (CUdeviceptr)p, hi = lo + bytesize;
        HASH_ITER(hh, sim_allocs, a, tmp) {
            if ((a->kind == SIM_KIND_HOST_REGISTERED || a->kind == SIM_KIND_HOST) && a->base < hi &&
                lo < a->base + a->size_bytes)
                rc = CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
        }
    }
    if (rc == CUDA_SUCCESS) {
        sim_alloc_t *a = sim_alloc_add((CUdeviceptr)p, bytesize, 0, SIM_KIND_HOST_REGISTERED, dev);
        if (a)
            a->backing = p;
        else
            rc = CUDA_ERROR_OUT_OF_MEMORY;
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemHostUnregister(void *p)
{
    int dev;
    SIM_LOCK();
    CUresult rc = sim_current_device(&dev);
    sim_alloc_t *a = rc == CUDA_SUCCESS ? sim_alloc_find((CUdeviceptr)p) : NULL;
    if (rc == CUDA_SUCCESS && !p)
        rc = CUDA_ERROR_INVALID_VALUE;
    else if (rc == CUDA_SUCCESS && (!a || a->kind != SIM_KIND_HOST_REGISTERED))
        rc = CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    if (rc == CUDA_SUCCESS)
        sim_alloc_remove(a);
    SIM_UNLOCK();
    return rc;
}

/* ---- information ------------------------------------------------------------------------- */

/* NULL for either output is allowed, as the real driver allows it (HAMi-core #321). */
SIM_EXPORT CUresult cuMemGetInfo_v2(size_t *free, size_t *total)
{
    int dev;
    SIM_LOCK();
    CUresult rc = sim_current_device(&dev);
    if (rc == CUDA_SUCCESS) {
        if (free)
            *free = sim_devices[dev].capacity_bytes - sim_devices[dev].used_bytes;
        if (total)
            *total = sim_devices[dev].capacity_bytes;
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    int dev;
    SIM_LOCK();
    CUresult rc = sim_current_device(&dev);
    sim_alloc_t *a = rc == CUDA_SUCCESS ? sim_alloc_containing(dptr, 1) : NULL;
    if (rc == CUDA_SUCCESS && (!a || a->kind == SIM_KIND_HOST_REGISTERED))
        rc = CUDA_ERROR_NOT_FOUND;
    if (rc == CUDA_SUCCESS) {
        if (pbase)
            *pbase = a->base;
        if (psize)
            *psize = a->size_bytes;
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute,
                                          CUdeviceptr ptr)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!data)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    CUresult rc = CUDA_SUCCESS;
    sim_alloc_t *a = sim_alloc_containing(ptr, 1);
    if (!a) {
        rc = CUDA_ERROR_INVALID_VALUE;
    } else {
        int host = a->kind == SIM_KIND_HOST || a->kind == SIM_KIND_HOST_REGISTERED;
        switch (attribute) {
        case CU_POINTER_ATTRIBUTE_CONTEXT:
            *(CUcontext *)data = (CUcontext)&sim_devices[a->device].primary;
            break;
        case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
            *(unsigned int *)data = host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
            break;
        case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
            *(CUdeviceptr *)data = ptr;
            break;
        case CU_POINTER_ATTRIBUTE_IS_MANAGED:
            *(int *)data = a->kind == SIM_KIND_MANAGED;
            break;
        case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
            *(int *)data = a->device;
            break;
        case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
            *(CUdeviceptr *)data = a->base;
            break;
        case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
            *(size_t *)data = a->size_bytes;
            break;
        default:
            rc = CUDA_ERROR_INVALID_VALUE;
        }
    }
    SIM_UNLOCK();
    return rc;
}

/* ---- arrays: opaque device memory, charged as rows of 512-byte-aligned width --------------- */

typedef struct sim_array_s {
    int device;
    size_t charged_bytes;
    int is_mipmapped;
    struct sim_array_s *next;
} sim_array_t;

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

/* Bytes one level of an array takes, or 0 for an invalid descriptor. */
static size_t array_bytes(size_t w, size_t h, size_t d, CUarray_format f, unsigned channels)
{
    size_t elem = format_bytes(f);
    if (!elem || w == 0 || (channels != 1 && channels != 2 && channels != 4))
        return 0;
    return sim_round_up(w * elem * channels, SIM_ALIGN_BYTES) * (h ? h : 1) * (d ? d : 1);
}

static CUresult array_create(void **handle, size_t bytes, int is_mipmapped)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!handle || bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    sim_array_t *arr = calloc(1, sizeof *arr);
    if (!arr)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if ((rc = sim_charge(dev, bytes)) != CUDA_SUCCESS) {
        free(arr);
        return rc;
    }
    arr->device = dev;
    arr->charged_bytes = bytes;
    arr->is_mipmapped = is_mipmapped;
    arr->next = sim_arrays;
    sim_arrays = arr;
    *handle = arr;
    return CUDA_SUCCESS;
}

static CUresult array_destroy(void *handle, int is_mipmapped)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    for (sim_array_t **pp = &sim_arrays; *pp; pp = &(*pp)->next) {
        sim_array_t *arr = *pp;
        if (arr == handle && arr->is_mipmapped == is_mipmapped) {
            *pp = arr->next;
            sim_uncharge(arr->device, arr->charged_bytes);
            free(arr);
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray)
{
    if (!pAllocateArray)
        return CUDA_ERROR_INVALID_VALUE;
    const CUDA_ARRAY_DESCRIPTOR *d = pAllocateArray;
    SIM_LOCK();
    CUresult rc = array_create((void **)pHandle,
                               array_bytes(d->Width, d->Height, 0, d->Format, d->NumChannels), 0);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuArray3DCreate_v2(CUarray *pHandle,
                                       const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray)
{
    if (!pAllocateArray)
        return CUDA_ERROR_INVALID_VALUE;
    const CUDA_ARRAY3D_DESCRIPTOR *d = pAllocateArray;
    SIM_LOCK();
    CUresult rc = array_create(
        (void **)pHandle, array_bytes(d->Width, d->Height, d->Depth, d->Format, d->NumChannels), 0);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuArrayDestroy(CUarray hArray)
{
    SIM_LOCK();
    CUresult rc = array_destroy(hArray, 0);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMipmappedArrayCreate(CUmipmappedArray *pHandle,
                                           const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
                                           unsigned int numMipmapLevels)
{
    if (!pMipmappedArrayDesc || numMipmapLevels == 0)
        return CUDA_ERROR_INVALID_VALUE;
    const CUDA_ARRAY3D_DESCRIPTOR *d = pMipmappedArrayDesc;
    size_t total = 0, w = d->Width, h = d->Height, z = d->Depth;
    for (unsigned level = 0; level < numMipmapLevels; level++) {
        size_t level_bytes = array_bytes(w, h, z, d->Format, d->NumChannels);
        if (!level_bytes)
            return CUDA_ERROR_INVALID_VALUE;
        total += level_bytes;
        w = w > 1 ? w / 2 : 1;
        h = h > 1 ? h / 2 : h;
        z = z > 1 ? z / 2 : z;
    }
    SIM_LOCK();
    CUresult rc = array_create((void **)pHandle, total, 1);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray)
{
    SIM_LOCK();
    CUresult rc = array_destroy(hMipmappedArray, 1);
    SIM_UNLOCK();
    return rc;
}

/* ---- IPC: a handle names (process, device, address, size); opening maps a new range ------- */

typedef struct sim_ipc_handle_s {
    uint64_t magic;
    uint64_t pid;
    uint64_t device;
    uint64_t base;
    uint64_t size_bytes;
} sim_ipc_handle_t;
_Static_assert(sizeof(sim_ipc_handle_t) <= sizeof(CUipcMemHandle), "IPC handle fits");
#define SIM_IPC_MAGIC 0x76747369636970ULL /* "vtsicip" */

SIM_EXPORT CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
    int dev;
    SIM_LOCK();
    CUresult rc = sim_current_device(&dev);
    sim_alloc_t *a = rc == CUDA_SUCCESS ? sim_alloc_find(dptr) : NULL;
    if (rc == CUDA_SUCCESS && (!pHandle || !a || a->kind != SIM_KIND_DEVICE))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS) {
        sim_ipc_handle_t h = {SIM_IPC_MAGIC, (uint64_t)getpid(), (uint64_t)a->device, a->base,
                              a->size_bytes};
        memset(pHandle, 0, sizeof *pHandle);
        memcpy(pHandle, &h, sizeof h);
    }
    SIM_UNLOCK();
    return rc;
}

/* Opening in the allocating process itself fails as on the real driver; in another process the
 * peer's memory appears at a new address, not charged to this process's device. */
static CUresult ipc_open(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    sim_ipc_handle_t h;
    memcpy(&h, &handle, sizeof h);
    if (!pdptr || Flags != CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS || h.magic != SIM_IPC_MAGIC ||
        h.device >= (uint64_t)sim_n_devices || h.size_bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (h.pid == (uint64_t)getpid())
        return CUDA_ERROR_INVALID_CONTEXT;
    CUdeviceptr base = sim_va_take((int)h.device, h.size_bytes, SIM_ALIGN_BYTES);
    if (!base || !sim_alloc_add(base, h.size_bytes, 0, SIM_KIND_IPC, (int)h.device))
        return CUDA_ERROR_OUT_OF_MEMORY;
    *pdptr = base;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle,
                                       unsigned int Flags)
{
    SIM_LOCK();
    CUresult rc = ipc_open(pdptr, handle, Flags);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle,
                                          unsigned int Flags)
{
    SIM_LOCK();
    CUresult rc = ipc_open(pdptr, handle, Flags);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    int dev;
    SIM_LOCK();
    CUresult rc = sim_current_device(&dev);
    sim_alloc_t *a = rc == CUDA_SUCCESS ? sim_alloc_find(dptr) : NULL;
    if (rc == CUDA_SUCCESS && (!a || a->kind != SIM_KIND_IPC))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        sim_alloc_remove(a);
    SIM_UNLOCK();
    return rc;
}

/* ---- copies and sets --------------------------------------------------------------------- */

/* Unified addressing: a device address resolves through the registry; anything else is host
 * memory the caller owns. */
static void *unified_view(CUdeviceptr p, size_t len, int for_write)
{
    void *view = sim_resolve(p, len, for_write);
    if (view)
        return view;
    if ((p >= SIM_VMM_VA_BASE && p < SIM_VA_END) || p == 0)
        return NULL; /* a simulated device or VMM address that is not live */
    return (void *)p;
}

static CUresult copy(CUdeviceptr dst, CUdeviceptr src, size_t n, int dst_device, int src_device)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS || n == 0)
        return rc;
    void *to = dst_device ? sim_resolve(dst, n, 1) : unified_view(dst, n, 1);
    void *from = src_device ? sim_resolve(src, n, 0) : unified_view(src, n, 0);
    if (!to || !from)
        return CUDA_ERROR_INVALID_VALUE;
    memmove(to, from, n);
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    if (!srcHost && ByteCount)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    CUresult rc = copy(dstDevice, (CUdeviceptr)srcHost, ByteCount, 1, 0);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    if (!dstHost && ByteCount)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    CUresult rc = copy((CUdeviceptr)dstHost, srcDevice, ByteCount, 0, 1);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    SIM_LOCK();
    CUresult rc = copy(dstDevice, srcDevice, ByteCount, 1, 1);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
    SIM_LOCK();
    CUresult rc = copy(dst, src, ByteCount, 0, 0);
    SIM_UNLOCK();
    return rc;
}

static int stream_ok(CUstream s)
{
    SIM_LOCK();
    int ok = sim_valid_stream(s, NULL);
    SIM_UNLOCK();
    return ok;
}

SIM_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost,
                                         size_t ByteCount, CUstream hStream)
{
    if (!stream_ok(hStream))
        return CUDA_ERROR_INVALID_HANDLE;
    return cuMemcpyHtoD_v2(dstDevice, srcHost, ByteCount);
}

SIM_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                         CUstream hStream)
{
    if (!stream_ok(hStream))
        return CUDA_ERROR_INVALID_HANDLE;
    return cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount);
}

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

SIM_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    SIM_LOCK();
    CUresult rc = memset_elements(dstDevice, &uc, 1, N);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    SIM_LOCK();
    CUresult rc = memset_elements(dstDevice, &ui, 4, N);
    SIM_UNLOCK();
    return rc;
}

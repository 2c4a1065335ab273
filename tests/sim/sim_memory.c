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
    if (sim_capture_any() && sim_capture_prohibits_unsafe())
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
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
    if (rc == CUDA_SUCCESS && sim_capture_any() && sim_capture_prohibits_unsafe())
        rc = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
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
            a->flags = flags;
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
    if (rc == CUDA_SUCCESS && sim_capture_any() && sim_capture_prohibits_unsafe())
        rc = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
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
    a->flags = Flags;
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
        if (a) {
            a->backing = p;
            a->flags = Flags;
        } else {
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        }
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

/* ---- mapped host memory: with unified addressing the device pointer is the host pointer ---- */

/* The page-locked allocation or registration holding p, or NULL. sim_lock held. */
static sim_alloc_t *host_alloc_containing(const void *p)
{
    sim_alloc_t *a = sim_alloc_containing((CUdeviceptr)p, 1);
    return a && (a->kind == SIM_KIND_HOST || a->kind == SIM_KIND_HOST_REGISTERED) ? a : NULL;
}

SIM_EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    int dev;
    SIM_LOCK();
    CUresult rc = sim_current_device(&dev);
    if (rc == CUDA_SUCCESS && (!pdptr || Flags != 0 || !host_alloc_containing(p)))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        *pdptr = (CUdeviceptr)p;
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
    int dev;
    SIM_LOCK();
    CUresult rc = sim_current_device(&dev);
    sim_alloc_t *a = rc == CUDA_SUCCESS ? host_alloc_containing(p) : NULL;
    if (rc == CUDA_SUCCESS && (!pFlags || !a))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        *pFlags = a->flags;
    SIM_UNLOCK();
    return rc;
}

/* ---- managed memory hints: checked, then nothing to do (the bytes are in host memory) ----- */

/* CUDA_SUCCESS when [p, p + count) is inside one managed allocation. sim_lock held. */
static CUresult managed_range(CUdeviceptr p, size_t count)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    sim_alloc_t *a = count ? sim_alloc_containing(p, count) : NULL;
    return a && a->kind == SIM_KIND_MANAGED ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static int location_valid(CUmemLocation loc)
{
    switch (loc.type) {
    case CU_MEM_LOCATION_TYPE_DEVICE:
        return loc.id >= 0 && loc.id < sim_n_devices;
    case CU_MEM_LOCATION_TYPE_HOST:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
        return 1;
    default:
        return 0;
    }
}

SIM_EXPORT CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                                          unsigned int flags, CUstream hStream)
{
    CUresult rc = sim_stream_check(hStream);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    rc = managed_range(devPtr, count);
    SIM_UNLOCK();
    return rc == CUDA_SUCCESS && (flags != 0 || !location_valid(location))
               ? CUDA_ERROR_INVALID_VALUE
               : rc;
}

SIM_EXPORT CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count,
                                               CUmemLocation location, unsigned int flags,
                                               CUstream hStream)
{
    return cuMemPrefetchAsync_v2(devPtr, count, location, flags, hStream);
}

/* Advice 1..6: read-mostly, preferred location and accessed-by, each set and unset. */
SIM_EXPORT CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
                                   CUmemLocation location)
{
    SIM_LOCK();
    CUresult rc = managed_range(devPtr, count);
    SIM_UNLOCK();
    int needs_location = advice >= 3; /* the preferred-location and accessed-by advice */
    if (rc == CUDA_SUCCESS &&
        (advice < 1 || advice > 6 || (needs_location && !location_valid(location))))
        rc = CUDA_ERROR_INVALID_VALUE;
    return rc;
}

/* length 0 means the whole allocation, which dptr must then start. */
SIM_EXPORT CUresult cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr, size_t length,
                                           unsigned int flags)
{
    CUresult rc = sim_stream_check(hStream);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    sim_alloc_t *a = length ? NULL : sim_alloc_find(dptr);
    rc = managed_range(dptr, length ? length : a ? a->size_bytes : 0);
    SIM_UNLOCK();
    if (rc == CUDA_SUCCESS && flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST &&
        flags != CU_MEM_ATTACH_SINGLE)
        rc = CUDA_ERROR_INVALID_VALUE;
    return rc;
}

SIM_EXPORT CUresult cuStreamAttachMemAsync_ptsz(CUstream hStream, CUdeviceptr dptr, size_t length,
                                                unsigned int flags)
{
    return cuStreamAttachMemAsync(hStream, dptr, length, flags);
}

/* SPDX-License-Identifier: MIT */
/* The simulated driver's virtual memory management: physical handles (cuMemCreate) charged to a
 * device at creation and released when the last reference and the last mapping are gone, address
 * reservations that cost nothing, mappings of handles into reservations, and handles shared
 * through a file descriptor (exported, then imported as another handle to the same memory). */
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "sim_internal.h"

typedef struct vmm_handle_s {
    CUmemGenericAllocationHandle id;
    size_t size_bytes;
    int device;        /* -1 for host-located memory (HOST, HOST_NUMA): not device memory */
    unsigned refcount; /* cuMemCreate + cuMemRetainAllocationHandle − cuMemRelease */
    unsigned n_mappings;
    int exportable; /* created with the POSIX file-descriptor handle type requested */
    void *backing;  /* contents, shared by every mapping of the handle */
    /* An imported handle: the exported one whose memory it is, which it holds a reference to;
     * it is charged nothing itself. NULL for cuMemCreate's handles. */
    struct vmm_handle_s *origin;
    UT_hash_handle hh;
} vmm_handle_t;

typedef struct vmm_reservation_s {
    CUdeviceptr base;
    size_t size_bytes;
    struct vmm_reservation_s *next;
} vmm_reservation_t;

typedef struct vmm_mapping_s {
    CUdeviceptr base;
    size_t size_bytes;
    size_t offset_bytes;
    vmm_handle_t *handle;
    int access_set;
    struct vmm_mapping_s *next;
} vmm_mapping_t;

static vmm_handle_t *vmm_handles;
static vmm_reservation_t *vmm_reservations;
static vmm_mapping_t *vmm_mappings;
static CUmemGenericAllocationHandle vmm_next_id = 0x1000;
static sim_va_space_t vmm_va = {SIM_VMM_VA_BASE, SIM_VA_BASE, NULL};

/* File descriptors handed out by cuMemExportToShareableHandle, and the handle each names. The
 * program owns the descriptor (it closes it); a closed number reused by the system is found
 * again only if exported again, which replaces the row. */
#define SIM_N_EXPORTS 64
static struct {
    int fd;
    CUmemGenericAllocationHandle id;
} vmm_exports[SIM_N_EXPORTS];
static int vmm_n_exports;

static vmm_handle_t *handle_find(CUmemGenericAllocationHandle id)
{
    vmm_handle_t *h;
    HASH_FIND(hh, vmm_handles, &id, sizeof id, h);
    return h;
}

/* The handle whose memory a mapping of h shows: h itself, or what h was imported from. */
static vmm_handle_t *handle_memory(vmm_handle_t *h)
{
    return h->origin ? h->origin : h;
}

static void handle_maybe_free(vmm_handle_t *h)
{
    if (h->refcount || h->n_mappings)
        return;
    HASH_DEL(vmm_handles, h);
    if (h->origin) {
        vmm_handle_t *origin = h->origin;
        free(h);
        origin->refcount--;
        handle_maybe_free(origin);
        return;
    }
    if (h->device >= 0) {
        sim_uncharge(h->device, h->size_bytes);
        sim_series_remove(&sim_devices[h->device].allocs, h->size_bytes);
    }
    if (h->backing)
        sim_host_unmap(h->backing, h->size_bytes);
    free(h);
}

/* Valid allocation properties: pinned, on an existing device or on the host. Returns the device
 * ordinal, -1 for host memory, or -2 when invalid. */
static int prop_device(const CUmemAllocationProp *prop)
{
    if (!prop || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED)
        return -2;
    switch (prop->location.type) {
    case CU_MEM_LOCATION_TYPE_DEVICE:
        return prop->location.id >= 0 && prop->location.id < sim_n_devices ? prop->location.id : -2;
    case CU_MEM_LOCATION_TYPE_HOST:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
        return -1;
    default:
        return -2;
    }
}

void *sim_vmm_resolve(CUdeviceptr ptr, size_t len)
{
    for (vmm_mapping_t *m = vmm_mappings; m; m = m->next) {
        if (ptr < m->base || ptr - m->base >= m->size_bytes ||
            len > m->size_bytes - (ptr - m->base))
            continue;
        vmm_handle_t *h = handle_memory(m->handle);
        if (!h->backing && !(h->backing = sim_host_map(h->size_bytes)))
            return NULL;
        return (char *)h->backing + m->offset_bytes + (ptr - m->base);
    }
    return NULL;
}

SIM_EXPORT CUresult cuMemGetAllocationGranularity(size_t *granularity,
                                                  const CUmemAllocationProp *prop,
                                                  CUmemAllocationGranularity_flags option)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!granularity || prop_device(prop) == -2 ||
        (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
         option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
        return CUDA_ERROR_INVALID_VALUE;
    *granularity = SIM_GRAN_BYTES;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                                const CUmemAllocationProp *prop, unsigned long long flags)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    int dev = prop_device(prop);
    if (!handle || dev == -2 || size == 0 || size % SIM_GRAN_BYTES || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    vmm_handle_t *h = calloc(1, sizeof *h);
    if (!h)
        return CUDA_ERROR_OUT_OF_MEMORY;
    SIM_LOCK();
    CUresult rc = dev >= 0 ? sim_charge(dev, size) : CUDA_SUCCESS;
    if (rc == CUDA_SUCCESS) {
        h->id = vmm_next_id++;
        h->size_bytes = size;
        h->device = dev;
        h->refcount = 1;
        h->exportable =
            (prop->requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) != 0;
        HASH_ADD(hh, vmm_handles, id, sizeof h->id, h);
        if (dev >= 0)
            sim_series_add(&sim_devices[dev].allocs, size);
        *handle = h->id;
    } else {
        free(h);
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    SIM_LOCK();
    vmm_handle_t *h = handle_find(handle);
    CUresult rc = h && h->refcount ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS) {
        h->refcount--;
        handle_maybe_free(h);
    }
    SIM_UNLOCK();
    return rc;
}

/* The POSIX file-descriptor handle type only, as on Linux; the handle must have asked for it at
 * creation (CUmemAllocationProp.requestedHandleTypes), as cuda.h requires. */
SIM_EXPORT CUresult cuMemExportToShareableHandle(void *shareableHandle,
                                                 CUmemGenericAllocationHandle handle,
                                                 CUmemAllocationHandleType handleType,
                                                 unsigned long long flags)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!shareableHandle || handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    vmm_handle_t *h = handle_find(handle);
    CUresult rc = CUDA_SUCCESS;
    if (!h || !h->refcount || h->origin || !h->exportable)
        rc = CUDA_ERROR_INVALID_VALUE;
    int fd = rc == CUDA_SUCCESS ? eventfd(0, EFD_CLOEXEC) : -1;
    if (rc == CUDA_SUCCESS && fd < 0)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (fd >= 0) {
        int row = 0;
        while (row < vmm_n_exports && vmm_exports[row].fd != fd)
            row++;
        if (row == SIM_N_EXPORTS) {
            close(fd);
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            vmm_exports[row].fd = fd;
            vmm_exports[row].id = h->id;
            vmm_n_exports += row == vmm_n_exports;
            *(int *)shareableHandle = fd;
        }
    }
    SIM_UNLOCK();
    return rc;
}

/* A new handle to the exported memory, holding a reference to it: the device is not charged
 * again, and the memory is freed when both handles (and their mappings) are gone. */
SIM_EXPORT CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle,
                                                   void *osHandle,
                                                   CUmemAllocationHandleType shHandleType)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!handle || shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_INVALID_VALUE;
    int fd = (int)(intptr_t)osHandle;
    vmm_handle_t *imported = calloc(1, sizeof *imported);
    if (!imported)
        return CUDA_ERROR_OUT_OF_MEMORY;
    SIM_LOCK();
    vmm_handle_t *origin = NULL;
    for (int row = 0; row < vmm_n_exports; row++)
        if (vmm_exports[row].fd == fd)
            origin = handle_find(vmm_exports[row].id);
    CUresult rc = origin && origin->refcount ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS) {
        origin->refcount++;
        imported->id = vmm_next_id++;
        imported->size_bytes = origin->size_bytes;
        imported->device = -1;
        imported->refcount = 1;
        imported->origin = origin;
        HASH_ADD(hh, vmm_handles, id, sizeof imported->id, imported);
        *handle = imported->id;
    } else {
        free(imported);
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                        CUdeviceptr addr, unsigned long long flags)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!ptr || size == 0 || size % SIM_GRAN_BYTES || flags != 0 || (alignment & (alignment - 1)))
        return CUDA_ERROR_INVALID_VALUE;
    (void)addr; /* a hint; the simulator always picks a fresh range, which the driver may do */
    size_t align = alignment > SIM_GRAN_BYTES ? alignment : SIM_GRAN_BYTES;
    vmm_reservation_t *r = calloc(1, sizeof *r);
    if (!r)
        return CUDA_ERROR_OUT_OF_MEMORY;
    SIM_LOCK();
    CUdeviceptr base = sim_va_space_take(&vmm_va, size, align);
    CUresult rc = CUDA_SUCCESS;
    if (!base) {
        rc = CUDA_ERROR_OUT_OF_MEMORY;
        free(r);
    } else {
        r->base = base;
        r->size_bytes = size;
        r->next = vmm_reservations;
        vmm_reservations = r;
        *ptr = base;
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    SIM_LOCK();
    CUresult rc = CUDA_ERROR_INVALID_VALUE;
    for (vmm_reservation_t **pp = &vmm_reservations; *pp; pp = &(*pp)->next) {
        vmm_reservation_t *r = *pp;
        if (r->base != ptr || r->size_bytes != size)
            continue;
        int mapped = 0;
        for (vmm_mapping_t *m = vmm_mappings; m; m = m->next)
            mapped |= m->base >= r->base && m->base - r->base < r->size_bytes;
        if (!mapped) {
            *pp = r->next;
            sim_va_space_give(&vmm_va, r->base, r->size_bytes);
            free(r);
            rc = CUDA_SUCCESS;
        }
        break;
    }
    SIM_UNLOCK();
    return rc;
}

static int inside_reservation(CUdeviceptr ptr, size_t size)
{
    for (vmm_reservation_t *r = vmm_reservations; r; r = r->next)
        if (ptr >= r->base && ptr - r->base <= r->size_bytes &&
            size <= r->size_bytes - (ptr - r->base))
            return 1;
    return 0;
}

SIM_EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                             CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (size == 0 || size % SIM_GRAN_BYTES || ptr % SIM_GRAN_BYTES || offset % SIM_GRAN_BYTES ||
        flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    vmm_handle_t *h = handle_find(handle);
    CUresult rc = CUDA_SUCCESS;
    if (!h || !h->refcount || offset > h->size_bytes || size > h->size_bytes - offset ||
        !inside_reservation(ptr, size))
        rc = CUDA_ERROR_INVALID_VALUE;
    for (vmm_mapping_t *m = vmm_mappings; rc == CUDA_SUCCESS && m; m = m->next)
        if (m->base < ptr + size && ptr < m->base + m->size_bytes)
            rc = CUDA_ERROR_ALREADY_MAPPED;
    vmm_mapping_t *m = rc == CUDA_SUCCESS ? calloc(1, sizeof *m) : NULL;
    if (rc == CUDA_SUCCESS && !m)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (m) {
        m->base = ptr;
        m->size_bytes = size;
        m->offset_bytes = offset;
        m->handle = h;
        m->next = vmm_mappings;
        vmm_mappings = m;
        h->n_mappings++;
    }
    SIM_UNLOCK();
    return rc;
}

/* The range must cover whole mappings: every mapping it touches must lie inside it. */
SIM_EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    CUresult rc = CUDA_SUCCESS;
    int n_inside = 0;
    for (vmm_mapping_t *m = vmm_mappings; m; m = m->next) {
        int overlaps = m->base < ptr + size && ptr < m->base + m->size_bytes;
        int inside = m->base >= ptr && m->base + m->size_bytes <= ptr + size;
        if (overlaps && !inside)
            rc = CUDA_ERROR_INVALID_VALUE;
        n_inside += inside;
    }
    if (rc == CUDA_SUCCESS && n_inside == 0)
        rc = CUDA_ERROR_INVALID_VALUE;
    for (vmm_mapping_t **pp = &vmm_mappings; rc == CUDA_SUCCESS && *pp;) {
        vmm_mapping_t *m = *pp;
        if (m->base >= ptr && m->base + m->size_bytes <= ptr + size) {
            *pp = m->next;
            m->handle->n_mappings--;
            handle_maybe_free(m->handle);
            free(m);
        } else {
            pp = &m->next;
        }
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
                                   size_t count)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!desc || count == 0 || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < count; i++) {
        if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE || desc[i].location.id < 0 ||
            desc[i].location.id >= sim_n_devices ||
            (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
             desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
             desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE))
            return CUDA_ERROR_INVALID_VALUE;
    }
    SIM_LOCK();
    size_t covered = 0;
    for (vmm_mapping_t *m = vmm_mappings; m; m = m->next) {
        if (m->base >= ptr && m->base + m->size_bytes <= ptr + size) {
            covered += m->size_bytes;
            m->access_set = 1;
        }
    }
    SIM_UNLOCK();
    return covered == size ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!handle)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    CUresult rc = CUDA_ERROR_INVALID_VALUE;
    for (vmm_mapping_t *m = vmm_mappings; m; m = m->next) {
        CUdeviceptr p = (CUdeviceptr)addr;
        if (p >= m->base && p - m->base < m->size_bytes) {
            m->handle->refcount++;
            *handle = m->handle->id;
            rc = CUDA_SUCCESS;
            break;
        }
    }
    SIM_UNLOCK();
    return rc;
}

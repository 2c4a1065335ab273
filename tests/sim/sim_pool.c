/* SPDX-License-Identifier: MIT */
/* The simulated driver's stream-ordered allocator (memory pools). A pool
 * reserves device memory in 2 MiB steps as allocations need it and gives back what exceeds its
 * release threshold at synchronization points, as the real driver does, so reserved bytes can
 * stay far above live bytes. Memory freed on one stream is reused by another one only when the
 * pool's reuse flags allow it (opportunistic reuse, or internal dependencies: work completes at
 * once here, so either makes it reusable) or after a synchronization; the same stream reuses it
 * at once, in stream order. */
#include <stdlib.h>
#include <string.h>
#include "sim_internal.h"

static unsigned sim_pool_count; /* pools ever created, for their VTSIM_STATS ids */

sim_pool_t *sim_pool_default(int device)
{
    sim_device_t *d = &sim_devices[device];
    if (!d->default_pool) {
        sim_pool_t *p = calloc(1, sizeof *p);
        if (!p)
            return NULL;
        p->device = device;
        p->id = ++sim_pool_count;
        p->is_default = 1;
        p->reuse[0] = p->reuse[1] = p->reuse[2] = 1;
        p->next = sim_pools;
        sim_pools = p;
        d->default_pool = d->current_pool = p;
    }
    return d->current_pool;
}

static sim_pool_t *pool_lookup(CUmemoryPool handle)
{
    for (sim_pool_t *p = sim_pools; p; p = p->next)
        if ((CUmemoryPool)p == handle && !p->destroy_pending)
            return p;
    return NULL;
}

static void pool_unlink_free(sim_pool_t *pool)
{
    for (sim_pool_t **pp = &sim_pools; *pp; pp = &(*pp)->next) {
        if (*pp == pool) {
            *pp = pool->next;
            break;
        }
    }
    free(pool);
}

/* Whether memory freed on one stream may go to another before a synchronization. */
static int cross_stream_reuse(const sim_pool_t *pool)
{
    return pool->reuse[CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC -
                       CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES] ||
           pool->reuse[CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES -
                       CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES];
}

/* The freed bytes stream may not reuse: those freed on other streams since a synchronization. */
static size_t pending_elsewhere(const sim_pool_t *pool, CUstream stream)
{
    size_t bytes = pool->pending_stranded_bytes;
    for (size_t i = 0; i < sizeof pool->pending / sizeof pool->pending[0]; i++)
        if (pool->pending[i].bytes && pool->pending[i].stream != stream)
            bytes += pool->pending[i].bytes;
    return bytes;
}

static size_t pending_total(const sim_pool_t *pool)
{
    return pending_elsewhere(pool, (CUstream) ~(uintptr_t)0);
}

/* bytes freed on stream: reusable there at once, elsewhere after a synchronization. */
static void pending_add(sim_pool_t *pool, CUstream stream, size_t bytes)
{
    size_t n = sizeof pool->pending / sizeof pool->pending[0], empty = n;
    for (size_t i = 0; i < n; i++) {
        if (pool->pending[i].bytes && pool->pending[i].stream == stream) {
            pool->pending[i].bytes += bytes;
            return;
        }
        if (!pool->pending[i].bytes && empty == n)
            empty = i;
    }
    if (empty == n) {
        pool->pending_stranded_bytes += bytes;
        return;
    }
    pool->pending[empty].stream = stream;
    pool->pending[empty].bytes = bytes;
}

/* An allocation of bytes on stream takes what that stream freed first. */
static void pending_take(sim_pool_t *pool, CUstream stream, size_t bytes)
{
    for (size_t i = 0; i < sizeof pool->pending / sizeof pool->pending[0]; i++)
        if (pool->pending[i].bytes && pool->pending[i].stream == stream) {
            size_t taken = bytes < pool->pending[i].bytes ? bytes : pool->pending[i].bytes;
            pool->pending[i].bytes -= taken;
        }
}

void sim_pool_synchronized(sim_pool_t *pool)
{
    memset(pool->pending, 0, sizeof pool->pending);
    pool->pending_stranded_bytes = 0;
}

/* Shrinks the reservation to what live allocations, frees not yet done (pending) and keep_bytes
 * need (2 MiB steps). A keep at or above the reservation keeps everything; it is tested before
 * any rounding, so the "never release" threshold UINT64_MAX cannot wrap to 0. */
void sim_pool_release(sim_pool_t *pool, cuuint64_t keep_bytes)
{
    if (keep_bytes >= pool->reserved_bytes)
        return;
    size_t held = pool->used_bytes + pending_total(pool);
    size_t want = held > keep_bytes ? held : (size_t)keep_bytes;
    want = sim_round_up(want, SIM_GRAN_BYTES); /* want < reserved, a multiple of 2 MiB */
    if (pool->reserved_bytes > want) {
        sim_uncharge(pool->device, pool->reserved_bytes - want);
        pool->reserved_bytes = want;
    }
}

void sim_pool_sync_device(int device)
{
    for (sim_pool_t *p = sim_pools; p; p = p->next)
        if (p->device == device) {
            sim_pool_synchronized(p);
            sim_pool_release(p, p->release_threshold_bytes);
        }
}

/* Takes an allocation out of its pool's used bytes; the caller removes it from the registry. */
void sim_async_free(sim_alloc_t *a)
{
    sim_pool_t *pool = a->pool;
    pool->used_bytes -= a->charged_bytes;
    a->charged_bytes = 0; /* the pool's reservation, not the allocation, holds the device bytes */
    if (pool->destroy_pending && pool->used_bytes == 0) {
        sim_pool_release(pool, 0);
        pool_unlink_free(pool);
    }
}

static CUresult pool_alloc(CUdeviceptr *dptr, size_t bytesize, sim_pool_t *pool, CUstream hStream)
{
    int dev, stream_dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_valid_stream(hStream, &stream_dev))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!dptr || bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (!pool && !(pool = sim_pool_default(stream_dev < 0 ? dev : stream_dev)))
        return CUDA_ERROR_OUT_OF_MEMORY;
    int invalid;
    sim_capture_t *capture = sim_capture_active(hStream, &invalid);
    if (capture) /* an allocation node: live only while the captured graph runs */
        return invalid ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
                       : sim_capture_alloc(capture, pool->device, bytesize, dptr);
    size_t charged = sim_round_up(bytesize, SIM_ALIGN_BYTES);
    if (charged < bytesize)
        return CUDA_ERROR_OUT_OF_MEMORY;
    /* What other streams freed is not this one's yet (always 0 when the flags allow reuse). */
    size_t needed = pool->used_bytes + pending_elsewhere(pool, hStream) + charged;
    if (needed > pool->reserved_bytes) {
        size_t grow = sim_round_up(needed, SIM_GRAN_BYTES) - pool->reserved_bytes;
        if ((rc = sim_charge(pool->device, grow)) != CUDA_SUCCESS)
            return rc;
        pool->reserved_bytes += grow;
        if (pool->reserved_bytes > pool->reserved_high_bytes)
            pool->reserved_high_bytes = pool->reserved_bytes;
        if (pool->reserved_bytes > pool->reserved_hwm_bytes)
            pool->reserved_hwm_bytes = pool->reserved_bytes;
    }
    CUdeviceptr base = sim_va_take(pool->device, bytesize, SIM_ALIGN_BYTES);
    sim_alloc_t *a = base ? sim_alloc_add(base, bytesize, 0, SIM_KIND_ASYNC, pool->device) : NULL;
    if (!a)
        return CUDA_ERROR_OUT_OF_MEMORY;
    a->pool = pool;
    a->charged_bytes = charged; /* counted in the pool's used bytes; see sim_async_free */
    pool->used_bytes += charged;
    pending_take(pool, hStream, charged);
    if (pool->used_bytes > pool->used_high_bytes)
        pool->used_high_bytes = pool->used_bytes;
    if (pool->used_bytes > pool->used_hwm_bytes)
        pool->used_hwm_bytes = pool->used_bytes;
    *dptr = base;
    return CUDA_SUCCESS;
}

/* sim_alloc_remove uncharges charged_bytes from the device, but a pool allocation's bytes belong
 * to the pool's reservation: sim_async_free zeroes charged_bytes before removal. */
static CUresult pool_free(CUdeviceptr dptr, CUstream hStream)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_valid_stream(hStream, NULL))
        return CUDA_ERROR_INVALID_HANDLE;
    int invalid;
    sim_capture_t *capture = sim_capture_active(hStream, &invalid);
    if (capture) { /* a free node: the graph allocation ends when the graph runs */
        sim_node_t node;
        memset(&node, 0, sizeof node);
        node.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
        node.dptr = dptr;
        return !dptr     ? CUDA_ERROR_INVALID_VALUE
               : invalid ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
                         : sim_capture_add(capture, &node, NULL);
    }
    sim_alloc_t *a = sim_alloc_find(dptr);
    if (!a || (a->kind != SIM_KIND_ASYNC && a->kind != SIM_KIND_DEVICE &&
               a->kind != SIM_KIND_GRAPH && a->kind != SIM_KIND_MANAGED))
        return CUDA_ERROR_INVALID_VALUE;
    if (a->kind == SIM_KIND_ASYNC) {
        sim_pool_t *pool = a->pool;
        size_t freed = a->charged_bytes;
        int pool_gone = pool->destroy_pending && pool->used_bytes == freed;
        sim_async_free(a);
        if (!pool_gone && !cross_stream_reuse(pool))
            pending_add(pool, hStream, freed);
    } else if (a->kind == SIM_KIND_GRAPH) {
        sim_graph_free(a);
    }
    sim_alloc_remove(a);
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    SIM_LOCK();
    CUresult rc = pool_alloc(dptr, bytesize, NULL, hStream);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return cuMemAllocAsync(dptr, bytesize, hStream);
}

SIM_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                            CUstream hStream)
{
    SIM_LOCK();
    sim_pool_t *p = pool_lookup(pool);
    CUresult rc = p ? pool_alloc(dptr, bytesize, p, hStream) : CUDA_ERROR_INVALID_VALUE;
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize,
                                                 CUmemoryPool pool, CUstream hStream)
{
    return cuMemAllocFromPoolAsync(dptr, bytesize, pool, hStream);
}

SIM_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    SIM_LOCK();
    CUresult rc = pool_free(dptr, hStream);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
    return cuMemFreeAsync(dptr, hStream);
}

/* ---- pools ------------------------------------------------------------------------------- */

SIM_EXPORT CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pool || !poolProps || poolProps->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
        poolProps->location.type != CU_MEM_LOCATION_TYPE_DEVICE || poolProps->location.id < 0 ||
        poolProps->location.id >= sim_n_devices)
        return CUDA_ERROR_INVALID_VALUE;
    sim_pool_t *p = calloc(1, sizeof *p);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    p->device = poolProps->location.id;
    p->reuse[0] = p->reuse[1] = p->reuse[2] = 1;
    SIM_LOCK();
    p->id = ++sim_pool_count;
    p->next = sim_pools;
    sim_pools = p;
    SIM_UNLOCK();
    *pool = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}

/* A pool with allocations outstanding goes away when the last one is freed (cuda.h). */
SIM_EXPORT CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    SIM_LOCK();
    sim_pool_t *p = pool_lookup(pool);
    CUresult rc = CUDA_SUCCESS;
    if (!p || p->is_default) {
        rc = CUDA_ERROR_INVALID_VALUE;
    } else {
        sim_device_t *d = &sim_devices[p->device];
        if (d->current_pool == p)
            d->current_pool = d->default_pool;
        if (p->used_bytes) {
            p->destroy_pending = 1;
        } else {
            sim_pool_release(p, 0);
            pool_unlink_free(p);
        }
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    SIM_LOCK();
    sim_pool_t *p = pool_lookup(pool);
    if (p)
        sim_pool_release(p, minBytesToKeep);
    SIM_UNLOCK();
    return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_pool_t *p = pool_lookup(pool);
    CUresult rc = p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    if (p) {
        switch (attr) {
        case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
        case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
        case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
            *(int *)value = p->reuse[attr - CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES];
            break;
        case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
            *(cuuint64_t *)value = p->release_threshold_bytes;
            break;
        case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
            *(cuuint64_t *)value = p->reserved_bytes;
            break;
        case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
            *(cuuint64_t *)value = p->reserved_high_bytes;
            break;
        case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
            *(cuuint64_t *)value = p->used_bytes;
            break;
        case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
            *(cuuint64_t *)value = p->used_high_bytes;
            break;
        default:
            rc = CUDA_ERROR_INVALID_VALUE;
        }
    }
    SIM_UNLOCK();
    return rc;
}

/* The high watermarks can only be reset (set to 0), as on the real driver. */
SIM_EXPORT CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_pool_t *p = pool_lookup(pool);
    CUresult rc = p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    if (p) {
        switch (attr) {
        case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
        case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
        case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
            p->reuse[attr - CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES] = *(int *)value != 0;
            break;
        case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
            p->release_threshold_bytes = *(cuuint64_t *)value;
            break;
        case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
            if (*(cuuint64_t *)value != 0)
                rc = CUDA_ERROR_INVALID_VALUE;
            else
                p->reserved_high_bytes = p->reserved_bytes;
            break;
        case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
            if (*(cuuint64_t *)value != 0)
                rc = CUDA_ERROR_INVALID_VALUE;
            else
                p->used_high_bytes = p->used_bytes;
            break;
        default:
            rc = CUDA_ERROR_INVALID_VALUE;
        }
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
    CUresult rc = sim_check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pool_out)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_pool_default(dev);
    sim_pool_t *p = sim_devices[dev].default_pool;
    SIM_UNLOCK();
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *pool_out = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}

/* The device's current pool: where cuMemAllocAsync allocates (its default pool until set). */
SIM_EXPORT CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
    CUresult rc = sim_check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    sim_pool_t *p = pool_lookup(pool);
    if (!p || p->device != dev) {
        rc = CUDA_ERROR_INVALID_VALUE;
    } else {
        sim_pool_default(dev); /* made first, so the default stays the device's */
        sim_devices[dev].current_pool = p;
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
    CUresult rc = sim_check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pool)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_pool_t *p = sim_pool_default(dev);
    SIM_UNLOCK();
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *pool = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}

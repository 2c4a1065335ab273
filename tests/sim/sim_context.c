/* SPDX-License-Identifier: MIT */
/* Contexts of the simulated driver: one primary context per device (retained and released by
 * count), contexts made with cuCtxCreate (pushed on creation, their memory freed by
 * cuCtxDestroy), and the per-thread stack of current contexts (cuCtxPushCurrent, cuCtxPopCurrent;
 * cuCtxSetCurrent replaces its top). A destroyed context's record is kept, inactive, so that a
 * thread still holding it gets CUDA_ERROR_INVALID_CONTEXT instead of reading freed memory. Also
 * the context's flags, limits, cache configuration and peer access. */
#include <stdlib.h>
#include "sim_internal.h"

#define SIM_CTX_STACK_DEPTH 64
#define SIM_CTX_FLAGS_MASK  0xffu /* CU_CTX_FLAGS_MASK: scheduling, map host, coredump, memops */
#define SIM_CTX_API_VERSION 3020  /* what cuCtxGetApiVersion reports, as the driver does */

static __thread sim_ctx_t *tls_stack[SIM_CTX_STACK_DEPTH];
static __thread int tls_depth;
static sim_ctx_t *sim_created; /* every context cuCtxCreate made, newest first */
static unsigned long long sim_next_ctx_id = 1;

/* The default limits (cuCtxGetLimit) of a recent data-centre GPU. */
static const size_t default_limits[SIM_N_LIMITS] = {
    1024,    /* CU_LIMIT_STACK_SIZE */
    1048576, /* CU_LIMIT_PRINTF_FIFO_SIZE */
    8388608, /* CU_LIMIT_MALLOC_HEAP_SIZE */
    2,       /* CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH */
    2048,    /* CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT */
    64,      /* CU_LIMIT_MAX_L2_FETCH_GRANULARITY */
    0,       /* CU_LIMIT_PERSISTING_L2_CACHE_SIZE */
    233472,  /* CU_LIMIT_SHMEM_SIZE */
    0,       /* CU_LIMIT_CIG_ENABLED */
    0,       /* CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED */
};

void sim_ctx_init_defaults(sim_ctx_t *ctx, int device)
{
    ctx->device = device;
    for (int i = 0; i < SIM_N_LIMITS; i++)
        ctx->limits[i] = default_limits[i];
    ctx->id = __atomic_fetch_add(&sim_next_ctx_id, 1, __ATOMIC_RELAXED);
}

sim_ctx_t *sim_current_ctx(void)
{
    return tls_depth ? tls_stack[tls_depth - 1] : NULL;
}

CUresult sim_current_device(int *device)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    sim_ctx_t *c = sim_current_ctx();
    if (!c || !c->active)
        return CUDA_ERROR_INVALID_CONTEXT;
    *device = c->device;
    return CUDA_SUCCESS;
}

/* Primary contexts count as known even while inactive (cuCtxSetCurrent accepts them); created
 * ones only until destroyed. sim_lock held. */
sim_ctx_t *sim_ctx_lookup(CUcontext handle)
{
    sim_ctx_t *c = (sim_ctx_t *)handle;
    for (int d = 0; d < sim_n_devices; d++)
        if (c == &sim_devices[d].primary)
            return c;
    for (sim_ctx_t *k = sim_created; k; k = k->next)
        if (k == c && k->active)
            return c;
    return NULL;
}

static CUresult stack_push(sim_ctx_t *c)
{
    if (tls_depth == SIM_CTX_STACK_DEPTH)
        return CUDA_ERROR_OUT_OF_MEMORY;
    tls_stack[tls_depth++] = c;
    return CUDA_SUCCESS;
}

/* ---- primary contexts -------------------------------------------------------------------- */

SIM_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    CUresult rc = sim_check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_ctx_t *c = &sim_devices[dev].primary;
    c->refcount++;
    c->active = 1;
    SIM_UNLOCK();
    *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    CUresult rc = sim_check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    sim_ctx_t *c = &sim_devices[dev].primary;
    if (c->refcount == 0) {
        rc = CUDA_ERROR_INVALID_CONTEXT;
    } else if (--c->refcount == 0) {
        c->active = 0;
        sim_ctx_teardown(c);
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    CUresult rc = sim_check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    sim_ctx_t *c = &sim_devices[dev].primary;
    sim_ctx_teardown(c);
    c->active = 0;
    c->refcount = 0;
    c->flags = 0;
    SIM_UNLOCK();
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    CUresult rc = sim_check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!flags || !active)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    *flags = sim_devices[dev].primary.flags;
    *active = sim_devices[dev].primary.active;
    SIM_UNLOCK();
    return CUDA_SUCCESS;
}

/* Since CUDA 11 the flags may be set while the primary context is active. */
SIM_EXPORT CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
    CUresult rc = sim_check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (flags & ~SIM_CTX_FLAGS_MASK)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_devices[dev].primary.flags = flags;
    SIM_UNLOCK();
    return CUDA_SUCCESS;
}

/* ---- created contexts -------------------------------------------------------------------- */

static CUresult ctx_create(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    CUresult rc = sim_check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pctx || (flags & ~SIM_CTX_FLAGS_MASK))
        return CUDA_ERROR_INVALID_VALUE;
    sim_ctx_t *c = calloc(1, sizeof *c);
    if (!c)
        return CUDA_ERROR_OUT_OF_MEMORY;
    sim_ctx_init_defaults(c, dev);
    c->active = 1;
    c->flags = flags;
    if ((rc = stack_push(c)) != CUDA_SUCCESS) {
        free(c);
        return rc;
    }
    SIM_LOCK();
    c->next = sim_created;
    sim_created = c;
    SIM_UNLOCK();
    *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return ctx_create(pctx, flags, dev);
}

/* Execution affinity (a share of the SMs) changes nothing the simulation observes. */
SIM_EXPORT CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
                                   unsigned int flags, CUdevice dev)
{
    if (numParams < 0 || (numParams > 0 && !paramsArray))
        return CUDA_ERROR_INVALID_VALUE;
    return ctx_create(pctx, flags, dev);
}

SIM_EXPORT CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams,
                                   unsigned int flags, CUdevice dev)
{
    if (ctxCreateParams && ctxCreateParams->numExecAffinityParams < 0)
        return CUDA_ERROR_INVALID_VALUE;
    return ctx_create(pctx, flags, dev);
}

/* Frees everything the context made; pops it when it is current to the calling thread. A
 * primary context is not destroyed this way. */
SIM_EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    SIM_LOCK();
    sim_ctx_t *c = sim_ctx_lookup(ctx);
    CUresult rc = CUDA_SUCCESS;
    if (!c || c->is_primary) {
        rc = CUDA_ERROR_INVALID_CONTEXT;
    } else {
        c->active = 0;
        sim_ctx_teardown(c);
    }
    SIM_UNLOCK();
    if (rc == CUDA_SUCCESS && sim_current_ctx() == c)
        tls_depth--;
    return rc;
}

/* ---- the thread's current context -------------------------------------------------------- */

SIM_EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = (CUcontext)sim_current_ctx();
    return CUDA_SUCCESS;
}

/* Replaces the top of the thread's stack; NULL pops it. */
SIM_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!ctx) {
        if (tls_depth)
            tls_depth--;
        return CUDA_SUCCESS;
    }
    SIM_LOCK();
    sim_ctx_t *c = sim_ctx_lookup(ctx);
    SIM_UNLOCK();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (tls_depth)
        tls_stack[tls_depth - 1] = c;
    else
        tls_stack[tls_depth++] = c;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    SIM_LOCK();
    sim_ctx_t *c = ctx ? sim_ctx_lookup(ctx) : NULL;
    SIM_UNLOCK();
    return c ? stack_push(c) : CUDA_ERROR_INVALID_CONTEXT;
}

SIM_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!tls_depth)
        return CUDA_ERROR_INVALID_CONTEXT;
    sim_ctx_t *c = tls_stack[--tls_depth];
    if (pctx)
        *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetDevice(CUdevice *device)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    *device = dev;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxSynchronize(void)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    int capturing = sim_capture_any() && sim_capture_prohibits_unsafe();
    SIM_UNLOCK();
    if (capturing)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    sim_hostfn_wait(sim_hostfn_issued());
    SIM_LOCK();
    sim_pool_sync_device(dev);
    SIM_UNLOCK();
    return CUDA_SUCCESS;
}

/* ---- properties of a context -------------------------------------------------------------- */

/* ctx, or the current context when ctx is NULL; NULL when neither is usable. */
static sim_ctx_t *ctx_or_current(CUcontext ctx)
{
    if (!ctx) {
        sim_ctx_t *c = sim_current_ctx();
        return c && c->active ? c : NULL;
    }
    SIM_LOCK();
    sim_ctx_t *c = sim_ctx_lookup(ctx);
    SIM_UNLOCK();
    return c;
}

SIM_EXPORT CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!version)
        return CUDA_ERROR_INVALID_VALUE;
    if (!ctx_or_current(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    *version = SIM_CTX_API_VERSION;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetId(CUcontext ctx, unsigned long long *ctxId)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!ctxId)
        return CUDA_ERROR_INVALID_VALUE;
    sim_ctx_t *c = ctx_or_current(ctx);
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    *ctxId = c->id;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetFlags(unsigned int *flags)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!flags)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = sim_current_ctx()->flags;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxSetFlags(unsigned int flags)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (flags & ~SIM_CTX_FLAGS_MASK)
        return CUDA_ERROR_INVALID_VALUE;
    sim_current_ctx()->flags = flags;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetLimit(size_t *pvalue, CUlimit limit)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pvalue || (unsigned)limit >= SIM_N_LIMITS)
        return CUDA_ERROR_INVALID_VALUE;
    *pvalue = sim_current_ctx()->limits[limit];
    return CUDA_SUCCESS;
}

/* The CIG limits can only be queried; the L2 fetch granularity is at most 128 bytes. */
SIM_EXPORT CUresult cuCtxSetLimit(CUlimit limit, size_t value)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if ((unsigned)limit >= SIM_N_LIMITS || limit == CU_LIMIT_SHMEM_SIZE ||
        limit == CU_LIMIT_CIG_ENABLED ||
        (limit == CU_LIMIT_MAX_L2_FETCH_GRANULARITY && value > 128))
        return CUDA_ERROR_INVALID_VALUE;
    sim_current_ctx()->limits[limit] = value;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetCacheConfig(CUfunc_cache *pconfig)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pconfig)
        return CUDA_ERROR_INVALID_VALUE;
    *pconfig = (CUfunc_cache)sim_current_ctx()->cache_config;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxSetCacheConfig(CUfunc_cache config)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if ((unsigned)config > CU_FUNC_CACHE_PREFER_EQUAL)
        return CUDA_ERROR_INVALID_VALUE;
    sim_current_ctx()->cache_config = (int)config;
    return CUDA_SUCCESS;
}

/* ---- peer access: between two devices' contexts ------------------------------------------ */

static CUresult peer_access(CUcontext peerContext, unsigned int flags, int enable)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (enable && flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_ctx_t *peer = sim_ctx_lookup(peerContext), *cur = sim_current_ctx();
    unsigned bit = peer ? 1u << peer->device : 0;
    if (!peer || !peer->active)
        rc = CUDA_ERROR_INVALID_CONTEXT;
    else if (peer->device == dev)
        rc = CUDA_ERROR_INVALID_DEVICE;
    else if (enable && (cur->peers_enabled & bit))
        rc = CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
    else if (!enable && !(cur->peers_enabled & bit))
        rc = CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
    else if (enable)
        cur->peers_enabled |= bit;
    else
        cur->peers_enabled &= ~bit;
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    return peer_access(peerContext, Flags, 1);
}

SIM_EXPORT CUresult cuCtxDisablePeerAccess(CUcontext peerContext)
{
    return peer_access(peerContext, 0, 0);
}

/* SPDX-License-Identifier: MIT */
/* Streams of the simulated driver. Work completes when it is issued, except host functions
 * (sim_hostfn.c), so a stream is a handle with a device, flags, a priority and the sequence number
 * of its last host function; synchronizing waits for that one, then runs the pools' release
 * threshold as the driver does at a synchronization point. */
#include <stdlib.h>
#include "sim_internal.h"

/* The special handles of cuda.h: CU_STREAM_LEGACY and CU_STREAM_PER_THREAD. */
#define SIM_STREAM_LEGACY     ((CUstream)0x1)
#define SIM_STREAM_PER_THREAD ((CUstream)0x2)

/* Stream priorities of a recent data-centre GPU: 0 (lowest) to -5 (highest). */
#define SIM_PRIORITY_LEAST    0
#define SIM_PRIORITY_GREATEST (-5)

typedef struct sim_stream_s {
    int device;
    unsigned int flags;
    int priority;
    uint64_t last_hostfn; /* sequence number of its last host function, 0 for none */
    struct sim_stream_s *next;
} sim_stream_t;

static sim_stream_t *sim_streams;

static sim_stream_t *stream_lookup(CUstream s)
{
    for (sim_stream_t *st = sim_streams; st; st = st->next)
        if ((CUstream)st == s)
            return st;
    return NULL;
}

static int is_default_stream(CUstream s)
{
    return s == NULL || s == SIM_STREAM_LEGACY || s == SIM_STREAM_PER_THREAD;
}

/* 1 when s is a default stream or a live stream; its device (or -1 for a default stream, which
 * means the current context's) goes to *device. sim_lock held. */
int sim_valid_stream(CUstream s, int *device)
{
    int dev = -1, ok = is_default_stream(s);
    if (!ok) {
        sim_stream_t *st = stream_lookup(s);
        if (st) {
            dev = st->device;
            ok = 1;
        }
    }
    if (device)
        *device = dev;
    return ok;
}

/* The host function a synchronization of s must wait for: a default stream waits for every one
 * issued (the legacy stream synchronizes with all blocking streams). sim_lock held, s valid. */
uint64_t sim_stream_last_hostfn(CUstream s)
{
    sim_stream_t *st = is_default_stream(s) ? NULL : stream_lookup(s);
    return st ? st->last_hostfn : sim_hostfn_issued();
}

void sim_stream_note_hostfn(CUstream s, uint64_t seq)
{
    sim_stream_t *st = is_default_stream(s) ? NULL : stream_lookup(s);
    if (st)
        st->last_hostfn = seq;
}

static CUresult stream_create(CUstream *phStream, unsigned int flags, int priority)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!phStream || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
        return CUDA_ERROR_INVALID_VALUE;
    sim_stream_t *st = calloc(1, sizeof *st);
    if (!st)
        return CUDA_ERROR_OUT_OF_MEMORY;
    st->device = dev;
    st->flags = flags;
    /* Out-of-range priorities are clamped, as cuda.h documents. */
    st->priority = priority > SIM_PRIORITY_LEAST      ? SIM_PRIORITY_LEAST
                   : priority < SIM_PRIORITY_GREATEST ? SIM_PRIORITY_GREATEST
                                                      : priority;
    SIM_LOCK();
    st->next = sim_streams;
    sim_streams = st;
    SIM_UNLOCK();
    *phStream = (CUstream)st;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    return stream_create(phStream, Flags, SIM_PRIORITY_LEAST);
}

SIM_EXPORT CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
    return stream_create(phStream, flags, priority);
}

SIM_EXPORT CUresult cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (leastPriority)
        *leastPriority = SIM_PRIORITY_LEAST;
    if (greatestPriority)
        *greatestPriority = SIM_PRIORITY_GREATEST;
    return CUDA_SUCCESS;
}

/* Flags and priority of a stream; a default stream has flags 0 and the lowest priority. */
static CUresult stream_info(CUstream hStream, unsigned int *flags, int *priority)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if ((flags == NULL) == (priority == NULL))
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_stream_t *st = is_default_stream(hStream) ? NULL : stream_lookup(hStream);
    if (!st && !is_default_stream(hStream))
        rc = CUDA_ERROR_INVALID_HANDLE;
    else if (flags)
        *flags = st ? st->flags : 0;
    else
        *priority = st ? st->priority : SIM_PRIORITY_LEAST;
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuStreamGetPriority(CUstream hStream, int *priority)
{
    return priority ? stream_info(hStream, NULL, priority) : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuStreamGetPriority_ptsz(CUstream hStream, int *priority)
{
    return cuStreamGetPriority(hStream, priority);
}

SIM_EXPORT CUresult cuStreamGetFlags(CUstream hStream, unsigned int *flags)
{
    return flags ? stream_info(hStream, flags, NULL) : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuStreamGetFlags_ptsz(CUstream hStream, unsigned int *flags)
{
    return cuStreamGetFlags(hStream, flags);
}

/* Destroying a stream with host functions pending is allowed: they still run. */
SIM_EXPORT CUresult cuStreamDestroy_v2(CUstream hStream)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    rc = CUDA_ERROR_INVALID_HANDLE;
    for (sim_stream_t **pp = &sim_streams; *pp; pp = &(*pp)->next) {
        if ((CUstream)*pp == hStream) {
            sim_stream_t *st = *pp;
            *pp = st->next;
            free(st);
            rc = CUDA_SUCCESS;
            break;
        }
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuStreamSynchronize(CUstream hStream)
{
    int dev, stream_dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    int ok = sim_valid_stream(hStream, &stream_dev);
    uint64_t wait_for = ok ? sim_stream_last_hostfn(hStream) : 0;
    sim_capture_t *capture = ok ? sim_capture_of(hStream) : NULL;
    sim_capture_invalidate(capture);
    SIM_UNLOCK();
    if (!ok)
        return CUDA_ERROR_INVALID_HANDLE;
    if (capture)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    sim_hostfn_wait(wait_for);
    SIM_LOCK();
    sim_pool_sync_device(stream_dev < 0 ? dev : stream_dev);
    SIM_UNLOCK();
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuStreamSynchronize_ptsz(CUstream hStream)
{
    return cuStreamSynchronize(hStream);
}

/* CUDA_ERROR_NOT_READY while a host function issued to the stream has not returned. */
SIM_EXPORT CUresult cuStreamQuery(CUstream hStream)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    int ok = sim_valid_stream(hStream, NULL);
    uint64_t last = ok ? sim_stream_last_hostfn(hStream) : 0;
    sim_capture_t *capture = ok ? sim_capture_of(hStream) : NULL;
    sim_capture_invalidate(capture);
    SIM_UNLOCK();
    if (!ok)
        return CUDA_ERROR_INVALID_HANDLE;
    if (capture)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    return sim_hostfn_completed() >= last ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

SIM_EXPORT CUresult cuStreamQuery_ptsz(CUstream hStream)
{
    return cuStreamQuery(hStream);
}

/* The calling thread's stream-capture interaction mode, kept and exchanged as the driver does. */
static __thread CUstreamCaptureMode tls_capture_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

CUstreamCaptureMode sim_thread_capture_mode(void)
{
    return tls_capture_mode;
}

SIM_EXPORT CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
    if (!mode ||
        (*mode != CU_STREAM_CAPTURE_MODE_GLOBAL && *mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
         *mode != CU_STREAM_CAPTURE_MODE_RELAXED))
        return CUDA_ERROR_INVALID_VALUE;
    CUstreamCaptureMode old = tls_capture_mode;
    tls_capture_mode = *mode;
    *mode = old;
    return CUDA_SUCCESS;
}

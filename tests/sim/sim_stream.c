/* SPDX-License-Identifier: MIT */
/* Streams and events of the simulated driver. Work completes when it is issued, so these are
 * handles with a device, plus the synchronization points where pools release memory. */
#include <stdlib.h>
#include "sim_internal.h"

/* The special handles of cuda.h: CU_STREAM_LEGACY and CU_STREAM_PER_THREAD. */
#define SIM_STREAM_LEGACY     ((CUstream)0x1)
#define SIM_STREAM_PER_THREAD ((CUstream)0x2)

typedef struct sim_stream_s {
    int device;
    struct sim_stream_s *next;
} sim_stream_t;

typedef struct sim_event_s {
    int device;
    int recorded;
    struct sim_event_s *next;
} sim_event_t;

static sim_stream_t *sim_streams;
static sim_event_t *sim_events;

/* 1 when s is a default stream or a live stream; its device (or -1 for a default stream, which
 * means the current context's) goes to *device. sim_lock held. */
int sim_valid_stream(CUstream s, int *device)
{
    int dev = -1, ok = 0;
    if (s == NULL || s == SIM_STREAM_LEGACY || s == SIM_STREAM_PER_THREAD) {
        ok = 1;
    } else {
        for (sim_stream_t *st = sim_streams; st; st = st->next) {
            if ((CUstream)st == s) {
                dev = st->device;
                ok = 1;
                break;
            }
        }
    }
    if (device)
        *device = dev;
    return ok;
}

SIM_EXPORT CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!phStream || Flags > 1) /* CU_STREAM_DEFAULT or CU_STREAM_NON_BLOCKING */
        return CUDA_ERROR_INVALID_VALUE;
    sim_stream_t *st = calloc(1, sizeof *st);
    if (!st)
        return CUDA_ERROR_OUT_OF_MEMORY;
    st->device = dev;
    SIM_LOCK();
    st->next = sim_streams;
    sim_streams = st;
    SIM_UNLOCK();
    *phStream = (CUstream)st;
    return CUDA_SUCCESS;
}

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
    if (!sim_valid_stream(hStream, &stream_dev))
        rc = CUDA_ERROR_INVALID_HANDLE;
    else
        sim_pool_sync_device(stream_dev < 0 ? dev : stream_dev);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!phEvent || Flags > 0xf)
        return CUDA_ERROR_INVALID_VALUE;
    sim_event_t *ev = calloc(1, sizeof *ev);
    if (!ev)
        return CUDA_ERROR_OUT_OF_MEMORY;
    ev->device = dev;
    SIM_LOCK();
    ev->next = sim_events;
    sim_events = ev;
    SIM_UNLOCK();
    *phEvent = (CUevent)ev;
    return CUDA_SUCCESS;
}

static sim_event_t *event_lookup(CUevent h)
{
    for (sim_event_t *ev = sim_events; ev; ev = ev->next)
        if ((CUevent)ev == h)
            return ev;
    return NULL;
}

SIM_EXPORT CUresult cuEventDestroy_v2(CUevent hEvent)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    rc = CUDA_ERROR_INVALID_HANDLE;
    for (sim_event_t **pp = &sim_events; *pp; pp = &(*pp)->next) {
        if ((CUevent)*pp == hEvent) {
            sim_event_t *ev = *pp;
            *pp = ev->next;
            free(ev);
            rc = CUDA_SUCCESS;
            break;
        }
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    sim_event_t *ev = event_lookup(hEvent);
    if (!ev || !sim_valid_stream(hStream, NULL))
        rc = CUDA_ERROR_INVALID_HANDLE;
    else
        ev->recorded = 1;
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuEventSynchronize(CUevent hEvent)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    sim_event_t *ev = event_lookup(hEvent);
    if (!ev)
        rc = CUDA_ERROR_INVALID_HANDLE;
    else
        sim_pool_sync_device(ev->device);
    SIM_UNLOCK();
    return rc;
}

/* The calling thread's stream-capture interaction mode (streams are never captured here, but
 * the mode is kept and exchanged exactly as the driver does). */
static __thread CUstreamCaptureMode tls_capture_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

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

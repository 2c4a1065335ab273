/* SPDX-License-Identifier: MIT */
/* Events of the simulated driver. Recording an event marks the last host function issued to the
 * stream (sim_hostfn.c): the event completes when that one has returned, which is what
 * cuEventQuery, cuEventSynchronize and a timing answer. cuStreamWaitEvent has nothing to order,
 * since host functions already run one at a time in the order issued. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sim_internal.h"

typedef struct sim_event_s {
    int device;
    sim_capture_t *capture; /* recorded in this capture: a stream waiting on it joins */
    unsigned int flags;
    int recorded;
    uint64_t hostfn;    /* the host function it waits for, 0 for none */
    uint64_t record_ns; /* CLOCK_MONOTONIC when recorded */
    struct sim_event_s *next;
} sim_event_t;

static sim_event_t *sim_events;

static sim_event_t *event_lookup(CUevent h)
{
    for (sim_event_t *ev = sim_events; ev; ev = ev->next)
        if ((CUevent)ev == h)
            return ev;
    return NULL;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

SIM_EXPORT CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    const unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
    /* An interprocess event must not time (cuda.h). */
    if (!phEvent || (Flags & ~known) ||
        ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING)))
        return CUDA_ERROR_INVALID_VALUE;
    sim_event_t *ev = calloc(1, sizeof *ev);
    if (!ev)
        return CUDA_ERROR_OUT_OF_MEMORY;
    ev->device = dev;
    ev->flags = Flags;
    SIM_LOCK();
    ev->next = sim_events;
    sim_events = ev;
    SIM_UNLOCK();
    *phEvent = (CUevent)ev;
    return CUDA_SUCCESS;
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

int sim_event_valid(CUevent e)
{
    return event_lookup(e) != NULL;
}

void sim_event_record_locked(CUevent hEvent, CUstream hStream)
{
    sim_event_t *ev = event_lookup(hEvent);
    if (!ev)
        return;
    ev->recorded = 1;
    ev->capture = NULL;
    ev->hostfn = sim_stream_last_hostfn(hStream);
    ev->record_ns = now_ns();
}

SIM_EXPORT CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    sim_event_t *ev = event_lookup(hEvent);
    int invalid;
    sim_capture_t *capture = ev ? sim_capture_active(hStream, &invalid) : NULL;
    if (!ev || !sim_valid_stream(hStream, NULL)) {
        rc = CUDA_ERROR_INVALID_HANDLE;
    } else if (capture) {
        sim_node_t node;
        memset(&node, 0, sizeof node);
        node.type = CU_GRAPH_NODE_TYPE_EVENT_RECORD;
        node.event = hEvent;
        ev->capture = capture;
        if (!invalid)
            rc = sim_capture_add(capture, &node, NULL);
    } else {
        sim_event_record_locked(hEvent, hStream);
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream)
{
    return cuEventRecord(hEvent, hStream);
}

/* The event's host function, or ~0 for an unknown handle. */
static uint64_t event_wait_point(CUevent hEvent, int *device)
{
    SIM_LOCK();
    sim_event_t *ev = event_lookup(hEvent);
    uint64_t seq = ev ? ev->hostfn : ~(uint64_t)0;
    if (ev && device)
        *device = ev->device;
    SIM_UNLOCK();
    return seq;
}

SIM_EXPORT CUresult cuEventSynchronize(CUevent hEvent)
{
    int dev, event_dev = 0;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    uint64_t seq = event_wait_point(hEvent, &event_dev);
    if (seq == ~(uint64_t)0)
        return CUDA_ERROR_INVALID_HANDLE;
    sim_hostfn_wait(seq);
    SIM_LOCK();
    sim_pool_sync_device(event_dev);
    SIM_UNLOCK();
    return CUDA_SUCCESS;
}

/* An event never recorded has completed, as on the real driver. */
SIM_EXPORT CUresult cuEventQuery(CUevent hEvent)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    uint64_t seq = event_wait_point(hEvent, NULL);
    if (seq == ~(uint64_t)0)
        return CUDA_ERROR_INVALID_HANDLE;
    return sim_hostfn_completed() >= seq ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

SIM_EXPORT CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    sim_event_t *ev = event_lookup(hEvent);
    if (!sim_valid_stream(hStream, NULL) || !ev)
        rc = CUDA_ERROR_INVALID_HANDLE;
    else if (Flags & ~1u) /* CU_EVENT_WAIT_DEFAULT or CU_EVENT_WAIT_EXTERNAL */
        rc = CUDA_ERROR_INVALID_VALUE;
    else if (ev->capture) /* fork: the waiting stream joins the capture */
        sim_capture_join(hStream, ev->capture);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    return cuStreamWaitEvent(hStream, hEvent, Flags);
}

/* Milliseconds between two recordings, as the driver answers: both must have been recorded
 * (CUDA_ERROR_INVALID_HANDLE otherwise, or when either was created without timing) and have
 * completed (CUDA_ERROR_NOT_READY). */
SIM_EXPORT CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pMilliseconds)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_event_t *a = event_lookup(hStart), *b = event_lookup(hEnd);
    uint64_t wait_for = 0;
    if (!a || !b || !a->recorded || !b->recorded ||
        ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING))
        rc = CUDA_ERROR_INVALID_HANDLE;
    else
        wait_for = a->hostfn > b->hostfn ? a->hostfn : b->hostfn;
    uint64_t start_ns = a ? a->record_ns : 0, end_ns = b ? b->record_ns : 0;
    SIM_UNLOCK();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (sim_hostfn_completed() < wait_for)
        return CUDA_ERROR_NOT_READY;
    *pMilliseconds = (float)((double)((int64_t)(end_ns - start_ns)) / 1e6);
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
}

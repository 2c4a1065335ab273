/* SPDX-License-Identifier: MIT */
/* Stream capture of the simulated driver. Between cuStreamBeginCapture and cuStreamEndCapture,
 * work issued to the stream (and to streams that joined by waiting on an event recorded in it)
 * becomes graph nodes, each depending on the one before: stream-ordered allocations and frees
 * become memory nodes (the address is fixed now, the memory is live only when the graph runs),
 * kernels, host functions, asynchronous copies and sets, and event records become their nodes.
 * Synchronizing or querying a capturing stream, adding a stream callback, and (unless the thread
 * is in relaxed mode) the unsafe calls cuMemAlloc, cuMemAllocPitch, cuMemAllocManaged and
 * cuMemFree during a capture fail with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidate it,
 * as the driver does; cuStreamEndCapture then fails with CUDA_ERROR_STREAM_CAPTURE_INVALIDATED.
 * sim_lock guards everything here. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "sim_internal.h"

struct sim_capture_s {
    unsigned long long id;
    CUgraph graph;
    CUstream origin;
    CUstreamCaptureMode mode;
    pthread_t thread;
    int invalidated;
    CUgraphNode last; /* the node the next one depends on, or NULL */
    struct sim_capture_s *next;
};

typedef struct member_s {
    CUstream stream;
    sim_capture_t *capture;
    struct member_s *next;
} member_t;

static sim_capture_t *sim_captures;
static member_t *sim_members;
static unsigned long long sim_next_capture_id = 1;

sim_capture_t *sim_capture_of(CUstream s)
{
    for (member_t *m = sim_members; m; m = m->next)
        if (m->stream == s)
            return m->capture;
    return NULL;
}

/* The capture a host-side operation on s must be recorded in: an active one, or NULL when s is
 * not capturing. An invalidated capture swallows the operation (*invalid is set). */
sim_capture_t *sim_capture_active(CUstream s, int *invalid)
{
    sim_capture_t *c = s ? sim_capture_of(s) : NULL;
    *invalid = c && c->invalidated;
    return c;
}

void sim_capture_invalidate(sim_capture_t *c)
{
    if (c)
        c->invalidated = 1;
}

/* Adds a node depending on the capture's last one; sim_lock held. */
CUresult sim_capture_add(sim_capture_t *c, const sim_node_t *proto, CUgraphNode *out)
{
    CUgraphNode node;
    CUresult rc = sim_graph_add(&node, c->graph, c->last ? &c->last : NULL, c->last ? 1 : 0, proto);
    if (rc == CUDA_SUCCESS) {
        c->last = node;
        if (out)
            *out = node;
    } else {
        c->invalidated = 1;
    }
    return rc;
}

CUresult sim_capture_alloc(sim_capture_t *c, int device, size_t bytesize, CUdeviceptr *dptr)
{
    CUgraphNode node;
    CUresult rc = sim_graph_alloc_node(&node, c->graph, c->last ? &c->last : NULL, c->last ? 1 : 0,
                                       device, bytesize, dptr);
    if (rc == CUDA_SUCCESS)
        c->last = node;
    else
        c->invalidated = 1;
    return rc;
}

/* An event recorded in a capture lets other streams join it by waiting on the event. */
void sim_capture_join(CUstream s, sim_capture_t *c)
{
    if (!c || !s || sim_capture_of(s))
        return;
    member_t *m = calloc(1, sizeof *m);
    if (!m) {
        c->invalidated = 1;
        return;
    }
    m->stream = s;
    m->capture = c;
    m->next = sim_members;
    sim_members = m;
}

/* 1 when the calling thread may not make a potentially unsafe call now: its mode is not relaxed
 * and a capture it began (not relaxed) or any global-mode capture is under way. Such a call
 * invalidates those captures. */
int sim_capture_prohibits_unsafe(void)
{
    if (sim_thread_capture_mode() == CU_STREAM_CAPTURE_MODE_RELAXED)
        return 0;
    int prohibited = 0;
    for (sim_capture_t *c = sim_captures; c; c = c->next) {
        int mine = pthread_equal(c->thread, pthread_self());
        if ((mine && c->mode != CU_STREAM_CAPTURE_MODE_RELAXED) ||
            c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL) {
            c->invalidated = 1;
            prohibited = 1;
        }
    }
    return prohibited;
}

int sim_capture_any(void)
{
    return sim_captures != NULL;
}

static void capture_end(sim_capture_t *c)
{
    for (member_t **pp = &sim_members; *pp;) {
        member_t *m = *pp;
        if (m->capture == c) {
            *pp = m->next;
            free(m);
        } else {
            pp = &m->next;
        }
    }
    for (sim_capture_t **pp = &sim_captures; *pp; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    free(c);
}

static int is_default(CUstream s)
{
    return s == NULL || s == (CUstream)0x1 || s == (CUstream)0x2;
}

SIM_EXPORT CUresult cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL && mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
        mode != CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_capture_t *c = NULL;
    if (!sim_valid_stream(hStream, NULL))
        rc = CUDA_ERROR_INVALID_HANDLE;
    else if (is_default(hStream))
        rc = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; /* the legacy stream cannot be captured */
    else if (sim_capture_of(hStream))
        rc = CUDA_ERROR_ILLEGAL_STATE;
    else if (!(c = calloc(1, sizeof *c)) || !(c->graph = sim_graph_new()))
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (rc == CUDA_SUCCESS) {
        c->id = sim_next_capture_id++;
        c->origin = hStream;
        c->mode = mode;
        c->thread = pthread_self();
        c->next = sim_captures;
        sim_captures = c;
        sim_capture_join(hStream, c);
    } else {
        free(c);
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode)
{
    return cuStreamBeginCapture_v2(hStream, mode);
}

/* Ends the capture begun on hStream: the graph, or NULL and the error that invalidated it. */
SIM_EXPORT CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!phGraph)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_capture_t *c = sim_valid_stream(hStream, NULL) ? sim_capture_of(hStream) : NULL;
    CUgraph graph = NULL;
    if (!sim_valid_stream(hStream, NULL))
        rc = CUDA_ERROR_INVALID_HANDLE;
    else if (!c || c->origin != hStream)
        rc = CUDA_ERROR_ILLEGAL_STATE;
    else if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED && !pthread_equal(c->thread, pthread_self()))
        rc = CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
    else
        graph = c->graph;
    int invalidated = c && graph && c->invalidated;
    if (graph)
        capture_end(c);
    SIM_UNLOCK();
    if (invalidated) {
        cuGraphDestroy(graph);
        *phGraph = NULL;
        return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    }
    if (rc == CUDA_SUCCESS)
        *phGraph = graph;
    return rc;
}

SIM_EXPORT CUresult cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph)
{
    return cuStreamEndCapture(hStream, phGraph);
}

static CUresult capture_info(CUstream hStream, CUstreamCaptureStatus *status,
                             unsigned long long *id, CUgraph *graph, const CUgraphNode **deps,
                             const CUgraphEdgeData **edges, size_t *n_deps)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!status)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_capture_t *c = sim_valid_stream(hStream, NULL) ? sim_capture_of(hStream) : NULL;
    if (!sim_valid_stream(hStream, NULL)) {
        rc = CUDA_ERROR_INVALID_HANDLE;
    } else {
        *status = !c               ? CU_STREAM_CAPTURE_STATUS_NONE
                  : c->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                                   : CU_STREAM_CAPTURE_STATUS_ACTIVE;
        if (c && id)
            *id = c->id;
        if (c && graph)
            *graph = c->graph;
        if (c && deps)
            *deps = c->last ? &c->last : NULL;
        if (c && edges)
            *edges = NULL;
        if (c && n_deps)
            *n_deps = c->last ? 1 : 0;
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    return capture_info(hStream, captureStatus, NULL, NULL, NULL, NULL, NULL);
}

SIM_EXPORT CUresult cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    return capture_info(hStream, captureStatus, NULL, NULL, NULL, NULL, NULL);
}

SIM_EXPORT CUresult cuStreamGetCaptureInfo_v2(CUstream hStream,
                                              CUstreamCaptureStatus *captureStatus_out,
                                              cuuint64_t *id_out, CUgraph *graph_out,
                                              const CUgraphNode **dependencies_out,
                                              size_t *numDependencies_out)
{
    return capture_info(hStream, captureStatus_out, (unsigned long long *)id_out, graph_out,
                        dependencies_out, NULL, numDependencies_out);
}

SIM_EXPORT CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream,
                                                   CUstreamCaptureStatus *captureStatus_out,
                                                   cuuint64_t *id_out, CUgraph *graph_out,
                                                   const CUgraphNode **dependencies_out,
                                                   size_t *numDependencies_out)
{
    return capture_info(hStream, captureStatus_out, (unsigned long long *)id_out, graph_out,
                        dependencies_out, NULL, numDependencies_out);
}

SIM_EXPORT CUresult cuStreamGetCaptureInfo_v3(CUstream hStream,
                                              CUstreamCaptureStatus *captureStatus_out,
                                              cuuint64_t *id_out, CUgraph *graph_out,
                                              const CUgraphNode **dependencies_out,
                                              const CUgraphEdgeData **edgeData_out,
                                              size_t *numDependencies_out)
{
    return capture_info(hStream, captureStatus_out, (unsigned long long *)id_out, graph_out,
                        dependencies_out, edgeData_out, numDependencies_out);
}

SIM_EXPORT CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream,
                                                   CUstreamCaptureStatus *captureStatus_out,
                                                   cuuint64_t *id_out, CUgraph *graph_out,
                                                   const CUgraphNode **dependencies_out,
                                                   const CUgraphEdgeData **edgeData_out,
                                                   size_t *numDependencies_out)
{
    return capture_info(hStream, captureStatus_out, (unsigned long long *)id_out, graph_out,
                        dependencies_out, edgeData_out, numDependencies_out);
}

/* SPDX-License-Identifier: MIT */
/* Host functions and stream callbacks (cuLaunchHostFunc, cuStreamAddCallback) run as a driver
 * runs them: asynchronously, on a thread of the driver's own, one at a time in the order they were
 * issued (which keeps every stream's order), never on the caller's thread. Every other piece of
 * simulated work completes when it is issued, so a host function runs after everything issued
 * before it; a synchronization (stream, event, context) waits for the host functions issued before
 * it. The worker is started by the first host function. Its queue has a lock of its own, never
 * held while a host function runs, so a host function may call into the simulator (a real driver
 * forbids that, but a tracer must survive programs that do). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "sim_internal.h"

typedef struct hostfn_item_s {
    CUhostFn fn;         /* cuLaunchHostFunc, or */
    CUstreamCallback cb; /* cuStreamAddCallback */
    CUstream stream;
    void *user;
    uint64_t seq;
    struct hostfn_item_s *next;
} hostfn_item_t;

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_work = PTHREAD_COND_INITIALIZER; /* an item was queued */
static pthread_cond_t q_done = PTHREAD_COND_INITIALIZER; /* an item returned */
static hostfn_item_t *q_head, *q_tail;
static uint64_t q_issued, q_completed;
static int q_worker_running;

static void *worker_main(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&q_lock);
    for (;;) {
        while (!q_head)
            pthread_cond_wait(&q_work, &q_lock);
        hostfn_item_t *it = q_head;
        q_head = it->next;
        if (!q_head)
            q_tail = NULL;
        pthread_mutex_unlock(&q_lock);
        if (it->fn)
            it->fn(it->user);
        else
            it->cb(it->stream, CUDA_SUCCESS, it->user);
        pthread_mutex_lock(&q_lock);
        q_completed = it->seq;
        pthread_cond_broadcast(&q_done);
        free(it);
    }
    return NULL;
}

/* Queues one host function; returns its sequence number, or 0 when it cannot be queued. */
uint64_t sim_hostfn_enqueue(CUhostFn fn, CUstreamCallback cb, CUstream stream, void *user)
{
    hostfn_item_t *it = calloc(1, sizeof *it);
    if (!it)
        return 0;
    it->fn = fn;
    it->cb = cb;
    it->stream = stream;
    it->user = user;
    pthread_mutex_lock(&q_lock);
    if (!q_worker_running) {
        pthread_attr_t attr;
        pthread_t tid;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        q_worker_running = pthread_create(&tid, &attr, worker_main, NULL) == 0;
        pthread_attr_destroy(&attr);
        if (!q_worker_running) {
            pthread_mutex_unlock(&q_lock);
            free(it);
            return 0;
        }
    }
    uint64_t seq = it->seq = ++q_issued; /* once unlocked, the worker may run and free it */
    if (q_tail)
        q_tail->next = it;
    else
        q_head = it;
    q_tail = it;
    pthread_cond_signal(&q_work);
    pthread_mutex_unlock(&q_lock);
    return seq;
}

uint64_t sim_hostfn_issued(void)
{
    pthread_mutex_lock(&q_lock);
    uint64_t n = q_issued;
    pthread_mutex_unlock(&q_lock);
    return n;
}

uint64_t sim_hostfn_completed(void)
{
    pthread_mutex_lock(&q_lock);
    uint64_t n = q_completed;
    pthread_mutex_unlock(&q_lock);
    return n;
}

void sim_hostfn_wait(uint64_t seq)
{
    pthread_mutex_lock(&q_lock);
    while (q_completed < seq)
        pthread_cond_wait(&q_done, &q_lock);
    pthread_mutex_unlock(&q_lock);
}

/* The worker does not exist in a fork child: what was queued is dropped (a real driver is
 * unusable in a fork child anyway) and the next host function starts a new worker. */
static void atfork_child(void)
{
    pthread_mutex_init(&q_lock, NULL);
    pthread_cond_init(&q_work, NULL);
    pthread_cond_init(&q_done, NULL);
    q_head = q_tail = NULL;
    q_completed = q_issued;
    q_worker_running = 0;
}

__attribute__((constructor)) static void hostfn_ctor(void)
{
    pthread_atfork(NULL, NULL, atfork_child);
}

/* ---- entry points ------------------------------------------------------------------------ */

static CUresult hostfn_issue(CUstream hStream, CUhostFn fn, CUstreamCallback cb, void *user)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!fn && !cb)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    int invalid;
    sim_capture_t *capture = sim_capture_active(hStream, &invalid);
    if (!sim_valid_stream(hStream, NULL)) {
        rc = CUDA_ERROR_INVALID_HANDLE;
    } else if (capture && cb) { /* callbacks cannot be captured; host functions can */
        sim_capture_invalidate(capture);
        rc = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    } else if (capture) {
        sim_node_t node;
        memset(&node, 0, sizeof node);
        node.type = CU_GRAPH_NODE_TYPE_HOST;
        node.fn = fn;
        node.user = user;
        if (!invalid)
            rc = sim_capture_add(capture, &node, NULL);
    } else {
        /* Issued under sim_lock so that the stream's last host function and the queue agree. */
        uint64_t seq = sim_hostfn_enqueue(fn, cb, hStream, user);
        if (seq)
            sim_stream_note_hostfn(hStream, seq);
        else
            rc = CUDA_ERROR_OUT_OF_MEMORY;
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{
    return fn ? hostfn_issue(hStream, fn, NULL, userData) : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void *userData)
{
    return cuLaunchHostFunc(hStream, fn, userData);
}

/* flags is reserved and must be 0 (cuda.h). */
SIM_EXPORT CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData,
                                        unsigned int flags)
{
    if (!callback || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    return hostfn_issue(hStream, NULL, callback, userData);
}

SIM_EXPORT CUresult cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback,
                                             void *userData, unsigned int flags)
{
    return cuStreamAddCallback(hStream, callback, userData, flags);
}

/* SPDX-License-Identifier: MIT */
/* Streams, events and host functions of the simulated driver: host functions and callbacks run
 * asynchronously on the driver's own thread, in the order issued, and synchronizations and queries
 * wait for or report them; stream flags and priorities; event flags, queries and timing; every
 * error path. Run with VTSIM_DEVICE_MEMORY=1G. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "sim_test.h"

/* cuda.h declares it only in per-thread default stream builds. */
CUresult cuStreamSynchronize_ptsz(CUstream hStream);

#define MiB (1ULL << 20)

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_open;

static void gate_set(int open)
{
    pthread_mutex_lock(&gate_lock);
    gate_open = open;
    pthread_cond_broadcast(&gate_cond);
    pthread_mutex_unlock(&gate_lock);
}

typedef struct blocker_s {
    pthread_t thread;
    volatile int ran;
} blocker_t;

/* Waits until the main thread opens the gate: proves the caller did not wait for it. */
static void blocking_fn(void *arg)
{
    blocker_t *b = arg;
    b->thread = pthread_self();
    pthread_mutex_lock(&gate_lock);
    while (!gate_open)
        pthread_cond_wait(&gate_cond, &gate_lock);
    pthread_mutex_unlock(&gate_lock);
    b->ran = 1;
}

static void test_asynchronous(void)
{
    CUstream s;
    CUevent before, after;
    blocker_t b = {0};
    float ms = -1;
    gate_set(0);
    VT_CHECK_EQ("stream", cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    VT_CHECK_EQ("event", cuEventCreate(&before, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("event", cuEventCreate(&after, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("record before", cuEventRecord(before, s), CUDA_SUCCESS);
    VT_CHECK_EQ("host func", cuLaunchHostFunc(s, blocking_fn, &b), CUDA_SUCCESS);
    VT_CHECK_EQ("record after", cuEventRecord(after, s), CUDA_SUCCESS);
    VT_CHECK("the caller did not run it", !b.ran);
    VT_CHECK_EQ("stream busy", cuStreamQuery(s), CUDA_ERROR_NOT_READY);
    VT_CHECK_EQ("the legacy stream covers every stream", cuStreamQuery(NULL), CUDA_ERROR_NOT_READY);
    VT_CHECK_EQ("event before done", cuEventQuery(before), CUDA_SUCCESS);
    VT_CHECK_EQ("event after pending", cuEventQuery(after), CUDA_ERROR_NOT_READY);
    VT_CHECK_EQ("elapsed not ready", cuEventElapsedTime(&ms, before, after), CUDA_ERROR_NOT_READY);
    CUdeviceptr p;
    VT_CHECK_EQ("alloc while it blocks", cuMemAlloc_v2(&p, MiB), CUDA_SUCCESS);
    VT_CHECK_EQ("free while it blocks", cuMemFree_v2(p), CUDA_SUCCESS);
    gate_set(1);
    VT_CHECK_EQ("event sync", cuEventSynchronize(after), CUDA_SUCCESS);
    VT_CHECK("ran before the event completed", b.ran);
    VT_CHECK("on another thread", !pthread_equal(b.thread, pthread_self()));
    VT_CHECK_EQ("stream idle", cuStreamQuery(s), CUDA_SUCCESS);
    VT_CHECK_EQ("elapsed", cuEventElapsedTime(&ms, before, after), CUDA_SUCCESS);
    VT_CHECK("elapsed >= 0", ms >= 0);
    VT_CHECK_EQ("elapsed _v2", cuEventElapsedTime_v2(&ms, before, after), CUDA_SUCCESS);

    blocker_t b2 = {0};
    VT_CHECK_EQ("host func 2", cuLaunchHostFunc(s, blocking_fn, &b2), CUDA_SUCCESS);
    VT_CHECK_EQ("stream sync waits for it", cuStreamSynchronize(s), CUDA_SUCCESS);
    VT_CHECK("ran", b2.ran);
    blocker_t b3 = {0};
    VT_CHECK_EQ("host func on the default stream", cuLaunchHostFunc(NULL, blocking_fn, &b3),
                CUDA_SUCCESS);
    VT_CHECK_EQ("ctx sync waits for it", cuCtxSynchronize(), CUDA_SUCCESS);
    VT_CHECK("ran", b3.ran);
    VT_CHECK_EQ("destroy", cuStreamDestroy_v2(s), CUDA_SUCCESS);
    VT_CHECK_EQ("destroy event", cuEventDestroy_v2(before), CUDA_SUCCESS);
    VT_CHECK_EQ("destroy event", cuEventDestroy_v2(after), CUDA_SUCCESS);
}

#define N_ORDERED 200
static int order_log[N_ORDERED];
static int order_n; /* written by the driver's single worker only */
static CUstream order_streams[2];
static int callback_bad_args;

static void order_fn(void *arg)
{
    order_log[order_n++] = (int)(long)arg;
}

static void order_cb(CUstream s, CUresult status, void *arg)
{
    int i = (int)(long)arg;
    if (status != CUDA_SUCCESS || s != order_streams[i % 2])
        callback_bad_args++;
    order_log[order_n++] = i;
}

static void test_order(void)
{
    VT_CHECK_EQ("stream 0", cuStreamCreate(&order_streams[0], 0), CUDA_SUCCESS);
    VT_CHECK_EQ("stream 1", cuStreamCreateWithPriority(&order_streams[1], 0, -2), CUDA_SUCCESS);
    for (int i = 0; i < N_ORDERED; i++) {
        CUresult rc = i % 3
                          ? cuLaunchHostFunc(order_streams[i % 2], order_fn, (void *)(long)i)
                          : cuStreamAddCallback(order_streams[i % 2], order_cb, (void *)(long)i, 0);
        VT_CHECK_EQ("issued", rc, CUDA_SUCCESS);
    }
    VT_CHECK_EQ("sync 0", cuStreamSynchronize(order_streams[0]), CUDA_SUCCESS);
    VT_CHECK_EQ("sync 1", cuStreamSynchronize(order_streams[1]), CUDA_SUCCESS);
    VT_CHECK_EQ("all ran", order_n, N_ORDERED);
    int in_order = 1;
    for (int i = 0; i < N_ORDERED; i++)
        in_order &= order_log[i] == i;
    VT_CHECK("in the order issued", in_order);
    VT_CHECK_EQ("callbacks got their stream and CUDA_SUCCESS", callback_bad_args, 0);
    for (int i = 0; i < 2; i++)
        VT_CHECK_EQ("destroy", cuStreamDestroy_v2(order_streams[i]), CUDA_SUCCESS);
}

/* A host function that frees device memory on the driver's thread while the main thread
 * allocates: the simulator must stay consistent (a real driver forbids CUDA calls there, but a
 * tracer has to survive programs that make them). */
static CUcontext main_ctx;
static void free_fn(void *arg)
{
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)arg;
    if (cuCtxSetCurrent(main_ctx) != CUDA_SUCCESS || cuMemFree_v2(p) != CUDA_SUCCESS)
        callback_bad_args++;
}

static void test_free_in_host_function(void)
{
    size_t before = sim_test_used_bytes();
    VT_CHECK_EQ("current ctx", cuCtxGetCurrent(&main_ctx), CUDA_SUCCESS);
    CUdeviceptr ps[64], qs[64];
    for (int i = 0; i < 64; i++) {
        VT_CHECK_EQ("alloc", cuMemAlloc_v2(&ps[i], MiB), CUDA_SUCCESS);
        VT_CHECK_EQ("free on the driver's thread",
                    cuLaunchHostFunc(NULL, free_fn, (void *)(uintptr_t)ps[i]), CUDA_SUCCESS);
        VT_CHECK_EQ("alloc meanwhile", cuMemAlloc_v2(&qs[i], 512), CUDA_SUCCESS);
    }
    VT_CHECK_EQ("sync", cuCtxSynchronize(), CUDA_SUCCESS);
    VT_CHECK_EQ("every free succeeded", callback_bad_args, 0);
    for (int i = 0; i < 64; i++)
        VT_CHECK_EQ("free", cuMemFree_v2(qs[i]), CUDA_SUCCESS);
    VT_CHECK_EQ("all freed", sim_test_used_bytes(), before);
}

static void test_streams(void)
{
    CUstream s;
    int least = 9, greatest = 9, prio = 9;
    unsigned flags = 9;
    VT_CHECK_EQ("priority range", cuCtxGetStreamPriorityRange(&least, &greatest), CUDA_SUCCESS);
    VT_CHECK("0 to -5", least == 0 && greatest == -5);
    VT_CHECK_EQ("range with NULLs", cuCtxGetStreamPriorityRange(NULL, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("with priority", cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, -99),
                CUDA_SUCCESS);
    VT_CHECK_EQ("get priority", cuStreamGetPriority(s, &prio), CUDA_SUCCESS);
    VT_CHECK_EQ("clamped to the greatest", prio, -5);
    VT_CHECK_EQ("get flags", cuStreamGetFlags(s, &flags), CUDA_SUCCESS);
    VT_CHECK_EQ("non-blocking", flags, CU_STREAM_NON_BLOCKING);
    VT_CHECK_EQ("ptsz priority", cuStreamGetPriority_ptsz(s, &prio), CUDA_SUCCESS);
    VT_CHECK_EQ("ptsz flags", cuStreamGetFlags_ptsz(s, &flags), CUDA_SUCCESS);
    VT_CHECK_EQ("default stream priority", cuStreamGetPriority(NULL, &prio), CUDA_SUCCESS);
    VT_CHECK_EQ("lowest", prio, 0);
    VT_CHECK_EQ("get priority NULL", cuStreamGetPriority(s, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("get flags NULL", cuStreamGetFlags(s, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("bad flags", cuStreamCreateWithPriority(&s, 4, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("NULL out", cuStreamCreateWithPriority(NULL, 0, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("destroy", cuStreamDestroy_v2(s), CUDA_SUCCESS);
    VT_CHECK_EQ("priority of a destroyed stream", cuStreamGetPriority(s, &prio),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("flags of a destroyed stream", cuStreamGetFlags(s, &flags),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("query destroyed", cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("query ptsz", cuStreamQuery_ptsz(NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("sync destroyed", cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("sync ptsz", cuStreamSynchronize_ptsz(NULL), CUDA_SUCCESS);
}

static void noop_fn(void *arg)
{
    (void)arg;
}

static void noop_cb(CUstream s, CUresult status, void *arg)
{
    (void)s, (void)status, (void)arg;
}

static void test_hostfn_errors(void)
{
    CUstream s;
    VT_CHECK_EQ("stream", cuStreamCreate(&s, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("destroy", cuStreamDestroy_v2(s), CUDA_SUCCESS);
    VT_CHECK_EQ("NULL fn", cuLaunchHostFunc(NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("destroyed stream", cuLaunchHostFunc(s, noop_fn, NULL), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("ptsz", cuLaunchHostFunc_ptsz(NULL, noop_fn, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("ptsz NULL fn", cuLaunchHostFunc_ptsz(NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("NULL callback", cuStreamAddCallback(NULL, NULL, NULL, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("flags", cuStreamAddCallback(NULL, noop_cb, NULL, 1), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("destroyed stream", cuStreamAddCallback(s, noop_cb, NULL, 0),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("callback ptsz", cuStreamAddCallback_ptsz(NULL, noop_cb, NULL, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("callback ptsz flags", cuStreamAddCallback_ptsz(NULL, noop_cb, NULL, 2),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("sync", cuCtxSynchronize(), CUDA_SUCCESS);
}

static void test_events(void)
{
    CUevent a, b, nt;
    float ms;
    VT_CHECK_EQ("interprocess needs disable-timing", cuEventCreate(&a, CU_EVENT_INTERPROCESS),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("unknown flag", cuEventCreate(&a, 0x10), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("interprocess", cuEventCreate(&a, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING),
                CUDA_SUCCESS);
    VT_CHECK_EQ("destroy", cuEventDestroy_v2(a), CUDA_SUCCESS);
    VT_CHECK_EQ("blocking", cuEventCreate(&a, CU_EVENT_BLOCKING_SYNC), CUDA_SUCCESS);
    VT_CHECK_EQ("b", cuEventCreate(&b, CU_EVENT_DEFAULT), CUDA_SUCCESS);
    VT_CHECK_EQ("no timing", cuEventCreate(&nt, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
    VT_CHECK_EQ("never recorded: complete", cuEventQuery(a), CUDA_SUCCESS);
    VT_CHECK_EQ("elapsed unrecorded", cuEventElapsedTime(&ms, a, b), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("record a", cuEventRecord(a, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("record b ptsz", cuEventRecord_ptsz(b, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("record nt", cuEventRecord(nt, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("elapsed", cuEventElapsedTime(&ms, a, b), CUDA_SUCCESS);
    VT_CHECK("b after a", ms >= 0);
    VT_CHECK_EQ("elapsed NULL", cuEventElapsedTime(NULL, a, b), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("elapsed without timing", cuEventElapsedTime(&ms, a, nt),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("wait", cuStreamWaitEvent(NULL, a, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("wait ptsz", cuStreamWaitEvent_ptsz(NULL, a, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("wait bad flags", cuStreamWaitEvent(NULL, a, 4), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("destroy nt", cuEventDestroy_v2(nt), CUDA_SUCCESS);
    VT_CHECK_EQ("query destroyed", cuEventQuery(nt), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("wait destroyed", cuStreamWaitEvent(NULL, nt, 0), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("elapsed destroyed", cuEventElapsedTime(&ms, a, nt), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("record ptsz destroyed", cuEventRecord_ptsz(nt, NULL), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("destroy a", cuEventDestroy_v2(a), CUDA_SUCCESS);
    VT_CHECK_EQ("destroy b", cuEventDestroy_v2(b), CUDA_SUCCESS);
}

/* Without a current context every entry point answers CUDA_ERROR_INVALID_CONTEXT. */
static void *no_context_thread(void *arg)
{
    (void)arg;
    int least, prio;
    unsigned flags;
    CUstream s;
    CUevent e = NULL;
    float ms;
    VT_CHECK_EQ("host func", cuLaunchHostFunc(NULL, noop_fn, NULL), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("callback", cuStreamAddCallback(NULL, noop_cb, NULL, 0),
                CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("query", cuStreamQuery(NULL), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("event query", cuEventQuery(e), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("wait event", cuStreamWaitEvent(NULL, e, 0), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("elapsed", cuEventElapsedTime(&ms, e, e), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("range", cuCtxGetStreamPriorityRange(&least, NULL), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("create", cuStreamCreateWithPriority(&s, 0, 0), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("priority", cuStreamGetPriority(NULL, &prio), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("flags", cuStreamGetFlags(NULL, &flags), CUDA_ERROR_INVALID_CONTEXT);
    return NULL;
}

int main(void)
{
    VT_CHECK_EQ("context", sim_test_context(0), CUDA_SUCCESS);
    test_asynchronous();
    test_order();
    test_free_in_host_function();
    test_streams();
    test_hostfn_errors();
    test_events();
    pthread_t t;
    pthread_create(&t, NULL, no_context_thread, NULL);
    pthread_join(t, NULL);
    return vt_test_done();
}

/* SPDX-License-Identifier: MIT */
/* The simulated runtime's streams, events and host functions: flags reach the driver, host
 * functions and callbacks run asynchronously on the driver's thread in order (a callback gets
 * cudaSuccess and its stream), queries answer cudaErrorNotReady without recording it as the last
 * error, and every error path is recorded. Run with VTSIM_DEVICE_MEMORY=1G. */
#include <pthread.h>
#include "t_rt_common.h"

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_open, n_ran, bad_args;
static cudaStream_t cb_stream;

static void gated_fn(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&gate_lock);
    while (!gate_open)
        pthread_cond_wait(&gate_cond, &gate_lock);
    pthread_mutex_unlock(&gate_lock);
    n_ran++;
}

static void counting_cb(cudaStream_t s, cudaError_t status, void *arg)
{
    if (s != cb_stream || status != cudaSuccess || arg != &n_ran)
        bad_args++;
    n_ran++;
}

static void expect_last_error(const char *name, cudaError_t want)
{
    VT_CHECK_EQ(name, cudaGetLastError(), want);
}

int main(void)
{
    VT_CHECK("the simulated libcudart.so.13 is loaded", t_rt_sim_runtime_loaded());
    cudaStream_t s;
    cudaEvent_t a, b, nt;
    float ms = -1;
    VT_CHECK_EQ("stream with flags", cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking),
                cudaSuccess);
    VT_CHECK_EQ("stream bad flags", cudaStreamCreateWithFlags(&s, 8), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("stream NULL", cudaStreamCreateWithFlags(NULL, 0), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("event", cudaEventCreateWithFlags(&a, cudaEventBlockingSync), cudaSuccess);
    VT_CHECK_EQ("event", cudaEventCreateWithFlags(&b, cudaEventDefault), cudaSuccess);
    VT_CHECK_EQ("event", cudaEventCreateWithFlags(&nt, cudaEventDisableTiming), cudaSuccess);
    VT_CHECK_EQ("event bad flags", cudaEventCreateWithFlags(&nt, cudaEventInterprocess),
                cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("event NULL", cudaEventCreateWithFlags(NULL, 0), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);

    cb_stream = s;
    VT_CHECK_EQ("record a", cudaEventRecord(a, s), cudaSuccess);
    VT_CHECK_EQ("gated host func", cudaLaunchHostFunc(s, gated_fn, NULL), cudaSuccess);
    VT_CHECK_EQ("callback", cudaStreamAddCallback(s, counting_cb, &n_ran, 0), cudaSuccess);
    VT_CHECK_EQ("record b", cudaEventRecord(b, s), cudaSuccess);
    VT_CHECK_EQ("stream busy", cudaStreamQuery(s), cudaErrorNotReady);
    VT_CHECK_EQ("event busy", cudaEventQuery(b), cudaErrorNotReady);
    VT_CHECK_EQ("elapsed busy", cudaEventElapsedTime(&ms, a, b), cudaErrorNotReady);
    expect_last_error("not ready is not recorded", cudaSuccess);
    VT_CHECK_EQ("event a done", cudaEventQuery(a), cudaSuccess);
    VT_CHECK_EQ("nothing ran yet", n_ran, 0);
    pthread_mutex_lock(&gate_lock);
    gate_open = 1;
    pthread_cond_broadcast(&gate_cond);
    pthread_mutex_unlock(&gate_lock);
    VT_CHECK_EQ("stream sync", cudaStreamSynchronize(s), cudaSuccess);
    VT_CHECK_EQ("both ran, in order", n_ran, 2);
    VT_CHECK_EQ("callback arguments", bad_args, 0);
    VT_CHECK_EQ("stream idle", cudaStreamQuery(s), cudaSuccess);
    VT_CHECK_EQ("event done", cudaEventQuery(b), cudaSuccess);
    VT_CHECK_EQ("elapsed", cudaEventElapsedTime(&ms, a, b), cudaSuccess);
    VT_CHECK("elapsed >= 0", ms >= 0);
    VT_CHECK_EQ("record nt", cudaEventRecord(nt, s), cudaSuccess);
    VT_CHECK_EQ("elapsed without timing", cudaEventElapsedTime(&ms, a, nt),
                cudaErrorInvalidResourceHandle);
    expect_last_error("recorded", cudaErrorInvalidResourceHandle);
    VT_CHECK_EQ("elapsed NULL", cudaEventElapsedTime(NULL, a, b), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("wait event", cudaStreamWaitEvent(s, a, 0), cudaSuccess);
    VT_CHECK_EQ("wait bad flags", cudaStreamWaitEvent(s, a, 8), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("host func NULL", cudaLaunchHostFunc(s, NULL, NULL), cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("callback NULL", cudaStreamAddCallback(s, NULL, NULL, 0), cudaErrorInvalidValue);
    VT_CHECK_EQ("callback flags", cudaStreamAddCallback(s, counting_cb, &n_ran, 1),
                cudaErrorInvalidValue);
    expect_last_error("recorded", cudaErrorInvalidValue);
    VT_CHECK_EQ("destroy nt", cudaEventDestroy(nt), cudaSuccess);
    VT_CHECK_EQ("query destroyed event", cudaEventQuery(nt), cudaErrorInvalidResourceHandle);
    expect_last_error("recorded", cudaErrorInvalidResourceHandle);
    VT_CHECK_EQ("wait destroyed event", cudaStreamWaitEvent(s, nt, 0),
                cudaErrorInvalidResourceHandle);
    VT_CHECK_EQ("destroy s", cudaStreamDestroy(s), cudaSuccess);
    VT_CHECK_EQ("query destroyed stream", cudaStreamQuery(s), cudaErrorInvalidResourceHandle);
    expect_last_error("recorded", cudaErrorInvalidResourceHandle);
    VT_CHECK_EQ("host func on a destroyed stream", cudaLaunchHostFunc(s, gated_fn, NULL),
                cudaErrorInvalidResourceHandle);
    VT_CHECK_EQ("callback on a destroyed stream", cudaStreamAddCallback(s, counting_cb, NULL, 0),
                cudaErrorInvalidResourceHandle);
    expect_last_error("recorded", cudaErrorInvalidResourceHandle);
    VT_CHECK_EQ("destroy a", cudaEventDestroy(a), cudaSuccess);
    VT_CHECK_EQ("destroy b", cudaEventDestroy(b), cudaSuccess);
    VT_CHECK_EQ("device sync", cudaDeviceSynchronize(), cudaSuccess);
    return vt_test_done();
}

/* SPDX-License-Identifier: MIT */
/* The simulated CUDA runtime's streams, events and host functions: each forwards to the driver
 * entry point of the same name (the flag values are the driver's). cudaErrorNotReady from the
 * queries is an answer, not a failure: it is not recorded as the thread's last error. */
#include <stdlib.h>
#include "sim_runtime.h"

/* ---- streams ----------------------------------------------------------------------------- */

SIM_RT_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    cudaError_t e = sim_rt_ctx_and_check(!pStream);
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuStreamCreate(pStream, 0));
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    cudaError_t e = sim_rt_ctx_and_check(!pStream);
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuStreamCreate(pStream, flags));
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    SIM_RT_FORWARD(cuStreamDestroy_v2(stream));
}

SIM_RT_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    SIM_RT_FORWARD(cuStreamSynchronize(stream));
}

/* The answer of a query: cudaErrorNotReady is returned but not recorded. */
static cudaError_t query_result(CUresult rc)
{
    cudaError_t e = sim_rt_error(rc);
    return e == cudaErrorNotReady ? e : sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    cudaError_t e = sim_rt_context();
    return e != cudaSuccess ? sim_rt_fail(e) : query_result(sim_rt_cu.cuStreamQuery(stream));
}

SIM_RT_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                              unsigned int flags)
{
    SIM_RT_FORWARD(cuStreamWaitEvent(stream, event, flags));
}

SIM_RT_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    cudaError_t e = sim_rt_ctx_and_check(!fn);
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuLaunchHostFunc(stream, fn, userData));
    return sim_rt_fail(e);
}

/* The runtime's callback takes a cudaError_t where the driver's takes a CUresult: a small
 * trampoline carries the program's callback to the driver's thread and is freed there. */
typedef struct rt_callback_s {
    cudaStreamCallback_t fn;
    void *user;
} rt_callback_t;

static void rt_callback_run(CUstream stream, CUresult status, void *arg)
{
    rt_callback_t cb = *(rt_callback_t *)arg;
    free(arg);
    cb.fn(stream, sim_rt_error(status), cb.user);
}

SIM_RT_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                                void *userData, unsigned int flags)
{
    cudaError_t e = sim_rt_ctx_and_check(!callback || flags != 0);
    if (e != cudaSuccess)
        return sim_rt_fail(e);
    rt_callback_t *cb = malloc(sizeof *cb);
    if (!cb)
        return sim_rt_fail(cudaErrorMemoryAllocation);
    cb->fn = callback;
    cb->user = userData;
    e = sim_rt_error(sim_rt_cu.cuStreamAddCallback(stream, rt_callback_run, cb, 0));
    if (e != cudaSuccess)
        free(cb);
    return sim_rt_fail(e);
}

/* ---- events ------------------------------------------------------------------------------ */

SIM_RT_EXPORT cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    cudaError_t e = sim_rt_ctx_and_check(!event);
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuEventCreate(event, 0));
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    cudaError_t e = sim_rt_ctx_and_check(!event);
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuEventCreate(event, flags));
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    SIM_RT_FORWARD(cuEventDestroy_v2(event));
}

SIM_RT_EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    SIM_RT_FORWARD(cuEventRecord(event, stream));
}

SIM_RT_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    SIM_RT_FORWARD(cuEventSynchronize(event));
}

SIM_RT_EXPORT cudaError_t cudaEventQuery(cudaEvent_t event)
{
    cudaError_t e = sim_rt_context();
    return e != cudaSuccess ? sim_rt_fail(e) : query_result(sim_rt_cu.cuEventQuery(event));
}

SIM_RT_EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    cudaError_t e = sim_rt_ctx_and_check(!ms);
    if (e != cudaSuccess)
        return sim_rt_fail(e);
    return query_result(sim_rt_cu.cuEventElapsedTime_v2(ms, start, end));
}

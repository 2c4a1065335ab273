/* SPDX-License-Identifier: MIT */
/* The simulated CUDA runtime's stream priorities, stream capture, graphs, graph memory and
 * memory pools: each forwards to the driver entry point of the same purpose (the runtime's enums
 * and parameter structs have the driver's values and layouts, which t_sim_abi checks). */
#include <stdint.h>
#include <string.h>
#include "sim_runtime.h"

SIM_RT_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
                                                       int priority)
{
    cudaError_t e = sim_rt_ctx_and_check(!pStream);
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuStreamCreateWithPriority(pStream, flags, priority));
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    SIM_RT_FORWARD(cuStreamGetPriority(hStream, priority));
}

SIM_RT_EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    SIM_RT_FORWARD(cuStreamGetFlags(hStream, flags));
}

/* ---- stream capture ----------------------------------------------------------------------- */

SIM_RT_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream,
                                                 enum cudaStreamCaptureMode mode)
{
    cudaError_t e = sim_rt_context();
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuStreamBeginCapture_v2(stream, (CUstreamCaptureMode)mode));
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    cudaError_t e = sim_rt_context();
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuStreamEndCapture(stream, pGraph));
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                                enum cudaStreamCaptureStatus *pCaptureStatus)
{
    SIM_RT_FORWARD(cuStreamIsCapturing(stream, (CUstreamCaptureStatus *)pCaptureStatus));
}

/* Only the thread's mode: no context or initialisation needed (and none is started). */
SIM_RT_EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    cudaError_t e = sim_rt_init();
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuThreadExchangeStreamCaptureMode((CUstreamCaptureMode *)mode));
    return sim_rt_fail(e);
}

/* ---- graphs -------------------------------------------------------------------------------- */

SIM_RT_EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
    SIM_RT_FORWARD(cuGraphCreate(pGraph, flags));
}

SIM_RT_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    SIM_RT_FORWARD(cuGraphDestroy(graph));
}

SIM_RT_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                               unsigned long long flags)
{
    SIM_RT_FORWARD(cuGraphInstantiateWithFlags(pGraphExec, graph, flags));
}

SIM_RT_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec,
                                                        cudaGraph_t graph, unsigned long long flags)
{
    SIM_RT_FORWARD(cuGraphInstantiateWithFlags(pGraphExec, graph, flags));
}

SIM_RT_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    SIM_RT_FORWARD(cuGraphLaunch(graphExec, stream));
}

SIM_RT_EXPORT cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    SIM_RT_FORWARD(cuGraphUpload(graphExec, stream));
}

SIM_RT_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    SIM_RT_FORWARD(cuGraphExecDestroy(graphExec));
}

SIM_RT_EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes,
                                            size_t *numNodes)
{
    SIM_RT_FORWARD(cuGraphGetNodes(graph, nodes, numNodes));
}

SIM_RT_EXPORT cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                const cudaGraphNode_t *pDependencies,
                                                size_t numDependencies)
{
    SIM_RT_FORWARD(cuGraphAddEmptyNode(pGraphNode, graph, pDependencies, numDependencies));
}

SIM_RT_EXPORT cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t *pDependencies,
                                               size_t numDependencies,
                                               const struct cudaHostNodeParams *pNodeParams)
{
    SIM_RT_FORWARD(cuGraphAddHostNode(pGraphNode, graph, pDependencies, numDependencies,
                                      (const CUDA_HOST_NODE_PARAMS *)pNodeParams));
}

SIM_RT_EXPORT cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                 const cudaGraphNode_t *pDependencies,
                                                 size_t numDependencies,
                                                 const struct cudaMemsetParams *pMemsetParams)
{
    SIM_RT_FORWARD(cuGraphAddMemsetNode(pGraphNode, graph, pDependencies, numDependencies,
                                        (const CUDA_MEMSET_NODE_PARAMS *)pMemsetParams, NULL));
}

SIM_RT_EXPORT cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                   const cudaGraphNode_t *pDependencies,
                                                   size_t numDependencies,
                                                   struct cudaMemAllocNodeParams *nodeParams)
{
    SIM_RT_FORWARD(cuGraphAddMemAllocNode(pGraphNode, graph, pDependencies, numDependencies,
                                          (CUDA_MEM_ALLOC_NODE_PARAMS *)nodeParams));
}

SIM_RT_EXPORT cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                  const cudaGraphNode_t *pDependencies,
                                                  size_t numDependencies, void *dptr)
{
    SIM_RT_FORWARD(cuGraphAddMemFreeNode(pGraphNode, graph, pDependencies, numDependencies,
                                         (CUdeviceptr)(uintptr_t)dptr));
}

SIM_RT_EXPORT cudaError_t cudaDeviceGraphMemTrim(int device)
{
    cudaError_t e = sim_rt_init();
    if (e == cudaSuccess)
        e = sim_rt_check_ordinal(device);
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuDeviceGraphMemTrim(device));
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaDeviceGetGraphMemAttribute(int device,
                                                         enum cudaGraphMemAttributeType attr,
                                                         void *value)
{
    cudaError_t e = sim_rt_init();
    if (e == cudaSuccess)
        e = sim_rt_check_ordinal(device);
    if (e == cudaSuccess)
        e = sim_rt_error(
            sim_rt_cu.cuDeviceGetGraphMemAttribute(device, (CUgraphMem_attribute)attr, value));
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaDeviceSetGraphMemAttribute(int device,
                                                         enum cudaGraphMemAttributeType attr,
                                                         void *value)
{
    cudaError_t e = sim_rt_init();
    if (e == cudaSuccess)
        e = sim_rt_check_ordinal(device);
    if (e == cudaSuccess)
        e = sim_rt_error(
            sim_rt_cu.cuDeviceSetGraphMemAttribute(device, (CUgraphMem_attribute)attr, value));
    return sim_rt_fail(e);
}

/* ---- memory pools -------------------------------------------------------------------------- */

SIM_RT_EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool,
                                            const struct cudaMemPoolProps *poolProps)
{
    SIM_RT_FORWARD(cuMemPoolCreate(memPool, (const CUmemPoolProps *)poolProps));
}

SIM_RT_EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
    SIM_RT_FORWARD(cuMemPoolDestroy(memPool));
}

SIM_RT_EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                                  void *value)
{
    SIM_RT_FORWARD(cuMemPoolSetAttribute(memPool, (CUmemPool_attribute)attr, value));
}

SIM_RT_EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                                  void *value)
{
    SIM_RT_FORWARD(cuMemPoolGetAttribute(memPool, (CUmemPool_attribute)attr, value));
}

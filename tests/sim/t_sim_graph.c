/* SPDX-License-Identifier: MIT */
/* Graphs and stream capture of the simulated driver: every node type runs (copies copy, sets
 * set, host nodes run on the driver's thread), instantiation snapshots the graph,
 * auto-free-on-launch, graph memory from captured stream-ordered allocations (live only while the
 * graph runs, or until freed when the graph leaves it live), fork/join capture through events,
 * the calls that invalidate a capture, relaxed mode, and each entry point's error paths. Run with
 * VTSIM_DEVICE_MEMORY=1G. */
#include <pthread.h>
#include <string.h>
#include "sim_test.h"

#define MiB (1ULL << 20)

static int host_runs;
static void host_fn(void *arg)
{
    (void)arg;
    host_runs++;
}

static cuuint64_t graph_attr(CUgraphMem_attribute a)
{
    cuuint64_t v = 0;
    cuDeviceGetGraphMemAttribute(0, a, &v);
    return v;
}

static void test_nodes(void)
{
    CUgraph g, child;
    CUgraphNode k, cp, set, host, empty, rec, wait, sub, an, fn, bogus_dep = NULL;
    CUdeviceptr a, b;
    CUevent ev;
    cuMemAlloc_v2(&a, 256);
    cuMemAlloc_v2(&b, 256);
    cuEventCreate(&ev, 0);
    VT_CHECK_EQ("graph", cuGraphCreate(&g, 0), CUDA_SUCCESS);
    CUmodule m;
    CUfunction f;
    cuModuleLoadData(&m, "image");
    cuModuleGetFunction(&f, m, "k");
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = f;
    kp.gridDimX = kp.gridDimY = kp.gridDimZ = 1;
    kp.blockDimX = kp.blockDimY = kp.blockDimZ = 32;
    VT_CHECK_EQ("kernel node", cuGraphAddKernelNode_v2(&k, g, NULL, 0, &kp), CUDA_SUCCESS);
    CUDA_MEMSET_NODE_PARAMS sp = {a, 0, 0x41, 1, 256, 1};
    VT_CHECK_EQ("memset node", cuGraphAddMemsetNode(&set, g, &k, 1, &sp, NULL), CUDA_SUCCESS);
    CUDA_MEMCPY3D cp3;
    memset(&cp3, 0, sizeof cp3);
    cp3.srcMemoryType = cp3.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    cp3.srcDevice = a, cp3.dstDevice = b;
    cp3.srcPitch = cp3.dstPitch = 256;
    cp3.WidthInBytes = 256, cp3.Height = 1, cp3.Depth = 1;
    VT_CHECK_EQ("memcpy node", cuGraphAddMemcpyNode(&cp, g, &set, 1, &cp3, NULL), CUDA_SUCCESS);
    CUDA_HOST_NODE_PARAMS hp = {host_fn, NULL};
    VT_CHECK_EQ("host node", cuGraphAddHostNode(&host, g, &cp, 1, &hp), CUDA_SUCCESS);
    VT_CHECK_EQ("empty node", cuGraphAddEmptyNode(&empty, g, &host, 1), CUDA_SUCCESS);
    VT_CHECK_EQ("event record node", cuGraphAddEventRecordNode(&rec, g, &empty, 1, ev),
                CUDA_SUCCESS);
    VT_CHECK_EQ("event wait node", cuGraphAddEventWaitNode(&wait, g, &rec, 1, ev), CUDA_SUCCESS);
    VT_CHECK_EQ("child graph", cuGraphCreate(&child, 0), CUDA_SUCCESS);
    CUgraphNode ch;
    VT_CHECK_EQ("child host node", cuGraphAddHostNode(&ch, child, NULL, 0, &hp), CUDA_SUCCESS);
    VT_CHECK_EQ("child node", cuGraphAddChildGraphNode(&sub, g, &wait, 1, child), CUDA_SUCCESS);
    VT_CHECK_EQ("a graph in itself", cuGraphAddChildGraphNode(&sub, g, NULL, 0, g),
                CUDA_ERROR_INVALID_VALUE);
    size_t n = 0;
    VT_CHECK_EQ("count", cuGraphGetNodes(g, NULL, &n), CUDA_SUCCESS);
    VT_CHECK_EQ("8 nodes", n, 8);
    CUgraphNode nodes[3];
    n = 3;
    VT_CHECK_EQ("first 3", cuGraphGetNodes(g, nodes, &n), CUDA_SUCCESS);
    VT_CHECK("in order", n == 3 && nodes[0] == k && nodes[1] == set && nodes[2] == cp);
    CUgraphNodeType type;
    VT_CHECK_EQ("type", cuGraphNodeGetType(host, &type), CUDA_SUCCESS);
    VT_CHECK_EQ("host", type, CU_GRAPH_NODE_TYPE_HOST);
    VT_CHECK_EQ("type of child node", cuGraphNodeGetType(sub, &type), CUDA_SUCCESS);
    VT_CHECK_EQ("graph", type, CU_GRAPH_NODE_TYPE_GRAPH);
    VT_CHECK_EQ("type NULL", cuGraphNodeGetType(host, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("type of a bogus node", cuGraphNodeGetType((CUgraphNode)&n, &type),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("dependency of another graph", cuGraphAddEmptyNode(&empty, child, &k, 1),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("dependencies NULL", cuGraphAddEmptyNode(&empty, g, NULL, 1),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("bogus dependency", cuGraphAddEmptyNode(&empty, g, &bogus_dep, 1),
                CUDA_ERROR_INVALID_VALUE);
    kp.blockDimX = 0;
    VT_CHECK_EQ("kernel node bad params", cuGraphAddKernelNode_v2(&k, g, NULL, 0, &kp),
                CUDA_ERROR_INVALID_VALUE);
    sp.elementSize = 3;
    VT_CHECK_EQ("memset node element size", cuGraphAddMemsetNode(&set, g, NULL, 0, &sp, NULL),
                CUDA_ERROR_INVALID_VALUE);
    hp.fn = NULL;
    VT_CHECK_EQ("host node NULL", cuGraphAddHostNode(&host, g, NULL, 0, &hp),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("memcpy node NULL", cuGraphAddMemcpyNode(&cp, g, NULL, 0, NULL, NULL),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("event node bad event", cuGraphAddEventRecordNode(&rec, g, NULL, 0, (CUevent)&n),
                CUDA_ERROR_INVALID_VALUE);

    CUgraphExec ex;
    CUDA_GRAPH_INSTANTIATE_PARAMS ip;
    memset(&ip, 0, sizeof ip);
    ip.result_out = CUDA_GRAPH_INSTANTIATE_ERROR;
    VT_CHECK_EQ("instantiate with params", cuGraphInstantiateWithParams(&ex, g, &ip), CUDA_SUCCESS);
    VT_CHECK_EQ("result", ip.result_out, CUDA_GRAPH_INSTANTIATE_SUCCESS);
    VT_CHECK_EQ("a node added after instantiation",
                cuGraphAddHostNode(&host, g, NULL, 0, &(CUDA_HOST_NODE_PARAMS){host_fn, NULL}),
                CUDA_SUCCESS);
    VT_CHECK_EQ("upload", cuGraphUpload(ex, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("launch", cuGraphLaunch(ex, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("sync", cuStreamSynchronize(NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("host and child host nodes ran, not the late one", host_runs, 2);
    unsigned char out[256];
    cuMemcpyDtoH_v2(out, b, 256);
    VT_CHECK("set then copied", out[0] == 0x41 && out[255] == 0x41);
    VT_CHECK_EQ("event recorded by the graph", cuEventQuery(ev), CUDA_SUCCESS);
    VT_CHECK_EQ("upload ptsz", cuGraphUpload_ptsz(ex, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("upload bad stream", cuGraphUpload(ex, (CUstream)&n), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("instantiate params NULL", cuGraphInstantiateWithParams(&ex, g, NULL),
                CUDA_ERROR_INVALID_VALUE);
    ip.flags = 0x100;
    VT_CHECK_EQ("instantiate bad flags", cuGraphInstantiateWithParams_ptsz(&ex, g, &ip),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("error result", ip.result_out, CUDA_GRAPH_INSTANTIATE_ERROR);
    VT_CHECK_EQ("destroy the graph; the executable keeps its snapshot", cuGraphDestroy(g),
                CUDA_SUCCESS);
    VT_CHECK_EQ("launch again", cuGraphLaunch(ex, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("exec destroy", cuGraphExecDestroy(ex), CUDA_SUCCESS);
    VT_CHECK_EQ("upload destroyed", cuGraphUpload(ex, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("nodes of destroyed", cuGraphGetNodes(g, NULL, &n), CUDA_ERROR_INVALID_VALUE);
    cuCtxSynchronize();

    /* memory nodes: the parameters, a child graph may not hold them, auto free on launch */
    CUgraph gm;
    cuGraphCreate(&gm, 0);
    CUDA_MEM_ALLOC_NODE_PARAMS np;
    memset(&np, 0, sizeof np);
    np.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    np.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    np.bytesize = MiB;
    VT_CHECK_EQ("alloc node", cuGraphAddMemAllocNode(&an, gm, NULL, 0, &np), CUDA_SUCCESS);
    CUDA_MEM_ALLOC_NODE_PARAMS got;
    VT_CHECK_EQ("alloc params", cuGraphMemAllocNodeGetParams(an, &got), CUDA_SUCCESS);
    VT_CHECK("same", got.dptr == np.dptr && got.bytesize == MiB);
    VT_CHECK_EQ("alloc params of another node", cuGraphMemAllocNodeGetParams(sub, &got),
                CUDA_ERROR_INVALID_VALUE);
    CUgraph holder;
    cuGraphCreate(&holder, 0);
    VT_CHECK_EQ("a child graph with memory nodes",
                cuGraphAddChildGraphNode(&sub, holder, NULL, 0, gm), CUDA_ERROR_NOT_SUPPORTED);
    cuGraphDestroy(holder);
    CUgraphExec auto_ex, plain_ex;
    VT_CHECK_EQ(
        "auto free",
        cuGraphInstantiateWithFlags(&auto_ex, gm, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH),
        CUDA_SUCCESS);
    VT_CHECK_EQ("plain", cuGraphInstantiateWithFlags(&plain_ex, gm, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("launch", cuGraphLaunch(auto_ex, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("relaunch frees first", cuGraphLaunch(auto_ex, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("one MiB used", graph_attr(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), MiB);
    VT_CHECK_EQ("the plain one refuses while live", cuGraphLaunch(plain_ex, NULL),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("free", cuMemFreeAsync(np.dptr, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("reset the high mark",
                cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &(cuuint64_t){0}),
                CUDA_SUCCESS);
    VT_CHECK_EQ("high = current", graph_attr(CU_GRAPH_MEM_ATTR_USED_MEM_HIGH), 0);
    VT_CHECK_EQ(
        "reset reserved high",
        cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH, &(cuuint64_t){0}),
        CUDA_SUCCESS);
    VT_CHECK_EQ("only to 0",
                cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &(cuuint64_t){5}),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ(
        "not the current value",
        cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &(cuuint64_t){0}),
        CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("bad device",
                cuDeviceSetGraphMemAttribute(3, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &(cuuint64_t){0}),
                CUDA_ERROR_INVALID_DEVICE);
    cuGraphAddMemFreeNode(&fn, gm, &an, 1, np.dptr);
    CUdeviceptr freed = 0;
    VT_CHECK_EQ("free params", cuGraphMemFreeNodeGetParams(fn, &freed), CUDA_SUCCESS);
    VT_CHECK("its address", freed == np.dptr);
    VT_CHECK_EQ("free params of an alloc node", cuGraphMemFreeNodeGetParams(an, &freed),
                CUDA_ERROR_INVALID_VALUE);
    cuGraphExecDestroy(auto_ex);
    cuGraphExecDestroy(plain_ex);
    cuGraphDestroy(gm);
    cuGraphDestroy(child);
    cuDeviceGraphMemTrim(0);
    cuEventDestroy_v2(ev);
    cuModuleUnload(m);
    cuMemFree_v2(a);
    cuMemFree_v2(b);
}

static void test_capture(void)
{
    CUstream s, s2;
    CUgraph g = NULL;
    CUgraphExec ex;
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_ACTIVE;
    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING);
    size_t before = sim_test_used_bytes();
    VT_CHECK_EQ("not capturing", cuStreamIsCapturing(s, &st), CUDA_SUCCESS);
    VT_CHECK_EQ("none", st, CU_STREAM_CAPTURE_STATUS_NONE);
    VT_CHECK_EQ("end without begin", cuStreamEndCapture(s, &g), CUDA_ERROR_ILLEGAL_STATE);
    VT_CHECK_EQ("begin", cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    VT_CHECK_EQ("begin twice", cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL),
                CUDA_ERROR_ILLEGAL_STATE);
    VT_CHECK_EQ("capturing", cuStreamIsCapturing_ptsz(s, &st), CUDA_SUCCESS);
    VT_CHECK_EQ("active", st, CU_STREAM_CAPTURE_STATUS_ACTIVE);
    CUdeviceptr p = 0, q = 0;
    VT_CHECK_EQ("captured alloc", cuMemAllocAsync(&p, 3 * MiB, s), CUDA_SUCCESS);
    VT_CHECK("an address now", p != 0);
    VT_CHECK_EQ("nothing charged while capturing", sim_test_used_bytes(), before);
    VT_CHECK_EQ("captured set", cuMemsetD32Async(p, 7, 16, s), CUDA_SUCCESS);
    CUevent fork, join;
    cuEventCreate(&fork, 0);
    cuEventCreate(&join, 0);
    VT_CHECK_EQ("fork: record", cuEventRecord(fork, s), CUDA_SUCCESS);
    VT_CHECK_EQ("fork: s2 joins", cuStreamWaitEvent(s2, fork, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("s2 capturing", cuStreamIsCapturing(s2, &st), CUDA_SUCCESS);
    VT_CHECK_EQ("active", st, CU_STREAM_CAPTURE_STATUS_ACTIVE);
    VT_CHECK_EQ("captured alloc on s2", cuMemAllocFromPoolAsync(&q, MiB, NULL, s2),
                CUDA_ERROR_INVALID_VALUE); /* no pool: the argument check comes first */
    CUmemoryPool pool;
    cuDeviceGetDefaultMemPool(&pool, 0);
    VT_CHECK_EQ("captured pool alloc on s2", cuMemAllocFromPoolAsync(&q, MiB, pool, s2),
                CUDA_SUCCESS);
    VT_CHECK_EQ("captured copy", cuMemcpyDtoDAsync_v2(q, p, 64, s2), CUDA_SUCCESS);
    VT_CHECK_EQ("captured free on s2", cuMemFreeAsync(q, s2), CUDA_SUCCESS);
    VT_CHECK_EQ("join: record", cuEventRecord(join, s2), CUDA_SUCCESS);
    VT_CHECK_EQ("join: wait", cuStreamWaitEvent(s, join, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("captured host func", cuLaunchHostFunc(s, host_fn, NULL), CUDA_SUCCESS);
    CUmodule m;
    CUfunction f;
    cuModuleLoadData(&m, "image");
    cuModuleGetFunction(&f, m, "k");
    VT_CHECK_EQ("captured launch", cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL),
                CUDA_SUCCESS);
    cuuint64_t id = 0;
    CUgraph cg = NULL;
    const CUgraphNode *deps = NULL;
    const CUgraphEdgeData *edges = (const CUgraphEdgeData *)&id;
    size_t n_deps = 0;
    VT_CHECK_EQ("info v3", cuStreamGetCaptureInfo_v3(s, &st, &id, &cg, &deps, &edges, &n_deps),
                CUDA_SUCCESS);
    VT_CHECK("info",
             st == CU_STREAM_CAPTURE_STATUS_ACTIVE && id && cg && n_deps == 1 && deps && !edges);
    VT_CHECK_EQ("info v2", cuStreamGetCaptureInfo_v2(s2, &st, &id, &cg, &deps, &n_deps),
                CUDA_SUCCESS);
    VT_CHECK_EQ("info ptsz", cuStreamGetCaptureInfo_v3_ptsz(s, &st, NULL, NULL, NULL, NULL, NULL),
                CUDA_SUCCESS);
    VT_CHECK_EQ("info v2 ptsz", cuStreamGetCaptureInfo_v2_ptsz(s, &st, NULL, NULL, NULL, NULL),
                CUDA_SUCCESS);
    VT_CHECK_EQ("info NULL status",
                cuStreamGetCaptureInfo_v3(s, NULL, NULL, NULL, NULL, NULL, NULL),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("end on the joined stream", cuStreamEndCapture(s2, &g), CUDA_ERROR_ILLEGAL_STATE);
    VT_CHECK_EQ("end", cuStreamEndCapture(s, &g), CUDA_SUCCESS);
    VT_CHECK("a graph", g != NULL);
    VT_CHECK_EQ("s2 left the capture", cuStreamIsCapturing(s2, &st), CUDA_SUCCESS);
    VT_CHECK_EQ("none", st, CU_STREAM_CAPTURE_STATUS_NONE);
    size_t n = 0;
    cuGraphGetNodes(g, NULL, &n);
    VT_CHECK_EQ("alloc, set, record, alloc, copy, free, record, host, kernel", n, 9);
    VT_CHECK_EQ("instantiate", cuGraphInstantiateWithFlags(&ex, g, 0), CUDA_SUCCESS);
    int runs = host_runs;
    VT_CHECK_EQ("launch", cuGraphLaunch(ex, s), CUDA_SUCCESS);
    VT_CHECK_EQ("sync", cuStreamSynchronize(s), CUDA_SUCCESS);
    VT_CHECK_EQ("host node ran", host_runs, runs + 1);
    VT_CHECK_EQ("p live after the launch (not freed in the graph)",
                graph_attr(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), 3 * MiB);
    VT_CHECK_EQ("the reservation is charged", sim_test_used_bytes() - before, 4 * MiB);
    unsigned v = 0;
    cuMemcpyDtoH_v2(&v, p, 4);
    VT_CHECK_EQ("the captured set ran", v, 7);
    VT_CHECK_EQ("q was freed in the graph", cuMemFree_v2(q), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("free p", cuMemFreeAsync(p, s), CUDA_SUCCESS);
    cuDeviceGraphMemTrim(0);
    VT_CHECK_EQ("given back", sim_test_used_bytes(), before);
    cuGraphExecDestroy(ex);
    cuGraphDestroy(g);

    /* what invalidates a capture */
    VT_CHECK_EQ("begin", cuStreamBeginCapture_v2_ptsz(s, CU_STREAM_CAPTURE_MODE_GLOBAL),
                CUDA_SUCCESS);
    VT_CHECK_EQ("sync a capturing stream", cuStreamSynchronize(s),
                CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    VT_CHECK_EQ("invalidated", cuStreamIsCapturing(s, &st), CUDA_SUCCESS);
    VT_CHECK_EQ("status", st, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
    VT_CHECK_EQ("end", cuStreamEndCapture_ptsz(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    VT_CHECK("no graph", g == NULL);
    cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL);
    VT_CHECK_EQ("query a capturing stream", cuStreamQuery(s),
                CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    VT_CHECK_EQ("end", cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL);
    VT_CHECK_EQ("a callback", cuStreamAddCallback(s, NULL, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("ctx sync", cuCtxSynchronize(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    VT_CHECK_EQ("end", cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL);
    CUdeviceptr r;
    VT_CHECK_EQ("cuMemAlloc during a global capture", cuMemAlloc_v2(&r, 512),
                CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    VT_CHECK_EQ("end", cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL);
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    cuThreadExchangeStreamCaptureMode(&mode);
    VT_CHECK_EQ("cuMemAlloc in relaxed mode", cuMemAlloc_v2(&r, 512), CUDA_SUCCESS);
    VT_CHECK_EQ("cuMemFree in relaxed mode", cuMemFree_v2(r), CUDA_SUCCESS);
    cuThreadExchangeStreamCaptureMode(&mode);
    VT_CHECK_EQ("still valid", cuStreamEndCapture(s, &g), CUDA_SUCCESS);
    cuGraphDestroy(g);
    cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED);
    VT_CHECK_EQ("cuMemAlloc during a relaxed capture", cuMemAlloc_v2(&r, 512), CUDA_SUCCESS);
    cuMemFree_v2(r);
    VT_CHECK_EQ("callbacks cannot be captured",
                cuStreamAddCallback(s, (CUstreamCallback)(void (*)(void))host_fn, NULL, 0),
                CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    VT_CHECK_EQ("end", cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    VT_CHECK_EQ("the legacy stream cannot be captured",
                cuStreamBeginCapture_v2(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL),
                CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    VT_CHECK_EQ("bad mode", cuStreamBeginCapture_v2(s, (CUstreamCaptureMode)5),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("bad stream", cuStreamBeginCapture_v2((CUstream)&n, CU_STREAM_CAPTURE_MODE_GLOBAL),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("end NULL", cuStreamEndCapture(s, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("is capturing NULL", cuStreamIsCapturing(s, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("is capturing bad stream", cuStreamIsCapturing((CUstream)&n, &st),
                CUDA_ERROR_INVALID_HANDLE);
    cuModuleUnload(m);
    cuEventDestroy_v2(fork);
    cuEventDestroy_v2(join);
    cuStreamDestroy_v2(s);
    cuStreamDestroy_v2(s2);
}

static CUstream wrong_thread_stream;
static void *end_elsewhere(void *arg)
{
    CUcontext ctx = arg;
    CUgraph g;
    cuCtxSetCurrent(ctx);
    VT_CHECK_EQ("end on another thread", cuStreamEndCapture(wrong_thread_stream, &g),
                CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
    return NULL;
}

static void test_wrong_thread(void)
{
    CUcontext ctx;
    CUgraph g;
    cuCtxGetCurrent(&ctx);
    cuStreamCreate(&wrong_thread_stream, 0);
    cuStreamBeginCapture_v2(wrong_thread_stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
    pthread_t t;
    pthread_create(&t, NULL, end_elsewhere, ctx);
    pthread_join(t, NULL);
    VT_CHECK_EQ("end on its own thread", cuStreamEndCapture(wrong_thread_stream, &g), CUDA_SUCCESS);
    cuGraphDestroy(g);
    cuStreamDestroy_v2(wrong_thread_stream);
}

int main(void)
{
    VT_CHECK_EQ("context", sim_test_context(0), CUDA_SUCCESS);
    size_t before = sim_test_used_bytes();
    test_nodes();
    test_capture();
    test_wrong_thread();
    cuDeviceGraphMemTrim(0);
    VT_CHECK_EQ("everything given back", sim_test_used_bytes(), before);
    return vt_test_done();
}

/* SPDX-License-Identifier: MIT */
/* Graphs of the simulated driver: nodes are kept in the order they were added (a node's
 * dependencies were added before it, so that order is a valid execution order), and an
 * instantiated graph is a snapshot of them that a launch runs in order: kernels do nothing,
 * copies and sets copy and set, host nodes are issued to the driver's host-function thread,
 * event-record nodes record, child graphs run, and memory nodes make graph memory live and end
 * it. Graph memory: an allocation node fixes its address when it is added; a launch reserves
 * graph memory on the device in 2 MiB steps as needed and keeps it until cuDeviceGraphMemTrim;
 * relaunching while a graph allocation is still live fails unless the graph was instantiated with
 * CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH, which frees it first. */
#include <stdlib.h>
#include <string.h>
#include "sim_internal.h"

#define SIM_INSTANTIATE_AUTO_FREE 0x1ull /* CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH */
#define SIM_INSTANTIATE_FLAGS     0xfull /* auto free, upload, device launch, node priority */

typedef struct sim_graph_s {
    sim_node_t *head, *tail;
    size_t n_nodes;
    struct sim_graph_s *next;
} sim_graph_t;

typedef struct sim_graph_exec_s {
    sim_node_t *nodes; /* a snapshot: n_nodes copies, child graphs instantiated */
    size_t n_nodes;
    struct sim_graph_exec_s **children; /* per node, for child-graph nodes */
    unsigned long long flags;
    int is_child;
    struct sim_graph_exec_s *next;
} sim_graph_exec_t;

static sim_graph_t *sim_graphs;
static sim_graph_exec_t *sim_graph_execs;

static sim_graph_t *graph_lookup(CUgraph h)
{
    for (sim_graph_t *g = sim_graphs; g; g = g->next)
        if ((CUgraph)g == h)
            return g;
    return NULL;
}

static sim_graph_exec_t *exec_lookup(CUgraphExec h)
{
    for (sim_graph_exec_t *e = sim_graph_execs; e; e = e->next)
        if ((CUgraphExec)e == h && !e->is_child)
            return e;
    return NULL;
}

/* The graph holding a node, or NULL when the handle is no live node. */
static sim_graph_t *node_graph(CUgraphNode h, sim_node_t **node)
{
    for (sim_graph_t *g = sim_graphs; g; g = g->next)
        for (sim_node_t *n = g->head; n; n = n->next)
            if ((CUgraphNode)n == h) {
                if (node)
                    *node = n;
                return g;
            }
    return NULL;
}

/* Takes a graph allocation out of its device's used graph memory (reservation stays). */
void sim_graph_free(sim_alloc_t *a)
{
    sim_devices[a->device].graph_used_bytes -= a->charged_bytes;
    a->charged_bytes = 0;
}

SIM_EXPORT CUresult cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!phGraph || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    sim_graph_t *g = calloc(1, sizeof *g);
    if (!g)
        return CUDA_ERROR_OUT_OF_MEMORY;
    SIM_LOCK();
    g->next = sim_graphs;
    sim_graphs = g;
    SIM_UNLOCK();
    *phGraph = (CUgraph)g;
    return CUDA_SUCCESS;
}

/* Creates an empty graph; sim_lock held (stream capture). */
CUgraph sim_graph_new(void)
{
    sim_graph_t *g = calloc(1, sizeof *g);
    if (g) {
        g->next = sim_graphs;
        sim_graphs = g;
    }
    return (CUgraph)g;
}

SIM_EXPORT CUresult cuGraphDestroy(CUgraph hGraph)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    SIM_LOCK();
    CUresult rc = CUDA_ERROR_INVALID_VALUE;
    for (sim_graph_t **pp = &sim_graphs; *pp; pp = &(*pp)->next) {
        sim_graph_t *g = *pp;
        if ((CUgraph)g != hGraph)
            continue;
        *pp = g->next;
        while (g->head) {
            sim_node_t *n = g->head;
            g->head = n->next;
            free(n);
        }
        free(g);
        rc = CUDA_SUCCESS;
        break;
    }
    SIM_UNLOCK();
    return rc;
}

/* Appends a copy of proto to the graph; every dependency must be a node of that graph.
 * sim_lock held. */
CUresult sim_graph_add(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *deps,
                       size_t n_deps, const sim_node_t *proto)
{
    sim_graph_t *g = graph_lookup(hGraph);
    if (!g || !phGraphNode || (n_deps && !deps))
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < n_deps; i++)
        if (node_graph(deps[i], NULL) != g)
            return CUDA_ERROR_INVALID_VALUE;
    sim_node_t *n = malloc(sizeof *n);
    if (!n)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *n = *proto;
    n->next = NULL;
    if (g->tail)
        g->tail->next = n;
    else
        g->head = n;
    g->tail = n;
    g->n_nodes++;
    *phGraphNode = (CUgraphNode)n;
    return CUDA_SUCCESS;
}

static CUresult add_locked(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *deps,
                           size_t n_deps, const sim_node_t *proto)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    SIM_LOCK();
    CUresult rc = sim_graph_add(phGraphNode, hGraph, deps, n_deps, proto);
    SIM_UNLOCK();
    return rc;
}

/* A graph allocation node's address and size (2 MiB-reserved when launched); sim_lock held. */
CUresult sim_graph_alloc_node(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *deps,
                              size_t n_deps, int device, size_t bytesize, CUdeviceptr *dptr)
{
    CUdeviceptr base = sim_va_take(device, bytesize, SIM_ALIGN_BYTES);
    if (!base)
        return CUDA_ERROR_OUT_OF_MEMORY;
    sim_node_t proto;
    memset(&proto, 0, sizeof proto);
    proto.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
    proto.device = device;
    proto.dptr = base;
    proto.size_bytes = bytesize;
    CUresult rc = sim_graph_add(phGraphNode, hGraph, deps, n_deps, &proto);
    if (rc == CUDA_SUCCESS)
        *dptr = base;
    return rc;
}

/* The address is fixed when the node is added; the memory exists once the graph runs. */
SIM_EXPORT CUresult cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                           const CUgraphNode *dependencies, size_t numDependencies,
                                           CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!nodeParams || nodeParams->bytesize == 0 ||
        nodeParams->poolProps.allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
        nodeParams->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
        nodeParams->poolProps.location.id < 0 || nodeParams->poolProps.location.id >= sim_n_devices)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    CUresult rc = sim_graph_alloc_node(phGraphNode, hGraph, dependencies, numDependencies,
                                       nodeParams->poolProps.location.id, nodeParams->bytesize,
                                       &nodeParams->dptr);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuGraphAddMemFreeNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                          const CUgraphNode *dependencies, size_t numDependencies,
                                          CUdeviceptr dptr)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!dptr)
        return CUDA_ERROR_INVALID_VALUE;
    sim_node_t proto;
    memset(&proto, 0, sizeof proto);
    proto.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
    proto.dptr = dptr;
    return add_locked(phGraphNode, hGraph, dependencies, numDependencies, &proto);
}

SIM_EXPORT CUresult cuGraphMemAllocNodeGetParams(CUgraphNode hNode,
                                                 CUDA_MEM_ALLOC_NODE_PARAMS *params_out)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!params_out)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_node_t *n = NULL;
    CUresult rc = node_graph(hNode, &n) && n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC
                      ? CUDA_SUCCESS
                      : CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS) {
        memset(params_out, 0, sizeof *params_out);
        params_out->poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
        params_out->poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        params_out->poolProps.location.id = n->device;
        params_out->bytesize = n->size_bytes;
        params_out->dptr = n->dptr;
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuGraphMemFreeNodeGetParams(CUgraphNode hNode, CUdeviceptr *dptr_out)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!dptr_out)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_node_t *n = NULL;
    CUresult rc = node_graph(hNode, &n) && n->type == CU_GRAPH_NODE_TYPE_MEM_FREE
                      ? CUDA_SUCCESS
                      : CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        *dptr_out = n->dptr;
    SIM_UNLOCK();
    return rc;
}

/* ---- the other node types ---------------------------------------------------------------- */

SIM_EXPORT CUresult cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
                                            const CUgraphNode *dependencies, size_t numDependencies,
                                            const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!nodeParams || (!nodeParams->func && !nodeParams->kern) || !nodeParams->gridDimX ||
        !nodeParams->blockDimX || (nodeParams->kernelParams && nodeParams->extra))
        return CUDA_ERROR_INVALID_VALUE;
    sim_node_t proto;
    memset(&proto, 0, sizeof proto);
    proto.type = CU_GRAPH_NODE_TYPE_KERNEL;
    return add_locked(phGraphNode, hGraph, dependencies, numDependencies, &proto);
}

SIM_EXPORT CUresult cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                         const CUgraphNode *dependencies, size_t numDependencies,
                                         const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
    (void)ctx;
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!copyParams)
        return CUDA_ERROR_INVALID_VALUE;
    sim_node_t proto;
    memset(&proto, 0, sizeof proto);
    proto.type = CU_GRAPH_NODE_TYPE_MEMCPY;
    proto.copy = *copyParams;
    return add_locked(phGraphNode, hGraph, dependencies, numDependencies, &proto);
}

SIM_EXPORT CUresult cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                         const CUgraphNode *dependencies, size_t numDependencies,
                                         const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx)
{
    (void)ctx;
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!memsetParams || (memsetParams->elementSize != 1 && memsetParams->elementSize != 2 &&
                          memsetParams->elementSize != 4))
        return CUDA_ERROR_INVALID_VALUE;
    sim_node_t proto;
    memset(&proto, 0, sizeof proto);
    proto.type = CU_GRAPH_NODE_TYPE_MEMSET;
    proto.set = *memsetParams;
    return add_locked(phGraphNode, hGraph, dependencies, numDependencies, &proto);
}

SIM_EXPORT CUresult cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                       const CUgraphNode *dependencies, size_t numDependencies,
                                       const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!nodeParams || !nodeParams->fn)
        return CUDA_ERROR_INVALID_VALUE;
    sim_node_t proto;
    memset(&proto, 0, sizeof proto);
    proto.type = CU_GRAPH_NODE_TYPE_HOST;
    proto.fn = nodeParams->fn;
    proto.user = nodeParams->userData;
    return add_locked(phGraphNode, hGraph, dependencies, numDependencies, &proto);
}

SIM_EXPORT CUresult cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                        const CUgraphNode *dependencies, size_t numDependencies)
{
    sim_node_t proto;
    memset(&proto, 0, sizeof proto);
    proto.type = CU_GRAPH_NODE_TYPE_EMPTY;
    return add_locked(phGraphNode, hGraph, dependencies, numDependencies, &proto);
}

static CUresult add_event_node(CUgraphNode *phGraphNode, CUgraph hGraph,
                               const CUgraphNode *dependencies, size_t numDependencies,
                               CUevent event, int type)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    sim_node_t proto;
    memset(&proto, 0, sizeof proto);
    proto.type = type;
    proto.event = event;
    SIM_LOCK();
    CUresult rc = sim_event_valid(event)
                      ? sim_graph_add(phGraphNode, hGraph, dependencies, numDependencies, &proto)
                      : CUDA_ERROR_INVALID_VALUE;
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuGraphAddEventRecordNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                              const CUgraphNode *dependencies,
                                              size_t numDependencies, CUevent event)
{
    return add_event_node(phGraphNode, hGraph, dependencies, numDependencies, event,
                          CU_GRAPH_NODE_TYPE_EVENT_RECORD);
}

SIM_EXPORT CUresult cuGraphAddEventWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                            const CUgraphNode *dependencies, size_t numDependencies,
                                            CUevent event)
{
    return add_event_node(phGraphNode, hGraph, dependencies, numDependencies, event,
                          CU_GRAPH_NODE_TYPE_WAIT_EVENT);
}

/* The child graph's nodes are copied when the parent is instantiated. Memory nodes are not
 * allowed in a child graph, as on the real driver. */
SIM_EXPORT CUresult cuGraphAddChildGraphNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                             const CUgraphNode *dependencies,
                                             size_t numDependencies, CUgraph childGraph)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    SIM_LOCK();
    sim_graph_t *child = graph_lookup(childGraph);
    CUresult rc = child && (CUgraph)child != hGraph ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    for (sim_node_t *n = child ? child->head : NULL; rc == CUDA_SUCCESS && n; n = n->next)
        if (n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC || n->type == CU_GRAPH_NODE_TYPE_MEM_FREE)
            rc = CUDA_ERROR_NOT_SUPPORTED;
    if (rc == CUDA_SUCCESS) {
        sim_node_t proto;
        memset(&proto, 0, sizeof proto);
        proto.type = CU_GRAPH_NODE_TYPE_GRAPH;
        proto.child = childGraph;
        rc = sim_graph_add(phGraphNode, hGraph, dependencies, numDependencies, &proto);
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!type)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_node_t *n = NULL;
    sim_graph_t *g = node_graph(hNode, &n);
    if (g)
        *type = (CUgraphNodeType)n->type;
    SIM_UNLOCK();
    return g ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* nodes NULL: the count only; otherwise up to *numNodes handles, and *numNodes the count. */
SIM_EXPORT CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!numNodes)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_graph_t *g = graph_lookup(hGraph);
    if (g) {
        size_t i = 0;
        for (sim_node_t *n = g->head; nodes && n && i < *numNodes; n = n->next)
            nodes[i++] = (CUgraphNode)n;
        if (nodes && i < *numNodes)
            *numNodes = i;
        else if (!nodes)
            *numNodes = g->n_nodes;
    }
    SIM_UNLOCK();
    return g ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* ---- instantiation and launch ------------------------------------------------------------ */

static void exec_free(sim_graph_exec_t *e)
{
    for (size_t i = 0; e->children && i < e->n_nodes; i++)
        if (e->children[i])
            exec_free(e->children[i]);
    free(e->children);
    free(e->nodes);
    free(e);
}

/* A snapshot of the graph's nodes; sim_lock held. */
static sim_graph_exec_t *exec_new(sim_graph_t *g, unsigned long long flags, int is_child)
{
    sim_graph_exec_t *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->flags = flags;
    e->is_child = is_child;
    e->n_nodes = g->n_nodes;
    e->nodes = calloc(g->n_nodes ? g->n_nodes : 1, sizeof *e->nodes);
    e->children = calloc(g->n_nodes ? g->n_nodes : 1, sizeof *e->children);
    if (!e->nodes || !e->children) {
        exec_free(e);
        return NULL;
    }
    size_t i = 0;
    for (sim_node_t *n = g->head; n; n = n->next, i++) {
        e->nodes[i] = *n;
        e->nodes[i].next = NULL;
        if (n->type != CU_GRAPH_NODE_TYPE_GRAPH)
            continue;
        sim_graph_t *child = graph_lookup(n->child);
        if (!child || !(e->children[i] = exec_new(child, flags, 1))) {
            exec_free(e);
            return NULL;
        }
    }
    return e;
}

static CUresult instantiate(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!phGraphExec || (flags & ~SIM_INSTANTIATE_FLAGS))
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_graph_t *g = graph_lookup(hGraph);
    sim_graph_exec_t *e = g ? exec_new(g, flags, 0) : NULL;
    CUresult rc = !g ? CUDA_ERROR_INVALID_VALUE : !e ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
    if (e) {
        e->next = sim_graph_execs;
        sim_graph_execs = e;
        *phGraphExec = (CUgraphExec)e;
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
                                                unsigned long long flags)
{
    return instantiate(phGraphExec, hGraph, flags);
}

SIM_EXPORT CUresult cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
                                                 CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    if (!instantiateParams)
        return sim_initialized ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    CUresult rc = instantiate(phGraphExec, hGraph, instantiateParams->flags);
    instantiateParams->hErrNode_out = NULL;
    instantiateParams->result_out =
        rc == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS : CUDA_GRAPH_INSTANTIATE_ERROR;
    return rc;
}

SIM_EXPORT CUresult cuGraphInstantiateWithParams_ptsz(
    CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    return cuGraphInstantiateWithParams(phGraphExec, hGraph, instantiateParams);
}

/* Makes an allocation node's memory live, reserving graph memory as needed; sim_lock held. */
static CUresult run_alloc(const sim_node_t *n)
{
    sim_device_t *d = &sim_devices[n->device];
    size_t charged = sim_round_up(n->size_bytes, SIM_ALIGN_BYTES);
    size_t need = d->graph_used_bytes + charged;
    if (need > d->graph_reserved_bytes) {
        size_t grow = sim_round_up(need, SIM_GRAN_BYTES) - d->graph_reserved_bytes;
        CUresult rc = sim_charge(n->device, grow);
        if (rc != CUDA_SUCCESS)
            return rc;
        d->graph_reserved_bytes += grow;
        if (d->graph_reserved_bytes > d->graph_reserved_high_bytes)
            d->graph_reserved_high_bytes = d->graph_reserved_bytes;
        if (d->graph_reserved_bytes > d->graph_reserved_hwm_bytes)
            d->graph_reserved_hwm_bytes = d->graph_reserved_bytes;
    }
    sim_alloc_t *a = sim_alloc_add(n->dptr, n->size_bytes, 0, SIM_KIND_GRAPH, n->device);
    if (!a)
        return CUDA_ERROR_OUT_OF_MEMORY;
    a->charged_bytes = charged; /* counted in graph_used_bytes; see sim_graph_free */
    d->graph_used_bytes = need;
    if (need > d->graph_used_high_bytes)
        d->graph_used_high_bytes = need;
    if (need > d->graph_used_hwm_bytes)
        d->graph_used_hwm_bytes = need;
    return CUDA_SUCCESS;
}

/* Runs an instantiated graph's nodes in order; sim_lock held. */
static CUresult exec_run(sim_graph_exec_t *e, CUstream stream)
{
    CUresult rc = CUDA_SUCCESS;
    for (size_t i = 0; rc == CUDA_SUCCESS && i < e->n_nodes; i++) {
        sim_node_t *n = &e->nodes[i];
        sim_alloc_t *a;
        switch (n->type) {
        case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
            rc = run_alloc(n);
            break;
        case CU_GRAPH_NODE_TYPE_MEM_FREE:
            a = sim_alloc_find(n->dptr);
            if (a && a->kind == SIM_KIND_GRAPH) {
                sim_graph_free(a);
                sim_alloc_remove(a);
            }
            break;
        case CU_GRAPH_NODE_TYPE_MEMCPY:
            rc = sim_copy3d(&n->copy);
            break;
        case CU_GRAPH_NODE_TYPE_MEMSET:
            rc = sim_set2d(n->set.dst, n->set.pitch, n->set.value, n->set.elementSize, n->set.width,
                           n->set.height);
            break;
        case CU_GRAPH_NODE_TYPE_HOST: {
            uint64_t seq = sim_hostfn_enqueue(n->fn, NULL, stream, n->user);
            if (seq)
                sim_stream_note_hostfn(stream, seq);
            else
                rc = CUDA_ERROR_OUT_OF_MEMORY;
            break;
        }
        case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
            sim_event_record_locked(n->event, stream);
            break;
        case CU_GRAPH_NODE_TYPE_GRAPH:
            rc = exec_run(e->children[i], stream);
            break;
        default: /* kernels, empty nodes and event waits: nothing to do */
            break;
        }
    }
    return rc;
}

static CUresult graph_launch(CUgraphExec hGraphExec, CUstream hStream)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_valid_stream(hStream, NULL))
        return CUDA_ERROR_INVALID_HANDLE;
    sim_graph_exec_t *e = exec_lookup(hGraphExec);
    if (!e)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < e->n_nodes; i++) {
        sim_node_t *n = &e->nodes[i];
        sim_alloc_t *a = n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC ? sim_alloc_find(n->dptr) : NULL;
        if (!a)
            continue;
        if (!(e->flags & SIM_INSTANTIATE_AUTO_FREE))
            return CUDA_ERROR_INVALID_VALUE;
        sim_graph_free(a);
        sim_alloc_remove(a);
    }
    return exec_run(e, hStream);
}

SIM_EXPORT CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
    SIM_LOCK();
    CUresult rc = graph_launch(hGraphExec, hStream);
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
    return cuGraphLaunch(hGraphExec, hStream);
}

/* Uploading prepares the launch; here there is nothing to prepare. */
SIM_EXPORT CUresult cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    rc = !sim_valid_stream(hStream, NULL) ? CUDA_ERROR_INVALID_HANDLE
         : !exec_lookup(hGraphExec)       ? CUDA_ERROR_INVALID_VALUE
                                          : CUDA_SUCCESS;
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
    return cuGraphUpload(hGraphExec, hStream);
}

SIM_EXPORT CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    SIM_LOCK();
    CUresult rc = CUDA_ERROR_INVALID_VALUE;
    for (sim_graph_exec_t **pp = &sim_graph_execs; *pp; pp = &(*pp)->next) {
        if ((CUgraphExec)*pp == hGraphExec) {
            sim_graph_exec_t *e = *pp;
            *pp = e->next;
            exec_free(e);
            rc = CUDA_SUCCESS;
            break;
        }
    }
    SIM_UNLOCK();
    return rc;
}

/* ---- graph memory of a device ------------------------------------------------------------ */

SIM_EXPORT CUresult cuDeviceGraphMemTrim(CUdevice device)
{
    CUresult rc = sim_check_device(device);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    sim_device_t *d = &sim_devices[device];
    size_t keep = sim_round_up(d->graph_used_bytes, SIM_GRAN_BYTES);
    if (d->graph_reserved_bytes > keep) {
        sim_uncharge(device, d->graph_reserved_bytes - keep);
        d->graph_reserved_bytes = keep;
    }
    SIM_UNLOCK();
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr,
                                                 void *value)
{
    CUresult rc = sim_check_device(device);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_device_t *d = &sim_devices[device];
    switch (attr) {
    case CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT:
        *(cuuint64_t *)value = d->graph_used_bytes;
        break;
    case CU_GRAPH_MEM_ATTR_USED_MEM_HIGH:
        *(cuuint64_t *)value = d->graph_used_high_bytes;
        break;
    case CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT:
        *(cuuint64_t *)value = d->graph_reserved_bytes;
        break;
    case CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH:
        *(cuuint64_t *)value = d->graph_reserved_high_bytes;
        break;
    default:
        rc = CUDA_ERROR_INVALID_VALUE;
    }
    SIM_UNLOCK();
    return rc;
}

/* Only the high watermarks can be reset, to the current values (cuda.h). */
SIM_EXPORT CUresult cuDeviceSetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr,
                                                 void *value)
{
    CUresult rc = sim_check_device(device);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!value || *(cuuint64_t *)value != 0)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_device_t *d = &sim_devices[device];
    if (attr == CU_GRAPH_MEM_ATTR_USED_MEM_HIGH)
        d->graph_used_high_bytes = d->graph_used_bytes;
    else if (attr == CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH)
        d->graph_reserved_high_bytes = d->graph_reserved_bytes;
    else
        rc = CUDA_ERROR_INVALID_VALUE;
    SIM_UNLOCK();
    return rc;
}

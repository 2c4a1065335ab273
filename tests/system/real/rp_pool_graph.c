/* SPDX-License-Identifier: MIT */
/* A runtime-API program in the style of the CUDA samples' streamOrderedAllocation,
 * graphMemoryNodes and simpleCallback: the samples' device check (cudaDeviceGetAttribute before
 * anything else), a memory pool that never releases, stream-ordered allocations on two streams
 * with events between them and host callbacks, a captured graph with memory nodes launched
 * several times, a texture over a 3D array, mapped and managed memory. Run as `rp_pool_graph
 * pool` or `rp_pool_graph graph` (the two parts are traced separately: a pool's reservation and
 * a graph's are counted differently). Prints what it did; exit 0 on success. */
#include <stdio.h>
#include <string.h>
#include "t_rt_common.h"

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                   \
                    cudaGetErrorName(e_));                                                         \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

#define MIB ((size_t)1 << 20)

static int callbacks;
static void on_done(cudaStream_t stream, cudaError_t status, void *arg)
{
    (void)stream;
    if (status == cudaSuccess)
        __atomic_add_fetch((int *)arg, 1, __ATOMIC_RELAXED);
}

/* The samples' helper: pick the device, check it can do what the sample needs. */
static int find_device(void)
{
    int count = 0, pools = 0, major = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
        return -1;
    if (cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) != cudaSuccess)
        return -1;
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess || cudaSetDevice(0) != cudaSuccess)
        return -1;
    printf("GPU Device 0: \"%s\" with compute capability %d.%d, pools %s\n", prop.name, major,
           prop.minor, pools ? "yes" : "no");
    return 0;
}

static int pool_part(void)
{
    cudaStream_t s1, s2;
    cudaEvent_t ready;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    unsigned long long never = ~0ULL;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &never));
    for (int step = 0; step < 8; step++) {
        void *a, *b;
        CHECK(cudaMallocAsync(&a, (size_t)(step + 1) * MIB, s1));
        CHECK(cudaMemsetAsync(a, step, (size_t)(step + 1) * MIB, s1));
        CHECK(cudaEventRecord(ready, s1));
        CHECK(cudaStreamWaitEvent(s2, ready, 0));
        CHECK(cudaMallocFromPoolAsync(&b, 512 * 1024, pool, s2));
        CHECK(cudaMemcpyAsync(b, a, 512 * 1024, cudaMemcpyDeviceToDevice, s2));
        CHECK(cudaStreamAddCallback(s2, on_done, &callbacks, 0));
        CHECK(cudaFreeAsync(b, s2));
        CHECK(cudaFreeAsync(a, s1));
    }
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaStreamSynchronize(s2));
    unsigned long long reserved = 0, used_high = 0;
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &used_high));
    printf("pool: %llu MiB reserved, used at most %llu KiB, %d callbacks\n", reserved >> 20,
           used_high >> 10, callbacks);
    CHECK(cudaMemPoolTrimTo(pool, 0));

    /* mapped and managed memory beside it */
    float *mapped, *dev_view, *managed;
    CHECK(cudaHostAlloc((void **)&mapped, 4096, cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer((void **)&dev_view, mapped, 0));
    CHECK(cudaMallocManaged((void **)&managed, 8192, cudaMemAttachGlobal));
    struct cudaMemLocation here = {cudaMemLocationTypeDevice, 0};
    CHECK(cudaMemPrefetchAsync(managed, 8192, here, 0, s1));
    CHECK(cudaStreamAttachMemAsync(s1, managed, 0, cudaMemAttachSingle));
    CHECK(cudaStreamSynchronize(s1));
    printf("mapped: %s\n", dev_view == mapped ? "same address" : "different address");
    CHECK(cudaFreeHost(mapped));
    CHECK(cudaFree(managed));
    CHECK(cudaEventDestroy(ready));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    return 0;
}

static int graph_part(void)
{
    cudaStream_t s;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamCreate(&s));
    float *input;
    CHECK(cudaMalloc((void **)&input, 4 * MIB));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    float *tmp, *out;
    CHECK(cudaMallocAsync((void **)&tmp, 3 * MIB, s));
    CHECK(cudaMemcpyAsync(tmp, input, 3 * MIB, cudaMemcpyDeviceToDevice, s));
    CHECK(cudaMallocAsync((void **)&out, MIB, s));
    CHECK(cudaMemsetAsync(out, 0, MIB, s));
    CHECK(cudaFreeAsync(tmp, s));
    CHECK(cudaFreeAsync(out, s));
    CHECK(cudaStreamEndCapture(s, &graph));
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(graph, NULL, &nodes));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < 4; i++)
        CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    unsigned long long reserved = 0;
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &reserved));
    printf("graph: %zu nodes, launched 4 times, %llu MiB of graph memory at most\n", nodes,
           reserved >> 20);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaDeviceGraphMemTrim(0));

    /* a texture over a 3D array with 512-byte rows */
    struct cudaChannelFormatDesc f = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    struct cudaExtent ext = {128, 64, 4};
    cudaArray_t arr;
    CHECK(cudaMalloc3DArray(&arr, &f, ext, 0));
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr.ptr = input, p.srcPtr.pitch = 512, p.srcPtr.xsize = 128, p.srcPtr.ysize = 64;
    p.dstArray = arr;
    p.extent = ext;
    p.kind = cudaMemcpyDeviceToDevice;
    CHECK(cudaMemcpy3D(&p));
    struct cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = arr;
    struct cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.filterMode = cudaFilterModeLinear;
    td.normalizedCoords = 1;
    cudaTextureObject_t tex;
    CHECK(cudaCreateTextureObject(&tex, &rd, &td, NULL));
    printf("texture over a 128x64x4 array\n");
    CHECK(cudaDestroyTextureObject(tex));
    CHECK(cudaFreeArray(arr));
    CHECK(cudaFree(input));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "pool") != 0 && strcmp(argv[1], "graph") != 0)) {
        fprintf(stderr, "usage: rp_pool_graph pool|graph\n");
        return 2;
    }
    if (find_device() != 0) {
        fprintf(stderr, "no usable CUDA device\n");
        return 1;
    }
    int rc = strcmp(argv[1], "pool") == 0 ? pool_part() : graph_part();
    if (rc == 0)
        printf("Result = PASS\n");
    return rc;
}

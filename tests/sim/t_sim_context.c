/* SPDX-License-Identifier: MIT */
/* Devices and contexts of the simulated driver: every attribute of sim_attributes.def (and only
 * those), the deprecated property queries, UUIDs, PCI bus ids, peer queries; created contexts
 * (every cuCtxCreate ABI) whose destruction frees what they made, the per-thread context stack,
 * limits, flags, cache configuration, peer access; each with its error paths. Run with
 * VTSIM_DEVICE_COUNT=2 and VTSIM_DEVICE_MEMORY=1G. */
#include <pthread.h>
#include <string.h>
#include "sim_test.h"

#define MiB (1ULL << 20)
#ifndef SIM_ATTR_PER_DEVICE /* sim_cuda.h's marker, for builds against the toolkit's cuda.h */
#    define SIM_ATTR_PER_DEVICE (-0x7fffffff)
#endif
/* cuDeviceComputeCapability and cuDeviceGetProperties are deprecated but still exported. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static const struct {
    int attr, value;
} attributes[] = {
#define SIM_ATTR(number, name, value) {number, value},
#include "sim_attributes.def"
#undef SIM_ATTR
};

static void test_attributes(void)
{
    int v = 0, known = 0;
    for (size_t i = 0; i < sizeof attributes / sizeof attributes[0]; i++) {
        int want = attributes[i].value == SIM_ATTR_PER_DEVICE ? -1 : attributes[i].value;
        VT_CHECK_EQ("attribute answered",
                    cuDeviceGetAttribute(&v, (CUdevice_attribute)attributes[i].attr, 1),
                    CUDA_SUCCESS);
        if (want != -1)
            VT_CHECK_EQ("attribute value", v, want);
        known++;
    }
    VT_CHECK("every attribute of cuda.h 13.0 (147 numbers)", known == 147);
    VT_CHECK_EQ("PCI bus of device 1", cuDeviceGetAttribute(&v, (CUdevice_attribute)33, 1),
                CUDA_SUCCESS);
    VT_CHECK_EQ("bus 2", v, 2);
    VT_CHECK_EQ("0 is no attribute", cuDeviceGetAttribute(&v, (CUdevice_attribute)0, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("148 is no attribute", cuDeviceGetAttribute(&v, (CUdevice_attribute)148, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("bad device", cuDeviceGetAttribute(&v, (CUdevice_attribute)1, 2),
                CUDA_ERROR_INVALID_DEVICE);

    int major = 0, minor = -1;
    VT_CHECK_EQ("compute capability", cuDeviceComputeCapability(&major, &minor, 0), CUDA_SUCCESS);
    VT_CHECK("9.0", major == 9 && minor == 0);
    VT_CHECK_EQ("compute capability NULL", cuDeviceComputeCapability(NULL, &minor, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("compute capability bad device", cuDeviceComputeCapability(&major, &minor, 5),
                CUDA_ERROR_INVALID_DEVICE);
    CUdevprop prop;
    memset(&prop, 0, sizeof prop);
    VT_CHECK_EQ("properties", cuDeviceGetProperties(&prop, 0), CUDA_SUCCESS);
    VT_CHECK("properties values", prop.maxThreadsPerBlock == 1024 && prop.maxThreadsDim[2] == 64 &&
                                      prop.maxGridSize[1] == 65535 && prop.SIMDWidth == 32 &&
                                      prop.clockRate == 1980000 && prop.textureAlign == 512);
    VT_CHECK_EQ("properties NULL", cuDeviceGetProperties(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("properties bad device", cuDeviceGetProperties(&prop, 9),
                CUDA_ERROR_INVALID_DEVICE);
}

static void test_identity(void)
{
    CUuuid a, b, c;
    VT_CHECK_EQ("uuid 0", cuDeviceGetUuid(&a, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("uuid_v2 0", cuDeviceGetUuid_v2(&b, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("uuid 1", cuDeviceGetUuid_v2(&c, 1), CUDA_SUCCESS);
    VT_CHECK("stable", memcmp(&a, &b, sizeof a) == 0);
    VT_CHECK("distinct per device", memcmp(&a, &c, sizeof a) != 0);
    VT_CHECK_EQ("uuid NULL", cuDeviceGetUuid(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("uuid_v2 bad device", cuDeviceGetUuid_v2(&a, 2), CUDA_ERROR_INVALID_DEVICE);

    char bus[32];
    CUdevice d = -1;
    VT_CHECK_EQ("bus id", cuDeviceGetPCIBusId(bus, sizeof bus, 1), CUDA_SUCCESS);
    VT_CHECK("bus id text", strcmp(bus, "0000:02:00.0") == 0);
    VT_CHECK_EQ("by bus id", cuDeviceGetByPCIBusId(&d, bus), CUDA_SUCCESS);
    VT_CHECK_EQ("device 1", d, 1);
    VT_CHECK_EQ("short form", cuDeviceGetByPCIBusId(&d, "01:00.0"), CUDA_SUCCESS);
    VT_CHECK_EQ("device 0", d, 0);
    VT_CHECK_EQ("no such bus", cuDeviceGetByPCIBusId(&d, "0000:07:00.0"),
                CUDA_ERROR_INVALID_DEVICE);
    VT_CHECK_EQ("garbage", cuDeviceGetByPCIBusId(&d, "gpu"), CUDA_ERROR_INVALID_DEVICE);
    VT_CHECK_EQ("bus id NULL", cuDeviceGetPCIBusId(NULL, 13, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("by bus id NULL", cuDeviceGetByPCIBusId(&d, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("bus id bad device", cuDeviceGetPCIBusId(bus, 13, 4), CUDA_ERROR_INVALID_DEVICE);

    int can = -1, v = -1;
    VT_CHECK_EQ("peer", cuDeviceCanAccessPeer(&can, 0, 1), CUDA_SUCCESS);
    VT_CHECK_EQ("0 reaches 1", can, 1);
    VT_CHECK_EQ("self", cuDeviceCanAccessPeer(&can, 1, 1), CUDA_SUCCESS);
    VT_CHECK_EQ("not its own peer", can, 0);
    VT_CHECK_EQ("peer NULL", cuDeviceCanAccessPeer(NULL, 0, 1), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("peer bad device", cuDeviceCanAccessPeer(&can, 0, 2), CUDA_ERROR_INVALID_DEVICE);
    VT_CHECK_EQ("p2p access",
                cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1),
                CUDA_SUCCESS);
    VT_CHECK_EQ("p2p access value", v, 1);
    VT_CHECK_EQ("p2p rank",
                cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, 1, 0),
                CUDA_SUCCESS);
    VT_CHECK_EQ("p2p same device", cuDeviceGetP2PAttribute(&v, 2, 0, 0), CUDA_ERROR_INVALID_DEVICE);
    VT_CHECK_EQ("p2p bad attribute", cuDeviceGetP2PAttribute(&v, 9, 0, 1),
                CUDA_ERROR_INVALID_VALUE);
}

static void test_created_contexts(void)
{
    CUcontext primary, a = NULL, b = NULL, c = NULL, cur = NULL, popped = NULL;
    CUdeviceptr p, q;
    size_t before = sim_test_used_bytes();
    VT_CHECK_EQ("primary current", cuCtxGetCurrent(&primary), CUDA_SUCCESS);
    VT_CHECK_EQ("create v2", cuCtxCreate_v2(&a, CU_CTX_SCHED_BLOCKING_SYNC, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("created is current", cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    VT_CHECK("a on top", cur == a && a != primary);
    unsigned flags = 0;
    VT_CHECK_EQ("flags", cuCtxGetFlags(&flags), CUDA_SUCCESS);
    VT_CHECK_EQ("blocking sync", flags, CU_CTX_SCHED_BLOCKING_SYNC);
    VT_CHECK_EQ("alloc in a", cuMemAlloc_v2(&p, 3 * MiB), CUDA_SUCCESS);
    VT_CHECK_EQ("charged", sim_test_used_bytes() - before, 3 * MiB);
    VT_CHECK_EQ("pop a", cuCtxPopCurrent_v2(&popped), CUDA_SUCCESS);
    VT_CHECK("popped a", popped == a);
    VT_CHECK_EQ("primary again", cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    VT_CHECK("back to primary", cur == primary);
    VT_CHECK_EQ("alloc in primary", cuMemAlloc_v2(&q, MiB), CUDA_SUCCESS);
    CUexecAffinityParam affinity;
    memset(&affinity, 0, sizeof affinity);
    VT_CHECK_EQ("create v3", cuCtxCreate_v3(&b, &affinity, 1, 0, 1), CUDA_SUCCESS);
    VT_CHECK_EQ("device 1", cuCtxGetDevice(&(CUdevice){0}), CUDA_SUCCESS);
    CUctxCreateParams params;
    memset(&params, 0, sizeof params);
    VT_CHECK_EQ("create v4", cuCtxCreate_v4(&c, &params, 0, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("create v4 no params", cuCtxDestroy_v2(c), CUDA_SUCCESS);
    VT_CHECK_EQ("create v4 NULL params", cuCtxCreate_v4(&c, NULL, 0, 0), CUDA_SUCCESS);
    unsigned long long id_b = 0, id_c = 0;
    VT_CHECK_EQ("id of b", cuCtxGetId(b, &id_b), CUDA_SUCCESS);
    VT_CHECK_EQ("id of current", cuCtxGetId(NULL, &id_c), CUDA_SUCCESS);
    VT_CHECK("distinct ids", id_b != id_c && id_b && id_c);
    unsigned version = 0;
    VT_CHECK_EQ("api version", cuCtxGetApiVersion(b, &version), CUDA_SUCCESS);
    VT_CHECK_EQ("3020", version, 3020);
    VT_CHECK_EQ("destroy c (current)", cuCtxDestroy_v2(c), CUDA_SUCCESS);
    VT_CHECK_EQ("b is current after c is popped", cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    VT_CHECK("b", cur == b);
    VT_CHECK_EQ("destroy b", cuCtxDestroy_v2(b), CUDA_SUCCESS);
    VT_CHECK_EQ("primary below", cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    VT_CHECK("primary", cur == primary);
    VT_CHECK_EQ("destroy a frees its memory", cuCtxDestroy_v2(a), CUDA_SUCCESS);
    VT_CHECK_EQ("only the primary's allocation left", sim_test_used_bytes() - before, MiB);
    VT_CHECK_EQ("a's pointer is gone", cuMemFree_v2(p), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("destroy twice", cuCtxDestroy_v2(a), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("push destroyed", cuCtxPushCurrent_v2(a), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("set destroyed", cuCtxSetCurrent(a), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("destroy the primary", cuCtxDestroy_v2(primary), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("api version of destroyed", cuCtxGetApiVersion(a, &version),
                CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("id NULL", cuCtxGetId(NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("create NULL", cuCtxCreate_v2(NULL, 0, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("create bad flags", cuCtxCreate_v2(&a, 0x100, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("create bad device", cuCtxCreate_v2(&a, 0, 3), CUDA_ERROR_INVALID_DEVICE);
    VT_CHECK_EQ("create v3 bad params", cuCtxCreate_v3(&a, NULL, 2, 0, 0),
                CUDA_ERROR_INVALID_VALUE);
    params.numExecAffinityParams = -1;
    VT_CHECK_EQ("create v4 bad params", cuCtxCreate_v4(&a, &params, 0, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("free primary's", cuMemFree_v2(q), CUDA_SUCCESS);

    /* push/pop of the primary context itself, and an empty stack */
    VT_CHECK_EQ("push primary", cuCtxPushCurrent_v2(primary), CUDA_SUCCESS);
    VT_CHECK_EQ("push NULL", cuCtxPushCurrent_v2(NULL), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("pop", cuCtxPopCurrent_v2(NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("pop", cuCtxPopCurrent_v2(&popped), CUDA_SUCCESS);
    VT_CHECK_EQ("pop empty", cuCtxPopCurrent_v2(&popped), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("nothing current", cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    VT_CHECK("NULL", cur == NULL);
    VT_CHECK_EQ("set NULL on empty", cuCtxSetCurrent(NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("set primary", cuCtxSetCurrent(primary), CUDA_SUCCESS);
}

static void test_context_properties(void)
{
    size_t v = 0;
    VT_CHECK_EQ("stack limit", cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
    VT_CHECK_EQ("1 KiB", v, 1024);
    VT_CHECK_EQ("set heap", cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 64 * MiB), CUDA_SUCCESS);
    VT_CHECK_EQ("get heap", cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE), CUDA_SUCCESS);
    VT_CHECK_EQ("64 MiB", v, 64 * MiB);
    VT_CHECK_EQ("L2 fetch too large", cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 256),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("CIG read-only", cuCtxSetLimit(CU_LIMIT_CIG_ENABLED, 1), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("unknown limit", cuCtxGetLimit(&v, (CUlimit)10), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("limit NULL", cuCtxGetLimit(NULL, CU_LIMIT_STACK_SIZE), CUDA_ERROR_INVALID_VALUE);
    CUfunc_cache cfg = CU_FUNC_CACHE_PREFER_L1;
    VT_CHECK_EQ("cache config", cuCtxGetCacheConfig(&cfg), CUDA_SUCCESS);
    VT_CHECK_EQ("none by default", cfg, CU_FUNC_CACHE_PREFER_NONE);
    VT_CHECK_EQ("set cache", cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_SHARED), CUDA_SUCCESS);
    VT_CHECK_EQ("get cache", cuCtxGetCacheConfig(&cfg), CUDA_SUCCESS);
    VT_CHECK_EQ("shared", cfg, CU_FUNC_CACHE_PREFER_SHARED);
    VT_CHECK_EQ("bad cache", cuCtxSetCacheConfig((CUfunc_cache)4), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("cache NULL", cuCtxGetCacheConfig(NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("set flags", cuCtxSetFlags(CU_CTX_MAP_HOST), CUDA_SUCCESS);
    unsigned flags = 0;
    VT_CHECK_EQ("get flags", cuCtxGetFlags(&flags), CUDA_SUCCESS);
    VT_CHECK_EQ("map host", flags, CU_CTX_MAP_HOST);
    VT_CHECK_EQ("bad flags", cuCtxSetFlags(0x1000), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("flags NULL", cuCtxGetFlags(NULL), CUDA_ERROR_INVALID_VALUE);
    unsigned pflags = 9;
    int active = 0;
    VT_CHECK_EQ("primary flags", cuDevicePrimaryCtxSetFlags_v2(1, CU_CTX_SCHED_SPIN), CUDA_SUCCESS);
    VT_CHECK_EQ("state", cuDevicePrimaryCtxGetState(1, &pflags, &active), CUDA_SUCCESS);
    VT_CHECK_EQ("spin", pflags, CU_CTX_SCHED_SPIN);
    VT_CHECK_EQ("primary bad flags", cuDevicePrimaryCtxSetFlags_v2(1, 0x100),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("primary bad device", cuDevicePrimaryCtxSetFlags_v2(3, 0),
                CUDA_ERROR_INVALID_DEVICE);

    CUcontext peer;
    VT_CHECK_EQ("retain device 1", cuDevicePrimaryCtxRetain(&peer, 1), CUDA_SUCCESS);
    VT_CHECK_EQ("enable peer", cuCtxEnablePeerAccess(peer, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("enable twice", cuCtxEnablePeerAccess(peer, 0),
                CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
    VT_CHECK_EQ("enable flags", cuCtxEnablePeerAccess(peer, 1), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("disable", cuCtxDisablePeerAccess(peer), CUDA_SUCCESS);
    VT_CHECK_EQ("disable twice", cuCtxDisablePeerAccess(peer), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
    CUcontext self;
    cuCtxGetCurrent(&self);
    VT_CHECK_EQ("own device", cuCtxEnablePeerAccess(self, 0), CUDA_ERROR_INVALID_DEVICE);
    VT_CHECK_EQ("bogus peer", cuCtxEnablePeerAccess((CUcontext)&flags, 0),
                CUDA_ERROR_INVALID_CONTEXT);
    CUdeviceptr a, b;
    int x = 42, y = 0;
    cuMemAlloc_v2(&a, 4);
    VT_CHECK_EQ("set peer current", cuCtxSetCurrent(peer), CUDA_SUCCESS);
    cuMemAlloc_v2(&b, 4);
    VT_CHECK_EQ("write", cuMemcpyHtoD_v2(b, &x, 4), CUDA_SUCCESS);
    VT_CHECK_EQ("peer copy", cuMemcpyPeer(a, self, b, peer, 4), CUDA_SUCCESS);
    VT_CHECK_EQ("peer copy async", cuMemcpyPeerAsync(a, self, b, peer, 4, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("read", cuMemcpyDtoH_v2(&y, a, 4), CUDA_SUCCESS);
    VT_CHECK_EQ("copied across devices", y, 42);
    VT_CHECK_EQ("peer copy bad context", cuMemcpyPeer(a, (CUcontext)&x, b, peer, 4),
                CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("peer copy async bad context", cuMemcpyPeerAsync(a, self, b, NULL, 4, NULL),
                CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("peer copy out of bounds", cuMemcpyPeer(a, self, b, peer, 8),
                CUDA_ERROR_INVALID_VALUE);
    cuMemFree_v2(b);
    cuCtxSetCurrent(self);
    cuMemFree_v2(a);
    VT_CHECK_EQ("release device 1", cuDevicePrimaryCtxRelease_v2(1), CUDA_SUCCESS);
}

/* No current context: the context-bound calls say CUDA_ERROR_INVALID_CONTEXT. */
static void *no_context(void *arg)
{
    (void)arg;
    size_t v;
    unsigned f;
    CUfunc_cache cfg;
    VT_CHECK_EQ("limit", cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("set limit", cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 1), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("flags", cuCtxGetFlags(&f), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("set flags", cuCtxSetFlags(0), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("cache", cuCtxGetCacheConfig(&cfg), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("set cache", cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_NONE),
                CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("api version", cuCtxGetApiVersion(NULL, &f), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("peer", cuCtxEnablePeerAccess(NULL, 0), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("unpeer", cuCtxDisablePeerAccess(NULL), CUDA_ERROR_INVALID_CONTEXT);
    return NULL;
}

int main(void)
{
    CUdevice d;
    VT_CHECK_EQ("before cuInit", cuCtxCreate_v2(&(CUcontext){0}, 0, 0), CUDA_ERROR_NOT_INITIALIZED);
    VT_CHECK_EQ("uuid before cuInit", cuDeviceGetUuid(&(CUuuid){{0}}, 0),
                CUDA_ERROR_NOT_INITIALIZED);
    VT_CHECK_EQ("by bus id before cuInit", cuDeviceGetByPCIBusId(&d, "01:00.0"),
                CUDA_ERROR_NOT_INITIALIZED);
    VT_CHECK_EQ("destroy before cuInit", cuCtxDestroy_v2(NULL), CUDA_ERROR_NOT_INITIALIZED);
    VT_CHECK_EQ("pop before cuInit", cuCtxPopCurrent_v2(NULL), CUDA_ERROR_NOT_INITIALIZED);
    VT_CHECK_EQ("context", sim_test_context(0), CUDA_SUCCESS);
    test_attributes();
    test_identity();
    test_created_contexts();
    test_context_properties();
    pthread_t t;
    pthread_create(&t, NULL, no_context, NULL);
    pthread_join(t, NULL);
    return vt_test_done();
}

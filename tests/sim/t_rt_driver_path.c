/* SPDX-License-Identifier: MIT */
/* Proves HOW the simulated runtime reaches the driver, with t_rt_spy_preload.so LD_PRELOAD'ed:
 * lazily at the first call that needs it, once even when 8 threads race to it, with exactly the
 * real libcudart 13.0's door (docs/design.md, "How CUDA reaches the driver"): dlopen("libcuda.so.1", RTLD_NOW);
 * dlsym "cuGetProcAddress_v2", its only dlsym at all; the probe ("", 0, 0); cuInit at 2000;
 * cuGetProcAddress at 11030 and 12000; then every other entry point through the fetched 12000
 * pointer, the async allocation family with flags 0 and 2, and nothing cudart 13 never asks for
 * (cuMemAllocHost, VMM). cudaGetDriverEntryPoint* go through the fetched pointer too. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "t_rt_common.h"
#include "t_rt_spy.h"

static const t_rt_spy_log_t *spy;

/* How many logged events match; name NULL matches any, version/flags -1 match any. */
static int count(t_rt_spy_kind_t kind, const char *name, int version, long long flags, int via)
{
    int n = 0;
    for (int i = 0; i < spy->n_events && i < T_RT_SPY_MAX_EVENTS; i++) {
        const t_rt_spy_event_t *e = &spy->events[i];
        n += e->kind == kind && e->from_runtime && (!name || strcmp(e->name, name) == 0) &&
             (version < 0 || e->version == version) &&
             (flags < 0 || e->flags == (unsigned long long)flags) &&
             (via < 0 || (int)e->via == via);
    }
    return n;
}

static void *first_calls(void *arg)
{
    (void)arg;
    void *p = NULL;
    int ok = cudaMalloc(&p, 4096) == cudaSuccess && cudaFree(p) == cudaSuccess;
    return (void *)(long)ok;
}

static void print_queries(void)
{
    for (int i = 0; i < spy->n_events && i < T_RT_SPY_MAX_EVENTS; i++) {
        const t_rt_spy_event_t *e = &spy->events[i];
        fprintf(stderr, "  %s %s ver=%d flags=%llu libcuda=%d runtime=%d via=%d\n",
                e->kind == T_RT_SPY_DLOPEN  ? "dlopen"
                : e->kind == T_RT_SPY_DLSYM ? "dlsym"
                                            : "query",
                e->name, e->version, e->flags, e->into_libcuda, e->from_runtime, (int)e->via);
    }
}

int main(void)
{
    t_rt_spy_log_fn log_fn = (t_rt_spy_log_fn)dlsym(RTLD_DEFAULT, "t_rt_spy_log");
    if (!log_fn) {
        fprintf(stderr, "t_rt_spy_preload.so is not preloaded\n");
        return 1;
    }
    spy = log_fn();
    VT_CHECK("the simulated libcudart.so.13 is loaded", t_rt_sim_runtime_loaded());

    /* The spy's dlsym forward is a tail call: RTLD_NEXT still starts after the executable. */
    int (*probe)(void) = (int (*)(void))dlsym(RTLD_NEXT, "t_rt_spy_next_probe");
    VT_CHECK("dlsym(RTLD_NEXT) from the executable still works", probe && probe() == 42);

    /* Calls that need no driver do not load it. */
    int v = 0;
    VT_CHECK_EQ("runtime version", cudaRuntimeGetVersion(&v), cudaSuccess);
    VT_CHECK("error string", strcmp(cudaGetErrorString(cudaErrorNoDevice),
                                    "no CUDA-capable device is detected") == 0);
    VT_CHECK_EQ("not loaded yet", count(T_RT_SPY_DLOPEN, NULL, -1, -1, -1), 0);

    pthread_t threads[8];
    for (int i = 0; i < 8; i++)
        pthread_create(&threads[i], NULL, first_calls, NULL);
    int n_ok = 0;
    for (int i = 0; i < 8; i++) {
        void *ok = NULL;
        pthread_join(threads[i], &ok);
        n_ok += ok == (void *)1;
    }
    VT_CHECK_EQ("8 racing first calls succeed", n_ok, 8);

    VT_CHECK_EQ("one dlopen by the runtime", count(T_RT_SPY_DLOPEN, NULL, -1, -1, -1), 1);
    VT_CHECK_EQ("of libcuda.so.1 with RTLD_NOW",
                count(T_RT_SPY_DLOPEN, "libcuda.so.1", -1, RTLD_NOW, -1), 1);
    VT_CHECK_EQ("one dlsym by the runtime", count(T_RT_SPY_DLSYM, NULL, -1, -1, -1), 1);
    VT_CHECK_EQ("of cuGetProcAddress_v2", count(T_RT_SPY_DLSYM, "cuGetProcAddress_v2", -1, -1, -1),
                1);
    int into_libcuda = 0;
    for (int i = 0; i < spy->n_events && i < T_RT_SPY_MAX_EVENTS; i++)
        into_libcuda += spy->events[i].kind == T_RT_SPY_DLSYM && spy->events[i].into_libcuda;
    VT_CHECK_EQ("the only dlsym into libcuda in the process", into_libcuda, 1);

    /* The first four queries, in order, through the dlsym'd pointer; then none through it. */
    const struct {
        const char *name;
        int version;
    } boot[] = {
        {"", 0}, {"cuInit", 2000}, {"cuGetProcAddress", 11030}, {"cuGetProcAddress", 12000}};
    int q = 0;
    for (int i = 0; i < spy->n_events && i < T_RT_SPY_MAX_EVENTS; i++) {
        const t_rt_spy_event_t *e = &spy->events[i];
        if (e->kind != T_RT_SPY_QUERY)
            continue;
        if (q < 4) {
            VT_CHECK(boot[q].name, strcmp(e->name, boot[q].name) == 0 &&
                                       e->version == boot[q].version && e->flags == 0 &&
                                       e->via == T_RT_SPY_VIA_DLSYM && e->from_runtime);
        }
        q++;
    }
    VT_CHECK_EQ("only the bootstrap through the dlsym'd pointer",
                count(T_RT_SPY_QUERY, NULL, -1, -1, T_RT_SPY_VIA_DLSYM), 4);
    VT_CHECK_EQ("nothing through the 4-argument one",
                count(T_RT_SPY_QUERY, NULL, -1, -1, T_RT_SPY_VIA_FETCHED_V1), 0);
    VT_CHECK("the fetched 12000 pointer is the driver's cuGetProcAddress_v2",
             spy->fetched_v2 != NULL && spy->fetched_v2 == spy->dlsym_v2);
    int n_fetched = count(T_RT_SPY_QUERY, NULL, -1, -1, T_RT_SPY_VIA_FETCHED_V2);
    VT_CHECK("everything else through the fetched pointer", n_fetched > 50);
    VT_CHECK_EQ("with flags 0 or 2 only",
                count(T_RT_SPY_QUERY, NULL, -1, 0, T_RT_SPY_VIA_FETCHED_V2) +
                    count(T_RT_SPY_QUERY, NULL, -1, 2, T_RT_SPY_VIA_FETCHED_V2),
                n_fetched);

    const struct {
        const char *name;
        int version;
        int flags;
        int want;
    } fetched[] = {
        {"cuMemAllocAsync", 11020, 0, 1},
        {"cuMemAllocAsync", 11020, 2, 1},
        {"cuMemFreeAsync", 11020, 0, 1},
        {"cuMemFreeAsync", 11020, 2, 1},
        {"cuMemAllocFromPoolAsync", 11020, 0, 1},
        {"cuMemAllocFromPoolAsync", 11020, 2, 1},
        {"cuMemAlloc", 3020, 0, 1},
        {"cuMemFree", 3020, 0, 1},
        {"cuMemAllocPitch", 3020, 0, 1},
        {"cuMemGetInfo", 3020, 0, 1},
        {"cuMemAllocManaged", 6000, 0, 1},
        {"cuMemHostAlloc", 2020, 0, 1},
        {"cuMemFreeHost", 2000, 0, 1},
        {"cuMemHostRegister", 6050, 0, 1},
        {"cuMemHostUnregister", 4000, 0, 1},
        {"cuArrayCreate", 3020, 0, 1},
        {"cuArrayDestroy", 2000, 0, 1},
        {"cuDevicePrimaryCtxRetain", 7000, 0, 1},
        {"cuDevicePrimaryCtxReset", 11000, 0, 1},
        {"cuCtxSetCurrent", 4000, 0, 1},
        {"cuMemPoolTrimTo", 11020, 0, 1},
        {"cuDriverGetVersion", 2020, 0, 1},
        {"cuMemAllocHost", -1, -1, 0},
        {"cuMemCreate", -1, -1, 0},
        {"cuMemMap", -1, -1, 0},
        {"cuMemAddressReserve", -1, -1, 0},
    };
    for (size_t i = 0; i < sizeof fetched / sizeof fetched[0]; i++)
        VT_CHECK_EQ(fetched[i].name,
                    count(T_RT_SPY_QUERY, fetched[i].name, fetched[i].version, fetched[i].flags,
                          T_RT_SPY_VIA_FETCHED_V2),
                    fetched[i].want);
    VT_CHECK_EQ("cuInit fetched once", count(T_RT_SPY_QUERY, "cuInit", -1, -1, -1), 1);

    /* Later calls fetch nothing and load nothing: the table is built once. */
    int n_before = spy->n_events;
    void *p = NULL, *h = NULL;
    VT_CHECK_EQ("async ptsz", cudaMallocAsync_ptsz(&p, 1024, cudaStreamPerThread), cudaSuccess);
    VT_CHECK_EQ("free async ptsz", cudaFreeAsync_ptsz(p, cudaStreamPerThread), cudaSuccess);
    VT_CHECK_EQ("pinned", cudaMallocHost(&h, 1024), cudaSuccess);
    VT_CHECK_EQ("free pinned", cudaFreeHost(h), cudaSuccess);
    VT_CHECK_EQ("reset", cudaDeviceReset(), cudaSuccess);
    VT_CHECK_EQ("after reset", cudaMalloc(&p, 1024), cudaSuccess);
    VT_CHECK_EQ("free", cudaFree(p), cudaSuccess);
    VT_CHECK_EQ("no new dlopen, dlsym or query", spy->n_events, n_before);

    /* cudaGetDriverEntryPointByVersion goes through the fetched 12000 pointer, flag 2 for
     * per-thread, and the answer is the driver's own function (the spy does not wrap it). */
    void *fn = NULL;
    VT_CHECK_EQ("entry point",
                cudaGetDriverEntryPointByVersion("cuMemFree", &fn, 12000,
                                                 cudaEnablePerThreadDefaultStream, NULL),
                cudaSuccess);
    VT_CHECK_EQ("through the fetched pointer",
                count(T_RT_SPY_QUERY, "cuMemFree", 12000, 2, T_RT_SPY_VIA_FETCHED_V2), 1);
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    VT_CHECK("the driver's cuMemFree_v2", fn && fn == dlsym(driver, "cuMemFree_v2"));
    VT_CHECK_EQ("clean end", cudaGetLastError(), cudaSuccess);

    if (vt_test_n_failed)
        print_queries();
    printf("%d driver queries through the fetched cuGetProcAddress\n", n_fetched);
    return vt_test_done();
}

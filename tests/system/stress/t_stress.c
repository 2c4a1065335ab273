/* SPDX-License-Identifier: MIT */
/* The stress test: T threads (default 32) x N mixed operations each (default
 * 100 000) on the simulated device: cuMemAlloc/cuMemFree, cuMemAllocAsync/cuMemFreeAsync on the
 * thread's own stream, VMM (create, reserve, map, unmap, release, address free), pinned host
 * memory (cuMemAllocHost/cuMemFreeHost), each thread keeping up to LIVE_PER_THREAD allocations
 * live and freeing them in a scrambled order; meanwhile the main thread forks F children (the
 * way DataLoader workers are made from a CUDA process: they never touch CUDA, so they write no
 * trace) and reaps them.
 *
 * It prints what it did, exactly, for stress.sh to compare with the trace:
 *   allocs A frees A live_device_bytes 0 children F
 * A counts every successful allocation call that vramtrace records as an ALLOC (VMM: the
 * cuMemCreate; a mapping is not an allocation) and every free that ends one.
 *
 * A watchdog (alarm) turns a deadlock into a failure: exit 3 with a line on stderr.
 *   usage: t_stress [THREADS [OPS [FORKS [WATCHDOG_S]]]] */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_test.h"

#define LIVE_PER_THREAD 16
#define VMM_BYTES       (2u << 20) /* the simulator's granularity */

typedef enum { K_MEM, K_ASYNC, K_VMM, K_HOST, K_COUNT } kind_t;

typedef struct live_s {
    kind_t kind;
    CUdeviceptr ptr;                  /* K_MEM, K_ASYNC, K_VMM (the mapped range) */
    void *host;                       /* K_HOST */
    CUmemGenericAllocationHandle vmm; /* K_VMM */
} live_t;

typedef struct worker_s {
    pthread_t thread;
    long n_ops;
    uint64_t seed;
    long n_allocs, n_frees, n_failed;
} worker_t;

static CUcontext ctx;
static atomic_int failures;

static void watchdog(int sig)
{
    (void)sig;
    static const char msg[] = "t_stress: watchdog: no progress in time (a deadlock?)\n";
    (void)!write(2, msg, sizeof(msg) - 1);
    _exit(3);
}

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void fail(const char *what, CUresult rc)
{
    fprintf(stderr, "t_stress: %s failed: %d\n", what, (int)rc);
    atomic_fetch_add(&failures, 1);
}

/* Makes one allocation of kind k into *l. Returns 1 when made. */
static int make(live_t *l, kind_t k, size_t size, CUstream stream)
{
    CUresult rc;
    memset(l, 0, sizeof(*l));
    l->kind = k;
    switch (k) {
    case K_MEM:
        rc = cuMemAlloc_v2(&l->ptr, size);
        break;
    case K_ASYNC:
        rc = cuMemAllocAsync(&l->ptr, size, stream);
        break;
    case K_HOST:
        rc = cuMemAllocHost_v2(&l->host, size);
        break;
    default: {
        CUmemAllocationProp prop;
        memset(&prop, 0, sizeof(prop));
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        rc = cuMemCreate(&l->vmm, VMM_BYTES, &prop, 0);
        if (rc != CUDA_SUCCESS)
            break;
        if ((rc = cuMemAddressReserve(&l->ptr, VMM_BYTES, 0, 0, 0)) != CUDA_SUCCESS ||
            (rc = cuMemMap(l->ptr, VMM_BYTES, 0, l->vmm, 0)) != CUDA_SUCCESS) {
            fail("VMM reserve or map", rc);
            return 0;
        }
        /* The mapping holds the memory now: the handle's own reference can go. */
        rc = cuMemRelease(l->vmm);
        break;
    }
    }
    if (rc != CUDA_SUCCESS) {
        fail("an allocation", rc);
        return 0;
    }
    return 1;
}

static int undo(const live_t *l, CUstream stream)
{
    CUresult rc;
    switch (l->kind) {
    case K_MEM:
        rc = cuMemFree_v2(l->ptr);
        break;
    case K_ASYNC:
        rc = cuMemFreeAsync(l->ptr, stream);
        break;
    case K_HOST:
        rc = cuMemFreeHost(l->host);
        break;
    default:
        rc = cuMemUnmap(l->ptr, VMM_BYTES); /* the last use of the handle: it is freed */
        if (rc == CUDA_SUCCESS)
            rc = cuMemAddressFree(l->ptr, VMM_BYTES);
        break;
    }
    if (rc != CUDA_SUCCESS) {
        fail("a free", rc);
        return 0;
    }
    return 1;
}

static void *work(void *arg)
{
    worker_t *w = arg;
    live_t live[LIVE_PER_THREAD];
    int n_live = 0;
    CUstream stream;
    cuCtxSetCurrent(ctx);
    if (cuStreamCreate(&stream, 0) != CUDA_SUCCESS) {
        fail("cuStreamCreate", CUDA_ERROR_UNKNOWN);
        return NULL;
    }
    for (long i = 0; i < w->n_ops; i++) {
        uint64_t r = next_random(&w->seed);
        /* Free when full, or half of the time: a random victim, so frees come out of order. */
        if (n_live == LIVE_PER_THREAD || (n_live && (r & 1))) {
            int v = (int)((r >> 8) % (uint64_t)n_live);
            w->n_frees += undo(&live[v], stream);
            live[v] = live[--n_live];
            continue;
        }
        kind_t k = (kind_t)((r >> 16) % K_COUNT);
        size_t size = (size_t)512 << ((r >> 24) % 12); /* 512 B .. 1 MiB */
        if (make(&live[n_live], k, size, stream)) {
            w->n_allocs++;
            n_live++;
        }
    }
    while (n_live)
        w->n_frees += undo(&live[--n_live], stream);
    cuStreamSynchronize(stream);
    cuStreamDestroy_v2(stream);
    return NULL;
}

int main(int argc, char **argv)
{
    int n_threads = argc > 1 ? atoi(argv[1]) : 32;
    long n_ops = argc > 2 ? atol(argv[2]) : 100000;
    int n_forks = argc > 3 ? atoi(argv[3]) : 8;
    int watchdog_s = argc > 4 ? atoi(argv[4]) : 240;
    if (n_threads < 1 || n_threads > 1024 || n_ops < 1 || n_forks < 0 || watchdog_s < 1) {
        fprintf(stderr, "usage: t_stress [THREADS [OPS [FORKS [WATCHDOG_S]]]]\n");
        return 2;
    }
    signal(SIGALRM, watchdog);
    alarm((unsigned)watchdog_s);
    if (sim_test_context(0) != CUDA_SUCCESS || cuCtxGetCurrent(&ctx) != CUDA_SUCCESS) {
        fprintf(stderr, "t_stress: no simulated device\n");
        return 1;
    }
    worker_t *w = calloc((size_t)n_threads, sizeof(*w));
    if (!w)
        return 1;
    for (int i = 0; i < n_threads; i++) {
        w[i].n_ops = n_ops;
        w[i].seed = 0x9e3779b97f4a7c15u * (uint64_t)(i + 1);
        if (pthread_create(&w[i].thread, NULL, work, &w[i]) != 0) {
            fprintf(stderr, "t_stress: pthread_create failed\n");
            return 1;
        }
    }
    /* Forks while the storm runs: each child lives a moment without CUDA and leaves. */
    int n_children = 0;
    for (int i = 0; i < n_forks; i++) {
        usleep(20000);
        pid_t pid = fork();
        if (pid == 0) {
            char *p = malloc(4096); /* host work only, as a DataLoader worker */
            memset(p, i, 4096);
            free(p);
            _exit(0);
        }
        int status;
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0) {
            fprintf(stderr, "t_stress: child %d failed\n", i);
            atomic_fetch_add(&failures, 1);
        } else {
            n_children++;
        }
    }
    long allocs = 0, frees = 0;
    for (int i = 0; i < n_threads; i++) {
        pthread_join(w[i].thread, NULL);
        allocs += w[i].n_allocs;
        frees += w[i].n_frees;
    }
    free(w);
    size_t used = sim_test_used_bytes();
    printf("allocs %ld frees %ld live_device_bytes %zu children %d\n", allocs, frees, used,
           n_children);
    return atomic_load(&failures) ? 1 : 0;
}

/* SPDX-License-Identifier: MIT */
/* bench/first_call: what a thread's first traced call costs. The process makes one
 * cudaMalloc + cudaFree pair first (the process-wide setup: the trace file, the context), then
 * starts THREADS threads one after the other; each times its first pair and then its second
 * (the same call-site, everything per-thread made by then), in CPU time of the thread
 * (CLOCK_THREAD_CPUTIME_ID: a busy machine disturbs wall time far more). Twice: threads that
 * exit before the next one starts (a pool's workers coming and going: what an exited thread
 * left can be reused), then threads that all stay until the last has measured (nothing to
 * reuse). bench/capture.sh runs it untraced and traced: the traced first pair less the
 * untraced one is what the tracer's per-thread setup costs.
 * Usage: first_call [THREADS]. Output: "first_call <threads> <median CPU ns of the first pair,
 * threads that exit> <of the second pair> <median CPU ns of the first pair, threads that
 * stay> <of the second pair> <median page faults of the first pair, threads that exit> <threads
 * that stay>" (the faults: the thread's minor faults, RUSAGE_THREAD; in a VM each costs ~2 µs). */
#include "vt_cuda.h"
#include "bench.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>

#define MAX_THREADS 1000
#define WARM_ALLOCS 8192

static __typeof__(&cudaMalloc) rt_malloc;
static __typeof__(&cudaFree) rt_free;

typedef struct result_s {
    double first_cpu_ns, second_cpu_ns;
    double first_faults;
} result_t;

/* Threads that stay: each posts measured, then waits for leave. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int n_measured;
static bool leave, stay;

/* The pair, from one call-site for both timings. */
__attribute__((noinline)) static void pair(void)
{
    void *p;
    if (rt_malloc(&p, 4096) != cudaSuccess || rt_free(p) != cudaSuccess)
        bench_die("cudaMalloc/cudaFree failed");
}

static void *worker(void *arg)
{
    result_t *r = arg;
    struct rusage u0, u1;
    getrusage(RUSAGE_THREAD, &u0);
    uint64_t c0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    pair();
    uint64_t c1 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    getrusage(RUSAGE_THREAD, &u1);
    r->first_faults = (double)(u1.ru_minflt - u0.ru_minflt);
    pair();
    uint64_t c2 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    r->first_cpu_ns = (double)(c1 - c0);
    r->second_cpu_ns = (double)(c2 - c1);
    pthread_mutex_lock(&gate_lock);
    n_measured++;
    pthread_cond_broadcast(&gate_cond);
    while (stay && !leave)
        pthread_cond_wait(&gate_cond, &gate_lock);
    pthread_mutex_unlock(&gate_lock);
    return NULL;
}

static double median_of(result_t *res, int n, size_t field)
{
    static double v[MAX_THREADS];
    for (int i = 0; i < n; i++)
        v[i] = *(const double *)((const char *)&res[i] + field);
    return bench_median(v, n);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 50;
    if (n < 1 || n > MAX_THREADS)
        bench_die("usage: first_call [THREADS (1-1000)]");
    rt_malloc = (__typeof__(rt_malloc))bench_cudart_fn("cudaMalloc");
    rt_free = (__typeof__(rt_free))bench_cudart_fn("cudaFree");
    pair(); /* the process's first: context, trace file, the call-site's rules */
    /* Distinct addresses touch new pages of the trace writer's address index until it has seen
     * a few thousand (the simulated device never reuses one): that is a cost per new address,
     * not per thread, so it is paid here, before any thread measures. */
    static void *warm[WARM_ALLOCS];
    for (int i = 0; i < WARM_ALLOCS; i++)
        if (rt_malloc(&warm[i], 4096) != cudaSuccess)
            bench_die("cudaMalloc failed");
    for (int i = 0; i < WARM_ALLOCS; i++)
        rt_free(warm[i]);
    static result_t res[2][MAX_THREADS];
    static pthread_t tids[MAX_THREADS];
    printf("first_call %d", n);
    for (int round = 0; round < 2; round++) {
        stay = round == 1;
        leave = false;
        n_measured = 0;
        for (int i = 0; i < n; i++) {
            if (pthread_create(&tids[i], NULL, worker, &res[round][i]) != 0)
                bench_die("pthread_create failed");
            if (!stay)
                pthread_join(tids[i], NULL);
            pthread_mutex_lock(&gate_lock);
            while (n_measured <= i)
                pthread_cond_wait(&gate_cond, &gate_lock);
            pthread_mutex_unlock(&gate_lock);
        }
        if (stay) {
            pthread_mutex_lock(&gate_lock);
            leave = true;
            pthread_cond_broadcast(&gate_cond);
            pthread_mutex_unlock(&gate_lock);
            for (int i = 0; i < n; i++)
                pthread_join(tids[i], NULL);
        }
        printf(" %.0f %.0f", median_of(res[round], n, offsetof(result_t, first_cpu_ns)),
               median_of(res[round], n, offsetof(result_t, second_cpu_ns)));
    }
    for (int round = 0; round < 2; round++)
        printf(" %.0f", median_of(res[round], n, offsetof(result_t, first_faults)));
    printf("\n");
    return 0;
}

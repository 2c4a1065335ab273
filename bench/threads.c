/* SPDX-License-Identifier: MIT */
/* bench/threads: THREADS threads each doing PAIRS cudaMalloc + cudaFree pairs through the
 * runtime door (as bench/capture, without the host malloc and the deep chain), started
 * together at a barrier, for bench/capture.sh to compare untraced and traced runs. Per thread
 * it measures the wall time of its own loop and its CPU time (CLOCK_THREAD_CPUTIME_ID): with
 * more threads than cores the wall time per pair grows with THREADS / cores whatever the
 * tracer does, so the CPU time is the figure that shows whether a pair costs more when other
 * threads allocate too (a contended lock spins and bounces its cache line: CPU time).
 * The lock's contention is in the traced process's exit log at VRAMTRACE_VERBOSE=2 ("stats lock
 * contended_takes=N"): bench/capture.sh and bench/threads_scaling.sh read it there.
 * Usage: threads [THREADS] [PAIRS]. Output: "threads <n> <median wall ns per pair per thread>
 * <median CPU ns per pair per thread> <elapsed ns per pair, all threads together>". */
#include "vt_cuda.h"
#include "bench.h"

#include <pthread.h>

#define MAX_THREADS 64

static __typeof__(&cudaMalloc) rt_malloc;
static __typeof__(&cudaFree) rt_free;
static pthread_barrier_t start;
static long n_pairs;

typedef struct result_s {
    double wall_ns, cpu_ns;
} result_t;

static void *worker(void *arg)
{
    result_t *r = arg;
    void *p;
    for (long i = 0; i < n_pairs / 10 + 1; i++) /* warm-up: the tracer's per-thread state */
        if (rt_malloc(&p, 4096) != cudaSuccess || rt_free(p) != cudaSuccess)
            bench_die("cudaMalloc/cudaFree failed");
    pthread_barrier_wait(&start);
    uint64_t w0 = bench_clock_ns(CLOCK_MONOTONIC), c0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < n_pairs; i++)
        if (rt_malloc(&p, 4096) != cudaSuccess || rt_free(p) != cudaSuccess)
            bench_die("cudaMalloc/cudaFree failed");
    r->cpu_ns = (double)(bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / (double)n_pairs;
    r->wall_ns = (double)(bench_clock_ns(CLOCK_MONOTONIC) - w0) / (double)n_pairs;
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    n_pairs = argc > 2 ? atol(argv[2]) : 50000;
    if (n < 1 || n > MAX_THREADS || n_pairs <= 0)
        bench_die("usage: threads [THREADS (1-64)] [PAIRS]");
    rt_malloc = (__typeof__(rt_malloc))bench_cudart_fn("cudaMalloc");
    rt_free = (__typeof__(rt_free))bench_cudart_fn("cudaFree");
    /* The context is created once, here, not by the first of the racing threads. */
    void *p;
    if (rt_malloc(&p, 4096) != cudaSuccess || rt_free(p) != cudaSuccess)
        bench_die("cudaMalloc/cudaFree failed");

    pthread_t tids[MAX_THREADS];
    result_t res[MAX_THREADS];
    pthread_barrier_init(&start, NULL, (unsigned)n + 1);
    for (int i = 0; i < n; i++)
        if (pthread_create(&tids[i], NULL, worker, &res[i]) != 0)
            bench_die("pthread_create failed");
    pthread_barrier_wait(&start);
    uint64_t t0 = bench_clock_ns(CLOCK_MONOTONIC);
    for (int i = 0; i < n; i++)
        pthread_join(tids[i], NULL);
    double all = (double)(bench_clock_ns(CLOCK_MONOTONIC) - t0) / (double)(n_pairs * n);
    double wall[MAX_THREADS], cpu[MAX_THREADS];
    for (int i = 0; i < n; i++) {
        wall[i] = res[i].wall_ns;
        cpu[i] = res[i].cpu_ns;
    }
    printf("threads %d %.1f %.1f %.1f\n", n, bench_median(wall, n), bench_median(cpu, n), all);
    return 0;
}

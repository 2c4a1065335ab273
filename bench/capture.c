/* SPDX-License-Identifier: MIT */
/* bench/capture: ns per allocation + free pair through the CUDA runtime door (cudaMalloc +
 * cudaFree of libcudart.so.13, bound through the global scope like a -lcudart program, so a
 * preloaded libvramtrace.so is reached first), called from the bottom of a synthetic call
 * chain CHAIN frames deep, so that a 64-frame stack exists to capture. Each pair also does one
 * host malloc + free, so heaptrack, which traces host allocations, sees one pair of events per
 * loop pair as vramtrace does (plus whatever the CUDA library allocates itself: the simulated
 * driver callocs once per allocation; bench/capture.sh counts them and says so).
 * Run untraced, under LD_PRELOAD=libvramtrace.so at some VRAMTRACE_DEPTH, or under heaptrack,
 * by bench/capture.sh, which interleaves the runs and subtracts.
 * With a fourth argument "async", the pairs are cudaMallocAsync + cudaFreeAsync on stream 0 (the
 * device's pool; the pool's samples are what such a loop costs beyond a pair's).
 * Usage: capture [PAIRS] [CHAIN] [SIZE_BYTES] [async]. Output: "capture <ns per pair> <pairs>
 * <chain>". */
#include "vt_cuda.h"
#include "bench.h"

#include <stdbool.h>
#include <string.h>

static __typeof__(&cudaMalloc) rt_malloc;
static __typeof__(&cudaFree) rt_free;
static __typeof__(&cudaMallocAsync) rt_malloc_async; /* NULL: cudaMalloc pairs */
static __typeof__(&cudaFreeAsync) rt_free_async;

/* The timed loop: warm-up pairs (a tenth), then `pairs` timed ones. */
__attribute__((noinline)) static double loop(long pairs, size_t size)
{
    long warm = pairs / 10 + 1;
    uint64_t t0 = 0;
    for (long i = -warm; i < pairs; i++) {
        if (i == 0)
            t0 = bench_now_ns();
        void *p;
        if ((rt_malloc_async ? rt_malloc_async(&p, size, 0) : rt_malloc(&p, size)) != cudaSuccess)
            bench_die("cudaMalloc failed");
        char *host = malloc(64);
        if (!host)
            bench_die("malloc failed");
        __asm__ volatile("" : : "r"(host) : "memory"); /* keep the malloc */
        free(host);
        if ((rt_free_async ? rt_free_async(p, 0) : rt_free(p)) != cudaSuccess)
            bench_die("cudaFree failed");
    }
    return (double)(bench_now_ns() - t0) / (double)pairs;
}

/* depth more frames of this function above the loop; the volatile store after the call keeps
 * the compiler from turning the recursion into a jump. */
__attribute__((noinline)) static double chain(int depth, long pairs, size_t size)
{
    volatile int keep = depth;
    double r = depth > 0 ? chain(depth - 1, pairs, size) : loop(pairs, size);
    keep = keep + 1;
    return r;
}

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? atol(argv[1]) : 200000;
    int depth = argc > 2 ? atoi(argv[2]) : 70;
    size_t size = argc > 3 ? (size_t)atol(argv[3]) : 4096;
    bool async = argc > 4 && !strcmp(argv[4], "async");
    if (pairs <= 0 || depth < 0 || size == 0 || (argc > 4 && !async))
        bench_die("usage: capture [PAIRS] [CHAIN] [SIZE_BYTES] [async]");
    rt_malloc = (__typeof__(rt_malloc))bench_cudart_fn("cudaMalloc");
    rt_free = (__typeof__(rt_free))bench_cudart_fn("cudaFree");
    if (async) {
        rt_malloc_async = (__typeof__(rt_malloc_async))bench_cudart_fn("cudaMallocAsync");
        rt_free_async = (__typeof__(rt_free_async))bench_cudart_fn("cudaFreeAsync");
    }
    printf("capture %.1f %ld %d\n", chain(depth, pairs, size), pairs, depth);
    return 0;
}

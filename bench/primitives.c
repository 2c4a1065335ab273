/* SPDX-License-Identifier: MIT */
/* bench/primitives: the cost of each fixed step an allocation + free pair pays at depth 0, on
 * this machine, one thread: the floor under which the capture core cannot go without changing
 * what it does (docs/benchmarks.md, "Depth 0: where the time goes"). Per operation, the median
 * of RUNS timings of N operations each:
 *   clock_gettime   CLOCK_MONOTONIC through the vDSO (one per event: two per pair)
 *   rdtsc           the time-stamp counter alone
 *   tsc_clock       rdtsc scaled to nanoseconds from a base (multiply, shift, add): what a
 *                   clock of our own on the TSC would cost per read, calibration not counted
 *   setcancelstate  a pthread_setcancelstate disable + restore (what each shim paid before)
 *   lock            an uncontended compare-exchange + exchange round trip (vt_lock's; three
 *                   per pair)
 *   fetch_add       a sequentially consistent atomic add (the in-flight bytes: two per pair)
 * Usage: primitives [N] [RUNS]. Output: "primitive <name> <ns per operation>". */
#include "bench.h"

#include <pthread.h>
#include <stdatomic.h>
#if defined(__x86_64__) || defined(__i386__)
#    include <x86intrin.h>
#    define HAVE_RDTSC 1
#endif

static volatile uint64_t sink;
static atomic_int lock_word;
static uint64_t counter;

static void op_clock(long n)
{
    struct timespec t;
    for (long i = 0; i < n; i++) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        sink += (uint64_t)t.tv_nsec;
    }
}

#ifdef HAVE_RDTSC
static void op_rdtsc(long n)
{
    for (long i = 0; i < n; i++)
        sink += __rdtsc();
}

/* The conversion a TSC clock makes: ns = base + ((tsc - tsc0) * mult) >> 32, in 128 bits so a
 * long run cannot overflow it; mult and the bases as if calibrated at 2.5 GHz. */
static uint64_t tsc0, base_ns, mult = (uint64_t)(0.4 * 4294967296.0);

static void op_tsc_clock(long n)
{
    for (long i = 0; i < n; i++)
        sink += base_ns + (uint64_t)(((unsigned __int128)(__rdtsc() - tsc0) * mult) >> 32);
}
#endif

static void op_cancel(long n)
{
    for (long i = 0; i < n; i++) {
        int old;
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
        pthread_setcancelstate(old, &old);
    }
}

static void op_lock(long n)
{
    for (long i = 0; i < n; i++) {
        int c = 0;
        atomic_compare_exchange_strong_explicit(&lock_word, &c, 5, memory_order_acquire,
                                                memory_order_relaxed);
        atomic_exchange_explicit(&lock_word, 0, memory_order_release);
    }
}

static void op_fetch_add(long n)
{
    for (long i = 0; i < n; i++)
        __atomic_fetch_add(&counter, 5, __ATOMIC_SEQ_CST);
}

static void op_empty(long n)
{
    for (long i = 0; i < n; i++)
        sink += (uint64_t)i;
}

static double median_ns(void (*op)(long), long n, int runs)
{
    double t[64];
    for (int r = 0; r < runs; r++) {
        uint64_t t0 = bench_now_ns();
        op(n);
        t[r] = (double)(bench_now_ns() - t0) / (double)n;
    }
    return bench_median(t, runs);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    int runs = argc > 2 ? atoi(argv[2]) : 9;
    if (n <= 0 || runs <= 0 || runs > 64) {
        fprintf(stderr, "usage: primitives [N] [RUNS <= 64]\n");
        return 2;
    }
    static const struct {
        const char *name;
        void (*op)(long);
    } ops[] = {
        {"loop", op_empty},
        {"clock_gettime", op_clock},
#ifdef HAVE_RDTSC
        {"rdtsc", op_rdtsc},
        {"tsc_clock", op_tsc_clock},
#endif
        {"setcancelstate", op_cancel},
        {"lock", op_lock},
        {"fetch_add", op_fetch_add},
    };
#ifdef HAVE_RDTSC
    tsc0 = __rdtsc();
    base_ns = bench_now_ns();
#endif
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        printf("primitive %s %.1f\n", ops[i].name, median_ns(ops[i].op, n, runs));
    return 0;
}

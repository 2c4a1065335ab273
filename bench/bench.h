/* SPDX-License-Identifier: MIT */
/* bench/bench.h: the few helpers every benchmark driver needs (a clock read, an exit on error,
 * a median, the CUDA runtime's entry points), written once. Header-only and static, so each
 * driver stays one file that links nothing more than it did. */
#ifndef VT_BENCH_H
#define VT_BENCH_H

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The clock `id` (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID, ...) in ns. */
static inline uint64_t bench_clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t bench_now_ns(void)
{
    return bench_clock_ns(CLOCK_MONOTONIC);
}

/* "<program>: <what>" on stderr, exit status 1. */
__attribute__((noreturn)) static inline void bench_die(const char *what)
{
    fprintf(stderr, "%s: %s\n", program_invocation_short_name, what);
    exit(1);
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (n > 0), which it sorts in place. */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* libcudart.so.13's handle, opened RTLD_GLOBAL on the first call: whichever one
 * LD_LIBRARY_PATH finds, the simulated device's or a real one. */
static inline void *bench_cudart(void)
{
    static void *cudart;
    if (!cudart && !(cudart = dlopen("libcudart.so.13", RTLD_NOW | RTLD_GLOBAL)))
        bench_die("cannot dlopen libcudart.so.13 (set LD_LIBRARY_PATH)");
    return cudart;
}

/* A function of libcudart.so.13 looked up through the global scope, as a program linked with
 * -lcudart binds it: under LD_PRELOAD, libvramtrace.so's export comes first. */
static inline void *bench_cudart_fn(const char *name)
{
    bench_cudart();
    void *fn = dlsym(RTLD_DEFAULT, name);
    if (!fn) {
        fprintf(stderr, "%s: no %s\n", program_invocation_short_name, name);
        exit(1);
    }
    return fn;
}

#endif

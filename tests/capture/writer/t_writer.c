/* SPDX-License-Identifier: MIT */
/* A program that ends in every way a training job can, for the trace writer's tests
 * (run_writer.sh checks the traces with `vramtrace report`):
 *   t_writer sigkill|abort|exit N   N allocations of 4 KiB, then SIGKILL / abort() / _exit(0)
 *   t_writer storm                  4 threads allocate and free until the main thread has seen
 *                                   20000 pairs, then SIGKILL in the middle of the storm
 *   t_writer threads [N]            16 threads x N pairs (default 5000), normal exit
 *   t_writer fork                   1 MiB in the parent; the child allocates 2 MiB and leaves
 *                                   with _exit (like Python multiprocessing); parent frees
 *   t_writer hold SECONDS           one allocation, then sleep (holds the trace file)
 *   t_writer oom                    fills a 64 MiB device from two call-sites, then asks for more
 *   t_writer capped                 300 000 small pairs (more than a 2 MiB trace holds), then
 *                                   1 GiB (the peak) and an allocation too large for the device
 * Prints "ready N" (flushed) before dying, so the script knows what was recorded. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sim_test.h"

static atomic_long n_pairs;
static atomic_int stop;
static CUcontext ctx;

static void *storm(void *arg)
{
    (void)arg;
    cuCtxSetCurrent(ctx);
    while (!atomic_load(&stop)) {
        CUdeviceptr p;
        if (cuMemAlloc_v2(&p, 4096) == CUDA_SUCCESS && cuMemFree_v2(p) == CUDA_SUCCESS)
            atomic_fetch_add(&n_pairs, 1);
    }
    return NULL;
}

static void *pairs(void *arg)
{
    long n = (long)arg;
    cuCtxSetCurrent(ctx);
    for (long i = 0; i < n; i++) {
        CUdeviceptr p;
        if (cuMemAlloc_v2(&p, 512 * (size_t)(1 + i % 8)) == CUDA_SUCCESS)
            cuMemFree_v2(p);
    }
    return NULL;
}

/* Named for what they hold, and kept out of line, so the OOM block can name them. */
__attribute__((noinline)) static void fill_weights(void)
{
    CUdeviceptr p;
    for (int i = 0; i < 5; i++)
        cuMemAlloc_v2(&p, 8 << 20);
    __asm__ volatile("" ::: "memory"); /* not a tail call */
}

__attribute__((noinline)) static void fill_activations(void)
{
    CUdeviceptr p;
    for (int i = 0; i < 3; i++)
        cuMemAlloc_v2(&p, 4 << 20);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static CUresult ask_too_much(CUdeviceptr *p)
{
    CUresult rc = cuMemAlloc_v2(p, 32 << 20);
    __asm__ volatile("" ::: "memory");
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2 || sim_test_context(0) != CUDA_SUCCESS) {
        fprintf(stderr, "usage: t_writer MODE [N] (and a simulated device)\n");
        return 2;
    }
    cuCtxGetCurrent(&ctx);
    const char *mode = argv[1];
    long n = argc > 2 ? atol(argv[2]) : 1000;
    if (!strcmp(mode, "sigkill") || !strcmp(mode, "abort") || !strcmp(mode, "exit")) {
        for (long i = 0; i < n; i++) {
            CUdeviceptr p;
            cuMemAlloc_v2(&p, 4096);
        }
        printf("ready %ld\n", n);
        fflush(stdout);
        if (!strcmp(mode, "sigkill"))
            raise(SIGKILL);
        if (!strcmp(mode, "abort")) {
            signal(SIGABRT, SIG_DFL);
            abort();
        }
        _exit(0);
    }
    if (!strcmp(mode, "storm")) {
        pthread_t t[4];
        for (int i = 0; i < 4; i++)
            pthread_create(&t[i], NULL, storm, NULL);
        while (atomic_load(&n_pairs) < 20000)
            usleep(1000);
        printf("ready %ld\n", atomic_load(&n_pairs));
        fflush(stdout);
        raise(SIGKILL);
    }
    if (!strcmp(mode, "threads")) {
        long per_thread = argc > 2 ? n : 5000;
        pthread_t t[16];
        for (int i = 0; i < 16; i++)
            pthread_create(&t[i], NULL, pairs, (void *)per_thread);
        for (int i = 0; i < 16; i++)
            pthread_join(t[i], NULL);
        printf("ready %ld\n", 16 * per_thread);
        return 0;
    }
    if (!strcmp(mode, "fork")) {
        CUdeviceptr a, b;
        cuMemAlloc_v2(&a, 1 << 20);
        fflush(stdout);
        pid_t child = fork();
        if (child == 0) {
            cuMemAlloc_v2(&b, 2 << 20);
            printf("child %d\n", (int)getpid());
            fflush(stdout);
            _exit(0);
        }
        int status;
        waitpid(child, &status, 0);
        cuMemFree_v2(a);
        printf("ready parent %d\n", (int)getpid());
        return 0;
    }
    if (!strcmp(mode, "oom")) {
        fill_weights();
        fill_activations();
        CUdeviceptr p;
        CUresult rc = ask_too_much(&p);
        printf("ready %d\n", (int)rc);
        return 0;
    }
    if (!strcmp(mode, "capped")) {
        pairs((void *)300000L);
        CUdeviceptr big, too_big;
        cuMemAlloc_v2(&big, 1 << 30);
        CUresult rc = cuMemAlloc_v2(&too_big, (size_t)64 << 30);
        cuMemFree_v2(big);
        printf("ready %d\n", (int)rc);
        return 0;
    }
    if (!strcmp(mode, "hold")) {
        CUdeviceptr a;
        cuMemAlloc_v2(&a, 4096);
        printf("ready %d\n", (int)getpid());
        fflush(stdout);
        sleep((unsigned)n);
        return 0;
    }
    fprintf(stderr, "t_writer: unknown mode '%s'\n", mode);
    return 2;
}

/* SPDX-License-Identifier: MIT */
/* Faults, each a way a traced program can misbehave or load CUDA oddly; faults.sh
 * runs each untraced and traced and requires the same output and exit status, then checks the
 * trace:
 *   t_faults segv N        4 threads allocate and free until N pairs are done, then the main
 *                          thread writes through a null pointer (SIGSEGV) mid-storm
 *   t_faults after-exit    allocates and frees device memory in main, in an atexit handler and
 *                          in the program's destructor (all before vramtrace's exit: a
 *                          preloaded library is finalized after the program); libafter.so,
 *                          preloaded after vramtrace, does it once more after vramtrace's exit
 *   t_faults dlclose       dlopens the runtime, allocates, frees, dlcloses it, and does it again
 *   t_faults deepbind      the runtime dlopened with RTLD_DEEPBIND (a documented blind spot:
 *                          its calls may bypass the preload; nothing may break)
 * Each prints one line per step with the CUDA result, so a changed result shows in the output. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_test.h"

typedef int (*malloc_fn)(void **ptr, size_t size); /* cudaMalloc's shape: cudaError_t is int */
typedef int (*free_fn)(void *ptr);

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

static int segv(long n)
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, storm, NULL);
    while (atomic_load(&n_pairs) < n)
        usleep(1000);
    printf("ready %ld\n", n);
    fflush(stdout);
    *(volatile int *)(uintptr_t)0 = 1; /* the storm goes on in the other threads meanwhile */
    return 0;
}

static void late_pair(const char *when)
{
    CUdeviceptr p = 0;
    CUresult a = cuMemAlloc_v2(&p, 1 << 20);
    CUresult f = a == CUDA_SUCCESS ? cuMemFree_v2(p) : CUDA_SUCCESS;
    printf("%s: alloc %d free %d\n", when, (int)a, (int)f);
    fflush(stdout);
}

static void at_exit_pair(void)
{
    late_pair("atexit");
}

static int registered_destructor;

__attribute__((destructor)) static void destructor_pair(void)
{
    if (registered_destructor)
        late_pair("destructor");
}

static int after_exit(void)
{
    late_pair("main");
    atexit(at_exit_pair);
    registered_destructor = 1;
    return 0;
}

/* One pair through the runtime loaded with flags, then dlclose. */
static int runtime_pair(int flags, const char *what)
{
    void *rt = dlopen("libcudart.so.13", flags);
    if (!rt) {
        printf("%s: dlopen failed\n", what);
        return 1;
    }
    malloc_fn m = (malloc_fn)dlsym(rt, "cudaMalloc");
    free_fn f = (free_fn)dlsym(rt, "cudaFree");
    void *p = NULL;
    int a = m ? m(&p, 1 << 20) : -1;
    int r = a == 0 && f ? f(p) : -1;
    printf("%s: cudaMalloc %d cudaFree %d dlclose %d\n", what, a, r, dlclose(rt));
    return a != 0 || r != 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "dlclose") == 0)
        return runtime_pair(RTLD_NOW, "first") | runtime_pair(RTLD_NOW, "again");
    if (strcmp(mode, "deepbind") == 0)
        return runtime_pair(RTLD_NOW | RTLD_DEEPBIND, "deepbind") | runtime_pair(RTLD_NOW, "after");
    if (sim_test_context(0) != CUDA_SUCCESS || cuCtxGetCurrent(&ctx) != CUDA_SUCCESS) {
        fprintf(stderr, "t_faults: no simulated device\n");
        return 1;
    }
    if (strcmp(mode, "segv") == 0 && argc > 2)
        return segv(atol(argv[2]));
    if (strcmp(mode, "after-exit") == 0)
        return after_exit();
    fprintf(stderr, "usage: t_faults segv N | after-exit | dlclose | deepbind\n");
    return 2;
}

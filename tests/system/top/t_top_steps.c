/* SPDX-License-Identifier: MIT */
/* The program `vramtrace top` watches: a job that grows in steps. It allocates its weights
 * (8 MiB) once, then each step 4 MiB of activations that it keeps, sleeping STEP_MS between
 * steps, frees everything and exits.
 *   usage: t_top_steps STEPS STEP_MS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef VT_TEST_REAL_CUDA_HEADERS
#    include <cuda_runtime_api.h>
#else
#    include "vt_cuda.h"
#endif

#define MAX_STEPS 256
#define NOINLINE  __attribute__((noinline))

static NOINLINE void *alloc_weights(void)
{
    void *p = NULL;
    return cudaMalloc(&p, (size_t)8 << 20) == cudaSuccess ? p : NULL;
}

static NOINLINE void *alloc_activations(void)
{
    void *p = NULL;
    return cudaMalloc(&p, (size_t)4 << 20) == cudaSuccess ? p : NULL;
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 10;
    long step_ms = argc > 2 ? atol(argv[2]) : 200;
    if (steps < 1 || steps > MAX_STEPS || step_ms < 0) {
        fprintf(stderr, "usage: t_top_steps STEPS STEP_MS\n");
        return 2;
    }
    void *kept[MAX_STEPS];
    void *weights = alloc_weights();
    if (!weights) {
        fprintf(stderr, "t_top_steps: cudaMalloc failed\n");
        return 1;
    }
    for (int i = 0; i < steps; i++) {
        struct timespec ts = {step_ms / 1000, (step_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        if (!(kept[i] = alloc_activations())) {
            fprintf(stderr, "t_top_steps: cudaMalloc failed\n");
            return 1;
        }
    }
    for (int i = 0; i < steps; i++)
        cudaFree(kept[i]);
    cudaFree(weights);
    return 0;
}

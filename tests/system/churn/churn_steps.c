/* SPDX-License-Identifier: MIT */
/* A training loop that churns: weights (128 MiB) allocated once and kept; each step a scratch
 * buffer (16 MiB) freed at once, as a kernel's workspace is without a caching allocator, and
 * activations (64 MiB) held across the step's work (a 200 ms sleep) before they are freed.
 *   usage: churn_steps STEPS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef VT_EXAMPLE_REAL_CUDA_HEADERS
#    include <cuda_runtime_api.h>
#else
#    include "vt_cuda.h"
#endif

#define MIB       (1024u * 1024u)
#define CALL_SITE __attribute__((noinline))

static void *must(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
        fprintf(stderr, "churn_steps: cudaMalloc of %zu bytes failed\n", bytes);
        exit(1);
    }
    return p;
}

CALL_SITE static void *alloc_weights(void)
{
    return must(128 * MIB);
}

CALL_SITE static void *alloc_scratch(void)
{
    return must(16 * MIB);
}

CALL_SITE static void *alloc_activations(void)
{
    return must(64 * MIB);
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 5;
    if (steps < 1 || steps > 1000)
        return 2;
    void *weights = alloc_weights();
    for (int s = 0; s < steps; s++) {
        cudaFree(alloc_scratch());
        void *act = alloc_activations();
        nanosleep(&(struct timespec){0, 200000000}, NULL);
        cudaFree(act);
    }
    (void)weights; /* kept to the exit, as a framework's weights are */
    printf("churn_steps: %d steps\n", steps);
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* A program with debug info whose functions allocate device memory on the simulated device, so
 * `vramtrace report` must name them with their file:line (run_report.sh). Each allocating line
 * carries a marker comment "SITE:<function>" that the test looks up for the expected line. */
#include <stdio.h>
#include "sim_test.h"

#define NOINLINE __attribute__((noinline))
#define MiB      (1u << 20)

static CUdeviceptr live[8];
static int n_live;

NOINLINE static void init_weights(void)
{
    if (cuMemAlloc_v2(&live[n_live], 64 * MiB) == CUDA_SUCCESS) /* SITE:init_weights */
        n_live++;
}

NOINLINE void alloc_activations(void)
{
    if (cuMemAlloc_v2(&live[n_live], 16 * MiB) == CUDA_SUCCESS) /* SITE:alloc_activations */
        n_live++;
}

int main(void)
{
    if (sim_test_context(0) != CUDA_SUCCESS) {
        fprintf(stderr, "t_sym_program: no context\n");
        return 1;
    }
    init_weights();
    alloc_activations();
    while (n_live > 0)
        cuMemFree_v2(live[--n_live]);
    return 0;
}

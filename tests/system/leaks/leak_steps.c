/* SPDX-License-Identifier: MIT */
/* A training loop with a leak: weights (128 MiB) and Adam's two moments (2 x 160 MiB) allocated
 * once, activations (two buffers of one call-site) allocated and freed every step, and 4 MiB per step kept in a list nobody
 * frees (a history of losses kept on the device, say) for STEPS steps. Each step starts with a
 * mark ("marks", vramtrace_mark), or nothing marks the steps ("none": a 5 ms sleep per step
 * spreads them over time, so that the loop fills most of the trace even when the process's
 * start is slow on a loaded machine; the steps are found from the allocations' own
 * repetition). Weights and moments are never freed, as in a framework, so they lead the memory
 * live at exit.
 *   usage: leak_steps STEPS marks|none */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef VT_EXAMPLE_REAL_CUDA_HEADERS
#    include <cuda_runtime_api.h>
#else
#    include "vt_cuda.h"
#endif
#include "vramtrace.h"

#define MIB       (1024u * 1024u)
#define CALL_SITE __attribute__((noinline))
#define MAX_STEPS 1000

static void *must(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
        fprintf(stderr, "leak_steps: cudaMalloc of %zu bytes failed\n", bytes);
        exit(1);
    }
    return p;
}

CALL_SITE static void *alloc_weights(void)
{
    return must(128 * MIB);
}

CALL_SITE static void *alloc_adam_moment(void)
{
    return must(160 * MIB);
}

CALL_SITE static void *alloc_activations(void)
{
    return must(64 * MIB);
}

CALL_SITE static void *keep_loss_history(void)
{
    return must(4 * MIB);
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 30;
    int marks = argc > 2 && strcmp(argv[2], "marks") == 0;
    if (steps < 1 || steps > MAX_STEPS)
        return 2;
    static void *history[MAX_STEPS];
    void *weights = alloc_weights();
    void *m = alloc_adam_moment(), *v = alloc_adam_moment();
    for (int s = 0; s < steps; s++) {
        if (marks) {
            char label[32];
            snprintf(label, sizeof(label), "step %d", s);
            VRAMTRACE_MARK(label);
        } else {
            nanosleep(&(struct timespec){0, 5000000}, NULL);
        }
        void *act = alloc_activations(), *act_grad = alloc_activations();
        history[s] = keep_loss_history();
        cudaFree(act_grad);
        cudaFree(act);
    }
    /* Weights and moments stay live to the exit, as a framework's do. */
    (void)weights, (void)m, (void)v;
    printf("leak_steps: %d steps, %d MiB kept from %p\n", steps, 4 * steps, history[0]);
    return 0;
}

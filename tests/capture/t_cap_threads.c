/* SPDX-License-Identifier: MIT */
/* 16 threads × 50,000 cuMemAlloc_v2/cuMemFree_v2 pairs of varying sizes (512 B to 32 KiB), all
 * at once: the tracker must lose nothing and invent nothing under contention — exactly
 * 800,000 allocs and frees, nothing failed or unmatched, 0 live at exit — and its peak must be
 * one that could have happened: at least the largest size, at most 16 × the largest
 * (run_traced.sh VT_CAP_PEAK_RANGE, expected/threads.txt). */
#include <pthread.h>
#include "sim_test.h"

#define N_THREADS 16
#define N_PAIRS   50000
#define MAX_BYTES (64 * 512)

static CUcontext ctx;
static int n_errors[N_THREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    cuCtxSetCurrent(ctx);
    for (int i = 0; i < N_PAIRS; i++) {
        CUdeviceptr p = 0;
        size_t bytes = 512 * (size_t)(1 + (i * 7 + t) % 64);
        if (cuMemAlloc_v2(&p, bytes) != CUDA_SUCCESS || cuMemFree_v2(p) != CUDA_SUCCESS)
            n_errors[t]++;
    }
    return NULL;
}

int main(void)
{
    VT_CHECK_EQ("context", sim_test_context(0), CUDA_SUCCESS);
    cuCtxGetCurrent(&ctx);
    pthread_t th[N_THREADS];
    for (long t = 0; t < N_THREADS; t++)
        VT_CHECK_EQ("thread", pthread_create(&th[t], NULL, worker, (void *)t), 0);
    int errors = 0;
    for (int t = 0; t < N_THREADS; t++) {
        pthread_join(th[t], NULL);
        errors += n_errors[t];
    }
    VT_CHECK_EQ("every call succeeded", errors, 0);
    VT_CHECK_EQ("the device is empty", sim_test_used_bytes(), 0);
    return vt_test_done();
}

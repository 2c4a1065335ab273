/* SPDX-License-Identifier: MIT */
/* 16 threads allocating and freeing at once through the simulated driver: every allocation
 * succeeds, no two live ranges overlap, and the device's used bytes come back to zero. */
#include <pthread.h>
#include <stdlib.h>
#include "sim_test.h"

#define N_THREADS 16
#define N_PAIRS   5000
#define N_HELD    8

static CUcontext ctx;
static int n_failed[N_THREADS];

static void *worker(void *arg)
{
    int id = (int)(size_t)arg;
    CUdeviceptr held[N_HELD] = {0};
    if (cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
        n_failed[id]++;
        return NULL;
    }
    for (int i = 0; i < N_PAIRS; i++) {
        int slot = i % N_HELD;
        if (held[slot] && cuMemFree_v2(held[slot]) != CUDA_SUCCESS)
            n_failed[id]++;
        size_t size = 512 * (size_t)(1 + (i + id) % 7);
        CUresult rc = (i % 3 == 0) ? cuMemAllocAsync(&held[slot], size, NULL)
                                   : cuMemAlloc_v2(&held[slot], size);
        if (rc != CUDA_SUCCESS) {
            n_failed[id]++;
            held[slot] = 0;
            continue;
        }
        /* Write our id to the range's ends; a range shared with another thread would be seen. */
        unsigned char tag = (unsigned char)id, back = 0xff;
        cuMemcpyHtoD_v2(held[slot], &tag, 1);
        cuMemcpyHtoD_v2(held[slot] + size - 1, &tag, 1);
        cuMemcpyDtoH_v2(&back, held[slot], 1);
        if (back != tag)
            n_failed[id]++;
    }
    for (int s = 0; s < N_HELD; s++)
        if (held[s] && cuMemFree_v2(held[s]) != CUDA_SUCCESS)
            n_failed[id]++;
    return NULL;
}

int main(void)
{
    VT_CHECK_EQ("context", sim_test_context(0), CUDA_SUCCESS);
    cuCtxGetCurrent(&ctx);
    pthread_t threads[N_THREADS];
    for (int t = 0; t < N_THREADS; t++)
        pthread_create(&threads[t], NULL, worker, (void *)(size_t)t);
    int total_failed = 0;
    for (int t = 0; t < N_THREADS; t++) {
        pthread_join(threads[t], NULL);
        total_failed += n_failed[t];
    }
    VT_CHECK_EQ("no call failed and no range was shared", total_failed, 0);
    CUmemoryPool pool;
    cuDeviceGetDefaultMemPool(&pool, 0);
    cuMemPoolTrimTo(pool, 0);
    VT_CHECK_EQ("every byte given back", sim_test_used_bytes(), 0);
    return vt_test_done();
}

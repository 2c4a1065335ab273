/* SPDX-License-Identifier: MIT */
/* 16 threads allocate and free through the simulated runtime at once: each thread binds the
 * primary context on its first call, every live address is distinct, and the device's free bytes
 * are back where they started at the end (no lost or double-counted bytes). */
#include <pthread.h>
#include <stdint.h>
#include "t_rt_common.h"

#define N_THREADS 16
#define N_ROUNDS  200
#define N_LIVE    8

/* Every address live at once, across all threads; checked for duplicates under `live_lock`. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static void *live[N_THREADS * N_LIVE];
static int n_duplicates, n_failures;

static void live_set(int slot, void *p)
{
    pthread_mutex_lock(&live_lock);
    if (p)
        for (int i = 0; i < N_THREADS * N_LIVE; i++)
            n_duplicates += live[i] == p;
    live[slot] = p;
    pthread_mutex_unlock(&live_lock);
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int round = 0; round < N_ROUNDS; round++) {
        for (int j = 0; j < N_LIVE; j++) {
            void *p = NULL;
            size_t size_bytes = (size_t)(id + 1) * 512 + (size_t)j * 4096 + (size_t)round;
            if (cudaMalloc(&p, size_bytes) != cudaSuccess || !p) {
                __atomic_add_fetch(&n_failures, 1, __ATOMIC_RELAXED);
                continue;
            }
            live_set(id * N_LIVE + j, p);
        }
        for (int j = 0; j < N_LIVE; j++) {
            void *p = live[id * N_LIVE + j];
            live_set(id * N_LIVE + j, NULL);
            if (p && cudaFree(p) != cudaSuccess)
                __atomic_add_fetch(&n_failures, 1, __ATOMIC_RELAXED);
        }
    }
    return (void *)(uintptr_t)(cudaGetLastError() == cudaSuccess);
}

int main(void)
{
    VT_CHECK("the simulated libcudart.so.13 is loaded", t_rt_sim_runtime_loaded());
    size_t free_start = 0, total = 0, free_end = 0;
    VT_CHECK_EQ("info", cudaMemGetInfo(&free_start, &total), cudaSuccess);
    pthread_t threads[N_THREADS];
    for (int i = 0; i < N_THREADS; i++)
        VT_CHECK_EQ("create", pthread_create(&threads[i], NULL, worker, (void *)(intptr_t)i), 0);
    int n_clean = 0;
    for (int i = 0; i < N_THREADS; i++) {
        void *clean = NULL;
        pthread_join(threads[i], &clean);
        n_clean += clean == (void *)1;
    }
    VT_CHECK_EQ("no failed call", n_failures, 0);
    VT_CHECK_EQ("no address live twice", n_duplicates, 0);
    VT_CHECK_EQ("no thread saw an error", n_clean, N_THREADS);
    VT_CHECK_EQ("info", cudaMemGetInfo(&free_end, &total), cudaSuccess);
    VT_CHECK_EQ("free bytes back to the start", free_end, free_start);
    return vt_test_done();
}

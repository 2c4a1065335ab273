/* SPDX-License-Identifier: MIT */
/* A small CUDA C "training loop" for a 4-layer MLP, written the way a framework allocates: the
 * weights once, gradients and Adam moments once, activations per layer on each forward pass
 * (freed in backward), the input batch in pinned host memory copied to the device, and a
 * stream-ordered workspace per step. Kernels are left out: only memory matters here. Each kind of
 * memory comes from its own function, so call-sites name what they allocate.
 *   usage: train_loop [steps] [batch]          (defaults: 3 steps, batch 64) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef VT_EXAMPLE_REAL_CUDA_HEADERS
#    include <cuda_runtime_api.h>
#else
#    include "vt_cuda.h"
#endif

#define N_LAYERS 4
#define HIDDEN   1024
#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t rc_ = (call);                                                                  \
        if (rc_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "train_loop: %s failed: %s\n", #call, cudaGetErrorString(rc_));        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef struct model_s {
    float *weights[N_LAYERS];
    float *grads[N_LAYERS];
    float *adam_m[N_LAYERS], *adam_v[N_LAYERS];
} model_t;

/* The allocating functions stay out of line so that each is a frame of its own call-sites even
 * in an optimised build: the in-process category rules see function names, not the inlining
 * that debug info would describe. */
#define CALL_SITE __attribute__((noinline))

static const size_t layer_params = (size_t)HIDDEN * HIDDEN + HIDDEN; /* W and b */

CALL_SITE static void alloc_weights(model_t *m)
{
    for (int l = 0; l < N_LAYERS; l++)
        CHECK(cudaMalloc((void **)&m->weights[l], layer_params * sizeof(float)));
}

CALL_SITE static void alloc_gradients(model_t *m)
{
    for (int l = 0; l < N_LAYERS; l++)
        CHECK(cudaMalloc((void **)&m->grads[l], layer_params * sizeof(float)));
}

CALL_SITE static void alloc_optimizer_state(model_t *m)
{
    for (int l = 0; l < N_LAYERS; l++) {
        CHECK(cudaMalloc((void **)&m->adam_m[l], layer_params * sizeof(float)));
        CHECK(cudaMalloc((void **)&m->adam_v[l], layer_params * sizeof(float)));
    }
}

/* The input batch: pinned host staging, copied to a device buffer. */
CALL_SITE static float *load_batch(float *host_batch, size_t batch)
{
    float *device_batch;
    size_t bytes = batch * HIDDEN * sizeof(float);
    for (size_t i = 0; i < batch * HIDDEN; i++)
        host_batch[i] = (float)(i % 97) / 97.0f;
    CHECK(cudaMalloc((void **)&device_batch, bytes));
    CHECK(cudaMemcpy(device_batch, host_batch, bytes, cudaMemcpyHostToDevice));
    return device_batch;
}

/* Forward: one activation tensor per layer, kept for backward. */
CALL_SITE static void forward(float *acts[N_LAYERS], size_t batch)
{
    for (int l = 0; l < N_LAYERS; l++)
        CHECK(cudaMalloc((void **)&acts[l], batch * HIDDEN * sizeof(float)));
}

/* A stream-ordered scratch buffer for the GEMMs of backward. */
CALL_SITE static void *alloc_workspace(size_t bytes, cudaStream_t stream)
{
    void *workspace;
    CHECK(cudaMallocAsync(&workspace, bytes, stream));
    return workspace;
}

/* Backward: a workspace, then activations are released. */
CALL_SITE static void backward(float *acts[N_LAYERS], size_t batch, cudaStream_t stream)
{
    void *workspace = alloc_workspace(batch * HIDDEN * sizeof(float) / 2, stream);
    for (int l = N_LAYERS - 1; l >= 0; l--)
        CHECK(cudaFree(acts[l]));
    CHECK(cudaFreeAsync(workspace, stream));
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 3;
    size_t batch = argc > 2 ? (size_t)atol(argv[2]) : 64;
    if (steps <= 0 || batch == 0) {
        fprintf(stderr, "usage: train_loop [steps>0] [batch>0]\n");
        return 2;
    }
    model_t model;
    float *acts[N_LAYERS], *host_batch;
    cudaStream_t stream;
    size_t free_bytes, total_bytes;

    CHECK(cudaStreamCreate(&stream));
    alloc_weights(&model);
    alloc_gradients(&model);
    alloc_optimizer_state(&model);
    CHECK(cudaMallocHost((void **)&host_batch, batch * HIDDEN * sizeof(float)));
    for (int step = 0; step < steps; step++) {
        float *device_batch = load_batch(host_batch, batch);
        forward(acts, batch);
        CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        printf("step %d: %.1f MiB of %.1f MiB in use at the end of forward\n", step,
               (double)(total_bytes - free_bytes) / (1 << 20), (double)total_bytes / (1 << 20));
        backward(acts, batch, stream);
        CHECK(cudaFree(device_batch));
        CHECK(cudaStreamSynchronize(stream));
    }
    for (int l = 0; l < N_LAYERS; l++) {
        CHECK(cudaFree(model.weights[l]));
        CHECK(cudaFree(model.grads[l]));
        CHECK(cudaFree(model.adam_m[l]));
        CHECK(cudaFree(model.adam_v[l]));
    }
    CHECK(cudaFreeHost(host_batch));
    CHECK(cudaStreamDestroy(stream));
    printf("done: %d steps, batch %zu, %d layers of %d\n", steps, batch, N_LAYERS, HIDDEN);
    return 0;
}

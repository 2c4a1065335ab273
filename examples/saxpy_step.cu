// SPDX-License-Identifier: MIT
// A CUDA C++ example built with nvcc: one "training step" with real kernels (fill, saxpy) on
// buffers from cudaMalloc, a pinned staging buffer and a stream-ordered temporary. On the
// simulated device the kernels do nothing; the memory traffic is the same as on a GPU.
//   usage: saxpy_step [n_elements]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t rc_ = (call);                                                                  \
        if (rc_ != cudaSuccess) {                                                                  \
            std::fprintf(stderr, "saxpy_step: %s failed: %s\n", #call, cudaGetErrorString(rc_));   \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

__global__ void fill(float *p, float value, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = value;
}

__global__ void saxpy(float a, const float *x, float *y, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (1u << 20);
    if (n == 0) {
        std::fprintf(stderr, "usage: saxpy_step [n_elements>0]\n");
        return 2;
    }
    float *x, *y, *host, *tmp;
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMallocHost(&host, n * sizeof(float)));
    CHECK(cudaMallocAsync(&tmp, n * sizeof(float), stream));
    unsigned blocks = (unsigned)((n + 255) / 256);
    fill<<<blocks, 256, 0, stream>>>(x, 1.0f, n);
    fill<<<blocks, 256, 0, stream>>>(y, 2.0f, n);
    saxpy<<<blocks, 256, 0, stream>>>(3.0f, x, y, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(host, y, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaFreeAsync(tmp, stream));
    CHECK(cudaStreamSynchronize(stream));
    size_t free_bytes, total_bytes;
    CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    std::printf("saxpy_step: %zu elements, y[0] = %g, %.1f MiB in use\n", n, host[0],
                (double)(total_bytes - free_bytes) / (1 << 20));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFreeHost(host));
    CHECK(cudaStreamDestroy(stream));
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* A real CUDA program, built by nvcc with -cudart shared against the toolkit's headers and
 * libcudart, run against the simulated libcudart.so.13 and libcuda.so.1 (LD_LIBRARY_PATH; no
 * RPATH into the toolkit). Its host stubs register the fat binary and the kernels and launch
 * through __cudaPushCallConfiguration / __cudaGetKernel / __cudaLaunchKernel; kernels do nothing
 * on the simulated device, so results are checked on what the runtime calls themselves return. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include "t_rt_common.h"

__global__ void fill(float *p, float value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = value;
}

__global__ void empty_kernel(void)
{
}

static void host_only(void)
{
}

int main(void)
{
    VT_CHECK("the simulated libcudart.so.13 is loaded", t_rt_sim_runtime_loaded());
    const int n = 1 << 16;
    size_t free0 = 0, total = 0, free1 = 0;
    VT_CHECK_EQ("info", cudaMemGetInfo(&free0, &total), cudaSuccess);
    VT_CHECK_EQ("capacity", total, T_RT_GIB);

    float *d = NULL;
    VT_CHECK_EQ("malloc", cudaMalloc(&d, n * sizeof(float)), cudaSuccess);
    VT_CHECK_EQ("info", cudaMemGetInfo(&free1, &total), cudaSuccess);
    VT_CHECK_EQ("charged", free0 - free1, n * sizeof(float));

    static float host[1 << 16], back[1 << 16];
    for (int i = 0; i < n; i++)
        host[i] = (float)i * 0.5f;
    VT_CHECK_EQ("to device", cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice), cudaSuccess);

    fill<<<(n + 255) / 256, 256>>>(d, 1.0f, n);
    VT_CHECK_EQ("launch", cudaGetLastError(), cudaSuccess);
    empty_kernel<<<1, 1>>>();
    VT_CHECK_EQ("launch empty", cudaPeekAtLastError(), cudaSuccess);
    cudaStream_t s;
    VT_CHECK_EQ("stream", cudaStreamCreate(&s), cudaSuccess);
    fill<<<4, 64, 0, s>>>(d, 2.0f, 256);
    VT_CHECK_EQ("launch on a stream", cudaGetLastError(), cudaSuccess);
    VT_CHECK_EQ("stream sync", cudaStreamSynchronize(s), cudaSuccess);
    VT_CHECK_EQ("stream destroy", cudaStreamDestroy(s), cudaSuccess);
    VT_CHECK_EQ("sync", cudaDeviceSynchronize(), cudaSuccess);

    fill<<<1, 2048>>>(d, 3.0f, n); /* more threads per block than any device has */
    VT_CHECK_EQ("bad configuration", cudaGetLastError(), T_RT_ERROR_INVALID_CONFIGURATION);
    VT_CHECK_EQ("reset by the get", cudaGetLastError(), cudaSuccess);

    void *args[] = {&d};
    VT_CHECK_EQ("cudaLaunchKernel",
                cudaLaunchKernel((const void *)empty_kernel, dim3(1), dim3(1), args, 0, 0),
                cudaSuccess);
    VT_CHECK_EQ("cudaLaunchKernel of a host function",
                cudaLaunchKernel((const void *)host_only, dim3(1), dim3(1), args, 0, 0),
                cudaErrorInvalidDeviceFunction);
    VT_CHECK_EQ("recorded", cudaGetLastError(), cudaErrorInvalidDeviceFunction);

    /* The kernels did nothing; the copies round-trip the bytes. */
    VT_CHECK_EQ("to host", cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
    VT_CHECK("round trip", memcmp(host, back, sizeof host) == 0);

    float *managed = NULL;
    VT_CHECK_EQ("managed", cudaMallocManaged(&managed, 64 * sizeof(float)), cudaSuccess);
    managed[63] = 7.0f;
    fill<<<1, 64>>>(managed, 1.0f, 64);
    VT_CHECK_EQ("sync", cudaDeviceSynchronize(), cudaSuccess);
    VT_CHECK("managed host-visible", managed[63] == 7.0f);
    VT_CHECK_EQ("free managed", cudaFree(managed), cudaSuccess);

    VT_CHECK_EQ("free", cudaFree(d), cudaSuccess);
    VT_CHECK_EQ("info", cudaMemGetInfo(&free1, &total), cudaSuccess);
    VT_CHECK_EQ("all back", free1, free0);
    VT_CHECK_EQ("double free", cudaFree(d), cudaErrorInvalidValue);
    VT_CHECK_EQ("clean up the error", cudaGetLastError(), cudaErrorInvalidValue);
    return vt_test_done();
}

/* SPDX-License-Identifier: MIT */
/* The program `vramtrace run` tests trace: one 1 MiB device allocation, freed, through the CUDA
 * runtime, and the device's total memory on stdout ("total N"), so a test can tell the
 * simulated device (--simulate=SIZE) from none. No RPATH: LD_LIBRARY_PATH, which --simulate
 * sets, decides which libcudart.so.13 loads. */
#include <stdio.h>
#ifdef VT_TEST_REAL_CUDA_HEADERS
#    include <cuda_runtime_api.h>
#else
#    include "vt_cuda.h"
#endif

int main(void)
{
    void *p = NULL;
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMalloc(&p, (size_t)1 << 20) != cudaSuccess ||
        cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess || cudaFree(p) != cudaSuccess) {
        fprintf(stderr, "t_run_alloc: a CUDA call failed\n");
        return 1;
    }
    printf("total %zu\n", total_bytes);
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* What the simulated runtime answers when it cannot initialise, as the real libcudart 13.0 does
 * (measured with it: no driver, and the simulated driver with VTSIM_DEVICE_COUNT=0 or
 * VTSIM_DRIVER_VERSION=12080). Usage: t_rt_init_errors no-driver|no-device|old-driver.
 *   no-driver:  libcuda.so.1 cannot be found: cudaErrorInsufficientDriver, driver version 0
 *   no-device:  cuInit says CUDA_ERROR_NO_DEVICE: cudaErrorNoDevice
 *   old-driver: a 12.8 driver under a 13.0 runtime: cudaErrorInsufficientDriver
 * The failure is permanent: every call returns it, cudaGetLastError included, and out-params are
 * left alone; the calls that need no device still work. Exits 77 (skip) in no-driver mode when a
 * real libcuda.so.1 is installed, since then there is no way to hide it. */
#include <stdio.h>
#include <string.h>
#include "t_rt_common.h"

#define SENTINEL ((void *)0x5e47)

int main(int argc, char **argv)
{
    cudaError_t want;
    int want_driver_version;
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "no-driver") == 0) {
        void *real = dlopen("libcuda.so.1", RTLD_NOW);
        if (real) {
            printf("skipped: a libcuda.so.1 is installed on this machine\n");
            return 77;
        }
        want = cudaErrorInsufficientDriver;
        want_driver_version = 0;
    } else if (strcmp(mode, "no-device") == 0) {
        want = cudaErrorNoDevice;
        want_driver_version = 13000;
    } else if (strcmp(mode, "old-driver") == 0) {
        want = cudaErrorInsufficientDriver;
        want_driver_version = 12080;
    } else {
        fprintf(stderr, "usage: t_rt_init_errors no-driver|no-device|old-driver\n");
        return 2;
    }
    VT_CHECK("the simulated libcudart.so.13 is loaded", t_rt_sim_runtime_loaded());

    VT_CHECK_EQ("first call", cudaGetLastError(), want);
    VT_CHECK_EQ("get does not clear it", cudaGetLastError(), want);
    VT_CHECK_EQ("peek", cudaPeekAtLastError(), want);
    void *p = SENTINEL;
    VT_CHECK_EQ("cudaMalloc", cudaMalloc(&p, 64), want);
    VT_CHECK("out-pointer untouched", p == SENTINEL);
    VT_CHECK_EQ("cudaFree(NULL) initialises too", cudaFree(NULL), want);
    VT_CHECK_EQ("argument errors come after", cudaMalloc(NULL, 64), want);
    VT_CHECK_EQ("cudaMallocHost", cudaMallocHost(&p, 64), want);
    VT_CHECK_EQ("cudaMallocAsync", cudaMallocAsync(&p, 64, 0), want);
    int n = -5, d = -5;
    VT_CHECK_EQ("cudaGetDeviceCount", cudaGetDeviceCount(&n), want);
    VT_CHECK_EQ("count untouched", n, -5);
    VT_CHECK_EQ("cudaGetDevice", cudaGetDevice(&d), want);
    VT_CHECK_EQ("device untouched", d, -5);
    VT_CHECK_EQ("cudaSetDevice", cudaSetDevice(0), want);
    size_t free_bytes = 1, total_bytes = 1;
    VT_CHECK_EQ("cudaMemGetInfo", cudaMemGetInfo(&free_bytes, &total_bytes), want);
    VT_CHECK_EQ("cudaDeviceSynchronize", cudaDeviceSynchronize(), want);
    void *fn = SENTINEL;
    VT_CHECK_EQ("cudaGetDriverEntryPointByVersion",
                cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 12000, 0, NULL), want);
    VT_CHECK("function pointer untouched", fn == SENTINEL);
    VT_CHECK_EQ("still there", cudaGetLastError(), want);

    int v = -1;
    VT_CHECK_EQ("cudaDriverGetVersion works", cudaDriverGetVersion(&v), cudaSuccess);
    VT_CHECK_EQ("driver version", v, want_driver_version);
    VT_CHECK_EQ("cudaRuntimeGetVersion works", cudaRuntimeGetVersion(&v), cudaSuccess);
    VT_CHECK_EQ("runtime version", v, 13000);
    VT_CHECK("cudaGetErrorName works",
             strcmp(cudaGetErrorName(want), want == cudaErrorNoDevice
                                                ? "cudaErrorNoDevice"
                                                : "cudaErrorInsufficientDriver") == 0);
    return vt_test_done();
}

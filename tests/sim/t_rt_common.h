/* SPDX-License-Identifier: MIT */
/* What every simulated-runtime test shares: the CUDA runtime declarations (the toolkit's real
 * headers when the build found them, else vramtrace's own vt_cuda.h, so each test proves a
 * program written against either runs on the double) and the check that the libcudart.so.13
 * this process loaded is the simulated one, not the toolkit's (which ld.so.cache also knows). */
#ifndef T_RT_COMMON_H
#define T_RT_COMMON_H
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#ifdef VT_TEST_REAL_CUDA_HEADERS
#    include <cuda_runtime_api.h>
#    include <cuda_profiler_api.h>
#else
#    include "vt_cuda.h"
#    include "sim_cuda.h" /* what the simulator answers beyond vt_cuda.h */
#endif
#include "vt_test.h"

#define T_RT_MIB ((size_t)1 << 20)
#define T_RT_GIB ((size_t)1 << 30)

/* Not in vt_cuda.h's subset of enum cudaError; the real value (driver_types.h). */
#define T_RT_ERROR_INVALID_CONFIGURATION ((cudaError_t)9)
#ifndef cudaStreamPerThread /* driver_types.h defines it; vt_cuda.h does not */
#    define cudaStreamPerThread ((cudaStream_t)0x2)
#endif

#ifndef __CUDACC__
/* The _ptsz twins the real header declares only in --default-stream per-thread builds, and the
 * host-stub entry points only nvcc-generated code sees (crt/host_runtime.h): C tests call them
 * by name. Repeating vt_cuda.h's declarations is harmless. */
cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream);
cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream);
cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool,
                                         cudaStream_t stream);
cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
                                         unsigned long long flags,
                                         enum cudaDriverEntryPointQueryResult *driverStatus);
cudaError_t
cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                      unsigned long long flags,
                                      enum cudaDriverEntryPointQueryResult *driverStatus);
cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                  size_t sharedMem, cudaStream_t stream);
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize);
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                       const char *deviceName, int ext, size_t size, int constant, int global);
char __cudaInitModule(void **fatCubinHandle);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     struct CUstream_st *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                       void *stream);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                               size_t sharedMem, cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream);
#endif

/* Returns 1 when cudaMalloc resolves into the file VT_SIM_CUDART (the build's simulated
 * libcudart.so.13), comparing real paths so that a symlink to it counts. */
static inline int t_rt_sim_runtime_loaded(void)
{
    /* Through the runtime's own handle: with a preloaded library (vramtrace's capture tests run
     * these programs traced) RTLD_DEFAULT would find the preload's cudaMalloc. */
    void *rt = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
    void *fn = rt ? dlsym(rt, "cudaMalloc") : NULL;
    if (rt)
        dlclose(rt);
    Dl_info info;
    char got[PATH_MAX], want[PATH_MAX];
    if (!fn || !dladdr(fn, &info) || !info.dli_fname || !realpath(info.dli_fname, got) ||
        !realpath(VT_SIM_CUDART, want))
        return 0;
    return strcmp(got, want) == 0;
}
#endif

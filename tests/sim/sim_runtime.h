/* SPDX-License-Identifier: MIT */
/* The simulated CUDA runtime's cross-file internals (libcudart.so.13 double, docs/simulator.md): the
 * driver table it fetched through cuGetProcAddress, the lazy initialisation, the per-thread
 * context binding and the last-error state. Built from vramtrace's own ABI declarations. */
#ifndef SIM_RUNTIME_H
#define SIM_RUNTIME_H
#include "sim_cuda.h"

#define SIM_RT_EXPORT      __attribute__((visibility("default")))
#define SIM_RT_VERSION     13000 /* what cudaRuntimeGetVersion reports: CUDA 13.0 */
#define SIM_RT_MAX_DEVICES 64    /* ordinals at or past this are cudaErrorInvalidDevice */

/* Not in vt_cuda.h's subset of enum cudaError: the value is the real one (driver_types.h). */
#define SIM_RT_ERROR_INVALID_CONFIGURATION ((cudaError_t)9)

/* Every driver entry point, one typed slot per row of cuda_driver.def. Filled once by
 * sim_rt_init() through cuGetProcAddress and read-only afterwards; a slot the runtime never
 * fetches (see sim_runtime.c) stays NULL. */
typedef struct sim_rt_driver_s {
#define VT_CU(ret, name, base, ver, variant, params, args) __typeof__(&name) name;
#include "cuda_driver.def"
#include "sim_driver.def"
#undef VT_CU
} sim_rt_driver_t;

/* The host-stub entry points nvcc-generated code calls (crt/host_runtime.h,
 * crt/device_functions.h); not part of the public runtime API, so not in vt_cuda.h. */
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
cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                  size_t sharedMem, cudaStream_t stream);

/* sim_runtime.c */
extern sim_rt_driver_t sim_rt_cu;       /* valid once sim_rt_init() returned cudaSuccess */
cudaError_t sim_rt_init(void);          /* loads the driver once; the (permanent) init status */
int sim_rt_driver_loaded(void);         /* 1 when libcuda.so.1 was found, after sim_rt_init */
cudaError_t sim_rt_context(void);       /* init + the thread's device's primary context current */
cudaError_t sim_rt_error(CUresult rc);  /* the real runtime's driver-to-runtime mapping */
cudaError_t sim_rt_fail(cudaError_t e); /* records a failure as the thread's last error */
cudaError_t sim_rt_stream_check(cudaStream_t stream); /* cudaSuccess for a usable stream */

cudaError_t sim_rt_ctx_and_check(int bad);
cudaError_t sim_rt_check_ordinal(int device);           /* cudaErrorInvalidDevice if bad */
cudaError_t sim_rt_primary(int device, CUcontext *ctx); /* a device's primary context */
int sim_rt_current_device(void);                        /* the thread's device */

/* sim_runtime_memory.c: the array format of a channel descriptor; 0, or -1 when invalid */
int sim_rt_channel_format(
    const struct cudaChannelFormatDesc *desc, CUarray_format *format,
    unsigned *n_channels); /* the context, then cudaErrorInvalidValue if bad */

/* The shape of most entry points: context, then the driver call, mapped and recorded. */
#define SIM_RT_FORWARD(call)                                                                       \
    do {                                                                                           \
        cudaError_t e_ = sim_rt_context();                                                         \
        if (e_ == cudaSuccess)                                                                     \
            e_ = sim_rt_error(sim_rt_cu.call);                                                     \
        return sim_rt_fail(e_);                                                                    \
    } while (0)

/* sim_runtime_launch.c */
cudaError_t sim_rt_launch(const void *host_fun, cudaKernel_t kernel, dim3 grid, dim3 block,
                          cudaStream_t stream);

#endif

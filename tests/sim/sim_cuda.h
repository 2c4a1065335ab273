/* SPDX-License-Identifier: MIT */
/* The CUDA declarations the simulated device needs beyond src/vt_cuda.h (which holds only what
 * vramtrace itself uses): the types, constants and prototypes of sim_driver.def and
 * sim_runtime.def. Include after vt_cuda.h and never with the toolkit's headers; t_sim_abi
 * compares every declaration here with the toolkit when it is present. */
#ifndef SIM_CUDA_H
#define SIM_CUDA_H
#include "vt_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- driver API (cuda.h) -------------------------------------------------------------- */
typedef void (*CUhostFn)(void *userData);
typedef void (*CUstreamCallback)(CUstream hStream, CUresult status, void *userData);

#define CU_STREAM_DEFAULT       0x0
#define CU_STREAM_NON_BLOCKING  0x1
#define CU_EVENT_DEFAULT        0x0
#define CU_EVENT_BLOCKING_SYNC  0x1
#define CU_EVENT_DISABLE_TIMING 0x2
#define CU_EVENT_INTERPROCESS   0x4

/* ---- runtime API (driver_types.h, cuda_runtime_api.h) --------------------------------- */
typedef void (*cudaHostFn_t)(void *userData);
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *userData);

#define cudaStreamDefault      0x00
#define cudaStreamNonBlocking  0x01
#define cudaEventDefault       0x00
#define cudaEventBlockingSync  0x01
#define cudaEventDisableTiming 0x02
#define cudaEventInterprocess  0x04

/* ---- prototypes, generated from the .def tables ------------------------------------------ */
#define VT_CU(ret, name, base, ver, variant, params, args) ret name params;
#include "sim_driver.def"
#undef VT_CU
#define VT_RT(ret, name, base, params, args) ret name params;
#include "sim_runtime.def"
#undef VT_RT

#ifdef __cplusplus
}
#endif
#endif /* SIM_CUDA_H */

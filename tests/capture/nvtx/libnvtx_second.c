/* SPDX-License-Identifier: MIT */
/* A shared library with its own copy of header-only NVTX v3 (each DSO that includes
 * nvToolsExt.h has private, hidden NVTX globals), as libtorch, cuDNN or NCCL have: NVTX
 * initialises this copy separately, so vramtrace's InitializeInjectionNvtx2 is called once more
 * and must serve it too. */
#include <nvtx3/nvToolsExt.h>
#include "sim_test.h"

#define VT_LIB_EXPORT __attribute__((visibility("default")))

/* Matches no default rule: only the range can give the allocation a category. */
__attribute__((noinline)) static void second_alloc(size_t bytes, CUdeviceptr *dptr)
{
    if (cuMemAlloc_v2(dptr, bytes) != CUDA_SUCCESS)
        *dptr = 0;
}

/* Allocates bytes inside an NVTX range pushed through this library's NVTX copy; *pushed and
 * *popped are what that copy's push and pop returned. */
VT_LIB_EXPORT void second_range_alloc(const char *range, size_t bytes, CUdeviceptr *dptr,
                                      int *pushed, int *popped)
{
    *pushed = nvtxRangePushA(range);
    second_alloc(bytes, dptr);
    *popped = nvtxRangePop();
}

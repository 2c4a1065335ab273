/* SPDX-License-Identifier: MIT */
/* What the simulator's test programs share: the CUDA declarations they are compiled against (the
 * toolkit's own headers when present, exactly as a real program is compiled; vramtrace's
 * src/vt_cuda.h otherwise), the test harness, and a helper that makes a context current. */
#ifndef SIM_TEST_H
#define SIM_TEST_H
#ifdef VT_TEST_REAL_CUDA_HEADERS
#    include <cuda.h>
#else
#    include "vt_cuda.h"
#    include "sim_cuda.h" /* what the simulator answers beyond vt_cuda.h */
#endif
#include "vt_test.h"

#ifdef VT_TEST_REAL_CUDA_HEADERS
/* cuda.h declares the _ptsz/_ptds exports only in per-thread-default-stream builds; repeating
 * the declarations of the simulator's rows is harmless for the others. */
#    define VT_CU(ret, name, base, ver, variant, params, args) ret name params;
#    include "sim_driver.def"
#    undef VT_CU
#endif

/* cuda.h does not declare the 4-argument export, only the PFN typedef in cudaTypedefs.h. */
typedef CUresult (*sim_gpa_v1_fn)(const char *symbol, void **pfn, int cudaVersion,
                                  cuuint64_t flags);
typedef CUresult (*sim_gpa_v2_fn)(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                  CUdriverProcAddressQueryResult *symbolStatus);

/* cuInit, then device `ordinal`'s primary context made current on this thread. */
static inline CUresult sim_test_context(int ordinal)
{
    CUdevice dev;
    CUcontext ctx;
    CUresult rc = cuInit(0);
    if (rc == CUDA_SUCCESS)
        rc = cuDeviceGet(&dev, ordinal);
    if (rc == CUDA_SUCCESS)
        rc = cuDevicePrimaryCtxRetain(&ctx, dev);
    if (rc == CUDA_SUCCESS)
        rc = cuCtxSetCurrent(ctx);
    return rc;
}

/* Device bytes in use, from cuMemGetInfo (capacity − free). */
static inline size_t sim_test_used_bytes(void)
{
    size_t free_bytes = 0, total_bytes = 0;
    cuMemGetInfo_v2(&free_bytes, &total_bytes);
    return total_bytes - free_bytes;
}
#endif

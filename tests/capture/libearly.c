/* SPDX-License-Identifier: MIT */
/* A NEEDED library whose constructor allocates device memory. A NEEDED library's constructor
 * runs before a preloaded one's (hook rule 4 of docs/design.md), so libvramtrace.so's first hook runs
 * before its own constructor: lazy init must still count this allocation. */
#include "sim_test.h"

__attribute__((visibility("default"))) CUdeviceptr early_ptr;
__attribute__((visibility("default"))) int early_rc = -1;

__attribute__((constructor)) static void early_ctor(void)
{
    early_rc = sim_test_context(0);
    if (early_rc == CUDA_SUCCESS)
        early_rc = cuMemAlloc_v2(&early_ptr, 3 << 20);
}

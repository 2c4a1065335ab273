/* SPDX-License-Identifier: MIT */
/* Built twice under two function names of the same length (RELOAD_FN), so both copies have
 * the same layout: the test program loads one, allocates through it, unloads it, and loads the
 * other, which the loader maps at the freed addresses. The allocation's raw stack is then the
 * same in both, and only the names at those addresses tell them apart. */
#include "sim_test.h"

__attribute__((noinline, visibility("default"))) int RELOAD_FN(CUdeviceptr *p, size_t bytes)
{
    int rc = cuMemAlloc_v2(p, bytes);
    return rc; /* built with -fno-optimize-sibling-calls: this frame stays on the stack */
}

/* SPDX-License-Identifier: MIT */
/* A library the test program dlopen()s after the capture library took its module map: its
 * allocation's frames lie outside every known module until the map is refreshed. */
#include "sim_test.h"

__attribute__((noinline, visibility("default"))) int plugin_init_weights(CUdeviceptr *p)
{
    int rc = cuMemAlloc_v2(p, 3 << 20);
    return rc; /* built with -fno-optimize-sibling-calls: this frame stays on the stack */
}

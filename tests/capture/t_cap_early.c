/* SPDX-License-Identifier: MIT */
/* CUDA called from another library's constructor, before libvramtrace.so's own constructor
 * (libearly.so, NEEDED): its 3 MiB allocation is counted, and so is main's free of it and its
 * 1 MiB allocation afterwards (expected/early.txt). */
#include "sim_test.h"

extern CUdeviceptr early_ptr;
extern int early_rc;

int main(void)
{
    VT_CHECK_EQ("the constructor allocated", early_rc, CUDA_SUCCESS);
    CUdeviceptr p = 0;
    VT_CHECK_EQ("alloc 1 MiB (kept)", cuMemAlloc_v2(&p, 1 << 20), CUDA_SUCCESS);
    VT_CHECK_EQ("free the constructor's 3 MiB", cuMemFree_v2(early_ptr), CUDA_SUCCESS);
    return vt_test_done();
}

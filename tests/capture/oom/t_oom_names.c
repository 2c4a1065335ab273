/* SPDX-License-Identifier: MIT */
/* An out-of-memory error made by a function whose symbol is a C++ name (vt_test::Model::forward
 * (int), as g++ mangles it) called from a libc qsort comparator, so that its call-site's frames
 * are a mangled name, a function of the program, then libc's sort. "cxx" loads libstdc++ first,
 * as any C++ program or PyTorch has it; without it nothing can demangle.
 *   usage: t_oom_names [cxx] */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_test.h"

#define MIB (1024u * 1024u)

static CUresult outcome = CUDA_SUCCESS;

/* vt_test::Model::forward(int): asks for more than the device has. */
__attribute__((noinline)) CUresult model_forward(int mib) __asm__("_ZN7vt_test5Model7forwardEi");
__attribute__((noinline)) CUresult model_forward(int mib)
{
    CUdeviceptr p;
    CUresult rc = cuMemAlloc_v2(&p, (size_t)mib * MIB);
    if (rc == CUDA_SUCCESS)
        cuMemFree_v2(p);
    return rc;
}

__attribute__((noinline)) static int compare(const void *a, const void *b)
{
    if (outcome == CUDA_SUCCESS)
        outcome = model_forward(1024);
    return *(const int *)a - *(const int *)b;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "cxx") == 0 && !dlopen("libstdc++.so.6", RTLD_NOW))
        return 77;
    if (sim_test_context(0) != CUDA_SUCCESS)
        return 1;
    CUdeviceptr weights;
    if (cuMemAlloc_v2(&weights, 16 * MIB) != CUDA_SUCCESS)
        return 1;
    int keys[2] = {2, 1};
    qsort(keys, 2, sizeof(keys[0]), compare);
    printf("out of memory: %d\n", outcome == CUDA_ERROR_OUT_OF_MEMORY);
    return 0;
}

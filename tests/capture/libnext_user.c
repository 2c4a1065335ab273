/* SPDX-License-Identifier: MIT */
/* A library linked with libcuda.so.1 that allocates through its own references (its GOT). */
#include <stddef.h>

int cuMemAlloc_v2(unsigned long long *p, size_t bytes);
int cuMemFree_v2(unsigned long long p);

__attribute__((visibility("default"))) int user_pair(size_t bytes)
{
    unsigned long long p = 0;
    int rc = cuMemAlloc_v2(&p, bytes);
    return rc != 0 || cuMemFree_v2(p) != 0;
}

/* SPDX-License-Identifier: MIT */
/* A library for the load race (t_cap_loadrace.c): linked with libcuda.so.1, bound now with its
 * GOT under RELRO, built without PLT (its calls go through address slots), and a table of 4096
 * pointers whose relative relocations keep the loader busy relocating it. Built a second time
 * with LOADRACE_NO_CUDA: the table alone, for the thread that loads no CUDA. */
#include <stddef.h>

static char cells[4096];
#define P1(i) &cells[i]
#define P8(i) P1(i), P1(i + 1), P1(i + 2), P1(i + 3), P1(i + 4), P1(i + 5), P1(i + 6), P1(i + 7)
#define P64(i)                                                                                     \
    P8(i), P8(i + 8), P8(i + 16), P8(i + 24), P8(i + 32), P8(i + 40), P8(i + 48), P8(i + 56)
#define P512(i)                                                                                    \
    P64(i), P64(i + 64), P64(i + 128), P64(i + 192), P64(i + 256), P64(i + 320), P64(i + 384),     \
        P64(i + 448)
#define P4096(i)                                                                                   \
    P512(i), P512(i + 512), P512(i + 1024), P512(i + 1536), P512(i + 2048), P512(i + 2560),        \
        P512(i + 3072), P512(i + 3584)
__attribute__((visibility("default"))) char *const loadrace_table[4096] = {P4096(0)};

#ifndef LOADRACE_NO_CUDA
int cuMemAlloc_v2(unsigned long long *p, size_t bytes);
int cuMemFree_v2(unsigned long long p);

/* The address taken, kept in a volatile so the call is not folded. */
static int (*volatile release)(unsigned long long) = NULL;

__attribute__((visibility("default"))) int loadrace_pair(size_t bytes)
{
    unsigned long long p = 0;
    release = cuMemFree_v2;
    int rc = cuMemAlloc_v2(&p, bytes);
    return rc != 0 || release(p) != 0 || loadrace_table[4095] != &cells[4095];
}
#endif

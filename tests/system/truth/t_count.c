/* SPDX-License-Identifier: MIT */
/* Memory the device counts without a matching free call, for tests that compare vramtrace's
 * report with the simulated device's own figures (tests/truth/count.sh).
 *   t_count contexts   allocations in the primary context and in two created contexts; one
 *                      created context destroyed with its memory live, then the primary
 *                      context reset while the other created context still holds memory
 * Exits 0 when every call answered as the driver must. */
#include <stdio.h>
#include <string.h>
#include "sim_test.h"

#define MIB ((size_t)1 << 20)

static int n_errors;

static void check(const char *what, CUresult rc)
{
    if (rc != CUDA_SUCCESS && n_errors++ < 10)
        fprintf(stderr, "t_count: %s: %d\n", what, (int)rc);
}

static CUdeviceptr alloc(size_t bytes)
{
    CUdeviceptr p = 0;
    check("cuMemAlloc", cuMemAlloc_v2(&p, bytes));
    return p;
}

static CUdeviceptr managed(size_t bytes)
{
    CUdeviceptr p = 0;
    check("cuMemAllocManaged", cuMemAllocManaged(&p, bytes, CU_MEM_ATTACH_GLOBAL));
    return p;
}

/* The primary context's memory, a created context's memory of every kind dropped with it, a
 * second created context's kept through the primary context's reset. */
static int contexts(void)
{
    CUdevice dev = 0;
    CUcontext first, second, popped;
    alloc(3 * MIB);
    managed(MIB);
    check("cuCtxCreate first", cuCtxCreate_v2(&first, 0, dev)); /* pushed: current */
    alloc(5 * MIB);
    managed(2 * MIB);
    CUdeviceptr async = 0, pitched = 0;
    size_t pitch = 0;
    check("cuMemAllocAsync", cuMemAllocAsync(&async, 2 * MIB, NULL));
    check("cuMemAllocPitch", cuMemAllocPitch_v2(&pitched, &pitch, 3000, 100, 4));
    CUdeviceptr freed = alloc(MIB);
    check("cuMemFree", cuMemFree_v2(freed));
    check("cuCtxCreate second", cuCtxCreate_v2(&second, 0, dev)); /* now the current one */
    CUdeviceptr seven = alloc(7 * MIB);
    check("cuCtxPopCurrent", cuCtxPopCurrent_v2(&popped)); /* the first one again */
    check("cuCtxDestroy first", cuCtxDestroy_v2(first));   /* its memory goes; popped */
    check("cuCtxPushCurrent", cuCtxPushCurrent_v2(second));
    alloc(MIB);
    check("cuMemFree", cuMemFree_v2(seven));
    check("cuCtxPopCurrent", cuCtxPopCurrent_v2(&popped)); /* the primary context again */
    alloc(4 * MIB);
    check("cuDevicePrimaryCtxReset", cuDevicePrimaryCtxReset_v2(dev));
    check("cuCtxPushCurrent", cuCtxPushCurrent_v2(second));
    alloc(2 * MIB); /* the second context's 3 MiB live at exit */
    return n_errors != 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || sim_test_context(0) != CUDA_SUCCESS) {
        fprintf(stderr, "usage: t_count contexts\n");
        return 2;
    }
    if (!strcmp(argv[1], "contexts"))
        return contexts();
    fprintf(stderr, "t_count: unknown mode '%s'\n", argv[1]);
    return 2;
}

/* SPDX-License-Identifier: MIT */
/* A VMM handle shared through a file descriptor and imported in the same process: 4 MiB made by
 * cuMemCreate (the device series, for as long as it lives), exported, imported, and the imported
 * handle mapped in two 2 MiB pieces: the mappings are the imported series (4 MiB at their peak),
 * never the device's, whose peak stays the 4 MiB made here. Unmapping writes each mapping's FREE;
 * releasing the imported handle writes nothing; releasing the exported one frees the 4 MiB.
 * Expected: expected/import.txt (exit report) and expected/events/import.txt (events). */
#include <string.h>
#include <unistd.h>
#include "sim_test.h"

#define MiB ((size_t)1 << 20)

int main(void)
{
    VT_CHECK_EQ("init", cuInit(0), CUDA_SUCCESS);
    CUcontext ctx = NULL;
    VT_CHECK_EQ("primary", cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("current", cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    CUmemGenericAllocationHandle made = 0, imported = 0;
    CUdeviceptr va = 0;
    int fd = -1;
    VT_CHECK_EQ("reserve", cuMemAddressReserve(&va, 4 * MiB, 0, 0, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("create", cuMemCreate(&made, 4 * MiB, &prop, 0), CUDA_SUCCESS);
    VT_CHECK_EQ(
        "export",
        cuMemExportToShareableHandle(&fd, made, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
        CUDA_SUCCESS);
    VT_CHECK_EQ("import",
                cuMemImportFromShareableHandle(&imported, (void *)(intptr_t)fd,
                                               CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
                CUDA_SUCCESS);
    VT_CHECK_EQ("import of no descriptor",
                cuMemImportFromShareableHandle(&imported, (void *)(intptr_t)-1,
                                               CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("map the imported, first half", cuMemMap(va, 2 * MiB, 0, imported, 0),
                CUDA_SUCCESS);
    VT_CHECK_EQ("map the imported, second half",
                cuMemMap(va + 2 * MiB, 2 * MiB, 2 * MiB, imported, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("unmap both", cuMemUnmap(va, 4 * MiB), CUDA_SUCCESS);
    VT_CHECK_EQ("release the imported", cuMemRelease(imported), CUDA_SUCCESS);
    VT_CHECK_EQ("release the made", cuMemRelease(made), CUDA_SUCCESS);
    VT_CHECK_EQ("address free", cuMemAddressFree(va, 4 * MiB), CUDA_SUCCESS);
    close(fd);
    return vt_test_done();
}

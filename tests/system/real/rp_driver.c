/* SPDX-License-Identifier: MIT */
/* A driver-API program in the style of the CUDA samples' vectorAddDrv and memMapIPCDrv: it
 * checks the device's attributes, makes its own context, loads a module from PTX text, launches
 * a kernel on buffers it allocated, copies back, grows a buffer with virtual memory management,
 * uses pinned host memory and a second stream, and frees everything before destroying its
 * context. Kernels do not execute on the simulated device, so it checks what it copied, not
 * what a kernel computed. Prints what it did; exit 0 on success. */
#include <stdio.h>
#include <string.h>
#include "sim_test.h"

#define CHECK(call)                                                                                \
    do {                                                                                           \
        CUresult rc_ = (call);                                                                     \
        if (rc_ != CUDA_SUCCESS) {                                                                 \
            const char *name_ = NULL;                                                              \
            cuGetErrorName(rc_, &name_);                                                           \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                   \
                    name_ ? name_ : "?");                                                          \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry vecAdd(.param .u64 a, .param .u64 b, .param .u64 c,"
                          " .param .u32 n) { ret; }\n";

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    int major = 0, minor = 0, sms = 0, vmm = 0;
    char name[64];
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    CHECK(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
    CHECK(cuDeviceGetName(name, sizeof name, dev));
    printf("> device 0: %s, compute %d.%d, %d multiprocessors\n", name, major, minor, sms);
    CHECK(cuCtxCreate_v4(&ctx, NULL, 0, dev));

    CUmodule module;
    CUfunction vec_add;
    CHECK(cuModuleLoadDataEx(&module, ptx, 0, NULL, NULL));
    CHECK(cuModuleGetFunction(&vec_add, module, "vecAdd"));

    enum { N = 1 << 20 };
    size_t bytes = N * sizeof(float);
    float *h_a, *h_b;
    CHECK(cuMemAllocHost_v2((void **)&h_a, bytes));
    CHECK(cuMemHostAlloc((void **)&h_b, bytes, CU_MEMHOSTALLOC_PORTABLE));
    for (int i = 0; i < N; i++) {
        h_a[i] = (float)i;
        h_b[i] = 2.0f * (float)i;
    }
    CUdeviceptr d_a, d_b, d_c;
    CHECK(cuMemAlloc_v2(&d_a, bytes));
    CHECK(cuMemAlloc_v2(&d_b, bytes));
    CHECK(cuMemAlloc_v2(&d_c, bytes));
    CUstream stream;
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CHECK(cuMemcpyHtoDAsync_v2(d_a, h_a, bytes, stream));
    CHECK(cuMemcpyHtoDAsync_v2(d_b, h_b, bytes, stream));
    int n = N;
    void *args[] = {&d_a, &d_b, &d_c, &n};
    CHECK(cuLaunchKernel(vec_add, (N + 255) / 256, 1, 1, 256, 1, 1, 0, stream, args, NULL));
    CHECK(cuMemcpyDtoDAsync_v2(d_c, d_b, bytes, stream));
    CHECK(cuMemcpyDtoHAsync_v2(h_a, d_c, bytes, stream));
    CHECK(cuStreamSynchronize(stream));
    printf("> copied back: %s\n", h_a[N - 1] == 2.0f * (float)(N - 1) ? "ok" : "WRONG");

    /* A buffer that grows in place: reserve address space, map 2 physical chunks. */
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CUdeviceptr va;
    CUmemGenericAllocationHandle chunk[2];
    CHECK(cuMemAddressReserve(&va, 2 * gran, 0, 0, 0));
    CUmemAccessDesc access = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    for (int i = 0; i < 2; i++) {
        CHECK(cuMemCreate(&chunk[i], gran, &prop, 0));
        CHECK(cuMemMap(va + i * gran, gran, 0, chunk[i], 0));
        CHECK(cuMemSetAccess(va + i * gran, gran, &access, 1));
    }
    for (int i = 0; i < 2; i++) /* one set per mapping */
        CHECK(cuMemsetD32_v2(va + i * gran, 7, gran / 4));
    unsigned last = 0;
    CHECK(cuMemcpyDtoH_v2(&last, va + 2 * gran - 4, 4));
    printf("> grown buffer: %zu MiB, last word %u\n", 2 * gran >> 20, last);
    for (int i = 0; i < 2; i++) {
        CHECK(cuMemUnmap(va + i * gran, gran));
        CHECK(cuMemRelease(chunk[i]));
    }
    CHECK(cuMemAddressFree(va, 2 * gran));

    CHECK(cuMemFree_v2(d_a));
    CHECK(cuMemFree_v2(d_b));
    CHECK(cuMemFree_v2(d_c));
    CHECK(cuMemFreeHost(h_a));
    CHECK(cuMemFreeHost(h_b));
    CHECK(cuStreamDestroy_v2(stream));
    CHECK(cuModuleUnload(module));
    CHECK(cuCtxDestroy_v2(ctx));
    printf("> done\n");
    return 0;
}

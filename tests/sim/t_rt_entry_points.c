/* SPDX-License-Identifier: MIT */
/* cudaGetDriverEntryPoint[ByVersion][_ptsz] of the simulated runtime answer exactly what the
 * driver's cuGetProcAddress answers for (base name, ABI version, stream flag): the same function
 * pointers as dlsym of the versioned export (cuMemAlloc at 12000 is cuMemAlloc_v2; per-thread
 * cuMemAllocAsync is cuMemAllocAsync_ptsz), the driver's status mapped to
 * cudaDriverEntryPointQueryResult, and cudaErrorInvalidValue for a version past the driver's
 * (13000 here) or a bad argument. */
#include <stdint.h>
#include <string.h>
#include "t_rt_common.h"

#define SENTINEL ((void *)0x5e47)

/* The driver ABI of cuMemAlloc_v2 / cuMemFree_v2 (CUresult is an int-sized enum). */
typedef int (*mem_alloc_fn)(unsigned long long *dptr, size_t bytesize);
typedef int (*mem_free_fn)(unsigned long long dptr);

static void *driver;

static void *export_of(const char *name)
{
    void *fn = dlsym(driver, name);
    VT_CHECK(name, fn != NULL);
    return fn;
}

/* Asks cudaGetDriverEntryPointByVersion and checks the pointer, status and result. */
static void expect(const char *symbol, unsigned version, unsigned long long flags, void *want_fn,
                   enum cudaDriverEntryPointQueryResult want_status)
{
    void *fn = SENTINEL;
    enum cudaDriverEntryPointQueryResult st = (enum cudaDriverEntryPointQueryResult)7;
    VT_CHECK_EQ(symbol, cudaGetDriverEntryPointByVersion(symbol, &fn, version, flags, &st),
                cudaSuccess);
    VT_CHECK(symbol, fn == want_fn);
    VT_CHECK_EQ(symbol, st, want_status);
}

int main(void)
{
    VT_CHECK("the simulated libcudart.so.13 is loaded", t_rt_sim_runtime_loaded());
    driver = dlopen("libcuda.so.1", RTLD_NOW);
    VT_CHECK("the simulated driver", driver != NULL);
    if (!driver)
        return vt_test_done();
    void *alloc_v2 = export_of("cuMemAlloc_v2"), *free_v2 = export_of("cuMemFree_v2");
    void *async = export_of("cuMemAllocAsync"), *async_ptsz = export_of("cuMemAllocAsync_ptsz");

    expect("cuMemAlloc", 12000, cudaEnableDefault, alloc_v2, cudaDriverEntryPointSuccess);
    expect("cuMemAlloc", 3020, cudaEnableDefault, alloc_v2, cudaDriverEntryPointSuccess);
    expect("cuMemAlloc", 13000, cudaEnableLegacyStream, alloc_v2, cudaDriverEntryPointSuccess);
    expect("cuMemAlloc", 12000, cudaEnablePerThreadDefaultStream, alloc_v2,
           cudaDriverEntryPointSuccess); /* no _ptsz variant: the legacy one */
    expect("cuMemAllocAsync", 12000, cudaEnablePerThreadDefaultStream, async_ptsz,
           cudaDriverEntryPointSuccess);
    expect("cuMemAllocAsync", 11020, cudaEnablePerThreadDefaultStream, async_ptsz,
           cudaDriverEntryPointSuccess);
    expect("cuMemAllocAsync", 12000, cudaEnableLegacyStream, async, cudaDriverEntryPointSuccess);
    expect("cuMemAllocAsync", 12000, cudaEnableDefault, async, cudaDriverEntryPointSuccess);
    expect("cuMemAllocAsync", 11000, cudaEnableDefault, NULL,
           cudaDriverEntryPointVersionNotSufficent);
    expect("cuGetProcAddress", 12000, cudaEnableDefault, export_of("cuGetProcAddress_v2"),
           cudaDriverEntryPointSuccess);
    expect("cuGetProcAddress", 11030, cudaEnableDefault, export_of("cuGetProcAddress"),
           cudaDriverEntryPointSuccess);
    expect("cuDoesNotExist", 12000, cudaEnableDefault, NULL, cudaDriverEntryPointSymbolNotFound);

    /* cudaEnableDefault is per-thread in the _ptsz twins (what --default-stream per-thread
     * builds call), and the deprecated unversioned calls ask for the runtime's 13000. */
    void *fn = SENTINEL;
    enum cudaDriverEntryPointQueryResult st = (enum cudaDriverEntryPointQueryResult)7;
    VT_CHECK_EQ("ptsz twin",
                cudaGetDriverEntryPointByVersion_ptsz("cuMemAllocAsync", &fn, 12000, 0, &st),
                cudaSuccess);
    VT_CHECK("ptsz twin default is per-thread", fn == async_ptsz);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    VT_CHECK_EQ("unversioned", cudaGetDriverEntryPoint("cuMemAlloc", &fn, 0, &st), cudaSuccess);
    VT_CHECK("unversioned cuMemAlloc", fn == alloc_v2 && st == cudaDriverEntryPointSuccess);
    VT_CHECK_EQ("unversioned ptsz", cudaGetDriverEntryPoint_ptsz("cuMemAllocAsync", &fn, 0, &st),
                cudaSuccess);
    VT_CHECK("unversioned ptsz default is per-thread", fn == async_ptsz);
    VT_CHECK_EQ("unversioned legacy",
                cudaGetDriverEntryPoint("cuMemAllocAsync", &fn, cudaEnableLegacyStream, NULL),
                cudaSuccess);
    VT_CHECK("unversioned legacy", fn == async);
    VT_CHECK_EQ("unversioned NULL", cudaGetDriverEntryPoint("cuMemAlloc", NULL, 0, &st),
                cudaErrorInvalidValue);
#pragma GCC diagnostic pop

    /* Errors. */
    fn = SENTINEL;
    VT_CHECK_EQ("version past the driver",
                cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 13010, 0, &st),
                cudaErrorInvalidValue);
    VT_CHECK_EQ("absurd version",
                cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 0xffffffffu, 0, &st),
                cudaErrorInvalidValue);
    VT_CHECK_EQ("recorded", cudaGetLastError(), cudaErrorInvalidValue);
    VT_CHECK_EQ("NULL funcPtr", cudaGetDriverEntryPointByVersion("cuMemAlloc", NULL, 12000, 0, &st),
                cudaErrorInvalidValue);
    VT_CHECK_EQ("NULL symbol", cudaGetDriverEntryPointByVersion(NULL, &fn, 12000, 0, &st),
                cudaErrorInvalidValue);
    VT_CHECK_EQ("unknown flags", cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 12000, 4, &st),
                cudaErrorInvalidValue);
    VT_CHECK_EQ("both stream flags",
                cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 12000, 3, &st),
                cudaErrorInvalidValue);
    VT_CHECK("untouched on error", fn == SENTINEL);
    VT_CHECK_EQ("recorded", cudaGetLastError(), cudaErrorInvalidValue);
    VT_CHECK_EQ("no status is fine",
                cudaGetDriverEntryPointByVersion("cuMemFree", &fn, 12000, 0, NULL), cudaSuccess);
    VT_CHECK("cuMemFree_v2", fn == free_v2);

    /* The pointers work: the runtime made its context current, so the driver call succeeds. */
    VT_CHECK_EQ("context", cudaFree(NULL), cudaSuccess);
    unsigned long long dptr = 0;
    VT_CHECK_EQ("through the pointer", ((mem_alloc_fn)alloc_v2)(&dptr, 4096), 0);
    size_t free_bytes = 0, total_bytes = 0;
    VT_CHECK_EQ("info", cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
    VT_CHECK_EQ("seen by the runtime", total_bytes - free_bytes, 4096);
    VT_CHECK_EQ("runtime frees it", cudaFree((void *)(uintptr_t)dptr), cudaSuccess);
    VT_CHECK_EQ("already freed", ((mem_free_fn)free_v2)(dptr), 1 /* CUDA_ERROR_INVALID_VALUE */);
    VT_CHECK_EQ("clean end", cudaGetLastError(), cudaSuccess);
    return vt_test_done();
}

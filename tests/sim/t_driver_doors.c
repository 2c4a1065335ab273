/* SPDX-License-Identifier: MIT */
/* The doors into the simulated driver that do not go through the linker: the static-cudart and
 * vendor-library way (dlopen("libcuda.so.1") + dlsym("cuGetProcAddress_v2") + lookups by base
 * name, ABI version and per-thread flag, including cuGetProcAddress fetched through itself) and
 * XLA's way (dlsym of the exported versioned names). Not linked with -lcuda, like a static-cudart
 * program. Every row of src/cuda_driver.def is looked up and compared with its export. */
#include <dlfcn.h>
#include <string.h>
#include "sim_test.h"

typedef struct row_s {
    const char *export_name, *base, *variant;
    int version;
} row_t;

#define VT_CU(ret, name, base, ver, variant, params, args) {#name, #base, #variant, ver},
static const row_t rows[] = {
#include "cuda_driver.def"
};
#undef VT_CU

int main(int argc, char **argv)
{
    /* argv[1] = the driver version this run simulates (VTSIM_DRIVER_VERSION) */
    int driver_version = argc > 1 ? atoi(argv[1]) : 13000;
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    VT_CHECK("dlopen libcuda.so.1", h != NULL);
    if (!h)
        return vt_test_done();
    sim_gpa_v2_fn gpa = (sim_gpa_v2_fn)dlsym(h, "cuGetProcAddress_v2");
    VT_CHECK("dlsym cuGetProcAddress_v2", gpa != NULL);
    void *fn = (void *)1;
    CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)7;

    /* The probe cudart makes first, with an empty name. */
    VT_CHECK_EQ("probe", gpa("", &fn, 0, 0, &st), CUDA_SUCCESS);
    VT_CHECK("probe finds nothing", fn == NULL);
    VT_CHECK_EQ("probe status", st, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);

    /* cuGetProcAddress through itself: 11030 is the 4-argument ABI, 12000 the 5-argument one. */
    sim_gpa_v1_fn gpa1 = NULL;
    sim_gpa_v2_fn gpa2 = NULL;
    VT_CHECK_EQ("gpa@11030", gpa("cuGetProcAddress", (void **)&gpa1, 11030, 0, &st), CUDA_SUCCESS);
    VT_CHECK("gpa@11030 is the 4-argument export", (void *)gpa1 == dlsym(h, "cuGetProcAddress"));
    VT_CHECK_EQ("gpa@12000", gpa("cuGetProcAddress", (void **)&gpa2, 12000, 0, &st), CUDA_SUCCESS);
    VT_CHECK("gpa@12000 is the 5-argument export", (void *)gpa2 == (void *)gpa);
    VT_CHECK_EQ("gpa@11020 predates it", gpa("cuGetProcAddress", &fn, 11020, 0, &st), CUDA_SUCCESS);
    VT_CHECK_EQ("too old", st, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    VT_CHECK("too old gives NULL", fn == NULL);

    /* Every row: the lookup by (base, version, flags) is exactly the export of that name. */
    size_t n_rows = sizeof rows / sizeof rows[0], n_ok = 0;
    for (size_t i = 0; i < n_rows; i++) {
        const row_t *r = &rows[i];
        int per_thread = r->variant[0] != '\0';
        void *want = dlsym(h, r->export_name);
        fn = NULL;
        CUresult rc = gpa2(r->base, &fn, r->version, per_thread ? 2 : 0, &st);
        if (r->version > driver_version) {
            n_ok += rc == CUDA_ERROR_INVALID_VALUE;
            continue;
        }
        if (rc == CUDA_SUCCESS && st == CU_GET_PROC_ADDRESS_SUCCESS && want && fn == want) {
            n_ok++;
        } else {
            fprintf(stderr, "row %s: rc %d status %d fn %p export %p\n", r->export_name, rc, st, fn,
                    want);
        }
    }
    VT_CHECK_EQ("every row resolves to its export", n_ok, n_rows);

    /* The per-thread flag picks the _ptsz variant where one exists, else the legacy function. */
    void *legacy = NULL, *ptsz = NULL, *plain = NULL;
    gpa2("cuMemAllocAsync", &legacy, 12000, 0, NULL);
    gpa2("cuMemAllocAsync", &ptsz, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, NULL);
    VT_CHECK("flag 0 gives the legacy-stream function", legacy == dlsym(h, "cuMemAllocAsync"));
    VT_CHECK("flag 2 gives _ptsz", ptsz == dlsym(h, "cuMemAllocAsync_ptsz"));
    gpa2("cuMemAllocAsync", &fn, 12000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, NULL);
    VT_CHECK("flag 1 gives the legacy-stream function", fn == legacy);
    gpa2("cuMemAlloc", &plain, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, NULL);
    VT_CHECK("flag 2 without a _ptsz variant falls back", plain == dlsym(h, "cuMemAlloc_v2"));
    /* Versions: the newest ABI not newer than the caller's. */
    gpa2("cuIpcOpenMemHandle", &fn, 4010, 0, NULL);
    VT_CHECK("cuIpcOpenMemHandle@4010 is v1", fn == dlsym(h, "cuIpcOpenMemHandle"));
    gpa2("cuIpcOpenMemHandle", &fn, 11000, 0, NULL);
    VT_CHECK("cuIpcOpenMemHandle@11000 is _v2", fn == dlsym(h, "cuIpcOpenMemHandle_v2"));
    VT_CHECK_EQ("32-bit ABI of cuMemAlloc", gpa2("cuMemAlloc", &fn, 2000, 0, &st), CUDA_SUCCESS);
    VT_CHECK_EQ("not supported by this driver", st, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    /* The 4-argument ABI answers the same. */
    fn = NULL;
    VT_CHECK_EQ("v1 lookup", gpa1("cuMemFree", &fn, 3020, 0), CUDA_SUCCESS);
    VT_CHECK("v1 lookup result", fn == dlsym(h, "cuMemFree_v2"));

    /* Errors. */
    VT_CHECK_EQ("unknown name", gpa2("cuNoSuchThing", &fn, 12000, 0, &st), CUDA_SUCCESS);
    VT_CHECK("unknown gives NULL", fn == NULL);
    VT_CHECK_EQ("unknown status", st, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    VT_CHECK_EQ("newer than the driver", gpa2("cuMemAlloc", &fn, driver_version + 10, 0, &st),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("v1 newer than the driver", gpa1("cuMemAlloc", &fn, driver_version + 10, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("NULL symbol", gpa2(NULL, &fn, 12000, 0, &st), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("NULL pfn", gpa2("cuMemAlloc", NULL, 12000, 0, &st), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("unknown flags", gpa2("cuMemAlloc", &fn, 12000, 8, &st), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("status is optional", gpa2("cuMemAlloc", &fn, 12000, 0, NULL), CUDA_SUCCESS);

    /* Use the fetched pointers the way a private cudart does. */
    __typeof__(&cuInit) init = NULL;
    __typeof__(&cuDeviceGet) device_get = NULL;
    __typeof__(&cuDevicePrimaryCtxRetain) retain = NULL;
    __typeof__(&cuCtxSetCurrent) set_current = NULL;
    __typeof__(&cuMemAlloc_v2) mem_alloc = NULL;
    __typeof__(&cuMemFree_v2) mem_free = NULL;
    gpa2("cuInit", (void **)&init, 2000, 0, NULL);
    gpa2("cuDeviceGet", (void **)&device_get, 2000, 0, NULL);
    gpa2("cuDevicePrimaryCtxRetain", (void **)&retain, 7000, 0, NULL);
    gpa2("cuCtxSetCurrent", (void **)&set_current, 4000, 0, NULL);
    gpa2("cuMemAlloc", (void **)&mem_alloc, 3020, 0, NULL);
    gpa2("cuMemFree", (void **)&mem_free, 3020, 0, NULL);
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr p = 0;
    VT_CHECK("all fetched", init && device_get && retain && set_current && mem_alloc && mem_free);
    if (init && device_get && retain && set_current && mem_alloc && mem_free) {
        VT_CHECK_EQ("init", init(0), CUDA_SUCCESS);
        VT_CHECK_EQ("device", device_get(&dev, 0), CUDA_SUCCESS);
        VT_CHECK_EQ("retain", retain(&ctx, dev), CUDA_SUCCESS);
        VT_CHECK_EQ("set current", set_current(ctx), CUDA_SUCCESS);
        VT_CHECK_EQ("alloc through the lookup", mem_alloc(&p, 4096), CUDA_SUCCESS);
        VT_CHECK_EQ("free through the lookup", mem_free(p), CUDA_SUCCESS);
        VT_CHECK_EQ("double free through the lookup", mem_free(p), CUDA_ERROR_INVALID_VALUE);
    }
    /* XLA's door: dlsym of the exported versioned name on the driver's handle. */
    __typeof__(&cuMemAlloc_v2) xla_alloc = (__typeof__(&cuMemAlloc_v2))dlsym(h, "cuMemAlloc_v2");
    VT_CHECK_EQ("alloc through dlsym", xla_alloc(&p, 100), CUDA_SUCCESS);
    VT_CHECK_EQ("free through dlsym", mem_free(p), CUDA_SUCCESS);
    dlclose(h);
    return vt_test_done();
}

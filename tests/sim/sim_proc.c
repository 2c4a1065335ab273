/* SPDX-License-Identifier: MIT */
/* cuGetProcAddress of the simulated driver: the table of (base name, ABI version, variant) keys
 * comes from src/cuda_driver.def, so the simulator answers exactly as the real driver does for
 * every entry point it has (docs/design.md, "How CUDA reaches the driver"; cuda.h doc of
 * cuGetProcAddress). */
#include <string.h>
#include "sim_internal.h"

typedef struct proc_entry_s {
    const char *base;
    int version;
    int per_thread; /* a _ptsz/_ptds variant */
    void *fn;
} proc_entry_t;

#define VT_CU(ret, name, base, ver, variant, params, args)                                         \
    {#base, ver, sizeof(#variant) > 1, (void *)&name},
static const proc_entry_t proc_table[] = {
#include "cuda_driver.def"
#include "sim_driver.def"
};
#undef VT_CU

/* The lookup both exports share. The per-thread variant is preferred when flag 2 asks for it,
 * and the legacy one is the fallback; among ABI versions the newest one not newer than the
 * caller's version wins. */
static CUresult proc_lookup(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                            CUdriverProcAddressQueryResult *symbolStatus)
{
    sim_config_load();
    if (!symbol || !pfn ||
        (flags & ~(cuuint64_t)(CU_GET_PROC_ADDRESS_LEGACY_STREAM |
                               CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)))
        return CUDA_ERROR_INVALID_VALUE;
    if (cudaVersion > sim_driver_version)
        return CUDA_ERROR_INVALID_VALUE;
    int want_per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    const proc_entry_t *best = NULL;
    int name_known = 0;
    for (size_t i = 0; i < sizeof proc_table / sizeof proc_table[0]; i++) {
        const proc_entry_t *e = &proc_table[i];
        if (strcmp(e->base, symbol) != 0)
            continue;
        name_known = 1;
        if (e->version > cudaVersion || (e->per_thread && !want_per_thread))
            continue;
        if (!best || e->version > best->version || (e->version == best->version && e->per_thread))
            best = e;
    }
    *pfn = best ? best->fn : NULL;
    if (symbolStatus)
        *symbolStatus = best         ? CU_GET_PROC_ADDRESS_SUCCESS
                        : name_known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                                     : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
                                     cuuint64_t flags)
{
    return proc_lookup(symbol, pfn, cudaVersion, flags, NULL);
}

SIM_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                        cuuint64_t flags,
                                        CUdriverProcAddressQueryResult *symbolStatus)
{
    return proc_lookup(symbol, pfn, cudaVersion, flags, symbolStatus);
}

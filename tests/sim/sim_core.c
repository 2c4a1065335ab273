/* SPDX-License-Identifier: MIT */
/* The simulated driver's core: configuration (VTSIM_* environment variables), initialisation,
 * devices, primary contexts, error strings and the registry of live address ranges. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "sim_internal.h"

pthread_mutex_t sim_lock = PTHREAD_MUTEX_INITIALIZER;
_Atomic int sim_initialized;
int sim_n_devices = 1;
int sim_driver_version = 13000;
sim_device_t sim_devices[SIM_MAX_DEVICES];
sim_alloc_t *sim_allocs;
sim_pool_t *sim_pools;
int sim_reuse_addresses;
sim_series_t sim_pinned;
sim_series_t sim_managed;

static pthread_once_t config_once = PTHREAD_ONCE_INIT;

/* Parses "123", "80G", "512MiB" into bytes; returns 0 on success, -1 on a malformed value. */
static int parse_size(const char *s, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(s, &end, 10);
    if (end == s || errno)
        return -1;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K':
        shift = 10;
        end++;
        break;
    case 'M':
        shift = 20;
        end++;
        break;
    case 'G':
        shift = 30;
        end++;
        break;
    case 'T':
        shift = 40;
        end++;
        break;
    default:
        break;
    }
    if (shift && (*end == 'i' || *end == 'I'))
        end++;
    if (shift && (*end == 'b' || *end == 'B'))
        end++;
    if (*end != '\0' || (shift && n > (~0ULL >> shift)))
        return -1;
    *out = n << shift;
    return 0;
}

static void config_read(void)
{
    unsigned long long v;
    const char *s = getenv("VTSIM_DEVICE_COUNT");
    if (s && parse_size(s, &v) == 0 && v <= SIM_MAX_DEVICES)
        sim_n_devices = (int)v;
    unsigned long long capacity = 80ULL << 30; /* an 80 GiB card, like an H100 */
    s = getenv("VTSIM_DEVICE_MEMORY");
    if (s && parse_size(s, &v) == 0 && v > 0)
        capacity = v;
    s = getenv("VTSIM_DRIVER_VERSION");
    if (s && parse_size(s, &v) == 0 && v >= 2000 && v < 100000)
        sim_driver_version = (int)v;
    s = getenv("VTSIM_REUSE");
    sim_reuse_addresses = s && strcmp(s, "1") == 0;
    for (int d = 0; d < SIM_MAX_DEVICES; d++) {
        sim_devices[d].capacity_bytes = capacity;
        sim_devices[d].va.next = SIM_VA_BASE + (CUdeviceptr)d * SIM_VA_PER_DEV;
        sim_devices[d].va.end = sim_devices[d].va.next + SIM_VA_PER_DEV;
        sim_ctx_init_defaults(&sim_devices[d].primary, d);
        sim_devices[d].primary.is_primary = 1;
    }
}

void sim_config_load(void)
{
    pthread_once(&config_once, config_read);
}

/* After fork the child has one thread: the lock may have been held by another parent thread. */
static void atfork_child(void)
{
    pthread_mutex_init(&sim_lock, NULL);
}

__attribute__((constructor)) static void sim_ctor(void)
{
    sim_config_load();
    pthread_atfork(NULL, NULL, atfork_child);
}

size_t sim_round_up(size_t n, size_t align)
{
    return (n + align - 1) / align * align;
}

CUresult sim_check_device(CUdevice dev)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (dev < 0 || dev >= sim_n_devices)
        return CUDA_ERROR_INVALID_DEVICE;
    return CUDA_SUCCESS;
}

CUresult sim_charge(int device, size_t bytes)
{
    sim_device_t *d = &sim_devices[device];
    if (bytes > d->capacity_bytes - d->used_bytes)
        return CUDA_ERROR_OUT_OF_MEMORY;
    d->used_bytes += bytes;
    if (d->used_bytes > d->used_hwm_bytes)
        d->used_hwm_bytes = d->used_bytes;
    return CUDA_SUCCESS;
}

void sim_uncharge(int device, size_t bytes)
{
    sim_devices[device].used_bytes -= bytes;
}

/* Returns a device address of `bytes` aligned to `align` (a fresh one unless VTSIM_REUSE=1), or
 * 0 when the device's address space is spent. */
CUdeviceptr sim_va_take(int device, size_t bytes, size_t align)
{
    return sim_va_space_take(&sim_devices[device].va, bytes, align);
}

void sim_va_give(int device, CUdeviceptr base, size_t bytes)
{
    sim_va_space_give(&sim_devices[device].va, base, bytes);
}

/* The VTSIM_STATS series an allocation kind counts in, or NULL (IPC: the peer's memory). */
static sim_series_t *kind_series(sim_kind_t kind, int device)
{
    switch (kind) {
    case SIM_KIND_DEVICE:
    case SIM_KIND_ASYNC:
    case SIM_KIND_GRAPH:
        return &sim_devices[device].allocs;
    case SIM_KIND_MANAGED:
        return &sim_managed;
    case SIM_KIND_HOST:
    case SIM_KIND_HOST_REGISTERED:
        return &sim_pinned;
    default:
        return NULL;
    }
}

sim_alloc_t *sim_alloc_add(CUdeviceptr base, size_t size, size_t charged, sim_kind_t kind, int dev)
{
    sim_alloc_t *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->base = base;
    a->size_bytes = size;
    a->charged_bytes = charged;
    a->kind = kind;
    a->device = dev;
    a->ctx = sim_current_ctx();
    HASH_ADD(hh, sim_allocs, base, sizeof a->base, a);
    sim_series_t *series = kind_series(kind, dev);
    if (series)
        sim_series_add(series, size);
    return a;
}

sim_alloc_t *sim_alloc_find(CUdeviceptr base)
{
    sim_alloc_t *a;
    HASH_FIND(hh, sim_allocs, &base, sizeof base, a);
    return a;
}

/* The live range holding [ptr, ptr+len), or NULL. A linear scan: interior pointers are rare in
 * the tests and this is a test double. */
sim_alloc_t *sim_alloc_containing(CUdeviceptr ptr, size_t len)
{
    sim_alloc_t *a = sim_alloc_find(ptr), *tmp;
    if (a && len <= a->size_bytes)
        return a;
    HASH_ITER(hh, sim_allocs, a, tmp) {
        if (ptr >= a->base && ptr - a->base < a->size_bytes &&
            len <= a->size_bytes - (ptr - a->base))
            return a;
    }
    return NULL;
}

void sim_alloc_remove(sim_alloc_t *a)
{
    HASH_DEL(sim_allocs, a);
    if (a->backing && a->kind != SIM_KIND_HOST_REGISTERED) /* that one is the caller's memory */
        sim_host_unmap(a->backing, a->size_bytes);
    if (a->charged_bytes)
        sim_uncharge(a->device, a->charged_bytes);
    sim_series_t *series = kind_series(a->kind, a->device);
    if (series)
        sim_series_remove(series, a->size_bytes);
    /* A graph allocation's address belongs to its node, which hands it out at every launch. */
    if (a->kind == SIM_KIND_DEVICE || a->kind == SIM_KIND_ASYNC || a->kind == SIM_KIND_IPC)
        sim_va_give(a->device, a->base, a->size_bytes);
    free(a);
}

/* Anonymous memory that costs nothing until touched, so tens of GiB can be "allocated". */
void *sim_host_map(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void sim_host_unmap(void *p, size_t bytes)
{
    munmap(p, bytes);
}

/* What a context's destruction does: every allocation made in it is gone, without any free call
 * the program could observe. A primary context also takes the device's pools and graph memory
 * with it. sim_lock held. */
void sim_ctx_teardown(sim_ctx_t *ctx)
{
    sim_alloc_t *a, *tmp;
    HASH_ITER(hh, sim_allocs, a, tmp) {
        if (a->ctx != ctx)
            continue;
        if (a->kind == SIM_KIND_DEVICE || a->kind == SIM_KIND_ASYNC || a->kind == SIM_KIND_GRAPH ||
            a->kind == SIM_KIND_IPC || a->kind == SIM_KIND_MANAGED) {
            if (a->kind == SIM_KIND_ASYNC)
                sim_async_free(a);
            else if (a->kind == SIM_KIND_GRAPH)
                sim_graph_free(a);
            sim_alloc_remove(a);
        }
    }
    sim_array_teardown(ctx);
    sim_module_teardown(ctx);
    if (!ctx->is_primary)
        return;
    int device = ctx->device;
    for (sim_pool_t *p = sim_pools; p; p = p->next)
        if (p->device == device) {
            sim_pool_synchronized(p);
            sim_pool_release(p, 0);
        }
    sim_device_t *d = &sim_devices[device];
    sim_uncharge(device, d->graph_reserved_bytes);
    d->graph_reserved_bytes = d->graph_used_bytes = 0;
}

/* ---- initialisation, version, errors ----------------------------------------------------- */

SIM_EXPORT CUresult cuInit(unsigned int Flags)
{
    sim_config_load();
    if (Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (sim_n_devices == 0)
        return CUDA_ERROR_NO_DEVICE;
    SIM_LOCK();
    sim_initialized = 1;
    SIM_UNLOCK();
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDriverGetVersion(int *driverVersion)
{
    sim_config_load();
    if (!driverVersion)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = sim_driver_version;
    return CUDA_SUCCESS;
}

static const struct {
    CUresult code;
    const char *name, *text;
} error_table[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_ALREADY_MAPPED, "CUDA_ERROR_ALREADY_MAPPED", "resource already mapped"},
    {CUDA_ERROR_NOT_MAPPED, "CUDA_ERROR_NOT_MAPPED", "resource not mapped"},
    {CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND",
     "shared object symbol not found"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"},
    {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "part or all of the requested memory range is already mapped"},
    {CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
     "pointer does not correspond to a registered memory region"},
    {CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
     "peer access is not supported between these two devices"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_INVALID_SOURCE, "CUDA_ERROR_INVALID_SOURCE", "device kernel image is invalid"},
    {CUDA_ERROR_FILE_NOT_FOUND, "CUDA_ERROR_FILE_NOT_FOUND", "file not found"},
    {CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE",
     "the operation cannot be performed in the present state"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
     "peer access is already enabled"},
    {CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED",
     "peer access has not been enabled"},
    {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
     "operation not permitted when stream is capturing"},
    {CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
     "operation failed due to a previous error during capture"},
    {CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD",
     "attempt to terminate a thread-local capture sequence from another thread"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

static CUresult error_lookup(CUresult error, const char **pStr, int want_name)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++) {
        if (error_table[i].code == error) {
            *pStr = want_name ? error_table[i].name : error_table[i].text;
            return CUDA_SUCCESS;
        }
    }
    *pStr = NULL; /* the real driver's answer for a code it does not know */
    return CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuGetErrorString(CUresult error, const char **pStr)
{
    return error_lookup(error, pStr, 0);
}

SIM_EXPORT CUresult cuGetErrorName(CUresult error, const char **pStr)
{
    return error_lookup(error, pStr, 1);
}

/* SPDX-License-Identifier: MIT */
/* The simulated CUDA runtime's core: how it reaches the driver (exactly the real libcudart 13.0's
 * door, docs/design.md, "How CUDA reaches the driver"), the per-thread device and primary-context binding, the
 * last-error state, error strings, and the device, version and driver-entry-point APIs.
 * Thread-safe: the driver is loaded under pthread_once, the context table under ctx_lock. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include "sim_runtime.h"

sim_rt_driver_t sim_rt_cu;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static cudaError_t init_status;
static int driver_loaded;

/* The thread's last error (cudaGetLastError) and its current device (cudaSetDevice). */
static __thread cudaError_t tls_last_error;
static __thread int tls_device;
/* Which (device, generation) this thread last made current in the driver; -1: none yet. */
static __thread int tls_bound_device = -1;
static __thread unsigned tls_bound_generation;

/* Per device: the retained primary context, or NULL until first use and after cudaDeviceReset;
 * the generation counts resets so that every thread re-binds after one. */
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext dev_ctx[SIM_RT_MAX_DEVICES];
static atomic_uint dev_generation[SIM_RT_MAX_DEVICES];

/* ---- reaching the driver ---------------------------------------------------------------- */

/* One row per driver entry point: the cuGetProcAddress key and where the answer is kept. The
 * per-thread-default-stream variants (_ptsz, _ptds) are asked for with flag 2, as cudart asks
 * for cuMemAllocAsync both ways (measured on libcudart 13.0). */
typedef struct fetch_row_s {
    const char *base;
    int version;
    cuuint64_t flags;
    size_t offset;
} fetch_row_t;

#define VT_CU(ret, name, base, ver, variant, params, args)                                         \
    {#base, ver, sizeof(#variant) > 1 ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0,         \
     offsetof(sim_rt_driver_t, name)},
static const fetch_row_t fetch_table[] = {
#include "cuda_driver.def"
#include "sim_driver.def"
};
#undef VT_CU

/* Entry points the real cudart 13.0 never requests (measured with a spying driver):
 * VMM is user and framework code only, and cudaMallocHost is served by cuMemHostAlloc. Asking
 * for them here would make the double look like a runtime that does. */
static const char *const never_fetched[] = {
    "cuMemAllocHost", "cuMemCreate",         "cuMemMap",       "cuMemUnmap",
    "cuMemRelease",   "cuMemAddressReserve", "cuMemSetAccess",
};

static int is_never_fetched(const char *base)
{
    for (size_t i = 0; i < sizeof never_fetched / sizeof never_fetched[0]; i++)
        if (strcmp(base, never_fetched[i]) == 0)
            return 1;
    return 0;
}

static void slot_store(size_t offset, void *fn)
{
    memcpy((char *)&sim_rt_cu + offset, &fn, sizeof fn);
}

/* Asks `gpa` for (base, version, flags) and stores the answer at `offset`; returns 0, or -1 when
 * the driver has no such entry point. */
static int fetch(__typeof__(&cuGetProcAddress_v2) gpa, const char *base, int version,
                 cuuint64_t flags, size_t offset)
{
    void *fn = NULL;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (gpa(base, &fn, version, flags, &status) != CUDA_SUCCESS || !fn ||
        status != CU_GET_PROC_ADDRESS_SUCCESS)
        return -1;
    slot_store(offset, fn);
    return 0;
}

/* The bootstrap of the real libcudart 13.0, step for step (measured):
 * dlopen("libcuda.so.1", RTLD_NOW); dlsym of "cuGetProcAddress_v2", the only dlsym into the
 * driver; a probe with an empty name; cuInit fetched at ABI 2000 and called; "cuGetProcAddress"
 * fetched at 11030 and 12000; every other entry point fetched through the fetched 12000 pointer.
 * Outcomes measured with the real libcudart 13.0 (no driver, and this simulated driver with
 * VTSIM_DEVICE_COUNT=0 or VTSIM_DRIVER_VERSION=12080): no driver, or one older than 13.0, is
 * cudaErrorInsufficientDriver; no device is cudaErrorNoDevice. Runs once, under pthread_once. */
static void driver_load(void)
{
    init_status = cudaErrorInsufficientDriver;
    void *handle = dlopen("libcuda.so.1", RTLD_NOW);
    if (!handle)
        return;
    void *sym = dlsym(handle, "cuGetProcAddress_v2");
    if (!sym)
        return; /* a pre-12.0 driver: far older than this runtime needs */
    __typeof__(&cuGetProcAddress_v2) gpa;
    memcpy(&gpa, &sym, sizeof gpa);
    driver_loaded = 1;

    void *ignored = NULL;
    CUdriverProcAddressQueryResult status;
    gpa("", &ignored, 0, 0, &status); /* cudart's probe: its answer is not used */
    if (fetch(gpa, "cuInit", 2000, 0, offsetof(sim_rt_driver_t, cuInit)) != 0)
        return;
    CUresult init_rc = sim_rt_cu.cuInit(0);
    if (fetch(gpa, "cuGetProcAddress", 11030, 0, offsetof(sim_rt_driver_t, cuGetProcAddress)) !=
            0 ||
        fetch(gpa, "cuGetProcAddress", 12000, 0, offsetof(sim_rt_driver_t, cuGetProcAddress_v2)) !=
            0)
        return;

    int missing = 0;
    for (size_t i = 0; i < sizeof fetch_table / sizeof fetch_table[0]; i++) {
        const fetch_row_t *row = &fetch_table[i];
        if (strcmp(row->base, "cuInit") == 0 || strcmp(row->base, "cuGetProcAddress") == 0 ||
            is_never_fetched(row->base))
            continue;
        missing |=
            fetch(sim_rt_cu.cuGetProcAddress_v2, row->base, row->version, row->flags, row->offset);
    }
    int version = 0;
    if (missing || !sim_rt_cu.cuDriverGetVersion ||
        sim_rt_cu.cuDriverGetVersion(&version) != CUDA_SUCCESS || version < SIM_RT_VERSION)
        return;

    switch (init_rc) {
    case CUDA_SUCCESS:
        init_status = cudaSuccess;
        break;
    case CUDA_ERROR_NO_DEVICE:
        init_status = cudaErrorNoDevice;
        break;
    case CUDA_ERROR_STUB_LIBRARY:
        init_status = cudaErrorStubLibrary;
        break;
    default:
        init_status = cudaErrorInitializationError;
        break;
    }
}

/* Loads the driver on the first call from any thread. Returns cudaSuccess or the init failure,
 * which is permanent: the real runtime reports it from every later call, cudaGetLastError
 * included (measured, see driver_load). */
cudaError_t sim_rt_init(void)
{
    pthread_once(&init_once, driver_load);
    return init_status;
}

int sim_rt_driver_loaded(void)
{
    sim_rt_init();
    return driver_loaded;
}

/* ---- context ----------------------------------------------------------------------------- */

/* The primary context of device dev, retained on first use (or first use after
 * cudaDeviceReset), and the generation it belongs to. Takes ctx_lock. */
static CUresult primary_of(int dev, CUcontext *ctx, unsigned *generation)
{
    pthread_mutex_lock(&ctx_lock);
    CUresult rc = CUDA_SUCCESS;
    if (!dev_ctx[dev]) {
        CUdevice cu_dev;
        CUcontext c;
        rc = sim_rt_cu.cuDeviceGet(&cu_dev, dev);
        if (rc == CUDA_SUCCESS)
            rc = sim_rt_cu.cuDevicePrimaryCtxRetain(&c, cu_dev);
        if (rc == CUDA_SUCCESS)
            dev_ctx[dev] = c;
    }
    *ctx = dev_ctx[dev];
    *generation = atomic_load_explicit(&dev_generation[dev], memory_order_relaxed);
    pthread_mutex_unlock(&ctx_lock);
    return rc;
}

/* Device dev's primary context (a peer's, for peer access and copies); init done. */
cudaError_t sim_rt_primary(int dev, CUcontext *ctx)
{
    unsigned generation;
    cudaError_t e = sim_rt_check_ordinal(dev);
    return e != cudaSuccess ? e : sim_rt_error(primary_of(dev, ctx, &generation));
}

/* Makes the primary context of the thread's current device current in the driver, retaining
 * it on first use (or first use after cudaDeviceReset). Fast path: one TLS compare and one
 * atomic load. Returns cudaSuccess or the mapped driver error; takes ctx_lock on the slow path. */
cudaError_t sim_rt_context(void)
{
    cudaError_t e = sim_rt_init();
    if (e != cudaSuccess)
        return e;
    int dev = tls_device;
    unsigned generation = atomic_load_explicit(&dev_generation[dev], memory_order_acquire);
    if (tls_bound_device == dev && tls_bound_generation == generation)
        return cudaSuccess;

    CUcontext ctx;
    CUresult rc = primary_of(dev, &ctx, &generation);
    if (rc == CUDA_SUCCESS)
        rc = sim_rt_cu.cuCtxSetCurrent(ctx);
    if (rc != CUDA_SUCCESS)
        return sim_rt_error(rc);
    tls_bound_device = dev;
    tls_bound_generation = generation;
    return cudaSuccess;
}

/* Runs the context step, then fails with cudaErrorInvalidValue when `bad` holds: the real
 * runtime reports initialisation failures before argument errors (measured). */
cudaError_t sim_rt_ctx_and_check(int bad)
{
    cudaError_t e = sim_rt_context();
    return e != cudaSuccess ? e : bad ? cudaErrorInvalidValue : cudaSuccess;
}

/* ---- errors ------------------------------------------------------------------------------ */

cudaError_t sim_rt_error(CUresult rc)
{
    switch ((int)rc) { /* int: sim_cuda.h's codes are not in vt_cuda.h's enum */
    case CUDA_SUCCESS:
        return cudaSuccess;
    case CUDA_ERROR_INVALID_VALUE:
        return cudaErrorInvalidValue;
    case CUDA_ERROR_OUT_OF_MEMORY:
        return cudaErrorMemoryAllocation;
    case CUDA_ERROR_NOT_INITIALIZED:
        return cudaErrorInitializationError;
    case CUDA_ERROR_DEINITIALIZED:
        return cudaErrorCudartUnloading;
    case CUDA_ERROR_STUB_LIBRARY:
        return cudaErrorStubLibrary;
    case CUDA_ERROR_NO_DEVICE:
        return cudaErrorNoDevice;
    case CUDA_ERROR_INVALID_DEVICE:
        return cudaErrorInvalidDevice;
    case CUDA_ERROR_INVALID_CONTEXT:
        return cudaErrorDeviceUninitialized;
    case CUDA_ERROR_ALREADY_MAPPED:
        return cudaErrorAlreadyMapped;
    case CUDA_ERROR_NOT_MAPPED:
        return cudaErrorNotMapped;
    case CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND:
        return cudaErrorSharedObjectSymbolNotFound;
    case CUDA_ERROR_INVALID_HANDLE:
        return cudaErrorInvalidResourceHandle;
    case CUDA_ERROR_NOT_FOUND:
        return cudaErrorSymbolNotFound;
    case CUDA_ERROR_NOT_READY:
        return cudaErrorNotReady;
    case CUDA_ERROR_ILLEGAL_ADDRESS:
        return cudaErrorIllegalAddress;
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
        return cudaErrorContextIsDestroyed;
    case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED:
        return cudaErrorHostMemoryAlreadyRegistered;
    case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED:
        return cudaErrorHostMemoryNotRegistered;
    case CUDA_ERROR_NOT_PERMITTED:
        return cudaErrorNotPermitted;
    case CUDA_ERROR_NOT_SUPPORTED:
        return cudaErrorNotSupported;
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_PEER_ACCESS_UNSUPPORTED:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_INVALID_SOURCE:
    case CUDA_ERROR_FILE_NOT_FOUND:
    case CUDA_ERROR_ILLEGAL_STATE:
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED:
    case CUDA_ERROR_PEER_ACCESS_NOT_ENABLED:
    case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED:
    case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED:
    case CUDA_ERROR_STREAM_CAPTURE_MERGE:
    case CUDA_ERROR_STREAM_CAPTURE_UNMATCHED:
    case CUDA_ERROR_STREAM_CAPTURE_UNJOINED:
    case CUDA_ERROR_STREAM_CAPTURE_ISOLATION:
    case CUDA_ERROR_STREAM_CAPTURE_IMPLICIT:
    case CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD:
        return (cudaError_t)rc; /* the runtime's code has the driver's number */
    default:
        return cudaErrorUnknown;
    }
}

/* Every failing call records its error; a successful one leaves the last error alone. */
cudaError_t sim_rt_fail(cudaError_t e)
{
    if (e != cudaSuccess)
        tls_last_error = e;
    return e;
}

/* The work of a stream-taking call completes when it is issued in the simulation, so nothing is
 * enqueued that would validate the handle; a zero-byte copy on the stream makes the simulated
 * driver check it without any side effect (cuStreamSynchronize would also run the pools'
 * release threshold). Needs a current context. */
cudaError_t sim_rt_stream_check(cudaStream_t stream)
{
    return sim_rt_error(sim_rt_cu.cuMemcpyHtoDAsync_v2(0, NULL, 0, stream));
}

SIM_RT_EXPORT cudaError_t cudaGetLastError(void)
{
    cudaError_t e = sim_rt_init();
    if (e != cudaSuccess)
        return e;
    e = tls_last_error;
    tls_last_error = cudaSuccess;
    return e;
}

SIM_RT_EXPORT cudaError_t cudaPeekAtLastError(void)
{
    cudaError_t e = sim_rt_init();
    return e != cudaSuccess ? e : tls_last_error;
}

/* Names and texts as the real libcudart 13.0 returns them (dumped from it). */
static const struct {
    cudaError_t code;
    const char *name, *text;
} error_table[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorCudartUnloading, "cudaErrorCudartUnloading", "driver shutting down"},
    {SIM_RT_ERROR_INVALID_CONFIGURATION, "cudaErrorInvalidConfiguration",
     "invalid configuration argument"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidChannelDescriptor, "cudaErrorInvalidChannelDescriptor",
     "invalid channel descriptor"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
     "invalid copy direction for memcpy"},
    {cudaErrorStubLibrary, "cudaErrorStubLibrary", "CUDA driver is a stub library"},
    {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver",
     "CUDA driver version is insufficient for CUDA runtime version"},
    {cudaErrorMissingConfiguration, "cudaErrorMissingConfiguration",
     "__global__ function call is not configured"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorDeviceUninitialized, "cudaErrorDeviceUninitialized", "invalid device context"},
    {cudaErrorAlreadyMapped, "cudaErrorAlreadyMapped", "resource already mapped"},
    {cudaErrorNotMapped, "cudaErrorNotMapped", "resource not mapped"},
    {cudaErrorSharedObjectSymbolNotFound, "cudaErrorSharedObjectSymbolNotFound",
     "shared object symbol not found"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress",
     "an illegal memory access was encountered"},
    {cudaErrorContextIsDestroyed, "cudaErrorContextIsDestroyed", "context is destroyed"},
    {cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered",
     "part or all of the requested memory range is already mapped"},
    {cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered",
     "pointer does not correspond to a registered memory region"},
    {cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {(cudaError_t)200, "cudaErrorInvalidKernelImage", "device kernel image is invalid"},
    {(cudaError_t)217, "cudaErrorPeerAccessUnsupported",
     "peer access is not supported between these two devices"},
    {(cudaError_t)218, "cudaErrorInvalidPtx", "a PTX JIT compilation failed"},
    {(cudaError_t)300, "cudaErrorInvalidSource", "device kernel image is invalid"},
    {(cudaError_t)301, "cudaErrorFileNotFound", "file not found"},
    {(cudaError_t)401, "cudaErrorIllegalState",
     "the operation cannot be performed in the present state"},
    {(cudaError_t)701, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {(cudaError_t)704, "cudaErrorPeerAccessAlreadyEnabled", "peer access is already enabled"},
    {(cudaError_t)705, "cudaErrorPeerAccessNotEnabled", "peer access has not been enabled"},
    {(cudaError_t)900, "cudaErrorStreamCaptureUnsupported",
     "operation not permitted when stream is capturing"},
    {(cudaError_t)901, "cudaErrorStreamCaptureInvalidated",
     "operation failed due to a previous error during capture"},
    {(cudaError_t)902, "cudaErrorStreamCaptureMerge",
     "operation would result in a merge of separate capture sequences"},
    {(cudaError_t)903, "cudaErrorStreamCaptureUnmatched",
     "capture was not ended in the same stream as it began"},
    {(cudaError_t)904, "cudaErrorStreamCaptureUnjoined", "capturing stream has unjoined work"},
    {(cudaError_t)905, "cudaErrorStreamCaptureIsolation",
     "dependency created on uncaptured work in another stream"},
    {(cudaError_t)906, "cudaErrorStreamCaptureImplicit",
     "operation would make the legacy stream depend on a capturing blocking stream"},
    {(cudaError_t)908, "cudaErrorStreamCaptureWrongThread",
     "attempt to terminate a thread-local capture sequence from another thread"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

static const char *error_lookup(cudaError_t error, int want_name)
{
    for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
        if (error_table[i].code == error)
            return want_name ? error_table[i].name : error_table[i].text;
    return "unrecognized error code"; /* the real runtime's answer, for both */
}

SIM_RT_EXPORT const char *cudaGetErrorString(cudaError_t error)
{
    return error_lookup(error, 0);
}

SIM_RT_EXPORT const char *cudaGetErrorName(cudaError_t error)
{
    return error_lookup(error, 1);
}

/* ---- versions and devices ---------------------------------------------------------------- */

/* No driver is not an error here: the real runtime answers 0 (measured). */
SIM_RT_EXPORT cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return sim_rt_fail(cudaErrorInvalidValue);
    if (!sim_rt_driver_loaded() || !sim_rt_cu.cuDriverGetVersion) {
        *driverVersion = 0;
        return cudaSuccess;
    }
    return sim_rt_fail(sim_rt_error(sim_rt_cu.cuDriverGetVersion(driverVersion)));
}

SIM_RT_EXPORT cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (!runtimeVersion)
        return sim_rt_fail(cudaErrorInvalidValue);
    *runtimeVersion = SIM_RT_VERSION;
    return cudaSuccess;
}

/* Out-parameters stay untouched on failure, as the real runtime leaves them (measured). */
SIM_RT_EXPORT cudaError_t cudaGetDeviceCount(int *count)
{
    cudaError_t e = sim_rt_init();
    if (e == cudaSuccess && !count)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuDeviceGetCount(count));
    return sim_rt_fail(e);
}

int sim_rt_current_device(void)
{
    return tls_device;
}

SIM_RT_EXPORT cudaError_t cudaGetDevice(int *device)
{
    cudaError_t e = sim_rt_init();
    if (e == cudaSuccess && !device)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        *device = tls_device;
    return sim_rt_fail(e);
}

cudaError_t sim_rt_check_ordinal(int device)
{
    int n = 0;
    if (sim_rt_cu.cuDeviceGetCount(&n) != CUDA_SUCCESS || device < 0 || device >= n ||
        device >= SIM_RT_MAX_DEVICES)
        return cudaErrorInvalidDevice;
    return cudaSuccess;
}

/* Since CUDA 12.0 cudaSetDevice also initialises the device's primary context. */
SIM_RT_EXPORT cudaError_t cudaSetDevice(int device)
{
    cudaError_t e = sim_rt_init();
    if (e == cudaSuccess)
        e = sim_rt_check_ordinal(device);
    if (e == cudaSuccess) {
        tls_device = device;
        e = sim_rt_context();
    }
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaDeviceSynchronize(void)
{
    cudaError_t e = sim_rt_context();
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuCtxSynchronize());
    return sim_rt_fail(e);
}

/* Destroys the current device's primary context (every allocation in it is gone) through
 * cuDevicePrimaryCtxReset_v2; the next call on any thread retains a fresh one. */
SIM_RT_EXPORT cudaError_t cudaDeviceReset(void)
{
    cudaError_t e = sim_rt_init();
    if (e != cudaSuccess)
        return sim_rt_fail(e);
    int dev = tls_device;
    pthread_mutex_lock(&ctx_lock);
    CUresult rc = sim_rt_cu.cuDevicePrimaryCtxReset_v2(dev);
    dev_ctx[dev] = NULL;
    atomic_fetch_add_explicit(&dev_generation[dev], 1, memory_order_release);
    pthread_mutex_unlock(&ctx_lock);
    return sim_rt_fail(sim_rt_error(rc));
}

/* ---- driver entry points ----------------------------------------------------------------- */

/* Both cudaGetDriverEntryPoint* go through the cuGetProcAddress pointer the runtime fetched at
 * ABI 12000, so a library that swaps that pointer sees these lookups too (door 2 of docs/design.md).
 * cudaEnableDefault means per-thread for the _ptsz exports (what the header maps a
 * --default-stream per-thread build to) and legacy otherwise. */
static cudaError_t entry_point(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                               unsigned long long flags,
                               enum cudaDriverEntryPointQueryResult *driverStatus, int ptsz)
{
    cudaError_t e = sim_rt_init();
    if (e != cudaSuccess)
        return e;
    if (!symbol || !funcPtr || cudaVersion > INT_MAX)
        return cudaErrorInvalidValue;
    cuuint64_t cu_flags;
    switch (flags) {
    case cudaEnableDefault:
        cu_flags = ptsz ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0;
        break;
    case cudaEnableLegacyStream:
        cu_flags = CU_GET_PROC_ADDRESS_LEGACY_STREAM;
        break;
    case cudaEnablePerThreadDefaultStream:
        cu_flags = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
        break;
    default:
        return cudaErrorInvalidValue;
    }
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult rc =
        sim_rt_cu.cuGetProcAddress_v2(symbol, funcPtr, (int)cudaVersion, cu_flags, &status);
    if (rc != CUDA_SUCCESS)
        return sim_rt_error(rc);
    if (driverStatus)
        *driverStatus = status == CU_GET_PROC_ADDRESS_SUCCESS ? cudaDriverEntryPointSuccess
                        : status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                            ? cudaDriverEntryPointVersionNotSufficent
                            : cudaDriverEntryPointSymbolNotFound;
    return cudaSuccess;
}

SIM_RT_EXPORT cudaError_t cudaGetDriverEntryPointByVersion(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return sim_rt_fail(entry_point(symbol, funcPtr, cudaVersion, flags, driverStatus, 0));
}

SIM_RT_EXPORT cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return sim_rt_fail(entry_point(symbol, funcPtr, cudaVersion, flags, driverStatus, 1));
}

/* Deprecated in 13.0 but still exported: the runtime's own version is the ABI asked for. */
SIM_RT_EXPORT cudaError_t
cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
                        enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return sim_rt_fail(entry_point(symbol, funcPtr, SIM_RT_VERSION, flags, driverStatus, 0));
}

SIM_RT_EXPORT cudaError_t
cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr, unsigned long long flags,
                             enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return sim_rt_fail(entry_point(symbol, funcPtr, SIM_RT_VERSION, flags, driverStatus, 1));
}

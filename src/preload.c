/* SPDX-License-Identifier: MIT */
/* The entry points of libvramtrace.so, and nothing else: thin shims over the core (as
 * heaptrack_preload.cpp is over heaptrack's), one per row of hooks.def, each of the shape of
 * hook rule 1 (docs/design.md): guard, forward, record on success, return the real result
 * unchanged, written with the macros and helpers named below. None of the CUDA names is
 * exported: the doors hand the shims out (resolve.c), and the program's own references are
 * pointed at them in its GOT (loads.c). The exports (the annotations here, dlsym in resolve.c,
 * dlopen and dlmopen in loads.c) are listed in exports.map and tests/exports.expected. */
#define VRAMTRACE_BUILDING_LIBRARY 1
#include "vramtrace.h"
#include "vt_internal.h"

#include <errno.h>

/* ---- the shape of a shim (docs/design.md, hook rule 1) ----------------------------------------
 * Every recording shim reads the same way:
 *     VT_ENTER(name, not_found, (args));      init ran, `real` found, the guard set, `api` named
 *     what counts before the call             an allocation's bytes in flight, a free marked
 *     VT_CALL_SAVING_ERRNO(rc, real(args));   the real call: `rc`, and `saved_errno` after it
 *     the record                              from rc, out-parameters read only on success
 *     VT_RETURN(rc);                          errno back, guard released, rc unchanged
 * The recording steps that recur have names below the macros: record_device_alloc,
 * record_managed_alloc and record_pinned_alloc (an allocation, its address often read through
 * OUT_ON_SUCCESS), pool_alloc_begin/end (a stream-ordered allocation), free_begin and
 * rt_free_begin/end (a free looked up in a mask of series), pool_free_begin/end (a free that
 * leaves a pool's use), drop_primary_context (a teardown), substitute_keeping_errno (a door's
 * answer). */

/* VT_FIND_REAL(name, not_found): makes sure init ran and declares `real`, the real function;
 * returns not_found, the API's own "symbol not found" code, when there is none. */
#define VT_FIND_REAL(name, not_found)                                                              \
    vt_ensure_init();                                                                              \
    __typeof__(&name) real = VT_REAL(name);                                                        \
    if (VT_UNLIKELY(!real))                                                                        \
        return not_found;                                                                          \
    (void)0

/* VT_ENTER(name, not_found, args): the start of every recording shim. VT_FIND_REAL, and `api`,
 * the API its events carry; then forwards unrecorded when nested (the runtime calling the
 * driver), on our own threads, in a fork child not yet re-initialised, or when OFF; otherwise
 * sets the guard. */
#define VT_ENTER(name, not_found, args)                                                            \
    VT_FIND_REAL(name, not_found);                                                                 \
    const vt_api_t api __attribute__((unused)) = VT_API_##name;                                    \
    if (VT_UNLIKELY(vt_in_hook) || !vt_is_on()) {                                                  \
        vt_note_nested();                                                                          \
        return real args;                                                                          \
    }                                                                                              \
    vt_in_hook = VT_HOOK_RECORDING;                                                                \
    vt_note_cuda_used()

/* VT_CALL(call): the real call, made as the program would make it: cancellation as the program
 * set it (the recording around it disables cancellation before any cancellation point,
 * vt_cancel_hold, so a pending cancel acts neither inside vramtrace's lock nor between the call
 * and its record), and calls nested in it
 * (the runtime's own driver calls) forwarded unrecorded and uncounted. */
#define VT_CALL(call)                                                                              \
    __extension__({                                                                                \
        vt_in_hook = VT_HOOK_CALLING;                                                              \
        vt_record_end();                                                                           \
        __typeof__(call) vt_rc_ = (call);                                                          \
        vt_in_hook = VT_HOOK_RECORDING;                                                            \
        vt_rc_;                                                                                    \
    })

/* VT_CALL_SAVING_ERRNO(rc, call): declares rc, the result of the real call (VT_CALL), and
 * saved_errno, errno as that call left it: what VT_RETURN gives back to the program whatever the
 * recording in between does to errno. */
#define VT_CALL_SAVING_ERRNO(rc, call)                                                             \
    __typeof__(call) rc = VT_CALL(call);                                                           \
    int saved_errno = errno

/* The end of every recording shim: errno as the real call left it, guard released, the
 * program's cancellation state back. */
static inline void vt_leave(int saved_errno)
{
    errno = saved_errno;
    vt_in_hook = 0;
    vt_record_end();
}

/* VT_RETURN(rc): vt_leave, then the real result, unchanged. */
#define VT_RETURN(rc)                                                                              \
    do {                                                                                           \
        vt_leave(saved_errno);                                                                     \
        return rc;                                                                                 \
    } while (0)

#define CU_NOT_FOUND CUDA_ERROR_NOT_FOUND
#define RT_NOT_FOUND cudaErrorSharedObjectSymbolNotFound

enum device_from { DEVICE_CURRENT, DEVICE_OF_POINTER, DEVICE_HOST };

/* Memory-info samples: the driver's free and total bytes of the calling thread's device, so the
 * analyzer can show what no hook sees (context, modules, device-side malloc: used − tracked)
 * and the free memory at each OOM. Taken on the application's thread right after one of its
 * own allocations, through the real cuMemGetInfo_v2 — a driver call, so the runtime's
 * last-error state is untouched — at most every 100 ms per device, and at every OOM. The
 * thread's stream-capture mode is made relaxed around the call and restored, so a query
 * during a global-mode capture (of this or another thread) can neither fail nor invalidate
 * the capture (aws-ofi-nccl PR #1342 does the same). Returns false when no sample was taken. */
#define MEMINFO_INTERVAL_NS 100000000u
static uint64_t meminfo_last_ns[VT_MAX_DEVICES];

/* The pacing test alone, inline in record_alloc: a sample is due on device at now_ns. */
static inline bool meminfo_due(int device, uint64_t now_ns)
{
    return device >= 0 && device < VT_MAX_DEVICES &&
           now_ns - __atomic_load_n(&meminfo_last_ns[device], __ATOMIC_RELAXED) >=
               MEMINFO_INTERVAL_NS;
}

__attribute__((noinline)) static bool sample_meminfo(int device, bool force, uint64_t now_ns,
                                                     uint64_t *free_bytes, uint64_t *total_bytes)
{
    if (device < 0 || device >= VT_MAX_DEVICES)
        return false;
    uint64_t last = __atomic_load_n(&meminfo_last_ns[device], __ATOMIC_RELAXED);
    if (!force && (now_ns - last < MEMINFO_INTERVAL_NS ||
                   !__atomic_compare_exchange_n(&meminfo_last_ns[device], &last, now_ns, false,
                                                __ATOMIC_RELAXED, __ATOMIC_RELAXED)))
        return false;
    vt_cancel_hold(); /* driver queries: not known to be free of cancellation points */
    __typeof__(&cuMemGetInfo_v2) get_info = VT_REAL(cuMemGetInfo_v2);
    __typeof__(&cuThreadExchangeStreamCaptureMode) exchange =
        VT_REAL(cuThreadExchangeStreamCaptureMode);
    if (!get_info)
        return false;
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    bool relaxed = exchange && exchange(&mode) == CUDA_SUCCESS;
    size_t free_now = 0, total_now = 0;
    CUresult rc = get_info(&free_now, &total_now);
    if (relaxed)
        exchange(&mode);
    if (rc != CUDA_SUCCESS)
        return false;
    *free_bytes = free_now;
    *total_bytes = total_now;
    return true;
}

/* The DEVICE record of device, once per trace: what the real driver says of it, asked outside
 * vt_lock (device queries, no runtime call, so the runtime's error state is untouched). */
static void describe_device(int device)
{
    if (VT_LIKELY(vt_track_device_described(device)))
        return;
    vt_cancel_hold(); /* driver queries */
    vt_device_info_t info;
    __builtin_memset(&info, 0, sizeof info);
    __typeof__(&cuDeviceGetName) get_name = VT_REAL(cuDeviceGetName);
    __typeof__(&cuDeviceTotalMem_v2) get_total = VT_REAL(cuDeviceTotalMem_v2);
    __typeof__(&cuDeviceGetUuid_v2) get_uuid = VT_REAL(cuDeviceGetUuid_v2);
    __typeof__(&cuDeviceGetPCIBusId) get_pci = VT_REAL(cuDeviceGetPCIBusId);
    if (!get_name || get_name(info.name, (int)sizeof info.name - 1, device) != CUDA_SUCCESS)
        info.name[0] = '\0';
    size_t total_bytes = 0;
    if (get_total && get_total(&total_bytes, device) == CUDA_SUCCESS)
        info.total_bytes = total_bytes;
    CUuuid uuid;
    if (get_uuid && get_uuid(&uuid, device) == CUDA_SUCCESS) {
        const unsigned char *u = (const unsigned char *)uuid.bytes;
        vt_fmt(info.uuid, sizeof info.uuid,
               "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
               u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
               u[14], u[15]);
    }
    if (!get_pci ||
        get_pci(info.pci_bus_id, (int)sizeof info.pci_bus_id - 1, device) != CUDA_SUCCESS)
        info.pci_bus_id[0] = '\0';
    vt_track_device(device, &info);
}

/* Records what an allocation call did: memory when it succeeded with an address and a size,
 * a failure otherwise (errors, NULL results, zero sizes); returns the device of what it
 * recorded (-1: nothing). pending_bytes: what the shim added to
 * vt_inflight_bytes before the real call (device memory; 0 for the other series), taken back
 * here whatever the outcome. */
static int record_alloc(int rc, vt_series_t series, enum device_from from, uint64_t key,
                        uint64_t size_bytes, vt_api_t api, uint64_t pending_bytes)
{
    if (rc != 0 || !key || !size_bytes) {
        if (pending_bytes)
            vt_inflight_sub(pending_bytes);
        /* Out of memory (2 in both the driver's and the runtime's codes) gets its call-site:
         * the OOM record and the analyzer's post-mortem need it. */
        vt_callsite_t cs = {0, VT_CAT_UNKNOWN};
        bool oom = rc == CUDA_ERROR_OUT_OF_MEMORY;
        int device = 0;
        uint64_t free_bytes = 0, total_bytes = 0;
        if (oom) {
            vt_callsite_take(&cs, api);
            device = from == DEVICE_HOST ? 0 : vt_current_device();
            if (from != DEVICE_HOST)
                sample_meminfo(device, true, vt_now_ns(), &free_bytes, &total_bytes);
        }
        vt_track_failed_at(api, size_bytes, rc, device, oom ? &cs : NULL, free_bytes, total_bytes);
        if (oom && series == VT_SERIES_DEVICE)
            vt_oom_report(device, api, size_bytes, &cs);
        return -1;
    }
    /* vramtrace_pause(): allocations made now are not tracked; their frees, later, count as
     * unmatched, never as negative memory. */
    if (vt_is_paused()) {
        if (pending_bytes)
            vt_inflight_sub(pending_bytes);
        return -1;
    }
    /* Device memory belongs to the context current at the call: its teardown frees it. */
    int device = 0;
    uint64_t ctx = 0;
    if (from != DEVICE_HOST)
        device = vt_current_context(&ctx);
    if (from == DEVICE_OF_POINTER) {
        int of_pointer = vt_device_of_pointer(key);
        if (of_pointer >= 0)
            device = of_pointer;
    }
    if (series != VT_SERIES_PINNED)
        describe_device(device);
    vt_callsite_t cs;
    vt_callsite_take(&cs, api);
    /* The allocation's own timestamp paces the samples: one clock read per event. */
    uint64_t t_ns =
        vt_track_alloc_pending_at(series, device, ctx, key, size_bytes, api, &cs, pending_bytes);
    uint64_t free_bytes, total_bytes;
    if (series == VT_SERIES_DEVICE && from == DEVICE_CURRENT && meminfo_due(device, t_ns) &&
        sample_meminfo(device, false, t_ns, &free_bytes, &total_bytes))
        vt_track_meminfo(device, free_bytes, total_bytes);
    return device;
}

#define DEVICE_SERIES (VT_MASK(VT_SERIES_DEVICE) | VT_MASK(VT_SERIES_MANAGED))
#define PINNED_SERIES VT_MASK(VT_SERIES_PINNED)

/* ---- the recording steps the shims share --------------------------------------------------- */

/* OUT_ON_SUCCESS(rc, out): what the call wrote to *out, as a key, read only when rc says it
 * succeeded (hook rule 1); 0 otherwise, which record_alloc takes for a failure. */
#define OUT_ON_SUCCESS(rc, out) ((rc) ? 0 : (uint64_t)(uintptr_t)(*(out)))

/* Device memory made by the calling thread's current context: pending_bytes were added to
 * vt_inflight_bytes before the real call (hook rule 9). */
static inline void record_device_alloc(int rc, uint64_t key, uint64_t size_bytes, vt_api_t api,
                                       uint64_t pending_bytes)
{
    record_alloc(rc, VT_SERIES_DEVICE, DEVICE_CURRENT, key, size_bytes, api, pending_bytes);
}

/* Managed memory: counted apart from device memory, never in flight. */
static inline void record_managed_alloc(int rc, uint64_t key, uint64_t size_bytes, vt_api_t api)
{
    record_alloc(rc, VT_SERIES_MANAGED, DEVICE_CURRENT, key, size_bytes, api, 0);
}

/* Page-locked host memory: no device. */
static inline void record_pinned_alloc(int rc, uint64_t key, uint64_t size_bytes, vt_api_t api)
{
    record_alloc(rc, VT_SERIES_PINNED, DEVICE_HOST, key, size_bytes, api, 0);
}

/* A stream-ordered allocation of size_bytes. What its pool may grow by stays in flight until
 * the pool is sampled (vt_pools_request_bytes); pool_alloc_begin adds it and returns it for
 * pool_alloc_end, which records the allocation on the device that holds it (record_alloc takes
 * the request itself back), samples the pool (0: the device's current one) as an allocation on
 * stream (vt_pools_stream) and takes back the rest. */
static inline uint64_t pool_alloc_begin(uint64_t size_bytes)
{
    uint64_t pending_bytes = vt_pools_request_bytes(size_bytes);
    vt_inflight_add(pending_bytes);
    return pending_bytes;
}

static inline void pool_alloc_end(int rc, uint64_t key, uint64_t size_bytes, uint64_t pool,
                                  uint64_t stream, vt_api_t api, uint64_t pending_bytes)
{
    int device =
        record_alloc(rc, VT_SERIES_DEVICE, DEVICE_OF_POINTER, key, size_bytes, api, size_bytes);
    if (device >= 0)
        vt_pools_after_alloc(device, pool, size_bytes, stream);
    vt_inflight_sub(pending_bytes - size_bytes);
}

/* A free of key, looked up in the first series of series_mask that holds it: marked before the
 * real call, counted out and recorded by vt_track_free_end once it has returned (hook rule 9,
 * track.c). */
static inline void free_begin(unsigned series_mask, uint64_t key, vt_api_t api, vt_free_t *f)
{
    vt_track_free_begin_at(series_mask, key, api, f);
}

/* A runtime free of p. A NULL pointer is the documented no-op of cudaFree, cudaFreeHost and
 * cudaFreeArray: nothing is recorded for it but an error. */
static inline void rt_free_begin(unsigned series_mask, const void *p, vt_api_t api, vt_free_t *f)
{
    f->found = false;
    if (p)
        vt_track_free_begin_at(series_mask, (uint64_t)p, api, f);
}

static inline void rt_free_end(vt_free_t *f, const void *p, bool ok, vt_api_t api)
{
    if (p) {
        vt_track_free_end(f, ok, api);
    } else if (!ok) {
        vt_track_failed(api);
    }
}

/* A stream-ordered allocation about to be freed on stream (vt_pools_stream; f as free_begin
 * found it): its bytes leave its pool's use once the free returns (vt_pools_before_free,
 * vt_pools_after_free). Returns whether it is one. */
static inline bool pool_free_begin(const vt_free_t *f, uint64_t stream)
{
    bool pooled = f->found && vt_api_stream_ordered(f->saved.api);
    if (pooled)
        vt_pools_before_free(f->saved.device, f->saved.size_bytes, stream);
    return pooled;
}

static inline void pool_free_end(const vt_free_t *f, bool pooled, bool ok)
{
    if (pooled)
        vt_pools_after_free(f->saved.device, f->saved.size_bytes, ok);
}

/* A door's successful lookup: the pointer it answered replaced by our shim on an exact (base
 * name, ABI version, flags) match (resolve.c), errno as the lookup left it. */
static void substitute_keeping_errno(const char *symbol, void **pfn, int version, uint64_t flags)
{
    if (!vt_is_on())
        return;
    int saved_errno = errno;
    vt_substitute(symbol, pfn, version, flags);
    errno = saved_errno;
}

/* Arrays are counted at their logical size: elements × the format's size × the channels, by
 * rows (at least 1) and slices (at least 1: the depth, the layers of a layered array, 6 faces ×
 * layers for a cubemap, as cuda.h documents the descriptor), each mipmap level halving width,
 * height and (unless layered or a cubemap) depth, never below 1. What the driver adds for its
 * layout (row padding, tiling) is not documented (cuArrayGetMemoryRequirements answers only for
 * arrays made for deferred mapping), so the report says array sizes are logical. */
#define ARRAY3D_LAYERED 0x01u /* CUDA_ARRAY3D_LAYERED */
#define ARRAY3D_CUBEMAP 0x04u /* CUDA_ARRAY3D_CUBEMAP */

static uint64_t array_bytes(size_t w, size_t h, size_t d, CUarray_format format, unsigned channels)
{
    unsigned elem = 4;
    switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8:
        elem = 1;
        break;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF:
        elem = 2;
        break;
    default:
        break;
    }
    return (uint64_t)w * (h ? h : 1) * (d ? d : 1) * elem * channels;
}

static uint64_t mipmapped_array_bytes(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned n_levels)
{
    bool layered = d->Flags & (ARRAY3D_LAYERED | ARRAY3D_CUBEMAP);
    size_t w = d->Width, h = d->Height, z = d->Depth;
    uint64_t total = 0;
    for (unsigned level = 0; level < n_levels; level++) {
        total += array_bytes(w, h, z, d->Format, d->NumChannels);
        w = w > 1 ? w / 2 : 1;
        h = h > 1 ? h / 2 : h;
        if (!layered)
            z = z > 1 ? z / 2 : z;
    }
    return total;
}

/* ---- lifecycle and annotations ----------------------------------------------------------- */

/* Another DSO's constructor may reach a shim first; vt_ensure_init copes. A process with CUDA
 * loaded initialises here, before main; any other only reads its settings (vt_init_at_load). */
__attribute__((constructor)) static void vt_preload_ctor(void)
{
    vt_loads_startup();
    vt_init_at_load(vt_loads_found_cuda());
}

__attribute__((destructor)) static void vt_preload_dtor(void)
{
    vt_in_hook = 1; /* whatever the exit path calls from here on is not ours to record */
    bool was_on = vt_is_on();
    if (was_on)
        vt_pools_at_exit();
    vt_shutdown();
    if (was_on && vt_cuda_used())
        vt_exit_summary();
}

VT_EXPORT void vramtrace_mark(const char *label)
{
    vt_ensure_init();
    if (vt_is_on() && vt_guard_enter()) {
        vt_mark(label);
        vt_guard_leave();
    }
}

VT_EXPORT void vramtrace_pause(void)
{
    vt_ensure_init();
    if (vt_is_on() && vt_guard_enter()) {
        vt_set_paused(true);
        vt_guard_leave();
    }
}

VT_EXPORT void vramtrace_resume(void)
{
    vt_ensure_init();
    if (vt_is_on() && vt_guard_enter()) {
        vt_set_paused(false);
        vt_guard_leave();
    }
}

VT_EXPORT void vramtrace_category_push(const char *category)
{
    vt_ensure_init();
    if (!vt_is_on() || !vt_guard_enter())
        return;
    int c = category ? vt_category_from_name(category, __builtin_strlen(category)) : -1;
    if (c < 0)
        vt_log(1, "vramtrace_category_push: '%.64s' is not a category: ignored",
               category ? category : "(null)");
    vt_category_push(c);
    vt_guard_leave();
}

VT_EXPORT void vramtrace_category_pop(void)
{
    vt_ensure_init();
    if (vt_is_on() && vt_guard_enter()) {
        vt_category_pop();
        vt_guard_leave();
    }
}

/* ---- the cuGetProcAddress door ------------------------------------------------------------- */

/* The real lookup first, so status, errors and NULL results are exactly the driver's; then
 * our wrapper replaces the pointer on an exact (base name, ABI version, flags) match. */
VT_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                       cuuint64_t flags,
                                       CUdriverProcAddressQueryResult *symbolStatus)
{
    VT_FIND_REAL(cuGetProcAddress_v2, CU_NOT_FOUND);
    CUresult rc = real(symbol, pfn, cudaVersion, flags, symbolStatus);
    if (rc == CUDA_SUCCESS)
        substitute_keeping_errno(symbol, pfn, cudaVersion, flags);
    return rc;
}

/* The 4-argument ABI (11030) that cudart also fetches and keeps. */
VT_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
                                    cuuint64_t flags)
{
    VT_FIND_REAL(cuGetProcAddress, CU_NOT_FOUND);
    CUresult rc = real(symbol, pfn, cudaVersion, flags);
    if (rc == CUDA_SUCCESS)
        substitute_keeping_errno(symbol, pfn, cudaVersion, flags);
    return rc;
}

/* ---- device memory -------------------------------------------------------------------------- */

VT_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    VT_ENTER(cuMemAlloc_v2, CU_NOT_FOUND, (dptr, bytesize));
    vt_inflight_add(bytesize);
    VT_CALL_SAVING_ERRNO(rc, real(dptr, bytesize));
    record_device_alloc(rc, OUT_ON_SUCCESS(rc, dptr), bytesize, api, bytesize);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
                                      size_t Height, unsigned int ElementSizeBytes)
{
    VT_ENTER(cuMemAllocPitch_v2, CU_NOT_FOUND,
             (dptr, pPitch, WidthInBytes, Height, ElementSizeBytes));
    uint64_t pending_bytes = (uint64_t)WidthInBytes * Height;
    vt_inflight_add(pending_bytes);
    VT_CALL_SAVING_ERRNO(rc, real(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes));
    record_device_alloc(rc, OUT_ON_SUCCESS(rc, dptr), rc ? 0 : (uint64_t)*pPitch * Height, api,
                        pending_bytes);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    VT_ENTER(cuMemAllocManaged, CU_NOT_FOUND, (dptr, bytesize, flags));
    VT_CALL_SAVING_ERRNO(rc, real(dptr, bytesize, flags));
    record_managed_alloc(rc, OUT_ON_SUCCESS(rc, dptr), bytesize, api);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    VT_ENTER(cuMemFree_v2, CU_NOT_FOUND, (dptr));
    vt_free_t f;
    free_begin(DEVICE_SERIES, dptr, api, &f);
    VT_CALL_SAVING_ERRNO(rc, real(dptr));
    vt_track_free_end(&f, rc == CUDA_SUCCESS, api);
    VT_RETURN(rc);
}

/* ---- pinned host memory --------------------------------------------------------------------- */

VT_EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    VT_ENTER(cuMemHostAlloc, CU_NOT_FOUND, (pp, bytesize, Flags));
    VT_CALL_SAVING_ERRNO(rc, real(pp, bytesize, Flags));
    record_pinned_alloc(rc, OUT_ON_SUCCESS(rc, pp), bytesize, api);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    VT_ENTER(cuMemAllocHost_v2, CU_NOT_FOUND, (pp, bytesize));
    VT_CALL_SAVING_ERRNO(rc, real(pp, bytesize));
    record_pinned_alloc(rc, OUT_ON_SUCCESS(rc, pp), bytesize, api);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    VT_ENTER(cuMemHostRegister_v2, CU_NOT_FOUND, (p, bytesize, Flags));
    VT_CALL_SAVING_ERRNO(rc, real(p, bytesize, Flags));
    record_pinned_alloc(rc, (uint64_t)p, bytesize, api);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMemFreeHost(void *p)
{
    VT_ENTER(cuMemFreeHost, CU_NOT_FOUND, (p));
    vt_free_t f;
    free_begin(PINNED_SERIES, (uint64_t)p, api, &f);
    VT_CALL_SAVING_ERRNO(rc, real(p));
    vt_track_free_end(&f, rc == CUDA_SUCCESS, api);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMemHostUnregister(void *p)
{
    VT_ENTER(cuMemHostUnregister, CU_NOT_FOUND, (p));
    vt_free_t f;
    free_begin(PINNED_SERIES, (uint64_t)p, api, &f);
    VT_CALL_SAVING_ERRNO(rc, real(p));
    vt_track_free_end(&f, rc == CUDA_SUCCESS, api);
    VT_RETURN(rc);
}

/* ---- stream-ordered allocation: counted when it succeeds, until its free ------------------- */

VT_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    VT_ENTER(cuMemAllocAsync, CU_NOT_FOUND, (dptr, bytesize, hStream));
    uint64_t pending_bytes = pool_alloc_begin(bytesize);
    VT_CALL_SAVING_ERRNO(rc, real(dptr, bytesize, hStream));
    pool_alloc_end(rc, OUT_ON_SUCCESS(rc, dptr), bytesize, 0, vt_pools_stream(hStream, false), api,
                   pending_bytes);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    VT_ENTER(cuMemAllocAsync_ptsz, CU_NOT_FOUND, (dptr, bytesize, hStream));
    uint64_t pending_bytes = pool_alloc_begin(bytesize);
    VT_CALL_SAVING_ERRNO(rc, real(dptr, bytesize, hStream));
    pool_alloc_end(rc, OUT_ON_SUCCESS(rc, dptr), bytesize, 0, vt_pools_stream(hStream, true), api,
                   pending_bytes);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                           CUstream hStream)
{
    VT_ENTER(cuMemAllocFromPoolAsync, CU_NOT_FOUND, (dptr, bytesize, pool, hStream));
    uint64_t pending_bytes = pool_alloc_begin(bytesize);
    VT_CALL_SAVING_ERRNO(rc, real(dptr, bytesize, pool, hStream));
    pool_alloc_end(rc, OUT_ON_SUCCESS(rc, dptr), bytesize, (uint64_t)(uintptr_t)pool,
                   vt_pools_stream(hStream, false), api, pending_bytes);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize,
                                                CUmemoryPool pool, CUstream hStream)
{
    VT_ENTER(cuMemAllocFromPoolAsync_ptsz, CU_NOT_FOUND, (dptr, bytesize, pool, hStream));
    uint64_t pending_bytes = pool_alloc_begin(bytesize);
    VT_CALL_SAVING_ERRNO(rc, real(dptr, bytesize, pool, hStream));
    pool_alloc_end(rc, OUT_ON_SUCCESS(rc, dptr), bytesize, (uint64_t)(uintptr_t)pool,
                   vt_pools_stream(hStream, true), api, pending_bytes);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    VT_ENTER(cuMemFreeAsync, CU_NOT_FOUND, (dptr, hStream));
    vt_free_t f;
    free_begin(DEVICE_SERIES, dptr, api, &f);
    bool pooled = pool_free_begin(&f, vt_pools_stream(hStream, false));
    VT_CALL_SAVING_ERRNO(rc, real(dptr, hStream));
    vt_track_free_end(&f, rc == CUDA_SUCCESS, api);
    pool_free_end(&f, pooled, rc == CUDA_SUCCESS);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
    VT_ENTER(cuMemFreeAsync_ptsz, CU_NOT_FOUND, (dptr, hStream));
    vt_free_t f;
    free_begin(DEVICE_SERIES, dptr, api, &f);
    bool pooled = pool_free_begin(&f, vt_pools_stream(hStream, true));
    VT_CALL_SAVING_ERRNO(rc, real(dptr, hStream));
    vt_track_free_end(&f, rc == CUDA_SUCCESS, api);
    pool_free_end(&f, pooled, rc == CUDA_SUCCESS);
    VT_RETURN(rc);
}

/* ---- virtual memory management: physical handles, not mappings ------------------------------ */

VT_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                               const CUmemAllocationProp *prop, unsigned long long flags)
{
    VT_ENTER(cuMemCreate, CU_NOT_FOUND, (handle, size, prop, flags));
    /* HOST, HOST_NUMA and HOST_NUMA_CURRENT locations are page-locked host memory (NCCL's cuMem
     * host path), not device memory. */
    bool on_device = prop && prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE;
    uint64_t pending_bytes = on_device ? size : 0;
    vt_inflight_add(pending_bytes);
    VT_CALL_SAVING_ERRNO(rc, real(handle, size, prop, flags));
    if (rc == CUDA_SUCCESS && !vt_is_paused()) {
        if (on_device)
            describe_device(prop->location.id);
        vt_callsite_t cs;
        vt_callsite_take(&cs, api);
        vt_track_vmm_create_at(*handle, size, on_device ? VT_SERIES_DEVICE : VT_SERIES_PINNED,
                               on_device ? prop->location.id : 0, api, &cs, pending_bytes);
    } else {
        vt_inflight_sub(pending_bytes);
        if (rc != CUDA_SUCCESS)
            vt_track_failed(api);
    }
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    VT_ENTER(cuMemRelease, CU_NOT_FOUND, (handle));
    vt_free_t f;
    vt_track_vmm_release_begin(handle, &f);
    VT_CALL_SAVING_ERRNO(rc, real(handle));
    vt_track_vmm_release_end(&f, rc == CUDA_SUCCESS, api);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
    VT_ENTER(cuMemRetainAllocationHandle, CU_NOT_FOUND, (handle, addr));
    VT_CALL_SAVING_ERRNO(rc, real(handle, addr));
    if (rc == CUDA_SUCCESS)
        vt_track_vmm_retain(*handle);
    VT_RETURN(rc);
}

/* An imported handle counts nowhere here: the exporting process counts its memory. What is
 * mapped of it counts in the imported series (vt_track_vmm_map). */
VT_EXPORT CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle,
                                                  void *osHandle,
                                                  CUmemAllocationHandleType shHandleType)
{
    VT_ENTER(cuMemImportFromShareableHandle, CU_NOT_FOUND, (handle, osHandle, shHandleType));
    VT_CALL_SAVING_ERRNO(rc, real(handle, osHandle, shHandleType));
    if (rc == CUDA_SUCCESS && !vt_is_paused()) {
        vt_callsite_t cs;
        vt_callsite_take(&cs, api);
        vt_track_vmm_import(*handle, vt_current_device(), api, &cs);
    } else if (rc != CUDA_SUCCESS) {
        vt_track_failed_at(api, 0, rc, 0, NULL, 0, 0);
    }
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                            CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    VT_ENTER(cuMemMap, CU_NOT_FOUND, (ptr, size, offset, handle, flags));
    VT_CALL_SAVING_ERRNO(rc, real(ptr, size, offset, handle, flags));
    if (rc == CUDA_SUCCESS)
        vt_track_vmm_map(ptr, size, handle);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    VT_ENTER(cuMemUnmap, CU_NOT_FOUND, (ptr, size));
    VT_CALL_SAVING_ERRNO(rc, real(ptr, size));
    if (rc == CUDA_SUCCESS)
        vt_track_vmm_unmap(ptr, size, api);
    VT_RETURN(rc);
}

/* Address reservations cost no memory: wrapped so every VMM call passes one door, counted
 * nowhere. */
VT_EXPORT CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                       CUdeviceptr addr, unsigned long long flags)
{
    VT_ENTER(cuMemAddressReserve, CU_NOT_FOUND, (ptr, size, alignment, addr, flags));
    VT_CALL_SAVING_ERRNO(rc, real(ptr, size, alignment, addr, flags));
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    VT_ENTER(cuMemAddressFree, CU_NOT_FOUND, (ptr, size));
    VT_CALL_SAVING_ERRNO(rc, real(ptr, size));
    VT_RETURN(rc);
}

/* ---- arrays: keyed by handle, sized from the descriptor ------------------------------------- */

VT_EXPORT CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray)
{
    VT_ENTER(cuArrayCreate_v2, CU_NOT_FOUND, (pHandle, pAllocateArray));
    const CUDA_ARRAY_DESCRIPTOR *d = pAllocateArray;
    uint64_t size_bytes = d ? array_bytes(d->Width, d->Height, 0, d->Format, d->NumChannels) : 0;
    vt_inflight_add(size_bytes);
    VT_CALL_SAVING_ERRNO(rc, real(pHandle, pAllocateArray));
    record_device_alloc(rc, OUT_ON_SUCCESS(rc, pHandle), size_bytes, api, size_bytes);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuArray3DCreate_v2(CUarray *pHandle,
                                      const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray)
{
    VT_ENTER(cuArray3DCreate_v2, CU_NOT_FOUND, (pHandle, pAllocateArray));
    const CUDA_ARRAY3D_DESCRIPTOR *d = pAllocateArray;
    uint64_t size_bytes =
        d ? array_bytes(d->Width, d->Height, d->Depth, d->Format, d->NumChannels) : 0;
    vt_inflight_add(size_bytes);
    VT_CALL_SAVING_ERRNO(rc, real(pHandle, pAllocateArray));
    record_device_alloc(rc, OUT_ON_SUCCESS(rc, pHandle), size_bytes, api, size_bytes);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMipmappedArrayCreate(CUmipmappedArray *pHandle,
                                          const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
                                          unsigned int numMipmapLevels)
{
    VT_ENTER(cuMipmappedArrayCreate, CU_NOT_FOUND, (pHandle, pMipmappedArrayDesc, numMipmapLevels));
    uint64_t total =
        pMipmappedArrayDesc ? mipmapped_array_bytes(pMipmappedArrayDesc, numMipmapLevels) : 0;
    vt_inflight_add(total);
    VT_CALL_SAVING_ERRNO(rc, real(pHandle, pMipmappedArrayDesc, numMipmapLevels));
    record_device_alloc(rc, OUT_ON_SUCCESS(rc, pHandle), total, api, total);
    VT_RETURN(rc);
}

/* Arrays are keyed by their handle. */
VT_EXPORT CUresult cuArrayDestroy(CUarray hArray)
{
    VT_ENTER(cuArrayDestroy, CU_NOT_FOUND, (hArray));
    vt_free_t f;
    free_begin(VT_MASK(VT_SERIES_DEVICE), (uint64_t)(uintptr_t)hArray, api, &f);
    VT_CALL_SAVING_ERRNO(rc, real(hArray));
    vt_track_free_end(&f, rc == CUDA_SUCCESS, api);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray)
{
    VT_ENTER(cuMipmappedArrayDestroy, CU_NOT_FOUND, (hMipmappedArray));
    vt_free_t f;
    free_begin(VT_MASK(VT_SERIES_DEVICE), (uint64_t)(uintptr_t)hMipmappedArray, api, &f);
    VT_CALL_SAVING_ERRNO(rc, real(hMipmappedArray));
    vt_track_free_end(&f, rc == CUDA_SUCCESS, api);
    VT_RETURN(rc);
}

/* ---- a peer's memory (IPC): its own series, sized by the driver ----------------------------- */

static void record_ipc_open(CUresult rc, CUdeviceptr dptr, vt_api_t api)
{
    size_t size_bytes = 0;
    vt_cancel_hold(); /* a driver query */
    __typeof__(&cuMemGetAddressRange_v2) range = VT_REAL(cuMemGetAddressRange_v2);
    if (rc == CUDA_SUCCESS && range && range(NULL, &size_bytes, dptr) != CUDA_SUCCESS)
        size_bytes = 0;
    record_alloc(rc, VT_SERIES_IMPORTED, DEVICE_CURRENT, dptr, size_bytes, api, 0);
}

VT_EXPORT CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    VT_ENTER(cuIpcOpenMemHandle, CU_NOT_FOUND, (pdptr, handle, Flags));
    VT_CALL_SAVING_ERRNO(rc, real(pdptr, handle, Flags));
    record_ipc_open(rc, OUT_ON_SUCCESS(rc, pdptr), api);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle,
                                         unsigned int Flags)
{
    VT_ENTER(cuIpcOpenMemHandle_v2, CU_NOT_FOUND, (pdptr, handle, Flags));
    VT_CALL_SAVING_ERRNO(rc, real(pdptr, handle, Flags));
    record_ipc_open(rc, OUT_ON_SUCCESS(rc, pdptr), api);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    VT_ENTER(cuIpcCloseMemHandle, CU_NOT_FOUND, (dptr));
    vt_free_t f;
    free_begin(VT_MASK(VT_SERIES_IMPORTED), dptr, api, &f);
    VT_CALL_SAVING_ERRNO(rc, real(dptr));
    vt_track_free_end(&f, rc == CUDA_SUCCESS, api);
    VT_RETURN(rc);
}

/* ---- graph memory: the driver's reserve, sampled where it can change ------------------------ */

static void sample_graph_memory(int device, vt_api_t api)
{
    vt_cancel_hold(); /* a driver query */
    __typeof__(&cuDeviceGetGraphMemAttribute) get = VT_REAL(cuDeviceGetGraphMemAttribute);
    cuuint64_t reserved_bytes = 0;
    if (get &&
        get(device, CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT, &reserved_bytes) == CUDA_SUCCESS) {
        vt_callsite_t cs;
        vt_callsite_take(&cs, api);
        vt_track_graph_reserved_at(device, reserved_bytes, api, &cs);
    }
}

VT_EXPORT CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
    VT_ENTER(cuGraphLaunch, CU_NOT_FOUND, (hGraphExec, hStream));
    VT_CALL_SAVING_ERRNO(rc, real(hGraphExec, hStream));
    sample_graph_memory(vt_current_device(), api);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
    VT_ENTER(cuGraphLaunch_ptsz, CU_NOT_FOUND, (hGraphExec, hStream));
    VT_CALL_SAVING_ERRNO(rc, real(hGraphExec, hStream));
    sample_graph_memory(vt_current_device(), api);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)
{
    VT_ENTER(cuGraphExecDestroy, CU_NOT_FOUND, (hGraphExec));
    VT_CALL_SAVING_ERRNO(rc, real(hGraphExec));
    sample_graph_memory(vt_current_device(), api);
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuDeviceGraphMemTrim(CUdevice device)
{
    VT_ENTER(cuDeviceGraphMemTrim, CU_NOT_FOUND, (device));
    VT_CALL_SAVING_ERRNO(rc, real(device));
    sample_graph_memory(device, api);
    VT_RETURN(rc);
}

/* ---- synchronizations and trims: where a pool's reservation can shrink ---------------------- */

#define SYNC_SHIM(name, params, args)                                                              \
    VT_EXPORT CUresult name params                                                                 \
    {                                                                                              \
        VT_ENTER(name, CU_NOT_FOUND, args);                                                        \
        VT_CALL_SAVING_ERRNO(rc, real args);                                                       \
        vt_pools_at_sync();                                                                        \
        VT_RETURN(rc);                                                                             \
    }
SYNC_SHIM(cuCtxSynchronize, (void), ())
SYNC_SHIM(cuStreamSynchronize, (CUstream hStream), (hStream))
SYNC_SHIM(cuStreamSynchronize_ptsz, (CUstream hStream), (hStream))
SYNC_SHIM(cuEventSynchronize, (CUevent hEvent), (hEvent))

VT_EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
    VT_ENTER(cuMemPoolTrimTo, CU_NOT_FOUND, (pool, minBytesToKeep));
    VT_CALL_SAVING_ERRNO(rc, real(pool, minBytesToKeep));
    if (rc == CUDA_SUCCESS)
        vt_pools_at_trim((uint64_t)(uintptr_t)pool);
    VT_RETURN(rc);
}

/* The device's current pool, where cuMemAllocAsync allocates from now on. */
VT_EXPORT CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
    VT_ENTER(cuDeviceSetMemPool, CU_NOT_FOUND, (dev, pool));
    VT_CALL_SAVING_ERRNO(rc, real(dev, pool));
    if (rc == CUDA_SUCCESS)
        vt_pools_current_changed((int)dev);
    VT_RETURN(rc);
}

/* ---- context teardown: a context's allocations vanish without a free call ------------------- */

/* Not a recording shim: the primary context's handle is noted even when the runtime retains it
 * inside one of its own calls (nested), so that its teardown drops only what it made. */
VT_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    VT_FIND_REAL(cuDevicePrimaryCtxRetain, CU_NOT_FOUND);
    CUresult rc = real(pctx, dev);
    if (rc == CUDA_SUCCESS && pctx)
        vt_note_primary_context(dev, (uint64_t)(uintptr_t)*pctx);
    return rc;
}

/* What dev's primary context held when the call began (serial_before) is gone with it, and so
 * are its pools' reservations. */
static void drop_primary_context(CUdevice dev, uint64_t serial_before, vt_api_t api)
{
    vt_track_drop_device(dev, vt_primary_context(dev), serial_before, api);
    vt_pools_at_teardown(dev);
}

VT_EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    VT_ENTER(cuCtxDestroy_v2, CU_NOT_FOUND, (ctx));
    uint64_t serial_before = vt_track_serial();
    VT_CALL_SAVING_ERRNO(rc, real(ctx));
    if (rc == CUDA_SUCCESS) {
        vt_context_destroyed();
        vt_track_drop_context((uint64_t)(uintptr_t)ctx, serial_before, api);
    }
    VT_RETURN(rc);
}

VT_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    VT_ENTER(cuDevicePrimaryCtxReset_v2, CU_NOT_FOUND, (dev));
    uint64_t serial_before = vt_track_serial();
    VT_CALL_SAVING_ERRNO(rc, real(dev));
    if (rc == CUDA_SUCCESS)
        drop_primary_context(dev, serial_before, api);
    VT_RETURN(rc);
}

/* Only the last release destroys the context; the driver says whether this was it. */
VT_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    VT_ENTER(cuDevicePrimaryCtxRelease_v2, CU_NOT_FOUND, (dev));
    uint64_t serial_before = vt_track_serial();
    VT_CALL_SAVING_ERRNO(rc, real(dev));
    vt_cancel_hold(); /* a driver query */
    __typeof__(&cuDevicePrimaryCtxGetState) state = VT_REAL(cuDevicePrimaryCtxGetState);
    unsigned int flags = 0;
    int active = 1;
    if (rc == CUDA_SUCCESS && state && state(dev, &flags, &active) == CUDA_SUCCESS && !active)
        drop_primary_context(dev, serial_before, api);
    VT_RETURN(rc);
}

/* ---- the runtime: one event per call, attributed to the runtime API ------------------------- */
/* The guard set here keeps the runtime's own driver calls (through our substituted pointers)
 * from being counted a second time; the runtime hook records. */

#define RT_OK(rc) ((rc) == cudaSuccess)

VT_EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    VT_ENTER(cudaMalloc, RT_NOT_FOUND, (devPtr, size));
    vt_inflight_add(size);
    VT_CALL_SAVING_ERRNO(rc, real(devPtr, size));
    record_device_alloc(rc, OUT_ON_SUCCESS(rc, devPtr), size, api, size);
    VT_RETURN(rc);
}

VT_EXPORT cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    VT_ENTER(cudaMallocPitch, RT_NOT_FOUND, (devPtr, pitch, width, height));
    uint64_t pending_bytes = (uint64_t)width * height;
    vt_inflight_add(pending_bytes);
    VT_CALL_SAVING_ERRNO(rc, real(devPtr, pitch, width, height));
    record_device_alloc(rc, OUT_ON_SUCCESS(rc, devPtr), rc ? 0 : (uint64_t)*pitch * height, api,
                        pending_bytes);
    VT_RETURN(rc);
}

VT_EXPORT cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
    VT_ENTER(cudaMalloc3D, RT_NOT_FOUND, (pitchedDevPtr, extent));
    uint64_t rows =
        (uint64_t)(extent.height ? extent.height : 1) * (extent.depth ? extent.depth : 1);
    uint64_t pending_bytes = extent.width * rows;
    vt_inflight_add(pending_bytes);
    VT_CALL_SAVING_ERRNO(rc, real(pitchedDevPtr, extent));
    record_device_alloc(rc, rc ? 0 : (uint64_t)pitchedDevPtr->ptr,
                        rc ? 0 : pitchedDevPtr->pitch * rows, api, pending_bytes);
    VT_RETURN(rc);
}

VT_EXPORT cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                      size_t width, size_t height, unsigned int flags)
{
    VT_ENTER(cudaMallocArray, RT_NOT_FOUND, (array, desc, width, height, flags));
    uint64_t elem_bits = desc ? (uint64_t)(desc->x + desc->y + desc->z + desc->w) : 0;
    uint64_t size_bytes = elem_bits / 8 * width * (height ? height : 1);
    vt_inflight_add(size_bytes);
    VT_CALL_SAVING_ERRNO(rc, real(array, desc, width, height, flags));
    record_device_alloc(rc, OUT_ON_SUCCESS(rc, array), size_bytes, api, size_bytes);
    VT_RETURN(rc);
}

VT_EXPORT cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    VT_ENTER(cudaMallocManaged, RT_NOT_FOUND, (devPtr, size, flags));
    VT_CALL_SAVING_ERRNO(rc, real(devPtr, size, flags));
    record_managed_alloc(rc, OUT_ON_SUCCESS(rc, devPtr), size, api);
    VT_RETURN(rc);
}

VT_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    VT_ENTER(cudaMallocHost, RT_NOT_FOUND, (ptr, size));
    VT_CALL_SAVING_ERRNO(rc, real(ptr, size));
    record_pinned_alloc(rc, OUT_ON_SUCCESS(rc, ptr), size, api);
    VT_RETURN(rc);
}

VT_EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    VT_ENTER(cudaHostAlloc, RT_NOT_FOUND, (pHost, size, flags));
    VT_CALL_SAVING_ERRNO(rc, real(pHost, size, flags));
    record_pinned_alloc(rc, OUT_ON_SUCCESS(rc, pHost), size, api);
    VT_RETURN(rc);
}

VT_EXPORT cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    VT_ENTER(cudaHostRegister, RT_NOT_FOUND, (ptr, size, flags));
    VT_CALL_SAVING_ERRNO(rc, real(ptr, size, flags));
    record_pinned_alloc(rc, (uint64_t)ptr, size, api);
    VT_RETURN(rc);
}

VT_EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    VT_ENTER(cudaMallocAsync, RT_NOT_FOUND, (devPtr, size, hStream));
    uint64_t pending_bytes = pool_alloc_begin(size);
    VT_CALL_SAVING_ERRNO(rc, real(devPtr, size, hStream));
    pool_alloc_end(rc, OUT_ON_SUCCESS(rc, devPtr), size, 0, vt_pools_stream(hStream, false), api,
                   pending_bytes);
    VT_RETURN(rc);
}

VT_EXPORT cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream)
{
    VT_ENTER(cudaMallocAsync_ptsz, RT_NOT_FOUND, (devPtr, size, hStream));
    uint64_t pending_bytes = pool_alloc_begin(size);
    VT_CALL_SAVING_ERRNO(rc, real(devPtr, size, hStream));
    pool_alloc_end(rc, OUT_ON_SUCCESS(rc, devPtr), size, 0, vt_pools_stream(hStream, true), api,
                   pending_bytes);
    VT_RETURN(rc);
}

VT_EXPORT cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                              cudaStream_t stream)
{
    VT_ENTER(cudaMallocFromPoolAsync, RT_NOT_FOUND, (ptr, size, memPool, stream));
    uint64_t pending_bytes = pool_alloc_begin(size);
    VT_CALL_SAVING_ERRNO(rc, real(ptr, size, memPool, stream));
    pool_alloc_end(rc, OUT_ON_SUCCESS(rc, ptr), size, (uint64_t)(uintptr_t)memPool,
                   vt_pools_stream(stream, false), api, pending_bytes);
    VT_RETURN(rc);
}

VT_EXPORT cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool,
                                                   cudaStream_t stream)
{
    VT_ENTER(cudaMallocFromPoolAsync_ptsz, RT_NOT_FOUND, (ptr, size, memPool, stream));
    uint64_t pending_bytes = pool_alloc_begin(size);
    VT_CALL_SAVING_ERRNO(rc, real(ptr, size, memPool, stream));
    pool_alloc_end(rc, OUT_ON_SUCCESS(rc, ptr), size, (uint64_t)(uintptr_t)memPool,
                   vt_pools_stream(stream, true), api, pending_bytes);
    VT_RETURN(rc);
}

VT_EXPORT cudaError_t cudaFree(void *devPtr)
{
    VT_ENTER(cudaFree, RT_NOT_FOUND, (devPtr));
    vt_free_t f;
    rt_free_begin(DEVICE_SERIES, devPtr, api, &f);
    VT_CALL_SAVING_ERRNO(rc, real(devPtr));
    rt_free_end(&f, devPtr, RT_OK(rc), api);
    VT_RETURN(rc);
}

VT_EXPORT cudaError_t cudaFreeArray(cudaArray_t array)
{
    VT_ENTER(cudaFreeArray, RT_NOT_FOUND, (array));
    vt_free_t f;
    rt_free_begin(VT_MASK(VT_SERIES_DEVICE), array, api, &f);
    VT_CALL_SAVING_ERRNO(rc, real(array));
    rt_free_end(&f, array, RT_OK(rc), api);
    VT_RETURN(rc);
}

VT_EXPORT cudaError_t cudaFreeHost(void *ptr)
{
    VT_ENTER(cudaFreeHost, RT_NOT_FOUND, (ptr));
    vt_free_t f;
    rt_free_begin(PINNED_SERIES, ptr, api, &f);
    VT_CALL_SAVING_ERRNO(rc, real(ptr));
    rt_free_end(&f, ptr, RT_OK(rc), api);
    VT_RETURN(rc);
}

VT_EXPORT cudaError_t cudaHostUnregister(void *ptr)
{
    VT_ENTER(cudaHostUnregister, RT_NOT_FOUND, (ptr));
    vt_free_t f;
    rt_free_begin(PINNED_SERIES, ptr, api, &f);
    VT_CALL_SAVING_ERRNO(rc, real(ptr));
    rt_free_end(&f, ptr, RT_OK(rc), api);
    VT_RETURN(rc);
}

VT_EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    VT_ENTER(cudaFreeAsync, RT_NOT_FOUND, (devPtr, hStream));
    vt_free_t f;
    rt_free_begin(DEVICE_SERIES, devPtr, api, &f);
    bool pooled = pool_free_begin(&f, vt_pools_stream(hStream, false));
    VT_CALL_SAVING_ERRNO(rc, real(devPtr, hStream));
    rt_free_end(&f, devPtr, RT_OK(rc), api);
    pool_free_end(&f, pooled, RT_OK(rc));
    VT_RETURN(rc);
}

VT_EXPORT cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream)
{
    VT_ENTER(cudaFreeAsync_ptsz, RT_NOT_FOUND, (devPtr, hStream));
    vt_free_t f;
    rt_free_begin(DEVICE_SERIES, devPtr, api, &f);
    bool pooled = pool_free_begin(&f, vt_pools_stream(hStream, true));
    VT_CALL_SAVING_ERRNO(rc, real(devPtr, hStream));
    rt_free_end(&f, devPtr, RT_OK(rc), api);
    pool_free_end(&f, pooled, RT_OK(rc));
    VT_RETURN(rc);
}

/* ---- cudaGetDriverEntryPoint: the runtime's door to driver pointers ------------------------- */
/* The runtime answers these through the cuGetProcAddress it fetched — already our wrapper when
 * cudart reached the driver through our doors, and then the pointer is ours and substitute()
 * leaves it. Otherwise substitute here: ByVersion knows the caller's version; the unversioned
 * call uses the runtime's own, taken as the newest we know. The _ptsz exports serve code built
 * for the per-thread default stream, where cudaEnableDefault means per-thread. */

static cudaError_t entry_point(cudaError_t rc, const char *symbol, void **funcPtr, int version,
                               unsigned long long flags, bool ptsz)
{
    if (RT_OK(rc))
        substitute_keeping_errno(symbol, funcPtr, version,
                                 ptsz && flags == cudaEnableDefault
                                     ? (unsigned long long)cudaEnablePerThreadDefaultStream
                                     : flags);
    return rc;
}

VT_EXPORT cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                              unsigned long long flags,
                                              enum cudaDriverEntryPointQueryResult *driverStatus)
{
    VT_FIND_REAL(cudaGetDriverEntryPoint, RT_NOT_FOUND);
    return entry_point(real(symbol, funcPtr, flags, driverStatus), symbol, funcPtr,
                       VT_CUDA_ABI_VERSION, flags, false);
}

VT_EXPORT cudaError_t
cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr, unsigned long long flags,
                             enum cudaDriverEntryPointQueryResult *driverStatus)
{
    VT_FIND_REAL(cudaGetDriverEntryPoint_ptsz, RT_NOT_FOUND);
    return entry_point(real(symbol, funcPtr, flags, driverStatus), symbol, funcPtr,
                       VT_CUDA_ABI_VERSION, flags, true);
}

VT_EXPORT cudaError_t cudaGetDriverEntryPointByVersion(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    VT_FIND_REAL(cudaGetDriverEntryPointByVersion, RT_NOT_FOUND);
    return entry_point(real(symbol, funcPtr, cudaVersion, flags, driverStatus), symbol, funcPtr,
                       (int)cudaVersion, flags, false);
}

VT_EXPORT cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    VT_FIND_REAL(cudaGetDriverEntryPointByVersion_ptsz, RT_NOT_FOUND);
    return entry_point(real(symbol, funcPtr, cudaVersion, flags, driverStatus), symbol, funcPtr,
                       (int)cudaVersion, flags, true);
}

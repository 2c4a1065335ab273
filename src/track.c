/* SPDX-License-Identifier: MIT */
/* The core the shims call and the tests link directly (heaptrack libheaptrack.cpp): it keeps
 * the live table, the live bytes and peaks per series and device, and the call totals. One
 * lock, vt_lock (lock.c, vt_lock.h), guards all of it and is never held across a CUDA call (hook
 * rule 8, docs/design.md). No malloc, no stdio: everything is AS-safe (vt_lock is an atomic word
 * and the futex system call). */
#include "vt_internal.h"
#include "vt_lock.h"

#include <stdatomic.h>

static vt_series_stats_t stats[VT_SERIES_COUNT][VT_MAX_DEVICES];
static vt_totals_t totals;
/* A device holds its allocations and what its stream-ordered pools reserve beyond their
 * allocations: that is the device figure a reader computes from the POOL records, and its peak
 * is the device peak the library reports (the exit summary, the PEAK record); the allocations'
 * own peak is the device series' peak_bytes. pool_reserved_of: each pool's last recorded
 * reservation, by its number in the trace. held_peak_*: the figure's peak, when, and the pools'
 * spare then (the categories then are peak_by_category). vt_lock held. */
#define MAX_POOL_NUMBER 64
static uint64_t pool_live_bytes[VT_MAX_DEVICES], pool_reserved_bytes[VT_MAX_DEVICES];
static uint64_t pool_reserved_peak_bytes[VT_MAX_DEVICES];
static uint64_t held_peak_bytes[VT_MAX_DEVICES], held_peak_t_ns[VT_MAX_DEVICES];
static uint64_t held_peak_spare_bytes[VT_MAX_DEVICES];
static uint64_t pool_reserved_of[MAX_POOL_NUMBER + 1];
static uint8_t pool_device_of[MAX_POOL_NUMBER + 1];

static uint64_t pool_spare_bytes(int device)
{
    uint64_t reserved = pool_reserved_bytes[device], used = pool_live_bytes[device];
    return reserved > used ? reserved - used : 0;
}

static uint64_t held_bytes(int device, uint64_t live_bytes)
{
    return live_bytes + pool_spare_bytes(device);
}

static vt_series_stats_t cat_stats[VT_MAX_DEVICES][VT_CAT_COUNT]; /* device series only */
static uint64_t peak_by_category[VT_MAX_DEVICES][VT_CAT_COUNT];   /* live at the device peak */

/* A new device peak of bytes at t_ns, inflight_bytes of it in allocation calls not yet
 * recorded (no call-site yet: unknown). vt_lock held. */
static void held_peak(int device, uint64_t bytes, uint64_t t_ns, uint64_t inflight_bytes)
{
    held_peak_bytes[device] = bytes;
    held_peak_t_ns[device] = t_ns;
    held_peak_spare_bytes[device] = pool_spare_bytes(device);
    for (int cat = 0; cat < VT_CAT_COUNT; cat++)
        peak_by_category[device][cat] = cat_stats[device][cat].live_bytes;
    peak_by_category[device][VT_CAT_UNKNOWN] += inflight_bytes;
}

/* Graph memory is one pseudo-entry per device in the device series, keyed where no address
 * can be (the top of the address space), resized to each sample of the driver's reserve. */
#define GRAPH_KEY(device) (~0ULL - (uint64_t)(device))

static int clamp_device(int device)
{
    return device >= 0 && device < VT_MAX_DEVICES ? device : 0;
}

/* Counts an entry's bytes into its series and device, and for device memory into its
 * category; moves the peaks. At a new device peak the live bytes per category are kept, so the
 * peak's composition is known in-process (the OOM and exit summaries). vt_lock held. */
static void count_in(const vt_alloc_t *a)
{
    if (a->series < 0)
        return;
    int device = clamp_device(a->device);
    vt_series_stats_t *s = &stats[a->series][device];
    s->live_bytes += a->size_bytes;
    s->n_allocs++;
    if (a->series != VT_SERIES_DEVICE) {
        if (s->live_bytes > s->peak_bytes) {
            s->peak_bytes = s->live_bytes;
            s->peak_t_ns = a->t_ns;
        }
        return;
    }
    vt_series_stats_t *c =
        &cat_stats[device][a->category < VT_CAT_COUNT ? a->category : VT_CAT_UNKNOWN];
    c->live_bytes += a->size_bytes;
    c->n_allocs++;
    if (c->live_bytes > c->peak_bytes) {
        c->peak_bytes = c->live_bytes;
        c->peak_t_ns = a->t_ns;
    }
    if (s->live_bytes > s->peak_bytes) {
        s->peak_bytes = s->live_bytes;
        s->peak_t_ns = a->t_ns;
    }
    if (VT_UNLIKELY(vt_api_stream_ordered(a->api)))
        pool_live_bytes[device] += a->size_bytes;
    /* Without a reservation the device's figure is live_bytes. */
    uint64_t held = VT_UNLIKELY(pool_reserved_bytes[device]) ? held_bytes(device, s->live_bytes)
                                                             : s->live_bytes;
    if (held > held_peak_bytes[device])
        held_peak(device, held, a->t_ns, 0);
}

uint64_t vt_inflight_bytes;
static uint64_t next_serial; /* vt_lock held */
/* Bumped when the table's memory is dropped with every entry (reset, fork child): a free's end
 * finds its entry again by the pointer its begin saw only within one generation. vt_lock held. */
static uint32_t table_generation;

/* Device d's live bytes are about to fall while inflight_bytes of allocation calls are in
 * flight: any of those may already hold its memory, so the device may have held live +
 * inflight_bytes just now. Raises the peak to that when it is higher, and writes the INFLIGHT
 * record that lets a reader do the same. Calls that do not overlap never get here (a thread's
 * own allocation is recorded before it can free), so the peak stays exact for them. vt_lock
 * held. */
__attribute__((noinline)) static void count_inflight(int device, uint64_t inflight_bytes)
{
    vt_series_stats_t *s = &stats[VT_SERIES_DEVICE][device];
    uint64_t held = held_bytes(device, s->live_bytes) + inflight_bytes;
    bool raises_live = s->live_bytes + inflight_bytes > s->peak_bytes;
    if (held <= held_peak_bytes[device] && !raises_live)
        return;
    uint64_t now_ns = vt_now_ns();
    if (raises_live) {
        s->peak_bytes = s->live_bytes + inflight_bytes;
        s->peak_t_ns = now_ns;
    }
    if (held > held_peak_bytes[device])
        held_peak(device, held, now_ns, inflight_bytes);
    vt_writer_inflight(device, inflight_bytes);
}

static inline __attribute__((always_inline)) void count_out(const vt_alloc_t *a)
{
    if (a->series < 0)
        return;
    int device = clamp_device(a->device);
    vt_series_stats_t *s = &stats[a->series][device];
    if (a->series == VT_SERIES_DEVICE) {
        uint64_t inflight_bytes = __atomic_load_n(&vt_inflight_bytes, __ATOMIC_SEQ_CST);
        if (VT_UNLIKELY(inflight_bytes))
            count_inflight(device, inflight_bytes);
    }
    s->live_bytes -= a->size_bytes;
    s->n_frees++;
    if (a->series == VT_SERIES_DEVICE && VT_UNLIKELY(vt_api_stream_ordered(a->api)))
        pool_live_bytes[device] -= a->size_bytes;
    if (a->series == VT_SERIES_DEVICE) {
        vt_series_stats_t *c =
            &cat_stats[device][a->category < VT_CAT_COUNT ? a->category : VT_CAT_UNKNOWN];
        c->live_bytes -= a->size_bytes;
        c->n_frees++;
    }
}

/* Inserts an entry and counts it. An address already live is replaced: either its free is in
 * flight on another thread (the real free has returned, since the driver handed the address
 * out again, but its end has not run yet), and its FREE is written now, for that call, before
 * this ALLOC; or we missed its free (e.g. a context teardown), an implicit FREE. vt_lock
 * held. */
static void insert_counted(vt_alloc_t *proto, bool implicit)
{
    vt_alloc_t *old = vt_table_find(proto->space, proto->key);
    if (old) {
        bool freeing = old->space < VT_SERIES_COUNT && old->n_freeing;
        count_out(old);
        vt_writer_free(old->series, old->key, old->space == VT_SPACE_VMM_HANDLE, false, !freeing,
                       freeing ? (vt_api_t)old->free_api : proto->api, old->trace_slot);
        vt_table_remove(old);
    }
    if (proto->space != VT_SPACE_VMM_MAP)
        proto->serial = ++next_serial;
    vt_alloc_t *a = vt_table_insert(proto);
    if (!a) {
        totals.n_dropped++;
        return;
    }
    count_in(a);
    vt_writer_alloc(a, implicit);
}

static void fill_proto(vt_alloc_t *a, uint32_t space, int series, int device, uint64_t key,
                       uint64_t size_bytes, vt_api_t api, const vt_callsite_t *cs)
{
    __builtin_memset(a, 0, VT_ALLOC_FIELD_BYTES);
    a->stack_id = cs ? cs->stack_id : 0;
    a->category = cs ? cs->category : VT_CAT_UNKNOWN;
    a->key = key;
    a->space = space;
    a->series = (int8_t)series;
    a->device = (uint8_t)clamp_device(device);
    a->size_bytes = size_bytes;
    a->api = (uint16_t)api;
    a->t_ns = vt_now_ns();
}

/* vt_track_alloc_at: a successful allocation of size_bytes at key in series, made at call-site
 * cs (NULL: none, category unknown); returns its timestamp. AS-safe. */
uint64_t vt_track_alloc_at(vt_series_t series, int device, uint64_t key, uint64_t size_bytes,
                           vt_api_t api, const vt_callsite_t *cs)
{
    return vt_track_alloc_pending_at(series, device, 0, key, size_bytes, api, cs, 0);
}

uint64_t vt_track_alloc_pending_at(vt_series_t series, int device, uint64_t ctx, uint64_t key,
                                   uint64_t size_bytes, vt_api_t api, const vt_callsite_t *cs,
                                   uint64_t pending_bytes)
{
    vt_alloc_t proto;
    fill_proto(&proto, series, series, device, key, size_bytes, api, cs);
    proto.ctx = ctx;
    vt_lock_take();
    /* Before the insert: a replaced entry's count_out sees the other calls in flight only. */
    if (pending_bytes)
        vt_inflight_sub(pending_bytes);
    insert_counted(&proto, false);
    totals.n_allocs++;
    vt_lock_give();
    return proto.t_ns;
}

/* vt_track_free_begin_at: finds key in the first series of series_mask (VT_MASK bits) that
 * holds it, before the real free runs, and marks it as being freed by api; it stays live and
 * counted until the real free has returned (vt_track_free_end): until then the device may
 * still hold it. An address not found is recorded by vt_track_free_end, once the outcome is
 * known. */
void vt_track_free_begin_at(unsigned series_mask, uint64_t key, vt_api_t api, vt_free_t *f)
{
    vt_lock_take();
    vt_alloc_t *a = NULL;
    f->key = key;
    f->series = -1;
    for (unsigned series = 0; series < VT_SERIES_COUNT && !a; series++) {
        if (!(series_mask & VT_MASK(series)))
            continue;
        if (f->series < 0)
            f->series = (int)series;
        a = vt_table_find(series, key);
    }
    f->found = a != NULL;
    f->entry = a;
    f->generation = table_generation;
    if (a) {
        a->n_freeing++;
        a->free_api = (uint16_t)api;
        /* End needs the series, space and serial. */
        __builtin_memcpy(&f->saved, a, VT_ALLOC_FIELD_BYTES);
    }
    vt_lock_give();
}

/* vt_track_free_end: after the real free; ok is its success. A successful free counts the entry
 * out and writes its FREE, unless another thread's allocation of the same address did it first
 * (insert_counted) or the entry went with its context; a failed one leaves it live. So of two
 * threads freeing one pointer, exactly one FREE is written, by the one whose real free worked,
 * and nothing is put back. A successful free of an address never seen counts as unmatched,
 * never as negative memory. */
void vt_track_free_end(vt_free_t *f, bool ok, vt_api_t api)
{
    uint64_t t_ns = ok ? vt_now_ns() : 0; /* outside vt_lock: the lock is held shorter */
    vt_lock_take();
    vt_alloc_t *a = NULL;
    if (f->found) {
        /* Its entry, unless that was removed since (marked free, or made another entry with
         * another serial: serials are never reused) or the table dropped: then not ours. No
         * lookup: the entry has not moved. */
        a = f->generation == table_generation ? f->entry : NULL;
        if (a &&
            (a->space != f->saved.space || a->key != f->saved.key || a->serial != f->saved.serial))
            a = NULL;
        if (a)
            a->n_freeing--;
    }
    if (!ok) {
        totals.n_failed++;
    } else if (f->found) {
        totals.n_frees++;
        if (a) {
            count_out(a);
            vt_writer_free_at(t_ns, a->series, a->key, false, false, false, api, a->trace_slot);
            vt_table_remove(a);
        }
    } else {
        totals.n_unmatched_frees++;
        vt_writer_free_at(t_ns, f->series < 0 ? 0 : f->series, f->key, false, true, false, api, 0);
    }
    vt_lock_give();
}

/* vt_track_failed_at: an allocation call that allocated nothing. error is the CUDA result (0
 * for a success that returned nothing, like cudaMalloc of 0 bytes); out of memory (2 in both
 * APIs) is recorded as an OOM with the device's live bytes per category. */
void vt_track_failed_at(vt_api_t api, uint64_t requested_bytes, int error, int device,
                        const vt_callsite_t *cs, uint64_t free_bytes, uint64_t total_bytes)
{
    vt_lock_take();
    totals.n_failed++;
    uint32_t stack_id = cs ? cs->stack_id : 0;
    if (error == CUDA_ERROR_OUT_OF_MEMORY) {
        int d = clamp_device(device);
        uint64_t live[VT_CAT_COUNT];
        for (int c = 0; c < VT_CAT_COUNT; c++)
            live[c] = cat_stats[d][c].live_bytes;
        vt_writer_oom(d, api, requested_bytes, stack_id, free_bytes, total_bytes, live);
    } else {
        vt_writer_failed(api, requested_bytes, error, stack_id);
    }
    vt_lock_give();
}

/* A sample of the driver's free and total memory of a device (vt_sample_meminfo). */
void vt_track_meminfo(int device, uint64_t free_bytes, uint64_t total_bytes)
{
    vt_lock_take();
    vt_writer_meminfo(clamp_device(device), free_bytes, total_bytes);
    vt_lock_give();
}

/* Marks and NVTX phases go on the timeline. */
void vt_track_label(int record_type, const char *label)
{
    vt_lock_take();
    vt_writer_labelled((vt_record_type_t)record_type, label);
    vt_lock_give();
}

void vt_track_phase_pop(void)
{
    vt_lock_take();
    vt_writer_phase_pop();
    vt_lock_give();
}

/* vt_mark: vramtrace_mark: counts the mark, records it in the trace (a MARK record) and, at
 * VRAMTRACE_VERBOSE >= 2, logs the label. AS-safe. */
static atomic_ulong vt_n_marks_;

void vt_mark(const char *label)
{
    atomic_fetch_add_explicit(&vt_n_marks_, 1, memory_order_relaxed);
    vt_track_label(VT_REC_MARK, label);
    vt_log(2, "mark '%.128s'", label);
}

unsigned long vt_n_marks(void)
{
    return atomic_load_explicit(&vt_n_marks_, memory_order_relaxed);
}

/* ---- VMM: physical handles count from cuMemCreate until the last release and unmap ------ */

void vt_track_vmm_create_at(uint64_t handle, uint64_t size_bytes, vt_series_t series, int device,
                            vt_api_t api, const vt_callsite_t *cs, uint64_t pending_bytes)
{
    vt_alloc_t proto;
    fill_proto(&proto, VT_SPACE_VMM_HANDLE, series, device, handle, size_bytes, api, cs);
    proto.refcount = 1;
    vt_lock_take();
    if (pending_bytes)
        vt_inflight_sub(pending_bytes);
    insert_counted(&proto, false);
    totals.n_allocs++;
    vt_lock_give();
}

/* cuMemImportFromShareableHandle: a handle to memory another process (or another handle of
 * this one) made and counts; it counts nowhere, and what is mapped of it counts in the imported
 * series (vt_track_vmm_map), attributed to the import's call-site cs. A handle already known is
 * one more reference to it. */
void vt_track_vmm_import(uint64_t handle, int device, vt_api_t api, const vt_callsite_t *cs)
{
    vt_alloc_t proto;
    fill_proto(&proto, VT_SPACE_VMM_HANDLE, VT_SERIES_IMPORTED, device, handle, 0, api, cs);
    proto.refcount = 1;
    vt_lock_take();
    vt_alloc_t *a = vt_table_find(VT_SPACE_VMM_HANDLE, handle);
    if (a)
        a->refcount++;
    else if (!vt_table_insert(&proto))
        totals.n_dropped++;
    vt_lock_give();
}

/* cuMemRetainAllocationHandle: one more reference to be released (cuda.h). */
void vt_track_vmm_retain(uint64_t handle)
{
    vt_lock_take();
    vt_alloc_t *a = vt_table_find(VT_SPACE_VMM_HANDLE, handle);
    if (a)
        a->refcount++;
    vt_lock_give();
}

/* A handle whose last reference and last mapping are gone leaves its series. vt_lock held. */
static void vmm_maybe_release(vt_alloc_t *a, vt_api_t api)
{
    if (a->refcount == 0 && a->n_mappings == 0 && a->series == VT_SERIES_IMPORTED) {
        vt_table_remove(a); /* counted nowhere: nothing to write */
    } else if (a->refcount == 0 && a->n_mappings == 0) {
        count_out(a);
        vt_writer_free(a->series, a->key, true, false, false, api, a->trace_slot);
        vt_table_remove(a);
        totals.n_frees++;
    }
}

/* A release takes its reference when the real release has returned (vt_track_vmm_release_end):
 * until then the handle's memory is still held. Begin only notes which handle it is. */
void vt_track_vmm_release_begin(uint64_t handle, vt_free_t *f)
{
    vt_lock_take();
    f->key = handle;
    f->series = VT_SERIES_DEVICE;
    vt_alloc_t *a = vt_table_find(VT_SPACE_VMM_HANDLE, handle);
    f->found = a != NULL && a->refcount > 0;
    if (f->found)
        __builtin_memcpy(&f->saved, a, VT_ALLOC_FIELD_BYTES);
    vt_lock_give();
}

void vt_track_vmm_release_end(vt_free_t *f, bool ok, vt_api_t api)
{
    vt_lock_take();
    if (!ok) {
        totals.n_failed++;
    } else if (f->found) {
        vt_alloc_t *a = vt_table_find(VT_SPACE_VMM_HANDLE, f->key);
        if (a && a->serial == f->saved.serial && a->refcount > 0) {
            a->refcount--;
            vmm_maybe_release(a, api);
        }
    } else {
        totals.n_unmatched_frees++;
        vt_writer_free(VT_SERIES_DEVICE, f->key, true, true, false, api, 0);
    }
    vt_lock_give();
}

/* A mapping of a handle made here counts nothing (its handle does); a mapping of an imported
 * handle is what this process sees of the peer's memory, so it counts in the imported series,
 * as an allocation at its address, until it is unmapped. */
void vt_track_vmm_map(uint64_t va, uint64_t size_bytes, uint64_t handle)
{
    vt_alloc_t proto;
    vt_lock_take();
    vt_alloc_t *h = vt_table_find(VT_SPACE_VMM_HANDLE, handle);
    if (h && !vt_table_find(VT_SPACE_VMM_MAP, va)) {
        bool imported = h->series == VT_SERIES_IMPORTED;
        fill_proto(&proto, VT_SPACE_VMM_MAP, imported ? VT_SERIES_IMPORTED : -1, h->device, va,
                   size_bytes, VT_API_cuMemMap, NULL);
        proto.vmm_handle = handle;
        proto.stack_id = h->stack_id;
        proto.category = h->category;
        vt_alloc_t *m = vt_table_insert(&proto);
        if (m) {
            h->n_mappings++;
            if (imported) {
                count_in(m);
                vt_writer_alloc(m, false);
            }
        } else {
            totals.n_dropped++; /* a lost mapping, like a lost allocation, is counted */
        }
    }
    vt_lock_give();
}

/* One mapping is gone: its handle loses a mapping (and its bytes when nothing else holds it).
 * vt_lock held. */
static void vmm_unmap_one(vt_alloc_t *m, vt_api_t api)
{
    if (m->series >= 0) { /* a mapping of an imported handle */
        count_out(m);
        vt_writer_free(m->series, m->key, false, false, false, api, m->trace_slot);
    }
    vt_alloc_t *h = vt_table_find(VT_SPACE_VMM_HANDLE, m->vmm_handle);
    if (h && h->n_mappings > 0) {
        h->n_mappings--;
        vmm_maybe_release(h, api);
    }
    vt_table_remove(m);
}

/* After a successful cuMemUnmap: every mapping inside [va, va+size) is gone. cuda.h requires
 * the range to be the whole address range that was mapped, so it is made of mappings that
 * follow one another: each is found by its address, one lookup per mapping, without walking
 * the live table (PyTorch's expandable segments unmap chunk by chunk, others a segment of many
 * chunks at once). Mappings never overlap. Only a range with a hole, which the driver does not
 * document, falls back to a walk of the whole table. */
void vt_track_vmm_unmap(uint64_t va, uint64_t size_bytes, vt_api_t api)
{
    vt_lock_take();
    uint64_t done_bytes = 0;
    while (done_bytes < size_bytes) {
        vt_alloc_t *m = vt_table_find(VT_SPACE_VMM_MAP, va + done_bytes);
        if (!m || m->size_bytes == 0 || m->size_bytes > size_bytes - done_bytes)
            break;
        done_bytes += m->size_bytes;
        vmm_unmap_one(m, api);
    }
    if (done_bytes < size_bytes) {
        vt_alloc_t *a;
        for (size_t pos = 0; (a = vt_table_iter(&pos));)
            if (a->space == VT_SPACE_VMM_MAP && a->key >= va && a->key - va < size_bytes)
                vmm_unmap_one(a, api);
    }
    vt_lock_give();
}

/* ---- graph memory and context teardown -------------------------------------------------- */

/* vt_track_graph_reserved_at: the driver now reserves reserved_bytes of graph memory on device,
 * as seen after a call made at call-site cs. */
void vt_track_graph_reserved_at(int device, uint64_t reserved_bytes, vt_api_t api,
                                const vt_callsite_t *cs)
{
    uint64_t key = GRAPH_KEY(clamp_device(device));
    vt_lock_take();
    vt_alloc_t *a = vt_table_find(VT_SERIES_DEVICE, key);
    if (!a || a->size_bytes != reserved_bytes) {
        if (a) {
            count_out(a);
            vt_writer_free(a->series, a->key, false, false, true, api, a->trace_slot);
            vt_table_remove(a);
        }
        if (reserved_bytes) {
            vt_alloc_t proto;
            fill_proto(&proto, VT_SERIES_DEVICE, VT_SERIES_DEVICE, device, key, reserved_bytes, api,
                       cs);
            insert_counted(&proto, true);
        }
    }
    vt_lock_give();
}

/* The serial the next allocation will be above: taken before a teardown's real call. */
uint64_t vt_track_serial(void)
{
    vt_lock_take();
    uint64_t serial = next_serial;
    vt_lock_give();
    return serial;
}

/* Drops every entry a context teardown freed, as implicit FREEs: the device, managed and
 * imported allocations and arrays matched by `owned` made before serial_before; VMM handles
 * outlive contexts. The series lose the bytes; the totals, which count calls, do not count
 * these as frees. vt_lock not held. */
static void drop_owned(bool (*owned)(const vt_alloc_t *a, int device, uint64_t ctx), int device,
                       uint64_t ctx, uint64_t serial_before, vt_api_t api)
{
    vt_lock_take();
    vt_alloc_t *a;
    for (size_t pos = 0; (a = vt_table_iter(&pos));) {
        if ((a->space == VT_SERIES_DEVICE || a->space == VT_SERIES_MANAGED ||
             a->space == VT_SERIES_IMPORTED) &&
            a->serial <= serial_before && owned(a, device, ctx)) {
            count_out(a);
            vt_writer_free(a->series, a->key, false, false, true, api, a->trace_slot);
            vt_table_remove(a);
        }
    }
    vt_lock_give();
}

static bool made_in(const vt_alloc_t *a, int device, uint64_t ctx)
{
    (void)device;
    return a->ctx == ctx;
}

/* On the device, and not made in another context than its primary one (when that is known;
 * memory of no known context, such as graph memory, goes with the device). */
static bool made_in_primary(const vt_alloc_t *a, int device, uint64_t primary_ctx)
{
    return a->device == device && (!primary_ctx || !a->ctx || a->ctx == primary_ctx);
}

/* vt_track_drop_context: a created context was destroyed (cuCtxDestroy), and with it what was
 * made in it. */
void vt_track_drop_context(uint64_t ctx, uint64_t serial_before, vt_api_t api)
{
    if (ctx)
        drop_owned(made_in, 0, ctx, serial_before, api);
}

/* vt_track_drop_device: the device's primary context (primary_ctx, 0 when not known) was torn
 * down, and with it what was made in it and the device's graph memory. */
void vt_track_drop_device(int device, uint64_t primary_ctx, uint64_t serial_before, vt_api_t api)
{
    drop_owned(made_in_primary, clamp_device(device), primary_ctx, serial_before, api);
}

/* Writes a pool sample (pools.c asked the driver, outside vt_lock). */
void vt_track_pool(int device, uint32_t pool, const uint64_t figures[4], uint64_t gen,
                   uint64_t *written_gen)
{
    uint64_t t_ns = vt_now_ns();
    vt_lock_take();
    if (gen > *written_gen) {
        *written_gen = gen;
        device = clamp_device(device);
        vt_writer_pool(device, pool, t_ns, figures);
        if (pool <= MAX_POOL_NUMBER) {
            int was = pool_device_of[pool];
            pool_reserved_bytes[was] -= pool_reserved_of[pool];
            pool_reserved_of[pool] = figures[0];
            pool_device_of[pool] = (uint8_t)device;
            pool_reserved_bytes[device] += figures[0];
            if (pool_reserved_bytes[device] > pool_reserved_peak_bytes[device])
                pool_reserved_peak_bytes[device] = pool_reserved_bytes[device];
            uint64_t held = held_bytes(device, stats[VT_SERIES_DEVICE][device].live_bytes);
            if (held > held_peak_bytes[device])
                held_peak(device, held, t_ns, 0);
        }
    }
    vt_lock_give();
}

/* ---- the devices used ------------------------------------------------------------------ */

static uint8_t device_described[VT_MAX_DEVICES]; /* set under vt_lock, read without it */

bool vt_track_device_described(int device)
{
    return device < 0 || device >= VT_MAX_DEVICES ||
           __atomic_load_n(&device_described[device], __ATOMIC_RELAXED);
}

/* Writes the DEVICE record of device once per trace; info was asked of the driver outside
 * vt_lock, so two threads may bring it: the first one writes. */
void vt_track_device(int device, const vt_device_info_t *info)
{
    if (device < 0 || device >= VT_MAX_DEVICES)
        return;
    vt_lock_take();
    if (!device_described[device]) {
        __atomic_store_n(&device_described[device], 1, __ATOMIC_RELAXED);
        vt_writer_device(device, info);
    }
    vt_lock_give();
}

/* ---- queries, reset, fork ------------------------------------------------------------------ */

bool vt_track_stats(vt_series_t series, int device, vt_series_stats_t *out)
{
    if (series >= VT_SERIES_COUNT || device < 0 || device >= VT_MAX_DEVICES)
        return false;
    vt_lock_take();
    *out = stats[series][device];
    vt_lock_give();
    return true;
}

bool vt_track_category_stats(int device, int category, vt_series_stats_t *out)
{
    if (device < 0 || device >= VT_MAX_DEVICES || category < 0 || category >= VT_CAT_COUNT)
        return false;
    vt_lock_take();
    *out = cat_stats[device][category];
    vt_lock_give();
    return true;
}

/* The device's figure (allocations and its pools' spare reservation) at its peak and now, and
 * its pools' reservations: what a reader computes from the trace's records. */
bool vt_track_device_peak(int device, vt_device_peak_t *out)
{
    if (device < 0 || device >= VT_MAX_DEVICES)
        return false;
    vt_lock_take();
    out->peak_bytes = held_peak_bytes[device];
    out->peak_t_ns = held_peak_t_ns[device];
    out->peak_pool_spare_bytes = held_peak_spare_bytes[device];
    out->pool_reserved_bytes = pool_reserved_bytes[device];
    out->pool_reserved_peak_bytes = pool_reserved_peak_bytes[device];
    out->pool_spare_bytes = pool_spare_bytes(device);
    vt_lock_give();
    return true;
}

/* The live bytes of each category when the device's peak was reached. */
bool vt_track_peak_by_category(int device, uint64_t out[VT_CAT_COUNT])
{
    if (device < 0 || device >= VT_MAX_DEVICES)
        return false;
    vt_lock_take();
    __builtin_memcpy(out, peak_by_category[device], sizeof peak_by_category[device]);
    vt_lock_give();
    return true;
}

void vt_track_totals(vt_totals_t *out)
{
    vt_lock_take();
    *out = totals;
    vt_lock_give();
}

static void forget_all(void)
{
    table_generation++;
    vt_table_forget();
    vt_stacks_forget();
    vt_strings_forget();
    vt_python_forget(); /* its name cache holds string ids */
    __builtin_memset(stats, 0, sizeof stats);
    __builtin_memset(cat_stats, 0, sizeof cat_stats);
    __builtin_memset(peak_by_category, 0, sizeof peak_by_category);
    __builtin_memset(pool_live_bytes, 0, sizeof pool_live_bytes);
    __builtin_memset(pool_reserved_bytes, 0, sizeof pool_reserved_bytes);
    __builtin_memset(pool_reserved_peak_bytes, 0, sizeof pool_reserved_peak_bytes);
    __builtin_memset(held_peak_bytes, 0, sizeof held_peak_bytes);
    __builtin_memset(held_peak_t_ns, 0, sizeof held_peak_t_ns);
    __builtin_memset(held_peak_spare_bytes, 0, sizeof held_peak_spare_bytes);
    __builtin_memset(pool_reserved_of, 0, sizeof pool_reserved_of);
    __builtin_memset(pool_device_of, 0, sizeof pool_device_of);
    __builtin_memset(&totals, 0, sizeof totals);
    for (int d = 0; d < VT_MAX_DEVICES; d++)
        __atomic_store_n(&device_described[d], 0, __ATOMIC_RELAXED);
}

/* vt_track_reset: back to an empty table and zero counts (tests). */
void vt_track_reset(void)
{
    vt_lock_take();
    vt_alloc_t *a;
    for (size_t pos = 0; (a = vt_table_iter(&pos));)
        vt_table_remove(a);
    vt_table_release();
    forget_all();
    vt_lock_give();
}

/* Set by vt_track_fork_prepare when this thread held vt_lock as it forked: a signal handler
 * interrupted vramtrace's own work inside the lock and called fork. */
static __thread bool tls_forked_inside __attribute__((tls_model("initial-exec")));

/* The fork handlers (init.c): the lock is taken across fork, so the child never inherits it
 * mid-update, except when this very thread holds it already. Waiting then would never end;
 * the child of such a fork goes on inside the interrupted work when the handler returns, so
 * it keeps every structure as it is (vt_track_after_fork_child). */
void vt_track_fork_prepare(void)
{
    if (vt_lock_held_here()) {
        tls_forked_inside = true;
        return;
    }
    vt_lock_take();
}

void vt_track_fork_parent(void)
{
    if (tls_forked_inside)
        tls_forked_inside = false;
    else
        vt_lock_give();
}

/* The fork child (single-threaded): the lock is held by our prepare handler, in this very
 * thread, and the inherited live set is the parent's memory, not the child's (hook rule 11).
 * The lock word is simply set free (with a release store, so ThreadSanitizer sees an unlock):
 * the parent's threads that waited on it do not exist here. Returns false for the child of a
 * fork made inside the lock (vt_track_fork_prepare): the interrupted work goes on and gives the
 * lock back, nothing is forgotten, the writer's chunk is made the child's own copy, and the
 * child records nothing (the caller turns it OFF). */
bool vt_track_after_fork_child(void)
{
    vt_lock_forget_tid();
    if (tls_forked_inside) {
        tls_forked_inside = false;
        vt_writer_after_fork_inside();
        return false;
    }
    vt_lock_reset();
    forget_all();
    vt_writer_after_fork_child();
    return true;
}

/* ---- the end of the trace -------------------------------------------------------------------- */

/* vt_track_close: the END record and the trace closed (with each series' peak first when the
 * trace was capped), in one hold of vt_lock with the snapshot of the figures the exit summary
 * prints (summary.c): the stats per series and device, the totals with the dropped calls, and
 * the trace's name as shown. */
void vt_track_close(vt_series_stats_t snap[VT_SERIES_COUNT][VT_MAX_DEVICES], vt_totals_t *t,
                    const char **trace_path, bool *partial)
{
    vt_lock_take();
    __builtin_memcpy(snap, stats, sizeof stats);
    *t = totals;
    t->n_dropped += vt_n_dropped_nested(); /* calls a signal handler made inside vramtrace */
    if (vt_writer_capped()) {
        /* Devices: the device peak with what made it, and the allocations' own peak. */
        for (int d = 0; d < VT_MAX_DEVICES; d++)
            if (held_peak_bytes[d])
                vt_writer_peak(VT_SERIES_DEVICE, d, held_peak_bytes[d], held_peak_t_ns[d],
                               peak_by_category[d], held_peak_spare_bytes[d],
                               stats[VT_SERIES_DEVICE][d].peak_bytes, pool_reserved_peak_bytes[d]);
        for (int series = 0; series < VT_SERIES_COUNT; series++)
            for (int d = 0; d < VT_MAX_DEVICES && series != VT_SERIES_DEVICE; d++)
                if (stats[series][d].peak_bytes)
                    vt_writer_peak(series, d, stats[series][d].peak_bytes,
                                   stats[series][d].peak_t_ns, NULL, 0, 0, 0);
    }
    vt_writer_close(t);
    *partial = false;
    *trace_path = vt_writer_path_shown(partial);
    vt_lock_give();
}

/* The stats of each category of a device and their live bytes at its peak, in one hold. */
void vt_track_category_snapshot(int device, vt_series_stats_t cats[VT_CAT_COUNT],
                                uint64_t at_peak[VT_CAT_COUNT])
{
    vt_lock_take();
    __builtin_memcpy(cats, cat_stats[device], sizeof cat_stats[device]);
    __builtin_memcpy(at_peak, peak_by_category[device], sizeof peak_by_category[device]);
    vt_lock_give();
}

/* SPDX-License-Identifier: MIT */
/* The analysis every report starts from (analysis.h): the records of a trace applied one by one
 * to the live set, the peaks per series, device and category, the totals and the OOMs, and the
 * live set grouped by call-site. Memory is bounded by the live set. */
#include "analysis.h"
#include "sat.h"
#include "trace_decode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the live set -------------------------------------------------------------------------- */

static size_t live_hash(uint8_t series, uint8_t handle, uint64_t address, size_t mask)
{
    uint64_t x = address ^ ((uint64_t)series << 62) ^ ((uint64_t)handle << 61);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x & mask;
}

/* The slot of (series, handle, address) in a table with room: the entry, or the empty slot
 * where the probe for it ended (where live_insert would put it). */
static inline vt_live_t *live_probe(const vt_analysis_t *a, uint8_t series, uint8_t handle,
                                    uint64_t address)
{
    size_t mask = a->cap_live - 1;
    for (size_t i = live_hash(series, handle, address, mask);; i = (i + 1) & mask) {
        vt_live_t *e = &a->live[i];
        if (!e->used || (e->address == address && e->series == series && e->handle == handle))
            return e;
    }
}

static vt_live_t *live_find(const vt_analysis_t *a, uint8_t series, uint8_t handle,
                            uint64_t address)
{
    if (!a->cap_live)
        return NULL;
    size_t mask = a->cap_live - 1;
    for (size_t i = live_hash(series, handle, address, mask);; i = (i + 1) & mask) {
        vt_live_t *e = &a->live[i];
        if (!e->used)
            return NULL;
        if (e->address == address && e->series == series && e->handle == handle)
            return e;
    }
}

static int live_insert(vt_analysis_t *a, const vt_live_t *in)
{
    if ((a->n_live + 1) * 2 > a->cap_live) {
        size_t cap = a->cap_live ? a->cap_live * 2 : 1024;
        vt_live_t *old = a->live, *live = calloc(cap, sizeof(*live));
        if (!live)
            return -1;
        size_t old_cap = a->cap_live;
        a->live = live;
        a->cap_live = cap;
        for (size_t i = 0; i < old_cap; i++) {
            if (!old[i].used)
                continue;
            size_t j = live_hash(old[i].series, old[i].handle, old[i].address, cap - 1);
            while (live[j].used)
                j = (j + 1) & (cap - 1);
            live[j] = old[i];
        }
        free(old);
    }
    size_t mask = a->cap_live - 1, i = live_hash(in->series, in->handle, in->address, mask);
    while (a->live[i].used)
        i = (i + 1) & mask;
    a->live[i] = *in;
    a->live[i].used = 1;
    a->n_live++;
    return 0;
}

/* Linear probing deletes by shifting the following entries back (no tombstones). */
static void live_remove(vt_analysis_t *a, vt_live_t *e)
{
    size_t mask = a->cap_live - 1, i = (size_t)(e - a->live), j = i;
    a->live[i].used = 0;
    for (;;) {
        j = (j + 1) & mask;
        if (!a->live[j].used)
            break;
        size_t home = live_hash(a->live[j].series, a->live[j].handle, a->live[j].address, mask);
        /* Move j into the hole at i unless its home lies cyclically in (i, j]. */
        if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
            continue;
        a->live[i] = a->live[j];
        a->live[j].used = 0;
        i = j;
    }
    a->n_live--;
}

/* ---- analysis ------------------------------------------------------------------------------ */

static vt_device_stats_t *device_stats_add(vt_analysis_t *a, uint32_t device);

/* The stats of device, created when first seen (NULL: out of memory). */
static inline vt_device_stats_t *device_stats(vt_analysis_t *a, uint32_t device)
{
    /* Most traces have one device, or a few with the busiest first. */
    if (a->n_devices && a->devices[0].device == device)
        return &a->devices[0];
    return device_stats_add(a, device);
}

static vt_device_stats_t *device_stats_add(vt_analysis_t *a, uint32_t device)
{
    uint32_t i = 0;
    while (i < a->n_devices && a->devices[i].device < device)
        i++;
    if (i < a->n_devices && a->devices[i].device == device)
        return &a->devices[i];
    if (grow((void **)&a->devices, &a->cap_devices, a->n_devices + 1, sizeof(*a->devices)))
        return NULL;
    memmove(&a->devices[i + 1], &a->devices[i], (a->n_devices - i) * sizeof(*a->devices));
    a->n_devices++;
    memset(&a->devices[i], 0, sizeof(a->devices[i]));
    a->devices[i].device = device;
    return &a->devices[i];
}

_Static_assert(sizeof(vt_live_t) == 32, "vt_live_t: the hot path's entry, 32 bytes");

/* A new peak of d from events: its live set is now the peak's, nothing freed since. */
static void new_peak_set(vt_device_stats_t *d)
{
    d->n_peak_freed = 0;
    if (d->peak_epoch == UINT32_MAX)
        d->peak_lost = true; /* entries could not tell this peak from an older one */
    else
        d->peak_epoch++;
}

/* Live entry e of d (live at d's peak) leaves the live set: kept in d->peak_freed. */
static void peak_freed_add(vt_device_stats_t *d, const vt_live_t *e)
{
    if (d->peak_lost)
        return;
    if (d->n_peak_freed == d->cap_peak_freed) {
        size_t cap = d->cap_peak_freed ? d->cap_peak_freed * 2 : 256;
        vt_live_t *p = realloc(d->peak_freed, cap * sizeof(*p));
        if (!p) {
            d->peak_lost = true; /* the caller replays */
            return;
        }
        d->peak_freed = p;
        d->cap_peak_freed = cap;
    }
    d->peak_freed[d->n_peak_freed++] = *e;
}

/* A new peak of d's figure (vt_device_held_bytes), held_bytes, at t_ns: made by record number
 * record with the live set as it is now. */
static void device_peak(vt_device_stats_t *d, uint64_t held_bytes, uint64_t t_ns, uint64_t record)
{
    d->peak_bytes = held_bytes;
    d->peak_t_ns = t_ns;
    d->peak_record = record;
    d->peak_pool_spare_bytes = vt_device_pool_spare_bytes(d);
    memcpy(d->peak_by_category, d->live_by_category, sizeof(d->peak_by_category));
    new_peak_set(d);
}

/* size_bytes of a new entry (series, device d, category; pooled: from a stream-ordered pool)
 * into the totals and the peaks, at t_ns. Scalars, not a vt_live_t: the fast path keeps them in
 * registers. */
static inline void account_add(vt_analysis_t *a, const vt_reader_t *r, vt_device_stats_t *d,
                               uint8_t series, uint8_t category, bool pooled, uint64_t size_bytes,
                               uint64_t t_ns)
{
    if (series == VT_TRACE_SERIES_DEVICE) {
        if (!d)
            return;
        /* Exact, then saturated: a hostile trace's sizes may pass 2^64 together. */
        d->live_exact += size_bytes;
        d->live_bytes = vt_sat_u128(d->live_exact);
        if (pooled)
            d->pool_live_exact += size_bytes;
        d->live_by_category_exact[category] += size_bytes;
        d->live_by_category[category] = vt_sat_u128(d->live_by_category_exact[category]);
        if (d->live_by_category[category] > d->cat_peak_bytes[category]) {
            d->cat_peak_bytes[category] = d->live_by_category[category];
            d->cat_peak_t_ns[category] = t_ns;
        }
        if (d->live_bytes > d->tensors_peak_bytes)
            d->tensors_peak_bytes = d->live_bytes;
        uint64_t held_bytes = vt_device_held_bytes(d);
        if (held_bytes > d->peak_bytes)
            device_peak(d, held_bytes, t_ns, r->n_records);
    }
    a->live_exact[series] += size_bytes;
    uint64_t *live = &a->live_bytes[series];
    *live = vt_sat_u128(a->live_exact[series]);
    if (*live > a->peak_bytes[series]) {
        a->peak_bytes[series] = *live;
        a->peak_t_ns[series] = t_ns;
    }
}

/* Live entry e out of the totals (it is being freed or replaced). */
static inline void account_remove(vt_analysis_t *a, const vt_live_t *e)
{
    if (e->series == VT_TRACE_SERIES_DEVICE) {
        vt_device_stats_t *d = device_stats(a, e->device);
        if (!d)
            return;
        d->live_exact -= e->size_bytes;
        d->live_bytes = vt_sat_u128(d->live_exact);
        if (e->pooled)
            d->pool_live_exact -= e->size_bytes;
        d->live_by_category_exact[e->category] -= e->size_bytes;
        d->live_by_category[e->category] = vt_sat_u128(d->live_by_category_exact[e->category]);
        /* Allocated before the device's last peak from events: it was live then. */
        if (a->keep_peaks && e->peak_epoch != d->peak_epoch && d->peak_record != UINT64_MAX)
            peak_freed_add(d, e);
    }
    a->live_exact[e->series] -= e->size_bytes;
    a->live_bytes[e->series] = vt_sat_u128(a->live_exact[e->series]);
}

/* The ALLOC f (its series, VT_FLAG_HANDLE and VT_FLAG_IMPLICIT in f->flags; its category already
 * decided) into the live set and the totals; old (NULL: not wanted) gets a copy of the entry it
 * replaces, if any. Returns 0, or -1 when out of memory (the reader is failed, naming the record
 * at offset). The record by pointer: the fast path's call passes 6 arguments, not 14. */
static int apply_alloc(vt_analysis_t *a, vt_reader_t *r, const fast_rec_t *f, uint8_t category,
                       uint64_t offset, vt_live_t *old)
{
    uint8_t series = f->flags & VT_FLAG_SERIES_MASK;
    uint8_t handle = (f->flags & VT_FLAG_HANDLE) != 0;
    bool implicit = (f->flags & VT_FLAG_IMPLICIT) != 0;
    uint32_t device = f->device, api = f->api;
    uint64_t address = f->address, size_bytes = f->size_bytes;
    /* Totals count the program's calls; implicit entries only move memory. */
    if (!implicit)
        a->n_allocs++;
    if (api < 256 && (a->array_apis[api >> 6] >> (api & 63) & 1))
        a->n_array_allocs++;
    bool pooled =
        series == VT_TRACE_SERIES_DEVICE && api < 256 && (a->pool_apis[api >> 6] >> (api & 63) & 1);
    /* One probe: the entry at the same address, or the empty slot live_insert would fill. */
    vt_live_t *slot = a->cap_live ? live_probe(a, series, handle, address) : NULL;
    if (slot && slot->used) {
        /* The same address again without a free in between: the free was not seen. */
        if (old)
            *old = *slot;
        account_remove(a, slot);
        live_remove(a, slot);
        slot = NULL;
    }
    /* After the removal: it may have added a device, moving the array. */
    vt_device_stats_t *d = series == VT_TRACE_SERIES_DEVICE ? device_stats(a, device) : NULL;
    uint32_t peak_epoch = d ? d->peak_epoch : 0;
    if (slot && (a->n_live + 1) * 2 <= a->cap_live) {
        slot->address = address;
        slot->size_bytes = size_bytes;
        slot->device = device;
        slot->stack_id = f->stack_id;
        slot->series = series;
        slot->handle = handle;
        slot->category = category;
        slot->used = 1;
        slot->pooled = pooled;
        slot->peak_epoch = peak_epoch;
        a->n_live++;
    } else {
        vt_live_t e = {.address = address,
                       .size_bytes = size_bytes,
                       .device = device,
                       .stack_id = f->stack_id,
                       .series = series,
                       .handle = handle,
                       .category = category,
                       .pooled = pooled,
                       .peak_epoch = peak_epoch};
        if (live_insert(a, &e) != 0)
            return vt_reader_fail(r, "'%s': out of memory at byte %" PRIu64, r->path, offset);
    }
    account_add(a, r, d, series, category, pooled, size_bytes, f->t_ns);
    return 0;
}

/* A FREE: the live entry at (series, handle, address), if any, leaves the live set; old (NULL:
 * not wanted) gets a copy of it. */
static inline void apply_free(vt_analysis_t *a, uint8_t series, uint8_t handle, bool implicit,
                              bool unmatched, uint64_t address, vt_live_t *old)
{
    if (!implicit)
        a->n_frees++;
    if (unmatched)
        a->n_unmatched_frees++;
    vt_live_t *e = live_find(a, series, handle, address);
    if (e) {
        if (old)
            *old = *e;
        account_remove(a, e);
        live_remove(a, e);
    }
}

/* A PEAK record (written when the trace was capped): the library saw the whole run, so a peak
 * above what the events show replaces it; the categories at that peak come with it (and from
 * format 1.5 the pools' spare reservation then, and the allocations' own peak beside it), the
 * live set does not (peak_record UINT64_MAX). */
static void apply_peak(vt_analysis_t *a, const vt_event_t *ev)
{
    const uint32_t series = ev->u.peak.series;
    if (series != VT_TRACE_SERIES_DEVICE) {
        if (ev->u.peak.peak_bytes > a->peak_bytes[series]) {
            a->peak_bytes[series] = ev->u.peak.peak_bytes;
            a->peak_t_ns[series] = ev->u.peak.peak_t_ns;
        }
        return;
    }
    vt_device_stats_t *d = device_stats(a, ev->u.peak.device);
    if (d && ev->u.peak.tensors_peak_bytes > d->tensors_peak_bytes)
        d->tensors_peak_bytes = ev->u.peak.tensors_peak_bytes;
    if (d && ev->u.peak.pool_reserved_peak_bytes > d->pool_reserved_peak_bytes)
        d->pool_reserved_peak_bytes = ev->u.peak.pool_reserved_peak_bytes;
    if (!d || ev->u.peak.peak_bytes <= d->peak_bytes)
        return;
    d->peak_bytes = ev->u.peak.peak_bytes;
    d->peak_t_ns = ev->u.peak.peak_t_ns;
    d->peak_record = UINT64_MAX;
    d->peak_pool_spare_bytes = ev->u.peak.pool_spare_bytes;
    memcpy(d->peak_by_category, ev->u.peak.by_category, sizeof d->peak_by_category);
    d->n_peak_freed = 0; /* no live set at this peak: nothing to keep */
}

/* An INFLIGHT record: just before a record that lowers the device's live bytes, allocation
 * calls of inflight_bytes were in flight, so the device may have held live + inflight_bytes. A
 * peak from it is a peak from events (the live set at it is the one now); the bytes in flight
 * have no call-site yet and count as unknown. */
static void apply_inflight(vt_analysis_t *a, const vt_reader_t *r, const vt_event_t *ev)
{
    vt_device_stats_t *d = device_stats(a, ev->u.inflight.device);
    if (!d)
        return;
    uint64_t inflight_bytes = ev->u.inflight.inflight_bytes;
    if (vt_sat_add(d->live_bytes, inflight_bytes) > d->tensors_peak_bytes)
        d->tensors_peak_bytes = vt_sat_add(d->live_bytes, inflight_bytes);
    uint64_t bytes = vt_sat_add(vt_device_held_bytes(d), inflight_bytes);
    if (bytes <= d->peak_bytes)
        return;
    device_peak(d, bytes, r->t_ns, r->n_records);
    d->peak_by_category[VT_CAT_UNKNOWN] =
        vt_sat_add(d->peak_by_category[VT_CAT_UNKNOWN], inflight_bytes);
}

/* A POOL record: the pool's figures now; its peaks are the highest seen, the driver's own high
 * marks included (they cover what happened between samples). Its reservation is the device's:
 * the device's figure may reach a new peak with it, the live set being the one now. */
static int apply_pool(vt_analysis_t *a, const vt_reader_t *r, const vt_event_t *ev)
{
    vt_pool_stats_t *p = NULL;
    for (uint32_t i = 0; i < a->n_pools && !p; i++)
        if (a->pools[i].pool == ev->u.pool.pool)
            p = &a->pools[i];
    if (!p) {
        if (grow((void **)&a->pools, &a->cap_pools, a->n_pools + 1, sizeof(*a->pools)))
            return -1;
        p = &a->pools[a->n_pools++];
        memset(p, 0, sizeof(*p));
        p->pool = ev->u.pool.pool;
        p->device = ev->u.pool.device;
    }
    uint32_t old_device = p->device;
    p->device = ev->u.pool.device;
    p->reserved_bytes = ev->u.pool.reserved_bytes;
    p->used_bytes = ev->u.pool.used_bytes;
    uint64_t reserved = ev->u.pool.reserved_high_bytes > ev->u.pool.reserved_bytes
                            ? ev->u.pool.reserved_high_bytes
                            : ev->u.pool.reserved_bytes;
    uint64_t used = ev->u.pool.used_high_bytes > ev->u.pool.used_bytes ? ev->u.pool.used_high_bytes
                                                                       : ev->u.pool.used_bytes;
    if (reserved > p->reserved_peak_bytes) {
        p->reserved_peak_bytes = reserved;
        p->reserved_peak_t_ns = ev->u.pool.t_ns;
    }
    if (used > p->used_peak_bytes)
        p->used_peak_bytes = used;
    /* A hostile trace may move a pool to another device: both devices' sums are redone. */
    for (int k = 0; k < 2; k++) {
        uint32_t device = k ? p->device : old_device;
        if (k && device == old_device)
            break;
        vt_device_stats_t *d = device_stats(a, device);
        if (!d)
            return -1;
        uint64_t sum = 0;
        for (uint32_t i = 0; i < a->n_pools; i++)
            if (a->pools[i].device == device)
                sum = vt_sat_add(sum, a->pools[i].reserved_bytes);
        d->pool_reserved_bytes = sum;
        if (sum > d->pool_reserved_peak_bytes)
            d->pool_reserved_peak_bytes = sum;
        uint64_t held_bytes = vt_device_held_bytes(d);
        if (held_bytes > d->peak_bytes)
            device_peak(d, held_bytes, ev->u.pool.t_ns, r->n_records);
    }
    return 0;
}

/* The apis that make CUDA arrays, whose sizes the library counts logically (src/preload.c):
 * the report says so when the trace has any; and those that allocate from a stream-ordered pool,
 * whose bytes the pool's reservation holds. */
static void note_apis(vt_analysis_t *a, const vt_reader_t *r)
{
    static const char *const makers[] = {"cuArrayCreate_v2",       "cuArray3DCreate_v2",
                                         "cuMipmappedArrayCreate", "cudaMallocArray",
                                         "cudaMalloc3DArray",      "cudaMallocMipmappedArray"};
    static const char *const pooled[] = {"cuMemAllocAsync",         "cuMemAllocAsync_ptsz",
                                         "cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync_ptsz",
                                         "cudaMallocAsync",         "cudaMallocAsync_ptsz",
                                         "cudaMallocFromPoolAsync", "cudaMallocFromPoolAsync_ptsz"};
    memset(a->array_apis, 0, sizeof(a->array_apis));
    memset(a->pool_apis, 0, sizeof(a->pool_apis));
    for (uint32_t api = 0; api < r->n_api_names && api < 256; api++) {
        char name[64];
        vt_reader_api_name(r, api, name, sizeof(name));
        for (size_t i = 0; i < sizeof(makers) / sizeof(makers[0]); i++)
            if (!strcmp(name, makers[i]))
                a->array_apis[api >> 6] |= 1ULL << (api & 63);
        for (size_t i = 0; i < sizeof(pooled) / sizeof(pooled[0]); i++)
            if (!strcmp(name, pooled[i]))
                a->pool_apis[api >> 6] |= 1ULL << (api & 63);
    }
}

int vt_analysis_apply(vt_analysis_t *a, vt_reader_t *r, const vt_event_t *ev)
{
    return vt_analysis_apply_seen(a, r, ev, NULL);
}

int vt_analysis_apply_seen(vt_analysis_t *a, vt_reader_t *r, const vt_event_t *ev, vt_live_t *old)
{
    int recategorized = -1;
    if (a->recategorize && (recategorized = a->recategorize(a->recategorize_ctx, r, ev)) < 0)
        return vt_reader_fail(r, "'%s': out of memory at byte %" PRIu64, r->path, ev->offset);
    switch (ev->type) {
    case VT_REC_ALLOC: {
        uint8_t category =
            ev->u.alloc.category < VT_CAT_COUNT ? ev->u.alloc.category : VT_CAT_UNKNOWN;
        if (recategorized >= 0)
            category = recategorized < VT_CAT_COUNT ? (uint8_t)recategorized : VT_CAT_UNKNOWN;
        fast_rec_t f = {ev->t_ns,
                        ev->u.alloc.address,
                        ev->u.alloc.size_bytes,
                        ev->u.alloc.thread,
                        ev->u.alloc.device,
                        ev->u.alloc.api,
                        ev->u.alloc.stack_id,
                        (uint8_t)(ev->u.alloc.series | (ev->u.alloc.handle ? VT_FLAG_HANDLE : 0) |
                                  (ev->u.alloc.implicit ? VT_FLAG_IMPLICIT : 0))};
        return apply_alloc(a, r, &f, category, ev->offset, old);
    }
    case VT_REC_FREE:
        apply_free(a, ev->u.free.series, ev->u.free.handle, ev->u.free.implicit,
                   ev->u.free.unmatched, ev->u.free.address, old);
        break;
    case VT_REC_FAILED:
        a->n_failed++;
        break;
    case VT_REC_OOM: {
        a->n_failed++;
        if (grow((void **)&a->ooms, &a->cap_ooms, a->n_ooms + 1, sizeof(*a->ooms)))
            return vt_reader_fail(r, "'%s': out of memory at byte %" PRIu64, r->path, ev->offset);
        vt_oom_t *o = &a->ooms[a->n_ooms++];
        memset(o, 0, sizeof(*o));
        o->t_ns = ev->t_ns;
        o->device = ev->u.oom.device;
        o->api = ev->u.oom.api;
        o->stack_id = ev->u.oom.stack_id;
        o->thread = ev->u.oom.thread;
        o->requested_bytes = ev->u.oom.requested_bytes;
        o->free_bytes = ev->u.oom.free_bytes;
        o->total_bytes = ev->u.oom.total_bytes;
        for (int i = 0; i < VT_CAT_COUNT; i++) {
            o->live_bytes[i] = ev->u.oom.live_bytes[i];
            o->live_total_bytes = vt_sat_add(o->live_total_bytes, ev->u.oom.live_bytes[i]);
        }
        for (uint32_t i = 0; i < a->n_devices; i++)
            if (a->devices[i].device == o->device) {
                o->pool_reserved_bytes = a->devices[i].pool_reserved_bytes;
                o->pool_spare_bytes = vt_device_pool_spare_bytes(&a->devices[i]);
            }
        break;
    }
    case VT_REC_CAPPED:
        a->capped_limit_bytes = ev->u.capped.limit_bytes;
        a->capped_t_ns = r->t_ns;
        break;
    case VT_REC_PEAK:
        apply_peak(a, ev);
        break;
    case VT_REC_INFLIGHT:
        apply_inflight(a, r, ev);
        break;
    case VT_REC_API_NAMES:
        note_apis(a, r);
        break;
    case VT_REC_POOL:
        if (apply_pool(a, r, ev) != 0)
            return vt_reader_fail(r, "'%s': out of memory at byte %" PRIu64, r->path, ev->offset);
        break;
    default:
        break;
    }
    return 0;
}

/* Decodes the record at r->pos with the fast path when it is an ALLOC or FREE that the path
 * takes: *f gets it and the type of its event is returned; 0 when it is left to vt_reader_next
 * (a hook, the reader stopped, the end of the file near, or the record not plainly valid). */
static inline __attribute__((always_inline)) unsigned fast_next(const vt_analysis_t *a,
                                                                vt_reader_t *r, fast_rec_t *f)
{
    size_t start = r->pos;
    if (start >= r->mapped && start < r->size)
        vt_reader_populate(r);
    if (a->recategorize || r->state || start >= r->size || r->size - start <= FAST_RECORD_BYTES)
        return 0;
    unsigned t = r->map[start];
    if (is_compact(r, t))
        return fast_compact(r, start, t, f);
    return (t == VT_REC_ALLOC || t == VT_REC_FREE) && fast_record(r, start, t, f) ? t : 0;
}

/* A fast record f of type t at offset start into a, the entry it removes into *old. */
static inline __attribute__((always_inline)) int apply_fast(vt_analysis_t *a, vt_reader_t *r,
                                                            unsigned t, const fast_rec_t *f,
                                                            size_t start, vt_live_t *old)
{
    if (t == VT_REC_FREE) {
        apply_free(a, f->flags & VT_FLAG_SERIES_MASK, (f->flags & VT_FLAG_HANDLE) != 0,
                   (f->flags & VT_FLAG_IMPLICIT) != 0, (f->flags & VT_FLAG_UNMATCHED) != 0,
                   f->address, old);
        return 0;
    }
    uint8_t category = VT_FLAG_CATEGORY(f->flags);
    if (category >= VT_CAT_COUNT)
        category = VT_CAT_UNKNOWN;
    return apply_alloc(a, r, f, category, start, old);
}

int vt_analysis_next(vt_reader_t *r, vt_analysis_t *a, vt_event_t *ev, vt_live_t *old)
{
    old->used = 0;
    size_t start = r->pos;
    fast_rec_t f;
    unsigned t = fast_next(a, r, &f);
    if (t) {
        fast_event(ev, start, t, &f);
        return apply_fast(a, r, t, &f, start, old) == 0 ? 1 : -1;
    }
    int rc = vt_reader_next(r, ev);
    if (rc <= 0)
        return rc;
    return vt_analysis_apply_seen(a, r, ev, old) == 0 ? 1 : -1;
}

int vt_analyze(vt_reader_t *r, vt_analysis_t *a, uint64_t stop_after)
{
    return vt_analyze_recategorized(r, a, stop_after, NULL, NULL);
}

/* The loop of vt_analyze_recategorized and vt_analyze_until: records up to number stop_after,
 * or (until) up to the last one at or before t_ns, into a (set up by the caller). Without a
 * hook, ALLOCs and FREEs go from the fast decoder straight into the analysis, never through a
 * vt_event_t; everything else, and every record the fast path declines, is
 * vt_reader_next + vt_analysis_apply. */
static int analyze(vt_reader_t *r, vt_analysis_t *a, uint64_t stop_after, bool until, uint64_t t_ns)
{
    vt_event_t ev;
    /* Records starting below fast_end have the fast path's bytes after them; the reader's size,
     * the hook and (while the loop runs: a read or apply that fails or ends it breaks out) its
     * state do not change, so the loop tests one bound per record, not four fields. */
    size_t fast_end = a->recategorize || r->state || r->size <= FAST_RECORD_BYTES
                          ? 0
                          : r->size - FAST_RECORD_BYTES;
    const bool compact = r->compact; /* set by the preamble */
    while (r->n_records < stop_after) {
        fast_rec_t f;
        size_t start = r->pos;
        if (start >= r->mapped && start < r->size)
            vt_reader_populate(r);
        unsigned t = 0;
        if (start < fast_end) {
            unsigned type = r->map[start];
            if (compact && type - VT_REC_ALLOC_C <= (unsigned)(VT_REC_FREE_C_LAST - VT_REC_ALLOC_C))
                t = fast_compact(r, start, type, &f);
            else if ((type == VT_REC_ALLOC || type == VT_REC_FREE) &&
                     fast_record(r, start, type, &f))
                t = type;
        }
        if (t) {
            if (until && f.t_ns > t_ns)
                break;
            if (apply_fast(a, r, t, &f, start, NULL) != 0)
                break;
            continue;
        }
        if (vt_reader_next(r, &ev) <= 0 || (until && ev.t_ns > t_ns))
            break;
        if (vt_analysis_apply(a, r, &ev) != 0)
            break;
    }
    return r->state < 0 ? -1 : 0;
}

int vt_analyze_recategorized(vt_reader_t *r, vt_analysis_t *a, uint64_t stop_after,
                             vt_recategorize_fn fn, void *ctx)
{
    memset(a, 0, sizeof(*a));
    a->recategorize = fn;
    a->recategorize_ctx = ctx;
    return analyze(r, a, stop_after, false, 0);
}

int vt_analyze_more(vt_reader_t *r, vt_analysis_t *a)
{
    return analyze(r, a, UINT64_MAX, false, 0);
}

int vt_analyze_keeping_peaks(vt_reader_t *r, vt_analysis_t *a, vt_recategorize_fn fn, void *ctx)
{
    memset(a, 0, sizeof(*a));
    a->recategorize = fn;
    a->recategorize_ctx = ctx;
    a->keep_peaks = true;
    return analyze(r, a, UINT64_MAX, false, 0);
}

int vt_analyze_until(vt_reader_t *r, vt_analysis_t *a, uint64_t t_ns, vt_recategorize_fn fn,
                     void *ctx)
{
    memset(a, 0, sizeof(*a));
    a->recategorize = fn;
    a->recategorize_ctx = ctx;
    /* Times only grow along the delta chain, so the first record past t_ns ends the moment. */
    return analyze(r, a, UINT64_MAX, true, t_ns);
}

const vt_live_t *vt_analysis_find(const vt_analysis_t *a, uint8_t series, uint8_t handle,
                                  uint64_t address)
{
    return live_find(a, series, handle, address);
}

void vt_analysis_release(vt_analysis_t *a)
{
    for (uint32_t i = 0; i < a->n_devices; i++)
        free(a->devices[i].peak_freed);
    free(a->devices);
    free(a->ooms);
    free(a->pools);
    free(a->live);
    memset(a, 0, sizeof(*a));
}

const vt_device_stats_t *vt_analysis_peak(const vt_analysis_t *a)
{
    const vt_device_stats_t *best = NULL;
    for (uint32_t i = 0; i < a->n_devices; i++)
        if (!best || a->devices[i].peak_bytes > best->peak_bytes)
            best = &a->devices[i];
    return best;
}

uint64_t vt_analysis_leaked_bytes(const vt_analysis_t *a)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < a->n_devices; i++)
        sum = vt_sat_add(sum, a->devices[i].live_bytes);
    return sum;
}

static int site_by_key(const void *x, const void *y)
{
    const vt_site_t *a = x, *b = y;
    if (a->stack_id != b->stack_id)
        return a->stack_id < b->stack_id ? -1 : 1;
    return (int)a->category - (int)b->category;
}

static int site_by_bytes(const void *x, const void *y)
{
    const vt_site_t *a = x, *b = y;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    return site_by_key(x, y);
}

/* The entries in s[0..n) (one allocation each) grouped by (stack, category), largest first,
 * into *out (s itself, shrunk). */
static void group_sites(vt_site_t *s, size_t n, vt_site_t **out, size_t *n_out)
{
    qsort(s, n, sizeof(*s), site_by_key);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && site_by_key(&s[m - 1], &s[i]) == 0) {
            s[m - 1].bytes = vt_sat_add(s[m - 1].bytes, s[i].bytes);
            s[m - 1].n_allocs++;
        } else {
            s[m++] = s[i];
        }
    }
    qsort(s, m, sizeof(*s), site_by_bytes);
    *out = s;
    *n_out = m;
}

int vt_analysis_sites(const vt_analysis_t *a, uint32_t device, vt_site_t **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    size_t n = 0;
    for (size_t i = 0; i < a->cap_live; i++)
        n += a->live[i].used && a->live[i].series == VT_TRACE_SERIES_DEVICE &&
             a->live[i].device == device;
    if (!n)
        return 0;
    vt_site_t *s = malloc(n * sizeof(*s));
    if (!s)
        return -1;
    n = 0;
    for (size_t i = 0; i < a->cap_live; i++) {
        const vt_live_t *e = &a->live[i];
        if (e->used && e->series == VT_TRACE_SERIES_DEVICE && e->device == device)
            s[n++] = (vt_site_t){e->size_bytes, 1, e->stack_id, e->category};
    }
    group_sites(s, n, out, n_out);
    return 0;
}

int vt_analysis_peak_sites(const vt_analysis_t *a, uint32_t device, vt_site_t **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    const vt_device_stats_t *d = NULL;
    for (uint32_t i = 0; i < a->n_devices && !d; i++)
        if (a->devices[i].device == device)
            d = &a->devices[i];
    if (!a->keep_peaks || !d || d->peak_lost || d->peak_record == UINT64_MAX)
        return 1;
    /* Live at the peak: still live and allocated before it (an older epoch), or freed since. */
    size_t n = d->n_peak_freed;
    for (size_t i = 0; i < a->cap_live; i++) {
        const vt_live_t *e = &a->live[i];
        n += e->used && e->series == VT_TRACE_SERIES_DEVICE && e->device == device &&
             e->peak_epoch != d->peak_epoch;
    }
    if (!n)
        return 0;
    vt_site_t *s = malloc(n * sizeof(*s));
    if (!s)
        return -1;
    n = 0;
    for (size_t i = 0; i < a->cap_live; i++) {
        const vt_live_t *e = &a->live[i];
        if (e->used && e->series == VT_TRACE_SERIES_DEVICE && e->device == device &&
            e->peak_epoch != d->peak_epoch)
            s[n++] = (vt_site_t){e->size_bytes, 1, e->stack_id, e->category};
    }
    for (size_t i = 0; i < d->n_peak_freed; i++) {
        const vt_live_t *e = &d->peak_freed[i];
        s[n++] = (vt_site_t){e->size_bytes, 1, e->stack_id, e->category};
    }
    group_sites(s, n, out, n_out);
    return 0;
}

/* vt_stream_device (analysis.h). */
const vt_device_stats_t *vt_stream_device(const vt_analysis_t *a, uint32_t device)
{
    for (uint32_t i = 0; i < a->n_devices; i++)
        if (a->devices[i].device == device)
            return &a->devices[i];
    return NULL;
}

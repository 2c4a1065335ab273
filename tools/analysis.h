/* SPDX-License-Identifier: MIT */
/* The analysis of a trace (analysis.c): each record of the reader applied to the live set, the
 * peaks per series, device and category, the totals, the OOMs, and the live set grouped by
 * call-site. Memory is bounded by the live set, never by the number of events. */
#ifndef VT_ANALYSIS_H
#define VT_ANALYSIS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sat.h"
#include "trace_reader.h"

typedef struct vt_live_s {
    uint64_t address, size_bytes;
    uint32_t device, stack_id;
    uint8_t series, handle, category;
    uint8_t used : 1, pooled : 1; /* pooled: a stream-ordered allocation, its pool's bytes */
    uint32_t peak_epoch; /* device series: the device's peak_epoch when it was allocated (in
                          * what was padding: 32 bytes an entry) */
} vt_live_t;

/* A device holds its allocations and, for its stream-ordered pools, what they reserved: a pool
 * keeps its reservation whatever its allocations add up to (a release threshold of UINT64_MAX
 * never gives any back). So the device's figure (vt_device_held_bytes) is live_bytes plus what
 * the pools' reservations hold beyond their live allocations, never less than live_bytes: the
 * reservations are samples (POOL records), the allocations exact. peak_bytes is that figure's
 * peak; tensors_peak_bytes the peak of the allocations alone. */
typedef struct vt_device_stats_s {
    uint32_t device;
    uint64_t live_bytes, peak_bytes, peak_t_ns;
    uint64_t tensors_peak_bytes;
    uint64_t pool_reserved_bytes;      /* the device's pools at their last samples, together */
    uint64_t pool_reserved_peak_bytes; /* the largest pool_reserved_bytes */
    uint64_t peak_pool_spare_bytes;    /* at the peak: reserved beyond the pools' allocations */
    vt_u128_t pool_live_exact;         /* the device's stream-ordered allocations live */
    uint64_t peak_record; /* the record that made the peak; UINT64_MAX: after a cap, from the
                           * library's PEAK record (no live set to show) */
    uint64_t live_by_category[VT_CAT_COUNT];
    uint64_t peak_by_category[VT_CAT_COUNT]; /* at the peak: with peak_pool_spare_bytes, sums
                                              * to peak_bytes */
    uint64_t cat_peak_bytes[VT_CAT_COUNT];   /* each category's own peak (events only) */
    uint64_t cat_peak_t_ns[VT_CAT_COUNT];    /* when it was first reached */
    /* live_bytes and live_by_category exactly (sat.h): those two saturate at 2^64 - 1, so a
     * peak past it shows as 2^64 - 1 and the frees after it stay exact. */
    vt_u128_t live_exact, live_by_category_exact[VT_CAT_COUNT];
    /* The live set at the peak without a replay (vt_analyze_keeping_peaks): the entries live at
     * the peak are those still live with an older peak_epoch, and those freed (or replaced)
     * since, copied into peak_freed; a new peak empties it. At most the peak's live set. */
    uint32_t peak_epoch; /* new peaks from events so far (UINT32_MAX: stopped, peak_lost) */
    bool peak_lost;      /* peak_freed is incomplete (no memory, or the epoch ran out) */
    vt_live_t *peak_freed;
    size_t n_peak_freed, cap_peak_freed;
} vt_device_stats_t;

/* What the pools of d reserve beyond their live allocations (0 when they reserve less: a
 * sample older than the allocations). */
static inline uint64_t vt_device_pool_spare_bytes(const vt_device_stats_t *d)
{
    if (!d->pool_reserved_bytes)
        return 0;
    uint64_t pool_live_bytes = vt_sat_u128(d->pool_live_exact);
    return d->pool_reserved_bytes > pool_live_bytes ? d->pool_reserved_bytes - pool_live_bytes : 0;
}

/* What device d holds for the process now: its allocations, its pools' spare reservation. */
static inline uint64_t vt_device_held_bytes(const vt_device_stats_t *d)
{
    return vt_sat_add(d->live_bytes, vt_device_pool_spare_bytes(d));
}

/* A stream-ordered pool, from its POOL records: what it reserved and what its allocations used
 * (the driver's figures), now and at their peaks (the driver's high marks included). */
typedef struct vt_pool_stats_s {
    uint32_t device, pool;
    uint64_t reserved_bytes, used_bytes;
    uint64_t reserved_peak_bytes, used_peak_bytes;
    uint64_t reserved_peak_t_ns; /* the sample that saw it (absolute) */
} vt_pool_stats_t;

typedef struct vt_oom_s {
    uint64_t t_ns, requested_bytes, free_bytes, total_bytes, live_total_bytes, thread;
    uint64_t pool_reserved_bytes, pool_spare_bytes; /* the device's pools at the OOM */
    uint32_t device, api, stack_id;
    uint64_t live_bytes[VT_CAT_COUNT];
} vt_oom_t;

/* An analysis hook (`report --rules`): called by vt_analysis_apply with every record before it
 * is applied; returns the category (vt_category_t) an ALLOC gets instead of the recorded one, any
 * value >= 0 for the other records, or -1 when out of memory. */
typedef int (*vt_recategorize_fn)(void *ctx, const vt_reader_t *r, const vt_event_t *ev);

typedef struct vt_analysis_s {
    vt_device_stats_t *devices; /* sorted by device number */
    uint32_t n_devices, cap_devices;
    uint64_t live_bytes[VT_TRACE_SERIES_COUNT], peak_bytes[VT_TRACE_SERIES_COUNT];
    vt_u128_t live_exact[VT_TRACE_SERIES_COUNT]; /* live_bytes exactly (it saturates) */
    uint64_t peak_t_ns[VT_TRACE_SERIES_COUNT];   /* pinned and managed; devices have their own */
    uint64_t n_allocs, n_frees, n_failed, n_unmatched_frees;
    uint64_t n_array_allocs; /* CUDA arrays made: counted at their logical size */
    uint64_t array_apis[4];  /* bit api set: that api makes arrays (from the API_NAMES record) */
    uint64_t pool_apis[4];   /* bit api set: that api allocates from a stream-ordered pool */
    uint64_t capped_limit_bytes; /* VRAMTRACE_MAX_SIZE reached: 0 when the trace is whole */
    uint64_t capped_t_ns;        /* the last event before the cap */
    vt_oom_t *ooms;
    uint32_t n_ooms, cap_ooms;
    vt_pool_stats_t *pools; /* in the order first sampled */
    uint32_t n_pools, cap_pools;
    vt_live_t *live; /* open addressing on (series, handle flag, address) */
    size_t n_live, cap_live;
    vt_recategorize_fn recategorize; /* NULL: ALLOCs keep their recorded category */
    void *recategorize_ctx;
    bool keep_peaks; /* fill each device's peak_freed (vt_analyze_keeping_peaks) */
} vt_analysis_t;

/* vt_analyze: reads the records of r into a (zeroed here) up to and including record number
 * stop_after (counted from 1; UINT64_MAX: all). Returns vt_reader_next's last result: 0 read
 * to the end (or stopped), -1 the reader failed (a holds what came before). */
int vt_analyze(vt_reader_t *r, vt_analysis_t *a, uint64_t stop_after);
void vt_analysis_release(vt_analysis_t *a);

/* vt_analyze_recategorized: vt_analyze with a hook deciding the category of each ALLOC (fn NULL:
 * vt_analyze itself). */
int vt_analyze_recategorized(vt_reader_t *r, vt_analysis_t *a, uint64_t stop_after,
                             vt_recategorize_fn fn, void *ctx);

/* vt_analyze_keeping_peaks: vt_analyze_recategorized to the end, keeping for every device what
 * vt_analysis_peak_sites needs to group its peak's live set by call-site without reading the
 * trace again: memory grows by at most each device's live set at its peak. */
int vt_analyze_keeping_peaks(vt_reader_t *r, vt_analysis_t *a, vt_recategorize_fn fn, void *ctx);

/* vt_analyze_until: vt_analyze_recategorized up to and including the last record at or before
 * t_ns (absolute): the live set at that moment. The first record after it is read, not applied.
 * Returns as vt_analyze. */
int vt_analyze_until(vt_reader_t *r, vt_analysis_t *a, uint64_t t_ns, vt_recategorize_fn fn,
                     void *ctx);

/* vt_analyze_more: goes on with a (zeroed by the caller before the first call, or filled by the
 * calls before) over the records of r not read yet, to the end of what is there, with the fast
 * path of vt_analyze: a trace being followed (vt_reader_follow) read in one go at each look.
 * Returns -1 when the reader failed; 0 otherwise, with r->state 0 when the analysis stopped
 * short (out of memory) and nonzero at the end of what was written. */
int vt_analyze_more(vt_reader_t *r, vt_analysis_t *a);

/* vt_analysis_apply: one record ev of r into a (zeroed by the caller before the first), for
 * commands that look at the analysis as the trace streams by; vt_analyze is a loop of it.
 * Returns 0, or -1 when out of memory (r->err says so and the reader is failed). */
int vt_analysis_apply(vt_analysis_t *a, vt_reader_t *r, const vt_event_t *ev);

/* vt_analysis_apply_seen: vt_analysis_apply that also hands out what vt_analysis_find would have
 * returned for an ALLOC's or a FREE's (series, handle, address) just before the record: the live
 * entry it frees or replaces, copied into *old (old->used 0 when there was none, or for any other
 * record). One probe of the live set instead of two for the commands that stream. */
int vt_analysis_apply_seen(vt_analysis_t *a, vt_reader_t *r, const vt_event_t *ev, vt_live_t *old);

/* vt_analysis_next: the next record of r into *ev and applied to a, what it freed or replaced
 * in *old, as vt_reader_next then vt_analysis_apply_seen do, with vt_analyze's fast decoder for
 * ALLOCs and FREEs (no hook set). Returns 1 for a record, 0 at the end, -1 when the reader failed
 * or the analysis ran out of memory (r->err says which). */
int vt_analysis_next(vt_reader_t *r, vt_analysis_t *a, vt_event_t *ev, vt_live_t *old);

/* The live allocation at (series, handle, address), or NULL: what a FREE is about to free. */
const vt_live_t *vt_analysis_find(const vt_analysis_t *a, uint8_t series, uint8_t handle,
                                  uint64_t address);

/* The device with the largest peak (the lowest number on a tie), or NULL with no device
 * memory. This is "the peak" of a report. */
const vt_device_stats_t *vt_analysis_peak(const vt_analysis_t *a);

/* Device bytes still live: on every device together. */
uint64_t vt_analysis_leaked_bytes(const vt_analysis_t *a);

typedef struct vt_site_s {
    uint64_t bytes, n_allocs;
    uint32_t stack_id;
    uint8_t category;
} vt_site_t;

/* vt_analysis_sites: the live allocations of device grouped by (stack, category), largest
 * first, into a malloc'd array (*n_out entries; NULL when none). Returns 0 or -1 (no memory). */
int vt_analysis_sites(const vt_analysis_t *a, uint32_t device, vt_site_t **out, size_t *n_out);

/* vt_analysis_peak_sites: what vt_analysis_sites returns for device after a replay of the trace
 * up to its peak_record (vt_analyze to peak_record), from what vt_analyze_keeping_peaks kept.
 * Returns 0, -1 (no memory), or 1 when it was not kept (the analysis did not keep peaks, the
 * device has no peak from events, or its list is incomplete): replay then. */
int vt_analysis_peak_sites(const vt_analysis_t *a, uint32_t device, vt_site_t **out, size_t *n_out);

/* The stats of device in a, or NULL while it has had no device memory. */
const vt_device_stats_t *vt_stream_device(const vt_analysis_t *a, uint32_t device);

#endif

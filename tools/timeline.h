/* SPDX-License-Identifier: MIT */
/* Device memory over time, as `timeline` and the chart (chart.h) see it: the phases with the
 * device peak while each was open, and each device's live memory by category in columns of
 * time with the top-level phases as bands. One streaming pass over the trace (load.h). */
#ifndef VT_TIMELINE_H
#define VT_TIMELINE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "load.h"
#include "phases.h"
#include "trace_reader.h"

/* The chart's columns: VT_TIMELINE_COLS of width col_ns from t0 per device; when an event falls
 * past the last, neighbouring columns merge and the width doubles, so one pass needs no known
 * duration. */
#define VT_TIMELINE_COLS  1000
#define VT_TIMELINE_BANDS 1000 /* top-level phase bands kept; more are counted, not drawn */

/* --csv: called with each change of a device's live memory, at t_ns (absolute); pool_record: by
 * a POOL record, which may have changed its pools' spare or nothing the rows show. */
typedef void (*vt_timeline_row_fn)(void *ctx, const vt_reader_t *r, const vt_device_stats_t *d,
                                   uint64_t t_ns, bool pool_record);

typedef struct vt_tl_phase_s {
    char *path; /* "outer/inner" */
    uint64_t peak_bytes, peak_t_ns, total_ns, n_times;
    uint32_t peak_device;
} vt_tl_phase_t;

typedef struct vt_tl_open_phase_s {
    uint64_t thread, t_ns;
    size_t phase; /* index into phases */
    long band;    /* index into bands while a top-level phase, else -1 */
} vt_tl_open_phase_t;

/* What a device holds at a moment: total is its figure (vt_device_held_bytes), the categories'
 * live bytes and, last (cat[VT_TL_SPARE]), what its stream-ordered pools reserve beyond their
 * allocations: stacked, they make the total, the curve the peak is computed from. */
#define VT_TL_SPARE VT_CAT_COUNT
typedef struct vt_tl_snap_s {
    uint64_t total, cat[VT_CAT_COUNT + 1];
} vt_tl_snap_t;

typedef struct vt_tl_col_s {
    vt_tl_snap_t max, last; /* at the column's highest total, and at its end */
    int used;
} vt_tl_col_t;

typedef struct vt_tl_dev_cols_s {
    uint32_t device;
    vt_tl_col_t *col; /* [VT_TIMELINE_COLS] */
} vt_tl_dev_cols_t;

typedef struct vt_tl_band_s {
    size_t phase;
    uint64_t t0_ns, t1_ns; /* t1_ns UINT64_MAX while open */
} vt_tl_band_t;

typedef struct vt_timeline_s {
    vt_timeline_row_fn row; /* --csv: called at each change instead of following phases */
    void *row_ctx;
    int columns; /* keep the chart's columns and phase bands */
    uint64_t col_ns;
    vt_tl_dev_cols_t *dcols;
    size_t n_dcols, cap_dcols;
    vt_tl_band_t *bands;
    size_t n_bands, cap_bands;
    uint64_t bands_dropped;
    uint64_t n_events, last_t_ns;
    vt_tl_phase_t *phases;
    size_t n_phases, cap_phases;
    vt_tl_open_phase_t *open; /* every thread's open phases, innermost last per thread */
    size_t n_open, cap_open;
    vt_phases_t paths; /* every thread's phase path: the phases' names */
    int oom;           /* out of memory: phases are incomplete */
    vt_stream_fn also; /* called with every record after the timeline took it (html's page data
                        * in the same pass); NULL: none */
    void *also_ctx;
    vt_recategorize_fn recategorize; /* decides each ALLOC's category; NULL: the recorded one */
    void *recategorize_ctx;
} vt_timeline_t;

/* vt_timeline_init: an empty timeline; set row (and row_ctx) or columns before streaming. */
void vt_timeline_init(vt_timeline_t *tl);

/* vt_timeline_stream: streams the trace at path through the timeline (vt_trace_stream: r and a
 * as it leaves them, its problems said with error(), its return value). */
int vt_timeline_stream(vt_timeline_t *tl, const char *path, vt_reader_t *r, vt_analysis_t *a);

/* Merges each band into the previous band of the same phase when the gap between them is under
 * gap_ns (a training loop's steps become one band), keeping open phases' band indices right. */
void vt_timeline_compact_bands(vt_timeline_t *tl, uint64_t gap_ns);

void vt_timeline_release(vt_timeline_t *tl);
#endif

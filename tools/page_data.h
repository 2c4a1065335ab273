/* SPDX-License-Identifier: MIT */
/* The data of the interactive page (`vramtrace html`): what its script draws and lists, written
 * as JSON inside the page. Two streaming passes over the trace:
 *   1. every call-site's own highest live device memory (vt_page_sites_on_record, beside the
 *      timeline's pass), to choose the call-sites the page follows;
 *   2. (vt_page_collect) each device's live memory by category in VT_PAGE_COLS columns of equal
 *      width over the trace, the chosen call-sites' live bytes in the same columns, the
 *      top-level phases as bands, the marks, the OOMs.
 * A column holds the highest value of its span (what was carried in counts), so a short peak is
 * never lost to the downsampling. The page's size is bounded by the columns, the call-sites
 * followed and the bands kept, never by the number of events. */
#ifndef VT_PAGE_DATA_H
#define VT_PAGE_DATA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis.h"
#include "report.h"
#include "symbolize.h"
#include "trace_reader.h"

#define VT_PAGE_COLS  4096 /* columns over the whole trace: a 400-step run has 10 per step */
#define VT_PAGE_SITES 40   /* call-sites followed over time, beside those at the peak */
#define VT_PAGE_MARKS 4096 /* bands and marks kept each; more are counted */

typedef struct vt_page_site_s {
    uint32_t device, stack_id;
    uint8_t category;
    uint64_t live_bytes, max_bytes, n_allocs;
    uint64_t *cols; /* pass 2, followed sites only: the highest live bytes in each column */
    long last_col;  /* pass 2: the column of the last change; -1 before any */
} vt_page_site_t;

typedef struct vt_page_dev_s {
    uint32_t device;
    /* now: the device's figure (vt_device_held_bytes), its categories' live bytes, its pools'
     * spare reservation; cols: [VT_PAGE_COLS][VT_PAGE_DEV_ROW] the same at the column's highest
     * figure */
#define VT_PAGE_DEV_ROW (2 + VT_CAT_COUNT)
    uint64_t now[VT_PAGE_DEV_ROW];
    uint64_t *cols;
    long last_col;
} vt_page_dev_t;

typedef struct vt_page_band_s {
    uint64_t t0_ns, t1_ns; /* from t0 */
    uint32_t string_id;    /* the phase's name, or the mark's label */
} vt_page_band_t;

typedef struct vt_page_open_s {
    uint64_t thread, t0_ns;
    uint32_t depth, string_id;
} vt_page_open_t;

typedef struct vt_page_data_s {
    /* pass 1 and 2: the call-sites, with an index on (device, stack, category) */
    vt_page_site_t *sites;
    size_t n_sites, cap_sites;
    uint32_t *index; /* open addressing: site number + 1, 0 empty */
    size_t cap_index;
    bool following; /* pass 2: only followed sites are counted */
    /* pass 2 */
    uint64_t t0_ns, span_ns;
    vt_page_dev_t *devs;
    size_t n_devs;
    vt_page_band_t *bands, *marks;
    size_t n_bands, n_marks;
    uint64_t bands_dropped, marks_dropped;
    vt_page_open_t *open;
    size_t n_open, cap_open;
    int oom; /* out of memory: said by the caller */
} vt_page_data_t;

/* Pass 1: a vt_stream_fn (load.h) over a zeroed vt_page_data_t. */
int vt_page_sites_on_record(void *ctx, const vt_reader_t *r, const vt_analysis_t *a,
                            const vt_event_t *ev, const vt_live_t *old, const uint32_t *changed,
                            int n_changed);

/* Chooses the sites to follow: the VT_PAGE_SITES highest, and those of must[0..n_must) on
 * must_device (the call-sites the page's tables list). The others are dropped. Returns 0, -1
 * when out of memory. */
int vt_page_choose(vt_page_data_t *p, uint32_t must_device, const vt_site_t *must, size_t n_must);

/* Pass 2: streams path again with the columns of width span_ns / VT_PAGE_COLS, each allocation's
 * category decided by recat (NULL: the recorded one), as in pass 1. Returns as vt_trace_stream
 * (quietly: the first pass said the trace's problems); a and r are released. */
int vt_page_collect(vt_page_data_t *p, const char *path, uint64_t span_ns, vt_recategorize_fn recat,
                    void *recat_ctx);

/* The followed site of (device, stack_id, category) as numbered in the page's data, or -1. */
long vt_page_site_number(const vt_page_data_t *p, uint32_t device, uint32_t stack_id,
                         uint8_t category);

/* Writes the page's data as one <script type="application/json" id="vt-data"> element, with
 * the report of the same trace (its stack and string ids are the same); all_frames: the page
 * starts with every frame shown. */
void vt_page_json(FILE *out, const vt_page_data_t *p, const vt_report_t *rep, bool all_frames);

void vt_page_release(vt_page_data_t *p);
#endif

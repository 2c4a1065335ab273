/* SPDX-License-Identifier: MIT */
/* Device memory over time (timeline.h): one streaming pass that follows the phases (their
 * device peaks and time open) and, for the chart, each device's memory in columns and the
 * top-level phases as bands. Memory is bounded by the live set, the number of distinct phases
 * and VT_TIMELINE_COLS columns per device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sat.h"
#include "load.h"
#include "timeline.h"

static void *grow(void *items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return items;
    size_t cap2 = *cap ? 2 * *cap : 16;
    void *p = realloc(items, cap2 * size);
    if (p)
        *cap = cap2;
    return p;
}

void vt_timeline_compact_bands(vt_timeline_t *tl, uint64_t gap_ns)
{
    size_t n = 0;
    for (size_t k = 0; k < tl->n_bands; k++) {
        vt_tl_band_t b = tl->bands[k];
        long j = (long)n - 1;
        while (j >= 0 && tl->bands[j].phase != b.phase)
            j--;
        size_t to = n;
        if (j >= 0 && tl->bands[j].t1_ns != UINT64_MAX && b.t0_ns >= tl->bands[j].t1_ns &&
            b.t0_ns - tl->bands[j].t1_ns < gap_ns) {
            to = (size_t)j;
            if (b.t1_ns > tl->bands[to].t1_ns)
                tl->bands[to].t1_ns = b.t1_ns;
        } else {
            tl->bands[n++] = b;
        }
        for (size_t i = 0; i < tl->n_open; i++)
            if (tl->open[i].band == (long)k)
                tl->open[i].band = (long)to;
    }
    tl->n_bands = n;
}

/* A band for a top-level phase opening at t_ns: the phase's last band again when it ended less
 * than a column ago (a loop of short phases stays one band). Returns its index, or -1 when the
 * bands are full or out of memory. */
static long band_open(vt_timeline_t *tl, size_t phase, uint64_t t_ns)
{
    for (size_t k = tl->n_bands; k-- > 0;) {
        vt_tl_band_t *b = &tl->bands[k];
        if (b->phase != phase)
            continue;
        if (b->t1_ns != UINT64_MAX && t_ns - b->t1_ns < tl->col_ns) {
            b->t1_ns = UINT64_MAX;
            return (long)k;
        }
        break;
    }
    /* full: merge with ever wider gaps, down to half */
    for (uint64_t g = tl->col_ns; tl->n_bands >= VT_TIMELINE_BANDS && g && g < UINT64_MAX / 2;
         g *= 2)
        while (tl->n_bands > VT_TIMELINE_BANDS / 2) {
            size_t before = tl->n_bands;
            vt_timeline_compact_bands(tl, g);
            if (tl->n_bands == before)
                break;
        }
    if (tl->n_bands >= VT_TIMELINE_BANDS) {
        tl->bands_dropped++;
        return -1;
    }
    vt_tl_band_t *b = grow(tl->bands, &tl->cap_bands, tl->n_bands + 1, sizeof(*b));
    if (!b) {
        tl->oom = 1;
        return -1;
    }
    tl->bands = b;
    b[tl->n_bands] = (vt_tl_band_t){phase, t_ns, UINT64_MAX};
    return (long)tl->n_bands++;
}

static void col_merge(vt_tl_col_t *out, const vt_tl_col_t *a, const vt_tl_col_t *b)
{
    vt_tl_col_t m = *a;
    if (b->used) {
        if (!a->used || b->max.total > a->max.total)
            m.max = b->max;
        m.last = b->last;
        m.used = 1;
    }
    *out = m;
}

/* Records device d's live memory at t_ns (from t0) in its column. Returns 0, -1 out of memory. */
static int column_sample(vt_timeline_t *tl, const vt_device_stats_t *d, uint64_t t_ns)
{
    while (t_ns / tl->col_ns >= VT_TIMELINE_COLS) {
        for (size_t k = 0; k < tl->n_dcols; k++) {
            vt_tl_col_t *c = tl->dcols[k].col;
            for (size_t i = 0; i < VT_TIMELINE_COLS / 2; i++)
                col_merge(&c[i], &c[2 * i], &c[2 * i + 1]);
            memset(&c[VT_TIMELINE_COLS / 2], 0,
                   (VT_TIMELINE_COLS - VT_TIMELINE_COLS / 2) * sizeof(*c));
        }
        tl->col_ns *= 2;
    }
    size_t k = 0;
    while (k < tl->n_dcols && tl->dcols[k].device != d->device)
        k++;
    if (k == tl->n_dcols) {
        vt_tl_dev_cols_t *dc = grow(tl->dcols, &tl->cap_dcols, k + 1, sizeof(*dc));
        if (!dc)
            return -1;
        tl->dcols = dc;
        dc[k].device = d->device;
        dc[k].col = calloc(VT_TIMELINE_COLS, sizeof(vt_tl_col_t));
        if (!dc[k].col)
            return -1;
        tl->n_dcols++;
    }
    vt_tl_snap_t s;
    s.total = vt_device_held_bytes(d);
    memcpy(s.cat, d->live_by_category, sizeof(d->live_by_category));
    s.cat[VT_TL_SPARE] = vt_device_pool_spare_bytes(d);
    vt_tl_col_t *c = &tl->dcols[k].col[t_ns / tl->col_ns];
    if (!c->used || s.total > c->max.total)
        c->max = s;
    c->last = s;
    c->used = 1;
    return 0;
}

/* The open phase innermost on thread, or -1. */
static long innermost(const vt_timeline_t *tl, uint64_t thread)
{
    for (size_t i = tl->n_open; i-- > 0;)
        if (tl->open[i].thread == thread)
            return (long)i;
    return -1;
}

static void phase_push(vt_timeline_t *tl, const vt_reader_t *r, const vt_analysis_t *a,
                       const vt_event_t *ev)
{
    long parent = innermost(tl, ev->u.phase.thread);
    if (vt_phases_apply(&tl->paths, r, ev) != 0) {
        tl->oom = 1;
        return;
    }
    const char *path = vt_phases_of(&tl->paths, ev->u.phase.thread)->text;
    size_t i = 0;
    while (i < tl->n_phases && strcmp(tl->phases[i].path, path) != 0)
        i++;
    if (i == tl->n_phases) {
        vt_tl_phase_t *p = grow(tl->phases, &tl->cap_phases, i + 1, sizeof(*p));
        char *copy = strdup(path);
        if (!p || !copy) {
            free(copy);
            if (p)
                tl->phases = p;
            tl->oom = 1;
            return;
        }
        tl->phases = p;
        memset(&p[i], 0, sizeof(p[i]));
        p[i].path = copy;
        tl->n_phases++;
    }
    vt_tl_open_phase_t *o = grow(tl->open, &tl->cap_open, tl->n_open + 1, sizeof(*o));
    if (!o) {
        tl->oom = 1;
        return;
    }
    tl->open = o;
    o[tl->n_open++] = (vt_tl_open_phase_t){ev->u.phase.thread, ev->t_ns, i, -1};
    if (tl->columns && parent < 0)
        o[tl->n_open - 1].band = band_open(tl, i, ev->t_ns);
    vt_tl_phase_t *p = &tl->phases[i];
    p->n_times++;
    /* What is held when the phase opens counts toward its peak. */
    const vt_device_stats_t *top = NULL;
    for (uint32_t k = 0; k < a->n_devices; k++)
        if (!top || vt_device_held_bytes(&a->devices[k]) > vt_device_held_bytes(top))
            top = &a->devices[k];
    uint64_t live = top ? vt_device_held_bytes(top) : 0;
    if (p->n_times == 1 || live > p->peak_bytes) {
        p->peak_bytes = live;
        p->peak_device = top ? top->device : 0;
        p->peak_t_ns = ev->t_ns;
    }
}

static void phase_pop(vt_timeline_t *tl, const vt_reader_t *r, const vt_event_t *ev)
{
    vt_phases_apply(&tl->paths, r, ev);
    long i = innermost(tl, ev->u.phase.thread);
    if (i < 0)
        return; /* a POP without its PUSH (tracing started inside the range) */
    tl->phases[tl->open[i].phase].total_ns =
        vt_sat_add(tl->phases[tl->open[i].phase].total_ns, ev->t_ns - tl->open[i].t_ns);
    if (tl->open[i].band >= 0)
        tl->bands[tl->open[i].band].t1_ns = ev->t_ns;
    memmove(&tl->open[i], &tl->open[i + 1], (tl->n_open - (size_t)i - 1) * sizeof(*tl->open));
    tl->n_open--;
}

/* What device d holds now, at t_ns, into the peaks of the open phases. */
static void phase_peaks(vt_timeline_t *tl, const vt_device_stats_t *d, uint64_t t_ns)
{
    uint64_t held_bytes = vt_device_held_bytes(d);
    for (size_t i = 0; i < tl->n_open; i++) {
        vt_tl_phase_t *p = &tl->phases[tl->open[i].phase];
        if (held_bytes > p->peak_bytes) {
            p->peak_bytes = held_bytes;
            p->peak_device = d->device;
            p->peak_t_ns = t_ns;
        }
    }
}

static int on_record(void *ctx, const vt_reader_t *r, const vt_analysis_t *a, const vt_event_t *ev,
                     const vt_live_t *old, const uint32_t *changed, int n_changed)
{
    vt_timeline_t *tl = ctx;
    if (vt_stream_is_event(ev)) {
        tl->n_events++;
        tl->last_t_ns = ev->t_ns;
    }
    if (ev->type == VT_REC_PHASE_PUSH && !tl->row)
        phase_push(tl, r, a, ev);
    else if (ev->type == VT_REC_PHASE_POP && !tl->row)
        phase_pop(tl, r, ev);
    for (int k = 0; k < n_changed; k++) {
        const vt_device_stats_t *d = vt_stream_device(a, changed[k]);
        if (!d)
            continue;
        if (tl->row) {
            tl->row(tl->row_ctx, r, d, ev->t_ns, false);
            continue;
        }
        if (tl->columns && column_sample(tl, d, ev->t_ns > r->t0_ns ? ev->t_ns - r->t0_ns : 0) < 0)
            tl->oom = 1;
        phase_peaks(tl, d, ev->t_ns);
    }
    /* A pool's reservation is the device's too: the rows, the chart's columns and the open
     * phases' peaks count it. */
    const vt_device_stats_t *d =
        ev->type == VT_REC_POOL ? vt_stream_device(a, ev->u.pool.device) : NULL;
    if (d && tl->row) {
        tl->row(tl->row_ctx, r, d, ev->t_ns, true);
        d = NULL;
    }
    if (d && tl->columns && column_sample(tl, d, ev->t_ns > r->t0_ns ? ev->t_ns - r->t0_ns : 0) < 0)
        tl->oom = 1;
    if (d)
        phase_peaks(tl, d, ev->t_ns);
    return tl->also ? tl->also(tl->also_ctx, r, a, ev, old, changed, n_changed) : 0;
}

void vt_timeline_init(vt_timeline_t *tl)
{
    memset(tl, 0, sizeof(*tl));
    tl->col_ns = 1000; /* 1 ms over the VT_TIMELINE_COLS columns; doubles as the trace goes on */
}

int vt_timeline_stream(vt_timeline_t *tl, const char *path, vt_reader_t *r, vt_analysis_t *a)
{
    return vt_trace_stream_as(path, r, a, tl->recategorize, tl->recategorize_ctx, false, on_record,
                              tl);
}

void vt_timeline_release(vt_timeline_t *tl)
{
    for (size_t i = 0; i < tl->n_phases; i++)
        free(tl->phases[i].path);
    free(tl->phases);
    free(tl->open);
    vt_phases_release(&tl->paths);
    for (size_t k = 0; k < tl->n_dcols; k++)
        free(tl->dcols[k].col);
    free(tl->dcols);
    free(tl->bands);
}

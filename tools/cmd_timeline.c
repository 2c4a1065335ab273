/* SPDX-License-Identifier: MIT */
/* `vramtrace timeline FILE [--csv | --svg OUT]`: device memory over time. The text summary gives
 * the trace's duration and events, each device's peak and when, and the device peak inside each
 * phase (PHASE_PUSH/POP ranges, nested names joined with '/'); --csv writes one row per change
 * of a device's live memory, by category; --svg draws a self-contained stacked area chart per
 * device. One streaming pass: memory is bounded by the live set, the number of distinct phases
 * and SVG_COLS columns per device. Exit statuses: 0 ok, 1 unreadable or damaged trace (what
 * came before the damage is still shown) or unwritable output, 2 usage. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rowfmt.h"
#include "load.h"
#include "timeline.h"
#include "units.h"
#include "args.h"
#include "util.h"

int cmd_timeline(int argc, char **argv);

#define NAME_CAP 256

static const char usage[] = "usage: vramtrace timeline FILE [--csv | --svg OUT]\n"
                            "\n"
                            "Device memory over time: the trace's duration and events, each\n"
                            "device's peak and when, and the device peak inside each phase.\n"
                            "\n"
                            "    --csv        one CSV row per change of a device's memory:\n"
                            "                 time_s,device,total_bytes,<category>... (seconds\n"
                            "                 from the start of the trace, bytes)\n"
                            "    --svg OUT    write an SVG chart to OUT ('-': stdout): one\n"
                            "                 stacked area chart of live bytes by category per\n"
                            "                 device, stacked vertically, each with its peak\n"
                            "                 marked; top-level phases as shaded bands. Time\n"
                            "                 is cut into 1000 columns, each showing the moment\n"
                            "                 of its highest total, so no peak is lost\n"
                            "    -h, --help   show this help\n";

typedef struct phase_s {
    char *path; /* "outer/inner" */
    uint64_t peak_bytes, peak_t_ns, total_ns, n_times;
    uint32_t peak_device;
} phase_t;

typedef struct open_phase_s {
    uint64_t thread, t_ns;
    size_t phase; /* index into phases */
    long band;    /* index into bands while a top-level phase, else -1 */
} open_phase_t;

/* --svg: SVG_COLS columns of width col_ns from t0 per device; when an event falls past the
 * last, neighbouring columns merge and the width doubles, so one pass needs no known duration. */
#define SVG_COLS  1000
#define SVG_BANDS 1000 /* top-level phase bands kept; more are counted, not drawn */

typedef struct snap_s {
    uint64_t total, cat[VT_CAT_COUNT];
} snap_t;

typedef struct col_s {
    snap_t max, last; /* at the column's highest total, and at its end */
    int used;
} col_t;

typedef struct dev_cols_s {
    uint32_t device;
    col_t *col; /* [SVG_COLS] */
} dev_cols_t;

typedef struct band_s {
    size_t phase;
    uint64_t t0_ns, t1_ns; /* t1_ns UINT64_MAX while open */
} band_t;

typedef struct timeline_s {
    int csv, header_done;
    const char *svg; /* --svg OUT, or NULL */
    uint64_t col_ns;
    dev_cols_t *dcols;
    size_t n_dcols, cap_dcols;
    band_t *bands;
    size_t n_bands, cap_bands;
    uint64_t bands_dropped;
    uint64_t n_events, last_t_ns;
    phase_t *phases;
    size_t n_phases, cap_phases;
    open_phase_t *open; /* every thread's open phases, innermost last per thread */
    size_t n_open, cap_open;
    int oom; /* out of memory: phases are incomplete */
} timeline_t;

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

static void csv_header(timeline_t *tl)
{
    if (tl->header_done)
        return;
    printf("time_s,device,total_bytes");
    for (int c = 0; c < VT_CAT_COUNT; c++)
        printf(",%s", vt_category_names[c]);
    printf("\n");
    tl->header_done = 1;
}

/* One row per change: built in a buffer (rowfmt.h), not printf'd field by field. */
static void csv_row(const vt_reader_t *r, const vt_device_stats_t *d, uint64_t t_ns)
{
    char row[64 + (VT_CAT_COUNT + 2) * (VT_ROW_U64_MAX + 1)], *p = row;
    p = vt_row_seconds6(p, t_ns > r->t0_ns ? t_ns - r->t0_ns : 0);
    *p++ = ',';
    p = vt_row_u64(p, d->device);
    *p++ = ',';
    p = vt_row_u64(p, d->live_bytes);
    for (int c = 0; c < VT_CAT_COUNT; c++) {
        *p++ = ',';
        p = vt_row_u64(p, d->live_by_category[c]);
    }
    *p++ = '\n';
    vt_row_write(stdout, row, p);
}

/* Merges each band into the previous band of the same phase when the gap between them is under
 * gap_ns (a training loop's steps become one band), keeping open phases' band indices right. */
static void bands_compact(timeline_t *tl, uint64_t gap_ns)
{
    size_t n = 0;
    for (size_t k = 0; k < tl->n_bands; k++) {
        band_t b = tl->bands[k];
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
static long band_open(timeline_t *tl, size_t phase, uint64_t t_ns)
{
    for (size_t k = tl->n_bands; k-- > 0;) {
        band_t *b = &tl->bands[k];
        if (b->phase != phase)
            continue;
        if (b->t1_ns != UINT64_MAX && t_ns - b->t1_ns < tl->col_ns) {
            b->t1_ns = UINT64_MAX;
            return (long)k;
        }
        break;
    }
    /* full: merge with ever wider gaps, down to half */
    for (uint64_t g = tl->col_ns; tl->n_bands >= SVG_BANDS && g && g < UINT64_MAX / 2; g *= 2)
        while (tl->n_bands > SVG_BANDS / 2) {
            size_t before = tl->n_bands;
            bands_compact(tl, g);
            if (tl->n_bands == before)
                break;
        }
    if (tl->n_bands >= SVG_BANDS) {
        tl->bands_dropped++;
        return -1;
    }
    band_t *b = grow(tl->bands, &tl->cap_bands, tl->n_bands + 1, sizeof(*b));
    if (!b) {
        tl->oom = 1;
        return -1;
    }
    tl->bands = b;
    b[tl->n_bands] = (band_t){phase, t_ns, UINT64_MAX};
    return (long)tl->n_bands++;
}

static void col_merge(col_t *out, const col_t *a, const col_t *b)
{
    col_t m = *a;
    if (b->used) {
        if (!a->used || b->max.total > a->max.total)
            m.max = b->max;
        m.last = b->last;
        m.used = 1;
    }
    *out = m;
}

/* Records device d's live memory at t_ns (from t0) in its column. Returns 0, -1 out of memory. */
static int svg_sample(timeline_t *tl, const vt_device_stats_t *d, uint64_t t_ns)
{
    while (t_ns / tl->col_ns >= SVG_COLS) {
        for (size_t k = 0; k < tl->n_dcols; k++) {
            col_t *c = tl->dcols[k].col;
            for (size_t i = 0; i < SVG_COLS / 2; i++)
                col_merge(&c[i], &c[2 * i], &c[2 * i + 1]);
            memset(&c[SVG_COLS / 2], 0, (SVG_COLS - SVG_COLS / 2) * sizeof(*c));
        }
        tl->col_ns *= 2;
    }
    size_t k = 0;
    while (k < tl->n_dcols && tl->dcols[k].device != d->device)
        k++;
    if (k == tl->n_dcols) {
        dev_cols_t *dc = grow(tl->dcols, &tl->cap_dcols, k + 1, sizeof(*dc));
        if (!dc)
            return -1;
        tl->dcols = dc;
        dc[k].device = d->device;
        dc[k].col = calloc(SVG_COLS, sizeof(col_t));
        if (!dc[k].col)
            return -1;
        tl->n_dcols++;
    }
    snap_t s;
    s.total = d->live_bytes;
    memcpy(s.cat, d->live_by_category, sizeof(s.cat));
    col_t *c = &tl->dcols[k].col[t_ns / tl->col_ns];
    if (!c->used || s.total > c->max.total)
        c->max = s;
    c->last = s;
    c->used = 1;
    return 0;
}

/* The open phase innermost on thread, or -1. */
static long innermost(const timeline_t *tl, uint64_t thread)
{
    for (size_t i = tl->n_open; i-- > 0;)
        if (tl->open[i].thread == thread)
            return (long)i;
    return -1;
}

static void phase_push(timeline_t *tl, const vt_reader_t *r, const vt_analysis_t *a,
                       const vt_event_t *ev)
{
    char name[NAME_CAP], path[2 * NAME_CAP];
    long parent = innermost(tl, ev->u.phase.thread);
    vt_reader_cstring(r, ev->u.phase.string_id, name, sizeof(name));
    if (parent >= 0)
        snprintf(path, sizeof(path), "%s/%s", tl->phases[tl->open[parent].phase].path, name);
    else
        snprintf(path, sizeof(path), "%s", name);
    size_t i = 0;
    while (i < tl->n_phases && strcmp(tl->phases[i].path, path) != 0)
        i++;
    if (i == tl->n_phases) {
        phase_t *p = grow(tl->phases, &tl->cap_phases, i + 1, sizeof(*p));
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
    open_phase_t *o = grow(tl->open, &tl->cap_open, tl->n_open + 1, sizeof(*o));
    if (!o) {
        tl->oom = 1;
        return;
    }
    tl->open = o;
    o[tl->n_open++] = (open_phase_t){ev->u.phase.thread, ev->t_ns, i, -1};
    if (tl->svg && parent < 0)
        o[tl->n_open - 1].band = band_open(tl, i, ev->t_ns);
    phase_t *p = &tl->phases[i];
    p->n_times++;
    /* What is live when the phase opens counts toward its peak. */
    const vt_device_stats_t *top = NULL;
    for (uint32_t k = 0; k < a->n_devices; k++)
        if (!top || a->devices[k].live_bytes > top->live_bytes)
            top = &a->devices[k];
    uint64_t live = top ? top->live_bytes : 0;
    if (p->n_times == 1 || live > p->peak_bytes) {
        p->peak_bytes = live;
        p->peak_device = top ? top->device : 0;
        p->peak_t_ns = ev->t_ns;
    }
}

static void phase_pop(timeline_t *tl, const vt_event_t *ev)
{
    long i = innermost(tl, ev->u.phase.thread);
    if (i < 0)
        return; /* a POP without its PUSH (tracing started inside the range) */
    tl->phases[tl->open[i].phase].total_ns += ev->t_ns - tl->open[i].t_ns;
    if (tl->open[i].band >= 0)
        tl->bands[tl->open[i].band].t1_ns = ev->t_ns;
    memmove(&tl->open[i], &tl->open[i + 1], (tl->n_open - (size_t)i - 1) * sizeof(*tl->open));
    tl->n_open--;
}

static int on_record(void *ctx, const vt_reader_t *r, const vt_analysis_t *a, const vt_event_t *ev,
                     const vt_live_t *old, const uint32_t *changed, int n_changed)
{
    timeline_t *tl = ctx;
    (void)old;
    if (vt_stream_is_event(ev)) {
        tl->n_events++;
        tl->last_t_ns = ev->t_ns;
    }
    if (ev->type == VT_REC_PHASE_PUSH && !tl->csv)
        phase_push(tl, r, a, ev);
    else if (ev->type == VT_REC_PHASE_POP && !tl->csv)
        phase_pop(tl, ev);
    for (int k = 0; k < n_changed; k++) {
        const vt_device_stats_t *d = vt_stream_device(a, changed[k]);
        if (!d)
            continue;
        if (tl->csv) {
            csv_header(tl);
            csv_row(r, d, ev->t_ns);
            continue;
        }
        if (tl->svg && svg_sample(tl, d, ev->t_ns > r->t0_ns ? ev->t_ns - r->t0_ns : 0) < 0)
            tl->oom = 1;
        for (size_t i = 0; i < tl->n_open; i++) {
            phase_t *p = &tl->phases[tl->open[i].phase];
            if (d->live_bytes > p->peak_bytes) {
                p->peak_bytes = d->live_bytes;
                p->peak_device = d->device;
                p->peak_t_ns = ev->t_ns;
            }
        }
    }
    return 0;
}

static void print_summary(const char *path, const vt_reader_t *r, const vt_analysis_t *a,
                          const timeline_t *tl)
{
    char b1[32], b2[32], s1[32], s2[32];
    uint64_t t0 = r->t0_ns;
    uint64_t duration = tl->last_t_ns > t0 ? tl->last_t_ns - t0 : 0;
    printf("timeline of '%s': %s, %" PRIu64 " event%s (%" PRIu64 " allocation%s, %" PRIu64
           " free%s)\n",
           path, vt_fmt_seconds(duration, s1, sizeof(s1)), tl->n_events,
           tl->n_events == 1 ? "" : "s", a->n_allocs, a->n_allocs == 1 ? "" : "s", a->n_frees,
           a->n_frees == 1 ? "" : "s");
    const vt_device_stats_t *peak = vt_analysis_peak(a);
    if (!peak || !peak->peak_bytes) {
        printf("device peak: 0 B (no device memory allocated)\n");
    } else {
        printf("device peak: %s on device %" PRIu32 " at %s\n",
               vt_fmt_binary(peak->peak_bytes, b1, sizeof(b1)), peak->device,
               vt_fmt_seconds(peak->peak_t_ns - t0, s1, sizeof(s1)));
        for (uint32_t i = 0; i < a->n_devices; i++) {
            const vt_device_stats_t *d = &a->devices[i];
            printf("  device %" PRIu32 ": peak %s at %s, %s at the end\n", d->device,
                   vt_fmt_binary(d->peak_bytes, b1, sizeof(b1)),
                   vt_fmt_seconds(d->peak_t_ns - t0, s1, sizeof(s1)),
                   vt_fmt_binary(d->live_bytes, b2, sizeof(b2)));
        }
    }
    if (!tl->n_phases)
        return;
    printf("phases (device peak while open):\n");
    for (size_t i = 0; i < tl->n_phases; i++) {
        const phase_t *p = &tl->phases[i];
        printf("  %-20s %11s on device %" PRIu32 " at %s (%" PRIu64 " time%s, %s in all)\n",
               p->path, vt_fmt_binary(p->peak_bytes, b1, sizeof(b1)), p->peak_device,
               vt_fmt_seconds(p->peak_t_ns - t0, s1, sizeof(s1)), p->n_times,
               p->n_times == 1 ? "" : "s", vt_fmt_seconds(p->total_ns, s2, sizeof(s2)));
    }
}

/* ---- --svg rendering ------------------------------------------------------------------- */

/* Tableau 10: distinct in print and for the common colour blindnesses. */
const char *const vt_category_colors[VT_CAT_COUNT] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#bab0ac",
};

#define SVG_W      1200
#define SVG_PX0    90 /* plot left */
#define SVG_PW     1000
#define SVG_TOP    84 /* first panel */
#define SVG_PANEL  330
#define SVG_PH     260
#define SVG_PLOT_Y 30 /* plot top inside a panel */

/* A y tick: "0", "512 MiB", "1.5 GiB" (binary units, trailing zeros dropped). */
static void fmt_bytes_tick(uint64_t v, char *buf, size_t cap)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    double x = (double)v;
    while (u < 5 && x >= 1024.0) {
        x /= 1024.0;
        u++;
    }
    if (!v) {
        snprintf(buf, cap, "0");
        return;
    }
    snprintf(buf, cap, "%.3f", x);
    char *e = buf + strlen(buf);
    while (e[-1] == '0')
        *--e = 0;
    if (e[-1] == '.')
        *--e = 0;
    snprintf(e, cap - (size_t)(e - buf), " %s", units[u]);
}

/* An x tick at v ns in the unit of the span: "0.2 s", "150 ms", "20 us". */
static void fmt_time_tick(uint64_t v, uint64_t unit, const char *name, int decimals, char *buf,
                          size_t cap)
{
    if (!v)
        snprintf(buf, cap, "0");
    else
        snprintf(buf, cap, "%.*f %s", decimals, (double)v / (double)unit, name);
}

/* The value a column shows: its highest moment, or what it carried in when that was higher
 * (an event early in the column freed memory held since before). */
static const snap_t *col_value(const col_t *c, const snap_t *carried)
{
    if (!c->used || carried->total > c->max.total)
        return carried;
    return &c->max;
}

static double svg_x(uint64_t t, uint64_t span)
{
    return SVG_PX0 + (double)SVG_PW * (double)(t > span ? span : t) / (double)span;
}

/* One edge of a category's area: the step line of vals' categories 0..upto summed, left to right
 * (forward, starting the path) or back; a point only where the value changes. */
static void svg_edge(FILE *out, const snap_t *vals, size_t n, int upto, int forward,
                     uint64_t col_ns, uint64_t span, double py, uint64_t ymax)
{
    uint64_t prev = 0;
    for (size_t j = 0; j < n; j++) {
        size_t i = forward ? j : n - 1 - j;
        uint64_t sum = 0;
        for (int k = 0; k <= upto; k++)
            sum += vals[i].cat[k];
        double y = py + SVG_PH - (double)SVG_PH * (double)sum / (double)ymax;
        double x = svg_x(forward ? i * col_ns : (i + 1) * col_ns, span);
        if (j == 0)
            fprintf(out, "%s%.1f %.1f", forward ? "M" : " L", x, y);
        else if (sum != prev)
            fprintf(out, " L%.1f %.1f L%.1f %.1f", x,
                    py + SVG_PH - (double)SVG_PH * (double)prev / (double)ymax, x, y);
        prev = sum;
    }
    double y = py + SVG_PH - (double)SVG_PH * (double)prev / (double)ymax;
    fprintf(out, " L%.1f %.1f", svg_x(forward ? n * col_ns : 0, span), y);
}

static void svg_panel(FILE *out, const timeline_t *tl, const vt_reader_t *r,
                      const vt_device_stats_t *d, const dev_cols_t *dc, int panel, uint64_t span)
{
    char b1[32], b2[32];
    double y0 = SVG_TOP + (double)panel * SVG_PANEL, py = y0 + SVG_PLOT_Y;
    uint64_t t0 = r->t0_ns;
    /* y: a power-of-two step, at most 8 of them up to the peak, or up to the device's capacity
     * when the peak is a quarter of it or more (the capacity line then fits without flattening
     * the areas) */
    const vt_trace_device_t *info = vt_reader_device(r, d->device);
    uint64_t capacity = info ? info->total_bytes : 0;
    uint64_t peak = d->peak_bytes ? d->peak_bytes : 1, step = 1;
    bool capacity_on_scale = capacity && capacity / 4 <= peak;
    uint64_t top = capacity_on_scale && capacity > peak ? capacity : peak;
    while ((top + step - 1) / step > 8)
        step *= 2;
    uint64_t ymax = (top + step - 1) / step * step;
#define Y(v) (py + SVG_PH - (double)SVG_PH * (double)(v) / (double)ymax)

    char title[320];
    fprintf(out,
            "<g class=\"device\">\n<text x=\"%d\" y=\"%.1f\" font-size=\"14\" "
            "font-weight=\"bold\">",
            SVG_PX0, y0 + 18);
    vt_xml_text(out, vt_reader_device_text(r, d->device, title, sizeof(title)));
    fputs("</text>\n", out);
    fprintf(
        out,
        "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"#fafafa\" stroke=\"#999\"/>\n",
        SVG_PX0, py, SVG_PW, SVG_PH);
    /* phase bands, behind the areas */
    for (size_t k = 0; k < tl->n_bands; k++) {
        const band_t *b = &tl->bands[k];
        uint64_t a0 = b->t0_ns > t0 ? b->t0_ns - t0 : 0;
        uint64_t a1 = b->t1_ns == UINT64_MAX ? span : (b->t1_ns > t0 ? b->t1_ns - t0 : 0);
        double x0 = svg_x(a0, span), w = svg_x(a1, span) - x0;
        fprintf(
            out,
            "<rect class=\"phase\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"#8c8cc8\" fill-opacity=\"0.18\"><title>",
            x0, py, w < 1 ? 1.0 : w, SVG_PH);
        vt_xml_text(out, tl->phases[b->phase].path);
        fputs("</title></rect>\n", out);
    }
    /* y axis */
    for (uint64_t v = 0; v <= ymax; v += step) {
        fmt_bytes_tick(v, b1, sizeof(b1));
        fprintf(
            out,
            "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
            SVG_PX0, Y(v), SVG_PX0 + SVG_PW, Y(v), SVG_PX0 - 6, Y(v) + 4, b1);
    }
    /* x axis: 1, 2 or 5 times a power of ten, at most 10 steps */
    uint64_t xs = 1;
    for (uint64_t m = 1;; m *= 10) {
        if (span / m <= 10) {
            xs = m;
            break;
        }
        if (span / (2 * m) <= 10) {
            xs = 2 * m;
            break;
        }
        if (span / (5 * m) <= 10) {
            xs = 5 * m;
            break;
        }
    }
    uint64_t unit = span >= 1000000000 ? 1000000000
                    : span >= 1000000  ? 1000000
                    : span >= 1000     ? 1000
                                       : 1;
    const char *uname = unit == 1000000000 ? "s"
                        : unit == 1000000  ? "ms"
                        : unit == 1000     ? "us"
                                           : "ns";
    int dec = 0;
    for (uint64_t q = unit; q > xs && dec < 9; q /= 10)
        dec++;
    for (uint64_t t = 0; t <= span; t += xs) {
        fmt_time_tick(t, unit, uname, dec, b1, sizeof(b1));
        fprintf(
            out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
            svg_x(t, span), py + SVG_PH, svg_x(t, span), py + SVG_PH + 5, svg_x(t, span),
            py + SVG_PH + 18, b1);
        if (t > UINT64_MAX - xs)
            break;
    }
    /* the areas: one path per category with memory, stacked in category order */
    size_t n = (size_t)(span / tl->col_ns) + 1;
    if (n > SVG_COLS)
        n = SVG_COLS;
    snap_t *vals = malloc(n * sizeof(*vals));
    if (!vals)
        n = 0; /* no areas rather than no chart */
    snap_t carried;
    memset(&carried, 0, sizeof(carried));
    for (size_t i = 0; i < n; i++) {
        vals[i] = *col_value(&dc->col[i], &carried);
        if (dc->col[i].used)
            carried = dc->col[i].last;
    }
    for (int c = 0; c < VT_CAT_COUNT; c++) {
        int any = 0;
        for (size_t i = 0; i < n && !any; i++)
            any = vals[i].cat[c] != 0;
        if (!any)
            continue;
        fprintf(out, "<path class=\"%s\" fill=\"%s\" fill-opacity=\"0.85\" stroke=\"none\" d=\"",
                vt_category_names[c], vt_category_colors[c]);
        /* a step per column: the top edge left to right, then the edge below back */
        svg_edge(out, vals, n, c, 1, tl->col_ns, span, py, ymax);
        svg_edge(out, vals, n, c - 1, 0, tl->col_ns, span, py, ymax);
        fputs(" Z\"/>\n", out);
    }
    free(vals);
    /* phase labels, above the areas */
    for (size_t k = 0; k < tl->n_bands; k++) {
        const band_t *b = &tl->bands[k];
        uint64_t a0 = b->t0_ns > t0 ? b->t0_ns - t0 : 0;
        uint64_t a1 = b->t1_ns == UINT64_MAX ? span : (b->t1_ns > t0 ? b->t1_ns - t0 : 0);
        double x0 = svg_x(a0, span);
        if (svg_x(a1, span) - x0 < 24)
            continue; /* too narrow: the band's <title> names it */
        fprintf(out, "<text class=\"phase-label\" x=\"%.1f\" y=\"%.1f\" fill=\"#446\">", x0 + 3,
                py + 12);
        vt_xml_text(out, tl->phases[b->phase].path);
        fputs("</text>\n", out);
    }
    /* the device's capacity: a line when it is on the scale, a note above the plot otherwise */
    if (capacity) {
        char share[48];
        vt_reader_device_share(r, d->device, d->peak_bytes, share, sizeof(share));
        if (capacity_on_scale)
            fprintf(out,
                    "<line class=\"capacity\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                    "stroke=\"#000\" stroke-width=\"1.5\"/>\n<text class=\"capacity-label\" "
                    "x=\"%d\" y=\"%.1f\" text-anchor=\"end\">capacity %s</text>\n",
                    SVG_PX0, Y(capacity), SVG_PX0 + SVG_PW, Y(capacity), SVG_PX0 + SVG_PW - 4,
                    Y(capacity) - 4, vt_fmt_binary(capacity, b1, sizeof(b1)));
        else
            fprintf(out,
                    "<text class=\"capacity-label\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">"
                    "capacity %s, above the scale (peak %s)</text>\n",
                    SVG_PX0 + SVG_PW, y0 + 18, vt_fmt_binary(capacity, b1, sizeof(b1)), share);
    }
    /* the peak */
    if (d->peak_bytes) {
        double x = svg_x(d->peak_t_ns > t0 ? d->peak_t_ns - t0 : 0, span);
        int right = x > SVG_PX0 + 0.7 * SVG_PW;
        fprintf(
            out,
            "<line class=\"peak\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n",
            x, py, x, py + SVG_PH);
        fprintf(
            out,
            "<text class=\"peak-label\" x=\"%.1f\" y=\"%.1f\" fill=\"#c00\" text-anchor=\"%s\">peak %s at %s</text>\n",
            right ? x - 4 : x + 4, py + 28, right ? "end" : "start",
            vt_fmt_binary(d->peak_bytes, b1, sizeof(b1)),
            vt_fmt_seconds(d->peak_t_ns > t0 ? d->peak_t_ns - t0 : 0, b2, sizeof(b2)));
    }
    fputs("</g>\n", out);
#undef Y
}

/* Writes the chart to out. */
static void svg_write(FILE *out, const char *path, const vt_reader_t *r, const vt_analysis_t *a,
                      timeline_t *tl, int standalone)
{
    char b1[32], b2[32], b3[32];
    uint64_t span = tl->last_t_ns > r->t0_ns ? tl->last_t_ns - r->t0_ns : 0;
    if (!span)
        span = 1;
    bands_compact(tl, tl->col_ns); /* bands closer than a column are one to the eye */
    int n_panels = 0;
    for (uint32_t i = 0; i < a->n_devices; i++)
        for (size_t k = 0; k < tl->n_dcols; k++)
            n_panels += tl->dcols[k].device == a->devices[i].device;
    int height = SVG_TOP + (n_panels ? n_panels : 1) * SVG_PANEL;
    if (standalone) /* inside HTML the page declares the encoding */
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
        SVG_W, height, SVG_W, height);
    fputs("<title>vramtrace timeline of '", out);
    vt_xml_text(out, path);
    fputs("'</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", out);
    fprintf(out,
            "<text x=\"%d\" y=\"24\" font-size=\"16\" font-weight=\"bold\">vramtrace timeline of '",
            SVG_PX0);
    vt_xml_text(out, path);
    fputs("'</text>\n", out);
    const vt_device_stats_t *peak = vt_analysis_peak(a);
    if (peak && peak->peak_bytes)
        fprintf(
            out,
            "<text x=\"%d\" y=\"42\">live device memory by category over %s; peak %s on device %" PRIu32
            " at %s</text>\n",
            SVG_PX0, vt_fmt_seconds(span, b1, sizeof(b1)),
            vt_fmt_binary(peak->peak_bytes, b2, sizeof(b2)), peak->device,
            vt_fmt_seconds(peak->peak_t_ns - r->t0_ns, b3, sizeof(b3)));
    else
        fprintf(out, "<text x=\"%d\" y=\"42\">no device memory allocated</text>\n", SVG_PX0);
    /* the legend */
    for (int c = 0; c < VT_CAT_COUNT; c++) {
        int x = SVG_PX0 + c * 140;
        fprintf(
            out,
            "<rect x=\"%d\" y=\"54\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"64\">%s</text>\n",
            x, vt_category_colors[c], x + 16, vt_category_names[c]);
    }
    if (tl->bands_dropped)
        fprintf(out,
                "<text x=\"%d\" y=\"80\" fill=\"#666\">%" PRIu64
                " more phase ranges not shown</text>\n",
                SVG_PX0, tl->bands_dropped);
    int panel = 0;
    for (uint32_t i = 0; i < a->n_devices; i++)
        for (size_t k = 0; k < tl->n_dcols; k++)
            if (tl->dcols[k].device == a->devices[i].device)
                svg_panel(out, tl, r, &a->devices[i], &tl->dcols[k], panel++, span);
    fputs("</svg>\n", out);
}

/* Writes the chart to tl->svg ("-": stdout). Returns 0, or -1 after a message. */
static int svg_save(const char *path, const vt_reader_t *r, const vt_analysis_t *a, timeline_t *tl)
{
    if (strcmp(tl->svg, "-") == 0) {
        svg_write(stdout, path, r, a, tl, 1);
        return 0; /* main checks stdout's writes */
    }
    FILE *out = fopen(tl->svg, "w");
    if (!out)
        return error("cannot write '%s': %s", tl->svg, strerror(errno));
    svg_write(out, path, r, a, tl, 1);
    errno = 0;
    int failed = ferror(out);
    if (fclose(out) != 0 || failed)
        return error("cannot write '%s': %s", tl->svg, strerror(errno ? errno : EIO));
    return 0;
}

static void timeline_release(timeline_t *tl)
{
    for (size_t i = 0; i < tl->n_phases; i++)
        free(tl->phases[i].path);
    free(tl->phases);
    free(tl->open);
    for (size_t k = 0; k < tl->n_dcols; k++)
        free(tl->dcols[k].col);
    free(tl->dcols);
    free(tl->bands);
}

int cmd_timeline(int argc, char **argv)
{
    const char *path = NULL;
    timeline_t tl;
    memset(&tl, 0, sizeof(tl));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int taken;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--csv") == 0) {
            tl.csv = 1;
        } else if ((taken = vt_arg_value(argc, argv, &i, 0, "--svg", "timeline", &tl.svg))) {
            if (taken < 0)
                return EXIT_USAGE;
        } else if (a[0] == '-' && a[1]) {
            return vt_arg_unknown(a, "timeline");
        } else if (path) {
            error("timeline reads one trace: '%s' and '%s'", path, a);
            return EXIT_USAGE;
        } else {
            path = a;
        }
    }
    if (!path) {
        error("timeline needs a trace file. See 'vramtrace timeline --help'.");
        return EXIT_USAGE;
    }
    if (tl.csv && tl.svg) {
        error("--csv and --svg cannot be combined. See 'vramtrace timeline --help'.");
        return EXIT_USAGE;
    }
    tl.col_ns = 1000; /* 1 ms over the SVG_COLS columns; doubles as the trace goes on */

    vt_reader_t r;
    vt_analysis_t a;
    int rc = vt_trace_stream(path, &r, &a, on_record, &tl);
    if (rc >= 0) {
        int failed = 0;
        if (tl.csv)
            csv_header(&tl);
        else if (tl.svg)
            failed = svg_save(path, &r, &a, &tl);
        else
            print_summary(path, &r, &a, &tl);
        if (failed)
            rc = -1;
        else if (tl.oom)
            rc = error("'%s': out of memory following the phases", path);
        vt_analysis_release(&a);
        vt_reader_release(&r);
    }
    timeline_release(&tl);
    return rc ? 1 : 0;
}

int vt_timeline_svg(const char *path, FILE *out)
{
    timeline_t tl;
    memset(&tl, 0, sizeof(tl));
    tl.svg = "-";
    tl.col_ns = 1000;
    vt_reader_t r;
    vt_analysis_t a;
    int rc = vt_trace_stream(path, &r, &a, on_record, &tl);
    if (rc >= 0) {
        svg_write(out, path, &r, &a, &tl, 0);
        if (tl.oom)
            rc = error("'%s': out of memory following the phases", path);
        vt_analysis_release(&a);
        vt_reader_release(&r);
    }
    timeline_release(&tl);
    return rc;
}

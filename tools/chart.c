/* SPDX-License-Identifier: MIT */
/* The timeline chart (chart.h): a self-contained SVG of live device memory by category, a
 * stacked area per device with the phases as bands and the peak marked, drawn from a timeline
 * (timeline.h). `timeline --svg` writes it; `html` embeds it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sat.h"
#include "chart.h"
#include "units.h"
#include "util.h"

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

#define LABEL_ROWS    3   /* rows of phase labels */
#define LABEL_CHAR_PX 6.8 /* a character's width at font-size 12, generously */

/* A y tick: "0", "512 MiB", "1.5 GiB" (binary units, trailing zeros dropped). */
static void fmt_bytes_tick(uint64_t v, char *buf, size_t cap)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    double x = (double)v;
    while (u < 6 && x >= 1024.0) {
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
static const vt_tl_snap_t *col_value(const vt_tl_col_t *c, const vt_tl_snap_t *carried)
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
static void svg_edge(FILE *out, const vt_tl_snap_t *vals, size_t n, int upto, int forward,
                     uint64_t col_ns, uint64_t span, double py, double ymax)
{
    uint64_t prev = 0;
    for (size_t j = 0; j < n; j++) {
        size_t i = forward ? j : n - 1 - j;
        uint64_t sum = 0;
        for (int k = 0; k <= upto; k++)
            sum = vt_sat_add(sum, vals[i].cat[k]);
        double y = py + SVG_PH - (double)SVG_PH * (double)sum / (double)ymax;
        double x = svg_x(vt_sat_mul(forward ? i : i + 1, col_ns), span);
        if (j == 0)
            fprintf(out, "%s%.1f %.1f", forward ? "M" : " L", x, y);
        else if (sum != prev)
            fprintf(out, " L%.1f %.1f L%.1f %.1f", x,
                    py + SVG_PH - (double)SVG_PH * (double)prev / (double)ymax, x, y);
        prev = sum;
    }
    double y = py + SVG_PH - (double)SVG_PH * (double)prev / (double)ymax;
    fprintf(out, " L%.1f %.1f", svg_x(forward ? vt_sat_mul(n, col_ns) : 0, span), y);
}

static void svg_panel(FILE *out, const vt_timeline_t *tl, const vt_reader_t *r,
                      const vt_analysis_t *a, const vt_device_stats_t *d,
                      const vt_tl_dev_cols_t *dc, int panel, uint64_t span)
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
    /* The steps up to top, rounded up, counted without forming top + step - 1, which wraps near
     * 2^64; so is the scale's top, which may be 2^64 itself: a double. */
    uint64_t n_steps;
    while ((n_steps = top / step + (top % step != 0)) > 8)
        step *= 2;
    double ymax = (double)n_steps * (double)step;
#define Y(v) (py + SVG_PH - (double)SVG_PH * (double)(v) / ymax)

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
        const vt_tl_band_t *b = &tl->bands[k];
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
    for (uint64_t k = 0; k <= n_steps && k <= UINT64_MAX / step; k++) {
        uint64_t v = k * step;
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
    if (n > VT_TIMELINE_COLS)
        n = VT_TIMELINE_COLS;
    vt_tl_snap_t *vals = malloc(n * sizeof(*vals));
    if (!vals)
        n = 0; /* no areas rather than no chart */
    vt_tl_snap_t carried;
    memset(&carried, 0, sizeof(carried));
    for (size_t i = 0; i < n; i++) {
        vals[i] = *col_value(&dc->col[i], &carried);
        if (dc->col[i].used)
            carried = dc->col[i].last;
    }
    /* the pools' spare reservation on top: the top edge is the device's figure, the peak's */
    for (int c = 0; c <= VT_TL_SPARE; c++) {
        int any = 0;
        for (size_t i = 0; i < n && !any; i++)
            any = vals[i].cat[c] != 0;
        if (!any)
            continue;
        fprintf(out, "<path class=\"%s\" fill=\"%s\" fill-opacity=\"0.85\" stroke=\"none\" d=\"",
                c < VT_CAT_COUNT ? vt_category_names[c] : "pool-spare",
                c < VT_CAT_COUNT ? vt_category_colors[c] : VT_POOL_SPARE_COLOR);
        /* a step per column: the top edge left to right, then the edge below back */
        svg_edge(out, vals, n, c, 1, tl->col_ns, span, py, ymax);
        svg_edge(out, vals, n, c - 1, 0, tl->col_ns, span, py, ymax);
        fputs(" Z\"/>\n", out);
    }
    free(vals);
    /* phase labels, above the areas, left to right in the first of LABEL_ROWS rows where one
     * fits without touching the label before it; a label that fits nowhere is left out (the
     * band's <title> names it) */
    double row_end[LABEL_ROWS];
    for (int k = 0; k < LABEL_ROWS; k++)
        row_end[k] = 0;
    for (size_t k = 0; k < tl->n_bands; k++) {
        const vt_tl_band_t *b = &tl->bands[k];
        uint64_t a0 = b->t0_ns > t0 ? b->t0_ns - t0 : 0;
        uint64_t a1 = b->t1_ns == UINT64_MAX ? span : (b->t1_ns > t0 ? b->t1_ns - t0 : 0);
        double x0 = svg_x(a0, span) + 3;
        if (svg_x(a1, span) - x0 < 21)
            continue; /* too narrow: the band's <title> names it */
        double w = LABEL_CHAR_PX * (double)strlen(tl->phases[b->phase].path) + 6;
        int row = 0;
        while (row < LABEL_ROWS && (x0 < row_end[row] || x0 + w > SVG_PX0 + SVG_PW + 100))
            row++;
        if (row == LABEL_ROWS)
            continue;
        row_end[row] = x0 + w;
        fprintf(out, "<text class=\"phase-label\" x=\"%.1f\" y=\"%.1f\" fill=\"#446\">", x0,
                py + 12 + 13.0 * row);
        vt_xml_text(out, tl->phases[b->phase].path);
        fputs("</text>\n", out);
    }
    /* the OOMs of this device */
    for (uint32_t k = 0; k < a->n_ooms; k++) {
        const vt_oom_t *o = &a->ooms[k];
        if (o->device != d->device)
            continue;
        double x = svg_x(o->t_ns > t0 ? o->t_ns - t0 : 0, span);
        fprintf(out,
                "<g class=\"oom\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#d00\" stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\" fill=\"#d00\" "
                "font-weight=\"bold\">OOM</text><title>out of memory: %s requested at %s</title>"
                "</g>\n",
                x, py - 14, x, py + SVG_PH, x + 3, py - 4,
                vt_fmt_binary(o->requested_bytes, b1, sizeof(b1)),
                vt_fmt_seconds(o->t_ns > t0 ? o->t_ns - t0 : 0, b2, sizeof(b2)));
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

void vt_chart_svg(FILE *out, const char *path, const vt_reader_t *r, const vt_analysis_t *a,
                  vt_timeline_t *tl, int standalone)
{
    char b1[32], b2[32], b3[32];
    uint64_t span = tl->last_t_ns > r->t0_ns ? tl->last_t_ns - r->t0_ns : 0;
    if (!span)
        span = 1;
    vt_timeline_compact_bands(tl, tl->col_ns); /* bands closer than a column are one to the eye */
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
    /* the legend (the pools' spare only when a device has pools) */
    bool pools = false;
    for (uint32_t i = 0; i < a->n_devices; i++)
        pools = pools || a->devices[i].pool_reserved_peak_bytes;
    for (int c = 0; c < (pools ? VT_CAT_COUNT + 1 : VT_CAT_COUNT); c++) {
        int x = SVG_PX0 + c * (pools ? 124 : 140);
        fprintf(
            out,
            "<rect x=\"%d\" y=\"54\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"64\">%s</text>\n",
            x, c < VT_CAT_COUNT ? vt_category_colors[c] : VT_POOL_SPARE_COLOR, x + 16,
            c < VT_CAT_COUNT ? vt_category_names[c] : "pool spare");
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
                svg_panel(out, tl, r, a, &a->devices[i], &tl->dcols[k], panel++, span);
    fputs("</svg>\n", out);
}

int vt_chart_svg_trace(const char *path, FILE *out, vt_stream_fn also, void *also_ctx,
                       vt_recategorize_fn recat, void *recat_ctx, uint64_t *span_ns)
{
    vt_timeline_t tl;
    vt_timeline_init(&tl);
    tl.columns = 1;
    tl.also = also;
    tl.also_ctx = also_ctx;
    tl.recategorize = recat;
    tl.recategorize_ctx = recat_ctx;
    vt_reader_t r;
    vt_analysis_t a;
    *span_ns = 0;
    int rc = vt_timeline_stream(&tl, path, &r, &a);
    if (rc >= 0) {
        *span_ns = tl.last_t_ns > r.t0_ns ? tl.last_t_ns - r.t0_ns : 0;
        vt_chart_svg(out, path, &r, &a, &tl, 0);
        if (tl.oom)
            rc = error("'%s': out of memory following the phases", path);
        vt_analysis_release(&a);
        vt_reader_release(&r);
    }
    vt_timeline_release(&tl);
    return rc;
}

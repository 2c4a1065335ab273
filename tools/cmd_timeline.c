/* SPDX-License-Identifier: MIT */
/* `vramtrace timeline FILE [--csv | --svg OUT]`: device memory over time. The text summary gives
 * the trace's duration and events, each device's peak and when, and the device peak inside each
 * phase (PHASE_PUSH/POP ranges, nested names joined with '/'); --csv writes one row per change
 * of a device's live memory, by category; --svg draws a self-contained stacked area chart per
 * device. One streaming pass: memory is bounded by the live set, the number of distinct phases
 * and the chart's columns per device (timeline.h). Exit statuses: 0 ok, 1 unreadable or damaged trace (what
 * came before the damage is still shown) or unwritable output, 2 usage. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "chart.h"
#include "commands.h"
#include "load.h"
#include "rowfmt.h"
#include "timeline.h"
#include "units.h"
#include "args.h"
#include "util.h"

enum { OPT_CSV = 1, OPT_SVG };

static const vt_option_t options[] = {
    {OPT_CSV, 0, "--csv", NULL, 0,
     "one CSV row per change of a device's memory: time_s,device,total_bytes,<category>... "
     "(seconds from the start of the trace, bytes)"},
    {OPT_SVG, 0, "--svg", "OUT", 0,
     "write an SVG chart to OUT ('-': stdout): one stacked area chart of live bytes by category "
     "per device, stacked vertically, each with its peak marked; top-level phases as shaded "
     "bands. Time is cut into 1000 columns, each showing the moment of its highest total, so "
     "no peak is lost"},
    {0},
};

static const vt_args_spec_t spec = {
    .name = "timeline",
    .usage = "usage: vramtrace timeline FILE [--csv | --svg OUT]\n",
    .about = "Device memory over time: the trace's duration and events, each device's peak and "
             "when, and the device peak inside each phase.",
    .tables = {options},
};

/* A column's last value on one device and its text: an event changes one category of one device,
 * so most of a row is the text of that device's row before, copied instead of formatted again. */
typedef struct col_text_s {
    uint64_t value;
    uint8_t len; /* 0: nothing yet */
    char text[VT_ROW_U64_MAX + 3];
} col_text_t;

#define CSV_CACHED_DEVICES 16 /* a device past these has its rows formatted in full */

typedef struct csv_s {
    vt_rowbuf_t rows; /* on stdout, after the header */
    int header_done;
    size_t n_devices;
    uint32_t device[CSV_CACHED_DEVICES];
    col_text_t cols[CSV_CACHED_DEVICES][VT_CAT_COUNT + 1]; /* total, then the categories */
} csv_t;

static void csv_header(csv_t *csv)
{
    if (csv->header_done)
        return;
    printf("time_s,device,total_bytes");
    for (int c = 0; c < VT_CAT_COUNT; c++)
        printf(",%s", vt_category_names[c]);
    printf("\n");
    csv->header_done = 1;
}

/* v at p: col's text when v is its value, else formatted (and kept in col when there is one).
 * Writes up to sizeof(col->text) bytes at p; returns the end of v's text. */
static char *col_put(char *p, col_text_t *col, uint64_t v)
{
    if (!col)
        return vt_row_u64(p, v);
    if (!col->len || col->value != v) {
        col->len = (uint8_t)(vt_row_u64(col->text, v) - col->text);
        col->value = v;
    }
    memcpy(p, col->text, sizeof(col->text)); /* a fixed size: one move, not a call */
    return p + col->len;
}

/* The columns kept for device, or NULL when CSV_CACHED_DEVICES others came first. */
static col_text_t *csv_cols(csv_t *csv, uint32_t device)
{
    for (size_t i = 0; i < csv->n_devices; i++)
        if (csv->device[i] == device)
            return csv->cols[i];
    if (csv->n_devices == CSV_CACHED_DEVICES)
        return NULL;
    csv->device[csv->n_devices] = device;
    return csv->cols[csv->n_devices++];
}

#define CSV_ROW_MAX (64 + (VT_CAT_COUNT + 3) * sizeof(((col_text_t *)0)->text))

/* One row per change: built in the row buffer (rowfmt.h), not printf'd field by field. */
static void csv_row(csv_t *csv, const vt_reader_t *r, const vt_device_stats_t *d, uint64_t t_ns)
{
    char *p = vt_rowbuf_room(&csv->rows, CSV_ROW_MAX);
    col_text_t *cols = csv_cols(csv, d->device);
    p = vt_row_seconds6(p, t_ns > r->t0_ns ? t_ns - r->t0_ns : 0);
    *p++ = ',';
    p = vt_row_u64(p, d->device);
    *p++ = ',';
    p = col_put(p, cols ? &cols[0] : NULL, d->live_bytes);
    for (int c = 0; c < VT_CAT_COUNT; c++) {
        *p++ = ',';
        p = col_put(p, cols ? &cols[1 + c] : NULL, d->live_by_category[c]);
    }
    *p++ = '\n';
    vt_rowbuf_end(&csv->rows, p);
}

/* --csv: the header before the first row, then one row per change. */
static void csv_change(void *ctx, const vt_reader_t *r, const vt_device_stats_t *d, uint64_t t_ns)
{
    csv_header(ctx);
    csv_row(ctx, r, d, t_ns);
}

static void print_summary(const char *path, const vt_reader_t *r, const vt_analysis_t *a,
                          const vt_timeline_t *tl)
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
        const vt_tl_phase_t *p = &tl->phases[i];
        printf("  %-20s %11s on device %" PRIu32 " at %s (%" PRIu64 " time%s, %s in all)\n",
               p->path, vt_fmt_binary(p->peak_bytes, b1, sizeof(b1)), p->peak_device,
               vt_fmt_seconds(p->peak_t_ns - t0, s1, sizeof(s1)), p->n_times,
               p->n_times == 1 ? "" : "s", vt_fmt_seconds(p->total_ns, s2, sizeof(s2)));
    }
}

/* Writes the chart to svg ("-": stdout). Returns 0, or -1 after a message. */
static int svg_save(const char *svg, const char *path, const vt_reader_t *r, const vt_analysis_t *a,
                    vt_timeline_t *tl)
{
    if (strcmp(svg, "-") == 0) {
        vt_chart_svg(stdout, path, r, a, tl, 1);
        return 0; /* main checks stdout's writes */
    }
    FILE *out = vt_output_open(svg);
    if (!out)
        return error("cannot write '%s': %s", svg, vt_output_strerror(svg, errno));
    vt_chart_svg(out, path, r, a, tl, 1);
    errno = 0;
    int failed = ferror(out);
    if (fclose(out) != 0 || failed)
        return error("cannot write '%s': %s", svg, strerror(errno ? errno : EIO));
    return 0;
}

int cmd_timeline(int argc, char **argv)
{
    const char *path = NULL;
    vt_timeline_t tl;
    vt_timeline_init(&tl);
    static csv_t csv; /* 64 KiB of rows: not on the stack */
    memset(&csv, 0, sizeof(csv));
    csv.rows.out = stdout;
    const char *svg = NULL; /* --svg OUT, or NULL */
    vt_args_t args;
    vt_args_init(&args, &spec, argc, argv);
    for (int opt; (opt = vt_args_next(&args)) != VT_ARG_DONE;) {
        if (opt == VT_ARG_ERROR) {
            return EXIT_USAGE;
        } else if (opt == VT_ARG_HELP) {
            vt_args_help(&spec, stdout);
            return 0;
        } else if (opt == OPT_CSV) {
            tl.row = csv_change;
            tl.row_ctx = &csv;
        } else if (opt == OPT_SVG) {
            svg = args.value;
            tl.columns = 1;
        } else if (path) {
            error("timeline reads one trace: '%s' and '%s'", path, args.value);
            return EXIT_USAGE;
        } else {
            path = args.value;
        }
    }
    if (!path) {
        error("timeline needs a trace file. See 'vramtrace timeline --help'.");
        return EXIT_USAGE;
    }
    if (tl.row && svg) {
        error("--csv and --svg cannot be combined. See 'vramtrace timeline --help'.");
        return EXIT_USAGE;
    }

    vt_reader_t r;
    vt_analysis_t a;
    int rc = vt_timeline_stream(&tl, path, &r, &a);
    if (rc >= 0) {
        int failed = 0;
        if (tl.row) {
            csv_header(&csv);
            vt_rowbuf_flush(&csv.rows);
        } else if (svg)
            failed = svg_save(svg, path, &r, &a, &tl);
        else
            print_summary(path, &r, &a, &tl);
        if (failed)
            rc = -1;
        else if (tl.oom)
            rc = error("'%s': out of memory following the phases", path);
        vt_analysis_release(&a);
        vt_reader_release(&r);
    }
    vt_timeline_release(&tl);
    return rc ? 1 : 0;
}

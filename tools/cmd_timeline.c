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
     "one CSV row per change of a device's memory: time_s,device,total_bytes,<category>...,"
     "pool_spare_bytes (seconds from the start of the trace, bytes; total_bytes is the "
     "allocations, the sum of the categories; the device holds it and pool_spare_bytes, what its "
     "stream-ordered pools reserve beyond their allocations)"},
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

/* The categories' columns of one device's last row as text, ",c0,c1,...,c6,spare\n": an event
 * changes one category of one device (or its pools' spare), so a row is its time, the device, the
 * total and this text with the changed column formatted again: the columns before it and after it
 * are copied as two blocks.
 * Two copies of the text, the row's new one written beside the old (not copied back from the
 * output: a load of bytes just stored in pieces waits for the stores). */
#define CSV_COLS (VT_CAT_COUNT + 1) /* the categories, then the pools' spare */
#define CATS_MAX (CSV_COLS * (VT_ROW_U64_MAX + 1) + 1)
#define CATS_PAD 32 /* vt_row_copy16 and vt_row_u64 write past the text */

typedef struct dev_row_s {
    uint32_t device;
    uint8_t head_len;
    char head[16]; /* ",DEVICE," */
    uint64_t cat[CSV_COLS];
    uint16_t off[CSV_COLS + 1]; /* where each column's ',' is in the text; last: its '\n' */
    int cur;                    /* which of cats holds the text */
    char cats[2][CATS_MAX + CATS_PAD];
} dev_row_t;

#define CSV_CACHED_DEVICES 16 /* a device past these has its rows formatted in full */
#define CSV_ROW_MAX        (64 + VT_ROW_CLOCK_MAX + 2 * VT_ROW_U64_MAX + CATS_MAX + CATS_PAD)

typedef struct csv_s {
    vt_rowbuf_t rows; /* on stdout, after the header */
    int header_done;
    vt_row_clock_t clock;
    size_t n_devices;
    dev_row_t devs[CSV_CACHED_DEVICES];
} csv_t;

static void csv_header(csv_t *csv)
{
    if (csv->header_done)
        return;
    printf("time_s,device,total_bytes");
    for (int c = 0; c < VT_CAT_COUNT; c++)
        printf(",%s", vt_category_names[c]);
    printf(",pool_spare_bytes\n");
    csv->header_done = 1;
}

/* The text kept for device, or NULL when CSV_CACHED_DEVICES others came first. A new one holds
 * zero in every category, as a device does before its first allocation. */
static dev_row_t *csv_dev(csv_t *csv, uint32_t device)
{
    for (size_t i = 0; i < csv->n_devices; i++)
        if (csv->devs[i].device == device)
            return &csv->devs[i];
    if (csv->n_devices == CSV_CACHED_DEVICES)
        return NULL;
    dev_row_t *row = &csv->devs[csv->n_devices++];
    memset(row, 0, sizeof(*row));
    row->device = device;
    char *h = row->head;
    *h++ = ',';
    h = vt_row_u64(h, device);
    *h++ = ',';
    row->head_len = (uint8_t)(h - row->head);
    char *t = row->cats[0];
    for (int c = 0; c < CSV_COLS; c++) {
        row->off[c] = (uint16_t)(t - row->cats[0]);
        *t++ = ',';
        *t++ = '0';
    }
    row->off[CSV_COLS] = (uint16_t)(t - row->cats[0]);
    *t = '\n';
    return row;
}

/* The columns v after row's: into the output at p and into row's other text. Returns the end at
 * p. */
static char *csv_cats(dev_row_t *row, char *p, const uint64_t *v)
{
    const char *old = row->cats[row->cur];
    char *next = row->cats[!row->cur], *start = p;
    int k = 0;
    while (k < CSV_COLS && v[k] == row->cat[k])
        k++;
    if (k == CSV_COLS) { /* nothing changed: the text as it is */
        size_t n = (size_t)row->off[CSV_COLS] + 1;
        vt_row_copy16(p, old, n);
        return p + n;
    }
    /* the columns before the first change, as they were; the offsets are updated in place,
     * each read before it is written (a copy of them on the stack was written in 2-byte stores
     * and read back in one, a stall) */
    uint16_t *off = row->off;
    vt_row_copy16(p, old, off[k]);
    vt_row_copy16(next, old, off[k]);
    p += off[k];
    while (k < CSV_COLS) {
        /* column k changed */
        size_t at = (size_t)(p - start);
        off[k] = (uint16_t)at;
        p[0] = next[at] = ',';
        p += 1 + vt_row_u64_twice(p + 1, next + at + 1, v[k]);
        row->cat[k] = v[k];
        /* the run of columns after it that did not change, and the '\n' after the last */
        int e = ++k;
        while (e < CSV_COLS && v[e] == row->cat[e])
            e++;
        size_t from = off[k], to = (size_t)(p - start);
        size_t n = off[e] - from + (e == CSV_COLS);
        vt_row_copy16(p, old + from, n);
        vt_row_copy16(next + to, old + from, n);
        for (int j = k; j <= e; j++)
            off[j] = (uint16_t)(off[j] - from + to);
        p += n;
        k = e;
    }
    row->cur = !row->cur;
    return p;
}

/* One row per change: built in the row buffer (rowfmt.h), not printf'd field by field. A POOL
 * record that left the pools' spare as the device's last row has it makes none. */
static void csv_row(csv_t *csv, const vt_reader_t *r, const vt_device_stats_t *d, uint64_t t_ns,
                    bool pool_record)
{
    dev_row_t *row = csv_dev(csv, d->device);
    uint64_t v[CSV_COLS];
    memcpy(v, d->live_by_category, sizeof(d->live_by_category));
    v[VT_CAT_COUNT] = vt_device_pool_spare_bytes(d);
    if (pool_record && row && row->cat[VT_CAT_COUNT] == v[VT_CAT_COUNT])
        return;
    char *p = vt_rowbuf_room(&csv->rows, CSV_ROW_MAX);
    p = vt_row_clock(&csv->clock, p, t_ns > r->t0_ns ? t_ns - r->t0_ns : 0);
    if (row) {
        memcpy(p, row->head, sizeof(row->head));
        p = vt_row_u64(p + row->head_len, d->live_bytes);
        p = csv_cats(row, p, v);
    } else {
        *p++ = ',';
        p = vt_row_u64(p, d->device);
        *p++ = ',';
        p = vt_row_u64(p, d->live_bytes);
        for (int c = 0; c < CSV_COLS; c++) {
            *p++ = ',';
            p = vt_row_u64(p, v[c]);
        }
        *p++ = '\n';
    }
    vt_rowbuf_end(&csv->rows, p);
}

/* --csv: the header before the first row, then one row per change. */
static void csv_change(void *ctx, const vt_reader_t *r, const vt_device_stats_t *d, uint64_t t_ns,
                       bool pool_record)
{
    csv_header(ctx);
    csv_row(ctx, r, d, t_ns, pool_record);
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

/* SPDX-License-Identifier: MIT */
/* `vramtrace timeline FILE [--csv]`: device memory over time. The text summary gives the
 * trace's duration and events, each device's peak and when, and the device peak inside each
 * phase (PHASE_PUSH/POP ranges, nested names joined with '/'); --csv writes one row per change
 * of a device's live memory, by category. One streaming pass: memory is bounded by the live
 * set and the number of distinct phases. Exit statuses: 0 ok, 1 unreadable or damaged trace
 * (what came before the damage is still shown), 2 usage. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "util.h"

int cmd_timeline(int argc, char **argv);

#define NAME_CAP 256

static const char usage[] = "usage: vramtrace timeline FILE [--csv]\n"
                            "\n"
                            "Device memory over time: the trace's duration and events, each\n"
                            "device's peak and when, and the device peak inside each phase.\n"
                            "\n"
                            "    --csv        one CSV row per change of a device's memory:\n"
                            "                 time_s,device,total_bytes,<category>... (seconds\n"
                            "                 from the start of the trace, bytes)\n"
                            "    -h, --help   show this help\n";

typedef struct phase_s {
    char *path; /* "outer/inner" */
    uint64_t peak_bytes, peak_t_ns, total_ns, n_times;
    uint32_t peak_device;
} phase_t;

typedef struct open_phase_s {
    uint64_t thread, t_ns;
    size_t phase; /* index into phases */
} open_phase_t;

typedef struct timeline_s {
    int csv, header_done;
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

static void csv_row(const vt_reader_t *r, const vt_device_stats_t *d, uint64_t t_ns)
{
    char t[48];
    printf("%s,%" PRIu32 ",%" PRIu64, vt_fmt_seconds6(r, t_ns, t, sizeof(t)), d->device,
           d->live_bytes);
    for (int c = 0; c < VT_CAT_COUNT; c++)
        printf(",%" PRIu64, d->live_by_category[c]);
    printf("\n");
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
    o[tl->n_open++] = (open_phase_t){ev->u.phase.thread, ev->t_ns, i};
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

int cmd_timeline(int argc, char **argv)
{
    const char *path = NULL;
    timeline_t tl;
    memset(&tl, 0, sizeof(tl));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--csv") == 0) {
            tl.csv = 1;
        } else if (a[0] == '-' && a[1]) {
            error("unknown option '%s'. See 'vramtrace timeline --help'.", a);
            return EXIT_USAGE;
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

    vt_reader_t r;
    vt_analysis_t a;
    int rc = vt_trace_stream(path, &r, &a, on_record, &tl);
    if (rc >= 0) {
        if (tl.csv)
            csv_header(&tl);
        else
            print_summary(path, &r, &a, &tl);
        if (tl.oom)
            rc = error("'%s': out of memory following the phases", path);
        vt_analysis_release(&a);
        vt_reader_release(&r);
    }
    for (size_t i = 0; i < tl.n_phases; i++)
        free(tl.phases[i].path);
    free(tl.phases);
    free(tl.open);
    return rc ? 1 : 0;
}

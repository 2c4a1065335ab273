/* SPDX-License-Identifier: MIT */
/* The exit summary on stderr, beside the OOM report (oom.c): what the process's memory came to,
 * from the figures the core kept (track.c), before any trace is read. */
#include "vt_internal.h"

static const char *const series_names[VT_SERIES_COUNT] = {"device", "pinned", "managed",
                                                          "imported"};

/* " (weights 16.0 MiB, optimizer 32.0 MiB, …)": the three largest categories at the device's
 * peak, largest first; empty when nothing was categorized. */
static void summary_top_categories(char *buf, size_t cap, int device)
{
    uint64_t at_peak[VT_CAT_COUNT];
    vt_track_peak_by_category(device, at_peak);
    size_t used = 0;
    uint64_t bytes;
    int best;
    for (int shown = 0; shown < 3 && (best = vt_take_largest(at_peak, VT_CAT_COUNT, &bytes)) >= 0;
         shown++) {
        char amount[32];
        vt_fmt_bytes(amount, sizeof amount, bytes, 1);
        used += vt_fmt(buf + used, used < cap ? cap - used : 0, "%s%s %s", shown ? ", " : " (",
                       vt_category_names[best], amount);
    }
    if (used)
        vt_fmt(buf + used, used < cap ? cap - used : 0, ")");
}

/* vt_exit_summary: the trace closed (vt_track_close), then one line on stderr (unless
 * VRAMTRACE_QUIET), and with VRAMTRACE_VERBOSE >= 1 one machine-readable "stats" line per series
 * and device that saw memory, then the totals. */
void vt_exit_summary(void)
{
    vt_series_stats_t snap[VT_SERIES_COUNT][VT_MAX_DEVICES];
    vt_totals_t t;
    bool partial = false;
    const char *trace_path = NULL;
    vt_track_close(snap, &t, &trace_path, &partial);

    int peak_device = 0;
    uint64_t live_device_bytes = 0;
    for (int series = 0; series < VT_SERIES_COUNT; series++) {
        for (int d = 0; d < VT_MAX_DEVICES; d++) {
            const vt_series_stats_t *s = &snap[series][d];
            if (!s->n_allocs && !s->peak_bytes)
                continue;
            vt_log(1,
                   "stats %s device=%d live=%llu peak=%llu peak_t_ns=%llu allocs=%llu frees=%llu",
                   series_names[series], d, (unsigned long long)s->live_bytes,
                   (unsigned long long)s->peak_bytes, (unsigned long long)s->peak_t_ns,
                   (unsigned long long)s->n_allocs, (unsigned long long)s->n_frees);
            if (series == VT_SERIES_DEVICE) {
                live_device_bytes += s->live_bytes;
                if (s->peak_bytes > snap[VT_SERIES_DEVICE][peak_device].peak_bytes)
                    peak_device = d;
            }
        }
    }
    for (int d = 0; d < VT_MAX_DEVICES; d++) {
        if (!snap[VT_SERIES_DEVICE][d].n_allocs)
            continue;
        vt_series_stats_t cats[VT_CAT_COUNT];
        uint64_t at_peak[VT_CAT_COUNT];
        vt_track_category_snapshot(d, cats, at_peak);
        for (int c = 0; c < VT_CAT_COUNT; c++) {
            if (!cats[c].n_allocs)
                continue;
            vt_log(1,
                   "category %s device=%d live=%llu peak=%llu peak_t_ns=%llu at_device_peak=%llu "
                   "allocs=%llu frees=%llu",
                   vt_category_names[c], d, (unsigned long long)cats[c].live_bytes,
                   (unsigned long long)cats[c].peak_bytes, (unsigned long long)cats[c].peak_t_ns,
                   (unsigned long long)at_peak[c], (unsigned long long)cats[c].n_allocs,
                   (unsigned long long)cats[c].n_frees);
        }
    }
    vt_log(1, "stats totals allocs=%llu frees=%llu failed=%llu unmatched_frees=%llu dropped=%llu",
           (unsigned long long)t.n_allocs, (unsigned long long)t.n_frees,
           (unsigned long long)t.n_failed, (unsigned long long)t.n_unmatched_frees,
           (unsigned long long)t.n_dropped);
    char peak[32], live[32], top[160] = "";
    vt_fmt_bytes(peak, sizeof peak, snap[VT_SERIES_DEVICE][peak_device].peak_bytes, 1);
    vt_fmt_bytes(live, sizeof live, live_device_bytes, 1);
    summary_top_categories(top, sizeof top, peak_device);
    vt_log(0,
           "peak %s of device memory on device %d%s, %llu allocs, %llu frees, %llu failed, %s "
           "live at exit, %strace '%s'",
           peak, peak_device, top, (unsigned long long)t.n_allocs, (unsigned long long)t.n_frees,
           (unsigned long long)t.n_failed, live, partial ? "partial " : "",
           trace_path ? trace_path : "none");
}

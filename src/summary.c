/* SPDX-License-Identifier: MIT */
/* The exit summary on stderr, beside the OOM report (oom.c): what the process's memory came to,
 * from the figures the core kept (track.c), before any trace is read. */
#include "vt_internal.h"
#include "vt_lock.h"

static const char *const series_names[VT_SERIES_COUNT] = {"device", "pinned", "managed",
                                                          "imported"};

/* " (weights 16.0 MiB, optimizer 32.0 MiB, …)": the three largest categories at the device's
 * peak, largest first, the pools' spare reservation then ranked as one ("pool spare", as the
 * report's table has it); empty when nothing was categorized. */
static void summary_top_categories(char *buf, size_t cap, int device, uint64_t pool_spare_bytes)
{
    uint64_t at_peak[VT_CAT_COUNT + 1];
    vt_track_peak_by_category(device, at_peak);
    at_peak[VT_CAT_COUNT] = pool_spare_bytes;
    size_t used = 0;
    uint64_t bytes;
    int best;
    for (int shown = 0;
         shown < 3 && (best = vt_take_largest(at_peak, VT_CAT_COUNT + 1, &bytes)) >= 0; shown++) {
        char amount[32];
        vt_fmt_bytes(amount, sizeof amount, bytes, 1);
        used += vt_fmt(buf + used, used < cap ? cap - used : 0, "%s%s %s", shown ? ", " : " (",
                       best < VT_CAT_COUNT ? vt_category_names[best] : "pool spare", amount);
    }
    if (used)
        vt_fmt(buf + used, used < cap ? cap - used : 0, ")");
}

/* vt_exit_summary: the trace closed (vt_track_close), then one line on stderr (unless
 * VRAMTRACE_QUIET), and with VRAMTRACE_VERBOSE >= 1 one machine-readable "stats" line per series
 * and device that saw memory (and per device with stream-ordered pools its figure counting their
 * reservations), then the totals. The device peak is the device figure's (vt_track_device_peak),
 * what `vramtrace report` computes from the trace. */
void vt_exit_summary(void)
{
    vt_series_stats_t snap[VT_SERIES_COUNT][VT_MAX_DEVICES];
    vt_totals_t t;
    bool partial = false;
    const char *trace_path = NULL;
    vt_track_close(snap, &t, &trace_path, &partial);

    vt_device_peak_t held[VT_MAX_DEVICES];
    for (int d = 0; d < VT_MAX_DEVICES; d++)
        vt_track_device_peak(d, &held[d]);
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
            if (series == VT_SERIES_DEVICE)
                live_device_bytes += s->live_bytes;
        }
    }
    for (int d = 0; d < VT_MAX_DEVICES; d++) {
        if (held[d].peak_bytes > held[peak_device].peak_bytes)
            peak_device = d;
        if (!held[d].pool_reserved_peak_bytes)
            continue;
        vt_log(1,
               "stats pools device=%d peak=%llu peak_t_ns=%llu pool_spare_at_peak=%llu "
               "tensors_live_peak=%llu pool_reserved=%llu pool_reserved_peak=%llu",
               d, (unsigned long long)held[d].peak_bytes, (unsigned long long)held[d].peak_t_ns,
               (unsigned long long)held[d].peak_pool_spare_bytes,
               (unsigned long long)snap[VT_SERIES_DEVICE][d].peak_bytes,
               (unsigned long long)held[d].pool_reserved_bytes,
               (unsigned long long)held[d].pool_reserved_peak_bytes);
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
    /* How often a thread found vramtrace's lock held (bench/threads_scaling.sh): at level 2, as
     * it varies from run to run. */
    vt_log(2, "stats lock contended_takes=%lu", vt_lock_contended_takes());
    char peak[32], live[32], top[160] = "", pools[128] = "";
    const vt_device_peak_t *p = &held[peak_device];
    vt_fmt_bytes(peak, sizeof peak, p->peak_bytes, 1);
    vt_fmt_bytes(live, sizeof live, live_device_bytes, 1);
    summary_top_categories(top, sizeof top, peak_device, p->peak_pool_spare_bytes);
    if (p->pool_reserved_peak_bytes) {
        /* The two figures the peak comes from, as the report gives them. */
        char tensors[32], reserved[32];
        vt_fmt_bytes(tensors, sizeof tensors, snap[VT_SERIES_DEVICE][peak_device].peak_bytes, 1);
        vt_fmt_bytes(reserved, sizeof reserved, p->pool_reserved_peak_bytes, 1);
        vt_fmt(pools, sizeof pools, ", tensors live peak %s, pool reserved peak %s", tensors,
               reserved);
    }
    vt_log(0,
           "peak %s of device memory on device %d%s%s, %llu allocs, %llu frees, %llu failed, %s "
           "live at exit, %strace '%s'",
           peak, peak_device, top, pools, (unsigned long long)t.n_allocs,
           (unsigned long long)t.n_frees, (unsigned long long)t.n_failed, live,
           partial ? "partial " : "", trace_path ? trace_path : "none");
}

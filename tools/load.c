/* SPDX-License-Identifier: MIT */
/* Loading a trace for a command (load.h): the reader and the analysis together, with the
 * trace's problems said once, the same way for every command. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "load.h"
#include "util.h"

int vt_trace_peak_sites(const char *path, const vt_analysis_t *a, const vt_device_stats_t *peak,
                        vt_site_t **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (!peak || !peak->peak_bytes || peak->peak_record == UINT64_MAX)
        return 0;
    int kept = vt_analysis_peak_sites(a, peak->device, out, n_out);
    if (kept <= 0)
        return kept;
    vt_reader_t r;
    vt_analysis_t replay;
    if (vt_reader_open(&r, path) != 0) { /* it was read a moment ago */
        error("%s", r.err);
        vt_reader_release(&r);
        return 0;
    }
    vt_analyze(&r, &replay, peak->peak_record);
    int rc = vt_analysis_sites(&replay, peak->device, out, n_out);
    vt_analysis_release(&replay);
    vt_reader_release(&r);
    return rc;
}

static int stream(const char *path, vt_reader_t *r, vt_analysis_t *a, vt_recategorize_fn recat,
                  void *recat_ctx, vt_stream_fn fn, void *ctx, bool quiet, bool keep_peaks)
{
    memset(a, 0, sizeof(*a));
    a->keep_peaks = keep_peaks;
    a->recategorize = recat;
    a->recategorize_ctx = recat_ctx;
    if (vt_reader_open(r, path) != 0) {
        if (!quiet)
            error("%s", r->err);
        vt_reader_release(r);
        return -1;
    }
    vt_event_t ev;
    vt_live_t old;
    while (vt_analysis_next(r, a, &ev, &old) > 0) {
        /* Which devices the record moves: the entry a FREE removes (or an ALLOC replaces), as
         * it was before, and the ALLOC's own device. */
        bool found = old.used;
        uint32_t changed[2];
        int n_changed = 0;
        if (found && old.series == VT_TRACE_SERIES_DEVICE && old.size_bytes)
            changed[n_changed++] = old.device;
        if (ev.type == VT_REC_ALLOC && ev.u.alloc.series == VT_TRACE_SERIES_DEVICE &&
            ev.u.alloc.size_bytes && !(n_changed && changed[0] == ev.u.alloc.device))
            changed[n_changed++] = ev.u.alloc.device;
        if (fn(ctx, r, a, &ev, found ? &old : NULL, changed, n_changed) != 0)
            return -1;
    }
    if (r->state < 0) {
        if (!quiet)
            error("%s; showing the %" PRIu64 " records before it", r->err, r->n_records);
        return 1;
    }
    if (!quiet)
        vt_trace_warn(path, r, a);
    return 0;
}

int vt_trace_stream(const char *path, vt_reader_t *r, vt_analysis_t *a, vt_stream_fn fn, void *ctx)
{
    return stream(path, r, a, NULL, NULL, fn, ctx, false, false);
}

int vt_trace_stream_keeping_peaks(const char *path, vt_reader_t *r, vt_analysis_t *a,
                                  vt_stream_fn fn, void *ctx)
{
    return stream(path, r, a, NULL, NULL, fn, ctx, false, true);
}

int vt_trace_stream_quiet(const char *path, vt_reader_t *r, vt_analysis_t *a, vt_stream_fn fn,
                          void *ctx)
{
    return stream(path, r, a, NULL, NULL, fn, ctx, true, false);
}

int vt_trace_stream_as(const char *path, vt_reader_t *r, vt_analysis_t *a, vt_recategorize_fn recat,
                       void *recat_ctx, bool quiet, vt_stream_fn fn, void *ctx)
{
    return stream(path, r, a, recat, recat_ctx, fn, ctx, quiet, false);
}

void vt_trace_warn(const char *path, const vt_reader_t *r, const vt_analysis_t *a)
{
    if (!r->seen_end)
        error("warning: '%s': the process did not exit cleanly (no end record): showing what it "
              "wrote",
              path);
    if (r->dropped)
        error("warning: '%s': the library could not record %" PRIu64 " events: totals are low",
              path, r->dropped);
    if (a->capped_limit_bytes)
        error("warning: '%s': the trace reached VRAMTRACE_MAX_SIZE (%" PRIu64 " bytes); events "
              "after that are not in it: totals are low, the peaks are the library's own",
              path, a->capped_limit_bytes);
}

int vt_trace_load_as(const char *path, vt_reader_t *r, vt_analysis_t *a, vt_recategorize_fn fn,
                     void *ctx, bool quiet, bool keep_peaks)
{
    if (vt_reader_open(r, path) != 0) {
        if (!quiet)
            error("%s", r->err);
        vt_reader_release(r);
        return -1;
    }
    if ((keep_peaks ? vt_analyze_keeping_peaks(r, a, fn, ctx)
                    : vt_analyze_recategorized(r, a, UINT64_MAX, fn, ctx)) != 0) {
        if (!quiet)
            error("%s; showing the %" PRIu64 " records before it", r->err, r->n_records);
        return 1;
    }
    if (quiet)
        return 0;
    vt_trace_warn(path, r, a);
    return 0;
}

int vt_trace_load(const char *path, vt_reader_t *r, vt_analysis_t *a)
{
    return vt_trace_load_as(path, r, a, NULL, NULL, false, false);
}

int vt_trace_load_keeping_peaks(const char *path, vt_reader_t *r, vt_analysis_t *a)
{
    return vt_trace_load_as(path, r, a, NULL, NULL, false, true);
}

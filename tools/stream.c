/* SPDX-License-Identifier: MIT */
/* vt_trace_stream (stream.h): the reader and the live-set analysis in one loop, for the
 * commands that need the state after every record rather than only at the end. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "stream.h"
#include "util.h"

const vt_device_stats_t *vt_stream_device(const vt_analysis_t *a, uint32_t device)
{
    for (uint32_t i = 0; i < a->n_devices; i++)
        if (a->devices[i].device == device)
            return &a->devices[i];
    return NULL;
}

const char *vt_fmt_seconds6(const vt_reader_t *r, uint64_t t_ns, char *buf, size_t cap)
{
    uint64_t ns = t_ns > r->t0_ns ? t_ns - r->t0_ns : 0;
    snprintf(buf, cap, "%" PRIu64 ".%06" PRIu64, ns / 1000000000u, (ns % 1000000000u) / 1000u);
    return buf;
}

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

int vt_stream_is_event(const vt_event_t *ev)
{
    switch (ev->type) {
    case VT_REC_ALLOC:
    case VT_REC_FREE:
    case VT_REC_FAILED:
    case VT_REC_OOM:
    case VT_REC_PHASE_PUSH:
    case VT_REC_PHASE_POP:
    case VT_REC_MARK:
    case VT_REC_MEMINFO:
    case VT_REC_END:
        return 1;
    default:
        return 0;
    }
}

int vt_trace_stream(const char *path, vt_reader_t *r, vt_analysis_t *a, vt_stream_fn fn, void *ctx)
{
    memset(a, 0, sizeof(*a));
    if (vt_reader_open(r, path) != 0) {
        error("%s", r->err);
        vt_reader_release(r);
        return -1;
    }
    vt_event_t ev;
    while (vt_reader_next(r, &ev) > 0) {
        /* Which devices the record moves: look before it is applied, the entry a FREE
         * removes (or an ALLOC replaces) is gone after. */
        uint32_t changed[2];
        int n_changed = 0;
        const vt_live_t *found = NULL;
        vt_live_t old;
        if (ev.type == VT_REC_ALLOC)
            found = vt_analysis_find(a, ev.u.alloc.series, ev.u.alloc.handle, ev.u.alloc.address);
        else if (ev.type == VT_REC_FREE)
            found = vt_analysis_find(a, ev.u.free.series, ev.u.free.handle, ev.u.free.address);
        if (found)
            old = *found; /* a copy: applying ev removes the entry */
        if (found && old.series == VT_TRACE_SERIES_DEVICE && old.size_bytes)
            changed[n_changed++] = old.device;
        if (ev.type == VT_REC_ALLOC && ev.u.alloc.series == VT_TRACE_SERIES_DEVICE &&
            ev.u.alloc.size_bytes && !(n_changed && changed[0] == ev.u.alloc.device))
            changed[n_changed++] = ev.u.alloc.device;
        if (vt_analysis_apply(a, r, &ev) != 0)
            break;
        if (fn(ctx, r, a, &ev, found ? &old : NULL, changed, n_changed) != 0)
            return -1;
    }
    if (r->state < 0) {
        error("%s; showing the %" PRIu64 " records before it", r->err, r->n_records);
        return 1;
    }
    vt_trace_warn(path, r, a);
    return 0;
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

/* SPDX-License-Identifier: MIT */
/* The streaming commands' loop (vt_analysis_next: its own fast decoder, one probe of the live
 * set) against the reader and the analysis record by record (vt_reader_next, vt_analysis_find,
 * vt_analysis_apply): the same events, the same entry freed or replaced, the same end of the
 * reader, the same totals and peaks. And the reports' loop (vt_analyze_keeping_peaks: the fast
 * decoder inlined, no event) against the same record-by-record result: the same end of the
 * reader, the same totals, peaks and live set. Header-only, for the unit tests and the fuzz
 * harness. */
#ifndef VT_STREAM_AGREE_H
#define VT_STREAM_AGREE_H
#include <string.h>

#include "analysis.h"
#include "trace_reader.h"

static int stream_same_entry(const vt_live_t *x, const vt_live_t *y)
{
    return x->used == y->used &&
           (!x->used ||
            (x->address == y->address && x->size_bytes == y->size_bytes && x->device == y->device &&
             x->stack_id == y->stack_id && x->series == y->series && x->handle == y->handle &&
             x->category == y->category && x->pooled == y->pooled));
}

/* One record of each reader; NULL when they agree, else what differs. *more: go on. */
static const char *stream_step(vt_reader_t *r1, vt_analysis_t *a1, vt_reader_t *r2,
                               vt_analysis_t *a2, int *more)
{
    vt_event_t e1, e2;
    vt_live_t old1 = {0}, old2;
    int n1 = vt_reader_next(r1, &e1);
    const vt_live_t *found = NULL;
    if (n1 == 1 && e1.type == VT_REC_ALLOC)
        found = vt_analysis_find(a1, e1.u.alloc.series, e1.u.alloc.handle, e1.u.alloc.address);
    else if (n1 == 1 && e1.type == VT_REC_FREE)
        found = vt_analysis_find(a1, e1.u.free.series, e1.u.free.handle, e1.u.free.address);
    if (found)
        old1 = *found;
    if (n1 == 1 && vt_analysis_apply(a1, r1, &e1) != 0)
        n1 = -1;
    int n2 = vt_analysis_next(r2, a2, &e2, &old2);
    *more = n1 == 1 && n2 == 1;
    if (n1 != n2)
        return "the result of a read";
    if (n1 != 1)
        return NULL;
    /* ALLOCs and FREEs whole; the others may point into their reader's own mapping. */
    if (e1.type != e2.type || e1.offset != e2.offset || e1.t_ns != e2.t_ns ||
        ((e1.type == VT_REC_ALLOC || e1.type == VT_REC_FREE) && memcmp(&e1, &e2, sizeof(e1))))
        return "an event";
    if (!stream_same_entry(&old1, &old2))
        return "the entry a record freed or replaced";
    return NULL;
}

/* Reads path both ways to the end: NULL when they agree, else what differs. */
static const char *stream_disagreement(const char *path)
{
    vt_reader_t r1, r2;
    vt_analysis_t a1, a2;
    memset(&a1, 0, sizeof(a1));
    memset(&a2, 0, sizeof(a2));
    const char *why = NULL;
    int open1 = vt_reader_open(&r1, path), open2 = vt_reader_open(&r2, path);
    if (open1 != open2)
        why = "opening";
    for (int more = open1 == 0 && !why; more && !why;)
        why = stream_step(&r1, &a1, &r2, &a2, &more);
    if (!why && open1 == 0 &&
        (r1.state != r2.state || r1.n_records != r2.n_records || strcmp(r1.err, r2.err) != 0))
        why = "the reader's end";
    if (!why && (a1.n_allocs != a2.n_allocs || a1.n_frees != a2.n_frees || a1.n_live != a2.n_live ||
                 a1.n_unmatched_frees != a2.n_unmatched_frees || a1.n_devices != a2.n_devices ||
                 memcmp(a1.live_bytes, a2.live_bytes, sizeof(a1.live_bytes)) != 0 ||
                 memcmp(a1.peak_bytes, a2.peak_bytes, sizeof(a1.peak_bytes)) != 0))
        why = "the totals";
    for (uint32_t d = 0; !why && d < a1.n_devices; d++) {
        const vt_device_stats_t *x = &a1.devices[d], *y = &a2.devices[d];
        if (x->device != y->device || x->peak_bytes != y->peak_bytes ||
            x->peak_t_ns != y->peak_t_ns || x->peak_record != y->peak_record ||
            memcmp(x->live_by_category, y->live_by_category, sizeof(x->live_by_category)) != 0)
            why = "a device's peak";
    }
    /* The reports' loop, on a third reader, against the record-by-record result a1. */
    vt_reader_t r3;
    vt_analysis_t a3;
    memset(&a3, 0, sizeof(a3));
    int open3 = !why && open1 == 0 ? vt_reader_open(&r3, path) : 1;
    if (open3 == 0) {
        int rc = vt_analyze_keeping_peaks(&r3, &a3, NULL, NULL);
        if (rc != (r1.state < 0 ? -1 : 0) || r1.state != r3.state || r1.n_records != r3.n_records ||
            strcmp(r1.err, r3.err) != 0)
            why = "the analysis loop's end";
        else if (a1.n_allocs != a3.n_allocs || a1.n_frees != a3.n_frees || a1.n_live != a3.n_live ||
                 a1.n_unmatched_frees != a3.n_unmatched_frees || a1.n_devices != a3.n_devices ||
                 a1.cap_live != a3.cap_live ||
                 memcmp(a1.live_bytes, a3.live_bytes, sizeof(a1.live_bytes)) != 0 ||
                 memcmp(a1.peak_bytes, a3.peak_bytes, sizeof(a1.peak_bytes)) != 0 ||
                 memcmp(a1.peak_t_ns, a3.peak_t_ns, sizeof(a1.peak_t_ns)) != 0)
            why = "the analysis loop's totals";
        for (uint32_t d = 0; !why && d < a1.n_devices; d++) {
            const vt_device_stats_t *x = &a1.devices[d], *y = &a3.devices[d];
            if (x->device != y->device || x->peak_bytes != y->peak_bytes ||
                x->peak_t_ns != y->peak_t_ns || x->peak_record != y->peak_record ||
                x->tensors_peak_bytes != y->tensors_peak_bytes ||
                memcmp(x->live_by_category, y->live_by_category, sizeof(x->live_by_category)) ||
                memcmp(x->peak_by_category, y->peak_by_category, sizeof(x->peak_by_category)) ||
                memcmp(x->cat_peak_bytes, y->cat_peak_bytes, sizeof(x->cat_peak_bytes)))
                why = "the analysis loop's peak of a device";
        }
        for (size_t i = 0; !why && i < a1.cap_live; i++)
            if (!stream_same_entry(&a1.live[i], &a3.live[i]))
                why = "the analysis loop's live set";
    }
    if (open3 <= 0)
        vt_reader_release(&r3);
    vt_analysis_release(&a3);
    vt_analysis_release(&a1);
    vt_analysis_release(&a2);
    vt_reader_release(&r1);
    vt_reader_release(&r2);
    return why;
}
#endif

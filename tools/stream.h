/* SPDX-License-Identifier: MIT */
/* The streaming loop of the commands that look at a trace as it goes by (timeline, check,
 * export): each record is applied to the live-set analysis and then handed to the command with
 * the devices whose live memory it changed, so memory stays bounded by the live set. */
#ifndef VT_STREAM_H
#define VT_STREAM_H
#include <stdint.h>

#include "trace_reader.h"

/* Called after ev was applied to a. old is the live entry ev removed (a FREE's allocation, or
 * the one an ALLOC at the same address replaced), NULL when none. changed[0..n_changed) are
 * the devices whose live device memory ev changed (two at most). Returns 0 to go on, -1 to
 * stop (the stream then returns -1; the callback printed why). */
typedef int (*vt_stream_fn)(void *ctx, const vt_reader_t *r, const vt_analysis_t *a,
                            const vt_event_t *ev, const vt_live_t *old, const uint32_t *changed,
                            int n_changed);

/* vt_trace_stream: opens path into r, zeroes a and streams every record through fn, printing
 * the problems with error() as vt_trace_load does. Returns -1 when unreadable (r is released)
 * or fn stopped, 1 when damaged part-way (what came before was streamed; exit 1), 0 otherwise
 * (a missing END record or dropped events only warn). Except after an unreadable file, the
 * caller releases r and a. */
int vt_trace_stream(const char *path, vt_reader_t *r, vt_analysis_t *a, vt_stream_fn fn, void *ctx);

/* The warnings of a trace read to its end: no END record (the process died), events the
 * library dropped, the VRAMTRACE_MAX_SIZE cap reached. One line each with error(). */
void vt_trace_warn(const char *path, const vt_reader_t *r, const vt_analysis_t *a);

/* vt_trace_peak_sites: the call-sites live on peak->device at that device's peak (as
 * vt_analysis_sites returns them), for an analysis a of path loaded with
 * vt_trace_load_keeping_peaks: from what that single pass kept, or, when it could not keep them
 * (vt_analysis_peak_sites returns 1), from a second pass of path stopped at the record that made
 * the peak. None (0, *n_out 0) when the peak came from the library's PEAK record (a capped
 * trace: no live set), or when path cannot be reopened (said with error()). Returns 0, or -1
 * when out of memory. */
int vt_trace_peak_sites(const char *path, const vt_analysis_t *a, const vt_device_stats_t *peak,
                        vt_site_t **out, size_t *n_out);

/* The stats of device in a, or NULL while it has had no device memory. */
const vt_device_stats_t *vt_stream_device(const vt_analysis_t *a, uint32_t device);

/* t_ns as seconds from the trace's t0 with 6 decimals, exactly ("1.500000"). */
const char *vt_fmt_seconds6(const vt_reader_t *r, uint64_t t_ns, char *buf, size_t cap);

/* Whether ev is an event record (one with a time of its own: ALLOC, FREE, PHASE_PUSH, ...). */
int vt_stream_is_event(const vt_event_t *ev);
#endif

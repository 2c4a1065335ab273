/* SPDX-License-Identifier: MIT */
/* Loading a trace for a command: open it, run the analysis over it (all at once, or record by
 * record with a callback for the commands that look at the state as the trace goes by), and say
 * what is wrong with it on stderr: unreadable, damaged part-way (what came before is kept), no
 * END record, dropped events, the size cap reached. Memory stays bounded by the live set. */
#ifndef VT_LOAD_H
#define VT_LOAD_H
#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"
#include "trace_reader.h"

/* vt_trace_load: opens and analyses path, printing the problems with error(): returns -1 when
 * unreadable (nothing to show; r is released), 1 when damaged part-way (show what came before;
 * exit 1), 0 otherwise (a missing END record or dropped events only warn). */
int vt_trace_load(const char *path, vt_reader_t *r, vt_analysis_t *a);

/* vt_trace_load with vt_analyze_keeping_peaks: vt_analysis_peak_sites then has the peaks'
 * call-sites without a replay. */
int vt_trace_load_keeping_peaks(const char *path, vt_reader_t *r, vt_analysis_t *a);

/* vt_trace_load with the category of each ALLOC decided by fn (NULL: the recorded ones); quiet:
 * without a word on stderr; keep_peaks: as vt_trace_load_keeping_peaks. */
int vt_trace_load_as(const char *path, vt_reader_t *r, vt_analysis_t *a, vt_recategorize_fn fn,
                     void *ctx, bool quiet, bool keep_peaks);

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

/* vt_trace_stream keeping what vt_trace_peak_sites needs, as vt_trace_load_keeping_peaks does. */
int vt_trace_stream_keeping_peaks(const char *path, vt_reader_t *r, vt_analysis_t *a,
                                  vt_stream_fn fn, void *ctx);

/* vt_trace_stream without a word on stderr (another pass said the trace's problems). */
int vt_trace_stream_quiet(const char *path, vt_reader_t *r, vt_analysis_t *a, vt_stream_fn fn,
                          void *ctx);

/* vt_trace_stream (quiet: vt_trace_stream_quiet) with the category of each ALLOC decided by recat
 * (NULL: the recorded ones), as vt_trace_load_as decides them. */
int vt_trace_stream_as(const char *path, vt_reader_t *r, vt_analysis_t *a, vt_recategorize_fn recat,
                       void *recat_ctx, bool quiet, vt_stream_fn fn, void *ctx);

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

#endif

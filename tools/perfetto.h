/* SPDX-License-Identifier: MIT */
/* `export --format perfetto`: Chrome trace-event JSON that ui.perfetto.dev and chrome://tracing
 * open. Per device a counter of its total live memory and one of its memory by category; the
 * phases as slices on their threads, marks and out-of-memory errors as instants; the allocations
 * of the largest call-sites at the device peak as slices carrying their frames.
 *
 * The size is bounded: a first pass counts what a full export would write; when that exceeds
 * the budget, the counters are kept per column of time (the sample with the column's highest
 * total, then its last, so the peak stays exact), the slices are sampled evenly (those live at
 * the peak always kept), and phases past their share are left out, with a warning. */
#ifndef VT_PERFETTO_H
#define VT_PERFETTO_H
#include <stdint.h>
#include <stdio.h>

#define VT_PERFETTO_DEFAULT_MAX_BYTES 100000000ull /* 100 MB: what Perfetto's UI opens well */
#define VT_PERFETTO_SITES             8            /* call-sites whose allocations are slices */

/* Opens the output once the trace is known to be readable: returns it, or NULL after a
 * message. */
typedef FILE *(*vt_perfetto_open_fn)(void *ctx);

/* vt_perfetto_export: the trace at path as trace-event JSON of at most about max_bytes (0: no
 * limit, every change written) into what open returns. Returns 0, 1 for a damaged trace (what
 * came before is written) or an output that could not be opened, -1 when unreadable (nothing
 * opened). */
int vt_perfetto_export(const char *path, uint64_t max_bytes, vt_perfetto_open_fn open, void *ctx);
#endif

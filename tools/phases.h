/* SPDX-License-Identifier: MIT */
/* The phases a moment of the trace belongs to: every thread's open PHASE_PUSH/POP ranges (NVTX
 * ranges, vramtrace's own) and the last MARK, followed as the records stream by. Names the
 * peak's phase in `report` and the page. Memory is bounded by the open ranges. */
#ifndef VT_PHASES_H
#define VT_PHASES_H
#include <stddef.h>
#include <stdint.h>

#include "trace_reader.h"

#define VT_PHASE_NAME_BYTES 256 /* a phase's name kept, NUL included */

typedef struct vt_open_range_s {
    uint64_t thread;
    uint32_t string_id;
} vt_open_range_t;

typedef struct vt_phases_s {
    vt_open_range_t *open; /* every thread's open ranges, innermost last per thread */
    size_t n_open, cap_open;
    uint32_t last_mark_id; /* the last MARK's label; 0: none yet */
} vt_phases_t;

/* What a moment belongs to: kind "range" (name: the innermost open range, path: the open ranges
 * of its thread joined with '/'), "mark" (the last mark before it: name and path its label), or
 * "" with empty names when the trace names nothing there. */
typedef struct vt_phase_s {
    const char *kind;
    char name[VT_PHASE_NAME_BYTES];
    char path[VT_PHASE_NAME_BYTES];
} vt_phase_t;

/* vt_phases_apply: a record into p (zeroed before the first): PHASE_PUSH, PHASE_POP and MARK
 * change it, the others are ignored. Returns 0, or -1 when out of memory. */
int vt_phases_apply(vt_phases_t *p, const vt_event_t *ev);

/* vt_phases_at: the phase of a moment on thread: its innermost open range; else the range most
 * recently opened on any thread; else the last mark; else none (kind ""). */
void vt_phases_at(const vt_phases_t *p, const vt_reader_t *r, uint64_t thread, vt_phase_t *out);

void vt_phases_release(vt_phases_t *p);

/* vt_phase_of_record: reads the trace at path up to record number record (counted from 1, as
 * vt_device_stats_t's peak_record), or when record is UINT64_MAX up to the last record at or
 * before t_ns (absolute), and names the phase there on the thread of that record (an ALLOC's).
 * Out of memory or an unreadable file leave out kind "". */
void vt_phase_of_record(const char *path, uint64_t record, uint64_t t_ns, vt_phase_t *out);
#endif

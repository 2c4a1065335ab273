/* SPDX-License-Identifier: MIT */
/* The phases of a trace as its records stream by: every thread's phase path (common/vt_phase.h,
 * the same text the capture library had at that moment, cut at the same places), the order the
 * open ranges were opened in, and the last MARK. What a `phase:` rule sees at an allocation
 * (recategorize.c), the names the OOM post-mortem and the timeline give a phase, and the peak's
 * phase in `report` and the page. Memory is bounded by the threads that opened ranges. */
#ifndef VT_PHASES_H
#define VT_PHASES_H
#include <stddef.h>
#include <stdint.h>

#include "trace_reader.h"
#include "vt_phase.h"

typedef struct vt_thread_phase_s {
    uint64_t thread;
    vt_phase_path_t path;
    uint64_t opened[VT_PHASE_NESTING + 1]; /* opened[d]: when the range at depth d opened */
} vt_thread_phase_t;

typedef struct vt_phases_s {
    vt_thread_phase_t *threads;
    size_t n_threads, cap_threads;
    uint64_t n_pushes;     /* ranges opened so far: the clock of opened[] */
    uint32_t last_mark_id; /* the last MARK's label; 0: none yet */
} vt_phases_t;             /* all zero: nothing seen */

/* vt_phases_apply: a record into p: PHASE_PUSH, PHASE_POP and MARK change it, the others are
 * ignored. Returns 0, or -1 when out of memory. */
int vt_phases_apply(vt_phases_t *p, const vt_reader_t *r, const vt_event_t *ev);

/* vt_phases_of: thread's path; NULL when no range was ever opened on it. */
const vt_phase_path_t *vt_phases_of(const vt_phases_t *p, uint64_t thread);

void vt_phases_release(vt_phases_t *p);

/* What a moment belongs to: kind "range" (name: the innermost open range, path: the open ranges
 * of its thread joined with '/'), "mark" (the last mark before it: name and path its label), or
 * "" with empty names when the trace names nothing there. */
typedef struct vt_phase_s {
    const char *kind;
    char name[VT_PHASE_BYTES];
    char path[VT_PHASE_BYTES];
} vt_phase_t;

/* vt_phases_at: the phase of a moment on thread: its innermost open range; else the range most
 * recently opened on any thread; else the last mark; else none (kind ""). */
void vt_phases_at(const vt_phases_t *p, const vt_reader_t *r, uint64_t thread, vt_phase_t *out);

/* vt_phase_of_record: reads the trace at path up to record number record (counted from 1, as
 * vt_device_stats_t's peak_record), or when record is UINT64_MAX up to the last record at or
 * before t_ns (absolute), and names the phase there on the thread of that record (an ALLOC's).
 * Out of memory or an unreadable file leave out kind "". */
void vt_phase_of_record(const char *path, uint64_t record, uint64_t t_ns, vt_phase_t *out);
#endif

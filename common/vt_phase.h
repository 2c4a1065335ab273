/* SPDX-License-Identifier: MIT */
/* A thread's phase path: the names of its open NVTX push/pop ranges, outermost first, joined
 * with '/' ("train/step/forward"), and the category a range named vramtrace:<category> forces
 * on everything inside it. The one definition of both programs: the capture library keeps one
 * per thread (categorize.c), the analyzer one per thread of a trace (tools/phases.c), so a
 * `phase:` rule sees the same text at capture and offline, cut at the same places. Fixed size,
 * no allocation: the capture library pushes on the program's threads at NVTX call rate. */
#ifndef VT_PHASE_H
#define VT_PHASE_H
#include <stddef.h>
#include <stdint.h>

#define VT_PHASE_BYTES   512 /* the path kept, NUL included; longer paths are cut */
#define VT_PHASE_NESTING 32  /* ranges kept; deeper ones are counted and leave the path alone */

typedef struct vt_phase_path_s {
    char text[VT_PHASE_BYTES];
    uint16_t ends[VT_PHASE_NESTING + 1]; /* ends[d]: the length of the path at depth d */
    int8_t forced[VT_PHASE_NESTING + 1]; /* forced[d]: the category forced at depth d, or -1 */
    int depth;                           /* open ranges, counted past VT_PHASE_NESTING */
} vt_phase_path_t;

/* An all-zero vt_phase_path_t is the empty path (no open range). */

/* vt_phase_path_push: enters the range name (len bytes, not necessarily NUL-terminated; NULL: an
 * unnamed range). */
void vt_phase_path_push(vt_phase_path_t *p, const char *name, size_t len);

/* vt_phase_path_pop: leaves the innermost range; nothing when none is open. */
void vt_phase_path_pop(vt_phase_path_t *p);

/* vt_phase_path_forced: the category a vramtrace:<category> range forces at the current depth
 * (inherited from the ranges around it), or -1. */
static inline int vt_phase_path_forced(const vt_phase_path_t *p)
{
    int depth = p->depth > VT_PHASE_NESTING ? VT_PHASE_NESTING : p->depth;
    return depth > 0 ? p->forced[depth] : -1;
}

#endif

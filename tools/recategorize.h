/* SPDX-License-Identifier: MIT */
/* `report --rules FILE`: the category of every allocation decided again, offline, by other rules
 * than the capture library's, as the trace streams through the analysis (the vt_recategorize_fn
 * hook of trace_reader.h). Frame rules are evaluated once per stack and cached; phase, thread and
 * api rules per allocation, with each thread's NVTX range path tracked from PHASE_PUSH/POP. */
#ifndef VT_RECATEGORIZE_H
#define VT_RECATEGORIZE_H
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "phases.h"
#include "symbolize.h"
#include "trace_reader.h"
#include "vt_categories.h"

typedef struct vt_recategorizer_s {
    const vt_rules_t *rules;
    vt_symbolizer_t *sym; /* names native frames; NULL: func and file rules match nothing */
    uint16_t *stack_rule; /* per stack id: first matching frame rule + 1; 0: not computed */
    uint32_t cap_stack;
    vt_phases_t phases; /* the phase path of each thread seen so far */
} vt_recategorizer_t;

/* vt_recategorizer_init: a recategorizer for rules (not copied: they must outlive it) naming
 * frames with sym (may be NULL). */
void vt_recategorizer_init(vt_recategorizer_t *rc, const vt_rules_t *rules, vt_symbolizer_t *sym);

/* vt_recategorizer_rewind: forgets the phases, before another pass over the same trace (the
 * per-stack cache is kept: stack ids mean the same in every pass). */
void vt_recategorizer_rewind(vt_recategorizer_t *rc);

void vt_recategorizer_release(vt_recategorizer_t *rc);

/* vt_recategorize: the vt_recategorize_fn of trace_reader.h, ctx a vt_recategorizer_t. */
int vt_recategorize(void *ctx, const vt_reader_t *r, const vt_event_t *ev);

#endif

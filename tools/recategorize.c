/* SPDX-License-Identifier: MIT */
/* Offline categories (recategorize.h), the decision of common/vt_categories.h with the capture
 * library's shortcut: a stack only remembers its frame verdict, and an allocation tries the
 * phase, thread and api rules before it. Unlike the capture library it
 * sees source files (file: rules), demangled names and inlined functions, through the
 * symbolizer. */
#include <stdlib.h>
#include <string.h>

#include "recategorize.h"

#define NAME_CAP 1024

void vt_recategorizer_init(vt_recategorizer_t *rc, const vt_rules_t *rules, vt_symbolizer_t *sym)
{
    memset(rc, 0, sizeof(*rc));
    rc->rules = rules;
    rc->sym = sym;
}

void vt_recategorizer_rewind(vt_recategorizer_t *rc)
{
    vt_phases_release(&rc->phases);
}

void vt_recategorizer_release(vt_recategorizer_t *rc)
{
    vt_recategorizer_rewind(rc);
    free(rc->stack_rule);
    memset(rc, 0, sizeof(*rc));
}

/* ---- frame rules ----------------------------------------------------------------------------- */

/* The first frame rule before limit that the frame ip matches, else limit: py rules for a
 * Python pseudo-frame ("path/file.py:function"), func (demangled, raw symbol, inlined-into),
 * module (basename) and file (basename and path) rules for a native frame. */
static int first_rule_of_frame(vt_recategorizer_t *rc, const vt_reader_t *r, uint64_t ip, int limit)
{
    const vt_rules_t *rules = rc->rules;
    vt_rule_frame_t frame;
    memset(&frame, 0, sizeof(frame));
    char where[NAME_CAP];
    if (VT_PYFRAME_IS(ip)) {
        frame.py = vt_reader_cstring(r, VT_PYFRAME_STRING(ip), where, sizeof(where));
        return vt_rules_frame_first(rules, &frame, limit);
    }
    if (!(rules->fields_used &
          ((1u << VT_FIELD_FUNC) | (1u << VT_FIELD_MODULE) | (1u << VT_FIELD_FILE))))
        return limit;
    vt_sym_frame_t f;
    memset(&f, 0, sizeof(f));
    if (rc->sym)
        vt_symbolize(rc->sym, ip, &f);
    frame.names[0] = f.function;
    frame.names[1] = f.symbol;
    frame.names[2] = f.inlined_in;
    frame.module = f.module;
    frame.file = f.file;
    return vt_rules_frame_first(rules, &frame, limit);
}

/* The index of stack_id's frame verdict (n_rules when none), cached. Returns -1 when out of
 * memory. */
static int stack_first_rule(vt_recategorizer_t *rc, const vt_reader_t *r, uint32_t stack_id)
{
    int n_rules = rc->rules->n_rules;
    if (stack_id == 0 || stack_id >= r->n_stacks)
        return n_rules;
    if (stack_id >= rc->cap_stack) {
        uint32_t cap = rc->cap_stack ? rc->cap_stack : 1024;
        while (cap <= stack_id)
            cap *= 2;
        uint16_t *t = realloc(rc->stack_rule, cap * sizeof(*t));
        if (!t)
            return -1;
        memset(t + rc->cap_stack, 0, (cap - rc->cap_stack) * sizeof(*t));
        rc->stack_rule = t;
        rc->cap_stack = cap;
    }
    if (rc->stack_rule[stack_id])
        return rc->stack_rule[stack_id] - 1;
    int first = n_rules, limit = n_rules;
    /* Innermost first. Parents have lower ids than their children (trace_reader.h), so the walk
     * ends. */
    for (uint32_t id = stack_id; id && id < r->n_stacks && limit > 0;
         id = r->stacks[id].parent_id) {
        int rule = first_rule_of_frame(rc, r, r->stacks[id].ip, limit);
        if (rule < limit) {
            first = rule;
            limit = rc->rules->rules[rule].section_first;
        }
    }
    rc->stack_rule[stack_id] = (uint16_t)(first + 1);
    return first;
}

/* ---- the decision ---------------------------------------------------------------------------- */

/* The latest name the trace gave thread so far, into buf ("" when none). */
static const char *thread_name(const vt_reader_t *r, uint64_t thread, char *buf, size_t cap)
{
    for (uint32_t i = r->n_threads; i-- > 1;) /* slot 0 is no thread (trace_reader.h) */
        if (r->threads[i].thread == thread)
            return vt_reader_cstring(r, r->threads[i].name_string_id, buf, cap);
    buf[0] = '\0';
    return buf;
}

/* vt_recategorize: tracks the phases and decides each ALLOC's category (recategorize.h). */
int vt_recategorize(void *ctx, const vt_reader_t *r, const vt_event_t *ev)
{
    vt_recategorizer_t *rc = ctx;
    if (ev->type == VT_REC_PHASE_PUSH || ev->type == VT_REC_PHASE_POP)
        return vt_phases_apply(&rc->phases, r, ev);
    if (ev->type != VT_REC_ALLOC)
        return 0;
    const vt_phase_path_t *phase = vt_phases_of(&rc->phases, ev->u.alloc.thread);
    int forced = phase ? vt_phase_path_forced(phase) : -1;
    if (forced >= 0)
        return forced;
    const vt_rules_t *rules = rc->rules;
    int first = stack_first_rule(rc, r, ev->u.alloc.stack_id);
    if (first < 0)
        return -1;
    char name[NAME_CAP];
    for (int i = 0; i < first; i++) {
        const char *subject;
        switch (rules->rules[i].field) {
        case VT_FIELD_PHASE:
            subject = phase ? phase->text : "";
            break;
        case VT_FIELD_THREAD:
            subject = thread_name(r, ev->u.alloc.thread, name, sizeof(name));
            break;
        case VT_FIELD_API:
            subject = vt_reader_api_name(r, ev->u.alloc.api, name, sizeof(name));
            break;
        default:
            continue;
        }
        if (vt_rule_matches_subject(rules, i, subject))
            return rules->rules[i].category;
    }
    return first < rules->n_rules ? rules->rules[first].category : VT_CAT_UNKNOWN;
}

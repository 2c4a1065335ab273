/* SPDX-License-Identifier: MIT */
/* Offline categories (recategorize.h) with the decision of src/categorize.c: the first matching
 * rule wins, an NVTX range named vramtrace:<category> overrides every rule, and a stack only
 * remembers the first frame rule any of its frames matches. Unlike the capture library it sees
 * source files (file: rules), demangled names and inlined functions, through the symbolizer. */
#include <stdlib.h>
#include <string.h>

#include "recategorize.h"

#define NAME_CAP 1024

/* One thread's NVTX range path, '/'-joined, and the category each depth forces (-1: none). */
struct vt_recat_thread_s {
    uint64_t thread;
    char *path;
    size_t len, cap;
    size_t *ends; /* ends[d]: len of the path at depth d (ends[0] = 0) */
    int8_t *cats; /* cats[d]: the category forced at depth d, inherited from outside; -1 none */
    uint32_t depth, cap_depth;
};

void vt_recategorizer_init(vt_recategorizer_t *rc, const vt_rules_t *rules, vt_symbolizer_t *sym)
{
    memset(rc, 0, sizeof(*rc));
    rc->rules = rules;
    rc->sym = sym;
}

void vt_recategorizer_rewind(vt_recategorizer_t *rc)
{
    for (size_t i = 0; i < rc->n_threads; i++) {
        free(rc->threads[i].path);
        free(rc->threads[i].ends);
        free(rc->threads[i].cats);
    }
    free(rc->threads);
    rc->threads = NULL;
    rc->n_threads = rc->cap_threads = 0;
}

void vt_recategorizer_release(vt_recategorizer_t *rc)
{
    vt_recategorizer_rewind(rc);
    free(rc->stack_rule);
    memset(rc, 0, sizeof(*rc));
}

/* ---- phases ---------------------------------------------------------------------------------- */

/* The state of thread, created empty when create; NULL when out of memory or not there. */
static struct vt_recat_thread_s *thread_state(vt_recategorizer_t *rc, uint64_t thread, int create)
{
    for (size_t i = 0; i < rc->n_threads; i++)
        if (rc->threads[i].thread == thread)
            return &rc->threads[i];
    if (!create)
        return NULL;
    if (rc->n_threads == rc->cap_threads) {
        size_t cap = rc->cap_threads ? rc->cap_threads * 2 : 8;
        struct vt_recat_thread_s *t = realloc(rc->threads, cap * sizeof(*t));
        if (!t)
            return NULL;
        rc->threads = t;
        rc->cap_threads = cap;
    }
    struct vt_recat_thread_s *t = &rc->threads[rc->n_threads++];
    memset(t, 0, sizeof(*t));
    t->thread = thread;
    return t;
}

/* Enters the range name (len bytes) on t. Returns 0, or -1 when out of memory. */
static int phase_push(struct vt_recat_thread_s *t, const char *name, size_t len)
{
    if (t->depth + 2 > t->cap_depth) {
        uint32_t cap = t->cap_depth ? t->cap_depth * 2 : 16;
        size_t *ends = realloc(t->ends, cap * sizeof(*ends));
        if (ends)
            t->ends = ends;
        int8_t *cats = realloc(t->cats, cap * sizeof(*cats));
        if (cats)
            t->cats = cats;
        if (!ends || !cats)
            return -1;
        if (t->cap_depth == 0) {
            t->ends[0] = 0;
            t->cats[0] = -1;
        }
        t->cap_depth = cap;
    }
    size_t sep = t->depth ? 1 : 0;
    if (t->len + sep + len + 1 > t->cap) {
        size_t cap = (t->len + sep + len + 1) * 2;
        char *p = realloc(t->path, cap);
        if (!p)
            return -1;
        t->path = p;
        t->cap = cap;
    }
    if (sep)
        t->path[t->len++] = '/';
    memcpy(t->path + t->len, name, len);
    t->len += len;
    t->path[t->len] = '\0';
    int forced = -1;
    if (len > 10 && memcmp(name, "vramtrace:", 10) == 0)
        forced = vt_category_from_name(name + 10, len - 10);
    t->depth++;
    t->ends[t->depth] = t->len;
    t->cats[t->depth] = (int8_t)(forced >= 0 ? forced : t->cats[t->depth - 1]);
    return 0;
}

static void phase_pop(struct vt_recat_thread_s *t)
{
    if (!t || t->depth == 0)
        return;
    t->depth--;
    t->len = t->ends[t->depth];
    t->path[t->len] = '\0';
}

/* ---- frame rules ----------------------------------------------------------------------------- */

static int glob(const vt_rules_t *rules, int i, const char *s)
{
    return s && *s && vt_glob_match(vt_rule_glob(rules, i), s);
}

/* The first frame rule before limit that the frame ip matches, else limit: py rules for a
 * Python pseudo-frame ("path/file.py:function"), func (demangled, raw symbol, inlined-into),
 * module (basename) and file (basename and path) rules for a native frame. */
static int first_rule_of_frame(vt_recategorizer_t *rc, const vt_reader_t *r, uint64_t ip, int limit)
{
    const vt_rules_t *rules = rc->rules;
    if (ip & VT_PYFRAME_BIT) {
        char where[NAME_CAP];
        vt_reader_cstring(r, (uint32_t)VT_PYFRAME_STRING(ip), where, sizeof(where));
        for (int i = 0; i < limit; i++)
            if (rules->rules[i].field == VT_FIELD_PY && glob(rules, i, where))
                return i;
        return limit;
    }
    if (!(rules->fields_used &
          ((1u << VT_FIELD_FUNC) | (1u << VT_FIELD_MODULE) | (1u << VT_FIELD_FILE))))
        return limit;
    vt_sym_frame_t f;
    memset(&f, 0, sizeof(f));
    if (rc->sym)
        vt_symbolize(rc->sym, ip, &f);
    const char *base = f.file ? strrchr(f.file, '/') : NULL;
    base = base ? base + 1 : f.file;
    for (int i = 0; i < limit; i++) {
        int hit = 0;
        switch (rules->rules[i].field) {
        case VT_FIELD_FUNC:
            hit = glob(rules, i, f.function) || glob(rules, i, f.symbol) ||
                  glob(rules, i, f.inlined_in);
            break;
        case VT_FIELD_MODULE:
            hit = glob(rules, i, f.module);
            break;
        case VT_FIELD_FILE:
            hit = glob(rules, i, base) || glob(rules, i, f.file);
            break;
        default:
            break;
        }
        if (hit)
            return i;
    }
    return limit;
}

/* The index of the first frame rule stack_id matches (n_rules when none), cached. Returns -1
 * when out of memory. */
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
    int first = n_rules;
    /* Parents have lower ids than their children (trace_reader.h), so the walk ends. */
    for (uint32_t id = stack_id; id && id < r->n_stacks && first > 0; id = r->stacks[id].parent_id)
        first = first_rule_of_frame(rc, r, r->stacks[id].ip, first);
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
    switch (ev->type) {
    case VT_REC_PHASE_PUSH: {
        struct vt_recat_thread_s *t = thread_state(rc, ev->u.phase.thread, 1);
        uint32_t len = 0;
        const char *name = vt_reader_string(r, ev->u.phase.string_id, &len);
        if (!t || phase_push(t, name ? name : "", name ? len : 0) != 0)
            return -1;
        return 0;
    }
    case VT_REC_PHASE_POP:
        phase_pop(thread_state(rc, ev->u.phase.thread, 0));
        return 0;
    case VT_REC_ALLOC:
        break;
    default:
        return 0;
    }
    const struct vt_recat_thread_s *t = thread_state(rc, ev->u.alloc.thread, 0);
    if (t && t->depth && t->cats[t->depth] >= 0)
        return t->cats[t->depth];
    const vt_rules_t *rules = rc->rules;
    int first = stack_first_rule(rc, r, ev->u.alloc.stack_id);
    if (first < 0)
        return -1;
    char name[NAME_CAP];
    for (int i = 0; i < first; i++) {
        const char *subject;
        switch (rules->rules[i].field) {
        case VT_FIELD_PHASE:
            subject = t && t->path ? t->path : "";
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
        if (vt_glob_match(vt_rule_glob(rules, i), subject))
            return rules->rules[i].category;
    }
    return first < rules->n_rules ? rules->rules[first].category : VT_CAT_UNKNOWN;
}

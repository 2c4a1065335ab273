/* SPDX-License-Identifier: MIT */
/* The phases of a trace (phases.h). */
#include "phases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static vt_thread_phase_t *find(const vt_phases_t *p, uint64_t thread)
{
    for (size_t i = 0; i < p->n_threads; i++)
        if (p->threads[i].thread == thread)
            return &p->threads[i];
    return NULL;
}

const vt_phase_path_t *vt_phases_of(const vt_phases_t *p, uint64_t thread)
{
    const vt_thread_phase_t *t = find(p, thread);
    return t ? &t->path : NULL;
}

static int push(vt_phases_t *p, const vt_reader_t *r, const vt_event_t *ev)
{
    vt_thread_phase_t *t = find(p, ev->u.phase.thread);
    if (!t) {
        if (p->n_threads == p->cap_threads) {
            size_t cap = p->cap_threads ? p->cap_threads * 2 : 8;
            vt_thread_phase_t *grown = realloc(p->threads, cap * sizeof(*grown));
            if (!grown)
                return -1;
            p->threads = grown;
            p->cap_threads = cap;
        }
        t = &p->threads[p->n_threads++];
        memset(t, 0, sizeof(*t));
        t->thread = ev->u.phase.thread;
    }
    uint32_t len = 0;
    const char *name = vt_reader_string(r, ev->u.phase.string_id, &len);
    vt_phase_path_push(&t->path, name, name ? len : 0);
    if (t->path.depth <= VT_PHASE_NESTING)
        t->opened[t->path.depth] = ++p->n_pushes;
    return 0;
}

int vt_phases_apply(vt_phases_t *p, const vt_reader_t *r, const vt_event_t *ev)
{
    switch (ev->type) {
    case VT_REC_PHASE_PUSH:
        return push(p, r, ev);
    case VT_REC_PHASE_POP: {
        /* The thread's innermost range ends; a pop without a push is ignored. */
        vt_thread_phase_t *t = find(p, ev->u.phase.thread);
        if (t)
            vt_phase_path_pop(&t->path);
        return 0;
    }
    case VT_REC_MARK:
        p->last_mark_id = ev->u.phase.string_id;
        return 0;
    default:
        return 0;
    }
}

void vt_phases_release(vt_phases_t *p)
{
    free(p->threads);
    memset(p, 0, sizeof(*p));
}

/* The depth a thread's path keeps, and when its innermost kept range opened. */
static int kept_depth(const vt_thread_phase_t *t)
{
    return t->path.depth > VT_PHASE_NESTING ? VT_PHASE_NESTING : t->path.depth;
}

void vt_phases_at(const vt_phases_t *p, const vt_reader_t *r, uint64_t thread, vt_phase_t *out)
{
    memset(out, 0, sizeof(*out));
    out->kind = "";
    const vt_thread_phase_t *t = find(p, thread);
    if (!t || !kept_depth(t)) {
        t = NULL;
        for (size_t i = 0; i < p->n_threads; i++) {
            const vt_thread_phase_t *u = &p->threads[i];
            if (kept_depth(u) && (!t || u->opened[kept_depth(u)] > t->opened[kept_depth(t)]))
                t = u;
        }
    }
    if (t) {
        int depth = kept_depth(t);
        size_t start = t->path.ends[depth - 1] + (depth > 1 ? 1 : 0);
        out->kind = "range";
        snprintf(out->name, sizeof(out->name), "%s", t->path.text + start);
        snprintf(out->path, sizeof(out->path), "%s", t->path.text);
        return;
    }
    if (p->last_mark_id) {
        out->kind = "mark";
        vt_reader_cstring(r, p->last_mark_id, out->name, sizeof(out->name));
        memcpy(out->path, out->name, sizeof(out->path));
    }
}

void vt_phase_of_record(const char *path, uint64_t record, uint64_t t_ns, vt_phase_t *out)
{
    vt_reader_t r;
    vt_phases_t p;
    vt_event_t ev;
    uint64_t thread = 0;
    memset(&p, 0, sizeof(p));
    memset(out, 0, sizeof(*out));
    out->kind = "";
    if (vt_reader_open(&r, path) != 0) {
        vt_reader_release(&r);
        return;
    }
    while (vt_reader_next(&r, &ev) > 0) {
        if (record == UINT64_MAX ? vt_stream_is_event(&ev) && ev.t_ns > t_ns : false)
            break;
        if (vt_phases_apply(&p, &r, &ev) != 0)
            goto done;
        if (r.n_records == record) {
            if (ev.type == VT_REC_ALLOC)
                thread = ev.u.alloc.thread;
            break;
        }
    }
    vt_phases_at(&p, &r, thread, out);
done:
    vt_phases_release(&p);
    vt_reader_release(&r);
}

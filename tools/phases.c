/* SPDX-License-Identifier: MIT */
/* The phases a moment belongs to (phases.h). */
#include "phases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int vt_phases_apply(vt_phases_t *p, const vt_event_t *ev)
{
    switch (ev->type) {
    case VT_REC_PHASE_PUSH:
        if (p->n_open == p->cap_open) {
            size_t cap = p->cap_open ? p->cap_open * 2 : 16;
            vt_open_range_t *grown = realloc(p->open, cap * sizeof(*grown));
            if (!grown)
                return -1;
            p->open = grown;
            p->cap_open = cap;
        }
        p->open[p->n_open++] = (vt_open_range_t){ev->u.phase.thread, ev->u.phase.string_id};
        break;
    case VT_REC_PHASE_POP:
        /* The thread's innermost range ends; a pop without a push is ignored. */
        for (size_t i = p->n_open; i-- > 0;)
            if (p->open[i].thread == ev->u.phase.thread) {
                memmove(&p->open[i], &p->open[i + 1], (p->n_open - i - 1) * sizeof(*p->open));
                p->n_open--;
                break;
            }
        break;
    case VT_REC_MARK:
        p->last_mark_id = ev->u.phase.string_id;
        break;
    default:
        break;
    }
    return 0;
}

void vt_phases_at(const vt_phases_t *p, const vt_reader_t *r, uint64_t thread, vt_phase_t *out)
{
    memset(out, 0, sizeof(*out));
    out->kind = "";
    size_t innermost = SIZE_MAX;
    for (size_t i = 0; i < p->n_open; i++)
        if (p->open[i].thread == thread)
            innermost = i;
    if (innermost == SIZE_MAX && p->n_open) {
        innermost = p->n_open - 1;
        thread = p->open[innermost].thread;
    }
    if (innermost != SIZE_MAX) {
        out->kind = "range";
        vt_reader_cstring(r, p->open[innermost].string_id, out->name, sizeof(out->name));
        size_t len = 0;
        for (size_t i = 0; i <= innermost && len + 1 < sizeof(out->path); i++) {
            char name[VT_PHASE_NAME_BYTES];
            if (p->open[i].thread != thread)
                continue;
            vt_reader_cstring(r, p->open[i].string_id, name, sizeof(name));
            int n =
                snprintf(out->path + len, sizeof(out->path) - len, "%s%s", len ? "/" : "", name);
            if (n < 0)
                break;
            len += (size_t)n;
        }
        return;
    }
    if (p->last_mark_id) {
        out->kind = "mark";
        vt_reader_cstring(r, p->last_mark_id, out->name, sizeof(out->name));
        memcpy(out->path, out->name, sizeof(out->path));
    }
}

void vt_phases_release(vt_phases_t *p)
{
    free(p->open);
    memset(p, 0, sizeof(*p));
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
        if (vt_phases_apply(&p, &ev) != 0)
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

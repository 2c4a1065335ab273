/* SPDX-License-Identifier: MIT */
/* Temporary allocations by call-site (churn.h). */
#include "churn.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "load.h"
#include "sat.h"
#include "util.h"

/* A live device allocation: when it was made, where, how large. */
typedef struct churn_live_s {
    uint64_t key[2]; /* handle flag, address */
    uint64_t t_ns, size_bytes;
    uint32_t stack_id;
    UT_hash_handle hh;
} churn_live_t;

typedef struct churn_pass_s {
    vt_churn_t *c;
    churn_live_t *live;
    vt_churn_site_t *by_stack; /* indexed by stack id */
    size_t n_by_stack;
    bool oom;
} churn_pass_t;

static vt_churn_site_t *site_of(churn_pass_t *p, const vt_reader_t *r, uint32_t stack_id)
{
    /* A stack id the trace does not define (damaged, hostile) counts as no call-site. */
    size_t id = stack_id < r->n_stacks ? stack_id : 0;
    if (id >= p->n_by_stack) {
        size_t n = p->n_by_stack ? p->n_by_stack : 64;
        while (n <= id)
            n *= 2;
        vt_churn_site_t *s = realloc(p->by_stack, n * sizeof(*s));
        if (!s)
            return NULL;
        memset(s + p->n_by_stack, 0, (n - p->n_by_stack) * sizeof(*s));
        p->by_stack = s;
        p->n_by_stack = n;
    }
    p->by_stack[id].stack_id = (uint32_t)id;
    return &p->by_stack[id];
}

/* The allocation at key leaves at t_ns (freed, or replaced at its address). */
static void leave(churn_pass_t *p, const vt_reader_t *r, const uint64_t key[2], uint64_t t_ns)
{
    churn_live_t *l;
    HASH_FIND(hh, p->live, key, 2 * sizeof(uint64_t), l);
    if (!l)
        return;
    if (t_ns >= l->t_ns && t_ns - l->t_ns <= p->c->window_ns) {
        vt_churn_site_t *s = site_of(p, r, l->stack_id);
        if (!s) {
            p->oom = true;
        } else {
            s->n_temporary++;
            s->temporary_bytes = vt_sat_add(s->temporary_bytes, l->size_bytes);
            p->c->n_temporary++;
            p->c->temporary_bytes = vt_sat_add(p->c->temporary_bytes, l->size_bytes);
        }
    }
    HASH_DEL(p->live, l);
    free(l);
}

static int on_record(void *ctx, const vt_reader_t *r, const vt_analysis_t *a, const vt_event_t *ev,
                     const vt_live_t *old, const uint32_t *changed, int n_changed)
{
    (void)a, (void)changed, (void)n_changed;
    churn_pass_t *p = ctx;
    if (old && old->series == VT_TRACE_SERIES_DEVICE &&
        (ev->type == VT_REC_FREE || ev->type == VT_REC_ALLOC)) {
        uint64_t key[2] = {old->handle, old->address};
        leave(p, r, key, ev->t_ns);
    }
    if (ev->type != VT_REC_ALLOC || ev->u.alloc.series != VT_TRACE_SERIES_DEVICE)
        return 0;
    vt_churn_site_t *s = site_of(p, r, ev->u.alloc.stack_id);
    churn_live_t *l = malloc(sizeof(*l));
    if (!s || !l) {
        free(l);
        p->oom = true;
        return -1;
    }
    s->n_allocs++;
    s->category = ev->u.alloc.category < VT_CAT_COUNT ? ev->u.alloc.category : VT_CAT_UNKNOWN;
    p->c->n_allocs++;
    memset(l, 0, sizeof(*l));
    l->key[0] = ev->u.alloc.handle;
    l->key[1] = ev->u.alloc.address;
    l->t_ns = ev->t_ns;
    l->size_bytes = ev->u.alloc.size_bytes;
    l->stack_id = ev->u.alloc.stack_id;
    churn_live_t *was;
    HASH_FIND(hh, p->live, l->key, sizeof(l->key), was);
    if (was) { /* an address the analysis did not hold live (a zero-size allocation) */
        HASH_DEL(p->live, was);
        free(was);
    }
    HASH_ADD(hh, p->live, key, sizeof(l->key), l);
    return 0;
}

/* Most temporary allocations first, then most bytes churned, then the lower stack id. */
static int by_count(const void *x, const void *y)
{
    const vt_churn_site_t *a = x, *b = y;
    if (a->n_temporary != b->n_temporary)
        return a->n_temporary > b->n_temporary ? -1 : 1;
    if (a->temporary_bytes != b->temporary_bytes)
        return a->temporary_bytes > b->temporary_bytes ? -1 : 1;
    return a->stack_id < b->stack_id ? -1 : a->stack_id > b->stack_id;
}

int vt_churn_load(const char *path, uint64_t window_ns, vt_churn_t *c, vt_reader_t *r)
{
    memset(c, 0, sizeof(*c));
    c->window_ns = window_ns;
    churn_pass_t p = {c, NULL, NULL, 0, false};
    vt_analysis_t a;
    int rc = vt_trace_stream(path, r, &a, on_record, &p);
    if (rc >= 0 || p.oom) /* unreadable: nothing to release */
        vt_analysis_release(&a);
    churn_live_t *l, *tmp;
    HASH_ITER(hh, p.live, l, tmp) {
        HASH_DEL(p.live, l);
        free(l);
    }
    if (p.oom) {
        free(p.by_stack);
        vt_reader_release(r);
        error("'%s': out of memory counting the temporary allocations", path);
        return -1;
    }
    for (size_t i = 0; i < p.n_by_stack; i++)
        if (p.by_stack[i].n_temporary)
            p.by_stack[c->n_sites++] = p.by_stack[i];
    if (c->n_sites) /* by_stack is NULL when the trace has no call-site */
        qsort(p.by_stack, c->n_sites, sizeof(*p.by_stack), by_count);
    c->sites = p.by_stack;
    return rc;
}

void vt_churn_release(vt_churn_t *c)
{
    free(c->sites);
    memset(c, 0, sizeof(*c));
}

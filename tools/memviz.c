/* SPDX-License-Identifier: MIT */
/* The memory_viz snapshot (memviz.h). */
#include "memviz.h"

#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "pickle.h"
#include "util.h"

typedef struct memviz_s {
    vt_pickle_t p;
    vt_frames_opts_t frames;
    const vt_reader_t *r;  /* the reader whose stacks frames_memo numbers */
    uint32_t *frames_memo; /* by stack id: the memo slot of its frames list + 1; 0: not written */
    uint32_t n_stacks;
    uint32_t empty_memo; /* the empty frames list's slot + 1 */
} memviz_t;

static int frame_dict(void *ctx, const vt_frame_t *f)
{
    vt_pickle_t *p = ctx;
    vt_pickle_dict_begin(p);
    vt_pickle_key(p, "filename");
    /* A native frame without a source file is named by its object. */
    vt_pickle_str(p, f->file[0] ? f->file : f->module);
    vt_pickle_key(p, "line");
    vt_pickle_uint(p, f->line);
    vt_pickle_key(p, "name");
    vt_pickle_str(p, f->function);
    vt_pickle_dict_end(p);
    return 0;
}

/* The frames of stack_id as [{filename, line, name}], innermost first: written once per stack,
 * referenced from the memo after. */
static void frames_list(memviz_t *m, const vt_reader_t *r, uint32_t stack_id)
{
    uint32_t *slot =
        stack_id && stack_id < m->n_stacks ? &m->frames_memo[stack_id] : &m->empty_memo;
    if (*slot) {
        vt_pickle_memo_get(&m->p, *slot - 1);
        return;
    }
    vt_pickle_list_begin(&m->p);
    if (slot != &m->empty_memo)
        vt_frames_walk_parts(&m->frames, r, stack_id, frame_dict, &m->p);
    vt_pickle_list_end(&m->p);
    *slot = vt_pickle_memo_put(&m->p) + 1;
}

static uint64_t time_us(const vt_reader_t *r, uint64_t t_ns)
{
    return t_ns > r->t0_ns ? (t_ns - r->t0_ns) / 1000 : 0;
}

/* One trace entry: {action, addr, size, stream, time_us, frames, category}. */
static void entry(memviz_t *m, const vt_reader_t *r, const char *action, const vt_live_t *e,
                  uint64_t t_ns)
{
    vt_pickle_t *p = &m->p;
    vt_pickle_dict_begin(p);
    vt_pickle_key(p, "action");
    vt_pickle_key(p, action); /* a handful of literals: memoized like keys */
    vt_pickle_key(p, "addr");
    vt_pickle_uint(p, e->address);
    vt_pickle_key(p, "size");
    vt_pickle_uint(p, e->size_bytes);
    vt_pickle_key(p, "stream");
    vt_pickle_uint(p, 0); /* the trace does not record streams */
    vt_pickle_key(p, "time_us");
    vt_pickle_uint(p, time_us(r, t_ns));
    vt_pickle_key(p, "frames");
    frames_list(m, r, e->stack_id);
    vt_pickle_key(p, "category");
    vt_pickle_key(p, vt_category_names[e->category < VT_CAT_COUNT ? e->category : VT_CAT_UNKNOWN]);
    vt_pickle_dict_end(p);
}

/* An allocation that leaves: the free as PyTorch records it (requested, completed), then its
 * segment. */
static void free_entries(memviz_t *m, const vt_reader_t *r, const vt_live_t *e, uint64_t t_ns)
{
    entry(m, r, "free_requested", e, t_ns);
    entry(m, r, "free_completed", e, t_ns);
    entry(m, r, "segment_free", e, t_ns);
}

static void oom_entry(memviz_t *m, const vt_reader_t *r, const vt_event_t *ev)
{
    vt_pickle_t *p = &m->p;
    vt_pickle_dict_begin(p);
    vt_pickle_key(p, "action");
    vt_pickle_key(p, "oom");
    vt_pickle_key(p, "device_free");
    vt_pickle_uint(p, ev->u.oom.free_bytes);
    vt_pickle_key(p, "size");
    vt_pickle_uint(p, ev->u.oom.requested_bytes);
    vt_pickle_key(p, "stream");
    vt_pickle_uint(p, 0);
    vt_pickle_key(p, "time_us");
    vt_pickle_uint(p, time_us(r, ev->t_ns));
    vt_pickle_key(p, "frames");
    frames_list(m, r, ev->u.oom.stack_id);
    vt_pickle_dict_end(p);
}

/* The last entry of a device's trace: the moment segments[] shows. Its category "unknown" is
 * there for the viewer, which fails to load a snapshot whose categories lack it. */
static void snapshot_entry(memviz_t *m, const vt_reader_t *r)
{
    vt_live_t none = {.category = VT_CAT_UNKNOWN};
    entry(m, r, "snapshot", &none, r->t_ns);
}

/* device's trace: one more pass over path. Returns 0 or -1 (said). */
static int device_trace(memviz_t *m, const char *path, uint32_t device)
{
    vt_reader_t r;
    vt_analysis_t a;
    vt_event_t ev;
    int rc = 0;
    memset(&a, 0, sizeof(a));
    if (vt_reader_open(&r, path) != 0) {
        error("%s", r.err);
        vt_reader_release(&r);
        return -1;
    }
    vt_pickle_list_begin(&m->p);
    while (vt_reader_next(&r, &ev) > 0) {
        const vt_live_t *found = NULL;
        vt_live_t old;
        if (ev.type == VT_REC_ALLOC)
            found = vt_analysis_find(&a, ev.u.alloc.series, ev.u.alloc.handle, ev.u.alloc.address);
        else if (ev.type == VT_REC_FREE)
            found = vt_analysis_find(&a, ev.u.free.series, ev.u.free.handle, ev.u.free.address);
        if (found)
            old = *found; /* applying ev removes it */
        if (vt_analysis_apply(&a, &r, &ev) != 0)
            break;
        /* An allocation replaced without a free seen still leaves before the new one. */
        if (found && old.series == VT_TRACE_SERIES_DEVICE && old.device == device)
            free_entries(m, &r, &old, ev.t_ns);
        if (ev.type == VT_REC_ALLOC && ev.u.alloc.series == VT_TRACE_SERIES_DEVICE &&
            ev.u.alloc.device == device) {
            const vt_live_t *e =
                vt_analysis_find(&a, ev.u.alloc.series, ev.u.alloc.handle, ev.u.alloc.address);
            if (e) {
                entry(m, &r, "segment_alloc", e, ev.t_ns);
                entry(m, &r, "alloc", e, ev.t_ns);
            }
        } else if (ev.type == VT_REC_OOM && ev.u.oom.device == device) {
            oom_entry(m, &r, &ev);
        }
    }
    if (r.state < 0 && r.n_records == 0)
        rc = error("%s", r.err);
    snapshot_entry(m, &r);
    vt_pickle_list_end(&m->p);
    vt_analysis_release(&a);
    vt_reader_release(&r);
    return rc;
}

static int by_device_address(const void *x, const void *y)
{
    const vt_live_t *a = x, *b = y;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    return a->address < b->address ? -1 : a->address > b->address;
}

/* segments[]: each device allocation live at the end, one block filling it. */
static int segments(memviz_t *m, const vt_reader_t *r, const vt_analysis_t *a)
{
    size_t n = 0;
    vt_live_t *live = malloc((a->n_live ? a->n_live : 1) * sizeof(*live));
    if (!live)
        return error("'%s': out of memory", r->path);
    for (size_t i = 0; i < a->cap_live; i++)
        if (a->live[i].used && a->live[i].series == VT_TRACE_SERIES_DEVICE &&
            a->live[i].device <= VT_MEMVIZ_MAX_DEVICE)
            live[n++] = a->live[i];
    qsort(live, n, sizeof(*live), by_device_address);
    vt_pickle_t *p = &m->p;
    vt_pickle_list_begin(p);
    for (size_t i = 0; i < n; i++) {
        const vt_live_t *e = &live[i];
        vt_pickle_dict_begin(p);
        vt_pickle_key(p, "device");
        vt_pickle_uint(p, e->device);
        vt_pickle_key(p, "address");
        vt_pickle_uint(p, e->address);
        vt_pickle_key(p, "total_size");
        vt_pickle_uint(p, e->size_bytes);
        vt_pickle_key(p, "allocated_size");
        vt_pickle_uint(p, e->size_bytes);
        vt_pickle_key(p, "active_size");
        vt_pickle_uint(p, e->size_bytes);
        vt_pickle_key(p, "requested_size");
        vt_pickle_uint(p, e->size_bytes);
        vt_pickle_key(p, "stream");
        vt_pickle_uint(p, 0);
        vt_pickle_key(p, "segment_type");
        /* PyTorch's pools: blocks up to 1 MiB come from the small one. */
        vt_pickle_key(p, e->size_bytes <= (1u << 20) ? "small" : "large");
        vt_pickle_key(p, "is_expandable");
        vt_pickle_bool(p, false);
        vt_pickle_key(p, "category");
        vt_pickle_key(p,
                      vt_category_names[e->category < VT_CAT_COUNT ? e->category : VT_CAT_UNKNOWN]);
        vt_pickle_key(p, "frames");
        frames_list(m, r, e->stack_id);
        vt_pickle_key(p, "blocks");
        vt_pickle_list_begin(p);
        vt_pickle_dict_begin(p);
        vt_pickle_key(p, "address");
        vt_pickle_uint(p, e->address);
        vt_pickle_key(p, "size");
        vt_pickle_uint(p, e->size_bytes);
        vt_pickle_key(p, "requested_size");
        vt_pickle_uint(p, e->size_bytes);
        vt_pickle_key(p, "state");
        vt_pickle_key(p, "active_allocated");
        vt_pickle_key(p, "frames");
        frames_list(m, r, e->stack_id);
        vt_pickle_dict_end(p);
        vt_pickle_list_end(p);
        vt_pickle_dict_end(p);
    }
    vt_pickle_list_end(p);
    free(live);
    return 0;
}

int vt_memviz_write(FILE *out, const char *path, const vt_reader_t *r, const vt_analysis_t *a,
                    vt_symbolizer_t *sym)
{
    memviz_t m;
    memset(&m, 0, sizeof(m));
    m.frames = (vt_frames_opts_t){.sym = sym, .shown = true};
    m.n_stacks = r->n_stacks;
    m.frames_memo = calloc(m.n_stacks ? m.n_stacks : 1, sizeof(*m.frames_memo));
    if (!m.frames_memo)
        return error("'%s': out of memory", path);
    uint32_t n_lists = 0;
    for (uint32_t i = 0; i < a->n_devices; i++) {
        if (a->devices[i].device > VT_MEMVIZ_MAX_DEVICE) {
            error("warning: '%s': device %u left out of the memory-viz snapshot (numbers above "
                  "%u are not device ordinals)",
                  path, a->devices[i].device, VT_MEMVIZ_MAX_DEVICE);
            continue;
        }
        if (a->devices[i].device + 1 > n_lists)
            n_lists = a->devices[i].device + 1;
    }
    int rc = 0;
    vt_pickle_begin(&m.p, out);
    vt_pickle_dict_begin(&m.p);
    vt_pickle_key(&m.p, "segments");
    if (segments(&m, r, a) != 0)
        rc = -1;
    vt_pickle_key(&m.p, "device_traces");
    vt_pickle_list_begin(&m.p);
    /* A device without memory gets an empty list: the list is indexed by device number. */
    for (uint32_t d = 0; d < n_lists; d++) {
        if (!vt_stream_device(a, d)) {
            vt_pickle_list_begin(&m.p);
            vt_pickle_list_end(&m.p);
        } else if (device_trace(&m, path, d) != 0) {
            rc = -1;
        }
    }
    vt_pickle_list_end(&m.p);
    vt_pickle_dict_end(&m.p);
    vt_pickle_end(&m.p);
    free(m.frames_memo);
    return rc;
}

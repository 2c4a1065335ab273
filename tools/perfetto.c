/* SPDX-License-Identifier: MIT */
/* `export --format perfetto` (perfetto.h): a first pass counts what a full export would write
 * and finds the largest call-sites at the peak; the second writes, within the budget. Memory is
 * bounded by the live set, the threads and the stacks, never by the number of events. */
#include "perfetto.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "json.h"
#include "load.h"
#include "rowfmt.h"
#include "symbolize.h"
#include "util.h"

/* What one event costs at most, for the budget: the widest numbers a trace gives (measured on
 * 20 M events: a counter sample writes about 300 bytes, its two events together). */
#define COUNTER_SAMPLE_BYTES 360u /* the total and the categories at one moment */
#define PHASE_EVENT_BYTES    160u /* a B, E or instant, with a name of usual length */
#define SLICE_FIXED_BYTES    330u /* an allocation's b and e events without its name and frames */
#define META_BYTES           4096u
#define THREAD_BYTES         200u
#define SLICE_FRAMES         32 /* frames a slice carries */

typedef struct pf_site_s {
    uint32_t stack_id;
    char *name;   /* the slices' name as a JSON string, quotes included */
    char *frames; /* ,"frames":[...] */
    size_t name_len, frames_len;
    uint64_t n_allocs; /* on the peak device, from the first pass */
    uint64_t stride;   /* every stride-th allocation is a slice */
    uint64_t cap;      /* at most this many kept by stride, and as many more live at the peak */
    uint64_t seen_in_stride; /* allocations seen, modulo stride: a count, not a division each */
    uint64_t kept, kept_at_peak;
} pf_site_t;

/* An allocation of a chosen call-site, live: its slice is written when it is freed. In a table
 * of open addressing on (handle, address), no allocation per entry: on a trace whose every
 * allocation is a chosen site's, a malloc and a hash node each were a tenth of the export. */
typedef struct pf_live_s {
    uint64_t address, t_ns, size_bytes;
    uint64_t seq; /* the order of allocation: the order slices still live are written in */
    uint32_t stack_id;
    uint8_t handle, site, category;
    bool keep, used;
} pf_live_t;

typedef struct pf_sample_s {
    uint64_t t_ns, total, cat[VT_CAT_COUNT];
} pf_sample_t;

/* A device's counter samples, one column of time at a time. */
typedef struct pf_device_s {
    uint32_t device;
    uint64_t col;                    /* the column being filled; UINT64_MAX: none */
    uint64_t col_from_ns, col_to_ns; /* its span from t0, [from, to): a compare, not a division */
    pf_sample_t max, last;
} pf_device_t;

/* A thread's phases open in the output and left out, so each E matches a B written. */
typedef struct pf_thread_s {
    uint64_t thread, open_written, open_dropped;
} pf_thread_t;

typedef struct pf_s {
    const char *path;
    FILE *out;
    uint64_t pid, n_written;
    /* the first pass */
    uint64_t n_changes, n_phase_events, last_t_ns;
    uint64_t *allocs_by_stack; /* device allocations on the peak device per stack id */
    size_t n_allocs_by_stack;
    uint32_t peak_device;
    uint64_t peak_record; /* 0: none */
    /* the plan */
    uint64_t col_ns;      /* 0: every change */
    uint64_t phase_limit; /* phase, mark and OOM events written at most */
    uint64_t n_phases_written, n_phases_dropped;
    pf_site_t sites[VT_PERFETTO_SITES];
    int n_sites;
    /* the second pass */
    pf_device_t *devices;
    size_t n_devices, cap_devices;
    pf_thread_t *threads;
    size_t n_threads, cap_threads;
    pf_live_t *live; /* cap_live slots, a power of two, at most half used */
    size_t n_live, cap_live;
    uint64_t next_seq;
    uint64_t slice_id;
    vt_row_text16_t cat_keys[VT_CAT_COUNT]; /* cat_keys_init */
    bool oom;
} pf_t;

static void *grow(void *items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return items;
    size_t cap2 = *cap ? 2 * *cap : 16;
    while (cap2 < need)
        cap2 *= 2;
    void *p = realloc(items, cap2 * size);
    if (p)
        *cap = cap2;
    return p;
}

/* ---- the first pass ---- */

static int plan_record(void *ctx, const vt_reader_t *r, const vt_analysis_t *a,
                       const vt_event_t *ev, const vt_live_t *old, const uint32_t *changed,
                       int n_changed)
{
    (void)a, (void)old, (void)changed;
    pf_t *p = ctx;
    if (vt_stream_is_event(ev))
        p->last_t_ns = ev->t_ns;
    p->n_changes += (uint64_t)n_changed;
    if (ev->type == VT_REC_PHASE_PUSH || ev->type == VT_REC_PHASE_POP || ev->type == VT_REC_MARK ||
        ev->type == VT_REC_OOM)
        p->n_phase_events++;
    if (ev->type == VT_REC_ALLOC && ev->u.alloc.series == VT_TRACE_SERIES_DEVICE &&
        ev->u.alloc.stack_id < r->n_stacks) {
        /* Every device's, as the peak device is not known yet: stacks are few. */
        size_t id = ev->u.alloc.stack_id;
        if (id >= p->n_allocs_by_stack) {
            size_t n = p->n_allocs_by_stack;
            uint64_t *c = grow(p->allocs_by_stack, &p->n_allocs_by_stack, id + 1, sizeof(*c));
            if (!c) {
                p->oom = true;
                return 0;
            }
            memset(c + n, 0, (p->n_allocs_by_stack - n) * sizeof(*c));
            p->allocs_by_stack = c;
        }
        p->allocs_by_stack[id]++;
    }
    return 0;
}

/* A string as JSON into a malloc'd buffer (*len bytes), through the one escaper. */
static char *json_text(const char *prefix, const char *s, size_t *len)
{
    char *buf = NULL;
    FILE *mem = open_memstream(&buf, len);
    if (!mem)
        return NULL;
    fputs(prefix, mem);
    vt_json_put_string(mem, s, 0);
    if (fclose(mem) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

typedef struct site_frames_s {
    FILE *mem;
    int n;
    bool named;                /* leaf is a frame with a function's name */
    char leaf[VT_FRAME_BYTES]; /* what the slices are called by */
} site_frames_t;

/* The site is called by its innermost frame with a name: a library without symbols (the
 * allocator's frames, often) says less than the code that called it. */
static int site_frame(void *ctx, const vt_frame_t *f)
{
    site_frames_t *s = ctx;
    bool named = f->python || (f->function[0] && strncmp(f->function, "0x", 2) != 0);
    if (!s->n || (named && !s->named)) {
        snprintf(s->leaf, sizeof(s->leaf), "%s", f->text);
        s->named = named;
    }
    fputs(s->n++ ? "," : "", s->mem);
    vt_json_put_string(s->mem, f->text, 0);
    return 0;
}

/* The chosen call-site rank (from 0): its slices' name, "site 1: LEAF", and frames. */
static int site_describe(pf_site_t *site, int rank, const vt_frames_opts_t *o, const vt_reader_t *r)
{
    site_frames_t s = {NULL, 0, false, "[no call-site]"};
    s.mem = open_memstream(&site->frames, &site->frames_len);
    if (!s.mem)
        return -1;
    fputs(",\"frames\":[", s.mem);
    vt_frames_walk_parts(o, r, site->stack_id, site_frame, &s);
    fputc(']', s.mem);
    if (fclose(s.mem) != 0)
        return -1;
    char name[VT_FRAME_BYTES + 32];
    snprintf(name, sizeof(name), "site %d: %s", rank + 1, s.leaf);
    site->name = json_text("", name, &site->name_len);
    return site->name ? 0 : -1;
}

/* The largest call-sites at the peak, by distinct stack, with their frames. */
static int choose_sites(pf_t *p, const vt_reader_t *r, const vt_analysis_t *a)
{
    const vt_device_stats_t *peak = vt_analysis_peak(a);
    if (!peak)
        return 0;
    p->peak_device = peak->device;
    p->peak_record = peak->peak_record == UINT64_MAX ? 0 : peak->peak_record;
    vt_site_t *sites = NULL;
    size_t n_sites = 0;
    if (vt_trace_peak_sites(p->path, a, peak, &sites, &n_sites) != 0)
        return -1;
    vt_symbolizer_t sym, *symp = NULL;
    if (n_sites && vt_symbolizer_init_trace(&sym, r) == 0)
        symp = &sym;
    vt_frames_opts_t o = {.sym = symp, .max_frames = SLICE_FRAMES, .shown = true};
    int rc = 0;
    for (size_t i = 0; i < n_sites && p->n_sites < VT_PERFETTO_SITES && rc == 0; i++) {
        bool seen = false;
        for (int k = 0; k < p->n_sites; k++)
            seen |= p->sites[k].stack_id == sites[i].stack_id;
        if (seen || !sites[i].stack_id)
            continue;
        pf_site_t *s = &p->sites[p->n_sites];
        memset(s, 0, sizeof(*s));
        s->stack_id = sites[i].stack_id;
        s->n_allocs = s->stack_id < p->n_allocs_by_stack ? p->allocs_by_stack[s->stack_id] : 0;
        rc = site_describe(s, p->n_sites, &o, r);
        p->n_sites++;
    }
    if (symp)
        vt_symbolizer_release(symp);
    free(sites);
    return rc;
}

/* The budget shared out: the phases first (they are few and the user named them), then the
 * slices, then the counters, which take columns of time when every change does not fit. */
static void plan_budget(pf_t *p, const vt_reader_t *r, const vt_analysis_t *a, uint64_t max_bytes)
{
    p->phase_limit = UINT64_MAX;
    for (int i = 0; i < p->n_sites; i++) {
        p->sites[i].stride = 1;
        p->sites[i].cap = UINT64_MAX;
    }
    if (!max_bytes)
        return;
    uint64_t fixed = META_BYTES + (uint64_t)r->n_threads * THREAD_BYTES;
    uint64_t left = max_bytes > fixed ? max_bytes - fixed : 0;

    uint64_t phase_share = vt_sat_mul(p->n_phase_events, PHASE_EVENT_BYTES);
    if (phase_share > left / 5) {
        phase_share = left / 5;
        p->phase_limit = phase_share / PHASE_EVENT_BYTES;
    }
    left -= phase_share;

    uint64_t slice_share = left * 3 / 10, slices_bytes = 0;
    for (int i = 0; i < p->n_sites; i++) {
        pf_site_t *s = &p->sites[i];
        slices_bytes =
            vt_sat_add(slices_bytes, vt_sat_mul(s->n_allocs, SLICE_FIXED_BYTES + 2 * s->name_len +
                                                                 s->frames_len));
    }
    if (slices_bytes > slice_share) {
        for (int i = 0; i < p->n_sites; i++) {
            pf_site_t *s = &p->sites[i];
            uint64_t each = SLICE_FIXED_BYTES + 2 * s->name_len + s->frames_len;
            /* half by stride, half for those live at the peak */
            s->cap = slice_share / (uint64_t)p->n_sites / each / 2;
            if (!s->cap)
                s->cap = 1;
            s->stride = s->n_allocs / s->cap + 1;
        }
    } else {
        slice_share = slices_bytes;
    }
    left -= slice_share;

    uint64_t n_devices = a->n_devices ? a->n_devices : 1;
    if (vt_sat_mul(p->n_changes, COUNTER_SAMPLE_BYTES) <= left)
        return;
    uint64_t n_cols = left / (2 * COUNTER_SAMPLE_BYTES * n_devices);
    if (!n_cols)
        n_cols = 1;
    uint64_t span = p->last_t_ns > r->t0_ns ? p->last_t_ns - r->t0_ns : 0;
    p->col_ns = span / n_cols + 1;
}

/* ---- the second pass ---- */

/* The timestamp (microseconds from t0, to the nanosecond) and the pid, ",\"pid\":PID", at q;
 * the end. Writes up to 2 * VT_ROW_U64_MAX + 16 bytes. */
static char *ts_and_pid(const pf_t *p, char *q, uint64_t ns)
{
    q = vt_row_u64(q, ns / 1000);
    unsigned frac = (unsigned)(ns % 1000);
    q[0] = '.';
    q[1] = (char)('0' + frac / 100);
    memcpy(q + 2, vt_row_digits2 + 2 * (frac % 100), 2);
    q = VT_ROW_LIT(q + 4, ",\"pid\":");
    return vt_row_u64(q, p->pid);
}

/* The start of one trace event: the comma, name (JSON, quoted), phase, timestamp
 * (microseconds from t0, to the nanosecond) and pid; the caller adds the rest and the brace. */
static void event_begin(pf_t *p, const vt_reader_t *r, const char *name, size_t name_len,
                        const char *ph, uint64_t t_ns)
{
    char row[128 + 3 * VT_ROW_U64_MAX], *q = row;
    uint64_t ns = t_ns > r->t0_ns ? t_ns - r->t0_ns : 0;
    q = p->n_written++ ? VT_ROW_LIT(q, ",\n{\"name\":") : VT_ROW_LIT(q, "\n{\"name\":");
    fwrite(row, 1, (size_t)(q - row), p->out);
    fwrite(name, 1, name_len, p->out);
    q = row;
    q = VT_ROW_LIT(q, ",\"ph\":\"");
    q = vt_row_str(q, ph);
    q = VT_ROW_LIT(q, "\",\"ts\":");
    q = ts_and_pid(p, q, ns);
    vt_row_write(p->out, row, q);
}

/* event_begin with a plain name, escaped here. */
static void event_named(pf_t *p, const vt_reader_t *r, const char *name, const char *ph,
                        uint64_t t_ns)
{
    size_t len;
    char *json = json_text("", name, &len);
    if (!json) {
        event_begin(p, r, "\"\"", 2, ph, t_ns);
        p->oom = true;
        return;
    }
    event_begin(p, r, json, len, ph, t_ns);
    free(json);
}

/* One moment of a device's memory: its total, then its categories (one series each), built
 * in one buffer and written at once; the categories' keys made once (pf_t's cat_keys). */
static void counter_sample(pf_t *p, const vt_reader_t *r, uint32_t device, const pf_sample_t *s)
{
    char row[2 * (160 + 3 * VT_ROW_U64_MAX + VT_CAT_COUNT * (16 + VT_ROW_U64_MAX))], *q = row;
    uint64_t ns = s->t_ns > r->t0_ns ? s->t_ns - r->t0_ns : 0;
    for (int part = 0; part < 2; part++) {
        q = p->n_written++ ? VT_ROW_LIT(q, ",\n{\"name\":\"device ")
                           : VT_ROW_LIT(q, "\n{\"name\":\"device ");
        q = vt_row_u64(q, device);
        q = part ? VT_ROW_LIT(q, "\",\"ph\":\"C\",\"ts\":")
                 : VT_ROW_LIT(q, " total\",\"ph\":\"C\",\"ts\":");
        q = ts_and_pid(p, q, ns);
        if (!part) {
            q = VT_ROW_LIT(q, ",\"args\":{\"bytes\":");
            q = vt_row_u64(q, s->total);
        } else {
            q = VT_ROW_LIT(q, ",\"args\":{");
            for (int c = 0; c < VT_CAT_COUNT; c++) {
                q = vt_row_text16(q, &p->cat_keys[c]);
                q = vt_row_u64(q, s->cat[c]);
            }
        }
        q = VT_ROW_LIT(q, "}}");
    }
    vt_row_write(p->out, row, q);
}

/* The categories' keys in a counter's args: "weights": first, then ,"gradients": and so on
 * (plain words: nothing to escape). */
static void cat_keys_init(pf_t *p)
{
    for (int c = 0; c < VT_CAT_COUNT; c++) {
        char key[64];
        int n = snprintf(key, sizeof(key), "%s\"%s\":", c ? "," : "", vt_category_names[c]);
        vt_row_text16_t *t = &p->cat_keys[c];
        memset(t, 0, sizeof(*t));
        if (n < 0 || (size_t)n > sizeof(t->text))
            n = (int)sizeof(t->text); /* not reached: the longest is 15 bytes */
        memcpy(t->text, key, (size_t)n);
        t->len = (uint8_t)n;
    }
}

static void column_flush(pf_t *p, const vt_reader_t *r, const pf_device_t *d)
{
    if (d->col == UINT64_MAX)
        return;
    counter_sample(p, r, d->device, &d->max);
    if (d->last.t_ns != d->max.t_ns)
        counter_sample(p, r, d->device, &d->last);
}

static void counter_change(pf_t *p, const vt_reader_t *r, const vt_device_stats_t *d, uint64_t t_ns)
{
    pf_sample_t s = {.t_ns = t_ns, .total = d->live_bytes};
    memcpy(s.cat, d->live_by_category, sizeof(s.cat));
    if (!p->col_ns) {
        counter_sample(p, r, d->device, &s);
        return;
    }
    size_t k = 0;
    while (k < p->n_devices && p->devices[k].device != d->device)
        k++;
    if (k == p->n_devices) {
        pf_device_t *dv = grow(p->devices, &p->cap_devices, k + 1, sizeof(*dv));
        if (!dv) {
            p->oom = true;
            return;
        }
        p->devices = dv;
        dv[k] = (pf_device_t){.device = d->device, .col = UINT64_MAX};
        p->n_devices++;
    }
    pf_device_t *dv = &p->devices[k];
    uint64_t t_rel_ns = t_ns > r->t0_ns ? t_ns - r->t0_ns : 0;
    uint64_t col = dv->col;
    if (col == UINT64_MAX || t_rel_ns < dv->col_from_ns || t_rel_ns >= dv->col_to_ns)
        col = t_rel_ns / p->col_ns;
    if (col != dv->col) {
        column_flush(p, r, dv);
        dv->col = col;
        dv->col_from_ns = col * p->col_ns;
        dv->col_to_ns = vt_sat_add(dv->col_from_ns, p->col_ns);
        dv->max = s;
    } else if (s.total > dv->max.total) {
        dv->max = s;
    }
    dv->last = s;
}

/* The OS thread id of a trace thread (its THREAD record), or the trace's number for it. */
static uint64_t tid_of(const vt_reader_t *r, uint64_t thread)
{
    for (uint32_t i = 1; i < r->n_threads; i++)
        if (r->threads[i].thread == thread)
            return r->threads[i].os_tid ? r->threads[i].os_tid : thread;
    return thread;
}

static pf_thread_t *thread_of(pf_t *p, uint64_t thread)
{
    for (size_t i = 0; i < p->n_threads; i++)
        if (p->threads[i].thread == thread)
            return &p->threads[i];
    pf_thread_t *t = grow(p->threads, &p->cap_threads, p->n_threads + 1, sizeof(*t));
    if (!t) {
        p->oom = true;
        return NULL;
    }
    p->threads = t;
    t[p->n_threads] = (pf_thread_t){thread, 0, 0};
    return &t[p->n_threads++];
}

/* Whether a phase, mark or OOM event is written: all while under the limit; past it none but
 * the E of a B written (what was left out opened later, so it closes first). */
static bool phase_kept(pf_t *p, const vt_event_t *ev)
{
    bool room = p->n_phases_written < p->phase_limit;
    pf_thread_t *t = ev->type == VT_REC_PHASE_PUSH || ev->type == VT_REC_PHASE_POP
                         ? thread_of(p, ev->u.phase.thread)
                         : NULL;
    bool keep = room;
    if (ev->type == VT_REC_PHASE_PUSH && t) {
        if (room)
            t->open_written++;
        else
            t->open_dropped++;
    } else if (ev->type == VT_REC_PHASE_POP && t) {
        if (t->open_dropped) {
            t->open_dropped--;
            keep = false;
        } else {
            if (t->open_written)
                t->open_written--;
            keep = true;
        }
    }
    if (keep)
        p->n_phases_written++;
    else
        p->n_phases_dropped++;
    return keep;
}

static void phase_event(pf_t *p, const vt_reader_t *r, const vt_event_t *ev)
{
    char name[VT_FRAME_BYTES];
    switch (ev->type) {
    case VT_REC_PROCESS: {
        char buf[32];
        if (vt_reader_process(r, "pid", buf, sizeof(buf)))
            p->pid = strtoull(buf, NULL, 10);
        if (!vt_reader_process(r, "exe", name, sizeof(name)))
            snprintf(name, sizeof(name), "process");
        event_named(p, r, "process_name", "M", r->t0_ns);
        fputs(",\"args\":{\"name\":", p->out);
        vt_json_put_string(p->out, name, 0);
        fputs("}}", p->out);
        break;
    }
    case VT_REC_THREAD:
        vt_reader_cstring(r, ev->u.thread.name_string_id, name, sizeof(name));
        event_named(p, r, "thread_name", "M", r->t0_ns);
        fprintf(p->out, ",\"tid\":%" PRIu64 ",\"args\":{\"name\":",
                ev->u.thread.os_tid ? ev->u.thread.os_tid : ev->u.thread.thread);
        vt_json_put_string(p->out, name, 0);
        fputs("}}", p->out);
        break;
    case VT_REC_PHASE_PUSH:
    case VT_REC_PHASE_POP:
    case VT_REC_MARK:
        if (!phase_kept(p, ev))
            break;
        vt_reader_cstring(r, ev->u.phase.string_id, name, sizeof(name));
        event_named(p, r, name,
                    ev->type == VT_REC_PHASE_PUSH  ? "B"
                    : ev->type == VT_REC_PHASE_POP ? "E"
                                                   : "i",
                    ev->t_ns);
        fprintf(p->out, ",\"tid\":%" PRIu64 "%s}", tid_of(r, ev->u.phase.thread),
                ev->type == VT_REC_MARK ? ",\"s\":\"t\"" : "");
        break;
    case VT_REC_OOM:
        if (!phase_kept(p, ev))
            break;
        event_named(p, r, "out of memory", "i", ev->t_ns);
        fprintf(p->out,
                ",\"tid\":%" PRIu64 ",\"s\":\"p\",\"args\":{\"device\":%" PRIu32
                ",\"requested_bytes\":%" PRIu64 "}}",
                tid_of(r, ev->u.oom.thread), ev->u.oom.device, ev->u.oom.requested_bytes);
        break;
    default:
        break;
    }
}

/* An allocation's slice: b at its allocation, then e at its free (t_end_ns; none when it was
 * never freed: the UI draws it to the end). */
static void slice_write(pf_t *p, const vt_reader_t *r, const pf_live_t *l, bool freed,
                        uint64_t t_end_ns)
{
    const pf_site_t *s = &p->sites[l->site];
    char row[256 + 4 * VT_ROW_U64_MAX], *q;
    uint64_t id = ++p->slice_id;
    event_begin(p, r, s->name, s->name_len, "b", l->t_ns);
    q = row;
    q = vt_row_str(q, ",\"cat\":\"allocation\",\"id\":");
    q = vt_row_u64(q, id);
    q = vt_row_str(q, ",\"args\":{\"size_bytes\":");
    q = vt_row_u64(q, l->size_bytes);
    q = vt_row_str(q, ",\"category\":\"");
    q = vt_row_str(q, vt_category_names[l->category < VT_CAT_COUNT ? l->category : VT_CAT_UNKNOWN]);
    q = vt_row_str(q, "\",\"stack_id\":");
    q = vt_row_u64(q, l->stack_id);
    fwrite(row, 1, (size_t)(q - row), p->out);
    fwrite(s->frames, 1, s->frames_len, p->out);
    fputs("}}", p->out);
    if (!freed)
        return;
    event_begin(p, r, s->name, s->name_len, "e", t_end_ns);
    q = row;
    q = vt_row_str(q, ",\"cat\":\"allocation\",\"id\":");
    q = vt_row_u64(q, id);
    q = vt_row_str(q, "}");
    vt_row_write(p->out, row, q);
}

static int site_of(const pf_t *p, uint32_t stack_id)
{
    for (int i = 0; i < p->n_sites; i++)
        if (p->sites[i].stack_id == stack_id)
            return i;
    return -1;
}

static size_t live_home(uint8_t handle, uint64_t address, size_t mask)
{
    uint64_t x = address ^ ((uint64_t)handle << 63);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x & mask;
}

/* The slot of (handle, address): its entry, or the empty slot where it would go. */
static pf_live_t *live_slot(const pf_t *p, uint8_t handle, uint64_t address)
{
    size_t mask = p->cap_live - 1;
    for (size_t i = live_home(handle, address, mask);; i = (i + 1) & mask) {
        pf_live_t *l = &p->live[i];
        if (!l->used || (l->address == address && l->handle == handle))
            return l;
    }
}

/* Room for one more entry: the table doubled when it would be over half full. */
static int live_room(pf_t *p)
{
    if ((p->n_live + 1) * 2 <= p->cap_live)
        return 0;
    size_t cap = p->cap_live ? 2 * p->cap_live : 1024;
    pf_live_t *old = p->live, *live = calloc(cap, sizeof(*live));
    if (!live)
        return -1;
    size_t old_cap = p->cap_live;
    p->live = live;
    p->cap_live = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].used)
            *live_slot(p, old[i].handle, old[i].address) = old[i];
    free(old);
    return 0;
}

/* Linear probing deletes by moving the entries after the hole back (no tombstones). */
static void live_delete(pf_t *p, pf_live_t *l)
{
    size_t mask = p->cap_live - 1, i = (size_t)(l - p->live), j = i;
    p->live[i].used = false;
    for (;;) {
        j = (j + 1) & mask;
        if (!p->live[j].used)
            break;
        size_t home = live_home(p->live[j].handle, p->live[j].address, mask);
        if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
            continue;
        p->live[i] = p->live[j];
        p->live[j].used = false;
        i = j;
    }
    p->n_live--;
}

static int by_seq(const void *x, const void *y)
{
    const pf_live_t *a = *(pf_live_t *const *)x, *b = *(pf_live_t *const *)y;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The live entries in the order they were allocated (malloc'd; NULL when none or no memory:
 * *oom says which). */
static pf_live_t **live_in_order(pf_t *p, bool *oom)
{
    *oom = false;
    if (!p->n_live)
        return NULL;
    pf_live_t **order = malloc(p->n_live * sizeof(*order));
    if (!order) {
        *oom = true;
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 0; i < p->cap_live; i++)
        if (p->live[i].used)
            order[n++] = &p->live[i];
    qsort(order, n, sizeof(*order), by_seq);
    return order;
}

/* A chosen site's allocation leaving (freed, or replaced at its address) at t_ns. */
static void slice_end(pf_t *p, const vt_reader_t *r, const vt_live_t *old, uint64_t t_ns)
{
    if (!old || old->series != VT_TRACE_SERIES_DEVICE || old->device != p->peak_device ||
        !p->n_live)
        return;
    pf_live_t *l = live_slot(p, old->handle, old->address);
    if (!l->used)
        return;
    if (l->keep)
        slice_write(p, r, l, true, t_ns);
    live_delete(p, l);
}

static void slice_begin(pf_t *p, const vt_event_t *ev)
{
    if (ev->u.alloc.series != VT_TRACE_SERIES_DEVICE || ev->u.alloc.device != p->peak_device)
        return;
    int site = site_of(p, ev->u.alloc.stack_id);
    if (site < 0)
        return;
    pf_site_t *s = &p->sites[site];
    if (live_room(p) != 0) {
        p->oom = true;
        return;
    }
    pf_live_t *l = live_slot(p, ev->u.alloc.handle, ev->u.alloc.address);
    if (l->used) /* not reached: slice_end took the entry the analysis replaced */
        p->n_live--;
    *l = (pf_live_t){.address = ev->u.alloc.address,
                     .t_ns = ev->t_ns,
                     .size_bytes = ev->u.alloc.size_bytes,
                     .seq = p->next_seq++,
                     .stack_id = ev->u.alloc.stack_id,
                     .handle = ev->u.alloc.handle,
                     .site = (uint8_t)site,
                     .category = ev->u.alloc.category,
                     .used = true};
    l->keep = s->seen_in_stride == 0 && s->kept < s->cap;
    if (++s->seen_in_stride == s->stride)
        s->seen_in_stride = 0;
    s->kept += l->keep;
    p->n_live++;
}

/* At the record that makes the peak: every chosen site's allocation live then is kept, so the
 * slices show what made the peak (in the order they were allocated, while the cap allows). */
static void slices_at_peak(pf_t *p)
{
    bool oom;
    pf_live_t **order = live_in_order(p, &oom);
    p->oom |= oom;
    for (size_t i = 0; order && i < p->n_live; i++) {
        pf_live_t *l = order[i];
        pf_site_t *s = &p->sites[l->site];
        if (!l->keep && s->kept_at_peak < s->cap) {
            l->keep = true;
            s->kept_at_peak++;
        }
    }
    free(order);
}

static int write_record(void *ctx, const vt_reader_t *r, const vt_analysis_t *a,
                        const vt_event_t *ev, const vt_live_t *old, const uint32_t *changed,
                        int n_changed)
{
    pf_t *p = ctx;
    phase_event(p, r, ev);
    if (p->n_sites && (ev->type == VT_REC_FREE || ev->type == VT_REC_ALLOC))
        slice_end(p, r, old, ev->t_ns);
    if (p->n_sites && ev->type == VT_REC_ALLOC)
        slice_begin(p, ev);
    if (p->n_sites && r->n_records == p->peak_record)
        slices_at_peak(p);
    for (int k = 0; k < n_changed; k++) {
        const vt_device_stats_t *d = vt_stream_device(a, changed[k]);
        if (d)
            counter_change(p, r, d, ev->t_ns);
    }
    return 0;
}

/* The end of the output: the last columns, the slices still live, the closing bracket. */
static void finish(pf_t *p, const vt_reader_t *r)
{
    for (size_t k = 0; k < p->n_devices; k++)
        column_flush(p, r, &p->devices[k]);
    bool oom;
    pf_live_t **order = live_in_order(p, &oom);
    p->oom |= oom;
    for (size_t i = 0; order && i < p->n_live; i++)
        if (order[i]->keep)
            slice_write(p, r, order[i], false, 0);
    free(order);
    fputs("\n],\"displayTimeUnit\":\"ns\"}\n", p->out);
}

static void release(pf_t *p)
{
    for (int i = 0; i < p->n_sites; i++) {
        free(p->sites[i].name);
        free(p->sites[i].frames);
    }
    free(p->live);
    free(p->allocs_by_stack);
    free(p->devices);
    free(p->threads);
}

int vt_perfetto_export(const char *path, uint64_t max_bytes, vt_perfetto_open_fn open, void *ctx)
{
    pf_t p;
    memset(&p, 0, sizeof(p));
    p.path = path;
    cat_keys_init(&p);
    vt_reader_t r;
    vt_analysis_t a;
    int rc = vt_trace_stream_keeping_peaks(path, &r, &a, plan_record, &p);
    if (rc < 0) {
        release(&p);
        return -1;
    }
    /* rc 1: damaged part-way; what came before is exported, and the exit says so. */
    bool failed = rc != 0;
    if (choose_sites(&p, &r, &a) != 0 || p.oom) {
        release(&p);
        vt_analysis_release(&a);
        vt_reader_release(&r);
        error("'%s': out of memory planning the export", path);
        return 1;
    }
    plan_budget(&p, &r, &a, max_bytes);
    vt_analysis_release(&a);
    vt_reader_release(&r);
    if (!(p.out = open(ctx))) {
        release(&p);
        return 1;
    }
    fputs("{\"traceEvents\":[", p.out);
    int rc2 = vt_trace_stream_quiet(path, &r, &a, write_record, &p);
    if (rc2 >= 0) {
        finish(&p, &r);
        vt_analysis_release(&a);
        vt_reader_release(&r);
    } else {
        fputs("\n],\"displayTimeUnit\":\"ns\"}\n", p.out);
    }
    if (p.n_phases_dropped)
        error("warning: '%s': %" PRIu64 " phase, mark and out-of-memory events left out to keep "
              "the export near --max-size (%" PRIu64 " written)",
              path, p.n_phases_dropped, p.n_phases_written);
    if (p.oom) {
        error("'%s': out of memory: the export is incomplete", path);
        failed = true;
    }
    release(&p);
    return failed || rc2 != 0 ? 1 : 0;
}

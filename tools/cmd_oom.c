/* SPDX-License-Identifier: MIT */
/* `vramtrace oom FILE [--json]`: the out-of-memory post-mortem. For each OOM record: when and
 * where it happened; what was asked for, by which API, from which call-site; the device's free
 * and total memory and what they say (free memory above the request: fragmentation, or another
 * process or a limit took it; total − free − live: memory no hook of vramtrace sees); what was
 * live by category and by call-site; what grew since the last phase boundary or mark before it;
 * and whether the process recovered.
 *
 * One streaming pass (load.h): at each OOM record the analysis holds the live set, so the
 * call-sites and the growth are taken then; memory is bounded by the live set, the open phases,
 * and a few call-sites per OOM. Frames are symbolized after the pass, when every MODULE is known.
 *
 * The outcome of an OOM on device D: "recovered" when a later ALLOC of device memory on D
 * succeeded (an allocation call of the program: neither an implicit record nor 0 bytes);
 * otherwise "fatal" (the trace ends, with or without the process's exit record, and nothing was
 * allocated on D again); "unknown" instead of fatal when the trace is damaged or capped, since
 * such an allocation may be in what was lost.
 *
 * Exit statuses: 0 ok (with or without OOMs), 1 unreadable or damaged trace (the OOMs before
 * the damage are still shown), 2 usage. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sat.h"
#include "commands.h"
#include "frames.h"
#include "json.h"
#include "load.h"
#include "phases.h"
#include "symbolize.h"
#include "units.h"
#include "args.h"
#include "util.h"

#define MAX_FRAMES  16 /* of the request's call-site */
#define TOP_SITES   5  /* live call-sites shown per OOM */
#define SITE_FRAMES 4  /* frames shown per live call-site (text; --json has them all) */
#define NAME_CAP    256

enum { OPT_JSON = 1, OPT_ALL_FRAMES };

static const vt_option_t options[] = {
    {OPT_JSON, 0, "--json", NULL, 0,
     "print JSON on stdout (exact integers, times from the trace's start; every frame)"},
    {OPT_ALL_FRAMES, 0, "--all-frames", NULL, 0, VT_FRAMES_ALL_HELP},
    {0},
};

static const vt_args_spec_t spec = {
    .name = "oom",
    .usage = "usage: vramtrace oom FILE [--json] [--all-frames]\n",
    .about = "Every out-of-memory error of a trace: the time, the device, the request, its API "
             "and call-site; the device's free and total memory when known, with free memory "
             "above the request flagged as fragmentation and the memory vramtrace did not see "
             "(total - free - live); the memory live by category and its top 5 call-sites on "
             "that device; what grew since the last phase boundary or mark before it (since the "
             "start without one); and the outcome: recovered when the process later allocated "
             "on that device again, fatal when the trace ends without (unknown when damaged or "
             "capped).",
    .tables = {options},
};

/* What the growth of an OOM is measured from. */
enum { SINCE_START, SINCE_PUSH, SINCE_POP, SINCE_MARK };
static const char *const since_keys[] = {"start", "phase_begin", "phase_end", "mark"};

enum { OUT_FATAL, OUT_RECOVERED, OUT_UNKNOWN };
static const char *const outcome_keys[] = {"fatal", "recovered", "unknown"};

/* What one OOM needs beyond its vt_oom_t (a->ooms[i] and infos[i] go together). */
typedef struct oom_info_s {
    vt_site_t sites[TOP_SITES]; /* the largest live call-sites of its device */
    size_t n_sites, n_sites_all;
    int since;           /* SINCE_* */
    uint64_t since_t_ns; /* absolute; SINCE_START: 0 */
    char since_name[VT_PHASE_BYTES];
    /* Live by category then and now, on its device: what grew is their change (sat.h). */
    uint64_t grew_from[VT_CAT_COUNT], grew_to[VT_CAT_COUNT];
    int capped;           /* the trace was capped before it */
    uint64_t capped_t_ns; /* the last event before the cap */
    int recovered;
    uint64_t recovered_t_ns, recovered_bytes;
    uint32_t recovered_api;
    uint32_t next_pending; /* the next OOM of its device still waiting (index + 1); 0: none */
} oom_info_t;

typedef struct dev_live_s {
    uint32_t device;
    uint64_t by_category[VT_CAT_COUNT];
} dev_live_t;

/* The OOMs of a device that no allocation has followed yet, as a list through next_pending. */
typedef struct pending_s {
    uint32_t device, head, tail; /* index + 1; 0: empty */
} pending_t;

typedef struct oom_ctx_s {
    oom_info_t *infos;
    size_t cap_infos;
    vt_phases_t phases; /* every thread's open phases */
    dev_live_t *snap;   /* every device's live memory by category at the last boundary */
    size_t n_snap, cap_snap;
    int since;
    uint64_t since_t_ns;
    char since_name[VT_PHASE_BYTES];
    pending_t *pending;
    size_t n_pending, cap_pending;
    uint64_t last_t_ns, end_t_ns;
    int stopped; /* out of memory in the pass (said) */
} oom_ctx_t;

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap * 2 : 8;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * size);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

static uint64_t rel(const vt_reader_t *r, uint64_t t_ns)
{
    return t_ns > r->t0_ns ? t_ns - r->t0_ns : 0;
}

/* The phase path of thread into buf. */
static void phase_path(const oom_ctx_t *x, uint64_t thread, char *buf, size_t cap)
{
    const vt_phase_path_t *path = vt_phases_of(&x->phases, thread);
    snprintf(buf, cap, "%s", path ? path->text : "");
}

/* A phase boundary or mark: the growth of later OOMs is measured from here. */
static int boundary(oom_ctx_t *x, const vt_analysis_t *a, const vt_event_t *ev, int since)
{
    if (grow((void **)&x->snap, &x->cap_snap, a->n_devices, sizeof(*x->snap)))
        return -1;
    for (uint32_t i = 0; i < a->n_devices; i++) {
        x->snap[i].device = a->devices[i].device;
        memcpy(x->snap[i].by_category, a->devices[i].live_by_category,
               sizeof(x->snap[i].by_category));
    }
    x->n_snap = a->n_devices;
    x->since = since;
    x->since_t_ns = ev->t_ns;
    return 0;
}

static pending_t *pending_of(oom_ctx_t *x, uint32_t device, int create)
{
    for (size_t i = 0; i < x->n_pending; i++)
        if (x->pending[i].device == device)
            return &x->pending[i];
    if (!create ||
        grow((void **)&x->pending, &x->cap_pending, x->n_pending + 1, sizeof(*x->pending)))
        return NULL;
    x->pending[x->n_pending] = (pending_t){device, 0, 0};
    return &x->pending[x->n_pending++];
}

static int on_oom(oom_ctx_t *x, const vt_analysis_t *a, const vt_event_t *ev)
{
    uint32_t i = a->n_ooms - 1, device = ev->u.oom.device;
    if (grow((void **)&x->infos, &x->cap_infos, a->n_ooms, sizeof(*x->infos)))
        return -1;
    oom_info_t *o = &x->infos[i];
    memset(o, 0, sizeof(*o));

    vt_site_t *sites;
    size_t n;
    if (vt_analysis_sites(a, device, &sites, &n) != 0)
        return -1;
    o->n_sites_all = n;
    o->n_sites = n < TOP_SITES ? n : TOP_SITES;
    if (n)
        memcpy(o->sites, sites, o->n_sites * sizeof(*sites));
    free(sites);

    o->since = x->since;
    o->since_t_ns = x->since_t_ns;
    memcpy(o->since_name, x->since_name, sizeof(o->since_name));
    const vt_device_stats_t *now = vt_stream_device(a, device);
    const uint64_t *then = NULL;
    for (size_t k = 0; k < x->n_snap && x->since != SINCE_START; k++)
        if (x->snap[k].device == device)
            then = x->snap[k].by_category;
    for (int c = 0; c < VT_CAT_COUNT; c++) {
        o->grew_from[c] = then ? then[c] : 0;
        o->grew_to[c] = now ? now->live_by_category[c] : 0;
    }
    o->capped = a->capped_limit_bytes != 0;
    o->capped_t_ns = a->capped_t_ns;

    pending_t *p = pending_of(x, device, 1);
    if (!p)
        return -1;
    if (p->tail)
        x->infos[p->tail - 1].next_pending = i + 1;
    else
        p->head = i + 1;
    p->tail = i + 1;
    return 0;
}

/* A successful allocation on ev's device: the OOMs there waiting for one recovered. */
static void on_alloc(oom_ctx_t *x, const vt_event_t *ev)
{
    pending_t *p = pending_of(x, ev->u.alloc.device, 0);
    if (!p)
        return;
    for (uint32_t k = p->head; k;) {
        oom_info_t *o = &x->infos[k - 1];
        o->recovered = 1;
        o->recovered_t_ns = ev->t_ns;
        o->recovered_bytes = ev->u.alloc.size_bytes;
        o->recovered_api = ev->u.alloc.api;
        k = o->next_pending;
    }
    p->head = p->tail = 0;
}

static int on_record(void *ctx, const vt_reader_t *r, const vt_analysis_t *a, const vt_event_t *ev,
                     const vt_live_t *old, const uint32_t *changed, int n_changed)
{
    oom_ctx_t *x = ctx;
    (void)old, (void)changed, (void)n_changed;
    if (vt_stream_is_event(ev))
        x->last_t_ns = ev->t_ns;
    int rc = 0;
    switch (ev->type) {
    case VT_REC_ALLOC:
        if (ev->u.alloc.series == VT_TRACE_SERIES_DEVICE && !ev->u.alloc.implicit &&
            ev->u.alloc.size_bytes)
            on_alloc(x, ev);
        break;
    case VT_REC_PHASE_PUSH:
        rc = vt_phases_apply(&x->phases, r, ev);
        if (rc)
            break;
        phase_path(x, ev->u.phase.thread, x->since_name, sizeof(x->since_name));
        rc = boundary(x, a, ev, SINCE_PUSH);
        break;
    case VT_REC_PHASE_POP:
        phase_path(x, ev->u.phase.thread, x->since_name, sizeof(x->since_name));
        vt_phases_apply(&x->phases, r, ev);
        rc = boundary(x, a, ev, SINCE_POP);
        break;
    case VT_REC_MARK:
        vt_reader_cstring(r, ev->u.phase.string_id, x->since_name, sizeof(x->since_name));
        rc = boundary(x, a, ev, SINCE_MARK);
        break;
    case VT_REC_OOM:
        rc = on_oom(x, a, ev);
        break;
    case VT_REC_END:
        x->end_t_ns = ev->t_ns;
        break;
    default:
        break;
    }
    if (rc) {
        error("'%s': out of memory at byte %" PRIu64, r->path, ev->offset);
        x->stopped = 1;
    }
    return rc;
}

/* ---- the outcome --------------------------------------------------------------------------- */

typedef struct outcome_s {
    int kind;          /* OUT_* */
    uint64_t after_ns; /* recovered: until the allocation; else until the trace ends */
} outcome_t;

static outcome_t outcome_of(const oom_ctx_t *x, const vt_reader_t *r, const vt_analysis_t *a,
                            int damaged, const vt_oom_t *oom, const oom_info_t *o)
{
    if (o->recovered)
        return (outcome_t){OUT_RECOVERED, o->recovered_t_ns - oom->t_ns};
    uint64_t end = r->seen_end ? x->end_t_ns : x->last_t_ns;
    uint64_t after = end > oom->t_ns ? end - oom->t_ns : 0;
    if (damaged || a->capped_limit_bytes)
        return (outcome_t){OUT_UNKNOWN, after};
    return (outcome_t){OUT_FATAL, after};
}

/* ---- text ---------------------------------------------------------------------------------- */

static const char *thread_name(const vt_reader_t *r, uint64_t thread, char *buf, size_t cap)
{
    for (uint32_t i = 1; i < r->n_threads; i++)
        if (r->threads[i].thread == thread)
            return vt_reader_cstring(r, r->threads[i].name_string_id, buf, cap);
    buf[0] = '\0';
    return buf;
}

/* A duration: "800 ns" under a microsecond, "0.250 ms" under a second, else "2.000 s". */
static const char *fmt_after(uint64_t ns, char *buf, size_t cap)
{
    if (ns < 1000u) {
        snprintf(buf, cap, "%" PRIu64 " ns", ns);
        return buf;
    }
    if (ns >= 1000000000u)
        return vt_fmt_seconds(ns, buf, cap);
    snprintf(buf, cap, "%" PRIu64 ".%03" PRIu64 " ms", ns / 1000000u, (ns % 1000000u) / 1000u);
    return buf;
}

/* "+1.50 GiB", "-512.00 MiB", "+0 B". */
static const char *fmt_delta(vt_change_t d, char *buf, size_t cap)
{
    char b[32];
    snprintf(buf, cap, "%c%s", d.negative ? '-' : '+', vt_fmt_binary(d.magnitude, b, sizeof(b)));
    return buf;
}

/* What grew on o's device since then, in all: the change of the categories' sums. */
static vt_change_t grew_total(const oom_info_t *o)
{
    uint64_t from = 0, to = 0;
    for (int c = 0; c < VT_CAT_COUNT; c++) {
        from = vt_sat_add(from, o->grew_from[c]);
        to = vt_sat_add(to, o->grew_to[c]);
    }
    return vt_change(from, to);
}

static void print_frames(FILE *out, vt_symbolizer_t *sym, const vt_reader_t *r, uint32_t stack_id,
                         int max_frames, const char *indent)
{
    vt_frames_opts_t frames = {.sym = sym, .max_frames = max_frames, .shown = true};
    vt_frames_print(out, &frames, r, stack_id, indent);
}

static void print_growth(FILE *out, const vt_reader_t *r, const oom_info_t *o)
{
    char b1[32], s1[32];
    fprintf(out, "  growth since ");
    if (o->since == SINCE_START)
        fprintf(out, "the start of the trace");
    else if (o->since == SINCE_MARK)
        fprintf(out, "mark '%s' at %s", o->since_name,
                vt_fmt_seconds(rel(r, o->since_t_ns), s1, sizeof(s1)));
    else if (o->since_name[0])
        fprintf(out, "phase '%s' %s at %s", o->since_name,
                o->since == SINCE_PUSH ? "began" : "ended",
                vt_fmt_seconds(rel(r, o->since_t_ns), s1, sizeof(s1)));
    else
        fprintf(out, "a phase %s at %s", o->since == SINCE_PUSH ? "began" : "ended",
                vt_fmt_seconds(rel(r, o->since_t_ns), s1, sizeof(s1)));
    /* The categories that changed, the largest growth first. */
    int order[VT_CAT_COUNT], n = 0;
    vt_change_t grew[VT_CAT_COUNT];
    for (int c = 0; c < VT_CAT_COUNT; c++) {
        grew[c] = vt_change(o->grew_from[c], o->grew_to[c]);
        if (!grew[c].magnitude)
            continue;
        int k = n++;
        while (k > 0 && vt_change_cmp(grew[order[k - 1]], grew[c]) < 0) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = c;
    }
    if (!n) {
        fprintf(out, ": no change\n");
        return;
    }
    fprintf(out, ": %s (", fmt_delta(grew_total(o), b1, sizeof(b1)));
    for (int k = 0; k < n; k++)
        fprintf(out, "%s%s %s", k ? ", " : "", vt_category_names[order[k]],
                fmt_delta(grew[order[k]], b1, sizeof(b1)));
    fprintf(out, ")\n");
}

static void print_oom(FILE *out, const vt_reader_t *r, vt_symbolizer_t *sym, const vt_oom_t *oom,
                      const oom_info_t *o, outcome_t res, uint32_t i, uint32_t n)
{
    char b1[32], b2[32], c1[32], s1[32], api[128], name[256];
    fprintf(out, "out-of-memory error %" PRIu32 " of %" PRIu32 " at %s on device %" PRIu32, i + 1,
            n, vt_fmt_seconds(rel(r, oom->t_ns), s1, sizeof(s1)), oom->device);
    const vt_trace_device_t *info = vt_reader_device(r, oom->device);
    if (info && vt_reader_cstring(r, info->name_string_id, name, sizeof(name))[0])
        fprintf(out, " (%s)", name);
    fprintf(out, "\n");
    fprintf(out, "  request: %s (%s bytes) by %s",
            vt_fmt_binary(oom->requested_bytes, b1, sizeof(b1)),
            vt_fmt_commas(oom->requested_bytes, c1, sizeof(c1)),
            vt_reader_api_name(r, oom->api, api, sizeof(api)));
    if (oom->thread) {
        fprintf(out, " on thread %" PRIu64, oom->thread);
        if (thread_name(r, oom->thread, name, sizeof(name))[0])
            fprintf(out, " (%s)", name);
    }
    fprintf(out, "\n");
    if (oom->stack_id) {
        fprintf(out, "  call-site:\n");
        print_frames(out, sym, r, oom->stack_id, MAX_FRAMES, "    ");
    } else {
        fprintf(out, "  call-site: not recorded\n");
    }

    if (oom->total_bytes) {
        fprintf(out, "  device: %s free of %s\n", vt_fmt_binary(oom->free_bytes, b1, sizeof(b1)),
                vt_fmt_binary(oom->total_bytes, b2, sizeof(b2)));
        if (oom->free_bytes >= oom->requested_bytes)
            fprintf(out,
                    "  fragmentation: %s free, no less than the %s asked for: the free memory is "
                    "fragmented, or another process took it meanwhile, or a limit applies\n",
                    vt_fmt_binary(oom->free_bytes, b1, sizeof(b1)),
                    vt_fmt_binary(oom->requested_bytes, b2, sizeof(b2)));
        if (oom->total_bytes > oom->free_bytes &&
            oom->total_bytes - oom->free_bytes > oom->live_total_bytes)
            fprintf(out,
                    "  not seen by vramtrace: %s (total - free - live: the CUDA context, other "
                    "processes, memory no hook sees)\n",
                    vt_fmt_binary(oom->total_bytes - oom->free_bytes - oom->live_total_bytes, b1,
                                  sizeof(b1)));
    } else {
        fprintf(out, "  device: free and total memory unknown\n");
    }

    fprintf(out, "  live: %s (%s bytes)\n", vt_fmt_binary(oom->live_total_bytes, b1, sizeof(b1)),
            vt_fmt_commas(oom->live_total_bytes, c1, sizeof(c1)));
    for (int c = 0; c < VT_CAT_COUNT; c++)
        if (oom->live_bytes[c])
            fprintf(out, "    %-12s %11s\n", vt_category_names[c],
                    vt_fmt_binary(oom->live_bytes[c], b1, sizeof(b1)));
    if (o->capped)
        fprintf(out,
                "  note: the trace was capped at %s (VRAMTRACE_MAX_SIZE): the growth and "
                "call-sites below are as of then\n",
                vt_fmt_seconds(rel(r, o->capped_t_ns), s1, sizeof(s1)));
    print_growth(out, r, o);
    if (!o->n_sites_all) {
        fprintf(out, "  live by call-site: nothing live on device %" PRIu32 " in the trace\n",
                oom->device);
    } else {
        fprintf(out, "  live by call-site on device %" PRIu32 " (top %zu of %zu):\n", oom->device,
                o->n_sites, o->n_sites_all);
        for (size_t k = 0; k < o->n_sites; k++) {
            const vt_site_t *s = &o->sites[k];
            fprintf(out, "    %11s  %-11s %" PRIu64 " allocation%s\n",
                    vt_fmt_binary(s->bytes, b1, sizeof(b1)), vt_category_names[s->category],
                    s->n_allocs, s->n_allocs == 1 ? "" : "s");
            if (!s->stack_id)
                fprintf(out, "        (no call-site recorded)\n");
            print_frames(out, sym, r, s->stack_id, SITE_FRAMES, "        ");
        }
    }

    fmt_after(res.after_ns, s1, sizeof(s1));
    if (res.kind == OUT_RECOVERED)
        fprintf(out, "  outcome: recovered (%s allocated on device %" PRIu32 " by %s %s later)\n",
                vt_fmt_binary(o->recovered_bytes, b1, sizeof(b1)), oom->device,
                vt_reader_api_name(r, o->recovered_api, api, sizeof(api)), s1);
    else if (res.kind == OUT_UNKNOWN)
        fprintf(out,
                "  outcome: unknown (nothing allocated on device %" PRIu32 " after it, but the "
                "trace is %s)\n",
                oom->device, r->state < 0 ? "damaged" : "capped: later allocations are not in it");
    else if (r->seen_end)
        fprintf(out,
                "  outcome: fatal (nothing allocated on device %" PRIu32 " after it; the process "
                "exited %s later)\n",
                oom->device, s1);
    else if (res.after_ns)
        fprintf(out,
                "  outcome: fatal (nothing allocated on device %" PRIu32 " after it; the trace "
                "ends %s later without an exit record: the process probably died)\n",
                oom->device, s1);
    else
        fprintf(out,
                "  outcome: fatal (nothing allocated on device %" PRIu32 " after it; the trace "
                "ends with it, without an exit record: the process probably died)\n",
                oom->device);
}

/* ---- JSON ---------------------------------------------------------------------------------- */

static void json_frames(vt_json_t *j, const char *key, vt_symbolizer_t *sym, const vt_reader_t *r,
                        uint32_t stack_id)
{
    vt_frames_opts_t frames = {.sym = sym};
    vt_frames_json(j, key, &frames, r, stack_id);
}

static void print_json(FILE *out, const char *path, const vt_reader_t *r, const vt_analysis_t *a,
                       const oom_ctx_t *x, vt_symbolizer_t *sym, int damaged)
{
    char buf[256];
    vt_json_t j;
    vt_json_init(&j, out);
    vt_json_begin_object(&j, NULL);
    vt_json_string(&j, "file", path);
    vt_json_bool(&j, "exit_clean", r->seen_end);
    vt_json_bool(&j, "complete", !damaged);
    vt_json_uint(&j, "capped_at_bytes", a->capped_limit_bytes); /* 0: not capped */
    vt_json_begin_array(&j, "ooms");
    for (uint32_t i = 0; i < a->n_ooms; i++) {
        const vt_oom_t *oom = &a->ooms[i];
        const oom_info_t *o = &x->infos[i];
        outcome_t out = outcome_of(x, r, a, damaged, oom, o);
        vt_json_begin_object(&j, NULL);
        vt_json_uint(&j, "time_ns", rel(r, oom->t_ns));
        vt_json_uint(&j, "device", oom->device);
        vt_json_uint(&j, "requested_bytes", oom->requested_bytes);
        vt_json_string(&j, "api", vt_reader_api_name(r, oom->api, buf, sizeof(buf)));
        vt_json_uint(&j, "thread", oom->thread);
        json_frames(&j, "call_site", sym, r, oom->stack_id);
        vt_json_uint(&j, "free_bytes", oom->free_bytes);
        vt_json_uint(&j, "total_bytes", oom->total_bytes); /* 0: free and total unknown */
        vt_json_uint(&j, "live_bytes", oom->live_total_bytes);
        vt_json_begin_object(&j, "by_category");
        for (int c = 0; c < VT_CAT_COUNT; c++)
            vt_json_uint(&j, vt_category_names[c], oom->live_bytes[c]);
        vt_json_end_object(&j);
        vt_json_bool(&j, "fragmented", oom->total_bytes && oom->free_bytes >= oom->requested_bytes);
        uint64_t unseen = 0;
        if (oom->total_bytes > oom->free_bytes &&
            oom->total_bytes - oom->free_bytes > oom->live_total_bytes)
            unseen = oom->total_bytes - oom->free_bytes - oom->live_total_bytes;
        vt_json_uint(&j, "unseen_bytes", unseen);
        vt_json_uint(&j, "n_sites", o->n_sites_all);
        vt_json_begin_array(&j, "sites");
        for (size_t k = 0; k < o->n_sites; k++) {
            const vt_site_t *s = &o->sites[k];
            vt_json_begin_object(&j, NULL);
            vt_json_uint(&j, "bytes", s->bytes);
            vt_json_string(&j, "category", vt_category_names[s->category]);
            vt_json_uint(&j, "allocs", s->n_allocs);
            json_frames(&j, "frames", sym, r, s->stack_id);
            vt_json_end_object(&j);
        }
        vt_json_end_array(&j);
        vt_json_begin_object(&j, "grew_since");
        vt_json_string(&j, "kind", since_keys[o->since]);
        vt_json_string(&j, "name", o->since_name);
        vt_json_uint(&j, "time_ns", o->since == SINCE_START ? 0 : rel(r, o->since_t_ns));
        vt_change_t total = grew_total(o);
        if (total.negative)
            vt_json_change(&j, "bytes", total.magnitude, 0);
        else
            vt_json_change(&j, "bytes", 0, total.magnitude);
        vt_json_begin_object(&j, "by_category");
        for (int c = 0; c < VT_CAT_COUNT; c++)
            vt_json_change(&j, vt_category_names[c], o->grew_from[c], o->grew_to[c]);
        vt_json_end_object(&j);
        vt_json_end_object(&j);
        vt_json_string(&j, "outcome", outcome_keys[out.kind]);
        vt_json_uint(&j, "outcome_after_ns", out.after_ns);
        vt_json_end_object(&j);
    }
    vt_json_end_array(&j);
    vt_json_end_object(&j);
    vt_json_finish(&j);
}

/* The post-mortem of every OOM of path, as text or JSON, into out. quiet: the trace's problems
 * are not said (another pass said them). Returns the exit status. */
static int postmortem(FILE *out, const char *path, int json, bool all_frames, bool quiet)
{
    vt_reader_t r;
    vt_analysis_t a;
    oom_ctx_t x;
    memset(&x, 0, sizeof(x));
    int rc = quiet ? vt_trace_stream_quiet(path, &r, &a, on_record, &x)
                   : vt_trace_stream(path, &r, &a, on_record, &x);
    if (rc < 0 && !x.stopped)
        return 1; /* unreadable (said; r is released) */
    if (x.stopped)
        a.n_ooms = 0; /* out of memory in the pass (said): nothing complete to show */
    int damaged = rc != 0;
    vt_symbolizer_t sym, *symp = NULL;
    if (a.n_ooms && vt_symbolizer_init_trace(&sym, &r) == 0) {
        symp = &sym;
        sym.all_frames = all_frames || json; /* JSON lists every frame */
    }
    if (json) {
        print_json(out, path, &r, &a, &x, symp, damaged);
    } else {
        if (!a.n_ooms && rc >= 0)
            fprintf(out, "no out-of-memory errors in '%s'\n", path);
        for (uint32_t i = 0; i < a.n_ooms; i++) {
            if (i)
                fputc('\n', out);
            print_oom(out, &r, symp, &a.ooms[i], &x.infos[i],
                      outcome_of(&x, &r, &a, damaged, &a.ooms[i], &x.infos[i]), i, a.n_ooms);
        }
    }
    if (symp)
        vt_symbolizer_release(symp);
    free(x.infos);
    vt_phases_release(&x.phases);
    free(x.snap);
    free(x.pending);
    vt_analysis_release(&a);
    vt_reader_release(&r);
    return rc ? 1 : 0;
}

int vt_oom_text(FILE *out, const char *path, bool all_frames)
{
    return postmortem(out, path, 0, all_frames, true);
}

int cmd_oom(int argc, char **argv)
{
    const char *path = NULL;
    int json = 0;
    bool all_frames = false;
    vt_args_t args;
    vt_args_init(&args, &spec, argc, argv);
    for (int opt; (opt = vt_args_next(&args)) != VT_ARG_DONE;) {
        if (opt == VT_ARG_ERROR) {
            return EXIT_USAGE;
        } else if (opt == VT_ARG_HELP) {
            vt_args_help(&spec, stdout);
            return 0;
        } else if (opt == OPT_JSON) {
            json = 1;
        } else if (opt == OPT_ALL_FRAMES) {
            all_frames = true;
        } else if (path) {
            error("oom reads one trace at a time: '%s' and '%s'", path, args.value);
            return EXIT_USAGE;
        } else {
            path = args.value;
        }
    }
    if (!path) {
        error("oom needs a trace file. See 'vramtrace oom --help'.");
        return EXIT_USAGE;
    }
    return postmortem(stdout, path, json, all_frames, false);
}

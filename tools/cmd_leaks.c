/* SPDX-License-Identifier: MIT */
/* `vramtrace leaks FILE [--top N] [--json]`: first the call-sites whose live device memory grew
 * from step to step (growth.h), most grown first; then the device memory still live when the
 * process exited (or at the end of the trace when it did not exit cleanly), grouped by call-site
 * and category, largest first, with symbolized frames. Two passes with the reader (the first
 * chooses the steps): memory is bounded by the live set and the call-sites. Exit statuses: 0 ok (with or without leaks), 1 unreadable or damaged trace (what
 * was live before the damage is still shown), 2 usage. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "frames.h"
#include "growth.h"
#include "json.h"
#include "load.h"
#include "symbolize.h"
#include "trace_reader.h"
#include "units.h"
#include "args.h"
#include "util.h"

#define DEFAULT_TOP 10
#define MAX_FRAMES  8

enum { OPT_TOP = 1, OPT_JSON, OPT_ALL_FRAMES };

static const vt_option_t options[] = {
    {OPT_TOP, 0, "--top", "N", 0,
     "show the N largest call-sites of each list (default 10; 0: all)"},
    {OPT_JSON, 0, "--json", NULL, 0, "print JSON on stdout (keys: docs/trace-format.md)"},
    {OPT_ALL_FRAMES, 0, "--all-frames", NULL, 0, VT_FRAMES_ALL_HELP},
    {0},
};

static const vt_args_spec_t spec = {
    .name = "leaks",
    .usage = "usage: vramtrace leaks FILE [--top N] [--json] [--all-frames]\n",
    .about = "The device memory that grows and the device memory never freed. First the "
             "call-sites whose live memory grew from step to step, most grown first, with the "
             "growth per step and in how many steps: steps are the ranges named like 'step', "
             "'iter' or 'epoch' (NVTX), else the marks (vramtrace_mark, NVTX), else the "
             "repetition of the allocations themselves (the same call-sites and sizes in the "
             "same order, step after step), else ten windows of equal time. Then what was live "
             "when the process exited (at the end of the trace when it did not exit cleanly), by "
             "call-site and category, largest first.",
    .tables = {options},
};

typedef struct leak_site_s {
    vt_site_t site;
    uint32_t device;
} leak_site_t;

static int by_bytes(const void *x, const void *y)
{
    const leak_site_t *a = x, *b = y;
    if (a->site.bytes != b->site.bytes)
        return a->site.bytes > b->site.bytes ? -1 : 1;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    if (a->site.stack_id != b->site.stack_id)
        return a->site.stack_id < b->site.stack_id ? -1 : 1;
    return (int)a->site.category - (int)b->site.category;
}

/* Every device's live call-sites in one array, largest first; NULL with *n 0 when none or out
 * of memory (-1). */
static int collect(const vt_analysis_t *a, leak_site_t **out, size_t *n_out)
{
    leak_site_t *all = NULL;
    size_t n = 0;
    *out = NULL;
    *n_out = 0;
    for (uint32_t i = 0; i < a->n_devices; i++) {
        vt_site_t *s;
        size_t m;
        if (vt_analysis_sites(a, a->devices[i].device, &s, &m) != 0)
            goto oom;
        if (!m)
            continue;
        leak_site_t *grown = realloc(all, (n + m) * sizeof(*all));
        if (!grown) {
            free(s);
            goto oom;
        }
        all = grown;
        for (size_t k = 0; k < m; k++)
            all[n++] = (leak_site_t){s[k], a->devices[i].device};
        free(s);
    }
    if (n)
        qsort(all, n, sizeof(*all), by_bytes);
    *out = all;
    *n_out = n;
    return 0;
oom:
    free(all);
    return -1;
}

static const char *steps_text(const vt_growth_t *g, char *buf, size_t cap)
{
    uint64_t n = vt_growth_steps(g);
    if (g->source == VT_STEPS_TIME)
        snprintf(buf, cap, "%" PRIu64 " window%s of equal time", n, n == 1 ? "" : "s");
    else if (g->source == VT_STEPS_PERIOD)
        snprintf(buf, cap, "%" PRIu64 " repetition%s of %" PRIu64 " allocation%s", n,
                 n == 1 ? "" : "s", g->period_allocs, g->period_allocs == 1 ? "" : "s");
    else
        snprintf(buf, cap, "%" PRIu64 " %s%s%s%s", n,
                 g->source == VT_STEPS_RANGES ? "ranges" : "marks",
                 g->keyword[0] ? " named like '" : "", g->keyword, g->keyword[0] ? "'" : "");
    return buf;
}

static const char *steps_source(const vt_growth_t *g)
{
    return g->source == VT_STEPS_RANGES   ? "ranges"
           : g->source == VT_STEPS_MARKS  ? "marks"
           : g->source == VT_STEPS_PERIOD ? "period"
                                          : "time";
}

static void print_growth(const vt_reader_t *r, vt_symbolizer_t *sym, const vt_growth_t *g,
                         const vt_growth_site_t *sites, size_t n_sites, size_t top)
{
    char b1[32], b2[32], b3[32], steps[96];
    printf("growing call-sites (steps: %s):", steps_text(g, steps, sizeof(steps)));
    if (!n_sites) {
        printf(" none\n");
        return;
    }
    printf("\n");
    size_t shown = top && top < n_sites ? top : n_sites;
    vt_frames_opts_t frames = {.sym = sym, .max_frames = MAX_FRAMES, .shown = true};
    for (size_t i = 0; i < shown; i++) {
        const vt_growth_site_t *s = &sites[i];
        uint64_t grown = vt_growth_bytes(s);
        printf("  %11s  %-11s +%s per step in %" PRIu32 " of %" PRIu64 " steps, %s live at the "
               "end on device %" PRIu32 "\n",
               vt_fmt_binary(grown, b1, sizeof(b1)), vt_category_names[s->category],
               vt_fmt_binary(grown / s->n_grew, b2, sizeof(b2)), s->n_grew, vt_growth_steps(g),
               vt_fmt_binary(s->live_bytes, b3, sizeof(b3)), s->device);
        if (!s->stack_id)
            printf("      (no call-site recorded)\n");
        vt_frames_print(stdout, &frames, r, s->stack_id, "      ");
    }
}

static void print_leaks(const char *path, const vt_reader_t *r, const vt_analysis_t *a,
                        vt_symbolizer_t *sym, const leak_site_t *sites, size_t n_sites, size_t top)
{
    char b1[32], c1[32];
    const char *when = r->seen_end ? "at exit" : "at the end of the trace";
    uint64_t total = vt_analysis_leaked_bytes(a), n_allocs = 0;
    uint32_t n_devices = 0;
    if (!n_sites) {
        printf("no leaks in '%s'%s\n", path,
               r->seen_end ? "" : " (nothing live at the end of the trace)");
        return;
    }
    for (size_t i = 0; i < n_sites; i++)
        n_allocs += sites[i].site.n_allocs;
    for (uint32_t i = 0; i < a->n_devices; i++)
        n_devices += a->devices[i].live_bytes != 0;
    printf("live %s in '%s': %s (%s bytes) in %" PRIu64 " allocation%s on %" PRIu32 " device%s\n",
           when, path, vt_fmt_binary(total, b1, sizeof(b1)), vt_fmt_commas(total, c1, sizeof(c1)),
           n_allocs, n_allocs == 1 ? "" : "s", n_devices, n_devices == 1 ? "" : "s");
    for (uint32_t i = 0; i < a->n_devices; i++)
        if (a->devices[i].live_bytes)
            printf("  device %" PRIu32 ": %s\n", a->devices[i].device,
                   vt_fmt_binary(a->devices[i].live_bytes, b1, sizeof(b1)));
    size_t shown = top && top < n_sites ? top : n_sites;
    vt_frames_opts_t frames = {.sym = sym, .max_frames = MAX_FRAMES, .shown = true};
    printf("top %zu call-site%s of %zu:\n", shown, shown == 1 ? "" : "s", n_sites);
    for (size_t i = 0; i < shown; i++) {
        const vt_site_t *s = &sites[i].site;
        printf("  %11s  %-11s %" PRIu64 " allocation%s on device %" PRIu32 "\n",
               vt_fmt_binary(s->bytes, b1, sizeof(b1)), vt_category_names[s->category], s->n_allocs,
               s->n_allocs == 1 ? "" : "s", sites[i].device);
        if (!s->stack_id)
            printf("      (no call-site recorded)\n");
        vt_frames_print(stdout, &frames, r, s->stack_id, "      ");
    }
}

static void print_json(const char *path, const vt_reader_t *r, const vt_analysis_t *a,
                       vt_symbolizer_t *sym, const vt_growth_t *g, const vt_growth_site_t *grow,
                       size_t n_grow, const leak_site_t *sites, size_t n_sites, size_t top)
{
    vt_json_t j;
    vt_frames_opts_t frames = {.sym = sym};
    vt_json_init(&j, stdout);
    vt_json_begin_object(&j, NULL);
    vt_json_string(&j, "file", path);
    vt_json_bool(&j, "exit_clean", r->seen_end);
    vt_json_begin_object(&j, "steps");
    vt_json_string(&j, "source", steps_source(g));
    vt_json_string(&j, "keyword", g->keyword);
    vt_json_uint(&j, "count", vt_growth_steps(g));
    vt_json_uint(&j, "period_allocs", g->period_allocs);
    vt_json_end_object(&j);
    vt_json_begin_array(&j, "growing");
    for (size_t i = 0; i < (top && top < n_grow ? top : n_grow); i++) {
        const vt_growth_site_t *s = &grow[i];
        vt_json_begin_object(&j, NULL);
        vt_json_uint(&j, "grown_bytes", vt_growth_bytes(s));
        vt_json_uint(&j, "per_step_bytes", vt_growth_bytes(s) / s->n_grew);
        vt_json_uint(&j, "steps_grown", s->n_grew);
        vt_json_uint(&j, "live_bytes", s->live_bytes);
        vt_json_uint(&j, "live_allocs", s->n_live);
        vt_json_string(&j, "category", vt_category_names[s->category]);
        vt_json_uint(&j, "device", s->device);
        vt_frames_json(&j, "frames", &frames, r, s->stack_id);
        vt_json_end_object(&j);
    }
    vt_json_end_array(&j);
    vt_json_uint(&j, "leaked_bytes", vt_analysis_leaked_bytes(a));
    vt_json_begin_array(&j, "live_at_end");
    for (size_t i = 0; i < (top && top < n_sites ? top : n_sites); i++) {
        const vt_site_t *s = &sites[i].site;
        vt_json_begin_object(&j, NULL);
        vt_json_uint(&j, "bytes", s->bytes);
        vt_json_string(&j, "category", vt_category_names[s->category]);
        vt_json_uint(&j, "allocs", s->n_allocs);
        vt_json_uint(&j, "device", sites[i].device);
        vt_frames_json(&j, "frames", &frames, r, s->stack_id);
        vt_json_end_object(&j);
    }
    vt_json_end_array(&j);
    vt_json_end_object(&j);
    vt_json_finish(&j);
}

static int on_record(void *ctx, const vt_reader_t *r, const vt_analysis_t *a, const vt_event_t *ev,
                     const vt_live_t *old, const uint32_t *changed, int n_changed)
{
    (void)changed;
    (void)n_changed;
    if (vt_growth_apply(ctx, r, a, ev, old) != 0)
        return error("'%s': out of memory following the call-sites", r->path);
    return 0;
}

int cmd_leaks(int argc, char **argv)
{
    const char *path = NULL;
    size_t top = DEFAULT_TOP;
    bool all_frames = false, json = false;
    vt_args_t args;
    vt_args_init(&args, &spec, argc, argv);
    for (int opt; (opt = vt_args_next(&args)) != VT_ARG_DONE;) {
        const char *v = args.value;
        if (opt == VT_ARG_ERROR) {
            return EXIT_USAGE;
        } else if (opt == VT_ARG_HELP) {
            vt_args_help(&spec, stdout);
            return 0;
        } else if (opt == OPT_TOP) {
            if (vt_parse_count(v, &top) != 0) {
                error("--top takes a count, not '%s'", v);
                return EXIT_USAGE;
            }
        } else if (opt == OPT_ALL_FRAMES) {
            all_frames = true;
        } else if (opt == OPT_JSON) {
            json = true;
        } else if (path) {
            error("leaks reads one trace: '%s' and '%s'", path, v);
            return EXIT_USAGE;
        } else {
            path = v;
        }
    }
    if (!path) {
        error("leaks needs a trace file. See 'vramtrace leaks --help'.");
        return EXIT_USAGE;
    }

    vt_reader_t r;
    vt_analysis_t a;
    vt_growth_t g;
    if (vt_growth_init(&g, path) != 0)
        memset(&g, 0, sizeof(g)); /* the stream below says why it cannot be read */
    int rc = vt_trace_stream(path, &r, &a, on_record, &g);
    if (rc < 0) {
        vt_growth_release(&g);
        return 1;
    }
    vt_growth_finish(&g);
    leak_site_t *sites = NULL;
    vt_growth_site_t *grow = NULL;
    size_t n_sites = 0, n_grow = 0;
    if (collect(&a, &sites, &n_sites) != 0 || vt_growth_ranked(&g, &grow, &n_grow) != 0) {
        error("'%s': out of memory grouping the call-sites", path);
        rc = 1;
    } else {
        vt_symbolizer_t sym, *symp = NULL;
        if (vt_symbolizer_init_trace(&sym, &r) == 0) {
            symp = &sym;
            sym.all_frames = all_frames;
        }
        if (json) {
            print_json(path, &r, &a, symp, &g, grow, n_grow, sites, n_sites, top);
        } else {
            print_growth(&r, symp, &g, grow, n_grow, top);
            print_leaks(path, &r, &a, symp, sites, n_sites, top);
        }
        if (symp)
            vt_symbolizer_release(symp);
    }
    free(grow);
    free(sites);
    vt_growth_release(&g);
    vt_analysis_release(&a);
    vt_reader_release(&r);
    return rc ? 1 : 0;
}

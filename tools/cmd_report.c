/* SPDX-License-Identifier: MIT */
/* `vramtrace report FILE [--json] [--at TIME] [--category NAME] [--top N] [--rules RULES]
 * [--budget MODEL [KEY=VALUE...]]`: the device peak with what was live at it by category and
 * call-site (with --at, what was live at TIME on every device instead; with --category, only
 * that category's call-sites, and its own peak), each device's peak, the pinned host
 * and managed peaks, totals and the OOMs, as text or as the JSON of docs/trace-format.md; with --rules,
 * every allocation's category decided again offline by the rules of RULES (recategorize.c);
 * with --budget, the peak's categories next to the model's naive and realistic budgets
 * (report_budget.c). "The peak" is
 * the largest single-device peak (the lowest device number on a tie); devices[] lists every
 * device. Times are from the PROCESS record's t0. Exit statuses: 0 ok, 1 unreadable or damaged
 * trace, unreadable model or rules file (a damaged trace still gets the report of what came
 * before the damage), 2 usage (including the model's bad keys and values and a bad rules line). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "churn.h"
#include "commands.h"
#include "frames.h"
#include "json.h"
#include "kv.h"
#include "recategorize.h"
#include "report.h"
#include "report_budget.h"
#include "report_ranks.h"
#include "load.h"
#include "symbolize.h"
#include "trace_reader.h"
#include "units.h"
#include "args.h"
#include "util.h"

#define TEXT_MAX_FRAMES 8

enum { OPT_JSON = 1, OPT_AT, OPT_CATEGORY, OPT_TEMPORARY, OPT_WINDOW };

static const vt_option_t options[] = {
    {OPT_JSON, 0, "--json", NULL, 0, "print JSON on stdout (keys: docs/trace-format.md)"},
    {OPT_AT, 0, "--at", "TIME", 0,
     "what was live at TIME instead of at the peak, on every device: seconds from the start of "
     "the trace (3.2, 3.2s), or 1500ms, 250us, 10ns; after the end: the end"},
    {OPT_CATEGORY, 0, "--category", "NAME", 0,
     "list only the call-sites of category NAME (weights, gradients, optimizer, activations, "
     "data, workspace, unknown) and show that category's own peak"},
    {OPT_TEMPORARY, 0, "--temporary", NULL, 0,
     "instead of the peak, the temporary allocations: device memory freed within --window of "
     "its allocation, with the call-sites that make the most of them, their count and the "
     "bytes they churned (a caching allocator's work, or cudaMalloc and cudaFree calls without "
     "one)"},
    {OPT_WINDOW, 0, "--window", "DURATION", 0,
     "--temporary: an allocation freed within DURATION is temporary (default 10ms): seconds "
     "(0.5, 0.5s), or 10ms, 250us, 800ns"},
    {0},
};

static const vt_args_spec_t spec = {
    .name = "report",
    .usage =
        "usage: vramtrace report FILE|DIR... [--json] [--at TIME] [--category NAME] [--top N]\n"
        "                        [--all-frames] [--rules RULES] [--no-default-rules]\n"
        "                        [--budget MODEL [KEY=VALUE...]]\n"
        "   or: vramtrace report FILE --temporary [--window DURATION] [--json] [--top N]\n"
        "                        [--all-frames]\n",
    .about = "The device memory peak of a trace, what was live at it by category and call-site, "
             "the pinned host and managed peaks, totals and the out-of-memory errors.\n"
             "\n"
             "Several traces, or a directory of them (the ranks of a torchrun, SLURM or mpirun "
             "job): one row per trace with its rank, host, pid, device peak, largest category at "
             "it and out-of-memory errors, the worst rank flagged; then the job merged: each "
             "category at each rank's peak (sum, max and its rank, min, max/mean), the top "
             "call-sites at the ranks' peaks matched across ranks by their frames (--top N), and "
             "the job's first out-of-memory error; --json gives the same. --json lists every "
             "frame.",
    .tables = {options, vt_report_options},
};

static void print_process(const vt_report_t *rep)
{
    char pid[32], host[256], cmd[1024];
    const vt_reader_t *r = &rep->r;
    if (!vt_reader_process(r, "cmdline", cmd, sizeof(cmd)) &&
        !vt_reader_process(r, "exe", cmd, sizeof(cmd)))
        cmd[0] = '\0';
    if (!vt_reader_process(r, "pid", pid, sizeof(pid))) {
        printf("process: not recorded\n");
        return;
    }
    printf("process %s", pid);
    if (vt_reader_process(r, "host", host, sizeof(host)) && host[0])
        printf(" on %s", host);
    if (cmd[0])
        printf(": %s", cmd);
    printf("\n");
    const char *meaning, *mode = vt_report_allocator(r, cmd, sizeof(cmd), &meaning);
    printf("allocator: %s%s%s%s: %s\n", mode, cmd[0] ? " (" : "", cmd, cmd[0] ? ")" : "", meaning);
}

/* The categories of total; pool_spare_bytes (what stream-ordered pools reserved beyond their
 * allocations, part of total) a row of its own when there is any. */
static void print_category_table(const uint64_t *by_category, uint64_t pool_spare_bytes,
                                 uint64_t total)
{
    char c[32], b[32];
    printf("  %-12s %17s %11s %7s\n", "category", "bytes", "binary", "share");
    for (int i = 0; i <= VT_CAT_COUNT; i++) {
        uint64_t bytes = i < VT_CAT_COUNT ? by_category[i] : pool_spare_bytes;
        if (i == VT_CAT_COUNT && !bytes)
            break;
        double share = total ? 100.0 * (double)bytes / (double)total : 0;
        printf("  %-12s %17s %11s %6.1f%%\n",
               i < VT_CAT_COUNT ? vt_category_names[i] : "pool spare",
               vt_fmt_commas(bytes, c, sizeof(c)), vt_fmt_binary(bytes, b, sizeof(b)), share);
    }
    printf("  %-12s %17s %11s\n", "total", vt_fmt_commas(total, c, sizeof(c)),
           vt_fmt_binary(total, b, sizeof(b)));
}

static void print_text(const vt_report_t *rep)
{
    const vt_reader_t *r = &rep->r;
    const vt_analysis_t *a = &rep->a;
    const vt_device_stats_t *peak = vt_analysis_peak(a);
    char b1[32], b2[32], s1[32], name[320], api[128];
    vt_frames_opts_t frames = {.sym = rep->sym, .max_frames = TEXT_MAX_FRAMES, .shown = true};

    print_process(rep);
    if (rep->rules) {
        char said[4352]; /* a path and a few words */
        vt_report_rules_said(rep, said, sizeof(said));
        printf("categories: %s\n", said);
    }
    if (rep->have_at) {
        if (!a->n_devices)
            printf("live at %s: 0 B (no device memory allocated)\n",
                   vt_fmt_seconds(rep->at_ns, s1, sizeof(s1)));
        for (uint32_t i = 0; i < a->n_devices; i++) {
            uint64_t by_category[VT_CAT_COUNT];
            uint64_t total = vt_report_live_on(&rep->at, a->devices[i].device, by_category);
            printf("live at %s on device %" PRIu32 ": %s\n",
                   vt_fmt_seconds(rep->at_ns, s1, sizeof(s1)), a->devices[i].device,
                   vt_fmt_binary(total, b1, sizeof(b1)));
            print_category_table(by_category, 0, total);
        }
    } else if (!peak) {
        printf("device peak: 0 B (no device memory allocated)\n");
    } else {
        char dev[320], share[48];
        vt_reader_device_share(r, peak->device, peak->peak_bytes, share, sizeof(share));
        printf("device peak: %s on %s at %s%s%s\n", vt_fmt_binary(peak->peak_bytes, b1, sizeof(b1)),
               vt_reader_device_text(r, peak->device, dev, sizeof(dev)),
               vt_fmt_seconds(vt_report_rel(rep, peak->peak_t_ns), s1, sizeof(s1)),
               share[0] ? ", " : "", share);
        if (rep->peak_phase.kind[0] == 'r')
            printf("peak phase: %s (range %s)\n", rep->peak_phase.name, rep->peak_phase.path);
        else if (rep->peak_phase.kind[0] == 'm')
            printf("peak phase: %s (after mark)\n", rep->peak_phase.name);
        print_category_table(peak->peak_by_category, peak->peak_pool_spare_bytes, peak->peak_bytes);
    }
    if (rep->category >= 0) {
        const vt_device_stats_t *cp = vt_report_category_peak(a, rep->category);
        if (cp)
            printf("%s peak: %s on device %" PRIu32 " at %s\n", vt_category_names[rep->category],
                   vt_fmt_binary(cp->cat_peak_bytes[rep->category], b1, sizeof(b1)), cp->device,
                   vt_fmt_seconds(vt_report_rel(rep, cp->cat_peak_t_ns[rep->category]), s1,
                                  sizeof(s1)));
        else
            printf("%s peak: 0 B (no device memory of this category)\n",
                   vt_category_names[rep->category]);
    }
    if (a->n_devices)
        printf("devices:\n");
    for (uint32_t i = 0; i < a->n_devices; i++) {
        const vt_device_stats_t *d = &a->devices[i];
        char share[48];
        vt_reader_device_share(r, d->device, d->peak_bytes, share, sizeof(share));
        printf("  %s: peak %s%s%s%s at %s, %s live at the end\n",
               vt_reader_device_text(r, d->device, name, sizeof(name)),
               vt_fmt_binary(d->peak_bytes, b1, sizeof(b1)), share[0] ? " (" : "", share,
               share[0] ? ")" : "",
               vt_fmt_seconds(vt_report_rel(rep, d->peak_t_ns), s1, sizeof(s1)),
               vt_fmt_binary(d->live_bytes, b2, sizeof(b2)));
        /* With pools the peak counts their reservations: the two figures it comes from. */
        if (d->pool_reserved_peak_bytes)
            printf("    tensors live peak %s, pool reserved peak %s\n",
                   vt_fmt_binary(d->tensors_peak_bytes, b1, sizeof(b1)),
                   vt_fmt_binary(d->pool_reserved_peak_bytes, b2, sizeof(b2)));
    }
    printf("pinned host peak: %s\n",
           vt_fmt_binary(a->peak_bytes[VT_TRACE_SERIES_PINNED], b1, sizeof(b1)));
    printf("managed peak: %s\n",
           vt_fmt_binary(a->peak_bytes[VT_TRACE_SERIES_MANAGED], b1, sizeof(b1)));
    /* A peer's memory opened here: the exporting process's peak counts it, this one's does not. */
    if (a->peak_bytes[VT_TRACE_SERIES_IMPORTED])
        printf("imported peak: %s (a peer's memory, in the exporting process's device peak)\n",
               vt_fmt_binary(a->peak_bytes[VT_TRACE_SERIES_IMPORTED], b1, sizeof(b1)));
    /* A pool holds what it reserved, whatever its allocations add up to. */
    for (uint32_t i = 0; i < a->n_pools; i++) {
        const vt_pool_stats_t *p = &a->pools[i];
        char figures[256];
        printf("pool %" PRIu32 " on device %" PRIu32 ": %s\n", p->pool, p->device,
               vt_report_pool_figures(p, figures, sizeof(figures)));
    }
    if (a->n_array_allocs)
        printf("arrays: %" PRIu64 " made, counted at their logical size (elements x format x "
               "channels; the driver's padding of an array is not known)\n",
               a->n_array_allocs);
    printf("totals: %" PRIu64 " allocation%s, %" PRIu64 " free%s, %" PRIu64
           " failed, %s of device memory never freed\n",
           a->n_allocs, a->n_allocs == 1 ? "" : "s", a->n_frees, a->n_frees == 1 ? "" : "s",
           a->n_failed, vt_fmt_binary(vt_analysis_leaked_bytes(a), b1, sizeof(b1)));
    if (a->n_ooms) {
        printf("out-of-memory errors: %" PRIu32 "\n", a->n_ooms);
        for (uint32_t i = 0; i < a->n_ooms; i++) {
            const vt_oom_t *o = &a->ooms[i];
            printf("  %s on device %" PRIu32 ": %s of %s failed with %s live\n",
                   vt_fmt_seconds(vt_report_rel(rep, o->t_ns), s1, sizeof(s1)), o->device,
                   vt_reader_api_name(r, o->api, api, sizeof(api)),
                   vt_fmt_binary(o->requested_bytes, b1, sizeof(b1)),
                   vt_fmt_binary(o->live_total_bytes, b2, sizeof(b2)));
        }
    } else {
        printf("out-of-memory errors: none\n");
    }
    char when[64], cat[32] = "";
    if (rep->have_at)
        snprintf(when, sizeof(when), "live at %s", vt_fmt_seconds(rep->at_ns, s1, sizeof(s1)));
    else
        snprintf(when, sizeof(when), "at the peak");
    if (rep->category >= 0)
        snprintf(cat, sizeof(cat), "%s ", vt_category_names[rep->category]);
    if (rep->n_sites) {
        printf("top %scall-sites %s (device %" PRIu32 "):\n", cat, when, rep->sites_device);
        for (size_t i = 0; i < vt_report_n_shown(rep); i++) {
            const vt_site_t *s = &rep->sites[i];
            printf("  %11s  %-11s %" PRIu64 " allocation%s\n",
                   vt_fmt_binary(s->bytes, b1, sizeof(b1)), vt_category_names[s->category],
                   s->n_allocs, s->n_allocs == 1 ? "" : "s");
            if (!s->stack_id)
                printf("      (no call-site recorded)\n");
            vt_frames_print(stdout, &frames, rep->sites_r, s->stack_id, "      ");
        }
    } else if (rep->category >= 0 && (peak || rep->have_at)) {
        printf("top %scall-sites %s: none\n", cat, when);
    }
    if (rep->budget) {
        static const uint64_t zero[VT_CAT_COUNT];
        vt_report_budget_text(rep->budget, peak ? peak->peak_by_category : zero);
    }
}

/* The categories at a peak, summing to it: what stream-ordered pools reserve beyond their
 * allocations (pool_spare_bytes) is held by no call-site, so it counts in unknown (and is given
 * alone beside). */
static void json_by_category(vt_json_t *j, const char *key, const uint64_t *by_category,
                             uint64_t pool_spare_bytes)
{
    vt_json_begin_object(j, key);
    for (int i = 0; i < VT_CAT_COUNT; i++)
        vt_json_uint(j, vt_category_names[i],
                     i == VT_CAT_UNKNOWN ? vt_sat_add(by_category[i], pool_spare_bytes)
                                         : by_category[i]);
    vt_json_end_object(j);
}

static void print_json(const vt_report_t *rep)
{
    const vt_reader_t *r = &rep->r;
    const vt_analysis_t *a = &rep->a;
    const vt_device_stats_t *peak = vt_analysis_peak(a);
    static const uint64_t zero[VT_CAT_COUNT];
    char buf[1024], key[256];
    vt_frames_opts_t frames = {.sym = rep->sym, .frame_bytes = sizeof(buf)};
    vt_json_t j;

    vt_json_init(&j, stdout);
    vt_json_begin_object(&j, NULL);
    vt_json_string(&j, "file", rep->path);
    if (rep->rules_path)
        vt_json_string(&j, "rules", rep->rules_path);
    if (rep->rules)
        vt_json_bool(&j, "builtin_rules", rep->rules->n_builtin > 0);
    snprintf(buf, sizeof(buf), "%u.%u", r->major, r->minor);
    vt_json_string(&j, "format_version", buf);
    vt_json_bool(&j, "exit_clean", r->seen_end);
    vt_json_bool(&j, "complete", !rep->failed);
    vt_json_uint(&j, "capped_at_bytes", a->capped_limit_bytes); /* 0: not capped */
    vt_json_begin_object(&j, "process");
    for (uint32_t i = 0; i < r->n_process_kv; i++) {
        vt_reader_cstring(r, r->process_kv[2 * i], key, sizeof(key));
        vt_json_string(&j, key, vt_reader_cstring(r, r->process_kv[2 * i + 1], buf, sizeof(buf)));
    }
    vt_json_end_object(&j);
    const char *meaning, *mode = vt_report_allocator(r, buf, sizeof(buf), &meaning);
    vt_json_begin_object(&j, "allocator");
    vt_json_string(&j, "mode", mode);
    vt_json_string(&j, "setting", buf);
    vt_json_end_object(&j);

    vt_json_begin_object(&j, "peak");
    vt_json_uint(&j, "bytes", peak ? peak->peak_bytes : 0);
    vt_json_uint(&j, "time_ns", peak ? vt_report_rel(rep, peak->peak_t_ns) : 0);
    if (peak)
        vt_json_uint(&j, "device", peak->device);
    json_by_category(&j, "by_category", peak ? peak->peak_by_category : zero,
                     peak ? peak->peak_pool_spare_bytes : 0);
    vt_json_uint(&j, "pool_spare_bytes", peak ? peak->peak_pool_spare_bytes : 0);
    if (rep->peak_phase.kind && rep->peak_phase.kind[0]) {
        vt_json_begin_object(&j, "phase");
        vt_json_string(&j, "name", rep->peak_phase.name);
        vt_json_string(&j, "path", rep->peak_phase.path);
        vt_json_string(&j, "kind", rep->peak_phase.kind);
        vt_json_end_object(&j);
    } else {
        vt_json_literal(&j, "phase", "null");
    }
    vt_json_end_object(&j);

    if (rep->have_at) {
        /* The peak object's keys, for the moment --at; devices[] holds each device then. */
        const vt_device_stats_t *most = vt_report_most_live(&rep->at);
        uint64_t by_category[VT_CAT_COUNT];
        uint64_t total = most ? vt_report_live_on(&rep->at, most->device, by_category) : 0;
        vt_json_begin_object(&j, "at");
        vt_json_uint(&j, "bytes", total);
        vt_json_uint(&j, "time_ns", rep->at_ns);
        if (most)
            vt_json_uint(&j, "device", most->device);
        json_by_category(&j, "by_category", most ? by_category : zero, 0);
        vt_json_bool(&j, "after_end", rep->at_after_end);
        vt_json_begin_array(&j, "devices");
        for (uint32_t i = 0; i < a->n_devices; i++) {
            vt_json_begin_object(&j, NULL);
            vt_json_uint(&j, "device", a->devices[i].device);
            vt_json_uint(&j, "bytes",
                         vt_report_live_on(&rep->at, a->devices[i].device, by_category));
            json_by_category(&j, "by_category", by_category, 0);
            vt_json_end_object(&j);
        }
        vt_json_end_array(&j);
        vt_json_end_object(&j);
    }
    if (rep->category >= 0) {
        const vt_device_stats_t *cp = vt_report_category_peak(a, rep->category);
        vt_json_begin_object(&j, "category");
        vt_json_string(&j, "name", vt_category_names[rep->category]);
        vt_json_uint(&j, "peak_bytes", cp ? cp->cat_peak_bytes[rep->category] : 0);
        vt_json_uint(&j, "peak_time_ns",
                     cp ? vt_report_rel(rep, cp->cat_peak_t_ns[rep->category]) : 0);
        if (cp)
            vt_json_uint(&j, "device", cp->device);
        vt_json_end_object(&j);
    }

    vt_json_begin_array(&j, "devices");
    for (uint32_t i = 0; i < a->n_devices; i++) {
        const vt_device_stats_t *d = &a->devices[i];
        const vt_trace_device_t *info = vt_reader_device(r, d->device);
        vt_json_begin_object(&j, NULL);
        vt_json_uint(&j, "device", d->device);
        if (info) {
            vt_json_string(&j, "name",
                           vt_reader_cstring(r, info->name_string_id, buf, sizeof(buf)));
            vt_json_uint(&j, "total_bytes", info->total_bytes);
            if (info->uuid_string_id)
                vt_json_string(&j, "uuid",
                               vt_reader_cstring(r, info->uuid_string_id, buf, sizeof(buf)));
            if (info->pci_bus_id_string_id)
                vt_json_string(&j, "pci_bus_id",
                               vt_reader_cstring(r, info->pci_bus_id_string_id, buf, sizeof(buf)));
        }
        vt_json_uint(&j, "peak_bytes", d->peak_bytes);
        vt_json_uint(&j, "peak_time_ns", vt_report_rel(rep, d->peak_t_ns));
        vt_json_uint(&j, "leaked_bytes", d->live_bytes);
        json_by_category(&j, "by_category", d->peak_by_category, d->peak_pool_spare_bytes);
        vt_json_uint(&j, "pool_spare_bytes", d->peak_pool_spare_bytes);
        vt_json_uint(&j, "tensors_live_peak_bytes", d->tensors_peak_bytes);
        vt_json_uint(&j, "pool_reserved_peak_bytes", d->pool_reserved_peak_bytes);
        vt_json_end_object(&j);
    }
    vt_json_end_array(&j);

    vt_json_begin_object(&j, "host_pinned");
    vt_json_uint(&j, "peak_bytes", a->peak_bytes[VT_TRACE_SERIES_PINNED]);
    vt_json_end_object(&j);
    vt_json_begin_object(&j, "managed");
    vt_json_uint(&j, "peak_bytes", a->peak_bytes[VT_TRACE_SERIES_MANAGED]);
    vt_json_end_object(&j);
    vt_json_begin_object(&j, "imported");
    vt_json_uint(&j, "peak_bytes", a->peak_bytes[VT_TRACE_SERIES_IMPORTED]);
    vt_json_uint(&j, "live_bytes", a->live_bytes[VT_TRACE_SERIES_IMPORTED]);
    vt_json_end_object(&j);

    vt_json_begin_object(&j, "totals");
    vt_json_uint(&j, "allocs", a->n_allocs);
    vt_json_uint(&j, "frees", a->n_frees);
    vt_json_uint(&j, "failed_allocs", a->n_failed);
    vt_json_uint(&j, "leaked_bytes", vt_analysis_leaked_bytes(a));
    vt_json_uint(&j, "unmatched_frees", a->n_unmatched_frees);
    vt_json_end_object(&j);

    vt_json_begin_array(&j, "pools");
    for (uint32_t i = 0; i < a->n_pools; i++) {
        const vt_pool_stats_t *p = &a->pools[i];
        vt_json_begin_object(&j, NULL);
        vt_json_uint(&j, "pool", p->pool);
        vt_json_uint(&j, "device", p->device);
        vt_json_uint(&j, "tensors_live_peak_bytes", p->used_peak_bytes);
        vt_json_uint(&j, "reserved_peak_bytes", p->reserved_peak_bytes);
        vt_json_uint(&j, "used_bytes", p->used_bytes);
        vt_json_uint(&j, "reserved_bytes", p->reserved_bytes);
        vt_json_end_object(&j);
    }
    vt_json_end_array(&j);

    vt_json_begin_object(&j, "arrays");
    vt_json_uint(&j, "made", a->n_array_allocs);
    vt_json_string(&j, "sizes", "logical");
    vt_json_end_object(&j);

    vt_json_begin_array(&j, "ooms");
    for (uint32_t i = 0; i < a->n_ooms; i++) {
        const vt_oom_t *o = &a->ooms[i];
        vt_json_begin_object(&j, NULL);
        vt_json_uint(&j, "time_ns", vt_report_rel(rep, o->t_ns));
        vt_json_uint(&j, "device", o->device);
        vt_json_uint(&j, "requested_bytes", o->requested_bytes);
        vt_json_uint(&j, "live_bytes", o->live_total_bytes);
        vt_json_uint(&j, "free_bytes", o->free_bytes);
        vt_json_uint(&j, "total_bytes", o->total_bytes);
        vt_json_uint(&j, "pool_reserved_bytes", o->pool_reserved_bytes);
        vt_json_uint(&j, "pool_spare_bytes", o->pool_spare_bytes);
        vt_json_string(&j, "api", vt_reader_api_name(r, o->api, buf, sizeof(buf)));
        json_by_category(&j, "by_category", o->live_bytes, 0);
        vt_json_end_object(&j);
    }
    vt_json_end_array(&j);

    vt_json_begin_array(&j, "top_sites");
    for (size_t i = 0; i < vt_report_n_shown(rep); i++) {
        const vt_site_t *s = &rep->sites[i];
        vt_json_begin_object(&j, NULL);
        vt_json_uint(&j, "bytes", s->bytes);
        vt_json_string(&j, "category", vt_category_names[s->category]);
        vt_json_uint(&j, "allocs", s->n_allocs);
        vt_frames_json(&j, "frames", &frames, rep->sites_r, s->stack_id);
        vt_json_end_object(&j);
    }
    vt_json_end_array(&j);
    if (rep->budget)
        vt_report_budget_json(&j, rep->budget, peak ? peak->peak_by_category : zero);
    vt_json_end_object(&j);
    vt_json_finish(&j);
}

/* --temporary as text: the totals, then the call-sites with the most temporary allocations. */
static void print_temporary_text(const vt_churn_t *c, const vt_reader_t *r, vt_symbolizer_t *sym,
                                 size_t top)
{
    char s1[32], b1[32], n1[32], n2[32];
    vt_frames_opts_t frames = {.sym = sym, .max_frames = TEXT_MAX_FRAMES, .shown = true};
    printf("temporary allocations: device memory freed within %s of its allocation\n",
           vt_fmt_seconds(c->window_ns, s1, sizeof(s1)));
    printf("  %s of %s allocations (%.1f%%), %s churned\n",
           vt_fmt_commas(c->n_temporary, n1, sizeof(n1)),
           vt_fmt_commas(c->n_allocs, n2, sizeof(n2)),
           c->n_allocs ? 100.0 * (double)c->n_temporary / (double)c->n_allocs : 0.0,
           vt_fmt_binary(c->temporary_bytes, b1, sizeof(b1)));
    if (!c->n_sites) {
        printf("call-sites with temporary allocations: none\n");
        return;
    }
    printf("call-sites by temporary allocations (of all their allocations):\n");
    size_t n = top && top < c->n_sites ? top : c->n_sites;
    for (size_t i = 0; i < n; i++) {
        const vt_churn_site_t *s = &c->sites[i];
        printf("  %9s of %-9s %11s churned  %s\n", vt_fmt_commas(s->n_temporary, n1, sizeof(n1)),
               vt_fmt_commas(s->n_allocs, n2, sizeof(n2)),
               vt_fmt_binary(s->temporary_bytes, b1, sizeof(b1)), vt_category_names[s->category]);
        if (!s->stack_id)
            printf("      (no call-site recorded)\n");
        vt_frames_print(stdout, &frames, r, s->stack_id, "      ");
    }
    if (n < c->n_sites)
        printf("  ... %zu more call-site%s (--top 0 lists every one)\n", c->n_sites - n,
               c->n_sites - n == 1 ? "" : "s");
}

/* --temporary --json: the same, every frame. */
static void print_temporary_json(const char *path, const vt_churn_t *c, const vt_reader_t *r,
                                 vt_symbolizer_t *sym, size_t top, bool complete)
{
    char buf[1024];
    vt_frames_opts_t frames = {.sym = sym, .frame_bytes = sizeof(buf)};
    vt_json_t j;
    vt_json_init(&j, stdout);
    vt_json_begin_object(&j, NULL);
    vt_json_string(&j, "file", path);
    vt_json_bool(&j, "complete", complete);
    vt_json_uint(&j, "window_ns", c->window_ns);
    vt_json_uint(&j, "allocs", c->n_allocs);
    vt_json_uint(&j, "temporary_allocs", c->n_temporary);
    vt_json_uint(&j, "temporary_bytes", c->temporary_bytes);
    vt_json_begin_array(&j, "sites");
    size_t n = top && top < c->n_sites ? top : c->n_sites;
    for (size_t i = 0; i < n; i++) {
        const vt_churn_site_t *s = &c->sites[i];
        vt_json_begin_object(&j, NULL);
        vt_json_uint(&j, "temporary_allocs", s->n_temporary);
        vt_json_uint(&j, "temporary_bytes", s->temporary_bytes);
        vt_json_uint(&j, "allocs", s->n_allocs);
        vt_json_string(&j, "category", vt_category_names[s->category]);
        vt_frames_json(&j, "frames", &frames, r, s->stack_id);
        vt_json_end_object(&j);
    }
    vt_json_end_array(&j);
    vt_json_end_object(&j);
    vt_json_finish(&j);
}

/* report --temporary: one streaming pass (churn.c). Returns the exit status. */
static int report_temporary(const char *path, uint64_t window_ns, int json,
                            const vt_report_opts_t *opts)
{
    vt_reader_t r;
    vt_churn_t c;
    int rc = vt_churn_load(path, window_ns, &c, &r);
    if (rc < 0)
        return 1;
    vt_symbolizer_t sym, *symp = NULL;
    if (c.n_sites && vt_symbolizer_init_trace(&sym, &r) == 0) {
        symp = &sym;
        sym.all_frames = opts->all_frames;
    }
    if (json)
        print_temporary_json(path, &c, &r, symp, opts->top, rc == 0);
    else
        print_temporary_text(&c, &r, symp, opts->top);
    if (symp)
        vt_symbolizer_release(symp);
    vt_churn_release(&c);
    vt_reader_release(&r);
    return rc ? 1 : 0;
}

int cmd_report(int argc, char **argv)
{
    const char *path = NULL, *at_arg = NULL;
    int json = 0, category = -1;
    uint64_t at_ns = 0, window_ns = VT_CHURN_DEFAULT_WINDOW_NS;
    bool temporary = false, window_given = false;
    static vt_report_opts_t opts; /* static: the rules are 40 KiB */

    /* The trace arguments, gathered over argv's slots already read (argv[1 + n] with
     * 1 + n <= i): several files or a directory make the per-rank table. */
    const char **paths = (const char **)argv + 1;
    size_t n_paths = 0;

    vt_report_opts_init(&opts, "report");
    vt_args_t args;
    vt_args_init(&args, &spec, argc, argv);
    for (int opt; (opt = vt_args_next(&args)) != VT_ARG_DONE;) {
        const char *v = args.value;
        int taken;
        if (opt == VT_ARG_ERROR) {
            goto usage;
        } else if (opt == VT_ARG_HELP) {
            vt_args_help(&spec, stdout);
            vt_report_opts_release(&opts);
            return 0;
        } else if (opt == OPT_JSON) {
            json = 1;
        } else if (opt == OPT_AT) {
            if (vt_parse_duration(v, &at_ns) != 0) {
                error("bad time '%s' for '--at': expected seconds from the start like 3.2, "
                      "3.2s, 1500ms or 250us",
                      v);
                goto usage;
            }
            at_arg = v;
        } else if (opt == OPT_TEMPORARY) {
            temporary = true;
        } else if (opt == OPT_WINDOW) {
            if (vt_parse_duration(v, &window_ns) != 0) {
                error("bad duration '%s' for '--window': expected seconds like 0.5, or 10ms, "
                      "250us, 800ns",
                      v);
                goto usage;
            }
            window_given = true;
        } else if (opt == OPT_CATEGORY) {
            category = vt_category_from_name(v, strlen(v));
            if (category < 0) {
                error("unknown category '%s': expected weights, gradients, optimizer, "
                      "activations, data, workspace or unknown",
                      v);
                goto usage;
            }
        } else if ((taken = vt_report_opts_take(&opts, opt, v)) != 0) {
            if (taken < 0)
                goto usage;
        } else {
            if (!path)
                path = v;
            paths[n_paths++] = v;
        }
    }
    if (!path) {
        error("report needs a trace file. See 'vramtrace report --help'.");
        goto usage;
    }
    if (window_given && !temporary) {
        error("--window is for --temporary");
        goto usage;
    }
    if (temporary) {
        if (opts.model || opts.rules_path || opts.no_default_rules || at_arg || category >= 0 ||
            n_paths > 1 || vt_report_is_dir(path)) {
            error("--temporary reads one trace, without --budget, --rules, --at or --category");
            goto usage;
        }
        vt_report_opts_release(&opts);
        return report_temporary(path, window_ns, json, &opts);
    }
    if (n_paths > 1 || vt_report_is_dir(path)) {
        if (opts.model || opts.rules_path || opts.no_default_rules || at_arg || category >= 0) {
            error("--budget, --rules, --at and --category read one trace, not several");
            goto usage;
        }
        vt_report_opts_release(&opts);
        return vt_report_ranks(paths, n_paths, json, opts.top, opts.all_frames);
    }
    int rc = vt_report_opts_load(&opts);
    vt_report_opts_release(&opts);
    if (rc != 0)
        return rc;

    vt_report_t rep;
    memset(&rep, 0, sizeof(rep));
    rep.path = path;
    vt_report_opts_apply(&opts, &rep);
    rep.category = category;
    rep.have_at = at_arg != NULL;
    rep.at_ns = at_ns;
    rc = vt_report_load(&rep);
    if (rc >= 0 && rep.at_after_end) {
        char s2[32];
        error("note: '--at %s' is after the end of the trace at %s: showing what was live at "
              "the end",
              at_arg, vt_fmt_seconds(rep.at_ns, s2, sizeof(s2)));
    }
    if (rc >= 0 && json)
        print_json(&rep);
    else if (rc >= 0)
        print_text(&rep);
    vt_report_release(&rep);
    return rc ? 1 : 0;

usage:
    vt_report_opts_release(&opts);
    return EXIT_USAGE;
}

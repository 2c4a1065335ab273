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

int cmd_report(int argc, char **argv);

#define TOP_SITES       10 /* the default of --top */
#define TEXT_MAX_FRAMES 8
#define FRAME_CAP       512

static const char usage[] =
    "usage: vramtrace report FILE|DIR... [--json] [--at TIME] [--category NAME] [--top N]\n"
    "                        [--all-frames] [--rules RULES] [--budget MODEL [KEY=VALUE...]]\n"
    "\n"
    "The device memory peak of a trace, what was live at it by category\n"
    "and call-site, the pinned host and managed peaks, totals and the\n"
    "out-of-memory errors.\n"
    "\n"
    "Several traces, or a directory of them (the ranks of a torchrun, SLURM\n"
    "or mpirun job): one row per trace with its rank, host, pid, device peak,\n"
    "largest category at it and out-of-memory errors, the worst rank flagged;\n"
    "then the job merged: each category at each rank's peak (sum, max and its\n"
    "rank, min, max/mean), the top call-sites at the ranks' peaks matched\n"
    "across ranks by their frames (--top N), and the job's first\n"
    "out-of-memory error; --json gives the same.\n"
    "\n"
    "    --json           print JSON on stdout (keys: docs/trace-format.md)\n"
    "    --at TIME        what was live at TIME instead of at the peak, on every\n"
    "                     device: seconds from the start of the trace (3.2, 3.2s),\n"
    "                     or 1500ms, 250us, 10ns; after the end: the end\n"
    "    --category NAME  list only the call-sites of category NAME (weights,\n"
    "                     gradients, optimizer, activations, data, workspace,\n"
    "                     unknown) and show that category's own peak\n"
    "    --top N          show the N largest call-sites (default 10; 0: all)\n"
    "    --all-frames     show every frame of a call-site: by default the frames of\n"
    "                     the Python interpreter, libffi, libc, the loader and\n"
    "                     vramtrace are left out\n"
    "                     (--json lists them all)\n"
    "    --rules RULES    decide every allocation's category again with the rules\n"
    "                     of file RULES instead of the recorded ones (docs/categories.md)\n"
    "    --budget MODEL   compare the peak's categories with the naive and realistic\n"
    "                     budgets of a model file (docs/budget.md); KEY=VALUE\n"
    "                     arguments after it override the file's keys\n"
    "    -h, --help       show this help\n";

/* Groups what was live at the peak by call-site: from what the first pass kept (the live set at
 * the end and what was freed since the peak: memory stays bounded by the peak's live set), or,
 * when it could not keep it, by replaying the trace up to the record that made the peak. */
static void peak_sites(vt_report_t *rep, const vt_device_stats_t *peak)
{
    rep->sites_device = peak->device;
    int rc = vt_analysis_peak_sites(&rep->a, peak->device, &rep->sites, &rep->n_sites);
    if (rc <= 0) {
        if (rc < 0)
            rep->n_sites = 0;
        rep->sites_r = &rep->r; /* stack ids are the same in the whole trace */
        return;
    }
    vt_analysis_t a;
    rep->sites_r = &rep->r_peak;
    if (vt_reader_open(&rep->r_peak, rep->path) != 0)
        return;
    if (rep->recat)
        vt_recategorizer_rewind(rep->recat);
    vt_analyze_recategorized(&rep->r_peak, &a, peak->peak_record,
                             rep->recat ? vt_recategorize : NULL, rep->recat);
    if (vt_analysis_sites(&a, peak->device, &rep->sites, &rep->n_sites) != 0)
        rep->n_sites = 0;
    rep->sites_device = peak->device;
    vt_analysis_release(&a);
}

/* The device with the most bytes live in a (the lowest number on a tie), or NULL with none. */
static const vt_device_stats_t *most_live(const vt_analysis_t *a)
{
    const vt_device_stats_t *best = NULL;
    for (uint32_t i = 0; i < a->n_devices; i++)
        if (!best || a->devices[i].live_bytes > best->live_bytes)
            best = &a->devices[i];
    return best && best->live_bytes ? best : NULL;
}

/* --at: replays the trace up to rep->at_ns into rep->at and groups what was live then on the
 * device with the most by call-site. Memory stays bounded by the live set, as for the peak. */
static void at_sites(vt_report_t *rep)
{
    rep->sites_r = &rep->r_peak;
    if (vt_reader_open(&rep->r_peak, rep->path) != 0)
        return;
    if (rep->recat)
        vt_recategorizer_rewind(rep->recat);
    vt_analyze_until(&rep->r_peak, &rep->at, rep->r.t0_ns + rep->at_ns,
                     rep->recat ? vt_recategorize : NULL, rep->recat);
    const vt_device_stats_t *d = most_live(&rep->at);
    if (!d)
        return;
    if (vt_analysis_sites(&rep->at, d->device, &rep->sites, &rep->n_sites) != 0)
        rep->n_sites = 0;
    rep->sites_device = d->device;
}

/* --category: keeps the call-sites of that category, in order. */
static void filter_sites(vt_report_t *rep)
{
    size_t m = 0;
    for (size_t i = 0; i < rep->n_sites; i++)
        if (rep->sites[i].category == rep->category)
            rep->sites[m++] = rep->sites[i];
    rep->n_sites = m;
}

/* The live bytes of device in a, by category, into by_category; returns the total. */
static uint64_t live_on(const vt_analysis_t *a, uint32_t device, uint64_t *by_category)
{
    memset(by_category, 0, VT_CAT_COUNT * sizeof(*by_category));
    for (uint32_t i = 0; i < a->n_devices; i++)
        if (a->devices[i].device == device) {
            memcpy(by_category, a->devices[i].live_by_category,
                   VT_CAT_COUNT * sizeof(*by_category));
            return a->devices[i].live_bytes;
        }
    return 0;
}

/* The device where category c peaked highest (the lowest number on a tie), or NULL if c never
 * had device memory. */
const vt_device_stats_t *vt_report_category_peak(const vt_analysis_t *a, int c)
{
    const vt_device_stats_t *best = NULL;
    for (uint32_t i = 0; i < a->n_devices; i++)
        if (a->devices[i].cat_peak_bytes[c] &&
            (!best || a->devices[i].cat_peak_bytes[c] > best->cat_peak_bytes[c]))
            best = &a->devices[i];
    return best;
}

size_t vt_report_n_shown(const vt_report_t *rep)
{
    return rep->top && rep->top < rep->n_sites ? rep->top : rep->n_sites;
}

/* The modes, first match wins: the variable, what its value must contain ("" any; "=V": be V),
 * the mode. */
static const struct {
    const char *key, *contains, *mode, *meaning;
} allocator_modes[] = {
    {"PYTORCH_NO_CUDA_MEMORY_CACHING", "=1", "per-tensor",
     "each tensor is its own CUDA allocation: call-sites and categories are exact"},
    /* Before XLA's: `run --per-tensor` sets both, and a PyTorch job is the likelier reader. */
    {"PYTORCH_CUDA_ALLOC_CONF", "cudaMallocAsync", "stream-ordered",
     "tensors come from CUDA's stream-ordered pool, one allocation each; freed memory stays in "
     "the pool up to its release threshold"},
    {"XLA_PYTHON_CLIENT_ALLOCATOR", "=platform", "per-tensor",
     "each array is its own CUDA allocation: call-sites and categories are exact"},
    {"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True", "expandable",
     "PyTorch's caching allocator maps and grows segments (VMM): the trace sees the segments, "
     "not each tensor"},
    {"PYTORCH_CUDA_ALLOC_CONF", "", "caching",
     "PyTorch's caching allocator: the trace sees its segments, not each tensor"},
    {"TF_FORCE_GPU_ALLOW_GROWTH", "=true", "growth",
     "TensorFlow grows its pool on demand: the trace sees the pool's regions"},
    {"XLA_PYTHON_CLIENT_PREALLOCATE", "=false", "growth",
     "JAX grows its pool on demand: the trace sees the pool's regions"},
};

const char *vt_report_allocator(const vt_reader_t *r, char *setting, size_t cap,
                                const char **meaning)
{
    char value[256];
    for (size_t i = 0; i < sizeof(allocator_modes) / sizeof(allocator_modes[0]); i++) {
        const char *want = allocator_modes[i].contains;
        if (!vt_reader_process(r, allocator_modes[i].key, value, sizeof(value)) ||
            (want[0] == '=' ? strcmp(value, want + 1) != 0 : !strstr(value, want)))
            continue;
        snprintf(setting, cap, "%s=%s", allocator_modes[i].key, value);
        *meaning = allocator_modes[i].meaning;
        return allocator_modes[i].mode;
    }
    setting[0] = '\0';
    *meaning = "no allocator variable set; a framework's caching allocator shows as its segments, "
               "not tensors ('vramtrace run --per-tensor')";
    return "default";
}

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

static void print_category_table(const uint64_t *by_category, uint64_t total)
{
    char c[32], b[32];
    printf("  %-12s %17s %11s %7s\n", "category", "bytes", "binary", "share");
    for (int i = 0; i < VT_CAT_COUNT; i++) {
        double share = total ? 100.0 * (double)by_category[i] / (double)total : 0;
        printf("  %-12s %17s %11s %6.1f%%\n", vt_category_names[i],
               vt_fmt_commas(by_category[i], c, sizeof(c)),
               vt_fmt_binary(by_category[i], b, sizeof(b)), share);
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

    print_process(rep);
    if (rep->rules_path)
        printf("categories: by the rules of '%s'\n", rep->rules_path);
    if (rep->have_at) {
        if (!a->n_devices)
            printf("live at %s: 0 B (no device memory allocated)\n",
                   vt_fmt_seconds(rep->at_ns, s1, sizeof(s1)));
        for (uint32_t i = 0; i < a->n_devices; i++) {
            uint64_t by_category[VT_CAT_COUNT];
            uint64_t total = live_on(&rep->at, a->devices[i].device, by_category);
            printf("live at %s on device %" PRIu32 ": %s\n",
                   vt_fmt_seconds(rep->at_ns, s1, sizeof(s1)), a->devices[i].device,
                   vt_fmt_binary(total, b1, sizeof(b1)));
            print_category_table(by_category, total);
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
        print_category_table(peak->peak_by_category, peak->peak_bytes);
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
    }
    printf("pinned host peak: %s\n",
           vt_fmt_binary(a->peak_bytes[VT_TRACE_SERIES_PINNED], b1, sizeof(b1)));
    printf("managed peak: %s\n",
           vt_fmt_binary(a->peak_bytes[VT_TRACE_SERIES_MANAGED], b1, sizeof(b1)));
    /* A peer's memory opened here: the exporting process's peak counts it, this one's does not. */
    if (a->peak_bytes[VT_TRACE_SERIES_IMPORTED])
        printf("imported peak: %s (a peer's memory, in the exporting process's device peak)\n",
               vt_fmt_binary(a->peak_bytes[VT_TRACE_SERIES_IMPORTED], b1, sizeof(b1)));
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
            int depth = 0;
            for (uint32_t id = vt_symbolize_first_shown(rep->sym, rep->sites_r, s->stack_id); id;
                 depth++) {
                char frame[FRAME_CAP];
                if (depth == TEXT_MAX_FRAMES) {
                    printf("      ...\n");
                    break;
                }
                id = vt_symbolize_shown(
                    rep->sym, rep->sites_r,
                    vt_symbolize_frame(rep->sym, rep->sites_r, id, frame, sizeof(frame)));
                printf("      %s\n", frame);
            }
        }
    } else if (rep->category >= 0 && (peak || rep->have_at)) {
        printf("top %scall-sites %s: none\n", cat, when);
    }
    if (rep->budget) {
        static const uint64_t zero[VT_CAT_COUNT];
        vt_report_budget_text(rep->budget, peak ? peak->peak_by_category : zero);
    }
}

static void json_by_category(vt_json_t *j, const char *key, const uint64_t *by_category)
{
    vt_json_begin_object(j, key);
    for (int i = 0; i < VT_CAT_COUNT; i++)
        vt_json_uint(j, vt_category_names[i], by_category[i]);
    vt_json_end_object(j);
}

static void print_json(const vt_report_t *rep)
{
    const vt_reader_t *r = &rep->r;
    const vt_analysis_t *a = &rep->a;
    const vt_device_stats_t *peak = vt_analysis_peak(a);
    static const uint64_t zero[VT_CAT_COUNT];
    char buf[1024], key[256];
    vt_json_t j;

    vt_json_init(&j, stdout);
    vt_json_begin_object(&j, NULL);
    vt_json_string(&j, "file", rep->path);
    if (rep->rules_path)
        vt_json_string(&j, "rules", rep->rules_path);
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
    json_by_category(&j, "by_category", peak ? peak->peak_by_category : zero);
    vt_json_end_object(&j);

    if (rep->have_at) {
        /* The peak object's keys, for the moment --at; devices[] holds each device then. */
        const vt_device_stats_t *most = most_live(&rep->at);
        uint64_t by_category[VT_CAT_COUNT];
        uint64_t total = most ? live_on(&rep->at, most->device, by_category) : 0;
        vt_json_begin_object(&j, "at");
        vt_json_uint(&j, "bytes", total);
        vt_json_uint(&j, "time_ns", rep->at_ns);
        if (most)
            vt_json_uint(&j, "device", most->device);
        json_by_category(&j, "by_category", most ? by_category : zero);
        vt_json_bool(&j, "after_end", rep->at_after_end);
        vt_json_begin_array(&j, "devices");
        for (uint32_t i = 0; i < a->n_devices; i++) {
            vt_json_begin_object(&j, NULL);
            vt_json_uint(&j, "device", a->devices[i].device);
            vt_json_uint(&j, "bytes", live_on(&rep->at, a->devices[i].device, by_category));
            json_by_category(&j, "by_category", by_category);
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
        json_by_category(&j, "by_category", d->peak_by_category);
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
        vt_json_string(&j, "api", vt_reader_api_name(r, o->api, buf, sizeof(buf)));
        json_by_category(&j, "by_category", o->live_bytes);
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
        vt_json_begin_array(&j, "frames");
        for (uint32_t id = s->stack_id; id;) {
            id = vt_symbolize_frame(rep->sym, rep->sites_r, id, buf, sizeof(buf));
            vt_json_string(&j, NULL, buf);
        }
        vt_json_end_array(&j);
        vt_json_end_object(&j);
    }
    vt_json_end_array(&j);
    if (rep->budget)
        vt_report_budget_json(&j, rep->budget, peak ? peak->peak_by_category : zero);
    vt_json_end_object(&j);
    vt_json_finish(&j);
}

/* Reads and parses the rules file path into *rules (static: 40 KiB). Returns 0, 1 when it cannot
 * be read, 2 for a bad line (both said on stderr). */
int vt_report_load_rules(const char *path, vt_rules_t *rules)
{
    size_t len = 0;
    char *text = read_file(path, &len), err[256];
    if (!text) {
        error("cannot read rules '%s': %s", path, strerror(errno));
        return 1;
    }
    int bad_line = vt_rules_parse(rules, text, len, err, sizeof(err));
    free(text);
    if (bad_line) {
        error("rules '%s' line %d: %s", path, bad_line, err);
        return EXIT_USAGE;
    }
    return 0;
}

/* A symbolizer for the modules of the whole trace at path: the rules need it while the trace
 * streams by, and a module may be recorded after the first stacks (the reader stops at damage,
 * with the modules before it). Returns 0, or -1 when the trace cannot be read or no memory. */
static int symbolizer_for_trace(const char *path, vt_symbolizer_t *sym)
{
    vt_reader_t r;
    vt_event_t ev;
    if (vt_reader_open(&r, path) != 0) {
        vt_reader_release(&r);
        return -1;
    }
    while (vt_reader_next(&r, &ev) > 0)
        ;
    int rc = vt_symbolizer_init_trace(sym, &r);
    vt_reader_release(&r);
    return rc;
}

/* Parses a --at TIME: a decimal number of seconds, or of s, ms, us or ns, into *t_ns exactly
 * (digits past a nanosecond are dropped). Returns 0, or -1 when it is not one. */
static int parse_time(const char *s, uint64_t *t_ns)
{
    static const struct {
        const char *unit;
        uint64_t ns;
    } units[] = {
        {"", 1000000000u}, {"s", 1000000000u}, {"ms", 1000000u}, {"us", 1000u}, {"ns", 1u}};
    uint64_t whole = 0, frac = 0, frac_scale = 1;
    int n_digits = 0;
    for (; *s >= '0' && *s <= '9'; s++, n_digits++) {
        if (whole > (UINT64_MAX - 9) / 10)
            return -1;
        whole = whole * 10 + (uint64_t)(*s - '0');
    }
    if (*s == '.') {
        for (s++; *s >= '0' && *s <= '9'; s++, n_digits++)
            if (frac_scale < 1000000000u) {
                frac = frac * 10 + (uint64_t)(*s - '0');
                frac_scale *= 10;
            }
    }
    if (!n_digits)
        return -1;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(s, units[i].unit) != 0)
            continue;
        uint64_t scale = units[i].ns;
        if (whole > UINT64_MAX / scale - 1)
            return -1;
        *t_ns = whole * scale + frac * scale / frac_scale;
        return 0;
    }
    return -1;
}

/* The time of the last record of the trace at path, from its t0 (0 when unreadable). */
static uint64_t trace_end_ns(const char *path)
{
    vt_reader_t r;
    vt_event_t ev;
    uint64_t end = 0;
    if (vt_reader_open(&r, path) == 0) {
        while (vt_reader_next(&r, &ev) > 0)
            ;
        end = r.t_ns - r.t0_ns;
    }
    vt_reader_release(&r);
    return end;
}

int vt_report_load(vt_report_t *rep)
{
    int have_sym = 0;
    if (rep->rules) {
        have_sym = symbolizer_for_trace(rep->path, &rep->sym_storage) == 0;
        vt_recategorizer_init(&rep->recat_storage, rep->rules, have_sym ? &rep->sym_storage : NULL);
        rep->recat = &rep->recat_storage;
    }
    rep->sites_r = &rep->r_peak;
    /* --at replays to its time: the peak's live set is not needed then. */
    int rc = vt_trace_load_as(rep->path, &rep->r, &rep->a, rep->recat ? vt_recategorize : NULL,
                              rep->recat, rep->quiet, !rep->have_at);
    if (rc < 0) {
        if (have_sym)
            rep->sym = &rep->sym_storage; /* for vt_report_release */
        return -1;
    }
    rep->failed = rc > 0;
    const vt_device_stats_t *peak = vt_analysis_peak(&rep->a);
    if (rep->have_at) {
        uint64_t end_ns = trace_end_ns(rep->path);
        if (rep->at_ns > end_ns) {
            rep->at_ns = end_ns;
            rep->at_after_end = 1;
        }
        at_sites(rep);
    } else if (peak && peak->peak_bytes && peak->peak_record != UINT64_MAX) {
        /* A peak reached after a cap has no live set in the trace to group by call-site. */
        peak_sites(rep, peak);
    }
    if (rep->category >= 0)
        filter_sites(rep);
    /* The whole trace's modules: a library may be recorded after the peak's stacks. */
    if (have_sym || vt_symbolizer_init_trace(&rep->sym_storage, &rep->r) == 0) {
        rep->sym = &rep->sym_storage;
        rep->sym->all_frames = rep->all_frames;
    }
    return rep->failed;
}

void vt_report_release(vt_report_t *rep)
{
    if (rep->recat)
        vt_recategorizer_release(rep->recat);
    if (rep->sym)
        vt_symbolizer_release(rep->sym);
    free(rep->sites);
    vt_analysis_release(&rep->at);
    vt_reader_release(&rep->r_peak);
    vt_analysis_release(&rep->a);
    vt_reader_release(&rep->r);
    memset(rep, 0, sizeof(*rep));
}

void vt_report_opts_init(vt_report_opts_t *o, const char *cmd)
{
    memset(o, 0, sizeof(*o));
    o->cmd = cmd;
    o->top = TOP_SITES;
    vt_kv_list_init(&o->keys);
}

void vt_report_opts_release(vt_report_opts_t *o)
{
    vt_kv_list_release(&o->keys);
}

int vt_report_opts_parse(vt_report_opts_t *o, int argc, char **argv, int *i)
{
    const char *v, *a = argv[*i];
    char err[512];
    int taken;
    if (strcmp(a, "--all-frames") == 0) {
        o->all_frames = true;
    } else if ((taken = vt_arg_value(argc, argv, i, 0, "--budget", o->cmd, &v))) {
        if (taken < 0)
            return -1;
        if (o->model)
            return error("only one model file, please: '%s' and '%s'", o->model, v);
        o->model = v;
    } else if ((taken = vt_arg_value(argc, argv, i, 0, "--top", o->cmd, &v))) {
        if (taken < 0)
            return -1;
        if (vt_parse_count(v, &o->top) != 0)
            return error("'--top' takes a count, not '%s'", v);
    } else if ((taken = vt_arg_value(argc, argv, i, 0, "--rules", o->cmd, &v))) {
        if (taken < 0)
            return -1;
        if (o->rules_path)
            return error("only one rules file, please: '%s' and '%s'", o->rules_path, v);
        o->rules_path = v;
    } else if (o->model && a[0] != '-' && strchr(a, '=')) {
        /* After --budget FILE an argument with '=' is a model key (a trace named so goes
         * before --budget). */
        if (vt_kv_parse_arg(&o->keys, a, err, sizeof(err)) != 0)
            return error("%s. See 'vramtrace %s --help'.", err, o->cmd);
    } else {
        return 0;
    }
    return 1;
}

int vt_report_opts_load(vt_report_opts_t *o)
{
    /* The model and the rules before the trace: a bad key costs no reading of a large trace. */
    if (o->model) {
        int rc = vt_report_budget_load(&o->budget, o->model, &o->keys);
        if (rc != 0)
            return rc;
    }
    if (o->rules_path)
        return vt_report_load_rules(o->rules_path, &o->rules);
    return 0;
}

void vt_report_opts_apply(const vt_report_opts_t *o, vt_report_t *rep)
{
    rep->budget = o->model ? &o->budget : NULL;
    rep->rules_path = o->rules_path;
    rep->rules = o->rules_path ? &o->rules : NULL;
    rep->top = o->top;
    rep->all_frames = o->all_frames;
}

int cmd_report(int argc, char **argv)
{
    const char *path = NULL, *at_arg = NULL;
    int json = 0, category = -1;
    uint64_t at_ns = 0;
    static vt_report_opts_t opts; /* static: the rules are 40 KiB */

    /* The trace arguments, gathered over argv's slots already read (argv[1 + n] with
     * 1 + n <= i): several files or a directory make the per-rank table. */
    const char **paths = (const char **)argv + 1;
    size_t n_paths = 0;

    vt_report_opts_init(&opts, "report");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int taken;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            vt_report_opts_release(&opts);
            return 0;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if ((taken = vt_arg_value(argc, argv, &i, 0, "--at", "report", &v))) {
            if (taken < 0)
                goto usage;
            if (parse_time(v, &at_ns) != 0) {
                error("bad time '%s' for '--at': expected seconds from the start like 3.2, "
                      "3.2s, 1500ms or 250us",
                      v);
                goto usage;
            }
            at_arg = v;
        } else if ((taken = vt_arg_value(argc, argv, &i, 0, "--category", "report", &v))) {
            if (taken < 0)
                goto usage;
            category = vt_category_from_name(v, strlen(v));
            if (category < 0) {
                error("unknown category '%s': expected weights, gradients, optimizer, "
                      "activations, data, workspace or unknown",
                      v);
                goto usage;
            }
        } else if ((taken = vt_report_opts_parse(&opts, argc, argv, &i)) != 0) {
            if (taken < 0)
                goto usage;
        } else if (a[0] == '-' && a[1]) {
            vt_arg_unknown(a, "report");
            goto usage;
        } else {
            if (!path)
                path = a;
            paths[n_paths++] = a;
        }
    }
    if (!path) {
        error("report needs a trace file. See 'vramtrace report --help'.");
        goto usage;
    }
    if (n_paths > 1 || vt_report_is_dir(path)) {
        if (opts.model || opts.rules_path || at_arg || category >= 0) {
            error("--budget, --rules, --at and --category read one trace, not several");
            goto usage;
        }
        vt_report_opts_release(&opts);
        return vt_report_ranks(paths, n_paths, json, opts.top);
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

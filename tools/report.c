/* SPDX-License-Identifier: MIT */
/* The single-trace report (report.h): what `report` and `html` show, computed once: the trace
 * read into counters, the call-sites live at the peak (or at --at TIME, or of one --category),
 * the symbolizer for their frames, and the options the two commands share. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "args.h"
#include "frames.h"
#include "load.h"
#include "report.h"
#include "units.h"
#include "util.h"

#define TOP_SITES 10 /* the default of --top */

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

const vt_device_stats_t *vt_report_most_live(const vt_analysis_t *a)
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
    const vt_device_stats_t *d = vt_report_most_live(&rep->at);
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

uint64_t vt_report_live_on(const vt_analysis_t *a, uint32_t device, uint64_t *by_category)
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

const char *vt_report_pool_figures(const vt_pool_stats_t *p, char *buf, size_t cap)
{
    char used_peak[32], reserved_peak[32], used[32], reserved[32];
    snprintf(buf, cap,
             "tensors live peak %s, pool reserved peak %s (at the end %s used, %s reserved)",
             vt_fmt_binary(p->used_peak_bytes, used_peak, sizeof(used_peak)),
             vt_fmt_binary(p->reserved_peak_bytes, reserved_peak, sizeof(reserved_peak)),
             vt_fmt_binary(p->used_bytes, used, sizeof(used)),
             vt_fmt_binary(p->reserved_bytes, reserved, sizeof(reserved)));
    return buf;
}

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

/* Reads and parses the rules file path into *rules (static: 70 KiB). */
int vt_report_load_rules(const char *path, bool with_defaults, vt_rules_t *rules)
{
    size_t len = 0;
    char *text = NULL, err[256];
    if (path && !(text = vt_input_read(path, VT_INPUT_MAX_BYTES, &len))) {
        error("cannot read rules '%s': %s", path, vt_input_strerror(errno));
        return 1;
    }
    int bad_line = vt_rules_load(rules, text, len, with_defaults, err, sizeof(err));
    free(text);
    if (bad_line) {
        error("rules '%s' line %d: %s", path, bad_line, err);
        return EXIT_USAGE;
    }
    return 0;
}

void vt_report_rules_said(const vt_report_t *rep, char *out, size_t cap)
{
    bool builtin = rep->rules && rep->rules->n_builtin > 0;
    if (!rep->rules_path)
        snprintf(out, cap, "by %s", builtin ? "the built-in rules" : "no rules");
    else
        snprintf(out, cap, "by the rules of '%s'%s", rep->rules_path,
                 builtin ? ", then the built-in ones" : " alone");
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
    rep->peak_phase.kind = "";
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
    if (peak && peak->peak_bytes)
        vt_phase_of_record(rep->path, peak->peak_record, peak->peak_t_ns, &rep->peak_phase);
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

const vt_option_t vt_report_options[] = {
    {VT_REPORT_OPT_TOP, 0, "--top", "N", 0, "show the N largest call-sites (default 10; 0: all)"},
    {VT_REPORT_OPT_ALL_FRAMES, 0, "--all-frames", NULL, 0, VT_FRAMES_ALL_HELP},
    {VT_REPORT_OPT_RULES, 0, "--rules", "RULES", 0,
     "decide every allocation's category again by the rules of file RULES, then the built-in "
     "ones, instead of the recorded categories (docs/categories.md)"},
    {VT_REPORT_OPT_NO_DEFAULT_RULES, 0, "--no-default-rules", NULL, 0,
     "decide the categories again without the built-in rules (with --rules: by RULES alone)"},
    {VT_REPORT_OPT_BUDGET, 0, "--budget", "MODEL", 0,
     "compare the peak's categories with the naive and realistic budgets of a model file "
     "(docs/budget.md); KEY=VALUE arguments after it override the file's keys"},
    {0},
};

int vt_report_opts_take(vt_report_opts_t *o, int id, const char *v)
{
    char err[512];
    if (id == VT_REPORT_OPT_ALL_FRAMES) {
        o->all_frames = true;
    } else if (id == VT_REPORT_OPT_BUDGET) {
        if (o->model)
            return error("only one model file, please: '%s' and '%s'", o->model, v);
        o->model = v;
    } else if (id == VT_REPORT_OPT_TOP) {
        if (vt_parse_count(v, &o->top) != 0)
            return error("'--top' takes a count, not '%s'", v);
    } else if (id == VT_REPORT_OPT_RULES) {
        if (o->rules_path)
            return error("only one rules file, please: '%s' and '%s'", o->rules_path, v);
        o->rules_path = v;
    } else if (id == VT_REPORT_OPT_NO_DEFAULT_RULES) {
        o->no_default_rules = true;
    } else if (id == VT_ARG_OPERAND && o->model && strchr(v, '=')) {
        /* After --budget FILE an argument with '=' is a model key (a trace named so goes
         * before --budget). */
        if (vt_kv_parse_arg(&o->keys, v, err, sizeof(err)) != 0)
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
    if (o->rules_path || o->no_default_rules)
        return vt_report_load_rules(o->rules_path, !o->no_default_rules, &o->rules);
    return 0;
}

void vt_report_opts_apply(const vt_report_opts_t *o, vt_report_t *rep)
{
    rep->budget = o->model ? &o->budget : NULL;
    rep->rules_path = o->rules_path;
    rep->rules = o->rules_path || o->no_default_rules ? &o->rules : NULL;
    rep->top = o->top;
    rep->all_frames = o->all_frames;
}

/* SPDX-License-Identifier: MIT */
/* The single-trace report (report.c): the trace read once into counters and the call-sites
 * live at the peak (a replay only when that pass could not keep them; --at TIME replays), and a
 * symbolizer for their frames.
 * `report` prints it as text or JSON, `html` (cmd_html.c) as a page. */
#ifndef VT_REPORT_H
#define VT_REPORT_H
#include <stddef.h>
#include <stdint.h>

#include "args.h"
#include "analysis.h"
#include "recategorize.h"
#include "report_budget.h"
#include "symbolize.h"
#include "kv.h"
#include "phases.h"
#include "trace_reader.h"

typedef struct vt_report_s {
    /* what to show: set by the caller before vt_report_load (zero: the defaults) */
    const char *path;
    const vt_report_budget_t *budget; /* --budget: the model to compare with; else NULL */
    const char *rules_path;           /* --rules: the file; else NULL */
    const vt_rules_t *rules;          /* --rules, --no-default-rules: the rules; else NULL */
    size_t top;                       /* --top: call-sites shown; 0 all */
    int category;                     /* --category: the one listed; -1 all */
    int have_at;                      /* --at given */
    uint64_t at_ns;                   /* --at: from t0 */
    bool all_frames;                  /* --all-frames: no frame collapsed */
    int quiet; /* say nothing of the trace's problems (another pass said them) */

    /* what vt_report_load found */
    vt_reader_t r;
    vt_analysis_t a;
    int failed;                 /* the reader stopped at damage */
    int at_after_end;           /* --at asked for a time after the end: at_ns is the end */
    vt_reader_t r_peak;         /* the second pass, stopped at the peak (or --at): call-sites */
    const vt_reader_t *sites_r; /* the reader whose stacks sites name: r_peak or r */
    vt_analysis_t at;           /* --at: the live set then */
    vt_site_t *sites;
    size_t n_sites;
    uint32_t sites_device;     /* the device sites are of */
    vt_symbolizer_t *sym;      /* names the native frames; NULL: hex addresses */
    vt_recategorizer_t *recat; /* --rules: decides the categories; else NULL */
    vt_phase_t peak_phase;     /* the phase of the peak (innermost range, else last mark) */
    vt_symbolizer_t sym_storage;
    vt_recategorizer_t recat_storage;
} vt_report_t;

/* vt_report_load: reads rep->path as the inputs of rep ask, printing the trace's problems with
 * error(). Returns -1 when the trace is unreadable (nothing to show), 1 when damaged part-way
 * (what came before is loaded: show it, exit 1), 0 otherwise. Release rep in every case. */
int vt_report_load(vt_report_t *rep);
void vt_report_release(vt_report_t *rep);

/* The rules in force (vt_rules_load): the file path's (NULL: none), then the built-in ones unless
 * with_defaults is false or the file drops them. Returns 0, 1 when the file cannot be read, 2
 * for a bad line (both said on stderr). */
int vt_report_load_rules(const char *path, bool with_defaults, vt_rules_t *rules);

/* "by the rules of 'FILE', then the built-in ones" and the like, for the report's heading. */
void vt_report_rules_said(const vt_report_t *rep, char *out, size_t cap);

/* The device where category c peaked highest (the lowest number on a tie), or NULL if c never
 * had device memory. */
const vt_device_stats_t *vt_report_category_peak(const vt_analysis_t *a, int c);

/* The allocator mode the PROCESS record's variables say: "per-tensor", "stream-ordered",
 * "expandable", "caching", "growth" or "default"; the variable that says it into setting
 * ("KEY=VALUE"; "" for default) and a sentence on what the trace sees into *meaning. */
const char *vt_report_allocator(const vt_reader_t *r, char *setting, size_t cap,
                                const char **meaning);

/* What pool p held into buf (cap bytes): "tensors live peak X, pool reserved peak Y (at the end
 * U used, R reserved)", for the text report and the page alike; returns buf. */
const char *vt_report_pool_figures(const vt_pool_stats_t *p, char *buf, size_t cap);

/* The device with the most bytes live in a (the lowest number on a tie), or NULL with none. */
const vt_device_stats_t *vt_report_most_live(const vt_analysis_t *a);

/* The live bytes of device in a, by category, into by_category; returns the total. */
uint64_t vt_report_live_on(const vt_analysis_t *a, uint32_t device, uint64_t *by_category);

/* How many of rep->sites to show: rep->top of them, or all. */
size_t vt_report_n_shown(const vt_report_t *rep);

/* t_ns (absolute) from the trace's t0. */
static inline uint64_t vt_report_rel(const vt_report_t *rep, uint64_t t_ns)
{
    return t_ns - rep->r.t0_ns;
}

/* The options `report` and `html` share: --budget MODEL [KEY=VALUE...], --rules RULES, --top N,
 * --all-frames. */
typedef struct vt_report_opts_s {
    const char *cmd;           /* "report" or "html": named in usage errors */
    const char *model;         /* --budget MODEL, or NULL */
    const char *rules_path;    /* --rules RULES, or NULL */
    bool no_default_rules;     /* --no-default-rules */
    size_t top;                /* --top N; 10 by default */
    bool all_frames;           /* --all-frames */
    vt_kv_list_t keys;         /* the KEY=VALUE arguments after --budget */
    vt_report_budget_t budget; /* vt_report_opts_load: the model's budgets */
    vt_rules_t rules;          /* vt_report_opts_load: the rules (40 KiB: keep it static) */
} vt_report_opts_t;

void vt_report_opts_init(vt_report_opts_t *o, const char *cmd);
void vt_report_opts_release(vt_report_opts_t *o); /* the keys only: budget and rules stay */

/* The shared options' table (args.h), for the commands' specs; their ids are VT_REPORT_OPT_*. */
enum {
    VT_REPORT_OPT_TOP = 100,
    VT_REPORT_OPT_ALL_FRAMES,
    VT_REPORT_OPT_RULES,
    VT_REPORT_OPT_NO_DEFAULT_RULES,
    VT_REPORT_OPT_BUDGET,
};
extern const vt_option_t vt_report_options[];

/* Takes the shared option id (VT_REPORT_OPT_*; its value) or, for id VT_ARG_OPERAND, an operand
 * that is a KEY=VALUE after --budget. Returns 1 when taken, 0 when it is not one of them, -1
 * after a usage error on stderr (exit 2). */
int vt_report_opts_take(vt_report_opts_t *o, int id, const char *value);

/* Reads the model and the rules files, before the trace, so a bad key costs no reading of a
 * large trace. Returns 0, or the exit status after a message (1 unreadable, 2 bad content). */
int vt_report_opts_load(vt_report_opts_t *o);

/* Sets the inputs of rep that the shared options decide (budget, rules, top, all_frames). */
void vt_report_opts_apply(const vt_report_opts_t *o, vt_report_t *rep);
#endif

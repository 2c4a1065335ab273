/* SPDX-License-Identifier: MIT */
/* Call-sites whose live device memory grows from step to step: a leak in a training loop, told
 * apart from memory that is large but steady (weights, optimizer state). Steps are, first that
 * applies: the ranges (NVTX, PHASE_PUSH) whose names hold the most frequent of "step", "iter",
 * "epoch" (at least two of them); the marks with such a name, or every mark (vramtrace_mark)
 * when none has one (at least two); else the period of the device allocations' own repetition
 * (period.h: the same call-sites and sizes in the same order, step after step; at least two
 * periods, over at least half the trace), each step starting where the repetition does; else
 * VT_GROWTH_WINDOWS equal windows of the trace's time.
 * Each site's live bytes are sampled at every step's start and at the end of the trace; a site
 * grows when it has more live at the end than at the first step and more at two step ends at
 * least than at the one before. Memory is bounded by the number of distinct call-sites. */
#ifndef VT_GROWTH_H
#define VT_GROWTH_H
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "trace_reader.h"

#define VT_GROWTH_WINDOWS 10

/* The period is looked for in the trace's first this many runs of device allocations. */
#define VT_GROWTH_PERIOD_SAMPLE 32768

enum { VT_STEPS_RANGES, VT_STEPS_MARKS, VT_STEPS_PERIOD, VT_STEPS_TIME };

typedef struct vt_growth_site_s {
    uint32_t device, stack_id;
    uint8_t category, used;
    uint64_t live_bytes;   /* now: at the end once vt_growth_finish ran */
    uint64_t n_live;       /* allocations live now */
    uint64_t first_bytes;  /* at the first step's start */
    uint64_t sample_bytes; /* at the last step boundary */
    uint32_t n_grew;       /* boundaries (and the end) with more live than the one before */
} vt_growth_site_t;

typedef struct vt_growth_s {
    int source;         /* VT_STEPS_* */
    char keyword[8];    /* "step", "iter", "epoch"; "" for every mark or time windows */
    uint64_t n_samples; /* step boundaries seen (and the end, after vt_growth_finish) */
    uint64_t window_ns, next_window_ns; /* VT_STEPS_TIME */
    /* VT_STEPS_PERIOD, counted in runs of device allocations of one token (growth.c): a step
     * starts with run next_step_run, every period_runs runs, n_period_steps times (the last
     * ends at or before the trace's last run); period_allocs: the allocations of the first. */
    uint64_t period_runs, period_allocs, next_step_run, n_period_steps;
    uint64_t n_allocs_seen, n_runs_seen;
    uint32_t last_token;
    vt_growth_site_t *sites; /* open addressing on (device, stack, category) */
    size_t n_sites, cap_sites;
} vt_growth_t;

/* vt_growth_init: reads the trace at path once to choose its steps. Returns 0, or -1 when it
 * cannot be read (the caller's own pass says why). */
int vt_growth_init(vt_growth_t *g, const char *path);

/* vt_growth_apply: one record of the streaming pass (vt_trace_stream's callback: a after ev,
 * old the entry ev removed). Returns 0, or -1 when out of memory. */
int vt_growth_apply(vt_growth_t *g, const vt_reader_t *r, const vt_analysis_t *a,
                    const vt_event_t *ev, const vt_live_t *old);

/* vt_growth_finish: the last sample, at the end of the trace. */
void vt_growth_finish(vt_growth_t *g);

/* The steps in the trace: intervals between samples. */
uint64_t vt_growth_steps(const vt_growth_t *g);

/* vt_growth_ranked: the growing sites, most grown first, into a malloc'd array (*n_out; NULL
 * when none). Returns 0, or -1 when out of memory. */
int vt_growth_ranked(const vt_growth_t *g, vt_growth_site_t **out, size_t *n_out);

/* What a site grew by: live at the end less live at the first step (0 when not more). */
static inline uint64_t vt_growth_bytes(const vt_growth_site_t *s)
{
    return s->live_bytes > s->first_bytes ? s->live_bytes - s->first_bytes : 0;
}

void vt_growth_release(vt_growth_t *g);
#endif

/* SPDX-License-Identifier: MIT */
/* Call-sites that grow from step to step (growth.h). */
#include "growth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "period.h"
#include "sat.h"

static const char *const keywords[] = {"step", "iter", "epoch"};
#define N_KEYWORDS (sizeof(keywords) / sizeof(keywords[0]))

/* The keyword of name (keywords[] index), or -1; case does not matter. */
static int keyword_of(const char *name, uint32_t len)
{
    for (size_t k = 0; k < N_KEYWORDS; k++) {
        size_t n = strlen(keywords[k]);
        for (uint32_t i = 0; i + n <= len; i++)
            if (strncasecmp(name + i, keywords[k], n) == 0)
                return (int)k;
    }
    return -1;
}

/* An allocation counted by the period: device memory, as the sites are. */
static bool is_device_alloc(const vt_event_t *ev)
{
    return ev->type == VT_REC_ALLOC && ev->u.alloc.series == VT_TRACE_SERIES_DEVICE;
}

static uint32_t token_of(const vt_event_t *ev)
{
    return vt_period_token(ev->u.alloc.stack_id, ev->u.alloc.size_bytes);
}

/* The device allocations as the period sees them: runs of equal tokens, so that a loop's
 * allocations of one call-site and size in a row (a layer after layer) count once and the
 * period is the step's, not the layer's. The first VT_GROWTH_PERIOD_SAMPLE runs are kept. */
typedef struct run_sample_s {
    uint32_t *tokens;      /* each run's token */
    uint64_t *times_ns;    /* when each run started */
    uint64_t *first_alloc; /* the number of the device allocation that started each run */
    uint64_t n_runs, n_allocs, last_alloc_ns;
    uint32_t last_token;
} run_sample_t;

static void sample_alloc(run_sample_t *s, const vt_event_t *ev)
{
    uint32_t token = token_of(ev);
    if (!s->n_allocs || token != s->last_token) {
        if (s->tokens && s->n_runs < VT_GROWTH_PERIOD_SAMPLE) {
            s->tokens[s->n_runs] = token;
            s->times_ns[s->n_runs] = ev->t_ns;
            s->first_alloc[s->n_runs] = s->n_allocs;
        }
        s->n_runs++;
        s->last_token = token;
    }
    s->last_alloc_ns = ev->t_ns;
    s->n_allocs++;
}

/* Steps from the period of the runs in s, in a trace of span_ns: true when there is one. The
 * repetition must last at least half the trace: a loop that loads a model's layers one by one
 * repeats too, briefly, but its steps are not the program's, and every layer would grow. */
static bool choose_period(vt_growth_t *g, const run_sample_t *s, uint64_t span_ns)
{
    size_t n = s->n_runs < VT_GROWTH_PERIOD_SAMPLE ? (size_t)s->n_runs : VT_GROWTH_PERIOD_SAMPLE;
    size_t start = 0, period = s->tokens ? vt_period_find(s->tokens, n, &start) : 0;
    if (!period || s->last_alloc_ns < s->times_ns[start] ||
        s->last_alloc_ns - s->times_ns[start] < span_ns / 2)
        return false;
    g->source = VT_STEPS_PERIOD;
    g->period_runs = period;
    g->period_allocs =
        (start + period < n ? s->first_alloc[start + period] : s->n_allocs) - s->first_alloc[start];
    g->next_step_run = start;
    g->n_period_steps = (s->n_runs - start) / period;
    return true;
}

int vt_growth_init(vt_growth_t *g, const char *path)
{
    memset(g, 0, sizeof(*g));
    vt_reader_t r;
    vt_event_t ev;
    uint64_t ranges[N_KEYWORDS] = {0}, marks[N_KEYWORDS] = {0}, n_marks = 0, first_ns = 0;
    bool seen = false;
    /* Without room for the sample, no period: the time windows still apply. */
    run_sample_t runs = {0};
    uint64_t *room = malloc(VT_GROWTH_PERIOD_SAMPLE * (2 * sizeof(uint64_t) + sizeof(uint32_t)));
    if (room) {
        runs.times_ns = room;
        runs.first_alloc = room + VT_GROWTH_PERIOD_SAMPLE;
        runs.tokens = (uint32_t *)(room + 2 * VT_GROWTH_PERIOD_SAMPLE);
    }
    if (vt_reader_open(&r, path) != 0) {
        vt_reader_release(&r);
        free(room);
        return -1;
    }
    while (vt_reader_next(&r, &ev) > 0) {
        if (vt_stream_is_event(&ev) && !seen) {
            first_ns = ev.t_ns;
            seen = true;
        }
        if (is_device_alloc(&ev))
            sample_alloc(&runs, &ev);
        if (ev.type != VT_REC_PHASE_PUSH && ev.type != VT_REC_MARK)
            continue;
        uint32_t len = 0;
        const char *name = vt_reader_string(&r, ev.u.phase.string_id, &len);
        int k = name ? keyword_of(name, len) : -1;
        if (ev.type == VT_REC_MARK)
            n_marks++;
        if (k >= 0)
            (ev.type == VT_REC_MARK ? marks : ranges)[k]++;
    }
    uint64_t span = r.t_ns > first_ns ? r.t_ns - first_ns : 0;
    size_t best_range = 0, best_mark = 0;
    for (size_t k = 1; k < N_KEYWORDS; k++) {
        if (ranges[k] > ranges[best_range])
            best_range = k;
        if (marks[k] > marks[best_mark])
            best_mark = k;
    }
    if (ranges[best_range] >= 2) {
        g->source = VT_STEPS_RANGES;
        snprintf(g->keyword, sizeof(g->keyword), "%s", keywords[best_range]);
    } else if (marks[best_mark] >= 2 || n_marks >= 2) {
        g->source = VT_STEPS_MARKS;
        if (marks[best_mark] >= 2)
            snprintf(g->keyword, sizeof(g->keyword), "%s", keywords[best_mark]);
    } else if (!choose_period(g, &runs, span)) {
        g->source = VT_STEPS_TIME;
        g->window_ns = span / VT_GROWTH_WINDOWS ? span / VT_GROWTH_WINDOWS : 1;
        g->next_window_ns = first_ns;
    }
    vt_reader_release(&r);
    free(room);
    return 0;
}

static size_t site_hash(uint32_t device, uint32_t stack_id, uint8_t category)
{
    uint64_t h = ((uint64_t)device << 40) ^ ((uint64_t)stack_id << 8) ^ category;
    h *= 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 17);
}

static vt_growth_site_t *site_probe(vt_growth_site_t *sites, size_t cap, uint32_t device,
                                    uint32_t stack_id, uint8_t category)
{
    for (size_t i = site_hash(device, stack_id, category) & (cap - 1);; i = (i + 1) & (cap - 1)) {
        vt_growth_site_t *s = &sites[i];
        if (!s->used || (s->device == device && s->stack_id == stack_id && s->category == category))
            return s;
    }
}

/* The site of (device, stack_id, category), added when new; NULL when out of memory. */
static vt_growth_site_t *site_of(vt_growth_t *g, uint32_t device, uint32_t stack_id,
                                 uint8_t category)
{
    if ((g->n_sites + 1) * 2 > g->cap_sites) {
        size_t cap = g->cap_sites ? g->cap_sites * 2 : 256;
        vt_growth_site_t *grown = calloc(cap, sizeof(*grown));
        if (!grown)
            return NULL;
        for (size_t i = 0; i < g->cap_sites; i++)
            if (g->sites[i].used)
                *site_probe(grown, cap, g->sites[i].device, g->sites[i].stack_id,
                            g->sites[i].category) = g->sites[i];
        free(g->sites);
        g->sites = grown;
        g->cap_sites = cap;
    }
    vt_growth_site_t *s = site_probe(g->sites, g->cap_sites, device, stack_id, category);
    if (!s->used) {
        memset(s, 0, sizeof(*s));
        s->device = device;
        s->stack_id = stack_id;
        s->category = category;
        s->used = 1;
        g->n_sites++;
    }
    return s;
}

/* A step boundary: every site's live bytes sampled. */
static void sample(vt_growth_t *g)
{
    for (size_t i = 0; i < g->cap_sites; i++) {
        vt_growth_site_t *s = &g->sites[i];
        if (!s->used)
            continue;
        if (g->n_samples == 0)
            s->first_bytes = s->live_bytes;
        else if (s->live_bytes > s->sample_bytes)
            s->n_grew++;
        s->sample_bytes = s->live_bytes;
    }
    g->n_samples++;
}

/* Whether ev starts a step. */
static bool is_boundary(vt_growth_t *g, const vt_reader_t *r, const vt_event_t *ev)
{
    if (g->source == VT_STEPS_TIME) {
        if (!vt_stream_is_event(ev) || ev->t_ns < g->next_window_ns)
            return false;
        /* The next window past the event, counted rather than stepped to (a hostile trace's
         * clock may stand near 2^64: stepping wrapped and never ended). */
        uint64_t windows = (ev->t_ns - g->next_window_ns) / (g->window_ns ? g->window_ns : 1) + 1;
        g->next_window_ns = vt_sat_add(g->next_window_ns, vt_sat_mul(windows, g->window_ns));
        return true;
    }
    if (g->source == VT_STEPS_PERIOD) {
        /* Runs counted as the first pass counted them: a step starts with a run. */
        if (!is_device_alloc(ev))
            return false;
        uint32_t token = token_of(ev);
        bool new_run = !g->n_allocs_seen++ || token != g->last_token;
        g->last_token = token;
        if (!new_run || g->n_runs_seen++ != g->next_step_run || !g->n_period_steps)
            return false;
        g->next_step_run += g->period_runs;
        g->n_period_steps--;
        return true;
    }
    if (ev->type != (g->source == VT_STEPS_RANGES ? VT_REC_PHASE_PUSH : VT_REC_MARK))
        return false;
    if (!g->keyword[0])
        return true;
    uint32_t len = 0;
    const char *name = vt_reader_string(r, ev->u.phase.string_id, &len);
    int k = name ? keyword_of(name, len) : -1;
    return k >= 0 && strcmp(keywords[k], g->keyword) == 0;
}

int vt_growth_apply(vt_growth_t *g, const vt_reader_t *r, const vt_analysis_t *a,
                    const vt_event_t *ev, const vt_live_t *old)
{
    /* A window starts before its first event is counted: sample, then apply. The event was
     * applied to a already, so the site's own bytes are moved after the sample. */
    if (is_boundary(g, r, ev))
        sample(g);
    if (old && old->series == VT_TRACE_SERIES_DEVICE) {
        vt_growth_site_t *s = site_of(g, old->device, old->stack_id, old->category);
        if (!s)
            return -1;
        s->live_bytes -= old->size_bytes;
        s->n_live--;
    }
    if (is_device_alloc(ev)) {
        const vt_live_t *e =
            vt_analysis_find(a, ev->u.alloc.series, ev->u.alloc.handle, ev->u.alloc.address);
        if (e) {
            vt_growth_site_t *s = site_of(g, e->device, e->stack_id, e->category);
            if (!s)
                return -1;
            s->live_bytes += e->size_bytes;
            s->n_live++;
        }
    }
    return 0;
}

void vt_growth_finish(vt_growth_t *g)
{
    sample(g);
}

uint64_t vt_growth_steps(const vt_growth_t *g)
{
    return g->n_samples > 1 ? g->n_samples - 1 : 0;
}

static int by_growth(const void *x, const void *y)
{
    const vt_growth_site_t *a = x, *b = y;
    uint64_t ga = vt_growth_bytes(a), gb = vt_growth_bytes(b);
    if (ga != gb)
        return ga > gb ? -1 : 1;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    if (a->stack_id != b->stack_id)
        return a->stack_id < b->stack_id ? -1 : 1;
    return (int)a->category - (int)b->category;
}

int vt_growth_ranked(const vt_growth_t *g, vt_growth_site_t **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    size_t n = 0;
    for (size_t i = 0; i < g->cap_sites; i++)
        n += g->sites[i].used && g->sites[i].n_grew >= 2 && vt_growth_bytes(&g->sites[i]);
    if (!n)
        return 0;
    vt_growth_site_t *all = malloc(n * sizeof(*all));
    if (!all)
        return -1;
    n = 0;
    for (size_t i = 0; i < g->cap_sites; i++)
        if (g->sites[i].used && g->sites[i].n_grew >= 2 && vt_growth_bytes(&g->sites[i]))
            all[n++] = g->sites[i];
    qsort(all, n, sizeof(*all), by_growth);
    *out = all;
    *n_out = n;
    return 0;
}

void vt_growth_release(vt_growth_t *g)
{
    free(g->sites);
    memset(g, 0, sizeof(*g));
}

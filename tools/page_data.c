/* SPDX-License-Identifier: MIT */
/* The data of the interactive page (page_data.h). */
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "frames.h"
#include "json.h"
#include "load.h"
#include "page_data.h"
#include "util.h"

#define ROW         VT_PAGE_DEV_ROW
#define SITE_FRAMES 64 /* frames of a call-site listed, folded or all */
#define FRAME_CAP   512

static uint64_t hash_site(uint32_t device, uint32_t stack_id, uint8_t category)
{
    uint64_t h = ((uint64_t)device << 40) ^ ((uint64_t)category << 32) ^ stack_id;
    h *= 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

static int reindex(vt_page_data_t *p, size_t cap)
{
    uint32_t *index = calloc(cap, sizeof(*index));
    if (!index)
        return -1;
    for (size_t i = 0; i < p->n_sites; i++) {
        const vt_page_site_t *s = &p->sites[i];
        size_t k = hash_site(s->device, s->stack_id, s->category) & (cap - 1);
        while (index[k])
            k = (k + 1) & (cap - 1);
        index[k] = (uint32_t)i + 1;
    }
    free(p->index);
    p->index = index;
    p->cap_index = cap;
    return 0;
}

/* The site of (device, stack_id, category); a new one when create, NULL when absent or out of
 * memory (p->oom). */
static vt_page_site_t *site_of(vt_page_data_t *p, uint32_t device, uint32_t stack_id,
                               uint8_t category, bool create)
{
    if (p->cap_index) {
        size_t k = hash_site(device, stack_id, category) & (p->cap_index - 1);
        for (; p->index[k]; k = (k + 1) & (p->cap_index - 1)) {
            vt_page_site_t *s = &p->sites[p->index[k] - 1];
            if (s->device == device && s->stack_id == stack_id && s->category == category)
                return s;
        }
    }
    if (!create)
        return NULL;
    if (2 * (p->n_sites + 1) > p->cap_index &&
        reindex(p, p->cap_index ? 2 * p->cap_index : 256) != 0) {
        p->oom = 1;
        return NULL;
    }
    if (p->n_sites == p->cap_sites) {
        size_t cap = p->cap_sites ? 2 * p->cap_sites : 64;
        vt_page_site_t *s = realloc(p->sites, cap * sizeof(*s));
        if (!s) {
            p->oom = 1;
            return NULL;
        }
        p->sites = s;
        p->cap_sites = cap;
    }
    vt_page_site_t *s = &p->sites[p->n_sites];
    memset(s, 0, sizeof(*s));
    s->device = device;
    s->stack_id = stack_id;
    s->category = category;
    s->last_col = -1;
    size_t k = hash_site(device, stack_id, category) & (p->cap_index - 1);
    while (p->index[k])
        k = (k + 1) & (p->cap_index - 1);
    p->index[k] = (uint32_t)++p->n_sites;
    return s;
}

static long column(const vt_page_data_t *p, uint64_t t_ns)
{
    uint64_t rel = t_ns > p->t0_ns ? t_ns - p->t0_ns : 0;
    /* In 128 bits: a span of 2^64 - 1 ns (a hostile trace's clock) must not wrap to 0. */
    uint64_t c =
        (uint64_t)((unsigned __int128)rel * VT_PAGE_COLS / ((unsigned __int128)p->span_ns + 1));
    return c >= VT_PAGE_COLS ? VT_PAGE_COLS - 1 : (long)c;
}

/* A followed site's live bytes change to live at column col: the columns since its last change
 * carry what was live, and col keeps its highest. */
static void site_set(vt_page_data_t *p, vt_page_site_t *s, uint64_t live, long col)
{
    if (s->cols) {
        for (long c = s->last_col + 1; c <= col; c++)
            s->cols[c] = s->live_bytes;
        if (col > s->last_col)
            s->last_col = col;
        if (live > s->cols[col])
            s->cols[col] = live;
    }
    s->live_bytes = live;
    if (live > s->max_bytes)
        s->max_bytes = live;
    (void)p;
}

static void sites_record(vt_page_data_t *p, const vt_analysis_t *a, const vt_event_t *ev,
                         const vt_live_t *old)
{
    long col = p->following ? column(p, ev->t_ns) : 0;
    if (old && old->series == VT_TRACE_SERIES_DEVICE && old->size_bytes) {
        vt_page_site_t *s = site_of(p, old->device, old->stack_id, old->category, false);
        if (s)
            site_set(p, s, s->live_bytes > old->size_bytes ? s->live_bytes - old->size_bytes : 0,
                     col);
    }
    if (ev->type == VT_REC_ALLOC && ev->u.alloc.series == VT_TRACE_SERIES_DEVICE &&
        ev->u.alloc.size_bytes) {
        const vt_live_t *e =
            vt_analysis_find(a, ev->u.alloc.series, ev->u.alloc.handle, ev->u.alloc.address);
        vt_page_site_t *s =
            e ? site_of(p, e->device, e->stack_id, e->category, !p->following) : NULL;
        if (s) {
            s->n_allocs++;
            site_set(p, s, s->live_bytes + e->size_bytes, col);
        }
    }
}

int vt_page_sites_on_record(void *ctx, const vt_reader_t *r, const vt_analysis_t *a,
                            const vt_event_t *ev, const vt_live_t *old, const uint32_t *changed,
                            int n_changed)
{
    (void)r, (void)changed, (void)n_changed;
    vt_page_data_t *p = ctx;
    if (!p->oom)
        sites_record(p, a, ev, old);
    return 0;
}

static int by_max_desc(const void *x, const void *y)
{
    const vt_page_site_t *a = x, *b = y;
    if (a->max_bytes != b->max_bytes)
        return a->max_bytes < b->max_bytes ? 1 : -1;
    return a->stack_id < b->stack_id ? -1 : a->stack_id > b->stack_id;
}

int vt_page_choose(vt_page_data_t *p, uint32_t must_device, const vt_site_t *must, size_t n_must)
{
    if (p->n_sites)
        qsort(p->sites, p->n_sites, sizeof(*p->sites), by_max_desc);
    size_t n = 0;
    for (size_t i = 0; i < p->n_sites; i++) {
        vt_page_site_t *s = &p->sites[i];
        bool keep = i < VT_PAGE_SITES;
        for (size_t k = 0; k < n_must && !keep; k++)
            keep = must[k].stack_id == s->stack_id && must[k].category == s->category &&
                   s->device == must_device;
        if (keep)
            p->sites[n++] = *s;
    }
    p->n_sites = n;
    for (size_t i = 0; i < n; i++) {
        p->sites[i].live_bytes = p->sites[i].max_bytes = p->sites[i].n_allocs = 0;
        p->sites[i].last_col = -1;
        p->sites[i].cols = calloc(VT_PAGE_COLS, sizeof(uint64_t));
        if (!p->sites[i].cols)
            return -1;
    }
    p->following = true;
    size_t cap = 256;
    while (cap < 2 * n + 2)
        cap *= 2;
    return reindex(p, cap);
}

long vt_page_site_number(const vt_page_data_t *p, uint32_t device, uint32_t stack_id,
                         uint8_t category)
{
    vt_page_site_t *s = site_of((vt_page_data_t *)p, device, stack_id, category, false);
    return s && s->cols ? (long)(s - p->sites) : -1;
}

static vt_page_dev_t *dev_of(vt_page_data_t *p, uint32_t device)
{
    for (size_t i = 0; i < p->n_devs; i++)
        if (p->devs[i].device == device)
            return &p->devs[i];
    vt_page_dev_t *d = realloc(p->devs, (p->n_devs + 1) * sizeof(*d));
    if (!d)
        return NULL;
    p->devs = d;
    d = &p->devs[p->n_devs];
    memset(d, 0, sizeof(*d));
    d->device = device;
    d->last_col = -1;
    d->cols = calloc((size_t)VT_PAGE_COLS * ROW, sizeof(uint64_t));
    if (!d->cols)
        return NULL;
    p->n_devs++;
    return d;
}

/* Device d now holds what now says, at column col (what came before is carried). */
static void dev_set(vt_page_dev_t *d, const uint64_t now[ROW], long col)
{
    for (long c = d->last_col + 1; c <= col; c++)
        memcpy(&d->cols[c * ROW], d->now, sizeof(d->now));
    if (col > d->last_col)
        d->last_col = col;
    memcpy(d->now, now, sizeof(d->now));
    if (now[0] > d->cols[col * ROW])
        memcpy(&d->cols[col * ROW], now, sizeof(d->now));
}

/* What s holds: its figure (the one its peak is of), its categories, its pools' spare. */
static void dev_now(const vt_device_stats_t *s, uint64_t now[ROW])
{
    now[0] = vt_device_held_bytes(s);
    memcpy(&now[1], s->live_by_category, sizeof(s->live_by_category));
    now[1 + VT_CAT_COUNT] = vt_device_pool_spare_bytes(s);
}

static vt_page_band_t *append(vt_page_band_t **items, size_t *n, uint64_t *dropped)
{
    if (*n >= VT_PAGE_MARKS) {
        (*dropped)++;
        return NULL;
    }
    if (!*items && !(*items = malloc(VT_PAGE_MARKS * sizeof(**items))))
        return NULL;
    return &(*items)[(*n)++];
}

static void phases_record(vt_page_data_t *p, const vt_event_t *ev)
{
    uint64_t t = ev->t_ns > p->t0_ns ? ev->t_ns - p->t0_ns : 0;
    if (ev->type == VT_REC_MARK) {
        vt_page_band_t *m = append(&p->marks, &p->n_marks, &p->marks_dropped);
        if (m)
            *m = (vt_page_band_t){t, t, ev->u.phase.string_id};
        return;
    }
    size_t i = 0;
    while (i < p->n_open && p->open[i].thread != ev->u.phase.thread)
        i++;
    if (i == p->n_open) {
        if (ev->type == VT_REC_PHASE_POP)
            return; /* tracing started inside the range */
        if (p->n_open == p->cap_open) {
            size_t cap = p->cap_open ? 2 * p->cap_open : 16;
            vt_page_open_t *o = realloc(p->open, cap * sizeof(*o));
            if (!o) {
                p->oom = 1;
                return;
            }
            p->open = o;
            p->cap_open = cap;
        }
        p->open[p->n_open++] = (vt_page_open_t){ev->u.phase.thread, 0, 0, 0};
    }
    vt_page_open_t *o = &p->open[i];
    if (ev->type == VT_REC_PHASE_PUSH) {
        if (o->depth++ == 0) {
            o->t0_ns = t;
            o->string_id = ev->u.phase.string_id;
        }
    } else if (o->depth && --o->depth == 0) {
        vt_page_band_t *b = append(&p->bands, &p->n_bands, &p->bands_dropped);
        if (b)
            *b = (vt_page_band_t){o->t0_ns, t, o->string_id};
    }
}

static int collect_record(void *ctx, const vt_reader_t *r, const vt_analysis_t *a,
                          const vt_event_t *ev, const vt_live_t *old, const uint32_t *changed,
                          int n_changed)
{
    vt_page_data_t *p = ctx;
    if (p->oom)
        return 0;
    p->t0_ns = r->t0_ns; /* the PROCESS record comes before every event */
    if (ev->type == VT_REC_PHASE_PUSH || ev->type == VT_REC_PHASE_POP || ev->type == VT_REC_MARK)
        phases_record(p, ev);
    sites_record(p, a, ev, old);
    /* A pool's reservation is the device's too. */
    uint32_t pool_device = ev->type == VT_REC_POOL ? ev->u.pool.device : 0;
    for (int k = 0; k < n_changed + (ev->type == VT_REC_POOL); k++) {
        uint32_t device = k < n_changed ? changed[k] : pool_device;
        const vt_device_stats_t *s = vt_stream_device(a, device);
        vt_page_dev_t *d = s ? dev_of(p, device) : NULL;
        uint64_t now[ROW];
        if (s && !d) {
            p->oom = 1;
        } else if (d) {
            dev_now(s, now);
            dev_set(d, now, column(p, ev->t_ns));
        }
    }
    return 0;
}

int vt_page_collect(vt_page_data_t *p, const char *path, uint64_t span_ns, vt_recategorize_fn recat,
                    void *recat_ctx)
{
    vt_reader_t r;
    vt_analysis_t a;
    p->span_ns = span_ns;
    int rc = vt_trace_stream_as(path, &r, &a, recat, recat_ctx, true, collect_record, p);
    if (rc >= 0) {
        vt_analysis_release(&a);
        vt_reader_release(&r);
    }
    /* What was live at the end is carried to the last column; open phases end there. */
    for (size_t i = 0; i < p->n_sites; i++)
        if (p->sites[i].cols)
            site_set(p, &p->sites[i], p->sites[i].live_bytes, VT_PAGE_COLS - 1);
    for (size_t i = 0; i < p->n_devs; i++) {
        uint64_t now[ROW];
        memcpy(now, p->devs[i].now, sizeof(now));
        dev_set(&p->devs[i], now, VT_PAGE_COLS - 1);
    }
    for (size_t i = 0; i < p->n_open; i++)
        if (p->open[i].depth) {
            vt_page_band_t *b = append(&p->bands, &p->n_bands, &p->bands_dropped);
            if (b)
                *b = (vt_page_band_t){p->open[i].t0_ns, span_ns, p->open[i].string_id};
        }
    return rc;
}

/* ---- JSON ---------------------------------------------------------------------------------- */

/* A column series, run-length coded: a value, then -N when it repeats N more times. */
static void series(vt_json_t *j, const char *key, const uint64_t *v, size_t n, size_t stride)
{
    vt_json_begin_array(j, key);
    for (size_t i = 0; i < n;) {
        size_t k = i + 1;
        while (k < n && v[k * stride] == v[i * stride])
            k++;
        vt_json_uint(j, NULL, v[i * stride]);
        if (k - i > 2)
            vt_json_int(j, NULL, -(int64_t)(k - i - 1));
        else if (k - i == 2)
            vt_json_uint(j, NULL, v[i * stride]);
        i = k;
    }
    vt_json_end_array(j);
}

typedef struct frame_table_s {
    char **text;
    size_t n, cap;
    int oom;
} frame_table_t;

typedef struct frames_ctx_s {
    frame_table_t *table;
    vt_json_t *j;
} frames_ctx_t;

static int frame_number(void *ctx, const char *frame)
{
    frames_ctx_t *f = ctx;
    frame_table_t *t = f->table;
    size_t i = 0;
    while (i < t->n && strcmp(t->text[i], frame) != 0)
        i++;
    if (i == t->n) {
        if (t->n == t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 64;
            char **p = realloc(t->text, cap * sizeof(*p));
            if (!p)
                return -1;
            t->text = p;
            t->cap = cap;
        }
        if (!(t->text[t->n] = strdup(frame)))
            return -1;
        t->n++;
    }
    vt_json_uint(f->j, NULL, i);
    return 0;
}

static void site_frames(vt_json_t *j, const char *key, frame_table_t *t, vt_symbolizer_t *sym,
                        const vt_reader_t *r, uint32_t stack_id, bool all)
{
    vt_frames_opts_t o = {.sym = sym, .max_frames = SITE_FRAMES, .shown = true};
    bool saved = sym ? sym->all_frames : false;
    if (sym)
        sym->all_frames = all;
    frames_ctx_t f = {t, j};
    vt_json_begin_array(j, key);
    if (stack_id && vt_frames_walk(&o, r, stack_id, frame_number, &f) < 0)
        t->oom = 1;
    vt_json_end_array(j);
    if (sym)
        sym->all_frames = saved;
}

static void strings(vt_json_t *j, const char *key, const vt_page_band_t *b, size_t n,
                    const vt_reader_t *r, bool with_end)
{
    char name[256];
    vt_json_begin_array(j, key);
    for (size_t i = 0; i < n; i++) {
        vt_json_begin_array(j, NULL);
        vt_json_uint(j, NULL, b[i].t0_ns);
        if (with_end)
            vt_json_uint(j, NULL, b[i].t1_ns);
        vt_json_string(j, NULL, vt_reader_cstring(r, b[i].string_id, name, sizeof(name)));
        vt_json_end_array(j);
    }
    vt_json_end_array(j);
}

void vt_page_json(FILE *out, const vt_page_data_t *p, const vt_report_t *rep, bool all_frames)
{
    const vt_reader_t *r = &rep->r;
    const vt_analysis_t *a = &rep->a;
    vt_symbolizer_t *sym = rep->sym;
    char name[256];
    vt_json_t j;
    vt_json_init(&j, out);
    j.compact = 1;
    j.in_html = 1;
    fputs("<script type=\"application/json\" id=\"vt-data\">", out);
    vt_json_begin_object(&j, NULL);
    vt_json_uint(&j, "span_ns", p->span_ns);
    vt_json_uint(&j, "n_cols", VT_PAGE_COLS);
    /* With stream-ordered pools their spare reservation is one more band, on top: the stacked
     * bands then make the device's figure, the one its peak is of. */
    bool pools = false;
    for (uint32_t i = 0; i < a->n_devices; i++)
        pools = pools || a->devices[i].pool_reserved_peak_bytes;
    int n_bands = pools ? VT_CAT_COUNT + 1 : VT_CAT_COUNT;
    vt_json_begin_array(&j, "categories");
    for (int c = 0; c < n_bands; c++)
        vt_json_string(&j, NULL, c < VT_CAT_COUNT ? vt_category_names[c] : "pool spare");
    vt_json_end_array(&j);
    vt_json_begin_array(&j, "colors");
    for (int c = 0; c < n_bands; c++)
        vt_json_string(&j, NULL, c < VT_CAT_COUNT ? vt_category_colors[c] : VT_POOL_SPARE_COLOR);
    vt_json_end_array(&j);
    vt_json_bool(&j, "all_frames", all_frames);
    const vt_device_stats_t *peak = vt_analysis_peak(a);
    vt_json_uint(&j, "peak_device", peak ? peak->device : 0);
    vt_json_string(&j, "peak_phase", rep->peak_phase.kind ? rep->peak_phase.name : "");
    vt_json_begin_array(&j, "devices");
    for (uint32_t i = 0; i < a->n_devices; i++) {
        const vt_device_stats_t *d = &a->devices[i];
        const vt_page_dev_t *pd = NULL;
        for (size_t k = 0; k < p->n_devs; k++)
            if (p->devs[k].device == d->device)
                pd = &p->devs[k];
        if (!pd)
            continue;
        const vt_trace_device_t *info = vt_reader_device(r, d->device);
        vt_json_begin_object(&j, NULL);
        vt_json_uint(&j, "device", d->device);
        name[0] = '\0';
        if (info)
            vt_reader_cstring(r, info->name_string_id, name, sizeof(name));
        vt_json_string(&j, "name", name);
        vt_json_uint(&j, "capacity_bytes", info ? info->total_bytes : 0);
        vt_json_uint(&j, "peak_bytes", d->peak_bytes);
        vt_json_uint(&j, "peak_ns", d->peak_t_ns > r->t0_ns ? d->peak_t_ns - r->t0_ns : 0);
        vt_json_begin_array(&j, "by_category");
        for (int c = 0; c < n_bands; c++)
            series(&j, NULL, pd->cols + 1 + c, VT_PAGE_COLS, ROW);
        vt_json_end_array(&j);
        vt_json_end_object(&j);
    }
    vt_json_end_array(&j);
    frame_table_t table = {0};
    vt_json_begin_array(&j, "sites");
    for (size_t i = 0; i < p->n_sites; i++) {
        const vt_page_site_t *s = &p->sites[i];
        vt_json_begin_object(&j, NULL);
        vt_json_uint(&j, "device", s->device);
        vt_json_uint(&j, "category", s->category);
        vt_json_uint(&j, "max_bytes", s->max_bytes);
        vt_json_uint(&j, "allocs", s->n_allocs);
        site_frames(&j, "folded", &table, sym, r, s->stack_id, false);
        site_frames(&j, "all", &table, sym, r, s->stack_id, true);
        series(&j, "cols", s->cols, VT_PAGE_COLS, 1);
        vt_json_end_object(&j);
    }
    vt_json_end_array(&j);
    vt_json_begin_array(&j, "frames");
    for (size_t i = 0; i < table.n; i++)
        vt_json_string(&j, NULL, table.text[i]);
    vt_json_end_array(&j);
    strings(&j, "bands", p->bands, p->n_bands, r, true);
    vt_json_uint(&j, "bands_dropped", p->bands_dropped);
    strings(&j, "marks", p->marks, p->n_marks, r, false);
    vt_json_uint(&j, "marks_dropped", p->marks_dropped);
    vt_json_begin_array(&j, "ooms");
    for (uint32_t i = 0; i < a->n_ooms; i++) {
        const vt_oom_t *o = &a->ooms[i];
        vt_json_begin_object(&j, NULL);
        vt_json_uint(&j, "time_ns", o->t_ns > r->t0_ns ? o->t_ns - r->t0_ns : 0);
        vt_json_uint(&j, "device", o->device);
        vt_json_uint(&j, "requested_bytes", o->requested_bytes);
        vt_json_end_object(&j);
    }
    vt_json_end_array(&j);
    vt_json_end_object(&j);
    fputs("</script>\n", out);
    for (size_t i = 0; i < table.n; i++)
        free(table.text[i]);
    free(table.text);
}

void vt_page_release(vt_page_data_t *p)
{
    for (size_t i = 0; i < p->n_sites; i++)
        free(p->sites[i].cols);
    free(p->sites);
    free(p->index);
    for (size_t i = 0; i < p->n_devs; i++)
        free(p->devs[i].cols);
    free(p->devs);
    free(p->bands);
    free(p->marks);
    free(p->open);
    memset(p, 0, sizeof(*p));
}

/* SPDX-License-Identifier: MIT */
/* `vramtrace diff A B [--json] [--top N]`: what changed between two runs: the device peak, its
 * categories, the call-sites live at the peak and the event totals. Call-sites are matched by
 * the text of their symbolized frames, never by raw addresses, which differ between runs (ASLR,
 * another build). Exit statuses: 0 ok, 1 unreadable or damaged trace (a trace damaged part-way
 * is compared by what came before the damage), 2 usage. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sat.h"
#include "commands.h"
#include "frames.h"
#include "json.h"
#include "load.h"
#include "symbolize.h"
#include "trace_reader.h"
#include "units.h"
#include "args.h"
#include "util.h"

#define DEFAULT_TOP 10
#define SHOW_FRAMES 8   /* frames printed per call-site in the text output */
#define MAX_DEPTH   256 /* frames matched per call-site: guards against a cyclic stack table */
#define FRAME_CAP   512

enum { OPT_JSON = 1, OPT_TOP, OPT_ALL_FRAMES };

static const vt_option_t options[] = {
    {OPT_JSON, 0, "--json", NULL, 0, "print JSON on stdout (exact byte counts)"},
    {OPT_TOP, 0, "--top", "N", 0, "show the N call-sites that changed most (default 10; 0: all)"},
    {OPT_ALL_FRAMES, 0, "--all-frames", NULL, 0, VT_FRAMES_ALL_HELP},
    {0},
};

static const vt_args_spec_t spec = {
    .name = "diff",
    .usage = "usage: vramtrace diff A B [--json] [--top N] [--all-frames]\n",
    .about = "What changed between two runs: the device peak of trace A and of trace B, its "
             "categories, the call-sites live at the peak (matched by their symbolized frames, "
             "since addresses differ between runs), and the totals.",
    .tables = {options},
};

/* A call-site at the peak of one trace: its frames as text, one per line, root last. */
typedef struct side_site_s {
    char *key; /* "" when no call-site was recorded */
    uint64_t bytes;
} side_site_t;

/* One trace: its analysis, its peak and the call-sites live then. */
typedef struct side_s {
    const char *path;
    vt_reader_t r;
    vt_analysis_t a;
    int damaged;     /* the reader stopped at damage: compared by what came before */
    bool all_frames; /* --all-frames: no frame left out of the call-sites' keys */
    const vt_device_stats_t *peak;
    side_site_t *sites;
    size_t n_sites;
} side_t;

/* A call-site of either trace with its bytes at both peaks. key points into a side's sites. */
typedef struct diff_site_s {
    const char *key;
    uint64_t a, b;
} diff_site_t;

typedef struct diff_cat_s {
    unsigned category;
    uint64_t a, b;
} diff_cat_t;

static uint64_t abs_delta(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

static int by_key(const void *x, const void *y)
{
    return strcmp(((const side_site_t *)x)->key, ((const side_site_t *)y)->key);
}

/* Largest change first; ties by key so the order is the same on every run. */
static int by_change(const void *x, const void *y)
{
    const diff_site_t *p = x, *q = y;
    uint64_t dp = abs_delta(p->a, p->b), dq = abs_delta(q->a, q->b);
    if (dp != dq)
        return dp > dq ? -1 : 1;
    return strcmp(p->key, q->key);
}

static int by_cat_change(const void *x, const void *y)
{
    const diff_cat_t *p = x, *q = y;
    uint64_t dp = abs_delta(p->a, p->b), dq = abs_delta(q->a, q->b);
    if (dp != dq)
        return dp > dq ? -1 : 1;
    return p->category < q->category ? -1 : p->category > q->category;
}

typedef struct stack_key_s {
    char *text;
    size_t len, cap;
} stack_key_t;

static int key_add(void *ctx, const char *frame)
{
    stack_key_t *k = ctx;
    size_t n = strlen(frame);
    if (k->len + n + 2 > k->cap) {
        while (k->len + n + 2 > k->cap)
            k->cap *= 2;
        char *grown = realloc(k->text, k->cap);
        if (!grown)
            return -1;
        k->text = grown;
    }
    if (k->len)
        k->text[k->len++] = '\n';
    memcpy(k->text + k->len, frame, n + 1);
    k->len += n;
    return 0;
}

/* The frames of stack_id as one malloc'd string, a frame a line (NULL: out of memory). */
static char *stack_key(vt_symbolizer_t *sym, const vt_reader_t *r, uint32_t stack_id)
{
    vt_frames_opts_t o = {
        .sym = sym, .max_frames = MAX_DEPTH, .frame_bytes = FRAME_CAP, .shown = true};
    stack_key_t k = {malloc(256), 0, 256};
    if (!k.text)
        return NULL;
    k.text[0] = '\0';
    if (vt_frames_walk(&o, r, stack_id, key_add, &k) < 0) {
        free(k.text);
        return NULL;
    }
    return k.text;
}

/* peak_sites: groups what was live on s's peak device at its peak (vt_trace_peak_sites) by the
 * text of its frames (two stacks can symbolize alike), sorted by that text. Returns 0, or -1
 * when out of memory. No sites when the peak came from the
 * library's PEAK record (a capped trace: no live set). */
static int peak_sites(side_t *s)
{
    vt_site_t *sites = NULL;
    size_t n = 0;
    int rc = -1;

    s->sites = NULL;
    s->n_sites = 0;
    if (vt_trace_peak_sites(s->path, &s->a, s->peak, &sites, &n) != 0)
        goto out;
    if (n) {
        vt_symbolizer_t sym, *symp = NULL;
        if (vt_symbolizer_init_trace(&sym, &s->r) == 0) {
            symp = &sym;
            sym.all_frames = s->all_frames;
        }
        s->sites = calloc(n, sizeof(*s->sites));
        for (size_t i = 0; s->sites && i < n; i++) {
            s->sites[i].bytes = sites[i].bytes;
            s->sites[i].key = stack_key(symp, &s->r, sites[i].stack_id);
            s->n_sites++;
            if (!s->sites[i].key)
                break;
        }
        if (symp)
            vt_symbolizer_release(symp);
        if (!s->sites || !s->sites[n - 1].key)
            goto out;
        qsort(s->sites, n, sizeof(*s->sites), by_key);
        size_t m = 0; /* merge the sites whose frames read the same */
        for (size_t i = 0; i < n; i++) {
            if (m && strcmp(s->sites[m - 1].key, s->sites[i].key) == 0) {
                s->sites[m - 1].bytes = vt_sat_add(s->sites[m - 1].bytes, s->sites[i].bytes);
                free(s->sites[i].key);
            } else {
                s->sites[m++] = s->sites[i];
            }
        }
        s->n_sites = m;
    }
    rc = 0;
out:
    free(sites);
    return rc;
}

/* match: the call-sites of both traces side by side, largest change first (malloc'd; NULL with
 * *n_out 0 when none). Returns 0 or -1 (out of memory). */
static int match(const side_t *a, const side_t *b, diff_site_t **out, size_t *n_out)
{
    size_t i = 0, k = 0, n = 0;
    diff_site_t *d = NULL;
    *out = NULL;
    *n_out = 0;
    if (!a->n_sites && !b->n_sites)
        return 0;
    d = malloc((a->n_sites + b->n_sites) * sizeof(*d));
    if (!d)
        return -1;
    while (i < a->n_sites || k < b->n_sites) {
        int c = i == a->n_sites   ? 1
                : k == b->n_sites ? -1
                                  : strcmp(a->sites[i].key, b->sites[k].key);
        if (c < 0) {
            d[n++] = (diff_site_t){a->sites[i].key, a->sites[i].bytes, 0};
            i++;
        } else if (c > 0) {
            d[n++] = (diff_site_t){b->sites[k].key, 0, b->sites[k].bytes};
            k++;
        } else {
            d[n++] = (diff_site_t){a->sites[i].key, a->sites[i].bytes, b->sites[k].bytes};
            i++;
            k++;
        }
    }
    qsort(d, n, sizeof(*d), by_change);
    *out = d;
    *n_out = n;
    return 0;
}

static uint64_t peak_bytes(const side_t *s)
{
    return s->peak ? s->peak->peak_bytes : 0;
}

static uint64_t cat_bytes(const side_t *s, unsigned category)
{
    return s->peak ? s->peak->peak_by_category[category] : 0;
}

/* The categories of both peaks, largest change first, into cats[VT_CAT_COUNT]. */
static void categories(const side_t *a, const side_t *b, diff_cat_t *cats)
{
    for (unsigned i = 0; i < VT_CAT_COUNT; i++)
        cats[i] = (diff_cat_t){i, cat_bytes(a, i), cat_bytes(b, i)};
    qsort(cats, VT_CAT_COUNT, sizeof(*cats), by_cat_change);
}

/* "+1.50 GiB", "-512 B", "0 B" */
static const char *fmt_change(uint64_t a, uint64_t b, char *buf, size_t cap)
{
    char v[32];
    vt_fmt_binary(abs_delta(a, b), v, sizeof(v));
    snprintf(buf, cap, "%s%s", b > a ? "+" : a > b ? "-" : "", v);
    return buf;
}

/* "+1,024", "-3", "0" */
static const char *fmt_count_change(uint64_t a, uint64_t b, char *buf, size_t cap)
{
    char v[32];
    vt_fmt_commas(abs_delta(a, b), v, sizeof(v));
    snprintf(buf, cap, "%s%s", b > a ? "+" : a > b ? "-" : "", v);
    return buf;
}

/* "+14.1%", "-50.0%", "0.0%"; "new" when A had nothing to compare with. */
static const char *fmt_percent(uint64_t a, uint64_t b, char *buf, size_t cap)
{
    if (!a) {
        snprintf(buf, cap, "%s", b ? "new" : "0.0%");
        return buf;
    }
    double pct = 100.0 * ((double)b - (double)a) / (double)a;
    snprintf(buf, cap, "%s%.1f%%", pct > 0 ? "+" : "", pct);
    return buf;
}

static void print_peak_line(const char *label, const side_t *s)
{
    char b1[32], c1[32];
    uint64_t v = peak_bytes(s);
    printf("  %s  %11s  %17s bytes", label, vt_fmt_binary(v, b1, sizeof(b1)),
           vt_fmt_commas(v, c1, sizeof(c1)));
    if (s->peak)
        printf(" on device %" PRIu32, s->peak->device);
    printf("  '%s'\n", s->path);
}

static void print_text(const side_t *a, const side_t *b, const diff_site_t *sites, size_t n_sites,
                       size_t top)
{
    char b1[48], b2[48], b3[48], b4[48];
    uint64_t pa = peak_bytes(a), pb = peak_bytes(b);

    printf("device peak:\n");
    print_peak_line("A", a);
    print_peak_line("B", b);
    printf("  change  %s (%s bytes, %s)\n", fmt_change(pa, pb, b1, sizeof(b1)),
           fmt_count_change(pa, pb, b2, sizeof(b2)), fmt_percent(pa, pb, b3, sizeof(b3)));

    diff_cat_t cats[VT_CAT_COUNT];
    categories(a, b, cats);
    printf("by category at the peak:\n");
    printf("  %-12s %11s %11s %12s\n", "category", "A", "B", "change");
    int any = 0;
    for (unsigned i = 0; i < VT_CAT_COUNT; i++) {
        if (!cats[i].a && !cats[i].b)
            continue;
        any = 1;
        printf("  %-12s %11s %11s %12s\n", vt_category_names[cats[i].category],
               vt_fmt_binary(cats[i].a, b1, sizeof(b1)), vt_fmt_binary(cats[i].b, b2, sizeof(b2)),
               fmt_change(cats[i].a, cats[i].b, b3, sizeof(b3)));
    }
    if (!any)
        printf("  (no device memory in either trace)\n");

    size_t shown = top && top < n_sites ? top : n_sites;
    printf("top %zu call-site%s of %zu at the peak, by change:\n", shown, shown == 1 ? "" : "s",
           n_sites);
    for (size_t i = 0; i < shown; i++) {
        const diff_site_t *s = &sites[i];
        const char *mark = !s->a ? "  new" : !s->b ? "  gone" : "";
        printf("  %12s  %s -> %s%s\n", fmt_change(s->a, s->b, b1, sizeof(b1)),
               vt_fmt_binary(s->a, b2, sizeof(b2)), vt_fmt_binary(s->b, b3, sizeof(b3)), mark);
        if (!*s->key) {
            printf("      (no call-site recorded)\n");
            continue;
        }
        const char *p = s->key;
        for (int depth = 0; *p; depth++) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            if (depth == SHOW_FRAMES) {
                printf("      ...\n");
                break;
            }
            printf("      %.*s\n", (int)len, p);
            p += len + (nl != NULL);
        }
    }

    const vt_analysis_t *x = &a->a, *y = &b->a;
    const struct {
        const char *name;
        uint64_t a, b;
    } totals[] = {
        {"allocs", x->n_allocs, y->n_allocs},
        {"frees", x->n_frees, y->n_frees},
        {"failed", x->n_failed, y->n_failed},
        {"OOMs", x->n_ooms, y->n_ooms},
    };
    printf("totals:\n");
    printf("  %-12s %11s %11s %12s\n", "", "A", "B", "change");
    for (size_t i = 0; i < sizeof(totals) / sizeof(totals[0]); i++)
        printf("  %-12s %11s %11s %12s\n", totals[i].name,
               vt_fmt_commas(totals[i].a, b1, sizeof(b1)),
               vt_fmt_commas(totals[i].b, b2, sizeof(b2)),
               fmt_count_change(totals[i].a, totals[i].b, b4, sizeof(b4)));
}

static void json_change(vt_json_t *j, const char *key, uint64_t a, uint64_t b)
{
    vt_json_begin_object(j, key);
    vt_json_uint(j, "a", a);
    vt_json_uint(j, "b", b);
    vt_json_change(j, "delta", a, b);
    vt_json_end_object(j);
}

static void json_side(vt_json_t *j, const char *key, const side_t *s)
{
    vt_json_begin_object(j, key);
    vt_json_string(j, "file", s->path);
    vt_json_uint(j, "peak_bytes", peak_bytes(s));
    if (s->peak)
        vt_json_uint(j, "device", s->peak->device);
    vt_json_bool(j, "complete", !s->damaged);
    vt_json_end_object(j);
}

static void print_json(const side_t *a, const side_t *b, const diff_site_t *sites, size_t n_sites,
                       size_t top)
{
    vt_json_t j;
    vt_json_init(&j, stdout);
    vt_json_begin_object(&j, NULL);
    json_side(&j, "a", a);
    json_side(&j, "b", b);
    json_change(&j, "peak", peak_bytes(a), peak_bytes(b));

    diff_cat_t cats[VT_CAT_COUNT];
    categories(a, b, cats);
    vt_json_begin_object(&j, "by_category");
    for (unsigned i = 0; i < VT_CAT_COUNT; i++)
        json_change(&j, vt_category_names[cats[i].category], cats[i].a, cats[i].b);
    vt_json_end_object(&j);

    size_t shown = top && top < n_sites ? top : n_sites;
    vt_json_begin_array(&j, "sites");
    for (size_t i = 0; i < shown; i++) {
        const diff_site_t *s = &sites[i];
        vt_json_begin_object(&j, NULL);
        vt_json_begin_array(&j, "frames");
        for (const char *p = s->key; *p;) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            char frame[FRAME_CAP];
            snprintf(frame, sizeof(frame), "%.*s", (int)len, p);
            vt_json_string(&j, NULL, frame);
            p += len + (nl != NULL);
        }
        vt_json_end_array(&j);
        vt_json_uint(&j, "a", s->a);
        vt_json_uint(&j, "b", s->b);
        vt_json_change(&j, "delta", s->a, s->b);
        vt_json_string(&j, "status", !s->a ? "new" : !s->b ? "gone" : "both");
        vt_json_end_object(&j);
    }
    vt_json_end_array(&j);
    vt_json_uint(&j, "n_sites", n_sites);

    const vt_analysis_t *x = &a->a, *y = &b->a;
    vt_json_begin_object(&j, "totals");
    json_change(&j, "allocs", x->n_allocs, y->n_allocs);
    json_change(&j, "frees", x->n_frees, y->n_frees);
    json_change(&j, "failed", x->n_failed, y->n_failed);
    json_change(&j, "ooms", x->n_ooms, y->n_ooms);
    vt_json_end_object(&j);
    vt_json_end_object(&j);
    vt_json_finish(&j);
}

static void side_release(side_t *s)
{
    for (size_t i = 0; i < s->n_sites; i++)
        free(s->sites[i].key);
    free(s->sites);
    vt_analysis_release(&s->a);
    vt_reader_release(&s->r);
}

/* side_load: reads and analyses s->path (vt_trace_load prints the problems). Returns 0 (maybe
 * damaged: s->damaged), or -1 when there is nothing to compare (s holds nothing to release). */
static int side_load(side_t *s)
{
    int rc = vt_trace_load_keeping_peaks(s->path, &s->r, &s->a);
    if (rc < 0)
        return -1;
    s->damaged = rc != 0;
    s->peak = vt_analysis_peak(&s->a);
    if (peak_sites(s) != 0) {
        error("'%s': out of memory grouping the call-sites", s->path);
        side_release(s);
        return -1;
    }
    return 0;
}

int cmd_diff(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL};
    size_t top = DEFAULT_TOP;
    int json = 0;
    bool all_frames = false;
    vt_args_t args;
    vt_args_init(&args, &spec, argc, argv);
    for (int opt; (opt = vt_args_next(&args)) != VT_ARG_DONE;) {
        const char *v = args.value;
        if (opt == VT_ARG_ERROR) {
            return EXIT_USAGE;
        } else if (opt == VT_ARG_HELP) {
            vt_args_help(&spec, stdout);
            return 0;
        } else if (opt == OPT_JSON) {
            json = 1;
        } else if (opt == OPT_TOP) {
            if (vt_parse_count(v, &top) != 0) {
                error("--top takes a count, not '%s'", v);
                return EXIT_USAGE;
            }
        } else if (opt == OPT_ALL_FRAMES) {
            all_frames = true;
        } else if (paths[1]) {
            error("diff compares two traces: '%s', '%s' and '%s'", paths[0], paths[1], v);
            return EXIT_USAGE;
        } else {
            paths[!!paths[0]] = v;
        }
    }
    if (!paths[1]) {
        error("diff needs two trace files. See 'vramtrace diff --help'.");
        return EXIT_USAGE;
    }

    side_t a = {.path = paths[0], .all_frames = all_frames},
           b = {.path = paths[1], .all_frames = all_frames};
    if (side_load(&a) != 0)
        return 1;
    if (side_load(&b) != 0) {
        side_release(&a);
        return 1;
    }
    int rc = a.damaged || b.damaged;
    diff_site_t *sites;
    size_t n_sites;
    if (match(&a, &b, &sites, &n_sites) != 0) {
        error("out of memory matching the call-sites of '%s' and '%s'", a.path, b.path);
        rc = 1;
    } else if (json) {
        print_json(&a, &b, sites, n_sites, top);
    } else {
        print_text(&a, &b, sites, n_sites, top);
    }
    free(sites);
    side_release(&b);
    side_release(&a);
    return rc;
}

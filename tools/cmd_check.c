/* SPDX-License-Identifier: MIT */
/* `vramtrace check FILE --max-peak SIZE [--max-category NAME=SIZE ...]`: a CI gate on a
 * trace's peaks. Every device's peak must stay within --max-peak, and every category's own
 * peak on each device (the most of it live at once, whatever the total then) within its
 * --max-category. One streaming pass: memory is bounded by the live set. Exit statuses: 0
 * within the limits ("ok: ..." lines on stdout), 1 over a limit (one line each on stderr) or
 * an unreadable or damaged trace, 2 usage. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "load.h"
#include "units.h"
#include "args.h"
#include "util.h"
#include "vt_size.h"

#define NO_LIMIT UINT64_MAX

enum { OPT_MAX_PEAK = 1, OPT_MAX_CATEGORY };

static const vt_option_t options[] = {
    {OPT_MAX_PEAK, 0, "--max-peak", "SIZE", 0, "the most device memory live at once on any device"},
    {OPT_MAX_CATEGORY, 0, "--max-category", "NAME=SIZE", 0,
     "the most memory of category NAME (weights, gradients, optimizer, activations, data, "
     "workspace, unknown) live at once on any device; may be given for several categories"},
    {0},
};

static const vt_args_spec_t spec = {
    .name = "check",
    .usage = "usage: vramtrace check FILE [--max-peak SIZE] [--max-category NAME=SIZE...]\n",
    .about = "A CI gate: exit 0 when the trace's peaks are within the limits, 3 with one line "
             "per limit exceeded otherwise. At least one limit is needed.",
    .tables = {options},
    .after = VT_ARGS_SIZE_HELP,
    .exit_status = "Exit status: 0 within the limits, 1 unreadable or damaged trace or another "
                   "error, 2 usage error, 3 a limit exceeded.",
};

typedef struct cat_peak_s {
    uint32_t device;
    uint64_t bytes[VT_CAT_COUNT];
} cat_peak_t;

typedef struct check_s {
    cat_peak_t *devices;
    size_t n_devices;
    int oom;
} check_t;

/* The category peaks of device, added on first use; NULL when out of memory. */
static cat_peak_t *device_peaks(check_t *c, uint32_t device)
{
    for (size_t i = 0; i < c->n_devices; i++)
        if (c->devices[i].device == device)
            return &c->devices[i];
    cat_peak_t *p = realloc(c->devices, (c->n_devices + 1) * sizeof(*p));
    if (!p)
        return NULL;
    c->devices = p;
    p = &c->devices[c->n_devices++];
    memset(p, 0, sizeof(*p));
    p->device = device;
    return p;
}

static int on_record(void *ctx, const vt_reader_t *r, const vt_analysis_t *a, const vt_event_t *ev,
                     const vt_live_t *old, const uint32_t *changed, int n_changed)
{
    check_t *c = ctx;
    (void)r, (void)ev, (void)old;
    for (int k = 0; k < n_changed; k++) {
        const vt_device_stats_t *d = vt_stream_device(a, changed[k]);
        cat_peak_t *p = d ? device_peaks(c, d->device) : NULL;
        if (!p) {
            c->oom |= d != NULL;
            continue;
        }
        for (int i = 0; i < VT_CAT_COUNT; i++)
            if (d->live_by_category[i] > p->bytes[i])
                p->bytes[i] = d->live_by_category[i];
    }
    return 0;
}

/* The value and the limit as text, "1.5 GiB" (trailing zeros dropped); when the two read the
 * same, the exact byte counts follow. */
static void fmt_pair(uint64_t value, uint64_t limit, char *v, char *l, size_t cap)
{
    char *out[2] = {v, l};
    uint64_t in[2] = {value, limit};
    for (int i = 0; i < 2; i++) {
        char buf[32], *dot, *unit;
        vt_fmt_binary(in[i], buf, sizeof(buf));
        if ((dot = strchr(buf, '.')) && (unit = strchr(dot, ' '))) {
            char *end = unit;
            while (end[-1] == '0')
                end--;
            if (end[-1] == '.')
                end--;
            memmove(end, unit, strlen(unit) + 1);
        }
        snprintf(out[i], cap, "%s", buf);
    }
    if (strcmp(v, l) == 0 && value != limit) {
        char c1[32];
        snprintf(v + strlen(v), cap - strlen(v), " (%s bytes)", vt_fmt_commas(value, c1, 32));
        snprintf(l + strlen(l), cap - strlen(l), " (%s bytes)", vt_fmt_commas(limit, c1, 32));
    }
}

int cmd_check(int argc, char **argv)
{
    const char *path = NULL;
    uint64_t max_peak = NO_LIMIT, max_cat[VT_CAT_COUNT];
    int any_limit = 0;
    for (int c = 0; c < VT_CAT_COUNT; c++)
        max_cat[c] = NO_LIMIT;
    vt_args_t args;
    vt_args_init(&args, &spec, argc, argv);
    for (int opt; (opt = vt_args_next(&args)) != VT_ARG_DONE;) {
        const char *v = args.value;
        if (opt == VT_ARG_ERROR) {
            return EXIT_USAGE;
        } else if (opt == VT_ARG_HELP) {
            vt_args_help(&spec, stdout);
            return 0;
        } else if (opt == VT_ARG_OPERAND) {
            if (path) {
                error("check reads one trace: '%s' and '%s'", path, v);
                return EXIT_USAGE;
            }
            path = v;
            continue;
        }
        any_limit = 1;
        if (opt == OPT_MAX_PEAK) {
            if (vt_size_parse(v, &max_peak) != 0) {
                error("--max-peak takes a size like 512MiB or 16GiB, not '%s'", v);
                return EXIT_USAGE;
            }
            continue;
        }
        const char *eq = strchr(v, '=');
        int cat = eq ? vt_category_from_name(v, (size_t)(eq - v)) : -1;
        if (!eq) {
            error("--max-category takes NAME=SIZE, not '%s'", v);
            return EXIT_USAGE;
        }
        if (cat < 0) {
            error("'%.*s' is not a category (weights, gradients, optimizer, activations, data, "
                  "workspace, unknown)",
                  (int)(eq - v), v);
            return EXIT_USAGE;
        }
        if (vt_size_parse(eq + 1, &max_cat[cat]) != 0) {
            error("--max-category takes a size like 512MiB or 16GiB, not '%s'", eq + 1);
            return EXIT_USAGE;
        }
    }
    if (!path) {
        error("check needs a trace file. See 'vramtrace check --help'.");
        return EXIT_USAGE;
    }
    if (!any_limit) {
        error("check needs a limit: --max-peak SIZE or --max-category NAME=SIZE");
        return EXIT_USAGE;
    }

    vt_reader_t r;
    vt_analysis_t a;
    check_t c;
    memset(&c, 0, sizeof(c));
    int rc = vt_trace_stream(path, &r, &a, on_record, &c);
    if (rc < 0) {
        free(c.devices);
        return 1;
    }
    if (c.oom)
        rc = error("'%s': out of memory following the category peaks", path);
    int over = 0;
    char v[96], l[96];
    if (max_peak != NO_LIMIT) {
        const vt_device_stats_t *peak = vt_analysis_peak(&a);
        uint64_t bytes = peak ? peak->peak_bytes : 0;
        fmt_pair(bytes, max_peak, v, l, sizeof(v));
        if (bytes > max_peak) {
            error("peak %s on device %" PRIu32 " exceeds --max-peak %s", v, peak->device, l);
            over = 1;
        } else if (!rc) {
            printf("ok: peak %s within %s\n", v, l);
        }
    }
    for (int k = 0; k < VT_CAT_COUNT; k++) {
        if (max_cat[k] == NO_LIMIT)
            continue;
        const cat_peak_t *worst = NULL;
        for (size_t i = 0; i < c.n_devices; i++)
            if (!worst || c.devices[i].bytes[k] > worst->bytes[k])
                worst = &c.devices[i];
        uint64_t bytes = worst ? worst->bytes[k] : 0;
        fmt_pair(bytes, max_cat[k], v, l, sizeof(v));
        if (bytes > max_cat[k]) {
            error("%s peak %s on device %" PRIu32 " exceeds --max-category %s=%s",
                  vt_category_names[k], v, worst->device, vt_category_names[k], l);
            over = 1;
        } else if (!rc) {
            printf("ok: %s peak %s within %s\n", vt_category_names[k], v, l);
        }
    }
    free(c.devices);
    vt_analysis_release(&a);
    vt_reader_release(&r);
    /* A damaged trace is 1 even when over a limit: its peaks are only a lower bound. */
    return rc ? 1 : over ? EXIT_OVER_LIMIT : 0;
}

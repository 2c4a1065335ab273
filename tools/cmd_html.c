/* SPDX-License-Identifier: MIT */
/* `vramtrace html FILE [-o OUT] [--top N] [--rules RULES] [--budget MODEL [KEY=VALUE...]]`: the
 * report of one trace as one self-contained HTML page that loads nothing (no font, no link, no
 * fetch): the OOM post-mortem first when there was one, the summary, the timeline chart, the peak
 * by category, the devices, the top call-sites at the peak, the OOMs, what was never freed, and
 * the budget comparison (report_budget.c). The numbers are the report's (report.h).
 *
 * The chart is chart.c's SVG, inline, so the page reads without script; its own script
 * (page.js, inline, with its data from page_data.c as JSON) then draws the timeline again with
 * hover, zoom, pan, highlight and the frames toggle. The page is written to a temporary file
 * beside OUT and renamed over it, so OUT is never half written. Exit statuses: 0 ok, 1
 * unreadable or damaged trace (a damaged trace still gets its page), unwritable output,
 * unreadable model or rules file, 2 usage. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "commands.h"
#include "frames.h"
#include "page_data.h"
#include "report.h"
#include "chart.h"
#include "units.h"
#include "args.h"
#include "util.h"

#define MAX_FRAMES 12 /* frames shown per call-site */

enum { OPT_OUTPUT = 1 };

static const vt_option_t options[] = {
    {OPT_OUTPUT, 'o', "--output", "OUT", 0,
     "write the page to OUT ('-': stdout); default: FILE with .vtr replaced by .html"},
    {0},
};

static const vt_args_spec_t spec = {
    .name = "html",
    .usage = "usage: vramtrace html FILE [-o OUT] [--top N] [--all-frames] [--rules RULES]\n"
             "                      [--no-default-rules] [--budget MODEL [KEY=VALUE...]]\n",
    .about = "The report of a trace as one self-contained HTML page (nothing loaded from the "
             "network; it works from a file): the out-of-memory post-mortem first when there is "
             "one, summary, timeline chart, the peak by category, devices, top call-sites, "
             "out-of-memory errors, memory never freed, and with --budget the comparison with "
             "the model's budgets. With script enabled, hover the chart for the call-sites live "
             "at a moment, zoom and pan it, click a call-site to highlight it, and switch between "
             "the program's frames and all frames.",
    .tables = {options, vt_report_options},
};

static const char style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;padding:0 24px 48px;color:#222}\n"
    "h1{font-size:22px;margin:24px 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px "
    "solid #ddd;padding-bottom:4px}\n"
    "table{border-collapse:collapse;margin:6px 0}th,td{padding:3px 10px;text-align:left;"
    "vertical-align:top;border-bottom:1px solid #eee}\n"
    "table.num td{text-align:right;font-variant-numeric:tabular-nums}thead th{background:#f6f6f6}\n"
    "tfoot th,tfoot td{font-weight:bold}code,.frames,pre{font-family:ui-monospace,monospace;"
    "font-size:12px}\n"
    ".frames{margin:0;padding-left:18px;text-align:left}.bar{display:inline-block;height:10px}\n"
    ".swatch{display:inline-block;width:10px;height:10px;margin-right:6px}\n"
    ".warn{background:#fff4e5;border-left:4px solid #f28e2b;padding:6px 10px}\n"
    ".big{font-size:20px;font-weight:bold}#vt-static svg{width:100%;height:auto}\n"
    "#postmortem pre{background:#fff0f0;border-left:4px solid #d00;padding:8px 12px;"
    "overflow-x:auto}\n"
    "#timeline{position:relative}#vt-chart svg{display:block}#vt-controls{margin:4px 0}"
    ".vt-help{color:#666;font-size:12px}\n"
    "#vt-tip{position:absolute;pointer-events:none;background:#fff;border:1px solid #999;"
    "padding:4px 8px;font-size:12px;max-width:320px;box-shadow:0 1px 4px #0003}\n"
    "#vt-hover{min-height:60px}.vt-sites{list-style:none;padding:0}.vt-site{cursor:pointer;"
    "padding:4px 6px;border-bottom:1px solid #eee}.vt-site:hover,.vt-clickable:hover{"
    "background:#f4f4ff}.vt-selected{background:#fff3c4 !important}.vt-clickable{cursor:"
    "pointer}\n";

static void text(FILE *out, const char *s)
{
    vt_xml_text(out, s);
}

static void warnings(FILE *out, const vt_report_t *rep)
{
    const vt_reader_t *r = &rep->r;
    const vt_analysis_t *a = &rep->a;
    char b[32];
    if (rep->failed) {
        fputs("<p class=\"warn\">The trace is damaged: ", out);
        text(out, r->err);
        fprintf(out, ". This page shows the %" PRIu64 " records before it.</p>\n", r->n_records);
    }
    if (!r->seen_end)
        fputs("<p class=\"warn\">The process did not exit cleanly (no end record): this page "
              "shows what it wrote.</p>\n",
              out);
    if (r->dropped)
        fprintf(out,
                "<p class=\"warn\">The library could not record %" PRIu64
                " events: totals are low.</p>\n",
                r->dropped);
    if (a->capped_limit_bytes)
        fprintf(out,
                "<p class=\"warn\">The trace reached VRAMTRACE_MAX_SIZE (%s): later events "
                "are not in it; the peaks are the library's own.</p>\n",
                vt_fmt_binary(a->capped_limit_bytes, b, sizeof(b)));
}

static void summary(FILE *out, const vt_report_t *rep)
{
    const vt_reader_t *r = &rep->r;
    const vt_analysis_t *a = &rep->a;
    const vt_device_stats_t *peak = vt_analysis_peak(a);
    char b1[32], b2[32], s1[32], buf[1024];
    const char *meaning;

    fputs("<section id=\"summary\"><h2>Summary</h2>\n<table>\n", out);
    if (vt_reader_process(r, "pid", buf, sizeof(buf))) {
        fputs("<tr><th>process</th><td>", out);
        text(out, buf);
        if (vt_reader_process(r, "host", buf, sizeof(buf)) && buf[0]) {
            fputs(" on ", out);
            text(out, buf);
        }
        if (vt_reader_process(r, "cmdline", buf, sizeof(buf)) ||
            vt_reader_process(r, "exe", buf, sizeof(buf))) {
            fputs(": <code>", out);
            text(out, buf);
            fputs("</code>", out);
        }
        fputs("</td></tr>\n", out);
    }
    const char *mode = vt_report_allocator(r, buf, sizeof(buf), &meaning);
    fprintf(out, "<tr><th>allocator</th><td><b>%s</b>", mode);
    if (buf[0]) {
        fputs(" (<code>", out);
        text(out, buf);
        fputs("</code>)", out);
    }
    fputs(": ", out);
    text(out, meaning);
    fputs("</td></tr>\n", out);
    if (rep->rules) {
        char said[4352]; /* a path and a few words */
        vt_report_rules_said(rep, said, sizeof(said));
        fputs("<tr><th>categories</th><td>", out);
        text(out, said);
        fputs("</td></tr>\n", out);
    }
    fputs("<tr><th>device peak</th><td>", out);
    if (peak) {
        char dev[320], share[48];
        fprintf(out, "<span class=\"big\">%s</span> on ",
                vt_fmt_binary(peak->peak_bytes, b1, sizeof(b1)));
        text(out, vt_reader_device_text(&rep->r, peak->device, dev, sizeof(dev)));
        vt_reader_device_share(&rep->r, peak->device, peak->peak_bytes, share, sizeof(share));
        fprintf(out, " at %s%s%s",
                vt_fmt_seconds(vt_report_rel(rep, peak->peak_t_ns), s1, sizeof(s1)),
                share[0] ? ", " : "", share);
    } else
        fputs("0 B (no device memory allocated)", out);
    fputs("</td></tr>\n", out);
    if (peak && rep->peak_phase.kind && rep->peak_phase.kind[0]) {
        fputs("<tr><th>peak phase</th><td id=\"peak-phase\"><b>", out);
        text(out, rep->peak_phase.name);
        fputs("</b> (", out);
        if (rep->peak_phase.kind[0] == 'r') {
            fputs("range <code>", out);
            text(out, rep->peak_phase.path);
            fputs("</code>", out);
        } else {
            fputs("after mark", out);
        }
        fputs(")</td></tr>\n", out);
    }
    fprintf(out, "<tr><th>pinned host peak</th><td>%s</td></tr>\n",
            vt_fmt_binary(a->peak_bytes[VT_TRACE_SERIES_PINNED], b1, sizeof(b1)));
    fprintf(out, "<tr><th>managed peak</th><td>%s</td></tr>\n",
            vt_fmt_binary(a->peak_bytes[VT_TRACE_SERIES_MANAGED], b1, sizeof(b1)));
    if (a->peak_bytes[VT_TRACE_SERIES_IMPORTED])
        fprintf(out,
                "<tr><th>imported peak</th><td>%s (a peer's memory, in the exporting process's "
                "device peak)</td></tr>\n",
                vt_fmt_binary(a->peak_bytes[VT_TRACE_SERIES_IMPORTED], b1, sizeof(b1)));
    for (uint32_t i = 0; i < a->n_pools; i++) {
        const vt_pool_stats_t *p = &a->pools[i];
        char figures[256];
        fprintf(out, "<tr><th>pool %" PRIu32 " on device %" PRIu32 "</th><td>%s</td></tr>\n",
                p->pool, p->device, vt_report_pool_figures(p, figures, sizeof(figures)));
    }
    if (a->n_array_allocs)
        fprintf(out,
                "<tr><th>arrays</th><td>%" PRIu64 " made, counted at their logical size "
                "(elements &times; format &times; channels; the driver's padding of an array is "
                "not known)</td></tr>\n",
                a->n_array_allocs);
    fprintf(out,
            "<tr><th>totals</th><td>%" PRIu64 " allocations, %" PRIu64 " frees, %" PRIu64
            " failed</td></tr>\n",
            a->n_allocs, a->n_frees, a->n_failed);
    fprintf(out, "<tr><th>never freed</th><td>%s</td></tr>\n",
            vt_fmt_binary(vt_analysis_leaked_bytes(a), b2, sizeof(b2)));
    fprintf(out, "<tr><th>out-of-memory errors</th><td>%" PRIu32 "</td></tr>\n", a->n_ooms);
    fputs("</table>\n", out);
    warnings(out, rep);
    fputs("</section>\n", out);
}

/* What the page holds beside the report: made first, into memory, so that a trace that cannot
 * be streamed leaves no page. */
typedef struct page_parts_s {
    char *svg; /* the static chart */
    size_t svg_len;
    char *postmortem; /* `vramtrace oom`'s text; NULL without OOMs */
    size_t postmortem_len;
    vt_page_data_t data; /* the script's */
} page_parts_t;

/* The timeline chart, with the call-sites' own peaks taken in the same pass (the page's first);
 * *span_ns gets the trace's length. */
/* The recategorizer of rep (--rules), rewound for another pass over the trace; NULL without
 * rules. */
static vt_recategorizer_t *recat_pass(const vt_report_t *rep)
{
    if (rep->recat)
        vt_recategorizer_rewind(rep->recat);
    return rep->recat;
}

static int timeline(const char *path, const vt_report_t *rep, page_parts_t *parts,
                    uint64_t *span_ns)
{
    FILE *mem = open_memstream(&parts->svg, &parts->svg_len);
    if (!mem)
        return error("out of memory drawing the timeline of '%s'", path);
    vt_recategorizer_t *recat = recat_pass(rep);
    int rc = vt_chart_svg_trace(path, mem, vt_page_sites_on_record, &parts->data,
                                recat ? vt_recategorize : NULL, recat, span_ns);
    if (fclose(mem) != 0)
        rc = error("out of memory drawing the timeline of '%s'", path);
    return rc;
}

/* The page's data (page_data.h: its second pass) and the OOM post-mortem. Returns 0 or -1. */
static int page_parts(const char *path, const vt_report_t *rep, page_parts_t *parts,
                      uint64_t span_ns)
{
    if (parts->data.oom ||
        vt_page_choose(&parts->data, rep->sites_device, rep->sites, vt_report_n_shown(rep)) != 0)
        return error("out of memory following the call-sites of '%s'", path);
    vt_recategorizer_t *recat = recat_pass(rep);
    vt_page_collect(&parts->data, path, span_ns, recat ? vt_recategorize : NULL, recat);
    if (parts->data.oom)
        return error("out of memory following the call-sites of '%s'", path);
    if (!rep->a.n_ooms)
        return 0;
    FILE *mem = open_memstream(&parts->postmortem, &parts->postmortem_len);
    if (!mem)
        return error("out of memory writing the post-mortem of '%s'", path);
    vt_oom_text(mem, path, rep->all_frames);
    if (fclose(mem) != 0)
        return error("out of memory writing the post-mortem of '%s'", path);
    return 0;
}

static void parts_release(page_parts_t *parts)
{
    free(parts->svg);
    free(parts->postmortem);
    vt_page_release(&parts->data);
    /* cmd_html's is static: a second run in one process (the fuzzers) must start clean. */
    memset(parts, 0, sizeof(*parts));
}

static void categories(FILE *out, const vt_report_t *rep)
{
    const vt_analysis_t *a = &rep->a;
    const vt_device_stats_t *peak = vt_analysis_peak(a);
    static const uint64_t zero[VT_CAT_COUNT];
    const uint64_t *by = peak ? peak->peak_by_category : zero;
    uint64_t total = peak ? peak->peak_bytes : 0;
    char b1[32], c1[32], s1[32];

    fputs("<section id=\"categories\"><h2>At the peak, by category</h2>\n"
          "<table class=\"num\"><thead><tr><th>category</th><th>bytes</th><th>binary</th>"
          "<th>share</th><th></th><th>own peak</th><th>when</th></tr></thead><tbody>\n",
          out);
    for (int c = 0; c < VT_CAT_COUNT; c++) {
        double share = total ? 100.0 * (double)by[c] / (double)total : 0;
        const vt_device_stats_t *cp = vt_report_category_peak(a, c);
        fprintf(out,
                "<tr><th><span class=\"swatch\" style=\"background:%s\"></span>%s</th>"
                "<td>%s</td><td>%s</td><td>%.1f%%</td>"
                "<td><span class=\"bar\" style=\"width:%.0fpx;background:%s\"></span></td>",
                vt_category_colors[c], vt_category_names[c], vt_fmt_commas(by[c], c1, sizeof(c1)),
                vt_fmt_binary(by[c], b1, sizeof(b1)), share, 2 * share, vt_category_colors[c]);
        if (cp)
            fprintf(out, "<td>%s</td><td>%s</td></tr>\n",
                    vt_fmt_binary(cp->cat_peak_bytes[c], b1, sizeof(b1)),
                    vt_fmt_seconds(vt_report_rel(rep, cp->cat_peak_t_ns[c]), s1, sizeof(s1)));
        else
            fputs("<td>0 B</td><td>\u2014</td></tr>\n", out);
    }
    uint64_t spare = peak ? peak->peak_pool_spare_bytes : 0;
    if (spare) {
        double share = total ? 100.0 * (double)spare / (double)total : 0;
        fprintf(out,
                "<tr><th>pool spare</th><td>%s</td><td>%s</td><td>%.1f%%</td><td></td>"
                "<td></td><td></td></tr>\n",
                vt_fmt_commas(spare, c1, sizeof(c1)), vt_fmt_binary(spare, b1, sizeof(b1)), share);
    }
    fprintf(out,
            "</tbody><tfoot><tr><th>total</th><td>%s</td><td>%s</td><td></td><td></td><td></td>"
            "<td></td></tr></tfoot></table>\n</section>\n",
            vt_fmt_commas(total, c1, sizeof(c1)), vt_fmt_binary(total, b1, sizeof(b1)));
}

static void devices(FILE *out, const vt_report_t *rep)
{
    const vt_analysis_t *a = &rep->a;
    char b1[32], b2[32], b3[32], s1[32], name[256];
    if (!a->n_devices)
        return;
    fputs("<section id=\"devices\"><h2>Devices</h2>\n<table class=\"num\"><thead><tr>"
          "<th>device</th><th>name</th><th>memory</th><th>peak</th><th>at</th>"
          "<th>live at the end</th></tr></thead><tbody>\n",
          out);
    for (uint32_t i = 0; i < a->n_devices; i++) {
        const vt_device_stats_t *d = &a->devices[i];
        const vt_trace_device_t *info = vt_reader_device(&rep->r, d->device);
        name[0] = '\0';
        b1[0] = '\0';
        if (info) {
            vt_reader_cstring(&rep->r, info->name_string_id, name, sizeof(name));
            if (info->total_bytes)
                vt_fmt_binary(info->total_bytes, b1, sizeof(b1));
        }
        fprintf(out, "<tr><td>%" PRIu32 "</td><td>", d->device);
        text(out, name);
        fprintf(out, "</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", b1,
                vt_fmt_binary(d->peak_bytes, b2, sizeof(b2)),
                vt_fmt_seconds(vt_report_rel(rep, d->peak_t_ns), s1, sizeof(s1)),
                vt_fmt_binary(d->live_bytes, b3, sizeof(b3)));
    }
    fputs("</tbody></table>\n</section>\n", out);
}

static int frame_item(void *ctx, const char *frame)
{
    fputs("<li>", ctx);
    text(ctx, frame);
    fputs("</li>", ctx);
    return 0;
}

/* The frames of stack id, leaf first, as a list. r is the reader that holds the stack. */
static void frames(FILE *out, const vt_report_t *rep, const vt_reader_t *r, uint32_t id)
{
    vt_frames_opts_t o = {.sym = rep->sym, .max_frames = MAX_FRAMES, .shown = true};
    if (!id) {
        fputs("<i>no call-site recorded</i>", out);
        return;
    }
    fputs("<ol class=\"frames\">", out);
    if (vt_frames_walk(&o, r, id, frame_item, out) > 0)
        fputs("<li>\u2026</li>", out);
    fputs("</ol>", out);
}

/* The call-sites of device in a table; a row the page's data follows carries its number
 * (data-site), so the script can highlight it and switch its frames. */
static void sites_table(FILE *out, const vt_report_t *rep, const vt_reader_t *r,
                        const vt_site_t *sites, size_t n, const vt_page_data_t *data,
                        uint32_t device)
{
    char b1[32];
    fputs("<table class=\"num\"><thead><tr><th>bytes</th><th>category</th><th>allocations</th>"
          "<th>call-site (innermost first)</th></tr></thead><tbody>\n",
          out);
    for (size_t i = 0; i < n; i++) {
        const vt_site_t *s = &sites[i];
        long k = vt_page_site_number(data, device, s->stack_id, s->category);
        if (k >= 0)
            fprintf(out, "<tr data-site=\"%ld\">", k);
        else
            fputs("<tr>", out);
        fprintf(out,
                "<td>%s</td><td><span class=\"swatch\" style=\"background:%s\"></span>%s"
                "</td><td>%" PRIu64 "</td><td>",
                vt_fmt_binary(s->bytes, b1, sizeof(b1)), vt_category_colors[s->category],
                vt_category_names[s->category], s->n_allocs);
        frames(out, rep, r, s->stack_id);
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
}

static void top_sites(FILE *out, const vt_report_t *rep, const vt_page_data_t *data)
{
    fputs("<section id=\"sites\"><h2>Top call-sites at the peak</h2>\n", out);
    if (!rep->n_sites)
        fputs("<p>None: no device memory was live at a recorded peak.</p>\n", out);
    else {
        fprintf(out, "<p>Device %" PRIu32 ", identical stacks merged.</p>\n", rep->sites_device);
        sites_table(out, rep, rep->sites_r, rep->sites, vt_report_n_shown(rep), data,
                    rep->sites_device);
    }
    fputs("</section>\n", out);
}

static void ooms(FILE *out, const vt_report_t *rep)
{
    const vt_analysis_t *a = &rep->a;
    char b1[32], b2[32], b3[32], s1[32], api[128];
    fputs("<section id=\"ooms\"><h2>Out-of-memory errors</h2>\n", out);
    if (!a->n_ooms)
        fputs("<p>None.</p>\n", out);
    for (uint32_t i = 0; i < a->n_ooms; i++) {
        const vt_oom_t *o = &a->ooms[i];
        fprintf(out, "<h3>%s on device %" PRIu32 ": ",
                vt_fmt_seconds(vt_report_rel(rep, o->t_ns), s1, sizeof(s1)), o->device);
        text(out, vt_reader_api_name(&rep->r, o->api, api, sizeof(api)));
        fprintf(out, " of %s failed</h3>\n<p>%s live",
                vt_fmt_binary(o->requested_bytes, b1, sizeof(b1)),
                vt_fmt_binary(o->live_total_bytes, b2, sizeof(b2)));
        if (o->total_bytes)
            fprintf(out, "; the device had %s free of %s",
                    vt_fmt_binary(o->free_bytes, b1, sizeof(b1)),
                    vt_fmt_binary(o->total_bytes, b3, sizeof(b3)));
        fputs(". Live by category:", out);
        for (int c = 0; c < VT_CAT_COUNT; c++)
            if (o->live_bytes[c])
                fprintf(out, " %s %s;", vt_category_names[c],
                        vt_fmt_binary(o->live_bytes[c], b1, sizeof(b1)));
        fputs(" (<code>vramtrace oom</code> tells more.)</p>\n<div>Call-site: ", out);
        frames(out, rep, &rep->r, o->stack_id);
        fputs("</div>\n", out);
    }
    fputs("</section>\n", out);
}

/* What was live at the end, by call-site, on each device that had some. */
static void leaks(FILE *out, const vt_report_t *rep, const vt_page_data_t *data)
{
    const vt_analysis_t *a = &rep->a;
    char b1[32];
    fputs("<section id=\"leaks\"><h2>Never freed</h2>\n", out);
    if (!vt_analysis_leaked_bytes(a))
        fputs("<p>Nothing: every device allocation was freed.</p>\n", out);
    for (uint32_t i = 0; i < a->n_devices; i++) {
        vt_site_t *sites = NULL;
        size_t n = 0;
        if (!a->devices[i].live_bytes)
            continue;
        fprintf(out, "<p>Device %" PRIu32 ": %s live at the end.</p>\n", a->devices[i].device,
                vt_fmt_binary(a->devices[i].live_bytes, b1, sizeof(b1)));
        if (vt_analysis_sites(a, a->devices[i].device, &sites, &n) == 0) {
            sites_table(out, rep, &rep->r, sites, rep->top && rep->top < n ? rep->top : n, data,
                        a->devices[i].device);
            free(sites);
        }
    }
    fputs("</section>\n", out);
}

extern const char vt_page_js[]; /* page.js, embedded (page_js.c is made of it) */

/* A <script> element's text cannot hold "</script" (nor "<!--"): the script and the JSON never
 * do (page_data.c escapes '<' in strings), and this keeps it so whatever page.js becomes. */
static void script_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '<' && (s[1] == '/' || s[1] == '!'))
            fputs("<\\", out);
        else
            fputc(*s, out);
    }
}

static void page(FILE *out, const vt_report_t *rep, const page_parts_t *parts)
{
    static const uint64_t zero[VT_CAT_COUNT];
    const vt_device_stats_t *peak = vt_analysis_peak(&rep->a);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<title>vramtrace: ",
          out);
    text(out, rep->path);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>vramtrace report</h1>\n",
            style);
    if (parts->postmortem) {
        fputs("<section id=\"postmortem\"><h2>Out of memory: the post-mortem</h2>\n<pre>", out);
        text(out, parts->postmortem);
        fputs("</pre>\n</section>\n", out);
    }
    fputs("<p>Trace <code>", out);
    text(out, rep->path);
    fprintf(out, "</code> (format %u.%u), made by vramtrace %s.</p>\n", rep->r.major, rep->r.minor,
            VRAMTRACE_VERSION_STRING);
    summary(out, rep);
    fputs("<section id=\"timeline\"><h2>Timeline</h2>\n<div id=\"vt-static\">", out);
    fwrite(parts->svg, 1, parts->svg_len, out);
    fputs("</div>\n</section>\n", out);
    categories(out, rep);
    if (rep->budget)
        vt_report_budget_html(out, rep->budget, peak ? peak->peak_by_category : zero);
    devices(out, rep);
    top_sites(out, rep, &parts->data);
    ooms(out, rep);
    leaks(out, rep, &parts->data);
    vt_page_json(out, &parts->data, rep, rep->all_frames);
    fputs("<script>\n", out);
    script_text(out, vt_page_js);
    fputs("</script>\n</body>\n</html>\n", out);
}

/* Writes the page to a temporary file beside out_path, then renames it over out_path (a device
 * or pipe is written in place). Returns 0, or -1 after a message (nothing is left behind). */
static int save(const char *out_path, const vt_report_t *rep, const page_parts_t *parts)
{
    if (strcmp(out_path, "-") == 0) {
        page(stdout, rep, parts);
        return 0; /* main checks stdout's writes */
    }
    struct stat st;
    if (stat(out_path, &st) == 0 && S_ISDIR(st.st_mode))
        return error("cannot write '%s': %s", out_path, strerror(EISDIR));
    if (stat(out_path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* A device or a pipe: written in place, since there is no file to replace. */
        FILE *out = vt_output_open(out_path);
        if (!out)
            return error("cannot write '%s': %s", out_path, vt_output_strerror(out_path, errno));
        page(out, rep, parts);
        errno = 0;
        int failed = ferror(out);
        if (fclose(out) != 0 || failed)
            return error("cannot write '%s': %s", out_path, strerror(errno ? errno : EIO));
        return 0;
    }
    size_t n = strlen(out_path);
    char *tmp = malloc(n + sizeof(".XXXXXX"));
    if (!tmp)
        return error("cannot write '%s': out of memory", out_path);
    memcpy(tmp, out_path, n);
    memcpy(tmp + n, ".XXXXXX", sizeof(".XXXXXX"));
    int fd = mkstemp(tmp);
    if (fd < 0) {
        error("cannot write '%s': %s", out_path, strerror(errno));
        free(tmp);
        return -1;
    }
    /* mkstemp makes it 0600; a page is as readable as any file the user writes. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *out = fdopen(fd, "w");
    if (!out) {
        error("cannot write '%s': %s", out_path, strerror(errno));
        close(fd);
        unlink(tmp);
        free(tmp);
        return -1;
    }
    page(out, rep, parts);
    errno = 0;
    int failed = ferror(out);
    if (fclose(out) != 0 || failed || rename(tmp, out_path) != 0) {
        error("cannot write '%s': %s", out_path, strerror(errno ? errno : EIO));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

/* FILE with a .vtr suffix replaced by .html (appended when there is none), malloc'd. */
static char *default_output(const char *path)
{
    size_t n = strlen(path);
    if (n > 4 && strcmp(path + n - 4, ".vtr") == 0)
        n -= 4;
    char *out = malloc(n + sizeof(".html"));
    if (out) {
        memcpy(out, path, n);
        memcpy(out + n, ".html", sizeof(".html"));
    }
    return out;
}

int cmd_html(int argc, char **argv)
{
    const char *path = NULL, *out_arg = NULL;
    static vt_report_opts_t opts; /* static: the rules are 40 KiB */
    vt_report_opts_init(&opts, "html");
    vt_args_t args;
    vt_args_init(&args, &spec, argc, argv);
    for (int opt; (opt = vt_args_next(&args)) != VT_ARG_DONE;) {
        const char *a = args.value;
        int taken;
        if (opt == VT_ARG_ERROR) {
            goto usage;
        } else if (opt == VT_ARG_HELP) {
            vt_args_help(&spec, stdout);
            vt_report_opts_release(&opts);
            return 0;
        } else if (opt == OPT_OUTPUT) {
            out_arg = a;
        } else if ((taken = vt_report_opts_take(&opts, opt, a)) != 0) {
            if (taken < 0)
                goto usage;
        } else if (path) {
            error("html reads one trace: '%s' and '%s'", path, a);
            goto usage;
        } else {
            path = a;
        }
    }
    if (!path) {
        error("html needs a trace file. See 'vramtrace html --help'.");
        goto usage;
    }
    int rc = vt_report_opts_load(&opts);
    vt_report_opts_release(&opts);
    if (rc != 0)
        return rc;
    char *out_path = out_arg ? NULL : default_output(path);
    if (!out_arg && !out_path) {
        error("out of memory");
        return 1;
    }

    /* The report first: with --rules its recategorizer decides the categories of the chart's
     * and the page data's passes too. The chart's pass says the trace's problems; the report's
     * passes stay quiet. */
    static page_parts_t parts; /* static: zeroed */
    uint64_t span_ns = 0;
    vt_report_t rep;
    memset(&rep, 0, sizeof(rep));
    rep.path = path;
    rep.quiet = 1;
    rep.category = -1;
    vt_report_opts_apply(&opts, &rep);
    rc = vt_report_load(&rep);
    int trc = timeline(path, &rep, &parts, &span_ns);
    if (trc >= 0 && rc >= 0 && page_parts(path, &rep, &parts, span_ns) == 0 &&
        save(out_arg ? out_arg : out_path, &rep, &parts) == 0) {
        if (!out_arg || strcmp(out_arg, "-") != 0)
            printf("wrote %s: open it in a browser\n", out_arg ? out_arg : out_path);
        rc = trc || rc ? 1 : 0;
    } else {
        rc = 1;
    }
    vt_report_release(&rep);
    parts_release(&parts);
    free(out_path);
    return rc;

usage:
    vt_report_opts_release(&opts);
    return EXIT_USAGE;
}

/* SPDX-License-Identifier: MIT */
/* The timeline chart of `vramtrace timeline --svg`, also embedded by `html`: live device memory
 * by category, a stacked area chart per device, the top-level phases as bands, the peak marked. */
#ifndef VT_CHART_H
#define VT_CHART_H
#include <stdio.h>

#include "analysis.h"
#include "timeline.h"
#include "trace_reader.h"
#include "vt_categories.h"

/* The colour of each category in the charts, "#rrggbb": the HTML page uses them too. */
extern const char *const vt_category_colors[VT_CAT_COUNT];
#define VT_POOL_SPARE_COLOR                                                                        \
    "#d7d7d7" /* pools' spare reservation: no call-site, paler than unknown */

/* vt_chart_svg: the chart of tl (streamed with columns on) to out; standalone: with the XML
 * declaration, for a file of its own (inside HTML the page declares the encoding). Compacts
 * tl's bands. */
void vt_chart_svg(FILE *out, const char *path, const vt_reader_t *r, const vt_analysis_t *a,
                  vt_timeline_t *tl, int standalone);

/* vt_chart_svg_trace: streams the trace at path and writes its chart to out as an <svg> element
 * without the XML declaration, for inline use in HTML. also (NULL: none) sees every record of
 * the same pass (timeline.h); recat (NULL: none) decides each allocation's category for both;
 * *span_ns gets the time from t0 to the last event. Problems are said with error(), as
 * `timeline` says them. Returns 0, 1 when the trace is damaged part-way (the chart shows what
 * came before), -1 when it is unreadable or out of memory (out may hold a partial chart). */
int vt_chart_svg_trace(const char *path, FILE *out, vt_stream_fn also, void *also_ctx,
                       vt_recategorize_fn recat, void *recat_ctx, uint64_t *span_ns);
#endif

/* SPDX-License-Identifier: MIT */
/* The timeline chart of `vramtrace timeline --svg` (cmd_timeline.c), for the pages that embed
 * it (cmd_html.c). */
#ifndef VT_TIMELINE_H
#define VT_TIMELINE_H
#include <stdio.h>

#include "vt_categories.h"

/* The colour of each category in the charts, "#rrggbb": the HTML page uses them too. */
extern const char *const vt_category_colors[VT_CAT_COUNT];

/* vt_timeline_svg: streams the trace at path and writes its chart to out as an <svg> element
 * without the XML declaration, for inline use in HTML. Problems are said with error(), as
 * `timeline` says them. Returns 0, 1 when the trace is damaged part-way (the chart shows what
 * came before), -1 when it is unreadable or out of memory (out may hold a partial chart). */
int vt_timeline_svg(const char *path, FILE *out);
#endif

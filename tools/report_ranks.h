/* SPDX-License-Identifier: MIT */
/* `vramtrace report` over several traces or a directory of them: the per-rank table and the
 * job's merged views (categories, call-sites, OOMs across the ranks). */
#ifndef VRAMTRACE_REPORT_RANKS_H
#define VRAMTRACE_REPORT_RANKS_H

#include <stdbool.h>
#include <stddef.h>

/* Whether path is a directory. */
int vt_report_is_dir(const char *path);

/* Prints the table and the merged views (or JSON) for args: several trace files, or one
 * directory whose *.vtr files are read; top bounds the merged call-sites (0: all); all_frames:
 * the text shows every frame of a call-site (JSON always lists them all). Returns the exit
 * status: 0, or 1 when a trace could not be read (the others are still shown). */
int vt_report_ranks(const char *const *args, size_t n_args, int json, size_t top, bool all_frames);

#endif

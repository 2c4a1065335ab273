/* SPDX-License-Identifier: MIT */
/* `export --format memory-viz`: a trace as the snapshot pickle that PyTorch's memory viewer
 * (pytorch.org/memory_viz, torch/utils/viz) opens: every device allocation its own segment
 * of one block, device_traces[device] the allocations and frees in order with their frames and
 * category, segments[] what was live at the end. One pass per device after the caller's: memory
 * is bounded by the live set and the stack table. */
#ifndef VT_MEMVIZ_H
#define VT_MEMVIZ_H
#include <stdbool.h>
#include <stdio.h>

#include "analysis.h"
#include "symbolize.h"
#include "trace_reader.h"

#define VT_MEMVIZ_MAX_DEVICE 4096 /* device numbers above are left out (said on stderr) */

/* vt_memviz_write: the pickle of the trace at path to out. r and a are that trace read to its end
 * (vt_trace_load); sym names native frames (NULL: addresses), with its all_frames deciding
 * whether the frames views fold are kept. Returns 0, or -1 after a message (out of memory, the
 * trace unreadable on a later pass). */
int vt_memviz_write(FILE *out, const char *path, const vt_reader_t *r, const vt_analysis_t *a,
                    vt_symbolizer_t *sym);
#endif

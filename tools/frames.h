/* SPDX-License-Identifier: MIT */
/* The frames of a call-site as every view shows them, innermost first. Every command walks a
 * stack through here, so what a view shows of a call-site (how deep, how each frame reads) is
 * decided in one place and a rule about frames applies to every command at once. */
#ifndef VT_FRAMES_H
#define VT_FRAMES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "symbolize.h"
#include "trace_reader.h"

#define VT_FRAME_BYTES 512 /* a frame's text kept by default, NUL included */

/* The help of --all-frames (vt_symbolize_shown), for every command that has it. */
#define VT_FRAMES_ALL_HELP                                                                         \
    "show every frame of a call-site: by default the frames of the Python interpreter, libffi, "   \
    "libc, the loader and vramtrace are left out"

typedef struct vt_frames_opts_s {
    vt_symbolizer_t *sym; /* names native frames; NULL: hex addresses */
    int max_frames;       /* frames shown; 0: all */
    size_t frame_bytes;   /* a frame's text kept, NUL included (at most 1024); 0: VT_FRAME_BYTES */
    bool shown;           /* only the frames a view shows (vt_symbolize_shown: sym->all_frames) */
    /* A native frame the symbolizer cannot name reads "module+0xOFFSET" from its module's load
     * bias (text and function) rather than its address, which ASLR moves: the same frame reads
     * the same in every process, as views that match call-sites across processes need. */
    bool across_processes;
} vt_frames_opts_t;

/* One frame as its parts, for the formats that keep them apart (JSON objects, memory_viz,
 * speedscope). Strings live until the walk's callback returns; "" when unknown. */
typedef struct vt_frame_s {
    const char *text;     /* the frame as the text views print it */
    const char *function; /* a native frame without a name: its address, "0x7f..." */
    const char *file;     /* native: as the debug info spells it; Python: the code's file */
    unsigned line;        /* 0: unknown */
    const char *module;   /* native: the object's basename; Python: "" */
    bool python;
    uint64_t ip; /* native: the return address; Python: 0 */
} vt_frame_t;

/* Called with each frame shown, innermost first; returns 0 to go on, -1 to stop. */
typedef int (*vt_frame_parts_fn)(void *ctx, const vt_frame_t *frame);

/* vt_frames_walk_parts: vt_frames_walk with each frame's parts. Returns as vt_frames_walk. */
int vt_frames_walk_parts(const vt_frames_opts_t *o, const vt_reader_t *r, uint32_t stack_id,
                         vt_frame_parts_fn fn, void *ctx);

/* vt_frames_json_object: one frame as the JSON object {function, file, line, module, python}. */
void vt_frames_json_object(vt_json_t *j, const vt_frame_t *frame);

/* Called with the text of each frame shown, innermost first; returns 0 to go on, -1 to stop. */
typedef int (*vt_frame_fn)(void *ctx, const char *frame);

/* vt_frames_walk: fn for each frame of stack_id in r, up to o->max_frames. Returns 1 when
 * frames were left out past the limit, 0 when every frame was shown, -1 when fn stopped. */
int vt_frames_walk(const vt_frames_opts_t *o, const vt_reader_t *r, uint32_t stack_id,
                   vt_frame_fn fn, void *ctx);

/* vt_frames_print: each frame on a line of its own after indent, then indent and "..." when
 * frames were left out. */
void vt_frames_print(FILE *out, const vt_frames_opts_t *o, const vt_reader_t *r, uint32_t stack_id,
                     const char *indent);

/* vt_frames_json: the frames as a JSON array of strings under key, and beside it, under
 * "stack" ("KEY_stack" for another key than "frames"), the same frames as objects
 * {function, file, line, module, python}. */
void vt_frames_json(vt_json_t *j, const char *key, const vt_frames_opts_t *o, const vt_reader_t *r,
                    uint32_t stack_id);
#endif

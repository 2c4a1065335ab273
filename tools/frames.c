/* SPDX-License-Identifier: MIT */
/* The frames of a call-site (frames.h). */
#include "frames.h"

#define FRAME_BYTES_MAX 1024

int vt_frames_walk(const vt_frames_opts_t *o, const vt_reader_t *r, uint32_t stack_id,
                   vt_frame_fn fn, void *ctx)
{
    char frame[FRAME_BYTES_MAX];
    size_t cap = o->frame_bytes ? o->frame_bytes : VT_FRAME_BYTES;
    if (cap > sizeof(frame))
        cap = sizeof(frame);
    int depth = 0;
    uint32_t id = o->shown ? vt_symbolize_first_shown(o->sym, r, stack_id) : stack_id;
    for (; id; depth++) {
        if (o->max_frames && depth == o->max_frames)
            return 1;
        id = vt_symbolize_frame(o->sym, r, id, frame, cap);
        if (o->shown)
            id = vt_symbolize_shown(o->sym, r, id);
        if (fn(ctx, frame) != 0)
            return -1;
    }
    return 0;
}

typedef struct print_ctx_s {
    FILE *out;
    const char *indent;
} print_ctx_t;

static int print_frame(void *ctx, const char *frame)
{
    print_ctx_t *p = ctx;
    fprintf(p->out, "%s%s\n", p->indent, frame);
    return 0;
}

void vt_frames_print(FILE *out, const vt_frames_opts_t *o, const vt_reader_t *r, uint32_t stack_id,
                     const char *indent)
{
    print_ctx_t p = {out, indent};
    if (vt_frames_walk(o, r, stack_id, print_frame, &p) > 0)
        fprintf(out, "%s...\n", indent);
}

static int json_frame(void *ctx, const char *frame)
{
    vt_json_string(ctx, NULL, frame);
    return 0;
}

void vt_frames_json(vt_json_t *j, const char *key, const vt_frames_opts_t *o, const vt_reader_t *r,
                    uint32_t stack_id)
{
    vt_json_begin_array(j, key);
    vt_frames_walk(o, r, stack_id, json_frame, j);
    vt_json_end_array(j);
}

/* SPDX-License-Identifier: MIT */
/* The frames of a call-site (frames.h). */
#include "frames.h"

#include <inttypes.h>
#include <string.h>

#define FRAME_BYTES_MAX 1024

/* The first recorded module holding ip, as the symbolizer picks it, or NULL. */
static const vt_trace_module_t *module_of(const vt_reader_t *r, uint64_t ip)
{
    for (uint64_t i = 0; i < r->n_modules; i++)
        if (ip >= r->modules[i].lo && ip < r->modules[i].hi)
            return &r->modules[i];
    return NULL;
}

/* The parts of frame id into f (text in text[cap], the Python file and function split into
 * file and function). Returns the parent id. */
static uint32_t frame_parts(const vt_frames_opts_t *o, const vt_reader_t *r, uint32_t id,
                            vt_frame_t *f, char *text, size_t cap, char *file, char *function)
{
    uint32_t parent = vt_symbolize_frame(o->sym, r, id, text, cap);
    memset(f, 0, sizeof(*f));
    f->text = text;
    f->file = f->module = "";
    f->function = text;
    if (id == 0 || id >= r->n_stacks)
        return parent;
    uint64_t ip = r->stacks[id].ip;
    if (ip & VT_PYFRAME_BIT) {
        /* "path/file.py:function": the function follows the last ':' (a path may hold one). */
        vt_reader_cstring(r, (uint32_t)VT_PYFRAME_STRING(ip), file, FRAME_BYTES_MAX);
        char *colon = strrchr(file, ':');
        snprintf(function, FRAME_BYTES_MAX, "%s", colon ? colon + 1 : "?");
        if (colon)
            *colon = '\0';
        f->file = file;
        f->function = function;
        f->line = (unsigned)VT_PYFRAME_LINE(ip);
        f->python = true;
        return parent;
    }
    f->ip = ip;
    snprintf(function, FRAME_BYTES_MAX, "0x%" PRIx64, ip);
    f->function = function;
    vt_sym_frame_t sf;
    if (o->sym) {
        bool named = vt_symbolize(o->sym, ip, &sf);
        const vt_trace_module_t *m;
        if (!named && o->across_processes && sf.module && (m = module_of(r, ip)) != NULL) {
            snprintf(text, cap, "%s+0x%" PRIx64, sf.module, ip - m->load_bias);
            f->function = text;
        }
        if (sf.function)
            f->function = sf.function;
        if (sf.file)
            f->file = sf.file;
        f->line = sf.line;
        if (sf.module)
            f->module = sf.module;
    }
    return parent;
}

int vt_frames_walk_parts(const vt_frames_opts_t *o, const vt_reader_t *r, uint32_t stack_id,
                         vt_frame_parts_fn fn, void *ctx)
{
    char text[FRAME_BYTES_MAX], file[FRAME_BYTES_MAX], function[FRAME_BYTES_MAX];
    size_t cap = o->frame_bytes ? o->frame_bytes : VT_FRAME_BYTES;
    if (cap > sizeof(text))
        cap = sizeof(text);
    int depth = 0;
    uint32_t id = o->shown ? vt_symbolize_first_shown(o->sym, r, stack_id) : stack_id;
    for (; id; depth++) {
        if (o->max_frames && depth == o->max_frames)
            return 1;
        vt_frame_t f;
        id = frame_parts(o, r, id, &f, text, cap, file, function);
        if (o->shown)
            id = vt_symbolize_shown(o->sym, r, id);
        if (fn(ctx, &f) != 0)
            return -1;
    }
    return 0;
}

typedef struct text_ctx_s {
    vt_frame_fn fn;
    void *ctx;
} text_ctx_t;

static int text_of(void *ctx, const vt_frame_t *f)
{
    text_ctx_t *t = ctx;
    return t->fn(t->ctx, f->text);
}

int vt_frames_walk(const vt_frames_opts_t *o, const vt_reader_t *r, uint32_t stack_id,
                   vt_frame_fn fn, void *ctx)
{
    text_ctx_t t = {fn, ctx};
    return vt_frames_walk_parts(o, r, stack_id, text_of, &t);
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

void vt_frames_json_object(vt_json_t *j, const vt_frame_t *f)
{
    vt_json_begin_object(j, NULL);
    vt_json_string(j, "function", f->function);
    vt_json_string(j, "file", f->file);
    vt_json_uint(j, "line", f->line);
    vt_json_string(j, "module", f->module);
    vt_json_bool(j, "python", f->python);
    vt_json_end_object(j);
}

static int json_frame_object(void *ctx, const vt_frame_t *f)
{
    vt_frames_json_object(ctx, f);
    return 0;
}

void vt_frames_json(vt_json_t *j, const char *key, const vt_frames_opts_t *o, const vt_reader_t *r,
                    uint32_t stack_id)
{
    vt_json_begin_array(j, key);
    vt_frames_walk(o, r, stack_id, json_frame, j);
    vt_json_end_array(j);
    char objects_key[64] = "stack"; /* "frames": "stack"; another key K: "K_stack" */
    if (strcmp(key, "frames") != 0)
        snprintf(objects_key, sizeof(objects_key), "%s_stack", key);
    vt_json_begin_array(j, objects_key);
    vt_frames_walk_parts(o, r, stack_id, json_frame_object, j);
    vt_json_end_array(j);
}

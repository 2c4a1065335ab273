/* SPDX-License-Identifier: MIT */
/* `vramtrace export FILE --format perfetto|speedscope|folded|csv|memory-viz [-o OUT]`: a trace in
 * a format other tools read. perfetto: Chrome trace-event JSON (ui.perfetto.dev,
 * chrome://tracing; perfetto.c): per device a total and a by-category counter, the phases as
 * slices per thread, the largest call-sites' allocations as slices with their frames, within a
 * size budget.
 * folded: the call-sites live at the device peak as "outer;...;leaf BYTES" lines
 * (flamegraph.pl, speedscope); speedscope: the same call-sites as a speedscope "sampled" profile
 * weighted in bytes (www.speedscope.app opens it; one frame per function, with its file and
 * line). csv: one row per ALLOC and FREE, and with --stacks the stack table they name.
 * perfetto reads the trace twice, csv streams it; folded and speedscope replay it to the peak as
 * `report` does: memory is bounded by the live set.
 * Exit statuses: 0 ok, 1 unreadable or damaged trace (what came before the damage is still
 * written) or an output error, 2 usage. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "output.h"
#include "sat.h"
#include "commands.h"
#include "frames.h"
#include "json.h"
#include "rowfmt.h"
#include "load.h"
#include "memviz.h"
#include "perfetto.h"
#include "symbolize.h"
#include "args.h"
#include "util.h"
#include "vt_size.h"

#define MAX_FOLDED_FRAMES 256
#define FRAME_CAP         512

enum { OPT_FORMAT = 1, OPT_OUTPUT, OPT_ALL_FRAMES, OPT_STACKS, OPT_MAX_SIZE };

static const vt_option_t options[] = {
    {OPT_FORMAT, 0, "--format", "FORMAT", 0,
     "the format written:\n"
     "perfetto: Chrome trace-event JSON for ui.perfetto.dev: per device its total memory and "
     "its memory by category as counters, phases as slices, and the allocations of the "
     "largest call-sites at the peak as slices carrying their frames (see --max-size)\n"
     "speedscope: the call-sites live at the device peak as a speedscope profile weighted in "
     "bytes (speedscope.app)\n"
     "folded: the call-sites live at the device peak, one \"outer;...;leaf BYTES\" line each, "
     "for flame graphs\n"
     "csv: one row per allocation and free: "
     "time_s,type,device,series,category,address,size_bytes,stack_id (--stacks writes the "
     "stacks the stack_id column names)\n"
     "memory-viz: a snapshot pickle for PyTorch's memory viewer (pytorch.org/memory_viz): "
     "every device allocation and free with its frames and category, and what was live at the "
     "end"},
    {OPT_OUTPUT, 'o', "--output", "OUT", 0, "write to OUT instead of stdout ('-': stdout)"},
    {OPT_MAX_SIZE, 0, "--max-size", "SIZE", 0,
     "perfetto: keep the output near SIZE (default 100MB, what ui.perfetto.dev opens well; 0: "
     "no limit, every change): past it the counters keep each column of time's highest and "
     "last moment, the allocation slices are sampled (those live at the peak kept) and the "
     "phases past a fifth of SIZE are left out. " VT_ARGS_SIZE_HELP},
    {OPT_STACKS, 0, "--stacks", "FILE", 0,
     "csv: write the stack table to FILE too: one row per frame of every stack_id the rows "
     "name, stack_id,depth,function,file,line,module,python, innermost frame first (depth 0), "
     "every frame kept"},
    {OPT_ALL_FRAMES, 0, "--all-frames", NULL, 0,
     "memory-viz: keep every frame of a call-site: by default the frames of the Python "
     "interpreter, libffi, libc, the loader and vramtrace are left out"},
    {0},
};

static const vt_args_spec_t spec = {
    .name = "export",
    .usage = "usage: vramtrace export FILE --format perfetto|speedscope|folded|csv|memory-viz\n"
             "                        [-o OUT] [--max-size SIZE] [--stacks FILE] [--all-frames]\n",
    .about = "Write a trace in another format, to OUT or stdout (-o - or no -o).",
    .tables = {options},
};

enum { FMT_PERFETTO, FMT_FOLDED, FMT_SPEEDSCOPE, FMT_CSV, FMT_MEMVIZ };

static const char *const series_names[VT_TRACE_SERIES_COUNT] = {"device", "pinned", "managed",
                                                                "imported"};

typedef struct export_s {
    int format;
    const char *out_path;            /* NULL: stdout */
    FILE *out;                       /* opened once the trace is known to be readable */
    vt_rowbuf_t *rows;               /* csv: the rows on their way to out, after its header */
    vt_row_clock_t clock;            /* csv: the seconds of the last row's time */
    const struct csv_texts_s *texts; /* csv: the names a row repeats */
    int open_failed;
    uint64_t max_bytes;      /* perfetto --max-size; 0: no limit */
    bool all_frames;         /* --all-frames */
    const char *stacks_path; /* csv --stacks FILE; NULL: none */
    uint8_t *stack_named;    /* csv --stacks: bit per stack id a row names */
    size_t n_stack_named_bytes;
    int stack_named_oom;
} export_t;

/* Opens the output on first use, so an unreadable trace leaves no file behind. Returns 0 or -1
 * (after a message). */
static int out_open(export_t *x)
{
    if (x->out)
        return 0;
    if (x->open_failed)
        return -1;
    if (!x->out_path) {
        x->out = stdout;
    } else if (!(x->out = vt_output_open(x->out_path))) {
        x->open_failed = 1;
        return error("cannot open '%s': %s", x->out_path, vt_output_strerror(x->out_path, errno));
    }
    if (x->format == FMT_CSV)
        fputs("time_s,type,device,series,category,address,size_bytes,stack_id\n", x->out);
    if (x->rows)
        x->rows->out = x->out;
    return 0;
}

/* Closes the output, finishing the JSON. Returns 0 or -1 (after a message). */
static int out_close(export_t *x)
{
    if (!x->out)
        return 0;
    if (x->out == stdout)
        return 0; /* main checks stdout's writes */
    int failed = ferror(x->out);
    if (fclose(x->out) != 0 || failed)
        return error("cannot write '%s': %s", x->out_path, strerror(errno ? errno : EIO));
    return 0;
}

/* Every string goes through the JSON writer's escaper: names from the trace may be any bytes. */
static void json_string(FILE *out, const char *s)
{
    vt_json_put_string(out, s, 0);
}

/* csv --stacks: notes that a row names stack_id, for the stack table written at the end. */
static void stack_named(export_t *x, const vt_reader_t *r, uint32_t stack_id)
{
    /* A stack the trace does not define (a damaged or hostile trace) has no rows: this keeps the
     * table's memory to the trace's stacks. */
    if (!x->stacks_path || !stack_id || stack_id >= r->n_stacks)
        return;
    size_t byte = stack_id / 8;
    if (byte >= x->n_stack_named_bytes) {
        size_t n = x->n_stack_named_bytes ? x->n_stack_named_bytes : 1024;
        while (n <= byte)
            n *= 2;
        uint8_t *bits = realloc(x->stack_named, n);
        if (!bits) {
            x->stack_named_oom = 1;
            return;
        }
        memset(bits + x->n_stack_named_bytes, 0, n - x->n_stack_named_bytes);
        x->stack_named = bits;
        x->n_stack_named_bytes = n;
    }
    x->stack_named[byte] |= (uint8_t)(1u << (stack_id % 8));
}

/* csv: the texts a row repeats, made once: ",SERIES," and "CATEGORY,". */
typedef struct csv_texts_s {
    vt_row_text16_t series[VT_TRACE_SERIES_COUNT];
    vt_row_text16_t category[VT_CAT_COUNT];
} csv_texts_t;

static void csv_texts_init(csv_texts_t *t)
{
    for (int s = 0; s < VT_TRACE_SERIES_COUNT; s++)
        vt_row_text16_set(&t->series[s], series_names[s], 1);
    for (int c = 0; c < VT_CAT_COUNT; c++)
        vt_row_text16_set(&t->category[c], vt_category_names[c], 0);
}

#define CSV_RECORD_MAX (128 + VT_ROW_CLOCK_MAX + 4 * (VT_ROW_U64_MAX + 1))

/* One row per allocation and free, built in a buffer (rowfmt.h), the time through the kept
 * seconds and the names from texts made once. */
static void csv_record(export_t *x, const vt_reader_t *r, const vt_event_t *ev,
                       const vt_live_t *old)
{
    if (ev->type != VT_REC_ALLOC && ev->type != VT_REC_FREE)
        return;
    const csv_texts_t *t = x->texts;
    char *p = vt_rowbuf_room(x->rows, CSV_RECORD_MAX);
    p = vt_row_clock(&x->clock, p, ev->t_ns > r->t0_ns ? ev->t_ns - r->t0_ns : 0);
    if (ev->type == VT_REC_ALLOC) {
        unsigned series = ev->u.alloc.series;
        unsigned cat = ev->u.alloc.category < VT_CAT_COUNT ? ev->u.alloc.category : VT_CAT_UNKNOWN;
        memcpy(p, ",alloc,", 8); /* the NUL: scratch */
        p = vt_row_u64(p + 7, ev->u.alloc.device);
        p = vt_row_text16(p, &t->series[series % VT_TRACE_SERIES_COUNT]);
        p = vt_row_text16(p, &t->category[cat]);
        p = vt_row_hex(p, ev->u.alloc.address);
        *p++ = ',';
        p = vt_row_u64(p, ev->u.alloc.size_bytes);
        *p++ = ',';
        p = vt_row_u64(p, ev->u.alloc.stack_id);
        stack_named(x, r, ev->u.alloc.stack_id);
    } else {
        /* A free's device, category, size and stack are those of the allocation it frees;
         * empty when the trace holds no such allocation. */
        memcpy(p, ",free,", 7); /* the NUL: scratch */
        p += 6;
        if (old)
            p = vt_row_u64(p, old->device);
        p = vt_row_text16(p, &t->series[ev->u.free.series % VT_TRACE_SERIES_COUNT]);
        if (old)
            p = vt_row_text16(p, &t->category[old->category]);
        else
            *p++ = ',';
        p = vt_row_hex(p, ev->u.free.address);
        *p++ = ',';
        if (old) {
            p = vt_row_u64(p, old->size_bytes);
            *p++ = ',';
            p = vt_row_u64(p, old->stack_id);
            stack_named(x, r, old->stack_id);
        } else {
            *p++ = ',';
        }
    }
    *p++ = '\n';
    vt_rowbuf_end(x->rows, p);
}

/* A CSV field: as it is, or quoted (RFC 4180) when it holds a comma, a quote or a line break,
 * as C++ names do ("std::map<int, float>"). */
static void csv_field(FILE *out, const char *s)
{
    if (!s[strcspn(s, ",\"\r\n")]) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

typedef struct stack_rows_s {
    FILE *out;
    uint32_t stack_id;
    unsigned depth;
} stack_rows_t;

static int stack_row(void *ctx, const vt_frame_t *f)
{
    stack_rows_t *s = ctx;
    fprintf(s->out, "%" PRIu32 ",%u,", s->stack_id, s->depth++);
    csv_field(s->out, f->function);
    fputc(',', s->out);
    csv_field(s->out, f->file);
    fputc(',', s->out);
    if (f->line)
        fprintf(s->out, "%u", f->line);
    fputc(',', s->out);
    csv_field(s->out, f->module);
    fprintf(s->out, ",%d\n", f->python ? 1 : 0);
    return 0;
}

/* csv --stacks: the table of every stack the rows named, in stack_id order, each frame of it
 * (symbolized as the other views do) a row. Returns 0 or -1 (after a message). */
static int write_stack_table(export_t *x, const vt_reader_t *r)
{
    if (x->stack_named_oom)
        return error("out of memory noting the stacks for '%s'", x->stacks_path);
    FILE *out = strcmp(x->stacks_path, "-") == 0 ? stdout : vt_output_open(x->stacks_path);
    if (!out)
        return error("cannot open '%s': %s", x->stacks_path,
                     vt_output_strerror(x->stacks_path, errno));
    vt_symbolizer_t sym, *symp = NULL;
    if (x->n_stack_named_bytes && vt_symbolizer_init_trace(&sym, r) == 0)
        symp = &sym;
    vt_frames_opts_t o = {.sym = symp, .frame_bytes = FRAME_CAP};
    fputs("stack_id,depth,function,file,line,module,python\n", out);
    for (size_t id = 1; id < 8 * x->n_stack_named_bytes; id++) {
        if (!(x->stack_named[id / 8] & (1u << (id % 8))))
            continue;
        stack_rows_t s = {out, (uint32_t)id, 0};
        vt_frames_walk_parts(&o, r, (uint32_t)id, stack_row, &s);
    }
    if (symp)
        vt_symbolizer_release(symp);
    if (out == stdout)
        return 0; /* main checks stdout's writes */
    int failed = ferror(out);
    if (fclose(out) != 0 || failed)
        return error("cannot write '%s': %s", x->stacks_path, strerror(errno ? errno : EIO));
    return 0;
}

static int on_record(void *ctx, const vt_reader_t *r, const vt_analysis_t *a, const vt_event_t *ev,
                     const vt_live_t *old, const uint32_t *changed, int n_changed)
{
    (void)a, (void)changed, (void)n_changed;
    export_t *x = ctx;
    if (out_open(x) != 0)
        return -1;
    csv_record(x, r, ev, old);
    return 0;
}

/* speedscope's shared frame table: one entry per function, that is per distinct (name, file),
 * numbered in order of first use, so a function called from several lines is one frame in its
 * flame views. The key is the name, a NUL, then the file. */
typedef struct frame_entry_s {
    char *key;
    size_t key_bytes;
    uint32_t index;
    unsigned line; /* the lowest line seen in the function, the nearest to its start; 0: none */
    UT_hash_handle hh;
} frame_entry_t;

typedef struct frame_table_s {
    frame_entry_t *by_key;
    uint32_t n_frames;
} frame_table_t;

/* The index of the frame (name, file) in the table, added if new; -1 when out of memory. */
static int64_t frame_index(frame_table_t *t, const char *name, const char *file, unsigned line)
{
    size_t name_bytes = strlen(name) + 1, key_bytes = name_bytes + strlen(file);
    char *key = malloc(key_bytes + 1);
    if (!key)
        return -1;
    memcpy(key, name, name_bytes);
    memcpy(key + name_bytes, file, key_bytes - name_bytes + 1);
    frame_entry_t *f;
    HASH_FIND(hh, t->by_key, key, key_bytes, f);
    if (f) {
        free(key);
        if (line && (!f->line || line < f->line))
            f->line = line;
        return f->index;
    }
    if (!(f = malloc(sizeof(*f)))) {
        free(key);
        return -1;
    }
    f->key = key;
    f->key_bytes = key_bytes;
    f->line = line;
    f->index = t->n_frames++;
    HASH_ADD_KEYPTR(hh, t->by_key, f->key, f->key_bytes, f);
    return f->index;
}

/* The frames of one speedscope sample, innermost first, as indices in the table. */
typedef struct sample_s {
    frame_table_t *table;
    int64_t *ids;
    int n;
} sample_t;

/* A frame's name is its function (a native frame without one: its address); its file is the
 * source file, else the object the code is in. */
static int sample_frame(void *ctx, const vt_frame_t *frame)
{
    sample_t *s = ctx;
    const char *name = frame->function[0] ? frame->function : frame->text;
    const char *file = frame->file[0] ? frame->file : frame->module;
    if ((s->ids[s->n] = frame_index(s->table, name, file, frame->line)) < 0)
        return -1;
    s->n++;
    return 0;
}

/* One site of the speedscope profile: its frames' indices, outermost first. Returns 0 or -1. */
static int speedscope_sample(export_t *x, const vt_frames_opts_t *o, const vt_reader_t *r,
                             frame_table_t *table, int64_t *ids, const vt_site_t *site, size_t i)
{
    sample_t s = {table, ids, 0};
    if (vt_frames_walk_parts(o, r, site->stack_id, sample_frame, &s) < 0)
        return -1;
    if (!s.n && (ids[s.n++] = frame_index(table, "[no call-site]", "", 0)) < 0)
        return -1;
    fputs(i ? ",[" : "[", x->out);
    for (int k = s.n - 1; k >= 0; k--)
        fprintf(x->out, "%s%" PRId64, k == s.n - 1 ? "" : ",", ids[k]);
    fputc(']', x->out);
    return 0;
}

/* The end of the speedscope file: the weights, then the frames in index order, each with its
 * file and line when known. */
static void speedscope_finish(export_t *x, const char *path, frame_table_t *table,
                              const vt_site_t *sites, size_t n_sites)
{
    uint64_t total_bytes = 0;
    fputs("],\"weights\":[", x->out);
    for (size_t i = 0; i < n_sites; i++) {
        fprintf(x->out, "%s%" PRIu64, i ? "," : "", sites[i].bytes);
        total_bytes = vt_sat_add(total_bytes, sites[i].bytes);
    }
    fprintf(x->out, "],\"startValue\":0,\"endValue\":%" PRIu64 "}],\"shared\":{\"frames\":[",
            total_bytes);
    frame_entry_t *f, *tmp;
    int first = 1;
    HASH_ITER(hh, table->by_key, f, tmp) /* insertion order: f->index */
    {
        const char *file = f->key + strlen(f->key) + 1;
        fputs(first ? "{\"name\":" : ",{\"name\":", x->out);
        json_string(x->out, f->key);
        if (file[0]) {
            fputs(",\"file\":", x->out);
            json_string(x->out, file);
        }
        if (f->line)
            fprintf(x->out, ",\"line\":%u", f->line);
        fputc('}', x->out);
        first = 0;
        HASH_DEL(table->by_key, f);
        free(f->key);
        free(f);
    }
    fputs("]},\"name\":", x->out);
    json_string(x->out, path);
    fputs(",\"exporter\":\"vramtrace " VRAMTRACE_VERSION_STRING "\"}\n", x->out);
}

/* The frames of one call-site for folded and speedscope: ';' separates the frames there. */
typedef struct folded_s {
    char (*frames)[FRAME_CAP];
    int n;
} folded_t;

static int folded_frame(void *ctx, const char *frame)
{
    folded_t *f = ctx;
    snprintf(f->frames[f->n], FRAME_CAP, "%s", frame);
    for (char *p = f->frames[f->n]; (p = strchr(p, ';'));)
        *p = ',';
    f->n++;
    return 0;
}

/* folded and speedscope: the call-sites live at the device peak, outermost frame first. */
static int export_folded(export_t *x, const char *path)
{
    vt_reader_t r;
    vt_analysis_t a;
    int rc = vt_trace_load_keeping_peaks(path, &r, &a);
    if (rc < 0)
        return 1;
    vt_site_t *sites = NULL;
    size_t n_sites = 0;
    const vt_device_stats_t *peak = vt_analysis_peak(&a);
    if (peak && peak->peak_bytes && peak->peak_record == UINT64_MAX)
        error("warning: '%s': the peak is after the trace's cap: no call-sites to export", path);
    if (vt_trace_peak_sites(path, &a, peak, &sites, &n_sites) != 0)
        rc = error("'%s': out of memory grouping the call-sites", path);
    vt_symbolizer_t sym, *symp = NULL;
    if (n_sites && vt_symbolizer_init_trace(&sym, &r) == 0)
        symp = &sym;
    char(*frames)[FRAME_CAP] = n_sites ? malloc(MAX_FOLDED_FRAMES * sizeof(*frames)) : NULL;
    if (n_sites && !frames)
        rc = error("'%s': out of memory", path);
    if (out_open(x) != 0)
        rc = 1;
    frame_table_t table = {NULL, 0};
    int64_t *ids = NULL;
    if (x->out && x->format == FMT_SPEEDSCOPE) {
        if (n_sites && !(ids = malloc((MAX_FOLDED_FRAMES + 1) * sizeof(*ids))))
            rc = error("'%s': out of memory", path);
        fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
              "\"profiles\":[{\"type\":\"sampled\",\"name\":",
              x->out);
        json_string(x->out, "device memory live at the peak");
        fputs(",\"unit\":\"bytes\",\"samples\":[", x->out);
    }
    vt_frames_opts_t o = {.sym = symp, .max_frames = MAX_FOLDED_FRAMES, .frame_bytes = FRAME_CAP};
    for (size_t i = 0; x->out && frames && i < n_sites; i++) {
        if (x->format == FMT_SPEEDSCOPE) {
            if (!ids || speedscope_sample(x, &o, &r, &table, ids, &sites[i], i) != 0) {
                rc = error("'%s': out of memory", path);
                break;
            }
            continue;
        }
        folded_t f = {frames, 0};
        vt_frames_walk(&o, &r, sites[i].stack_id, folded_frame, &f);
        int n = f.n;
        if (!n)
            fputs("[no call-site]", x->out);
        while (n-- > 0)
            fprintf(x->out, "%s%s", frames[n], n ? ";" : "");
        fprintf(x->out, " %" PRIu64 "\n", sites[i].bytes);
    }
    if (x->out && x->format == FMT_SPEEDSCOPE)
        speedscope_finish(x, path, &table, sites, frames ? n_sites : 0);
    free(ids);
    free(frames);
    if (symp)
        vt_symbolizer_release(symp);
    free(sites);
    vt_analysis_release(&a);
    vt_reader_release(&r);
    return rc ? 1 : 0;
}

static FILE *perfetto_open(void *ctx)
{
    export_t *x = ctx;
    return out_open(x) == 0 ? x->out : NULL;
}

/* memory-viz: the snapshot pickle (memviz.c), after a first pass for the live set at the end. */
static int export_memviz(export_t *x, const char *path)
{
    vt_reader_t r;
    vt_analysis_t a;
    int rc = vt_trace_load(path, &r, &a);
    if (rc < 0)
        return 1;
    vt_symbolizer_t sym, *symp = NULL;
    if (vt_symbolizer_init_trace(&sym, &r) == 0) {
        symp = &sym;
        sym.all_frames = x->all_frames;
    }
    if (out_open(x) != 0 || vt_memviz_write(x->out, path, &r, &a, symp) != 0)
        rc = 1;
    if (symp)
        vt_symbolizer_release(symp);
    vt_analysis_release(&a);
    vt_reader_release(&r);
    return rc ? 1 : 0;
}

int cmd_export(int argc, char **argv)
{
    const char *path = NULL, *format = NULL;
    export_t x;
    memset(&x, 0, sizeof(x));
    x.max_bytes = VT_PERFETTO_DEFAULT_MAX_BYTES;
    bool max_size_given = false;
    vt_args_t args;
    vt_args_init(&args, &spec, argc, argv);
    for (int opt; (opt = vt_args_next(&args)) != VT_ARG_DONE;) {
        if (opt == VT_ARG_ERROR) {
            return EXIT_USAGE;
        } else if (opt == VT_ARG_HELP) {
            vt_args_help(&spec, stdout);
            return 0;
        } else if (opt == OPT_FORMAT) {
            format = args.value;
        } else if (opt == OPT_OUTPUT) {
            x.out_path = args.value;
        } else if (opt == OPT_MAX_SIZE) {
            if (vt_size_parse(args.value, &x.max_bytes) != 0) {
                error("bad size '%s' for '--max-size': expected bytes like 100MB or 0 (no "
                      "limit)",
                      args.value);
                return EXIT_USAGE;
            }
            max_size_given = true;
        } else if (opt == OPT_STACKS) {
            x.stacks_path = args.value;
        } else if (opt == OPT_ALL_FRAMES) {
            x.all_frames = true;
        } else if (path) {
            error("export reads one trace: '%s' and '%s'", path, args.value);
            return EXIT_USAGE;
        } else {
            path = args.value;
        }
    }
    if (!path) {
        error("export needs a trace file. See 'vramtrace export --help'.");
        return EXIT_USAGE;
    }
    if (!format) {
        error("export needs --format perfetto, speedscope, folded, csv or memory-viz");
        return EXIT_USAGE;
    }
    if (strcmp(format, "perfetto") == 0) {
        x.format = FMT_PERFETTO;
    } else if (strcmp(format, "folded") == 0) {
        x.format = FMT_FOLDED;
    } else if (strcmp(format, "speedscope") == 0) {
        x.format = FMT_SPEEDSCOPE;
    } else if (strcmp(format, "csv") == 0) {
        x.format = FMT_CSV;
    } else if (strcmp(format, "memory-viz") == 0) {
        x.format = FMT_MEMVIZ;
    } else {
        error("unknown export format '%s': perfetto, speedscope, folded, csv or memory-viz",
              format);
        return EXIT_USAGE;
    }
    if (x.out_path && strcmp(x.out_path, "-") == 0)
        x.out_path = NULL;
    if (max_size_given && x.format != FMT_PERFETTO) {
        error("--max-size is for --format perfetto");
        return EXIT_USAGE;
    }
    if (x.stacks_path && x.format != FMT_CSV) {
        error("--stacks is for --format csv: its rows' stack_id names a row of that table");
        return EXIT_USAGE;
    }
    if (x.stacks_path && !x.out_path && strcmp(x.stacks_path, "-") == 0) {
        error("the rows and --stacks would both go to stdout: give -o or a --stacks file");
        return EXIT_USAGE;
    }

    int rc;
    if (x.format == FMT_PERFETTO) {
        rc = vt_perfetto_export(path, x.max_bytes, perfetto_open, &x) == 0 ? 0 : 1;
    } else if (x.format == FMT_FOLDED || x.format == FMT_SPEEDSCOPE) {
        rc = export_folded(&x, path);
    } else if (x.format == FMT_MEMVIZ) {
        rc = export_memviz(&x, path);
    } else {
        vt_reader_t r;
        vt_analysis_t a;
        static vt_rowbuf_t rows; /* 64 KiB: not on the stack */
        rows.n = 0;
        x.rows = &rows;
        csv_texts_t texts;
        csv_texts_init(&texts);
        x.texts = &texts;
        rc = vt_trace_stream(path, &r, &a, on_record, &x);
        if (x.out)
            vt_rowbuf_flush(&rows);
        if (rc >= 0) {
            if (out_open(&x) != 0)
                rc = 1;
            else if (x.stacks_path && write_stack_table(&x, &r) != 0)
                rc = 1;
            vt_analysis_release(&a);
            vt_reader_release(&r);
        }
        rc = rc ? 1 : 0;
    }
    if (out_close(&x) != 0)
        rc = 1;
    free(x.stack_named);
    return rc;
}

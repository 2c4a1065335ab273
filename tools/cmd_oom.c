/* SPDX-License-Identifier: MIT */
/* `vramtrace oom FILE`: the out-of-memory post-mortem: for each OOM record, when and where it
 * happened, what was asked for and by which API, what the device had free, what was live by
 * category, and the call-site. Exit statuses: 0 ok (with or without OOMs), 1 unreadable or
 * damaged trace (the OOMs before the damage are still printed), 2 usage. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "symbolize.h"
#include "trace_reader.h"
#include "util.h"

int cmd_oom(int argc, char **argv);

#define MAX_FRAMES 16

static const char usage[] = "usage: vramtrace oom FILE\n"
                            "\n"
                            "Every out-of-memory error of a trace: the time, the device, the\n"
                            "request and its API, the device's free and total memory when known,\n"
                            "the memory live by category, and the call-site.\n"
                            "\n"
                            "    -h, --help   show this help\n";

static const char *thread_name(const vt_reader_t *r, uint64_t thread, char *buf, size_t cap)
{
    for (uint32_t i = 1; i < r->n_threads; i++)
        if (r->threads[i].thread == thread)
            return vt_reader_cstring(r, r->threads[i].name_string_id, buf, cap);
    buf[0] = '\0';
    return buf;
}

static void print_oom(const vt_reader_t *r, vt_symbolizer_t *sym, const vt_oom_t *o, uint32_t i,
                      uint32_t n)
{
    char b1[32], b2[32], c1[32], s1[32], api[128], name[256];
    printf("out-of-memory error %" PRIu32 " of %" PRIu32 " at %s on device %" PRIu32, i + 1, n,
           vt_fmt_seconds(o->t_ns - r->t0_ns, s1, sizeof(s1)), o->device);
    const vt_trace_device_t *info = vt_reader_device(r, o->device);
    if (info && vt_reader_cstring(r, info->name_string_id, name, sizeof(name))[0])
        printf(" (%s)", name);
    printf("\n");
    printf("  request: %s (%s bytes) by %s", vt_fmt_binary(o->requested_bytes, b1, sizeof(b1)),
           vt_fmt_commas(o->requested_bytes, c1, sizeof(c1)),
           vt_reader_api_name(r, o->api, api, sizeof(api)));
    if (o->thread) {
        printf(" on thread %" PRIu64, o->thread);
        if (thread_name(r, o->thread, name, sizeof(name))[0])
            printf(" (%s)", name);
    }
    printf("\n");
    if (o->total_bytes)
        printf("  device: %s free of %s\n", vt_fmt_binary(o->free_bytes, b1, sizeof(b1)),
               vt_fmt_binary(o->total_bytes, b2, sizeof(b2)));
    else
        printf("  device: free and total memory unknown\n");
    printf("  live: %s (%s bytes)\n", vt_fmt_binary(o->live_total_bytes, b1, sizeof(b1)),
           vt_fmt_commas(o->live_total_bytes, c1, sizeof(c1)));
    for (int c = 0; c < VT_CAT_COUNT; c++)
        if (o->live_bytes[c])
            printf("    %-12s %11s\n", vt_category_names[c],
                   vt_fmt_binary(o->live_bytes[c], b1, sizeof(b1)));
    if (!o->stack_id) {
        printf("  call-site: not recorded\n");
        return;
    }
    printf("  call-site:\n");
    int depth = 0;
    for (uint32_t id = o->stack_id; id; depth++) {
        char frame[512];
        if (depth == MAX_FRAMES) {
            printf("    ...\n");
            break;
        }
        id = vt_symbolize_frame(sym, r, id, frame, sizeof(frame));
        printf("    %s\n", frame);
    }
}

int cmd_oom(int argc, char **argv)
{
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (a[0] == '-' && a[1]) {
            error("unknown option '%s'. See 'vramtrace oom --help'.", a);
            return EXIT_USAGE;
        } else if (path) {
            error("oom reads one trace for now: '%s' and '%s'", path, a);
            return EXIT_USAGE;
        } else {
            path = a;
        }
    }
    if (!path) {
        error("oom needs a trace file. See 'vramtrace oom --help'.");
        return EXIT_USAGE;
    }
    vt_reader_t r;
    vt_analysis_t a;
    int rc = vt_trace_load(path, &r, &a);
    if (rc < 0)
        return 1;
    if (!a.n_ooms)
        printf("no out-of-memory errors in '%s'\n", path);
    vt_symbolizer_t sym, *symp = NULL;
    if (a.n_ooms && vt_symbolizer_init_trace(&sym, &r) == 0)
        symp = &sym;
    for (uint32_t i = 0; i < a.n_ooms; i++) {
        if (i)
            printf("\n");
        print_oom(&r, symp, &a.ooms[i], i, a.n_ooms);
    }
    if (symp)
        vt_symbolizer_release(symp);
    vt_analysis_release(&a);
    vt_reader_release(&r);
    return rc ? 1 : 0;
}

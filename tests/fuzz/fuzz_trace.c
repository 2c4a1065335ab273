/* SPDX-License-Identifier: MIT */
/* Fuzz harness of the trace reader and the analysis (tools/trace_reader.h): a hostile trace file
 * is opened, decoded record by record into the analysis to the end or the first error, and
 * everything a report then reads is read: the peak, the call-sites of every device with their
 * frames, the process keys, the API names and the strings; then one command of the CLI runs on
 * the file (fuzz_cli.h), chosen by the input's size, so every view meets every input shape over
 * a run. Nothing may crash, read out of bounds, overflow or leak, whatever the bytes. The file
 * is also read by vt_analysis_next, the streaming commands' loop with its own fast decoder, which
 * must agree with the reader and the analysis (stream_agree.h; else abort). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "fuzz.h"
#include "fuzz_cli.h"
#include "stream_agree.h"
#include "trace_reader.h"

/* Everything a report looks at once the analysis is done. */
static void read_results(const vt_reader_t *r, const vt_analysis_t *a)
{
    char buf[256];
    (void)vt_analysis_peak(a);
    (void)vt_analysis_leaked_bytes(a);
    for (uint32_t d = 0; d < a->n_devices; d++) {
        vt_site_t *sites = NULL;
        size_t n_sites = 0;
        if (vt_analysis_sites(a, a->devices[d].device, &sites, &n_sites) != 0)
            continue;
        for (size_t i = 0; i < n_sites && i < 64; i++) {
            /* Walk the stack to the root; a cycle in a hostile file must end too (the depth cap
             * here only keeps a slow input from timing out, it is no bound the reader relies on). */
            uint32_t id = sites[i].stack_id;
            for (int depth = 0; id != 0 && depth < 256; depth++)
                id = vt_reader_frame(r, id, buf, sizeof(buf));
        }
        free(sites);
        (void)vt_reader_device(r, a->devices[d].device);
    }
    static const char *const keys[] = {"pid", "host", "exe", "cmdline", "RANK", ""};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        (void)vt_reader_process(r, keys[i], buf, sizeof(buf));
    for (uint32_t api = 0; api < r->n_api_names + 2; api++)
        (void)vt_reader_api_name(r, api, buf, sizeof(buf));
    for (uint32_t id = 0; id <= r->n_strings + 1 && id < 4096; id++) {
        uint32_t len = 0;
        const char *s = vt_reader_string(r, id, &len);
        if (s && len) /* every byte of it must be inside the mapping: ASan checks this read */
            buf[0] = s[len - 1];
        (void)vt_reader_cstring(r, id, buf, sizeof(buf));
    }
}

/* The commands run on an input, "T" standing for its path; outputs go to stdout (/dev/null). */
static const char *const commands[][8] = {
    {"report", "T", "--json", "--all-frames", "--top", "0"},
    {"report", "T"},
    {"report", "T", "--at", "1ms", "--category", "weights"},
    {"timeline", "T", "--svg", "-"},
    {"timeline", "T", "--csv"},
    {"timeline", "T"},
    {"oom", "T", "--json"},
    {"oom", "T"},
    {"leaks", "T", "--top", "0"},
    {"check", "T", "--max-peak", "1"},
    {"export", "T", "--format", "perfetto"},
    {"export", "T", "--format", "speedscope"},
    {"export", "T", "--format", "folded"},
    {"export", "T", "--format", "csv"},
    {"html", "T", "-o", "-"},
    {"diff", "T", "T", "--json", "--top", "0"},
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void run_command(const char *path, size_t which)
{
    char *argv[10] = {"vramtrace"};
    int argc = 1;
    for (int k = 0; k < 8 && commands[which][k]; k++)
        argv[argc++] =
            strcmp(commands[which][k], "T") == 0 ? (char *)path : (char *)commands[which][k];
    fuzz_cli_run_trusted(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_path(data, size);
    if (!path)
        return 0;
    vt_reader_t r;
    vt_analysis_t a;
    memset(&a, 0, sizeof(a));
    if (vt_reader_open(&r, path) == 0) {
        vt_event_t ev;
        while (vt_reader_next(&r, &ev) == 1)
            if (vt_analysis_apply(&a, &r, &ev) != 0)
                break;
        read_results(&r, &a);
    }
    vt_analysis_release(&a);
    vt_reader_release(&r);
    const char *why = stream_disagreement(path);
    if (why) {
        fprintf(stderr,
                "fuzz_trace: vt_analysis_next differs from vt_reader_next + "
                "vt_analysis_apply: %s\n",
                why);
        abort();
    }
    run_command(path, size % N_COMMANDS);
    return 0;
}

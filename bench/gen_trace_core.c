/* SPDX-License-Identifier: MIT */
/* gen_trace's default form: the events recorded by the real capture core and written by the real
 * writer (src/track.c, src/writer.c, linked directly as bench/trace_size and the unit tests link
 * them), so the trace is in the compact records every real trace holds and no second encoder of
 * them exists. Each allocation is a cuMemAlloc_v2 from one of GEN_N_SITES call-sites, interned
 * as the capture interns an unwound stack; its timestamp is the clock's, so the file differs a
 * little from run to run in its time deltas. */
#include "gen_trace.h"
#include "vt_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *out_path;
static uint32_t site_stack[GEN_N_SITES];

static void core_alloc(unsigned site, unsigned category, uint64_t address, uint64_t size_bytes)
{
    vt_callsite_t cs = {site_stack[site], (uint8_t)category};
    vt_track_alloc_at(VT_SERIES_DEVICE, 0, address, size_bytes, VT_API_cuMemAlloc_v2, &cs);
}

static void core_release(uint64_t address)
{
    vt_free_t f;
    vt_track_free_begin(VT_MASK(VT_SERIES_DEVICE), address, &f);
    vt_track_free_end(&f, true, VT_API_cuMemFree_v2);
}

static uint64_t core_close(uint64_t n_allocs, uint64_t n_frees)
{
    (void)n_allocs; /* the core counted them itself, for its END record */
    (void)n_frees;
    /* What libvramtrace.so's destructor does (src/preload.c): the end record, the file cut to
     * what was written. */
    vt_shutdown();
    vt_exit_summary();
    struct stat st;
    if (stat(out_path, &st) != 0) {
        fprintf(stderr, "gen_trace: %s: %s\n", out_path, strerror(errno));
        exit(1);
    }
    return (uint64_t)st.st_size;
}

void gen_core_open(const char *path, gen_sink_t *sink)
{
    size_t n = strlen(path);
    if (n < 4 || strcmp(path + n - 4, ".vtr") != 0) {
        /* the writer names any other path after the pid */
        fprintf(stderr, "gen_trace: '%s': the output's name must end in .vtr\n", path);
        exit(2);
    }
    /* The writer never truncates a trace: the file goes first. Only this run's settings. */
    if (unlink(path) != 0 && errno != ENOENT) {
        fprintf(stderr, "gen_trace: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    out_path = path;
    setenv("VRAMTRACE_OUTPUT", path, 1);
    setenv("VRAMTRACE_QUIET", "1", 1);
    unsetenv("VRAMTRACE_DISABLE");
    unsetenv("VRAMTRACE_MAX_SIZE");
    vt_ensure_init();
    if (!vt_is_on()) {
        fprintf(stderr, "gen_trace: the capture core is off\n");
        exit(1);
    }
    for (unsigned i = 0; i < GEN_N_SITES; i++) {
        void *ips[2] = {(void *)(uintptr_t)GEN_LEAF_IP(i), (void *)(uintptr_t)GEN_ROOT_IP};
        bool created;
        site_stack[i] = vt_stack_intern(ips, 2, &created);
    }
    *sink = (gen_sink_t){core_alloc, core_release, core_close};
}

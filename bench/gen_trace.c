/* SPDX-License-Identifier: MIT */
/* gen_trace: writes a synthetic trace of N allocation and free events, for bench/analyzer.sh to
 * time `vramtrace report` on. It streams: 50 million events need no more memory than 50.
 *
 *   usage: gen_trace [-n EVENTS] [-l LIVE] [-P] [-F] OUT.vtr
 *
 * The events: LIVE allocations (default 1024) on device 0, then pairs of (free the oldest live
 * allocation, allocate again at its address), over 8 call-sites (the category is the
 * call-site's, as a capture's rules decide it from the stack: 6 named categories), with sizes
 * from 64 KiB to 4 MiB. With -P the last event is instead one more allocation, at a new address,
 * large enough to make the peak: the peak comes last (a replay to it would read everything
 * again).
 *
 * By default the real capture core records the events and the real writer writes them
 * (gen_trace_core.c): the compact records of a real trace, timed by the clock. With -F the same
 * events go into the full records of format 1.1, every field of every ALLOC and FREE, with
 * fixed times (gen_trace_full.c). It prints what `vramtrace report` must find:
 *   gen_trace: events=N allocs=A frees=F peak_bytes=P bytes=B */
#include "gen_trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GEN_BASE 0x7f0000000000ull /* the first allocation's address */
#define GEN_SLOT (1ull << 23)      /* 8 MiB between slots: larger than any size */

int main(int argc, char **argv)
{
    uint64_t n_events = 50000000;
    uint64_t n_live = 1024;
    int opt, peak_last = 0, full = 0;
    while ((opt = getopt(argc, argv, "n:l:PF")) != -1) {
        if (opt == 'P')
            peak_last = 1;
        else if (opt == 'F')
            full = 1;
        else if (opt == 'n')
            n_events = strtoull(optarg, NULL, 10);
        else if (opt == 'l')
            n_live = strtoull(optarg, NULL, 10);
        else
            return 2; /* getopt printed why */
    }
    if (optind != argc - 1 || n_live == 0) {
        fprintf(stderr, "usage: gen_trace [-n EVENTS] [-l LIVE] [-P] [-F] OUT.vtr\n");
        return 2;
    }
    gen_sink_t sink;
    if (full)
        gen_full_open(argv[optind], &sink);
    else
        gen_core_open(argv[optind], &sink);

    uint64_t *sizes = calloc(n_live, sizeof(*sizes));
    if (!sizes) {
        fprintf(stderr, "gen_trace: calloc: %s\n", strerror(errno));
        return 1;
    }
    uint64_t n_allocs = 0, n_frees = 0, live_bytes = 0, peak_bytes = 0, oldest = 0;
    uint64_t n_live_now = 0;
    for (uint64_t e = 0; e < n_events; e++) {
        if (peak_last && e == n_events - 1) { /* slot n_live: above all the others */
            uint64_t size = peak_bytes - live_bytes + (1u << 16);
            sink.alloc(0, 0, GEN_BASE + n_live * GEN_SLOT, size);
            live_bytes += size;
            peak_bytes = live_bytes;
            n_allocs++;
            break;
        }
        if (n_live_now == n_live) { /* free the oldest; its slot is allocated next */
            sink.release(GEN_BASE + oldest * GEN_SLOT);
            live_bytes -= sizes[oldest];
            n_live_now--;
            n_frees++;
            continue;
        }
        uint64_t slot = n_allocs < n_live ? n_allocs : oldest;
        uint64_t size = (1 + (n_allocs * 2654435761u >> 7) % 64) << 16; /* 64 KiB .. 4 MiB */
        unsigned site = (unsigned)(n_allocs % GEN_N_SITES);
        sink.alloc(site, site % 6, GEN_BASE + slot * GEN_SLOT, size);
        sizes[slot] = size;
        live_bytes += size;
        if (live_bytes > peak_bytes)
            peak_bytes = live_bytes;
        if (n_allocs >= n_live)
            oldest = (oldest + 1) % n_live;
        n_live_now++;
        n_allocs++;
    }
    free(sizes);
    uint64_t bytes = sink.close(n_allocs, n_frees);
    printf("gen_trace: events=%llu allocs=%llu frees=%llu peak_bytes=%llu bytes=%llu\n",
           (unsigned long long)n_events, (unsigned long long)n_allocs, (unsigned long long)n_frees,
           (unsigned long long)peak_bytes, (unsigned long long)bytes);
    return 0;
}

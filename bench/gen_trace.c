/* SPDX-License-Identifier: MIT */
/* gen_trace: writes a synthetic trace of N allocation and free events in the real format, for
 * bench/analyzer.sh to time `vramtrace report` on. It streams: one chunk of
 * VT_FORMAT_CHUNK_BYTES in memory at a time, so 50 million events need no more memory than 50.
 *
 *   usage: gen_trace [-n EVENTS] [-l LIVE] [-P] OUT.vtr
 *
 * The records are encoded with common/vt_format.h's varint helpers and laid out the way
 * src/writer.c lays them out: preamble, strings, PROCESS, DEVICE, API_NAMES, THREAD and STACK
 * definitions, then the events with time and address delta chains, a SKIP wherever the next
 * record would straddle a chunk boundary, END, and the file trimmed after it. The events: LIVE
 * allocations (default 1024) on device 0, then pairs of (free the oldest live allocation,
 * allocate again at its address), over 8 call-sites and the 6 named categories, with sizes
 * from 64 KiB to 4 MiB. With -P the last event is instead one more allocation, at a new address,
 * large enough to make the peak: the peak comes last (a replay to it would read everything
 * again). It prints what `vramtrace report` must find:
 *   gen_trace: events=N allocs=A frees=F peak_bytes=P bytes=B */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vt_format.h"

#define GEN_N_STACKS 8
#define GEN_BASE     0x7f0000000000ull /* the first allocation's address */
#define GEN_SLOT     (1ull << 23)      /* 8 MiB between slots: larger than any size */

typedef struct gen_s {
    FILE *f;
    uint8_t chunk[VT_FORMAT_CHUNK_BYTES];
    size_t pos;       /* bytes used in chunk */
    uint64_t written; /* bytes written to f before chunk */
    uint8_t rec[VT_RECORD_MAX_FIXED_BYTES];
    size_t len; /* the record being built in rec */
    uint64_t address;
    uint32_t n_strings;
} gen_t;

static void die(const char *what)
{
    fprintf(stderr, "gen_trace: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void flush_chunk(gen_t *g, size_t n)
{
    if (n && fwrite(g->chunk, 1, n, g->f) != n)
        die("write");
    g->written += n;
    g->pos = 0;
}

/* put: the record in rec into the chunk; a SKIP and zeros first when it would straddle. */
static void put(gen_t *g)
{
    if (g->pos + g->len > sizeof(g->chunk)) {
        g->chunk[g->pos++] = VT_REC_SKIP;
        memset(g->chunk + g->pos, 0, sizeof(g->chunk) - g->pos);
        flush_chunk(g, sizeof(g->chunk));
    }
    memcpy(g->chunk + g->pos, g->rec, g->len);
    g->pos += g->len;
    if (g->pos == sizeof(g->chunk))
        flush_chunk(g, sizeof(g->chunk));
    g->len = 0;
}

static void u8(gen_t *g, uint8_t v)
{
    g->rec[g->len++] = v;
}

static void uv(gen_t *g, uint64_t v)
{
    g->len += vt_put_varint(g->rec + g->len, v);
}

static void sv(gen_t *g, int64_t v)
{
    g->len += vt_put_svarint(g->rec + g->len, v);
}

static uint32_t string(gen_t *g, const char *s)
{
    size_t n = strlen(s);
    u8(g, VT_REC_STRING);
    uv(g, n);
    memcpy(g->rec + g->len, s, n);
    g->len += n;
    put(g);
    return ++g->n_strings;
}

static void alloc(gen_t *g, unsigned category, uint64_t address, uint64_t size_bytes,
                  uint32_t stack_id)
{
    u8(g, VT_REC_ALLOC);
    uv(g, 1000 + (address >> 23) % 97); /* dt_ns: about a microsecond apart */
    u8(g, (uint8_t)(VT_TRACE_SERIES_DEVICE | category << 2));
    uv(g, 0); /* device */
    uv(g, 1); /* api: cuMemAlloc_v2 */
    sv(g, (int64_t)(address - g->address));
    g->address = address;
    uv(g, size_bytes);
    uv(g, stack_id);
    uv(g, 1); /* thread */
    put(g);
}

static void release(gen_t *g, uint64_t address)
{
    u8(g, VT_REC_FREE);
    uv(g, 500);
    u8(g, VT_TRACE_SERIES_DEVICE);
    uv(g, 2); /* api: cuMemFree_v2 */
    sv(g, (int64_t)(address - g->address));
    g->address = address;
    uv(g, 1);
    put(g);
}

int main(int argc, char **argv)
{
    uint64_t n_events = 50000000;
    uint64_t n_live = 1024;
    int opt, peak_last = 0;
    while ((opt = getopt(argc, argv, "n:l:P")) != -1) {
        if (opt == 'P')
            peak_last = 1;
        else if (opt == 'n')
            n_events = strtoull(optarg, NULL, 10);
        else if (opt == 'l')
            n_live = strtoull(optarg, NULL, 10);
        else
            return 2; /* getopt printed why */
    }
    if (optind != argc - 1 || n_live == 0) {
        fprintf(stderr, "usage: gen_trace [-n EVENTS] [-l LIVE] [-P] OUT.vtr\n");
        return 2;
    }
    static gen_t g;
    g.f = fopen(argv[optind], "wb");
    if (!g.f)
        die(argv[optind]);

    memcpy(g.chunk, VT_FORMAT_MAGIC, VT_FORMAT_MAGIC_BYTES);
    g.chunk[8] = VT_FORMAT_MAJOR & 0xff;
    g.chunk[9] = VT_FORMAT_MAJOR >> 8;
    g.chunk[10] = VT_FORMAT_MINOR & 0xff;
    g.chunk[11] = VT_FORMAT_MINOR >> 8;
    memset(g.chunk + 12, 0, 4);
    g.pos = VT_FORMAT_PREAMBLE_BYTES;

    static const char *const kv[] = {"pid", "4242", "exe", "gen_trace", "cmdline", "gen_trace"};
    uint32_t kv_ids[6];
    for (unsigned i = 0; i < 6; i++)
        kv_ids[i] = string(&g, kv[i]);
    u8(&g, VT_REC_PROCESS);
    uv(&g, 1000000000); /* t0_ns */
    uv(&g, 1790000000000000000ull);
    uv(&g, 3);
    for (unsigned i = 0; i < 6; i++)
        uv(&g, kv_ids[i]);
    put(&g);

    uint32_t dev_name = string(&g, "Simulated GPU");
    u8(&g, VT_REC_DEVICE);
    uv(&g, 0);
    uv(&g, dev_name);
    uv(&g, 80ull << 30);
    put(&g);

    uint32_t api[3] = {string(&g, "none"), string(&g, "cuMemAlloc_v2"), string(&g, "cuMemFree_v2")};
    u8(&g, VT_REC_API_NAMES);
    uv(&g, 3);
    for (unsigned i = 0; i < 3; i++)
        uv(&g, api[i]);
    put(&g);

    uint32_t thread_name = string(&g, "main");
    u8(&g, VT_REC_THREAD);
    uv(&g, 1);
    uv(&g, 4242);
    uv(&g, thread_name);
    put(&g);

    /* GEN_N_STACKS call-sites: leaves 2..9 under one root frame (id 1). */
    u8(&g, VT_REC_STACK);
    uv(&g, 0);
    sv(&g, 0x401000);
    put(&g);
    for (unsigned i = 0; i < GEN_N_STACKS; i++) {
        u8(&g, VT_REC_STACK);
        uv(&g, 1);
        sv(&g, 0x100 + 0x40 * (int64_t)i);
        put(&g);
    }

    uint64_t *sizes = calloc(n_live, sizeof(*sizes));
    if (!sizes)
        die("calloc");
    uint64_t n_allocs = 0, n_frees = 0, live_bytes = 0, peak_bytes = 0, oldest = 0;
    uint64_t n_live_now = 0;
    for (uint64_t e = 0; e < n_events; e++) {
        if (peak_last && e == n_events - 1) { /* slot n_live: above all the others */
            uint64_t size = peak_bytes - live_bytes + (1u << 16);
            alloc(&g, 0, GEN_BASE + n_live * GEN_SLOT, size, 2);
            live_bytes += size;
            peak_bytes = live_bytes;
            n_allocs++;
            break;
        }
        if (n_live_now == n_live) { /* free the oldest; its slot is allocated next */
            release(&g, GEN_BASE + oldest * GEN_SLOT);
            live_bytes -= sizes[oldest];
            n_live_now--;
            n_frees++;
            continue;
        }
        uint64_t slot = n_allocs < n_live ? n_allocs : oldest;
        uint64_t size = (1 + (n_allocs * 2654435761u >> 7) % 64) << 16; /* 64 KiB .. 4 MiB */
        alloc(&g, (unsigned)(n_allocs % 6), GEN_BASE + slot * GEN_SLOT, size,
              2 + (uint32_t)(n_allocs % GEN_N_STACKS));
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

    u8(&g, VT_REC_END);
    uv(&g, 100);
    uv(&g, n_allocs);
    uv(&g, n_frees);
    uv(&g, 0);
    uv(&g, 0);
    uv(&g, 0);
    put(&g);
    flush_chunk(&g, g.pos);
    if (fclose(g.f) != 0)
        die("close");
    printf("gen_trace: events=%llu allocs=%llu frees=%llu peak_bytes=%llu bytes=%llu\n",
           (unsigned long long)n_events, (unsigned long long)n_allocs, (unsigned long long)n_frees,
           (unsigned long long)peak_bytes, (unsigned long long)g.written);
    return 0;
}

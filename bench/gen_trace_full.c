/* SPDX-License-Identifier: MIT */
/* gen_trace -F: the events in the full records of format 1.1 (ALLOC and FREE with every field),
 * encoded here with common/vt_format.h's varint helpers and laid out the way src/writer.c lays
 * a trace out: preamble, strings, PROCESS, DEVICE, API_NAMES, THREAD and STACK definitions,
 * then the events with time and address delta chains, a SKIP wherever the next record would
 * straddle a chunk boundary, END, and the file trimmed after it. One chunk of
 * VT_FORMAT_CHUNK_BYTES in memory at a time. Times are a fixed pattern (about a microsecond
 * apart), so the file is the same on every run. */
#include "gen_trace.h"
#include "vt_format.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct gen_s {
    FILE *f;
    uint8_t chunk[VT_FORMAT_CHUNK_BYTES];
    size_t pos;       /* bytes used in chunk */
    uint64_t written; /* bytes written to f before chunk */
    uint8_t rec[VT_RECORD_MAX_FIXED_BYTES];
    size_t len; /* the record being built in rec */
    uint64_t address;
    uint32_t n_strings;
} g;

static void die(const char *what)
{
    fprintf(stderr, "gen_trace: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void flush_chunk(size_t n)
{
    if (n && fwrite(g.chunk, 1, n, g.f) != n)
        die("write");
    g.written += n;
    g.pos = 0;
}

/* put: the record in rec into the chunk; a SKIP and zeros first when it would straddle. */
static void put(void)
{
    if (g.pos + g.len > sizeof(g.chunk)) {
        g.chunk[g.pos++] = VT_REC_SKIP;
        memset(g.chunk + g.pos, 0, sizeof(g.chunk) - g.pos);
        flush_chunk(sizeof(g.chunk));
    }
    memcpy(g.chunk + g.pos, g.rec, g.len);
    g.pos += g.len;
    if (g.pos == sizeof(g.chunk))
        flush_chunk(sizeof(g.chunk));
    g.len = 0;
}

static void u8(uint8_t v)
{
    g.rec[g.len++] = v;
}

static void uv(uint64_t v)
{
    g.len += vt_put_varint(g.rec + g.len, v);
}

static void sv(int64_t v)
{
    g.len += vt_put_svarint(g.rec + g.len, v);
}

static uint32_t string(const char *s)
{
    size_t n = strlen(s);
    u8(VT_REC_STRING);
    uv(n);
    memcpy(g.rec + g.len, s, n);
    g.len += n;
    put();
    return ++g.n_strings;
}

static void full_alloc(unsigned site, unsigned category, uint64_t address, uint64_t size_bytes)
{
    u8(VT_REC_ALLOC);
    uv(1000 + (address >> 23) % 97); /* dt_ns: about a microsecond apart */
    u8((uint8_t)(VT_TRACE_SERIES_DEVICE | category << 2));
    uv(0); /* device */
    uv(1); /* api: cuMemAlloc_v2 */
    sv((int64_t)(address - g.address));
    g.address = address;
    uv(size_bytes);
    uv(2 + site); /* stack id */
    uv(1);        /* thread */
    put();
}

static void full_release(uint64_t address)
{
    u8(VT_REC_FREE);
    uv(500);
    u8(VT_TRACE_SERIES_DEVICE);
    uv(2); /* api: cuMemFree_v2 */
    sv((int64_t)(address - g.address));
    g.address = address;
    uv(1);
    put();
}

static uint64_t full_close(uint64_t n_allocs, uint64_t n_frees)
{
    u8(VT_REC_END);
    uv(100);
    uv(n_allocs);
    uv(n_frees);
    uv(0);
    uv(0);
    uv(0);
    put();
    flush_chunk(g.pos);
    if (fclose(g.f) != 0)
        die("close");
    return g.written;
}

void gen_full_open(const char *path, gen_sink_t *sink)
{
    g.f = fopen(path, "wb");
    if (!g.f)
        die(path);
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
        kv_ids[i] = string(kv[i]);
    u8(VT_REC_PROCESS);
    uv(1000000000); /* t0_ns */
    uv(1790000000000000000ull);
    uv(3);
    for (unsigned i = 0; i < 6; i++)
        uv(kv_ids[i]);
    put();

    uint32_t dev_name = string("Simulated GPU");
    u8(VT_REC_DEVICE);
    uv(0);
    uv(dev_name);
    uv(80ull << 30);
    put();

    uint32_t api[3] = {string("none"), string("cuMemAlloc_v2"), string("cuMemFree_v2")};
    u8(VT_REC_API_NAMES);
    uv(3);
    for (unsigned i = 0; i < 3; i++)
        uv(api[i]);
    put();

    uint32_t thread_name = string("main");
    u8(VT_REC_THREAD);
    uv(1);
    uv(4242);
    uv(thread_name);
    put();

    u8(VT_REC_STACK); /* id 1: the root frame */
    uv(0);
    sv((int64_t)GEN_ROOT_IP);
    put();
    for (unsigned i = 0; i < GEN_N_SITES; i++) { /* ids 2..: the leaves */
        u8(VT_REC_STACK);
        uv(1);
        sv((int64_t)(GEN_LEAF_IP(i) - GEN_ROOT_IP));
        put();
    }
    *sink = (gen_sink_t){full_alloc, full_release, full_close};
}

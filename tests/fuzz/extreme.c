/* SPDX-License-Identifier: MIT */
/* The extreme-value trace generator (extreme.h). */
#include "extreme.h"

#include <stdio.h>

/* splitmix64: a stream of choices from one number, the same on every machine. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A size, count or time at an edge of its range, or an ordinary one. */
static uint64_t edge(uint64_t *s)
{
    static const uint64_t edges[] = {
        0,
        1,
        4096,
        UINT32_MAX,
        (uint64_t)UINT32_MAX + 1,
        (1ull << 53) + 1, /* past a double's exact integers */
        (1ull << 62),
        (1ull << 63) - 1,
        (1ull << 63),
        (1ull << 63) + 1,
        UINT64_MAX - 4096,
        UINT64_MAX - 1,
        UINT64_MAX,
    };
    uint64_t r = next(s);
    return r % 4 == 0 ? (r >> 8) % (1ull << 40)
                      : edges[(r >> 2) % (sizeof(edges) / sizeof(edges[0]))];
}

/* An allocation's size: at the edges for a seed whose live sizes may pass 2^64 (the trace is
 * then damaged where they do), else at most 2^58, so that 48 of them still add up and the rest
 * of the trace is read. */
static uint64_t size_of(uint64_t *s, int huge)
{
    uint64_t v = edge(s);
    return huge || v <= (1ull << 58) ? v : v >> 6;
}

void extreme_trace(tb_t *tb, uint64_t seed)
{
    uint64_t s = seed;
    int huge = seed % 3 == 0;
    char text[64];
    uint32_t kv[4] = {tb_string(tb, "pid"), 0, tb_string(tb, "RANK"), 0};
    snprintf(text, sizeof(text), "%llu", (unsigned long long)edge(&s));
    kv[1] = tb_string(tb, text);
    snprintf(text, sizeof(text), "%llu", (unsigned long long)(next(&s) % 3 ? edge(&s) : 0));
    kv[3] = tb_string(tb, text);
    tb_process(tb, edge(&s), edge(&s), 2, kv);
    uint32_t n_devices = 1 + (uint32_t)(next(&s) % 3);
    for (uint32_t d = 0; d < n_devices; d++)
        tb_device(tb, d == 2 ? UINT32_MAX : d, tb_string(tb, "Edge GPU"), edge(&s));
    uint32_t api_names[3] = {tb_string(tb, "none"), tb_string(tb, "cudaMalloc"),
                             tb_string(tb, "cudaFree")};
    tb_api_names(tb, 3, api_names);
    uint64_t top = UINT64_MAX - 0xfff;
    tb_module(tb, top - 0x100000, top - 0x100000, top, tb_string(tb, "/nonexistent/libedge.so"),
              "\x01\x02\x03\x04", 4);
    tb_thread(tb, 1, edge(&s), tb_string(tb, "edge"));
    uint32_t stack = tb_stack(tb, 0, top - 16);
    stack = tb_stack(tb, stack, edge(&s));
    uint32_t phase = tb_string(tb, "phase");

    /* huge: two live allocations of 2^63 bytes and more at the edges, a sum past 2^64. */
    uint64_t address = top - 0x10000;
    int depth = 0;
    for (int i = 0; i < 48; i++) {
        uint64_t what = next(&s) % 10, dt = next(&s) % 5 == 0 ? edge(&s) : next(&s) % 1000;
        uint32_t device = (uint32_t)(next(&s) % n_devices);
        if (device == 2)
            device = UINT32_MAX;
        unsigned cat = (unsigned)(next(&s) % VT_CAT_COUNT);
        unsigned series = (unsigned)(next(&s) % 4);
        uint64_t size = huge && i < 2 ? (1ull << 63) : size_of(&s, huge);
        if (what < 4 || (huge && i < 2)) {
            tb_alloc(tb, dt, series, cat, device, 1, address, size, next(&s) % 2 ? stack : 0, 1);
            address -= 0x1000;
        } else if (what < 6) {
            tb_free(tb, dt, series, 0, 2, address + 0x1000 * (1 + next(&s) % 4), 1);
        } else if (what == 6) {
            uint64_t live[VT_CAT_COUNT];
            for (int c = 0; c < VT_CAT_COUNT; c++)
                live[c] = edge(&s);
            tb_oom(tb, dt, device, 1, edge(&s), stack, 1, edge(&s), edge(&s), live);
        } else if (what == 7 && depth < 200) {
            tb_phase_push(tb, dt, 1, phase);
            depth++;
        } else if (what == 7 || what == 8) {
            if (depth > 0)
                tb_phase_pop(tb, dt, 1), depth--;
            else
                tb_mark(tb, dt, 1, phase);
        } else {
            tb_meminfo(tb, dt, device, edge(&s), edge(&s));
        }
    }
    /* Deep nesting once in a while. */
    if (next(&s) % 4 == 0)
        for (; depth < 200; depth++)
            tb_phase_push(tb, 0, 1, phase);
    tb_end(tb, next(&s) % 2 ? edge(&s) : 0, edge(&s), edge(&s), edge(&s), edge(&s), edge(&s));
}

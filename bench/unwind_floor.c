/* SPDX-License-Identifier: MIT */
/* bench/unwind_floor: the physical limit of capturing a call-site, for bench/capture.sh: per
 * pair, one unw_backtrace of DEPTH frames (libunwind, per-thread caches, as src/unwind.c sets
 * it up) plus one uthash insert and delete of a 128-byte entry keyed by address, the least a
 * stack-capturing tracer does per allocation + free, without a clock, a lock, interning or a
 * trace record. Called from the bottom of the same CHAIN-deep call chain as bench/capture.
 * Usage: unwind_floor [PAIRS] [DEPTH] [CHAIN].
 * Output: "floor <ns per pair> <pairs> <depth> <frames unwound>". */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "bench.h"

#include <uthash.h>

typedef struct entry_s {
    uint64_t key;
    uint64_t payload[7];
    UT_hash_handle hh;
} entry_t;

static entry_t *table;
static entry_t pool[2];
static int n_frames;

__attribute__((noinline)) static double loop(long pairs, int depth)
{
    void *ips[256];
    long warm = pairs / 10 + 1;
    uint64_t t0 = 0;
    for (long i = -warm; i < pairs; i++) {
        if (i == 0)
            t0 = bench_now_ns();
        n_frames = depth ? unw_backtrace(ips, depth) : 0;
        entry_t *e = &pool[i & 1];
        e->key = 0x300000000000ULL + (uint64_t)i * 4096u;
        e->payload[0] = (uint64_t)(uintptr_t)(n_frames ? ips[0] : NULL);
        HASH_ADD(hh, table, key, sizeof e->key, e);
        entry_t *found;
        HASH_FIND(hh, table, &e->key, sizeof e->key, found);
        if (found)
            HASH_DELETE(hh, table, found);
    }
    return (double)(bench_now_ns() - t0) / (double)pairs;
}

__attribute__((noinline)) static double chain(int levels, long pairs, int depth)
{
    volatile int keep = levels;
    double r = levels > 0 ? chain(levels - 1, pairs, depth) : loop(pairs, depth);
    keep = keep + 1;
    return r;
}

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? atol(argv[1]) : 200000;
    int depth = argc > 2 ? atoi(argv[2]) : 64;
    int levels = argc > 3 ? atoi(argv[3]) : 70;
    if (pairs <= 0 || depth < 0 || depth > 256 || levels < 0) {
        fprintf(stderr, "usage: unwind_floor [PAIRS] [DEPTH] [CHAIN]\n");
        return 2;
    }
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    double ns = chain(levels, pairs, depth);
    printf("floor %.1f %ld %d %d\n", ns, pairs, depth, n_frames);
    return 0;
}

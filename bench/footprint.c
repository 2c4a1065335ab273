/* SPDX-License-Identifier: MIT */
/* bench/footprint: the capture library's own memory per live allocation and per distinct
 * call-site, read from the arena's counter (vt_arena_mapped_bytes: every table entry, hash
 * bucket array, trie node and node page comes from the arena; it grows by 1 MiB chunks, so N
 * must be large). Links the capture core directly, as the unit tests do; VRAMTRACE_OUTPUT
 * names the trace it writes, whose mapping is not counted (it is the trace, not the library).
 *   live N    N allocations made and kept live (no call-sites): bytes per live allocation
 *   stacks N  N allocations, each from a distinct call-site and freed at once: 2^k stacks that share their outer
 *             frames and branch in their innermost k (bench/sites.c; a binary tree, as real stacks share
 *             their outer frames), so about two new trie nodes per stack
 * Usage: footprint live|stacks [N]. Output: "footprint <what> <n> <arena bytes added>
 * <bytes per item> <trie nodes added>". */
#include "vt_internal.h"
#include "sites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next_addr = 0x7f0000000000ULL;

static void record_alloc(bool with_stack)
{
    vt_callsite_t cs;
    if (with_stack)
        vt_callsite_take(&cs, VT_API_cudaMalloc);
    vt_track_alloc_at(VT_SERIES_DEVICE, 0, next_addr, 4096, VT_API_cudaMalloc,
                      with_stack ? &cs : NULL);
    if (with_stack) { /* freed again: only the call-site's memory stays */
        vt_free_t f;
        vt_track_free_begin(VT_MASK(VT_SERIES_DEVICE), next_addr, &f);
        vt_track_free_end(&f, true, VT_API_cudaFree);
    }
    next_addr += 4096;
}

static void record_alloc_leaf(void *arg)
{
    (void)arg;
    record_alloc(true);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "live";
    long n = argc > 2 ? atol(argv[2]) : 100000;
    bool stacks = !strcmp(what, "stacks");
    if (n <= 0 || (strcmp(what, "live") && !stacks)) {
        fprintf(stderr, "usage: footprint live|stacks [N]\n");
        return 2;
    }
    vt_ensure_init();
    if (!vt_is_on()) {
        fprintf(stderr, "footprint: the capture core is off (VRAMTRACE_DISABLE?)\n");
        return 1;
    }
    int bits = 0;
    while (stacks && ((long)1 << bits) < n)
        bits++;
    if (stacks)
        n = (long)1 << bits;
    /* Warm up: the first allocation opens the trace and interns the common outer frames. */
    if (stacks)
        bench_site(0, bits, record_alloc_leaf, NULL);
    else
        record_alloc(false);
    vt_track_lock();
    size_t arena0 = vt_arena_mapped_bytes();
    uint32_t nodes0 = vt_stack_count();
    vt_track_unlock();
    for (long i = stacks ? 1 : 0; i < n; i++) {
        if (stacks)
            bench_site((unsigned)i, bits, record_alloc_leaf, NULL);
        else
            record_alloc(false);
    }
    vt_track_lock();
    size_t added = vt_arena_mapped_bytes() - arena0;
    uint32_t nodes = vt_stack_count() - nodes0;
    vt_track_unlock();
    vt_shutdown();
    vt_exit_summary();
    long items = stacks ? n - 1 : n;
    printf("footprint %s %ld %zu %.1f %u\n", what, items, added, (double)added / (double)items,
           nodes);
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* bench/trace_size: a trace of a chosen allocation mix, written by the real capture core and
 * writer (linked directly, as the unit tests link it; VRAMTRACE_OUTPUT names the file), so
 * bench/capture.sh can divide its size by its events. The simulated driver hands out every
 * address once (a bump pointer), so the address reuse of a caching allocator cannot come from
 * it: here a small caching allocator picks the addresses (a free list per rounded size, the
 * most recently freed first) and the core records them as cudaMalloc results. Call-sites are
 * real: each allocation unwinds through a chain of noinline functions whose branches spell a
 * call-site number (bench/sites.c), so there are as many distinct stacks as the mix asks for.
 *   pytorch  about 30 call-sites, each with its own size from 512 B to 1 GiB (rounded as
 *            PyTorch's caching allocator rounds), allocated once per training step by most
 *            sites and freed at the end of the step, mostly in reverse order; the same
 *            addresses come back every step.
 *   tensor   128 call-sites, sizes 512 B to 64 KiB (one in ten up to 4 MiB), a live set of a
 *            few hundred tensors, each event an allocation or a free of a random live tensor.
 * Usage: trace_size pytorch|tensor [EVENTS]. Output: "trace_size <mix> <events> <allocs>
 * <frees> <stack trie nodes>". */
#include "vt_internal.h"
#include "sites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIVE 4096

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* ---- a caching allocator's addresses ------------------------------------------------------ */

typedef struct cached_s {
    uint64_t size_bytes;
    uint64_t addr[64];
    int n;
} cached_t;

static cached_t cache[256];
static int n_cached;
static uint64_t next_va = 0x7f0000000000ULL;

/* PyTorch's rounding: 512-byte multiples below 1 MiB, 2 MiB multiples below 10 MiB, 20 MiB
 * multiples above. */
static uint64_t round_size(uint64_t bytes)
{
    uint64_t unit = bytes < (1u << 20) ? 512 : bytes < (10u << 20) ? (2u << 20) : (20u << 20);
    return (bytes + unit - 1) / unit * unit;
}

static cached_t *bin(uint64_t size_bytes)
{
    for (int i = 0; i < n_cached; i++)
        if (cache[i].size_bytes == size_bytes)
            return &cache[i];
    if (n_cached == (int)(sizeof cache / sizeof cache[0]))
        return NULL;
    cache[n_cached].size_bytes = size_bytes;
    return &cache[n_cached++];
}

static uint64_t take_addr(uint64_t size_bytes)
{
    cached_t *c = bin(size_bytes);
    if (c && c->n)
        return c->addr[--c->n];
    uint64_t a = next_va;
    next_va += (size_bytes + 511) & ~511ULL;
    return a;
}

static void give_addr(uint64_t addr, uint64_t size_bytes)
{
    cached_t *c = bin(size_bytes);
    if (c && c->n < 64)
        c->addr[c->n++] = addr;
}

/* ---- call-sites: a branch per bit of the site number -------------------------------------- */

typedef struct request_s {
    uint64_t addr, size_bytes;
} request_t;

static long n_allocs, n_frees;

static void record_alloc(const request_t *r)
{
    vt_callsite_t cs;
    vt_callsite_take(&cs, VT_API_cudaMalloc);
    vt_track_alloc_at(VT_SERIES_DEVICE, 0, r->addr, r->size_bytes, VT_API_cudaMalloc, &cs);
    n_allocs++;
}

static void record_alloc_leaf(void *arg)
{
    record_alloc(arg);
}

static void alloc_at_site(unsigned site, int bits, uint64_t addr, uint64_t size_bytes)
{
    request_t r = {addr, size_bytes};
    bench_site(site, bits, record_alloc_leaf, &r);
}

static void free_addr(uint64_t addr)
{
    vt_free_t f;
    vt_track_free_begin(VT_MASK(VT_SERIES_DEVICE), addr, &f);
    vt_track_free_end(&f, true, VT_API_cudaFree);
    n_frees++;
}

/* ---- the mixes ------------------------------------------------------------------------------ */

#define PYTORCH_SITES 30

static void mix_pytorch(long events)
{
    uint64_t site_size[PYTORCH_SITES];
    for (int k = 0; k < PYTORCH_SITES; k++) { /* 512 B .. 1 GiB, about geometric */
        int e = 21 * k / (PYTORCH_SITES - 1), frac = 21 * k % (PYTORCH_SITES - 1);
        uint64_t base = 512ULL << e;
        site_size[k] = round_size(base + base * (uint64_t)frac / (PYTORCH_SITES - 1));
    }
    request_t live[PYTORCH_SITES * 4];
    while (n_allocs + n_frees < events) {
        int n_live = 0;
        for (int k = 0; k < PYTORCH_SITES; k++) {
            if (next_rand() % 10 >= 8 && k >= 4) /* most sites fire each step */
                continue;
            int count = 1 + (int)(next_rand() % (k < 10 ? 4 : 1)); /* small tensors: several */
            for (int c = 0; c < count; c++) {
                request_t *r = &live[n_live++];
                r->size_bytes = site_size[k];
                r->addr = take_addr(r->size_bytes);
                alloc_at_site((unsigned)k, 5, r->addr, r->size_bytes);
            }
        }
        /* Backward frees activations in reverse; an occasional swap breaks strict LIFO. */
        for (int i = n_live - 1; i >= 0; i--) {
            int j = i > 0 && next_rand() % 4 == 0 ? i - 1 : i;
            request_t t = live[i];
            live[i] = live[j];
            live[j] = t;
            free_addr(live[i].addr);
            give_addr(live[i].addr, live[i].size_bytes);
        }
    }
}

static void mix_tensor(long events)
{
    static request_t live[MAX_LIVE];
    int n_live = 0;
    while (n_allocs + n_frees < events) {
        bool alloc = n_live == 0 || (n_live < 512 && next_rand() % 100 < 52);
        if (alloc) {
            uint64_t r = next_rand();
            uint64_t bytes = r % 10 ? 512u << (r >> 8) % 8 : (64u << 10) << (r >> 8) % 7;
            request_t *t = &live[n_live++];
            t->size_bytes = round_size(bytes + (r >> 20) % 512);
            t->addr = take_addr(t->size_bytes);
            alloc_at_site((unsigned)(r >> 32) % 128, 7, t->addr, t->size_bytes);
        } else {
            int i = (int)(next_rand() % (uint64_t)n_live);
            free_addr(live[i].addr);
            give_addr(live[i].addr, live[i].size_bytes);
            live[i] = live[--n_live];
        }
    }
    while (n_live > 0) {
        free_addr(live[--n_live].addr);
    }
}

int main(int argc, char **argv)
{
    const char *mix = argc > 1 ? argv[1] : "pytorch";
    long events = argc > 2 ? atol(argv[2]) : 1000000;
    if (events <= 0 || (strcmp(mix, "pytorch") && strcmp(mix, "tensor"))) {
        fprintf(stderr, "usage: trace_size pytorch|tensor [EVENTS]\n");
        return 2;
    }
    vt_ensure_init();
    if (!vt_is_on()) {
        fprintf(stderr, "trace_size: the capture core is off (VRAMTRACE_DISABLE?)\n");
        return 1;
    }
    if (!strcmp(mix, "pytorch"))
        mix_pytorch(events);
    else
        mix_tensor(events);
    vt_track_lock();
    uint32_t n_nodes = vt_stack_count();
    vt_track_unlock();
    /* What libvramtrace.so's destructor does (src/preload.c): the end record, the file cut to
     * what was written. */
    vt_shutdown();
    vt_exit_summary();
    printf("trace_size %s %ld %ld %ld %u\n", mix, n_allocs + n_frees, n_allocs, n_frees, n_nodes);
    return 0;
}

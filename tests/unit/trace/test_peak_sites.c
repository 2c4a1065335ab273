/* SPDX-License-Identifier: MIT */
/* The peak's call-sites from the single pass (vt_analyze_keeping_peaks + vt_analysis_peak_sites)
 * against a replay of the trace up to the record that made the peak (vt_analyze to peak_record +
 * vt_analysis_sites), which `report` used before: on random traces written by the trace builder,
 * every device's sites must be the same, in the same order. The traces mix several devices, the
 * pinned and managed series, VMM handles, ALLOCs at an address still live (the free was not seen),
 * frees of unknown addresses, zero sizes, the library's PEAK records (a cap) with events after
 * them, marks and SKIPs, and truncation part-way (a damaged trace); each is checked with the
 * recorded categories (the fast path) and with a recategorize hook that counts what it has seen
 * (the per-record path, and the hook's state rewound before the replay, as `report --rules`).
 * Each trace is also streamed as timeline and export read it (vt_analysis_next), which must agree
 * with the reader and the analysis record by record (stream_agree.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "stream_agree.h"
#include "trace_builder.h"
#include "trace_reader.h"
#include "vt_test.h"

static char dir[256];
static char path[300];
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint64_t below(uint64_t n)
{
    return n ? rnd() % n : 0;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    do {
        p[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return n;
}

/* A random trace into path; returns its number of events. */
static unsigned build(unsigned n_events)
{
    tb_t tb;
    tb_init(&tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR);
    uint32_t kv[2] = {tb_string(&tb, "pid"), tb_string(&tb, "1")};
    tb_process(&tb, 1000, 0, 1, kv);
    unsigned n_devices = 1 + (unsigned)below(3);
    for (unsigned d = 0; d < n_devices; d++)
        tb_device(&tb, d, tb_string(&tb, "gpu"), 1ull << 40);
    uint32_t label = tb_string(&tb, "step");
    tb_thread(&tb, 1, 1, 0);
    unsigned n_stacks = 1 + (unsigned)below(6);
    for (unsigned i = 0; i < n_stacks; i++)
        tb_stack(&tb, i ? (uint32_t)below(i + 1) : 0, 0x1000 + 0x10 * i);
    /* A small pool of addresses: ALLOCs land on live ones, FREEs on dead ones. */
    unsigned n_addr = 2 + (unsigned)below(below(4) ? 40 : 1500);
    unsigned sizes = below(2) ? 3 : 1000; /* few sizes: ties in the sites' bytes */
    int capped = !below(4);               /* PEAK and CAPPED records in a quarter of them */
    for (unsigned e = 0; e < n_events; e++) {
        uint64_t dt = below(3) ? below(1000) : 0;
        unsigned series =
            below(5) ? VT_TRACE_SERIES_DEVICE : (unsigned)below(VT_TRACE_SERIES_COUNT);
        if (!below(10))
            series |= VT_FLAG_HANDLE;
        uint64_t address = 0x10000 + 0x1000 * below(n_addr);
        uint32_t device = (uint32_t)below(n_devices);
        unsigned k = (unsigned)below(100);
        if (k < 52) {
            uint64_t size = below(50) ? 1024 * (1 + below(sizes)) : 0;
            tb_alloc(&tb, dt, series, (unsigned)below(VT_CAT_COUNT + 1), device, 1, address, size,
                     (uint32_t)below(n_stacks + 1), 1);
        } else if (k < 95) {
            tb_free(&tb, dt, series, !below(20), 2, address, 1);
        } else if (k < 97) {
            tb_mark(&tb, dt, 1, label);
        } else if (k < 98 || !capped) {
            if (!below(n_events)) /* a chunk of zeros: one or so a trace */
                tb_skip(&tb);
        } else if (k < 99 || !below(3)) {
            /* The library's peak (written after a cap): maybe above the events' own. */
            uint8_t body[128];
            size_t n =
                put_varint(body, below(4) ? VT_TRACE_SERIES_DEVICE : below(VT_TRACE_SERIES_COUNT));
            n += put_varint(body + n, device);
            n += put_varint(body + n, below(4000) * 1024);
            n += put_varint(body + n, 1000 + below(100000));
            for (int c = 0; c < VT_CAT_COUNT; c++)
                n += put_varint(body + n, below(1000));
            tb_extension(&tb, VT_REC_PEAK, body, n);
        } else {
            uint8_t body[16];
            tb_extension(&tb, VT_REC_CAPPED, body, put_varint(body, 1ull << 30));
        }
    }
    if (below(2))
        tb_end(&tb, 1, 0, 0, 0, 0, 0);
    /* A third of them damaged: cut anywhere. */
    size_t len = below(3) ? tb.len : (size_t)below(tb.len + 1);
    if (tb_write(&tb, path, len) != 0) {
        perror(path);
        exit(1);
    }
    tb_release(&tb);
    return n_events;
}

/* A hook with state: the category of the n-th ALLOC depends on n and on its stack. */
typedef struct {
    uint64_t n;
} counter_t;

static int recategorize(void *ctx, const vt_reader_t *r, const vt_event_t *ev)
{
    (void)r;
    counter_t *c = ctx;
    if (ev->type != VT_REC_ALLOC)
        return 0;
    return (int)((c->n++ * 7 + ev->u.alloc.stack_id) % (VT_CAT_COUNT + 1));
}

static unsigned n_compared, n_with_sites, n_capped, n_damaged, n_streams_differ;

/* Every device's peak sites, both ways. */
static void compare(vt_recategorize_fn fn, unsigned trace)
{
    counter_t ctx = {0};
    vt_reader_t r;
    vt_analysis_t a;
    if (vt_reader_open(&r, path) != 0) {
        vt_reader_release(&r);
        return; /* cut inside the preamble */
    }
    n_damaged += vt_analyze_keeping_peaks(&r, &a, fn, &ctx) != 0;
    for (uint32_t i = 0; i < a.n_devices; i++) {
        const vt_device_stats_t *d = &a.devices[i];
        vt_site_t *kept = NULL, *replayed = NULL;
        size_t n_kept = 0, n_replayed = 0;
        int rc = vt_analysis_peak_sites(&a, d->device, &kept, &n_kept);
        if (d->peak_record == UINT64_MAX) {
            VT_CHECK("a peak after a cap: no live set kept", rc == 1);
            n_capped++;
            continue;
        }
        VT_CHECK("the single pass kept the peak", rc == 0);
        vt_reader_t r2;
        vt_analysis_t a2;
        counter_t ctx2 = {0};
        VT_CHECK("reopened", vt_reader_open(&r2, path) == 0);
        vt_analyze_recategorized(&r2, &a2, d->peak_record, fn, &ctx2);
        VT_CHECK("replay sites", vt_analysis_sites(&a2, d->device, &replayed, &n_replayed) == 0);
        int same = n_kept == n_replayed;
        uint64_t sum = 0;
        for (size_t j = 0; same && j < n_kept; j++) {
            same = kept[j].bytes == replayed[j].bytes && kept[j].n_allocs == replayed[j].n_allocs &&
                   kept[j].stack_id == replayed[j].stack_id &&
                   kept[j].category == replayed[j].category;
            sum += kept[j].bytes;
        }
        if (!same)
            fprintf(stderr, "trace %u (%s hook) device %u: %zu sites kept, %zu replayed\n", trace,
                    fn ? "a" : "no", d->device, n_kept, n_replayed);
        VT_CHECK("the kept sites are the replay's, in order", same);
        VT_CHECK("the sites add up to the peak", !same || sum == d->peak_bytes);
        n_compared++;
        n_with_sites += n_kept > 0;
        free(kept);
        free(replayed);
        vt_analysis_release(&a2);
        vt_reader_release(&r2);
    }
    vt_analysis_release(&a);
    vt_reader_release(&r);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/vt-peak-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof(path), "%s/t.vtr", dir);
    for (unsigned t = 0; t < 3000; t++) {
        build((unsigned)below(below(10) ? 300 : 6000));
        compare(NULL, t);
        compare(recategorize, t);
        const char *why = stream_disagreement(path);
        if (why && n_streams_differ++ < 5)
            fprintf(stderr, "trace %u: the streaming loop differs: %s\n", t, why);
    }
    printf("peak sites: %u device peaks compared (%u with sites), %u capped, %u damaged\n",
           n_compared, n_with_sites, n_capped, n_damaged);
    VT_CHECK("peaks with sites were compared", n_with_sites > 3000);
    VT_CHECK_EQ("the streaming loop agrees with the reader and the analysis", n_streams_differ, 0);
    VT_CHECK("capped peaks were seen", n_capped > 100);
    VT_CHECK("damaged traces were seen", n_damaged > 500);
    unlink(path);
    rmdir(dir);
    return vt_test_done();
}

/* SPDX-License-Identifier: MIT */
/* The accounting core (src/track.c) called directly, with exact answers from vt_track_stats and
 * vt_track_totals after every step: allocations and frees per series and device, the peak and
 * its time, unmatched and failed frees (a failed free leaves the entry as it was), frees in
 * flight (double frees, an address reused before the free's end), allocations in flight, the
 * series mask of a free, a missed free, the VMM handle life cycle (references, mappings, failed
 * releases, host-located handles), graph memory, a context teardown, the fork child, arena
 * exhaustion through the vt_arena_map seam, and 8 threads at once. Every figure the exit summary
 * and the trace will report comes from these counters, so each is pinned to the unit. */
#include "vt_internal.h"
#include "vt_test.h"

#include <pthread.h>
#include <string.h>

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

static vt_series_stats_t stats_of(vt_series_t series, int device)
{
    vt_series_stats_t s;
    memset(&s, 0xff, sizeof s);
    if (!vt_track_stats(series, device, &s))
        VT_CHECK("vt_track_stats accepts the series and device", 0);
    return s;
}

static vt_totals_t totals_now(void)
{
    vt_totals_t t;
    vt_track_totals(&t);
    return t;
}

/* CHECK_SERIES: live, peak, allocs and frees of one series on one device. */
#define CHECK_SERIES(name, series, device, live, peak, allocs, frees)                              \
    do {                                                                                           \
        vt_series_stats_t s_ = stats_of((series), (device));                                       \
        VT_CHECK_EQ(name, s_.live_bytes, (live));                                                  \
        VT_CHECK_EQ(name, s_.peak_bytes, (peak));                                                  \
        VT_CHECK_EQ(name, s_.n_allocs, (allocs));                                                  \
        VT_CHECK_EQ(name, s_.n_frees, (frees));                                                    \
    } while (0)

/* CHECK_TOTALS: every field of vt_totals_t. */
#define CHECK_TOTALS(name, allocs, frees, failed, unmatched, dropped)                              \
    do {                                                                                           \
        vt_totals_t t_ = totals_now();                                                             \
        VT_CHECK_EQ(name, t_.n_allocs, (allocs));                                                  \
        VT_CHECK_EQ(name, t_.n_frees, (frees));                                                    \
        VT_CHECK_EQ(name, t_.n_failed, (failed));                                                  \
        VT_CHECK_EQ(name, t_.n_unmatched_frees, (unmatched));                                      \
        VT_CHECK_EQ(name, t_.n_dropped, (dropped));                                                \
    } while (0)

/* True when every series of every device and every total is zero. */
static bool all_zero(void)
{
    static const vt_series_stats_t zero_stats;
    static const vt_totals_t zero_totals;
    for (int series = 0; series < VT_SERIES_COUNT; series++)
        for (int d = 0; d < VT_MAX_DEVICES; d++) {
            vt_series_stats_t s = stats_of((vt_series_t)series, d);
            if (memcmp(&s, &zero_stats, sizeof s) != 0)
                return false;
        }
    vt_totals_t t = totals_now();
    return memcmp(&t, &zero_totals, sizeof t) == 0 && vt_table_count() == 0;
}

/* A successful free through both steps; returns whether the key was found. */
static bool free_ok(unsigned mask, uint64_t key)
{
    vt_free_t f;
    vt_track_free_begin(mask, key, &f);
    vt_track_free_end(&f, true, VT_API_cuMemFree_v2);
    return f.found;
}

static void release_ok(uint64_t handle)
{
    vt_free_t f;
    vt_track_vmm_release_begin(handle, &f);
    vt_track_vmm_release_end(&f, true, VT_API_cuMemRelease);
}

/* Waits until the monotonic clock has moved on, so two events get distinct times. */
static uint64_t tick(void)
{
    uint64_t t0 = vt_now_ns(), t;
    while ((t = vt_now_ns()) == t0)
        ;
    return t;
}

#define DEV   VT_MASK(VT_SERIES_DEVICE)
#define ALLOC VT_API_cuMemAlloc_v2

static void test_alloc_free(void)
{
    vt_track_reset();
    VT_CHECK("reset: all zero", all_zero());
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0x1000, 1000, ALLOC);
    vt_track_alloc(VT_SERIES_DEVICE, 1, 0x2000, 300, ALLOC);
    vt_track_alloc(VT_SERIES_DEVICE, 1, 0x3000, 5, ALLOC);
    vt_track_alloc(VT_SERIES_PINNED, 0, 0x4000, 50, VT_API_cuMemHostAlloc);
    vt_track_alloc(VT_SERIES_MANAGED, 2, 0x5000, 70, VT_API_cuMemAllocManaged);
    vt_track_alloc(VT_SERIES_IMPORTED, 0, 0x6000, 10, VT_API_cuIpcOpenMemHandle_v2);
    CHECK_SERIES("device 0", VT_SERIES_DEVICE, 0, 1000, 1000, 1, 0);
    CHECK_SERIES("device 1", VT_SERIES_DEVICE, 1, 305, 305, 2, 0);
    CHECK_SERIES("device 2 has no device memory", VT_SERIES_DEVICE, 2, 0, 0, 0, 0);
    CHECK_SERIES("pinned", VT_SERIES_PINNED, 0, 50, 50, 1, 0);
    CHECK_SERIES("managed 2", VT_SERIES_MANAGED, 2, 70, 70, 1, 0);
    CHECK_SERIES("imported", VT_SERIES_IMPORTED, 0, 10, 10, 1, 0);
    CHECK_TOTALS("6 allocs", 6, 0, 0, 0, 0);
    VT_CHECK_EQ("6 entries", vt_table_count(), 6);

    vt_alloc_t *a = vt_table_find(VT_SERIES_DEVICE, 0x2000);
    VT_CHECK("entry kept", a != NULL);
    if (a) {
        VT_CHECK_EQ("entry size", a->size_bytes, 300);
        VT_CHECK_EQ("entry device", a->device, 1);
        VT_CHECK_EQ("entry series", a->series, VT_SERIES_DEVICE);
        VT_CHECK_EQ("entry api", a->api, ALLOC);
        VT_CHECK("entry time", a->t_ns != 0 && a->t_ns <= vt_now_ns());
    }

    VT_CHECK("free device 1", free_ok(DEV, 0x2000));
    CHECK_SERIES("device 1 after free", VT_SERIES_DEVICE, 1, 5, 305, 2, 1);
    CHECK_SERIES("device 0 untouched", VT_SERIES_DEVICE, 0, 1000, 1000, 1, 0);
    CHECK_TOTALS("1 free", 6, 1, 0, 0, 0);
    /* A pinned address is not in the device series: unmatched, and the pinned bytes stay. */
    VT_CHECK("pinned key not found by a device free", !free_ok(DEV, 0x4000));
    CHECK_SERIES("pinned kept", VT_SERIES_PINNED, 0, 50, 50, 1, 0);
    CHECK_TOTALS("unmatched", 6, 1, 0, 1, 0);
    VT_CHECK("pinned free", free_ok(VT_MASK(VT_SERIES_PINNED), 0x4000));
    CHECK_SERIES("pinned freed", VT_SERIES_PINNED, 0, 0, 50, 1, 1);

    vt_track_failed(ALLOC);
    CHECK_TOTALS("failed call", 6, 2, 1, 1, 0);

    /* Devices outside 0..VT_MAX_DEVICES-1 count on device 0; queries outside fail. */
    vt_track_reset();
    vt_track_alloc(VT_SERIES_DEVICE, VT_MAX_DEVICES, 0x1000, 7, ALLOC);
    vt_track_alloc(VT_SERIES_DEVICE, -1, 0x2000, 8, ALLOC);
    CHECK_SERIES("clamped to device 0", VT_SERIES_DEVICE, 0, 15, 15, 2, 0);
    vt_series_stats_t s;
    VT_CHECK("stats: device too large", !vt_track_stats(VT_SERIES_DEVICE, VT_MAX_DEVICES, &s));
    VT_CHECK("stats: negative device", !vt_track_stats(VT_SERIES_DEVICE, -1, &s));
    VT_CHECK("stats: bad series", !vt_track_stats(VT_SERIES_COUNT, 0, &s));
    VT_CHECK("stats: last device", vt_track_stats(VT_SERIES_DEVICE, VT_MAX_DEVICES - 1, &s));
}

/* The peak and its time move only upward and only at a new maximum: equalling the peak again is
 * not a new peak. */
static void test_peak(void)
{
    vt_track_reset();
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0xa000, 100, ALLOC);
    vt_series_stats_t s1 = stats_of(VT_SERIES_DEVICE, 0);
    VT_CHECK_EQ("first peak", s1.peak_bytes, 100);
    VT_CHECK("first peak time", s1.peak_t_ns != 0);
    tick();
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0xb000, 50, ALLOC);
    vt_series_stats_t s2 = stats_of(VT_SERIES_DEVICE, 0);
    VT_CHECK_EQ("higher peak", s2.peak_bytes, 150);
    VT_CHECK("peak time moves with a new peak", s2.peak_t_ns > s1.peak_t_ns);
    tick();
    free_ok(DEV, 0xb000);
    vt_series_stats_t s3 = stats_of(VT_SERIES_DEVICE, 0);
    VT_CHECK_EQ("free: live down", s3.live_bytes, 100);
    VT_CHECK_EQ("free: peak kept", s3.peak_bytes, 150);
    VT_CHECK_EQ("free: peak time kept", s3.peak_t_ns, s2.peak_t_ns);
    tick();
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0xc000, 50, ALLOC);
    vt_series_stats_t s4 = stats_of(VT_SERIES_DEVICE, 0);
    VT_CHECK_EQ("equal again: live", s4.live_bytes, 150);
    VT_CHECK_EQ("equal again: peak", s4.peak_bytes, 150);
    VT_CHECK_EQ("equal again: peak time kept", s4.peak_t_ns, s2.peak_t_ns);
    tick();
    uint64_t before = vt_now_ns();
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0xd000, 1, ALLOC);
    vt_series_stats_t s5 = stats_of(VT_SERIES_DEVICE, 0);
    VT_CHECK_EQ("new maximum", s5.peak_bytes, 151);
    VT_CHECK("new maximum: time of the allocation", s5.peak_t_ns >= before);
    VT_CHECK("new maximum: time moved", s5.peak_t_ns > s4.peak_t_ns);
    /* Other devices and series keep their own peaks. */
    vt_track_alloc(VT_SERIES_DEVICE, 1, 0xe000, 1000, ALLOC);
    VT_CHECK_EQ("device 0 peak independent", stats_of(VT_SERIES_DEVICE, 0).peak_bytes, 151);
    VT_CHECK_EQ("managed has no peak", stats_of(VT_SERIES_MANAGED, 0).peak_bytes, 0);
    VT_CHECK_EQ("managed has no peak time", stats_of(VT_SERIES_MANAGED, 0).peak_t_ns, 0);
}

static void test_unmatched_and_failed_free(void)
{
    vt_track_reset();
    VT_CHECK("unknown key", !free_ok(DEV, 0xdead000));
    CHECK_TOTALS("unmatched free", 0, 0, 0, 1, 0);
    CHECK_SERIES("no negative memory", VT_SERIES_DEVICE, 0, 0, 0, 0, 0);
    /* A failed free of an unknown key is a failure, nothing else. */
    vt_free_t f;
    vt_track_free_begin(DEV, 0xdead000, &f);
    vt_track_free_end(&f, false, VT_API_cuMemFree_v2);
    CHECK_TOTALS("failed unknown free", 0, 0, 1, 1, 0);
    VT_CHECK_EQ("nothing inserted", vt_table_count(), 0);

    /* A failed free leaves the entry exactly as it was: it never left. */
    vt_track_reset();
    vt_track_alloc(VT_SERIES_DEVICE, 1, 0x7000, 4096, ALLOC);
    vt_alloc_t before = *vt_table_find(VT_SERIES_DEVICE, 0x7000);
    vt_track_free_begin(DEV, 0x7000, &f);
    VT_CHECK("begin finds it", f.found);
    VT_CHECK_EQ("begin keeps a copy", f.saved.size_bytes, 4096);
    VT_CHECK("in the table during the real call", vt_table_find(VT_SERIES_DEVICE, 0x7000));
    CHECK_SERIES("counted during the call", VT_SERIES_DEVICE, 1, 4096, 4096, 1, 0);
    vt_track_free_end(&f, false, VT_API_cuMemFree_v2);
    CHECK_SERIES("unchanged", VT_SERIES_DEVICE, 1, 4096, 4096, 1, 0);
    CHECK_TOTALS("failed free", 1, 0, 1, 0, 0);
    vt_alloc_t *after = vt_table_find(VT_SERIES_DEVICE, 0x7000);
    VT_CHECK("still in the table", after != NULL);
    if (after) {
        VT_CHECK_EQ("same size", after->size_bytes, before.size_bytes);
        VT_CHECK_EQ("same time", after->t_ns, before.t_ns);
        VT_CHECK_EQ("same device", after->device, before.device);
        VT_CHECK_EQ("same api", after->api, before.api);
        VT_CHECK_EQ("no free in flight", after->n_freeing, 0);
    }
    VT_CHECK_EQ("one entry", vt_table_count(), 1);
    /* ...and the next free of it works normally. */
    VT_CHECK("free after failed free", free_ok(DEV, 0x7000));
    CHECK_SERIES("freed", VT_SERIES_DEVICE, 1, 0, 4096, 1, 1);
    CHECK_TOTALS("freed", 1, 1, 1, 0, 0);
}

/* The shims' free: begin marks, end (after the real free) counts out and writes; two threads
 * freeing one pointer (both begin before either ends, in both orders of success and end):
 * exactly one free is counted, the entry leaves once, and nothing comes back. */
static void test_free_in_flight(void)
{
    vt_track_reset();
    vt_track_alloc(VT_SERIES_DEVICE, 2, 0xa000, 8192, ALLOC);
    vt_free_t f;
    vt_track_free_begin_at(DEV, 0xa000, VT_API_cuMemFree_v2, &f);
    VT_CHECK("found", f.found);
    CHECK_TOTALS("nothing counted before the real free", 1, 0, 0, 0, 0);
    CHECK_SERIES("still live during the call", VT_SERIES_DEVICE, 2, 8192, 8192, 1, 0);
    vt_track_free_end(&f, true, VT_API_cuMemFree_v2);
    CHECK_TOTALS("counted by end", 1, 1, 0, 0, 0);
    CHECK_SERIES("out after the call", VT_SERIES_DEVICE, 2, 0, 8192, 1, 1);
    VT_CHECK_EQ("table empty", vt_table_count(), 0);

    for (int order = 0; order < 4; order++) {
        vt_track_reset();
        vt_track_alloc(VT_SERIES_DEVICE, 0, 0xb000, 4096, ALLOC);
        vt_free_t f1, f2;
        vt_track_free_begin_at(DEV, 0xb000, VT_API_cuMemFree_v2, &f1);
        vt_track_free_begin_at(DEV, 0xb000, VT_API_cudaFree, &f2);
        bool first_wins = order & 1, winner_ends_first = order & 2;
        vt_free_t *win = first_wins ? &f1 : &f2, *lose = first_wins ? &f2 : &f1;
        if (winner_ends_first) {
            vt_track_free_end(win, true, VT_API_cuMemFree_v2);
            vt_track_free_end(lose, false, VT_API_cuMemFree_v2);
        } else {
            vt_track_free_end(lose, false, VT_API_cuMemFree_v2);
            CHECK_SERIES("double free: the loser ends first, still live", VT_SERIES_DEVICE, 0, 4096,
                         4096, 1, 0);
            vt_track_free_end(win, true, VT_API_cuMemFree_v2);
        }
        CHECK_TOTALS("double free: one free, one failure", 1, 1, 1, 0, 0);
        CHECK_SERIES("double free: gone once", VT_SERIES_DEVICE, 0, 0, 4096, 1, 1);
        VT_CHECK_EQ("double free: no phantom", vt_table_count(), 0);
    }

    /* The address handed to another thread before the free's end: that allocation replaces
     * the entry (the FREE is written for the free in flight), and the free's end leaves the
     * new allocation alone. */
    vt_track_reset();
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0xc000, 1024, ALLOC);
    vt_track_free_begin_at(DEV, 0xc000, VT_API_cuMemFree_v2, &f);
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0xc000, 2048, ALLOC);
    CHECK_SERIES("reused: the old one out, the new one in", VT_SERIES_DEVICE, 0, 2048, 2048, 2, 1);
    vt_free_t f2;
    vt_track_free_begin_at(DEV, 0xc000, VT_API_cuMemFree_v2, &f2); /* the new one's free begins */
    vt_track_free_end(&f, true, VT_API_cuMemFree_v2);
    CHECK_SERIES("the old free's end leaves the new one", VT_SERIES_DEVICE, 0, 2048, 2048, 2, 1);
    VT_CHECK_EQ("one entry", vt_table_count(), 1);
    vt_track_free_end(&f2, true, VT_API_cuMemFree_v2);
    CHECK_SERIES("then the new one goes", VT_SERIES_DEVICE, 0, 0, 2048, 2, 2);
    CHECK_TOTALS("two allocs, two frees", 2, 2, 0, 0, 0);

    /* Unknown addresses: end counts an unmatched free, or a failure. */
    vt_track_free_begin_at(DEV, 0xdead000, VT_API_cuMemFree_v2, &f);
    VT_CHECK("unknown: not found", !f.found);
    vt_track_free_end(&f, true, VT_API_cuMemFree_v2);
    CHECK_TOTALS("unmatched", 2, 2, 0, 1, 0);
    vt_track_free_begin_at(DEV, 0xdead000, VT_API_cuMemFree_v2, &f);
    vt_track_free_end(&f, false, VT_API_cuMemFree_v2);
    CHECK_TOTALS("failed unknown", 2, 2, 1, 1, 0);
    VT_CHECK_EQ("nothing inserted", vt_table_count(), 0);
}

/* Allocation calls in flight: a record that lowers the live bytes while some are raises the
 * peak to live + in flight (the device may have held them all); with none in flight, or when
 * it is not higher, the peak is the live bytes' own. */
static void test_inflight_peak(void)
{
    vt_track_reset();
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0x1000, 100, ALLOC);
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0x2000, 50, ALLOC);
    VT_CHECK("free", free_ok(DEV, 0x2000));
    CHECK_SERIES("nothing in flight: exact", VT_SERIES_DEVICE, 0, 100, 150, 2, 1);
    /* Another thread's allocation of 70 is in flight (its real call may have returned). */
    vt_inflight_add(70);
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0x3000, 10, ALLOC); /* 110 live */
    VT_CHECK("free while 70 in flight", free_ok(DEV, 0x3000));
    CHECK_SERIES("peak 110 + 70", VT_SERIES_DEVICE, 0, 100, 180, 3, 2);
    uint64_t at_peak[VT_CAT_COUNT];
    vt_track_peak_by_category(0, at_peak);
    VT_CHECK_EQ("in flight bytes have no call-site yet", at_peak[VT_CAT_UNKNOWN], 180);
    VT_CHECK("free below the peak", free_ok(DEV, 0x1000));
    CHECK_SERIES("not higher: peak kept", VT_SERIES_DEVICE, 0, 0, 180, 3, 3);
    /* The call in flight is recorded: its bytes leave the in-flight total as they come in. */
    vt_track_alloc_pending_at(VT_SERIES_DEVICE, 0, 0, 0x4000, 70, ALLOC, NULL, 70);
    VT_CHECK_EQ("none in flight", __atomic_load_n(&vt_inflight_bytes, __ATOMIC_SEQ_CST), 0);
    VT_CHECK("free", free_ok(DEV, 0x4000));
    CHECK_SERIES("exact again", VT_SERIES_DEVICE, 0, 0, 180, 4, 4);
    /* Host series are not device memory: no in-flight peak there. */
    vt_inflight_add(1000);
    vt_track_alloc(VT_SERIES_PINNED, 0, 0x5000, 10, VT_API_cuMemHostAlloc);
    VT_CHECK("pinned free", free_ok(VT_MASK(VT_SERIES_PINNED), 0x5000));
    CHECK_SERIES("pinned exact", VT_SERIES_PINNED, 0, 0, 10, 1, 1);
    vt_inflight_sub(1000);
}

/* A stream-ordered pool's recorded reservation is the device's: the device peak (what a reader
 * computes from the POOL records) is the allocations plus what the pools reserve beyond their
 * stream-ordered allocations, the allocations' own peak beside it. */
static void test_pool_peak(void)
{
    vt_track_reset();
    uint64_t gen = 0, written = 0;
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0x1000, 100, ALLOC);
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0x2000, 300, VT_API_cuMemAllocAsync);
    uint64_t figures[4] = {1000, 300, 1000, 300};
    vt_track_pool(0, 1, figures, ++gen, &written); /* 100 + 300 + 700 spare */
    vt_device_peak_t p;
    VT_CHECK("device peak", vt_track_device_peak(0, &p));
    VT_CHECK("the reservation counted", p.peak_bytes == 1100 && p.peak_pool_spare_bytes == 700 &&
                                            p.pool_reserved_bytes == 1000 &&
                                            p.pool_reserved_peak_bytes == 1000 &&
                                            p.pool_spare_bytes == 700);
    /* Reuse from the reservation is no new memory; a plain allocation is. */
    VT_CHECK("free", free_ok(DEV, 0x2000));
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0x3000, 900, VT_API_cuMemAllocAsync);
    vt_track_device_peak(0, &p);
    VT_CHECK_EQ("reuse: no new peak", p.peak_bytes, 1100);
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0x4000, 50, ALLOC);
    vt_track_device_peak(0, &p);
    VT_CHECK("a new peak, with the spare then",
             p.peak_bytes == 1150 && p.peak_pool_spare_bytes == 100 && p.pool_spare_bytes == 100);
    uint64_t at_peak[VT_CAT_COUNT];
    vt_track_peak_by_category(0, at_peak);
    VT_CHECK_EQ("categories at the device peak: the allocations", at_peak[VT_CAT_UNKNOWN], 1050);
    CHECK_SERIES("the allocations' own peak", VT_SERIES_DEVICE, 0, 1050, 1050, 4, 1);
    /* The pool shrinks: the peak stays, the reservation now is the sample's. */
    uint64_t shrunk[4] = {900, 900, 1000, 900};
    vt_track_pool(0, 1, shrunk, ++gen, &written);
    vt_track_device_peak(0, &p);
    VT_CHECK("shrunk", p.peak_bytes == 1150 && p.pool_reserved_bytes == 900 &&
                           p.pool_reserved_peak_bytes == 1000 && p.pool_spare_bytes == 0);
    /* Allocations in flight while live bytes fall raise the device figure too. */
    vt_inflight_add(500);
    VT_CHECK("free while 500 in flight", free_ok(DEV, 0x4000));
    vt_inflight_sub(500);
    vt_track_device_peak(0, &p);
    VT_CHECK_EQ("in flight: 1050 + 500", p.peak_bytes, 1550);
    vt_track_reset();
    vt_track_device_peak(0, &p);
    VT_CHECK("reset", p.peak_bytes == 0 && p.pool_reserved_peak_bytes == 0);
}

/* A free with several series (cuMemFree frees device and managed memory alike) finds the key in
 * whichever holds it, and counts it out of that series only. */
static void test_free_mask(void)
{
    vt_track_reset();
    vt_track_alloc(VT_SERIES_MANAGED, 0, 0x8000, 2048, VT_API_cuMemAllocManaged);
    vt_free_t f;
    vt_track_free_begin(DEV | VT_MASK(VT_SERIES_MANAGED), 0x8000, &f);
    VT_CHECK("managed found through the mask", f.found);
    VT_CHECK_EQ("saved series", f.saved.series, VT_SERIES_MANAGED);
    vt_track_free_end(&f, true, VT_API_cuMemFree_v2);
    CHECK_SERIES("managed freed", VT_SERIES_MANAGED, 0, 0, 2048, 1, 1);
    CHECK_SERIES("device untouched", VT_SERIES_DEVICE, 0, 0, 0, 0, 0);
    CHECK_TOTALS("managed free", 1, 1, 0, 0, 0);
    /* A mask without the series misses. */
    vt_track_alloc(VT_SERIES_MANAGED, 0, 0x9000, 16, VT_API_cuMemAllocManaged);
    VT_CHECK("device-only mask misses managed", !free_ok(DEV, 0x9000));
    CHECK_SERIES("managed kept", VT_SERIES_MANAGED, 0, 16, 2048, 2, 1);
    /* Should one value be live in two series, the lowest series in the mask goes first. */
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0x9000, 32, ALLOC);
    vt_track_free_begin(DEV | VT_MASK(VT_SERIES_MANAGED), 0x9000, &f);
    VT_CHECK_EQ("device first", f.found ? f.saved.series : -1, VT_SERIES_DEVICE);
    vt_track_free_end(&f, true, VT_API_cuMemFree_v2);
    CHECK_SERIES("device out", VT_SERIES_DEVICE, 0, 0, 32, 1, 1);
    CHECK_SERIES("managed still", VT_SERIES_MANAGED, 0, 16, 2048, 2, 1);
}

/* An address allocated again while live (we missed its free, e.g. at a teardown we did not see)
 * replaces the old entry: the old bytes leave their own series and device, the new ones come
 * in, nothing is counted twice. The missed free is not a free call, so totals.n_frees is not
 * moved; the series count the old entry out. */
static void test_realloc_live_key(void)
{
    vt_track_reset();
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0xf000, 100, ALLOC);
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0xf000, 300, ALLOC);
    CHECK_SERIES("replaced, not added", VT_SERIES_DEVICE, 0, 300, 300, 2, 1);
    CHECK_TOTALS("two alloc calls", 2, 0, 0, 0, 0);
    VT_CHECK_EQ("one entry", vt_table_count(), 1);
    VT_CHECK_EQ("new size", vt_table_find(VT_SERIES_DEVICE, 0xf000)->size_bytes, 300);
    /* On another device: the old bytes leave device 0, the new ones count on device 1. */
    vt_track_alloc(VT_SERIES_DEVICE, 1, 0xf000, 50, ALLOC);
    CHECK_SERIES("old device", VT_SERIES_DEVICE, 0, 0, 300, 2, 2);
    CHECK_SERIES("new device", VT_SERIES_DEVICE, 1, 50, 50, 1, 0);
    VT_CHECK_EQ("still one entry", vt_table_count(), 1);
    VT_CHECK("free", free_ok(DEV, 0xf000));
    CHECK_SERIES("freed", VT_SERIES_DEVICE, 1, 0, 50, 1, 1);
    CHECK_TOTALS("one free call", 3, 1, 0, 0, 0);
    VT_CHECK_EQ("empty", vt_table_count(), 0);
}

#define VA ((uint64_t)0x200000000000)

/* An imported handle counts nowhere; its mappings count in the imported series, never the
 * device's, until unmapped; an import of a handle already known is one more reference to it. */
static void test_vmm_import(void)
{
    vt_track_reset();
    vt_track_vmm_import(0x91, 1, VT_API_cuMemImportFromShareableHandle, NULL);
    CHECK_SERIES("import counts nowhere", VT_SERIES_IMPORTED, 1, 0, 0, 0, 0);
    CHECK_SERIES("nor in the device", VT_SERIES_DEVICE, 1, 0, 0, 0, 0);
    CHECK_TOTALS("import is no allocation", 0, 0, 0, 0, 0);
    vt_track_vmm_map(VA, 2 * MIB, 0x91);
    vt_track_vmm_map(VA + 2 * MIB, MIB, 0x91);
    CHECK_SERIES("mappings imported", VT_SERIES_IMPORTED, 1, 3 * MIB, 3 * MIB, 2, 0);
    CHECK_SERIES("device untouched", VT_SERIES_DEVICE, 1, 0, 0, 0, 0);
    release_ok(0x91);
    CHECK_SERIES("released but mapped", VT_SERIES_IMPORTED, 1, 3 * MIB, 3 * MIB, 2, 0);
    vt_track_vmm_unmap(VA, 2 * MIB, VT_API_cuMemUnmap);
    CHECK_SERIES("one unmapped", VT_SERIES_IMPORTED, 1, MIB, 3 * MIB, 2, 1);
    vt_track_vmm_unmap(VA + 2 * MIB, MIB, VT_API_cuMemUnmap);
    CHECK_SERIES("all unmapped", VT_SERIES_IMPORTED, 1, 0, 3 * MIB, 2, 2);
    CHECK_TOTALS("no device frees", 0, 0, 0, 0, 0);
    VT_CHECK_EQ("handle gone", vt_table_count(), 0);

    /* Importing a handle this process made: one more reference, still the device's. */
    vt_track_reset();
    vt_track_vmm_create(0x92, MIB, VT_SERIES_DEVICE, 0, VT_API_cuMemCreate);
    vt_track_vmm_import(0x92, 0, VT_API_cuMemImportFromShareableHandle, NULL);
    VT_CHECK_EQ("one more reference", vt_table_find(VT_SPACE_VMM_HANDLE, 0x92)->refcount, 2);
    release_ok(0x92);
    CHECK_SERIES("one release of two", VT_SERIES_DEVICE, 0, MIB, MIB, 1, 0);
    release_ok(0x92);
    CHECK_SERIES("both released", VT_SERIES_DEVICE, 0, 0, MIB, 1, 1);
    CHECK_SERIES("nothing imported", VT_SERIES_IMPORTED, 0, 0, 0, 0, 0);
    VT_CHECK_EQ("empty", vt_table_count(), 0);
}

static void test_vmm(void)
{
    vt_track_reset();
    /* create + retain + release + release: counted until the last release. */
    vt_track_vmm_create(0x11, 2 * MIB, VT_SERIES_DEVICE, 1, VT_API_cuMemCreate);
    CHECK_SERIES("create", VT_SERIES_DEVICE, 1, 2 * MIB, 2 * MIB, 1, 0);
    CHECK_TOTALS("create", 1, 0, 0, 0, 0);
    vt_alloc_t *h = vt_table_find(VT_SPACE_VMM_HANDLE, 0x11);
    VT_CHECK("handle entry", h && h->refcount == 1 && h->n_mappings == 0);
    vt_track_vmm_retain(0x11);
    VT_CHECK_EQ("retain", vt_table_find(VT_SPACE_VMM_HANDLE, 0x11)->refcount, 2);
    vt_track_vmm_retain(0x999); /* unknown: nothing */
    VT_CHECK_EQ("retain unknown", vt_table_count(), 1);
    release_ok(0x11);
    CHECK_SERIES("one release of two", VT_SERIES_DEVICE, 1, 2 * MIB, 2 * MIB, 1, 0);
    VT_CHECK_EQ("refcount 1", vt_table_find(VT_SPACE_VMM_HANDLE, 0x11)->refcount, 1);
    release_ok(0x11);
    CHECK_SERIES("last release", VT_SERIES_DEVICE, 1, 0, 2 * MIB, 1, 1);
    CHECK_TOTALS("last release", 1, 1, 0, 0, 0);
    VT_CHECK_EQ("handle gone", vt_table_count(), 0);
    release_ok(0x11);
    CHECK_TOTALS("release again: unmatched", 1, 1, 0, 1, 0);

    /* A mapped handle stays counted after its last release, until the last unmap. */
    vt_track_reset();
    vt_track_vmm_create(0x22, MIB, VT_SERIES_DEVICE, 0, VT_API_cuMemCreate);
    vt_track_vmm_map(VA, MIB, 0x22);
    vt_track_vmm_map(VA, MIB, 0x22);           /* already mapped there: ignored */
    vt_track_vmm_map(VA + 8 * MIB, MIB, 0x77); /* unknown handle: ignored */
    VT_CHECK_EQ("handle + one mapping", vt_table_count(), 2);
    VT_CHECK_EQ("n_mappings", vt_table_find(VT_SPACE_VMM_HANDLE, 0x22)->n_mappings, 1);
    release_ok(0x22);
    CHECK_SERIES("released but mapped", VT_SERIES_DEVICE, 0, MIB, MIB, 1, 0);
    CHECK_TOTALS("released but mapped", 1, 0, 0, 0, 0);
    vt_track_vmm_unmap(VA + 4 * MIB, MIB, VT_API_cuMemUnmap); /* covers nothing */
    CHECK_SERIES("unmap elsewhere", VT_SERIES_DEVICE, 0, MIB, MIB, 1, 0);
    vt_track_vmm_unmap(VA, MIB, VT_API_cuMemUnmap);
    CHECK_SERIES("last unmap", VT_SERIES_DEVICE, 0, 0, MIB, 1, 1);
    CHECK_TOTALS("last unmap", 1, 1, 0, 0, 0);
    VT_CHECK_EQ("all gone", vt_table_count(), 0);

    /* One unmap covering two mappings of one handle; a mapping of another handle outside the
     * range stays, and an unmapped handle with a reference left stays counted. */
    vt_track_reset();
    vt_track_vmm_create(0x33, 2 * MIB, VT_SERIES_DEVICE, 0, VT_API_cuMemCreate);
    vt_track_vmm_create(0x44, MIB, VT_SERIES_DEVICE, 0, VT_API_cuMemCreate);
    vt_track_vmm_map(VA, MIB, 0x33);
    vt_track_vmm_map(VA + MIB, MIB, 0x33);
    vt_track_vmm_map(VA + 4 * MIB, MIB, 0x44);
    VT_CHECK_EQ("two mappings", vt_table_find(VT_SPACE_VMM_HANDLE, 0x33)->n_mappings, 2);
    release_ok(0x33);
    CHECK_SERIES("two handles", VT_SERIES_DEVICE, 0, 3 * MIB, 3 * MIB, 2, 0);
    vt_track_vmm_unmap(VA, 2 * MIB, VT_API_cuMemUnmap);
    CHECK_SERIES("both mappings unmapped", VT_SERIES_DEVICE, 0, MIB, 3 * MIB, 2, 1);
    CHECK_TOTALS("both mappings unmapped", 2, 1, 0, 0, 0);
    VT_CHECK("other mapping kept", vt_table_find(VT_SPACE_VMM_MAP, VA + 4 * MIB) != NULL);
    VT_CHECK("mappings gone",
             !vt_table_find(VT_SPACE_VMM_MAP, VA) && !vt_table_find(VT_SPACE_VMM_MAP, VA + MIB));
    VT_CHECK_EQ("handle 0x44 + its mapping", vt_table_count(), 2);
    vt_track_vmm_unmap(VA + 4 * MIB, MIB, VT_API_cuMemUnmap);
    CHECK_SERIES("unmapped, still referenced", VT_SERIES_DEVICE, 0, MIB, 3 * MIB, 2, 1);
    release_ok(0x44);
    CHECK_SERIES("all released", VT_SERIES_DEVICE, 0, 0, 3 * MIB, 2, 2);
    CHECK_TOTALS("all released", 2, 2, 0, 0, 0);
    VT_CHECK_EQ("empty", vt_table_count(), 0);

    /* A range with a hole between its mappings (not a documented use of cuMemUnmap): both
     * mappings still go, found by the walk rather than address by address. */
    vt_track_reset();
    vt_track_vmm_create(0x77, MIB, VT_SERIES_DEVICE, 0, VT_API_cuMemCreate);
    vt_track_vmm_create(0x88, MIB, VT_SERIES_DEVICE, 0, VT_API_cuMemCreate);
    vt_track_vmm_map(VA, MIB, 0x77);
    vt_track_vmm_map(VA + 2 * MIB, MIB, 0x88);
    release_ok(0x77);
    release_ok(0x88);
    vt_track_vmm_unmap(VA, 3 * MIB, VT_API_cuMemUnmap);
    CHECK_SERIES("holed range unmapped", VT_SERIES_DEVICE, 0, 0, 2 * MIB, 2, 2);
    VT_CHECK_EQ("holed range: empty", vt_table_count(), 0);

    /* A release takes its reference when the real release has returned; a failed one takes
     * none... */
    vt_track_reset();
    vt_track_vmm_create(0x55, MIB, VT_SERIES_DEVICE, 0, VT_API_cuMemCreate);
    vt_track_vmm_retain(0x55);
    vt_free_t f;
    vt_track_vmm_release_begin(0x55, &f);
    VT_CHECK_EQ("begin keeps it", vt_table_find(VT_SPACE_VMM_HANDLE, 0x55)->refcount, 2);
    vt_track_vmm_release_end(&f, false, VT_API_cuMemRelease);
    VT_CHECK_EQ("failed: refcount kept", vt_table_find(VT_SPACE_VMM_HANDLE, 0x55)->refcount, 2);
    CHECK_SERIES("failed: still counted", VT_SERIES_DEVICE, 0, MIB, MIB, 1, 0);
    CHECK_TOTALS("failed release", 1, 0, 1, 0, 0);
    /* ...and during a last release the handle and its bytes stay until it has returned. */
    vt_track_reset();
    vt_track_vmm_create(0x66, 4 * MIB, VT_SERIES_DEVICE, 2, VT_API_cuMemCreate);
    vt_track_vmm_release_begin(0x66, &f);
    VT_CHECK("last release: found", f.found);
    CHECK_SERIES("during the last release", VT_SERIES_DEVICE, 2, 4 * MIB, 4 * MIB, 1, 0);
    CHECK_TOTALS("during the last release", 1, 0, 0, 0, 0);
    vt_track_vmm_release_end(&f, false, VT_API_cuMemRelease);
    CHECK_SERIES("failed last release", VT_SERIES_DEVICE, 2, 4 * MIB, 4 * MIB, 1, 0);
    CHECK_TOTALS("failed last release", 1, 0, 1, 0, 0);
    h = vt_table_find(VT_SPACE_VMM_HANDLE, 0x66);
    VT_CHECK("handle back", h && h->refcount == 1 && h->size_bytes == 4 * MIB && h->device == 2);
    release_ok(0x66);
    CHECK_SERIES("then released", VT_SERIES_DEVICE, 2, 0, 4 * MIB, 1, 1);
    CHECK_TOTALS("then released", 1, 1, 1, 0, 0);

    /* A host-located handle (NCCL's cuMem host path) is pinned memory, not device memory. */
    vt_track_reset();
    vt_track_vmm_create(0x88, 64 * KIB, VT_SERIES_PINNED, 0, VT_API_cuMemCreate);
    CHECK_SERIES("host handle in pinned", VT_SERIES_PINNED, 0, 64 * KIB, 64 * KIB, 1, 0);
    CHECK_SERIES("not in device", VT_SERIES_DEVICE, 0, 0, 0, 0, 0);
    release_ok(0x88);
    CHECK_SERIES("host handle released", VT_SERIES_PINNED, 0, 0, 64 * KIB, 1, 1);
}

/* Graph memory: one pseudo-entry per device, resized to each sample; samples are not allocation
 * calls, so the totals do not move. */
static void test_graph_reserved(void)
{
    vt_track_reset();
    vt_track_alloc(VT_SERIES_DEVICE, 2, 0x1000, 100, ALLOC);
    vt_track_graph_reserved(2, 2 * MIB, VT_API_cuGraphLaunch);
    CHECK_SERIES("set", VT_SERIES_DEVICE, 2, 2 * MIB + 100, 2 * MIB + 100, 2, 0);
    vt_track_graph_reserved(2, 2 * MIB, VT_API_cuGraphLaunch);
    CHECK_SERIES("same size: no change", VT_SERIES_DEVICE, 2, 2 * MIB + 100, 2 * MIB + 100, 2, 0);
    vt_track_graph_reserved(2, 6 * MIB, VT_API_cuGraphLaunch);
    CHECK_SERIES("grow", VT_SERIES_DEVICE, 2, 6 * MIB + 100, 6 * MIB + 100, 3, 1);
    vt_track_graph_reserved(2, 2 * MIB, VT_API_cuDeviceGraphMemTrim);
    CHECK_SERIES("shrink", VT_SERIES_DEVICE, 2, 2 * MIB + 100, 6 * MIB + 100, 4, 2);
    VT_CHECK_EQ("one graph entry", vt_table_count(), 2);
    vt_track_graph_reserved(3, MIB, VT_API_cuGraphLaunch);
    CHECK_SERIES("other device", VT_SERIES_DEVICE, 3, MIB, MIB, 1, 0);
    vt_track_graph_reserved(2, 0, VT_API_cuDeviceGraphMemTrim);
    CHECK_SERIES("zero", VT_SERIES_DEVICE, 2, 100, 6 * MIB + 100, 4, 3);
    vt_track_graph_reserved(2, 0, VT_API_cuDeviceGraphMemTrim);
    CHECK_SERIES("zero again: nothing", VT_SERIES_DEVICE, 2, 100, 6 * MIB + 100, 4, 3);
    CHECK_SERIES("other device kept", VT_SERIES_DEVICE, 3, MIB, MIB, 1, 0);
    CHECK_TOTALS("samples are not calls", 1, 0, 0, 0, 0);
    VT_CHECK_EQ("entries", vt_table_count(), 2);
}

/* A context teardown drops the device's device, managed and imported memory and its graph
 * reserve, and nothing else: VMM handles outlive contexts, pinned memory is the host's, other
 * devices have their own contexts. */
static void test_drop_device(void)
{
    vt_track_reset();
    vt_track_alloc(VT_SERIES_DEVICE, 1, 0x1000, 100, ALLOC);
    vt_track_alloc(VT_SERIES_DEVICE, 1, 0x2000, 200, ALLOC);
    vt_track_alloc(VT_SERIES_MANAGED, 1, 0x3000, 400, VT_API_cuMemAllocManaged);
    vt_track_alloc(VT_SERIES_IMPORTED, 1, 0x4000, 800, VT_API_cuIpcOpenMemHandle_v2);
    vt_track_vmm_create(0x55, 1600, VT_SERIES_DEVICE, 1, VT_API_cuMemCreate);
    vt_track_vmm_map(VA, 1600, 0x55);
    vt_track_alloc(VT_SERIES_PINNED, 0, 0x5000, 3200, VT_API_cuMemHostAlloc);
    vt_track_alloc(VT_SERIES_DEVICE, 2, 0x6000, 6400, ALLOC);
    vt_track_alloc(VT_SERIES_MANAGED, 2, 0x7000, 12800, VT_API_cuMemAllocManaged);
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0x8000, 25600, ALLOC);
    VT_CHECK_EQ("entries before", vt_table_count(), 10);

    vt_track_drop_device(1, 0, vt_track_serial(), VT_API_cuDevicePrimaryCtxReset_v2);
    CHECK_SERIES("device 1: the VMM handle stays", VT_SERIES_DEVICE, 1, 1600, 1900, 3, 2);
    CHECK_SERIES("managed 1 dropped", VT_SERIES_MANAGED, 1, 0, 400, 1, 1);
    CHECK_SERIES("imported 1 dropped", VT_SERIES_IMPORTED, 1, 0, 800, 1, 1);
    CHECK_SERIES("pinned kept", VT_SERIES_PINNED, 0, 3200, 3200, 1, 0);
    CHECK_SERIES("device 2 kept", VT_SERIES_DEVICE, 2, 6400, 6400, 1, 0);
    CHECK_SERIES("managed 2 kept", VT_SERIES_MANAGED, 2, 12800, 12800, 1, 0);
    CHECK_SERIES("device 0 kept", VT_SERIES_DEVICE, 0, 25600, 25600, 1, 0);
    /* Totals count calls: memory gone with a context is not a free call. */
    CHECK_TOTALS("four entries left", 9, 0, 0, 0, 0);
    VT_CHECK_EQ("entries after", vt_table_count(), 6);
    VT_CHECK("handle kept", vt_table_find(VT_SPACE_VMM_HANDLE, 0x55) != NULL);
    VT_CHECK("mapping kept", vt_table_find(VT_SPACE_VMM_MAP, VA) != NULL);
    /* The dropped addresses are gone: freeing one now is unmatched. */
    VT_CHECK("dropped address", !free_ok(DEV, 0x1000));
    CHECK_TOTALS("unmatched after drop", 9, 0, 0, 1, 0);

    /* Graph memory of the device goes with its context too. */
    vt_track_graph_reserved(2, 2 * MIB, VT_API_cuGraphLaunch);
    vt_track_drop_device(2, 0, vt_track_serial(), VT_API_cuDevicePrimaryCtxRelease_v2);
    CHECK_SERIES("device 2 and its graph reserve", VT_SERIES_DEVICE, 2, 0, 2 * MIB + 6400, 2, 2);
    CHECK_SERIES("managed 2 dropped", VT_SERIES_MANAGED, 2, 0, 12800, 1, 1);
    VT_CHECK("graph entry gone", !vt_table_find(VT_SERIES_DEVICE, ~0ULL - 2));
    /* Dropping a device with nothing left changes nothing. */
    vt_track_drop_device(2, 0, vt_track_serial(), VT_API_cuDevicePrimaryCtxRelease_v2);
    VT_CHECK_EQ("entries at the end", vt_table_count(), 4);
}

/* Contexts: cuCtxDestroy drops what was made in that context only; the primary context's
 * teardown what was made in it (or in no known context), not what created contexts on the
 * device made; an allocation made after the teardown began (a new context at the same handle)
 * stays. */
static void test_drop_context(void)
{
    enum { PRIMARY = 0x100, CREATED = 0x200, OTHER = 0x300 };
    vt_track_reset();
    vt_track_alloc_pending_at(VT_SERIES_DEVICE, 0, PRIMARY, 0x1000, 100, ALLOC, NULL, 0);
    vt_track_alloc_pending_at(VT_SERIES_DEVICE, 0, CREATED, 0x2000, 200, ALLOC, NULL, 0);
    vt_track_alloc_pending_at(VT_SERIES_MANAGED, 0, CREATED, 0x3000, 400, VT_API_cuMemAllocManaged,
                              NULL, 0);
    vt_track_alloc_pending_at(VT_SERIES_DEVICE, 0, OTHER, 0x4000, 800, ALLOC, NULL, 0);
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0x5000, 1600, ALLOC); /* no known context */
    vt_track_vmm_create(0x55, 3200, VT_SERIES_DEVICE, 0, VT_API_cuMemCreate);
    uint64_t serial = vt_track_serial();
    vt_track_alloc_pending_at(VT_SERIES_DEVICE, 0, CREATED, 0x6000, 6400, ALLOC, NULL, 0);
    vt_track_drop_context(CREATED, serial, VT_API_cuCtxDestroy_v2);
    CHECK_SERIES("created context's device memory", VT_SERIES_DEVICE, 0,
                 100 + 800 + 1600 + 3200 + 6400, 12300, 6, 1);
    CHECK_SERIES("created context's managed memory", VT_SERIES_MANAGED, 0, 0, 400, 1, 1);
    VT_CHECK("made after the teardown began: kept", vt_table_find(VT_SERIES_DEVICE, 0x6000));
    vt_track_drop_context(0, vt_track_serial(), VT_API_cuCtxDestroy_v2);
    VT_CHECK("no context: nothing dropped", vt_table_find(VT_SERIES_DEVICE, 0x5000));
    vt_track_drop_device(0, PRIMARY, vt_track_serial(), VT_API_cuDevicePrimaryCtxReset_v2);
    VT_CHECK("primary's gone", !vt_table_find(VT_SERIES_DEVICE, 0x1000));
    VT_CHECK("no context's gone", !vt_table_find(VT_SERIES_DEVICE, 0x5000));
    VT_CHECK("another context's kept", vt_table_find(VT_SERIES_DEVICE, 0x4000));
    VT_CHECK("handle kept", vt_table_find(VT_SPACE_VMM_HANDLE, 0x55));
    CHECK_SERIES("after the primary's teardown", VT_SERIES_DEVICE, 0, 800 + 3200 + 6400, 12300, 6,
                 3);
    CHECK_TOTALS("teardowns are not calls", 7, 0, 0, 0, 0);
}

static void test_fork_child(void)
{
    vt_track_reset();
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0x1000, 100, ALLOC);
    vt_track_alloc(VT_SERIES_PINNED, 0, 0x2000, 100, VT_API_cuMemHostAlloc);
    vt_track_vmm_create(0x11, MIB, VT_SERIES_DEVICE, 3, VT_API_cuMemCreate);
    vt_track_vmm_map(VA, MIB, 0x11);
    vt_track_graph_reserved(1, 2 * MIB, VT_API_cuGraphLaunch);
    vt_track_failed(ALLOC);
    free_ok(DEV, 0xbad);
    VT_CHECK("not zero before", !all_zero());
    vt_track_lock(); /* the prepare handler holds the lock across fork */
    vt_track_after_fork_child();
    VT_CHECK("everything zero in the child", all_zero());
    VT_CHECK("the parent's entries are gone", !vt_table_find(VT_SERIES_DEVICE, 0x1000));
    /* The child's lock is usable and it counts from zero. */
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0x1000, 7, ALLOC);
    CHECK_SERIES("child counts", VT_SERIES_DEVICE, 0, 7, 7, 1, 0);
    CHECK_TOTALS("child counts", 1, 0, 0, 0, 0);
    vt_track_reset();
    VT_CHECK("reset after child", all_zero());
}

/* ---- arena exhaustion through the vt_arena_map seam ----------------------------------------- */

static unsigned long n_refused_maps;

static void *refuse_map(size_t bytes)
{
    (void)bytes;
    n_refused_maps++;
    return NULL;
}

/* With the arena allowed no new chunk, inserts fail once the current chunk and the free lists
 * are used up: each failure is one dropped event, and nothing is counted for it, so the live
 * bytes are exactly the sum over the entries the table kept. */
static void test_arena_exhaustion(void)
{
    vt_track_reset();
    vt_arena_map_fn saved = vt_arena_map;
    vt_arena_map = refuse_map;
    size_t mapped_before = vt_arena_mapped_bytes();

    /* A VMM handle made before the arena runs out, mapped after. */
    vt_track_vmm_create(0x77, MIB, VT_SERIES_DEVICE, 1, VT_API_cuMemCreate);

    /* Until inserts keep failing: a failed bucket expansion drops one event while other
     * buckets still take entries, but a run of failures means the chunk is used up. */
    enum { MAX_CALLS = 1 << 20, ENOUGH_DROPS = 1000 };
    static uint8_t kept[MAX_CALLS];
    uint64_t n_calls = 0, n_kept = 0, n_drops = 0, n_in_a_row = 0, live = 0, first_dropped = 0;
    for (; n_calls < MAX_CALLS && n_in_a_row < ENOUGH_DROPS; n_calls++) {
        uint64_t key = 0x300000000000 + n_calls * 512, size = 512 * (1 + n_calls % 7);
        vt_track_alloc(VT_SERIES_DEVICE, 0, key, size, ALLOC);
        kept[n_calls] = vt_table_find(VT_SERIES_DEVICE, key) != NULL;
        if (kept[n_calls]) {
            n_kept++;
            n_in_a_row = 0;
            live += size;
        } else {
            if (!n_drops++)
                first_dropped = key;
            n_in_a_row++;
        }
    }
    VT_CHECK("inserts failed", n_in_a_row == ENOUGH_DROPS && n_kept > 1000);
    VT_CHECK("the seam was asked", n_refused_maps > 0);
    VT_CHECK_EQ("nothing mapped", vt_arena_mapped_bytes(), mapped_before);
    CHECK_TOTALS("dropped", n_calls + 1, 0, 0, 0, n_drops);
    CHECK_SERIES("only kept entries count", VT_SERIES_DEVICE, 0, live, live, n_kept, 0);
    VT_CHECK_EQ("table holds the kept", vt_table_count(), n_kept + 1);

    /* A mapping that cannot be recorded is a dropped event too; the handle stays counted. */
    vt_track_vmm_map(VA, MIB, 0x77);
    CHECK_TOTALS("dropped mapping", n_calls + 1, 0, 0, 0, n_drops + 1);
    VT_CHECK_EQ("mapping not recorded", vt_table_find(VT_SPACE_VMM_HANDLE, 0x77)->n_mappings, 0);
    CHECK_SERIES("handle counted", VT_SERIES_DEVICE, 1, MIB, MIB, 1, 0);
    n_drops++;
    release_ok(0x77);
    CHECK_SERIES("handle released", VT_SERIES_DEVICE, 1, 0, MIB, 1, 1);

    /* A dropped allocation's free is unmatched; the kept ones free normally, and freeing needs
     * no memory. */
    VT_CHECK("dropped key unknown", !free_ok(DEV, first_dropped));
    uint64_t n_found = 0;
    for (uint64_t i = 0; i < n_calls; i++)
        if (kept[i])
            n_found += free_ok(DEV, 0x300000000000 + i * 512);
    VT_CHECK_EQ("every kept entry freed", n_found, n_kept);
    CHECK_SERIES("all freed", VT_SERIES_DEVICE, 0, 0, live, n_kept, n_kept);
    CHECK_TOTALS("all freed", n_calls + 1, n_kept + 1, 0, 1, n_drops);
    VT_CHECK_EQ("empty", vt_table_count(), 0);

    /* Freed blocks are reused before any new chunk: allocation works again at once... */
    vt_track_alloc(VT_SERIES_DEVICE, 0, 0x1000, 1, ALLOC);
    VT_CHECK("reuses freed blocks", vt_table_find(VT_SERIES_DEVICE, 0x1000) != NULL);
    /* ...and with the seam restored the arena grows again. */
    vt_arena_map = saved;
    vt_track_reset();
    for (uint64_t i = 0; i < 2 * n_kept + 10000; i++)
        vt_track_alloc(VT_SERIES_DEVICE, 0, 0x400000000000 + i * 512, 1, ALLOC);
    CHECK_TOTALS("grows after restore", 2 * n_kept + 10000, 0, 0, 0, 0);
    VT_CHECK("new chunks mapped", vt_arena_mapped_bytes() > mapped_before);
    vt_track_reset();
}

/* A block of 64 KiB or more is its own mapping and goes back to the system when freed (the
 * live table's old slot arrays); smaller ones stay for reuse. */
static void test_arena_large_blocks(void)
{
    size_t before = vt_arena_mapped_bytes();
    void *big = vt_arena_alloc((size_t)3 << 20); /* over a chunk: a mapping of its own */
    VT_CHECK("a large block", big != NULL);
    VT_CHECK_EQ("mapped for it, in pages", vt_arena_mapped_bytes() - before, (size_t)3 << 20);
    ((char *)big)[((size_t)3 << 20) - 1] = 1; /* all of it writable */
    vt_arena_free(big, (size_t)3 << 20);
    VT_CHECK_EQ("given back", vt_arena_mapped_bytes(), before);
    void *small = vt_arena_alloc(4096);
    size_t with_small = vt_arena_mapped_bytes();
    vt_arena_free(small, 4096);
    VT_CHECK_EQ("a small block stays mapped", vt_arena_mapped_bytes(), with_small);
    VT_CHECK("and is reused", vt_arena_alloc(4096) == small);
    vt_arena_free(small, 4096);
    /* The smallest large block: 64 KiB, mapped for itself and given back. */
    before = vt_arena_mapped_bytes();
    void *least = vt_arena_alloc(64 * KIB);
    VT_CHECK_EQ("64 KiB: its own mapping", vt_arena_mapped_bytes() - before, 64 * KIB);
    vt_arena_free(least, 64 * KIB);
    VT_CHECK_EQ("64 KiB: given back", vt_arena_mapped_bytes(), before);
}

/* The library's memory per live allocation, at several sizes of one growing table, each checked
 * as it is reached: what the arena mapped for the table (entries, slot arrays, and the arrays
 * that growth left behind) over the entries live. 81 921 and 327 681 are just past a doubling,
 * where the slots are the emptiest (5/16 full): the most per entry; 65 537 and 131 073 would be
 * at a maximum load of 1/2. Run first, on an arena whose
 * free lists hold nothing a table this size left, so nothing is counted short. */
static void test_memory_per_live(void)
{
    static const uint64_t sizes[] = {50000, 65537, 81921, 100000, 131073, 200000, 327681, 1000000};
    vt_track_reset();
    size_t empty = vt_arena_mapped_bytes();
    uint64_t n_live = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        for (; n_live < sizes[k]; n_live++)
            vt_track_alloc(VT_SERIES_DEVICE, 0, 0x500000000000 + n_live * 512, 1, ALLOC);
        VT_CHECK_EQ("all live", vt_table_count(), n_live);
        size_t per_live = (vt_arena_mapped_bytes() - empty) / n_live;
        /* 64-byte entries and 16-byte slots at load 5/16 to 5/8: 90 to 116 bytes. More means
         * slot arrays left mapped after growth, or slots kept emptier. */
        if (per_live > 128)
            fprintf(stderr, "%llu live allocations: %zu bytes each\n", (unsigned long long)n_live,
                    per_live);
        VT_CHECK("at most 128 bytes per live allocation", per_live <= 128);
    }
    vt_track_reset();
}

/* ---- threads ----------------------------------------------------------------------------- */

#define N_THREADS 8
#define N_PER     100000
#define WINDOW    16
#define T_SIZE    4096

/* Each thread allocates on its own device and distinct keys, keeping WINDOW allocations live:
 * the device's peak is exactly WINDOW * T_SIZE whatever the interleaving. */
static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    uint64_t base = (uint64_t)(t + 1) << 40;
    for (uint64_t i = 0; i < N_PER; i++) {
        if (i >= WINDOW) {
            /* Odd threads free as the shims do (the FREE written by begin), even ones with the
             * FREE written by end: both under contention. */
            vt_free_t f;
            if (t % 2)
                vt_track_free_begin_at(DEV, base + (i - WINDOW) * 512, VT_API_cuMemFree_v2, &f);
            else
                vt_track_free_begin(DEV, base + (i - WINDOW) * 512, &f);
            vt_track_free_end(&f, true, VT_API_cuMemFree_v2);
        }
        vt_track_alloc(VT_SERIES_DEVICE, t, base + i * 512, T_SIZE, ALLOC);
    }
    for (uint64_t i = N_PER - WINDOW; i < N_PER; i++) {
        vt_free_t f;
        vt_track_free_begin(DEV, base + i * 512, &f);
        vt_track_free_end(&f, true, VT_API_cuMemFree_v2);
    }
    return NULL;
}

static void test_threads(void)
{
    vt_track_reset();
    pthread_t th[N_THREADS];
    for (int t = 0; t < N_THREADS; t++)
        VT_CHECK("thread start",
                 pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < N_THREADS; t++)
        pthread_join(th[t], NULL);
    CHECK_TOTALS("threads", N_THREADS * N_PER, N_THREADS * N_PER, 0, 0, 0);
    for (int t = 0; t < N_THREADS; t++)
        CHECK_SERIES("per thread device", VT_SERIES_DEVICE, t, 0, WINDOW * T_SIZE, N_PER, N_PER);
    VT_CHECK_EQ("table empty", vt_table_count(), 0);
}

int main(void)
{
    test_memory_per_live();
    test_alloc_free();
    test_peak();
    test_unmatched_and_failed_free();
    test_free_in_flight();
    test_inflight_peak();
    test_pool_peak();
    test_free_mask();
    test_realloc_live_key();
    test_vmm();
    test_vmm_import();
    test_graph_reserved();
    test_drop_device();
    test_drop_context();
    test_fork_child();
    test_arena_exhaustion();
    test_arena_large_blocks();
    test_threads();
    return vt_test_done();
}

/* SPDX-License-Identifier: MIT */
/* The recording path never calls malloc (hook rule 6 of docs/design.md): with malloc and friends interposed in
 * this executable, thousands of vt_track_* calls of every kind after a warm-up make zero
 * allocator calls. The host's malloc may be interposed, locked, or the thing being debugged, and
 * the same path runs in the fork child and at exit, where malloc is not safe. */
#include "vt_internal.h"
#include "nomalloc.h"
#include "vt_test.h"

#define N_ROUNDS 10000

/* One round of everything a shim may call into the core. */
static void round_trip(uint64_t i)
{
    uint64_t key = 0x300000000000 + (i % 64) * 4096; /* reused keys and fresh ones alike */
    vt_free_t f;
    vt_track_alloc(VT_SERIES_DEVICE, (int)(i % 4), key, 4096, VT_API_cuMemAlloc_v2);
    vt_track_alloc(VT_SERIES_MANAGED, 0, key + 1, 512, VT_API_cuMemAllocManaged);
    vt_track_free_begin(VT_MASK(VT_SERIES_DEVICE) | VT_MASK(VT_SERIES_MANAGED), key, &f);
    vt_track_free_end(&f, i % 5 != 0, VT_API_cuMemFree_v2); /* some fail and are restored */
    vt_track_free_begin(VT_MASK(VT_SERIES_DEVICE), key, &f);
    vt_track_free_end(&f, true, VT_API_cuMemFree_v2);
    vt_track_free_begin(VT_MASK(VT_SERIES_MANAGED), key + 1, &f);
    vt_track_free_end(&f, true, VT_API_cuMemFree_v2);
    vt_track_free_begin(VT_MASK(VT_SERIES_PINNED), 0xdead, &f); /* unmatched */
    vt_track_free_end(&f, true, VT_API_cuMemFreeHost);
    vt_track_failed(VT_API_cuMemAlloc_v2);

    uint64_t handle = 0x100 + i % 8, va = 0x200000000000 + (i % 8) * (2u << 20);
    vt_track_vmm_create(handle, 2u << 20, i % 2 ? VT_SERIES_DEVICE : VT_SERIES_PINNED, 0,
                        VT_API_cuMemCreate);
    vt_track_vmm_retain(handle);
    vt_track_vmm_map(va, 2u << 20, handle);
    vt_track_vmm_release_begin(handle, &f);
    vt_track_vmm_release_end(&f, i % 3 != 0, VT_API_cuMemRelease);
    vt_track_vmm_release_begin(handle, &f);
    vt_track_vmm_release_end(&f, true, VT_API_cuMemRelease);
    vt_track_vmm_unmap(va, 2u << 20, VT_API_cuMemUnmap);
    if (i % 3 == 0) { /* the failed release left one reference */
        vt_track_vmm_release_begin(handle, &f);
        vt_track_vmm_release_end(&f, true, VT_API_cuMemRelease);
    }
    vt_track_graph_reserved(1, (i % 4) << 21, VT_API_cuGraphLaunch);

    vt_series_stats_t s;
    vt_totals_t t;
    vt_track_stats(VT_SERIES_DEVICE, (int)(i % 4), &s);
    vt_track_totals(&t);
}

static void rounds(void *arg)
{
    uint64_t from = *(uint64_t *)arg;
    for (uint64_t i = from; i < from + N_ROUNDS; i++)
        round_trip(i);
}

int main(void)
{
    VT_CHECK("the malloc interposer counts", nm_self_test());
    uint64_t from = 0;
    rounds(&from); /* warm-up: arena chunks mapped, the tid cached, bucket arrays grown */
    vt_totals_t before;
    vt_track_totals(&before);
    from = N_ROUNDS;
    VT_CHECK_EQ("allocator calls on the recording path", nm_calls_in(rounds, &from), 0);
    vt_totals_t after;
    vt_track_totals(&after);
    /* The path really ran: 3 allocations per round (two addresses and one handle). */
    VT_CHECK_EQ("allocations recorded", after.n_allocs - before.n_allocs, 3 * N_ROUNDS);
    VT_CHECK_EQ("nothing dropped", after.n_dropped, 0);
    vt_track_graph_reserved(1, 0, VT_API_cuDeviceGraphMemTrim);
    VT_CHECK_EQ("nothing left", vt_table_count(), 0);
    return vt_test_done();
}

/* SPDX-License-Identifier: MIT */
/* bench/vmm_unmap: what recording one cuMemUnmap costs as the live table grows. A segment of
 * MAPPINGS chunks, each its own handle mapped at consecutive addresses (the way a growing
 * segment of PyTorch's expandable segments, or any VMM allocator, is built), is mapped and then
 * unmapped in one call, ROUNDS times, beside LIVE other allocations that have nothing to do with
 * it. The unmap should cost per mapping in the range, not per live allocation: the baseline is
 * the same unmap with no other allocation live, in the same run. Links the capture core
 * directly, as the unit tests do; VRAMTRACE_OUTPUT names the trace it writes.
 * Usage: vmm_unmap [LIVE] [MAPPINGS] [ROUNDS]. Output:
 * "vmm_unmap <live> <mappings> <ns per unmap, none live> <ns per unmap, LIVE live>". */
#include "vt_internal.h"
#include "bench.h"

#define CHUNK_BYTES (2ULL << 20)
#define SEGMENT_VA  0x7e0000000000ULL

/* ns per recorded unmap of a segment of n_mappings chunks, best of rounds. */
static double time_unmap(long n_mappings, long rounds)
{
    double best_ns = 0;
    for (long r = 0; r < rounds; r++) {
        for (long i = 0; i < n_mappings; i++) {
            uint64_t handle = 0x1000 + (uint64_t)i;
            vt_track_vmm_create(handle, CHUNK_BYTES, VT_SERIES_DEVICE, 0, VT_API_cuMemCreate);
            vt_track_vmm_map(SEGMENT_VA + (uint64_t)i * CHUNK_BYTES, CHUNK_BYTES, handle);
            vt_free_t f; /* released at once: the mapping alone holds it, as cuda.h allows */
            vt_track_vmm_release_begin(handle, &f);
            vt_track_vmm_release_end(&f, true, VT_API_cuMemRelease);
        }
        uint64_t t0_ns = bench_now_ns();
        vt_track_vmm_unmap(SEGMENT_VA, (uint64_t)n_mappings * CHUNK_BYTES, VT_API_cuMemUnmap);
        double elapsed_ns = (double)(bench_now_ns() - t0_ns);
        if (r == 0 || elapsed_ns < best_ns)
            best_ns = elapsed_ns;
    }
    return best_ns;
}

int main(int argc, char **argv)
{
    long n_live = argc > 1 ? atol(argv[1]) : 1000000;
    long n_mappings = argc > 2 ? atol(argv[2]) : 16;
    long rounds = argc > 3 ? atol(argv[3]) : 50;
    if (n_live < 0 || n_mappings <= 0 || rounds <= 0) {
        fprintf(stderr, "usage: vmm_unmap [LIVE] [MAPPINGS] [ROUNDS]\n");
        return 2;
    }
    vt_ensure_init();
    if (!vt_is_on()) {
        fprintf(stderr, "vmm_unmap: the capture core is off (VRAMTRACE_DISABLE?)\n");
        return 1;
    }
    double empty_ns = time_unmap(n_mappings, rounds);
    for (long i = 0; i < n_live; i++)
        vt_track_alloc_at(VT_SERIES_DEVICE, 0, 0x7f0000000000ULL + (uint64_t)i * 512, 512,
                          VT_API_cudaMalloc, NULL);
    double live_ns = time_unmap(n_mappings, rounds);
    printf("vmm_unmap %ld %ld %.0f %.0f\n", n_live, n_mappings, empty_ns, live_ns);
    return 0;
}

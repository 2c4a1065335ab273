/* SPDX-License-Identifier: MIT */
/* Temporary allocations (`report --temporary`): device memory freed within a short window of
 * its allocation, by call-site. A caching allocator serves such churn from its cache; without
 * one (or with a cache too small) each is a cudaMalloc and a cudaFree, slow and synchronizing.
 * One streaming pass; memory is bounded by the live set and the trace's stacks. */
#ifndef VT_CHURN_H
#define VT_CHURN_H
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "trace_reader.h"

#define VT_CHURN_DEFAULT_WINDOW_NS 10000000ull /* 10 ms */

typedef struct vt_churn_site_s {
    uint32_t stack_id;
    uint8_t category;         /* of its last allocation */
    uint64_t n_allocs;        /* device allocations made here */
    uint64_t n_temporary;     /* of them, freed within the window */
    uint64_t temporary_bytes; /* their bytes together: the memory churned */
} vt_churn_site_t;

typedef struct vt_churn_s {
    uint64_t window_ns;
    uint64_t n_allocs, n_temporary, temporary_bytes; /* every device allocation */
    vt_churn_site_t *
        sites; /* with temporary allocations: the most first (then the most bytes, then the lower stack id) */
    size_t n_sites;
} vt_churn_t;

/* vt_churn_load: streams the trace at path into c (zeroed here) with the window window_ns,
 * leaving r open for the sites' frames. Returns as vt_trace_stream: -1 unreadable (r
 * released) or out of memory (said), 1 damaged part-way (what came before is counted), 0. */
int vt_churn_load(const char *path, uint64_t window_ns, vt_churn_t *c, vt_reader_t *r);
void vt_churn_release(vt_churn_t *c);
#endif

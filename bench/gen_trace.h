/* SPDX-License-Identifier: MIT */
/* gen_trace's two encoders of the same events (bench/gen_trace.c says what the events are): the
 * real capture core and writer (gen_trace_core.c: the compact records of format 1.2 and later,
 * what every trace of a real run holds) and a hand encoder of the full records of format 1.1
 * (gen_trace_full.c, for the tests and measures of that form). */
#ifndef GEN_TRACE_H
#define GEN_TRACE_H
#include <stdint.h>

#define GEN_N_SITES 8 /* call-sites: stacks 2..9, leaves under one root frame (id 1) */

typedef struct gen_sink_s {
    /* An allocation of size_bytes at address from call-site site (0..GEN_N_SITES), of
     * category (vt_category_t), on device 0. */
    void (*alloc)(unsigned site, unsigned category, uint64_t address, uint64_t size_bytes);
    /* The free of the live allocation at address. */
    void (*release)(uint64_t address);
    /* The END record (allocs and frees as counted by the generator) and the file closed;
     * returns the file's size in bytes. Exits on an error. */
    uint64_t (*close)(uint64_t n_allocs, uint64_t n_frees);
} gen_sink_t;

/* The sink writing path, or exit with a one-line error. */
void gen_core_open(const char *path, gen_sink_t *sink);
void gen_full_open(const char *path, gen_sink_t *sink);

/* The call-site's return addresses, innermost first: site's leaf, then the root. */
#define GEN_ROOT_IP       0x401000ull
#define GEN_LEAF_IP(site) (GEN_ROOT_IP + 0x100 + 0x40 * (uint64_t)(site))

#endif

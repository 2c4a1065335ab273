/* SPDX-License-Identifier: MIT */
/* bench/sites.c: distinct call-sites on demand, for the drivers that link the capture core. */
#ifndef VT_BENCH_SITES_H
#define VT_BENCH_SITES_H

/* Calls leaf(arg) at the bottom of a chain of `bits` noinline frames whose branches spell the
 * low `bits` bits of site: 2^bits distinct stacks that share their outer frames. */
__attribute__((visibility("default"))) void bench_site(unsigned site, int bits,
                                                       void (*leaf)(void *), void *arg);

#endif

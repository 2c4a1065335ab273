/* SPDX-License-Identifier: MIT */
/* Distinct call-sites for bench/trace_size and bench/footprint. A shared library of its own
 * because those programs link the capture core into the executable, and the core's unwinder
 * drops every innermost frame that lies in the object holding the core (src/unwind.c: its own
 * frames): frames in the executable would all be dropped, and every stack would look alike. */
#include "sites.h"

static void step(unsigned site, int level, void (*leaf)(void *), void *arg);

/* Two different bodies (the constant), so identical-code folding cannot merge them. */
__attribute__((noinline)) static void branch_0(unsigned site, int level, void (*leaf)(void *),
                                               void *arg)
{
    volatile int tag = 0;
    step(site, level, leaf, arg);
    tag = tag + 1;
}

__attribute__((noinline)) static void branch_1(unsigned site, int level, void (*leaf)(void *),
                                               void *arg)
{
    volatile int tag = 1;
    step(site, level, leaf, arg);
    tag = tag + 2;
}

__attribute__((noinline)) static void step(unsigned site, int level, void (*leaf)(void *),
                                           void *arg)
{
    if (level <= 0)
        leaf(arg);
    else if (site & 1)
        branch_1(site >> 1, level - 1, leaf, arg);
    else
        branch_0(site >> 1, level - 1, leaf, arg);
}

void bench_site(unsigned site, int bits, void (*leaf)(void *), void *arg)
{
    volatile int tag = 2;
    step(site, bits, leaf, arg);
    tag = tag + 3;
}

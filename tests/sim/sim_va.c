/* SPDX-License-Identifier: MIT */
/* Address spaces of the simulated driver: addresses are handed out one after the other and, by
 * default, never reused, so a stale pointer can never name a newer allocation. With VTSIM_REUSE=1
 * freed ranges are kept, sorted and coalesced, and the lowest one that fits is handed out again,
 * as real drivers and pools do (a tracer must then match a free to the right allocation).
 * sim_lock held throughout. */
#include <stdlib.h>
#include "sim_internal.h"

/* First fit among the freed ranges, then the untouched rest of the space; 0 when spent. */
CUdeviceptr sim_va_space_take(sim_va_space_t *space, size_t bytes, size_t align)
{
    size_t span = sim_round_up(bytes, SIM_ALIGN_BYTES);
    if (span < bytes)
        return 0;
    for (sim_va_range_t **pp = &space->free_ranges; *pp; pp = &(*pp)->next) {
        sim_va_range_t *r = *pp;
        CUdeviceptr base = sim_round_up(r->base, align);
        if (base >= r->end || span > r->end - base)
            continue;
        CUdeviceptr tail = base + span;
        if (base == r->base) {
            r->base = tail;
            if (r->base == r->end) {
                *pp = r->next;
                free(r);
            }
        } else {
            if (tail < r->end) { /* a gap on both sides: the tail becomes its own range */
                sim_va_range_t *t = malloc(sizeof *t);
                if (t) { /* without memory the tail is just never reused */
                    t->base = tail;
                    t->end = r->end;
                    t->next = r->next;
                    r->next = t;
                }
            }
            r->end = base;
        }
        return base;
    }
    CUdeviceptr base = sim_round_up(space->next, align);
    if (base >= space->end || span > space->end - base)
        return 0;
    space->next = base + span;
    return base;
}

void sim_va_space_give(sim_va_space_t *space, CUdeviceptr base, size_t bytes)
{
    if (!sim_reuse_addresses || bytes == 0)
        return;
    CUdeviceptr end = base + sim_round_up(bytes, SIM_ALIGN_BYTES);
    sim_va_range_t **pp = &space->free_ranges;
    while (*pp && (*pp)->end < base)
        pp = &(*pp)->next;
    sim_va_range_t *r = *pp;
    if (r && r->end == base) { /* joins the range before it, and maybe the one after */
        r->end = end;
        sim_va_range_t *n = r->next;
        if (n && n->base == end) {
            r->end = n->end;
            r->next = n->next;
            free(n);
        }
        return;
    }
    if (r && r->base == end) { /* joins the range after it */
        r->base = base;
        return;
    }
    sim_va_range_t *fresh = malloc(sizeof *fresh);
    if (!fresh)
        return;
    fresh->base = base;
    fresh->end = end;
    fresh->next = r;
    *pp = fresh;
}

/* SPDX-License-Identifier: MIT */
/* Arithmetic on the sizes, counts and times a trace holds, which are any 64-bit values a hostile
 * or broken trace gives: sums that stop at UINT64_MAX instead of wrapping, and the signed change
 * between two of them, which needs 65 bits (-(2^64 - 1) .. 2^64 - 1), as a sign and a
 * magnitude instead of an int64_t. */
#ifndef VT_TOOLS_SAT_H
#define VT_TOOLS_SAT_H

#include <stdbool.h>
#include <stdint.h>

/* a + b, or UINT64_MAX when that does not fit. */
static inline uint64_t vt_sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* A sum of sizes that is exact past 2^64 - 1 (a hostile trace's live allocations may pass it;
 * a free must then take away exactly what its allocation added). */
typedef unsigned __int128 vt_u128_t;

/* v, or UINT64_MAX when that does not fit. The high half tested alone: GCC compares the whole
 * 128 bits against the constant otherwise, twice the instructions on the analyzer's hot path. */
static inline uint64_t vt_sat_u128(vt_u128_t v)
{
    return (uint64_t)(v >> 64) ? UINT64_MAX : (uint64_t)v;
}

/* a * b, or UINT64_MAX when that does not fit. */
static inline uint64_t vt_sat_mul(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* The change from one value to another: to - from, exactly. */
typedef struct vt_change_s {
    uint64_t magnitude;
    bool negative; /* to < from */
} vt_change_t;

static inline vt_change_t vt_change(uint64_t from, uint64_t to)
{
    vt_change_t c = {to >= from ? to - from : from - to, to < from};
    return c;
}

/* <0, 0, >0 as change x is below, equal to or above change y. */
static inline int vt_change_cmp(vt_change_t x, vt_change_t y)
{
    if (x.negative != y.negative)
        return x.negative ? -1 : 1;
    if (x.magnitude == y.magnitude)
        return 0;
    return (x.magnitude < y.magnitude) != x.negative ? -1 : 1;
}
#endif

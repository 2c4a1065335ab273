/* SPDX-License-Identifier: MIT */
/* The period of a sequence that repeats: a training loop allocates in the same order, from the
 * same call-sites with the same sizes, step after step, so the sequence of its allocations'
 * tokens (a hash of call-site and size) repeats with the number of allocations in a step. The
 * period is the lag at which the sequence matches itself best (autocorrelation by equality);
 * the smallest lag that matches nearly as well as the best, as every multiple of a period matches
 * as well, and one that also takes in a rarer variation (a log every ten steps) matches better. */
#ifndef VT_PERIOD_H
#define VT_PERIOD_H
#include <stddef.h>
#include <stdint.h>

/* The longest period looked for, in tokens: a step of more allocations is not found (and the
 * search costs n x this many comparisons). */
#define VT_PERIOD_MAX_LAG 4096

/* A period must match at least this share of the tokens it compares, in percent: below, the
 * sequence does not repeat (an irregular program, a caching allocator that rarely allocates). */
#define VT_PERIOD_MIN_PERCENT 80

/* A lag within this many percentage points of the best share is as good, and the smallest of
 * those is the period. */
#define VT_PERIOD_SLACK_PERCENT 10

/* vt_period_token: the token of one allocation. */
static inline uint32_t vt_period_token(uint32_t stack_id, uint64_t size_bytes)
{
    uint64_t h = ((uint64_t)stack_id << 32 | stack_id) ^ size_bytes;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return (uint32_t)h;
}

/* vt_period_find: the period of tokens[0..n) (0 when none: fewer than two periods fit, or no lag
 * matches VT_PERIOD_MIN_PERCENT of its comparisons): the smallest lag within
 * VT_PERIOD_SLACK_PERCENT of the best share; and in *start the first index where one
 * whole period matches the next as well as anywhere (what comes before it, the warm-up, does
 * not repeat). */
size_t vt_period_find(const uint32_t *tokens, size_t n, size_t *start);
#endif

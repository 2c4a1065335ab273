/* SPDX-License-Identifier: MIT */
/* The period of a repeating sequence (tools/period.c): a loop's steps after a warm-up, a step
 * whose allocations repeat inside it, a step of one allocation, noise in some steps, and
 * sequences that do not repeat (distinct tokens, too short, a period longer than half). */
#include <stdint.h>
#include <stdio.h>

#include "period.h"
#include "vt_test.h"

#define CAP 4096

static uint32_t seq[CAP];

/* prefix distinct tokens (100, 101, ...), then steps repetitions of step[0..len). */
static size_t build(size_t prefix, const uint32_t *step, size_t len, size_t steps)
{
    size_t n = 0;
    for (size_t i = 0; i < prefix; i++)
        seq[n++] = 100 + (uint32_t)i;
    for (size_t s = 0; s < steps; s++)
        for (size_t k = 0; k < len; k++)
            seq[n++] = step[k];
    return n;
}

int main(void)
{
    size_t start = 99;
    /* A warm-up of three allocations, then a step of four. */
    const uint32_t step4[] = {1, 1, 2, 3};
    size_t n = build(3, step4, 4, 30);
    VT_CHECK_EQ("warm-up: period", vt_period_find(seq, n, &start), 4);
    VT_CHECK_EQ("warm-up: start", start, 3);

    /* Layers repeat inside the step (1 2 1 2 1 2 3): the step, not the layer. */
    const uint32_t layers[] = {1, 2, 1, 2, 1, 2, 3};
    n = build(0, layers, 7, 20);
    VT_CHECK_EQ("layers: period", vt_period_find(seq, n, &start), 7);
    VT_CHECK_EQ("layers: start", start, 0);

    /* A step of one allocation (a leak and nothing else). */
    const uint32_t one[] = {5};
    n = build(2, one, 1, 10);
    VT_CHECK_EQ("one: period", vt_period_find(seq, n, &start), 1);
    VT_CHECK_EQ("one: start", start, 2);

    /* Noise: one token in every fifth step differs; still the step. */
    const uint32_t step6[] = {1, 2, 3, 4, 5, 6};
    n = build(1, step6, 6, 40);
    for (size_t s = 0; s < 40; s += 5)
        seq[1 + s * 6 + 2] = 77;
    VT_CHECK_EQ("noise: period", vt_period_find(seq, n, &start), 6);

    /* No repetition: distinct tokens; too short; a period over half the sequence. */
    n = build(200, one, 0, 0);
    VT_CHECK_EQ("distinct", vt_period_find(seq, n, &start), 0);
    VT_CHECK_EQ("empty", vt_period_find(seq, 0, &start), 0);
    VT_CHECK_EQ("one token", vt_period_find(seq, 1, &start), 0);
    n = build(50, step4, 4, 1);
    VT_CHECK_EQ("one step", vt_period_find(seq, n, &start), 0);

    /* Tokens: call-site and size both count. */
    VT_CHECK("token: size", vt_period_token(1, 4096) != vt_period_token(1, 8192));
    VT_CHECK("token: site", vt_period_token(1, 4096) != vt_period_token(2, 4096));
    VT_CHECK("token: same", vt_period_token(3, 4096) == vt_period_token(3, 4096));
    return vt_test_done();
}

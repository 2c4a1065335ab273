/* SPDX-License-Identifier: MIT */
/* The period of a sequence that repeats (period.h). */
#include "period.h"

/* How many i < n - lag have tokens[i] == tokens[i + lag]. */
static size_t matches_at(const uint32_t *tokens, size_t n, size_t lag)
{
    size_t m = 0;
    for (size_t i = 0; i + lag < n; i++)
        m += tokens[i] == tokens[i + lag];
    return m;
}

/* The first i whose window [i, i + lag) matches the next period in the most places. */
static size_t start_of(const uint32_t *tokens, size_t n, size_t lag)
{
    size_t window = 0, best = 0, best_i = 0;
    for (size_t k = 0; k < lag; k++)
        window += tokens[k] == tokens[k + lag];
    best = window;
    for (size_t i = 1; i + 2 * lag <= n; i++) {
        window -= tokens[i - 1] == tokens[i - 1 + lag];
        window += tokens[i - 1 + lag] == tokens[i - 1 + 2 * lag];
        if (window > best) {
            best = window;
            best_i = i;
        }
    }
    return best_i;
}

size_t vt_period_find(const uint32_t *tokens, size_t n, size_t *start)
{
    size_t max_lag = n / 2 < VT_PERIOD_MAX_LAG ? n / 2 : VT_PERIOD_MAX_LAG;
    /* Each lag's share of matches, in parts per million of its comparisons. */
    uint32_t share_ppm[VT_PERIOD_MAX_LAG + 1];
    uint32_t best = 0;
    *start = 0;
    for (size_t lag = 1; lag <= max_lag; lag++) {
        share_ppm[lag] = (uint32_t)((uint64_t)matches_at(tokens, n, lag) * 1000000 / (n - lag));
        if (share_ppm[lag] > best)
            best = share_ppm[lag];
    }
    if (!max_lag || best < VT_PERIOD_MIN_PERCENT * 10000u)
        return 0;
    size_t lag = 1;
    while (share_ppm[lag] + VT_PERIOD_SLACK_PERCENT * 10000u < best ||
           share_ppm[lag] < VT_PERIOD_MIN_PERCENT * 10000u)
        lag++;
    *start = start_of(tokens, n, lag);
    return lag;
}

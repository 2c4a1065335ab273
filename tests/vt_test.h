/* SPDX-License-Identifier: MIT */
/* The test harness: VT_CHECK(name, expr) prints one line per failure with file:line and the
 * expression, counts, and vt_test_done() ends the program with the summary line and status.
 * Header-only so every test program, unit or simulator, uses the same few lines. */
#ifndef VT_TEST_H
#define VT_TEST_H
#include <stdio.h>
#include <stdlib.h>

static int vt_test_n_run;
static int vt_test_n_failed;

#define VT_CHECK(name, expr)                                                                       \
    do {                                                                                           \
        vt_test_n_run++;                                                                           \
        if (!(expr)) {                                                                             \
            vt_test_n_failed++;                                                                    \
            fprintf(stderr, "%s:%d: FAIL %s: %s\n", __FILE__, __LINE__, (name), #expr);            \
        }                                                                                          \
    } while (0)

/* VT_CHECK_EQ: like VT_CHECK for two integers, printing both values on failure. */
#define VT_CHECK_EQ(name, got, want)                                                               \
    do {                                                                                           \
        long long vt_got_ = (long long)(got), vt_want_ = (long long)(want);                        \
        vt_test_n_run++;                                                                           \
        if (vt_got_ != vt_want_) {                                                                 \
            vt_test_n_failed++;                                                                    \
            fprintf(stderr, "%s:%d: FAIL %s: %s is %lld, want %lld\n", __FILE__, __LINE__, (name), \
                    #got, vt_got_, vt_want_);                                                      \
        }                                                                                          \
    } while (0)

/* Prints "N passed, M failed" and returns the process exit status (0 when all passed). */
static inline int vt_test_done(void)
{
    printf("%d passed, %d failed\n", vt_test_n_run - vt_test_n_failed, vt_test_n_failed);
    fflush(stdout);
    return vt_test_n_failed ? 1 : 0;
}
#endif

/* SPDX-License-Identifier: MIT */
/* The row formatters of the line-per-event outputs (tools/rowfmt.h) against printf: every
 * digit count and its edges (10^k - 1, 10^k, 10^k + 1), zero and UINT64_MAX, random values of
 * every bit length; hex, zero-padded and seconds likewise; names copied without their NUL; a
 * number written in two places, times through a clock's kept seconds, copies in blocks. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rowfmt.h"
#include "vt_test.h"

static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Whether each formatter writes v as printf does (vt_row_u64: and no byte past
 * VT_ROW_U64_MAX, its scratch). */
static int same_as_printf(uint64_t v)
{
    char got[64], want[64];
    memset(got, '#', sizeof(got));
    char *end = vt_row_u64(got, v);
    int ok = got[VT_ROW_U64_MAX] == '#';
    *end = '\0';
    snprintf(want, sizeof(want), "%" PRIu64, v);
    ok = ok && strcmp(got, want) == 0;
    *vt_row_hex(got, v) = '\0';
    snprintf(want, sizeof(want), "0x%" PRIx64, v);
    ok = ok && strcmp(got, want) == 0;
    *vt_row_u64_width(got, v % 1000000, 6) = '\0';
    snprintf(want, sizeof(want), "%06" PRIu64, v % 1000000);
    ok = ok && strcmp(got, want) == 0;
    *vt_row_seconds6(got, v) = '\0';
    snprintf(want, sizeof(want), "%" PRIu64 ".%06" PRIu64, v / 1000000000u,
             (v % 1000000000u) / 1000u);
    ok = ok && strcmp(got, want) == 0;
    return ok;
}

/* vt_row_u64_twice writes what vt_row_u64 does, in both places. */
static int twice_same(uint64_t v)
{
    char want[64], p[64], q[64];
    char *end = vt_row_u64(want, v);
    unsigned n = vt_row_u64_twice(p, q, v);
    return n == (unsigned)(end - want) && memcmp(p, want, n) == 0 && memcmp(q, want, n) == 0;
}

/* A run of times through one clock, as rows give them (mostly rising, the seconds changing now
 * and then, sometimes back): each as vt_row_seconds6 writes it. */
static int clock_same(uint64_t *x)
{
    vt_row_clock_t clock;
    memset(&clock, 0, sizeof(clock));
    uint64_t ns = next_random(x) >> (next_random(x) & 63);
    for (int i = 0; i < 2000; i++) {
        uint64_t r = next_random(x);
        if (r % 97 == 0)
            ns = r >> (r & 63); /* anywhere, back in time included */
        else
            ns += r % (r & 1 ? 3000000000u : 300000u);
        char got[64], want[64];
        memset(got, '#', sizeof(got));
        char *end = vt_row_clock(&clock, got, ns);
        if (got[VT_ROW_CLOCK_MAX] != '#')
            return 0;
        *end = '\0';
        *vt_row_seconds6(want, ns) = '\0';
        if (strcmp(got, want) != 0)
            return 0;
    }
    return 1;
}

int main(void)
{
    int edges_ok = same_as_printf(0) && same_as_printf(UINT64_MAX);
    for (int k = 0; k < 20; k++) {
        uint64_t p = vt_row_pow10[k];
        edges_ok = edges_ok && same_as_printf(p - 1) && same_as_printf(p) && same_as_printf(p + 1);
    }
    VT_CHECK("every digit count and its edges", edges_ok);

    uint64_t x = 88172645463325252ULL;
    int random_ok = 1;
    for (int i = 0; i < 200000 && random_ok; i++) {
        uint64_t r = next_random(&x);
        random_ok = same_as_printf(r >> (r & 63));
    }
    VT_CHECK("random values of every bit length", random_ok);

    int twice_ok = twice_same(0) && twice_same(UINT64_MAX);
    for (int k = 0; k < 20; k++) {
        uint64_t p = vt_row_pow10[k];
        twice_ok = twice_ok && twice_same(p - 1) && twice_same(p) && twice_same(p + 1);
    }
    for (int i = 0; i < 100000 && twice_ok; i++) {
        uint64_t r = next_random(&x);
        twice_ok = twice_same(r >> (r & 63));
    }
    VT_CHECK("a number written twice: as once, in both places", twice_ok);

    int clock_ok = 1;
    for (int i = 0; i < 200 && clock_ok; i++)
        clock_ok = clock_same(&x);
    VT_CHECK("times through a clock's kept seconds: as vt_row_seconds6", clock_ok);

    char copied[64];
    memset(copied, '#', sizeof(copied));
    vt_row_copy16(copied, "0123456789abcdefghijklmnopqrstuvwxyz0123456789", 17);
    VT_CHECK("a copy in blocks of 16: the bytes asked for, at most 15 more",
             memcmp(copied, "0123456789abcdefg", 17) == 0 && copied[32] == '#');

    char row[32];
    memset(row, '#', sizeof(row));
    char *end = vt_row_str(row, "weights");
    VT_CHECK("a name without its NUL", end == row + 7 && memcmp(row, "weights#", 8) == 0);
    VT_CHECK("an empty name", vt_row_str(row, "") == row);
    return vt_test_done();
}

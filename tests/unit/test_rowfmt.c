/* SPDX-License-Identifier: MIT */
/* The row formatters of the line-per-event outputs (tools/rowfmt.h) against printf: every
 * digit count and its edges (10^k - 1, 10^k, 10^k + 1), zero and UINT64_MAX, random values of
 * every bit length; hex, zero-padded and seconds likewise; names copied without their NUL. */
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

    char row[32];
    memset(row, '#', sizeof(row));
    char *end = vt_row_str(row, "weights");
    VT_CHECK("a name without its NUL", end == row + 7 && memcmp(row, "weights#", 8) == 0);
    VT_CHECK("an empty name", vt_row_str(row, "") == row);
    return vt_test_done();
}

/* SPDX-License-Identifier: MIT */
/* The shared vocabulary's small pieces (common/): the byte formatter against printf's rounding of
 * the exact quotient, on edge and random sizes; the phase path's joins, forced categories, and
 * its cuts (a path longer than it keeps, ranges nested deeper than it keeps). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "vt_categories.h"
#include "vt_phase.h"
#include "vt_test.h"
#include "vt_units.h"

/* What printf makes of bytes at decimals, for sizes a double holds exactly (below 2^53). */
static const char *printf_bytes(uint64_t v, unsigned decimals, char *buf, size_t cap)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (v < 1024) {
        snprintf(buf, cap, "%" PRIu64 " B", v);
        return buf;
    }
    double x = (double)v / 1024;
    int u = 0;
    while (x >= 1024 && u < 5)
        x /= 1024, u++;
    snprintf(buf, cap, "%.*f %s", (int)decimals, x, units[u]);
    return buf;
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_bytes(void)
{
    char got[64], want[64];
    VT_CHECK("bytes", strcmp(vt_fmt_bytes(got, sizeof got, 512, 2), "512 B") == 0);
    VT_CHECK("KiB", strcmp(vt_fmt_bytes(got, sizeof got, 1536, 2), "1.50 KiB") == 0);
    VT_CHECK("one decimal", strcmp(vt_fmt_bytes(got, sizeof got, 2363392, 1), "2.3 MiB") == 0);
    VT_CHECK("tie to even", strcmp(vt_fmt_bytes(got, sizeof got, 1152, 2), "1.12 KiB") == 0);
    VT_CHECK("carry", strcmp(vt_fmt_bytes(got, sizeof got, 1048575, 2), "1024.00 KiB") == 0);
    VT_CHECK("EiB", strcmp(vt_fmt_bytes(got, sizeof got, UINT64_MAX, 2), "16.00 EiB") == 0);
    VT_CHECK("cut", strcmp(vt_fmt_bytes(got, 5, 1536, 2), "1.50") == 0);
    int same = 1;
    for (int i = 0; i < 200000 && same; i++) {
        uint64_t v = next() >> (11 + next() % 53); /* below 2^53, every magnitude */
        unsigned d = (unsigned)(next() % 4);
        vt_fmt_bytes(got, sizeof got, v, d);
        printf_bytes(v, d, want, sizeof want);
        if (strcmp(got, want) != 0) {
            fprintf(stderr, "%" PRIu64 " at %u decimals: '%s', printf '%s'\n", v, d, got, want);
            same = 0;
        }
    }
    VT_CHECK("as printf rounds", same);
}

static void test_phase(void)
{
    vt_phase_path_t p;
    memset(&p, 0, sizeof p);
    VT_CHECK("empty", strcmp(p.text, "") == 0 && vt_phase_path_forced(&p) == -1);
    vt_phase_path_push(&p, "train", 5);
    vt_phase_path_push(&p, "vramtrace:weightsX", 17); /* the length, not the NUL, ends a name */
    VT_CHECK("joined", strcmp(p.text, "train/vramtrace:weights") == 0);
    VT_CHECK_EQ("forced", vt_phase_path_forced(&p), VT_CAT_WEIGHTS);
    vt_phase_path_push(&p, "inner", 5);
    VT_CHECK_EQ("inherited", vt_phase_path_forced(&p), VT_CAT_WEIGHTS);
    vt_phase_path_push(&p, "vramtrace:bogus", 15);
    VT_CHECK_EQ("an unknown category keeps the enclosing one", vt_phase_path_forced(&p),
                VT_CAT_WEIGHTS);
    vt_phase_path_pop(&p);
    vt_phase_path_pop(&p);
    vt_phase_path_pop(&p);
    VT_CHECK("popped", strcmp(p.text, "train") == 0 && vt_phase_path_forced(&p) == -1);
    vt_phase_path_pop(&p);
    vt_phase_path_pop(&p); /* one too many: nothing */
    VT_CHECK("all popped", strcmp(p.text, "") == 0 && p.depth == 0);
    vt_phase_path_push(&p, NULL, 0);
    VT_CHECK("unnamed", strcmp(p.text, "") == 0 && p.depth == 1);
    vt_phase_path_pop(&p);

    char name[300];
    memset(name, 'a', sizeof name);
    vt_phase_path_push(&p, name, sizeof name);
    vt_phase_path_push(&p, name, sizeof name);
    VT_CHECK_EQ("cut to what it keeps", strlen(p.text), VT_PHASE_BYTES - 1);
    VT_CHECK("with the separator", p.text[300] == '/');
    vt_phase_path_pop(&p);
    VT_CHECK_EQ("the pop restores the cut", strlen(p.text), 300);
    vt_phase_path_pop(&p);

    for (int i = 0; i < VT_PHASE_NESTING + 5; i++)
        vt_phase_path_push(&p, "d", 1);
    VT_CHECK_EQ("deep ranges are counted", p.depth, VT_PHASE_NESTING + 5);
    VT_CHECK_EQ("and leave the path alone", strlen(p.text), 2 * VT_PHASE_NESTING - 1);
    for (int i = 0; i < 5; i++)
        vt_phase_path_pop(&p);
    VT_CHECK_EQ("their pops too", strlen(p.text), 2 * VT_PHASE_NESTING - 1);
    vt_phase_path_pop(&p);
    VT_CHECK_EQ("then it shrinks", strlen(p.text), 2 * VT_PHASE_NESTING - 3);
}

int main(void)
{
    test_bytes();
    test_phase();
    return vt_test_done();
}

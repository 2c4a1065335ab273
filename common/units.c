/* SPDX-License-Identifier: MIT */
/* Bytes for people (vt_units.h), in integers: the quotient is exact, so the rounding is too. */
#include "vt_units.h"

static size_t put_u64(char *out, uint64_t v)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = digits[n - 1 - i];
    return n;
}

char *vt_fmt_bytes(char *buf, size_t cap, uint64_t bytes, unsigned decimals)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    char text[48];
    size_t len;
    if (decimals > 3)
        decimals = 3;
    unsigned u = 0;
    while (u + 1 < sizeof units / sizeof *units && bytes >> (10 * (u + 1)))
        u++;
    if (u == 0) {
        len = put_u64(text, bytes);
    } else {
        unsigned shift = 10 * u;
        uint64_t whole = bytes >> shift, pow10 = 1;
        for (unsigned i = 0; i < decimals; i++)
            pow10 *= 10;
        /* The fraction in units of 10^-decimals: rem * pow10 / 2^shift, rounded. */
        unsigned __int128 scaled =
            (unsigned __int128)(bytes & ((1ULL << shift) - 1)) * pow10; /* < 2^70 */
        uint64_t frac = (uint64_t)(scaled >> shift);
        unsigned __int128 rest = scaled & (((unsigned __int128)1 << shift) - 1);
        unsigned __int128 half = (unsigned __int128)1 << (shift - 1);
        uint64_t last = decimals ? frac : whole;
        if (rest > half || (rest == half && (last & 1)))
            frac++;
        if (frac == pow10) {
            whole++;
            frac = 0;
        }
        len = put_u64(text, whole);
        if (decimals) {
            text[len++] = '.';
            for (uint64_t d = pow10 / 10; d; d /= 10)
                text[len++] = (char)('0' + frac / d % 10);
        }
    }
    text[len++] = ' ';
    for (const char *s = units[u]; *s; s++)
        text[len++] = *s;
    if (cap) {
        size_t n = len < cap - 1 ? len : cap - 1;
        for (size_t i = 0; i < n; i++)
            buf[i] = text[i];
        buf[n] = '\0';
    }
    return buf;
}

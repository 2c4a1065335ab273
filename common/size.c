/* SPDX-License-Identifier: MIT */
/* The size grammar shared by the library and the analyzer (vt_size.h). No allocation, no
 * locale: the library parses its variables before anything else is set up. */
#include "vt_size.h"

#include <errno.h>
#include <stddef.h>

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Whether s, ignoring case, is exactly word. */
static int is_word(const char *s, const char *word)
{
    for (; *word; s++, word++)
        if (lower(*s) != *word)
            return 0;
    return *s == '\0';
}

int vt_size_parse(const char *s, uint64_t *out)
{
    /* mantissa / denominator, exact in 128 bits: 2^64 * 10^19 < 2^128. */
    unsigned __int128 mant = 0, den = 1;
    int too_big = 0;
    const char *p = s;
    if (!p || *p < '0' || *p > '9')
        return -EINVAL;
    for (; *p >= '0' && *p <= '9'; p++) {
        mant = mant * 10 + (unsigned)(*p - '0');
        if (mant > UINT64_MAX) {
            too_big = 1;
            mant = (unsigned __int128)UINT64_MAX + 1; /* saturate: stays > UINT64_MAX */
        }
    }
    if (*p == '.') {
        p++;
        if (*p < '0' || *p > '9')
            return -EINVAL;
        for (; *p >= '0' && *p <= '9'; p++)
            if (den <= UINT64_MAX / 10) { /* digits past 10^-19 of a byte change nothing */
                mant = mant * 10 + (unsigned)(*p - '0');
                den *= 10;
            }
    }
    static const char units[] = "kmgt";
    unsigned __int128 scale = 1;
    if (*p && !is_word(p, "b")) {
        const char *u = NULL;
        for (const char *c = units; *c; c++)
            if (lower(*p) == *c)
                u = c;
        if (!u)
            return -EINVAL;
        unsigned base;
        if (p[1] == '\0' || is_word(p + 1, "ib"))
            base = 1024;
        else if (is_word(p + 1, "b"))
            base = 1000;
        else
            return -EINVAL;
        for (ptrdiff_t k = 0; k <= u - units; k++)
            scale *= base;
    }
    if (too_big)
        return -ERANGE;
    /* Whole and fractional parts apart, so that no product passes 2^128: the whole part is at
     * most 2^64, the fraction's numerator below 10^19, the scale at most 2^40. */
    unsigned __int128 bytes = mant / den * scale + mant % den * scale / den;
    if (bytes > UINT64_MAX)
        return -ERANGE;
    *out = (uint64_t)bytes;
    return 0;
}

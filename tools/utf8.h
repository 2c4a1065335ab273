/* SPDX-License-Identifier: MIT */
/* UTF-8 as the outputs check it: a trace's names, paths and symbols are bytes from the traced
 * program, and a JSON, XML or HTML output must stay valid whatever they hold. */
#ifndef VT_TOOLS_UTF8_H
#define VT_TOOLS_UTF8_H

#include <stddef.h>

/* vt_utf8_len: the length (1 to 4) of the well-formed UTF-8 sequence that starts at p, or 0 when
 * the bytes there are not one (RFC 3629: no overlong forms, no surrogates U+D800..U+DFFF,
 * nothing above U+10FFFF, no truncated sequence). p must be NUL-terminated: a NUL ends a
 * sequence as any other non-continuation byte does, so nothing past it is read. */
static inline size_t vt_utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned lo = 0x80, hi = 0xbf; /* the range of the second byte */
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0; /* below: overlong */
        else if (c == 0xed)
            hi = 0x9f; /* above: a surrogate */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90; /* below: overlong */
        else if (c == 0xf4)
            hi = 0x8f; /* above: past U+10FFFF */
    } else {
        return 0; /* a continuation byte, 0xc0, 0xc1 or 0xf5..0xff */
    }
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t k = 2; k < n; k++)
        if ((p[k] & 0xc0) != 0x80)
            return 0;
    return n;
}
#endif

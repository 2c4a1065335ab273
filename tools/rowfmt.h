/* SPDX-License-Identifier: MIT */
/* Row formatting for the commands that write one line per event (timeline --csv, export
 * --format perfetto and csv): a row is built in a stack buffer with these and written with one
 * fwrite. printf parses its format and takes the stream's lock for every call; on a 1 M-event
 * trace those rows spent three quarters of their time in vfprintf (perf; docs/performance.md). Each
 * function writes at p and returns the end; the caller sizes the buffer for the widest row. */
#ifndef VT_ROWFMT_H
#define VT_ROWFMT_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define VT_ROW_U64_MAX 20 /* digits of UINT64_MAX */

/* "00".."99": two digits per division (the usual trick: half the divisions of a digit loop). */
static const char vt_row_digits2[201] =
    "00010203040506070809101112131415161718192021222324252627282930"
    "31323334353637383940414243444546474849505152535455565758596061"
    "62636465666768697071727374757677787980818283848586878889909192"
    "93949596979899";

/* 10^0 .. 10^19: the digit count of a value without a division per digit. */
static const uint64_t vt_row_pow10[20] = {1ULL,
                                          10ULL,
                                          100ULL,
                                          1000ULL,
                                          10000ULL,
                                          100000ULL,
                                          1000000ULL,
                                          10000000ULL,
                                          100000000ULL,
                                          1000000000ULL,
                                          10000000000ULL,
                                          100000000000ULL,
                                          1000000000000ULL,
                                          10000000000000ULL,
                                          100000000000000ULL,
                                          1000000000000000ULL,
                                          10000000000000000ULL,
                                          100000000000000000ULL,
                                          1000000000000000000ULL,
                                          10000000000000000000ULL};

/* v in decimal. The digits are counted first and written in place from the last: a copy from a
 * scratch buffer is a memcpy call of a variable length per number, which was a quarter of
 * `timeline --csv` (perf). */
static inline char *vt_row_u64(char *p, uint64_t v)
{
    if (v < 10) { /* the common zero of an empty category */
        *p = (char)('0' + v);
        return p + 1;
    }
    /* floor(log10(2^bits)) from the bit length (1233 / 4096 ~ log10(2)), then one compare. */
    unsigned bits = 64u - (unsigned)__builtin_clzll(v);
    unsigned guess = (bits * 1233u) >> 12;
    unsigned n = guess + 1u - (v < vt_row_pow10[guess]);
    char *end = p + n, *t = end;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--t = vt_row_digits2[d + 1];
        *--t = vt_row_digits2[d];
    }
    if (v >= 10) {
        *--t = vt_row_digits2[v * 2 + 1];
        *--t = vt_row_digits2[v * 2];
    } else {
        *--t = (char)('0' + v);
    }
    return end;
}

/* v in decimal, at least width digits (zeros in front). */
static inline char *vt_row_u64_width(char *p, uint64_t v, int width)
{
    char tmp[VT_ROW_U64_MAX];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v || n < width);
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* "0x" and v in lower-case hex, as printf's "0x%" PRIx64. */
static inline char *vt_row_hex(char *p, uint64_t v)
{
    char tmp[16];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    *p++ = '0';
    *p++ = 'x';
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* s without its terminating NUL. Byte by byte: the names written here are a few bytes, shorter
 * than a strlen and a memcpy call cost. */
static inline char *vt_row_str(char *p, const char *s)
{
    while (*s)
        *p++ = *s++;
    return p;
}

/* ns as seconds with 6 decimals, as vt_fmt_seconds6 writes it ("1.500000"). */
static inline char *vt_row_seconds6(char *p, uint64_t ns)
{
    p = vt_row_u64(p, ns / 1000000000u);
    *p++ = '.';
    return vt_row_u64_width(p, (ns % 1000000000u) / 1000u, 6);
}

/* Writes [row, end) to out. */
static inline void vt_row_write(FILE *out, const char *row, const char *end)
{
    fwrite(row, 1, (size_t)(end - row), out);
}
#endif

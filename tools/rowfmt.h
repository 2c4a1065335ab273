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

/* x < 10^8 as 8 digits (zeros in front) in a word, the first digit in its lowest byte: in
 * memory order on a little-endian machine. Two digits per table look-up, the four look-ups
 * independent of each other (a digit loop is a chain of divisions). */
static inline uint64_t vt_row_block8(uint32_t x)
{
    uint32_t hi = x / 10000u, lo = x % 10000u;
    uint16_t pair[4];
    memcpy(&pair[0], vt_row_digits2 + 2 * (hi / 100u), 2);
    memcpy(&pair[1], vt_row_digits2 + 2 * (hi % 100u), 2);
    memcpy(&pair[2], vt_row_digits2 + 2 * (lo / 100u), 2);
    memcpy(&pair[3], vt_row_digits2 + 2 * (lo % 100u), 2);
    uint64_t w;
    memcpy(&w, pair, sizeof(w));
    return w;
}

/* The last n (1..8) digits of block8's word at p, with one 8-byte store: the bytes after them
 * up to p + 8 are scratch. */
static inline void vt_row_put_last(char *p, uint64_t w, unsigned n)
{
    w >>= 8 * (8 - n); /* the leading zeros out, little-endian */
    memcpy(p, &w, sizeof(w));
}

/* v in decimal. Writes up to VT_ROW_U64_MAX bytes at p: the digits, then scratch up to
 * p + VT_ROW_U64_MAX (the caller's buffer has room for the widest number anyway); returns the
 * end of the digits. The digits are counted first and written in place, 8 at a time: a copy
 * from a scratch buffer is a memcpy call of a variable length per number, which was a quarter
 * of `timeline --csv` (perf). */
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
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n <= 8) {
        vt_row_put_last(p, vt_row_block8((uint32_t)v), n);
    } else if (n <= 16) {
        vt_row_put_last(p, vt_row_block8((uint32_t)(v / 100000000u)), n - 8);
        uint64_t w = vt_row_block8((uint32_t)(v % 100000000u));
        memcpy(p + n - 8, &w, sizeof(w));
    } else {
        uint64_t rest = v % 10000000000000000u;
        vt_row_put_last(p, vt_row_block8((uint32_t)(v / 10000000000000000u)), n - 16);
        uint64_t w = vt_row_block8((uint32_t)(rest / 100000000u));
        memcpy(p + n - 16, &w, sizeof(w));
        w = vt_row_block8((uint32_t)(rest % 100000000u));
        memcpy(p + n - 8, &w, sizeof(w));
    }
    return p + n;
#else
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
#endif
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

/* ns as seconds with 6 decimals, as vt_fmt_seconds6 writes it ("1.500000"): the microseconds
 * of the second as three pairs of digits, no loop. */
static inline char *vt_row_seconds6(char *p, uint64_t ns)
{
    uint64_t us = ns / 1000u;
    p = vt_row_u64(p, us / 1000000u);
    *p++ = '.';
    unsigned frac = (unsigned)(us % 1000000u);
    memcpy(p, vt_row_digits2 + 2 * (frac / 10000u), 2);
    memcpy(p + 2, vt_row_digits2 + 2 * (frac / 100u % 100u), 2);
    memcpy(p + 4, vt_row_digits2 + 2 * (frac % 100u), 2);
    return p + 6;
}

/* Writes [row, end) to out. */
static inline void vt_row_write(FILE *out, const char *row, const char *end)
{
    fwrite(row, 1, (size_t)(end - row), out);
}

/* Rows built in a buffer of their own and handed to stdio a buffer at a time: an fwrite per row
 * (its call, its lock, its copy into the stream's buffer) was a tenth of `timeline --csv`
 * (perf). Anything else written to out must come after vt_rowbuf_flush, to keep the order. */
#define VT_ROWBUF_BYTES ((size_t)64 * 1024)

typedef struct vt_rowbuf_s {
    FILE *out;
    size_t n; /* bytes of buf not handed to out yet */
    char buf[VT_ROWBUF_BYTES];
} vt_rowbuf_t;

static inline void vt_rowbuf_flush(vt_rowbuf_t *b)
{
    if (b->n)
        fwrite(b->buf, 1, b->n, b->out);
    b->n = 0;
}

/* Where the next row goes, with room for max bytes: the row is built there and its end given
 * to vt_rowbuf_end. */
static inline char *vt_rowbuf_room(vt_rowbuf_t *b, size_t max)
{
    if (VT_ROWBUF_BYTES - b->n < max)
        vt_rowbuf_flush(b);
    return b->buf + b->n;
}

static inline void vt_rowbuf_end(vt_rowbuf_t *b, const char *end)
{
    b->n = (size_t)(end - b->buf);
}
#endif

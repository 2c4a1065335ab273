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
 * memory order on a little-endian machine. All 8 digits at once in the word's lanes (SWAR),
 * no table and no chain of divisions: the first four digits and the last four in the two
 * 32-bit halves, each half's hundreds and remainder in its 16-bit halves, each of those's tens
 * and ones in bytes; the quotients by multiplication (n * 10486 >> 20 is n / 100 for
 * n < 10000, m * 103 >> 10 is m / 10 for m < 100), each lane masked so no other lane's bits
 * come in. */
static inline uint64_t vt_row_block8(uint32_t x)
{
    uint64_t halves = (uint64_t)(x / 10000u) | ((uint64_t)(x % 10000u) << 32);
    uint64_t hundreds = ((halves * 10486u) >> 20) & 0x0000007F0000007FULL;
    uint64_t pairs = hundreds | ((halves - 100u * hundreds) << 16);
    uint64_t tens = ((pairs * 103u) >> 10) & 0x000F000F000F000FULL;
    uint64_t digits = tens | ((pairs - 10u * tens) << 8);
    return digits + 0x3030303030303030ULL;
}

/* The last n (1..8) digits of block8's word at p, with one 8-byte store: the bytes after them
 * up to p + 8 are scratch. */
static inline void vt_row_put_last(char *p, uint64_t w, unsigned n)
{
    w >>= 8 * (8 - n); /* the leading zeros out, little-endian */
    memcpy(p, &w, sizeof(w));
}

/* The digits of v, counted from its bit length: floor(log10(2^bits)) (1233 / 4096 ~ log10(2)),
 * then one compare. v >= 1. */
static inline unsigned vt_row_digits(uint64_t v)
{
    unsigned bits = 64u - (unsigned)__builtin_clzll(v);
    unsigned guess = (bits * 1233u) >> 12;
    return guess + 1u - (v < vt_row_pow10[guess]);
}

/* v < 10^16 of n (9..16, or fewer) digits as two words stored at p, then at p + at (the second
 * over the end of the first): the 8 digits of each half, without a branch on how many the first
 * half has. */
typedef struct vt_row_words_s {
    uint64_t first, second;
    unsigned at;
} vt_row_words_t;

static inline vt_row_words_t vt_row_words16(uint64_t v, unsigned n)
{
    uint64_t hi = v / 100000000u, lo = v - hi * 100000000u;
    unsigned n_hi = n > 8 ? n - 8 : 0, n_lo = n - n_hi;
    vt_row_words_t w;
    /* n_hi 0: "00000000", which the second word then covers */
    w.first = vt_row_block8((uint32_t)hi) >> ((8 * (8 - n_hi)) & 63);
    w.second = vt_row_block8((uint32_t)lo) >> (8 * (8 - n_lo));
    w.at = n_hi;
    return w;
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
    unsigned n = vt_row_digits(v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n <= 8) {
        vt_row_put_last(p, vt_row_block8((uint32_t)v), n);
    } else if (n <= 16) {
        vt_row_words_t w = vt_row_words16(v, n);
        memcpy(p, &w.first, sizeof(w.first));
        memcpy(p + w.at, &w.second, sizeof(w.second));
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

/* vt_row_u64 into two places at once, p and q (each with its VT_ROW_U64_MAX bytes): the digits
 * are worked out once, and neither copy is read back from the other (a load of bytes just
 * stored in pieces waits for the stores). Returns the number of digits. */
static inline unsigned vt_row_u64_twice(char *p, char *q, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (v < 10) {
        *p = *q = (char)('0' + v);
        return 1;
    }
    unsigned n = vt_row_digits(v);
    if (n <= 8) {
        uint64_t w = vt_row_block8((uint32_t)v) >> (8 * (8 - n));
        memcpy(p, &w, sizeof(w));
        memcpy(q, &w, sizeof(w));
        return n;
    }
    if (n <= 16) {
        vt_row_words_t w = vt_row_words16(v, n);
        memcpy(p, &w.first, sizeof(w.first));
        memcpy(q, &w.first, sizeof(w.first));
        memcpy(p + w.at, &w.second, sizeof(w.second));
        memcpy(q + w.at, &w.second, sizeof(w.second));
        return n;
    }
#endif
    unsigned n_digits = (unsigned)(vt_row_u64(p, v) - p);
    memcpy(q, p, n_digits);
    return n_digits;
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

/* x's 8 hex digits (zeros in front, lower case) in a word, the first in its lowest byte: the
 * nibbles spread to bytes by shifts and masks, reversed into memory order, each turned into its
 * character at once (+'0', and 39 more from 'a' on, found by a carry out of the byte's low
 * nibble once 6 is added). */
static inline uint64_t vt_row_hex8(uint32_t x)
{
    uint64_t w = ((uint64_t)x | ((uint64_t)x << 16)) & 0x0000FFFF0000FFFFULL;
    w = (w | (w << 8)) & 0x00FF00FF00FF00FFULL;
    w = (w | (w << 4)) & 0x0F0F0F0F0F0F0F0FULL; /* the last digit in the lowest byte */
    w = __builtin_bswap64(w);
    uint64_t letters = ((w + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
    return w + 0x3030303030303030ULL + 39u * letters;
}

/* "0x" and v in lower-case hex, as printf's "0x%" PRIx64. Writes up to 2 + 16 bytes at p
 * (scratch after the digits); returns the end of the digits. */
static inline char *vt_row_hex(char *p, uint64_t v)
{
    *p++ = '0';
    *p++ = 'x';
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    unsigned n = v ? (67u - (unsigned)__builtin_clzll(v)) / 4u : 1u;
    if (n <= 8) {
        vt_row_put_last(p, vt_row_hex8((uint32_t)v), n);
    } else {
        vt_row_put_last(p, vt_row_hex8((uint32_t)(v >> 32)), n - 8);
        uint64_t w = vt_row_hex8((uint32_t)v);
        memcpy(p + n - 8, &w, sizeof(w));
    }
    return p + n;
#else
    char tmp[16];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
#endif
}

/* A short text kept with its length, copied as one fixed block of 16 bytes: the names a row
 * repeats (",device,", ",weights,") without a loop over their bytes. */
typedef struct vt_row_text16_s {
    char text[16];
    uint8_t len;
} vt_row_text16_t;

/* t from s and a ',' (with comma_first, one before it too); s of at most 13 bytes (longer is
 * cut). */
static inline void vt_row_text16_set(vt_row_text16_t *t, const char *s, int comma_first)
{
    memset(t, 0, sizeof(*t));
    size_t n = strlen(s), at = comma_first ? 1 : 0;
    if (n > sizeof(t->text) - 3)
        n = sizeof(t->text) - 3;
    t->text[0] = ',';
    memcpy(t->text + at, s, n);
    t->text[at + n] = ',';
    t->len = (uint8_t)(at + n + 1);
}

/* Writes 16 bytes at p (scratch after t's text); returns the end of the text. */
static inline char *vt_row_text16(char *p, const vt_row_text16_t *t)
{
    memcpy(p, t->text, sizeof(t->text));
    return p + t->len;
}

/* The string literal lit at p, its NUL as scratch after it; the end of the text. A literal's
 * size is known when compiling: a few moves, not a loop over its bytes. p is read twice. */
#define VT_ROW_LIT(p, lit) (memcpy((p), "" lit, sizeof(lit)), (p) + sizeof(lit) - 1)

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

/* The seconds of a row's time kept as text: the whole seconds change once in thousands of rows,
 * so only the six decimals are formatted per row. Zeroed: nothing kept yet. */
#define VT_ROW_CLOCK_BYTES 24 /* "SECONDS." at most 21 bytes, copied as one fixed block */

typedef struct vt_row_clock_s {
    uint64_t second; /* the whole seconds text holds */
    uint8_t len;     /* of text, the '.' included; 0: nothing yet */
    char text[VT_ROW_CLOCK_BYTES];
} vt_row_clock_t;

/* ns as vt_row_seconds6 writes it, through clock's text. Writes up to VT_ROW_CLOCK_MAX bytes at
 * p (scratch after the time); returns the end of the time. */
#define VT_ROW_CLOCK_MAX (VT_ROW_CLOCK_BYTES + 8)
static inline char *vt_row_clock(vt_row_clock_t *clock, char *p, uint64_t ns)
{
    uint64_t us = ns / 1000u, second = us / 1000000u;
    if (!clock->len || clock->second != second) {
        char *end = vt_row_u64(clock->text, second);
        *end++ = '.';
        clock->len = (uint8_t)(end - clock->text);
        clock->second = second;
    }
    memcpy(p, clock->text, VT_ROW_CLOCK_BYTES); /* a fixed size: moves, not a call */
    p += clock->len;
    uint32_t frac = (uint32_t)(us - second * 1000000u);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    vt_row_put_last(p, vt_row_block8(frac), 6); /* 8 digits, the first two zeros dropped */
#else
    memcpy(p, vt_row_digits2 + 2 * (frac / 10000u), 2);
    memcpy(p + 2, vt_row_digits2 + 2 * (frac / 100u % 100u), 2);
    memcpy(p + 4, vt_row_digits2 + 2 * (frac % 100u), 2);
#endif
    return p + 6;
}

/* n bytes from src to dst in blocks of 16: up to 15 bytes past n are copied too (the caller's
 * buffers have the room). Text a row copies is tens of bytes of a length known only at run
 * time: a memcpy call per piece cost more than the bytes. */
static inline void vt_row_copy16(char *dst, const char *src, size_t n)
{
    for (size_t i = 0; i < n; i += 16)
        memcpy(dst + i, src + i, 16);
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

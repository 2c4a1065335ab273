/* SPDX-License-Identifier: MIT */
/* Allocation-free formatting and one-line diagnostics on stderr. Everything here is
 * async-signal-safe: no malloc, no stdio, no locale; output is a single write(2) per line so
 * lines from several threads or processes do not interleave (mimalloc _mi_vsnprintf, jemalloc
 * malloc_snprintf). */
#include "vt_internal.h"

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#define VT_LOG_LINE_MAX 512

typedef struct vt_out_s {
    char *buf;
    size_t cap;
    size_t len; /* length the output would have; may exceed cap */
} vt_out_t;

static void out_char(vt_out_t *o, char c)
{
    if (o->len + 1 < o->cap)
        o->buf[o->len] = c;
    o->len++;
}

static void out_pad(vt_out_t *o, char c, int n)
{
    while (n-- > 0)
        out_char(o, c);
}

/* Appends the digits of v in base 10 or 16, padded to width with pad_char; a '-' for negative
 * numbers goes before zero padding and after space padding, as printf does. */
static void out_num(vt_out_t *o, unsigned long long v, bool negative, unsigned base, bool upper,
                    int width, char pad_char)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char tmp[24]; /* 2^64 has 20 decimal digits */
    int n = 0;
    do {
        tmp[n++] = digits[v % base];
        v /= base;
    } while (v);
    int len = n + (negative ? 1 : 0);
    if (pad_char == ' ')
        out_pad(o, ' ', width - len);
    if (negative)
        out_char(o, '-');
    if (pad_char == '0')
        out_pad(o, '0', width - len);
    while (n > 0)
        out_char(o, tmp[--n]);
}

/* vt_vfmt: vsnprintf for the subset %[0][width][.prec]{d,i,u,x,X,s,c,p,%} with length modifiers
 * l, ll and z; width and precision may be `*`, precision applies to %s only (a negative one
 * means none, as in printf). Writes at most cap bytes including the NUL, and
 * always NUL-terminates when cap > 0. Returns the length the full output would have had, so
 * truncation is `ret >= cap`. Unknown conversions are copied verbatim. AS-safe. */
size_t vt_vfmt(char *buf, size_t cap, const char *fmt, va_list ap)
{
    vt_out_t o = {buf, cap, 0};
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            out_char(&o, *p);
            continue;
        }
        const char *spec = p++;
        char pad_char = ' ';
        int width = 0, prec = -1, n_long = 0;
        bool is_size = false;
        if (*p == '0') {
            pad_char = '0';
            p++;
        }
        if (*p == '*') {
            width = va_arg(ap, int);
            p++;
        }
        while (*p >= '0' && *p <= '9')
            width = width * 10 + (*p++ - '0');
        if (*p == '.') {
            prec = 0;
            if (p[1] == '*') {
                prec = va_arg(ap, int);
                p++;
            }
            for (p++; *p >= '0' && *p <= '9'; p++)
                prec = prec * 10 + (*p - '0');
        }
        for (; *p == 'l' && n_long < 2; p++)
            n_long++;
        if (*p == 'z') {
            is_size = true;
            p++;
        }
        switch (*p) {
        case 'd':
        case 'i': {
            long long v = is_size       ? (long long)va_arg(ap, ssize_t)
                          : n_long == 2 ? va_arg(ap, long long)
                          : n_long == 1 ? va_arg(ap, long)
                                        : va_arg(ap, int);
            /* Negate in unsigned arithmetic so LLONG_MIN does not overflow. */
            unsigned long long mag = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
            out_num(&o, mag, v < 0, 10, false, width, pad_char);
            break;
        }
        case 'u':
        case 'x':
        case 'X': {
            unsigned long long v = is_size       ? va_arg(ap, size_t)
                                   : n_long == 2 ? va_arg(ap, unsigned long long)
                                   : n_long == 1 ? va_arg(ap, unsigned long)
                                                 : va_arg(ap, unsigned);
            out_num(&o, v, false, *p == 'u' ? 10 : 16, *p == 'X', width, pad_char);
            break;
        }
        case 'p':
            out_char(&o, '0');
            out_char(&o, 'x');
            out_num(&o, (uintptr_t)va_arg(ap, void *), false, 16, false, width - 2, pad_char);
            break;
        case 'c':
            out_pad(&o, ' ', width - 1);
            out_char(&o, (char)va_arg(ap, int));
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (!s)
                s = "(null)";
            int len = 0;
            while (s[len] && (prec < 0 || len < prec))
                len++;
            out_pad(&o, ' ', width - len);
            for (int i = 0; i < len; i++)
                out_char(&o, s[i]);
            break;
        }
        case '%':
            out_char(&o, '%');
            break;
        default: /* unknown or truncated spec: copy it so the mistake is visible */
            for (; spec <= p && *spec; spec++)
                out_char(&o, *spec);
            if (!*p)
                p--;
            break;
        }
    }
    if (cap > 0)
        buf[o.len < cap ? o.len : cap - 1] = '\0';
    return o.len;
}

size_t vt_fmt(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t len = vt_vfmt(buf, cap, fmt, ap);
    va_end(ap);
    return len;
}

/* Formats "vramtrace: <message>\n" into a stack buffer (truncated lines still end in a newline)
 * and writes it to fd 2 with one write(2), retrying on EINTR and short writes. errno is kept,
 * because the host may be between a failing call and its errno check. AS-safe. */
static void vt_vline(const char *fmt, va_list ap)
{
    int saved_errno = errno;
    char line[VT_LOG_LINE_MAX];
    static const char prefix[] = "vramtrace: ";
    size_t len = sizeof(prefix) - 1;
    for (size_t i = 0; i < len; i++)
        line[i] = prefix[i];
    len += vt_vfmt(line + len, sizeof(line) - len - 1, fmt, ap);
    if (len > sizeof(line) - 2)
        len = sizeof(line) - 2;
    line[len++] = '\n';
    vt_cancel_hold(); /* write: a cancellation point */
    for (size_t off = 0; off < len;) {
        ssize_t n = write(STDERR_FILENO, line + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* nowhere else to report it */
        off += (size_t)n;
    }
    errno = saved_errno;
}

/* The levels vt_log prints, set by init from VRAMTRACE_QUIET and VRAMTRACE_VERBOSE (the log
 * sits below the options, which warn through it). Relaxed atomics: set once by the thread that
 * runs init, read by any. */
static bool vt_log_quiet;
static int vt_log_verbose;

void vt_log_set_level(bool quiet, int verbose)
{
    __atomic_store_n(&vt_log_quiet, quiet, __ATOMIC_RELAXED);
    __atomic_store_n(&vt_log_verbose, verbose, __ATOMIC_RELAXED);
}

/* vt_log: a diagnostic line. Level 0 is the normal output (the exit summary), silenced by
 * VRAMTRACE_QUIET; level n > 0 prints only when VRAMTRACE_VERBOSE >= n. AS-safe. */
void vt_log(int level, const char *fmt, ...)
{
    if (level == 0 ? __atomic_load_n(&vt_log_quiet, __ATOMIC_RELAXED)
                   : __atomic_load_n(&vt_log_verbose, __ATOMIC_RELAXED) < level)
        return;
    va_list ap;
    va_start(ap, fmt);
    vt_vline(fmt, ap);
    va_end(ap);
}

/* vt_warn: a problem the user must see (bad option, capture disabled); printed even with
 * VRAMTRACE_QUIET. Callers rate-limit it. AS-safe. */
void vt_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vt_vline(fmt, ap);
    va_end(ap);
}

/* vt_escape: s as a message shows it, so a path cannot end a line or send the terminal an
 * escape sequence: backslash, control bytes and DEL as \\, \n, \t, \xHH; other bytes (UTF-8
 * included) as they are. Cut at a whole escape, with "..." when it does not fit cap bytes.
 * AS-safe. */
void vt_escape(char *buf, size_t cap, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    if (cap == 0)
        return;
    size_t used = 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[4];
        size_t n = 2;
        esc[0] = '\\';
        if (c == '\\' || c == '\n' || c == '\t') {
            esc[1] = c == '\n' ? 'n' : c == '\t' ? 't' : '\\';
        } else if (c < 0x20 || c == 0x7f) {
            esc[1] = 'x';
            esc[2] = hex[c >> 4];
            esc[3] = hex[c & 15];
            n = 4;
        } else {
            esc[0] = (char)c;
            n = 1;
        }
        if (used + n + 4 > cap) { /* room for "..." and the NUL */
            size_t dots = cap - 1 - used < 3 ? cap - 1 - used : 3;
            for (size_t i = 0; i < dots; i++)
                buf[used++] = '.';
            break;
        }
        for (size_t i = 0; i < n; i++)
            buf[used++] = esc[i];
    }
    buf[used] = '\0';
}

/* Warnings about the settings (VRAMTRACE_* values, the rules file) are held from init until the
 * process records (its first CUDA use): LD_PRELOAD reaches every process of a traced tree, and
 * a shell or a compiler given a bad value must stay silent. Formatted when issued, written by
 * vt_warn_release; beyond LATER_LINES they are dropped (the option parser caps its own). */
#define LATER_LINES      20
#define LATER_LINE_BYTES 256
static char later_lines[LATER_LINES][LATER_LINE_BYTES];
static unsigned n_later;
static bool holding VT_HOT_DATA;

/* vt_warn_hold: from now on vt_warn_later holds its lines. Init only (single thread). */
void vt_warn_hold(void)
{
    holding = true;
}

/* vt_warn_later: vt_warn, or held while vt_warn_hold is in force. AS-safe. */
void vt_warn_later(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!holding)
        vt_vline(fmt, ap);
    else if (n_later < LATER_LINES)
        vt_vfmt(later_lines[n_later++], LATER_LINE_BYTES, fmt, ap);
    va_end(ap);
}

/* vt_warn_release: the held lines, written once; later ones are written at once. Called by the
 * one thread that saw the process's first CUDA use. AS-safe. */
void vt_warn_release(void)
{
    holding = false;
    for (unsigned i = 0; i < n_later; i++)
        vt_warn("%s", later_lines[i]);
    n_later = 0;
}

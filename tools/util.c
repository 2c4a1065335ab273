/* SPDX-License-Identifier: MIT */
/* Shared helpers of the vramtrace commands. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#include "utf8.h"
#include "util.h"
#include "vt_size.h"

/* Per thread: the worker threads of a command keep their messages for the main thread. */
static _Thread_local vt_messages_t *captured;

void vt_error_capture(vt_messages_t *messages)
{
    captured = messages;
}

/* Appends "vramtrace: <message>\n" to m; a message that finds no memory is lost. */
static void capture(vt_messages_t *m, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    size_t need = m->len + sizeof("vramtrace: ") + (n > 0 ? (size_t)n : 0) + 1;
    char *text = n >= 0 ? realloc(m->text, need) : NULL;
    if (text) {
        m->text = text;
        m->len += (size_t)sprintf(text + m->len, "vramtrace: ");
        m->len += (size_t)vsnprintf(text + m->len, need - m->len, fmt, again);
        text[m->len++] = '\n';
        text[m->len] = '\0';
    }
    va_end(again);
}

int error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (captured) {
        capture(captured, fmt, ap);
    } else {
        fputs("vramtrace: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
    va_end(ap);
    return -1;
}

/* Why RLIMIT_DATA: it counts the heap and private writable mappings (Linux >= 4.7), so it
 * bounds what a hostile trace can make the analysis allocate, while the trace itself, mapped
 * read-only (tools/trace_reader.c), does not count. RLIMIT_AS would also count that mapping
 * and every shared library. A failed allocation is then an "out of memory" error of the
 * command (exit 1) instead of the kernel's OOM killer taking this or another process.
 * The sanitizer runtimes reserve terabytes of shadow memory, which the limit would refuse:
 * such builds never set it. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#    define VT_SANITIZED 1
#elif defined(__has_feature)
#    if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                     \
        __has_feature(memory_sanitizer) || __has_feature(hwaddress_sanitizer)
#        define VT_SANITIZED 1
#    endif
#endif

int vt_memory_limit(const char *value)
{
    uint64_t bytes = 0;
    if (value) {
        if (strcmp(value, "none") == 0)
            bytes = 0;
        else if (vt_size_parse(value, &bytes) != 0)
            return error("invalid --memory-limit '%s': not a size (512M, 4G) or 'none'", value);
        if (bytes == 0)
            return 0;
    } else {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages <= 0 || page <= 0)
            return 0;
        bytes = (uint64_t)pages * (uint64_t)page / 2;
    }
#ifdef VT_SANITIZED
    return 0;
#else
    struct rlimit lim;
    if (getrlimit(RLIMIT_DATA, &lim) != 0)
        return 0;
    if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur <= bytes)
        return 0; /* never raise what we were started with */
    if (lim.rlim_max != RLIM_INFINITY && bytes > lim.rlim_max)
        bytes = lim.rlim_max;
    lim.rlim_cur = (rlim_t)bytes;
    setrlimit(RLIMIT_DATA, &lim); /* best effort: without it the analysis runs uncapped */
    return 0;
#endif
}

char *vt_escaped(const char *s)
{
    size_t n = strlen(s);
    char *out = malloc(4 * n + 1);
    if (!out)
        return NULL;
    char *o = out;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\\' || *p == '\n' || *p == '\t') {
            *o++ = '\\';
            *o++ = *p == '\n' ? 'n' : *p == '\t' ? 't' : '\\';
        } else if (*p < 0x20 || *p == 0x7f) {
            o += sprintf(o, "\\x%02x", *p);
        } else {
            *o++ = (char)*p;
        }
    }
    *o = '\0';
    return out;
}

/* Writes s as XML character data: markup escaped, control bytes as '?', each byte of malformed
 * UTF-8 (utf8.h) as U+FFFD, as the JSON writer does. */
void vt_xml_text(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        size_t n = vt_utf8_len(p);
        if (c == '&' || c == '<' || c == '>' || c == '"' || c == '\'') {
            fputs(c == '&'   ? "&amp;"
                  : c == '<' ? "&lt;"
                  : c == '>' ? "&gt;"
                  : c == '"' ? "&quot;"
                             : "&apos;",
                  out);
        } else if (c < 0x20 && c != '\t') {
            fputc('?', out);
        } else if (n == 0) {
            fputs("\xef\xbf\xbd", out); /* U+FFFD, the replacement character */
            n = 1;
        } else {
            fwrite(p, 1, n, out);
        }
        p += n;
    }
}

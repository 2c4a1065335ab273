/* SPDX-License-Identifier: MIT */
/* Shared helpers of the vramtrace commands. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

int error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("vramtrace: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return -1;
}

char *read_file(const char *path, size_t *len_out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len - 1, f);
        len += n;
        if (len + 1 < cap)
            break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            errno = ENOMEM;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    int failed = ferror(f);
    int saved = errno;
    fclose(f);
    if (!buf || failed) {
        free(buf);
        errno = failed ? saved : ENOMEM;
        return NULL;
    }
    buf[len] = '\0';
    *len_out = len;
    return buf;
}

/* Writes s as XML character data: markup escaped, control bytes and invalid UTF-8 as '?'. */
void vt_xml_text(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        if (c == '&' || c == '<' || c == '>' || c == '"' || c == '\'') {
            fputs(c == '&'   ? "&amp;"
                  : c == '<' ? "&lt;"
                  : c == '>' ? "&gt;"
                  : c == '"' ? "&quot;"
                             : "&apos;",
                  out);
            p++;
            continue;
        }
        if (c < 0x80) {
            fputc(c < 0x20 && c != '\t' ? '?' : (int)c, out);
            p++;
            continue;
        }
        int n = c >= 0xf0 && c < 0xf5 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 && c < 0xe0 ? 1 : -1;
        if (c >= 0xf5)
            n = -1;
        int ok = n > 0;
        for (int k = 1; ok && k <= n; k++)
            ok = (p[k] & 0xc0) == 0x80;
        if (!ok) {
            fputc('?', out);
            p++;
            continue;
        }
        fwrite(p, 1, (size_t)n + 1, out);
        p += n + 1;
    }
}

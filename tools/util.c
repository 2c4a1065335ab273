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

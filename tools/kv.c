/* SPDX-License-Identifier: MIT */
/* `key = value` files and arguments (kv.h). Keys are [a-z0-9_]+; values run to the end of the
 * line or a `#`, trimmed, and may not be empty. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "kv.h"

void vt_kv_list_init(vt_kv_list_t *l)
{
    memset(l, 0, sizeof(*l));
}

void vt_kv_list_release(vt_kv_list_t *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->items[i].key);
        free(l->items[i].value);
    }
    free(l->items);
    vt_kv_list_init(l);
}

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && len)
        vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -2;
}

static int is_key_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static char *dup_range(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (!p) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static void push(vt_kv_list_t *l, const char *key, size_t key_len, const char *value,
                 size_t value_len, const char *file, int line)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        vt_kv_t *items = realloc(l->items, cap * sizeof(*items));
        if (!items) {
            fputs("vramtrace: out of memory\n", stderr);
            exit(1);
        }
        l->items = items, l->cap = cap;
    }
    vt_kv_t *kv = &l->items[l->n++];
    kv->key = dup_range(key, key_len);
    kv->value = dup_range(value, value_len);
    kv->file = file;
    kv->line = line;
}

/* Splits "key<sp>=<sp>value" (s without its comment and newline); returns 0 or -1. */
static int split(const char *s, const char **key, size_t *key_len, const char **value,
                 size_t *value_len)
{
    while (*s == ' ' || *s == '\t')
        s++;
    const char *k = s;
    while (is_key_char((unsigned char)*s))
        s++;
    *key = k, *key_len = (size_t)(s - k);
    while (*s == ' ' || *s == '\t')
        s++;
    if (*key_len == 0 || *s != '=')
        return -1;
    s++;
    while (*s == ' ' || *s == '\t')
        s++;
    const char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    *value = s, *value_len = (size_t)(end - s);
    return *value_len ? 0 : -1;
}

int vt_kv_is_arg(const char *arg)
{
    const char *s = arg;
    while (is_key_char((unsigned char)*s))
        s++;
    return s > arg && *s == '=';
}

int vt_kv_parse_arg(vt_kv_list_t *l, const char *arg, char *err, size_t err_len)
{
    const char *key, *value;
    size_t key_len, value_len;
    if (strchr(arg, '\n') || split(arg, &key, &key_len, &value, &value_len) != 0 || key != arg ||
        arg[key_len] != '=' || value != arg + key_len + 1)
        return fail(err, err_len, "'%s' is not a key=value argument", arg);
    push(l, key, key_len, value, value_len, NULL, 0);
    return 0;
}

int vt_kv_parse_file(vt_kv_list_t *l, const char *path, char *err, size_t err_len)
{
    size_t len;
    char *text = vt_input_read(path, VT_INPUT_MAX_BYTES, &len), buf[4096];
    if (!text) {
        int saved = errno;
        snprintf(err, err_len, "cannot open '%s': %s", path, vt_input_strerror(saved));
        errno = saved;
        return -1;
    }
    int line = 0, rc = 0;
    for (const char *at = text, *end = text + len; at < end;) {
        const char *nl = memchr(at, '\n', (size_t)(end - at));
        size_t n = nl ? (size_t)(nl - at) : (size_t)(end - at);
        line++;
        if (n >= sizeof(buf)) {
            rc = fail(err, err_len, "'%s' line %d is too long", path, line);
            break;
        }
        if (memchr(at, '\0', n)) {
            rc = fail(err, err_len, "'%s' line %d holds a NUL byte: not a text file", path, line);
            break;
        }
        memcpy(buf, at, n);
        buf[n] = '\0';
        at += n + (nl != NULL);
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        const char *p = buf;
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            continue;
        const char *key, *value;
        size_t key_len, value_len;
        if (split(p, &key, &key_len, &value, &value_len) != 0) {
            rc = fail(err, err_len, "'%s' line %d is not 'key = value'", path, line);
            break;
        }
        push(l, key, key_len, value, value_len, path, line);
    }
    free(text);
    return rc;
}

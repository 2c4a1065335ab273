/* SPDX-License-Identifier: MIT */
/* Streaming JSON writer (json.h). Strings are escaped per RFC 8259; bytes >= 0x80 pass through,
 * so UTF-8 stays UTF-8. */
#include <inttypes.h>
#include <string.h>

#include "json.h"

void vt_json_init(vt_json_t *j, FILE *out)
{
    memset(j, 0, sizeof(*j));
    j->out = out;
}

static void indent(vt_json_t *j)
{
    fputc('\n', j->out);
    for (int i = 0; i < j->depth; i++)
        fputs("  ", j->out);
}

static void put_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p == '\t')
            fputs("\\t", out);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

/* Starts an item: the comma, the newline and indentation, and "key": inside an object. */
static void item(vt_json_t *j, const char *key)
{
    if (j->depth > 0) {
        if (j->n_items[j->depth]++)
            fputc(',', j->out);
        indent(j);
    }
    if (key) {
        put_string(j->out, key);
        fputs(": ", j->out);
    }
}

static void open_(vt_json_t *j, const char *key, char c)
{
    item(j, key);
    fputc(c, j->out);
    if (j->depth < VT_JSON_MAX_DEPTH - 1)
        j->depth++;
    j->n_items[j->depth] = 0;
}

static void close_(vt_json_t *j, char c)
{
    int had_items = j->n_items[j->depth] > 0;
    if (j->depth > 0)
        j->depth--;
    if (had_items)
        indent(j);
    fputc(c, j->out);
}

void vt_json_begin_object(vt_json_t *j, const char *key)
{
    open_(j, key, '{');
}

void vt_json_end_object(vt_json_t *j)
{
    close_(j, '}');
}

void vt_json_begin_array(vt_json_t *j, const char *key)
{
    open_(j, key, '[');
}

void vt_json_end_array(vt_json_t *j)
{
    close_(j, ']');
}

void vt_json_uint(vt_json_t *j, const char *key, uint64_t v)
{
    item(j, key);
    fprintf(j->out, "%" PRIu64, v);
}

void vt_json_int(vt_json_t *j, const char *key, int64_t v)
{
    item(j, key);
    fprintf(j->out, "%" PRId64, v);
}

void vt_json_bool(vt_json_t *j, const char *key, int v)
{
    item(j, key);
    fputs(v ? "true" : "false", j->out);
}

void vt_json_string(vt_json_t *j, const char *key, const char *v)
{
    item(j, key);
    put_string(j->out, v);
}

void vt_json_literal(vt_json_t *j, const char *key, const char *literal)
{
    item(j, key);
    fputs(literal, j->out);
}

void vt_json_finish(vt_json_t *j)
{
    fputc('\n', j->out);
}

/* SPDX-License-Identifier: MIT */
/* Streaming JSON writer (json.h). Strings are escaped per RFC 8259; well-formed UTF-8 passes
 * through, every byte of a malformed sequence becomes U+FFFD (utf8.h), so the output is valid
 * JSON whatever bytes a trace holds. */
#include <inttypes.h>
#include <string.h>

#include "json.h"
#include "utf8.h"

void vt_json_init(vt_json_t *j, FILE *out)
{
    memset(j, 0, sizeof(*j));
    j->out = out;
}

static void indent(vt_json_t *j)
{
    if (j->compact)
        return;
    fputc('\n', j->out);
    for (int i = 0; i < j->depth; i++)
        fputs("  ", j->out);
}

void vt_json_put_string(FILE *out, const char *s, int in_html)
{
    fputc('"', out);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        size_t n = vt_utf8_len(p);
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc((int)c, out);
        } else if (c == '\n') {
            fputs("\\n", out);
        } else if (c == '\t') {
            fputs("\\t", out);
        } else if (c < 0x20 || (in_html && (c == '<' || c == '>' || c == '&'))) {
            fprintf(out, "\\u%04x", c);
        } else if (n == 0) {
            fputs("\xef\xbf\xbd", out); /* U+FFFD, the replacement character */
            n = 1;
        } else {
            fwrite(p, 1, n, out);
        }
        p += n;
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
        vt_json_put_string(j->out, key, j->in_html);
        fputs(j->compact ? ":" : ": ", j->out);
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

void vt_json_change(vt_json_t *j, const char *key, uint64_t from, uint64_t to)
{
    item(j, key);
    if (to >= from)
        fprintf(j->out, "%" PRIu64, to - from);
    else
        fprintf(j->out, "-%" PRIu64, from - to);
}

void vt_json_bool(vt_json_t *j, const char *key, int v)
{
    item(j, key);
    fputs(v ? "true" : "false", j->out);
}

void vt_json_string(vt_json_t *j, const char *key, const char *v)
{
    item(j, key);
    vt_json_put_string(j->out, v, j->in_html);
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

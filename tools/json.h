/* SPDX-License-Identifier: MIT */
/* The one JSON writer of the tools (report --json and every other --json, the exports, data
 * embedded in a page): objects, arrays, integers, strings, two-space indentation, keys in the
 * order written. Strings go through one escaper, vt_json_put_string, which keeps the output
 * valid JSON whatever bytes a trace holds: each byte of malformed UTF-8 becomes U+FFFD. */
#ifndef VT_JSON_H
#define VT_JSON_H
#include <stdint.h>
#include <stdio.h>

#define VT_JSON_MAX_DEPTH 32

typedef struct vt_json_s {
    FILE *out;
    int depth;
    int n_items[VT_JSON_MAX_DEPTH]; /* items written so far at each depth */
    int in_html; /* set after vt_json_init: the strings are safe inside an HTML <script> */
    int compact; /* set after vt_json_init: no newlines nor indentation (data inside a page) */
} vt_json_t;

/* vt_json_put_string: s as a JSON string, quotes included: '"', '\\' and control bytes
 * escaped, well-formed UTF-8 as it is, each byte of a malformed sequence (utf8.h) as U+FFFD.
 * in_html: '<', '>' and '&' as \u003c, \u003e, \u0026 too, so "</script>" cannot end the
 * element the data is embedded in. For writers that lay out their own JSON (the exports). */
void vt_json_put_string(FILE *out, const char *s, int in_html);

void vt_json_init(vt_json_t *j, FILE *out);
void vt_json_begin_object(vt_json_t *j, const char *key); /* key: NULL inside arrays/at top */
void vt_json_end_object(vt_json_t *j);
void vt_json_begin_array(vt_json_t *j, const char *key);
void vt_json_end_array(vt_json_t *j);
void vt_json_uint(vt_json_t *j, const char *key, uint64_t v);
void vt_json_int(vt_json_t *j, const char *key, int64_t v);
/* The change to - from as an integer, exactly (it may lie outside int64_t: sat.h). */
void vt_json_change(vt_json_t *j, const char *key, uint64_t from, uint64_t to);
void vt_json_bool(vt_json_t *j, const char *key, int v);
void vt_json_string(vt_json_t *j, const char *key, const char *v);
/* A literal written as it is: a number the caller formatted, or null. */
void vt_json_literal(vt_json_t *j, const char *key, const char *literal);
void vt_json_finish(vt_json_t *j); /* the newline after the top-level value */
#endif

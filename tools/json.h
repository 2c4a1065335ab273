/* SPDX-License-Identifier: MIT */
/* A small streaming JSON writer for the tools' --json output: objects, arrays, integers,
 * strings, two-space indentation, keys in the order written. */
#ifndef VT_JSON_H
#define VT_JSON_H
#include <stdint.h>
#include <stdio.h>

#define VT_JSON_MAX_DEPTH 32

typedef struct vt_json_s {
    FILE *out;
    int depth;
    int n_items[VT_JSON_MAX_DEPTH]; /* items written so far at each depth */
} vt_json_t;

void vt_json_init(vt_json_t *j, FILE *out);
void vt_json_begin_object(vt_json_t *j, const char *key); /* key: NULL inside arrays/at top */
void vt_json_end_object(vt_json_t *j);
void vt_json_begin_array(vt_json_t *j, const char *key);
void vt_json_end_array(vt_json_t *j);
void vt_json_uint(vt_json_t *j, const char *key, uint64_t v);
void vt_json_int(vt_json_t *j, const char *key, int64_t v);
void vt_json_bool(vt_json_t *j, const char *key, int v);
void vt_json_string(vt_json_t *j, const char *key, const char *v);
/* A literal written as it is: a number the caller formatted, or null. */
void vt_json_literal(vt_json_t *j, const char *key, const char *literal);
void vt_json_finish(vt_json_t *j); /* the newline after the top-level value */
#endif

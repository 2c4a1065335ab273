/* SPDX-License-Identifier: MIT */
/* `key = value` settings from files (one a line, `#` comments) and from `key=value` arguments,
 * kept in order with where each came from, so later ones override earlier ones and messages
 * can name the file and line. No printing: errors come back in a caller's buffer. */
#ifndef VT_KV_H
#define VT_KV_H
#include <stddef.h>

typedef struct vt_kv_s {
    char *key, *value;
    const char *file; /* NULL for a command-line argument; else the path as given */
    int line;
} vt_kv_t;

typedef struct vt_kv_list_s {
    vt_kv_t *items;
    size_t n, cap;
} vt_kv_list_t;

void vt_kv_list_init(vt_kv_list_t *l);
void vt_kv_list_release(vt_kv_list_t *l); /* frees the items; the list can be reused */
/* Appends the settings of a file. Returns 0; -1 when it cannot be read (errno kept, message
 * in err); -2 for a line that is not `key = value`. */
int vt_kv_parse_file(vt_kv_list_t *l, const char *path, char *err, size_t err_len);
/* Appends one `key=value` argument. Returns 0, or -2 when it is not one. */
int vt_kv_parse_arg(vt_kv_list_t *l, const char *arg, char *err, size_t err_len);
/* 1 if arg looks like `key=value` (a key of [a-z0-9_] then '='). */
int vt_kv_is_arg(const char *arg);
#endif

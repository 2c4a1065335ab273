/* SPDX-License-Identifier: MIT */
/* A streaming writer of Python pickles (protocol 4) holding only dicts, lists, str, int, float,
 * bool and None: what a strict unpickler (no classes, no find_class) and the memory_viz viewer's
 * own unpickler accept. Containers are opened and closed as JSON's are; a list's items go out
 * in batches of 1000 (a viewer appending a whole list at once overflows its call stack on a
 * long one). Strings are written as valid UTF-8 (an invalid byte becomes '?'). The memo lets a
 * value written once be referenced again (frames shared by many events). */
#ifndef VT_PICKLE_H
#define VT_PICKLE_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define VT_PICKLE_MAX_DEPTH 16
#define VT_PICKLE_KEYS      64 /* distinct key strings memoized by vt_pickle_key */

typedef struct vt_pickle_s {
    FILE *out;
    int depth;
    uint32_t n_items[VT_PICKLE_MAX_DEPTH]; /* items since the last batch mark, per list */
    bool is_list[VT_PICKLE_MAX_DEPTH];
    uint32_t n_memo;                   /* memo slots used */
    const char *keys[VT_PICKLE_KEYS];  /* the keys memoized so far (by pointer) */
    uint32_t key_memo[VT_PICKLE_KEYS]; /* and their memo slots */
    int n_keys;
} vt_pickle_t;

/* vt_pickle_begin: the protocol header; vt_pickle_end: STOP after the one top-level value. */
void vt_pickle_begin(vt_pickle_t *p, FILE *out);
void vt_pickle_end(vt_pickle_t *p);

void vt_pickle_dict_begin(vt_pickle_t *p);
void vt_pickle_dict_end(vt_pickle_t *p);
void vt_pickle_list_begin(vt_pickle_t *p);
void vt_pickle_list_end(vt_pickle_t *p);

/* A dict's key: a string literal (compared by pointer), written once and memoized after. */
void vt_pickle_key(vt_pickle_t *p, const char *key);

void vt_pickle_str(vt_pickle_t *p, const char *s);
void vt_pickle_uint(vt_pickle_t *p, uint64_t v);
void vt_pickle_float(vt_pickle_t *p, double v);
void vt_pickle_bool(vt_pickle_t *p, bool v);
void vt_pickle_none(vt_pickle_t *p);

/* vt_pickle_memo_put: the value just written (completed) into a new memo slot; returns it.
 * vt_pickle_memo_get: that value again (the same object, not a copy). */
uint32_t vt_pickle_memo_put(vt_pickle_t *p);
void vt_pickle_memo_get(vt_pickle_t *p, uint32_t slot);
#endif

/* SPDX-License-Identifier: MIT */
/* Interned strings: each distinct string (a Python frame's "path/file.py:function") is stored
 * once and named by a dense id from 1, in creation order, so a pseudo instruction pointer can
 * carry it in a few bits and the trace writer can emit each string once, before its first use
 * (like stacks.c's nodes). Memory comes from the arena and is never freed while the process
 * lives; callers hold vt_lock. AS-safe: no malloc, no stdio. */
#include "vt_internal.h"

#include <string.h>

#define PAGE_STRINGS 4096u
#define MAX_PAGES                                                                                  \
    1024u /* 4M distinct strings; ids then stay far below the 39 bits of a
                              Python pseudo-IP (vt_internal.h) */

typedef struct string_s {
    uint32_t id;
    uint32_t len;
    UT_hash_handle hh;
    char text[]; /* len bytes and a NUL */
} string_t;

static string_t *string_index; /* uthash by text */
static string_t **pages[MAX_PAGES];
uint32_t vt_n_strings; /* published with a release store (vt_string_count) */

/* vt_string_intern: the id of the len bytes at s (longer strings are cut at VT_STRING_MAX;
 * NUL bytes end the string early for readers, so callers pass text without them), adding it
 * when new; 0 when memory ran out. vt_lock held. */
uint32_t vt_string_intern(const char *s, size_t len)
{
    if (len > VT_STRING_MAX)
        len = VT_STRING_MAX;
    string_t *found;
    HASH_FIND(hh, string_index, s, len, found);
    if (found)
        return found->id;
    uint32_t id = vt_n_strings + 1;
    uint32_t page = id / PAGE_STRINGS, slot = id % PAGE_STRINGS;
    if (page >= MAX_PAGES)
        return 0;
    if (!pages[page] && !(pages[page] = vt_arena_alloc(PAGE_STRINGS * sizeof *pages[page])))
        return 0;
    size_t bytes = sizeof(string_t) + len + 1;
    string_t *str = vt_arena_alloc(bytes);
    if (!str)
        return 0;
    str->id = id;
    str->len = (uint32_t)len;
    memcpy(str->text, s, len);
    str->text[len] = '\0'; /* the arena hands out zeroed memory; explicit for the reader */
    vt_table_oom = false;
    HASH_ADD_KEYPTR(hh, string_index, str->text, len, str);
    if (vt_table_oom) {
        vt_arena_free(str, bytes);
        return 0;
    }
    pages[page][slot] = str;
    /* Release: vt_string may run outside vt_lock (the rule matcher) and must see the page. */
    __atomic_store_n(&vt_n_strings, id, __ATOMIC_RELEASE);
    return id;
}

/* vt_string: the NUL-terminated text of an id, or NULL for 0 or an unknown id. Callable
 * without vt_lock: strings are never freed or moved, and the count is published after the
 * entry (the fork child's forget runs single-threaded). */
const char *vt_string(uint32_t id)
{
    if (id == 0 || id > __atomic_load_n(&vt_n_strings, __ATOMIC_ACQUIRE))
        return NULL;
    return pages[id / PAGE_STRINGS][id % PAGE_STRINGS]->text;
}

/* Fork child: start over, like the stacks whose pseudo-IPs name these ids. */
void vt_strings_forget(void)
{
    string_index = NULL;
    memset(pages, 0, sizeof pages);
    vt_n_strings = 0;
}

/* SPDX-License-Identifier: MIT */
/* The live table: every allocation, VMM handle and VMM mapping alive now, keyed by (key space,
 * value), in a uthash table whose memory comes from the arena. Callers hold vt_lock. AS-safe. */
#include "vt_internal.h"

#include <string.h>

bool vt_table_oom;
static vt_alloc_t *table_head;
static size_t table_count;

/* The hashed key is the first 16 bytes of the entry: key, space and the zero pad. */
#define KEY_BYTES (offsetof(vt_alloc_t, key_pad_) + sizeof(uint32_t))
_Static_assert(offsetof(vt_alloc_t, space) == 8 && KEY_BYTES == 16, "key layout");

vt_alloc_t *vt_table_find(uint32_t space, uint64_t key)
{
    vt_alloc_t probe, *found;
    memset(&probe, 0, KEY_BYTES);
    probe.key = key;
    probe.space = space;
    HASH_FIND(hh, table_head, &probe.key, KEY_BYTES, found);
    return found;
}

/* vt_table_insert: a copy of proto in the table, or NULL when the arena is exhausted (the
 * table is then unchanged). The caller has checked the key is not present. vt_lock held. */
vt_alloc_t *vt_table_insert(const vt_alloc_t *proto)
{
    vt_alloc_t *a = vt_arena_alloc(sizeof *a);
    if (!a)
        return NULL;
    memcpy(a, proto, offsetof(vt_alloc_t, hh));
    a->key_pad_ = 0;
    vt_table_oom = false;
    HASH_ADD(hh, table_head, key, KEY_BYTES, a);
    if (vt_table_oom) {
        vt_arena_free(a, sizeof *a);
        return NULL;
    }
    table_count++;
    return a;
}

void vt_table_remove(vt_alloc_t *a)
{
    HASH_DELETE(hh, table_head, a);
    vt_arena_free(a, sizeof *a);
    table_count--;
}

vt_alloc_t *vt_table_first(void)
{
    return table_head;
}

vt_alloc_t *vt_table_next(vt_alloc_t *a)
{
    return a->hh.next;
}

size_t vt_table_count(void)
{
    return table_count;
}

/* The fork child's table belongs to the parent's process: forget it without touching its
 * entries (their arena blocks are simply not reused). */
void vt_table_forget(void)
{
    table_head = NULL;
    table_count = 0;
}

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

/* The key is always these 16 bytes: a multiply-xor mix (murmur3's fmix64) instead of uthash's
 * byte-wise Jenkins hash, and a two-word compare instead of memcmp. uthash picks buckets by the
 * low bits, which the mix spreads. Iteration order (insertion order) does not depend on it. */
static inline unsigned table_hash(const void *key_bytes)
{
    uint64_t k, s;
    memcpy(&k, key_bytes, 8);
    memcpy(&s, (const char *)key_bytes + 8, 8);
    uint64_t h = k ^ (s * 0x9e3779b97f4a7c15ULL);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (unsigned)h;
}

static inline int table_key_differs(const void *a, const void *b)
{
    uint64_t a0, a1, b0, b1;
    memcpy(&a0, a, 8);
    memcpy(&a1, (const char *)a + 8, 8);
    memcpy(&b0, b, 8);
    memcpy(&b1, (const char *)b + 8, 8);
    return (a0 ^ b0) | (a1 ^ b1) ? 1 : 0;
}

#undef HASH_FUNCTION
#define HASH_FUNCTION(keyptr, keylen, hashv) ((hashv) = table_hash(keyptr))
#undef HASH_KEYCMP
#define HASH_KEYCMP(a, b, n) table_key_differs((a), (b))

/* uthash frees its bucket array when the last entry leaves and makes a new one (two arena
 * blocks, one zeroed) when the next arrives: with few live allocations, as in a loop of
 * allocation + free, that was most of the cost of a pair. A sentinel entry, in a key space no
 * caller looks up, is the first entry added to an empty table and stays until
 * vt_table_release: it is then always the head in insertion order, and first/next/count skip
 * it. It lives in static memory, never in the arena. */
#define SENTINEL_SPACE UINT32_MAX
static vt_alloc_t sentinel;

vt_alloc_t *vt_table_find(uint32_t space, uint64_t key)
{
    vt_alloc_t probe, *found;
    memset(&probe, 0, KEY_BYTES);
    probe.key = key;
    probe.space = space;
    HASH_FIND(hh, table_head, &probe.key, KEY_BYTES, found);
    return found;
}

/* Blocks of the arena's table class: every field up to hh is copied in, and HASH_ADD sets
 * every field of hh, so a reused block needs no zeroing. */
static vt_alloc_t *entry_alloc(void)
{
    return vt_arena_alloc_unzeroed(sizeof(vt_alloc_t));
}

/* vt_table_insert: a copy of proto in the table, or NULL when the arena is exhausted (the
 * table is then unchanged). The caller has checked the key is not present. vt_lock held. */
vt_alloc_t *vt_table_insert(const vt_alloc_t *proto)
{
    vt_alloc_t *a = entry_alloc();
    if (!a)
        return NULL;
    memcpy(a, proto, VT_ALLOC_FIELD_BYTES);
    a->key_pad_ = 0;
    vt_table_oom = false;
    if (!table_head) {
        sentinel.key = 0;
        sentinel.space = SENTINEL_SPACE;
        sentinel.key_pad_ = 0;
        HASH_ADD(hh, table_head, key, KEY_BYTES, &sentinel);
        if (vt_table_oom) {
            table_head = NULL;
            vt_arena_free(a, sizeof *a);
            return NULL;
        }
    }
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
    return table_head ? table_head->hh.next : NULL; /* after the sentinel */
}

vt_alloc_t *vt_table_next(vt_alloc_t *a)
{
    return a->hh.next;
}

size_t vt_table_count(void)
{
    return table_count;
}

/* vt_table_release: the table's own memory (bucket array, sentinel) back to the arena once
 * every entry has been removed (vt_track_reset). vt_lock held. */
void vt_table_release(void)
{
    if (table_head && table_count == 0)
        HASH_CLEAR(hh, table_head);
}

/* The fork child's table belongs to the parent's process: forget it without touching its
 * entries (their arena blocks are simply not reused). */
void vt_table_forget(void)
{
    table_head = NULL;
    table_count = 0;
}

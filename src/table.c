/* SPDX-License-Identifier: MIT */
/* The live table: every allocation, VMM handle and VMM mapping alive now, keyed by (key space,
 * value). An open-addressing hash table of compact slots (key, space, hash, entry) with linear
 * probing at load <= 1/2 and backward-shift deletion (no tombstones), in front of entries that
 * stay where they are from insert to remove (callers keep pointers to them) and are linked in
 * insertion order for iteration. All memory comes from the arena. Callers hold vt_lock.
 * AS-safe. */
#include "vt_internal.h"

#include <string.h>

bool vt_table_oom; /* uthash's out-of-memory flag (stacks.c, strings.c); the table returns NULL */

/* A lookup reads consecutive 24-byte slots, usually one cache line, and compares keys there
 * without touching an entry; the insert that follows a missed find reuses that find's hash and
 * empty slot; and the slot array, once made, stays until vt_table_release, so a table that
 * empties and fills again per pair rebuilds nothing (docs/performance.md, "The live table"). */
typedef struct slot_s {
    uint64_t key;
    uint32_t space;
    uint32_t hash;     /* low bits: the home slot, for backward-shift deletion */
    vt_alloc_t *entry; /* NULL: empty */
} slot_t;

#define TABLE_MIN_SLOTS 16

/* Removed entries wait here for the next insert (linked through next_), instead of going
 * back to the arena: a pair of allocation and free then costs no arena call. */
static vt_alloc_t *spare_entries;

static slot_t *slots;
static size_t n_slots; /* a power of two, or 0 before the first insert */
static size_t table_count;
static vt_alloc_t *list_head, *list_tail;

/* The last find that missed: where its key would go, while nothing has changed since. */
static struct {
    bool valid;
    uint32_t space;
    uint64_t key;
    size_t index;
    uint32_t hash;
} last_miss;

/* A multiply-xor mix of the 12 key bytes (murmur3's fmix64). */
static inline uint32_t table_hash(uint32_t space, uint64_t key)
{
    uint64_t h = key ^ ((uint64_t)space * 0x9e3779b97f4a7c15ULL);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (uint32_t)h;
}

vt_alloc_t *vt_table_find(uint32_t space, uint64_t key)
{
    if (VT_UNLIKELY(!n_slots))
        return NULL;
    size_t mask = n_slots - 1;
    uint32_t h = table_hash(space, key);
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        const slot_t *s = &slots[i];
        if (!s->entry) {
            last_miss.valid = true;
            last_miss.space = space;
            last_miss.key = key;
            last_miss.index = i;
            last_miss.hash = h;
            return NULL;
        }
        if (s->key == key && s->space == space)
            return s->entry;
    }
}

/* The slot index of a key known to be absent: the first empty slot of its probe sequence. */
static size_t empty_slot_for(uint32_t h)
{
    size_t mask = n_slots - 1;
    size_t i = h & mask;
    while (slots[i].entry)
        i = (i + 1) & mask;
    return i;
}

/* Moves to a slot array of `want` slots (a power of two); false when the arena refuses. */
static bool table_resize(size_t want)
{
    slot_t *fresh = vt_arena_alloc(want * sizeof(slot_t)); /* zeroed: every slot empty */
    if (!fresh)
        return false;
    slot_t *old = slots;
    size_t n_old = n_slots;
    slots = fresh;
    n_slots = want;
    for (size_t i = 0; i < n_old; i++)
        if (old[i].entry)
            slots[empty_slot_for(old[i].hash)] = old[i];
    if (old)
        vt_arena_free(old, n_old * sizeof(slot_t));
    last_miss.valid = false;
    return true;
}

/* vt_table_insert: a copy of proto (its fields, VT_ALLOC_FIELD_BYTES) in the table, or NULL
 * when the arena is exhausted (the table is then unchanged). The caller has checked the key is
 * not present. vt_lock held. */
vt_alloc_t *vt_table_insert(const vt_alloc_t *proto)
{
    /* Load at most 1/2. A table that cannot grow takes entries while one slot stays empty,
     * which every probe needs to end. */
    if (VT_UNLIKELY((table_count + 1) * 2 > n_slots) &&
        !table_resize(n_slots ? n_slots * 2 : TABLE_MIN_SLOTS) && table_count + 2 > n_slots)
        return NULL;
    vt_alloc_t *a = spare_entries;
    if (VT_LIKELY(a))
        spare_entries = a->next_;
    else if (!(a = vt_arena_alloc_unzeroed(sizeof(vt_alloc_t))))
        return NULL;
    memcpy(a, proto, VT_ALLOC_FIELD_BYTES);
    a->key_pad_ = 0;
    size_t i;
    uint32_t h;
    if (last_miss.valid && last_miss.key == a->key && last_miss.space == a->space) {
        i = last_miss.index; /* hashed and probed once: by the find that missed */
        h = last_miss.hash;
    } else {
        h = table_hash(a->space, a->key);
        i = empty_slot_for(h);
    }
    last_miss.valid = false;
    slots[i].key = a->key;
    slots[i].space = a->space;
    slots[i].hash = h;
    slots[i].entry = a;
    a->next_ = NULL;
    a->prev_ = list_tail;
    if (list_tail)
        list_tail->next_ = a;
    else
        list_head = a;
    list_tail = a;
    table_count++;
    return a;
}

/* vt_table_remove: a out of the table, its memory back to the arena. The slots after it that
 * may move back (their home slot is not between the freed slot and them) do, so no probe
 * sequence ever crosses an empty slot it needs (Knuth 6.4, algorithm R). vt_lock held. */
void vt_table_remove(vt_alloc_t *a)
{
    size_t mask = n_slots - 1;
    size_t i = table_hash(a->space, a->key) & mask;
    while (slots[i].entry != a) {
        if (VT_NEVER(!slots[i].entry))
            return; /* not in the table */
        i = (i + 1) & mask;
    }
    for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
        if (!slots[j].entry)
            break;
        size_t home = slots[j].hash & mask;
        /* j stays when its home lies cyclically in (i, j]. */
        bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays)
            continue;
        slots[i] = slots[j];
        i = j;
    }
    slots[i].entry = NULL;
    last_miss.valid = false;
    if (a->prev_)
        a->prev_->next_ = a->next_;
    else
        list_head = a->next_;
    if (a->next_)
        a->next_->prev_ = a->prev_;
    else
        list_tail = a->prev_;
    a->next_ = spare_entries;
    spare_entries = a;
    table_count--;
}

vt_alloc_t *vt_table_first(void)
{
    return list_head;
}

vt_alloc_t *vt_table_next(vt_alloc_t *a)
{
    return a->next_;
}

size_t vt_table_count(void)
{
    return table_count;
}

size_t vt_table_slots(void)
{
    return n_slots;
}

/* vt_table_release: the slot array and the spare entries back to the arena once every entry
 * has been removed (vt_track_reset). vt_lock held. */
void vt_table_release(void)
{
    if (table_count)
        return;
    while (spare_entries) {
        vt_alloc_t *a = spare_entries;
        spare_entries = a->next_;
        vt_arena_free(a, sizeof *a);
    }
    if (slots) {
        vt_arena_free(slots, n_slots * sizeof(slot_t));
        slots = NULL;
        n_slots = 0;
        last_miss.valid = false;
    }
}

/* The fork child's table belongs to the parent's process: forget it without touching its
 * entries or slots (their arena blocks are simply not reused). */
void vt_table_forget(void)
{
    spare_entries = NULL;
    slots = NULL;
    n_slots = 0;
    table_count = 0;
    list_head = list_tail = NULL;
    last_miss.valid = false;
}

/* SPDX-License-Identifier: MIT */
/* The live table: every allocation, VMM handle and VMM mapping alive now, keyed by (key space,
 * value). An open-addressing hash table of 16-byte slots (key, entry pointer tagged with the
 * key space) with linear probing at load <= 5/8 and backward-shift deletion (no tombstones), in
 * front of 64-byte entries carved from slabs of their exact size. Entries stay where they are
 * from insert to remove (callers keep pointers to them); iteration walks the slabs, so it needs
 * no links in the entries and survives removals. All memory comes from the arena. Callers hold
 * vt_lock. AS-safe. */
#include "vt_internal.h"

#include <string.h>

bool vt_table_oom; /* uthash's out-of-memory flag (stacks.c, strings.c); the table returns NULL */

/* A lookup reads consecutive slots, usually one cache line, and compares keys there without
 * touching an entry; the insert that follows a missed find reuses that find's hash and empty
 * slot; and the slot array, once made, stays until vt_table_release, so a table that empties
 * and fills again per pair rebuilds nothing (docs/performance.md, "The live table"). The home
 * slot of a key is its hash, recomputed from the slot when deletion or growth needs it: cheaper
 * than 8 more bytes per slot. An entry is 16-byte aligned, so its pointer's low 4 bits hold the
 * key space (VT_SPACE_VMM_MAP, the largest, is 5). */
typedef struct slot_s {
    uint64_t key;
    uintptr_t tagged; /* the entry | its space; 0: empty */
} slot_t;

_Static_assert(sizeof(vt_alloc_t) == 64, "a live entry is 64 bytes: bench/footprint counts it");
_Static_assert(sizeof(vt_alloc_t) % 16 == 0, "entries keep 4 low pointer bits for the space");
_Static_assert(VT_SPACE_VMM_MAP < 16, "the space fits a slot's tag bits");

#define TAG_BITS        ((uintptr_t)15)
#define TABLE_MIN_SLOTS 16

/* The table doubles when an insert would take it past 5/8 full, so it is 5/16
 * to 5/8 full: 26 to 51 bytes of slots per live entry besides the entry's 64, which keeps the
 * whole under 128 bytes at every size (at a maximum of 1/2 it was 64 just after a doubling, and
 * 128 in all with the entry). A miss, which every insert begins with, probes ~4 slots at 5/8
 * against ~2.5 at 1/2 (linear probing, Knuth 6.4): one more cache line at the most. */
#define TABLE_MAX_LOAD_EIGHTHS 5

static inline vt_alloc_t *slot_entry(const slot_t *s)
{
    return (vt_alloc_t *)(s->tagged & ~TAG_BITS);
}

static inline uint32_t slot_space(const slot_t *s)
{
    return (uint32_t)(s->tagged & TAG_BITS);
}

/* Entries live in slabs of SLAB_ENTRIES (16 KiB: a power of two, which the arena's size
 * classes hold without waste), listed in a directory that doubles as it fills. Entries are made
 * in order (n_made: every one below it was handed out once); a removed one is marked
 * VT_SPACE_FREE and waits on the spare list, linked through its ctx, for the next insert. */
#define SLAB_SHIFT    8
#define SLAB_ENTRIES  ((size_t)1 << SLAB_SHIFT)
#define VT_SPACE_FREE 0xff

static vt_alloc_t **slabs;
static size_t n_slabs, slabs_cap;
static size_t n_made;
static vt_alloc_t *spare_entries;

static slot_t *slots;
static size_t n_slots; /* a power of two, or 0 before the first insert */
static size_t table_count;

/* The last find that missed: where its key would go, while nothing has changed since. */
static struct {
    bool valid;
    uint32_t space;
    uint64_t key;
    size_t index;
    uint32_t hash;
} last_miss;

/* A multiply-xor mix of the key and its space (murmur3's fmix64). */
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
        if (!s->tagged) {
            last_miss.valid = true;
            last_miss.space = space;
            last_miss.key = key;
            last_miss.index = i;
            last_miss.hash = h;
            return NULL;
        }
        if (s->key == key && slot_space(s) == space)
            return slot_entry(s);
    }
}

/* The slot index of a key known to be absent: the first empty slot of its probe sequence. */
static size_t empty_slot_for(uint32_t h)
{
    size_t mask = n_slots - 1;
    size_t i = h & mask;
    while (slots[i].tagged)
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
        if (old[i].tagged)
            slots[empty_slot_for(table_hash(slot_space(&old[i]), old[i].key))] = old[i];
    if (old)
        vt_arena_free(old, n_old * sizeof(slot_t));
    last_miss.valid = false;
    return true;
}

/* An entry's memory: a spare one, or the next of the slabs (a new slab when the last is full);
 * NULL when the arena refuses. */
static vt_alloc_t *entry_take(void)
{
    vt_alloc_t *a = spare_entries;
    if (VT_LIKELY(a)) {
        spare_entries = (vt_alloc_t *)(uintptr_t)a->ctx;
        return a;
    }
    if (n_made == n_slabs * SLAB_ENTRIES) {
        if (n_slabs == slabs_cap) {
            size_t cap = slabs_cap ? slabs_cap * 2 : 16;
            vt_alloc_t **dir = vt_arena_alloc(cap * sizeof *dir);
            if (!dir)
                return NULL;
            if (slabs) {
                memcpy(dir, slabs, n_slabs * sizeof *dir);
                vt_arena_free(slabs, slabs_cap * sizeof *dir);
            }
            slabs = dir;
            slabs_cap = cap;
        }
        vt_alloc_t *slab = vt_arena_alloc_unzeroed(SLAB_ENTRIES * sizeof(vt_alloc_t));
        if (!slab)
            return NULL;
        slabs[n_slabs++] = slab;
    }
    a = &slabs[n_made >> SLAB_SHIFT][n_made & (SLAB_ENTRIES - 1)];
    n_made++;
    return a;
}

/* vt_table_insert: a copy of proto in the table, or NULL when the arena is exhausted (the table
 * is then unchanged). The caller has checked the key is not present. vt_lock held. */
vt_alloc_t *vt_table_insert(const vt_alloc_t *proto)
{
    /* A table that cannot grow takes entries while one slot stays empty, which every probe
     * needs to end. */
    if (VT_UNLIKELY((table_count + 1) * 8 > n_slots * TABLE_MAX_LOAD_EIGHTHS) &&
        !table_resize(n_slots ? n_slots * 2 : TABLE_MIN_SLOTS) && table_count + 2 > n_slots)
        return NULL;
    if (VT_NEVER(proto->space > TAG_BITS || proto->space == VT_SPACE_FREE))
        return NULL;
    vt_alloc_t *a = entry_take();
    if (!a)
        return NULL;
    memcpy(a, proto, sizeof *a);
    size_t i;
    if (last_miss.valid && last_miss.key == a->key && last_miss.space == a->space)
        i = last_miss.index; /* hashed and probed once: by the find that missed */
    else
        i = empty_slot_for(table_hash(a->space, a->key));
    last_miss.valid = false;
    slots[i].key = a->key;
    slots[i].tagged = (uintptr_t)a | a->space;
    table_count++;
    return a;
}

/* vt_table_remove: a out of the table, its memory kept for the next insert. The slots after it
 * that may move back (their home slot is not between the freed slot and them) do, so no probe
 * sequence ever crosses an empty slot it needs (Knuth 6.4, algorithm R). vt_lock held. */
void vt_table_remove(vt_alloc_t *a)
{
    size_t mask = n_slots - 1;
    uintptr_t tagged = (uintptr_t)a | a->space;
    size_t i = table_hash(a->space, a->key) & mask;
    while (slots[i].tagged != tagged) {
        if (VT_NEVER(!slots[i].tagged))
            return; /* not in the table */
        i = (i + 1) & mask;
    }
    for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
        if (!slots[j].tagged)
            break;
        size_t home = table_hash(slot_space(&slots[j]), slots[j].key) & mask;
        /* j stays when its home lies cyclically in (i, j]. */
        bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays)
            continue;
        slots[i] = slots[j];
        i = j;
    }
    slots[i].tagged = 0;
    last_miss.valid = false;
    a->space = VT_SPACE_FREE;
    a->ctx = (uint64_t)(uintptr_t)spare_entries;
    spare_entries = a;
    table_count--;
}

/* vt_table_iter: the first live entry at or after position *pos of the slabs, *pos moved past
 * it; NULL at the end. Entries never move, so removing any entry while iterating is safe (and
 * one inserted meanwhile may or may not be visited). The order is the slabs', not insertion. */
vt_alloc_t *vt_table_iter(size_t *pos)
{
    for (size_t p = *pos; p < n_made; p++) {
        vt_alloc_t *a = &slabs[p >> SLAB_SHIFT][p & (SLAB_ENTRIES - 1)];
        if (a->space != VT_SPACE_FREE) {
            *pos = p + 1;
            return a;
        }
    }
    *pos = n_made;
    return NULL;
}

size_t vt_table_count(void)
{
    return table_count;
}

size_t vt_table_slots(void)
{
    return n_slots;
}

/* vt_table_release: the slot array, the slabs and their directory back to the arena once every
 * entry has been removed (vt_track_reset). vt_lock held. */
void vt_table_release(void)
{
    if (table_count)
        return;
    for (size_t s = 0; s < n_slabs; s++)
        vt_arena_free(slabs[s], SLAB_ENTRIES * sizeof(vt_alloc_t));
    if (slabs)
        vt_arena_free(slabs, slabs_cap * sizeof *slabs);
    slabs = NULL;
    n_slabs = slabs_cap = n_made = 0;
    spare_entries = NULL;
    if (slots) {
        vt_arena_free(slots, n_slots * sizeof(slot_t));
        slots = NULL;
        n_slots = 0;
    }
    last_miss.valid = false;
}

/* The fork child's table belongs to the parent's process: forget it without touching its
 * entries or slots (their arena blocks are simply not reused). */
void vt_table_forget(void)
{
    slabs = NULL;
    n_slabs = slabs_cap = n_made = 0;
    spare_entries = NULL;
    slots = NULL;
    n_slots = 0;
    table_count = 0;
    last_miss.valid = false;
}

/* SPDX-License-Identifier: MIT */
/* The live table on its own (src/table.c): insert, find and remove by (key space, key); the same
 * key in two spaces is two entries; the count; iteration with vt_table_first/next visits every
 * entry exactly once, including while removing the one just visited (the pattern track.c uses);
 * and vt_table_forget, the fork child's drop of the inherited table. The table is the core of
 * every accounting answer, so each of these is a correctness condition, not a nicety. */
#include "vt_internal.h"
#include "vt_test.h"

#include <string.h>

static vt_alloc_t proto(uint32_t space, uint64_t key, uint64_t size_bytes)
{
    vt_alloc_t a;
    memset(&a, 0, sizeof a);
    a.space = space;
    a.key = key;
    a.size_bytes = size_bytes;
    a.series = (int8_t)(space < VT_SERIES_COUNT ? (int)space : -1);
    a.key_pad_ = 0x5a5a5a5a; /* insert must clear it: it is part of the hashed key */
    return a;
}

/* Removes every entry, as vt_track_reset does; returns how many there were. */
static size_t remove_all(void)
{
    size_t n = 0;
    vt_alloc_t *a = vt_table_first();
    while (a) {
        vt_alloc_t *next = vt_table_next(a);
        vt_table_remove(a);
        n++;
        a = next;
    }
    return n;
}

static void test_insert_find_remove(void)
{
    VT_CHECK_EQ("empty at start", vt_table_count(), 0);
    VT_CHECK("empty: no first", vt_table_first() == NULL);
    VT_CHECK("empty: find misses", vt_table_find(VT_SERIES_DEVICE, 0x1000) == NULL);

    vt_alloc_t p = proto(VT_SERIES_DEVICE, 0x1000, 512);
    p.device = 3;
    p.api = VT_API_cuMemAlloc_v2;
    vt_alloc_t *a = vt_table_insert(&p);
    VT_CHECK("insert", a != NULL);
    VT_CHECK("insert copies", a != &p);
    VT_CHECK_EQ("count 1", vt_table_count(), 1);
    VT_CHECK("find returns the entry", vt_table_find(VT_SERIES_DEVICE, 0x1000) == a);
    VT_CHECK_EQ("copied size", a->size_bytes, 512);
    VT_CHECK_EQ("copied device", a->device, 3);
    VT_CHECK_EQ("copied api", a->api, VT_API_cuMemAlloc_v2);
    VT_CHECK_EQ("pad cleared", a->key_pad_, 0);
    VT_CHECK("other key misses", vt_table_find(VT_SERIES_DEVICE, 0x1001) == NULL);
    VT_CHECK("other space misses", vt_table_find(VT_SERIES_PINNED, 0x1000) == NULL);

    vt_table_remove(a);
    VT_CHECK_EQ("count 0 after remove", vt_table_count(), 0);
    VT_CHECK("find misses after remove", vt_table_find(VT_SERIES_DEVICE, 0x1000) == NULL);
    VT_CHECK("no first after remove", vt_table_first() == NULL);

    /* Re-insert after remove: the arena block comes back from its free list, zeroed. */
    a = vt_table_insert(&p);
    VT_CHECK("re-insert", a != NULL && vt_table_find(VT_SERIES_DEVICE, 0x1000) == a);
    VT_CHECK_EQ("count after re-insert", vt_table_count(), 1);
    VT_CHECK_EQ("cleanup", remove_all(), 1);
}

static void test_spaces_are_distinct(void)
{
    /* One value as a device address, a pinned address, a VMM handle and a VMM mapping. */
    const uint32_t spaces[] = {VT_SERIES_DEVICE,   VT_SERIES_PINNED,    VT_SERIES_MANAGED,
                               VT_SERIES_IMPORTED, VT_SPACE_VMM_HANDLE, VT_SPACE_VMM_MAP};
    const size_t n = sizeof spaces / sizeof spaces[0];
    vt_alloc_t *in[sizeof spaces / sizeof spaces[0]];
    for (size_t i = 0; i < n; i++) {
        vt_alloc_t p = proto(spaces[i], 0xabc000, 100 + i);
        in[i] = vt_table_insert(&p);
        VT_CHECK("insert in each space", in[i] != NULL);
    }
    VT_CHECK_EQ("one entry per space", vt_table_count(), n);
    for (size_t i = 0; i < n; i++) {
        vt_alloc_t *a = vt_table_find(spaces[i], 0xabc000);
        VT_CHECK("find by space", a == in[i]);
        VT_CHECK_EQ("the space's own entry", a ? a->size_bytes : 0, 100 + i);
    }
    /* Removing one space's entry leaves the others. */
    vt_table_remove(in[0]);
    VT_CHECK("removed space misses", vt_table_find(spaces[0], 0xabc000) == NULL);
    for (size_t i = 1; i < n; i++)
        VT_CHECK("other spaces kept", vt_table_find(spaces[i], 0xabc000) == in[i]);
    VT_CHECK_EQ("count after one remove", vt_table_count(), n - 1);
    VT_CHECK_EQ("cleanup", remove_all(), n - 1);
}

/* Enough entries to make uthash expand its buckets several times; every one is found, and
 * iteration visits each exactly once. */
#define N_MANY 5000

static void test_many_and_iteration(void)
{
    static unsigned char seen[N_MANY];
    for (uint64_t i = 0; i < N_MANY; i++) {
        /* Keys like real addresses: 512-byte aligned, in two spaces. */
        vt_alloc_t p =
            proto(i % 2 ? VT_SERIES_MANAGED : VT_SERIES_DEVICE, 0x300000000000 + i * 512, i);
        if (!vt_table_insert(&p))
            VT_CHECK("insert many", 0);
    }
    VT_CHECK_EQ("count many", vt_table_count(), N_MANY);
    int n_missed = 0;
    for (uint64_t i = 0; i < N_MANY; i++) {
        vt_alloc_t *a =
            vt_table_find(i % 2 ? VT_SERIES_MANAGED : VT_SERIES_DEVICE, 0x300000000000 + i * 512);
        n_missed += !a || a->size_bytes != i;
    }
    VT_CHECK_EQ("every entry found", n_missed, 0);
    VT_CHECK("wrong space misses", vt_table_find(VT_SERIES_MANAGED, 0x300000000000) == NULL);

    memset(seen, 0, sizeof seen);
    size_t n_visited = 0, n_bad = 0;
    for (vt_alloc_t *a = vt_table_first(); a; a = vt_table_next(a)) {
        n_visited++;
        if (a->size_bytes >= N_MANY || seen[a->size_bytes]++)
            n_bad++;
    }
    VT_CHECK_EQ("iteration visits all", n_visited, N_MANY);
    VT_CHECK_EQ("iteration visits each once", n_bad, 0);

    /* Removing every odd entry while iterating (next taken before the remove). */
    size_t n_removed = 0;
    vt_alloc_t *a = vt_table_first();
    while (a) {
        vt_alloc_t *next = vt_table_next(a);
        if (a->size_bytes % 2) {
            vt_table_remove(a);
            n_removed++;
        }
        a = next;
    }
    VT_CHECK_EQ("removed while iterating", n_removed, N_MANY / 2);
    VT_CHECK_EQ("count after removing odd", vt_table_count(), N_MANY / 2);
    n_visited = 0;
    n_bad = 0;
    for (a = vt_table_first(); a; a = vt_table_next(a)) {
        n_visited++;
        n_bad += a->size_bytes % 2 != 0;
    }
    VT_CHECK_EQ("iteration after removals", n_visited, N_MANY / 2);
    VT_CHECK_EQ("only even ones left", n_bad, 0);
    VT_CHECK_EQ("cleanup", remove_all(), N_MANY / 2);
    VT_CHECK_EQ("empty after cleanup", vt_table_count(), 0);
}

static void test_forget(void)
{
    for (uint64_t i = 1; i <= 10; i++) {
        vt_alloc_t p = proto(VT_SERIES_DEVICE, i << 12, 64);
        VT_CHECK("insert before forget", vt_table_insert(&p) != NULL);
    }
    VT_CHECK_EQ("count before forget", vt_table_count(), 10);
    vt_table_forget();
    VT_CHECK_EQ("count 0 after forget", vt_table_count(), 0);
    VT_CHECK("no first after forget", vt_table_first() == NULL);
    VT_CHECK("find misses after forget", vt_table_find(VT_SERIES_DEVICE, 1 << 12) == NULL);
    /* A fresh table works: the same keys insert again, as in a fork child. */
    vt_alloc_t p = proto(VT_SERIES_DEVICE, 1 << 12, 128);
    vt_alloc_t *a = vt_table_insert(&p);
    VT_CHECK("insert after forget", a != NULL && vt_table_find(VT_SERIES_DEVICE, 1 << 12) == a);
    VT_CHECK_EQ("count after forget + insert", vt_table_count(), 1);
    VT_CHECK_EQ("cleanup", remove_all(), 1);
}

int main(void)
{
    test_insert_find_remove();
    test_spaces_are_distinct();
    test_many_and_iteration();
    test_forget();
    return vt_test_done();
}

/* SPDX-License-Identifier: MIT */
/* The live table on its own (src/table.c): insert, find and remove by (key space, key); the same
 * key in two spaces is two entries; the count; iteration with vt_table_iter visits every
 * entry exactly once, including while removing the one just visited or another one (the patterns
 * track.c uses);
 * and vt_table_forget, the fork child's drop of the inherited table. The open addressing itself:
 * keys that share a home slot (built with the table's own hash), clusters that wrap around the
 * end of the slot array, backward-shift deletion at the head, middle and end of a cluster, the
 * find-then-insert shortcut when something changed in between, growth at load 5/8, the slot
 * array kept when the table empties and given back by vt_table_release, and a long random run
 * checked against a plain list. The table is the core of every accounting answer, so each of
 * these is a correctness condition, not a nicety. */
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
    return a;
}

static vt_alloc_t *first_entry(void)
{
    size_t pos = 0;
    return vt_table_iter(&pos);
}

/* Removes every entry, as vt_track_reset does; returns how many there were. */
static size_t remove_all(void)
{
    size_t n = 0;
    vt_alloc_t *a;
    for (size_t pos = 0; (a = vt_table_iter(&pos));) {
        vt_table_remove(a);
        n++;
    }
    return n;
}

static void test_insert_find_remove(void)
{
    VT_CHECK_EQ("empty at start", vt_table_count(), 0);
    VT_CHECK("empty: no first", first_entry() == NULL);
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
    VT_CHECK("other key misses", vt_table_find(VT_SERIES_DEVICE, 0x1001) == NULL);
    VT_CHECK("other space misses", vt_table_find(VT_SERIES_PINNED, 0x1000) == NULL);

    vt_table_remove(a);
    VT_CHECK_EQ("count 0 after remove", vt_table_count(), 0);
    VT_CHECK("find misses after remove", vt_table_find(VT_SERIES_DEVICE, 0x1000) == NULL);
    VT_CHECK("no first after remove", first_entry() == NULL);

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
    vt_alloc_t *a;
    for (size_t pos = 0; (a = vt_table_iter(&pos));) {
        n_visited++;
        if (a->size_bytes >= N_MANY || seen[a->size_bytes]++)
            n_bad++;
    }
    VT_CHECK_EQ("iteration visits all", n_visited, N_MANY);
    VT_CHECK_EQ("iteration visits each once", n_bad, 0);

    /* Removing every odd entry while iterating: the one just visited, or (for an even one
     * whose odd neighbour key is live) another one, as the unmap of a VMM range removes the
     * handle of the mapping it visits. */
    size_t n_removed = 0;
    for (size_t pos = 0; (a = vt_table_iter(&pos));) {
        if (a->size_bytes % 2) {
            vt_table_remove(a);
            n_removed++;
        } else if (a->size_bytes + 1 < N_MANY) {
            uint64_t i = a->size_bytes + 1;
            vt_alloc_t *odd = vt_table_find(i % 2 ? VT_SERIES_MANAGED : VT_SERIES_DEVICE,
                                            0x300000000000 + i * 512);
            if (odd) {
                vt_table_remove(odd);
                n_removed++;
            }
        }
    }
    VT_CHECK_EQ("removed while iterating", n_removed, N_MANY / 2);
    VT_CHECK_EQ("count after removing odd", vt_table_count(), N_MANY / 2);
    n_visited = 0;
    n_bad = 0;
    for (size_t pos = 0; (a = vt_table_iter(&pos));) {
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
    VT_CHECK("no first after forget", first_entry() == NULL);
    VT_CHECK("find misses after forget", vt_table_find(VT_SERIES_DEVICE, 1 << 12) == NULL);
    /* A fresh table works: the same keys insert again, as in a fork child. */
    vt_alloc_t p = proto(VT_SERIES_DEVICE, 1 << 12, 128);
    vt_alloc_t *a = vt_table_insert(&p);
    VT_CHECK("insert after forget", a != NULL && vt_table_find(VT_SERIES_DEVICE, 1 << 12) == a);
    VT_CHECK_EQ("count after forget + insert", vt_table_count(), 1);
    VT_CHECK_EQ("cleanup", remove_all(), 1);
}

/* ---- open addressing -------------------------------------------------------------------- */

/* A copy of table.c's hash, to build keys that collide: if the table's hash changes, these
 * tests still pass (every check is of answers), they only collide less. */
static uint32_t hash_of(uint32_t space, uint64_t key)
{
    uint64_t h = key ^ ((uint64_t)space * 0x9e3779b97f4a7c15ULL);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (uint32_t)h;
}

/* The n first keys from `from` on (step 512, like addresses) whose home in a table of
 * n_slots slots is `home`. */
static void keys_with_home(uint64_t *out, int n, size_t n_slots, size_t home, uint64_t from)
{
    for (uint64_t k = from; n > 0; k += 512)
        if ((hash_of(VT_SERIES_DEVICE, k) & (n_slots - 1)) == home) {
            *out++ = k;
            n--;
        }
}

static vt_alloc_t *insert_dev(uint64_t key, uint64_t size_bytes)
{
    vt_alloc_t p = proto(VT_SERIES_DEVICE, key, size_bytes);
    return vt_table_insert(&p);
}

/* Every key of keys[0..n) is found with its own size, or (gone[i]) is not found. */
static int n_wrong(const uint64_t *keys, const bool *gone, int n)
{
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        vt_alloc_t *a = vt_table_find(VT_SERIES_DEVICE, keys[i]);
        if (gone[i] ? a != NULL : !a || a->key != keys[i] || a->size_bytes != 1000 + (uint64_t)i)
            wrong++;
    }
    return wrong;
}

static void test_collisions_and_shift(void)
{
    /* A fresh table: no slots until the first insert, then the minimum, 16. */
    vt_table_release();
    VT_CHECK_EQ("no slot array before the first insert", vt_table_slots(), 0);
    VT_CHECK("find in a table that never held anything", vt_table_find(0, 0) == NULL);
    vt_alloc_t *first = insert_dev(0x10000, 1);
    VT_CHECK_EQ("16 slots at first", vt_table_slots(), 16);
    vt_table_remove(first);
    VT_CHECK_EQ("the slots stay when the table empties", vt_table_slots(), 16);

    /* Seven keys homed at slot 14 of 16: a cluster 14, 15, 0, 1, ... that wraps around. */
    enum { N = 7 };
    uint64_t keys[N];
    bool gone[N] = {false};
    keys_with_home(keys, N, 16, 14, 0x200000);
    vt_alloc_t *in[N];
    for (int i = 0; i < N; i++)
        in[i] = insert_dev(keys[i], 1000 + (uint64_t)i);
    VT_CHECK_EQ("still 16 slots at 7 entries", vt_table_slots(), 16);
    VT_CHECK_EQ("a wrapped cluster: all found", n_wrong(keys, gone, N), 0);
    /* Other keys homed inside the cluster miss, and walk it to its end. */
    uint64_t other[2];
    keys_with_home(other, 1, 16, 15, 0x900000);
    keys_with_home(other + 1, 1, 16, 1, 0x900000);
    VT_CHECK("a miss homed inside the cluster", vt_table_find(VT_SERIES_DEVICE, other[0]) == NULL);
    VT_CHECK("a miss homed past the wrap", vt_table_find(VT_SERIES_DEVICE, other[1]) == NULL);

    /* Deletion at the head, in the middle (after the wrap) and at the tail of the cluster:
     * the others are all still found after each (a tombstone-free table that failed to shift
     * back would lose them behind the hole). */
    const int order[] = {0, 3, 6, 1, 5, 2, 4};
    for (int k = 0; k < N; k++) {
        vt_table_remove(in[order[k]]);
        gone[order[k]] = true;
        VT_CHECK_EQ("found after a removal in the cluster", n_wrong(keys, gone, N), 0);
        VT_CHECK_EQ("count after a removal in the cluster", vt_table_count(), (size_t)(N - k - 1));
    }

    /* Two clusters that meet: keys homed at 15 and at 0 of 16, interleaved. Removing those of
     * home 15 must pull those of home 0 back across the wrap, and never past their home. */
    uint64_t a15[3], a0[3], mixed[6];
    keys_with_home(a15, 3, 16, 15, 0x400000);
    keys_with_home(a0, 3, 16, 0, 0x400000);
    bool gone6[6] = {false};
    vt_alloc_t *in6[6];
    for (int i = 0; i < 3; i++) {
        mixed[2 * i] = a15[i];
        mixed[2 * i + 1] = a0[i];
    }
    for (int i = 0; i < 6; i++)
        in6[i] = insert_dev(mixed[i], 1000 + (uint64_t)i);
    VT_CHECK_EQ("two clusters: all found", n_wrong(mixed, gone6, 6), 0);
    for (int i = 0; i < 6; i += 2) {
        vt_table_remove(in6[i]);
        gone6[i] = true;
        VT_CHECK_EQ("home-0 keys found after home-15 removals", n_wrong(mixed, gone6, 6), 0);
    }
    for (int i = 1; i < 6; i += 2) {
        vt_table_remove(in6[i]);
        gone6[i] = true;
    }
    VT_CHECK_EQ("two clusters: empty", vt_table_count(), 0);

    /* A find that misses remembers where its key would go; an insert of another key there, or
     * a removal that shifts entries, must not let the next insert use a stale slot. */
    uint64_t same[3];
    keys_with_home(same, 3, 16, 5, 0x600000);
    VT_CHECK("miss", vt_table_find(VT_SERIES_DEVICE, same[0]) == NULL);
    vt_alloc_t *x = insert_dev(same[1], 1); /* takes the slot the miss found */
    vt_alloc_t *y = insert_dev(same[0], 2); /* must probe again */
    VT_CHECK("the missed key after another insert", vt_table_find(VT_SERIES_DEVICE, same[0]) == y);
    VT_CHECK("the other key kept", vt_table_find(VT_SERIES_DEVICE, same[1]) == x);
    VT_CHECK("miss again", vt_table_find(VT_SERIES_DEVICE, same[2]) == NULL); /* slot 7 */
    vt_table_remove(x); /* y shifts back to 5: 6 is now the empty slot */
    vt_alloc_t *z = insert_dev(same[2], 3);
    VT_CHECK("after a shift", vt_table_find(VT_SERIES_DEVICE, same[2]) == z);
    VT_CHECK("shifted entry kept", vt_table_find(VT_SERIES_DEVICE, same[0]) == y);
    vt_table_remove(y);
    VT_CHECK("last one found after the other's removal",
             vt_table_find(VT_SERIES_DEVICE, same[2]) == z);
    vt_table_remove(z);
    VT_CHECK_EQ("empty again", vt_table_count(), 0);
}

static void test_growth_and_release(void)
{
    /* Load stays at most 5/8 through growth, and every entry stays reachable. */
    enum { N = 3000 };
    static uint64_t keys[N];
    static bool gone[N];
    size_t worst = 0;
    bool power_of_two = true;
    for (int i = 0; i < N; i++) {
        keys[i] = 0x7f0000000000 + (uint64_t)i * 512;
        gone[i] = false;
        if (!insert_dev(keys[i], 1000 + (uint64_t)i))
            VT_CHECK("insert while growing", 0);
        size_t n = vt_table_slots();
        power_of_two &= n && (n & (n - 1)) == 0;
        if (vt_table_count() * 8 > n * 5)
            worst++;
    }
    VT_CHECK("slot counts are powers of two", power_of_two);
    VT_CHECK_EQ("load never above 5/8", worst, 0);
    VT_CHECK_EQ("grown to 8192 slots for 3000 entries", vt_table_slots(), 8192);
    VT_CHECK_EQ("all found after growth", n_wrong(keys, gone, N), 0);
    VT_CHECK_EQ("cleanup", remove_all(), N);
    VT_CHECK_EQ("slots kept when empty", vt_table_slots(), 8192);
    vt_table_release();
    VT_CHECK_EQ("released", vt_table_slots(), 0);
    VT_CHECK("find after release", vt_table_find(VT_SERIES_DEVICE, keys[0]) == NULL);
    vt_alloc_t *a = insert_dev(keys[0], 1000);
    VT_CHECK("insert after release", a && vt_table_find(VT_SERIES_DEVICE, keys[0]) == a);
    VT_CHECK_EQ("a fresh array", vt_table_slots(), 16);
    vt_table_remove(a);
    /* Release with entries live does nothing. */
    a = insert_dev(keys[1], 1001);
    vt_table_release();
    VT_CHECK("release refused while live", vt_table_find(VT_SERIES_DEVICE, keys[1]) == a);
    vt_table_remove(a);
}

/* A long random run of finds, inserts (after a missed find, as track.c does) and removals on a
 * small key range, so clusters form, wrap and break up, checked after every step against a
 * plain array; the table grows to 64+ slots and shrinks to a handful of entries. */
static void test_random_against_model(void)
{
    enum { KEYS = 200, STEPS = 200000 };
    static vt_alloc_t *model[KEYS];
    memset(model, 0, sizeof model);
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    size_t live = 0;
    int bad = 0;
    for (int step = 0; step < STEPS && bad < 10; step++) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        int k = (int)(rng % KEYS);
        uint64_t key = 0x1000 + (uint64_t)k * 512;
        uint32_t space = k % 3 == 0 ? VT_SERIES_MANAGED : VT_SERIES_DEVICE; /* one per key */
        vt_alloc_t *found = vt_table_find(space, key);
        if (found != model[k])
            bad++;
        /* Fill up to about 150 live, then drain: bias by the step. */
        bool fill = (step / 5000) % 2 == 0;
        if (!found && (fill || (rng >> 40) % 4 == 0)) {
            vt_alloc_t p = proto(space, key, (uint64_t)k);
            model[k] = vt_table_insert(&p);
            live++;
        } else if (found && (!fill || (rng >> 40) % 4 == 0)) {
            vt_table_remove(found);
            model[k] = NULL;
            live--;
        }
        if (vt_table_count() != live)
            bad++;
    }
    VT_CHECK_EQ("random run agrees with the model", bad, 0);
    size_t n = 0;
    vt_alloc_t *a;
    for (size_t pos = 0; (a = vt_table_iter(&pos));) {
        n++;
        bad += a->size_bytes >= KEYS || model[a->size_bytes] != a;
    }
    VT_CHECK_EQ("iteration agrees with the model", n, live);
    VT_CHECK_EQ("every iterated entry is the model's", bad, 0);
    VT_CHECK_EQ("cleanup", remove_all(), live);
}

/* The fork child's forget leaves no slot array, and a new one is made on its first insert. */
static void test_forget_slots(void)
{
    for (uint64_t i = 1; i <= 40; i++)
        insert_dev(i << 12, 1000);
    VT_CHECK("slots before forget", vt_table_slots() >= 80);
    vt_table_forget();
    VT_CHECK_EQ("no slots after forget", vt_table_slots(), 0);
    VT_CHECK("find after forget", vt_table_find(VT_SERIES_DEVICE, 1 << 12) == NULL);
    vt_alloc_t *a = insert_dev(5 << 12, 1000);
    VT_CHECK_EQ("a fresh array after forget", vt_table_slots(), 16);
    size_t pos = 0;
    VT_CHECK("only the new entry", vt_table_iter(&pos) == a && vt_table_iter(&pos) == NULL);
    VT_CHECK_EQ("cleanup", remove_all(), 1);
}

int main(void)
{
    test_insert_find_remove();
    test_spaces_are_distinct();
    test_many_and_iteration();
    test_forget();
    test_collisions_and_shift();
    test_growth_and_release();
    test_random_against_model();
    test_forget_slots();
    return vt_test_done();
}

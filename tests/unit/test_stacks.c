/* SPDX-License-Identifier: MIT */
/* Stack interning on its own (src/stacks.c): a stack interned twice has one id and adds
 * nothing the second time, whether the whole-stack cache answers or the trie walk does; stacks
 * that differ in any frame, or only in length, have different ids; the trie reads back each
 * stack exactly; and after the fork child's forget nothing stale is answered. The cache in
 * front of the trie must never change an answer, only its cost. */
#include "vt_internal.h"
#include "vt_test.h"

#include <string.h>

/* True when the trie holds exactly ips[0..n) under id, innermost first. */
static bool reads_back(uint32_t id, void *const *ips, int n)
{
    for (int i = 0; i < n; i++) {
        vt_stack_node_t *node = vt_stack_node(id);
        if (!node || vt_stack_node_ip(node) != (uint64_t)(uintptr_t)ips[i])
            return false;
        id = vt_stack_node_parent(node);
    }
    return id == 0;
}

static uint32_t intern(void *const *ips, int n, bool *created)
{
    vt_track_lock();
    uint32_t id = vt_stack_intern(ips, n, created);
    vt_track_unlock();
    return id;
}

static void test_same_and_different(void)
{
    void *a[64], *b[64];
    for (int i = 0; i < 64; i++)
        a[i] = b[i] = (void *)(uintptr_t)(0x400000 + 16 * (64 - i));
    b[0] = (void *)(uintptr_t)0x500000; /* differs in the innermost frame only */
    bool created;
    uint32_t ida = intern(a, 64, &created);
    VT_CHECK("a: an id", ida != 0);
    VT_CHECK("a: created", created);
    VT_CHECK("a reads back", reads_back(ida, a, 64));
    uint32_t n_nodes = vt_stack_count();
    VT_CHECK_EQ("a again: same id (cache)", intern(a, 64, &created), ida);
    VT_CHECK("a again: nothing created", !created);
    VT_CHECK_EQ("a again: no node added", vt_stack_count(), n_nodes);
    uint32_t idb = intern(b, 64, &created);
    VT_CHECK("b: another id", idb != 0 && idb != ida);
    VT_CHECK("b: created", created);
    VT_CHECK_EQ("b: one node added (shared prefix)", vt_stack_count(), n_nodes + 1);
    VT_CHECK("b reads back", reads_back(idb, b, 64));
    VT_CHECK_EQ("a after b", intern(a, 64, &created), ida);
    /* A suffix of a is the path to a's second node: already in the trie, not created. */
    uint32_t ids = intern(a + 1, 63, &created);
    VT_CHECK("suffix: another id", ids != 0 && ids != ida);
    VT_CHECK("suffix: nothing created", !created);
    VT_CHECK_EQ("suffix is a's parent", vt_stack_node_parent(vt_stack_node(ida)), ids);
    VT_CHECK_EQ("suffix again", intern(a + 1, 63, &created), ids);
    VT_CHECK("empty stack: 0", intern(a, 0, &created) == 0 && !created);
}

/* Many stacks, more than the cache has slots, interned twice in two orders: every id is
 * stable and reads back. */
static void test_many(void)
{
    enum { N = 9000, DEPTH = 8 };
    static uint32_t ids[N];
    void *ips[DEPTH];
    bool created, ok = true;
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < N; k++) {
            int s = round ? N - 1 - k : k;
            for (int i = 0; i < DEPTH; i++)
                ips[i] = (void *)(uintptr_t)(0x600000 + (i == 0 ? s : i * 7919));
            uint32_t id = intern(ips, DEPTH, &created);
            if (round == 0)
                ids[s] = id;
            else if (id != ids[s] || created)
                ok = false;
            if (!reads_back(id, ips, DEPTH))
                ok = false;
        }
    }
    VT_CHECK("9000 stacks: stable ids, exact read-back", ok);
}

static void test_forget(void)
{
    void *a[4] = {(void *)0x1111, (void *)0x2222, (void *)0x3333, (void *)0x4444};
    bool created;
    uint32_t id = intern(a, 4, &created);
    VT_CHECK("before forget", id != 0);
    vt_track_lock();
    vt_stacks_forget();
    vt_track_unlock();
    VT_CHECK_EQ("forget empties the trie", vt_stack_count(), 0);
    uint32_t again = intern(a, 4, &created);
    VT_CHECK("after forget: interned anew", again != 0 && created);
    VT_CHECK("after forget: reads back", reads_back(again, a, 4));
}

int main(void)
{
    test_same_and_different();
    test_many();
    test_forget();
    return vt_test_done();
}

/* SPDX-License-Identifier: MIT */
/* Stack interning on its own (src/stacks.c): a stack interned twice has one id and adds
 * nothing the second time, whether the whole-stack cache answers or the trie walk does; stacks
 * that differ in any frame, or only in length, have different ids; the trie reads back each
 * stack exactly; and after the fork child's forget nothing stale is answered. The caches in
 * front of the trie (the thread's last stack, the shared whole-stack cache) must never change
 * an answer, only its cost: ids, created flags and frames are checked against a model trie
 * walked from the root without any cache. */
#include "vt_internal.h"
#include "vt_test.h"

#include <pthread.h>
#include <stdio.h>
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
    return vt_stack_intern(ips, n, created); /* takes vt_lock itself when it must */
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
    VT_CHECK_EQ("after forget: ids from 1 again", again, 4);
    VT_CHECK("after forget: reads back", reads_back(again, a, 4));
}

/* The model: the trie as the spec says it, a list of (parent, ip) nodes with ids in creation
 * order, walked from the root for every stack, without any cache. */
enum { MODEL_MAX = 1 << 18, MODEL_SLOTS = 1 << 20 };
static struct {
    uint32_t parent[MODEL_MAX + 1];
    uint64_t ip[MODEL_MAX + 1];
    uint32_t slots[MODEL_SLOTS]; /* open addressing by (parent, ip): node ids, 0 empty */
    uint32_t n;
} model;

static uint32_t model_intern(void *const *ips, int n, bool *created)
{
    uint32_t parent = 0;
    *created = false;
    for (int i = n - 1; i >= 0; i--) {
        uint64_t ip = (uint64_t)(uintptr_t)ips[i];
        uint32_t h = (uint32_t)(((ip * 31 + parent) * 0x9e3779b97f4a7c15ULL) >> 44);
        while (model.slots[h] &&
               (model.parent[model.slots[h]] != parent || model.ip[model.slots[h]] != ip))
            h = (h + 1) % MODEL_SLOTS;
        if (!model.slots[h]) {
            if (model.n == MODEL_MAX)
                return 0;
            model.slots[h] = ++model.n;
            model.parent[model.n] = parent;
            model.ip[model.n] = ip;
            *created = true;
        }
        parent = model.slots[h];
    }
    return parent;
}

static void model_reset(void)
{
    vt_track_lock();
    vt_stacks_forget();
    vt_track_unlock();
    memset(model.slots, 0, sizeof model.slots);
    model.n = 0;
}

/* Interns one stack both ways; false (and a message) when the answers differ. */
static bool same_as_model(const char *what, void *const *ips, int n)
{
    bool created, want_created;
    uint32_t want = model_intern(ips, n, &want_created);
    uint32_t got = intern(ips, n, &created);
    if (got == want && created == want_created && reads_back(got, ips, n))
        return true;
    fprintf(stderr, "%s: id %u created %d, want %u created %d (n %d)\n", what, got, created, want,
            want_created, n);
    return false;
}

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* The per-thread cache answers from the thread's last stack and starts from the node of the
 * outer frames it shares with it: every way a new stack can relate to the last one, against
 * the model. A wrong shortcut (matching the inner frames, or a suffix of the wrong length)
 * gives another id. */
static void test_against_model(void)
{
    model_reset();
    void *a[6] = {(void *)0x11, (void *)0x12, (void *)0x13,
                  (void *)0x14, (void *)0x15, (void *)0x16};
    void *t[8];
    bool ok = true;
    ok &= same_as_model("a", a, 6);
    ok &= same_as_model("a again", a, 6);
    ok &= same_as_model("a's outer 4", a + 2, 4); /* a suffix of the last stack */
    ok &= same_as_model("a again after", a, 6);   /* the last stack extended inwards */
    memcpy(t, a, sizeof a);
    t[5] = (void *)0x99; /* the same inner frames, another outermost frame */
    ok &= same_as_model("other outermost", t, 6);
    ok &= same_as_model("a after other outermost", a, 6);
    t[0] = (void *)0x10; /* one more inner frame in front of a */
    memcpy(t + 1, a, sizeof a);
    ok &= same_as_model("a plus an inner frame", t, 7);
    memcpy(t, a, sizeof a);
    t[6] = (void *)0x17; /* a with one more outer frame: no outer frame in common */
    ok &= same_as_model("a plus an outer frame", t, 7);
    t[2] = (void *)0x33; /* popped to the third frame and pushed back with another one there */
    ok &= same_as_model("middle frame changed", t, 7);
    ok &= same_as_model("a at last", a, 6);
    ok &= same_as_model("one frame", a + 5, 1);
    /* Deeper than the thread's cache keeps (64): the shared cache alone, then back. */
    static void *deep[100];
    for (int i = 0; i < 100; i++)
        deep[i] = (void *)(uintptr_t)(0x500 + i % 7);
    ok &= same_as_model("100 frames", deep, 100);
    ok &= same_as_model("100 frames again", deep, 100);
    ok &= same_as_model("its outer 64", deep + 36, 64);
    deep[0] = (void *)0x77;
    ok &= same_as_model("100 frames, another innermost", deep, 100);
    ok &= same_as_model("its outer 64 again", deep + 36, 64);
    VT_CHECK("hand-made relations: same ids, created flags and frames as the model", ok);

    /* A random walk of a call stack, as a program makes one: pop a few frames, push a few,
     * sometimes change one in the middle or the outermost, sometimes jump to a stack of
     * before; frames from a small alphabet so that stacks share parts in every way. */
    enum { STEPS = 20000, DEPTH_MAX = 80 };
    static void *saved[16][DEPTH_MAX];
    static int saved_n[16];
    void *stack[DEPTH_MAX]; /* stack[0] innermost */
    int n = 1;
    stack[0] = (void *)0x1000;
    ok = true;
    for (int step = 0; step < STEPS && ok; step++) {
        uint64_t r = rng();
        int op = (int)(r % 8);
        if (op <= 2) { /* return from k frames, call into k others */
            int pop = (int)((r >> 8) % 4), push = (int)((r >> 12) % 4);
            if (pop >= n)
                pop = n - 1;
            memmove(stack, stack + pop, (size_t)(n - pop) * sizeof *stack);
            n -= pop;
            for (int k = 0; k < push && n < DEPTH_MAX; k++) {
                memmove(stack + 1, stack, (size_t)n * sizeof *stack);
                stack[0] = (void *)(uintptr_t)(0x1000 + ((r >> (16 + 3 * k)) % 6));
                n++;
            }
        } else if (op == 3) { /* a frame in the middle returns elsewhere */
            stack[(r >> 8) % (uint64_t)n] = (void *)(uintptr_t)(0x1000 + ((r >> 20) % 6));
        } else if (op == 4) { /* another outermost frame under the same inner ones */
            stack[n - 1] = (void *)(uintptr_t)(0x1000 + ((r >> 20) % 6));
        } else if (op == 5) { /* keep this stack for later */
            int k = (int)((r >> 8) % 16);
            memcpy(saved[k], stack, (size_t)n * sizeof *stack);
            saved_n[k] = n;
        } else if (op == 6) { /* back to a stack of before */
            int k = (int)((r >> 8) % 16);
            if (saved_n[k]) {
                n = saved_n[k];
                memcpy(stack, saved[k], (size_t)n * sizeof *stack);
            }
        } /* op 7: the same stack again */
        ok &= same_as_model("random walk", stack, n);
    }
    VT_CHECK("20000 random stacks: same ids, created flags and frames as the model", ok);
}

/* Two threads intern their own random stacks at once (each its own per-thread cache, one
 * shared cache and trie): every answer reads back, and the same stack has one id whichever
 * thread asks. */
enum { THREAD_STACKS = 4000 };
static uint32_t thread_ids[2][THREAD_STACKS];
static bool thread_ok[2];

static void thread_stack(int k, void **ips, int *n)
{
    uint64_t x = (uint64_t)k * 0x9e3779b97f4a7c15ULL;
    *n = 1 + (int)(x >> 60);
    for (int i = 0; i < *n; i++)
        ips[i] = (void *)(uintptr_t)(0x2000 + ((x >> (4 * i)) & 3));
}

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    bool ok = true, created;
    void *ips[16];
    int n;
    for (int i = 0; i < THREAD_STACKS; i++) {
        int k = t ? THREAD_STACKS - 1 - i : i;
        thread_stack(k, ips, &n);
        uint32_t id = intern(ips, n, &created);
        vt_track_lock();
        ok &= reads_back(id, ips, n);
        vt_track_unlock();
        thread_ids[t][k] = id;
    }
    thread_ok[t] = ok;
    return NULL;
}

static void test_threads(void)
{
    model_reset();
    pthread_t th[2];
    for (int t = 0; t < 2; t++)
        pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t);
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    VT_CHECK("two threads: every id reads back", thread_ok[0] && thread_ok[1]);
    VT_CHECK("two threads: one id per stack",
             memcmp(thread_ids[0], thread_ids[1], sizeof thread_ids[0]) == 0);
}

int main(void)
{
    test_against_model();
    test_threads();
    test_same_and_different();
    test_many();
    test_forget();
    return vt_test_done();
}

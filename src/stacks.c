/* SPDX-License-Identifier: MIT */
/* Call-site interning: each distinct stack is stored once, as a path in a trie of (parent,
 * instruction pointer) nodes, and events carry the id of its innermost node (heaptrack
 * TraceTree). Ids are dense, from 1, in creation order, so the trace writer emits each node
 * once, before the first event that uses it. Memory comes from the arena; the trie changes
 * under vt_lock. AS-safe. */
#include "vt_internal.h"

#include <string.h>

#define PAGE_NODES 4096u
#define MAX_PAGES  4096u /* 16M distinct nodes */

typedef struct stack_key_s {
    uint64_t ip;
    uint32_t parent;
    uint32_t zero_;
} stack_key_t;

struct vt_stack_node_s {
    stack_key_t key;
    uint32_t id;
    void *rule_cache; /* categorize.c: which frame rules the stack ending here matches */
    UT_hash_handle hh;
};

/* The node index is keyed by 16 bytes (ip, parent, zero): one multiply-xor mix instead of
 * uthash's byte-wise Jenkins hash, and a two-word compare (as table.c does). */
static inline unsigned node_hash(const stack_key_t *k)
{
    uint64_t h = k->ip ^ ((uint64_t)k->parent * 0x9e3779b97f4a7c15ULL);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (unsigned)h;
}
#undef HASH_FUNCTION
#define HASH_FUNCTION(keyptr, keylen, hashv) ((hashv) = node_hash((const stack_key_t *)(keyptr)))
#undef HASH_KEYCMP
#define HASH_KEYCMP(a, b, n)                                                                       \
    ((((const stack_key_t *)(a))->ip != ((const stack_key_t *)(b))->ip) |                          \
     (((const stack_key_t *)(a))->parent != ((const stack_key_t *)(b))->parent))

static vt_stack_node_t *node_index; /* uthash by (parent, ip) */
/* The nodes themselves, PAGE_NODES to a page, by id: a node is found from its id with two
 * loads, and the nodes of one stack, made together, lie together. Their count, vt_n_stack_nodes,
 * is published with a release store after the node and its page are complete, so a node whose id
 * a thread has seen can be read without vt_lock (categorize.c reads its rule cache so). */
static vt_stack_node_t *pages[MAX_PAGES];
uint32_t vt_n_stack_nodes; /* vt_stack_count */
/* Bumped by vt_stacks_forget: the per-thread caches below hold ids of one generation. */
static unsigned stacks_generation = 1;

/* Stack hashes run from the outermost frame inwards, so the hash of a stack continues the hash
 * of the outer frames it shares with another one (the per-thread cache keeps them by depth). */
#define HASH_SEED 0x9e3779b97f4a7c15ULL
static inline uint64_t hash_step(uint64_t h, uint64_t ip)
{
    h = (h ^ ip) * 0xff51afd7ed558ccdULL;
    return h ^ (h >> 29);
}

/* Whole stacks seen recently, by any thread: a direct-mapped cache from the hash of the frames
 * to the innermost node, for a thread whose stack differs from its previous one in more than a
 * few inner frames. A hit is verified against the trie (inner_is), so a collision or a stale
 * slot only costs the walk it would have cost anyway. vt_lock held. */
#define STACK_CACHE_SLOTS 4096u
typedef struct stack_cache_slot_s {
    uint64_t hash;
    uint32_t id; /* innermost node, 0: empty */
    uint32_t n_frames;
} stack_cache_slot_t;
static stack_cache_slot_t stack_cache[STACK_CACHE_SLOTS];

/* Per thread: the last stack interned on this thread, with the node and the hash of each of
 * its outer parts. Consecutive allocations of a thread usually share most of their frames (all
 * of them in a loop), so a stack equal to the last one is answered from here without vt_lock,
 * and one that shares its outer frames starts from the node of the shared part: only the inner
 * frames that differ are hashed, verified or looked up. Exact: the node of a path of frames is
 * unique, and the ids are checked to belong to the current trie (generation). Stacks of up to
 * THREAD_FRAMES frames (the default VRAMTRACE_DEPTH) are kept: 1.3 KiB of initial-exec TLS per
 * thread; deeper ones go through the shared cache alone. */
#define THREAD_FRAMES 64
static __thread struct {
    unsigned generation;            /* stacks_generation of the ids; 0: nothing cached */
    int n;                          /* frames of the last stack */
    uint64_t ips[THREAD_FRAMES];    /* its frames, innermost first, as given */
    uint32_t ids[THREAD_FRAMES];    /* ids[j]: the node of its outermost j + 1 frames */
    uint64_t hashes[THREAD_FRAMES]; /* hashes[j]: the hash of its outermost j + 1 frames */
} last __attribute__((tls_model("initial-exec")));

static inline vt_stack_node_t *node_at(uint32_t id)
{
    return &pages[id / PAGE_NODES][id % PAGE_NODES];
}

/* Finds or adds the child of parent for ip; returns its id, or 0 when memory ran out.
 * *created is set when the node is new. vt_lock held. */
static uint32_t child_of(uint32_t parent, uint64_t ip, bool *created)
{
    stack_key_t key;
    memset(&key, 0, sizeof key);
    key.ip = ip;
    key.parent = parent;
    vt_stack_node_t *node;
    HASH_FIND(hh, node_index, &key, sizeof key, node);
    if (node)
        return node->id;
    uint32_t id = vt_n_stack_nodes + 1;
    uint32_t page = id / PAGE_NODES, slot = id % PAGE_NODES;
    if (page >= MAX_PAGES)
        return 0;
    if (!pages[page] && !(pages[page] = vt_arena_alloc(PAGE_NODES * sizeof *pages[page])))
        return 0;
    node = &pages[page][slot]; /* unpublished until the count moves: a failed add reuses it */
    node->key = key;
    node->id = id;
    node->rule_cache = NULL;
    vt_table_oom = false;
    HASH_ADD(hh, node_index, key, sizeof key, node);
    if (vt_table_oom)
        return 0;
    __atomic_store_n(&vt_n_stack_nodes, id, __ATOMIC_RELEASE);
    *created = true;
    return id;
}

/* True when the node id is the path ips[0..n) (innermost first) above the node outer (0: the
 * root): the node's ip is ips[0], its parent's ips[1], ..., and the n-th ancestor is outer.
 * Node ids name paths uniquely, so this is an exact test. Fills ids_out[n - 1 - i] with the
 * node of ips[i..]. vt_lock held. */
static bool inner_is(uint32_t id, void *const *ips, int n, uint32_t outer, uint32_t *ids_out)
{
    for (int i = 0; i < n; i++) {
        if (id == 0 || id > vt_n_stack_nodes)
            return false;
        const vt_stack_node_t *node = node_at(id);
        if (node->key.ip != (uint64_t)(uintptr_t)ips[i])
            return false;
        ids_out[n - 1 - i] = id;
        id = node->key.parent;
    }
    return id == outer;
}

/* The node of ips[0..n) above the node outer, whose hash is hash: from the shared cache when
 * it knows it, else by walking the trie (adding what is new). Fills ids_out as inner_is does;
 * 0 when memory ran out. vt_lock held. */
static uint32_t intern_inner(void *const *ips, int n, uint32_t outer, int n_total, uint64_t hash,
                             uint32_t *ids_out, bool *created)
{
    stack_cache_slot_t *slot = &stack_cache[hash & (STACK_CACHE_SLOTS - 1)];
    if (slot->id && slot->hash == hash && slot->n_frames == (uint32_t)n_total &&
        inner_is(slot->id, ips, n, outer, ids_out))
        return slot->id;
    uint32_t parent = outer;
    for (int i = n - 1; i >= 0; i--) {
        parent = child_of(parent, (uint64_t)(uintptr_t)ips[i], created);
        if (!parent)
            return 0;
        ids_out[n - 1 - i] = parent;
    }
    slot->hash = hash;
    slot->id = parent;
    slot->n_frames = (uint32_t)n_total;
    return parent;
}

/* vt_stack_intern: the id of the stack ips[0..n) (innermost first, n <= VT_MAX_FRAMES), adding
 * what is new; 0 for an empty stack or when memory ran out (the event then has no call-site).
 * *created tells whether any node was added. Not under vt_lock: it takes vt_lock only when the
 * stack is not this thread's last one or a part of it. The ids are exactly those of a walk of
 * the trie from the root; the caches only spare the walk. */
uint32_t vt_stack_intern(void *const *ips, int n, bool *created)
{
    *created = false;
    if (n <= 0)
        return 0;
    if (n > THREAD_FRAMES) { /* too deep for the thread's cache: the shared one alone */
        uint32_t ids[VT_MAX_FRAMES];
        if (n > VT_MAX_FRAMES)
            n = VT_MAX_FRAMES;
        uint64_t hash = HASH_SEED;
        for (int i = n - 1; i >= 0; i--)
            hash = hash_step(hash, (uint64_t)(uintptr_t)ips[i]);
        vt_track_lock();
        uint32_t id = intern_inner(ips, n, 0, n, hash, ids, created);
        vt_track_unlock();
        return id;
    }
    unsigned generation = __atomic_load_n(&stacks_generation, __ATOMIC_RELAXED);
    int shared = 0; /* outer frames in common with this thread's last stack */
    if (last.generation == generation) {
        if (n == last.n && memcmp(ips, last.ips, (size_t)n * sizeof *ips) == 0)
            return last.ids[n - 1];
        int most = n < last.n ? n : last.n;
        while (shared < most &&
               (uint64_t)(uintptr_t)ips[n - 1 - shared] == last.ips[last.n - 1 - shared])
            shared++;
    }
    /* From here on, last describes the new stack: its first `shared` depths already do. */
    last.generation = 0;
    uint32_t id;
    if (shared == n) {
        id = last.ids[n - 1];
    } else {
        uint64_t hash = shared ? last.hashes[shared - 1] : HASH_SEED;
        for (int j = shared; j < n; j++) {
            hash = hash_step(hash, (uint64_t)(uintptr_t)ips[n - 1 - j]);
            last.hashes[j] = hash;
        }
        uint32_t outer = shared ? last.ids[shared - 1] : 0;
        vt_track_lock();
        id = intern_inner(ips, n - shared, outer, n, hash, last.ids + shared, created);
        vt_track_unlock();
        if (!id)
            return 0;
    }
    memcpy(last.ips, ips, (size_t)n * sizeof *ips);
    last.n = n;
    last.generation = generation;
    return id;
}

/* The node with this id (1 ≤ id ≤ vt_stack_count()), or NULL. vt_lock held, or the node was
 * obtained before and is never freed while the process lives. */
vt_stack_node_t *vt_stack_node(uint32_t id)
{
    if (id == 0 || id > __atomic_load_n(&vt_n_stack_nodes, __ATOMIC_ACQUIRE))
        return NULL;
    return node_at(id);
}

uint64_t vt_stack_node_ip(const vt_stack_node_t *node)
{
    return node->key.ip;
}

uint32_t vt_stack_node_parent(const vt_stack_node_t *node)
{
    return node->key.parent;
}

/* The node's rule cache slot: read and written with atomic loads and stores (no lock). */
void **vt_stack_node_rule_cache(vt_stack_node_t *node)
{
    return &node->rule_cache;
}

/* Fork child: start over (its trace is a new file that needs every node again). Every thread's
 * cached ids become stale with the generation. vt_lock held, no other thread interning. */
void vt_stacks_forget(void)
{
    node_index = NULL;
    memset(pages, 0, sizeof pages);
    memset(stack_cache, 0, sizeof stack_cache);
    __atomic_store_n(&vt_n_stack_nodes, 0, __ATOMIC_RELEASE);
    unsigned next = __atomic_load_n(&stacks_generation, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(&stacks_generation, next ? next : 1, __ATOMIC_RELAXED);
}

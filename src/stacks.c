/* SPDX-License-Identifier: MIT */
/* Call-site interning: each distinct stack is stored once, as a path in a trie of (parent,
 * instruction pointer) nodes, and events carry the id of its innermost node (heaptrack
 * TraceTree). Ids are dense, from 1, in creation order, so the trace writer emits each node
 * once, before the first event that uses it. Memory comes from the arena; callers hold vt_lock.
 * AS-safe. */
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
    void *rule_cache; /* rules.c: which frame rules the stack ending here matches */
    UT_hash_handle hh;
};

static vt_stack_node_t *node_index; /* uthash by (parent, ip) */
/* The nodes themselves, PAGE_NODES to a page, by id: a node is found from its id with two
 * loads, and the nodes of one stack, made together, lie together (stack_is walks them). */
static vt_stack_node_t *pages[MAX_PAGES];
static uint32_t n_nodes;

/* Whole stacks seen recently: a direct-mapped cache from a hash of the frames to the innermost
 * node. A stack is interned at every allocation, and walking the trie costs one uthash lookup
 * per frame: 2-3 us for 64 frames on the machine of docs/performance.md ("Capture benchmarks"),
 * more than all the rest of the capture. A hit is verified frame by frame against the trie
 * (stack_is), so a collision or a stale slot only costs the walk it would have cost anyway. */
#define STACK_CACHE_SLOTS 4096u
typedef struct stack_cache_slot_s {
    uint64_t hash;
    uint32_t id; /* innermost node, 0: empty */
    uint32_t n_frames;
} stack_cache_slot_t;
static stack_cache_slot_t stack_cache[STACK_CACHE_SLOTS];

static uint64_t hash_frames(void *const *ips, int n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
    for (int i = 0; i < n; i++) {
        h = (h ^ (uint64_t)(uintptr_t)ips[i]) * 0xff51afd7ed558ccdULL;
        h ^= h >> 29;
    }
    return h;
}

/* Finds or adds the child of parent for ip; returns its id, or 0 when memory ran out.
 * *created is set when the node is new. */
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
    uint32_t id = n_nodes + 1;
    uint32_t page = id / PAGE_NODES, slot = id % PAGE_NODES;
    if (page >= MAX_PAGES)
        return 0;
    if (!pages[page] && !(pages[page] = vt_arena_alloc(PAGE_NODES * sizeof *pages[page])))
        return 0;
    node = &pages[page][slot]; /* unpublished until n_nodes moves: a failed add reuses it */
    node->key = key;
    node->id = id;
    node->rule_cache = NULL;
    vt_table_oom = false;
    HASH_ADD(hh, node_index, key, sizeof key, node);
    if (vt_table_oom)
        return 0;
    n_nodes = id;
    *created = true;
    return id;
}

/* True when the stack whose innermost node is id is exactly ips[0..n), innermost first: the
 * node's ip is ips[0], its parent's ips[1], ..., and the outermost one's parent is the root. */
static bool stack_is(uint32_t id, void *const *ips, int n)
{
    for (int i = 0; i < n; i++) {
        if (id == 0 || id > n_nodes)
            return false;
        const vt_stack_node_t *node = &pages[id / PAGE_NODES][id % PAGE_NODES];
        if (node->key.ip != (uint64_t)(uintptr_t)ips[i])
            return false;
        id = node->key.parent;
    }
    return id == 0;
}

/* vt_stack_intern: the id of the stack ips[0..n) (innermost first), adding what is new;
 * 0 for an empty stack or when memory ran out (the event then has no call-site). *created
 * tells whether any node was added. vt_lock held. */
uint32_t vt_stack_intern(void *const *ips, int n, bool *created)
{
    uint32_t parent = 0;
    *created = false;
    if (n <= 0)
        return 0;
    uint64_t hash = hash_frames(ips, n);
    stack_cache_slot_t *slot = &stack_cache[hash & (STACK_CACHE_SLOTS - 1)];
    if (slot->id && slot->hash == hash && slot->n_frames == (uint32_t)n &&
        stack_is(slot->id, ips, n))
        return slot->id;
    for (int i = n - 1; i >= 0; i--) {
        uint32_t id = child_of(parent, (uint64_t)(uintptr_t)ips[i], created);
        if (!id)
            return 0;
        parent = id;
    }
    slot->hash = hash;
    slot->id = parent;
    slot->n_frames = (uint32_t)n;
    return parent;
}

/* The node with this id (1 ≤ id ≤ vt_stack_count()), or NULL. vt_lock held, or the node was
 * obtained before and is never freed while the process lives. */
vt_stack_node_t *vt_stack_node(uint32_t id)
{
    if (id == 0 || id > n_nodes)
        return NULL;
    return &pages[id / PAGE_NODES][id % PAGE_NODES];
}

uint64_t vt_stack_node_ip(const vt_stack_node_t *node)
{
    return node->key.ip;
}

uint32_t vt_stack_node_parent(const vt_stack_node_t *node)
{
    return node->key.parent;
}

void **vt_stack_node_rule_cache(vt_stack_node_t *node)
{
    return &node->rule_cache;
}

uint32_t vt_stack_count(void)
{
    return n_nodes;
}

/* Fork child: start over (its trace is a new file that needs every node again). */
void vt_stacks_forget(void)
{
    node_index = NULL;
    memset(pages, 0, sizeof pages);
    memset(stack_cache, 0, sizeof stack_cache);
    n_nodes = 0;
}

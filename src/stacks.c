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
static vt_stack_node_t **pages[MAX_PAGES];
static uint32_t n_nodes;

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
    node = vt_arena_alloc(sizeof *node);
    if (!node)
        return 0;
    node->key = key;
    node->id = id;
    vt_table_oom = false;
    HASH_ADD(hh, node_index, key, sizeof key, node);
    if (vt_table_oom) {
        vt_arena_free(node, sizeof *node);
        return 0;
    }
    pages[page][slot] = node;
    n_nodes = id;
    *created = true;
    return id;
}

/* vt_stack_intern: the id of the stack ips[0..n) (innermost first), adding what is new;
 * 0 for an empty stack or when memory ran out (the event then has no call-site). *created
 * tells whether any node was added. vt_lock held. */
uint32_t vt_stack_intern(void *const *ips, int n, bool *created)
{
    uint32_t parent = 0;
    *created = false;
    for (int i = n - 1; i >= 0; i--) {
        uint32_t id = child_of(parent, (uint64_t)(uintptr_t)ips[i], created);
        if (!id)
            return 0;
        parent = id;
    }
    return parent;
}

/* The node with this id (1 ≤ id ≤ vt_stack_count()), or NULL. vt_lock held, or the node was
 * obtained before and is never freed while the process lives. */
vt_stack_node_t *vt_stack_node(uint32_t id)
{
    if (id == 0 || id > n_nodes)
        return NULL;
    return pages[id / PAGE_NODES][id % PAGE_NODES];
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
    n_nodes = 0;
}

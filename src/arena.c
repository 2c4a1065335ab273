/* SPDX-License-Identifier: MIT */
/* The capture library's memory: chunks of anonymous mmap carved by a bump pointer, with
 * power-of-two free lists, so the recording path never calls malloc (the host program's malloc
 * may be interposed, locked, or be the thing being debugged). Callers hold vt_lock. AS-safe. */
#include "vt_internal.h"

#include <stdint.h>
#include <sys/mman.h>

/* Chunks hold only blocks under 64 KiB (is_large), so they need not be large; a smaller one
 * leaves less mapped and unused at any moment (the live table's entries come from it). */
#define ARENA_CHUNK_BYTES ((size_t)256 << 10)
/* Blocks of this class and up are mappings of their own (is_large). */
#define ARENA_LARGE_BYTES ((size_t)64 << 10)
#define ARENA_MIN_SHIFT   4 /* 16-byte classes and up */
#define ARENA_N_CLASSES   40

typedef struct free_block_s {
    struct free_block_s *next;
} free_block_t;

static char *arena_cursor, *arena_end;
static free_block_t *arena_free_lists[ARENA_N_CLASSES];
static size_t arena_mapped_bytes;

/* Size class of a request: the smallest power of two >= bytes, at least 16 bytes. */
static unsigned size_class(size_t bytes)
{
    if (bytes <= ((size_t)1 << ARENA_MIN_SHIFT))
        return 0;
    /* ceil(log2(bytes)) = bit width of bytes - 1 */
    unsigned shift = (unsigned)(sizeof(unsigned long long) * 8) -
                     (unsigned)__builtin_clzll((unsigned long long)(bytes - 1));
    return shift - ARENA_MIN_SHIFT;
}

/* The seam tests use to make the arena fail (docs/style.md, "Tests"; jemalloc JET_MUTABLE). */
static void *arena_map_default(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}
VT_TEST_MUTABLE vt_arena_map_fn vt_arena_map = arena_map_default;

/* A block of 64 KiB or more (a hash table's slot or bucket array, a stack trie's node page) is
 * a mapping of its own, of its size rounded to pages rather than to a power of two
 * (large_bytes), and goes back to the system when freed. Tables only grow, so each doubling
 * frees an array nothing asks for again: kept on a free list, the arrays of up to a chunk that
 * a table leaves behind on its way to a million entries stayed mapped (~2 MiB; bench/footprint
 * measured 136 bytes per live allocation at 100 000, 121 at 200 000). What stays on the free
 * lists now is at most the small arrays, under 64 KiB in all per table. Such blocks are few
 * (one per doubling or per 4096 trie nodes), so a system call each costs nothing that shows. */
static bool is_large(unsigned c)
{
    return ((size_t)1 << (c + ARENA_MIN_SHIFT)) >= ARENA_LARGE_BYTES;
}

static size_t large_bytes(size_t bytes)
{
    return (bytes + 4095) & ~(size_t)4095;
}

/* `bytes` of memory, 16-byte aligned, zeroed when zero is set (fresh memory always is). */
static void *arena_alloc(size_t bytes, bool zero)
{
    unsigned c = size_class(bytes);
    if (c >= ARENA_N_CLASSES)
        return NULL;
    size_t class_bytes = (size_t)1 << (c + ARENA_MIN_SHIFT);
    if (is_large(c)) { /* its own mapping, of its own size (fresh: zero) */
        char *p = vt_arena_map(large_bytes(bytes));
        if (p)
            arena_mapped_bytes += large_bytes(bytes);
        return p;
    }
    free_block_t *b = arena_free_lists[c];
    if (b) {
        arena_free_lists[c] = b->next;
        if (zero)
            __builtin_memset(b, 0, class_bytes);
        else
            b->next = NULL; /* no stale free-list link left in the block */
        return b;
    }
    if ((size_t)(arena_end - arena_cursor) < class_bytes) {
        size_t chunk = ARENA_CHUNK_BYTES; /* the tail of the old one is abandoned */
        char *p = vt_arena_map(chunk);
        if (!p)
            return NULL;
        arena_mapped_bytes += chunk;
        arena_cursor = p;
        arena_end = p + chunk;
    }
    void *p = arena_cursor;
    arena_cursor += class_bytes; /* mmap memory is already zero */
    return p;
}

/* vt_arena_alloc: `bytes` of zeroed memory, 16-byte aligned, or NULL when the system refuses
 * more. vt_lock held. */
void *vt_arena_alloc(size_t bytes)
{
    return arena_alloc(bytes, true);
}

/* vt_arena_alloc_unzeroed: the same, for a caller that writes every byte it reads: a reused
 * block keeps its old contents. vt_lock held. */
void *vt_arena_alloc_unzeroed(size_t bytes)
{
    return arena_alloc(bytes, false);
}

/* vt_arena_free: gives back a block of `bytes` (the size it was allocated with). vt_lock held.
 * A large block goes back to the system (is_large); a smaller one waits on its free list. */
void vt_arena_free(void *p, size_t bytes)
{
    if (!p)
        return;
    unsigned c = size_class(bytes);
    if (is_large(c)) {
        if (munmap(p, large_bytes(bytes)) == 0)
            arena_mapped_bytes -= large_bytes(bytes);
        return;
    }
    free_block_t *b = p;
    b->next = arena_free_lists[c];
    arena_free_lists[c] = b;
}

size_t vt_arena_mapped_bytes(void)
{
    return arena_mapped_bytes;
}

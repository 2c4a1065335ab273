/* SPDX-License-Identifier: MIT */
/* A counting malloc for the no-malloc tests (docs/style.md, "Tests"; libunwind Gtest-nomalloc): the program
 * that includes this defines malloc, calloc, realloc, free and the aligned allocators itself,
 * forwarding to glibc's __libc_* entry points, so every call in the process (ours, libc's, a
 * preloaded library's, the simulator's) comes here and is counted while nm_counting is set.
 * Include it in exactly one file of an executable. */
#ifndef VT_NOMALLOC_H
#define VT_NOMALLOC_H
#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t bytes);
extern void *__libc_calloc(size_t n, size_t bytes);
extern void *__libc_realloc(void *p, size_t bytes);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t alignment, size_t bytes);

static volatile int nm_counting;
static unsigned long nm_calls;

/* Default visibility: the build hides symbols, and a hidden malloc would not interpose. */
#define NM_EXPORT __attribute__((visibility("default"), used))

static inline void nm_count(void)
{
    if (nm_counting)
        __atomic_fetch_add(&nm_calls, 1, __ATOMIC_RELAXED);
}

NM_EXPORT void *malloc(size_t bytes)
{
    nm_count();
    return __libc_malloc(bytes);
}

NM_EXPORT void *calloc(size_t n, size_t bytes)
{
    nm_count();
    return __libc_calloc(n, bytes);
}

NM_EXPORT void *realloc(void *p, size_t bytes)
{
    nm_count();
    return __libc_realloc(p, bytes);
}

NM_EXPORT void free(void *p)
{
    nm_count();
    __libc_free(p);
}

NM_EXPORT void *memalign(size_t alignment, size_t bytes)
{
    nm_count();
    return __libc_memalign(alignment, bytes);
}

NM_EXPORT void *aligned_alloc(size_t alignment, size_t bytes)
{
    nm_count();
    return __libc_memalign(alignment, bytes);
}

NM_EXPORT int posix_memalign(void **out, size_t alignment, size_t bytes)
{
    nm_count();
    void *p = __libc_memalign(alignment, bytes);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

/* Counts the calls fn makes: the number of allocator calls, interposition included. */
static inline unsigned long nm_calls_in(void (*fn)(void *), void *arg)
{
    __atomic_store_n(&nm_calls, 0, __ATOMIC_RELAXED);
    nm_counting = 1;
    fn(arg);
    nm_counting = 0;
    return __atomic_load_n(&nm_calls, __ATOMIC_RELAXED);
}

/* The interposer works at all: one malloc and one free are two calls. */
static void nm_self_test_body(void *arg)
{
    (void)arg;
    void *volatile p = malloc(16);
    free(p);
}

static inline int nm_self_test(void)
{
    return nm_calls_in(nm_self_test_body, NULL) == 2;
}
#endif

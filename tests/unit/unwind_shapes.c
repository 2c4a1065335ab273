/* SPDX-License-Identifier: MIT */
/* The shapes of unwind_shapes.h. SHAPES_TABLE names this compilation's table. Every call to
 * shapes_next is kept out of tail position (its result is used after it), so each function
 * keeps its frame on the stack while the capture runs. */
#include "unwind_shapes.h"

#include <alloca.h>
#include <stdarg.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

/* A few locals, nothing else. */
NOINLINE static int plain(const step_t *p, int i)
{
    volatile int keep = p[i].arg;
    int r = shapes_next(p, i);
    return r + keep - p[i].arg;
}

/* A variable-size stack allocation: the stack pointer moves by a run-time amount. */
NOINLINE static int with_alloca(const step_t *p, int i)
{
    size_t n = 16 + (size_t)(p[i].arg % 64) * 24;
    volatile char *buf = alloca(n);
    buf[0] = (char)i;
    buf[n - 1] = (char)n;
    int r = shapes_next(p, i);
    return r + buf[0] - (char)i;
}

/* A frame larger than a page. */
NOINLINE static int big_frame(const step_t *p, int i)
{
    volatile char buf[9000];
    buf[p[i].arg % (int)sizeof buf] = 1;
    buf[0] = 0;
    int r = shapes_next(p, i);
    return r + buf[0];
}

/* Values live across the call: callee-saved registers pushed and restored. */
NOINLINE static int many_saved(const step_t *p, int i)
{
    volatile int seed = p[i].arg;
    int a = seed * 3, b = seed ^ 5, c = seed + 7, d = seed * seed, e = seed - 11, f = seed << 2,
        g = seed | 9;
    int r = shapes_next(p, i);
    return r + (a + b + c + d + e + f + g) * 0 + (a - seed * 3);
}

static int varargs_next(int count, ...)
{
    va_list ap;
    va_start(ap, count);
    const step_t *p = va_arg(ap, const step_t *);
    int i = va_arg(ap, int);
    va_end(ap);
    int r = shapes_next(p, i);
    return r + count - count;
}

/* A variadic function in the chain. */
NOINLINE static int variadic(const step_t *p, int i)
{
    int (*volatile fn)(int, ...) = varargs_next;
    int r = fn(2, p, i);
    return r + 0 * p[i].arg;
}

/* The same function several times over before going on. */
NOINLINE static int recursive_n(const step_t *p, int i, int left)
{
    volatile int keep = left;
    int r = left > 0 ? recursive_n(p, i, left - 1) : shapes_next(p, i);
    return r + keep - left;
}

NOINLINE static int recursive(const step_t *p, int i)
{
    int r = recursive_n(p, i, p[i].arg % 5);
    return r + 0 * p[i].arg;
}

typedef struct big_s {
    long words[24];
} big_t;

NOINLINE static int by_value_next(big_t big, const step_t *p, int i)
{
    int r = shapes_next(p, i);
    return r + (int)(big.words[3] - big.words[3]);
}

/* A large struct passed by value: stack arguments above the return address. */
NOINLINE static int by_value(const step_t *p, int i)
{
    big_t big;
    memset(&big, p[i].arg & 0x7f, sizeof big);
    int r = by_value_next(big, p, i);
    return r + 0 * (int)big.words[0];
}

/* An over-aligned local: the stack is realigned, and the CFA is an expression (GCC) or on %rbp
 * (clang, and GCC at -O0 with frame pointers): the rule cache leaves the first kind to
 * libunwind. */
NOINLINE static int realign(const step_t *p, int i)
{
    volatile char wide[64] __attribute__((aligned(64)));
    wide[0] = (char)p[i].arg;
    int r = shapes_next(p, i);
    return r + wide[0] - (char)p[i].arg;
}

const shape_fn SHAPES_TABLE[SHAPES] = {plain,    with_alloca, big_frame, many_saved,
                                       variadic, recursive,   by_value,  realign};

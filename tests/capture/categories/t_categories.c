/* SPDX-License-Identifier: MIT */
/* A native program whose allocating functions are named for what they hold, so the category of
 * every byte is known: the default rules, a custom rules file, the annotation API and the stack
 * depth limit are checked against it (run_categories.sh compares the library's per-category exit
 * report). Each function stays a frame of its own (noinline), and the program is linked with
 * -rdynamic for some names and not for others (static functions come from .symtab).
 *   usage: t_categories [annotate]      annotate: wrap one step in vramtrace_category_push, and
 *                                       pause around another */
#include <stdio.h>
#include <string.h>
#include "sim_test.h"
#include "vramtrace.h"

#define NOINLINE __attribute__((noinline))
#define MiB      (1u << 20)

static CUdeviceptr live[64];
static int n_live;

/* Every allocation of the program goes through here, so the category-named caller is always
 * a frame and this one never matches a default rule. */
NOINLINE static void device_bytes(size_t bytes)
{
    if (cuMemAlloc_v2(&live[n_live], bytes) == CUDA_SUCCESS)
        n_live++;
    else
        fprintf(stderr, "t_categories: cuMemAlloc_v2 failed\n");
}

NOINLINE static void init_weights(void)
{
    device_bytes(8 * MiB);
}

NOINLINE void alloc_gradients(void) /* exported: found through dladdr */
{
    device_bytes(4 * MiB);
}

NOINLINE static void adam_state(void)
{
    device_bytes(2 * MiB);
}

NOINLINE static void forward_layer(void)
{
    device_bytes(1 * MiB);
}

NOINLINE static void load_batch(void)
{
    device_bytes(512 * 1024);
}

NOINLINE static void cublas_like_workspace(void)
{
    device_bytes(256 * 1024);
}

NOINLINE static void plain_helper(void)
{
    device_bytes(128 * 1024);
}

/* Five calls deep before the category-named function's allocation: the weights frame is the
 * sixth frame from the allocation, beyond VRAMTRACE_DEPTH=4. */
NOINLINE static void deep4(void)
{
    device_bytes(64 * 1024);
}
NOINLINE static void deep3(void)
{
    deep4();
}
NOINLINE static void deep2(void)
{
    deep3();
}
NOINLINE static void deep1(void)
{
    deep2();
}
NOINLINE static void deep_weights(void)
{
    deep1();
}

int main(int argc, char **argv)
{
    int annotate = argc > 1 && strcmp(argv[1], "annotate") == 0;
    if (sim_test_context(0) != CUDA_SUCCESS) {
        fprintf(stderr, "t_categories: no context\n");
        return 1;
    }
    init_weights();
    alloc_gradients();
    adam_state();
    forward_layer();
    load_batch();
    cublas_like_workspace();
    plain_helper();
    deep_weights();
    if (annotate) {
        VRAMTRACE_CATEGORY_PUSH("activations");
        init_weights(); /* 8 MiB more, as activations */
        VRAMTRACE_CATEGORY_PUSH("no-such-category");
        plain_helper(); /* an unknown name keeps activations */
        VRAMTRACE_CATEGORY_POP();
        VRAMTRACE_CATEGORY_POP();
        plain_helper(); /* the rules again: unknown */
        VRAMTRACE_PAUSE();
        plain_helper(); /* paused: not recorded (its free is then unmatched) */
        VRAMTRACE_RESUME();
    }
    while (n_live > 0)
        cuMemFree_v2(live[--n_live]);
    return 0;
}

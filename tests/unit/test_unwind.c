/* SPDX-License-Identifier: MIT */
/* The case that makes "unwind only what changed since the thread's last capture" unsound when
 * it stops at the first frame whose stack pointer and return address match the last capture's:
 * one function calls the same leaf twice, from two call sites, so the leaf's frame is popped
 * and pushed again at the same stack pointer with the same return address inside it, while the
 * frame above it (the caller's return address) differs. vt_unwind must give the two captures
 * their own frame 1, and interning must give them two ids. */
#include "vt_internal.h"
#include "vt_test.h"

#include <string.h>

static void *got[2][VT_MAX_FRAMES];
static int got_n[2];
static uintptr_t leaf_frame[2];

__attribute__((noinline)) static void leaf(int k)
{
    leaf_frame[k] = (uintptr_t)__builtin_frame_address(0);
    got_n[k] = vt_unwind(got[k], 16);
    __asm__ volatile("" : : : "memory"); /* no tail call: the frame stays */
}

__attribute__((noinline)) static void caller(void)
{
    leaf(0); /* call site X */
    leaf(1); /* call site Y: same stack pointer for the leaf, another return address here */
    __asm__ volatile("" : : : "memory");
}

int main(void)
{
    /* No vt_unwind_init: the test executable would count as the library itself, whose frames
     * vt_unwind skips. */
    caller();
    VT_CHECK("both captured", got_n[0] >= 3 && got_n[1] == got_n[0]);
    VT_CHECK("the leaf's frame at the same place both times", leaf_frame[0] == leaf_frame[1]);
    /* Innermost first: vt_unwind's own frame (not skipped here; the step-by-step unwind of the
     * TSan build starts past it), the leaf's, the caller's. */
    int d = 0;
    while (d < got_n[0] && got[0][d] == got[1][d])
        d++;
    VT_CHECK("the same inner frames, the leaf's return address among them", d >= 1);
    VT_CHECK("then another return address in the caller", d < got_n[0]);
    VT_CHECK("and the same outer frames above it",
             d < got_n[0] && memcmp(got[0] + d + 1, got[1] + d + 1,
                                    (size_t)(got_n[0] - d - 1) * sizeof(void *)) == 0);
    bool created;
    uint32_t x = vt_stack_intern(got[0], got_n[0], &created);
    uint32_t y = vt_stack_intern(got[1], got_n[1], &created);
    VT_CHECK("two call-sites, two ids", x && y && x != y);
    VT_CHECK_EQ("the first again", vt_stack_intern(got[0], got_n[0], &created), x);
    return vt_test_done();
}

/* SPDX-License-Identifier: MIT */
/* What the differential tests of the category decision share (test_decide.c: the capture
 * library's, trace/test_recategorize.c: the analyzer's, both against vt_rules_decide): native
 * frames with distinct bodies, so that the symbolizers name them, and one random rule line. */
#ifndef VT_RANDOM_RULES_H
#define VT_RANDOM_RULES_H
#include <stdbool.h>
#include <stdio.h>

#include "vt_categories.h"

/* A function of the test program, never folded into another (its body is its own). */
#define VT_TEST_NATIVE(name, k)                                                                    \
    __attribute__((noinline, used)) int name(int x);                                               \
    __attribute__((noinline, used)) int name(int x)                                                \
    {                                                                                              \
        return x * (k) + (k);                                                                      \
    }

/* vt_random_rule: appends one rule on field to text (used bytes of cap), in a new section one
 * time in four: a random category, then by words (one of n_words) or by glob (one of n_globs)
 * at even odds. Returns the new number of bytes used. */
static inline size_t vt_random_rule(char *text, size_t cap, size_t used, unsigned (*rnd)(unsigned),
                                    int field, const char *const *globs, unsigned n_globs,
                                    const char *const *words, unsigned n_words)
{
    if (rnd(4) == 0)
        used += (size_t)snprintf(text + used, cap - used, "!section\n");
    bool by_words = rnd(2) == 0;
    const char *category = vt_category_names[rnd(VT_CAT_COUNT)];
    const char *pattern = by_words ? words[rnd(n_words)] : globs[rnd(n_globs)];
    return used + (size_t)snprintf(text + used, cap - used, "%s %s%c%s\n", category,
                                   vt_rule_field_names[field], by_words ? '~' : ':', pattern);
}

#endif

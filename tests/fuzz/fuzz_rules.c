/* SPDX-License-Identifier: MIT */
/* Fuzz harness of the category rules parser (common/rules.c vt_rules_load): hostile rules text
 * (VRAMTRACE_RULES names such a file, `report --rules` another), then every rule it accepted
 * matched against a few names the categorizer would try; and the same bytes as a name split into
 * words (common/words.c: a symbol table can hold any mangled-looking name). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "vt_categories.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* vt_rules_t is 40 KiB: on the heap, so ASan sees any overrun of its arrays. */
    vt_rules_t *rules = malloc(sizeof(*rules));
    if (!rules)
        return 0;
    char err[128];
    char *name = malloc(size + 1);
    if (name) {
        memcpy(name, data, size);
        name[size] = '\0';
        vt_words_t words;
        vt_name_words(name, &words);
    }
    if (vt_rules_load(rules, (const char *)data, size, true, err, sizeof(err)) == 0) {
        static const char *const names[] = {
            "",
            "torch/nn/modules/linear.py",
            "at::native::empty_cuda",
            "cudaMalloc",
            "libcublas.so.12",
            "x/y/z.py:forward:12",
            "[[[*?",
            "_ZN7weights4loadEv",
            "_ZZ12load_weightsvENKUlvE_clEv",
            "(anonymous namespace)::Load<int>(Batch&)",
        };
        for (int i = 0; i < rules->n_rules; i++) {
            for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
                (void)vt_rule_matches_subject(rules, i, names[k]);
            if (name)
                (void)vt_rule_matches_subject(rules, i, name);
        }
    }
    free(name);
    free(rules);
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* Fuzz harness of the category rules parser (common/rules.c vt_rules_parse): hostile rules text
 * (VRAMTRACE_RULES names such a file, `report --rules` another), then every glob it accepted
 * matched against a few names the categorizer would try. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz.h"
#include "vt_categories.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* vt_rules_t is 40 KiB: on the heap, so ASan sees any overrun of its arrays. */
    vt_rules_t *rules = malloc(sizeof(*rules));
    if (!rules)
        return 0;
    char err[128];
    if (vt_rules_parse(rules, (const char *)data, size, err, sizeof(err)) == 0) {
        static const char *const names[] = {
            "",
            "torch/nn/modules/linear.py",
            "at::native::empty_cuda",
            "cudaMalloc",
            "libcublas.so.12",
            "x/y/z.py:forward:12",
            "[[[*?",
        };
        for (int i = 0; i < rules->n_rules; i++) {
            const char *glob = vt_rule_glob(rules, i);
            for (size_t k = 0; glob && k < sizeof(names) / sizeof(names[0]); k++)
                (void)vt_glob_match(glob, names[k]);
            if (glob)
                (void)vt_glob_match(glob, glob);
        }
    }
    free(rules);
    return 0;
}

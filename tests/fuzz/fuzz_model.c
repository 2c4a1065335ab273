/* SPDX-License-Identifier: MIT */
/* Fuzz harness of the model-file path of `vramtrace budget` (tools/kv.c, tools/budget.c): a
 * hostile model file read as key = value lines, every setting applied in order, then resolved
 * and computed as the command does. Errors are fine; crashes, overflows and leaks are not. */
#include <stdint.h>
#include <string.h>

#include "budget.h"
#include "fuzz.h"
#include "kv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_path(data, size);
    if (!path)
        return 0;
    char err[512];
    vt_kv_list_t l;
    vt_kv_list_init(&l);
    if (vt_kv_parse_file(&l, path, err, sizeof(err)) == 0) {
        vt_budget_model_t m, resolved;
        vt_budget_model_init(&m);
        int bad = 0;
        for (size_t i = 0; i < l.n && !bad; i++)
            bad = vt_budget_model_set(&m, l.items[i].key, l.items[i].value, err, sizeof(err));
        vt_budget_t b;
        if (!bad && vt_budget_resolve(&m, &resolved, err, sizeof(err)) == 0 &&
            vt_budget_compute(&m, &b, err, sizeof(err)) == 0) {
            for (size_t k = 0; k < sizeof(vt_budget_categories) / sizeof(vt_budget_categories[0]);
                 k++)
                (void)vt_budget_category(&b, vt_budget_categories[k]);
            vt_budget_naive_t naive;
            vt_budget_realistic_t realistic;
            (void)vt_budget_naive(&resolved, &naive);
            (void)vt_budget_realistic(&resolved, &realistic);
        }
    }
    vt_kv_list_release(&l);
    return 0;
}

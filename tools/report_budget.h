/* SPDX-License-Identifier: MIT */
/* `vramtrace report TRACE --budget MODEL`: the measured device peak by category next to the
 * naive and realistic budgets of a model (budget.[ch]), with their ratios and one sentence per
 * category that is off by more than 20% naming the assumption that explains it. */
#ifndef VT_REPORT_BUDGET_H
#define VT_REPORT_BUDGET_H
#include <stdint.h>
#include <stdio.h>

#include "budget.h"
#include "json.h"
#include "kv.h"
#include "vt_categories.h"

/* What the comparison needs: the resolved model and both budgets it computes. */
typedef struct vt_report_budget_s {
    const char *model_file;
    vt_budget_model_t resolved;
    vt_budget_t budget; /* budget.method says which of naive and realistic are filled */
} vt_report_budget_t;

/* Reads model_file, then the key=value arguments over it, and computes the budget. Returns 0;
 * or prints one line and returns the exit status: 1 for an unreadable file, 2 for a bad line,
 * an unknown key, a bad or missing value (as `vramtrace budget` does). */
int vt_report_budget_load(vt_report_budget_t *rb, const char *model_file, const vt_kv_list_t *args);

/* The text table, the realistic overhead and transient lines, and the notes, after the report. */
void vt_report_budget_text(const vt_report_budget_t *rb, const uint64_t measured[VT_CAT_COUNT]);

/* The "budget" member of the report's JSON object. */
void vt_report_budget_json(vt_json_t *j, const vt_report_budget_t *rb,
                           const uint64_t measured[VT_CAT_COUNT]);

/* The "budget" section of the HTML report (cmd_html.c): the same table and notes. */
void vt_report_budget_html(FILE *out, const vt_report_budget_t *rb,
                           const uint64_t measured[VT_CAT_COUNT]);
#endif

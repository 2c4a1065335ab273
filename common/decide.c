/* SPDX-License-Identifier: MIT */
/* The category decision, written the plain way (vt_categories.h): rule by rule, first match. */
#include <string.h>

#include "vt_categories.h"

static bool glob_hit(const vt_rules_t *rules, int i, const char *subject)
{
    return subject && *subject && vt_glob_match(vt_rule_glob(rules, i), subject);
}

bool vt_rule_matches_frame(const vt_rules_t *rules, int i, const vt_rule_frame_t *f)
{
    switch (rules->rules[i].field) {
    case VT_FIELD_PY:
        return f->py && glob_hit(rules, i, f->py);
    case VT_FIELD_FUNC:
        if (f->py)
            return false;
        for (int k = 0; k < 3; k++)
            if (glob_hit(rules, i, f->names[k]))
                return true;
        return false;
    case VT_FIELD_MODULE:
        return !f->py && glob_hit(rules, i, f->module);
    case VT_FIELD_FILE: {
        if (f->py || !f->file)
            return false;
        const char *base = strrchr(f->file, '/');
        return glob_hit(rules, i, base ? base + 1 : f->file) || glob_hit(rules, i, f->file);
    }
    default:
        return false;
    }
}

int vt_rules_frame_first(const vt_rules_t *rules, const vt_rule_frame_t *f, int limit)
{
    for (int i = 0; i < limit; i++)
        if (VT_FIELD_IS_FRAME(rules->rules[i].field) && vt_rule_matches_frame(rules, i, f))
            return i;
    return limit;
}

int vt_rules_decide(const vt_rules_t *rules, const vt_rule_site_t *site)
{
    if (site->forced >= 0)
        return site->forced;
    for (int i = 0; i < rules->n_rules; i++) {
        const vt_rule_t *rule = &rules->rules[i];
        bool hit = false;
        switch (rule->field) {
        case VT_FIELD_PHASE:
            hit = vt_glob_match(vt_rule_glob(rules, i), site->phase ? site->phase : "");
            break;
        case VT_FIELD_THREAD:
            hit = vt_glob_match(vt_rule_glob(rules, i), site->thread ? site->thread : "");
            break;
        case VT_FIELD_API:
            hit = vt_glob_match(vt_rule_glob(rules, i), site->api ? site->api : "");
            break;
        default:
            for (int k = 0; k < site->n_frames && !hit; k++)
                hit = vt_rule_matches_frame(rules, i, &site->frames[k]);
            break;
        }
        if (hit)
            return rule->category;
    }
    return VT_CAT_UNKNOWN;
}

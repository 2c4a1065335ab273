/* SPDX-License-Identifier: MIT */
/* The category decision, written the plain way (vt_categories.h): section by section, frame by
 * frame, rule by rule. */
#include <string.h>

#include "vt_categories.h"

/* A frame's subjects split into words at most once each, for all the words rules tried on it;
 * the reference decision splits them again for each rule. */
typedef struct frame_words_s {
    vt_words_t of[5]; /* names[0..2], module, file's basename; a py frame's function in of[0] */
    unsigned done;    /* bit per of[] */
} frame_words_t;

enum { WORDS_MODULE = 3, WORDS_FILE = 4 };

static bool hit(const vt_rules_t *rules, int i, const char *subject, frame_words_t *cache, int slot)
{
    if (!subject || !*subject)
        return false;
    const vt_rule_t *rule = &rules->rules[i];
    if (!rule->words || !cache)
        return vt_rule_matches_subject(rules, i, subject);
    if (!(cache->done & (1u << slot))) {
        if (rule->field == VT_FIELD_PY) {
            const char *function = strrchr(subject, ':');
            subject = function ? function + 1 : subject;
        }
        vt_name_words(subject, &cache->of[slot]);
        cache->done |= 1u << slot;
    }
    return vt_words_match(vt_rule_glob(rules, i), &cache->of[slot]);
}

static bool matches_frame(const vt_rules_t *rules, int i, const vt_rule_frame_t *f,
                          frame_words_t *cache)
{
    switch (rules->rules[i].field) {
    case VT_FIELD_PY:
        return f->py && hit(rules, i, f->py, cache, 0);
    case VT_FIELD_FUNC:
        if (f->py)
            return false;
        for (int k = 0; k < 3; k++)
            if (hit(rules, i, f->names[k], cache, k))
                return true;
        return false;
    case VT_FIELD_MODULE:
        return !f->py && hit(rules, i, f->module, cache, WORDS_MODULE);
    case VT_FIELD_FILE: {
        if (f->py || !f->file)
            return false;
        const char *base = strrchr(f->file, '/');
        base = base ? base + 1 : f->file;
        /* a glob sees the whole path too; words only the basename, not the directories */
        return hit(rules, i, base, cache, WORDS_FILE) ||
               (!rules->rules[i].words && hit(rules, i, f->file, cache, WORDS_FILE));
    }
    default:
        return false;
    }
}

bool vt_rule_matches_frame(const vt_rules_t *rules, int i, const vt_rule_frame_t *f)
{
    return matches_frame(rules, i, f, NULL);
}

int vt_rules_frame_first(const vt_rules_t *rules, const vt_rule_frame_t *f, int limit)
{
    frame_words_t cache;
    cache.done = 0;
    for (int i = 0; i < limit; i++)
        if (VT_FIELD_IS_FRAME(rules->rules[i].field) && matches_frame(rules, i, f, &cache))
            return i;
    return limit;
}

int vt_rules_decide(const vt_rules_t *rules, const vt_rule_site_t *site)
{
    if (site->forced >= 0)
        return site->forced;
    int verdict = rules->n_rules;
    for (int first = 0; first < rules->n_rules && verdict == rules->n_rules;) {
        int end = first;
        while (end < rules->n_rules && rules->rules[end].section_first == first)
            end++;
        for (int k = 0; k < site->n_frames && verdict == rules->n_rules; k++)
            for (int i = first; i < end && verdict == rules->n_rules; i++)
                if (VT_FIELD_IS_FRAME(rules->rules[i].field) &&
                    vt_rule_matches_frame(rules, i, &site->frames[k]))
                    verdict = i;
        first = end;
    }
    for (int i = 0; i < verdict; i++) {
        const char *subject;
        switch (rules->rules[i].field) {
        case VT_FIELD_PHASE:
            subject = site->phase;
            break;
        case VT_FIELD_THREAD:
            subject = site->thread;
            break;
        case VT_FIELD_API:
            subject = site->api;
            break;
        default:
            continue;
        }
        if (vt_rule_matches_subject(rules, i, subject ? subject : ""))
            return rules->rules[i].category;
    }
    return verdict < rules->n_rules ? rules->rules[verdict].category : VT_CAT_UNKNOWN;
}

/* SPDX-License-Identifier: MIT */
/* Shell-style globs (vt_categories.h), the matching under the rules' `<field>=<glob>` and the
 * words of a `<field>~<words>` rule: the lowest file of the rule vocabulary, depending on
 * nothing. ASCII case-insensitive, whole string; nothing here allocates. */
#include "vt_categories.h"

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Matches one [...] class at *glob against c; advances *glob past it. */
static bool class_match(const char **glob, char c)
{
    const char *g = *glob + 1;
    bool negate = *g == '!' || *g == '^';
    if (negate)
        g++;
    bool hit = false;
    for (bool first = true; *g && (first || *g != ']'); first = false) {
        char lo = lower(*g), hi = lo;
        if (g[1] == '-' && g[2] && g[2] != ']') {
            hi = lower(g[2]);
            g += 3;
        } else {
            g++;
        }
        hit |= lower(c) >= lo && lower(c) <= hi;
    }
    if (*g != ']') /* unterminated: '[' is a literal */
        return c == '[' && (*glob += 1, true);
    *glob = g + 1;
    return hit != negate;
}

/* Iterative, with one backtrack point per '*' (the classic linear-ish algorithm). */
bool vt_glob_match(const char *glob, const char *s)
{
    const char *star_glob = NULL, *star_s = NULL;
    while (*s) {
        if (*glob == '*') {
            star_glob = ++glob;
            star_s = s;
            continue;
        }
        const char *g = glob;
        bool ok;
        if (*g == '?') {
            ok = true;
            g++;
        } else if (*g == '[') {
            ok = class_match(&g, *s);
        } else {
            ok = *g && lower(*g) == lower(*s);
            g++;
        }
        if (ok) {
            glob = g;
            s++;
        } else if (star_glob) {
            glob = star_glob;
            s = ++star_s;
        } else {
            return false;
        }
    }
    while (*glob == '*')
        glob++;
    return *glob == '\0';
}

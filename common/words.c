/* SPDX-License-Identifier: MIT */
/* The words of a name (vt_categories.h), for the `<field>~<words>` rules: `load_weights`,
 * `LoadWeights`, `weights::load` and `_ZN7weights4loadEv` all hold the words load and weights,
 * while `payload` holds neither load nor pay. Mangled C++ names are read without a demangler (the
 * capture library sees them mangled and may not allocate): only the <source-name>s of the
 * function's own qualified name are taken, so a parameter of type Optimizer& does not make a
 * function an optimizer's. Nothing here allocates. */
#include <string.h>

#include "vt_categories.h"

typedef struct words_out_s {
    char *text;
    size_t cap, used; /* used: bytes of finished words */
    size_t word_len;  /* of the word being written, after used */
    int n;
    char last; /* the word's last character, for its boundaries */
} words_out_t;

static bool is_lower(char c)
{
    return c >= 'a' && c <= 'z';
}

static bool is_upper(char c)
{
    return c >= 'A' && c <= 'Z';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_alnum(char c)
{
    return is_lower(c) || is_upper(c) || is_digit(c);
}

/* Ends the word being written (a word that does not fit is dropped, and so are those after it). */
static void word_end(words_out_t *w)
{
    if (!w->word_len)
        return;
    if (w->used + w->word_len + 2 <= w->cap) {
        w->text[w->used + w->word_len] = '\0';
        w->used += w->word_len + 1;
        w->n++;
    } else {
        w->cap = w->used; /* full: nothing more */
    }
    w->word_len = 0;
}

static void word_put(words_out_t *w, char c)
{
    if (w->used + w->word_len + 2 <= w->cap)
        w->text[w->used + w->word_len] = c;
    w->word_len++;
    w->last = c;
}

/* Appends the words of text [s, e). In a pattern '*', '?' and a [...] class belong to words. */
static void text_words(words_out_t *w, const char *s, const char *e, bool pattern)
{
    for (const char *p = s; p < e; p++) {
        char c = *p;
        if (pattern && c == '[') { /* a class, to its ']' ("[]...]" and "[!]...]" hold a ']') */
            const char *q = p + 1;
            if (q < e && (*q == '!' || *q == '^'))
                q++;
            if (q < e && *q == ']')
                q++;
            while (q < e && *q != ']')
                q++;
            if (q < e) {
                while (p < q)
                    word_put(w, *p++);
                word_put(w, ']');
                w->last = '*'; /* no case or digit boundary after a class */
                continue;
            }
        }
        bool glob = pattern && (c == '*' || c == '?' || c == '[');
        if (!is_alnum(c) && !glob) {
            word_end(w);
            continue;
        }
        char prev = w->word_len ? w->last : '\0';
        bool boundary = (is_lower(prev) && is_upper(c)) ||
                        (is_upper(prev) && is_upper(c) && p + 1 < e && is_lower(p[1])) ||
                        ((is_lower(prev) || is_upper(prev)) && is_digit(c)) ||
                        (is_digit(prev) && (is_lower(c) || is_upper(c)));
        if (boundary)
            word_end(w);
        word_put(w, c);
    }
    word_end(w);
}

/* ---- mangled names (the Itanium C++ ABI) ------------------------------------------------------ */

/* The <source-name> (<length><identifier>) at p: its words into w (unless NULL); returns what
 * follows it, or NULL when the length runs past the end. */
static const char *source_name(const char *p, words_out_t *w)
{
    size_t n = 0;
    while (is_digit(*p)) {
        n = n * 10 + (size_t)(*p++ - '0');
        if (n > 4096)
            return NULL;
    }
    if (strnlen(p, n) < n)
        return NULL;
    if (w)
        text_words(w, p, p + n, false);
    return p + n;
}

/* Skips to the 'E' that closes depth open brackets (template arguments I...E, a lambda's
 * signature, nested names and expressions inside them) from p; returns what follows it, or
 * NULL. Source names are skipped by their length, so their letters open nothing. */
static const char *skip_closing(const char *p, int depth)
{
    while (depth > 0) {
        char c = *p;
        if (!c)
            return NULL;
        if (is_digit(c)) {
            p = source_name(p, NULL);
            if (!p)
                return NULL;
            continue;
        }
        if (c == 'L' && is_lower(p[1])) { /* a literal: L <builtin type> <value> E */
            const char *e = strchr(p, 'E');
            if (!e)
                return NULL;
            p = e + 1;
            continue;
        }
        if (c == 'I' || c == 'N' || c == 'X' || c == 'J' || c == 'L' || c == 'Z')
            depth++;
        else if (c == 'E')
            depth--;
        p++;
    }
    return p;
}

/* The words of the qualified name of the encoding at p (after "_Z"). */
static void mangled_words(words_out_t *w, const char *p)
{
    if (*p == 'Z') { /* a local entity (a lambda, a static): its function's name */
        mangled_words(w, p + 1);
        return;
    }
    if (*p == 'L') /* internal linkage */
        p++;
    bool nested = *p == 'N';
    if (nested) {
        p++;
        while (*p == 'r' || *p == 'V' || *p == 'K' || *p == 'R' || *p == 'O')
            p++;
    }
    while (p && *p) {
        char c = *p;
        if (is_digit(c)) {
            p = source_name(p, w);
            if (!nested) /* an unscoped name: the rest are template arguments and parameters */
                return;
        } else if (c == 'I') {
            p = skip_closing(p + 1, 1);
        } else if (c == 'S') { /* a substitution: St (std::), Sa..., S_, S<seq-id>_ */
            p++;
            if (is_lower(*p)) {
                p++;
            } else {
                while (is_digit(*p) || is_upper(*p))
                    p++;
                if (*p == '_')
                    p++;
            }
        } else if (c == 'U' && p[1] == 'l') { /* a lambda: Ul <signature> E [<number>] _ */
            p = skip_closing(p + 2, 1);
            while (p && (is_digit(*p) || *p == '_'))
                p++;
        } else if (c == 'U' && p[1] == 't') { /* an unnamed type: Ut [<number>] _ */
            p += 2;
            while (is_digit(*p) || *p == '_')
                p++;
        } else if (c == 'B') { /* an ABI tag (cxx11) says nothing */
            p = source_name(p + 1, NULL);
        } else if (nested && (c == 'C' || c == 'D') && p[1]) { /* a constructor, a destructor */
            p += 2;
        } else if (nested && c == 'L') {
            p++;
        } else if (nested && is_lower(c) && p[1]) { /* an operator (cl, pl, ix...) */
            p += 2;
        } else {
            return; /* 'E' ends the nested name; anything else is not understood */
        }
    }
}

/* ---- demangled and plain names ----------------------------------------------------------------- */

/* The words of a name as written: up to its parameter list, template arguments left out. */
static void plain_words(words_out_t *w, const char *name)
{
    static const char anonymous[] = "(anonymous namespace)";
    int depth = 0;
    const char *run = name;
    for (const char *p = name;; p++) {
        char c = *p;
        if (!depth && c == '(' && strncmp(p, anonymous, sizeof anonymous - 1) == 0) {
            text_words(w, run, p, false);
            p += sizeof anonymous - 2;
            run = p + 1;
        } else if (!depth && (c == '\0' || c == '(' || c == '<')) {
            text_words(w, run, p, false);
            if (c != '<')
                return;
            depth = 1;
        } else if (c == '\0') {
            return;
        } else if (c == '<') {
            depth++;
        } else if (c == '>' && depth && !--depth) {
            run = p + 1;
        }
    }
}

void vt_name_words(const char *name, vt_words_t *out)
{
    words_out_t w = {out->text, sizeof out->text, 0, 0, 0, '\0'};
    if (name[0] == '_' && name[1] == 'Z')
        mangled_words(&w, name + 2);
    else
        plain_words(&w, name);
    out->text[w.used] = '\0';
    out->n = w.n;
}

size_t vt_pattern_words(const char *pattern, size_t len, char *out, size_t cap)
{
    words_out_t w = {out, cap, 0, 0, 0, '\0'};
    if (cap < 2)
        return 0;
    text_words(&w, pattern, pattern + len, true);
    if (w.cap != cap || !w.n) /* some did not fit, or none */
        return 0;
    out[w.used] = '\0';
    return w.used + 1;
}

bool vt_words_match(const char *pattern_words, const vt_words_t *name)
{
    for (const char *start = name->text; *start; start += strlen(start) + 1) {
        const char *pw = pattern_words, *nw = start;
        while (*pw && *nw && vt_glob_match(pw, nw)) {
            pw += strlen(pw) + 1;
            nw += strlen(nw) + 1;
        }
        if (!*pw)
            return true;
    }
    return false;
}

/* SPDX-License-Identifier: MIT */
/* The memory categories (exact names: docs/design.md, "Contracts") and the category rules that decide them:
 * the syntax, the built-in defaults, and a parser and matcher that allocate nothing, shared
 * by libvramtrace.so (capture time) and the vramtrace CLI (report time, `rules --defaults`). */
#ifndef VT_CATEGORIES_H
#define VT_CATEGORIES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum vt_category_e {
    VT_CAT_WEIGHTS,
    VT_CAT_GRADIENTS,
    VT_CAT_OPTIMIZER,
    VT_CAT_ACTIVATIONS,
    VT_CAT_DATA,
    VT_CAT_WORKSPACE,
    VT_CAT_UNKNOWN,
    VT_CAT_COUNT
} vt_category_t;

extern const char *const vt_category_names[VT_CAT_COUNT];
int vt_category_from_name(const char *name, size_t len); /* -1 when not a category */

/* Rule fields: what a pattern is matched against. The first four are properties of a frame (frame
 * rules); the rest of the allocation (context rules). */
typedef enum vt_rule_field_e {
    VT_FIELD_FUNC,   /* native function symbol */
    VT_FIELD_MODULE, /* shared object basename */
    VT_FIELD_FILE,   /* source file, when debug info says (offline only) */
    VT_FIELD_PY,     /* path/file.py:function of a Python frame */
    VT_FIELD_PHASE,  /* NVTX range path, '/'-joined */
    VT_FIELD_THREAD, /* thread name */
    VT_FIELD_API,    /* CUDA entry point name */
    VT_FIELD_COUNT
} vt_rule_field_t;
#define VT_FIELD_IS_FRAME(f) ((f) <= VT_FIELD_PY)

extern const char *const vt_rule_field_names[VT_FIELD_COUNT];

/* A user's file holds at most VT_RULES_FILE_MAX rules and VT_RULES_FILE_POOL bytes of patterns;
 * the built-in rules go after it, in the rest. */
#define VT_RULES_FILE_MAX  256
#define VT_RULES_FILE_POOL 32768
#define VT_RULES_MAX       512
#define VT_RULES_POOL_SIZE 65536

typedef struct vt_rule_s {
    uint8_t category;       /* vt_category_t */
    uint8_t field;          /* vt_rule_field_t */
    uint8_t words;          /* <field>~<words>: the pool holds the words, each NUL-ended, then "" */
    uint8_t builtin;        /* one of the built-in rules */
    uint16_t line;          /* in its file, for messages */
    uint16_t section_first; /* index of the first rule of its section */
    uint32_t glob_off;      /* into pool */
} vt_rule_t;

typedef struct vt_rules_s {
    vt_rule_t rules[VT_RULES_MAX];
    int n_rules;
    int n_builtin;        /* of them, the built-in rules (the last ones) */
    bool defaults_off;    /* the file said `!defaults off` */
    unsigned fields_used; /* bit per vt_rule_field_t */
    char pool[VT_RULES_POOL_SIZE];
    size_t pool_used;
} vt_rules_t;

/* vt_rules_parse: parses one rules file's text into *out (the built-in rules not added). Returns
 * 0, or the 1-based number of the first bad line with a message (no file name, no trailing
 * newline) in err. */
int vt_rules_parse(vt_rules_t *out, const char *text, size_t len, char *err, size_t err_cap);

/* vt_rules_load: the rules in force: those of a file's text (NULL: no file), then the built-in
 * rules unless with_defaults is false or the file says `!defaults off`. Returns as
 * vt_rules_parse; on a bad line *out holds the built-in rules alone. */
int vt_rules_load(vt_rules_t *out, const char *text, size_t len, bool with_defaults, char *err,
                  size_t err_cap);

const char *vt_rule_glob(const vt_rules_t *rules, int index);

/* vt_glob_match: shell-style glob ('*', '?', '[...]'), ASCII case-insensitive, whole string. */
bool vt_glob_match(const char *glob, const char *s);

/* ---- words (words.c) ------------------------------------------------------------------------ */

/* A name's words: runs of letters or of digits, split where a lower-case letter meets an upper-case
 * one (loadWeights), before the last capital of a run of them followed by a lower-case letter
 * (CUDACaching) and between letters and digits; a mangled C++ name (_Z...) gives the words of its
 * function's qualified name (_ZN7weights4loadEv: weights, load), not those of its parameters;
 * a demangled one those before its parameter list, without template arguments. */
#define VT_WORDS_CAP 256
typedef struct vt_words_s {
    char text[VT_WORDS_CAP]; /* each word NUL-ended, then an empty one */
    int n;
} vt_words_t;

/* vt_name_words: the words of name into *out (those that fit). */
void vt_name_words(const char *name, vt_words_t *out);

/* vt_pattern_words: the words of a rule's pattern into out (cap bytes, each NUL-ended, then an
 * empty one), where '*', '?' and a [...] class are parts of a word. Returns the bytes written,
 * 0 when there is no word or they do not fit. */
size_t vt_pattern_words(const char *pattern, size_t len, char *out, size_t cap);

/* vt_words_match: whether the pattern's words glob-match consecutive words of the name. */
bool vt_words_match(const char *pattern_words, const vt_words_t *name);

/* vt_rule_matches_subject: whether rule i matches subject as a whole: its glob, or its words
 * (of subject's words; for a py rule, of the function after the last ':'). */
bool vt_rule_matches_subject(const vt_rules_t *rules, int i, const char *subject);

/* ---- the decision (decide.c) ---------------------------------------------------------------- */

/* One frame of a call-site as the rules see it. A Python frame has py set; a native frame names
 * its function up to three ways (its symbol as the symbol table spells it, demangled, the
 * function it was inlined into: whichever the side that decides knows; NULL or "": unknown), its
 * object and its source file. */
typedef struct vt_rule_frame_s {
    const char *py; /* "path/file.py:function"; NULL for a native frame */
    const char *names[3];
    const char *module; /* basename of the object */
    const char *file; /* source file as the debug info spells it (rules see it and its basename) */
} vt_rule_frame_t;

/* An allocation as the rules see it. */
typedef struct vt_rule_site_s {
    int forced; /* category of vramtrace_category_push() or a vramtrace:<category> range; -1 */
    const vt_rule_frame_t *frames; /* innermost first */
    int n_frames;
    const char *phase;  /* NVTX range path, "" outside every range */
    const char *thread; /* thread name, "" when unknown */
    const char *api;    /* CUDA entry point name */
} vt_rule_site_t;

/* vt_rule_matches_frame: whether frame rule i (func, module, file or py) matches frame f. */
bool vt_rule_matches_frame(const vt_rules_t *rules, int i, const vt_rule_frame_t *f);

/* vt_rules_frame_first: the first frame rule before limit that f matches, else limit. */
int vt_rules_frame_first(const vt_rules_t *rules, const vt_rule_frame_t *f, int limit);

/* The frame verdict of a stack, frame by frame from the innermost: `first = limit = n_rules`,
 * then for each frame `r = vt_rules_frame_first(rules, f, limit)`, and when r < limit,
 * `first = r, limit = rules->rules[r].section_first` (an inner frame wins within a section, only
 * an earlier section can still overrule it); stop when limit is 0. */

/* vt_rules_decide: the category of site, by the definition (docs/categories.md): the forced
 * category when there is one; else the frame verdict: the first section with a frame rule
 * matching some frame, in it the innermost frame that one of its frame rules matches, and the
 * first of those rules; a phase, thread or api rule before the verdict that matches its subject
 * wins over it; else unknown. The reference: the capture library's cached decision
 * (src/categorize.c) and the analyzer's (tools/recategorize.c) are tested against it. */
int vt_rules_decide(const vt_rules_t *rules, const vt_rule_site_t *site);

/* The built-in rules, printed by `vramtrace rules --defaults`. */
extern const char vt_default_rules[];

#endif

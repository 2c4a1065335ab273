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

/* Rule fields: what a glob is matched against. The first four are properties of a frame (a
 * line matches when any frame of the call-site matches); the rest of the allocation. */
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

#define VT_RULES_MAX       256
#define VT_RULES_POOL_SIZE 32768

typedef struct vt_rule_s {
    uint8_t category;  /* vt_category_t */
    uint8_t field;     /* vt_rule_field_t */
    uint16_t line;     /* in its file, for messages */
    uint32_t glob_off; /* into pool */
} vt_rule_t;

typedef struct vt_rules_s {
    vt_rule_t rules[VT_RULES_MAX];
    int n_rules;
    unsigned fields_used; /* bit per vt_rule_field_t */
    char pool[VT_RULES_POOL_SIZE];
    size_t pool_used;
} vt_rules_t;

/* vt_rules_parse: parses rules text into *out. Returns 0, or the 1-based number of the first
 * bad line with a message (no file name, no trailing newline) in err. */
int vt_rules_parse(vt_rules_t *out, const char *text, size_t len, char *err, size_t err_cap);
const char *vt_rule_glob(const vt_rules_t *rules, int index);

/* vt_glob_match: shell-style glob ('*', '?', '[...]'), ASCII case-insensitive, whole string. */
bool vt_glob_match(const char *glob, const char *s);

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

/* vt_rules_decide: the category of site, by the definition: the forced category when there is
 * one, else the category of the first rule that matches (a frame rule matching any frame, a
 * phase, thread or api rule its subject), else unknown. The reference: the capture library's
 * cached decision (src/categorize.c) and the analyzer's (tools/recategorize.c) are tested
 * against it. */
int vt_rules_decide(const vt_rules_t *rules, const vt_rule_site_t *site);

/* The built-in rules, printed by `vramtrace rules --defaults`. */
extern const char vt_default_rules[];

#endif

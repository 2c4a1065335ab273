/* SPDX-License-Identifier: MIT */
/* Call-site and category of each allocation, decided in-process so that live bytes per
 * category exist at every moment, an OOM too (docs/design.md, "Categories"). The stack is captured raw and
 * interned; the frame rules are evaluated once per unique stack (symbol names through dladdr,
 * outside vt_lock because dladdr takes the loader lock) and the first one that matches is cached
 * on the stack's node; per allocation only the phase, thread and API rules before it are tried. */
#include "vt_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

static vt_rules_t active_rules;
/* The indexes of the rules that look at the allocation rather than its frames (phase, thread,
 * api), in order: the only ones tried per allocation. */
static uint16_t context_rules[VT_RULES_MAX];
static int n_context_rules;
/* Bit k: context rule k is a phase rule that matches the empty phase (outside every range). */
static uint64_t empty_phase_hits[(VT_RULES_MAX + 63) / 64];
/* Every context rule is a thread rule (the defaults): decide() takes a shortcut. */
static bool only_thread_rules;
/* Bumped by each vt_categories_init: per-thread verdicts of older rules are recomputed. */
static unsigned rules_generation;
static char rules_text[64 * 1024];

/* Per-thread overrides: vramtrace_category_push() and NVTX phases. */
#define MAX_NESTING 32
#define PHASE_BYTES 512
static __thread struct {
    int8_t pushed[MAX_NESTING]; /* categories from the annotation API; -1: none */
    int n_pushed;
    char phase[PHASE_BYTES]; /* the NVTX range path, '/'-joined */
    uint16_t phase_ends[MAX_NESTING + 1];
    int8_t phase_cats[MAX_NESTING + 1]; /* category forced by a "vramtrace:<cat>" range, or -1 */
    int n_phases;                       /* may exceed MAX_NESTING: deeper levels are counted */
} tls_ctx __attribute__((tls_model("initial-exec")));

/* ---- rules loading ------------------------------------------------------------------------- */

static int parse_into(vt_rules_t *rules, const char *text, size_t len, const char *origin)
{
    char err[160];
    int bad_line = vt_rules_parse(rules, text, len, err, sizeof err);
    if (bad_line)
        vt_warn_later("rules '%s' line %d: %s; using the default rules", origin, bad_line, err);
    return bad_line;
}

/* read_rules_file's answer for a path that is neither a regular file nor a directory. */
#define RULES_NOT_REGULAR (-100000L)

/* Reads the whole file into rules_text; returns its length, -errno, or RULES_NOT_REGULAR. The
 * open does not block and anything but a regular file is refused: a FIFO named by
 * VRAMTRACE_RULES would otherwise stop the program inside our init until a writer came. */
static long read_rules_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        return -err;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return S_ISDIR(st.st_mode) ? -EISDIR : RULES_NOT_REGULAR;
    }
    size_t used = 0;
    for (;;) {
        ssize_t n = read(fd, rules_text + used, sizeof rules_text - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            return n < 0 ? -errno : (long)used;
        }
        used += (size_t)n;
        if (used == sizeof rules_text) {
            close(fd);
            return -EFBIG;
        }
    }
}

/* vt_categories_init: the rules of VRAMTRACE_RULES, or the defaults when it is unset or bad
 * (one warning naming the file, line and problem; capture goes on). Called once from init. */
void vt_categories_init(void)
{
    const char *path = vt_option_get_str(VT_OPTION_RULES);
    bool custom = false;
    if (path && *path) {
        long len = read_rules_file(path);
        if (len < 0)
            vt_warn_later("cannot read rules '%s': %s; using the default rules", path,
                          len == -EFBIG              ? "larger than 64 KiB"
                          : len == RULES_NOT_REGULAR ? "not a regular file"
                                                     : strerror((int)-len));
        else
            custom = parse_into(&active_rules, rules_text, (size_t)len, path) == 0;
    }
    if (!custom)
        parse_into(&active_rules, vt_default_rules, strlen(vt_default_rules), "defaults");
    rules_generation++;
    n_context_rules = 0;
    __builtin_memset(empty_phase_hits, 0, sizeof empty_phase_hits);
    for (int i = 0; i < active_rules.n_rules; i++) {
        if (VT_FIELD_IS_FRAME(active_rules.rules[i].field))
            continue;
        int k = n_context_rules++;
        context_rules[k] = (uint16_t)i;
        if (active_rules.rules[i].field == VT_FIELD_PHASE &&
            vt_glob_match(vt_rule_glob(&active_rules, i), ""))
            empty_phase_hits[k / 64] |= 1ULL << (k % 64);
    }
    only_thread_rules = n_context_rules > 0;
    for (int k = 0; k < n_context_rules; k++)
        if (active_rules.rules[context_rules[k]].field != VT_FIELD_THREAD)
            only_thread_rules = false;
}

const vt_rules_t *vt_categories_rules(void)
{
    return &active_rules;
}

/* ---- overrides ----------------------------------------------------------------------------- */

/* vt_category_push: category, or -1 to keep the enclosing one (an unknown name). */
void vt_category_push(int category)
{
    int depth = tls_ctx.n_pushed++;
    if (depth >= MAX_NESTING)
        return;
    if (category < 0)
        category = depth ? tls_ctx.pushed[depth - 1] : -1;
    tls_ctx.pushed[depth] = (int8_t)category;
}

void vt_category_pop(void)
{
    if (tls_ctx.n_pushed > 0)
        tls_ctx.n_pushed--;
}

/* vt_phase_push: enters an NVTX range; a range named vramtrace:<category> forces it. */
void vt_phase_push(const char *name)
{
    vt_track_label(VT_REC_PHASE_PUSH, name);
    int depth = tls_ctx.n_phases++;
    if (depth >= MAX_NESTING)
        return;
    size_t used = depth ? tls_ctx.phase_ends[depth] : 0;
    if (depth == 0)
        tls_ctx.phase_ends[0] = 0;
    size_t len = name ? strlen(name) : 0;
    size_t room = PHASE_BYTES - 1 - used;
    size_t sep = used ? 1 : 0;
    if (len + sep > room)
        len = room > sep ? room - sep : 0;
    if (sep && room)
        tls_ctx.phase[used++] = '/';
    memcpy(tls_ctx.phase + used, name ? name : "", len);
    used += len;
    tls_ctx.phase[used] = '\0';
    tls_ctx.phase_ends[depth + 1] = (uint16_t)used;
    int forced = -1;
    if (name && strncmp(name, "vramtrace:", 10) == 0)
        forced = vt_category_from_name(name + 10, strlen(name + 10));
    tls_ctx.phase_cats[depth + 1] =
        (int8_t)(forced >= 0 ? forced : (depth ? tls_ctx.phase_cats[depth] : -1));
}

void vt_phase_pop(void)
{
    if (tls_ctx.n_phases == 0)
        return;
    int depth = --tls_ctx.n_phases;
    if (depth < MAX_NESTING)
        tls_ctx.phase[tls_ctx.phase_ends[depth]] = '\0';
    vt_track_phase_pop();
}

const char *vt_phase_current(void)
{
    return tls_ctx.phase;
}

/* ---- the per-stack rule cache --------------------------------------------------------------- */
/* Rules are tried in order and the first match wins, so all a stack needs to remember is the
 * index of the first frame rule (func, module, file, py) that any of its frames matches; the
 * per-allocation decision then only tries the non-frame rules (phase, thread, api) that come
 * before it. The index is kept in the stack node's cache slot as index + 1 (0: not computed). */

/* The first frame rule before `limit` that frame ip matches, else limit: py rules for a Python
 * pseudo-frame (its "path/file.py:function", python.c), func and module rules for a native
 * frame. Takes the loader lock (dladdr) for native frames. */
static int first_rule_of_frame(uint64_t ip, int limit)
{
    const vt_rules_t *r = &active_rules;
    if (VT_IP_IS_PY(ip)) {
        const char *where = vt_string(VT_PY_IP_STRING(ip));
        for (int i = 0; where && i < limit; i++)
            if (r->rules[i].field == VT_FIELD_PY && vt_glob_match(vt_rule_glob(r, i), where))
                return i;
        return limit;
    }
    if (!(r->fields_used & ((1u << VT_FIELD_FUNC) | (1u << VT_FIELD_MODULE))))
        return limit;
    const char *func, *module;
    vt_frame_names(ip, &func, &module);
    for (int i = 0; i < limit; i++) {
        const vt_rule_t *rule = &r->rules[i];
        const char *subject = rule->field == VT_FIELD_FUNC     ? func
                              : rule->field == VT_FIELD_MODULE ? module
                                                               : NULL;
        if (subject && *subject && vt_glob_match(vt_rule_glob(r, i), subject))
            return i;
    }
    return limit;
}

/* The index of the first frame rule the stack matches (n_rules when none), computing it on
 * first use. Not under vt_lock, and takes none. */
static int stack_first_rule(uint32_t stack_id, void *const *ips, int n_ips)
{
    int n_rules = active_rules.n_rules;
    if (!stack_id)
        return n_rules;
    /* The slot is written once per stack (by every thread that finds it empty, all with the same
     * value) and never cleared while the node lives: atomic accesses, no lock. */
    void **cache = vt_stack_node_rule_cache(vt_stack_node(stack_id));
    uintptr_t cached = (uintptr_t)__atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (cached)
        return (int)(cached - 1);
    int first = n_rules;
    if (active_rules.fields_used &
        ((1u << VT_FIELD_FUNC) | (1u << VT_FIELD_MODULE) | (1u << VT_FIELD_PY)))
        for (int i = 0; i < n_ips; i++)
            first = first_rule_of_frame((uint64_t)(uintptr_t)ips[i], first);
    __atomic_store_n(cache, (void *)(uintptr_t)(first + 1), __ATOMIC_RELEASE);
    return first;
}

/* ---- the decision --------------------------------------------------------------------------- */

/* The thread's name, re-read every 256 lookups on a thread: threads are renamed after they
 * start (PyTorch names its autograd threads as they start), but a prctl per allocation would
 * cost more than the rest of the recording path together (~2 us measured here in a VM). The
 * thread rules' verdicts on the name are computed when it is read, one bit per context rule,
 * so a lookup between two reads costs a bit test instead of a glob match. */
static __thread struct {
    char name[16];
    unsigned n_lookups;
    unsigned rules_generation;               /* the rules the hits are of */
    uint64_t hits[(VT_RULES_MAX + 63) / 64]; /* by context rule index k */
} tls_thread __attribute__((tls_model("initial-exec")));

static const uint64_t *thread_rule_hits(void)
{
    bool reread = tls_thread.n_lookups++ % 256 == 0;
    if (reread && prctl(PR_GET_NAME, tls_thread.name) != 0)
        tls_thread.name[0] = '\0';
    if (reread || tls_thread.rules_generation != rules_generation) {
        tls_thread.rules_generation = rules_generation;
        const vt_rules_t *r = &active_rules;
        __builtin_memset(tls_thread.hits, 0, sizeof tls_thread.hits);
        for (int k = 0; k < n_context_rules; k++) {
            int i = context_rules[k];
            if (r->rules[i].field == VT_FIELD_THREAD &&
                vt_glob_match(vt_rule_glob(r, i), tls_thread.name))
                tls_thread.hits[k / 64] |= 1ULL << (k % 64);
        }
    }
    return tls_thread.hits;
}

static int decide(int first_frame_rule, vt_api_t api)
{
    int pushed = tls_ctx.n_pushed > MAX_NESTING ? MAX_NESTING : tls_ctx.n_pushed;
    if (pushed > 0 && tls_ctx.pushed[pushed - 1] >= 0)
        return tls_ctx.pushed[pushed - 1];
    int depth = tls_ctx.n_phases > MAX_NESTING ? MAX_NESTING : tls_ctx.n_phases;
    if (depth > 0 && tls_ctx.phase_cats[depth] >= 0)
        return tls_ctx.phase_cats[depth];
    const vt_rules_t *r = &active_rules;
    if (only_thread_rules) {
        /* The loop below in a few steps: its first hit is the lowest verdict bit, taken when
         * that rule comes before the frame rule; the thread is looked up exactly when the loop
         * would reach the first rule. */
        if (context_rules[0] < first_frame_rule) {
            const uint64_t *hits = thread_rule_hits();
            for (int word = 0; word < (n_context_rules + 63) / 64; word++) {
                if (!hits[word])
                    continue;
                int k = word * 64 + __builtin_ctzll(hits[word]);
                if (context_rules[k] < first_frame_rule)
                    return r->rules[context_rules[k]].category;
                break;
            }
        }
        return first_frame_rule < r->n_rules ? r->rules[first_frame_rule].category : VT_CAT_UNKNOWN;
    }
    const uint64_t *thread_hits = NULL;
    for (int k = 0; k < n_context_rules && context_rules[k] < first_frame_rule; k++) {
        int i = context_rules[k];
        const vt_rule_t *rule = &r->rules[i];
        bool hit = false;
        switch (rule->field) {
        case VT_FIELD_PHASE:
            hit = tls_ctx.phase[0] ? vt_glob_match(vt_rule_glob(r, i), tls_ctx.phase)
                                   : (bool)((empty_phase_hits[k / 64] >> (k % 64)) & 1);
            break;
        case VT_FIELD_THREAD:
            if (!thread_hits)
                thread_hits = thread_rule_hits();
            hit = (thread_hits[k / 64] >> (k % 64)) & 1;
            break;
        case VT_FIELD_API:
            hit = vt_glob_match(vt_rule_glob(r, i), vt_api_name(api));
            break;
        default:
            break;
        }
        if (hit)
            return rule->category;
    }
    return first_frame_rule < r->n_rules ? r->rules[first_frame_rule].category : VT_CAT_UNKNOWN;
}

/* The part of a call-site that walks stacks: the native frames, Python's spliced in, interned.
 * Runs on the thread's capture stack (vt_run_capture), so libunwind's first unwind in a thread
 * and the splice's arrays take nothing of the program's stack. */
typedef struct capture_s {
    void **ips;
    int depth;
    int n;             /* frames captured */
    uint32_t stack_id; /* 0: none */
} capture_t;

static void capture_stack(void *arg)
{
    capture_t *c = arg;
    void **ips = c->ips;
    int n = vt_python_splice(ips, vt_unwind(ips, c->depth), c->depth);
    bool created = false;
    c->n = n;
    c->stack_id = 0;
    if (n) /* takes vt_lock itself, and only when the stack is not the thread's last one */
        c->stack_id = vt_stack_intern(ips, n, &created);
    if (created) {
        for (int i = 0; i < n; i++) {
            uint64_t ip = (uint64_t)(uintptr_t)ips[i];
            if (!VT_IP_IS_PY(ip) && !vt_modules_find(ip)) {
                vt_modules_refresh();
                break;
            }
        }
    }
}

/* vt_callsite_take: the call-site (interned stack id) and category of an allocation being
 * recorded now, on this thread. Not under vt_lock. */
void vt_callsite_take(vt_callsite_t *cs, vt_api_t api)
{
    int depth = (int)vt_option_get(VT_OPTION_DEPTH);
    if (depth > VT_MAX_FRAMES)
        depth = VT_MAX_FRAMES;
    /* The frames go to the thread's own buffer, off its stack; a thread whose capture cannot run
     * without overflowing its stack is recorded without them. */
    vt_frames_t *frames = depth > 0 ? vt_thread_frames() : NULL;
    capture_t c = {frames ? vt_frames_ips(frames) : NULL, depth, 0, 0};
    if (!frames || !vt_run_capture(frames, capture_stack, &c)) {
        /* no stack, native or Python: the category from the context alone */
        cs->stack_id = 0;
        cs->category = (uint8_t)decide(active_rules.n_rules, api);
        return;
    }
    cs->stack_id = c.stack_id;
    cs->category = (uint8_t)decide(stack_first_rule(c.stack_id, c.ips, c.n), api);
}

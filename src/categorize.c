/* SPDX-License-Identifier: MIT */
/* Call-site and category of each allocation, decided in-process so that live bytes per
 * category exist at every moment, an OOM too (docs/design.md, "Categories"). The stack is captured raw and
 * interned; the frame rules are evaluated once per unique stack (symbol names through dladdr,
 * outside vt_lock because dladdr takes the loader lock) and the frame verdict (vt_categories.h)
 * is cached on the stack's node; per allocation only the phase, thread and API rules before it
 * are tried. */
#include "vt_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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
static __thread struct {
    int8_t pushed[MAX_NESTING]; /* categories from the annotation API; -1: none */
    int n_pushed;
    vt_phase_path_t phases; /* the NVTX range path and the categories its ranges force */
} tls_ctx __attribute__((tls_model("initial-exec")));

/* ---- rules loading ------------------------------------------------------------------------- */

/* read_rules_file's answer for a path that is neither a regular file nor a directory. */
#define RULES_NOT_REGULAR (-100000L)

/* Reads the whole file into rules_text; returns its length, -errno, or RULES_NOT_REGULAR. The
 * open does not block and anything but a regular file is refused: a FIFO named by
 * VRAMTRACE_RULES would otherwise stop the program inside our init until a writer came. */
static long read_rules_file(const char *path)
{
    vt_cancel_hold(); /* open, read, close: cancellation points */
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

/* vt_categories_init: the rules of VRAMTRACE_RULES, then the built-in ones (unless the file says
 * `!defaults off` or VRAMTRACE_DEFAULT_RULES=0); the built-in ones alone when the file is unset
 * or bad (one warning naming the file, line and problem; capture goes on). Called once from init. */
void vt_categories_init(void)
{
    const char *path = vt_option_get_str(VT_OPTION_RULES);
    bool with_defaults = vt_option_get(VT_OPTION_DEFAULT_RULES) != 0;
    long len = -1; /* no file */
    if (path && *path) {
        len = read_rules_file(path);
        with_defaults |= len < 0;
        if (len < 0)
            vt_warn_later("cannot read rules '%s': %s; using the default rules", path,
                          len == -EFBIG              ? "larger than 64 KiB"
                          : len == RULES_NOT_REGULAR ? "not a regular file"
                                                     : strerror((int)-len));
    }
    char err[160];
    int bad_line = vt_rules_load(&active_rules, len >= 0 ? rules_text : NULL,
                                 len >= 0 ? (size_t)len : 0, with_defaults, err, sizeof err);
    if (bad_line)
        vt_warn_later("rules '%s' line %d: %s; using the default rules", path, bad_line, err);
    rules_generation++;
    n_context_rules = 0;
    __builtin_memset(empty_phase_hits, 0, sizeof empty_phase_hits);
    for (int i = 0; i < active_rules.n_rules; i++) {
        if (VT_FIELD_IS_FRAME(active_rules.rules[i].field))
            continue;
        int k = n_context_rules++;
        context_rules[k] = (uint16_t)i;
        if (active_rules.rules[i].field == VT_FIELD_PHASE &&
            vt_rule_matches_subject(&active_rules, i, ""))
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
    vt_phase_path_push(&tls_ctx.phases, name, name ? strlen(name) : 0);
}

void vt_phase_pop(void)
{
    if (tls_ctx.phases.depth == 0)
        return;
    vt_phase_path_pop(&tls_ctx.phases);
    vt_track_phase_pop();
}

const char *vt_phase_current(void)
{
    return tls_ctx.phases.text;
}

/* ---- the per-stack rule cache --------------------------------------------------------------- */
/* A context rule (phase, thread, api) wins when it matches and comes before the frame verdict
 * (vt_categories.h), so all a stack needs to remember is the index of its verdict's rule; the
 * per-allocation decision then only tries the context rules before it. The index is kept in the
 * stack node's cache slot as index + 1 (0: not computed). */

/* The first frame rule before `limit` that frame ip matches, else limit: py rules for a Python
 * pseudo-frame (its "path/file.py:function", python.c), func and module rules for a native
 * frame (its symbol as dladdr names it). Takes the loader lock (dladdr) for native frames. */
static int first_rule_of_frame(uint64_t ip, int limit)
{
    const vt_rules_t *r = &active_rules;
    vt_rule_frame_t frame = {0};
    if (VT_PYFRAME_IS(ip)) {
        frame.py = vt_string(VT_PYFRAME_STRING(ip));
        if (!frame.py)
            return limit;
    } else {
        if (!(r->fields_used & ((1u << VT_FIELD_FUNC) | (1u << VT_FIELD_MODULE))))
            return limit;
        vt_frame_names(ip, &frame.names[0], &frame.module);
    }
    return vt_rules_frame_first(r, &frame, limit);
}

/* The index of the stack's frame verdict (n_rules when none), computing it on first use and
 * again after an object was unloaded: the stack's addresses may now be another object's, with
 * other names (its slot holds the count of unloads it was computed after, in the high half).
 * Not under vt_lock, and takes none. */
static int stack_first_rule(uint32_t stack_id, void *const *ips, int n_ips)
{
    int n_rules = active_rules.n_rules;
    if (!stack_id)
        return n_rules;
    /* The slot is written by every thread that finds it empty or stale, all with the same value
     * for the same unloads, and never cleared while the node lives: atomic accesses, no lock. */
    void **cache = vt_stack_node_rule_cache(vt_stack_node(stack_id));
    uint64_t cached = (uint64_t)(uintptr_t)__atomic_load_n(cache, __ATOMIC_ACQUIRE);
    uint64_t unloads = (uint64_t)vt_modules_unloads() << 32;
    if (cached && (cached & ~0xffffffffull) == unloads)
        return (int)((cached & 0xffffffffull) - 1);
    int first = n_rules, limit = n_rules;
    if (active_rules.fields_used &
        ((1u << VT_FIELD_FUNC) | (1u << VT_FIELD_MODULE) | (1u << VT_FIELD_PY)))
        for (int i = 0; i < n_ips && limit > 0; i++) {
            int r = first_rule_of_frame((uint64_t)(uintptr_t)ips[i], limit);
            if (r < limit) {
                first = r;
                limit = active_rules.rules[r].section_first;
            }
        }
    __atomic_store_n(cache, (void *)(uintptr_t)(unloads | (uint64_t)(first + 1)), __ATOMIC_RELEASE);
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
                vt_rule_matches_subject(r, i, tls_thread.name))
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
    int forced = vt_phase_path_forced(&tls_ctx.phases);
    if (forced >= 0)
        return forced;
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
            hit = tls_ctx.phases.text[0] ? vt_rule_matches_subject(r, i, tls_ctx.phases.text)
                                         : (bool)((empty_phase_hits[k / 64] >> (k % 64)) & 1);
            break;
        case VT_FIELD_THREAD:
            if (!thread_hits)
                thread_hits = thread_rule_hits();
            hit = (thread_hits[k / 64] >> (k % 64)) & 1;
            break;
        case VT_FIELD_API:
            hit = vt_rule_matches_subject(r, i, vt_api_name(api));
            break;
        default:
            break;
        }
        if (hit)
            return rule->category;
    }
    return first_frame_rule < r->n_rules ? r->rules[first_frame_rule].category : VT_CAT_UNKNOWN;
}

/* vt_category_of_stack: the category of an allocation this thread makes now through api, its
 * call-site ips[0..n) interned as stack_id (0: none, n ignored): what vt_callsite_take decides
 * once it has the stack. Not under vt_lock. */
int vt_category_of_stack(uint32_t stack_id, void *const *ips, int n, vt_api_t api)
{
    return decide(stack_first_rule(stack_id, ips, n), api);
}

/* The part of a call-site that walks stacks: the native frames, Python's spliced in, interned,
 * and the stack's frame verdict. Runs on the thread's capture stack (vt_run_capture), so
 * libunwind's first unwind in a thread, the splice's arrays and the rules' words of each frame
 * take nothing of the program's stack. */
typedef struct capture_s {
    void **ips;
    int depth;
    int n;             /* frames captured */
    uint32_t stack_id; /* 0: none */
    int first_rule;    /* the stack's frame verdict (stack_first_rule) */
} capture_t;

static void capture_stack(void *arg)
{
    capture_t *c = arg;
    void **ips = c->ips;
    int n = vt_python_splice(ips, vt_unwind(ips, c->depth), c->depth);
    bool created = false;
    c->n = n;
    c->stack_id = 0;
    vt_modules_refresh_after_unloads();
    if (n) /* takes vt_lock itself, and only when the stack is not the thread's last one */
        c->stack_id = vt_stack_intern(ips, n, &created);
    if (created) {
        for (int i = 0; i < n; i++) {
            uint64_t ip = (uint64_t)(uintptr_t)ips[i];
            if (!VT_PYFRAME_IS(ip) && !vt_modules_find(ip)) {
                vt_modules_refresh();
                break;
            }
        }
    }
    c->first_rule = stack_first_rule(c->stack_id, ips, n);
}

/* vt_callsites_setup: vt_callsites_ready's first time in this process: libunwind's caches and
 * its one-time allocations, the rules, the module table. Not in init (init.c), which runs in
 * every process that gets LD_PRELOAD (shells, compilers, Python's helpers, most of which never
 * touch CUDA): they would pay for it at startup, ~0.5 ms of the library's ~0.9 (bench/loads.sh).
 * The thread that takes the process's first call-site makes them; another thread that takes one
 * meanwhile records its allocation without a call-site and in the unknown category rather than
 * wait, because waiting could deadlock on the loader's lock as init's would. Once per process: a
 * fork child inherits them, or makes them again when it was forked mid-way. */
bool vt_callsites_setup(void)
{
    int expected = VT_CALLSITES_NONE;
    if (!__atomic_compare_exchange_n(&vt_callsites_word, &expected, VT_CALLSITES_MAKING, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return expected == VT_CALLSITES_READY;
    int cancel_state = 0;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    vt_unwind_init();
    vt_categories_init();
    vt_modules_refresh();
    pthread_setcancelstate(cancel_state, &cancel_state);
    __atomic_store_n(&vt_callsites_word, VT_CALLSITES_READY, __ATOMIC_RELEASE);
    return true;
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
    if (VT_UNLIKELY(!vt_callsites_ready())) { /* another thread is loading the rules */
        cs->stack_id = 0;
        cs->category = VT_CAT_UNKNOWN;
        return;
    }
    if (depth > 0)
        vt_cancel_hold(); /* libunwind may read files; a thread's first capture maps memory */
    vt_frames_t *frames = depth > 0 ? vt_thread_frames() : NULL;
    capture_t c = {frames ? vt_frames_ips(frames) : NULL, depth, 0, 0, 0};
    if (!frames || !vt_run_capture(frames, capture_stack, &c)) {
        /* no stack, native or Python: the category from the context alone */
        cs->stack_id = 0;
        cs->category = (uint8_t)vt_category_of_stack(0, NULL, 0, api);
        return;
    }
    cs->stack_id = c.stack_id;
    cs->category = (uint8_t)decide(c.first_rule, api);
}

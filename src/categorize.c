/* SPDX-License-Identifier: MIT */
/* Call-site and category of each allocation, decided in-process so that live bytes per
 * category exist at every moment, an OOM too (DESIGN.md §3). The stack is captured raw and
 * interned; the frame rules are evaluated once per unique stack (symbol names through dladdr,
 * outside vt_lock because dladdr takes the loader lock) and cached on the stack's node as a
 * bitset; the per-allocation part is a few bit tests and, when the rules use them, a glob over
 * the phase, thread name or API. */
#include "vt_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static vt_rules_t active_rules;
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
        vt_warn("rules '%s' line %d: %s; using the default rules", origin, bad_line, err);
    return bad_line;
}

/* Reads the whole file into rules_text; returns its length or -errno. */
static long read_rules_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
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
    if (path && *path) {
        long len = read_rules_file(path);
        if (len < 0)
            vt_warn("cannot read rules '%s': %s; using the default rules", path,
                    len == -EFBIG ? "larger than 64 KiB" : strerror((int)-len));
        else if (parse_into(&active_rules, rules_text, (size_t)len, path) == 0)
            return;
    }
    parse_into(&active_rules, vt_default_rules, strlen(vt_default_rules), "defaults");
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
}

const char *vt_phase_current(void)
{
    return tls_ctx.phase;
}

/* ---- the per-stack rule cache --------------------------------------------------------------- */

#define RULE_BITS_BYTES (VT_RULES_MAX / 8)

/* The basename of a path. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Sets in bits the frame rules that frame ip matches: py rules for a Python pseudo-frame (its
 * "path/file.py:function", python.c), func and module rules for a native frame. Takes the
 * loader lock (dladdr) for native frames. */
static void match_frame(uint64_t ip, uint8_t *bits)
{
    const vt_rules_t *r = &active_rules;
    if (VT_IP_IS_PY(ip)) {
        const char *where = vt_string(VT_PY_IP_STRING(ip));
        for (int i = 0; where && i < r->n_rules; i++)
            if (r->rules[i].field == VT_FIELD_PY && vt_glob_match(vt_rule_glob(r, i), where))
                bits[i / 8] |= (uint8_t)(1u << (i % 8));
        return;
    }
    if (!(r->fields_used & ((1u << VT_FIELD_FUNC) | (1u << VT_FIELD_MODULE))))
        return;
    Dl_info info;
    /* Return addresses point after the call; the call itself is one byte earlier. */
    if (!dladdr((void *)(uintptr_t)(ip - 1), &info))
        return;
    const char *func = info.dli_sname;
    if (!func) {
        /* Not a dynamic symbol: look in the file's full symbol table. The main program's
         * name from dladdr may be relative or empty; /proc/self/exe is the file. */
        const vt_module_t *mod = vt_modules_find(ip - 1);
        const char *path = mod && mod->path[0] ? mod->path : "/proc/self/exe";
        uint64_t bias = mod ? mod->base : (uint64_t)(uintptr_t)info.dli_fbase;
        func = vt_symtab_name(path, ip - 1 - bias);
    }
    if (!func)
        func = "";
    const char *module = info.dli_fname ? base_name(info.dli_fname) : "";
    for (int i = 0; i < r->n_rules; i++) {
        const vt_rule_t *rule = &r->rules[i];
        const char *subject = rule->field == VT_FIELD_FUNC     ? func
                              : rule->field == VT_FIELD_MODULE ? module
                                                               : NULL;
        if (subject && *subject && vt_glob_match(vt_rule_glob(r, i), subject))
            bits[i / 8] |= (uint8_t)(1u << (i % 8));
    }
}

/* The rule bitset of a stack, computing it on first use. Not under vt_lock. */
static const uint8_t *stack_rule_bits(uint32_t stack_id, void *const *ips, int n_ips)
{
    static const uint8_t none[RULE_BITS_BYTES];
    if (!stack_id)
        return none;
    vt_track_lock();
    void **cache = vt_stack_node_rule_cache(vt_stack_node(stack_id));
    const uint8_t *bits = *cache;
    vt_track_unlock();
    if (bits)
        return bits;
    uint8_t computed[RULE_BITS_BYTES] = {0};
    if (active_rules.fields_used &
        ((1u << VT_FIELD_FUNC) | (1u << VT_FIELD_MODULE) | (1u << VT_FIELD_PY)))
        for (int i = 0; i < n_ips; i++)
            match_frame((uint64_t)(uintptr_t)ips[i], computed);
    vt_track_lock();
    if (!*cache) {
        uint8_t *stored = vt_arena_alloc(RULE_BITS_BYTES);
        if (stored) {
            memcpy(stored, computed, RULE_BITS_BYTES);
            *cache = stored;
        }
    }
    bits = *cache;
    vt_track_unlock();
    return bits ? bits : none;
}

/* ---- the decision --------------------------------------------------------------------------- */

/* The thread's name, read at most once a second per thread: threads are renamed after they
 * start (PyTorch names its autograd threads), but a prctl per allocation would cost more than
 * the rest of the recording path together (~2 µs measured here in a VM). */
static const char *thread_name(void)
{
    static __thread char name[16] __attribute__((tls_model("initial-exec")));
    static __thread uint64_t read_at_ns __attribute__((tls_model("initial-exec")));
    uint64_t now_ns = vt_now_ns();
    if (!read_at_ns || now_ns - read_at_ns > 1000000000u) {
        if (prctl(PR_GET_NAME, name) != 0)
            name[0] = '\0';
        read_at_ns = now_ns;
    }
    return name;
}

static int decide(const uint8_t *bits, vt_api_t api)
{
    if (tls_ctx.n_pushed > 0)
        return tls_ctx
            .pushed[(tls_ctx.n_pushed > MAX_NESTING ? MAX_NESTING : tls_ctx.n_pushed) - 1];
    int depth = tls_ctx.n_phases > MAX_NESTING ? MAX_NESTING : tls_ctx.n_phases;
    if (depth > 0 && tls_ctx.phase_cats[depth] >= 0)
        return tls_ctx.phase_cats[depth];
    const vt_rules_t *r = &active_rules;
    const char *thread = NULL;
    for (int i = 0; i < r->n_rules; i++) {
        const vt_rule_t *rule = &r->rules[i];
        bool hit;
        switch (rule->field) {
        case VT_FIELD_PHASE:
            hit = vt_glob_match(vt_rule_glob(r, i), tls_ctx.phase);
            break;
        case VT_FIELD_THREAD:
            if (!thread)
                thread = thread_name();
            hit = vt_glob_match(vt_rule_glob(r, i), thread);
            break;
        case VT_FIELD_API:
            hit = vt_glob_match(vt_rule_glob(r, i), vt_api_name(api));
            break;
        default:
            hit = (bits[i / 8] >> (i % 8)) & 1;
            break;
        }
        if (hit)
            return rule->category;
    }
    return VT_CAT_UNKNOWN;
}

/* Appends this thread's Python frames (python.c), if any, after the n_native native frames
 * in ips, as the outermost ones; returns the new count. Native and Python frames share the
 * depth budget: Python gets what the native frames leave, and at least VT_PY_MIN_FRAMES (or
 * half the depth, if less) taken from the outermost native frames, which in a Python process
 * are the interpreter's own loop and startup: the innermost Python frames say more. */
static int add_python_frames(void **ips, int n_native, int depth)
{
    if (depth > VT_MAX_FRAMES)
        depth = VT_MAX_FRAMES;
    int reserve = depth / 2 < VT_PY_MIN_FRAMES ? depth / 2 : VT_PY_MIN_FRAMES;
    int room = depth - n_native > reserve ? depth - n_native : reserve;
    void *py[VT_MAX_FRAMES];
    int n_py = vt_python_frames(py, room);
    if (n_py == 0)
        return n_native;
    int keep = n_native < depth - n_py ? n_native : depth - n_py;
    memcpy(ips + keep, py, (size_t)n_py * sizeof *py);
    return keep + n_py;
}

/* vt_callsite_take: the call-site (interned stack id) and category of an allocation being
 * recorded now, on this thread. Not under vt_lock. */
void vt_callsite_take(vt_callsite_t *cs, vt_api_t api)
{
    void *ips[VT_MAX_FRAMES];
    int depth = (int)vt_option_get(VT_OPTION_DEPTH);
    int n = add_python_frames(ips, vt_unwind(ips, depth), depth);
    bool created = false;
    vt_track_lock();
    cs->stack_id = n ? vt_stack_intern(ips, n, &created) : 0;
    vt_track_unlock();
    if (created) {
        for (int i = 0; i < n; i++) {
            uint64_t ip = (uint64_t)(uintptr_t)ips[i];
            if (!VT_IP_IS_PY(ip) && !vt_modules_find(ip)) {
                vt_modules_refresh();
                break;
            }
        }
    }
    cs->category = (uint8_t)decide(stack_rule_bits(cs->stack_id, ips, n), api);
}

/* SPDX-License-Identifier: MIT */
/* Category rules: `<category> <field>:<glob>` per line, `#` comments, first matching line wins
 * (docs/categories.md). The parser and the glob matcher use no allocation and no stdio, so the same
 * file serves libvramtrace.so (on the recording path's slow side, once per unique stack) and
 * the CLI. */
#include "vt_categories.h"

#include <string.h>

const char *const vt_category_names[VT_CAT_COUNT] = {
    "weights", "gradients", "optimizer", "activations", "data", "workspace", "unknown",
};

const char *const vt_rule_field_names[VT_FIELD_COUNT] = {
    "func", "module", "file", "py", "phase", "thread", "api",
};

/* Ordered by priority: a line matches when any frame matches, so the specific sources come
 * before the broad ones (a cuBLAS workspace allocated during forward is workspace, not an
 * activation; Module.to() is weights even from inside a training step). */
const char vt_default_rules[] =
    "# vramtrace default category rules: the first matching line wins.\n"
    "#   <category> <field>:<glob>      fields: func module file py phase thread api\n"
    "# Globs use * ? [...] and ignore ASCII case. func and module match any native frame of\n"
    "# the call-site, py any Python frame (path/file.py:function). An NVTX range or\n"
    "# vramtrace_category_push() named vramtrace:<category> overrides every rule.\n"
    "\n"
    "# PyTorch: optimizer state, parameters, input pipeline\n"
    "optimizer   py:*torch/optim/*\n"
    "weights     py:*torch/nn/modules/module.py:_apply\n"
    "weights     py:*torch/nn/modules/module.py:to\n"
    "weights     py:*torch/nn/modules/module.py:cuda\n"
    "weights     py:*torch/nn/modules/module.py:load_state_dict\n"
    "weights     py:*torch/nn/modules/module.py:_load_from_state_dict\n"
    "weights     py:*torch/serialization.py:*\n"
    "data        py:*torch/utils/data/*\n"
    "data        func:*pin_memory*\n"
    "data        thread:pt_pin_memory*\n"
    "\n"
    "# Library handles and workspaces: cuBLAS, cuDNN, NCCL, cuFFT, cuSOLVER\n"
    "workspace   module:libcublas*\n"
    "workspace   module:libcudnn*\n"
    "workspace   module:libnccl*\n"
    "workspace   module:libcufft*\n"
    "workspace   module:libcusolver*\n"
    "workspace   module:libcusparse*\n"
    "workspace   func:*workspace*\n"
    "\n"
    "# Backward: autograd engine threads, gradient accumulation\n"
    "gradients   func:*AccumulateGrad*\n"
    "gradients   thread:pt_autograd*\n"
    "gradients   py:*torch/autograd/*\n"
    "gradients   py:*torch/_tensor.py:backward\n"
    "gradients   func:*autograd*Engine*\n"
    "gradients   func:*backward*\n"
    "gradients   py:*:*backward*\n"
    "\n"
    "# Forward: module calls\n"
    "activations py:*torch/nn/modules/module.py:_call_impl\n"
    "activations py:*torch/nn/modules/module.py:_wrapped_call_impl\n"
    "activations py:*torch/nn/functional.py:*\n"
    "\n"
    "# JAX/XLA: the stream executor allocates on behalf of every buffer; its data transfers\n"
    "data        func:*TransferLiteralToDevice*\n"
    "data        py:*jax/_src/api.py:device_put*\n"
    "\n"
    "# Native code named for what it holds (C, C++, CUDA programs)\n"
    "optimizer   func:*adam*\n"
    "optimizer   func:*optim*\n"
    "optimizer   func:*momentum*\n"
    "optimizer   func:*sgd*\n"
    "gradients   func:*grad*\n"
    "weights     func:*weight*\n"
    "weights     func:*param*\n"
    "data        func:*batch*\n"
    "data        func:*input*\n"
    "data        func:*load*\n"
    "data        func:*prefetch*\n"
    "activations func:*activation*\n"
    "activations func:*forward*\n"
    "optimizer   py:*:*optim*\n"
    "gradients   py:*:*grad*\n"
    "weights     py:*:*weight*\n"
    "weights     py:*:*param*\n"
    "data        py:*:*batch*\n"
    "data        py:*:*load*\n"
    "activations py:*:*forward*\n";

int vt_category_from_name(const char *name, size_t len)
{
    for (int c = 0; c < VT_CAT_COUNT; c++)
        if (strlen(vt_category_names[c]) == len && memcmp(vt_category_names[c], name, len) == 0)
            return c;
    return -1;
}

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

const char *vt_rule_glob(const vt_rules_t *rules, int index)
{
    return rules->pool + rules->rules[index].glob_off;
}

/* Appends s to err (truncating), keeping it NUL-terminated. */
static void err_append(char *err, size_t cap, const char *s, size_t n)
{
    if (!cap)
        return;
    size_t used = strlen(err);
    while (n-- && *s && used + 1 < cap)
        err[used++] = *s++;
    err[used] = '\0';
}

static int fail(char *err, size_t cap, int line, const char *what, const char *subject, size_t n)
{
    if (cap)
        err[0] = '\0';
    err_append(err, cap, what, (size_t)-1);
    if (subject) {
        err_append(err, cap, " '", 2);
        err_append(err, cap, subject, n);
        err_append(err, cap, "'", 1);
    }
    return line;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

int vt_rules_parse(vt_rules_t *out, const char *text, size_t len, char *err, size_t err_cap)
{
    out->n_rules = 0;
    out->fields_used = 0;
    out->pool_used = 0;
    const char *p = text, *end = text + len;
    for (int line = 1; p < end; line++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        const char *q = p;
        while (q < eol && is_space(*q))
            q++;
        const char *e = eol;
        while (e > q && is_space(e[-1]))
            e--;
        if (q < e && *q != '#') {
            const char *cat = q;
            while (q < e && !is_space(*q))
                q++;
            int category = vt_category_from_name(cat, (size_t)(q - cat));
            if (category < 0)
                return fail(err, err_cap, line, "unknown category", cat, (size_t)(q - cat));
            while (q < e && is_space(*q))
                q++;
            const char *colon = memchr(q, ':', (size_t)(e - q));
            if (q == e || !colon)
                return fail(err, err_cap, line, "expected '<field>:<glob>' after the category",
                            NULL, 0);
            int field = -1;
            for (int f = 0; f < VT_FIELD_COUNT; f++)
                if (strlen(vt_rule_field_names[f]) == (size_t)(colon - q) &&
                    memcmp(vt_rule_field_names[f], q, (size_t)(colon - q)) == 0)
                    field = f;
            if (field < 0)
                return fail(err, err_cap, line, "unknown field", q, (size_t)(colon - q));
            const char *glob = colon + 1;
            size_t glob_len = (size_t)(e - glob);
            for (const char *g = glob; g < e; g++)
                if (is_space(*g))
                    return fail(err, err_cap, line, "unexpected text after the glob", g,
                                (size_t)(e - g));
            if (glob_len == 0)
                return fail(err, err_cap, line, "empty glob", NULL, 0);
            if (out->n_rules == VT_RULES_MAX)
                return fail(err, err_cap, line, "too many rules (at most 256)", NULL, 0);
            if (out->pool_used + glob_len + 1 > VT_RULES_POOL_SIZE)
                return fail(err, err_cap, line, "rules too long (at most 32 KiB of globs)", NULL,
                            0);
            vt_rule_t *r = &out->rules[out->n_rules++];
            r->category = (uint8_t)category;
            r->field = (uint8_t)field;
            r->line = (uint16_t)(line < 65535 ? line : 65535);
            r->glob_off = (uint32_t)out->pool_used;
            memcpy(out->pool + out->pool_used, glob, glob_len);
            out->pool[out->pool_used + glob_len] = '\0';
            out->pool_used += glob_len + 1;
            out->fields_used |= 1u << field;
        }
        p = eol + 1;
    }
    if (err_cap)
        err[0] = '\0';
    return 0;
}

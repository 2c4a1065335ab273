/* SPDX-License-Identifier: MIT */
/* Category rules: `<category> <field>:<glob>` or `<category> <field>~<words>` per line, `#`
 * comments, `!defaults off` and `!section NAME` directives (docs/categories.md). The parser and the glob matcher use no allocation and no stdio, so the same
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

/* Two sections: the frameworks' own entry points, whose names are exact, then code named for what
 * it holds, whose words are guesses: a PyTorch operator's native frames (batch_norm, input) are
 * never the ones that decide while a framework frame above them can. */
const char vt_default_rules[] =
    "# vramtrace built-in category rules (docs/categories.md).\n"
    "#   <category> <field>:<glob>     the whole subject matches the glob (* ? [...], any case)\n"
    "#   <category> <field>~<words>    the subject's name holds these words, in this order\n"
    "# Fields: func module file py (frames), phase thread api (the allocation). Words split names\n"
    "# at _ : . and case changes: func~load matches load_weights, LoadWeights, weights::load and\n"
    "# _ZN7weights4loadEv, not payload; py~ looks at the function after the last ':'.\n"
    "# Sections are tried in order. In a section the innermost frame that a line matches decides\n"
    "# (the first such line if several); a phase, thread or api line wins over frame lines below it.\n"
    "# A rules file (VRAMTRACE_RULES, --rules) is read before these, so its lines win; a line\n"
    "# '!defaults off' in it leaves these out.\n"
    "\n"
    "!section frameworks\n"
    "# Threads that only ever do one thing: PyTorch's autograd engine, its pin-memory thread\n"
    "gradients   thread:pt_autograd*\n"
    "data        thread:pt_pin_memory*\n"
    "\n"
    "# Library handles and workspaces: cuBLAS, cuDNN, NCCL, cuFFT, cuSOLVER, cuSPARSE, scratch\n"
    "workspace   module:libcublas*\n"
    "workspace   module:libcudnn*\n"
    "workspace   module:libnccl*\n"
    "workspace   module:libcufft*\n"
    "workspace   module:libcusolver*\n"
    "workspace   module:libcusparse*\n"
    "workspace   func~workspace\n"
    "workspace   func~ScratchAllocator\n"
    "workspace   func~RedzoneAllocator\n"
    "\n"
    "# PyTorch: parameters (made by a module's __init__), their moves and checkpoints\n"
    "weights     py:*torch/nn/modules/module.py:_apply\n"
    "weights     py:*torch/nn/modules/module.py:to\n"
    "weights     py:*torch/nn/modules/module.py:to_empty\n"
    "weights     py:*torch/nn/modules/module.py:cuda\n"
    "weights     py:*torch/nn/modules/module.py:register_parameter\n"
    "weights     py:*torch/nn/modules/module.py:register_buffer\n"
    "weights     py~load_state_dict\n"
    "weights     py~from_pretrained\n"
    "weights     py:*torch/nn/modules/*:__init__\n"
    "weights     py:*torch/nn/modules/*:reset_parameters\n"
    "weights     py:*torch/nn/parameter.py:*\n"
    "weights     py:*torch/nn/init.py:*\n"
    "weights     py:*torch/serialization.py:*\n"
    "weights     py:*safetensors/*\n"
    "weights     func~load_state_dict\n"
    "weights     func~torch_serialize\n"
    "gradients   py:*torch/nn/modules/module.py:zero_grad\n"
    "gradients   py:*torch/nn/utils/clip_grad.py:*\n"
    "\n"
    "# PyTorch: optimizers (torch/optim/*.py: step, zero_grad, their state), mixed-precision scaling\n"
    "gradients   py:*torch/optim/optimizer.py:zero_grad\n"
    "optimizer   py:*torch/optim/*\n"
    "optimizer   py:*torch/distributed/optim/*\n"
    "optimizer   py:*torch/amp/grad_scaler.py:*\n"
    "optimizer   py:*torch/cuda/amp/grad_scaler.py:*\n"
    "optimizer   py:*apex/optimizers/*\n"
    "optimizer   py:*bitsandbytes/optim/*\n"
    "optimizer   func~fused_adam\n"
    "optimizer   func~fused_sgd\n"
    "\n"
    "# PyTorch: backward (torch/autograd/*, Tensor.backward, the engine, gradient accumulation)\n"
    "gradients   py:*torch/autograd/*\n"
    "gradients   py:*torch/_tensor.py:backward\n"
    "gradients   func~AccumulateGrad\n"
    "gradients   func~autograd_Engine\n"
    "gradients   func~PythonEngine\n"
    "gradients   func~c10d_Reducer\n"
    "\n"
    "# PyTorch: the input pipeline (torch/utils/data/*: DataLoader, its workers, pinned memory)\n"
    "data        py:*torch/utils/data/*\n"
    "data        func~pin_memory\n"
    "data        func~CachingHostAllocator\n"
    "\n"
    "# PyTorch: forward (module calls, torch/nn/functional.py)\n"
    "activations py:*torch/nn/modules/module.py:_call_impl\n"
    "activations py:*torch/nn/modules/module.py:_wrapped_call_impl\n"
    "activations py:*torch/nn/modules/*:forward\n"
    "activations py:*torch/nn/modules/*:_conv_forward\n"
    "activations py:*torch/nn/functional.py:*\n"
    "activations py:*torch/utils/checkpoint.py:*\n"
    "\n"
    "# JAX and XLA: transfers to the device (the stream executor allocates on behalf of every\n"
    "# buffer, so its own frames decide nothing)\n"
    "data        py~device_put\n"
    "data        func~TransferLiteralToDevice\n"
    "data        func~BufferFromHostBuffer\n"
    "data        func~TransferToInfeed\n"
    "\n"
    "!section names\n"
    "# Code named for what it holds, C, C++, CUDA and Python alike. In one frame the first line wins:\n"
    "# load_weights is weights, weight_grad gradients, optimizer_zero_grad gradients.\n"
    "workspace   func~workspace\n"
    "workspace   func~scratch\n"
    "workspace   py~workspace\n"
    "gradients   func~grad\n"
    "gradients   func~grads\n"
    "gradients   func~gradient\n"
    "gradients   func~gradients\n"
    "gradients   func~backward\n"
    "gradients   func~backprop\n"
    "gradients   func~bwd\n"
    "gradients   py~grad\n"
    "gradients   py~grads\n"
    "gradients   py~gradient\n"
    "gradients   py~gradients\n"
    "gradients   py~backward\n"
    "optimizer   func~optimizer\n"
    "optimizer   func~optim\n"
    "optimizer   func~adam\n"
    "optimizer   func~adamw\n"
    "optimizer   func~sgd\n"
    "optimizer   func~momentum\n"
    "optimizer   func~rmsprop\n"
    "optimizer   func~rms_prop\n"
    "optimizer   func~adagrad\n"
    "optimizer   func~lamb\n"
    "optimizer   py~optimizer\n"
    "optimizer   py~optim\n"
    "optimizer   py~adam\n"
    "optimizer   py~adamw\n"
    "optimizer   py~sgd\n"
    "optimizer   py~momentum\n"
    "weights     func~weight\n"
    "weights     func~weights\n"
    "weights     func~param\n"
    "weights     func~params\n"
    "weights     func~parameter\n"
    "weights     func~parameters\n"
    "weights     func~checkpoint\n"
    "weights     func~ckpt\n"
    "weights     func~load_model\n"
    "weights     py~weight\n"
    "weights     py~weights\n"
    "weights     py~param\n"
    "weights     py~params\n"
    "weights     py~parameters\n"
    "weights     py~checkpoint\n"
    "weights     py~load_model\n"
    "data        func~batch\n"
    "data        func~batches\n"
    "data        func~input\n"
    "data        func~inputs\n"
    "data        func~load\n"
    "data        func~loader\n"
    "data        func~dataset\n"
    "data        func~prefetch\n"
    "data        func~collate\n"
    "data        func~sample\n"
    "data        func~samples\n"
    "data        py~batch\n"
    "data        py~input\n"
    "data        py~inputs\n"
    "data        py~load\n"
    "data        py~loader\n"
    "data        py~dataset\n"
    "data        py~prefetch\n"
    "data        py~collate\n"
    "activations func~activation\n"
    "activations func~activations\n"
    "activations func~forward\n"
    "activations func~fwd\n"
    "activations func~layer\n"
    "activations func~logits\n"
    "activations py~activation\n"
    "activations py~activations\n"
    "activations py~forward\n"
    "activations py~logits\n";

int vt_category_from_name(const char *name, size_t len)
{
    for (int c = 0; c < VT_CAT_COUNT; c++)
        if (strlen(vt_category_names[c]) == len && memcmp(vt_category_names[c], name, len) == 0)
            return c;
    return -1;
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

static bool word_is(const char *s, const char *e, const char *word)
{
    return (size_t)(e - s) == strlen(word) && memcmp(s, word, (size_t)(e - s)) == 0;
}

/* A directive line [q, e), after its '!': `defaults off` or `section [NAME...]`. Returns false
 * when it is neither. */
static bool directive(vt_rules_t *out, const char *q, const char *e, int *section_first)
{
    const char *word = q;
    while (q < e && !is_space(*q))
        q++;
    const char *arg = q;
    while (arg < e && is_space(*arg))
        arg++;
    if (word_is(word, q, "defaults") && word_is(arg, e, "off")) {
        out->defaults_off = true;
        return true;
    }
    if (word_is(word, q, "section")) { /* the rest of the line names it, for the reader */
        *section_first = out->n_rules;
        return true;
    }
    return false;
}

/* Parses text's rules after those already in out, the first of them starting a section. Returns
 * as vt_rules_parse. */
static int parse_more(vt_rules_t *out, const char *text, size_t len, bool builtin, int max_rules,
                      size_t max_pool, char *err, size_t err_cap)
{
    int section_first = out->n_rules;
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
        p = eol + 1;
        if (q == e || *q == '#')
            continue;
        if (*q == '!') {
            if (!directive(out, q + 1, e, &section_first))
                return fail(err, err_cap, line, "unknown directive", q, (size_t)(e - q));
            continue;
        }
        const char *cat = q;
        while (q < e && !is_space(*q))
            q++;
        int category = vt_category_from_name(cat, (size_t)(q - cat));
        if (category < 0)
            return fail(err, err_cap, line, "unknown category", cat, (size_t)(q - cat));
        while (q < e && is_space(*q))
            q++;
        const char *op = q;
        while (op < e && *op != ':' && *op != '~')
            op++;
        if (q == e || op == e)
            return fail(err, err_cap, line,
                        "expected '<field>:<glob>' or '<field>~<words>' after the category", NULL,
                        0);
        int field = -1;
        for (int f = 0; f < VT_FIELD_COUNT; f++)
            if (word_is(q, op, vt_rule_field_names[f]))
                field = f;
        if (field < 0)
            return fail(err, err_cap, line, "unknown field", q, (size_t)(op - q));
        const char *glob = op + 1;
        size_t glob_len = (size_t)(e - glob);
        for (const char *g = glob; g < e; g++)
            if (is_space(*g))
                return fail(err, err_cap, line, "unexpected text after the glob", g,
                            (size_t)(e - g));
        if (glob_len == 0)
            return fail(err, err_cap, line, *op == ':' ? "empty glob" : "no words after '~'", NULL,
                        0);
        if (out->n_rules >= max_rules)
            return fail(err, err_cap, line,
                        builtin ? "too many rules with the built-in ones (at most 512 in all)"
                                : "too many rules (at most 256)",
                        NULL, 0);
        size_t room = max_pool > out->pool_used ? max_pool - out->pool_used : 0;
        char *to = out->pool + out->pool_used;
        size_t stored = glob_len + 1;
        if (*op == ':') {
            if (stored > room)
                stored = 0;
            else
                memcpy(to, glob, glob_len), to[glob_len] = '\0';
        } else {
            stored = vt_pattern_words(glob, glob_len, to, room);
            if (!stored && room >= glob_len + 2)
                return fail(err, err_cap, line, "no words after '~'", NULL, 0);
        }
        if (!stored)
            return fail(err, err_cap, line, "rules too long (at most 32 KiB of globs)", NULL, 0);
        vt_rule_t *r = &out->rules[out->n_rules++];
        r->category = (uint8_t)category;
        r->field = (uint8_t)field;
        r->words = *op == '~';
        r->builtin = builtin;
        r->line = (uint16_t)(line < 65535 ? line : 65535);
        r->section_first = (uint16_t)section_first;
        r->glob_off = (uint32_t)out->pool_used;
        out->pool_used += stored;
        out->fields_used |= 1u << field;
        if (builtin)
            out->n_builtin++;
    }
    if (err_cap)
        err[0] = '\0';
    return 0;
}

static void rules_clear(vt_rules_t *out)
{
    out->n_rules = 0;
    out->n_builtin = 0;
    out->defaults_off = false;
    out->fields_used = 0;
    out->pool_used = 0;
}

int vt_rules_parse(vt_rules_t *out, const char *text, size_t len, char *err, size_t err_cap)
{
    rules_clear(out);
    return parse_more(out, text, len, false, VT_RULES_FILE_MAX, VT_RULES_FILE_POOL, err, err_cap);
}

int vt_rules_load(vt_rules_t *out, const char *text, size_t len, bool with_defaults, char *err,
                  size_t err_cap)
{
    int bad_line = text ? vt_rules_parse(out, text, len, err, err_cap) : (rules_clear(out), 0);
    if (bad_line) {
        rules_clear(out);
        with_defaults = true;
    }
    if (with_defaults && !out->defaults_off) {
        char unused[8];
        parse_more(out, vt_default_rules, strlen(vt_default_rules), true, VT_RULES_MAX,
                   VT_RULES_POOL_SIZE, unused, sizeof unused);
    }
    return bad_line;
}

bool vt_rule_matches_subject(const vt_rules_t *rules, int i, const char *subject)
{
    const char *pattern = vt_rule_glob(rules, i);
    if (!rules->rules[i].words)
        return vt_glob_match(pattern, subject);
    if (rules->rules[i].field == VT_FIELD_PY) {
        const char *function = strrchr(subject, ':');
        subject = function ? function + 1 : subject;
    }
    vt_words_t words;
    vt_name_words(subject, &words);
    return vt_words_match(pattern, &words);
}

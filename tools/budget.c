/* SPDX-License-Identifier: MIT */
/* The theoretical budget (docs/budget.md): the key table, defaults, parameter counts
 * walked from the architecture, per-layer activations, model states, data, overheads and the
 * naive hand estimate. All arithmetic is uint64_t with overflow checks; a division that does
 * not come out even rounds up (the GPU holding the larger share is the one that runs out), except
 * in the other tools' estimators, which floor as their Python int() does. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "vt_size.h"

const char *const vt_budget_categories[5] = {"weights", "gradients", "optimizer", "activations",
                                             "data"};

/* ------------------------------------------------------------------ checked arithmetic */

/* A sticky overflow flag: every operation after an overflow still returns something, and the
 * caller checks once at the end. */
typedef struct ck_s {
    int overflow;
} ck_t;

static uint64_t mul(ck_t *c, uint64_t a, uint64_t b)
{
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        c->overflow = 1;
    return r;
}

static uint64_t add(ck_t *c, uint64_t a, uint64_t b)
{
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r))
        c->overflow = 1;
    return r;
}

static uint64_t mul3(ck_t *c, uint64_t a, uint64_t b, uint64_t d)
{
    return mul(c, mul(c, a, b), d);
}

static uint64_t mul4(ck_t *c, uint64_t a, uint64_t b, uint64_t d, uint64_t e)
{
    return mul(c, mul3(c, a, b, d), e);
}

static uint64_t div_up(uint64_t a, uint64_t d)
{
    return a / d + (a % d != 0);
}

static uint64_t max2(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* ------------------------------------------------------------------ the key table */

enum key_kind {
    K_ENUM,  /* one of names[]; stored as the index */
    K_BOOL,  /* 1/0/on/off/yes/no/true/false */
    K_POS,   /* positive integer */
    K_UINT,  /* non-negative integer */
    K_COUNT, /* non-negative count, decimal suffix K, M, B/G allowed (110M) */
    K_BYTES, /* byte size: the one size grammar (vt_size.h) */
    K_DTYPE, /* fp32, fp16, bf16 */
    K_HEAD,  /* none, cls, cls:N, lm, mlm */
    K_ARCH,  /* resnet50, resnet101, resnet152 */
};

static const char *const method_names[] = {NULL, "naive", "realistic", "both", NULL};
static const char *const family_names[] = {NULL, "bert", "gpt2", "llama", "cnn", "generic", NULL};
static const char *const regime_names[] = {
    NULL,      "fp32",          "torch_amp_fp16", "torch_amp_bf16",
    "mixed16", "megatron_bf16", "megatron_fp16",  NULL};
static const char *const profile_names[] = {NULL,         "ideal16", "ideal32", "torch_amp_eager",
                                            "fp32_eager", NULL};
static const char *const optimizer_names[] = {
    NULL, "sgd", "sgd_momentum", "adam", "adam8bit", "adafactor", "adafactor_beta1", "lion", NULL};
static const char *const ckpt_names[] = {"none", "selective", "full", NULL};
static const char *const step_names[] = {"foreach", "fused", "forloop", NULL};
static const char *const act_names[] = {NULL, "gelu", "gelu_new", "silu", NULL};

typedef struct key_s {
    const char *name;
    enum key_kind kind;
    size_t off;
    const char *const *names; /* K_ENUM */
    uint64_t max;             /* integer kinds: largest accepted value; 0: no limit */
    const char *values, *def; /* for help and docs */
} key_t_;

#define F(field) offsetof(vt_budget_model_t, field)
/* The order is the order of docs/budget.md; KEY_* below index this table. */
static const key_t_ keys[] = {
    {"method", K_ENUM, F(method), method_names, 0, "naive, realistic, both", "both"},
    {"params", K_COUNT, F(params), NULL, 0, "count, e.g. 110M, 6.74B", "from the architecture"},
    {"dtype", K_DTYPE, F(dtype_bytes), NULL, 0, "fp32, fp16, bf16", "fp16"},
    {"family", K_ENUM, F(family), family_names, 0, "bert, gpt2, llama, cnn, generic",
     "none (needed by realistic)"},
    {"head", K_HEAD, F(head), NULL, 0, "none, cls, cls:N, lm, mlm",
     "cls:2 (bert), lm (gpt2, llama), none"},
    {"layers", K_POS, F(layers), NULL, 0, "integer", "required"},
    {"hidden", K_POS, F(hidden), NULL, 0, "integer", "required"},
    {"heads", K_POS, F(heads), NULL, 0, "integer", "required (transformers)"},
    {"kv_heads", K_POS, F(kv_heads), NULL, 0, "integer dividing heads", "heads"},
    {"ffn", K_POS, F(ffn), NULL, 0, "integer", "4*hidden; gated: 8*hidden/3 up to 256"},
    {"vocab", K_POS, F(vocab), NULL, 0, "integer", "required (transformers)"},
    {"max_pos", K_POS, F(max_pos), NULL, 0, "integer", "512 (bert), 1024 (gpt2)"},
    {"type_vocab", K_UINT, F(type_vocab), NULL, 0, "integer", "2 (bert)"},
    {"tied_embeddings", K_BOOL, F(tied_embeddings), NULL, 0, "bool", "yes; no for llama"},
    {"gated_mlp", K_BOOL, F(gated_mlp), NULL, 0, "bool", "yes for llama, else no"},
    {"dropout_attn", K_BOOL, F(dropout_attn), NULL, 0, "bool", "yes; no for llama"},
    {"dropout_hidden", K_BOOL, F(dropout_hidden), NULL, 0, "bool", "yes; no for llama"},
    {"activation", K_ENUM, F(activation), act_names, 0, "gelu, gelu_new, silu",
     "gelu_new (gpt2), silu (llama), gelu"},
    {"n_qkv_linears", K_POS, F(n_qkv_linears), NULL, 3, "1 or 3", "1 (gpt2), 3"},
    {"regime", K_ENUM, F(regime), regime_names, 0,
     "fp32, torch_amp_fp16, torch_amp_bf16, mixed16, megatron_bf16, megatron_fp16",
     "fp32 for dtype=fp32, else torch_amp_<dtype>"},
    {"act_profile", K_ENUM, F(act_profile), profile_names, 0,
     "ideal16, ideal32, torch_amp_eager, fp32_eager",
     "fp32_eager (fp32), torch_amp_eager (torch_amp_*), ideal16"},
    {"logits_bytes", K_POS, F(logits_bytes), NULL, 16, "bytes per logit",
     "4 (ideal16), 8 (ideal32, fp32_eager), 6 (torch_amp_eager)"},
    {"optimizer", K_ENUM, F(optimizer), optimizer_names, 0,
     "sgd, sgd_momentum, adam, adam8bit, adafactor, adafactor_beta1, lion", "adam"},
    {"step_impl", K_ENUM, F(step_impl), step_names, 0, "foreach, fused, forloop",
     "fused for mixed16 and megatron_*, else foreach"},
    {"batch", K_POS, F(batch), NULL, 0, "integer (micro-batch per GPU)", "required"},
    {"seq", K_POS, F(seq), NULL, 0, "integer", "required (transformers, naive)"},
    {"checkpointing", K_ENUM, F(checkpointing), ckpt_names, 0, "none, selective, full", "none"},
    {"flash_attention", K_BOOL, F(flash_attention), NULL, 0, "bool", "no"},
    {"zero_stage", K_UINT, F(zero_stage), NULL, 3, "0, 1, 2, 3", "0"},
    {"dp", K_POS, F(dp), NULL, 0, "integer", "1"},
    {"tp", K_POS, F(tp), NULL, 0, "integer", "1"},
    {"sp", K_BOOL, F(sp), NULL, 0, "bool", "no"},
    {"largest_layer_params", K_COUNT, F(largest_layer_params), NULL, 0, "count",
     "from the architecture, else 0"},
    {"p_matmul", K_COUNT, F(p_matmul), NULL, 0, "count", "from the architecture, else params"},
    {"arch", K_ARCH, F(cnn_arch), NULL, 0, "resnet50, resnet101, resnet152", "none"},
    {"cnn_act_bytes_per_sample", K_BYTES, F(cnn_act_bytes_per_sample), NULL, 0, "bytes",
     "required (cnn, generic)"},
    {"cnn_act_fixed", K_BYTES, F(cnn_act_fixed), NULL, 0, "bytes", "0"},
    {"cnn_amp_act_bytes_per_sample", K_BYTES, F(cnn_amp_act_bytes_per_sample), NULL, 0, "bytes",
     "cnn_act_bytes_per_sample"},
    {"cnn_amp_act_fixed", K_BYTES, F(cnn_amp_act_fixed), NULL, 0, "bytes",
     "0 with cnn_amp_act_bytes_per_sample, else cnn_act_fixed"},
    {"image_size", K_POS, F(image_size), NULL, 0, "pixels (square)", "224"},
    {"channels", K_POS, F(channels), NULL, 0, "integer", "3"},
    {"data_bytes_per_sample", K_BYTES, F(data_bytes_per_sample), NULL, 0, "bytes", "0"},
    {"grads_persistent", K_BOOL, F(grads_persistent), NULL, 0, "bool", "yes"},
    {"ddp_bucket_view", K_BOOL, F(ddp_bucket_view), NULL, 0, "bool", "no"},
    {"cuda_context_bytes", K_BYTES, F(cuda_context_bytes), NULL, 0, "bytes", "300MiB"},
    {"n_cublas_ws", K_UINT, F(n_cublas_ws), NULL, 0, "integer", "2"},
    {"cublas_ws_bytes", K_BYTES, F(cublas_ws_bytes), NULL, 0, "bytes", "8519680"},
    {"nccl_bytes", K_BYTES, F(nccl_bytes), NULL, 0, "bytes", "0"},
    {"zero_bucket_elems", K_COUNT, F(zero_bucket_elems), NULL, 0, "count", "500M"},
};
#undef F
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))
_Static_assert(N_KEYS <= VT_BUDGET_MAX_KEYS, "vt_budget_model_t.set is too small");

enum {
    KEY_METHOD,
    KEY_PARAMS,
    KEY_DTYPE,
    KEY_FAMILY,
    KEY_HEAD,
    KEY_LAYERS,
    KEY_HIDDEN,
    KEY_HEADS,
    KEY_KV_HEADS,
    KEY_FFN,
    KEY_VOCAB,
    KEY_MAX_POS,
    KEY_TYPE_VOCAB,
    KEY_TIED,
    KEY_GATED,
    KEY_DROPOUT_ATTN,
    KEY_DROPOUT_HIDDEN,
    KEY_ACTIVATION,
    KEY_N_QKV,
    KEY_REGIME,
    KEY_ACT_PROFILE,
    KEY_LOGITS_BYTES,
    KEY_OPTIMIZER,
    KEY_STEP_IMPL,
    KEY_BATCH,
    KEY_SEQ,
    KEY_CHECKPOINTING,
    KEY_FLASH,
    KEY_ZERO_STAGE,
    KEY_DP,
    KEY_TP,
    KEY_SP,
    KEY_LARGEST_LAYER,
    KEY_P_MATMUL,
    KEY_ARCH,
    KEY_CNN_ACT,
    KEY_CNN_FIXED,
    KEY_CNN_AMP_ACT,
    KEY_CNN_AMP_FIXED,
    KEY_IMAGE_SIZE,
    KEY_CHANNELS,
    KEY_DATA_PER_SAMPLE,
    KEY_GRADS_PERSISTENT,
    KEY_DDP_BUCKET_VIEW,
    KEY_CUDA_CONTEXT,
    KEY_N_CUBLAS_WS,
    KEY_CUBLAS_WS_BYTES,
    KEY_NCCL_BYTES,
    KEY_ZERO_BUCKET_ELEMS,
    KEY_COUNT_
};
_Static_assert(KEY_COUNT_ == N_KEYS, "KEY_* and keys[] disagree");

const vt_budget_key_info_t *vt_budget_key_info(size_t i)
{
    static vt_budget_key_info_t info;
    if (i >= N_KEYS)
        return NULL;
    info.name = keys[i].name;
    info.values = keys[i].values;
    info.def = keys[i].def;
    return &info;
}

const char *vt_budget_value_name(const char *key, int v)
{
    for (size_t i = 0; i < N_KEYS; i++) {
        if (strcmp(keys[i].name, key) != 0 || keys[i].kind != K_ENUM)
            continue;
        for (int j = 0; keys[i].names[j] || j == 0; j++)
            if (j == v && keys[i].names[j])
                return keys[i].names[j];
    }
    return "?";
}

#define GIVEN(m, k) ((m)->set[(k)])

void vt_budget_model_init(vt_budget_model_t *m)
{
    memset(m, 0, sizeof(*m));
    m->tied_embeddings = m->gated_mlp = m->dropout_attn = m->dropout_hidden = -1;
    m->grads_persistent = m->ddp_bucket_view = -1;
}

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && len)
        vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* Parses a decimal count with an optional fraction and suffix (K, M, B, G: powers of 1000) into
 * *out. The result must be whole: 1.5K is 1500, 1.5 alone is refused. Returns 0 or -1. Sizes in
 * bytes are not counts: they take the size grammar (vt_size.h). */
static int parse_number(const char *s, int allow_suffix, uint64_t *out)
{
    uint64_t mant = 0;
    unsigned n_frac = 0;
    int digits = 0, dot = 0;
    const char *p = s;
    for (; *p; p++) {
        if (*p >= '0' && *p <= '9') {
            if (__builtin_mul_overflow(mant, 10, &mant) ||
                __builtin_add_overflow(mant, (uint64_t)(*p - '0'), &mant))
                return -1;
            digits++;
            n_frac += dot;
        } else if (*p == '.' && !dot && allow_suffix) {
            dot = 1;
        } else {
            break;
        }
    }
    if (!digits)
        return -1;
    uint64_t scale = 1, base = 1000;
    if (*p) {
        if (!allow_suffix)
            return -1;
        char c = *p++;
        if (*p)
            return -1;
        int power;
        switch (c) {
        case 'K':
        case 'k':
            power = 1;
            break;
        case 'M':
            power = 2;
            break;
        case 'G':
            power = 3;
            break;
        case 'B':
            power = 3;
            break;
        default:
            return -1;
        }
        for (int i = 0; i < power; i++)
            scale *= base;
    }
    /* mant / 10^n_frac * scale must be whole. */
    uint64_t den = 1;
    for (unsigned i = 0; i < n_frac; i++)
        if (__builtin_mul_overflow(den, 10, &den))
            return -1;
    uint64_t num;
    if (__builtin_mul_overflow(mant, scale, &num) || num % den != 0)
        return -1;
    *out = num / den;
    return 0;
}

static int parse_bool(const char *v, int *out)
{
    static const char *const yes[] = {"1", "on", "yes", "true"}, *const no[] = {"0", "off", "no",
                                                                                "false"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0)
            return *out = 1, 0;
        if (strcasecmp(v, no[i]) == 0)
            return *out = 0, 0;
    }
    return -1;
}

static void list_names(const char *const *names, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; names[i] || i == 0; i++) {
        if (!names[i])
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", names[i]);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
}

/* vt_budget_model_set: see budget.h. Messages: "unknown key 'x'", "bad value 'v' for 'k': ...".*/
int vt_budget_model_set(vt_budget_model_t *m, const char *key, const char *value, char *err,
                        size_t err_len)
{
    size_t i;
    for (i = 0; i < N_KEYS; i++)
        if (strcmp(keys[i].name, key) == 0)
            break;
    if (i == N_KEYS) {
        fail(err, err_len, "unknown key '%s'", key);
        return -1;
    }
    const key_t_ *k = &keys[i];
    char *field = (char *)m + k->off;
    uint64_t u = 0;
    int b;
    switch (k->kind) {
    case K_ENUM: {
        int j;
        for (j = 0; k->names[j] || j == 0; j++)
            if (k->names[j] && strcmp(k->names[j], value) == 0)
                break;
        if (!k->names[j]) {
            char names[256];
            list_names(k->names, names, sizeof(names));
            fail(err, err_len, "bad value '%s' for '%s': expected one of %s", value, key, names);
            return -2;
        }
        *(int *)field = j;
        break;
    }
    case K_BOOL:
        if (parse_bool(value, &b) != 0) {
            fail(err, err_len, "bad value '%s' for '%s': expected yes or no", value, key);
            return -2;
        }
        *(int *)field = b;
        break;
    case K_POS:
    case K_UINT:
    case K_COUNT:
    case K_BYTES:
        if ((k->kind == K_BYTES ? vt_size_parse(value, &u)
                                : parse_number(value, k->kind >= K_COUNT, &u)) != 0 ||
            (k->kind == K_POS && u == 0) || (k->max && u > k->max)) {
            const char *what = k->kind == K_POS     ? "a positive integer"
                               : k->kind == K_UINT  ? "a non-negative integer"
                               : k->kind == K_COUNT ? "a count like 110M"
                                                    : "a size like 300MiB";
            if (k->max)
                fail(err, err_len, "bad value '%s' for '%s': expected %s up to %" PRIu64, value,
                     key, what, k->max);
            else
                fail(err, err_len, "bad value '%s' for '%s': expected %s", value, key, what);
            return -2;
        }
        *(uint64_t *)field = u;
        break;
    case K_DTYPE:
        if (strcmp(value, "fp32") == 0)
            m->dtype_bytes = 4, m->dtype_bf16 = 0;
        else if (strcmp(value, "fp16") == 0)
            m->dtype_bytes = 2, m->dtype_bf16 = 0;
        else if (strcmp(value, "bf16") == 0)
            m->dtype_bytes = 2, m->dtype_bf16 = 1;
        else {
            fail(err, err_len, "bad value '%s' for '%s': expected one of fp32, fp16, bf16", value,
                 key);
            return -2;
        }
        break;
    case K_HEAD:
        m->n_labels = 0;
        if (strcmp(value, "none") == 0)
            m->head = VT_HEAD_NONE;
        else if (strcmp(value, "lm") == 0)
            m->head = VT_HEAD_LM;
        else if (strcmp(value, "mlm") == 0)
            m->head = VT_HEAD_MLM;
        else if (strcmp(value, "cls") == 0)
            m->head = VT_HEAD_CLS, m->n_labels = 2;
        else if (strncmp(value, "cls:", 4) == 0 && parse_number(value + 4, 0, &u) == 0 && u > 0)
            m->head = VT_HEAD_CLS, m->n_labels = u;
        else {
            fail(err, err_len, "bad value '%s' for '%s': expected none, cls:N, lm or mlm", value,
                 key);
            return -2;
        }
        break;
    case K_ARCH:
        if (strcmp(value, "resnet50") == 0)
            m->cnn_arch = 50;
        else if (strcmp(value, "resnet101") == 0)
            m->cnn_arch = 101;
        else if (strcmp(value, "resnet152") == 0)
            m->cnn_arch = 152;
        else {
            fail(err, err_len,
                 "bad value '%s' for '%s': expected one of resnet50, resnet101, resnet152", value,
                 key);
            return -2;
        }
        break;
    }
    m->set[i] = 1;
    return 0;
}

/* ------------------------------------------------------------------ defaults and checks */

static int is_transformer(vt_budget_family_t f)
{
    return f == VT_FAMILY_BERT || f == VT_FAMILY_GPT2 || f == VT_FAMILY_LLAMA;
}

static int is_amp(vt_budget_regime_t r)
{
    return r == VT_REGIME_TORCH_AMP_FP16 || r == VT_REGIME_TORCH_AMP_BF16;
}

static int missing(char *err, size_t len, int key, const char *who)
{
    return fail(err, len, "missing key '%s' (%s)", keys[key].name, who);
}

/* Architecture defaults for a transformer family; checks the keys every family needs. */
static int resolve_architecture(vt_budget_model_t *r, char *err, size_t len)
{
    const char *who = r->family == VT_FAMILY_BERT   ? "needed by family bert"
                      : r->family == VT_FAMILY_GPT2 ? "needed by family gpt2"
                                                    : "needed by family llama";
    static const int need[] = {KEY_LAYERS, KEY_HIDDEN, KEY_HEADS, KEY_VOCAB};
    for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
        if (!GIVEN(r, need[i]))
            return missing(err, len, need[i], who);
    int llama = r->family == VT_FAMILY_LLAMA, gpt2 = r->family == VT_FAMILY_GPT2;
    if (!GIVEN(r, KEY_KV_HEADS))
        r->kv_heads = r->heads;
    if (r->hidden % r->heads != 0)
        return fail(err, len, "bad value '%" PRIu64 "' for 'heads': it must divide hidden %" PRIu64,
                    r->heads, r->hidden);
    if (r->heads % r->kv_heads != 0)
        return fail(err, len,
                    "bad value '%" PRIu64 "' for 'kv_heads': it must divide heads %" PRIu64,
                    r->kv_heads, r->heads);
    if (r->gated_mlp < 0)
        r->gated_mlp = llama;
    if (!GIVEN(r, KEY_FFN)) {
        if (r->gated_mlp) { /* Llama's rule: 2/3 of 4h, rounded up to a multiple of 256 */
            uint64_t f = r->hidden * 8 / 3;
            r->ffn = div_up(f, 256) * 256;
        } else {
            r->ffn = 4 * r->hidden;
        }
    }
    if (!GIVEN(r, KEY_MAX_POS)) {
        if (llama)
            r->max_pos = 0; /* rotary: no position table */
        else if (gpt2)
            r->max_pos = 1024;
        else
            r->max_pos = 512;
    }
    if (!GIVEN(r, KEY_TYPE_VOCAB))
        r->type_vocab = r->family == VT_FAMILY_BERT ? 2 : 0;
    if (r->tied_embeddings < 0)
        r->tied_embeddings = !llama;
    if (r->dropout_attn < 0)
        r->dropout_attn = !llama;
    if (r->dropout_hidden < 0)
        r->dropout_hidden = !llama;
    if (r->activation == VT_ACT_DEFAULT)
        r->activation = gpt2 ? VT_ACT_GELU_NEW : llama ? VT_ACT_SILU : VT_ACT_GELU;
    if (!GIVEN(r, KEY_N_QKV))
        r->n_qkv_linears = gpt2 ? 1 : 3;
    if (r->head == VT_HEAD_DEFAULT) {
        r->head = r->family == VT_FAMILY_BERT ? VT_HEAD_CLS : VT_HEAD_LM;
        r->n_labels = 2;
    }
    if (r->family == VT_FAMILY_BERT && r->head == VT_HEAD_LM)
        return fail(err, len, "bad value 'lm' for 'head': family bert takes none, cls:N or mlm");
    if (r->family != VT_FAMILY_BERT && (r->head == VT_HEAD_CLS || r->head == VT_HEAD_MLM))
        return fail(err, len, "bad value '%s' for 'head': family %s takes none or lm",
                    r->head == VT_HEAD_CLS ? "cls" : "mlm", family_names[r->family]);
    return 0;
}

/* vt_budget_resolve: see budget.h. The checks run in a fixed order, so the message names the
 * first problem in key-table order. */
int vt_budget_resolve(const vt_budget_model_t *m, vt_budget_model_t *out, char *err, size_t len)
{
    vt_budget_model_t r = *m;
    if (!r.method)
        r.method = VT_BUDGET_BOTH;
    if (!r.dtype_bytes)
        r.dtype_bytes = 2;
    if (r.optimizer == VT_OPT_DEFAULT)
        r.optimizer = VT_OPT_ADAM;
    if (r.family != VT_FAMILY_UNSET && is_transformer(r.family) &&
        resolve_architecture(&r, err, len) != 0)
        return -1;

    if (r.method & VT_BUDGET_NAIVE) {
        const char *who = "needed by the naive model";
        if (!GIVEN(&r, KEY_PARAMS) && !is_transformer(r.family) &&
            !(r.family == VT_FAMILY_CNN && r.cnn_arch))
            return missing(err, len, KEY_PARAMS, who);
        static const int need[] = {KEY_BATCH, KEY_SEQ, KEY_HIDDEN, KEY_LAYERS};
        for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
            if (!GIVEN(&r, need[i]))
                return missing(err, len, need[i], who);
    }
    if (r.method & VT_BUDGET_REALISTIC) {
        const char *who = "needed by the realistic model";
        if (r.family == VT_FAMILY_UNSET)
            return fail(err, len,
                        "missing key 'family' (needed by the realistic model; "
                        "method=naive needs none)");
        if (!GIVEN(&r, KEY_BATCH))
            return missing(err, len, KEY_BATCH, who);
        if (is_transformer(r.family)) {
            if (!GIVEN(&r, KEY_SEQ))
                return missing(err, len, KEY_SEQ, who);
        } else {
            const char *fam =
                r.family == VT_FAMILY_CNN ? "needed by family cnn" : "needed by family generic";
            if (!GIVEN(&r, KEY_PARAMS) && !(r.family == VT_FAMILY_CNN && r.cnn_arch))
                return missing(err, len, KEY_PARAMS, fam);
            if (!GIVEN(&r, KEY_CNN_ACT))
                return missing(err, len, KEY_CNN_ACT, fam);
            if (r.flash_attention > 0 || r.checkpointing != VT_CKPT_NONE || r.tp > 1)
                return fail(err, len,
                            "family %s has no layers to checkpoint, attention or "
                            "tensor parallelism: leave out flash_attention, "
                            "checkpointing and tp",
                            family_names[r.family]);
            if (r.optimizer == VT_OPT_ADAFACTOR || r.optimizer == VT_OPT_ADAFACTOR_BETA1)
                return fail(err, len,
                            "bad value '%s' for 'optimizer': it needs the tensor "
                            "shapes of family bert, gpt2 or llama",
                            optimizer_names[r.optimizer]);
        }
        if (r.cnn_arch && r.family != VT_FAMILY_CNN)
            return fail(err, len, "bad value 'resnet%u' for 'arch': it needs family cnn",
                        r.cnn_arch);
    }
    if (r.regime == VT_REGIME_DEFAULT)
        r.regime = r.dtype_bytes == 4 ? VT_REGIME_FP32
                   : r.dtype_bf16     ? VT_REGIME_TORCH_AMP_BF16
                                      : VT_REGIME_TORCH_AMP_FP16;
    if (r.act_profile == VT_PROFILE_DEFAULT)
        r.act_profile = r.regime == VT_REGIME_FP32 ? VT_PROFILE_FP32_EAGER
                        : is_amp(r.regime)         ? VT_PROFILE_TORCH_AMP_EAGER
                                                   : VT_PROFILE_IDEAL16;
    if (!GIVEN(&r, KEY_LOGITS_BYTES))
        r.logits_bytes = r.act_profile == VT_PROFILE_IDEAL16           ? 4
                         : r.act_profile == VT_PROFILE_TORCH_AMP_EAGER ? 6
                                                                       : 8;
    if (!GIVEN(&r, KEY_DP))
        r.dp = 1;
    if (!GIVEN(&r, KEY_TP))
        r.tp = 1;
    if (r.flash_attention < 0)
        r.flash_attention = 0;
    if (r.sp < 0)
        r.sp = 0;
    if ((r.act_profile == VT_PROFILE_TORCH_AMP_EAGER || r.act_profile == VT_PROFILE_FP32_EAGER) &&
        r.tp > 1 && (r.method & VT_BUDGET_REALISTIC) && is_transformer(r.family))
        return fail(err, len,
                    "bad value '%" PRIu64 "' for 'tp': act_profile %s has no tensor "
                    "parallelism (use ideal16 or ideal32)",
                    r.tp, profile_names[r.act_profile]);
    /* The peak: gradients released by zero_grad(set_to_none=True) are still counted in the
     * forward-backward phase unless the user says they are not persistent: "add g to phase_fb
     * only as a conservative upper bound". */
    if (r.grads_persistent < 0)
        r.grads_persistent = 1;
    /* Megatron and DeepSpeed step with fused (apex or multi-tensor) kernels; PyTorch's default
     * on CUDA is foreach. */
    if (!GIVEN(&r, KEY_STEP_IMPL))
        r.step_impl =
            r.regime == VT_REGIME_FP32 || is_amp(r.regime) ? VT_STEP_FOREACH : VT_STEP_FUSED;
    if (r.ddp_bucket_view < 0)
        r.ddp_bucket_view = 0;
    if (!GIVEN(&r, KEY_IMAGE_SIZE))
        r.image_size = 224;
    if (!GIVEN(&r, KEY_CHANNELS))
        r.channels = 3;
    if (!GIVEN(&r, KEY_CNN_AMP_ACT))
        r.cnn_amp_act_bytes_per_sample = r.cnn_act_bytes_per_sample;
    if (!GIVEN(&r, KEY_CNN_AMP_FIXED))
        r.cnn_amp_act_fixed = GIVEN(&r, KEY_CNN_AMP_ACT) ? 0 : r.cnn_act_fixed;
    if (!GIVEN(&r, KEY_CUDA_CONTEXT))
        r.cuda_context_bytes = 300u << 20; /* lazy module loading: 274-400 MiB measured */
    if (!GIVEN(&r, KEY_N_CUBLAS_WS))
        r.n_cublas_ws = 2; /* main thread and autograd's backward thread */
    if (!GIVEN(&r, KEY_CUBLAS_WS_BYTES))
        r.cublas_ws_bytes = 8519680; /* :4096:2:16:8, before Hopper */
    if (!GIVEN(&r, KEY_ZERO_BUCKET_ELEMS))
        r.zero_bucket_elems = 500000000;
    *out = r;
    return 0;
}

/* ------------------------------------------------------------------ parameter walk */

/* Every parameter tensor of an architecture, folded into the totals the budget needs: the count,
 * the matmul share autocast copies, the largest leaf module (ZeRO-3 gathers it) and tensor, and
 * the per-tensor optimizer states of 8-bit Adam and Adafactor. */
typedef struct walk_s {
    ck_t *ck;
    uint64_t params, p_matmul, largest_module, largest_tensor;
    uint64_t adam8bit, adafactor;
} walk_t;

/* One tensor: rows x cols (cols 0: a vector of rows), `copies` times. */
static uint64_t tensor(walk_t *w, uint64_t rows, uint64_t cols, uint64_t copies)
{
    ck_t *c = w->ck;
    uint64_t n = cols ? mul(c, rows, cols) : rows;
    if (!n)
        return 0;
    w->params = add(c, w->params, mul(c, n, copies));
    w->largest_tensor = max2(w->largest_tensor, n);
    w->adafactor = add(c, w->adafactor, mul(c, copies, cols ? 4 * (rows + cols) : 4 * n));
    /* bitsandbytes: uint8 m and v plus one fp32 absmax per 256 elements each; tensors under
     * min_8bit_size = 4096 elements keep 32-bit states. */
    uint64_t s8 = n >= 4096 ? add(c, mul(c, 2, n), mul(c, 8, div_up(n, 256))) : mul(c, 8, n);
    w->adam8bit = add(c, w->adam8bit, mul(c, s8, copies));
    return n;
}

/* A leaf module: its weight (rows x cols) and bias (a vector of `bias`, 0 for none). */
static void module(walk_t *w, uint64_t rows, uint64_t cols, uint64_t bias, uint64_t copies,
                   int matmul)
{
    uint64_t n = add(w->ck, tensor(w, rows, cols, copies), tensor(w, bias, 0, copies));
    w->largest_module = max2(w->largest_module, n);
    if (matmul)
        w->p_matmul = add(w->ck, w->p_matmul, mul(w->ck, n, copies));
}

static void walk_transformer(const vt_budget_model_t *r, walk_t *w)
{
    uint64_t h = r->hidden, f = r->ffn, L = r->layers, V = r->vocab;
    uint64_t h_kv = h / r->heads * r->kv_heads;
    int bias = r->family != VT_FAMILY_LLAMA;
    uint64_t hb = bias ? h : 0, fb = bias ? f : 0, kvb = bias ? h_kv : 0;
    module(w, V, h, 0, 1, 0); /* token embedding */
    if (r->max_pos)
        module(w, r->max_pos, h, 0, 1, 0);
    if (r->type_vocab)
        module(w, r->type_vocab, h, 0, 1, 0);
    if (r->family == VT_FAMILY_BERT)
        module(w, h, 0, h, 1, 0); /* embedding LayerNorm */
    /* Layers: attention, two norms, MLP. */
    if (r->family == VT_FAMILY_GPT2) {
        module(w, add(w->ck, h, 2 * h_kv), h, h + 2 * h_kv, L, 1); /* fused c_attn */
    } else {
        module(w, h, h, hb, L, 1);
        module(w, h_kv, h, kvb, L, 1);
        module(w, h_kv, h, kvb, L, 1);
    }
    module(w, h, h, hb, L, 1);
    module(w, h, 0, hb, 2 * L, 0); /* LayerNorm (weight, bias) or RMSNorm (weight) */
    module(w, f, h, fb, r->gated_mlp ? 2 * L : L, 1);
    module(w, h, f, hb, L, 1);
    /* Final norm and heads. */
    if (r->family != VT_FAMILY_BERT)
        module(w, h, 0, hb, 1, 0);
    if (r->family == VT_FAMILY_BERT) {
        if (r->head == VT_HEAD_MLM) {
            module(w, h, h, h, 1, 1); /* transform dense */
            module(w, h, 0, h, 1, 0); /* transform LayerNorm */
            if (r->tied_embeddings) {
                module(w, V, 0, 0, 1, 1); /* decoder bias; the weight is the embedding's */
                w->p_matmul = add(w->ck, w->p_matmul, mul(w->ck, V, h));
            } else {
                module(w, V, h, V, 1, 1);
            }
        } else {
            module(w, h, h, h, 1, 1); /* pooler */
            if (r->head == VT_HEAD_CLS)
                module(w, r->n_labels, h, r->n_labels, 1, 1);
        }
    } else if (r->head == VT_HEAD_LM) {
        if (r->tied_embeddings)
            w->p_matmul = add(w->ck, w->p_matmul, mul(w->ck, V, h)); /* cast as the LM head */
        else
            module(w, V, h, 0, 1, 1);
    } /* head none: the bare model has no LM head */
}

/* torchvision ResNet with bottleneck blocks; conv weights as out x (in*k*k), BatchNorm as
 * weight + bias vectors, the 1000-class fc. */
static void walk_resnet(unsigned depth, walk_t *w)
{
    static const unsigned blocks50[4] = {3, 4, 6, 3}, blocks101[4] = {3, 4, 23, 3},
                          blocks152[4] = {3, 8, 36, 3};
    const unsigned *blocks = depth == 50 ? blocks50 : depth == 101 ? blocks101 : blocks152;
    module(w, 64, 3 * 7 * 7, 0, 1, 1);
    module(w, 64, 0, 64, 1, 0);
    uint64_t in = 64;
    for (int stage = 0; stage < 4; stage++) {
        uint64_t planes = 64u << stage;
        for (unsigned i = 0; i < blocks[stage]; i++) {
            module(w, planes, in, 0, 1, 1);
            module(w, planes, 0, planes, 1, 0);
            module(w, planes, planes * 9, 0, 1, 1);
            module(w, planes, 0, planes, 1, 0);
            module(w, 4 * planes, planes, 0, 1, 1);
            module(w, 4 * planes, 0, 4 * planes, 1, 0);
            if (i == 0) { /* downsample */
                module(w, 4 * planes, in, 0, 1, 1);
                module(w, 4 * planes, 0, 4 * planes, 1, 0);
            }
            in = 4 * planes;
        }
    }
    module(w, 1000, 2048, 1000, 1, 1);
}

/* Walks the architecture if r has one; returns 1 if it did. */
static int walk(const vt_budget_model_t *r, walk_t *w, ck_t *c)
{
    memset(w, 0, sizeof(*w));
    w->ck = c;
    if (is_transformer(r->family)) {
        walk_transformer(r, w);
        return 1;
    }
    if (r->family == VT_FAMILY_CNN && r->cnn_arch) {
        walk_resnet(r->cnn_arch, w);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ activations */

/* vt_budget_layer: one layer's stored activations and, under full checkpointing, the layer
 * rebuilt in backward (docs/budget.md, "The realistic model").
 * fp32_eager is ideal32 plus the LayerNorm mean/rstd (16 B per token), as vector B6. */
int vt_budget_layer(const vt_budget_layer_t *l, uint64_t *stored, uint64_t *transient)
{
    ck_t c = {0};
    uint64_t s = l->s, b = l->b, h = l->h, a = l->a, t = l->t ? l->t : 1;
    uint64_t h_kv = h / a * l->kv, k = l->gated ? 4 : 2, m = 1;
    uint64_t sb = mul(&c, s, b), sbh = mul(&c, sb, h);
    uint64_t full, keep;
    *stored = *transient = 0;
    if (l->profile == VT_PROFILE_TORCH_AMP_EAGER) {
        /* fp32 norm inputs (8), a 16-bit cast of the attention input per Linear, Q (2), K and V
         * (2 each, h_kv wide), projection input (2), dropout masks, a cast for fc1 (2), the
         * activation input and fc2 input (2 each, f wide; k of them when gated), act_extra. */
        uint64_t coef = 8 + 2 * l->n_qkv + 2 + 2 + 2 + 2 * (uint64_t)(l->d_hid != 0) + l->act_extra;
        uint64_t lin =
            add(&c, mul(&c, sbh, coef), mul(&c, sb, add(&c, 4 * h_kv, mul(&c, 2 * k, l->f))));
        uint64_t sq = l->flash ? mul3(&c, 4, a, sb) : mul4(&c, a, s, sb, 4 + (l->d_attn ? 3 : 2));
        uint64_t stats = mul(&c, 16, sb);
        full = add(&c, add(&c, lin, sq), stats);
        keep = l->ckpt == VT_CKPT_SELECTIVE ? add(&c, lin, stats) : full;
        if (l->ckpt == VT_CKPT_FULL)
            keep = mul(&c, 4, sbh); /* the fp32 residual stream entering the layer */
    } else {
        uint64_t e = l->profile == VT_PROFILE_IDEAL16 ? 2 : 4;
        uint64_t U = 4 * e + 2 * m * (l->d_hid != 0);
        uint64_t lin_u = mul(&c, sbh, U);
        uint64_t lin_s =
            mul(&c, sb, add(&c, add(&c, 2 * e * h, mul(&c, 2 * e, h_kv)), mul3(&c, e, k, l->f)));
        uint64_t sq =
            l->flash ? mul3(&c, 4, a, sb) : mul4(&c, a, s, sb, e + (l->d_attn ? m + e : 0));
        /* One rounding per layer: U is split over t only with sequence parallelism. */
        uint64_t u_part = l->sp ? lin_u : mul(&c, lin_u, t);
        full = div_up(add(&c, add(&c, u_part, lin_s), sq), t);
        keep = l->ckpt == VT_CKPT_SELECTIVE ? div_up(add(&c, u_part, lin_s), t) : full;
        if (l->profile == VT_PROFILE_FP32_EAGER) {
            uint64_t stats = mul(&c, 16, sb);
            full = add(&c, full, stats);
            keep = add(&c, keep, stats);
        }
        if (l->ckpt == VT_CKPT_FULL)
            keep = div_up(mul(&c, e, sbh), l->sp ? t : 1);
    }
    *stored = keep;
    *transient = l->ckpt == VT_CKPT_FULL ? full : 0;
    return c.overflow ? -1 : 0;
}

static void layer_of(const vt_budget_model_t *r, vt_budget_layer_t *l)
{
    memset(l, 0, sizeof(*l));
    l->s = r->seq, l->b = r->batch, l->h = r->hidden, l->a = r->heads, l->kv = r->kv_heads;
    l->f = r->ffn;
    l->profile = r->act_profile;
    l->d_attn = r->dropout_attn > 0, l->d_hid = r->dropout_hidden > 0;
    l->gated = r->gated_mlp > 0, l->flash = r->flash_attention > 0, l->sp = r->sp > 0;
    l->ckpt = r->checkpointing, l->t = r->tp;
    l->n_qkv = r->n_qkv_linears;
    /* HF's Python gelu_new under autocast: pow runs in fp32, tanh and mul keep fp32. */
    l->act_extra = r->activation == VT_ACT_GELU_NEW ? 48 : 0;
}

/* ------------------------------------------------------------------ the two models */

int vt_budget_naive(const vt_budget_model_t *r, vt_budget_naive_t *out)
{
    ck_t c = {0};
    walk_t w;
    memset(out, 0, sizeof(*out));
    uint64_t P = r->params;
    if (!GIVEN(r, KEY_PARAMS) && walk(r, &w, &c))
        P = w.params;
    uint64_t B = r->dtype_bytes;
    out->params = P;
    out->bytes_per_param = B;
    out->weights = mul(&c, P, B);
    out->gradients = out->weights;
    /* The hand estimate: "Adam doubles" (m and v in the parameters' dtype); one state for momentum and
     * Lion, none for SGD; 8-bit Adam keeps two 1-byte states, Adafactor's factored ones round
     * to nothing (its beta1 variant keeps one full state). */
    switch (r->optimizer) {
    case VT_OPT_SGD:
    case VT_OPT_ADAFACTOR:
        out->n_states = 0;
        break;
    case VT_OPT_SGD_MOMENTUM:
    case VT_OPT_LION:
    case VT_OPT_ADAFACTOR_BETA1:
        out->n_states = 1;
        break;
    default:
        out->n_states = 2;
        break;
    }
    out->optimizer =
        r->optimizer == VT_OPT_ADAM8BIT ? mul(&c, 2, P) : mul3(&c, out->n_states, P, B);
    out->activations = mul(&c, mul4(&c, r->batch, r->seq, r->hidden, r->layers), B);
    out->data = mul3(&c, r->batch, r->seq, B);
    out->total = add(
        &c,
        add(&c, add(&c, out->weights, out->gradients), add(&c, out->optimizer, out->activations)),
        out->data);
    return c.overflow ? -1 : 0;
}

int vt_budget_realistic(const vt_budget_model_t *r, vt_budget_realistic_t *o)
{
    ck_t c = {0};
    walk_t w;
    memset(o, 0, sizeof(*o));
    int have_arch = walk(r, &w, &c);
    int given_p = GIVEN(r, KEY_PARAMS);
    uint64_t P = given_p || !have_arch ? r->params : w.params;
    uint64_t Pmm = P;
    if (GIVEN(r, KEY_P_MATMUL))
        Pmm = r->p_matmul;
    else if (have_arch && is_transformer(r->family))
        Pmm = w.p_matmul < P ? w.p_matmul : P;
    /* ResNet: the measured cast cache is 2 B for every parameter, BatchNorm included. */
    uint64_t largest = GIVEN(r, KEY_LARGEST_LAYER) ? r->largest_layer_params
                       : have_arch                 ? w.largest_module
                                                   : 0;
    o->params = P, o->p_matmul = Pmm, o->largest_layer_params = largest;

    /* Model states: bytes per parameter by regime; the fp32 master copy of the
     * 16-bit regimes is optimizer state. */
    uint64_t wb = 4, gb = 4, master = 0;
    switch (r->regime) {
    case VT_REGIME_MIXED16:
        wb = 2, gb = 2, master = 4;
        break;
    case VT_REGIME_MEGATRON_BF16:
        wb = 2, gb = 4, master = 4;
        break;
    case VT_REGIME_MEGATRON_FP16:
        wb = 2, gb = 6, master = 4;
        break;
    default:
        break;
    }
    uint64_t state;
    switch (r->optimizer) {
    case VT_OPT_SGD:
        state = 0;
        break;
    case VT_OPT_SGD_MOMENTUM:
    case VT_OPT_LION:
        state = mul(&c, 4, P);
        break;
    case VT_OPT_ADAM8BIT:
        state =
            have_arch && !given_p ? w.adam8bit : add(&c, mul(&c, 2, P), mul(&c, 8, div_up(P, 256)));
        break;
    case VT_OPT_ADAFACTOR:
        state = w.adafactor;
        break;
    case VT_OPT_ADAFACTOR_BETA1:
        state = add(&c, w.adafactor, mul(&c, 4, P));
        break;
    default:
        state = mul(&c, 8, P);
        break;
    }
    o->weights = mul(&c, wb, P);
    o->gradients = mul(&c, gb, P);
    o->optimizer = add(&c, mul(&c, master, P), state);
    o->weights_cast = is_amp(r->regime) ? mul(&c, 2, Pmm) : 0;
    uint64_t N = r->dp;
    if (r->zero_stage >= 1)
        o->optimizer = div_up(o->optimizer, N);
    if (r->zero_stage >= 2)
        o->gradients = div_up(o->gradients, N);
    if (r->zero_stage >= 3) {
        o->weights = div_up(o->weights, N);
        o->zero3_gather = mul(&c, 4, largest); /* 16-bit params + grads of the largest layer */
    }

    /* Activations and data. */
    uint64_t b = r->batch, s = r->seq, V = r->vocab;
    int lm_head = r->head == VT_HEAD_LM || r->head == VT_HEAD_MLM;
    if (is_transformer(r->family)) {
        vt_budget_layer_t l;
        uint64_t stored, rebuilt;
        layer_of(r, &l);
        if (vt_budget_layer(&l, &stored, &rebuilt) != 0)
            c.overflow = 1;
        uint64_t sbh = mul3(&c, s, b, r->hidden);
        int ideal = r->act_profile == VT_PROFILE_IDEAL16 || r->act_profile == VT_PROFILE_IDEAL32;
        int amp = r->act_profile == VT_PROFILE_TORCH_AMP_EAGER;
        uint64_t e = r->act_profile == VT_PROFILE_IDEAL16 ? 2 : 4;
        uint64_t d_emb = r->dropout_hidden > 0, coef;
        if (r->family == VT_FAMILY_BERT) {
            /* Post-LN: the embedding LayerNorm input (fp32 under eager profiles) and the
             * embedding-dropout mask; the MLM head's dense, GELU, LN and decoder inputs. */
            coef = (ideal ? e : 4) + d_emb;
            if (r->head == VT_HEAD_MLM)
                coef += ideal ? 4 * e : amp ? 10 : 16;
        } else {
            /* Pre-norm: embedding-dropout mask, final-norm input, LM-head input. */
            coef = d_emb + (ideal ? e : 4);
            if (r->head == VT_HEAD_LM)
                coef += ideal ? e : amp ? 2 : 4;
        }
        o->act_layer = stored;
        o->act_layers = mul(&c, r->layers, stored);
        o->act_extra = mul(&c, coef, sbh);
        o->act_logits = lm_head ? mul4(&c, b, s, V, r->logits_bytes) : 0;
        o->transient_recompute = rebuilt;
        o->transient_logits = lm_head ? mul4(&c, 8, b, s, V) : 0;
        uint64_t bs8 = mul3(&c, 8, b, s);
        if (r->family == VT_FAMILY_BERT) /* input_ids, token_type_ids, attention_mask; labels */
            o->data = add(&c, mul(&c, 3, bs8),
                          r->head == VT_HEAD_CLS   ? mul(&c, 8, b)
                          : r->head == VT_HEAD_MLM ? bs8
                                                   : 0);
        else /* input_ids; labels */
            o->data = lm_head ? mul(&c, 2, bs8) : bs8;
    } else {
        uint64_t per = r->cnn_act_bytes_per_sample, fixed = r->cnn_act_fixed;
        if (is_amp(r->regime))
            per = r->cnn_amp_act_bytes_per_sample, fixed = r->cnn_amp_act_fixed;
        o->act_layers = add(&c, mul(&c, b, per), fixed);
        if (r->family == VT_FAMILY_CNN) /* fp32 images and int64 labels */
            o->data =
                mul(&c, b, add(&c, mul4(&c, 4, r->channels, r->image_size, r->image_size), 8));
        else
            o->data = mul(&c, b, r->data_bytes_per_sample);
    }
    o->activations = add(&c, add(&c, o->act_layers, o->act_extra), o->act_logits);
    o->total =
        add(&c, add(&c, add(&c, o->weights, o->weights_cast), add(&c, o->gradients, o->optimizer)),
            add(&c, add(&c, o->zero3_gather, o->activations), o->data));

    /* Overheads, apart from the total. */
    o->overhead_context = r->cuda_context_bytes;
    o->overhead_cublas = mul(&c, r->n_cublas_ws, r->cublas_ws_bytes);
    o->overhead_nccl = r->nccl_bytes;
    o->overhead_ddp = N > 1 && r->zero_stage == 0 && !(r->ddp_bucket_view > 0) ? o->gradients : 0;
    /* DeepSpeed's reduce and allgather buckets, 16-bit. */
    o->overhead_zero = r->zero_stage >= 1 && N > 1 ? mul3(&c, 2, r->zero_bucket_elems, 2) : 0;
    o->overhead =
        add(&c, add(&c, add(&c, o->overhead_context, o->overhead_cublas), o->overhead_nccl),
            add(&c, o->overhead_ddp, o->overhead_zero));
    /* foreach steps hold about one more fp32 copy of the parameters; fused nothing; the
     * for-loop one the largest parameter (torch/optim/optimizer.py _foreach_doc). */
    if (r->step_impl == VT_STEP_FOREACH)
        o->transient_step = div_up(mul(&c, 4, P), r->zero_stage >= 1 ? N : 1);
    else if (r->step_impl == VT_STEP_FORLOOP)
        o->transient_step = mul(&c, 4, have_arch ? w.largest_tensor : largest);
    o->transient = max2(max2(o->transient_logits, o->transient_recompute), o->transient_step);

    /* Peak. */
    uint64_t fb = add(&c, add(&c, add(&c, o->weights, o->weights_cast), o->optimizer),
                      add(&c, add(&c, o->zero3_gather, o->activations), o->data));
    if (r->grads_persistent > 0)
        fb = add(&c, fb, o->gradients);
    fb = add(&c, fb, max2(o->transient_logits, o->transient_recompute));
    uint64_t step =
        add(&c, add(&c, o->weights, o->gradients), add(&c, o->optimizer, o->transient_step));
    o->peak = add(&c, max2(fb, step), o->overhead);
    return c.overflow ? -1 : 0;
}

int vt_budget_compute(const vt_budget_model_t *m, vt_budget_t *out, char *err, size_t len)
{
    vt_budget_model_t r;
    memset(out, 0, sizeof(*out));
    if (vt_budget_resolve(m, &r, err, len) != 0)
        return -1;
    out->method = r.method;
    if ((r.method & VT_BUDGET_NAIVE) && vt_budget_naive(&r, &out->naive) != 0)
        return fail(err, len, "the naive budget overflows 64 bits: check the keys' values");
    if ((r.method & VT_BUDGET_REALISTIC) && vt_budget_realistic(&r, &out->realistic) != 0)
        return fail(err, len, "the realistic budget overflows 64 bits: check the keys' values");
    return 0;
}

int64_t vt_budget_category(const vt_budget_t *b, const char *name)
{
    if (b->method & VT_BUDGET_REALISTIC) {
        const vt_budget_realistic_t *r = &b->realistic;
        const uint64_t v[5] = {r->weights + r->weights_cast, r->gradients, r->optimizer,
                               r->activations, r->data};
        for (int i = 0; i < 5; i++)
            if (strcmp(name, vt_budget_categories[i]) == 0)
                return (int64_t)v[i];
    } else if (b->method & VT_BUDGET_NAIVE) {
        const vt_budget_naive_t *n = &b->naive;
        const uint64_t v[5] = {n->weights, n->gradients, n->optimizer, n->activations, n->data};
        for (int i = 0; i < 5; i++)
            if (strcmp(name, vt_budget_categories[i]) == 0)
                return (int64_t)v[i];
    }
    return -1;
}

/* ------------------------------------------------------------------ other tools' estimators */

/* DeepSpeed estimate_zero2_model_states_mem_needs (stage_1_and_2.py), additional_buffer_factor
 * 1.5 written as *3/2 so the result stays integer. */
void vt_budget_ds_zero2(uint64_t P, uint64_t gpn, uint64_t nodes, int offload, int old_formula,
                        uint64_t *gpu, uint64_t *cpu)
{
    uint64_t total_gpus = gpn * nodes;
    if (offload) {
        *gpu = 2 * P;
        *cpu = P * max2(4 * total_gpus, 16) * 3 / 2;
    } else {
        *gpu = old_formula ? 4 * P + 16 * P / total_gpus : 2 * P + 18 * P / total_gpus;
        *cpu = P * 4 * gpn * 3 / 2;
    }
}

/* DeepSpeed estimate_zero3_model_states_mem_needs (stage3.py); `max(4*gpn, 18/nodes)` is
 * compared as 4*gpn*nodes against 18 to stay in integers. */
void vt_budget_ds_zero3(uint64_t P, uint64_t lmax, uint64_t gpn, uint64_t nodes,
                        vt_ds_offload_t offload, int zero_init, uint64_t *gpu, uint64_t *cpu)
{
    uint64_t total_gpus = gpn * nodes, llm = 4 * lmax;
    switch (offload) {
    case VT_DS_OFFLOAD_PARAM_OPTIMIZER:
        *gpu = llm;
        *cpu =
            zero_init ? P * 18 * 3 / (2 * nodes) : P * max2(4 * gpn * nodes, 18) * 3 / (2 * nodes);
        break;
    case VT_DS_OFFLOAD_OPTIMIZER:
        *gpu = llm + 2 * P / total_gpus;
        *cpu =
            zero_init ? P * 16 * 3 / (2 * nodes) : P * max2(4 * gpn * nodes, 16) * 3 / (2 * nodes);
        break;
    default:
        *gpu = llm + 18 * P / total_gpus;
        *cpu = zero_init ? lmax * 4 * gpn * 3 / 2 : P * 4 * gpn * 3 / 2;
        break;
    }
}

/* accelerate estimate_training_usage: model, gradients, optimizer, step; "Training using Adam"
 * is their maximum, not their sum (commands/estimate.py). */
uint64_t vt_budget_accelerate_adam(uint64_t total_size, int half16)
{
    uint64_t fp32 = total_size, fp16 = total_size / 2;
    uint64_t model = fp32, grads = half16 ? fp32 + fp16 : fp32, optim = 2 * fp32;
    uint64_t step = half16 ? optim : 4 * fp32;
    return max2(max2(model, grads), max2(optim, step));
}

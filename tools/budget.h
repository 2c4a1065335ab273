/* SPDX-License-Identifier: MIT */
/* The theoretical memory budget of a training run (docs/budget.md): the naive hand
 * estimate and the realistic model, in integer bytes per GPU. A model is built from
 * `key = value` settings (vt_budget_model_set), resolved (defaults, checks) and computed; the
 * CLI (cmd_budget.c) and the report's side-by-side comparison both call this, so nothing here
 * prints: errors come back as one-line messages in a caller's buffer. */
#ifndef VT_BUDGET_H
#define VT_BUDGET_H
#include <stddef.h>
#include <stdint.h>

#define VT_BUDGET_NAIVE     1u
#define VT_BUDGET_REALISTIC 2u
#define VT_BUDGET_BOTH      3u

typedef enum vt_budget_family_e {
    VT_FAMILY_UNSET = 0,
    VT_FAMILY_BERT,    /* post-LN encoder (HF BertModel) */
    VT_FAMILY_GPT2,    /* pre-LN decoder, fused QKV, tied LM head */
    VT_FAMILY_LLAMA,   /* pre-RMSNorm decoder, no biases, SwiGLU */
    VT_FAMILY_CNN,     /* measured per-sample activations, image inputs */
    VT_FAMILY_GENERIC, /* measured per-sample activations, opaque inputs */
} vt_budget_family_t;

typedef enum vt_budget_head_e {
    VT_HEAD_DEFAULT = 0, /* lm for decoders, cls:2 for bert, none otherwise */
    VT_HEAD_NONE,
    VT_HEAD_CLS,
    VT_HEAD_LM,
    VT_HEAD_MLM,
} vt_budget_head_t;

typedef enum vt_budget_regime_e {
    VT_REGIME_DEFAULT = 0, /* from dtype: fp32, torch_amp_fp16 or torch_amp_bf16 */
    VT_REGIME_FP32,
    VT_REGIME_TORCH_AMP_FP16,
    VT_REGIME_TORCH_AMP_BF16,
    VT_REGIME_MIXED16,
    VT_REGIME_MEGATRON_BF16,
    VT_REGIME_MEGATRON_FP16,
} vt_budget_regime_t;

typedef enum vt_budget_profile_e {
    VT_PROFILE_DEFAULT = 0, /* from regime */
    VT_PROFILE_IDEAL16,
    VT_PROFILE_IDEAL32,
    VT_PROFILE_TORCH_AMP_EAGER,
    VT_PROFILE_FP32_EAGER,
} vt_budget_profile_t;

typedef enum vt_budget_optimizer_e {
    VT_OPT_DEFAULT = 0, /* adam */
    VT_OPT_SGD,
    VT_OPT_SGD_MOMENTUM,
    VT_OPT_ADAM,
    VT_OPT_ADAM8BIT,
    VT_OPT_ADAFACTOR,
    VT_OPT_ADAFACTOR_BETA1,
    VT_OPT_LION,
} vt_budget_optimizer_t;

typedef enum vt_budget_ckpt_e {
    VT_CKPT_NONE = 0,
    VT_CKPT_SELECTIVE,
    VT_CKPT_FULL,
} vt_budget_ckpt_t;

typedef enum vt_budget_step_e {
    VT_STEP_FOREACH = 0,
    VT_STEP_FUSED,
    VT_STEP_FORLOOP,
} vt_budget_step_t;

typedef enum vt_budget_act_fn_e {
    VT_ACT_DEFAULT = 0, /* gelu_new for gpt2, silu for llama, gelu otherwise */
    VT_ACT_GELU,
    VT_ACT_GELU_NEW,
    VT_ACT_SILU,
} vt_budget_act_fn_t;

#define VT_BUDGET_MAX_KEYS 64

/* The settings of one run. Zero (or the _DEFAULT/-1 value) means "not given": vt_budget_resolve
 * fills it from the family, the regime or the documented default. */
typedef struct vt_budget_model_s {
    unsigned method;
    uint64_t params;      /* P; 0: counted from the architecture */
    unsigned dtype_bytes; /* the naive model's B; 0: 2 (fp16) */
    unsigned dtype_bf16;  /* dtype was bf16 (picks torch_amp_bf16 by default) */
    vt_budget_family_t family;
    vt_budget_head_t head;
    uint64_t n_labels; /* cls:N */
    uint64_t layers, hidden, heads, kv_heads, ffn, vocab, max_pos, type_vocab;
    int tied_embeddings, gated_mlp, dropout_attn, dropout_hidden; /* -1: family default */
    vt_budget_act_fn_t activation;
    uint64_t n_qkv_linears;
    vt_budget_regime_t regime;
    vt_budget_profile_t act_profile;
    uint64_t logits_bytes; /* per logit element; 0: by profile */
    vt_budget_optimizer_t optimizer;
    vt_budget_step_t step_impl;
    uint64_t batch, seq;
    vt_budget_ckpt_t checkpointing;
    int flash_attention;
    uint64_t zero_stage, dp, tp; /* dp, tp: 0 means 1 */
    int sp;
    uint64_t largest_layer_params, p_matmul; /* 0: derived */
    unsigned cnn_arch;                       /* 0 none, else ResNet depth 50/101/152 */
    uint64_t cnn_act_bytes_per_sample, cnn_act_fixed;
    uint64_t cnn_amp_act_bytes_per_sample, cnn_amp_act_fixed;
    uint64_t image_size, channels, data_bytes_per_sample;
    int grads_persistent, ddp_bucket_view; /* -1: default */
    uint64_t cuda_context_bytes, n_cublas_ws, cublas_ws_bytes, nccl_bytes, zero_bucket_elems;
    unsigned char set[VT_BUDGET_MAX_KEYS]; /* set[i]: key i of the key table was given */
} vt_budget_model_t;

/* One transformer layer's saved activations. */
typedef struct vt_budget_layer_s {
    uint64_t s, b, h, a, kv, f;
    vt_budget_profile_t profile; /* resolved: never _DEFAULT */
    int d_attn, d_hid, gated, flash, sp;
    vt_budget_ckpt_t ckpt;
    uint64_t t;         /* tensor-parallel size, >= 1 */
    uint64_t n_qkv;     /* eager profiles: Linears reading the attention input (1 or 3) */
    uint64_t act_extra; /* eager AMP: extra sbh coefficient of the activation (48 gelu_new) */
} vt_budget_layer_t;

typedef struct vt_budget_naive_s {
    uint64_t params, bytes_per_param, n_states;
    uint64_t weights, gradients, optimizer, activations, data, total;
} vt_budget_naive_t;

typedef struct vt_budget_realistic_s {
    uint64_t params, p_matmul, largest_layer_params;
    uint64_t weights;      /* the regime's parameter copy (without weights_cast) */
    uint64_t weights_cast; /* autocast 16-bit weight copies, forward..backward */
    uint64_t gradients, optimizer, zero3_gather;
    uint64_t act_layer, act_layers, act_extra, act_logits, activations;
    uint64_t data;
    uint64_t total; /* weights + weights_cast + gradients + optimizer + zero3_gather +
                       activations + data, as the vectors count it */
    uint64_t overhead_context, overhead_cublas, overhead_nccl, overhead_ddp, overhead_zero;
    uint64_t overhead; /* static: the five above */
    uint64_t transient_logits, transient_recompute, transient_step;
    uint64_t transient; /* the largest of the three */
    uint64_t peak;      /* max(forward/backward, step) + static overhead */
} vt_budget_realistic_t;

/* Both results of one computation; `method` says which are filled. */
typedef struct vt_budget_s {
    unsigned method;
    vt_budget_naive_t naive;
    vt_budget_realistic_t realistic;
} vt_budget_t;

/* The category names (docs/design.md, "Contracts") that a budget fills, in report order. */
extern const char *const vt_budget_categories[5];

/* Key table, for help and documentation: name, accepted values, default. */
typedef struct vt_budget_key_info_s {
    const char *name, *values, *def;
} vt_budget_key_info_t;
const vt_budget_key_info_t *vt_budget_key_info(size_t i); /* NULL past the end */
/* The name of value v of an enumerated key ("regime", VT_REGIME_MIXED16 -> "mixed16"), or "?". */
const char *vt_budget_value_name(const char *key, int v);

void vt_budget_model_init(vt_budget_model_t *m);
/* Sets one key. Returns 0, -1 for an unknown key, -2 for a bad value (message in err). */
int vt_budget_model_set(vt_budget_model_t *m, const char *key, const char *value, char *err,
                        size_t err_len);
/* Defaults and consistency checks for m->method. Returns 0 or -1 (message in err). */
int vt_budget_resolve(const vt_budget_model_t *m, vt_budget_model_t *out, char *err,
                      size_t err_len);
/* Computes the budget of m (resolved or not) for its method. Returns 0 or -1 (err). */
int vt_budget_compute(const vt_budget_model_t *m, vt_budget_t *out, char *err, size_t err_len);
/* A category's bytes in the realistic budget if computed, else the naive one; -1 if unknown. */
int64_t vt_budget_category(const vt_budget_t *b, const char *name);

/* The pieces, for tests and other callers. Each returns 0, or -1 when a result overflows. */
int vt_budget_layer(const vt_budget_layer_t *l, uint64_t *stored, uint64_t *transient);
int vt_budget_naive(const vt_budget_model_t *resolved, vt_budget_naive_t *out);
int vt_budget_realistic(const vt_budget_model_t *resolved, vt_budget_realistic_t *out);

/* Other tools' estimators, reproduced (DeepSpeed's and accelerate's; the compatibility vectors). Byte results, floored as
 * the tools' Python does. */
typedef enum vt_ds_offload_e {
    VT_DS_OFFLOAD_NONE = 0,
    VT_DS_OFFLOAD_OPTIMIZER,
    VT_DS_OFFLOAD_PARAM_OPTIMIZER,
} vt_ds_offload_t;
void vt_budget_ds_zero2(uint64_t params, uint64_t gpus_per_node, uint64_t nodes, int offload,
                        int old_formula, uint64_t *gpu, uint64_t *cpu);
void vt_budget_ds_zero3(uint64_t params, uint64_t largest_layer_params, uint64_t gpus_per_node,
                        uint64_t nodes, vt_ds_offload_t offload, int zero_init, uint64_t *gpu,
                        uint64_t *cpu);
/* accelerate estimate-memory's "Training using Adam": max of its four stage sizes, for a model
 * of total_size bytes in fp32 (parameters + buffers); half16: float16/bfloat16. */
uint64_t vt_budget_accelerate_adam(uint64_t total_size, int half16);
#endif

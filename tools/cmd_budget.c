/* SPDX-License-Identifier: MIT */
/* `vramtrace budget`: the theoretical memory budget of a model (budget.[ch]) as a table per
 * category with the formula used, as JSON, or as a what-if table of the usual remedies. The
 * model comes from `--model FILE` and key=value arguments, the arguments overriding the file.
 * Exit statuses: 0 ok, 1 an unreadable model file or a failed write, 2 usage (bad flag, unknown
 * key, missing key, bad value). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "budget.h"
#include "commands.h"
#include "json.h"
#include "kv.h"
#include "args.h"
#include "units.h"
#include "util.h"

enum { OPT_MODEL = 1, OPT_JSON, OPT_WHAT_IF, OPT_KEYS };

static const vt_option_t options[] = {
    {OPT_MODEL, 0, "--model", "FILE", 0,
     "read KEY = VALUE lines (# comments) from FILE; arguments override it"},
    {OPT_JSON, 0, "--json", NULL, 0, "print JSON on stdout"},
    {OPT_WHAT_IF, 0, "--what-if", NULL, 0,
     "the realistic total with each of the usual remedies applied alone (a model FILE may "
     "follow it)"},
    {OPT_KEYS, 0, "--keys", NULL, 0, "list the keys, their values and defaults"},
    {0},
};

static const vt_args_spec_t spec = {
    .name = "budget",
    .usage = "usage: vramtrace budget [--model FILE] [KEY=VALUE...] [--json]\n"
             "   or: vramtrace budget --what-if [FILE] [KEY=VALUE...] [--json]\n"
             "   or: vramtrace budget --keys\n",
    .about = "The theoretical memory of one training process (one GPU), in bytes: the naive hand "
             "estimate and the realistic model (docs/budget.md), by category, with the formulas "
             "used.",
    .tables = {options},
    .after = "A byte key takes a SIZE: a byte count with an optional unit, in any case, "
             "fractions rounded down to the byte (7B, 512K, 1.5G, 16GiB, 4GB). K, M, G, T and "
             "KiB, MiB, GiB, TiB are powers of 1024; KB, MB, GB, TB powers of 1000.\n"
             "\n"
             "Example (the hand estimate of BERT-base):\n"
             "    vramtrace budget method=naive params=110M dtype=fp16 batch=32 seq=512 "
             "hidden=768 layers=12",
    .exit_status = "Exit status: 0 fine, 1 unreadable model file or another error, 2 usage "
                   "error (a bad key or value).",
};

/* ------------------------------------------------------------------ number formatting */

static const char *signed_binary(int64_t v, char *buf, size_t len)
{
    if (v >= 0)
        return vt_fmt_binary((uint64_t)v, buf, len);
    buf[0] = '-';
    vt_fmt_binary((uint64_t)(-(v + 1)) + 1, buf + 1, len - 1);
    return buf;
}

/* One table row: name, bytes, binary, formula. indent 2 for categories, 4 for their parts. */
__attribute__((format(printf, 4, 5))) static void row(int indent, const char *name, uint64_t bytes,
                                                      const char *fmt, ...)
{
    char c[32], b[32];
    printf("%*s%-*s %17s %11s", indent, "", 18 - indent, name, vt_fmt_commas(bytes, c, sizeof(c)),
           vt_fmt_binary(bytes, b, sizeof(b)));
    if (fmt && *fmt) {
        va_list ap;
        va_start(ap, fmt);
        fputs("  ", stdout);
        vprintf(fmt, ap);
        va_end(ap);
    }
    putchar('\n');
}

static void header(void)
{
    printf("  %-16s %17s %11s  %s\n", "category", "bytes", "binary", "formula");
}

/* ------------------------------------------------------------------ the two tables */

static void print_naive(const vt_budget_model_t *r, const vt_budget_naive_t *n)
{
    char p[32];
    printf("naive budget (the hand estimate): P = %s parameters, B = %" PRIu64 " bytes each\n",
           vt_fmt_commas(n->params, p, sizeof(p)), n->bytes_per_param);
    header();
    row(2, "weights", n->weights, "P*B");
    row(2, "gradients", n->gradients, "P*B");
    const char *opt = vt_budget_value_name("optimizer", r->optimizer);
    if (r->optimizer == VT_OPT_ADAM8BIT)
        row(2, "optimizer", n->optimizer, "2*P (%s: two 1-byte states)", opt);
    else
        row(2, "optimizer", n->optimizer, "%" PRIu64 "*P*B (%s)", n->n_states, opt);
    row(2, "activations", n->activations,
        "b*s*h*L*B = %" PRIu64 "*%" PRIu64 "*%" PRIu64 "*%" PRIu64 "*%" PRIu64, r->batch, r->seq,
        r->hidden, r->layers, n->bytes_per_param);
    row(2, "data", n->data, "b*s*B = %" PRIu64 "*%" PRIu64 "*%" PRIu64, r->batch, r->seq,
        n->bytes_per_param);
    row(2, "total", n->total, "sum");
}

static const char *head_name(const vt_budget_model_t *r, char *buf, size_t len)
{
    switch (r->head) {
    case VT_HEAD_CLS:
        snprintf(buf, len, "cls:%" PRIu64, r->n_labels);
        return buf;
    case VT_HEAD_LM:
        return "lm";
    case VT_HEAD_MLM:
        return "mlm";
    default:
        return "none";
    }
}

static int is_transformer(const vt_budget_model_t *r)
{
    return r->family == VT_FAMILY_BERT || r->family == VT_FAMILY_GPT2 ||
           r->family == VT_FAMILY_LLAMA;
}

static int is_amp(vt_budget_regime_t g)
{
    return g == VT_REGIME_TORCH_AMP_FP16 || g == VT_REGIME_TORCH_AMP_BF16;
}

static void print_realistic(const vt_budget_model_t *r, const vt_budget_realistic_t *o)
{
    char p[32], q[32], hb[32], zs[64] = "";
    const char *regime = vt_budget_value_name("regime", r->regime);
    const char *optname = vt_budget_value_name("optimizer", r->optimizer);
    const char *profile = vt_budget_value_name("act_profile", r->act_profile);
    printf("realistic budget (per GPU): family %s", vt_budget_value_name("family", r->family));
    if (is_transformer(r))
        printf(", head %s", head_name(r, hb, sizeof(hb)));
    printf(", regime %s", regime);
    if (is_transformer(r))
        printf(", act_profile %s", profile);
    printf(", optimizer %s\n", optname);
    printf("  P = %s parameters (%s in matmuls)\n", vt_fmt_commas(o->params, p, sizeof(p)),
           vt_fmt_commas(o->p_matmul, q, sizeof(q)));
    header();

    static const char *const wname[] = {"",
                                        "4*P (fp32)",
                                        "4*P (fp32 params)",
                                        "4*P (fp32 params)",
                                        "2*P (16-bit params)",
                                        "2*P (bf16 params)",
                                        "2*P (fp16 params)"};
    static const char *const gname[] = {"",
                                        "4*P (fp32)",
                                        "4*P (fp32)",
                                        "4*P (fp32)",
                                        "2*P (16-bit)",
                                        "4*P (fp32 main grads)",
                                        "2*P + 4*P (fp16 grads, fp32 main grads)"};
    uint64_t N = r->dp;
    if (r->zero_stage >= 1)
        snprintf(zs, sizeof(zs), " / dp %" PRIu64 " (ZeRO-%" PRIu64 ")", N, r->zero_stage);
    row(2, "weights", o->weights + o->weights_cast, "%s%s%s", wname[r->regime],
        r->zero_stage >= 3 ? zs : "", is_amp(r->regime) ? " + autocast copies" : "");
    if (is_amp(r->regime))
        row(4, "autocast copies", o->weights_cast,
            "2*P_matmul (16-bit weight casts, forward to "
            "backward)");
    row(2, "gradients", o->gradients, "%s%s", gname[r->regime], r->zero_stage >= 2 ? zs : "");

    const char *state;
    switch (r->optimizer) {
    case VT_OPT_SGD:
        state = "no state (sgd)";
        break;
    case VT_OPT_SGD_MOMENTUM:
        state = "4*P momentum";
        break;
    case VT_OPT_LION:
        state = "4*P momentum (lion)";
        break;
    case VT_OPT_ADAM8BIT:
        state = "2*P + 8*ceil(P/256) (8-bit m, v + absmax; per tensor, 8*n under 4096)";
        break;
    case VT_OPT_ADAFACTOR:
        state = "4*(rows+cols) per matrix + 4*n per vector (adafactor)";
        break;
    case VT_OPT_ADAFACTOR_BETA1:
        state = "4*(rows+cols) per matrix + 4*n per vector + 4*P (adafactor, beta1)";
        break;
    default:
        state = "8*P (adam m, v fp32)";
        break;
    }
    int master = r->regime == VT_REGIME_MIXED16 || r->regime == VT_REGIME_MEGATRON_BF16 ||
                 r->regime == VT_REGIME_MEGATRON_FP16;
    row(2, "optimizer", o->optimizer, "%s%s%s", master ? "4*P fp32 master + " : "", state,
        r->zero_stage >= 1 ? zs : "");

    if (is_transformer(r)) {
        row(2, "activations", o->activations, "layers + extra + logits");
        const char *ck = r->checkpointing == VT_CKPT_FULL        ? ", full checkpointing"
                         : r->checkpointing == VT_CKPT_SELECTIVE ? ", selective checkpointing"
                                                                 : "";
        char tp[64] = "";
        if (r->tp > 1)
            snprintf(tp, sizeof(tp), ", tp %" PRIu64 "%s", r->tp, r->sp ? " + sp" : "");
        row(4, "layers", o->act_layers, "L * %s per layer (%s%s%s%s)",
            vt_fmt_commas(o->act_layer, p, sizeof(p)), profile,
            r->flash_attention ? ", flash attention" : "", ck, tp);
        row(4, "extra", o->act_extra, "%" PRIu64 "*s*b*h (embedding%s)",
            o->act_extra / (r->seq * r->batch * r->hidden),
            r->family == VT_FAMILY_BERT
                ? (r->head == VT_HEAD_MLM ? " LN and dropout, MLM head" : " LN and dropout")
                : " dropout, final norm, LM-head input");
        if (o->act_logits)
            row(4, "logits", o->act_logits, "b*s*V*%" PRIu64, r->logits_bytes);
    } else {
        int amp = is_amp(r->regime);
        row(2, "activations", o->activations, "b*%s + %s (measured per sample + fixed%s)",
            vt_fmt_commas(amp ? r->cnn_amp_act_bytes_per_sample : r->cnn_act_bytes_per_sample, p,
                          sizeof(p)),
            vt_fmt_commas(amp ? r->cnn_amp_act_fixed : r->cnn_act_fixed, q, sizeof(q)),
            amp ? ", autocast" : "");
    }
    switch (r->family) {
    case VT_FAMILY_BERT:
        row(2, "data", o->data, "3*8*b*s%s (int64 ids, token types, mask%s)",
            r->head == VT_HEAD_CLS   ? " + 8*b"
            : r->head == VT_HEAD_MLM ? " + 8*b*s"
                                     : "",
            r->head == VT_HEAD_NONE ? "" : ", labels");
        break;
    case VT_FAMILY_GPT2:
    case VT_FAMILY_LLAMA:
        row(2, "data", o->data, "%s (int64 input_ids%s)",
            r->head == VT_HEAD_LM ? "2*8*b*s" : "8*b*s", r->head == VT_HEAD_LM ? ", labels" : "");
        break;
    case VT_FAMILY_CNN:
        row(2, "data", o->data,
            "b*(4*%" PRIu64 "*%" PRIu64 "*%" PRIu64 " + 8) (fp32 images, labels)", r->channels,
            r->image_size, r->image_size);
        break;
    default:
        row(2, "data", o->data, "b*%s", vt_fmt_commas(r->data_bytes_per_sample, p, sizeof(p)));
        break;
    }
    if (r->zero_stage >= 3)
        row(2, "zero3 gather", o->zero3_gather,
            "4*%s (16-bit params + grads of the largest "
            "layer)",
            vt_fmt_commas(o->largest_layer_params, p, sizeof(p)));
    row(2, "total", o->total, "sum");

    printf("apart from the total:\n");
    row(2, "overhead", o->overhead, "static: the parts below");
    row(4, "CUDA context", o->overhead_context, "cuda_context_bytes");
    row(4, "cuBLAS", o->overhead_cublas, "%" PRIu64 " workspaces of %s", r->n_cublas_ws,
        vt_fmt_commas(r->cublas_ws_bytes, p, sizeof(p)));
    if (o->overhead_nccl)
        row(4, "NCCL", o->overhead_nccl, "nccl_bytes");
    if (o->overhead_ddp)
        row(4, "DDP buckets", o->overhead_ddp, "a copy of the gradients");
    if (o->overhead_zero)
        row(4, "ZeRO buckets", o->overhead_zero, "2*%s elements, 16-bit",
            vt_fmt_commas(r->zero_bucket_elems, p, sizeof(p)));
    row(2, "transient", o->transient, "the largest of:");
    row(4, "logits backward", o->transient_logits, "8*b*s*V");
    row(4, "layer recompute", o->transient_recompute, "one layer rebuilt (full checkpointing)");
    row(4, "optimizer step", o->transient_step, "%s step",
        vt_budget_value_name("step_impl", r->step_impl));
    row(2, "peak estimate", o->peak, "max(forward-backward, step) + overhead");
}

/* ------------------------------------------------------------------ JSON */

static void json_naive(vt_json_t *j, const char *key, const vt_budget_naive_t *n)
{
    vt_json_begin_object(j, key);
    vt_json_uint(j, "weights", n->weights);
    vt_json_uint(j, "gradients", n->gradients);
    vt_json_uint(j, "optimizer", n->optimizer);
    vt_json_uint(j, "activations", n->activations);
    vt_json_uint(j, "data", n->data);
    vt_json_uint(j, "total", n->total);
    vt_json_end_object(j);
}

static void json_realistic(vt_json_t *j, const char *key, const vt_budget_realistic_t *o)
{
    vt_json_begin_object(j, key);
    vt_json_uint(j, "weights", o->weights + o->weights_cast);
    vt_json_uint(j, "gradients", o->gradients);
    vt_json_uint(j, "optimizer", o->optimizer);
    vt_json_uint(j, "activations", o->activations);
    vt_json_uint(j, "data", o->data);
    vt_json_uint(j, "total", o->total);
    vt_json_uint(j, "weights_cast", o->weights_cast);
    vt_json_uint(j, "zero3_gather", o->zero3_gather);
    vt_json_uint(j, "overhead", o->overhead);
    vt_json_uint(j, "transient", o->transient);
    vt_json_begin_object(j, "detail");
    vt_json_uint(j, "params", o->params);
    vt_json_uint(j, "p_matmul", o->p_matmul);
    vt_json_uint(j, "largest_layer_params", o->largest_layer_params);
    vt_json_uint(j, "activations_per_layer", o->act_layer);
    vt_json_uint(j, "activations_layers", o->act_layers);
    vt_json_uint(j, "activations_extra", o->act_extra);
    vt_json_uint(j, "activations_logits", o->act_logits);
    vt_json_uint(j, "overhead_context", o->overhead_context);
    vt_json_uint(j, "overhead_cublas", o->overhead_cublas);
    vt_json_uint(j, "overhead_nccl", o->overhead_nccl);
    vt_json_uint(j, "overhead_ddp", o->overhead_ddp);
    vt_json_uint(j, "overhead_zero_buckets", o->overhead_zero);
    vt_json_uint(j, "transient_logits", o->transient_logits);
    vt_json_uint(j, "transient_recompute", o->transient_recompute);
    vt_json_uint(j, "transient_step", o->transient_step);
    vt_json_uint(j, "peak", o->peak);
    vt_json_end_object(j);
    vt_json_end_object(j);
}

/* ------------------------------------------------------------------ what-if */

typedef struct remedy_s {
    const char *name;
    char change[96];
    int applicable;
    vt_budget_realistic_t result;
} remedy_t;

#define N_REMEDIES 7

/* Applies one remedy to a copy of the user's settings (the unresolved model m, so defaults
 * that hang on the changed key follow it) given the resolved baseline r. Returns 0, or -1 with
 * the message in err when the changed model does not compute. */
static int apply_remedy(int i, const vt_budget_model_t *m, const vt_budget_model_t *r,
                        remedy_t *out, char *err, size_t len)
{
    static const char *const names[N_REMEDIES] = {"smaller batch",   "gradient accumulation",
                                                  "mixed precision", "activation checkpointing",
                                                  "flash attention", "8-bit Adam",
                                                  "ZeRO-3"};
    vt_budget_model_t x = *m;
    char v1[32], v2[32];
    const char *k1 = NULL, *k2 = NULL;
    const char *na = NULL;
    int transformer = is_transformer(r);
    out->name = names[i];
    switch (i) {
    case 0:
        if (r->batch < 2) {
            na = "batch is 1";
            break;
        }
        k1 = "batch", snprintf(v1, sizeof(v1), "%" PRIu64, r->batch / 2);
        snprintf(out->change, sizeof(out->change), "batch %" PRIu64 " -> %" PRIu64, r->batch,
                 r->batch / 2);
        break;
    case 1: {
        if (r->batch < 2) {
            na = "batch is 1";
            break;
        }
        uint64_t micro = r->batch >= 8 ? r->batch / 4 : 1;
        uint64_t steps = (r->batch + micro - 1) / micro;
        k1 = "batch", snprintf(v1, sizeof(v1), "%" PRIu64, micro);
        snprintf(out->change, sizeof(out->change), "micro-batch %" PRIu64 " x %" PRIu64 " steps",
                 micro, steps);
        break;
    }
    case 2:
        if (r->regime != VT_REGIME_FP32) {
            na = "already 16-bit";
            break;
        }
        k1 = "regime", snprintf(v1, sizeof(v1), "torch_amp_bf16");
        if (x.act_profile == VT_PROFILE_IDEAL32)
            k2 = "act_profile", snprintf(v2, sizeof(v2), "ideal16");
        else if (x.act_profile == VT_PROFILE_FP32_EAGER)
            k2 = "act_profile", snprintf(v2, sizeof(v2), "torch_amp_eager");
        snprintf(out->change, sizeof(out->change), "regime fp32 -> torch_amp_bf16");
        break;
    case 3:
        if (!transformer) {
            na = "no layers to checkpoint";
            break;
        }
        if (r->checkpointing == VT_CKPT_FULL) {
            na = "already full";
            break;
        }
        k1 = "checkpointing", snprintf(v1, sizeof(v1), "full");
        snprintf(out->change, sizeof(out->change), "checkpointing %s -> full",
                 vt_budget_value_name("checkpointing", r->checkpointing));
        break;
    case 4:
        if (!transformer) {
            na = "no attention";
            break;
        }
        if (r->flash_attention) {
            na = "already on";
            break;
        }
        k1 = "flash_attention", snprintf(v1, sizeof(v1), "yes");
        snprintf(out->change, sizeof(out->change), "flash_attention no -> yes");
        break;
    case 5:
        if (r->optimizer != VT_OPT_ADAM) {
            na = "optimizer is not adam";
            break;
        }
        k1 = "optimizer", snprintf(v1, sizeof(v1), "adam8bit");
        snprintf(out->change, sizeof(out->change), "optimizer adam -> adam8bit");
        break;
    default: {
        if (r->zero_stage == 3) {
            na = "already ZeRO-3";
            break;
        }
        uint64_t dp = r->dp > 1 ? r->dp : 8;
        k1 = "zero_stage", snprintf(v1, sizeof(v1), "3");
        k2 = "dp", snprintf(v2, sizeof(v2), "%" PRIu64, dp);
        snprintf(out->change, sizeof(out->change), "zero_stage %" PRIu64 " -> 3, dp %" PRIu64,
                 r->zero_stage, dp);
        break;
    }
    }
    if (na) {
        out->applicable = 0;
        snprintf(out->change, sizeof(out->change), "n/a: %s", na);
        return 0;
    }
    vt_budget_t b;
    if (vt_budget_model_set(&x, "method", "realistic", err, len) != 0 ||
        vt_budget_model_set(&x, k1, v1, err, len) != 0 ||
        (k2 && vt_budget_model_set(&x, k2, v2, err, len) != 0) ||
        vt_budget_compute(&x, &b, err, len) != 0)
        return -1;
    out->applicable = 1;
    out->result = b.realistic;
    return 0;
}

static int what_if(const vt_budget_model_t *m, int json)
{
    char err[512];
    vt_budget_model_t base = *m, r;
    vt_budget_t b;
    if (vt_budget_model_set(&base, "method", "realistic", err, sizeof(err)) != 0 ||
        vt_budget_resolve(&base, &r, err, sizeof(err)) != 0 ||
        vt_budget_compute(&base, &b, err, sizeof(err)) != 0) {
        error("%s", err);
        return EXIT_USAGE;
    }
    remedy_t rem[N_REMEDIES];
    for (int i = 0; i < N_REMEDIES; i++) {
        memset(&rem[i], 0, sizeof(rem[i]));
        if (apply_remedy(i, &base, &r, &rem[i], err, sizeof(err)) != 0) {
            error("what-if '%s': %s", rem[i].name, err);
            return EXIT_USAGE;
        }
    }
    uint64_t total = b.realistic.total;
    if (json) {
        vt_json_t j;
        vt_json_init(&j, stdout);
        vt_json_begin_object(&j, NULL);
        vt_json_uint(&j, "baseline", total);
        vt_json_begin_array(&j, "remedies");
        for (int i = 0; i < N_REMEDIES; i++) {
            vt_json_begin_object(&j, NULL);
            vt_json_string(&j, "remedy", rem[i].name);
            vt_json_string(&j, "change", rem[i].change);
            if (rem[i].applicable) {
                vt_json_uint(&j, "total", rem[i].result.total);
                vt_json_int(&j, "saving", (int64_t)(total - rem[i].result.total));
            }
            vt_json_end_object(&j);
        }
        vt_json_end_array(&j);
        vt_json_end_object(&j);
        vt_json_finish(&j);
        return 0;
    }
    char c[32], bb[32], t[32], s[32];
    printf("what-if: the realistic total per GPU with each remedy alone; baseline %s B = %s\n",
           vt_fmt_commas(total, c, sizeof(c)), vt_fmt_binary(total, bb, sizeof(bb)));
    printf("  %-25s %-34s %11s %22s\n", "remedy", "change", "total", "saving");
    for (int i = 0; i < N_REMEDIES; i++) {
        if (!rem[i].applicable) {
            printf("  %-25s %s\n", rem[i].name, rem[i].change);
            continue;
        }
        int64_t saving = (int64_t)(total - rem[i].result.total);
        char pct[32];
        snprintf(pct, sizeof(pct), "(%.1f%%)",
                 total ? 100.0 * (double)saving / (double)total : 0.0);
        char sv[64];
        snprintf(sv, sizeof(sv), "%s %s", signed_binary(saving, s, sizeof(s)), pct);
        printf("  %-25s %-34s %11s %22s\n", rem[i].name, rem[i].change,
               vt_fmt_binary(rem[i].result.total, t, sizeof(t)), sv);
    }
    return 0;
}

/* ------------------------------------------------------------------ the command */

static void print_keys(void)
{
    const vt_budget_key_info_t *k;
    printf("%-29s %-44s %s\n", "key", "values", "default");
    for (size_t i = 0; (k = vt_budget_key_info(i)); i++)
        printf("%-29s %-44s %s\n", k->name, k->values, k->def);
}

/* Applies the collected settings in order; a message names where a bad one came from. */
static int apply_settings(vt_budget_model_t *m, const vt_kv_list_t *l)
{
    char err[512];
    for (size_t i = 0; i < l->n; i++) {
        const vt_kv_t *kv = &l->items[i];
        int rc = vt_budget_model_set(m, kv->key, kv->value, err, sizeof(err));
        if (rc != 0) {
            const char *hint = rc == -1 ? ". See 'vramtrace budget --keys'." : "";
            if (kv->file)
                error("%s ('%s' line %d)%s", err, kv->file, kv->line, hint);
            else
                error("%s%s", err, hint);
            return EXIT_USAGE;
        }
    }
    return 0;
}

int cmd_budget(int argc, char **argv)
{
    const char *model_file = NULL;
    int json = 0, whatif = 0, keys = 0, rc;
    char err[512];
    vt_kv_list_t args;
    vt_kv_list_init(&args);

    vt_args_t ar;
    vt_args_init(&ar, &spec, argc, argv);
    for (int opt; (opt = vt_args_next(&ar)) != VT_ARG_DONE;) {
        const char *a = ar.value;
        if (opt == VT_ARG_ERROR) {
            goto usage;
        } else if (opt == VT_ARG_HELP) {
            vt_args_help(&spec, stdout);
            vt_kv_list_release(&args);
            return 0;
        } else if (opt == OPT_JSON) {
            json = 1;
        } else if (opt == OPT_KEYS) {
            keys = 1;
        } else if (opt == OPT_WHAT_IF) {
            whatif = 1;
            const char *next = ar.next < argc ? argv[ar.next] : NULL;
            if (next && next[0] != '-' && !vt_kv_is_arg(next)) {
                if (model_file) {
                    error("'--what-if %s': a model file is already given", next);
                    goto usage;
                }
                model_file = argv[ar.next++];
            }
        } else if (opt == OPT_MODEL) {
            if (model_file) {
                error("only one model file, please: '%s' and '%s'", model_file, a);
                goto usage;
            }
            model_file = a;
        } else if (vt_kv_parse_arg(&args, a, err, sizeof(err)) != 0) {
            error("%s. See 'vramtrace budget --help'.", err);
            goto usage;
        }
    }
    if (keys) {
        vt_kv_list_release(&args);
        print_keys();
        return 0;
    }

    vt_kv_list_t all;
    vt_kv_list_init(&all);
    if (model_file) {
        rc = vt_kv_parse_file(&all, model_file, err, sizeof(err));
        if (rc != 0) {
            error("%s", err);
            vt_kv_list_release(&all);
            vt_kv_list_release(&args);
            return rc == -1 ? 1 : EXIT_USAGE;
        }
    }
    vt_budget_model_t m;
    vt_budget_model_init(&m);
    rc = apply_settings(&m, &all);
    if (rc == 0)
        rc = apply_settings(&m, &args); /* arguments override the file */
    vt_kv_list_release(&all);
    vt_kv_list_release(&args);
    if (rc != 0)
        return rc;

    if (whatif)
        return what_if(&m, json);

    vt_budget_model_t r;
    vt_budget_t b;
    if (vt_budget_resolve(&m, &r, err, sizeof(err)) != 0 ||
        vt_budget_compute(&m, &b, err, sizeof(err)) != 0) {
        error("%s", err);
        return EXIT_USAGE;
    }
    if (json) {
        vt_json_t j;
        vt_json_init(&j, stdout);
        if (b.method == VT_BUDGET_BOTH) {
            vt_json_begin_object(&j, NULL);
            json_naive(&j, "naive", &b.naive);
            json_realistic(&j, "realistic", &b.realistic);
            vt_json_end_object(&j);
        } else if (b.method == VT_BUDGET_NAIVE) {
            json_naive(&j, NULL, &b.naive);
        } else {
            json_realistic(&j, NULL, &b.realistic);
        }
        vt_json_finish(&j);
        return 0;
    }
    if (b.method & VT_BUDGET_NAIVE)
        print_naive(&r, &b.naive);
    if (b.method == VT_BUDGET_BOTH)
        putchar('\n');
    if (b.method & VT_BUDGET_REALISTIC)
        print_realistic(&r, &b.realistic);
    return 0;

usage:
    vt_kv_list_release(&args);
    return EXIT_USAGE;
}

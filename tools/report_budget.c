/* SPDX-License-Identifier: MIT */
/* `vramtrace report TRACE --budget MODEL` (report_budget.h): measured bytes at the device peak
 * next to the naive and realistic budgets, ratios, the realistic overhead and transient kept
 * apart, and a sentence for each category more than 20% off, from a table of explanations
 * keyed by category, model and direction. Text goes to stdout; errors are one line on stderr. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report_budget.h"
#include "trace_reader.h"
#include "units.h"
#include "util.h"

#define N_BUDGETED 5   /* weights..data: the categories a budget fills (vt_budget_categories) */
#define TOLERANCE  0.2 /* a note when measured is off by more than this share of the budget */

enum { M_NAIVE, M_REALISTIC, M_COUNT };
enum { D_ABOVE, D_BELOW };

static const char *const model_names[M_COUNT] = {"naive", "realistic"};

/* ------------------------------------------------------------------ loading the model */

int vt_report_budget_load(vt_report_budget_t *rb, const char *model_file, const vt_kv_list_t *args)
{
    char err[512];
    vt_kv_list_t all;
    vt_budget_model_t m;
    int rc;

    memset(rb, 0, sizeof(*rb));
    rb->model_file = model_file;
    vt_kv_list_init(&all);
    rc = vt_kv_parse_file(&all, model_file, err, sizeof(err));
    if (rc != 0) {
        error("%s", err);
        vt_kv_list_release(&all);
        return rc == -1 ? 1 : EXIT_USAGE;
    }
    vt_budget_model_init(&m);
    /* The file first, then the arguments over it, as `vramtrace budget` applies them. */
    for (int pass = 0; pass < 2; pass++) {
        const vt_kv_list_t *l = pass ? args : &all;
        for (size_t i = 0; i < l->n; i++) {
            const vt_kv_t *kv = &l->items[i];
            rc = vt_budget_model_set(&m, kv->key, kv->value, err, sizeof(err));
            if (rc == 0)
                continue;
            const char *hint = rc == -1 ? ". See 'vramtrace budget --keys'." : "";
            if (kv->file)
                error("%s ('%s' line %d)%s", err, kv->file, kv->line, hint);
            else
                error("%s%s", err, hint);
            vt_kv_list_release(&all);
            return EXIT_USAGE;
        }
    }
    vt_kv_list_release(&all);
    if (vt_budget_resolve(&m, &rb->resolved, err, sizeof(err)) != 0 ||
        vt_budget_compute(&m, &rb->budget, err, sizeof(err)) != 0) {
        error("%s", err);
        return EXIT_USAGE;
    }
    return 0;
}

/* ------------------------------------------------------------------ numbers */

static int have(const vt_report_budget_t *rb, int model)
{
    return (rb->budget.method & (model == M_NAIVE ? VT_BUDGET_NAIVE : VT_BUDGET_REALISTIC)) != 0;
}

/* The budget of category c (VT_CAT_*, or VT_CAT_COUNT for the total) under a model. Returns 1,
 * or 0 when that model was not computed or does not budget c (workspace, unknown). */
static int budget_of(const vt_report_budget_t *rb, int model, int c, uint64_t *out)
{
    const vt_budget_naive_t *n = &rb->budget.naive;
    const vt_budget_realistic_t *r = &rb->budget.realistic;
    if (!have(rb, model) || (c >= N_BUDGETED && c != VT_CAT_COUNT))
        return 0;
    if (c == VT_CAT_COUNT) {
        *out = model == M_NAIVE ? n->total : r->total;
        return 1;
    }
    if (model == M_NAIVE) {
        const uint64_t v[N_BUDGETED] = {n->weights, n->gradients, n->optimizer, n->activations,
                                        n->data};
        *out = v[c];
    } else {
        /* zero3_gather is in the realistic total but in no category: it is gathered weights. */
        const uint64_t v[N_BUDGETED] = {r->weights + r->weights_cast + r->zero3_gather,
                                        r->gradients, r->optimizer, r->activations, r->data};
        *out = v[c];
    }
    return 1;
}

static uint64_t measured_total(const uint64_t measured[VT_CAT_COUNT])
{
    uint64_t t = 0;
    for (int c = 0; c < VT_CAT_COUNT; c++)
        t += measured[c];
    return t;
}

/* measured / budget into buf: one decimal for text, up to three for JSON (trailing zeros
 * dropped); "—" (text) or "null" (JSON) when there is no budget or it is 0. */
static const char *ratio(int have_budget, uint64_t m, uint64_t b, int json, char *buf, size_t len)
{
    if (!have_budget || b == 0) {
        snprintf(buf, len, "%s", json ? "null" : "\u2014");
        return buf;
    }
    double x = (double)m / (double)b;
    if (!json) {
        snprintf(buf, len, "%.1f", x);
        return buf;
    }
    snprintf(buf, len, "%.3f", x);
    char *e = buf + strlen(buf);
    while (e[-1] == '0')
        *--e = '\0';
    if (e[-1] == '.')
        e[-1] = '\0';
    return buf;
}

/* D_ABOVE or D_BELOW when m is more than TOLERANCE away from b; -1 within it. A budget of 0
 * with something measured is above it. */
static int direction(uint64_t m, uint64_t b)
{
    if ((double)m > (1 + TOLERANCE) * (double)b)
        return D_ABOVE;
    if ((double)m < (1 - TOLERANCE) * (double)b)
        return D_BELOW;
    return -1;
}

/* ------------------------------------------------------------------ explanations */

enum {
    C_ANY,         /* always */
    C_AMP,         /* regime torch_amp_*: autocast keeps 16-bit weight copies */
    C_WIDE,        /* naive B < 4 while the regime keeps weights and gradients in fp32 */
    C_ADAM,        /* optimizer adam */
    C_STATEFUL,    /* an optimizer with state */
    C_TRANSFORMER, /* family bert, gpt2 or llama: activations from the layer formulas */
};

typedef struct explanation_s {
    int category, model, direction, condition;
    const char *text;
} explanation_t;

/* First match wins: the specific conditions come before C_ANY. Each names the assumption of
 * the estimate that the measured bytes contradict, and what in a real run usually does it. */
static const explanation_t explanations[] = {
    {VT_CAT_WEIGHTS, M_NAIVE, D_ABOVE, C_AMP,
     "autocast keeps fp16/bf16 copies of the weights next to the fp32 master, and the naive P*B "
     "counts one copy at B bytes"},
    {VT_CAT_WEIGHTS, M_NAIVE, D_ABOVE, C_WIDE,
     "the naive P*B counts each parameter at the dtype's B bytes; the weights are kept in fp32, "
     "4 bytes each"},
    {VT_CAT_WEIGHTS, -1, D_ABOVE, C_ANY,
     "more is resident than one copy of P parameters: buffers (normalization statistics, "
     "position ids), a second model on the GPU (EMA, teacher, reference), or more parameters "
     "than the model file says (check params)"},
    {VT_CAT_WEIGHTS, -1, D_BELOW, C_ANY,
     "fewer parameters are resident than P: sharded (ZeRO-3, FSDP) or offloaded to the CPU, "
     "frozen layers kept off the GPU, or fewer parameters than the model file says (check "
     "params)"},
    {VT_CAT_GRADIENTS, M_NAIVE, D_ABOVE, C_WIDE,
     "the naive P*B counts gradients at the dtype's B bytes; they are fp32 here, 4 bytes each"},
    {VT_CAT_GRADIENTS, -1, D_ABOVE, C_ANY,
     "more than one gradient per parameter: DDP's gradient buckets (a second copy unless "
     "gradient_as_bucket_view=True), fp32 main gradients next to 16-bit ones, or gradients of "
     "parameters meant to be frozen"},
    {VT_CAT_GRADIENTS, -1, D_BELOW, C_ANY,
     "gradients freed or not yet allocated at the peak (gradient accumulation, "
     "zero_grad(set_to_none=True), a peak in the forward pass before backward creates them), or "
     "sharded (ZeRO-2, FSDP)"},
    {VT_CAT_OPTIMIZER, M_NAIVE, D_ABOVE, C_ADAM,
     "Adam keeps two fp32 states per parameter (plus an fp32 master copy under mixed "
     "precision), while the naive n*P*B counts them at the dtype's B bytes"},
    {VT_CAT_OPTIMIZER, M_NAIVE, D_ABOVE, C_STATEFUL,
     "the optimizer keeps its states in fp32 (plus an fp32 master copy under mixed precision), "
     "while the naive n*P*B counts them at the dtype's B bytes"},
    {VT_CAT_OPTIMIZER, -1, D_ABOVE, C_ANY,
     "more than the optimizer's states: the step's temporaries at the peak (a foreach step "
     "allocates about 4*P for intermediate results), an fp32 master copy the regime leaves out, "
     "or states of parameters outside the model"},
    {VT_CAT_OPTIMIZER, -1, D_BELOW, C_ANY,
     "optimizer state missing at the peak: PyTorch creates it lazily in the first step(), so a "
     "peak in the first forward or backward pass has none; or it is sharded (ZeRO-1 and up) or "
     "offloaded to the CPU"},
    {VT_CAT_ACTIVATIONS, M_NAIVE, D_ABOVE, C_ANY,
     "the naive formula keeps one hidden vector per token per layer; attention scores, MLP "
     "intermediates and dropout masks are missing"},
    {VT_CAT_ACTIVATIONS, M_REALISTIC, D_ABOVE, C_TRANSFORMER,
     "more is saved than the activation profile assumes: a larger batch or sequence than the "
     "model file, eager kernels that save extra intermediates, attention without FlashAttention "
     "(s^2 scores), or freed blocks that a caching allocator keeps in its segments (a trace sees "
     "segments, not tensors)"},
    {VT_CAT_ACTIVATIONS, M_REALISTIC, D_ABOVE, C_ANY,
     "more is saved than the measured per-sample activations (cnn_act_bytes_per_sample) say: a "
     "larger batch than the model file, a per-sample figure measured on a smaller input or "
     "another precision, or freed blocks that a caching allocator keeps in its segments (a trace "
     "sees segments, not tensors)"},
    {VT_CAT_ACTIVATIONS, -1, D_BELOW, C_ANY,
     "less is live at the peak than one full forward pass saves: activation checkpointing, a "
     "peak outside forward and backward (in the optimizer step, after activations are freed), "
     "or a smaller batch or sequence than the model file"},
    {VT_CAT_DATA, M_NAIVE, D_ABOVE, C_ANY,
     "the naive b*s*B counts one B-byte value per token; real batches carry int64 ids, masks "
     "and labels, or whole feature vectors and images per sample"},
    {VT_CAT_DATA, M_REALISTIC, D_ABOVE, C_ANY,
     "pinned staging and prefetched batches: a loader that copies the next batch ahead "
     "(non_blocking copies, prefetching) keeps more than one batch on the device; or the batch "
     "is larger than the model file says"},
    {VT_CAT_DATA, -1, D_BELOW, C_ANY,
     "the batch is not all on the device at the peak (moved per micro-batch, freed before the "
     "peak) or is smaller than the model file says"},
};

static int condition_holds(const vt_report_budget_t *rb, int condition)
{
    const vt_budget_model_t *r = &rb->resolved;
    int amp = r->regime == VT_REGIME_TORCH_AMP_FP16 || r->regime == VT_REGIME_TORCH_AMP_BF16;
    switch (condition) {
    case C_AMP:
        return amp;
    case C_WIDE:
        return rb->budget.naive.bytes_per_param < 4 && (amp || r->regime == VT_REGIME_FP32);
    case C_ADAM:
        return r->optimizer == VT_OPT_ADAM;
    case C_STATEFUL:
        return r->optimizer != VT_OPT_SGD && r->optimizer != VT_OPT_ADAFACTOR;
    case C_TRANSFORMER:
        return r->family == VT_FAMILY_BERT || r->family == VT_FAMILY_GPT2 ||
               r->family == VT_FAMILY_LLAMA;
    default:
        return 1;
    }
}

static const char *explain(const vt_report_budget_t *rb, int c, int model, int dir)
{
    for (size_t i = 0; i < sizeof(explanations) / sizeof(explanations[0]); i++) {
        const explanation_t *e = &explanations[i];
        if (e->category == c && (e->model < 0 || e->model == model) && e->direction == dir &&
            condition_holds(rb, e->condition))
            return e->text;
    }
    return NULL;
}

/* "37.0x the naive 1.00 MiB", or "above the naive 0 B" for an empty budget. */
static void against(char *buf, size_t len, int model, uint64_t m, uint64_t b)
{
    char bb[32], rr[32];
    if (b == 0)
        snprintf(buf, len, "%s the %s budget of 0 B", m ? "above" : "at", model_names[model]);
    else
        snprintf(buf, len, "%s\u00d7 the %s %s", ratio(1, m, b, 0, rr, sizeof(rr)),
                 model_names[model], vt_fmt_binary(b, bb, sizeof(bb)));
}

/* The note on category c into buf, without the "category: " prefix. Returns 0 when there is
 * nothing to say (within 20% of both estimates, nothing measured and nothing budgeted). */
static int note(const vt_report_budget_t *rb, const uint64_t measured[VT_CAT_COUNT], int c,
                char *buf, size_t len)
{
    char mb[32], x[96], y[96], ov[32];
    uint64_t m = measured[c];
    vt_fmt_binary(m, mb, sizeof(mb));
    if (c == VT_CAT_WORKSPACE || c == VT_CAT_UNKNOWN) {
        if (!m)
            return 0;
        if (c == VT_CAT_UNKNOWN) {
            snprintf(buf, len,
                     "measured %s, no budget: memory the category rules could not place: see "
                     "'vramtrace rules --defaults' and 'vramtrace run --rules FILE'",
                     mb);
            return 1;
        }
        if (have(rb, M_REALISTIC))
            snprintf(buf, len,
                     "measured %s, no budget: library workspaces (cuBLAS, cuDNN) and scratch "
                     "buffers are outside the hand estimate; the realistic model counts cuBLAS's "
                     "(%s) in its overhead, not in the total",
                     mb, vt_fmt_binary(rb->budget.realistic.overhead_cublas, ov, sizeof(ov)));
        else
            snprintf(buf, len,
                     "measured %s, no budget: library workspaces (cuBLAS, cuDNN) and scratch "
                     "buffers are outside the hand estimate",
                     mb);
        return 1;
    }

    uint64_t bn = 0, br = 0;
    int hn = budget_of(rb, M_NAIVE, c, &bn), hr = budget_of(rb, M_REALISTIC, c, &br);
    int dn = hn ? direction(m, bn) : -1, dr = hr ? direction(m, br) : -1;
    int model, dir;
    if (dr >= 0)
        model = M_REALISTIC, dir = dr;
    else if (dn >= 0)
        model = M_NAIVE, dir = dn;
    else
        return 0;
    const char *why = explain(rb, c, model, dir);
    if (!why)
        return 0;
    x[0] = y[0] = '\0';
    if (hn)
        against(x, sizeof(x), M_NAIVE, m, bn);
    if (hr)
        against(y, sizeof(y), M_REALISTIC, m, br);
    snprintf(buf, len, "measured %s is %s%s%s: %s%s", mb, x, hn && hr ? " and " : "", y, why,
             model == M_NAIVE && hr ? "; the realistic estimate is within 20%" : "");
    return 1;
}

/* ------------------------------------------------------------------ text */

/* Prints s right-aligned in width columns, counting each UTF-8 character as one column. */
static void cell(const char *s, int width)
{
    int cols = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        cols += (*p & 0xc0) != 0x80;
    printf(" %*s%s", width > cols ? width - cols : 0, "", s);
}

static void table_row(const vt_report_budget_t *rb, const char *name, uint64_t m, int c)
{
    char b[32], r[32];
    printf("  %-12s", name);
    cell(vt_fmt_binary(m, b, sizeof(b)), 11);
    uint64_t v[M_COUNT] = {0, 0};
    int h[M_COUNT];
    for (int k = 0; k < M_COUNT; k++) {
        h[k] = budget_of(rb, k, c, &v[k]);
        cell(h[k] ? vt_fmt_binary(v[k], b, sizeof(b)) : "\u2014", 11);
    }
    cell(ratio(h[M_NAIVE], m, v[M_NAIVE], 0, r, sizeof(r)), 15);
    cell(ratio(h[M_REALISTIC], m, v[M_REALISTIC], 0, r, sizeof(r)), 19);
    putchar('\n');
}

void vt_report_budget_text(const vt_report_budget_t *rb, const uint64_t measured[VT_CAT_COUNT])
{
    const vt_budget_realistic_t *r = &rb->budget.realistic;
    char b1[32], b2[32], b3[32], b4[32], buf[1024];

    printf("\nmeasured at the peak versus the budget of '%s':\n", rb->model_file);
    printf("  %-12s", "category");
    cell("measured", 11);
    cell("naive", 11);
    cell("realistic", 11);
    cell("measured\u00f7naive", 15);
    cell("measured\u00f7realistic", 19);
    putchar('\n');
    for (int c = 0; c < VT_CAT_COUNT; c++)
        table_row(rb, vt_category_names[c], measured[c], c);
    table_row(rb, "total", measured_total(measured), VT_CAT_COUNT);
    if (have(rb, M_REALISTIC)) {
        printf("apart from the realistic total:\n");
        printf("  overhead  %11s: CUDA context %s, cuBLAS workspaces %s",
               vt_fmt_binary(r->overhead, b1, sizeof(b1)),
               vt_fmt_binary(r->overhead_context, b2, sizeof(b2)),
               vt_fmt_binary(r->overhead_cublas, b3, sizeof(b3)));
        if (r->overhead_nccl)
            printf(", NCCL %s", vt_fmt_binary(r->overhead_nccl, b2, sizeof(b2)));
        if (r->overhead_ddp)
            printf(", DDP buckets %s", vt_fmt_binary(r->overhead_ddp, b2, sizeof(b2)));
        if (r->overhead_zero)
            printf(", ZeRO buckets %s", vt_fmt_binary(r->overhead_zero, b2, sizeof(b2)));
        printf("\n  transient %11s: the largest of logits backward %s, layer recompute %s, "
               "optimizer step %s\n",
               vt_fmt_binary(r->transient, b1, sizeof(b1)),
               vt_fmt_binary(r->transient_logits, b2, sizeof(b2)),
               vt_fmt_binary(r->transient_recompute, b3, sizeof(b3)),
               vt_fmt_binary(r->transient_step, b4, sizeof(b4)));
    }
    int n_notes = 0;
    for (int c = 0; c < VT_CAT_COUNT; c++) {
        if (!note(rb, measured, c, buf, sizeof(buf)))
            continue;
        if (!n_notes++)
            printf("notes:\n");
        printf("  %s: %s.\n", vt_category_names[c], buf);
    }
    if (!n_notes)
        printf("notes: none: every category is within 20%% of its estimates\n");
}

/* ------------------------------------------------------------------ JSON */

void vt_report_budget_json(vt_json_t *j, const vt_report_budget_t *rb,
                           const uint64_t measured[VT_CAT_COUNT])
{
    const vt_budget_realistic_t *r = &rb->budget.realistic;
    char buf[1024];
    uint64_t v;

    vt_json_begin_object(j, "budget");
    vt_json_string(j, "model", rb->model_file);
    for (int k = 0; k < M_COUNT; k++) {
        if (!have(rb, k))
            continue;
        vt_json_begin_object(j, model_names[k]);
        for (int c = 0; c < N_BUDGETED; c++)
            if (budget_of(rb, k, c, &v))
                vt_json_uint(j, vt_category_names[c], v);
        if (budget_of(rb, k, VT_CAT_COUNT, &v))
            vt_json_uint(j, "total", v);
        if (k == M_REALISTIC) {
            vt_json_uint(j, "overhead", r->overhead);
            vt_json_uint(j, "transient", r->transient);
        }
        vt_json_end_object(j);
    }
    vt_json_begin_object(j, "ratios");
    for (int k = 0; k < M_COUNT; k++) {
        if (!have(rb, k))
            continue;
        vt_json_begin_object(j, model_names[k]);
        for (int c = 0; c <= VT_CAT_COUNT; c++) {
            int h = budget_of(rb, k, c, &v);
            uint64_t m = c == VT_CAT_COUNT ? measured_total(measured) : measured[c];
            vt_json_literal(j, c == VT_CAT_COUNT ? "total" : vt_category_names[c],
                            ratio(h, m, v, 1, buf, sizeof(buf)));
        }
        vt_json_end_object(j);
    }
    vt_json_end_object(j);
    vt_json_begin_array(j, "notes");
    for (int c = 0; c < VT_CAT_COUNT; c++) {
        if (!note(rb, measured, c, buf, sizeof(buf)))
            continue;
        vt_json_begin_object(j, NULL);
        vt_json_string(j, "category", vt_category_names[c]);
        vt_json_string(j, "text", buf);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
    vt_json_end_object(j);
}

/* ------------------------------------------------------------------ HTML */

static void html_row(FILE *out, const vt_report_budget_t *rb, const char *name, uint64_t m, int c)
{
    char b[32], r[32];
    uint64_t v[M_COUNT] = {0, 0};
    int h[M_COUNT];
    fprintf(out, "<tr><th>%s</th><td>%s</td>", name, vt_fmt_binary(m, b, sizeof(b)));
    for (int k = 0; k < M_COUNT; k++) {
        h[k] = budget_of(rb, k, c, &v[k]);
        fprintf(out, "<td>%s</td>", h[k] ? vt_fmt_binary(v[k], b, sizeof(b)) : "\u2014");
    }
    for (int k = 0; k < M_COUNT; k++)
        fprintf(out, "<td>%s</td>", ratio(h[k], m, v[k], 0, r, sizeof(r)));
    fputs("</tr>\n", out);
}

void vt_report_budget_html(FILE *out, const vt_report_budget_t *rb,
                           const uint64_t measured[VT_CAT_COUNT])
{
    const vt_budget_realistic_t *r = &rb->budget.realistic;
    char b1[32], b2[32], b3[32], buf[1024];

    fputs("<section id=\"budget\"><h2>Measured versus budget</h2>\n<p>The peak's categories next "
          "to the estimates of model file <code>",
          out);
    vt_xml_text(out, rb->model_file);
    fputs("</code> (<code>vramtrace budget</code>).</p>\n<table class=\"num\"><thead><tr>"
          "<th>category</th><th>measured</th><th>naive</th><th>realistic</th>"
          "<th>measured\u00f7naive</th><th>measured\u00f7realistic</th></tr></thead><tbody>\n",
          out);
    for (int c = 0; c < VT_CAT_COUNT; c++)
        html_row(out, rb, vt_category_names[c], measured[c], c);
    fputs("</tbody><tfoot>\n", out);
    html_row(out, rb, "total", measured_total(measured), VT_CAT_COUNT);
    fputs("</tfoot></table>\n", out);
    if (have(rb, M_REALISTIC))
        fprintf(out,
                "<p>Apart from the realistic total: overhead %s (CUDA context %s, cuBLAS "
                "workspaces %s), transient %s.</p>\n",
                vt_fmt_binary(r->overhead, b1, sizeof(b1)),
                vt_fmt_binary(r->overhead_context, b2, sizeof(b2)),
                vt_fmt_binary(r->overhead_cublas, b3, sizeof(b3)),
                vt_fmt_binary(r->transient, buf, sizeof(buf)));
    int n_notes = 0;
    for (int c = 0; c < VT_CAT_COUNT; c++) {
        if (!note(rb, measured, c, buf, sizeof(buf)))
            continue;
        if (!n_notes++)
            fputs("<ul class=\"notes\">\n", out);
        fprintf(out, "<li><b>%s</b>: ", vt_category_names[c]);
        vt_xml_text(out, buf);
        fputs(".</li>\n", out);
    }
    if (n_notes)
        fputs("</ul>\n", out);
    else
        fputs("<p>Every category is within 20% of its estimates.</p>\n", out);
    fputs("</section>\n", out);
}

/* SPDX-License-Identifier: MIT */
/* The budget vectors (vectors.txt beside this file), one case per
 * run: `test_budget FILE ID` computes the line ID and compares every expected field, exactly to
 * the byte; `test_budget --unit` checks key parsing, the kv reader and the JSON writer. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "json.h"
#include "kv.h"
#include "vt_test.h"

#define MAX_TOKENS 96

typedef struct field_s {
    const char *name;
    size_t off;
} field_t;

#define NF(f)                                                                                      \
    {                                                                                              \
#        f, offsetof(vt_budget_naive_t, f)                                                         \
    }
static const field_t naive_fields[] = {NF(params),      NF(weights), NF(gradients), NF(optimizer),
                                       NF(activations), NF(data),    NF(total)};
#define RF(f)                                                                                      \
    {                                                                                              \
#        f, offsetof(vt_budget_realistic_t, f)                                                     \
    }
static const field_t realistic_fields[] = {RF(params),
                                           RF(p_matmul),
                                           RF(largest_layer_params),
                                           RF(weights),
                                           RF(weights_cast),
                                           RF(gradients),
                                           RF(optimizer),
                                           RF(zero3_gather),
                                           RF(act_layer),
                                           RF(act_layers),
                                           RF(act_extra),
                                           RF(act_logits),
                                           RF(activations),
                                           RF(data),
                                           RF(total),
                                           RF(overhead),
                                           RF(transient),
                                           RF(transient_logits),
                                           RF(transient_recompute),
                                           RF(transient_step),
                                           RF(peak)};

/* A computed vector: name -> bytes. */
typedef struct values_s {
    const char *names[64];
    uint64_t v[64];
    int n;
} values_t;

static void put(values_t *vals, const char *name, uint64_t v)
{
    vals->names[vals->n] = name;
    vals->v[vals->n++] = v;
}

static int get(const values_t *vals, const char *name, uint64_t *v)
{
    for (int i = 0; i < vals->n; i++)
        if (strcmp(vals->names[i], name) == 0)
            return *v = vals->v[i], 0;
    return -1;
}

static uint64_t num(const char *s)
{
    return strtoull(s, NULL, 10);
}

/* Finds `key=` among the inputs; returns its value or NULL. */
static const char *input(char **in, int n_in, const char *key)
{
    size_t len = strlen(key);
    for (int i = 0; i < n_in; i++)
        if (strncmp(in[i], key, len) == 0 && in[i][len] == '=')
            return in[i] + len + 1;
    return NULL;
}

static int run_budget(char **in, int n_in, values_t *vals)
{
    static vt_budget_t b;
    vt_budget_model_t m;
    char err[512];
    vt_budget_model_init(&m);
    for (int i = 0; i < n_in; i++) {
        char *eq = strchr(in[i], '=');
        *eq = '\0';
        int rc = vt_budget_model_set(&m, in[i], eq + 1, err, sizeof(err));
        *eq = '=';
        if (rc != 0)
            return fprintf(stderr, "input: %s\n", err), -1;
    }
    if (vt_budget_compute(&m, &b, err, sizeof(err)) != 0)
        return fprintf(stderr, "compute: %s\n", err), -1;
    static char names[64][48];
    int k = 0;
    for (size_t i = 0; i < sizeof(naive_fields) / sizeof(naive_fields[0]); i++, k++) {
        snprintf(names[k], sizeof(names[k]), "naive.%s", naive_fields[i].name);
        put(vals, names[k], *(const uint64_t *)((const char *)&b.naive + naive_fields[i].off));
    }
    for (size_t i = 0; i < sizeof(realistic_fields) / sizeof(realistic_fields[0]); i++, k++) {
        snprintf(names[k], sizeof(names[k]), "realistic.%s", realistic_fields[i].name);
        put(vals, names[k],
            *(const uint64_t *)((const char *)&b.realistic + realistic_fields[i].off));
    }
    put(vals, "realistic.states",
        b.realistic.weights + b.realistic.gradients + b.realistic.optimizer);
    return 0;
}

static int run_layer(char **in, int n_in, values_t *vals)
{
    vt_budget_model_t m;
    char err[512];
    vt_budget_model_init(&m);
    for (int i = 0; i < n_in; i++) {
        char *eq = strchr(in[i], '=');
        *eq = '\0';
        int rc = vt_budget_model_set(&m, in[i], eq + 1, err, sizeof(err));
        *eq = '=';
        if (rc != 0)
            return fprintf(stderr, "input: %s\n", err), -1;
    }
    /* The per-layer keys as `budget` reads them; the defaults of a GPT-style layer. */
    vt_budget_layer_t l = {0};
    l.s = m.seq, l.b = m.batch, l.h = m.hidden, l.a = m.heads;
    l.kv = input(in, n_in, "kv_heads") ? m.kv_heads : m.heads;
    l.f = m.ffn, l.profile = m.act_profile;
    l.d_attn = m.dropout_attn != 0, l.d_hid = m.dropout_hidden != 0;
    l.gated = m.gated_mlp > 0, l.flash = m.flash_attention > 0, l.sp = m.sp > 0;
    l.ckpt = m.checkpointing, l.t = m.tp ? m.tp : 1;
    l.n_qkv = m.n_qkv_linears ? m.n_qkv_linears : 3;
    l.act_extra = m.activation == VT_ACT_GELU_NEW ? 48 : 0;
    uint64_t stored, transient;
    if (vt_budget_layer(&l, &stored, &transient) != 0)
        return fprintf(stderr, "layer overflows\n"), -1;
    put(vals, "stored", stored);
    put(vals, "transient", transient);
    return 0;
}

static int run_tool(const char *kind, char **in, int n_in, values_t *vals)
{
    uint64_t gpu = 0, cpu = 0;
    const char *P = input(in, n_in, "P");
    if (strcmp(kind, "ds_zero2") == 0) {
        vt_budget_ds_zero2(num(P), num(input(in, n_in, "gpn")), num(input(in, n_in, "nodes")),
                           (int)num(input(in, n_in, "offload")), (int)num(input(in, n_in, "old")),
                           &gpu, &cpu);
    } else if (strcmp(kind, "ds_zero3") == 0) {
        const char *o = input(in, n_in, "offload");
        vt_ds_offload_t off = strcmp(o, "optimizer") == 0         ? VT_DS_OFFLOAD_OPTIMIZER
                              : strcmp(o, "param_optimizer") == 0 ? VT_DS_OFFLOAD_PARAM_OPTIMIZER
                                                                  : VT_DS_OFFLOAD_NONE;
        vt_budget_ds_zero3(num(P), num(input(in, n_in, "lmax")), num(input(in, n_in, "gpn")),
                           num(input(in, n_in, "nodes")), off,
                           (int)num(input(in, n_in, "zero_init")), &gpu, &cpu);
    } else if (strcmp(kind, "accelerate") == 0) {
        uint64_t total = num(input(in, n_in, "total_size"));
        put(vals, "total", total);
        put(vals, "adam", vt_budget_accelerate_adam(total, (int)num(input(in, n_in, "half16"))));
        return 0;
    } else {
        return fprintf(stderr, "unknown kind '%s'\n", kind), -1;
    }
    put(vals, "gpu", gpu);
    put(vals, "cpu", cpu);
    return 0;
}

/* Compares one `field=expected`; a field ending _mib/_gib compares two decimals. */
static void check(const char *id, const values_t *vals, char *tok)
{
    char *eq = strchr(tok, '=');
    if (!eq) {
        VT_CHECK(id, !"expectation without '='");
        return;
    }
    *eq = '\0';
    const char *want = eq + 1;
    char name[64], label[160];
    snprintf(name, sizeof(name), "%s", tok);
    snprintf(label, sizeof(label), "%s %s", id, tok);
    size_t len = strlen(name);
    double unit = 0;
    if (len > 4 && strcmp(name + len - 4, "_mib") == 0)
        unit = 1048576.0, name[len - 4] = '\0';
    else if (len > 4 && strcmp(name + len - 4, "_gib") == 0)
        unit = 1073741824.0, name[len - 4] = '\0';
    uint64_t got;
    if (get(vals, name, &got) != 0) {
        fprintf(stderr, "%s: no field '%s'\n", id, name);
        VT_CHECK(label, 0);
        return;
    }
    if (unit) {
        char buf[64];
        snprintf(buf, sizeof(buf), "%.2f", (double)got / unit);
        if (strcmp(buf, want) != 0)
            fprintf(stderr, "%s: %s is %s, want %s\n", id, tok, buf, want);
        VT_CHECK(label, strcmp(buf, want) == 0);
    } else {
        VT_CHECK_EQ(label, got, num(want));
    }
}

static int run_vector(const char *path, const char *id)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return perror(path), 2;
    static char line[8192];
    while (fgets(line, sizeof(line), f)) {
        char *tok[MAX_TOKENS];
        int n = 0;
        for (char *t = strtok(line, " \t\n"); t && n < MAX_TOKENS; t = strtok(NULL, " \t\n"))
            tok[n++] = t;
        if (n < 2 || tok[0][0] == '#' || strcmp(tok[0], id) != 0)
            continue;
        fclose(f);
        int colon;
        for (colon = 2; colon < n && strcmp(tok[colon], ":") != 0; colon++)
            ;
        values_t vals = {0};
        int rc;
        if (strcmp(tok[1], "budget") == 0)
            rc = run_budget(tok + 2, colon - 2, &vals);
        else if (strcmp(tok[1], "layer") == 0)
            rc = run_layer(tok + 2, colon - 2, &vals);
        else
            rc = run_tool(tok[1], tok + 2, colon - 2, &vals);
        VT_CHECK(id, rc == 0);
        if (rc == 0)
            for (int i = colon + 1; i < n; i++)
                check(id, &vals, tok[i]);
        VT_CHECK("at least one expectation", colon + 1 < n);
        return vt_test_done();
    }
    fclose(f);
    fprintf(stderr, "no vector '%s' in %s\n", id, path);
    return 2;
}

/* ------------------------------------------------------------------ unit checks */

static int set(vt_budget_model_t *m, const char *k, const char *v)
{
    char err[256];
    return vt_budget_model_set(m, k, v, err, sizeof(err));
}

static void unit_numbers(void)
{
    vt_budget_model_t m;
    vt_budget_model_init(&m);
    VT_CHECK("110M", set(&m, "params", "110M") == 0 && m.params == 110000000);
    VT_CHECK("7B", set(&m, "params", "7B") == 0 && m.params == 7000000000);
    VT_CHECK("7G", set(&m, "params", "7G") == 0 && m.params == 7000000000);
    VT_CHECK("6.74B", set(&m, "params", "6.74B") == 0 && m.params == 6740000000);
    VT_CHECK("1.5K", set(&m, "params", "1.5K") == 0 && m.params == 1500);
    VT_CHECK("1.2345K not whole", set(&m, "params", "1.2345K") == -2);
    VT_CHECK("12x", set(&m, "params", "12x") == -2);
    VT_CHECK("empty", set(&m, "params", "") == -2);
    VT_CHECK("huge", set(&m, "params", "99999999999999999999") == -2);
    VT_CHECK("300MiB",
             set(&m, "cuda_context_bytes", "300MiB") == 0 && m.cuda_context_bytes == 314572800);
    VT_CHECK("1GB", set(&m, "nccl_bytes", "1GB") == 0 && m.nccl_bytes == 1000000000);
    /* Byte keys take the one size grammar: B is bytes there, G a power of 1024. */
    VT_CHECK("7B bytes", set(&m, "nccl_bytes", "7B") == 0 && m.nccl_bytes == 7);
    VT_CHECK("8G bytes", set(&m, "nccl_bytes", "8G") == 0 && m.nccl_bytes == 8ULL << 30);
    VT_CHECK("1.5gib bytes", set(&m, "nccl_bytes", "1.5gib") == 0 && m.nccl_bytes == 3ULL << 29);
    VT_CHECK("7X bytes", set(&m, "nccl_bytes", "7X") == -2);
    VT_CHECK("batch 0", set(&m, "batch", "0") == -2);
    VT_CHECK("batch 1K", set(&m, "batch", "1K") == -2);
    VT_CHECK("zero_stage 4", set(&m, "zero_stage", "4") == -2);
    VT_CHECK("zero_stage 3", set(&m, "zero_stage", "3") == 0 && m.zero_stage == 3);
    VT_CHECK("bool yes", set(&m, "sp", "YES") == 0 && m.sp == 1);
    VT_CHECK("bool off", set(&m, "sp", "off") == 0 && m.sp == 0);
    VT_CHECK("bool bad", set(&m, "sp", "maybe") == -2);
    VT_CHECK("enum",
             set(&m, "regime", "megatron_fp16") == 0 && m.regime == VT_REGIME_MEGATRON_FP16);
    VT_CHECK("enum bad", set(&m, "regime", "fp64") == -2);
    VT_CHECK("ckpt none", set(&m, "checkpointing", "none") == 0 && m.checkpointing == VT_CKPT_NONE);
    VT_CHECK("head cls:5",
             set(&m, "head", "cls:5") == 0 && m.head == VT_HEAD_CLS && m.n_labels == 5);
    VT_CHECK("head cls:0", set(&m, "head", "cls:0") == -2);
    VT_CHECK("dtype bf16", set(&m, "dtype", "bf16") == 0 && m.dtype_bytes == 2 && m.dtype_bf16);
    VT_CHECK("unknown key", set(&m, "bacth", "1") == -1);
    VT_CHECK_EQ("value name", strcmp(vt_budget_value_name("regime", VT_REGIME_MIXED16), "mixed16"),
                0);
}

static void unit_resolve(void)
{
    vt_budget_model_t m, r;
    char err[256];
    vt_budget_model_init(&m);
    set(&m, "method", "naive");
    VT_CHECK("naive needs params",
             vt_budget_resolve(&m, &r, err, sizeof(err)) == -1 && strstr(err, "'params'"));
    set(&m, "params", "1M");
    set(&m, "batch", "1");
    set(&m, "seq", "1");
    set(&m, "hidden", "1");
    VT_CHECK("naive needs layers",
             vt_budget_resolve(&m, &r, err, sizeof(err)) == -1 && strstr(err, "'layers'"));
    set(&m, "layers", "1");
    VT_CHECK("naive ok", vt_budget_resolve(&m, &r, err, sizeof(err)) == 0);
    VT_CHECK("default dtype fp16", r.dtype_bytes == 2);
    set(&m, "method", "both");
    VT_CHECK("realistic needs family",
             vt_budget_resolve(&m, &r, err, sizeof(err)) == -1 && strstr(err, "'family'"));
    set(&m, "family", "gpt2");
    VT_CHECK("gpt2 needs heads",
             vt_budget_resolve(&m, &r, err, sizeof(err)) == -1 && strstr(err, "'heads'"));
    set(&m, "heads", "2");
    set(&m, "vocab", "10");
    VT_CHECK("heads divide hidden", vt_budget_resolve(&m, &r, err, sizeof(err)) == -1);
    set(&m, "heads", "1");
    VT_CHECK("gpt2 ok", vt_budget_resolve(&m, &r, err, sizeof(err)) == 0);
    VT_CHECK("gpt2 defaults", r.head == VT_HEAD_LM && r.ffn == 4 && r.max_pos == 1024 &&
                                  r.regime == VT_REGIME_TORCH_AMP_FP16 &&
                                  r.act_profile == VT_PROFILE_TORCH_AMP_EAGER &&
                                  r.logits_bytes == 6 && r.activation == VT_ACT_GELU_NEW);
    set(&m, "head", "mlm");
    VT_CHECK("gpt2 has no mlm", vt_budget_resolve(&m, &r, err, sizeof(err)) == -1);

    /* The llama ffn default: 2/3 of 4h up to a multiple of 256 gives Llama-2-7B's 11008. */
    vt_budget_model_init(&m);
    set(&m, "family", "llama"), set(&m, "layers", "32"), set(&m, "hidden", "4096");
    set(&m, "heads", "32"), set(&m, "vocab", "32000"), set(&m, "batch", "1");
    set(&m, "seq", "1"), set(&m, "method", "realistic");
    VT_CHECK("llama ok", vt_budget_resolve(&m, &r, err, sizeof(err)) == 0);
    VT_CHECK_EQ("llama ffn", r.ffn, 11008);
    VT_CHECK("llama untied, gated, no dropout",
             !r.tied_embeddings && r.gated_mlp && !r.dropout_attn && !r.dropout_hidden);

    /* Overflow is an error, not a wrapped number. */
    set(&m, "batch", "1000000000"), set(&m, "seq", "1000000000");
    vt_budget_t b;
    VT_CHECK("overflow",
             vt_budget_compute(&m, &b, err, sizeof(err)) == -1 && strstr(err, "overflows"));
}

static void unit_kv(void)
{
    char path[] = "/tmp/vt_budget_kv_XXXXXX", err[256];
    int fd = mkstemp(path);
    VT_CHECK("mkstemp", fd >= 0);
    if (fd < 0)
        return;
    const char text[] = "# a comment\n\n  batch = 32   # trailing\nseq=512\nhead = cls:2\n";
    VT_CHECK("write", write(fd, text, sizeof(text) - 1) == (ssize_t)(sizeof(text) - 1));
    close(fd);
    vt_kv_list_t l;
    vt_kv_list_init(&l);
    VT_CHECK("parse file", vt_kv_parse_file(&l, path, err, sizeof(err)) == 0);
    VT_CHECK_EQ("three settings", l.n, 3);
    VT_CHECK("batch", l.n == 3 && strcmp(l.items[0].key, "batch") == 0 &&
                          strcmp(l.items[0].value, "32") == 0 && l.items[0].line == 3);
    VT_CHECK("head", l.n == 3 && strcmp(l.items[2].value, "cls:2") == 0);
    VT_CHECK("arg", vt_kv_parse_arg(&l, "dp=8", err, sizeof(err)) == 0 && l.n == 4);
    VT_CHECK("arg without value", vt_kv_parse_arg(&l, "dp=", err, sizeof(err)) == -2);
    VT_CHECK("arg with space", vt_kv_parse_arg(&l, "dp = 8", err, sizeof(err)) == -2);
    VT_CHECK("not an arg", vt_kv_parse_arg(&l, "model.txt", err, sizeof(err)) == -2);
    VT_CHECK("is_arg", vt_kv_is_arg("a_b=1") && !vt_kv_is_arg("x.model") && !vt_kv_is_arg("=1"));
    vt_kv_list_release(&l);

    FILE *f = fopen(path, "w");
    fputs("batch 32\n", f);
    fclose(f);
    VT_CHECK("bad line",
             vt_kv_parse_file(&l, path, err, sizeof(err)) == -2 && strstr(err, "line 1"));
    vt_kv_list_release(&l);
    unlink(path);
    VT_CHECK("missing file",
             vt_kv_parse_file(&l, path, err, sizeof(err)) == -1 && strstr(err, "cannot open"));
}

static void unit_json(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    vt_json_t j;
    vt_json_init(&j, f);
    vt_json_begin_object(&j, NULL);
    vt_json_uint(&j, "a", 18446744073709551615ull);
    vt_json_string(&j, "s", "q\"\\\n\x01");
    vt_json_begin_array(&j, "e");
    vt_json_end_array(&j);
    vt_json_begin_array(&j, "l");
    vt_json_int(&j, NULL, -5);
    vt_json_end_array(&j);
    vt_json_end_object(&j);
    vt_json_finish(&j);
    fclose(f);
    const char *want = "{\n  \"a\": 18446744073709551615,\n  \"s\": \"q\\\"\\\\\\n\\u0001\",\n"
                       "  \"e\": [],\n  \"l\": [\n    -5\n  ]\n}\n";
    VT_CHECK("json", strcmp(buf, want) == 0);
    if (strcmp(buf, want) != 0)
        fprintf(stderr, "got:\n%s", buf);
    free(buf);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--unit") == 0) {
        unit_numbers();
        unit_resolve();
        unit_kv();
        unit_json();
        return vt_test_done();
    }
    if (argc != 3) {
        fprintf(stderr, "usage: test_budget VECTORS ID | --unit\n");
        return 2;
    }
    return run_vector(argv[1], argv[2]);
}

/* SPDX-License-Identifier: MIT */
/* The category rules of common/rules.c: the glob matcher, the parser's acceptance and its error
 * messages (line and what is wrong), and that the built-in defaults parse and say what the
 * issue asks of them. */
#include <string.h>
#include "vt_categories.h"
#include "vt_test.h"

static vt_rules_t rules;

static int parse(const char *text, char *err, size_t cap)
{
    return vt_rules_parse(&rules, text, strlen(text), err, cap);
}

static void test_glob(void)
{
    VT_CHECK("literal", vt_glob_match("abc", "abc"));
    VT_CHECK("literal mismatch", !vt_glob_match("abc", "abd"));
    VT_CHECK("whole string", !vt_glob_match("abc", "abcd"));
    VT_CHECK("star", vt_glob_match("*", ""));
    VT_CHECK("star any", vt_glob_match("a*c", "abbbc"));
    VT_CHECK("star empty", vt_glob_match("a*c", "ac"));
    VT_CHECK("two stars", vt_glob_match("*torch/optim/*", "/usr/lib/torch/optim/adam.py:step"));
    VT_CHECK("backtracking", vt_glob_match("*ab*abc", "xxabyyababc"));
    VT_CHECK("backtracking fails", !vt_glob_match("*ab*abd", "xxabyyababc"));
    VT_CHECK("question", vt_glob_match("a?c", "abc"));
    VT_CHECK("question needs a char", !vt_glob_match("a?c", "ac"));
    VT_CHECK("class", vt_glob_match("[abc]x", "bx"));
    VT_CHECK("class miss", !vt_glob_match("[abc]x", "dx"));
    VT_CHECK("range", vt_glob_match("v[0-9]", "v7"));
    VT_CHECK("negated class", vt_glob_match("[!0-9]", "x"));
    VT_CHECK("negated class miss", !vt_glob_match("[!0-9]", "5"));
    VT_CHECK("unterminated class is literal", vt_glob_match("a[b", "a[b"));
    VT_CHECK("case-insensitive", vt_glob_match("*Weight*", "alloc_weights"));
    VT_CHECK("case-insensitive class", vt_glob_match("[A-C]", "b"));
    VT_CHECK("trailing stars", vt_glob_match("abc**", "abc"));
}

static void test_parse(void)
{
    char err[128];
    VT_CHECK_EQ(
        "valid",
        parse("# comment\n\nweights func:*weight*\n  data   py:*load*  \n", err, sizeof err), 0);
    VT_CHECK_EQ("two rules", rules.n_rules, 2);
    VT_CHECK_EQ("first category", rules.rules[0].category, VT_CAT_WEIGHTS);
    VT_CHECK_EQ("first field", rules.rules[0].field, VT_FIELD_FUNC);
    VT_CHECK("first glob", strcmp(vt_rule_glob(&rules, 0), "*weight*") == 0);
    VT_CHECK_EQ("second line number", rules.rules[1].line, 4);
    VT_CHECK("second glob trimmed", strcmp(vt_rule_glob(&rules, 1), "*load*") == 0);
    VT_CHECK_EQ("fields used", rules.fields_used, (1u << VT_FIELD_FUNC) | (1u << VT_FIELD_PY));
    VT_CHECK_EQ("every field name",
                parse("unknown func:a\nunknown module:a\nunknown file:a\nunknown py:a\n"
                      "unknown phase:a\nunknown thread:a\nunknown api:a\n",
                      err, sizeof err),
                0);
    VT_CHECK_EQ("every category name",
                parse("weights api:a\ngradients api:a\noptimizer api:a\n"
                      "activations api:a\ndata api:a\nworkspace api:a\n"
                      "unknown api:a\n",
                      err, sizeof err),
                0);
    VT_CHECK_EQ("glob may contain ':'", parse("data py:*train.py:load_batch\n", err, sizeof err),
                0);
    VT_CHECK("colon glob", strcmp(vt_rule_glob(&rules, 0), "*train.py:load_batch") == 0);
    VT_CHECK_EQ("empty text", parse("", err, sizeof err), 0);
    VT_CHECK_EQ("no rules", rules.n_rules, 0);
    VT_CHECK_EQ("no final newline", parse("data api:x", err, sizeof err), 0);

    VT_CHECK_EQ("bad category line", parse("weights func:a\nweight func:a\n", err, sizeof err), 2);
    VT_CHECK("bad category message", strcmp(err, "unknown category 'weight'") == 0);
    VT_CHECK_EQ("bad field", parse("data function:x\n", err, sizeof err), 1);
    VT_CHECK("bad field message", strcmp(err, "unknown field 'function'") == 0);
    VT_CHECK_EQ("no field", parse("data\n", err, sizeof err), 1);
    VT_CHECK("no field message", strcmp(err, "expected '<field>:<glob>' after the category") == 0);
    VT_CHECK_EQ("no colon", parse("# x\ndata func\n", err, sizeof err), 2);
    VT_CHECK_EQ("empty glob", parse("data func:\n", err, sizeof err), 1);
    VT_CHECK("empty glob message", strcmp(err, "empty glob") == 0);
    VT_CHECK_EQ("trailing text", parse("data func:a b\n", err, sizeof err), 1);
    VT_CHECK("trailing text message", strcmp(err, "unexpected text after the glob ' b'") == 0);
    VT_CHECK_EQ("truncated message fits", parse("weight func:a\n", err, 8), 1);
    VT_CHECK("truncated", strlen(err) == 7);

    static char many[300 * 16];
    size_t used = 0;
    for (int i = 0; i < 257; i++)
        used += (size_t)snprintf(many + used, sizeof many - used, "data api:%d\n", i);
    VT_CHECK_EQ("257 rules", parse(many, err, sizeof err), 257);
    VT_CHECK("too many message", strstr(err, "too many rules") != NULL);
}

static void test_defaults(void)
{
    char err[128];
    VT_CHECK_EQ("defaults parse",
                vt_rules_parse(&rules, vt_default_rules, strlen(vt_default_rules), err, sizeof err),
                0);
    VT_CHECK("defaults are not trivial", rules.n_rules > 30);
    /* What the issue names: PyTorch optimizer, weights, backward, data loader, library
     * workspaces, and native naming; the first match of an example decides. */
    struct {
        int field;
        const char *subject;
        int want;
    } cases[] = {
        {VT_FIELD_PY, "/usr/lib/python3/site-packages/torch/optim/adam.py:step", VT_CAT_OPTIMIZER},
        {VT_FIELD_PY, "/x/torch/nn/modules/module.py:_apply", VT_CAT_WEIGHTS},
        {VT_FIELD_PY, "/x/torch/nn/modules/module.py:load_state_dict", VT_CAT_WEIGHTS},
        {VT_FIELD_PY, "/x/torch/utils/data/dataloader.py:__next__", VT_CAT_DATA},
        {VT_FIELD_PY, "/x/torch/nn/modules/module.py:_call_impl", VT_CAT_ACTIVATIONS},
        {VT_FIELD_THREAD, "pt_autograd_0", VT_CAT_GRADIENTS},
        {VT_FIELD_FUNC, "_ZN5torch8autograd14AccumulateGrad5applyEv", VT_CAT_GRADIENTS},
        {VT_FIELD_MODULE, "libcublasLt.so.13", VT_CAT_WORKSPACE},
        {VT_FIELD_MODULE, "libnccl.so.2", VT_CAT_WORKSPACE},
        {VT_FIELD_FUNC, "alloc_weights", VT_CAT_WEIGHTS},
        {VT_FIELD_FUNC, "alloc_gradients", VT_CAT_GRADIENTS},
        {VT_FIELD_FUNC, "alloc_optimizer_state", VT_CAT_OPTIMIZER},
        {VT_FIELD_FUNC, "adam_init", VT_CAT_OPTIMIZER},
        {VT_FIELD_FUNC, "load_batch", VT_CAT_DATA},
        {VT_FIELD_FUNC, "forward", VT_CAT_ACTIVATIONS},
        {VT_FIELD_FUNC, "main", VT_CAT_UNKNOWN},
        {VT_FIELD_PY, "train.py:init_weights", VT_CAT_WEIGHTS},
        {VT_FIELD_PY, "train.py:train_step_forward", VT_CAT_ACTIVATIONS},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int got = VT_CAT_UNKNOWN;
        for (int i = 0; i < rules.n_rules; i++) {
            if (rules.rules[i].field == cases[c].field &&
                vt_glob_match(vt_rule_glob(&rules, i), cases[c].subject)) {
                got = rules.rules[i].category;
                break;
            }
        }
        if (got != cases[c].want)
            fprintf(stderr, "default rules: %s is %s, want %s\n", cases[c].subject,
                    vt_category_names[got], vt_category_names[cases[c].want]);
        VT_CHECK_EQ("default category", got, cases[c].want);
    }
}

int main(void)
{
    test_glob();
    test_parse();
    test_defaults();
    return vt_test_done();
}

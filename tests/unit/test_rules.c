/* SPDX-License-Identifier: MIT */
/* The category rules of common/: the glob matcher, the words of names (words.c), the parser's
 * acceptance, its directives and its error messages (line and what is wrong), the file read
 * before the built-in rules, the decision's order (sections, innermost frame, context rules),
 * and that the built-in rules parse and decide what they are for. */
#include <stdio.h>
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
    VT_CHECK("no field message",
             strcmp(err, "expected '<field>:<glob>' or '<field>~<words>' after the category") == 0);
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
                vt_rule_matches_subject(&rules, i, cases[c].subject)) {
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

/* The words of name, space-separated. */
static const char *words_of(const char *name)
{
    static char out[VT_WORDS_CAP];
    vt_words_t words;
    vt_name_words(name, &words);
    size_t used = 0;
    out[0] = '\0';
    for (const char *w = words.text; *w; w += strlen(w) + 1)
        used += (size_t)snprintf(out + used, sizeof out - used, "%s%s", used ? " " : "", w);
    return out;
}

static bool words_match(const char *pattern, const char *name)
{
    char pw[128];
    vt_words_t words;
    if (!vt_pattern_words(pattern, strlen(pattern), pw, sizeof pw))
        return false;
    vt_name_words(name, &words);
    return vt_words_match(pw, &words);
}

static void test_words(void)
{
    static const struct {
        const char *name, *words;
    } cases[] = {
        {"load_weights", "load weights"},
        {"LoadWeights", "Load Weights"},
        {"loadWeights", "load Weights"},
        {"weights::load", "weights load"},
        {"weights::load()", "weights load"},
        {"_ZN7weights4loadEv", "weights load"},
        {"_ZL12load_weightsv", "load weights"},
        {"_Z12load_weightsv", "load weights"},
        {"_ZNK5torch2nn6Module15load_state_dictERKNS_8OptimizerE",
         "torch nn Module load state dict"},
        {"_ZN5torch8autograd14AccumulateGrad5applyEOSt6vectorIN2at6TensorESaIS4_EE",
         "torch autograd Accumulate Grad apply"},
        {"_ZN3c104cuda20CUDACachingAllocator6Native22DeviceCachingAllocator6mallocEimP11CUstream_st",
         "c 10 cuda CUDA Caching Allocator Native Device Caching Allocator malloc"},
        {"_ZNSt6vectorIiSaIiEE9push_backEOi", "vector push back"},
        {"_ZN2at6native12_GLOBAL__N_19conv_implIfEEvv", "at native GLOBAL N 1 conv impl"},
        {"_ZZ12load_weightsvENKUlvE_clEv", "load weights"},
        {"_ZN5train4stepILi3EEEvRK9Optimizer", "train step"},
        {"_ZN5Model7forwardERK5Batch", "Model forward"},
        {"_ZN5ModelC2Ev", "Model"},
        {"at::native::batch_norm_cuda(at::Tensor const&, float)", "at native batch norm cuda"},
        {"(anonymous namespace)::load_batch<float>(Batch&)", "load batch"},
        {"void run<Optimizer>(Optimizer&)", "void run"},
        {"load_weights.constprop.0", "load weights constprop 0"},
        {"HTTPServer", "HTTP Server"},
        {"cuMemAlloc_v2", "cu Mem Alloc v 2"},
        {"torch/optim/adam.py", "torch optim adam py"},
        {"<module>", ""},
        {"", ""},
        {"_Z", ""},
        {"_ZN999999999x", ""},
        {"_ZN3abc", "abc"},
        {"_ZN3abcI", "abc"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *got = words_of(cases[c].name);
        if (strcmp(got, cases[c].words) != 0)
            fprintf(stderr, "words of '%s': '%s', want '%s'\n", cases[c].name, got, cases[c].words);
        VT_CHECK("words", strcmp(got, cases[c].words) == 0);
    }
    static const char *const load[] = {"load_weights", "LoadWeights", "weights::load",
                                       "_ZN7weights4loadEv", "_ZL12load_weightsv"};
    for (size_t i = 0; i < sizeof load / sizeof *load; i++) {
        VT_CHECK("a load word", words_match("load", load[i]));
        VT_CHECK("a weights word", words_match("weights", load[i]));
    }
    VT_CHECK("payload holds no load", !words_match("load", "payload"));
    VT_CHECK("upgrade holds no grad", !words_match("grad", "upgrade"));
    VT_CHECK("optimize_graph holds no optim", !words_match("optim", "optimize_graph"));
    VT_CHECK("autograd holds no grad", !words_match("grad", "torch::autograd::VariableType::mm"));
    VT_CHECK("a glob within a word", words_match("optim*", "optimize_graph"));
    VT_CHECK("a glob stays in its word", !words_match("load*dict", "load_state_dict"));
    VT_CHECK("words in order", words_match("load_state_dict", "LoadStateDict"));
    VT_CHECK("words next to each other", !words_match("load_dict", "load_state_dict"));
    VT_CHECK("words not reordered", !words_match("weights_load", "load_weights"));
    VT_CHECK("any case", words_match("LOAD", "load_weights"));
    VT_CHECK("a class", words_match("adam[w]", "adamw_step") && words_match("v_[0-9]", "Alloc_v2"));
    VT_CHECK("no parameter types", !words_match("optimizer", "_Z5trainR9Optimizer"));
    char pw[8];
    VT_CHECK_EQ("pattern without words", (int)vt_pattern_words("_::", 3, pw, sizeof pw), 0);
    VT_CHECK_EQ("pattern too long", (int)vt_pattern_words("abcdefgh", 8, pw, sizeof pw), 0);
}

static void test_directives(void)
{
    char err[128];
    VT_CHECK_EQ("words rule", parse("weights func~load_weights\n", err, sizeof err), 0);
    VT_CHECK("words stored", rules.rules[0].words && strcmp(vt_rule_glob(&rules, 0), "load") == 0);
    VT_CHECK_EQ("no words", parse("weights func~__\n", err, sizeof err), 1);
    VT_CHECK("no words message", strcmp(err, "no words after '~'") == 0);
    VT_CHECK_EQ("empty words", parse("weights func~\n", err, sizeof err), 1);
    VT_CHECK_EQ("sections",
                parse("data func:a\n!section two\nweights func:b\nweights py:c\n!section\n"
                      "optimizer api:d\n",
                      err, sizeof err),
                0);
    VT_CHECK_EQ("section 1", rules.rules[0].section_first, 0);
    VT_CHECK_EQ("section 2", rules.rules[1].section_first + rules.rules[2].section_first, 2);
    VT_CHECK_EQ("section 3", rules.rules[3].section_first, 3);
    VT_CHECK("defaults stay on", !rules.defaults_off);
    VT_CHECK_EQ("defaults off", parse("  !defaults off  \ndata func:a\n", err, sizeof err), 0);
    VT_CHECK("defaults off read", rules.defaults_off);
    VT_CHECK_EQ("bad directive", parse("data func:a\n!default off\n", err, sizeof err), 2);
    VT_CHECK("bad directive message", strcmp(err, "unknown directive '!default off'") == 0);
    VT_CHECK_EQ("defaults what", parse("!defaults maybe\n", err, sizeof err), 1);
    VT_CHECK_EQ("a section's name of two words", parse("!section a b\n", err, sizeof err), 0);
    VT_CHECK_EQ("not a directive", parse("!sections\n", err, sizeof err), 1);

    /* vt_rules_load: the file first, then the built-in rules, in a section of their own */
    const char *fix = "weights func~upgrade\n";
    VT_CHECK_EQ("load", vt_rules_load(&rules, fix, strlen(fix), true, err, sizeof err), 0);
    VT_CHECK("the file's rule first", !rules.rules[0].builtin && rules.rules[0].words);
    VT_CHECK("then the built-in ones",
             rules.n_builtin > 30 && rules.n_rules == rules.n_builtin + 1);
    VT_CHECK("a section of their own", rules.rules[1].builtin && rules.rules[1].section_first == 1);
    const char *off = "!defaults off\nweights func~upgrade\n";
    VT_CHECK_EQ("load off", vt_rules_load(&rules, off, strlen(off), true, err, sizeof err), 0);
    VT_CHECK_EQ("!defaults off: the file alone", rules.n_rules, 1);
    VT_CHECK_EQ("flag off", vt_rules_load(&rules, fix, strlen(fix), false, err, sizeof err), 0);
    VT_CHECK_EQ("flag off: the file alone", rules.n_rules, 1);
    VT_CHECK_EQ("no file", vt_rules_load(&rules, NULL, 0, true, err, sizeof err), 0);
    VT_CHECK("no file: the built-in rules", rules.n_rules == rules.n_builtin && rules.n_rules > 30);
    VT_CHECK_EQ("nothing", vt_rules_load(&rules, NULL, 0, false, err, sizeof err), 0);
    VT_CHECK_EQ("nothing: no rules", rules.n_rules, 0);
    const char *bad = "weights func~upgrade\nweight func:x\n";
    VT_CHECK_EQ("bad file", vt_rules_load(&rules, bad, strlen(bad), false, err, sizeof err), 2);
    VT_CHECK("bad file: the built-in rules alone", rules.n_rules == rules.n_builtin);

    /* a full file still leaves room for every built-in rule */
    static char many[256 * 112];
    size_t used = 0;
    for (int i = 0; i < 256; i++)
        used += (size_t)snprintf(many + used, sizeof many - used, "data api:%0100d\n", i);
    VT_CHECK_EQ("256 long rules", vt_rules_load(&rules, many, used, true, err, sizeof err), 0);
    VT_CHECK_EQ("and the built-in ones", rules.n_rules - rules.n_builtin, 256);
    vt_rules_t alone;
    vt_rules_parse(&alone, vt_default_rules, strlen(vt_default_rules), err, sizeof err);
    VT_CHECK_EQ("all of them", rules.n_builtin, alone.n_rules);
}

/* The decision's order on one stack (innermost first) under rules text. */
static int decide(const char *text, const char *const *natives, int n, const char *thread)
{
    char err[128];
    vt_rules_t *r = &rules;
    VT_CHECK_EQ("rules", vt_rules_load(r, text, strlen(text), false, err, sizeof err), 0);
    vt_rule_frame_t frames[8];
    memset(frames, 0, sizeof frames);
    for (int i = 0; i < n; i++) {
        if (strchr(natives[i], '/'))
            frames[i].py = natives[i];
        else
            frames[i].names[0] = natives[i];
    }
    vt_rule_site_t site = {-1, frames, n, "", thread, "cuMemAlloc_v2"};
    return vt_rules_decide(r, &site);
}

static void test_order(void)
{
    static const char *const stack[] = {"alloc_buffer", "load_batch", "optimizer_loop", "main"};
    /* innermost frame first, whatever the line order */
    VT_CHECK_EQ("inner frame wins",
                decide("optimizer func~optimizer\ndata func~batch\n", stack, 4, "main"),
                VT_CAT_DATA);
    /* one frame, two lines: the first */
    VT_CHECK_EQ("first line in a frame",
                decide("data func~load\nactivations func~batch\n", stack, 4, "main"), VT_CAT_DATA);
    /* an earlier section wins over an inner frame */
    VT_CHECK_EQ("sections first",
                decide("optimizer func~optimizer\n!section\ndata func~batch\n", stack, 4, "main"),
                VT_CAT_OPTIMIZER);
    /* a context line wins over the frame lines below it only */
    VT_CHECK_EQ("context above", decide("weights thread:main\ndata func~batch\n", stack, 4, "main"),
                VT_CAT_WEIGHTS);
    VT_CHECK_EQ("context below", decide("data func~batch\nweights thread:main\n", stack, 4, "main"),
                VT_CAT_DATA);
    VT_CHECK_EQ("context below, no frame",
                decide("data func~nothing\nweights thread~main\n", stack, 4, "main"),
                VT_CAT_WEIGHTS);
    /* the misfire: a native load_state_dict is weights with the built-in rules */
    static const char *const lsd[] = {"_ZN5torch2nn6Module15load_state_dictEv", "main"};
    char err[128];
    vt_rules_load(&rules, NULL, 0, true, err, sizeof err);
    vt_rule_frame_t f[2] = {{.names = {lsd[0]}}, {.names = {lsd[1]}}};
    vt_rule_site_t site = {-1, f, 2, "", "main", "cudaMalloc"};
    VT_CHECK_EQ("native load_state_dict", vt_rules_decide(&rules, &site), VT_CAT_WEIGHTS);
    /* a one-line fix is one line: the file's line wins over the built-in ones */
    static const char *const up[] = {"upgrade", "load_weights"};
    const char *fix = "optimizer func~upgrade\n";
    vt_rules_load(&rules, fix, strlen(fix), true, err, sizeof err);
    vt_rule_frame_t g[2] = {{.names = {up[0]}}, {.names = {up[1]}}};
    site.frames = g;
    VT_CHECK_EQ("the file's line wins", vt_rules_decide(&rules, &site), VT_CAT_OPTIMIZER);
    vt_rules_load(&rules, NULL, 0, true, err, sizeof err);
    VT_CHECK_EQ("else the built-in ones", vt_rules_decide(&rules, &site), VT_CAT_WEIGHTS);
}

int main(void)
{
    test_glob();
    test_parse();
    test_defaults();
    test_words();
    test_directives();
    test_order();
    return vt_test_done();
}

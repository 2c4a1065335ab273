/* SPDX-License-Identifier: MIT */
/* The capture library's category decision (src/categorize.c: the first frame rule cached per
 * stack, then only the phase, thread and api rules before it, thread verdicts cached per thread)
 * against the reference decision of common/ (vt_rules_decide: rule by rule, first match), on
 * random rule sets (globs and words, sections, with and without the built-in rules after them),
 * random stacks of real native functions and Python frames, random phases, annotation pushes,
 * thread names and entry points. Each rule set runs on a thread of its own,
 * named at its start, over a stack trie emptied before it (the per-stack cache belongs to one
 * rule set). A difference prints the rules, the site and both answers. */
#include "vt_internal.h"
#include "random_rules.h"
#include "vt_test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Native frames with names in many styles. Distinct bodies, so that no two are folded into one
 * address. _ZN7weights4loadEv is weights::load() as a C++ compiler spells it. */
VT_TEST_NATIVE(load_weights, 3)
VT_TEST_NATIVE(LoadWeights, 5)
VT_TEST_NATIVE(_ZN7weights4loadEv, 7)
VT_TEST_NATIVE(upgrade, 11)
VT_TEST_NATIVE(optimize_graph, 13)
VT_TEST_NATIVE(payload, 17)
VT_TEST_NATIVE(forward_pass, 19)
VT_TEST_NATIVE(adam_step, 23)
VT_TEST_NATIVE(alloc_workspace, 29)
VT_TEST_NATIVE(prefetch_batch, 31)
VT_TEST_NATIVE(backward, 37)
VT_TEST_NATIVE(run_model, 41)

static void *const natives[] = {
    (void *)load_weights,    (void *)LoadWeights,    (void *)_ZN7weights4loadEv, (void *)upgrade,
    (void *)optimize_graph,  (void *)payload,        (void *)forward_pass,       (void *)adam_step,
    (void *)alloc_workspace, (void *)prefetch_batch, (void *)backward,           (void *)run_model,
    (void *)qsort,           (void *)memcpy,
};
#define N_NATIVES (int)(sizeof natives / sizeof *natives)

static const char *const py_frames[] = {
    "torch/optim/adam.py:step",
    "torch/optim/optimizer.py:zero_grad",
    "torch/nn/modules/module.py:_apply",
    "torch/nn/modules/module.py:_call_impl",
    "torch/autograd/__init__.py:backward",
    "torch/utils/data/dataloader.py:__next__",
    "train.py:forward",
    "train.py:main",
    "model/upgrade.py:payload",
};
#define N_PY (int)(sizeof py_frames / sizeof *py_frames)

/* Globs per field: whole names, words, wildcards, classes, and some that match nothing. */
static const char *const globs[VT_FIELD_COUNT][8] = {
    [VT_FIELD_FUNC] = {"*load*", "load_weights", "*Weights", "[a-f]*", "*grad*", "?pgrade",
                       "*optim*", "*"},
    [VT_FIELD_MODULE] = {"libc.so*", "test_decide*", "*", "nothing", "lib*", "t?st*", "*.so.6",
                         "[!l]*"},
    [VT_FIELD_FILE] = {"*.c", "*", "train.c", "x", "*.h", "*/src/*", "a*", "*.cu"},
    [VT_FIELD_PY] = {"*torch/optim/*", "*:step", "*module.py:_apply", "train.py:*", "*", "*:*grad*",
                     "*data*", "model/*"},
    [VT_FIELD_PHASE] = {"train*", "*forward", "*", "step", "train/*", "?*", "*/*/*", "x"},
    [VT_FIELD_THREAD] = {"pt_*", "main", "*", "worker?", "pt_autograd*", "[mw]*", "none", "w*"},
    [VT_FIELD_API] = {"cuMemAlloc*", "cudaMalloc*", "*", "*Async*", "cuMemAlloc_v2", "none",
                      "cuMem*Pitch*", "x"},
};

/* Words per field. */
static const char *const words[VT_FIELD_COUNT][6] = {
    [VT_FIELD_FUNC] = {"load", "weights", "grad", "optim*", "load_weights", "forward"},
    [VT_FIELD_MODULE] = {"libc", "test", "so", "decide", "test_decide", "x"},
    [VT_FIELD_FILE] = {"c", "train", "x", "h", "src", "a*"},
    [VT_FIELD_PY] = {"step", "apply", "forward", "next", "zero_grad", "payload"},
    [VT_FIELD_PHASE] = {"train", "forward", "step", "train_forward", "vramtrace", "x"},
    [VT_FIELD_THREAD] = {"pt", "autograd", "main", "worker*", "pin_memory", "pt_autograd"},
    [VT_FIELD_API] = {"alloc", "async", "mem_alloc", "pitch", "cu", "v2"},
};

static const char *const thread_names[] = {"main", "pt_autograd_0", "pt_pin_memory", "worker1"};
static const char *const phase_names[] = {
    "train", "forward", "step", "vramtrace:gradients", "vramtrace:bogus", "vramtrace:weights"};
static const vt_api_t apis[] = {VT_API_cuMemAlloc_v2, VT_API_cuMemAllocAsync,
                                VT_API_cuMemAllocPitch_v2, VT_API_NONE};

static unsigned rng_state = 12345;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) % n;
}

static char rules_path[64];
static char rules_text[4096];
static int n_failures_shown;
static int n_rules_written;
static bool defaults_off;

typedef struct case_set_s {
    const char *thread_name;
    int n_cases;
} case_set_t;

/* The reference's view of frame ip: what the capture library's frame matcher sees. */
static void frame_of(uint64_t ip, vt_rule_frame_t *f)
{
    memset(f, 0, sizeof(*f));
    if (VT_PYFRAME_IS(ip))
        f->py = vt_string(VT_PYFRAME_STRING(ip));
    else
        vt_frame_names(ip, &f->names[0], &f->module);
}

static void *run_cases(void *arg)
{
    const case_set_t *set = arg;
    prctl(PR_SET_NAME, set->thread_name);
    for (int c = 0; c < set->n_cases; c++) {
        /* Annotation pushes and phases, mirrored here to know what they force. */
        int pushed[4], n_pushed = (int)rnd(3) == 0 ? (int)rnd(3) : 0;
        for (int i = 0; i < n_pushed; i++) {
            int cat = (int)rnd(VT_CAT_COUNT + 1) - 1;
            vt_category_push(cat);
            pushed[i] = cat >= 0 ? cat : i ? pushed[i - 1] : -1;
        }
        char phase[256] = "";
        int n_phases = (int)rnd(4), phase_forced = -1;
        for (int i = 0; i < n_phases; i++) {
            const char *name = phase_names[rnd(sizeof phase_names / sizeof *phase_names)];
            vt_phase_push(name);
            if (i)
                strcat(phase, "/");
            strcat(phase, name);
            if (strncmp(name, "vramtrace:", 10) == 0) {
                int cat = vt_category_from_name(name + 10, strlen(name + 10));
                if (cat >= 0)
                    phase_forced = cat;
            }
        }
        /* The stack, innermost first, and the reference's view of it. */
        void *ips[8];
        vt_rule_frame_t frames[8];
        int n = (int)rnd(9);
        for (int i = 0; i < n; i++) {
            if (rnd(3) == 0) {
                const char *where = py_frames[rnd(N_PY)];
                vt_track_lock();
                uint32_t id = vt_string_intern(where, strlen(where));
                vt_track_unlock();
                ips[i] = (void *)(uintptr_t)VT_PYFRAME_IP(id, 1 + rnd(100));
            } else {
                ips[i] = (char *)natives[rnd(N_NATIVES)] + 1; /* a return address inside */
            }
            frame_of((uint64_t)(uintptr_t)ips[i], &frames[i]);
        }
        bool created;
        uint32_t stack_id = n ? vt_stack_intern(ips, n, &created) : 0;
        vt_api_t api = apis[rnd(sizeof apis / sizeof *apis)];

        int got = vt_category_of_stack(stack_id, ips, n, api);
        vt_rule_site_t site = {
            .forced = n_pushed && pushed[n_pushed - 1] >= 0 ? pushed[n_pushed - 1] : phase_forced,
            .frames = frames,
            .n_frames = n,
            .phase = phase,
            .thread = set->thread_name,
            .api = vt_api_name(api),
        };
        int want = vt_rules_decide(vt_categories_rules(), &site);
        VT_CHECK_EQ("fast path = reference", got, want);
        if (got != want && n_failures_shown++ < 3) {
            fprintf(stderr, "rules:\n%s--- thread '%s' phase '%s' api %s forced %d; frames:\n",
                    rules_text, site.thread, site.phase, site.api, site.forced);
            for (int i = 0; i < n; i++)
                fprintf(stderr, "  %s %s\n", frames[i].py ? frames[i].py : frames[i].names[0],
                        frames[i].module ? frames[i].module : "");
        }
        for (int i = 0; i < n_phases; i++)
            vt_phase_pop();
        for (int i = 0; i < n_pushed; i++)
            vt_category_pop();
    }
    return NULL;
}

/* A random rules file: frame rules with every kind of context rule, or with thread rules only
 * (the capture library's shortcut for the defaults' shape); globs and words; sections; the
 * built-in rules after it or not. */
static void random_rules(void)
{
    bool thread_only = rnd(3) == 0;
    int n = 1 + (int)rnd(12);
    defaults_off = rnd(2) == 0;
    size_t used = 0;
    if (defaults_off)
        used += (size_t)snprintf(rules_text, sizeof rules_text, "!defaults off\n");
    for (int i = 0; i < n; i++) {
        int field = (int)rnd(VT_FIELD_COUNT);
        if (thread_only && !VT_FIELD_IS_FRAME(field))
            field = VT_FIELD_THREAD;
        used = vt_random_rule(rules_text, sizeof rules_text, used, rnd, field, globs[field], 8,
                              words[field], 6);
    }
    n_rules_written = n;
    FILE *f = fopen(rules_path, "w");
    fputs(rules_text, f);
    fclose(f);
}

int main(void)
{
    snprintf(rules_path, sizeof rules_path, "/tmp/vt_test_decide.%d.rules", (int)getpid());
    char option[128];
    snprintf(option, sizeof option, "VRAMTRACE_RULES=%s", rules_path);
    char *env[] = {option, NULL};
    vt_options_parse(env);
    for (int set = 0; set < 300; set++) {
        random_rules();
        vt_categories_init();
        const vt_rules_t *rules = vt_categories_rules();
        VT_CHECK_EQ("the rules file was read", rules->n_rules - rules->n_builtin, n_rules_written);
        VT_CHECK_EQ("then the built-in rules", rules->n_builtin > 0, !defaults_off);
        vt_stacks_forget();
        case_set_t cases = {thread_names[rnd(4)], 100};
        pthread_t t;
        pthread_create(&t, NULL, run_cases, &cases);
        pthread_join(t, NULL);
    }
    unlink(rules_path);
    return vt_test_done();
}

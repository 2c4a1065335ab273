/* SPDX-License-Identifier: MIT */
/* The analyzer's offline decision (tools/recategorize.c: the frame verdict cached per stack, the
 * phase path tracked per thread from PHASE_PUSH/POP, thread and api names read from the trace)
 * against the reference decision of common/ (vt_rules_decide: rule by rule, first match), on
 * random traces written by the trace builder: stacks of this program's own functions (named by
 * the symbolizer, as `report --rules` names them) and Python frames, shared between allocations;
 * nested NVTX ranges (vramtrace:<category> ones among them) and marks on several threads, named
 * or not; several entry points; and random rule sets in the shape test_decide.c makes them
 * (globs and words, sections, the built-in rules after them or not). Every ALLOC's category is
 * compared; a difference prints the rules and the site. */
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recategorize.h"
#include "trace_builder.h"
#include "random_rules.h"
#include "vt_test.h"

VT_TEST_NATIVE(load_weights, 3)
VT_TEST_NATIVE(_ZN7weights4loadEv, 7)
VT_TEST_NATIVE(optimize_graph, 13)
VT_TEST_NATIVE(forward_pass, 19)
VT_TEST_NATIVE(adam_step, 23)
VT_TEST_NATIVE(alloc_workspace, 29)

static void *const natives[] = {(void *)load_weights,   (void *)_ZN7weights4loadEv,
                                (void *)optimize_graph, (void *)forward_pass,
                                (void *)adam_step,      (void *)alloc_workspace};
#define N_NATIVES (int)(sizeof natives / sizeof *natives)

static const char *const py_frames[] = {"torch/optim/adam.py:step",
                                        "torch/nn/modules/module.py:_apply", "train.py:forward",
                                        "model/upgrade.py:payload"};
#define N_PY (int)(sizeof py_frames / sizeof *py_frames)
static const char *const thread_names[] = {"main", "pt_autograd_0", "worker1", ""};
#define N_THREADS 4
static const char *const phase_names[] = {
    "train", "forward", "step", "vramtrace:gradients", "vramtrace:bogus", "vramtrace:weights"};
#define N_PHASE_NAMES (int)(sizeof phase_names / sizeof *phase_names)
static const char *const api_names[] = {"cuMemAlloc_v2", "cuMemAllocAsync", "cuMemAllocPitch_v2",
                                        "cudaMalloc"};
#define N_APIS (int)(sizeof api_names / sizeof *api_names)

/* A few globs and words per field, matching some of the subjects above and not others. */
static const char *const globs[VT_FIELD_COUNT][4] = {
    [VT_FIELD_FUNC] = {"*load*", "*_step", "[a-f]*", "*"},
    [VT_FIELD_MODULE] = {"test_recat*", "lib*", "t?st*", "*"},
    [VT_FIELD_FILE] = {"*.c", "*", "*/trace/*", "x.cu"},
    [VT_FIELD_PY] = {"*torch/*", "*:step", "train.py:*", "*"},
    [VT_FIELD_PHASE] = {"train*", "*forward", "*", "?*/*"},
    [VT_FIELD_THREAD] = {"pt_*", "main", "*", "worker?"},
    [VT_FIELD_API] = {"cuMemAlloc*", "*Async*", "*", "cuda*"},
};
static const char *const words[VT_FIELD_COUNT][3] = {
    [VT_FIELD_FUNC] = {"load", "weights", "step"},
    [VT_FIELD_MODULE] = {"test", "recategorize", "so"},
    [VT_FIELD_FILE] = {"c", "test", "recategorize"},
    [VT_FIELD_PY] = {"step", "apply", "forward"},
    [VT_FIELD_PHASE] = {"train", "forward", "step"},
    [VT_FIELD_THREAD] = {"pt", "autograd", "main"},
    [VT_FIELD_API] = {"alloc", "async", "pitch"},
};

static unsigned rng_state = 4242;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) % n;
}

static char rules_text[2048];
static vt_rules_t rules;
static vt_symbolizer_t sym;

static void random_rules(void)
{
    size_t used = 0;
    bool defaults = rnd(2) == 0;
    int n = 1 + (int)rnd(10);
    for (int i = 0; i < n; i++) {
        int field = (int)rnd(VT_FIELD_COUNT);
        used = vt_random_rule(rules_text, sizeof rules_text, used, rnd, field, globs[field], 4,
                              words[field], 3);
    }
    char err[256];
    int rc = vt_rules_load(&rules, rules_text, used, defaults, err, sizeof err);
    VT_CHECK("random rules parse", rc == 0);
    if (rc)
        fprintf(stderr, "%s\n%s", err, rules_text);
}

/* What the reference is told about each ALLOC, in trace order. */
typedef struct site_s {
    int forced;
    int n_frames;
    uint64_t ips[6]; /* innermost first */
    char phase[128];
    int thread, api;
} site_t;

#define MAX_SITES 400
static site_t sites[MAX_SITES];
static int n_sites, n_checked, n_failures_shown;
static unsigned n_named, n_by_category[VT_CAT_COUNT];

typedef struct stack_s {
    uint32_t id;
    int n;
    uint64_t ips[6];
} stack_t_;

static void reference_frame(uint64_t ip, vt_rule_frame_t *f)
{
    memset(f, 0, sizeof(*f));
    if (VT_PYFRAME_IS(ip)) {
        f->py = py_frames[VT_PYFRAME_STRING(ip) - 1]; /* the py strings are the trace's first */
        return;
    }
    vt_sym_frame_t s;
    memset(&s, 0, sizeof(s));
    vt_symbolize(&sym, ip, &s);
    f->names[0] = s.function;
    f->names[1] = s.symbol;
    f->names[2] = s.inlined_in;
    f->module = s.module;
    f->file = s.file;
    n_named += s.function != NULL;
}

/* The hook: the analyzer's answer, compared with the reference's for the same ALLOC. */
static int compare(void *ctx, const vt_reader_t *r, const vt_event_t *ev)
{
    int got = vt_recategorize(ctx, r, ev);
    if (ev->type != VT_REC_ALLOC || n_checked >= n_sites)
        return got;
    const site_t *s = &sites[n_checked++];
    vt_rule_frame_t frames[6];
    for (int i = 0; i < s->n_frames; i++)
        reference_frame(s->ips[i], &frames[i]);
    vt_rule_site_t site = {.forced = s->forced,
                           .frames = frames,
                           .n_frames = s->n_frames,
                           .phase = s->phase,
                           .thread = thread_names[s->thread],
                           .api = api_names[s->api]};
    int want = vt_rules_decide(&rules, &site);
    VT_CHECK_EQ("offline = reference", got, want);
    n_by_category[want >= 0 && want < VT_CAT_COUNT ? want : VT_CAT_UNKNOWN]++;
    if (got != want && n_failures_shown++ < 3) {
        fprintf(stderr, "rules:\n%s--- thread '%s' phase '%s' api %s forced %d; frames:\n",
                rules_text, site.thread, site.phase, site.api, site.forced);
        for (int i = 0; i < s->n_frames; i++)
            fprintf(stderr, "  %s %s\n", frames[i].py ? frames[i].py : frames[i].names[0],
                    frames[i].module ? frames[i].module : "");
    }
    return got;
}

/* A random trace into path, its ALLOCs' sites into sites[]. */
static void build(const char *path)
{
    tb_t tb;
    tb_init(&tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR);
    for (int i = 0; i < N_PY; i++)
        tb_string(&tb, py_frames[i]); /* string ids 1..N_PY */
    uint32_t kv[2] = {tb_string(&tb, "pid"), tb_string(&tb, "1")};
    tb_process(&tb, 1000, 0, 1, kv);
    tb_device(&tb, 0, tb_string(&tb, "gpu"), 1ull << 40);
    uint32_t api_ids[N_APIS], phase_ids[N_PHASE_NAMES];
    for (int i = 0; i < N_APIS; i++)
        api_ids[i] = tb_string(&tb, api_names[i]);
    tb_api_names(&tb, N_APIS, api_ids);
    for (int i = 0; i < N_PHASE_NAMES; i++)
        phase_ids[i] = tb_string(&tb, phase_names[i]);
    for (int t = 0; t < N_THREADS; t++)
        tb_thread(&tb, 100 + (uint64_t)t, 1 + (uint64_t)t,
                  thread_names[t][0] ? tb_string(&tb, thread_names[t]) : 0);
    uint32_t label = tb_string(&tb, "step");

    int depth[N_THREADS] = {0}, open[N_THREADS][4];
    stack_t_ stacks[64];
    int n_stacks = 0;
    n_sites = n_checked = 0;
    uint64_t address = 0x10000;
    while (n_sites < MAX_SITES) {
        int t = (int)rnd(N_THREADS);
        unsigned k = rnd(10);
        if (k == 0 && depth[t] < 4) {
            int p = (int)rnd(N_PHASE_NAMES);
            open[t][depth[t]++] = p;
            tb_phase_push(&tb, rnd(100), 100 + (uint64_t)t, phase_ids[p]);
            continue;
        }
        if (k == 1 && depth[t] > 0) {
            depth[t]--;
            tb_phase_pop(&tb, rnd(100), 100 + (uint64_t)t);
            continue;
        }
        if (k == 2) {
            tb_mark(&tb, rnd(100), 100 + (uint64_t)t, label);
            continue;
        }
        /* An ALLOC on a stack made before or a new one (maybe an empty one). */
        site_t *s = &sites[n_sites++];
        memset(s, 0, sizeof(*s));
        uint32_t stack_id = 0;
        if (n_stacks && (rnd(2) == 0 || n_stacks == 64)) {
            const stack_t_ *st = &stacks[rnd((unsigned)n_stacks)];
            stack_id = st->id;
            s->n_frames = st->n;
            memcpy(s->ips, st->ips, sizeof(s->ips));
        } else {
            s->n_frames = (int)rnd(7);
            for (int i = 0; i < s->n_frames; i++)
                s->ips[i] = rnd(3) == 0 ? VT_PYFRAME_IP(1 + rnd(N_PY), 1 + rnd(100))
                                        : (uint64_t)(uintptr_t)natives[rnd(N_NATIVES)] + 1;
            /* outermost first: each frame's parent is its caller */
            for (int i = s->n_frames; i-- > 0;)
                stack_id = tb_stack(&tb, stack_id, s->ips[i]);
            if (s->n_frames) {
                stacks[n_stacks].id = stack_id;
                stacks[n_stacks].n = s->n_frames;
                memcpy(stacks[n_stacks].ips, s->ips, sizeof(s->ips));
                n_stacks++;
            }
        }
        s->thread = t;
        s->api = (int)rnd(N_APIS);
        s->forced = -1;
        for (int d = 0; d < depth[t]; d++) {
            const char *name = phase_names[open[t][d]];
            if (d)
                strcat(s->phase, "/");
            strcat(s->phase, name);
            if (strncmp(name, "vramtrace:", 10) == 0) {
                int cat = vt_category_from_name(name + 10, strlen(name + 10));
                if (cat >= 0)
                    s->forced = cat;
            }
        }
        tb_alloc(&tb, rnd(100), VT_TRACE_SERIES_DEVICE, rnd(VT_CAT_COUNT), 0, (uint32_t)s->api,
                 address, 4096, stack_id, 100 + (uint64_t)t);
        address += 0x1000;
    }
    tb_end(&tb, 1, 0, 0, 0, 0, 0);
    VT_CHECK("trace written", tb_write(&tb, path, tb.len) == 0);
    tb_release(&tb);
}

/* The test program as the symbolizer's one module. */
static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    vt_sym_module_t *m = arg;
    m->path = "";
    m->bias = info->dlpi_addr;
    m->lo = UINT64_MAX;
    m->hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        m->lo = lo < m->lo ? lo : m->lo;
        m->hi = hi > m->hi ? hi : m->hi;
    }
    return 1; /* the first object is the program */
}

int main(void)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    VT_CHECK("own path", n > 0);
    exe[n > 0 ? n : 0] = '\0';
    vt_sym_module_t self;
    dl_iterate_phdr(find_self, &self);
    VT_CHECK("symbolizer", vt_symbolizer_init(&sym, &self, 1, exe) == 0);

    char dir[256], path[300];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/vt-recat-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof(path), "%s/t.vtr", dir);
    unsigned n_total = 0;
    for (int set = 0; set < 200; set++) {
        random_rules();
        build(path);
        vt_reader_t r;
        vt_analysis_t a;
        VT_CHECK("opened", vt_reader_open(&r, path) == 0);
        vt_recategorizer_t rc;
        vt_recategorizer_init(&rc, &rules, &sym);
        VT_CHECK("analysed", vt_analyze_recategorized(&r, &a, UINT64_MAX, compare, &rc) == 0);
        VT_CHECK_EQ("every ALLOC decided", n_checked, n_sites);
        n_total += (unsigned)n_checked;
        vt_recategorizer_release(&rc);
        vt_analysis_release(&a);
        vt_reader_release(&r);
    }
    unlink(path);
    rmdir(dir);
    vt_symbolizer_release(&sym);
    printf("recategorize: %u allocations compared, %u native frames named\n", n_total, n_named);
    /* Not a test that cannot fail: the rules decided, and func rules had names to match. */
    for (int c = 0; c < VT_CAT_COUNT; c++)
        VT_CHECK("every category decided", n_by_category[c] > 0);
    VT_CHECK("native frames named", n_named > 0 || !vt_symbolize_have_debuginfo());
    return vt_test_done();
}

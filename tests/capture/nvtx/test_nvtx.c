/* SPDX-License-Identifier: MIT */
/* Unit test of src/nvtx.c against a fake NVTX copy (the callback tables an NVTX v3 header would
 * hand a tool), so it runs without the CUDA toolkit: what InitializeInjectionNvtx2 installs and
 * returns, idempotence across calls and copies, the push/pop return values per domain, the
 * phase path for ASCII, wide, registered and attribute names, unbalanced pops, start/end ranges
 * across threads, and OFF. Links the core directly, so the env var must stay unset (the test
 * program is not libvramtrace.so). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "vt_internal.h"
#include "vt_nvtx.h"
#include "vt_test.h"

#define CORE_SIZE  16 /* NVTX_CBID_CORE_SIZE */
#define CORE2_SIZE 16 /* NVTX_CBID_CORE2_SIZE */

/* One NVTX copy: its slots and the tables of pointers to them, as nvtxImpl.h lays them out. */
typedef struct fake_nvtx_s {
    NvtxFunctionPointer core[CORE_SIZE], core2[CORE2_SIZE];
    NvtxFunctionPointer *core_table[CORE_SIZE + 1], *core2_table[CORE2_SIZE + 1];
} fake_nvtx_t;

static fake_nvtx_t copies[3];
static fake_nvtx_t *current; /* the copy whose get_export_table runs */
static int table_size_cut;   /* > 0: pretend an older NVTX with fewer core ids */

static int get_module_function_table(NvtxCallbackModule module, NvtxFunctionTable *out_table,
                                     unsigned int *out_size)
{
    if (module == NVTX_CB_MODULE_CORE) {
        *out_table = current->core_table;
        *out_size = table_size_cut ? (unsigned)table_size_cut : CORE_SIZE;
        return 1;
    }
    if (module == NVTX_CB_MODULE_CORE2) {
        *out_table = current->core2_table;
        *out_size = CORE2_SIZE;
        return 1;
    }
    return 0;
}

static const NvtxExportTableCallbacks callbacks = {sizeof callbacks, get_module_function_table};

static const void *get_export_table(uint32_t id)
{
    return id == NVTX_ETID_CALLBACKS ? &callbacks : NULL;
}

static void fake_init(fake_nvtx_t *f)
{
    memset(f, 0, sizeof *f);
    for (int i = 0; i < CORE_SIZE; i++)
        f->core_table[i] = &f->core[i];
    for (int i = 0; i < CORE2_SIZE; i++)
        f->core2_table[i] = &f->core2[i];
}

/* The handlers of a copy, typed as nvToolsExt.h types them. */
#define CORE(f, id, type)  ((type)(f)->core[NVTX_CBID_CORE_##id])
#define CORE2(f, id, type) ((type)(f)->core2[NVTX_CBID_CORE2_##id])
typedef int (*push_a_fn)(const char *);
typedef int (*push_w_fn)(const wchar_t *);
typedef int (*push_ex_fn)(const nvtxEventAttributes_t *);
typedef int (*pop_fn)(void);
typedef nvtxRangeId_t (*start_a_fn)(const char *);
typedef nvtxRangeId_t (*start_ex_fn)(const nvtxEventAttributes_t *);
typedef void (*end_fn)(nvtxRangeId_t);
typedef void (*mark_a_fn)(const char *);
typedef nvtxDomainHandle_t (*domain_create_a_fn)(const char *);
typedef nvtxDomainHandle_t (*domain_create_w_fn)(const wchar_t *);
typedef int (*domain_push_fn)(nvtxDomainHandle_t, const nvtxEventAttributes_t *);
typedef int (*domain_pop_fn)(nvtxDomainHandle_t);
typedef nvtxStringHandle_t (*register_a_fn)(nvtxDomainHandle_t, const char *);
typedef nvtxStringHandle_t (*register_w_fn)(nvtxDomainHandle_t, const wchar_t *);

static nvtxEventAttributes_t attr(int type)
{
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = 3;
    a.size = sizeof a;
    a.messageType = type;
    return a;
}

static void *end_on_other_thread(void *arg)
{
    end_fn end = CORE(&copies[0], RangeEnd, end_fn);
    end(*(nvtxRangeId_t *)arg);
    return NULL;
}

int main(void)
{
    unsetenv("NVTX_INJECTION64_PATH");
    unsetenv("VRAMTRACE_DISABLE");
    for (int i = 0; i < 3; i++)
        fake_init(&copies[i]);

    /* Installation: every handler we serve, nothing else, and the call is repeatable. */
    current = &copies[0];
    VT_CHECK_EQ("init returns non-zero", InitializeInjectionNvtx2(get_export_table), 1);
    VT_CHECK("init ran, ON", vt_is_on());
    VT_CHECK("not libvramtrace.so: env var left unset", getenv("NVTX_INJECTION64_PATH") == NULL);
    static const int core_ids[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    for (size_t i = 0; i < sizeof core_ids / sizeof core_ids[0]; i++)
        VT_CHECK("core handler installed", copies[0].core[core_ids[i]] != NULL);
    VT_CHECK("NameCategoryA left alone", copies[0].core[12] == NULL);
    VT_CHECK("DomainResourceCreate left alone", copies[0].core2[6] == NULL);
    VT_CHECK("Initialize (CORE2 15) left alone", copies[0].core2[15] == NULL);
    NvtxFunctionPointer first_push = copies[0].core[NVTX_CBID_CORE_RangePushA];
    VT_CHECK_EQ("second call on the same copy", InitializeInjectionNvtx2(get_export_table), 1);
    VT_CHECK("same handler", copies[0].core[NVTX_CBID_CORE_RangePushA] == first_push);
    current = &copies[1];
    VT_CHECK_EQ("another copy", InitializeInjectionNvtx2(get_export_table), 1);
    VT_CHECK("another copy: same handler", copies[1].core[NVTX_CBID_CORE_RangePushA] == first_push);
    current = &copies[2];
    table_size_cut = NVTX_CBID_CORE_RangePushEx; /* an older copy: ids >= 8 do not exist */
    VT_CHECK_EQ("older copy", InitializeInjectionNvtx2(get_export_table), 1);
    VT_CHECK("older copy: RangeEnd installed", copies[2].core[NVTX_CBID_CORE_RangeEnd] != NULL);
    VT_CHECK("older copy: no slot written past its size",
             copies[2].core[NVTX_CBID_CORE_RangePushA] == NULL);
    table_size_cut = 0;
    VT_CHECK_EQ("no export table", InitializeInjectionNvtx2(NULL), 0);

    fake_nvtx_t *f = &copies[0];
    push_a_fn push_a = CORE(f, RangePushA, push_a_fn);
    push_w_fn push_w = CORE(f, RangePushW, push_w_fn);
    push_ex_fn push_ex = CORE(f, RangePushEx, push_ex_fn);
    pop_fn pop = CORE(f, RangePop, pop_fn);

    /* Push returns the 0-based level started, pop the level ended. */
    VT_CHECK_EQ("push level 0", push_a("train"), 0);
    VT_CHECK_EQ("push level 1", push_a("forward"), 1);
    VT_CHECK("phase path", strcmp(vt_phase_current(), "train/forward") == 0);
    VT_CHECK_EQ("pop level 1", pop(), 1);
    VT_CHECK("pop restores", strcmp(vt_phase_current(), "train") == 0);
    VT_CHECK_EQ("pop level 0", pop(), 0);
    VT_CHECK("empty path", strcmp(vt_phase_current(), "") == 0);
    VT_CHECK_EQ("pop with none open", pop(), -1);
    VT_CHECK_EQ("NULL name", push_a(NULL), 0);
    VT_CHECK_EQ("NULL name pops", pop(), 0);

    /* Wide names become UTF-8; invalid code points '?'. */
    VT_CHECK_EQ("pushW", push_w(L"caf\u00e9/\u65e5\U0001F600"), 0);
    VT_CHECK("wide as UTF-8",
             strcmp(vt_phase_current(), "caf\xc3\xa9/\xe6\x97\xa5\xf0\x9f\x98\x80") == 0);
    pop();
    wchar_t bad[] = {L'a', (wchar_t)0xd800, (wchar_t)0x110000, L'b', 0};
    push_w(bad);
    VT_CHECK("invalid code points", strcmp(vt_phase_current(), "a??b") == 0);
    pop();
    wchar_t long_name[600];
    for (int i = 0; i < 599; i++)
        long_name[i] = L'\u00e9';
    long_name[599] = 0;
    push_w(long_name);
    VT_CHECK("long wide name cut at a character boundary",
             strlen(vt_phase_current()) == 254 && vt_phase_current()[252] == '\xc3');
    pop();

    /* Event attributes: ASCII, unicode, registered, none, and a struct too small to hold a
     * message. */
    nvtxEventAttributes_t a = attr(NVTX_MESSAGE_TYPE_ASCII);
    a.message.ascii = "vramtrace:weights";
    VT_CHECK_EQ("pushEx ascii", push_ex(&a), 0);
    VT_CHECK("ascii", strcmp(vt_phase_current(), "vramtrace:weights") == 0);
    a = attr(NVTX_MESSAGE_TYPE_UNICODE);
    a.message.unicode = L"w";
    VT_CHECK_EQ("pushEx unicode", push_ex(&a), 1);
    VT_CHECK("unicode", strcmp(vt_phase_current(), "vramtrace:weights/w") == 0);
    register_a_fn reg_a = CORE2(f, DomainRegisterStringA, register_a_fn);
    register_w_fn reg_w = CORE2(f, DomainRegisterStringW, register_w_fn);
    a = attr(NVTX_MESSAGE_TYPE_REGISTERED);
    a.message.registered = reg_a(NULL, "r");
    VT_CHECK_EQ("pushEx registered", push_ex(&a), 2);
    VT_CHECK("registered", strcmp(vt_phase_current(), "vramtrace:weights/w/r") == 0);
    a.message.registered = reg_w(NULL, L"rw");
    push_ex(&a);
    VT_CHECK("registered wide", strcmp(vt_phase_current(), "vramtrace:weights/w/r/rw") == 0);
    a = attr(NVTX_MESSAGE_UNKNOWN);
    push_ex(&a);
    VT_CHECK("no message: empty component",
             strcmp(vt_phase_current(), "vramtrace:weights/w/r/rw/") == 0);
    a = attr(NVTX_MESSAGE_TYPE_ASCII);
    a.message.ascii = "x";
    a.size = 16;
    push_ex(&a);
    push_ex(NULL);
    VT_CHECK_EQ("short struct and NULL still count", pop(), 6);
    VT_CHECK_EQ("pop", pop(), 5);
    for (int level = 4; level >= 0; level--)
        VT_CHECK_EQ("unwind", pop(), level);
    VT_CHECK("all popped", strcmp(vt_phase_current(), "") == 0);

    /* Domains: depth per domain, one phase path; an unbalanced domain pop ends nothing. */
    domain_create_a_fn create_a = CORE2(f, DomainCreateA, domain_create_a_fn);
    domain_create_w_fn create_w = CORE2(f, DomainCreateW, domain_create_w_fn);
    domain_push_fn dpush = CORE2(f, DomainRangePushEx, domain_push_fn);
    domain_pop_fn dpop = CORE2(f, DomainRangePop, domain_pop_fn);
    nvtxDomainHandle_t d1 = create_a("one");
    nvtxDomainHandle_t d2 = create_w(L"two");
    VT_CHECK("domains created", d1 && d2 && d1 != d2);
    VT_CHECK_EQ("default push", push_a("outer"), 0);
    a = attr(NVTX_MESSAGE_TYPE_ASCII);
    a.message.ascii = "d1";
    VT_CHECK_EQ("domain 1 level 0", dpush(d1, &a), 0);
    VT_CHECK_EQ("domain 1 level 1", dpush(d1, &a), 1);
    a.message.ascii = "d2";
    VT_CHECK_EQ("domain 2 level 0", dpush(d2, &a), 0);
    VT_CHECK_EQ("NULL domain is the default one", dpush(NULL, &a), 1);
    VT_CHECK("one path across domains", strcmp(vt_phase_current(), "outer/d1/d1/d2/d2") == 0);
    VT_CHECK_EQ("NULL domain pop", dpop(NULL), 1);
    VT_CHECK_EQ("domain 2 pop", dpop(d2), 0);
    VT_CHECK_EQ("domain 2 unbalanced", dpop(d2), -1);
    VT_CHECK("unbalanced pop ends nothing", strcmp(vt_phase_current(), "outer/d1/d1") == 0);
    VT_CHECK_EQ("domain 1 pop", dpop(d1), 1);
    VT_CHECK_EQ("domain 1 pop", dpop(d1), 0);
    VT_CHECK_EQ("default pop", pop(), 0);
    CORE2(f, DomainDestroy, void (*)(nvtxDomainHandle_t))(d1);

    /* Copies share the handlers' state: a range pushed through one is popped through another
     * (libtorch pushes, the program pops), with the same depth. */
    VT_CHECK_EQ("first copy push", push_a("x"), 0);
    VT_CHECK_EQ("second copy push", CORE(&copies[1], RangePushA, push_a_fn)("y"), 1);
    VT_CHECK("one path", strcmp(vt_phase_current(), "x/y") == 0);
    VT_CHECK_EQ("second copy pops the first's", CORE(&copies[1], RangePop, pop_fn)(), 1);
    VT_CHECK_EQ("first copy pops", pop(), 0);

    /* Start/end: fresh ids, names kept until the end, on any thread; no phase. */
    start_a_fn start_a = CORE(f, RangeStartA, start_a_fn);
    start_ex_fn start_ex = CORE(f, RangeStartEx, start_ex_fn);
    end_fn end = CORE(f, RangeEnd, end_fn);
    nvtxRangeId_t r1 = start_a("epoch 1");
    a.message.ascii = "vramtrace:weights";
    nvtxRangeId_t r2 = start_ex(&a);
    VT_CHECK("ids are non-zero and distinct", r1 && r2 && r1 != r2);
    VT_CHECK("start/end ranges are not phases", strcmp(vt_phase_current(), "") == 0);
    char name[64];
    VT_CHECK("r1 kept", vt_nvtx_range_name(r1, name, sizeof name) && !strcmp(name, "epoch 1"));
    pthread_t t;
    pthread_create(&t, NULL, end_on_other_thread, &r1);
    pthread_join(t, NULL);
    VT_CHECK("r1 ended on another thread", !vt_nvtx_range_name(r1, name, sizeof name));
    VT_CHECK("r2 still open",
             vt_nvtx_range_name(r2, name, sizeof name) && !strcmp(name, "vramtrace:weights"));
    end(r2);
    end(r2);    /* twice: ignored */
    end(12345); /* unknown: ignored */
    end(0);
    VT_CHECK("r2 ended", !vt_nvtx_range_name(r2, name, sizeof name));
    nvtxRangeId_t many[70];
    for (int i = 0; i < 70; i++)
        many[i] = start_a("many");
    VT_CHECK("past the table: still an id", many[69] != 0 && many[69] != many[68]);
    VT_CHECK("past the table: no name", !vt_nvtx_range_name(many[69], name, sizeof name));
    VT_CHECK("inside the table: named", vt_nvtx_range_name(many[0], name, sizeof name));
    for (int i = 0; i < 70; i++)
        end(many[i]);
    VT_CHECK("all ended", !vt_nvtx_range_name(many[0], name, sizeof name));

    /* Marks reach vt_mark. */
    unsigned long marks = vt_n_marks();
    CORE(f, MarkA, mark_a_fn)("m");
    CORE(f, MarkW, void (*)(const wchar_t *))(L"m");
    CORE(f, MarkEx, void (*)(const nvtxEventAttributes_t *))(&a);
    CORE2(f, DomainMarkEx, void (*)(nvtxDomainHandle_t, const nvtxEventAttributes_t *))(d2, &a);
    VT_CHECK_EQ("marks counted", vt_n_marks() - marks, 4);

    /* OFF: no handlers, NVTX makes the copy's calls no-ops. */
    vt_shutdown();
    fake_nvtx_t off;
    fake_init(&off);
    current = &off;
    VT_CHECK_EQ("OFF: init returns 0", InitializeInjectionNvtx2(get_export_table), 0);
    VT_CHECK("OFF: nothing installed", off.core[NVTX_CBID_CORE_RangePushA] == NULL);
    return vt_test_done();
}

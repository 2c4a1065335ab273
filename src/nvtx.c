/* SPDX-License-Identifier: MIT */
/* NVTX v3 ranges as phases. NVTX is header-only: every DSO that uses it carries its own copy, and
 * each copy, at its first call, dlopen()s $NVTX_INJECTION64_PATH and calls the library's exported
 * InitializeInjectionNvtx2 (nvtx3/nvtxDetail/nvtxInit.h); LD_PRELOAD alone is never discovered
 * (docs/nvtx.md). So init points the variable at this library when nobody else has
 * (nvtx_inject.c), and InitializeInjectionNvtx2, called once per NVTX copy, writes our handlers
 * into that copy's callback table. Push/pop ranges become the per-thread phase path of
 * categorize.c; start/end ranges and marks are recorded but leave the path alone (docs/nvtx.md).
 * Handlers run on the program's threads at NVTX call rate: no malloc, no stdio, no getenv; only
 * domain and string registration (rare) take vt_lock for the arena. */
#include "vt_internal.h"
#include "vt_nvtx.h"

#include <stdatomic.h>
#include <string.h>

#define NAME_BYTES        256 /* a wide or registered name, converted; longer ones are cut */
#define DEPTH_SLOTS       16  /* push depth per domain: slot 0 the default domain */
#define MAX_OPEN_RANGES   64  /* start/end ranges open at once that keep their names */
#define RANGE_NAME_BYTES  64
#define DOMAIN_NAME_BYTES 60

/* What our domain and string handles point to (the program only ever passes them back). */
struct nvtxDomainRegistration_st {
    uint32_t slot; /* index into tls_depth; DEPTH_SLOTS - 1 is shared by the later domains */
    char name[DOMAIN_NAME_BYTES];
};
struct nvtxStringRegistration_st {
    char text[NAME_BYTES];
};

/* NVTX scopes push/pop depth per thread and per domain; the phase path itself is one per-thread
 * stack across domains, in call order. */
static __thread uint16_t tls_depth[DEPTH_SLOTS] __attribute__((tls_model("initial-exec")));

static atomic_uint n_domains;
static atomic_ulong n_instances;
static atomic_ullong next_range_id = 1; /* 0 is NVTX's "no range" */

/* Start/end ranges are process-wide and may end on another thread: a small table under vt_lock
 * (also taken across fork, so the child never inherits it held). */
static struct {
    uint64_t id; /* 0: free */
    uint64_t t_ns;
    char name[RANGE_NAME_BYTES];
} open_ranges[MAX_OPEN_RANGES];

/* ---- names ----------------------------------------------------------------------------------- */

/* Copies src into dst (cap bytes), cut to fit; returns dst. */
static char *copy_name(char *dst, size_t cap, const char *src)
{
    size_t len = src ? strnlen(src, cap - 1) : 0;
    memcpy(dst, src ? src : "", len);
    dst[len] = '\0';
    return dst;
}

/* narrow: a wide (UTF-32 on Linux) string as UTF-8 in buf, cut at a character boundary; code
 * points that are not Unicode scalar values become '?'. So vramtrace:<category> and rules globs
 * work the same for nvtxRangePushW(L"...") as for the ASCII calls. */
static const char *narrow(const wchar_t *w, char *buf, size_t cap)
{
    size_t used = 0;
    for (; w && *w; w++) {
        uint32_t c = (uint32_t)*w;
        char enc[4];
        size_t n;
        if (c < 0x80) {
            enc[0] = (char)c;
            n = 1;
        } else if (c < 0x800) {
            enc[0] = (char)(0xc0 | c >> 6);
            enc[1] = (char)(0x80 | (c & 0x3f));
            n = 2;
        } else if (c < 0x10000 && (c < 0xd800 || c > 0xdfff)) {
            enc[0] = (char)(0xe0 | c >> 12);
            enc[1] = (char)(0x80 | ((c >> 6) & 0x3f));
            enc[2] = (char)(0x80 | (c & 0x3f));
            n = 3;
        } else if (c >= 0x10000 && c <= 0x10ffff) {
            enc[0] = (char)(0xf0 | c >> 18);
            enc[1] = (char)(0x80 | ((c >> 12) & 0x3f));
            enc[2] = (char)(0x80 | ((c >> 6) & 0x3f));
            enc[3] = (char)(0x80 | (c & 0x3f));
            n = 4;
        } else {
            enc[0] = '?';
            n = 1;
        }
        if (used + n >= cap)
            break;
        memcpy(buf + used, enc, n);
        used += n;
    }
    buf[used] = '\0';
    return buf;
}

/* The message of an event, whatever its type; "" when it has none or is of an unknown type. */
static const char *attr_name(const nvtxEventAttributes_t *a, char *buf, size_t cap)
{
    if (!a || a->size < offsetof(nvtxEventAttributes_t, message) + sizeof a->message)
        return "";
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        return a->message.ascii ? a->message.ascii : "";
    case NVTX_MESSAGE_TYPE_UNICODE:
        return narrow(a->message.unicode, buf, cap);
    case NVTX_MESSAGE_TYPE_REGISTERED:
        /* Only our DomainRegisterString handlers make these handles in a copy we serve. */
        return a->message.registered ? a->message.registered->text : "";
    default:
        return "";
    }
}

/* ---- push / pop ------------------------------------------------------------------------------ */

static unsigned domain_slot(nvtxDomainHandle_t domain)
{
    return domain ? domain->slot : 0; /* NULL is the default domain */
}

/* Returns the 0-based level of the range started, as nvtxRangePush* must. */
static int push(unsigned slot, const char *name)
{
    uint16_t level = tls_depth[slot];
    if (!vt_guard_enter())
        return level; /* inside vramtrace already (a signal handler): not recorded */
    vt_phase_push(name);
    if (level < UINT16_MAX)
        tls_depth[slot] = (uint16_t)(level + 1);
    vt_guard_leave();
    return level;
}

/* Returns the level of the range ended, or -1 when the domain has none open on this thread: then
 * the phase path is left alone, so an unbalanced pop cannot end another domain's range. */
static int pop(unsigned slot)
{
    if (tls_depth[slot] == 0)
        return -1;
    if (!vt_guard_enter())
        return tls_depth[slot] - 1;
    vt_phase_pop();
    int level = --tls_depth[slot];
    vt_guard_leave();
    return level;
}

static int range_push_a(const char *message)
{
    return push(0, message);
}

static int range_push_w(const wchar_t *message)
{
    char buf[NAME_BYTES];
    return push(0, narrow(message, buf, sizeof buf));
}

static int range_push_ex(const nvtxEventAttributes_t *attr)
{
    char buf[NAME_BYTES];
    return push(0, attr_name(attr, buf, sizeof buf));
}

static int range_pop(void)
{
    return pop(0);
}

static int domain_range_push_ex(nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attr)
{
    char buf[NAME_BYTES];
    return push(domain_slot(domain), attr_name(attr, buf, sizeof buf));
}

static int domain_range_pop(nvtxDomainHandle_t domain)
{
    return pop(domain_slot(domain));
}

/* ---- start / end ----------------------------------------------------------------------------- */

/* A start/end range: a fresh process-wide id (never 0), its name kept until it ends. Such
 * ranges are not nested and may end on another thread, so they have no place in a thread's
 * phase path: they do not change categories, and are logged at VRAMTRACE_VERBOSE >= 2 (the
 * trace writer will record them). When more than MAX_OPEN_RANGES are open, the newest get an id
 * but no name. */
static nvtxRangeId_t range_start(const char *name)
{
    uint64_t id = atomic_fetch_add_explicit(&next_range_id, 1, memory_order_relaxed);
    uint64_t t_ns = vt_now_ns();
    if (!vt_guard_enter())
        return id;
    vt_track_lock();
    for (int i = 0; i < MAX_OPEN_RANGES; i++) {
        if (!open_ranges[i].id) {
            open_ranges[i].id = id;
            open_ranges[i].t_ns = t_ns;
            copy_name(open_ranges[i].name, sizeof open_ranges[i].name, name);
            break;
        }
    }
    vt_track_unlock();
    vt_log(2, "nvtx: range start id=%llu '%.64s'", (unsigned long long)id, name);
    vt_guard_leave();
    return id;
}

static void range_end(nvtxRangeId_t id)
{
    char name[RANGE_NAME_BYTES] = "";
    uint64_t t_ns = 0;
    if (!vt_guard_enter())
        return;
    vt_track_lock();
    for (int i = 0; id && i < MAX_OPEN_RANGES; i++) {
        if (open_ranges[i].id == id) {
            memcpy(name, open_ranges[i].name, sizeof name);
            t_ns = open_ranges[i].t_ns;
            open_ranges[i].id = 0;
            break;
        }
    }
    vt_track_unlock();
    if (t_ns)
        vt_log(2, "nvtx: range end id=%llu '%s' after %llu ns", (unsigned long long)id, name,
               (unsigned long long)(vt_now_ns() - t_ns));
    else
        vt_log(2, "nvtx: range end id=%llu (not open, or not kept)", (unsigned long long)id);
    vt_guard_leave();
}

static nvtxRangeId_t range_start_a(const char *message)
{
    return range_start(message ? message : "");
}

static nvtxRangeId_t range_start_w(const wchar_t *message)
{
    char buf[NAME_BYTES];
    return range_start(narrow(message, buf, sizeof buf));
}

static nvtxRangeId_t range_start_ex(const nvtxEventAttributes_t *attr)
{
    char buf[NAME_BYTES];
    return range_start(attr_name(attr, buf, sizeof buf));
}

static nvtxRangeId_t domain_range_start_ex(nvtxDomainHandle_t domain,
                                           const nvtxEventAttributes_t *attr)
{
    (void)domain;
    char buf[NAME_BYTES];
    return range_start(attr_name(attr, buf, sizeof buf));
}

static void domain_range_end(nvtxDomainHandle_t domain, nvtxRangeId_t id)
{
    (void)domain;
    range_end(id);
}

/* vt_nvtx_range_name: the name of the open start/end range id into buf; false when it is not
 * open (or was not kept). Takes vt_lock. */
bool vt_nvtx_range_name(uint64_t id, char *buf, size_t cap)
{
    bool found = false;
    vt_track_lock();
    for (int i = 0; id && i < MAX_OPEN_RANGES && !found; i++) {
        if (open_ranges[i].id == id) {
            copy_name(buf, cap, open_ranges[i].name);
            found = true;
        }
    }
    vt_track_unlock();
    return found;
}

/* ---- marks ----------------------------------------------------------------------------------- */

/* A mark, unless this thread is inside vramtrace already (a signal handler). */
static void mark(const char *label)
{
    if (!vt_guard_enter())
        return;
    vt_mark(label);
    vt_guard_leave();
}

static void mark_a(const char *message)
{
    mark(message ? message : "");
}

static void mark_w(const wchar_t *message)
{
    char buf[NAME_BYTES];
    mark(narrow(message, buf, sizeof buf));
}

static void mark_ex(const nvtxEventAttributes_t *attr)
{
    char buf[NAME_BYTES];
    mark(attr_name(attr, buf, sizeof buf));
}

static void domain_mark_ex(nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attr)
{
    (void)domain;
    mark_ex(attr);
}

/* ---- domains and registered strings ---------------------------------------------------------- */

/* Both live for the whole process: NVTX has no "unregister string", domains are created a few
 * times per library, and a destroyed domain's handle may still be in flight on another thread.
 * Registrations are not deduplicated. NULL when the arena is exhausted: NVTX then treats the
 * domain as the default one and the string as empty. */
static void *registration_alloc(size_t bytes)
{
    if (!vt_guard_enter())
        return NULL;
    vt_track_lock();
    void *p = vt_arena_alloc(bytes);
    vt_track_unlock();
    vt_guard_leave();
    return p;
}

static nvtxDomainHandle_t domain_create(const char *name)
{
    nvtxDomainRegistration *d = registration_alloc(sizeof *d);
    if (!d)
        return NULL;
    unsigned n = atomic_fetch_add_explicit(&n_domains, 1, memory_order_relaxed) + 1;
    d->slot = n < DEPTH_SLOTS ? n : DEPTH_SLOTS - 1;
    copy_name(d->name, sizeof d->name, name);
    vt_log(2, "nvtx: domain '%s'", d->name);
    return d;
}

static nvtxDomainHandle_t domain_create_a(const char *name)
{
    return domain_create(name);
}

static nvtxDomainHandle_t domain_create_w(const wchar_t *name)
{
    char buf[NAME_BYTES];
    return domain_create(narrow(name, buf, sizeof buf));
}

static void domain_destroy(nvtxDomainHandle_t domain)
{
    (void)domain; /* kept: see registration_alloc */
}

static nvtxStringHandle_t register_string(const char *text)
{
    nvtxStringRegistration *s = registration_alloc(sizeof *s);
    if (s)
        copy_name(s->text, sizeof s->text, text);
    return s;
}

static nvtxStringHandle_t domain_register_string_a(nvtxDomainHandle_t domain, const char *text)
{
    (void)domain;
    return register_string(text);
}

static nvtxStringHandle_t domain_register_string_w(nvtxDomainHandle_t domain, const wchar_t *text)
{
    (void)domain;
    char buf[NAME_BYTES];
    return register_string(narrow(text, buf, sizeof buf));
}

/* ---- installation ---------------------------------------------------------------------------- */

typedef struct handler_s {
    unsigned id;
    NvtxFunctionPointer fn;
} handler_t;

#define HANDLER(id, fn)                                                                            \
    {                                                                                              \
        id, (NvtxFunctionPointer)(fn)                                                              \
    }

static const handler_t core_handlers[] = {
    HANDLER(NVTX_CBID_CORE_MarkEx, mark_ex),
    HANDLER(NVTX_CBID_CORE_MarkA, mark_a),
    HANDLER(NVTX_CBID_CORE_MarkW, mark_w),
    HANDLER(NVTX_CBID_CORE_RangeStartEx, range_start_ex),
    HANDLER(NVTX_CBID_CORE_RangeStartA, range_start_a),
    HANDLER(NVTX_CBID_CORE_RangeStartW, range_start_w),
    HANDLER(NVTX_CBID_CORE_RangeEnd, range_end),
    HANDLER(NVTX_CBID_CORE_RangePushEx, range_push_ex),
    HANDLER(NVTX_CBID_CORE_RangePushA, range_push_a),
    HANDLER(NVTX_CBID_CORE_RangePushW, range_push_w),
    HANDLER(NVTX_CBID_CORE_RangePop, range_pop),
};

static const handler_t core2_handlers[] = {
    HANDLER(NVTX_CBID_CORE2_DomainMarkEx, domain_mark_ex),
    HANDLER(NVTX_CBID_CORE2_DomainRangeStartEx, domain_range_start_ex),
    HANDLER(NVTX_CBID_CORE2_DomainRangeEnd, domain_range_end),
    HANDLER(NVTX_CBID_CORE2_DomainRangePushEx, domain_range_push_ex),
    HANDLER(NVTX_CBID_CORE2_DomainRangePop, domain_range_pop),
    HANDLER(NVTX_CBID_CORE2_DomainRegisterStringA, domain_register_string_a),
    HANDLER(NVTX_CBID_CORE2_DomainRegisterStringW, domain_register_string_w),
    HANDLER(NVTX_CBID_CORE2_DomainCreateA, domain_create_a),
    HANDLER(NVTX_CBID_CORE2_DomainCreateW, domain_create_w),
    HANDLER(NVTX_CBID_CORE2_DomainDestroy, domain_destroy),
};

/* Writes the handlers into one module's slots; returns how many it wrote. An NVTX copy older
 * than an id simply has fewer slots. */
static int install(const NvtxExportTableCallbacks *cb, NvtxCallbackModule module,
                   const handler_t *handlers, size_t n_handlers)
{
    NvtxFunctionTable table = NULL;
    unsigned int size = 0;
    if (!cb->GetModuleFunctionTable(module, &table, &size) || !table)
        return 0;
    int n = 0;
    for (size_t i = 0; i < n_handlers; i++) {
        if (handlers[i].id < size && table[handlers[i].id]) {
            *table[handlers[i].id] = handlers[i].fn;
            n++;
        }
    }
    return n;
}

/* InitializeInjectionNvtx2: NVTX's tool entry point, called once by each NVTX copy in the
 * process (each DSO has its own), possibly from several threads at once. It only writes our
 * handlers into the calling copy's table, so it is idempotent and needs no lock. Returns
 * non-zero when it installed them; 0 when vramtrace is OFF (VRAMTRACE_DISABLE, secure
 * execution), which makes NVTX turn that copy's calls into no-ops, exactly as with no tool. */
VT_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table)
{
    vt_ensure_init();
    /* INITING (another thread is initialising) counts as on: handlers only touch this thread's
     * phase state, which nothing reads while vramtrace is not ON. */
    if (vt_state() == VT_STATE_OFF || !get_export_table)
        return 0;
    const NvtxExportTableCallbacks *cb = get_export_table(NVTX_ETID_CALLBACKS);
    if (!cb || cb->struct_size < sizeof *cb || !cb->GetModuleFunctionTable)
        return 0;
    int n = install(cb, NVTX_CB_MODULE_CORE, core_handlers,
                    sizeof core_handlers / sizeof core_handlers[0]);
    n += install(cb, NVTX_CB_MODULE_CORE2, core2_handlers,
                 sizeof core2_handlers / sizeof core2_handlers[0]);
    if (!n)
        return 0;
    unsigned long k = atomic_fetch_add_explicit(&n_instances, 1, memory_order_relaxed) + 1;
    vt_log(2, "nvtx: handlers installed in NVTX instance %lu", k);
    return 1;
}

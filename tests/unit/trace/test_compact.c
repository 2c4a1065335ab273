/* SPDX-License-Identifier: MIT */
/* The compact records of format 1.2 (common/vt_format.h) through the real writer and the reader:
 * every event the test hands the writer comes back from the trace with the same values, whether
 * the writer chose a compact form or fell back to a full one (edge sizes and addresses, VMM
 * handles, implicit and unmatched frees, a free of an address never seen, a key allocated
 * twice, device, api and thread switches, many threads, more live allocations than slots,
 * chunk boundaries); a small trace cut at every byte reads as a prefix of the whole, ending
 * cleanly or as truncated; corrupted bytes never crash the reader; hostile compact records
 * written by hand are refused with the reason; the whole trace, every cut and every corruption
 * stream (vt_analysis_next) as the reader and the analysis read them (stream_agree.h). Run under
 * ASan with -DVRAMTRACE_SANITIZE. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "analysis.h"
#include "stream_agree.h"
#include "trace_builder.h"
#include "trace_reader.h"
#include "vt_internal.h"
#include "vt_test.h"

static char dir[256];

static const char *tmp_path(const char *name)
{
    static char path[300];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return path;
}

/* ---- what the test hands the writer ------------------------------------------------------ */

typedef struct want_s {
    unsigned type; /* VT_REC_ALLOC or VT_REC_FREE */
    uint8_t series, handle, implicit, unmatched, category;
    uint32_t device, api, stack_id;
    uint64_t address, size_bytes, t_ns; /* t_ns: ALLOC only */
    long os_tid;
} want_t;

static want_t *wants;
static size_t n_wants, cap_wants;
static pthread_mutex_t wants_lock = PTHREAD_MUTEX_INITIALIZER;

static void want(const want_t *w)
{
    if (n_wants == cap_wants) {
        cap_wants = cap_wants ? 2 * cap_wants : 1024;
        wants = realloc(wants, cap_wants * sizeof(*wants));
        if (!wants)
            abort();
    }
    wants[n_wants++] = *w;
}

/* The trace slot of each live (series, handle, key) as the writer set it in the entry the test
 * handed it (vt_alloc_t.trace_slot), for its free: what the live table keeps in the library.
 * Open addressing with tombstones (slot 0), under wants_lock. */
#define LIVE_BITS 18
static struct {
    bool used;
    uint8_t tag;
    uint64_t key;
    uint32_t slot;
} live[1u << LIVE_BITS];

static uint32_t live_probe(uint8_t tag, uint64_t key, bool *found)
{
    uint32_t i = (uint32_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - LIVE_BITS)) ^ tag;
    for (;; i = (i + 1) & ((1u << LIVE_BITS) - 1)) {
        *found = live[i].used && live[i].key == key && live[i].tag == tag && live[i].slot;
        if (!live[i].used || *found)
            return i;
    }
}

static void live_set(uint8_t tag, uint64_t key, uint32_t slot)
{
    bool found;
    uint32_t i = live_probe(tag, key, &found);
    live[i].used = true;
    live[i].tag = tag;
    live[i].key = key;
    live[i].slot = slot;
}

static uint32_t live_take(uint8_t tag, uint64_t key)
{
    bool found;
    uint32_t i = live_probe(tag, key, &found);
    uint32_t slot = found ? live[i].slot : 0;
    if (found)
        live[i].slot = 0;
    return slot;
}

/* Both under vt_lock (the writer's rule), so the order of wants[] is the trace's. */
static void do_alloc(int series, bool handle, int device, uint64_t key, uint64_t size_bytes,
                     vt_api_t api, uint32_t stack_id, uint8_t category, bool implicit)
{
    vt_track_lock();
    pthread_mutex_lock(&wants_lock);
    vt_alloc_t a;
    memset(&a, 0, sizeof(a));
    a.key = key;
    a.space = handle ? VT_SPACE_VMM_HANDLE : (uint32_t)series;
    a.series = (int8_t)series;
    a.size_bytes = size_bytes;
    a.t_ns = vt_now_ns(); /* under vt_lock: never before the previous event */
    a.device = device;
    a.api = (uint16_t)api;
    a.category = category;
    a.stack_id = stack_id;
    vt_writer_alloc(&a, implicit);
    if (a.trace_slot)
        live_set((uint8_t)(series | (handle ? 4 : 0)), key, a.trace_slot);
    want(&(want_t){VT_REC_ALLOC, (uint8_t)series, handle, implicit, 0, category, (uint32_t)device,
                   api, stack_id, key, size_bytes, a.t_ns, syscall(SYS_gettid)});
    pthread_mutex_unlock(&wants_lock);
    vt_track_unlock();
}

static void do_free(int series, bool handle, uint64_t key, vt_api_t api, bool unmatched,
                    bool implicit)
{
    vt_track_lock();
    pthread_mutex_lock(&wants_lock);
    vt_writer_free(series, key, handle, unmatched, implicit, api,
                   live_take((uint8_t)(series | (handle ? 4 : 0)), key));
    want(&(want_t){VT_REC_FREE, (uint8_t)series, handle, implicit, unmatched, 0, 0, api, 0, key, 0,
                   0, syscall(SYS_gettid)});
    pthread_mutex_unlock(&wants_lock);
    vt_track_unlock();
}

static uint32_t stacks[40];

static void make_stacks(void)
{
    for (unsigned i = 0; i < sizeof(stacks) / sizeof(stacks[0]); i++) {
        void *ips[3] = {(void *)(uintptr_t)(0x401000 + 16 * i), (void *)(uintptr_t)0x402000,
                        (void *)(uintptr_t)(0x403000 + i % 3)};
        bool created;
        stacks[i] = vt_stack_intern(ips, 3, &created); /* takes vt_lock itself */
    }
}

/* ---- the events ---------------------------------------------------------------------------- */

#define API_A VT_API_cudaMalloc
#define API_F VT_API_cudaFree

static void edge_values(void)
{
    const uint64_t big = 0x7f0000000000ULL;
    /* Aligned and unaligned sizes and addresses, 0 and the largest. */
    static const uint64_t sizes[] = {0,
                                     1,
                                     511,
                                     512,
                                     1000,
                                     4096,
                                     1ULL << 30,
                                     (1ULL << 63) + 512,
                                     UINT64_MAX,
                                     1ULL << 63,
                                     (1ULL << 63) - 1};
    static const uint64_t addrs[] = {
        0,          0x200,  0x201, UINT64_MAX,       UINT64_MAX - 1,   big, big + 0x10, big - 0x400,
        1ULL << 63, 0x1000, 8,     (1ULL << 62) + 3, 0x7f0000000200ULL};
    for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
        uint64_t size = sizes[i % (sizeof(sizes) / sizeof(sizes[0]))];
        do_alloc(VT_SERIES_DEVICE, false, 0, addrs[i], size, API_A, stacks[i % 4], (uint8_t)(i % 7),
                 false);
    }
    for (size_t i = sizeof(sizes) / sizeof(sizes[0]); i-- > 0;)
        do_alloc(VT_SERIES_DEVICE, false, 0, 0x10000000ULL + i * 0x100000, sizes[i], API_A,
                 stacks[5], 3, false);
    for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++)
        do_free(VT_SERIES_DEVICE, false, addrs[i], API_F, false, false);
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        do_free(VT_SERIES_DEVICE, false, 0x10000000ULL + i * 0x100000, API_F, false, false);
    /* A free of an address never seen, unmatched or not; the same address again. */
    do_free(VT_SERIES_DEVICE, false, 0xdead000, API_F, true, false);
    do_free(VT_SERIES_DEVICE, false, 0xdead000, API_F, false, false);
    /* VMM handles beside a device address of the same value; pinned and managed. */
    do_alloc(VT_SERIES_DEVICE, true, 0, 7, 2 << 20, VT_API_cuMemCreate, stacks[6], 6, false);
    do_alloc(VT_SERIES_DEVICE, false, 0, 7, 512, API_A, stacks[6], 6, false);
    do_alloc(VT_SERIES_PINNED, false, 0, 0x5000, 4096, VT_API_cudaHostAlloc, stacks[7], 4, false);
    do_alloc(VT_SERIES_MANAGED, false, 0, 0x6000, 8192, VT_API_cudaMallocManaged, stacks[7], 6,
             false);
    do_free(VT_SERIES_DEVICE, true, 7, VT_API_cuMemRelease, false, false);
    do_free(VT_SERIES_DEVICE, false, 7, API_F, false, false);
    do_free(VT_SERIES_PINNED, false, 0x5000, VT_API_cudaFreeHost, false, false);
    do_free(VT_SERIES_MANAGED, false, 0x6000, API_F, false, true); /* implicit */
    /* Implicit allocations (graph memory), an unmatched free of a live key. */
    do_alloc(VT_SERIES_DEVICE, false, 1, UINT64_MAX - 1, 1 << 20, API_A, 0, 6, true);
    do_free(VT_SERIES_DEVICE, false, UINT64_MAX - 1, API_F, true, true);
    /* A key allocated twice (the first free was not seen), then freed once, then again. */
    do_alloc(VT_SERIES_DEVICE, false, 0, big + 0x8000, 1024, API_A, stacks[8], 0, false);
    do_alloc(VT_SERIES_DEVICE, false, 0, big + 0x8000, 2048, API_A, stacks[8], 0, false);
    do_free(VT_SERIES_DEVICE, false, big + 0x8000, API_F, false, false);
    do_free(VT_SERIES_DEVICE, false, big + 0x8000, API_F, false, false);
}

/* Device and api switches on one thread, as a multi-GPU process or mixed apis make them. */
static void switches(void)
{
    for (int i = 0; i < 40; i++) {
        int device = i % 3 == 0 ? 1 : 0;
        vt_api_t api = i % 5 == 0 ? VT_API_cudaMallocAsync : API_A;
        do_alloc(VT_SERIES_DEVICE, false, device, 0x7e0000000000ULL + (uint64_t)i * 0x200000,
                 (uint64_t)(i + 1) << 12, api, stacks[i % 10], 3, false);
    }
    for (int i = 39; i >= 0; i--)
        do_free(VT_SERIES_DEVICE, false, 0x7e0000000000ULL + (uint64_t)i * 0x200000,
                i % 4 == 0 ? VT_API_cudaFreeAsync : API_F, false, false);
}

/* The PyTorch-like pattern: the same sites, sizes and addresses every step, freed in reverse. */
static void steps(int n_steps, uint64_t base)
{
    for (int s = 0; s < n_steps; s++) {
        for (int k = 0; k < 30; k++)
            do_alloc(VT_SERIES_DEVICE, false, 0, base + (uint64_t)k * (4 << 20),
                     (uint64_t)512 << (k % 20), API_A, stacks[k], (uint8_t)(k % 7), false);
        for (int k = 29; k >= 0; k--)
            do_free(VT_SERIES_DEVICE, false, base + (uint64_t)k * (4 << 20), API_F, false, false);
    }
}

static void *thread_main(void *arg)
{
    uintptr_t i = (uintptr_t)arg;
    uint64_t base = 0x100000000000ULL * (i + 1);
    for (int s = 0; s < 20; s++) {
        do_alloc(VT_SERIES_DEVICE, false, (int)(i % 2), base + (uint64_t)s * 512, 512 * (i + 1),
                 API_A, stacks[i % 40], 1, false);
        if (s % 3 == 2)
            do_free(VT_SERIES_DEVICE, false, base + (uint64_t)(s - 1) * 512, API_F, false, false);
    }
    return NULL;
}

static void many_threads(int n)
{
    pthread_t t[32];
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, thread_main, (void *)(uintptr_t)i);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

/* More live allocations than there are slots: the rest are written in full. */
static void slots_run_out(void)
{
    const uint32_t n = VT_FORMAT_SLOTS + 100;
    for (uint32_t i = 0; i < n; i++)
        do_alloc(VT_SERIES_DEVICE, false, 0, 0x300000000000ULL + (uint64_t)i * 1024, 1024, API_A,
                 stacks[i % 40], 2, false);
    for (uint32_t i = 0; i < n; i++)
        do_free(VT_SERIES_DEVICE, false, 0x300000000000ULL + (uint64_t)i * 1024, API_F, false,
                false);
}

/* ---- reading it back -------------------------------------------------------------------------- */

static long os_tid_of(const vt_reader_t *r, uint64_t thread)
{
    for (uint32_t id = 1; id < r->n_threads; id++)
        if (r->threads[id].thread == thread)
            return (long)r->threads[id].os_tid;
    return -1;
}

/* Compares event ev with want w; prints the first difference. */
static int same(const vt_reader_t *r, const vt_event_t *ev, const want_t *w, size_t i)
{
    int ok = ev->type == w->type;
    if (ok && w->type == VT_REC_ALLOC)
        ok = ev->u.alloc.series == w->series && ev->u.alloc.handle == w->handle &&
             ev->u.alloc.implicit == w->implicit && ev->u.alloc.category == w->category &&
             ev->u.alloc.device == w->device && ev->u.alloc.api == w->api &&
             ev->u.alloc.stack_id == w->stack_id && ev->u.alloc.address == w->address &&
             ev->u.alloc.size_bytes == w->size_bytes &&
             (i == 0 || ev->t_ns == w->t_ns) && /* the first: clamped to the trace's open */
             os_tid_of(r, ev->u.alloc.thread) == w->os_tid;
    else if (ok)
        ok = ev->u.free.series == w->series && ev->u.free.handle == w->handle &&
             ev->u.free.implicit == w->implicit && ev->u.free.unmatched == w->unmatched &&
             ev->u.free.api == w->api && ev->u.free.address == w->address &&
             os_tid_of(r, ev->u.free.thread) == w->os_tid;
    if (!ok)
        fprintf(stderr,
                "  event %zu differs: type %u/%u address 0x%llx/0x%llx size %llu/%llu api %u/%u "
                "device %u/%u stack %u/%u t %llu/%llu tid %ld/%ld\n",
                i, ev->type, w->type, (unsigned long long)ev->u.alloc.address,
                (unsigned long long)w->address, (unsigned long long)ev->u.alloc.size_bytes,
                (unsigned long long)w->size_bytes, ev->u.alloc.api, w->api, ev->u.alloc.device,
                w->device, ev->u.alloc.stack_id, w->stack_id, (unsigned long long)ev->t_ns,
                (unsigned long long)w->t_ns, os_tid_of(r, ev->u.alloc.thread), w->os_tid);
    return ok;
}

/* Reads path; checks its events against wants[0..n): all of them, or a prefix when the file
 * was cut (rc -1 allowed then). Returns the number of events read, or -1 on a mismatch. */
static long check_events(const char *path, bool whole, int *rc_out, vt_reader_t *keep)
{
    vt_reader_t r;
    vt_event_t ev;
    if (vt_reader_open(&r, path) != 0) {
        *rc_out = -2;
        vt_reader_release(&r);
        return whole ? -1 : 0;
    }
    size_t i = 0;
    int rc;
    uint64_t last_t = 0;
    long result = 0;
    while ((rc = vt_reader_next(&r, &ev)) > 0) {
        if (ev.type != VT_REC_ALLOC && ev.type != VT_REC_FREE)
            continue;
        if (ev.t_ns < last_t || i >= n_wants || !same(&r, &ev, &wants[i], i)) {
            result = -1;
            break;
        }
        last_t = ev.t_ns;
        i++;
    }
    *rc_out = rc;
    if (result == 0)
        result = (long)i;
    if (whole && (rc != 0 || i != n_wants)) {
        fprintf(stderr, "  rc %d (%s), %zu of %zu events\n", rc, r.err, i, n_wants);
        result = -1;
    }
    if (keep)
        *keep = r;
    else
        vt_reader_release(&r);
    return result;
}

/* ---- the tests ------------------------------------------------------------------------------ */

/* The compact FREEs of path that name their slot, and those that free the newest live slot. */
static void count_frees(const char *path, long *named, long *newest)
{
    vt_reader_t r;
    vt_event_t ev;
    *named = *newest = 0;
    if (vt_reader_open(&r, path) == 0)
        while (vt_reader_next(&r, &ev) > 0) {
            unsigned t = r.map[ev.offset];
            if (ev.type != VT_REC_FREE || t < VT_REC_FREE_C || t > VT_REC_FREE_C_LAST)
                continue;
            if ((t - VT_REC_FREE_C) & VT_FREE_C_NEWEST)
                ++*newest;
            else
                ++*named;
        }
    vt_reader_release(&r);
}

static void test_round_trip(void)
{
    make_stacks();
    edge_values();
    switches();
    steps(50, 0x7d0000000000ULL);
    many_threads(16);
    slots_run_out();
    steps(4000, 0x7c0000000000ULL); /* past the first 1 MiB chunk */
    vt_shutdown();
    vt_exit_summary(); /* what the destructor does: END, the file trimmed */
    const char *path = tmp_path("whole.vtr");
    int rc;
    vt_reader_t r;
    long n = check_events(path, true, &rc, &r);
    VT_CHECK_EQ("every event back", n, (long)n_wants);
    VT_CHECK_EQ("version", r.minor, VT_FORMAT_MINOR);
    VT_CHECK("compact records used", r.n_slots > 1000);
    VT_CHECK("slots ran out", r.n_slots == VT_FORMAT_SLOTS);
    VT_CHECK("clean end", r.seen_end);
    VT_CHECK("past a chunk", r.size > VT_FORMAT_CHUNK_BYTES);
    vt_reader_release(&r);
    /* The analysis agrees with the events: nothing live at the end but what was never freed. */
    vt_reader_t r2;
    vt_analysis_t a;
    VT_CHECK_EQ("open", vt_reader_open(&r2, path), 0);
    VT_CHECK_EQ("analyze", vt_analyze(&r2, &a, UINT64_MAX), 0);
    size_t n_allocs = 0, n_frees = 0;
    for (size_t i = 0; i < n_wants; i++) {
        n_allocs += wants[i].type == VT_REC_ALLOC && !wants[i].implicit;
        n_frees += wants[i].type == VT_REC_FREE && !wants[i].implicit;
    }
    VT_CHECK_EQ("allocs", a.n_allocs, n_allocs);
    VT_CHECK_EQ("frees", a.n_frees, n_frees);
    vt_analysis_release(&a);
    vt_reader_release(&r2);
    const char *why = stream_disagreement(path);
    if (why)
        fprintf(stderr, "  the streaming loop differs: %s\n", why);
    VT_CHECK("the streaming loop agrees with the reader and the analysis", !why);
    /* Frees in reverse order free the newest live slot, and others name theirs: both forms were
     * written, and every event above came back through them. */
    long named, newest;
    count_frees(path, &named, &newest);
    VT_CHECK("frees of the newest live slot", newest > 1000);
    VT_CHECK("frees naming their slot", named > 1000);
}

/* The offset of the first ALLOC or FREE of path (the tables before it are format 1.1's). */
static size_t first_event(const char *path)
{
    vt_reader_t r;
    vt_event_t ev;
    size_t at = 0;
    if (vt_reader_open(&r, path) == 0)
        while (!at && vt_reader_next(&r, &ev) > 0)
            if (ev.type == VT_REC_ALLOC || ev.type == VT_REC_FREE)
                at = ev.offset;
    vt_reader_release(&r);
    return at;
}

/* A small trace of the real writer, written by this process (see main), cut at every byte from
 * its first event on (and at every 61st before it: strings, modules and stacks), and corrupted. */
static void test_truncation(void)
{
    const char *path = tmp_path("small.vtr");
    FILE *f = fopen(path, "rb");
    if (!f) {
        VT_CHECK("small trace", 0);
        return;
    }
    static uint8_t buf[1 << 20];
    size_t len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    size_t from = first_event(path);
    VT_CHECK("small trace read", from > 0 && len > from + 100 && len < sizeof(buf));
    if (!(from > 0 && len > from + 100 && len < sizeof(buf)))
        fprintf(stderr, "  first event at %zu of %zu bytes\n", from, len);
    int rc;
    long n = check_events(path, true, &rc, NULL);
    VT_CHECK_EQ("whole small trace", n, (long)n_wants);
    size_t bad = 0, n_differ = 0; /* streaming loop against the reader (stream_agree.h) */
    const char *cut = tmp_path("cut.vtr");
    f = fopen(cut, "wb");
    fwrite(buf, 1, len, f);
    fclose(f);
    for (size_t at = len; at-- > 0;) {
        if (at < from && at % 61)
            continue;
        if (truncate(cut, (off_t)at) != 0)
            bad++;
        n = check_events(cut, false, &rc, NULL);
        /* Before the preamble: refused; after it, a prefix that ends cleanly or as truncated. */
        if (n < 0 || (at >= VT_FORMAT_PREAMBLE_BYTES && rc != 0 && rc != -1))
            bad++;
        n_differ += stream_disagreement(cut) != NULL;
    }
    VT_CHECK_EQ("every cut reads a prefix", bad, 0);
    VT_CHECK_EQ("every cut streams as it reads", n_differ, 0);

    /* Every byte of the events corrupted to a few values: never a crash (ASan), an answer. */
    static const uint8_t values[] = {0x00, 0x01, 0x11, 0x2f, 0x31, 0x34, 0x7f, 0x80, 0xff};
    f = fopen(cut, "wb");
    fwrite(buf, 1, len, f);
    fclose(f);
    int fd = open(cut, O_WRONLY);
    for (size_t at = from; at < len; at++) {
        for (size_t v = 0; v < sizeof(values); v++) {
            if (pwrite(fd, &values[v], 1, (off_t)at) != 1)
                bad++;
            vt_reader_t r;
            vt_analysis_t a;
            if (vt_reader_open(&r, cut) == 0)
                (void)vt_analyze(&r, &a, UINT64_MAX), vt_analysis_release(&a);
            vt_reader_release(&r);
            n_differ += stream_disagreement(cut) != NULL;
        }
        if (pwrite(fd, &buf[at], 1, (off_t)at) != 1)
            bad++;
    }
    close(fd);
    VT_CHECK_EQ("corrupted", bad, 0);
    VT_CHECK_EQ("every corruption streams as it reads", n_differ, 0);
}

/* Compact records written by hand: what a damaged or hostile trace may hold. */
static void test_hostile(void)
{
    static const struct {
        const char *name;
        const uint8_t bytes[16];
        size_t len;
        const char *want;
    } bad[] = {
        /* a free of a slot that was never taken */
        {"slot not live",
         {VT_REC_FREE_C, 1, 0},
         3,
         "corrupt record at byte 20 (slot 0 is not live)"},
        /* an alloc at stack 9: none defined */
        {"stack",
         {VT_REC_ALLOC_C, 1, 9, 0, 2, 0},
         6,
         "corrupt record at byte 20 (stack 9 is not defined)"},
        /* thread 5 named: one THREAD record */
        {"thread",
         {VT_REC_ALLOC_C + VT_ALLOC_C_THREAD, 1, 5, 0, 0, 2, 0},
         7,
         "corrupt record at byte 20 (thread 5 is not defined)"},
        /* flags of a free other than unmatched and implicit */
        {"free flags",
         {VT_REC_ALLOC_C + 7, 1, 0, VT_REC_FREE_C + VT_FREE_C_EXPLICIT, 1, 0x21, 2, 0},
         8,
         "corrupt record at byte 23 (free flags 0x21)"},
        /* the same slot freed twice */
        {"double free",
         {VT_REC_ALLOC_C + 7, 1, 0, VT_REC_FREE_C, 1, 0, VT_REC_FREE_C, 1, 0},
         9,
         "corrupt record at byte 26 (slot 0 is not live)"},
        /* a device over 32 bits */
        {"device",
         {VT_REC_ALLOC_C + VT_ALLOC_C_CONTEXT, 1, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0, 2, 0},
         12,
         "corrupt record at byte 20 (device 4294967296 out of range)"},
        /* a free of the newest live slot with none live */
        {"newest, none live",
         {VT_REC_FREE_C + VT_FREE_C_NEWEST, 1},
         2,
         "corrupt record at byte 20 (no live slot to free)"},
        /* the one live slot freed as the newest twice */
        {"newest twice",
         {VT_REC_ALLOC_C + 7, 1, 0, VT_REC_FREE_C + VT_FREE_C_NEWEST, 1,
          VT_REC_FREE_C + VT_FREE_C_NEWEST, 1},
         7,
         "corrupt record at byte 25 (no live slot to free)"},
        /* cut inside the record */
        {"truncated", {VT_REC_ALLOC_C, 1, 0, 0, 0x80}, 5, "truncated record at byte 20"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        tb_t tb;
        tb_init(&tb, VT_FORMAT_MAJOR, 2);
        tb_thread(&tb, 1, 100, 0); /* bytes 16..19: the test's records start at 20 */
        tb_bytes(&tb, bad[i].bytes, bad[i].len);
        if (!strstr(bad[i].want, "truncated")) /* zeros after: the fast path tries it first */
            tb_bytes(&tb, (const uint8_t[100]){0}, 100);
        const char *path = tmp_path("hostile.vtr");
        tb_write(&tb, path, SIZE_MAX);
        vt_reader_t r;
        vt_analysis_t a;
        VT_CHECK_EQ("open", vt_reader_open(&r, path), 0);
        int rc = vt_analyze(&r, &a, UINT64_MAX);
        char want_err[512];
        snprintf(want_err, sizeof(want_err), "'%s': %s", path, bad[i].want);
        VT_CHECK(bad[i].name, rc == -1 && strcmp(r.err, want_err) == 0);
        if (rc != -1 || strcmp(r.err, want_err) != 0)
            fprintf(stderr, "  got:  %s\n  want: %s\n", r.err, want_err);
        vt_analysis_release(&a);
        vt_reader_release(&r);
        tb_release(&tb);
    }
    /* In a 1.1 trace the same types are unknown core types, as 1.1 readers said. */
    tb_t tb;
    tb_init(&tb, VT_FORMAT_MAJOR, TB_MINOR_FULL_FORMS);
    tb_u8(&tb, VT_REC_ALLOC_C);
    const char *path = tmp_path("old.vtr");
    tb_write(&tb, path, SIZE_MAX);
    vt_reader_t r;
    vt_event_t ev;
    VT_CHECK_EQ("open old", vt_reader_open(&r, path), 0);
    VT_CHECK_EQ("old minor", vt_reader_next(&r, &ev), -1);
    VT_CHECK("old minor message", strstr(r.err, "unknown record type 17") != NULL);
    vt_reader_release(&r);
    tb_release(&tb);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "small") == 0) {
        /* A child process (the writer writes one trace per process): a small trace with a few
         * of each kind, then the cuts of it. */
        snprintf(dir, sizeof(dir), "%s", argv[2]);
        vt_ensure_init();
        make_stacks();
        steps(2, 0x7d0000000000ULL);
        do_free(VT_SERIES_DEVICE, false, 0xdead000, API_F, true, false);
        do_alloc(VT_SERIES_DEVICE, true, 1, 7, 2 << 20, VT_API_cuMemCreate, stacks[6], 6, false);
        do_alloc(VT_SERIES_DEVICE, false, 1, 0x201, 1000, VT_API_cudaMallocAsync, stacks[6], 6,
                 false);
        do_free(VT_SERIES_DEVICE, true, 7, VT_API_cuMemRelease, false, true);
        many_threads(3);
        vt_shutdown();
        vt_exit_summary(); /* what the destructor does: END, the file trimmed */
        test_truncation();
        return vt_test_done();
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/vt-compact-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char cmd[700];
    snprintf(cmd, sizeof(cmd), "VRAMTRACE_QUIET=1 VRAMTRACE_OUTPUT='%s/small.vtr' '%s' small '%s'",
             dir, argv[0], dir);
    VT_CHECK_EQ("small trace and its cuts", system(cmd), 0);
    test_hostile();
    setenv("VRAMTRACE_QUIET", "1", 1);
    setenv("VRAMTRACE_OUTPUT", tmp_path("whole.vtr"), 1);
    vt_ensure_init();
    test_round_trip();
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return vt_test_done();
}

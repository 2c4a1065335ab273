/* SPDX-License-Identifier: MIT */
/* The core the shims call and the tests link directly (heaptrack libheaptrack.cpp): it keeps
 * the live table, the live bytes and peaks per series and device, and the call totals. One
 * mutex, vt_lock, guards all of it and is never held across a CUDA call (STYLE §3.8). No
 * malloc, no stdio: everything is AS-safe except pthread_mutex_lock. */
#include "vt_internal.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t vt_lock = PTHREAD_MUTEX_INITIALIZER;
static vt_series_stats_t stats[VT_SERIES_COUNT][VT_MAX_DEVICES];
static vt_totals_t totals;

/* Graph memory is one pseudo-entry per device in the device series, keyed where no address
 * can be (the top of the address space), resized to each sample of the driver's reserve. */
#define GRAPH_KEY(device) (~0ULL - (uint64_t)(device))

uint64_t vt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint32_t current_tid(void)
{
    static __thread uint32_t tid __attribute__((tls_model("initial-exec")));
    if (!tid)
        tid = (uint32_t)syscall(SYS_gettid);
    return tid;
}

static int clamp_device(int device)
{
    return device >= 0 && device < VT_MAX_DEVICES ? device : 0;
}

/* Counts size bytes into (series, device) and moves the peak. vt_lock held. */
static void count_in(int series, int device, uint64_t size_bytes, uint64_t t_ns)
{
    if (series < 0)
        return;
    vt_series_stats_t *s = &stats[series][clamp_device(device)];
    s->live_bytes += size_bytes;
    s->n_allocs++;
    if (s->live_bytes > s->peak_bytes) {
        s->peak_bytes = s->live_bytes;
        s->peak_t_ns = t_ns;
    }
}

static void count_out(int series, int device, uint64_t size_bytes)
{
    if (series < 0)
        return;
    vt_series_stats_t *s = &stats[series][clamp_device(device)];
    s->live_bytes -= size_bytes;
    s->n_frees++;
}

/* Inserts an entry and counts it; an address already live (an allocation we missed the free
 * of, e.g. a context teardown) is replaced. vt_lock held. */
static void insert_counted(const vt_alloc_t *proto)
{
    vt_alloc_t *old = vt_table_find(proto->space, proto->key);
    if (old) {
        count_out(old->series, old->device, old->size_bytes);
        vt_table_remove(old);
    }
    if (!vt_table_insert(proto)) {
        totals.n_dropped++;
        return;
    }
    count_in(proto->series, proto->device, proto->size_bytes, proto->t_ns);
}

static void fill_proto(vt_alloc_t *a, uint32_t space, int series, int device, uint64_t key,
                       uint64_t size_bytes, vt_api_t api)
{
    __builtin_memset(a, 0, sizeof *a);
    a->key = key;
    a->space = space;
    a->series = (int8_t)series;
    a->device = clamp_device(device);
    a->size_bytes = size_bytes;
    a->api = (uint16_t)api;
    a->t_ns = vt_now_ns();
    a->tid = current_tid();
}

/* vt_track_alloc: a successful allocation of size_bytes at key in series. AS-safe. */
void vt_track_alloc(vt_series_t series, int device, uint64_t key, uint64_t size_bytes, vt_api_t api)
{
    vt_alloc_t proto;
    fill_proto(&proto, series, series, device, key, size_bytes, api);
    pthread_mutex_lock(&vt_lock);
    insert_counted(&proto);
    totals.n_allocs++;
    pthread_mutex_unlock(&vt_lock);
}

/* vt_track_free_begin: takes key out of the first series of series_mask (VT_MASK bits) that
 * holds it, before the real free runs, keeping a copy in *f so vt_track_free_end can put it
 * back if the free fails. */
void vt_track_free_begin(unsigned series_mask, uint64_t key, vt_free_t *f)
{
    pthread_mutex_lock(&vt_lock);
    vt_alloc_t *a = NULL;
    for (unsigned series = 0; series < VT_SERIES_COUNT && !a; series++)
        if (series_mask & VT_MASK(series))
            a = vt_table_find(series, key);
    f->found = a != NULL;
    if (a) {
        f->saved = *a;
        count_out(a->series, a->device, a->size_bytes);
        vt_table_remove(a);
    }
    pthread_mutex_unlock(&vt_lock);
}

/* vt_track_free_end: ok is the real free's success. A failed free restores the entry and
 * counts a failure; a successful free of an address never seen counts as unmatched, never as
 * negative memory. */
void vt_track_free_end(vt_free_t *f, bool ok, vt_api_t api)
{
    (void)api; /* the trace issue records which API freed */
    pthread_mutex_lock(&vt_lock);
    if (!ok) {
        totals.n_failed++;
        if (f->found && !vt_table_find(f->saved.space, f->saved.key) &&
            vt_table_insert(&f->saved)) {
            vt_series_stats_t *s = &stats[f->saved.series][f->saved.device];
            s->live_bytes += f->saved.size_bytes; /* back as it was: not a new allocation */
            s->n_frees--;
        }
    } else if (f->found) {
        totals.n_frees++;
    } else {
        totals.n_unmatched_frees++;
    }
    pthread_mutex_unlock(&vt_lock);
}

void vt_track_failed(vt_api_t api)
{
    (void)api;
    pthread_mutex_lock(&vt_lock);
    totals.n_failed++;
    pthread_mutex_unlock(&vt_lock);
}

/* ---- VMM: physical handles count from cuMemCreate until the last release and unmap ------ */

void vt_track_vmm_create(uint64_t handle, uint64_t size_bytes, vt_series_t series, int device,
                         vt_api_t api)
{
    vt_alloc_t proto;
    fill_proto(&proto, VT_SPACE_VMM_HANDLE, series, device, handle, size_bytes, api);
    proto.refcount = 1;
    pthread_mutex_lock(&vt_lock);
    insert_counted(&proto);
    totals.n_allocs++;
    pthread_mutex_unlock(&vt_lock);
}

/* cuMemRetainAllocationHandle: one more reference to be released (cuda.h). */
void vt_track_vmm_retain(uint64_t handle)
{
    pthread_mutex_lock(&vt_lock);
    vt_alloc_t *a = vt_table_find(VT_SPACE_VMM_HANDLE, handle);
    if (a)
        a->refcount++;
    pthread_mutex_unlock(&vt_lock);
}

/* A handle whose last reference and last mapping are gone leaves its series. vt_lock held. */
static void vmm_maybe_release(vt_alloc_t *a)
{
    if (a->refcount == 0 && a->n_mappings == 0) {
        count_out(a->series, a->device, a->size_bytes);
        vt_table_remove(a);
        totals.n_frees++;
    }
}

void vt_track_vmm_release_begin(uint64_t handle, vt_free_t *f)
{
    pthread_mutex_lock(&vt_lock);
    vt_alloc_t *a = vt_table_find(VT_SPACE_VMM_HANDLE, handle);
    f->found = a != NULL && a->refcount > 0;
    if (f->found) {
        f->saved = *a;
        a->refcount--;
        vmm_maybe_release(a);
    }
    pthread_mutex_unlock(&vt_lock);
}

void vt_track_vmm_release_end(vt_free_t *f, bool ok, vt_api_t api)
{
    (void)api;
    pthread_mutex_lock(&vt_lock);
    if (!ok) {
        totals.n_failed++;
        if (f->found) {
            vt_alloc_t *a = vt_table_find(VT_SPACE_VMM_HANDLE, f->saved.key);
            if (a) {
                a->refcount++;
            } else if (vt_table_insert(&f->saved)) {
                vt_series_stats_t *s = &stats[f->saved.series][f->saved.device];
                s->live_bytes += f->saved.size_bytes;
                s->n_frees--;
                totals.n_frees--;
            }
        }
    } else if (!f->found) {
        totals.n_unmatched_frees++;
    }
    pthread_mutex_unlock(&vt_lock);
}

void vt_track_vmm_map(uint64_t va, uint64_t size_bytes, uint64_t handle)
{
    vt_alloc_t proto;
    fill_proto(&proto, VT_SPACE_VMM_MAP, -1, 0, va, size_bytes, VT_API_cuMemMap);
    proto.vmm_handle = handle;
    pthread_mutex_lock(&vt_lock);
    vt_alloc_t *h = vt_table_find(VT_SPACE_VMM_HANDLE, handle);
    if (h && !vt_table_find(VT_SPACE_VMM_MAP, va)) {
        if (vt_table_insert(&proto))
            h->n_mappings++;
        else
            totals.n_dropped++; /* a lost mapping, like a lost allocation, is counted */
    }
    pthread_mutex_unlock(&vt_lock);
}

/* After a successful cuMemUnmap: every mapping inside [va, va+size) is gone. */
void vt_track_vmm_unmap(uint64_t va, uint64_t size_bytes, vt_api_t api)
{
    (void)api;
    pthread_mutex_lock(&vt_lock);
    vt_alloc_t *a = vt_table_first();
    while (a) {
        vt_alloc_t *next = vt_table_next(a);
        if (a->space == VT_SPACE_VMM_MAP && a->key >= va && a->key - va < size_bytes) {
            vt_alloc_t *h = vt_table_find(VT_SPACE_VMM_HANDLE, a->vmm_handle);
            if (h && h->n_mappings > 0) {
                h->n_mappings--;
                if (h == next)
                    next = vt_table_next(h);
                vmm_maybe_release(h);
            }
            vt_table_remove(a);
        }
        a = next;
    }
    pthread_mutex_unlock(&vt_lock);
}

/* ---- graph memory and context teardown -------------------------------------------------- */

/* vt_track_graph_reserved: the driver now reserves reserved_bytes of graph memory on device. */
void vt_track_graph_reserved(int device, uint64_t reserved_bytes, vt_api_t api)
{
    uint64_t key = GRAPH_KEY(clamp_device(device));
    pthread_mutex_lock(&vt_lock);
    vt_alloc_t *a = vt_table_find(VT_SERIES_DEVICE, key);
    if (!a || a->size_bytes != reserved_bytes) {
        if (a) {
            count_out(a->series, a->device, a->size_bytes);
            vt_table_remove(a);
        }
        if (reserved_bytes) {
            vt_alloc_t proto;
            fill_proto(&proto, VT_SERIES_DEVICE, VT_SERIES_DEVICE, device, key, reserved_bytes,
                       api);
            insert_counted(&proto);
        }
    }
    pthread_mutex_unlock(&vt_lock);
}

/* vt_track_drop_device: the device's context was destroyed, and with it every allocation made
 * in it (device, managed, imported, graph memory); VMM handles outlive contexts. */
void vt_track_drop_device(int device, vt_api_t api)
{
    (void)api;
    device = clamp_device(device);
    pthread_mutex_lock(&vt_lock);
    vt_alloc_t *a = vt_table_first();
    while (a) {
        vt_alloc_t *next = vt_table_next(a);
        if (a->device == device && (a->space == VT_SERIES_DEVICE || a->space == VT_SERIES_MANAGED ||
                                    a->space == VT_SERIES_IMPORTED)) {
            count_out(a->series, a->device, a->size_bytes);
            vt_table_remove(a);
            totals.n_frees++;
        }
        a = next;
    }
    pthread_mutex_unlock(&vt_lock);
}

/* ---- queries, reset, fork ------------------------------------------------------------------ */

bool vt_track_stats(vt_series_t series, int device, vt_series_stats_t *out)
{
    if (series >= VT_SERIES_COUNT || device < 0 || device >= VT_MAX_DEVICES)
        return false;
    pthread_mutex_lock(&vt_lock);
    *out = stats[series][device];
    pthread_mutex_unlock(&vt_lock);
    return true;
}

void vt_track_totals(vt_totals_t *out)
{
    pthread_mutex_lock(&vt_lock);
    *out = totals;
    pthread_mutex_unlock(&vt_lock);
}

static void forget_all(void)
{
    vt_table_forget();
    __builtin_memset(stats, 0, sizeof stats);
    __builtin_memset(&totals, 0, sizeof totals);
}

/* vt_track_reset: back to an empty table and zero counts (tests). */
void vt_track_reset(void)
{
    pthread_mutex_lock(&vt_lock);
    vt_alloc_t *a = vt_table_first();
    while (a) {
        vt_alloc_t *next = vt_table_next(a);
        vt_table_remove(a);
        a = next;
    }
    forget_all();
    pthread_mutex_unlock(&vt_lock);
}

void vt_track_lock(void)
{
    pthread_mutex_lock(&vt_lock);
}

void vt_track_unlock(void)
{
    pthread_mutex_unlock(&vt_lock);
}

/* The fork child (single-threaded): the lock may be held by our prepare handler, and the
 * inherited live set is the parent's memory, not the child's (STYLE §3.11). */
void vt_track_after_fork_child(void)
{
    pthread_mutex_init(&vt_lock, NULL);
    forget_all();
}

/* ---- the exit summary ----------------------------------------------------------------------- */

static const char *const series_names[VT_SERIES_COUNT] = {"device", "pinned", "managed",
                                                          "imported"};

/* Formats bytes for people: "1.5 GiB". */
static void human_bytes(char *buf, size_t cap, uint64_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    unsigned u = 0;
    uint64_t whole = bytes, tenths = 0;
    while (whole >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
        tenths = (whole % 1024) * 10 / 1024;
        whole /= 1024;
        u++;
    }
    if (u == 0)
        vt_fmt(buf, cap, "%llu B", (unsigned long long)whole);
    else
        vt_fmt(buf, cap, "%llu.%llu %s", (unsigned long long)whole, (unsigned long long)tenths,
               units[u]);
}

/* vt_track_summary: one line on stderr (unless VRAMTRACE_QUIET), and with VRAMTRACE_VERBOSE >= 1
 * one machine-readable "stats" line per series and device that saw memory, then the totals. */
void vt_track_summary(void)
{
    vt_series_stats_t snap[VT_SERIES_COUNT][VT_MAX_DEVICES];
    vt_totals_t t;
    pthread_mutex_lock(&vt_lock);
    __builtin_memcpy(snap, stats, sizeof snap);
    t = totals;
    pthread_mutex_unlock(&vt_lock);

    int peak_device = 0;
    uint64_t live_device_bytes = 0;
    for (int series = 0; series < VT_SERIES_COUNT; series++) {
        for (int d = 0; d < VT_MAX_DEVICES; d++) {
            const vt_series_stats_t *s = &snap[series][d];
            if (!s->n_allocs && !s->peak_bytes)
                continue;
            vt_log(1,
                   "stats %s device=%d live=%llu peak=%llu peak_t_ns=%llu allocs=%llu frees=%llu",
                   series_names[series], d, (unsigned long long)s->live_bytes,
                   (unsigned long long)s->peak_bytes, (unsigned long long)s->peak_t_ns,
                   (unsigned long long)s->n_allocs, (unsigned long long)s->n_frees);
            if (series == VT_SERIES_DEVICE) {
                live_device_bytes += s->live_bytes;
                if (s->peak_bytes > snap[VT_SERIES_DEVICE][peak_device].peak_bytes)
                    peak_device = d;
            }
        }
    }
    vt_log(1, "stats totals allocs=%llu frees=%llu failed=%llu unmatched_frees=%llu dropped=%llu",
           (unsigned long long)t.n_allocs, (unsigned long long)t.n_frees,
           (unsigned long long)t.n_failed, (unsigned long long)t.n_unmatched_frees,
           (unsigned long long)t.n_dropped);
    char peak[32], live[32];
    human_bytes(peak, sizeof peak, snap[VT_SERIES_DEVICE][peak_device].peak_bytes);
    human_bytes(live, sizeof live, live_device_bytes);
    vt_log(
        0,
        "peak %s of device memory on device %d, %llu allocs, %llu frees, %llu failed, %s live at exit",
        peak, peak_device, (unsigned long long)t.n_allocs, (unsigned long long)t.n_frees,
        (unsigned long long)t.n_failed, live);
}

/* SPDX-License-Identifier: MIT */
/* The trace reader (trace_reader.h). The file is
 * mapped read-only; every varint is read through a cursor that stops at the end of the file,
 * so a truncated or corrupt trace gives an error naming the byte, never a read past the end.
 * The exception is the fast path for ALLOC and FREE (most of a trace, see "the fast path"),
 * which checks the end once per record instead, and hands every record that is not plainly
 * valid to the cursor's path, so the errors are the same. */
#include "trace_reader.h"
#include "input.h"
#include "trace_decode.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- errors -------------------------------------------------------------------------------- */

int vt_reader_fail(vt_reader_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof(r->err), fmt, ap);
    va_end(ap);
    r->state = -1;
    return -1;
}

/* ---- the mappings, for the SIGBUS handler ------------------------------------------------- */

/* The traces mapped now, in slots the handler reads without a lock: base 0 is a free slot, 1 one
 * being filled; size and path are set before the base is published. */
#define MAX_MAPPED 256
static struct {
    _Atomic uintptr_t base;
    size_t size;
    const char *path;
} mapped[MAX_MAPPED];

static void mapped_note(const void *base, size_t size, const char *path)
{
    for (int i = 0; i < MAX_MAPPED; i++) {
        uintptr_t free_slot = 0;
        if (atomic_compare_exchange_strong(&mapped[i].base, &free_slot, 1)) {
            mapped[i].size = size;
            mapped[i].path = path;
            atomic_store(&mapped[i].base, (uintptr_t)base);
            return;
        }
    }
    /* All taken: this mapping's SIGBUS keeps its default action. */
}

static void mapped_forget(const void *base)
{
    for (int i = 0; i < MAX_MAPPED; i++)
        if (atomic_load(&mapped[i].base) == (uintptr_t)base) {
            atomic_store(&mapped[i].base, 0);
            return;
        }
}

static void write_str(const char *s)
{
    ssize_t n = write(2, s, strlen(s));
    (void)n;
}

/* Async-signal-safe: write(2) and _exit only. */
static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    uintptr_t at = (uintptr_t)si->si_addr;
    for (int i = 0; i < MAX_MAPPED; i++) {
        uintptr_t base = atomic_load(&mapped[i].base);
        if (base > 1 && at >= base && at - base < mapped[i].size) {
            write_str("vramtrace: '");
            write_str(mapped[i].path);
            write_str("': the trace changed while it was read (another process truncated it)\n");
            _exit(1);
        }
    }
    signal(sig, SIG_DFL); /* not ours: the fault happens again, with its default action */
}

void vt_reader_catch_truncation(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

/* ---- open / release ------------------------------------------------------------------------ */

int vt_reader_open(vt_reader_t *r, const char *path)
{
    memset(r, 0, sizeof(*r));
    r->path = path;
    /* Non-blocking and regular files only (input.h): a FIFO named as a trace must not wait
     * for a writer, nor a device be mapped. */
    int fd = vt_input_open(path);
    if (fd < 0 && errno == ENOTSUP)
        return vt_reader_fail(r, "'%s': not a regular file", path);
    if (fd < 0 && errno == EISDIR)
        return vt_reader_fail(r, "cannot read '%s': %s", path, strerror(EISDIR));
    if (fd < 0)
        return vt_reader_fail(r, "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return vt_reader_fail(r, "cannot read '%s': %s", path, strerror(e));
    }
    if (st.st_size == 0) {
        close(fd);
        return vt_reader_fail(r, "'%s': not a vramtrace trace (empty file)", path);
    }
    /* Shared: readers do not exclude each other, and a writer that would reuse the name sees
     * the file taken. A live trace's writer holds it exclusively: it is read all the same,
     * unlocked, and a truncation at its end is caught (vt_reader_catch_truncation). */
    (void)flock(fd, LOCK_SH | LOCK_NB);
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    if (map == MAP_FAILED) {
        close(fd);
        return vt_reader_fail(r, "cannot read '%s': %s", path, strerror(e));
    }
    r->map = map;
    r->fd = fd;
    r->size = (size_t)st.st_size;
    mapped_note(map, r->size, path);

    size_t n_magic = r->size < VT_FORMAT_MAGIC_BYTES ? r->size : VT_FORMAT_MAGIC_BYTES;
    if (memcmp(r->map, VT_FORMAT_MAGIC, n_magic) != 0)
        return vt_reader_fail(r, "'%s': not a vramtrace trace (no VRAMTRC magic)", path);
    if (r->size < VT_FORMAT_PREAMBLE_BYTES)
        return vt_reader_fail(r, "'%s': truncated preamble (%zu of %d bytes)", path, r->size,
                              VT_FORMAT_PREAMBLE_BYTES);
    r->major = r->map[8] | (unsigned)r->map[9] << 8;
    r->minor = r->map[10] | (unsigned)r->map[11] << 8;
    /* A newer minor only adds extension records, which are skipped by length. */
    if (r->major != VT_FORMAT_MAJOR)
        return vt_reader_fail(
            r, "'%s': trace format version %u.%u is not supported (this vramtrace reads %d.x)",
            path, r->major, r->minor, VT_FORMAT_MAJOR);
    r->pos = VT_FORMAT_PREAMBLE_BYTES;
    /* Ids count from 1: slot 0 of each table stands for "none". */
    r->n_strings = r->n_stacks = r->n_threads = 1;
    if (r->minor >= 2) {
        /* Compact records: their state starts empty (vt_format.h). */
        r->compact = true;
        r->free_top = r->newest = UINT32_MAX;
        r->cache = calloc(VT_FORMAT_STACK_CACHE, sizeof(*r->cache));
        r->contexts = calloc(64, sizeof(*r->contexts));
        r->cap_contexts = 64;
        if (!r->cache || !r->contexts)
            return vt_reader_fail(r, "'%s': out of memory", path);
    }
    return 0;
}

void vt_reader_release(vt_reader_t *r)
{
    if (r->map) {
        mapped_forget(r->map);
        munmap((void *)r->map, r->trimmed_size ? r->trimmed_size : r->size);
        close(r->fd); /* and with it the shared lock */
    }
    free(r->strings);
    free(r->stacks);
    free(r->threads);
    free(r->devices);
    free(r->api_names);
    free(r->process_kv);
    free(r->modules);
    free(r->contexts);
    free(r->cache);
    free(r->slots);
    memset(r, 0, sizeof(*r));
}

/* ---- the cursor ---------------------------------------------------------------------------- */

static uint64_t get_u(cur_t *c)
{
    uint64_t v;
    if (c->bad)
        return 0;
    unsigned n = vt_get_varint(c->p, c->end, &v);
    if (n) {
        c->p += n;
        return v;
    }
    /* Nothing decoded: the file ended inside the varint, or it has more than 64 bits. */
    size_t avail = (size_t)(c->end - c->p);
    c->bad = CUR_TRUNCATED;
    for (size_t i = 0; i < avail && i < 10; i++)
        if (!(c->p[i] & 0x80) || i == 9) {
            c->bad = CUR_CORRUPT;
            c->why = "a varint longer than 64 bits";
        }
    return 0;
}

static int64_t get_s(cur_t *c)
{
    uint64_t u = get_u(c);
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

void vt_cur_corrupt(cur_t *c, const char *fmt, ...)
{
    if (c->bad)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why_buf, sizeof(c->why_buf), fmt, ap);
    va_end(ap);
    c->bad = CUR_CORRUPT;
    c->why = c->why_buf;
}

/* A varint that must fit 32 bits (devices, apis, counts). */
static uint32_t get_u32(cur_t *c, const char *what)
{
    uint64_t v = get_u(c);
    if (v > UINT32_MAX)
        vt_cur_corrupt(c, "%s %" PRIu64 " out of range", what, v);
    return (uint32_t)v;
}

/* An id that must name a record already read (0: none). */
static uint32_t get_ref(cur_t *c, uint32_t n_defined, const char *what)
{
    uint64_t v = get_u(c);
    if (v >= n_defined)
        vt_cur_corrupt(c, "%s %" PRIu64 " is not defined", what, v);
    return (uint32_t)v;
}

/* Bytes of a length read just before: the file must hold them. */
static const uint8_t *get_bytes(cur_t *c, uint64_t len)
{
    if (c->bad)
        return NULL;
    if (len > (uint64_t)(c->end - c->p)) {
        c->bad = CUR_TRUNCATED;
        return NULL;
    }
    const uint8_t *b = c->p;
    c->p += len;
    return b;
}

/* A compact record at c (after its type byte) into ev, through the cursor: the slow path.
 * Returns 0 (c->bad tells a truncated or corrupt body) or -1 when out of memory. */
static uint8_t get_u8(cur_t *c);

static int decode_compact(vt_reader_t *r, cur_t *c, unsigned t, vt_event_t *ev)
{
    compact_fields_t x = {0};
    x.dt = get_u(c);
    if (t <= VT_REC_ALLOC_C_LAST) {
        unsigned bits = t - VT_REC_ALLOC_C;
        if (bits & VT_ALLOC_C_THREAD)
            x.thread = get_u(c);
        if (bits & VT_ALLOC_C_CONTEXT) {
            x.device = get_u(c);
            x.api = get_u(c);
        }
        x.stack = get_u(c);
        if (!(bits & VT_ALLOC_C_SAME_FLAGS))
            x.flags = get_u8(c);
        if (!(bits & VT_ALLOC_C_SAME_SIZE))
            x.size_code = get_u(c);
        if (!(bits & VT_ALLOC_C_SAME_ADDRESS))
            x.address_code = get_u(c);
    } else {
        unsigned bits = t - VT_REC_FREE_C;
        if (bits & VT_FREE_C_THREAD)
            x.thread = get_u(c);
        if (bits & VT_FREE_C_EXPLICIT) {
            x.flags = get_u8(c);
            x.api = get_u(c);
        }
        if (!(bits & VT_FREE_C_NEWEST))
            x.slot = get_u(c);
    }
    if (c->bad)
        return 0;
    fast_rec_t f;
    int rc = compact_apply(r, t, &x, &f, c, true);
    if (rc < 0)
        return -1;
    if (rc > 0)
        fast_event(ev, ev->offset, t <= VT_REC_ALLOC_C_LAST ? VT_REC_ALLOC : VT_REC_FREE, &f);
    return 0;
}

/* ---- records ------------------------------------------------------------------------------- */

static void event_time(vt_reader_t *r, cur_t *c, vt_event_t *ev)
{
    uint64_t dt = get_u(c);
    if (!r->seen_event)
        r->t_ns = r->t0_ns;
    r->seen_event = true;
    r->t_ns = vt_sat_add(r->t_ns, dt); /* a hostile trace's time stops at the end of the range */
    ev->t_ns = r->t_ns;
}

static uint64_t next_address(vt_reader_t *r, cur_t *c)
{
    r->address += (uint64_t)get_s(c);
    return r->address;
}

static uint8_t get_u8(cur_t *c)
{
    const uint8_t *b = get_bytes(c, 1);
    return b ? *b : 0;
}

/* The DEVICE entry of device, added (all unknown) when there is none; NULL when out of memory. */
static vt_trace_device_t *device_entry(vt_reader_t *r, uint32_t device)
{
    uint32_t i = 0;
    while (i < r->n_devices && r->devices[i].device != device)
        i++;
    if (i == r->n_devices) {
        if (grow((void **)&r->devices, &r->cap_devices, r->n_devices + 1, sizeof(*r->devices)))
            return NULL;
        r->devices[r->n_devices++] = (vt_trace_device_t){.device = device};
    }
    return &r->devices[i];
}

/* Decodes the body of core record type t at c into ev and the tables. Returns 0, or -1 when
 * out of memory (c->bad tells a truncated or corrupt body). */
static int decode(vt_reader_t *r, cur_t *c, unsigned t, vt_event_t *ev)
{
    uint8_t b;
    uint64_t n;
    const uint8_t *bytes;
    switch (t) {
    case VT_REC_ALLOC:
        event_time(r, c, ev);
        b = get_u8(c);
        ev->u.alloc.series = b & VT_FLAG_SERIES_MASK;
        ev->u.alloc.category = VT_FLAG_CATEGORY(b);
        ev->u.alloc.handle = (b & VT_FLAG_HANDLE) != 0;
        ev->u.alloc.implicit = (b & VT_FLAG_IMPLICIT) != 0;
        ev->u.alloc.device = get_u32(c, "device");
        ev->u.alloc.api = get_u32(c, "api");
        ev->u.alloc.address = next_address(r, c);
        ev->u.alloc.size_bytes = get_u(c);
        ev->u.alloc.stack_id = get_ref(c, r->n_stacks, "stack");
        ev->u.alloc.thread = get_u(c);
        break;
    case VT_REC_FREE:
        event_time(r, c, ev);
        b = get_u8(c);
        ev->u.free.series = b & VT_FLAG_SERIES_MASK;
        ev->u.free.unmatched = (b & VT_FLAG_UNMATCHED) != 0;
        ev->u.free.handle = (b & VT_FLAG_HANDLE) != 0;
        ev->u.free.implicit = (b & VT_FLAG_IMPLICIT) != 0;
        ev->u.free.api = get_u32(c, "api");
        ev->u.free.address = next_address(r, c);
        ev->u.free.thread = get_u(c);
        break;
    case VT_REC_FAILED:
        event_time(r, c, ev);
        ev->u.failed.api = get_u32(c, "api");
        ev->u.failed.requested_bytes = get_u(c);
        ev->u.failed.error = get_u(c);
        ev->u.failed.stack_id = get_ref(c, r->n_stacks, "stack");
        ev->u.failed.thread = get_u(c);
        break;
    case VT_REC_OOM:
        event_time(r, c, ev);
        ev->u.oom.device = get_u32(c, "device");
        ev->u.oom.api = get_u32(c, "api");
        ev->u.oom.requested_bytes = get_u(c);
        ev->u.oom.stack_id = get_ref(c, r->n_stacks, "stack");
        ev->u.oom.thread = get_u(c);
        ev->u.oom.free_bytes = get_u(c);
        ev->u.oom.total_bytes = get_u(c);
        for (int i = 0; i < VT_CAT_COUNT; i++)
            ev->u.oom.live_bytes[i] = get_u(c);
        break;
    case VT_REC_STACK: {
        uint32_t parent = get_ref(c, r->n_stacks, "stack parent");
        uint64_t delta = (uint64_t)get_s(c);
        if (c->bad)
            break;
        if (grow((void **)&r->stacks, &r->cap_stacks, r->n_stacks + 1, sizeof(*r->stacks)))
            return -1;
        uint64_t parent_ip = parent ? r->stacks[parent].ip : 0;
        ev->u.stack.id = r->n_stacks;
        ev->u.stack.parent_id = parent;
        ev->u.stack.ip = parent_ip + delta;
        r->stacks[r->n_stacks++] = (vt_trace_stack_t){parent, parent_ip + delta};
        break;
    }
    case VT_REC_STRING:
        n = get_u(c);
        if (n > UINT32_MAX && !c->bad)
            vt_cur_corrupt(c, "string length %" PRIu64 " out of range", n);
        bytes = get_bytes(c, n);
        if (c->bad)
            break;
        if (grow((void **)&r->strings, &r->cap_strings, r->n_strings + 1, sizeof(*r->strings)))
            return -1;
        ev->u.string.id = r->n_strings;
        ev->u.string.len = (uint32_t)n;
        ev->u.string.bytes = (const char *)bytes;
        r->strings[r->n_strings++] = (vt_trace_string_t){(uint64_t)(bytes - r->map), (uint32_t)n};
        break;
    case VT_REC_MODULE:
        ev->u.module.load_bias = get_u(c);
        ev->u.module.lo = get_u(c);
        ev->u.module.hi = get_u(c);
        ev->u.module.path_string_id = get_ref(c, r->n_strings, "string");
        n = get_u(c);
        if (n > UINT32_MAX && !c->bad)
            vt_cur_corrupt(c, "build id length %" PRIu64 " out of range", n);
        ev->u.module.build_id_len = (uint32_t)n;
        ev->u.module.build_id = get_bytes(c, n);
        if (c->bad)
            break;
        if (r->n_modules >= UINT32_MAX || grow((void **)&r->modules, &r->cap_modules,
                                               (uint32_t)r->n_modules + 1, sizeof(*r->modules)))
            return -1;
        r->modules[r->n_modules++] = (vt_trace_module_t){
            ev->u.module.load_bias,      ev->u.module.lo,           ev->u.module.hi,
            ev->u.module.path_string_id, ev->u.module.build_id_len, ev->u.module.build_id};
        break;
    case VT_REC_THREAD:
        ev->u.thread.thread = get_u(c);
        ev->u.thread.os_tid = get_u(c);
        ev->u.thread.name_string_id = get_ref(c, r->n_strings, "string");
        if (c->bad)
            break;
        if (grow((void **)&r->threads, &r->cap_threads, r->n_threads + 1, sizeof(*r->threads)))
            return -1;
        ev->u.thread.id = r->n_threads;
        r->threads[r->n_threads++] = (vt_trace_thread_t){ev->u.thread.thread, ev->u.thread.os_tid,
                                                         ev->u.thread.name_string_id};
        break;
    case VT_REC_PHASE_PUSH:
    case VT_REC_MARK:
        event_time(r, c, ev);
        ev->u.phase.thread = get_u(c);
        ev->u.phase.string_id = get_ref(c, r->n_strings, "string");
        break;
    case VT_REC_PHASE_POP:
        event_time(r, c, ev);
        ev->u.phase.thread = get_u(c);
        break;
    case VT_REC_MEMINFO:
        event_time(r, c, ev);
        ev->u.meminfo.device = get_u32(c, "device");
        ev->u.meminfo.free_bytes = get_u(c);
        ev->u.meminfo.total_bytes = get_u(c);
        break;
    case VT_REC_PROCESS: {
        ev->u.process.t0_ns = get_u(c);
        ev->u.process.start_unix_ns = get_u(c);
        n = get_u(c);
        /* Each pair takes at least two bytes: a larger count cannot fit in the file. */
        if (!c->bad && n > (uint64_t)(c->end - c->p) / 2)
            c->bad = CUR_TRUNCATED;
        if (c->bad)
            break;
        uint32_t *kv = malloc((size_t)(n ? n : 1) * 2 * sizeof(*kv));
        if (!kv)
            return -1;
        for (uint64_t i = 0; i < 2 * n; i++)
            kv[i] = get_ref(c, r->n_strings, "string");
        if (c->bad) {
            free(kv);
            break;
        }
        ev->u.process.n = (uint32_t)n;
        free(r->process_kv);
        r->process_kv = kv;
        r->n_process_kv = (uint32_t)n;
        r->start_unix_ns = ev->u.process.start_unix_ns;
        /* The first event's delta is from t0; a PROCESS record after events changes nothing. */
        r->seen_process = true;
        if (!r->seen_event)
            r->t0_ns = r->t_ns = ev->u.process.t0_ns;
        break;
    }
    case VT_REC_DEVICE: {
        uint32_t device = get_u32(c, "device");
        uint32_t name = get_ref(c, r->n_strings, "string");
        uint64_t total = get_u(c);
        if (c->bad)
            break;
        ev->u.device.device = device;
        ev->u.device.name_string_id = name;
        ev->u.device.total_bytes = total;
        vt_trace_device_t *d = device_entry(r, device);
        if (!d)
            return -1;
        d->name_string_id = name;
        d->total_bytes = total;
        break;
    }
    case VT_REC_END:
        event_time(r, c, ev);
        ev->u.end.allocs = get_u(c);
        ev->u.end.frees = get_u(c);
        ev->u.end.failed = get_u(c);
        ev->u.end.unmatched_frees = get_u(c);
        ev->u.end.dropped = get_u(c);
        if (!c->bad) {
            r->seen_end = true;
            r->dropped = ev->u.end.dropped;
        }
        break;
    case VT_REC_API_NAMES: {
        n = get_u(c);
        if (!c->bad && n > (uint64_t)(c->end - c->p))
            c->bad = CUR_TRUNCATED;
        if (c->bad)
            break;
        uint32_t *names = malloc((size_t)(n ? n : 1) * sizeof(*names));
        if (!names)
            return -1;
        for (uint64_t i = 0; i < n; i++)
            names[i] = get_ref(c, r->n_strings, "string");
        if (c->bad) {
            free(names);
            break;
        }
        ev->u.api_names.n = (uint32_t)n;
        free(r->api_names);
        r->api_names = names;
        r->n_api_names = (uint32_t)n;
        break;
    }
    default:
        if (is_compact(r, t))
            return decode_compact(r, c, t, ev);
        vt_cur_corrupt(c, "unknown record type %u", t);
        break;
    }
    return 0;
}

/* ---- the fast path: ALLOC and FREE away from the end of the file ---------------------------- */

/* The mapping is faulted in a window at a time, ahead of the reader: one madvise per window
 * instead of a page fault per 16 pages (the kernel's fault-around), which costs 10% of a
 * `report` on a VM. A window, not MAP_POPULATE: memory use and start-up stay independent of
 * the file's size. A failed madvise changes nothing: the pages fault in as before.
 * The window before the one the reader left is handed back (MADV_DONTNEED): the records are
 * read once, front to back, so the process's resident set is the live set plus two windows,
 * not the file. The mapping is private, read-only and never written, so a page handed back is
 * only unmapped: a later look at it (a string, a module's build id) faults it in again from
 * the file, the same bytes. */
#define POPULATE_BYTES ((size_t)8 << 20)

void vt_reader_populate(vt_reader_t *r)
{
    size_t from = r->mapped,
           len = r->size - from < POPULATE_BYTES ? r->size - from : POPULATE_BYTES;
#ifdef MADV_POPULATE_READ
    (void)madvise((void *)(r->map + from), len, MADV_POPULATE_READ);
#else
    (void)madvise((void *)(r->map + from), len, MADV_WILLNEED);
#endif
    r->mapped = from + len;
    /* Windows start at multiples of POPULATE_BYTES (a page multiple) until a followed trace
     * grows, then anywhere: the bounds are rounded to pages, inward. */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (from >= 2 * POPULATE_BYTES && r->pos >= from) {
        size_t lo = (from - 2 * POPULATE_BYTES + page - 1) / page * page,
               hi = (from - POPULATE_BYTES) / page * page;
        if (hi > lo)
            (void)madvise((void *)(r->map + lo), hi - lo, MADV_DONTNEED);
    }
}

int vt_reader_next(vt_reader_t *r, vt_event_t *ev)
{
    if (r->pos >= r->mapped && r->pos < r->size)
        vt_reader_populate(r);
    if (r->state)
        return r->state > 0 ? 0 : -1;
    /* The end of the file at a record boundary is the end of data (a writer that trims its
     * file at exit leaves no END_OF_DATA byte). */
    if (r->pos >= r->size) {
        r->state = 1;
        return 0;
    }
    size_t start = r->pos;
    unsigned t = r->map[start];
    fast_rec_t f;
    if ((t == VT_REC_ALLOC || t == VT_REC_FREE) && r->size - start > FAST_RECORD_BYTES &&
        fast_record(r, start, t, &f)) {
        fast_event(ev, start, t, &f);
        return 1;
    }
    unsigned et;
    if (is_compact(r, t) && r->size - start > FAST_RECORD_BYTES &&
        (et = fast_compact(r, start, t, &f))) {
        fast_event(ev, start, et, &f);
        return 1;
    }
    memset(ev, 0, sizeof(*ev));
    ev->type = t;
    ev->offset = start;
    ev->t_ns = r->t_ns;
    if (t == VT_REC_END_OF_DATA) {
        r->state = 1;
        return 0;
    }
    cur_t c = {.p = r->map + start + 1, .end = r->map + r->size};
    if (t == VT_REC_SKIP) {
        /* Chunks are measured from the start of the file, preamble included. */
        uint64_t next = ((uint64_t)start / VT_FORMAT_CHUNK_BYTES + 1) * VT_FORMAT_CHUNK_BYTES;
        r->pos = next < r->size ? (size_t)next : r->size;
        r->n_records++;
        return 1;
    }
    if (t >= VT_REC_FIRST_EXTENSION) {
        ev->u.ext.body_len = get_u(&c);
        const uint8_t *body = get_bytes(&c, ev->u.ext.body_len);
        if (!c.bad && (t == VT_REC_CAPPED || t == VT_REC_PEAK || t == VT_REC_INFLIGHT ||
                       t == VT_REC_DEVICE_IDS || t == VT_REC_POOL)) {
            /* Known extensions: decode within their body; extra bytes are a later minor's. */
            uint64_t body_len = ev->u.ext.body_len; /* the union's fields overwrite it */
            cur_t bc = {.p = body, .end = body + body_len};
            if (t == VT_REC_CAPPED) {
                ev->u.capped.limit_bytes = get_u(&bc);
            } else if (t == VT_REC_INFLIGHT) {
                ev->u.inflight.device = get_u32(&bc, "device");
                ev->u.inflight.inflight_bytes = get_u(&bc);
            } else if (t == VT_REC_POOL) {
                ev->u.pool.t_ns = get_u(&bc);
                ev->u.pool.device = get_u32(&bc, "device");
                ev->u.pool.pool = get_u32(&bc, "pool");
                ev->u.pool.reserved_bytes = get_u(&bc);
                ev->u.pool.used_bytes = get_u(&bc);
                ev->u.pool.reserved_high_bytes = get_u(&bc);
                ev->u.pool.used_high_bytes = get_u(&bc);
                if (!bc.bad && !ev->u.pool.pool)
                    vt_cur_corrupt(&bc, "pool 0");
            } else if (t == VT_REC_DEVICE_IDS) {
                ev->u.device_ids.device = get_u32(&bc, "device");
                ev->u.device_ids.uuid_string_id = get_ref(&bc, r->n_strings, "string");
                ev->u.device_ids.pci_bus_id_string_id = get_ref(&bc, r->n_strings, "string");
                vt_trace_device_t *d = bc.bad ? NULL : device_entry(r, ev->u.device_ids.device);
                if (!bc.bad && !d) {
                    r->err_offset = start;
                    return vt_reader_fail(r, "'%s': out of memory at byte %zu", r->path, start);
                }
                if (d) {
                    d->uuid_string_id = ev->u.device_ids.uuid_string_id;
                    d->pci_bus_id_string_id = ev->u.device_ids.pci_bus_id_string_id;
                }
            } else {
                ev->u.peak.series = get_u32(&bc, "series");
                ev->u.peak.device = get_u32(&bc, "device");
                ev->u.peak.peak_bytes = get_u(&bc);
                ev->u.peak.peak_t_ns = get_u(&bc);
                for (int i = 0; i < VT_CAT_COUNT; i++)
                    ev->u.peak.by_category[i] = get_u(&bc);
                ev->u.peak.has_pool_fields = !bc.bad && bc.p < bc.end;
                ev->u.peak.pool_spare_bytes = ev->u.peak.has_pool_fields ? get_u(&bc) : 0;
                ev->u.peak.tensors_peak_bytes =
                    ev->u.peak.has_pool_fields ? get_u(&bc) : ev->u.peak.peak_bytes;
                ev->u.peak.pool_reserved_peak_bytes = ev->u.peak.has_pool_fields ? get_u(&bc) : 0;
                if (!bc.bad && ev->u.peak.series >= VT_TRACE_SERIES_COUNT)
                    vt_cur_corrupt(&bc, "series %u", ev->u.peak.series);
            }
            /* The body's cursor says why; a body too short for its fields is corrupt (the
             * record itself was whole). */
            if (bc.bad == CUR_TRUNCATED)
                vt_cur_corrupt(&c, "a body of %" PRIu64 " bytes is too short", body_len);
            else if (bc.bad)
                vt_cur_corrupt(&c, "%s", bc.why);
        } else if (!c.bad) {
            r->n_unknown++;
        }
    } else if (decode(r, &c, t, ev) != 0) {
        r->err_offset = start;
        return vt_reader_fail(r, "'%s': out of memory at byte %zu", r->path, start);
    }
    if (c.bad) {
        r->err_offset = start;
        if (c.bad == CUR_TRUNCATED)
            return vt_reader_fail(r, "'%s': truncated record at byte %zu", r->path, start);
        return vt_reader_fail(r, "'%s': corrupt record at byte %zu (%s)", r->path, start, c.why);
    }
    r->pos = (size_t)(c.p - r->map);
    r->n_records++;
    return 1;
}

int vt_reader_follow(vt_reader_t *r)
{
    if (r->state < 0)
        return -1;
    if (r->seen_end)
        return 0;
    if (r->state == 0)
        return 1;
    /* The file open, not the name: a name removed or reused by another run leaves the file
     * the writer still writes. */
    struct stat st;
    if (fstat(r->fd, &st) != 0)
        return vt_reader_fail(r, "cannot read '%s': %s", r->path, strerror(errno));
    size_t size = (size_t)st.st_size, mapped_len = r->trimmed_size ? r->trimmed_size : r->size;
    if (size < r->pos)
        return vt_reader_fail(r,
                              "'%s': the trace was cut to %zu bytes while it was read, below the "
                              "%zu bytes read (another process truncated or rewrote it)",
                              r->path, size, r->pos);
    if (size > mapped_len) {
        /* The writer extended the file: map the rest. Strings are kept as offsets; the build
         * ids of the modules point into the mapping and move with it. */
        void *map = mremap((void *)r->map, mapped_len, size, MREMAP_MAYMOVE);
        if (map == MAP_FAILED)
            return vt_reader_fail(r, "cannot read '%s': %s", r->path, strerror(errno));
        for (uint64_t i = 0; i < r->n_modules; i++)
            if (r->modules[i].build_id)
                r->modules[i].build_id = (const uint8_t *)map + (r->modules[i].build_id - r->map);
        mapped_forget(r->map);
        r->map = map;
        r->trimmed_size = 0;
        mapped_note(map, size, r->path);
    } else if (size < mapped_len) {
        /* Trimmed at exit, after its END record: the pages past the end are gone and must not
         * be read. The mapping keeps its length for munmap. */
        r->trimmed_size = mapped_len;
    }
    r->size = size;
    r->state = 0;
    return 1;
}

/* ---- lookups ------------------------------------------------------------------------------- */

const char *vt_reader_string(const vt_reader_t *r, uint32_t id, uint32_t *len)
{
    if (id == 0 || id >= r->n_strings)
        return NULL;
    *len = r->strings[id].len;
    return (const char *)r->map + r->strings[id].offset;
}

const char *vt_reader_cstring(const vt_reader_t *r, uint32_t id, char *buf, size_t cap)
{
    uint32_t len = 0;
    const char *s = vt_reader_string(r, id, &len);
    size_t n = 0;
    for (uint32_t i = 0; s && i < len && n + 1 < cap; i++) {
        unsigned char ch = (unsigned char)s[i];
        buf[n++] = ch == 0 ? ' ' : ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
    }
    if (cap)
        buf[n] = '\0';
    return buf;
}

const char *vt_reader_api_name(const vt_reader_t *r, uint32_t api, char *buf, size_t cap)
{
    if (api < r->n_api_names && r->api_names[api]) {
        vt_reader_cstring(r, r->api_names[api], buf, cap);
        if (buf[0])
            return buf;
    }
    snprintf(buf, cap, "api#%" PRIu32, api);
    return buf;
}

const char *vt_reader_process(const vt_reader_t *r, const char *key, char *buf, size_t cap)
{
    size_t klen = strlen(key);
    for (uint32_t i = 0; i < r->n_process_kv; i++) {
        uint32_t len = 0;
        const char *k = vt_reader_string(r, r->process_kv[2 * i], &len);
        if (k && len == klen && memcmp(k, key, klen) == 0)
            return vt_reader_cstring(r, r->process_kv[2 * i + 1], buf, cap);
    }
    return NULL;
}

const vt_trace_device_t *vt_reader_device(const vt_reader_t *r, uint32_t device)
{
    for (uint32_t i = 0; i < r->n_devices; i++)
        if (r->devices[i].device == device)
            return &r->devices[i];
    return NULL;
}

uint32_t vt_reader_frame(const vt_reader_t *r, uint32_t stack_id, char *buf, size_t cap)
{
    if (stack_id == 0 || stack_id >= r->n_stacks) {
        snprintf(buf, cap, "?");
        return 0;
    }
    const vt_trace_stack_t *s = &r->stacks[stack_id];
    if (s->ip & VT_PYFRAME_BIT) {
        char name[200];
        vt_reader_cstring(r, (uint32_t)VT_PYFRAME_STRING(s->ip), name, sizeof(name));
        snprintf(buf, cap, "%s:%" PRIu64, name[0] ? name : "?", (uint64_t)VT_PYFRAME_LINE(s->ip));
    } else {
        snprintf(buf, cap, "0x%" PRIx64, s->ip);
    }
    return s->parent_id; /* always below stack_id: the walk ends */
}

int vt_stream_is_event(const vt_event_t *ev)
{
    switch (ev->type) {
    case VT_REC_ALLOC:
    case VT_REC_FREE:
    case VT_REC_FAILED:
    case VT_REC_OOM:
    case VT_REC_PHASE_PUSH:
    case VT_REC_PHASE_POP:
    case VT_REC_MARK:
    case VT_REC_MEMINFO:
    case VT_REC_END:
        return 1;
    default:
        return 0;
    }
}

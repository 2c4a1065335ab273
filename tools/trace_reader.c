/* SPDX-License-Identifier: MIT */
/* The trace reader (trace_reader.h) and the analysis behind `report` and `oom`. The file is
 * mapped read-only; every varint is read through a cursor that stops at the end of the file,
 * so a truncated or corrupt trace gives an error naming the byte, never a read past the end.
 * The exception is the fast path for ALLOC and FREE (most of a trace, see "the fast path"),
 * which checks the end once per record instead, and hands every record that is not plainly
 * valid to the cursor's path, so the errors are the same. */
#include "trace_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- errors -------------------------------------------------------------------------------- */

__attribute__((format(printf, 2, 3))) static int fail(vt_reader_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof(r->err), fmt, ap);
    va_end(ap);
    r->state = -1;
    return -1;
}

/* ---- open / release ------------------------------------------------------------------------ */

int vt_reader_open(vt_reader_t *r, const char *path)
{
    memset(r, 0, sizeof(*r));
    r->path = path;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fail(r, "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return fail(r, "cannot read '%s': %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return fail(r, "cannot read '%s': %s", path, strerror(EISDIR));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return fail(r, "'%s': not a regular file", path);
    }
    if (st.st_size == 0) {
        close(fd);
        return fail(r, "'%s': not a vramtrace trace (empty file)", path);
    }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (map == MAP_FAILED)
        return fail(r, "cannot read '%s': %s", path, strerror(e));
    r->map = map;
    r->size = (size_t)st.st_size;

    size_t n_magic = r->size < VT_FORMAT_MAGIC_BYTES ? r->size : VT_FORMAT_MAGIC_BYTES;
    if (memcmp(r->map, VT_FORMAT_MAGIC, n_magic) != 0)
        return fail(r, "'%s': not a vramtrace trace (no VRAMTRC magic)", path);
    if (r->size < VT_FORMAT_PREAMBLE_BYTES)
        return fail(r, "'%s': truncated preamble (%zu of %d bytes)", path, r->size,
                    VT_FORMAT_PREAMBLE_BYTES);
    r->major = r->map[8] | (unsigned)r->map[9] << 8;
    r->minor = r->map[10] | (unsigned)r->map[11] << 8;
    /* A newer minor only adds extension records, which are skipped by length. */
    if (r->major != VT_FORMAT_MAJOR)
        return fail(r,
                    "'%s': trace format version %u.%u is not supported (this vramtrace reads %d.x)",
                    path, r->major, r->minor, VT_FORMAT_MAJOR);
    r->pos = VT_FORMAT_PREAMBLE_BYTES;
    /* Ids count from 1: slot 0 of each table stands for "none". */
    r->n_strings = r->n_stacks = r->n_threads = 1;
    if (r->minor >= 2) {
        /* Compact records: their state starts empty (vt_format.h). */
        r->compact = true;
        r->free_top = UINT32_MAX;
        r->cache = calloc(VT_FORMAT_STACK_CACHE, sizeof(*r->cache));
        r->contexts = calloc(64, sizeof(*r->contexts));
        r->cap_contexts = 64;
        if (!r->cache || !r->contexts)
            return fail(r, "'%s': out of memory", path);
    }
    return 0;
}

void vt_reader_release(vt_reader_t *r)
{
    if (r->map)
        munmap((void *)r->map, r->size);
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

enum { CUR_OK, CUR_TRUNCATED, CUR_CORRUPT };

typedef struct cur_s {
    const uint8_t *p, *end;
    int bad;         /* CUR_* */
    const char *why; /* CUR_CORRUPT */
    char why_buf[96];
} cur_t;

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

__attribute__((format(printf, 2, 3))) static void corrupt(cur_t *c, const char *fmt, ...)
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
        corrupt(c, "%s %" PRIu64 " out of range", what, v);
    return (uint32_t)v;
}

/* An id that must name a record already read (0: none). */
static uint32_t get_ref(cur_t *c, uint32_t n_defined, const char *what)
{
    uint64_t v = get_u(c);
    if (v >= n_defined)
        corrupt(c, "%s %" PRIu64 " is not defined", what, v);
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

static int grow(void **items, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    uint32_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *p = realloc(*items, (size_t)n * size);
    if (!p)
        return -1;
    *items = p;
    *cap = n;
    return 0;
}

/* ---- compact records (format 1.2) ------------------------------------------------------------ */

/* An ALLOC or FREE as the fast path and the compact records decode it: what vt_event_t's alloc
 * and free members hold (flags: the ALLOC flags byte; for a FREE the series, VT_FLAG_HANDLE,
 * VT_FLAG_UNMATCHED and VT_FLAG_IMPLICIT bits). */
typedef struct fast_rec_s {
    uint64_t t_ns, address, size_bytes, thread;
    uint32_t device, api, stack_id;
    uint8_t flags;
} fast_rec_t;

/* The fields of a compact record as read, before they are checked and applied. */
typedef struct compact_fields_s {
    uint64_t dt, thread, device, api, stack, size_code, address_code, slot;
    uint8_t flags;
} compact_fields_t;

static inline bool is_compact(const vt_reader_t *r, unsigned t)
{
    return r->compact && t - VT_REC_ALLOC_C <= (unsigned)(VT_REC_FREE_C_LAST - VT_REC_ALLOC_C);
}

#define NO_SLOT UINT32_MAX

/* Checks the compact record t with fields x against the state and, when it is valid, applies
 * it: the state, the time and address chains; *f gets the event. Returns 1, 0 when invalid
 * (nothing changed; with c, c says why: corrupt), or -1 when out of memory. Without may_grow a
 * record that needs a table to grow is declined (0, c NULL): the fast path leaves it to the
 * slow one. */
static inline __attribute__((always_inline)) int compact_apply(vt_reader_t *r, unsigned t,
                                                               const compact_fields_t *x,
                                                               fast_rec_t *f, cur_t *c,
                                                               bool may_grow)
{
    bool alloc = t <= VT_REC_ALLOC_C_LAST;
    unsigned bits = alloc ? t - VT_REC_ALLOC_C : t - VT_REC_FREE_C;
    bool thread_named = bits & (alloc ? VT_ALLOC_C_THREAD : VT_FREE_C_THREAD);
    uint64_t thread = thread_named ? x->thread : r->cur_thread;
    if (thread_named && thread >= r->n_threads) {
        if (c)
            corrupt(c, "thread %" PRIu64 " is not defined", thread);
        return 0;
    }
    if (thread >= r->cap_contexts) {
        if (!may_grow)
            return 0;
        uint32_t old = r->cap_contexts;
        if (grow((void **)&r->contexts, &r->cap_contexts, (uint32_t)thread + 1,
                 sizeof(*r->contexts)))
            return -1;
        memset(r->contexts + old, 0, (r->cap_contexts - old) * sizeof(*r->contexts));
    }
    vt_trace_context_t *ctx = &r->contexts[thread];
    uint32_t slot;
    if (alloc) {
        bool context = bits & VT_ALLOC_C_CONTEXT;
        if (context && (x->device > UINT32_MAX || x->api > UINT32_MAX)) {
            if (c)
                corrupt(c, "%s %" PRIu64 " out of range", x->device > UINT32_MAX ? "device" : "api",
                        x->device > UINT32_MAX ? x->device : x->api);
            return 0;
        }
        if (x->stack >= r->n_stacks) {
            if (c)
                corrupt(c, "stack %" PRIu64 " is not defined", x->stack);
            return 0;
        }
        slot = r->free_top;
        if (slot == NO_SLOT) {
            if (r->n_slots >= VT_FORMAT_SLOTS) {
                if (c)
                    corrupt(c, "no free slot");
                return 0;
            }
            slot = r->n_slots;
            if (slot >= r->cap_slots) {
                if (!may_grow)
                    return 0;
                if (grow((void **)&r->slots, &r->cap_slots, slot + 1, sizeof(*r->slots)))
                    return -1;
            }
            r->n_slots++;
        } else {
            r->free_top = r->slots[slot].next;
        }
        /* Valid: apply. */
        if (context) {
            ctx->device = (uint32_t)x->device;
            ctx->alloc_api = (uint32_t)x->api;
        }
        vt_trace_cache_entry_t *e = &r->cache[x->stack & (VT_FORMAT_STACK_CACHE - 1)];
        if (!(bits & VT_ALLOC_C_SAME_FLAGS))
            e->flags = x->flags;
        if (!(bits & VT_ALLOC_C_SAME_SIZE))
            e->size_bytes = vt_size_decode(x->size_code);
        if (!(bits & VT_ALLOC_C_SAME_ADDRESS))
            e->address = vt_address_decode(x->address_code, r->address);
        r->slots[slot] = (vt_trace_slot_t){
            e->address, NO_SLOT, (uint8_t)(e->flags & (VT_FLAG_SERIES_MASK | VT_FLAG_HANDLE)), 1};
        f->address = e->address;
        f->size_bytes = e->size_bytes;
        f->flags = e->flags;
        f->device = ctx->device;
        f->api = ctx->alloc_api;
        f->stack_id = (uint32_t)x->stack;
    } else {
        bool explicit = bits & VT_FREE_C_EXPLICIT;
        if (explicit && ((x->flags & ~VT_FREE_C_FLAGS) || x->api > UINT32_MAX)) {
            if (c) {
                if (x->api > UINT32_MAX)
                    corrupt(c, "api %" PRIu64 " out of range", x->api);
                else
                    corrupt(c, "free flags 0x%02x", x->flags);
            }
            return 0;
        }
        if (x->slot >= r->n_slots || !r->slots[x->slot].live) {
            if (c)
                corrupt(c, "slot %" PRIu64 " is not live", x->slot);
            return 0;
        }
        slot = (uint32_t)x->slot;
        vt_trace_slot_t *s = &r->slots[slot];
        if (explicit)
            ctx->free_api = (uint32_t)x->api;
        s->live = 0;
        s->next = r->free_top;
        r->free_top = slot;
        f->address = s->address;
        f->size_bytes = 0;
        f->flags = (uint8_t)(s->tag | (explicit ? x->flags : 0));
        f->device = 0;
        f->api = ctx->free_api;
        f->stack_id = 0;
    }
    r->cur_thread = (uint32_t)thread;
    f->thread = thread;
    f->t_ns = (r->seen_event ? r->t_ns : r->t0_ns) + x->dt;
    r->seen_event = true;
    r->t_ns = f->t_ns;
    r->address = f->address;
    return 1;
}

/* A compact record at c (after its type byte) into ev, through the cursor: the slow path.
 * Returns 0 (c->bad tells a truncated or corrupt body) or -1 when out of memory. */
static void fast_event(vt_event_t *ev, size_t start, unsigned t, const fast_rec_t *f);
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
    r->t_ns += dt;
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
            corrupt(c, "string length %" PRIu64 " out of range", n);
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
            corrupt(c, "build id length %" PRIu64 " out of range", n);
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
        uint32_t i = 0;
        while (i < r->n_devices && r->devices[i].device != device)
            i++;
        if (i == r->n_devices) {
            if (grow((void **)&r->devices, &r->cap_devices, r->n_devices + 1, sizeof(*r->devices)))
                return -1;
            r->n_devices++;
        }
        r->devices[i] = (vt_trace_device_t){device, name, total};
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
        corrupt(c, "unknown record type %u", t);
        break;
    }
    return 0;
}

/* ---- the fast path: ALLOC and FREE away from the end of the file ---------------------------- */

/* The longest ALLOC (the longest FREE is shorter): the type, the flags byte and 7 varints. */
#define FAST_RECORD_BYTES (2 + 7 * 10)

/* A varint at p, which has at least 10 readable bytes: no bounds check. Returns the byte after
 * it, or NULL for a varint of more than 64 bits (the slow path then says so). */
static inline const uint8_t *fast_u(const uint8_t *p, uint64_t *v)
{
    if (p[0] < 0x80) {
        *v = p[0];
        return p + 1;
    }
    if (p[1] < 0x80) {
        *v = (p[0] & 0x7fu) | (uint64_t)p[1] << 7;
        return p + 2;
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* Up to 8 bytes without a branch per byte: the first clear top bit ends the varint; the
     * 7-bit groups are then packed pairwise (7+7, 14+14, 28+28). */
    uint64_t x;
    memcpy(&x, p, sizeof(x));
    uint64_t stop = ~x & 0x8080808080808080ull;
    if (stop) {
        unsigned bits = (unsigned)__builtin_ctzll(stop) + 1; /* 8 × the length */
        x &= ~0ull >> (64 - bits);
        x = ((x & 0x7f007f007f007f00ull) >> 1) | (x & 0x007f007f007f007full);
        x = ((x & 0x3fff00003fff0000ull) >> 2) | (x & 0x00003fff00003fffull);
        x = ((x & 0x0fffffff00000000ull) >> 4) | (x & 0x000000000fffffffull);
        *v = x;
        return p + bits / 8;
    }
#endif
    uint64_t out = 0;
    for (unsigned n = 0; n < 10; n++) {
        uint64_t b = p[n];
        out |= (b & 0x7f) << (7 * n);
        if (b < 0x80) {
            if (n == 9 && b > 1)
                return NULL;
            *v = out;
            return p + n + 1;
        }
    }
    return NULL;
}

/* memset(ev, 0, sizeof(*ev)) in straight-line 16-byte stores: GCC makes a 128-byte memset a
 * `rep stos`, whose start-up alone costs more than decoding the record. */
static inline void clear_event(vt_event_t *ev)
{
#if defined(__SSE2__)
    typedef uint8_t v16 __attribute__((vector_size(16)));
    v16 zero = {0};
    __asm__("" : "+x"(zero)); /* an opaque value: GCC cannot fold the stores into a memset */
    unsigned char *p = (unsigned char *)ev;
    size_t i = 0;
    for (; i + 16 <= sizeof(*ev); i += 16)
        __builtin_memcpy(p + i, &zero, 16);
    for (; i < sizeof(*ev); i++)
        p[i] = 0;
#else
    memset(ev, 0, sizeof(*ev));
#endif
}

/* Decodes the ALLOC or FREE (t) at start, which has more than FAST_RECORD_BYTES bytes after it
 * in the file, into *f, moving the reader past it exactly as decode() does. Returns 1, or 0
 * without changing anything when the record is not plainly valid (an overlong varint, a value
 * out of range, an undefined stack): decode() then reads it again and gives the error. */
static inline __attribute__((always_inline)) int fast_record(vt_reader_t *r, size_t start,
                                                             unsigned t, fast_rec_t *f)
{
    const uint8_t *p = r->map + start + 1;
    uint64_t dt, device = 0, api, delta, size = 0, stack = 0, thread;
    if (!(p = fast_u(p, &dt)))
        return 0;
    uint8_t b = *p++;
    if (t == VT_REC_ALLOC) {
        if (!(p = fast_u(p, &device)) || device > UINT32_MAX)
            return 0;
    }
    if (!(p = fast_u(p, &api)) || api > UINT32_MAX || !(p = fast_u(p, &delta)))
        return 0;
    if (t == VT_REC_ALLOC) {
        if (!(p = fast_u(p, &size)) || !(p = fast_u(p, &stack)) || stack >= r->n_stacks)
            return 0;
    }
    if (!(p = fast_u(p, &thread)))
        return 0;
    f->t_ns = (r->seen_event ? r->t_ns : r->t0_ns) + dt;
    f->address = r->address + (uint64_t)((int64_t)(delta >> 1) ^ -(int64_t)(delta & 1));
    f->size_bytes = size;
    f->thread = thread;
    f->device = (uint32_t)device;
    f->api = (uint32_t)api;
    f->stack_id = (uint32_t)stack;
    f->flags = b;
    r->seen_event = true;
    r->t_ns = f->t_ns;
    r->address = f->address;
    r->pos = (size_t)(p - r->map);
    r->n_records++;
    return 1;
}

/* The compact record t at start, which has more than FAST_RECORD_BYTES bytes after it in the
 * file, into *f as fast_record does. Returns VT_REC_ALLOC or VT_REC_FREE, the type of the event,
 * or 0 without changing anything when the record is not plainly valid (decode_compact then reads
 * it again and gives the error) or a table must grow. */
static inline __attribute__((always_inline)) unsigned fast_compact(vt_reader_t *r, size_t start,
                                                                   unsigned t, fast_rec_t *f)
{
    const uint8_t *p = r->map + start + 1;
    compact_fields_t x = {0};
    if (!(p = fast_u(p, &x.dt)))
        return 0;
    if (t <= VT_REC_ALLOC_C_LAST) {
        unsigned bits = t - VT_REC_ALLOC_C;
        if (__builtin_expect((bits & (VT_ALLOC_C_THREAD | VT_ALLOC_C_CONTEXT)) != 0, 0)) {
            if ((bits & VT_ALLOC_C_THREAD) && !(p = fast_u(p, &x.thread)))
                return 0;
            if ((bits & VT_ALLOC_C_CONTEXT) &&
                (!(p = fast_u(p, &x.device)) || !(p = fast_u(p, &x.api))))
                return 0;
        }
        if (!(p = fast_u(p, &x.stack)))
            return 0;
        if (!(bits & VT_ALLOC_C_SAME_FLAGS))
            x.flags = *p++;
        if (!(bits & VT_ALLOC_C_SAME_SIZE) && !(p = fast_u(p, &x.size_code)))
            return 0;
        if (!(bits & VT_ALLOC_C_SAME_ADDRESS) && !(p = fast_u(p, &x.address_code)))
            return 0;
    } else {
        unsigned bits = t - VT_REC_FREE_C;
        if (__builtin_expect(bits != 0, 0)) {
            if ((bits & VT_FREE_C_THREAD) && !(p = fast_u(p, &x.thread)))
                return 0;
            if (bits & VT_FREE_C_EXPLICIT) {
                x.flags = *p++;
                if (!(p = fast_u(p, &x.api)))
                    return 0;
            }
        }
        if (!(p = fast_u(p, &x.slot)))
            return 0;
    }
    if (compact_apply(r, t, &x, f, NULL, false) != 1)
        return 0;
    r->pos = (size_t)(p - r->map);
    r->n_records++;
    return t <= VT_REC_ALLOC_C_LAST ? VT_REC_ALLOC : VT_REC_FREE;
}

/* The event of a fast record, as vt_reader_next hands it out (cleared first, as decode's are). */
static inline void fast_event(vt_event_t *ev, size_t start, unsigned t, const fast_rec_t *f)
{
    clear_event(ev);
    ev->type = t;
    ev->offset = start;
    ev->t_ns = f->t_ns;
    uint8_t b = f->flags;
    if (t == VT_REC_ALLOC) {
        ev->u.alloc.series = b & VT_FLAG_SERIES_MASK;
        ev->u.alloc.category = VT_FLAG_CATEGORY(b);
        ev->u.alloc.handle = (b & VT_FLAG_HANDLE) != 0;
        ev->u.alloc.implicit = (b & VT_FLAG_IMPLICIT) != 0;
        ev->u.alloc.device = f->device;
        ev->u.alloc.api = f->api;
        ev->u.alloc.stack_id = f->stack_id;
        ev->u.alloc.address = f->address;
        ev->u.alloc.size_bytes = f->size_bytes;
        ev->u.alloc.thread = f->thread;
    } else {
        ev->u.free.series = b & VT_FLAG_SERIES_MASK;
        ev->u.free.unmatched = (b & VT_FLAG_UNMATCHED) != 0;
        ev->u.free.handle = (b & VT_FLAG_HANDLE) != 0;
        ev->u.free.implicit = (b & VT_FLAG_IMPLICIT) != 0;
        ev->u.free.api = f->api;
        ev->u.free.address = f->address;
        ev->u.free.thread = f->thread;
    }
}

/* The mapping is faulted in a window at a time, ahead of the reader: one madvise per window
 * instead of a page fault per 16 pages (the kernel's fault-around), which costs 10% of a
 * `report` on a VM. A window, not MAP_POPULATE: memory use and start-up stay independent of
 * the file's size. A failed madvise changes nothing: the pages fault in as before. */
#define POPULATE_BYTES ((size_t)8 << 20)

static void populate(vt_reader_t *r)
{
    size_t from = r->mapped,
           len = r->size - from < POPULATE_BYTES ? r->size - from : POPULATE_BYTES;
#ifdef MADV_POPULATE_READ
    (void)madvise((void *)(r->map + from), len, MADV_POPULATE_READ);
#else
    (void)madvise((void *)(r->map + from), len, MADV_WILLNEED);
#endif
    r->mapped = from + len;
}

int vt_reader_next(vt_reader_t *r, vt_event_t *ev)
{
    if (r->pos >= r->mapped && r->pos < r->size)
        populate(r);
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
        if (!c.bad && (t == VT_REC_CAPPED || t == VT_REC_PEAK)) {
            /* Known extensions: decode within their body; extra bytes are a later minor's. */
            cur_t bc = {.p = body, .end = body + ev->u.ext.body_len};
            if (t == VT_REC_CAPPED) {
                ev->u.capped.limit_bytes = get_u(&bc);
            } else {
                ev->u.peak.series = get_u32(&bc, "series");
                ev->u.peak.device = get_u32(&bc, "device");
                ev->u.peak.peak_bytes = get_u(&bc);
                ev->u.peak.peak_t_ns = get_u(&bc);
                for (int i = 0; i < VT_CAT_COUNT; i++)
                    ev->u.peak.by_category[i] = get_u(&bc);
                if (!bc.bad && ev->u.peak.series >= VT_TRACE_SERIES_COUNT)
                    corrupt(&bc, "series %u", ev->u.peak.series);
            }
            if (bc.bad)
                c.bad = bc.bad;
        } else if (!c.bad) {
            r->n_unknown++;
        }
    } else if (decode(r, &c, t, ev) != 0) {
        r->err_offset = start;
        return fail(r, "'%s': out of memory at byte %zu", r->path, start);
    }
    if (c.bad) {
        r->err_offset = start;
        if (c.bad == CUR_TRUNCATED)
            return fail(r, "'%s': truncated record at byte %zu", r->path, start);
        return fail(r, "'%s': corrupt record at byte %zu (%s)", r->path, start, c.why);
    }
    r->pos = (size_t)(c.p - r->map);
    r->n_records++;
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

/* ---- the live set -------------------------------------------------------------------------- */

static size_t live_hash(uint8_t series, uint8_t handle, uint64_t address, size_t mask)
{
    uint64_t x = address ^ ((uint64_t)series << 62) ^ ((uint64_t)handle << 61);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x & mask;
}

/* The slot of (series, handle, address) in a table with room: the entry, or the empty slot
 * where the probe for it ended (where live_insert would put it). */
static inline vt_live_t *live_probe(const vt_analysis_t *a, uint8_t series, uint8_t handle,
                                    uint64_t address)
{
    size_t mask = a->cap_live - 1;
    for (size_t i = live_hash(series, handle, address, mask);; i = (i + 1) & mask) {
        vt_live_t *e = &a->live[i];
        if (!e->used || (e->address == address && e->series == series && e->handle == handle))
            return e;
    }
}

static vt_live_t *live_find(const vt_analysis_t *a, uint8_t series, uint8_t handle,
                            uint64_t address)
{
    if (!a->cap_live)
        return NULL;
    size_t mask = a->cap_live - 1;
    for (size_t i = live_hash(series, handle, address, mask);; i = (i + 1) & mask) {
        vt_live_t *e = &a->live[i];
        if (!e->used)
            return NULL;
        if (e->address == address && e->series == series && e->handle == handle)
            return e;
    }
}

static int live_insert(vt_analysis_t *a, const vt_live_t *in)
{
    if ((a->n_live + 1) * 2 > a->cap_live) {
        size_t cap = a->cap_live ? a->cap_live * 2 : 1024;
        vt_live_t *old = a->live, *live = calloc(cap, sizeof(*live));
        if (!live)
            return -1;
        size_t old_cap = a->cap_live;
        a->live = live;
        a->cap_live = cap;
        for (size_t i = 0; i < old_cap; i++) {
            if (!old[i].used)
                continue;
            size_t j = live_hash(old[i].series, old[i].handle, old[i].address, cap - 1);
            while (live[j].used)
                j = (j + 1) & (cap - 1);
            live[j] = old[i];
        }
        free(old);
    }
    size_t mask = a->cap_live - 1, i = live_hash(in->series, in->handle, in->address, mask);
    while (a->live[i].used)
        i = (i + 1) & mask;
    a->live[i] = *in;
    a->live[i].used = 1;
    a->n_live++;
    return 0;
}

/* Linear probing deletes by shifting the following entries back (no tombstones). */
static void live_remove(vt_analysis_t *a, vt_live_t *e)
{
    size_t mask = a->cap_live - 1, i = (size_t)(e - a->live), j = i;
    a->live[i].used = 0;
    for (;;) {
        j = (j + 1) & mask;
        if (!a->live[j].used)
            break;
        size_t home = live_hash(a->live[j].series, a->live[j].handle, a->live[j].address, mask);
        /* Move j into the hole at i unless its home lies cyclically in (i, j]. */
        if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
            continue;
        a->live[i] = a->live[j];
        a->live[j].used = 0;
        i = j;
    }
    a->n_live--;
}

/* ---- analysis ------------------------------------------------------------------------------ */

static vt_device_stats_t *device_stats_add(vt_analysis_t *a, uint32_t device);

/* The stats of device, created when first seen (NULL: out of memory). */
static inline vt_device_stats_t *device_stats(vt_analysis_t *a, uint32_t device)
{
    /* Most traces have one device, or a few with the busiest first. */
    if (a->n_devices && a->devices[0].device == device)
        return &a->devices[0];
    return device_stats_add(a, device);
}

static vt_device_stats_t *device_stats_add(vt_analysis_t *a, uint32_t device)
{
    uint32_t i = 0;
    while (i < a->n_devices && a->devices[i].device < device)
        i++;
    if (i < a->n_devices && a->devices[i].device == device)
        return &a->devices[i];
    if (grow((void **)&a->devices, &a->cap_devices, a->n_devices + 1, sizeof(*a->devices)))
        return NULL;
    memmove(&a->devices[i + 1], &a->devices[i], (a->n_devices - i) * sizeof(*a->devices));
    a->n_devices++;
    memset(&a->devices[i], 0, sizeof(a->devices[i]));
    a->devices[i].device = device;
    return &a->devices[i];
}

_Static_assert(sizeof(vt_live_t) == 32, "vt_live_t: the hot path's entry, 32 bytes");

/* A new peak of d from events: its live set is now the peak's, nothing freed since. */
static void new_peak_set(vt_device_stats_t *d)
{
    d->n_peak_freed = 0;
    if (d->peak_epoch == UINT32_MAX)
        d->peak_lost = true; /* entries could not tell this peak from an older one */
    else
        d->peak_epoch++;
}

/* Live entry e of d (live at d's peak) leaves the live set: kept in d->peak_freed. */
static void peak_freed_add(vt_device_stats_t *d, const vt_live_t *e)
{
    if (d->peak_lost)
        return;
    if (d->n_peak_freed == d->cap_peak_freed) {
        size_t cap = d->cap_peak_freed ? d->cap_peak_freed * 2 : 256;
        vt_live_t *p = realloc(d->peak_freed, cap * sizeof(*p));
        if (!p) {
            d->peak_lost = true; /* the caller replays */
            return;
        }
        d->peak_freed = p;
        d->cap_peak_freed = cap;
    }
    d->peak_freed[d->n_peak_freed++] = *e;
}

/* size_bytes of a new entry (series, device d, category) into the totals and the peaks, at t_ns.
 * Scalars, not a vt_live_t: the fast path keeps them in registers. */
static inline void account_add(vt_analysis_t *a, const vt_reader_t *r, vt_device_stats_t *d,
                               uint8_t series, uint8_t category, uint64_t size_bytes, uint64_t t_ns)
{
    if (series == VT_TRACE_SERIES_DEVICE) {
        if (!d)
            return;
        d->live_bytes += size_bytes;
        d->live_by_category[category] += size_bytes;
        if (d->live_by_category[category] > d->cat_peak_bytes[category]) {
            d->cat_peak_bytes[category] = d->live_by_category[category];
            d->cat_peak_t_ns[category] = t_ns;
        }
        if (d->live_bytes > d->peak_bytes) {
            d->peak_bytes = d->live_bytes;
            d->peak_t_ns = t_ns;
            d->peak_record = r->n_records;
            memcpy(d->peak_by_category, d->live_by_category, sizeof(d->peak_by_category));
            new_peak_set(d);
        }
    }
    uint64_t *live = &a->live_bytes[series];
    *live += size_bytes;
    if (*live > a->peak_bytes[series]) {
        a->peak_bytes[series] = *live;
        a->peak_t_ns[series] = t_ns;
    }
}

/* Live entry e out of the totals (it is being freed or replaced). */
static inline void account_remove(vt_analysis_t *a, const vt_live_t *e)
{
    if (e->series == VT_TRACE_SERIES_DEVICE) {
        vt_device_stats_t *d = device_stats(a, e->device);
        if (!d)
            return;
        d->live_bytes -= e->size_bytes;
        d->live_by_category[e->category] -= e->size_bytes;
        /* Allocated before the device's last peak from events: it was live then. */
        if (a->keep_peaks && e->peak_epoch != d->peak_epoch && d->peak_record != UINT64_MAX)
            peak_freed_add(d, e);
    }
    a->live_bytes[e->series] -= e->size_bytes;
}

/* An ALLOC (with its category already decided) into the live set and the totals. Returns 0, or
 * -1 when out of memory (the reader is failed, naming the record at offset). */
static inline int apply_alloc(vt_analysis_t *a, vt_reader_t *r, uint8_t series, uint8_t handle,
                              uint8_t category, bool implicit, uint32_t device, uint32_t stack_id,
                              uint64_t address, uint64_t size_bytes, uint64_t t_ns, uint64_t offset)
{
    /* Totals count the program's calls; implicit entries only move memory. */
    if (!implicit)
        a->n_allocs++;
    /* One probe: the entry at the same address, or the empty slot live_insert would fill. */
    vt_live_t *slot = a->cap_live ? live_probe(a, series, handle, address) : NULL;
    if (slot && slot->used) {
        /* The same address again without a free in between: the free was not seen. */
        account_remove(a, slot);
        live_remove(a, slot);
        slot = NULL;
    }
    /* After the removal: it may have added a device, moving the array. */
    vt_device_stats_t *d = series == VT_TRACE_SERIES_DEVICE ? device_stats(a, device) : NULL;
    uint32_t peak_epoch = d ? d->peak_epoch : 0;
    if (slot && (a->n_live + 1) * 2 <= a->cap_live) {
        slot->address = address;
        slot->size_bytes = size_bytes;
        slot->device = device;
        slot->stack_id = stack_id;
        slot->series = series;
        slot->handle = handle;
        slot->category = category;
        slot->used = 1;
        slot->peak_epoch = peak_epoch;
        a->n_live++;
    } else {
        vt_live_t e = {.address = address,
                       .size_bytes = size_bytes,
                       .device = device,
                       .stack_id = stack_id,
                       .series = series,
                       .handle = handle,
                       .category = category,
                       .peak_epoch = peak_epoch};
        if (live_insert(a, &e) != 0)
            return fail(r, "'%s': out of memory at byte %" PRIu64, r->path, offset);
    }
    account_add(a, r, d, series, category, size_bytes, t_ns);
    return 0;
}

/* A FREE: the live entry at (series, handle, address), if any, leaves the live set. */
static inline void apply_free(vt_analysis_t *a, uint8_t series, uint8_t handle, bool implicit,
                              bool unmatched, uint64_t address)
{
    if (!implicit)
        a->n_frees++;
    if (unmatched)
        a->n_unmatched_frees++;
    vt_live_t *e = live_find(a, series, handle, address);
    if (e) {
        account_remove(a, e);
        live_remove(a, e);
    }
}

/* A PEAK record (written when the trace was capped): the library saw the whole run, so a peak
 * above what the events show replaces it; the categories at that peak come with it, the live
 * set does not (peak_record UINT64_MAX). */
static void apply_peak(vt_analysis_t *a, const vt_event_t *ev)
{
    const uint32_t series = ev->u.peak.series;
    if (series != VT_TRACE_SERIES_DEVICE) {
        if (ev->u.peak.peak_bytes > a->peak_bytes[series]) {
            a->peak_bytes[series] = ev->u.peak.peak_bytes;
            a->peak_t_ns[series] = ev->u.peak.peak_t_ns;
        }
        return;
    }
    vt_device_stats_t *d = device_stats(a, ev->u.peak.device);
    if (!d || ev->u.peak.peak_bytes <= d->peak_bytes)
        return;
    d->peak_bytes = ev->u.peak.peak_bytes;
    d->peak_t_ns = ev->u.peak.peak_t_ns;
    d->peak_record = UINT64_MAX;
    memcpy(d->peak_by_category, ev->u.peak.by_category, sizeof d->peak_by_category);
    d->n_peak_freed = 0; /* no live set at this peak: nothing to keep */
}

int vt_analysis_apply(vt_analysis_t *a, vt_reader_t *r, const vt_event_t *ev)
{
    int recategorized = -1;
    if (a->recategorize && (recategorized = a->recategorize(a->recategorize_ctx, r, ev)) < 0)
        return fail(r, "'%s': out of memory at byte %" PRIu64, r->path, ev->offset);
    switch (ev->type) {
    case VT_REC_ALLOC: {
        uint8_t category =
            ev->u.alloc.category < VT_CAT_COUNT ? ev->u.alloc.category : VT_CAT_UNKNOWN;
        if (recategorized >= 0)
            category = recategorized < VT_CAT_COUNT ? (uint8_t)recategorized : VT_CAT_UNKNOWN;
        return apply_alloc(a, r, ev->u.alloc.series, ev->u.alloc.handle, category,
                           ev->u.alloc.implicit, ev->u.alloc.device, ev->u.alloc.stack_id,
                           ev->u.alloc.address, ev->u.alloc.size_bytes, ev->t_ns, ev->offset);
    }
    case VT_REC_FREE:
        apply_free(a, ev->u.free.series, ev->u.free.handle, ev->u.free.implicit,
                   ev->u.free.unmatched, ev->u.free.address);
        break;
    case VT_REC_FAILED:
        a->n_failed++;
        break;
    case VT_REC_OOM: {
        a->n_failed++;
        if (grow((void **)&a->ooms, &a->cap_ooms, a->n_ooms + 1, sizeof(*a->ooms)))
            return fail(r, "'%s': out of memory at byte %" PRIu64, r->path, ev->offset);
        vt_oom_t *o = &a->ooms[a->n_ooms++];
        memset(o, 0, sizeof(*o));
        o->t_ns = ev->t_ns;
        o->device = ev->u.oom.device;
        o->api = ev->u.oom.api;
        o->stack_id = ev->u.oom.stack_id;
        o->thread = ev->u.oom.thread;
        o->requested_bytes = ev->u.oom.requested_bytes;
        o->free_bytes = ev->u.oom.free_bytes;
        o->total_bytes = ev->u.oom.total_bytes;
        for (int i = 0; i < VT_CAT_COUNT; i++) {
            o->live_bytes[i] = ev->u.oom.live_bytes[i];
            o->live_total_bytes += ev->u.oom.live_bytes[i];
        }
        break;
    }
    case VT_REC_CAPPED:
        a->capped_limit_bytes = ev->u.capped.limit_bytes;
        a->capped_t_ns = r->t_ns;
        break;
    case VT_REC_PEAK:
        apply_peak(a, ev);
        break;
    default:
        break;
    }
    return 0;
}

int vt_analyze(vt_reader_t *r, vt_analysis_t *a, uint64_t stop_after)
{
    return vt_analyze_recategorized(r, a, stop_after, NULL, NULL);
}

/* The loop of vt_analyze_recategorized and vt_analyze_until: records up to number stop_after,
 * or (until) up to the last one at or before t_ns, into a (set up by the caller). Without a
 * hook, ALLOCs and FREEs go from the fast decoder straight into the analysis, never through a
 * vt_event_t; everything else, and every record the fast path declines, is
 * vt_reader_next + vt_analysis_apply. */
static int analyze(vt_reader_t *r, vt_analysis_t *a, uint64_t stop_after, bool until, uint64_t t_ns)
{
    vt_event_t ev;
    while (r->n_records < stop_after) {
        unsigned t;
        fast_rec_t f;
        size_t start = r->pos;
        if (start >= r->mapped && start < r->size)
            populate(r);
        if (!a->recategorize && !r->state && start < r->size &&
            r->size - start > FAST_RECORD_BYTES &&
            (is_compact(r, (t = r->map[start]))
                 ? (t = fast_compact(r, start, t, &f)) != 0
                 : (t == VT_REC_ALLOC || t == VT_REC_FREE) && fast_record(r, start, t, &f))) {
            if (until && f.t_ns > t_ns)
                break;
            uint8_t series = f.flags & VT_FLAG_SERIES_MASK;
            uint8_t handle = (f.flags & VT_FLAG_HANDLE) != 0;
            bool implicit = (f.flags & VT_FLAG_IMPLICIT) != 0;
            if (t == VT_REC_FREE) {
                apply_free(a, series, handle, implicit, (f.flags & VT_FLAG_UNMATCHED) != 0,
                           f.address);
                continue;
            }
            uint8_t category = VT_FLAG_CATEGORY(f.flags);
            if (category >= VT_CAT_COUNT)
                category = VT_CAT_UNKNOWN;
            if (apply_alloc(a, r, series, handle, category, implicit, f.device, f.stack_id,
                            f.address, f.size_bytes, f.t_ns, start) != 0)
                break;
            continue;
        }
        if (vt_reader_next(r, &ev) <= 0 || (until && ev.t_ns > t_ns))
            break;
        if (vt_analysis_apply(a, r, &ev) != 0)
            break;
    }
    return r->state < 0 ? -1 : 0;
}

int vt_analyze_recategorized(vt_reader_t *r, vt_analysis_t *a, uint64_t stop_after,
                             vt_recategorize_fn fn, void *ctx)
{
    memset(a, 0, sizeof(*a));
    a->recategorize = fn;
    a->recategorize_ctx = ctx;
    return analyze(r, a, stop_after, false, 0);
}

int vt_analyze_keeping_peaks(vt_reader_t *r, vt_analysis_t *a, vt_recategorize_fn fn, void *ctx)
{
    memset(a, 0, sizeof(*a));
    a->recategorize = fn;
    a->recategorize_ctx = ctx;
    a->keep_peaks = true;
    return analyze(r, a, UINT64_MAX, false, 0);
}

int vt_analyze_until(vt_reader_t *r, vt_analysis_t *a, uint64_t t_ns, vt_recategorize_fn fn,
                     void *ctx)
{
    memset(a, 0, sizeof(*a));
    a->recategorize = fn;
    a->recategorize_ctx = ctx;
    /* Times only grow along the delta chain, so the first record past t_ns ends the moment. */
    return analyze(r, a, UINT64_MAX, true, t_ns);
}

const vt_live_t *vt_analysis_find(const vt_analysis_t *a, uint8_t series, uint8_t handle,
                                  uint64_t address)
{
    return live_find(a, series, handle, address);
}

void vt_analysis_release(vt_analysis_t *a)
{
    for (uint32_t i = 0; i < a->n_devices; i++)
        free(a->devices[i].peak_freed);
    free(a->devices);
    free(a->ooms);
    free(a->live);
    memset(a, 0, sizeof(*a));
}

const vt_device_stats_t *vt_analysis_peak(const vt_analysis_t *a)
{
    const vt_device_stats_t *best = NULL;
    for (uint32_t i = 0; i < a->n_devices; i++)
        if (!best || a->devices[i].peak_bytes > best->peak_bytes)
            best = &a->devices[i];
    return best;
}

uint64_t vt_analysis_leaked_bytes(const vt_analysis_t *a)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < a->n_devices; i++)
        sum += a->devices[i].live_bytes;
    return sum;
}

static int site_by_key(const void *x, const void *y)
{
    const vt_site_t *a = x, *b = y;
    if (a->stack_id != b->stack_id)
        return a->stack_id < b->stack_id ? -1 : 1;
    return (int)a->category - (int)b->category;
}

static int site_by_bytes(const void *x, const void *y)
{
    const vt_site_t *a = x, *b = y;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    return site_by_key(x, y);
}

/* The entries in s[0..n) (one allocation each) grouped by (stack, category), largest first,
 * into *out (s itself, shrunk). */
static void group_sites(vt_site_t *s, size_t n, vt_site_t **out, size_t *n_out)
{
    qsort(s, n, sizeof(*s), site_by_key);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && site_by_key(&s[m - 1], &s[i]) == 0) {
            s[m - 1].bytes += s[i].bytes;
            s[m - 1].n_allocs++;
        } else {
            s[m++] = s[i];
        }
    }
    qsort(s, m, sizeof(*s), site_by_bytes);
    *out = s;
    *n_out = m;
}

int vt_analysis_sites(const vt_analysis_t *a, uint32_t device, vt_site_t **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    size_t n = 0;
    for (size_t i = 0; i < a->cap_live; i++)
        n += a->live[i].used && a->live[i].series == VT_TRACE_SERIES_DEVICE &&
             a->live[i].device == device;
    if (!n)
        return 0;
    vt_site_t *s = malloc(n * sizeof(*s));
    if (!s)
        return -1;
    n = 0;
    for (size_t i = 0; i < a->cap_live; i++) {
        const vt_live_t *e = &a->live[i];
        if (e->used && e->series == VT_TRACE_SERIES_DEVICE && e->device == device)
            s[n++] = (vt_site_t){e->size_bytes, 1, e->stack_id, e->category};
    }
    group_sites(s, n, out, n_out);
    return 0;
}

int vt_analysis_peak_sites(const vt_analysis_t *a, uint32_t device, vt_site_t **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    const vt_device_stats_t *d = NULL;
    for (uint32_t i = 0; i < a->n_devices && !d; i++)
        if (a->devices[i].device == device)
            d = &a->devices[i];
    if (!a->keep_peaks || !d || d->peak_lost || d->peak_record == UINT64_MAX)
        return 1;
    /* Live at the peak: still live and allocated before it (an older epoch), or freed since. */
    size_t n = d->n_peak_freed;
    for (size_t i = 0; i < a->cap_live; i++) {
        const vt_live_t *e = &a->live[i];
        n += e->used && e->series == VT_TRACE_SERIES_DEVICE && e->device == device &&
             e->peak_epoch != d->peak_epoch;
    }
    if (!n)
        return 0;
    vt_site_t *s = malloc(n * sizeof(*s));
    if (!s)
        return -1;
    n = 0;
    for (size_t i = 0; i < a->cap_live; i++) {
        const vt_live_t *e = &a->live[i];
        if (e->used && e->series == VT_TRACE_SERIES_DEVICE && e->device == device &&
            e->peak_epoch != d->peak_epoch)
            s[n++] = (vt_site_t){e->size_bytes, 1, e->stack_id, e->category};
    }
    for (size_t i = 0; i < d->n_peak_freed; i++) {
        const vt_live_t *e = &d->peak_freed[i];
        s[n++] = (vt_site_t){e->size_bytes, 1, e->stack_id, e->category};
    }
    group_sites(s, n, out, n_out);
    return 0;
}

/* ---- formatting ---------------------------------------------------------------------------- */

const char *vt_fmt_binary(uint64_t v, char *buf, size_t cap)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (v < 1024) {
        snprintf(buf, cap, "%" PRIu64 " B", v);
        return buf;
    }
    double x = (double)v / 1024;
    int u = 0;
    while (x >= 1024 && u < 5)
        x /= 1024, u++;
    snprintf(buf, cap, "%.2f %s", x, units[u]);
    return buf;
}

const char *vt_fmt_commas(uint64_t v, char *buf, size_t cap)
{
    char digits[24];
    int n = snprintf(digits, sizeof(digits), "%" PRIu64, v);
    size_t o = 0;
    for (int i = 0; i < n && o + 2 < cap; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    if (cap)
        buf[o] = '\0';
    return buf;
}

const char *vt_fmt_seconds(uint64_t ns, char *buf, size_t cap)
{
    snprintf(buf, cap, "%" PRIu64 ".%03" PRIu64 " s", ns / 1000000000u,
             (ns % 1000000000u) / 1000000u);
    return buf;
}

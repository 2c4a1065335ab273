/* SPDX-License-Identifier: MIT */
/* The decoder's internals that the analysis loop shares (trace_reader.c, analysis.c): the
 * cursor of the slow path, the compact records' state machine, and the fast path that decodes
 * an ALLOC or FREE away from the end of the file without a bounds check per byte. The analysis
 * loop inlines the fast path to take ALLOCs and FREEs straight into the live set without a
 * vt_event_t (docs/performance.md, "Analyzer rate"); bench/read_trace -f times that path alone.
 * Nothing else includes this header. */
#ifndef VT_TRACE_DECODE_H
#define VT_TRACE_DECODE_H
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sat.h"
#include "trace_reader.h"

/* ---- the cursor ---------------------------------------------------------------------------- */

enum { CUR_OK, CUR_TRUNCATED, CUR_CORRUPT };

typedef struct cur_s {
    const uint8_t *p, *end;
    int bad;         /* CUR_* */
    const char *why; /* CUR_CORRUPT */
    char why_buf[96];
} cur_t;

/* Marks the cursor's record corrupt, saying why (the first reason wins). */
__attribute__((format(printf, 2, 3))) void vt_cur_corrupt(cur_t *c, const char *fmt, ...);

/* Fails the reader: r->err gets the message, every later vt_reader_next returns -1. Returns -1. */
__attribute__((format(printf, 2, 3))) int vt_reader_fail(vt_reader_t *r, const char *fmt, ...);

/* Faults the next window of the mapping in, ahead of the reader. */
void vt_reader_populate(vt_reader_t *r);

static inline int grow(void **items, uint32_t *cap, uint32_t need, size_t size)
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
            vt_cur_corrupt(c, "thread %" PRIu64 " is not defined", thread);
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
                vt_cur_corrupt(c, "%s %" PRIu64 " out of range",
                               x->device > UINT32_MAX ? "device" : "api",
                               x->device > UINT32_MAX ? x->device : x->api);
            return 0;
        }
        if (x->stack >= r->n_stacks) {
            if (c)
                vt_cur_corrupt(c, "stack %" PRIu64 " is not defined", x->stack);
            return 0;
        }
        slot = r->free_top;
        if (slot == NO_SLOT) {
            if (r->n_slots >= VT_FORMAT_SLOTS) {
                if (c)
                    vt_cur_corrupt(c, "no free slot");
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
        r->slots[slot] =
            (vt_trace_slot_t){e->address,
                              NO_SLOT,
                              r->newest,
                              NO_SLOT,
                              (uint8_t)(e->flags & (VT_FLAG_SERIES_MASK | VT_FLAG_HANDLE)),
                              1};
        if (r->newest != NO_SLOT)
            r->slots[r->newest].newer = slot;
        r->newest = slot;
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
                    vt_cur_corrupt(c, "api %" PRIu64 " out of range", x->api);
                else
                    vt_cur_corrupt(c, "free flags 0x%02x", x->flags);
            }
            return 0;
        }
        uint64_t named = bits & VT_FREE_C_NEWEST ? r->newest : x->slot;
        if (named >= r->n_slots || !r->slots[named].live) {
            if (c) {
                if (bits & VT_FREE_C_NEWEST)
                    vt_cur_corrupt(c, "no live slot to free");
                else
                    vt_cur_corrupt(c, "slot %" PRIu64 " is not live", x->slot);
            }
            return 0;
        }
        slot = (uint32_t)named;
        vt_trace_slot_t *s = &r->slots[slot];
        if (explicit)
            ctx->free_api = (uint32_t)x->api;
        if (s->older != NO_SLOT)
            r->slots[s->older].newer = s->newer;
        if (s->newer != NO_SLOT)
            r->slots[s->newer].older = s->older;
        else
            r->newest = s->older;
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
    f->t_ns = vt_sat_add(r->seen_event ? r->t_ns : r->t0_ns, x->dt);
    r->seen_event = true;
    r->t_ns = f->t_ns;
    r->address = f->address;
    return 1;
}

/* ---- the fast path: ALLOC and FREE away from the end of the file ---------------------------- */

/* The longest ALLOC (the longest FREE is shorter): the type, the flags byte and 7 varints. */
#define FAST_RECORD_BYTES (2 + 7 * 10)

/* A varint at p, which has at least 10 readable bytes: no bounds check. Returns the byte after
 * it, or NULL for a varint of more than 64 bits (the slow path then says so). */
static inline __attribute__((always_inline)) const uint8_t *fast_u(const uint8_t *p, uint64_t *v)
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
    f->t_ns = vt_sat_add(r->seen_event ? r->t_ns : r->t0_ns, dt);
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
 * it again and gives the error) or a table must grow. The fields are read into scalars and the
 * record applied with its type known where it can be: the common FREE (the current thread, its
 * api: type VT_REC_FREE_C alone) with a constant type, so compact_apply keeps only its own case;
 * nothing is cleared first, each field is set where it is read or known absent. */
static inline __attribute__((always_inline)) unsigned fast_compact(vt_reader_t *r, size_t start,
                                                                   unsigned t, fast_rec_t *f)
{
    const uint8_t *p = r->map + start + 1;
    uint64_t dt, thread = 0, device = 0, api = 0, stack = 0, size_code = 0, address_code = 0, slot;
    uint8_t flags = 0;
    if (!(p = fast_u(p, &dt)))
        return 0;
    if (t == VT_REC_FREE_C + VT_FREE_C_NEWEST) {
        compact_fields_t x = {dt, 0, 0, 0, 0, 0, 0, 0, 0};
        if (compact_apply(r, VT_REC_FREE_C + VT_FREE_C_NEWEST, &x, f, NULL, false) != 1)
            return 0;
        r->pos = (size_t)(p - r->map);
        r->n_records++;
        return VT_REC_FREE;
    }
    if (t == VT_REC_FREE_C) {
        if (!(p = fast_u(p, &slot)))
            return 0;
        compact_fields_t x = {dt, 0, 0, 0, 0, 0, 0, slot, 0};
        if (compact_apply(r, VT_REC_FREE_C, &x, f, NULL, false) != 1)
            return 0;
        r->pos = (size_t)(p - r->map);
        r->n_records++;
        return VT_REC_FREE;
    }
    if (t <= VT_REC_ALLOC_C_LAST) {
        unsigned bits = t - VT_REC_ALLOC_C;
        if (__builtin_expect((bits & (VT_ALLOC_C_THREAD | VT_ALLOC_C_CONTEXT)) != 0, 0)) {
            if ((bits & VT_ALLOC_C_THREAD) && !(p = fast_u(p, &thread)))
                return 0;
            if ((bits & VT_ALLOC_C_CONTEXT) &&
                (!(p = fast_u(p, &device)) || !(p = fast_u(p, &api))))
                return 0;
        }
        if (!(p = fast_u(p, &stack)))
            return 0;
        if (!(bits & VT_ALLOC_C_SAME_FLAGS))
            flags = *p++;
        if (!(bits & VT_ALLOC_C_SAME_SIZE) && !(p = fast_u(p, &size_code)))
            return 0;
        if (!(bits & VT_ALLOC_C_SAME_ADDRESS) && !(p = fast_u(p, &address_code)))
            return 0;
        slot = 0;
    } else {
        unsigned bits = t - VT_REC_FREE_C;
        if ((bits & VT_FREE_C_THREAD) && !(p = fast_u(p, &thread)))
            return 0;
        if (bits & VT_FREE_C_EXPLICIT) {
            flags = *p++;
            if (!(p = fast_u(p, &api)))
                return 0;
        }
        slot = 0;
        if (!(bits & VT_FREE_C_NEWEST) && !(p = fast_u(p, &slot)))
            return 0;
    }
    compact_fields_t x = {dt, thread, device, api, stack, size_code, address_code, slot, flags};
    if (compact_apply(r, t, &x, f, NULL, false) != 1)
        return 0;
    r->pos = (size_t)(p - r->map);
    r->n_records++;
    return t <= VT_REC_ALLOC_C_LAST ? VT_REC_ALLOC : VT_REC_FREE;
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

/* The event of a fast record, as vt_reader_next hands it out (cleared first, as decode's are). */
static inline __attribute__((always_inline)) void fast_event(vt_event_t *ev, size_t start,
                                                             unsigned t, const fast_rec_t *f)
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

#endif

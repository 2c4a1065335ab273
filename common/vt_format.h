/* SPDX-License-Identifier: MIT */
/* The trace file format, shared by the writer (src/writer.c) and every reader (tools/): one
 * header so the two cannot drift. docs/trace-format.md describes it in prose; this file is the
 * definition. Little-endian throughout; integers in records are LEB128 varints (unsigned) or
 * zigzag varints (signed, "svarint").
 *
 *   file    = preamble record*
 *   preamble= magic[8] "VRAMTRC\0" · u16 major · u16 minor · u32 reserved (zero)   (16 bytes)
 *   record  = u8 type · body
 *
 * Core records (type < VT_REC_FIRST_EXTENSION) have a body whose layout every reader of the
 * major version knows; they carry no length, to keep allocation events small. Extension
 * records (type >= VT_REC_FIRST_EXTENSION, added by minor versions) are
 *   u8 type · varint body_length · body
 * and a reader skips the ones it does not know. A reader rejects an unknown major version.
 *
 * Crash safety: the writer fills a record's body first and stores its type byte last, into a
 * MAP_SHARED mapping of the file that is extended ahead of the writer with zero bytes. A zero
 * type byte (VT_REC_END_OF_DATA) therefore marks the end of what was written, whether the
 * process exited, was killed, or died in the middle of a record. VT_REC_SKIP jumps to the next
 * chunk boundary (a record never straddles chunks).
 *
 * Event times are deltas in nanoseconds from the previous event's time (CLOCK_MONOTONIC); the
 * PROCESS record comes before every event and its t0 starts the chain. Stack nodes and strings
 * are numbered implicitly, from 1, in the order their records appear; threads by the number
 * their THREAD record carries. Every record that refers to one comes after its definition.
 * Addresses are zigzag deltas from the previous address of any ALLOC or FREE, starting at 0.
 *
 * A file ends at its last record (a process that exited cleanly: END, then the file is
 * trimmed), or at a zero byte in place of a type (the rest of the chunk is zeros). Types 17..62
 * were reserved for future core records: a reader of 1.0 or 1.1 treats them as corrupt, since it
 * cannot know their length (so it stops at the first compact event of a 1.2 trace with an error
 * instead of misreading it).
 *
 * Format 1.2 adds compact ALLOC and FREE records (types 17..52, see VT_REC_ALLOC_C) for the
 * common cases; ALLOC and FREE (types 1 and 2) stay valid and mean what they meant, and a writer
 * falls back to them for what the compact forms cannot say. The compact forms lean on state
 * that both sides keep, changed only by compact records (never by types 1 and 2), so a reader
 * replays it exactly:
 *   - the current thread (initially 0), and per thread number its device, ALLOC api and FREE
 *     api (initially 0, 0, 0): a compact record names them only when they change;
 *   - per stack id modulo VT_FORMAT_STACK_CACHE, the flags byte, size and address of the last
 *     compact ALLOC with that stack (initially all 0): a compact ALLOC repeats them in a bit;
 *   - live slots: every compact ALLOC takes a slot, the most recently released one first (a
 *     stack), else the lowest never used (at most VT_FORMAT_SLOTS); a compact FREE names its
 *     allocation by slot (series, handle flag and address come from there) and releases it.
 *     Format 1.6: the live slots are also ordered by when their ALLOC came, and a compact FREE
 *     with VT_FREE_C_NEWEST frees the newest without naming it (a caching allocator frees
 *     mostly in reverse order: three frees in four on the PyTorch-like mix).
 * The address chain and the time chain are shared by every form. */
#ifndef VT_FORMAT_H
#define VT_FORMAT_H
#include <stdbool.h>
#include <stdint.h>

#define VT_FORMAT_MAGIC          "VRAMTRC"
#define VT_FORMAT_MAGIC_BYTES    8
#define VT_FORMAT_MAJOR          1
#define VT_FORMAT_MINOR          6
#define VT_FORMAT_PREAMBLE_BYTES 16
#define VT_FORMAT_CHUNK_BYTES    (1u << 20) /* records never straddle these boundaries */

typedef enum vt_record_type_e {
    VT_REC_END_OF_DATA = 0, /* no body: nothing was written from here on */
    /* varint dt_ns · u8 flags (series | category << 2 | VT_FLAG_HANDLE) · varint device ·
     * varint api · svarint address_delta · varint size_bytes · varint stack_id · varint thread */
    VT_REC_ALLOC = 1,
    /* varint dt_ns · u8 flags (series | VT_FLAG_UNMATCHED | VT_FLAG_HANDLE) · varint api ·
     * svarint address_delta · varint thread. An unmatched free is of an address this process
     * never saw allocated (made before the library loaded, or by a path it does not hook). */
    VT_REC_FREE = 2,
    /* varint dt_ns · varint api · varint requested_bytes · varint error (the CUDA result) ·
     * varint stack_id · varint thread. A call that failed for lack of memory is an OOM record
     * instead, never both. */
    VT_REC_FAILED = 3,
    /* varint dt_ns · varint device · varint api · varint requested_bytes · varint stack_id ·
     * varint thread · varint free_bytes · varint total_bytes (0: unknown) ·
     * varint live_bytes[VT_CAT_COUNT] (device memory of that device, per category) */
    VT_REC_OOM = 4,
    /* varint parent_id (0: root) · svarint (ip − parent's ip). An ip with the top bit set is a
     * Python frame: bits 24..62 the string id of "path/file.py:function", bits 0..23 the line. */
    VT_REC_STACK = 5,
    /* varint length · bytes (not NUL-terminated) */
    VT_REC_STRING = 6,
    /* varint load_bias · varint lo · varint hi · varint path_string_id ·
     * varint build_id_length · bytes */
    VT_REC_MODULE = 7,
    /* varint thread (this trace's small number) · varint os_tid · varint name_string_id */
    VT_REC_THREAD = 8,
    /* varint dt_ns · varint thread · varint name_string_id */
    VT_REC_PHASE_PUSH = 9,
    /* varint dt_ns · varint thread */
    VT_REC_PHASE_POP = 10,
    /* varint dt_ns · varint thread · varint label_string_id */
    VT_REC_MARK = 11,
    /* varint dt_ns · varint device · varint free_bytes · varint total_bytes */
    VT_REC_MEMINFO = 12,
    /* varint t0_ns (CLOCK_MONOTONIC) · varint start_unix_ns · varint n · (varint key_string_id ·
     * varint value_string_id) × n: pid, ppid, host, exe, cmdline, and the rank and allocator
     * environment variables present (RANK, LOCAL_RANK, WORLD_SIZE, SLURM_PROCID,
     * OMPI_COMM_WORLD_RANK, PYTORCH_CUDA_ALLOC_CONF, …) */
    VT_REC_PROCESS = 13,
    /* varint device · varint name_string_id · varint total_bytes (0: unknown): once per device
     * used, before its first ALLOC (format 1.3 writers) */
    VT_REC_DEVICE = 14,
    /* varint dt_ns · varint allocs · varint frees · varint failed · varint unmatched_frees ·
     * varint dropped: the process exited cleanly (a trace without it did not) */
    VT_REC_END = 15,
    /* varint api_count · (varint string_id) × api_count: the name of every api number from 0
     * (0 is "none") to api_count − 1, so readers need not know the library's hook table */
    VT_REC_API_NAMES = 16,
    /* Format 1.2, compact ALLOC: type VT_REC_ALLOC_C + bits (VT_ALLOC_C_*), body
     *   varint dt_ns · [THREAD: varint thread] · [CONTEXT: varint device · varint api] ·
     *   varint stack_id · [unless SAME_FLAGS: u8 flags] · [unless SAME_SIZE: varint size code] ·
     *   [unless SAME_ADDRESS: varint address code]
     * The thread is the current one unless THREAD names it (it becomes current: a number no
     * larger than the THREAD records read so far); device and api are the thread's unless
     * CONTEXT gives them (they become the thread's). The SAME_* bits take that field from the
     * stack cache entry of stack_id; the record then updates the entry. Size and address codes:
     * see vt_size_code and vt_address_code. Takes a live slot. */
    VT_REC_ALLOC_C = 17,
    VT_REC_ALLOC_C_LAST = 48,
    /* Format 1.2, compact FREE: type VT_REC_FREE_C + bits (VT_FREE_C_*), body
     *   varint dt_ns · [THREAD: varint thread] · [EXPLICIT: u8 flags · varint api] ·
     *   [unless NEWEST: varint slot]
     * The slot must be live (with NEWEST, format 1.6: the live slot whose ALLOC came last, and
     * there must be one); its allocation is freed (series, handle flag and address from it) and
     * the slot released. flags holds only VT_FLAG_UNMATCHED and VT_FLAG_IMPLICIT (0 without
     * EXPLICIT); the api is the thread's FREE api unless EXPLICIT gives it (it becomes the
     * thread's). */
    VT_REC_FREE_C = 49,
    VT_REC_FREE_C_LAST = 56,
    /* 57..62: reserved */
    /* no body: continue at the next multiple of VT_FORMAT_CHUNK_BYTES */
    VT_REC_SKIP = 63,
    VT_REC_FIRST_EXTENSION = 64,
    /* Extension records (u8 type · varint body_length · body), format 1.1: */
    /* varint limit_bytes: VRAMTRACE_MAX_SIZE was reached; from here on only OOM, PEAK and END
     * records are written (into a reserve kept for them), events are not. */
    VT_REC_CAPPED = 64,
    /* varint series · varint device · varint peak_bytes · varint peak_t_ns (CLOCK_MONOTONIC) ·
     * varint by_category[VT_CAT_COUNT] at that peak: the library's own peaks, written at exit
     * when the trace was capped, so the peak survives the cap. Format 1.5, device series only:
     * then varint pool_spare_bytes · varint tensors_peak_bytes · varint
     * pool_reserved_peak_bytes: peak_bytes is the device's
     * figure (its allocations and its stream-ordered pools' reservations beyond them, as the
     * POOL records give it), pool_spare_bytes that spare at the peak (by_category and it sum to
     * peak_bytes), tensors_peak_bytes the allocations' own peak, pool_reserved_peak_bytes the
     * peak of its pools' reservations together. Before 1.5 peak_bytes is the allocations'
     * peak. */
    VT_REC_PEAK = 65,
    /* Format 1.3: varint device · varint inflight_bytes: written just before a record that
     * lowers the device's live bytes, while inflight_bytes of allocation calls had begun and not
     * been recorded yet (the writer's own threads): the device may have held live +
     * inflight_bytes just before it, and a reader's device peak counts that. Written only when
     * it raises the peak, so never when calls do not overlap. */
    VT_REC_INFLIGHT = 66,
    /* Format 1.3: varint device · varint uuid_string_id · varint pci_bus_id_string_id (0:
     * unknown): what the driver says identifies the device of a DEVICE record (written after
     * it, when the driver told either). */
    VT_REC_DEVICE_IDS = 67,
    /* Format 1.4: varint t_ns (CLOCK_MONOTONIC, absolute: the record is not in the time chain,
     * so a 1.3 reader that skips it keeps its times) · varint device · varint pool (this trace's
     * number for the stream-ordered pool, from 1, in the order first sampled) ·
     * varint reserved_bytes · varint used_bytes · varint reserved_high_bytes ·
     * varint used_high_bytes: what cuMemPoolGetAttribute said of the pool then (RESERVED_MEM_*,
     * USED_MEM_*; the high marks as the driver keeps them, which the program may reset). Written
     * when it can have changed: after a stream-ordered allocation that may have grown the pool,
     * at synchronizations that may have shrunk it, trims and context teardowns; only when a
     * figure differs from the pool's previous record. A pool that can no longer be asked (its
     * context is gone) gets a last record of zeros. */
    VT_REC_POOL = 68,
} vt_record_type_t;

/* The flags byte of ALLOC and FREE. The series are VT_SERIES_* below. The "address" of an
 * entry with VT_FLAG_HANDLE is a VMM physical handle (cuMemCreate), which lives in its own key
 * space: a reader keys the live set by (series, handle flag, address). VT_FLAG_IMPLICIT marks
 * memory that came or went without an allocation or free call of the program: a context
 * teardown, a change of the graph-memory reserve, an address found live again (its free was
 * not seen). Graph memory is a pseudo-allocation per device at address 2^64 − 1 − device whose
 * size follows the driver's reserve. Category 7 is reserved (read as unknown). */
#define VT_FLAG_SERIES_MASK 0x03u
#define VT_FLAG_CATEGORY(f) (((f) >> 2) & 0x07u) /* ALLOC */
#define VT_FLAG_UNMATCHED   0x04u                /* FREE */
#define VT_FLAG_HANDLE      0x20u
#define VT_FLAG_IMPLICIT    0x40u

/* The bits of a compact ALLOC's type (added to VT_REC_ALLOC_C) and of a compact FREE's type
 * (added to VT_REC_FREE_C). */
#define VT_ALLOC_C_SAME_FLAGS   0x01u
#define VT_ALLOC_C_SAME_SIZE    0x02u
#define VT_ALLOC_C_SAME_ADDRESS 0x04u
#define VT_ALLOC_C_THREAD       0x08u
#define VT_ALLOC_C_CONTEXT      0x10u
#define VT_FREE_C_THREAD        0x01u
#define VT_FREE_C_EXPLICIT      0x02u
#define VT_FREE_C_NEWEST        0x04u
#define VT_FREE_C_FLAGS         (VT_FLAG_UNMATCHED | VT_FLAG_IMPLICIT) /* the flags it may carry */

/* The state of the compact records (format 1.2): stack cache entries, live slots. */
#define VT_FORMAT_STACK_CACHE 4096u
#define VT_FORMAT_SLOTS       65536u
/* Sizes and address deltas in compact records are counted in units of 2^VT_FORMAT_UNIT_SHIFT
 * bytes (512: cudaMalloc's alignment in practice, PyTorch's block size) when they are
 * multiples of it. */
#define VT_FORMAT_UNIT_SHIFT 9

/* Series numbers in the flags byte (the library's vt_series_t has the same values). */
#define VT_TRACE_SERIES_DEVICE   0
#define VT_TRACE_SERIES_PINNED   1
#define VT_TRACE_SERIES_MANAGED  2
#define VT_TRACE_SERIES_IMPORTED 3

/* Python frames in STACK records (see VT_REC_STACK), the one encoding of both programs: a frame
 * as a pseudo instruction pointer with bit 63 set (no user-space code address has it), bits
 * 62..24 the string id of "path/file.py:function", bits 23..0 the line (clamped; 0 unknown). */
#define VT_PYFRAME_BIT       (1ULL << 63)
#define VT_PYFRAME_LINE_BITS 24
#define VT_PYFRAME_LINE_MAX  ((1ULL << VT_PYFRAME_LINE_BITS) - 1)
#define VT_PYFRAME_IS(ip)    ((VT_PYFRAME_BIT & (uint64_t)(ip)) != 0)
#define VT_PYFRAME_STRING(ip)                                                                      \
    ((uint32_t)(((uint64_t)(ip) & ~VT_PYFRAME_BIT) >> VT_PYFRAME_LINE_BITS))
#define VT_PYFRAME_LINE(ip) ((uint32_t)((uint64_t)(ip)&VT_PYFRAME_LINE_MAX))
#define VT_PYFRAME_IP(string_id, line)                                                             \
    (VT_PYFRAME_BIT | ((uint64_t)(string_id) << VT_PYFRAME_LINE_BITS) |                            \
     ((uint64_t)(line) > VT_PYFRAME_LINE_MAX ? VT_PYFRAME_LINE_MAX : (uint64_t)(line)))

/* The longest a core record's body can be, so the writer can reserve it in one go. OOM is the
 * longest: 7 + VT_CAT_COUNT varints of at most 10 bytes. */
#define VT_RECORD_MAX_FIXED_BYTES 256

/* Varints: at most 10 bytes for 64 bits. Return the number of bytes written / read; a read of
 * a truncated or overlong varint returns 0. */
static inline unsigned vt_put_varint(uint8_t *p, uint64_t v)
{
    unsigned n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static inline unsigned vt_put_svarint(uint8_t *p, int64_t v)
{
    return vt_put_varint(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static inline unsigned vt_get_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    uint64_t out = 0;
    for (unsigned n = 0; n < 10 && p + n < end; n++) {
        out |= (uint64_t)(p[n] & 0x7f) << (7 * n);
        if (!(p[n] & 0x80)) {
            if (n == 9 && p[n] > 1)
                return 0; /* more than 64 bits */
            *v = out;
            return n + 1;
        }
    }
    return 0;
}

/* A size as a compact ALLOC codes it: size / 512 · 2 when size is a multiple of 512, else
 * size · 2 + 1. False when it cannot be coded (an odd size of 2^63 or more). */
static inline bool vt_size_code(uint64_t size_bytes, uint64_t *code)
{
    const uint64_t unit_mask = (1u << VT_FORMAT_UNIT_SHIFT) - 1;
    if (!(size_bytes & unit_mask)) {
        *code = size_bytes >> (VT_FORMAT_UNIT_SHIFT - 1);
        return true;
    }
    *code = size_bytes << 1 | 1;
    return !(size_bytes >> 63);
}

static inline uint64_t vt_size_decode(uint64_t code)
{
    return (code >> 1) << (code & 1 ? 0 : VT_FORMAT_UNIT_SHIFT);
}

/* An address as a compact ALLOC codes it, from the address chain's previous address: the delta
 * d (two's complement), zigzagged, in units of 512 when it is a multiple of 512:
 * zigzag(d / 512) · 2, else zigzag(d) · 2 + 1. False when it cannot be coded (an odd delta of
 * 2^62 or more either way). */
static inline bool vt_address_code(uint64_t address, uint64_t previous, uint64_t *code)
{
    const uint64_t unit_mask = (1u << VT_FORMAT_UNIT_SHIFT) - 1;
    int64_t d = (int64_t)(address - previous);
    if (!(d & (int64_t)unit_mask)) {
        int64_t u = d >> VT_FORMAT_UNIT_SHIFT; /* arithmetic: exact, d is a multiple */
        *code = (((uint64_t)u << 1) ^ (uint64_t)(u >> 63)) << 1;
        return true;
    }
    uint64_t z = ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
    *code = z << 1 | 1;
    return !(z >> 63);
}

static inline uint64_t vt_address_decode(uint64_t code, uint64_t previous)
{
    uint64_t z = code >> 1;
    uint64_t d = (z >> 1) ^ -(z & 1);
    return previous + (d << (code & 1 ? 0 : VT_FORMAT_UNIT_SHIFT));
}

static inline unsigned vt_get_svarint(const uint8_t *p, const uint8_t *end, int64_t *v)
{
    uint64_t u;
    unsigned n = vt_get_varint(p, end, &u);
    if (n)
        *v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
    return n;
}
#endif

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
 * are reserved for future core records: a reader of this major version treats them as
 * corrupt, since it cannot know their length. */
#ifndef VT_FORMAT_H
#define VT_FORMAT_H
#include <stdint.h>

#define VT_FORMAT_MAGIC          "VRAMTRC"
#define VT_FORMAT_MAGIC_BYTES    8
#define VT_FORMAT_MAJOR          1
#define VT_FORMAT_MINOR          1
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
    /* varint device · varint name_string_id · varint total_bytes */
    VT_REC_DEVICE = 14,
    /* varint dt_ns · varint allocs · varint frees · varint failed · varint unmatched_frees ·
     * varint dropped: the process exited cleanly (a trace without it did not) */
    VT_REC_END = 15,
    /* varint api_count · (varint string_id) × api_count: the name of every api number from 0
     * (0 is "none") to api_count − 1, so readers need not know the library's hook table */
    VT_REC_API_NAMES = 16,
    /* no body: continue at the next multiple of VT_FORMAT_CHUNK_BYTES */
    VT_REC_SKIP = 63,
    VT_REC_FIRST_EXTENSION = 64,
    /* Extension records (u8 type · varint body_length · body), format 1.1: */
    /* varint limit_bytes: VRAMTRACE_MAX_SIZE was reached; from here on only OOM, PEAK and END
     * records are written (into a reserve kept for them), events are not. */
    VT_REC_CAPPED = 64,
    /* varint series · varint device · varint peak_bytes · varint peak_t_ns (CLOCK_MONOTONIC) ·
     * varint by_category[VT_CAT_COUNT] at that peak: the library's own peaks, written at exit
     * when the trace was capped, so the peak survives the cap. */
    VT_REC_PEAK = 65,
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

/* Series numbers in the flags byte (the library's vt_series_t has the same values). */
#define VT_TRACE_SERIES_DEVICE   0
#define VT_TRACE_SERIES_PINNED   1
#define VT_TRACE_SERIES_MANAGED  2
#define VT_TRACE_SERIES_IMPORTED 3

/* Python frames in STACK records: see VT_REC_STACK. */
#define VT_PYFRAME_BIT        (1ULL << 63)
#define VT_PYFRAME_LINE_BITS  24
#define VT_PYFRAME_STRING(ip) (((ip) & ~VT_PYFRAME_BIT) >> VT_PYFRAME_LINE_BITS)
#define VT_PYFRAME_LINE(ip)   ((ip) & ((1ULL << VT_PYFRAME_LINE_BITS) - 1))

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

static inline unsigned vt_get_svarint(const uint8_t *p, const uint8_t *end, int64_t *v)
{
    uint64_t u;
    unsigned n = vt_get_varint(p, end, &u);
    if (n)
        *v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
    return n;
}
#endif

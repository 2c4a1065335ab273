/* SPDX-License-Identifier: MIT */
/* The trace reader (common/vt_format.h is the format): a streaming decoder that hands out one
 * record at a time with the delta chains (time, address) and the implicit numbering (stacks,
 * strings, threads) resolved; analysis.h builds the live set and the peaks on it. Memory is
 * bounded by the stack/string/thread tables, never by the number of events: the file is mapped
 * read-only and strings point into the mapping. Used by the CLI and by tests/unit/trace. */
#ifndef VT_TRACE_READER_H
#define VT_TRACE_READER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vt_categories.h"
#include "vt_format.h"

/* The series of an ALLOC or FREE (the low two bits of its flags byte): VT_TRACE_SERIES_* of
 * vt_format.h. */
#define VT_TRACE_SERIES_COUNT 4

/* One decoded record. t_ns is the absolute CLOCK_MONOTONIC time of event records (the delta
 * chain from the PROCESS record's t0), addresses are absolute, and ids are the implicit
 * numbers (from 1) of STACK, STRING and THREAD records. Pointers point into the mapping and
 * live as long as the reader. */
typedef struct vt_event_s {
    unsigned type;   /* vt_record_type_t, or an extension type (>= VT_REC_FIRST_EXTENSION) */
    uint64_t offset; /* of the type byte, from the start of the file */
    uint64_t t_ns;   /* event records (those with a dt_ns); the current time for the others */
    union {
        struct {
            uint8_t series, category, handle; /* handle: the address is a VMM handle */
            uint8_t implicit;                 /* not an allocation call (vt_format.h) */
            uint32_t device, api, stack_id;
            uint64_t address, size_bytes, thread;
        } alloc;
        struct {
            uint8_t series, unmatched, handle;
            uint8_t implicit; /* not a free call (vt_format.h) */
            uint32_t api;
            uint64_t address, thread;
        } free;
        struct {
            uint32_t api, stack_id;
            uint64_t requested_bytes, error, thread;
        } failed;
        struct {
            uint32_t device, api, stack_id;
            uint64_t requested_bytes, thread, free_bytes, total_bytes;
            uint64_t live_bytes[VT_CAT_COUNT];
        } oom;
        struct {
            uint32_t id, parent_id;
            uint64_t ip;
        } stack;
        struct {
            uint32_t id, len;
            const char *bytes;
        } string;
        struct {
            uint64_t load_bias, lo, hi;
            uint32_t path_string_id, build_id_len;
            const uint8_t *build_id;
        } module;
        struct {
            uint32_t id, name_string_id;
            uint64_t thread, os_tid;
        } thread;
        struct {
            uint64_t thread;
            uint32_t string_id; /* PHASE_PUSH: the name; MARK: the label; PHASE_POP: 0 */
        } phase;
        struct {
            uint32_t device;
            uint64_t free_bytes, total_bytes;
        } meminfo;
        struct {
            uint64_t t0_ns, start_unix_ns;
            uint32_t n;
        } process;
        struct {
            uint32_t device, name_string_id;
            uint64_t total_bytes;
        } device;
        struct {
            uint64_t allocs, frees, failed, unmatched_frees, dropped;
        } end;
        struct {
            uint32_t n;
        } api_names;
        struct {
            uint64_t body_len;
        } ext;
        struct {
            uint64_t limit_bytes;
        } capped;
        struct {
            uint32_t series, device;
            uint64_t peak_bytes, peak_t_ns;
            uint64_t by_category[VT_CAT_COUNT];
            /* Format 1.5, devices (has_pool_fields): peak_bytes counts the pools' spare
             * reservation, pool_spare_bytes, beside the allocations' own peak and the pools'
             * reserved peak; before, it is the allocations' peak alone. */
            bool has_pool_fields;
            uint64_t pool_spare_bytes, tensors_peak_bytes, pool_reserved_peak_bytes;
        } peak;
        struct {
            uint32_t device;
            uint64_t inflight_bytes;
        } inflight;
        struct {
            uint32_t device, uuid_string_id, pci_bus_id_string_id;
        } device_ids;
        struct {
            uint32_t device, pool;
            uint64_t t_ns, reserved_bytes, used_bytes, reserved_high_bytes, used_high_bytes;
        } pool;
    } u;
} vt_event_t;

typedef struct vt_trace_string_s {
    uint64_t offset; /* into the mapping */
    uint32_t len;
} vt_trace_string_t;

typedef struct vt_trace_stack_s {
    uint32_t parent_id;
    uint64_t ip;
} vt_trace_stack_t;

typedef struct vt_trace_thread_s {
    uint64_t thread, os_tid;
    uint32_t name_string_id;
} vt_trace_thread_t;

/* A MODULE record: where one object was loaded, for offline symbolization (tools/symbolize.h).
 * The main program's path is "" (the PROCESS record's exe names it). */
typedef struct vt_trace_module_s {
    uint64_t load_bias, lo, hi; /* lo..hi: the loaded address range, hi excluded */
    uint32_t path_string_id, build_id_len;
    const uint8_t *build_id; /* into the mapping; build_id_len bytes (0: none recorded) */
} vt_trace_module_t;

typedef struct vt_trace_device_s {
    uint32_t device, name_string_id;
    uint64_t total_bytes;
    uint32_t uuid_string_id, pci_bus_id_string_id; /* DEVICE_IDS (format 1.3); 0: unknown */
} vt_trace_device_t;

/* Format 1.2: the state the compact records lean on (vt_format.h), replayed as they are read. */
typedef struct vt_trace_context_s {
    uint32_t device, alloc_api, free_api; /* a thread's, as its last compact records left them */
} vt_trace_context_t;

typedef struct vt_trace_cache_entry_s {
    uint64_t address, size_bytes;
    uint8_t flags;
} vt_trace_cache_entry_t;

typedef struct vt_trace_slot_s {
    uint64_t address;
    uint32_t next;         /* released: the next released slot down the stack */
    uint32_t older, newer; /* live: the live slots allocated just before and after it, or none */
    uint8_t tag;           /* the series | VT_FLAG_HANDLE of its allocation */
    uint8_t live;
} vt_trace_slot_t;

typedef struct vt_reader_s {
    const char *path;
    const uint8_t *map;
    size_t size, pos;
    unsigned major, minor;
    int state; /* 0 reading, 1 at the end, -1 failed (err) */
    uint64_t t0_ns, t_ns, address;
    bool seen_event, seen_process, seen_end;
    uint64_t n_records;         /* decoded so far, SKIP and extension records included */
    uint64_t n_unknown;         /* extension records skipped because their type is unknown */
    uint64_t err_offset;        /* the byte where the failed record starts */
    char err[256];              /* "'path': problem", without "vramtrace: " */
    vt_trace_string_t *strings; /* [0] unused: ids start at 1 */
    uint32_t n_strings, cap_strings;
    vt_trace_stack_t *stacks;
    uint32_t n_stacks, cap_stacks;
    vt_trace_thread_t *threads;
    uint32_t n_threads, cap_threads;
    vt_trace_device_t *devices;
    uint32_t n_devices, cap_devices;
    uint32_t *api_names; /* string ids, indexed by api number */
    uint32_t n_api_names;
    uint32_t *process_kv; /* key, value string id pairs */
    uint32_t n_process_kv;
    uint64_t start_unix_ns;
    vt_trace_module_t *modules; /* in file order: n_modules of them */
    uint64_t n_modules;
    uint32_t cap_modules;
    uint64_t dropped; /* the END record's count of events the library could not record */
    /* Format 1.2 and later: compact records (vt_format.h) and their state. */
    bool compact;
    uint32_t cur_thread;
    vt_trace_context_t *contexts; /* by thread number, cap_contexts of them */
    uint32_t cap_contexts;
    vt_trace_cache_entry_t *cache; /* VT_FORMAT_STACK_CACHE entries */
    vt_trace_slot_t *slots;
    uint32_t n_slots, cap_slots, free_top;
    uint32_t newest;     /* the live slot allocated last (format 1.6's FREE of the newest) */
    size_t mapped;       /* internal: the mapping is populated (page tables filled) below this */
    size_t trimmed_size; /* vt_reader_follow: the mapping's length when the file shrank; 0 */
    int fd;              /* internal: the trace, open while mapped: it holds the shared lock */
} vt_reader_t;

/* vt_reader_catch_truncation: a trace truncated by another process while it is mapped (a live
 * trace whose writer trims it at exit, a file rewritten in place) makes the next read of the
 * lost pages raise SIGBUS. Installed once by a program that reads traces, the handler turns
 * that into "vramtrace: 'PATH': the trace changed while it was read" and exit status 1; a
 * SIGBUS elsewhere keeps its default action. */
void vt_reader_catch_truncation(void);

/* vt_reader_open: maps path and checks its preamble. Returns 0, or -1 with the reason in
 * r->err (the reader must still be released). While mapped, the file is held with a shared
 * flock, which the capture library's writer and `vramtrace run -o` respect: they never truncate
 * or remove a file someone holds, and write another name (src/writer.c). */
int vt_reader_open(vt_reader_t *r, const char *path);

/* vt_reader_next: decodes the next record into *ev. Returns 1 for a record, 0 at the end of
 * data (an END_OF_DATA byte or the end of the file at a record boundary), -1 when the record
 * is truncated or corrupt (r->err names the file and the byte offset; what came before stays
 * valid). Once it has returned 0 or -1 it keeps returning the same. */
int vt_reader_next(vt_reader_t *r, vt_event_t *ev);

void vt_reader_release(vt_reader_t *r);

/* vt_reader_follow: for a trace still being written (the writer stores a record's type byte
 * last, so what the reader sees is whole). After vt_reader_next returned 0 at the end of what
 * was written so far, looks at the file again (mapping what it grew by) so that vt_reader_next
 * goes on from there: the file is read once, not again each time. The file is the one opened,
 * whatever its name points to now. Returns 1 while more may come, 0 once the END record was
 * read (the process exited), -1 when the reader failed (r->err; a damaged record stays damaged)
 * or the file was cut below what was read already. */
int vt_reader_follow(vt_reader_t *r);

/* The bytes of string id (not NUL-terminated), or NULL when id is 0 or not defined yet. */
const char *vt_reader_string(const vt_reader_t *r, uint32_t id, uint32_t *len);

/* The string id into buf as a C string with control characters shown as '?'; "" if none. */
const char *vt_reader_cstring(const vt_reader_t *r, uint32_t id, char *buf, size_t cap);

/* The name of api number api from API_NAMES, or "api#N" in buf. */
const char *vt_reader_api_name(const vt_reader_t *r, uint32_t api, char *buf, size_t cap);

/* The value of PROCESS key (pid, exe, cmdline, ...) into buf, or NULL when absent. */
const char *vt_reader_process(const vt_reader_t *r, const char *key, char *buf, size_t cap);

/* The DEVICE record of device, or NULL. */
const vt_trace_device_t *vt_reader_device(const vt_reader_t *r, uint32_t device);

/* One frame of stack id as text: "0x7f12..." for a native ip, "path/file.py:function:line" for
 * a Python frame. Returns the parent id (0 at the root). */
uint32_t vt_reader_frame(const vt_reader_t *r, uint32_t stack_id, char *buf, size_t cap);

/* Whether ev is an event record (one with a time of its own: ALLOC, FREE, PHASE_PUSH, ...). */
int vt_stream_is_event(const vt_event_t *ev);

#endif

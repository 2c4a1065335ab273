/* SPDX-License-Identifier: MIT */
/* Cross-file internal API of libvramtrace.so, grouped by the file that defines it (mimalloc
 * internal.h). Nothing here is exported; only VT_EXPORT functions in preload.c are. Everything
 * declared here may be called from a hook: no malloc, no stdio, no getenv. */
#ifndef VT_INTERNAL_H
#define VT_INTERNAL_H

#include <assert.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vt_categories.h"
#include "vt_cuda.h"
#include "vt_format.h"
#include "vt_phase.h"
#include "vt_units.h"

/* uthash allocates from the arena, and running out must never exit the host (uthash's default
 * uthash_fatal is exit(-1)): a failed insert leaves the table as it was and sets a flag. */
void *vt_arena_alloc(size_t bytes);
void vt_arena_free(void *p, size_t bytes);
extern bool vt_table_oom;
#define uthash_malloc(sz)        vt_arena_alloc(sz)
#define uthash_free(ptr, sz)     vt_arena_free((ptr), (sz))
#define HASH_NONFATAL_OOM        1
#define uthash_nonfatal_oom(obj) (vt_table_oom = true)
#include "uthash.h"

#define VT_EXPORT      __attribute__((visibility("default")))
#define VT_LIKELY(x)   __builtin_expect(!!(x), 1)
#define VT_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Not instrumented in a VRAMTRACE_SANITIZE build: code that a sanitizer runtime reaches through
 * our dlsym while it initialises, before its shadow memory exists (a segfault in the function's
 * prologue otherwise). */
#define VT_NO_SANITIZE __attribute__((no_sanitize("address", "undefined", "thread")))
/* A variable that every start of a preloaded process reads or writes (the startup patch, the
 * constructor, the destructor): kept in .data, whose pages the loader's relocation has written
 * already, not in .bss, where such variables lie spread over a dozen pages among large buffers
 * and each page costs the start a fault of its own (~2 µs in a VM). Zero-initialised. */
#define VT_HOT_DATA __attribute__((section(".data.vt_hot")))

/* "Cannot happen" conditions: asserted in debug builds, tolerated in release (SQLite). */
#ifdef NDEBUG
#    define VT_ALWAYS(x) (x)
#    define VT_NEVER(x)  (x)
#else
#    define VT_ALWAYS(x) ((x) ? 1 : (assert(0), 0))
#    define VT_NEVER(x)  ((x) ? (assert(0), 1) : 0)
#endif

/* ---- log.c ------------------------------------------------------------------------------ */
size_t vt_fmt(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
size_t vt_vfmt(char *buf, size_t cap, const char *fmt, va_list ap);
void vt_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vt_log_set_level(bool quiet, int verbose); /* init: VRAMTRACE_QUIET, VRAMTRACE_VERBOSE */
void vt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vt_escape(char *buf, size_t cap, const char *s);
void vt_warn_hold(void);
void vt_warn_later(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vt_warn_release(void);

/* ---- options.c -------------------------------------------------------------------------- */
typedef enum vt_option_e {
    VT_OPTION_OUTPUT,        /* str: trace path prefix */
    VT_OPTION_DISABLE,       /* bool: load inert */
    VT_OPTION_QUIET,         /* bool: no exit summary line */
    VT_OPTION_VERBOSE,       /* int: diagnostic level, 0 = none */
    VT_OPTION_DEPTH,         /* int: max stack frames recorded, 0..256 */
    VT_OPTION_FOLLOW_FORK,   /* bool: trace fork children too */
    VT_OPTION_RULES,         /* str: category rules file, read before the built-in rules */
    VT_OPTION_DEFAULT_RULES, /* bool: the built-in rules after the file's */
    VT_OPTION_MAX_SIZE,      /* size: the trace's size limit; 0 = none */
    VT_OPTION_ALL_FRAMES,    /* bool: the out-of-memory block folds no frame */
    VT_OPTION_COUNT
} vt_option_t;

#define VT_OPTIONS_MAX_WARNINGS 16

void vt_options_parse(char *const *envp);
bool vt_options_parsed(void);
int vt_options_n_invalid(void); /* invalid or unknown entries seen by the last parse */
long long vt_option_get(vt_option_t opt);
bool vt_option_is_enabled(vt_option_t opt);
const char *vt_option_get_str(vt_option_t opt);
bool vt_option_is_set(vt_option_t opt); /* given (validly) in the environment */
const char *vt_option_name(vt_option_t opt);
int vt_parse_bool(const char *s, bool *out);
int vt_parse_int(const char *s, long long *out);
int vt_parse_size(const char *s, unsigned long long *out);

/* ---- guard.c and state.c: the per-thread guard, the capture state every layer reads -------- */
typedef enum vt_state_e { VT_STATE_UNINIT, VT_STATE_INITING, VT_STATE_ON, VT_STATE_OFF } vt_state_t;

/* Reentrancy guard for hooks (hook rule 3, docs/design.md); initial-exec so reading it never
 * allocates. 0: outside; VT_HOOK_CALLING: inside a shim's real call, where nested calls are the
 * runtime's own driver calls (forwarded, not counted); VT_HOOK_RECORDING: inside vramtrace's
 * own work (a shim's recording, an NVTX handler, an annotation, init), where vt_lock may be
 * held: a nested call can only come from a signal handler, and is forwarded unrecorded and
 * counted as dropped. */
extern __thread int vt_in_hook __attribute__((tls_model("initial-exec")));
#define VT_HOOK_CALLING   1
#define VT_HOOK_RECORDING 2

/* Calls forwarded unrecorded because a signal handler made them inside vramtrace's own work:
 * counted (AS-safe) and added to the END record's dropped events. */
void vt_note_dropped(void);
unsigned long vt_n_dropped_nested(void);
static inline void vt_note_nested(void)
{
    if (vt_in_hook == VT_HOOK_RECORDING)
        vt_note_dropped();
}

/* Cancellation is disabled for vramtrace's own work on a thread (pthread_setcancelstate) from
 * the first point of that work that may be a cancellation point: the trace's open, growth and
 * close, a warning's write, a file read, libunwind, a driver query. A cancel acting there would
 * lose the record or leave vt_lock held. The common path (the live table, a record in the
 * mapped chunk, the calling thread's context from the driver) reaches none, and disabling
 * eagerly at every shim cost two of glibc's atomic read-modify-writes per call (~150 of the
 * ~1 660 instructions a pair added at depth 0, and more in time: docs/benchmarks.md). So
 * nothing is done where the recording part starts; vt_cancel_hold, called before each possible
 * cancellation point, disables once; vt_record_end gives the program's state back. The state is kept in vt_cancel_saved (0: not changed; else the state +
 * 1). Only a shim or guarded handler's recording part (vt_in_hook == VT_HOOK_RECORDING, ended
 * by vt_record_end) holds it, so handlers nested in a signal never see it half-way; init and
 * the lookups disable cancellation around their own work. */
extern __thread int vt_cancel_saved __attribute__((tls_model("initial-exec")));
static inline void vt_cancel_hold(void)
{
    if (vt_in_hook == VT_HOOK_RECORDING && !vt_cancel_saved) {
        int old = 0;
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
        vt_cancel_saved = old + 1;
    }
}
static inline void vt_record_end(void)
{
    int saved = vt_cancel_saved;
    if (saved) {
        int unused;
        vt_cancel_saved = 0;
        pthread_setcancelstate(saved - 1, &unused);
    }
}

/* vt_guard_enter: the start of an annotation or NVTX handler that records. False when this
 * thread is inside vramtrace already (a signal handler interrupted it): then nothing is
 * recorded. Otherwise the thread is marked inside and cancellation is off until
 * vt_guard_leave. */
static inline bool vt_guard_enter(void)
{
    if (vt_in_hook) {
        vt_note_nested();
        return false;
    }
    vt_in_hook = VT_HOOK_RECORDING;
    return true;
}
static inline void vt_guard_leave(void)
{
    vt_in_hook = 0;
    vt_record_end();
}

/* The state, pause and CUDA-used flags, read inline by every shim (__atomic builtins). */
extern int vt_state_word;
extern bool vt_paused_word;
extern bool vt_cuda_used_word;
static inline bool vt_is_on(void)
{
    return __atomic_load_n(&vt_state_word, __ATOMIC_ACQUIRE) == VT_STATE_ON;
}
vt_state_t vt_state(void);
void vt_shutdown(void);
void vt_set_paused(bool paused);
/* vramtrace_pause(): no new allocations are recorded (frees still are). */
static inline bool vt_is_paused(void)
{
    return __atomic_load_n(&vt_paused_word, __ATOMIC_RELAXED);
}
static inline bool vt_cuda_used(void)
{
    return __atomic_load_n(&vt_cuda_used_word, __ATOMIC_RELAXED);
}

/* ---- init.c: the lazy init every entry point goes through --------------------------------- */
void vt_ensure_init_slow(void);
/* vt_ensure_init: makes sure init has run; one acquire load once it has (hook rule 4). */
static inline void vt_ensure_init(void)
{
    int s = __atomic_load_n(&vt_state_word, __ATOMIC_ACQUIRE);
    if (__builtin_expect(s != VT_STATE_ON && s != VT_STATE_OFF, 0))
        vt_ensure_init_slow();
}
vt_state_t vt_init_decide(bool secure, bool disabled);
void vt_init_at_load(bool cuda_loaded); /* the constructor's part of init */
void vt_reset_after_fork(void);
/* vt_note_cuda_used: a CUDA door was passed while ON. Until then the library stays silent:
 * LD_PRELOAD reaches every child of a traced program (compilers, shells, nvidia-smi), and
 * those get no summary line and no file. The store only once: no shared line written per call. */
void vt_cuda_first_use(void);
static inline void vt_note_cuda_used(void)
{
    if (VT_UNLIKELY(!__atomic_load_n(&vt_cuda_used_word, __ATOMIC_RELAXED)))
        vt_cuda_first_use();
}

/* vt_callsites_ready: whether call-sites can be taken (libunwind, the rules, the module table),
 * making them ready the first time (vt_callsites_setup, categorize.c); false only while another thread
 * is making them. One acquire load once they are. */
enum { VT_CALLSITES_NONE, VT_CALLSITES_MAKING, VT_CALLSITES_READY };
extern int vt_callsites_word;
bool vt_callsites_setup(void);
static inline bool vt_callsites_ready(void)
{
    return VT_LIKELY(__atomic_load_n(&vt_callsites_word, __ATOMIC_ACQUIRE) == VT_CALLSITES_READY) ||
           vt_callsites_setup();
}

/* Function pointers tests replace to inject faults (docs/style.md, "Tests"; jemalloc JET_MUTABLE). They stay
 * writable in every build because one object library serves both the preload and the unit
 * tests; they are hidden, so the traced program cannot reach them. */
#define VT_TEST_MUTABLE

/* ---- hooks.def: API ids -------------------------------------------------------------------- */
typedef enum vt_api_e {
    VT_API_NONE,
#define VT_HOOK_CU(name, base, ver, variant) VT_API_##name,
#define VT_HOOK_RT(name)                     VT_API_##name,
#define VT_REAL_CU(name)
#include "hooks.def"
#undef VT_HOOK_CU
#undef VT_HOOK_RT
#undef VT_REAL_CU
    VT_API_COUNT
} vt_api_t;

/* ---- api_names.c, clock.c: the base every layer names calls and times records with --------- */
const char *vt_api_name(vt_api_t api); /* the hooked entry point's export name */
uint64_t vt_now_ns(void);              /* CLOCK_MONOTONIC */

/* ---- lock.c: vt_lock (vt_lock.h), out of line for the files off the recording path ---------- */
void vt_track_lock(void);
void vt_track_unlock(void);

/* ---- arena.c ------------------------------------------------------------------------------ */
/* vt_arena_alloc (zeroed, 16-byte aligned, NULL when out of memory) and vt_arena_free are
 * declared above, for uthash. */
typedef void *(*vt_arena_map_fn)(size_t bytes);
extern VT_TEST_MUTABLE vt_arena_map_fn vt_arena_map; /* mmap seam */
void *vt_arena_alloc_unzeroed(size_t bytes);         /* a reused block keeps its old bytes */
size_t vt_arena_mapped_bytes(void);

/* ---- table.c: the live table, keyed by (key space, value); open addressing ------------------ */
/* Key spaces: the series an address counts in, or where a VMM handle or mapping lives. */
typedef enum vt_series_e {
    VT_SERIES_DEVICE = VT_TRACE_SERIES_DEVICE,     /* device memory: makes the device peak */
    VT_SERIES_PINNED = VT_TRACE_SERIES_PINNED,     /* page-locked host memory */
    VT_SERIES_MANAGED = VT_TRACE_SERIES_MANAGED,   /* unified memory */
    VT_SERIES_IMPORTED = VT_TRACE_SERIES_IMPORTED, /* a peer's memory opened here (IPC) */
    VT_SERIES_COUNT
} vt_series_t;
#define VT_SPACE_VMM_HANDLE VT_SERIES_COUNT       /* cuMemCreate handles, counted in a series */
#define VT_SPACE_VMM_MAP    (VT_SERIES_COUNT + 1) /* cuMemMap ranges: count nothing */

/* A live entry: 64 bytes (table.c's slabs hold exactly that, bench/footprint counts it), so the
 * 64-bit figures come first and the small ones are packed. */
typedef struct vt_alloc_s {
    uint64_t key; /* address, array handle or VMM handle */
    uint64_t size_bytes;
    uint64_t t_ns; /* when it was allocated */
    uint64_t ctx;  /* the context current when it was made (0: none, host memory, unknown) */
    union {
        struct {
            uint32_t refcount;   /* VMM handles: cuMemCreate + retains − releases */
            uint32_t n_mappings; /* VMM handles: live cuMemMap ranges */
        };
        struct {
            uint32_t n_freeing; /* addresses: free calls in flight (begun, not yet returned) */
            uint16_t free_api;  /* addresses: the vt_api_t of the latest free call begun */
        };
    };
    union {
        uint64_t vmm_handle; /* VMM mappings: the handle mapped */
        uint64_t serial;     /* the others: which allocation of its key this is (insert order) */
    };
    uint32_t stack_id;   /* the call-site's stack (0: none) */
    uint16_t api;        /* vt_api_t that made it */
    uint8_t space;       /* vt_series_t or VT_SPACE_* */
    int8_t series;       /* the series its bytes count in, or -1 (VMM mappings) */
    uint8_t category;    /* vt_category_t */
    uint8_t device;      /* device ordinal (< VT_MAX_DEVICES); 0 for host series */
    uint32_t trace_slot; /* the trace's live slot of its compact ALLOC + 1 (writer.c); 0: none */
} vt_alloc_t;
/* The bytes of an entry that hold its fields: what a prototype sets and the table copies. */
#define VT_ALLOC_FIELD_BYTES sizeof(vt_alloc_t)

vt_alloc_t *vt_table_find(uint32_t space, uint64_t key);
vt_alloc_t *vt_table_insert(const vt_alloc_t *proto); /* copies; NULL when out of memory */
void vt_table_remove(vt_alloc_t *a);
/* for (size_t pos = 0; (a = vt_table_iter(&pos));): every live entry once, in no set order;
 * removing entries meanwhile is safe. */
vt_alloc_t *vt_table_iter(size_t *pos);
size_t vt_table_count(void);
void vt_table_forget(void);  /* fork child: drop everything inherited */
void vt_table_release(void); /* the table's own memory, once every entry is removed */
size_t vt_table_slots(void); /* the slot array's size (tests: growth, load <= 5/8) */

/* ---- track.c: accounting -------------------------------------------------------------------- */
#define VT_MAX_DEVICES 64

typedef struct vt_series_stats_s {
    uint64_t live_bytes;
    uint64_t peak_bytes;
    uint64_t peak_t_ns;
    uint64_t n_allocs;
    uint64_t n_frees;
} vt_series_stats_t;

/* Calls, not memory movements: memory that vanishes with a context, or a change of the graph
 * reserve, moves the series but is not an allocation or free call. */
typedef struct vt_totals_s {
    uint64_t n_allocs;
    uint64_t n_frees;
    uint64_t n_failed;          /* calls that allocated or freed nothing: errors, NULL, 0 bytes */
    uint64_t n_unmatched_frees; /* successful frees of addresses never seen allocated */
    uint64_t n_dropped;         /* events lost because the table could not grow */
} vt_totals_t;

/* A free in two steps around the real call: begin marks the entry as being freed (it stays
 * live and counted: the device still holds it), end, once the real free has returned, counts
 * it out and writes the FREE, or leaves it live when the free failed. Should the driver hand
 * the address to another thread before end runs, that thread's allocation writes this FREE
 * first (insert_counted), so the trace stays a valid sequence. */
typedef struct vt_free_s {
    bool found;
    int series;          /* the first series looked in (the trace's series of an unmatched free) */
    uint64_t key;        /* what was freed */
    vt_alloc_t saved;    /* the entry as begin found it (its serial identifies it at end) */
    vt_alloc_t *entry;   /* where it was: entries stay put until removed (table.c) */
    uint32_t generation; /* of the table's memory then (track.c) */
} vt_free_t;

/* Bytes of device allocation calls in flight: added before the real call, taken back when the
 * allocation is recorded (or failed). While some are, a record that lowers a device's live
 * bytes first raises its peak to live + in flight (an INFLIGHT record) when that is higher: the
 * device may have held them all at once. An atomic outside vt_lock, so the shims add to it
 * without a lock round trip. */
extern uint64_t vt_inflight_bytes;
static inline void vt_inflight_add(uint64_t bytes)
{
    __atomic_fetch_add(&vt_inflight_bytes, bytes, __ATOMIC_SEQ_CST);
}
static inline void vt_inflight_sub(uint64_t bytes)
{
    __atomic_fetch_sub(&vt_inflight_bytes, bytes, __ATOMIC_SEQ_CST);
}

typedef struct vt_callsite_s vt_callsite_t;
/* vt_track_alloc_at returns the allocation's timestamp (vt_now_ns). */
uint64_t vt_track_alloc_at(vt_series_t series, int device, uint64_t key, uint64_t size_bytes,
                           vt_api_t api, const vt_callsite_t *cs);
/* The same for an allocation made in context ctx (0: unknown) whose pending_bytes were added to
 * vt_inflight_bytes before the real call: taken back under vt_lock as the allocation is
 * counted, so no moment lacks both. */
uint64_t vt_track_alloc_pending_at(vt_series_t series, int device, uint64_t ctx, uint64_t key,
                                   uint64_t size_bytes, vt_api_t api, const vt_callsite_t *cs,
                                   uint64_t pending_bytes);
/* Without a call-site (category unknown): the tests' shorthand. */
static inline void vt_track_alloc(vt_series_t series, int device, uint64_t key, uint64_t size_bytes,
                                  vt_api_t api)
{
    vt_track_alloc_at(series, device, key, size_bytes, api, NULL);
}
#define VT_MASK(series) (1u << (series))
void vt_track_free_begin_at(unsigned series_mask, uint64_t key, vt_api_t api, vt_free_t *f);
static inline void vt_track_free_begin(unsigned series_mask, uint64_t key, vt_free_t *f)
{
    vt_track_free_begin_at(series_mask, key, VT_API_NONE, f);
}
/* vt_track_free_end: ok is the real free's success. */
void vt_track_free_end(vt_free_t *f, bool ok, vt_api_t api);
void vt_track_failed_at(vt_api_t api, uint64_t requested_bytes, int error, int device,
                        const vt_callsite_t *cs, uint64_t free_bytes, uint64_t total_bytes);
static inline void vt_track_failed(vt_api_t api)
{
    vt_track_failed_at(api, 0, 0, 0, NULL, 0, 0);
}
void vt_track_meminfo(int device, uint64_t free_bytes, uint64_t total_bytes);
void vt_track_label(int record_type, const char *label); /* VT_REC_MARK, VT_REC_PHASE_PUSH */
void vt_track_phase_pop(void);
/* pending_bytes: as vt_track_alloc_pending_at */
void vt_track_vmm_create_at(uint64_t handle, uint64_t size_bytes, vt_series_t series, int device,
                            vt_api_t api, const vt_callsite_t *cs, uint64_t pending_bytes);
static inline void vt_track_vmm_create(uint64_t handle, uint64_t size_bytes, vt_series_t series,
                                       int device, vt_api_t api)
{
    vt_track_vmm_create_at(handle, size_bytes, series, device, api, NULL, 0);
}
void vt_track_vmm_import(uint64_t handle, int device, vt_api_t api, const vt_callsite_t *cs);
void vt_track_vmm_retain(uint64_t handle);
void vt_track_vmm_release_begin(uint64_t handle, vt_free_t *f);
void vt_track_vmm_release_end(vt_free_t *f, bool ok, vt_api_t api);
void vt_track_vmm_map(uint64_t va, uint64_t size_bytes, uint64_t handle);
void vt_track_vmm_unmap(uint64_t va, uint64_t size_bytes, vt_api_t api);
void vt_track_graph_reserved_at(int device, uint64_t reserved_bytes, vt_api_t api,
                                const vt_callsite_t *cs);
static inline void vt_track_graph_reserved(int device, uint64_t reserved_bytes, vt_api_t api)
{
    vt_track_graph_reserved_at(device, reserved_bytes, api, NULL);
}
/* Context teardown. serial_before: vt_track_serial() before the real call, so an allocation
 * made after it (a new context at the same handle) is kept. */
uint64_t vt_track_serial(void);
void vt_track_drop_context(uint64_t ctx, uint64_t serial_before, vt_api_t api);
void vt_track_drop_device(int device, uint64_t primary_ctx, uint64_t serial_before, vt_api_t api);
/* A sample of stream-ordered pool number `pool` (from 1) of device: reserved, used, reserved
 * high, used high (bytes). */
/* A POOL record of sample gen, unless a newer one of the pool (*written_gen, read and set under
 * vt_lock) was recorded first. */
void vt_track_pool(int device, uint32_t pool, const uint64_t figures[4], uint64_t gen,
                   uint64_t *written_gen);
/* What the driver says of a device, for its DEVICE record: "" and 0 where it did not answer. */
typedef struct vt_device_info_s {
    char name[256];
    uint64_t total_bytes;
    char uuid[48];       /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi shows it */
    char pci_bus_id[32]; /* "0000:3b:00.0" */
} vt_device_info_t;
bool vt_track_device_described(int device); /* its record is written (or being) in this trace */
void vt_track_device(int device, const vt_device_info_t *info);
bool vt_track_stats(vt_series_t series, int device, vt_series_stats_t *out);
void vt_track_totals(vt_totals_t *out);
bool vt_track_category_stats(int device, int category, vt_series_stats_t *out);
bool vt_track_peak_by_category(int device, uint64_t out[VT_CAT_COUNT]);
/* What a device holds for the process is its allocations and what its stream-ordered pools
 * reserve beyond their allocations (their POOL samples): the device figure. Its peak is the
 * device peak; the allocations' own peak is the device series' peak_bytes. */
typedef struct vt_device_peak_s {
    uint64_t peak_bytes, peak_t_ns;
    uint64_t peak_pool_spare_bytes;    /* the pools' reservations beyond allocations, at it */
    uint64_t pool_reserved_bytes;      /* the pools' reservations now, together */
    uint64_t pool_reserved_peak_bytes; /* ... at most */
    uint64_t pool_spare_bytes;         /* ... beyond their allocations now */
} vt_device_peak_t;
bool vt_track_device_peak(int device, vt_device_peak_t *out);
void vt_track_reset(void);
void vt_mark(const char *label); /* vramtrace_mark and NVTX marks: a MARK record */
unsigned long vt_n_marks(void);
void vt_track_fork_prepare(void);
void vt_track_fork_parent(void);
bool vt_track_after_fork_child(void); /* false: forked inside vramtrace's work: go OFF */
void vt_track_close(vt_series_stats_t snap[VT_SERIES_COUNT][VT_MAX_DEVICES], vt_totals_t *t,
                    const char **trace_path, bool *partial);
void vt_track_category_snapshot(int device, vt_series_stats_t cats[VT_CAT_COUNT],
                                uint64_t at_peak[VT_CAT_COUNT]);

/* ---- unwind.c, stacks.c, modules.c: call-sites ------------------------------------------- */
#define VT_MAX_FRAMES 256 /* VRAMTRACE_DEPTH's upper bound */

void vt_unwind_init(void);
int vt_unwind(void **ips, int max_frames);
/* cfi.c: the unwind rule of a return address, from the module's .eh_frame. */
typedef enum vt_cfi_kind_e {
    VT_CFI_OTHER = 1, /* not understood here: libunwind's */
    VT_CFI_STANDARD,  /* CFA = %rsp or %rbp + cfa_off, return address at CFA-8 */
    VT_CFI_LAST,      /* the outermost frame (its return address undefined) */
} vt_cfi_kind_t;
typedef struct vt_cfi_rule_s {
    vt_cfi_kind_t kind;
    bool cfa_from_rbp;
    int32_t cfa_off;
    int16_t rbp_off; /* the caller's %rbp saved at CFA + rbp_off; 0: %rbp unchanged */
} vt_cfi_rule_t;
vt_cfi_rule_t vt_cfi_rule(uintptr_t ra);
/* unwind.c's raw capture, for tests: up to n return addresses of the caller, the caller's own
 * first, as unw_backtrace gives them; and how many captures took the rule cache's path. */
int vt_unwind_raw(void **raw, int n);
uint64_t vt_unwind_fast_count(void);

typedef struct vt_frames_s vt_frames_t;
vt_frames_t *vt_thread_frames(void);  /* NULL when it cannot be made */
void **vt_frames_ips(vt_frames_t *f); /* VT_MAX_FRAMES slots of this thread */
bool vt_stack_room(vt_frames_t *f, size_t bytes);
/* The stack a capture takes below the shim at its worst (a thread's first call at depth 256,
 * libunwind's first unwind of it, the trace's opening): measured, with a margin
 * (docs/reliability.md). Where the capture cannot run on the thread's own capture stack and
 * less room is left, the call is recorded without its stack. */
#define VT_CAPTURE_STACK_BYTES (16u << 10)
/* vt_run_capture: fn(arg) on this thread's capture stack (a part of its frames mapping), or on
 * the current stack when switching is not possible (no trampoline for this machine, a
 * sanitizer build, or the call runs on an alternate signal stack, where a nested signal would
 * land on the frames of the interrupted handler) and VT_CAPTURE_STACK_BYTES are left. Returns
 * false when fn did not run. */
bool vt_run_capture(vt_frames_t *f, void (*fn)(void *), void *arg);

/* onstack.c: fn(arg) with the stack pointer at top; the unwind through it reaches the caller. */
#if defined(__has_feature)
#    if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#        define VT_SANITIZED_STACKS 1 /* clang */
#    endif
#endif
#if (defined(__x86_64__) || defined(__aarch64__)) && !defined(__SANITIZE_ADDRESS__) &&             \
    !defined(__SANITIZE_THREAD__) && !defined(VT_SANITIZED_STACKS)
#    define VT_HAVE_STACK_SWITCH 1
void vt_call_on_stack(void (*fn)(void *), void *arg, void *top);
#else
#    define VT_HAVE_STACK_SWITCH 0
#endif

/* got.c: relocation patching. vt_got_visit_fn: what to store in a call or address slot (JUMP_SLOT,
 * GLOB_DAT) of an object naming the symbol name, whose value is current (bound false: a lazy
 * slot not bound yet, current leads into the object's own PLT; weak: the reference is weak, so
 * an unbound one may resolve to nothing); NULL leaves the slot as it is. Slots holding NULL (an
 * undefined weak reference) are never visited. Address slots are visited before call slots.
 * vt_got_patch returns the number of slots written. */
struct dl_phdr_info;
typedef void *(*vt_got_visit_fn)(void *ctx, const char *name, void *current, bool bound, bool weak);
int vt_got_patch(const struct dl_phdr_info *info, vt_got_visit_fn visit, void *ctx);
int vt_got_patch_alone(const struct dl_phdr_info *info, vt_got_visit_fn visit, void *ctx);
int vt_got_relocated(const struct dl_phdr_info *info); /* 1, 0, -1: unknown */
typedef bool (*vt_got_name_fn)(const char *name);
bool vt_got_names(uintptr_t base, const void *dynamic, vt_got_name_fn wanted);

typedef struct vt_stack_node_s vt_stack_node_t;
uint32_t vt_stack_intern(void *const *ips, int n, bool *created);
vt_stack_node_t *vt_stack_node(uint32_t id);
uint64_t vt_stack_node_ip(const vt_stack_node_t *node);
uint32_t vt_stack_node_parent(const vt_stack_node_t *node);
void **vt_stack_node_rule_cache(vt_stack_node_t *node);
/* The count of stack nodes, strings and modules: inline, since the writer compares them with
 * what it has written before every event. */
extern uint32_t vt_n_stack_nodes;
static inline uint32_t vt_stack_count(void)
{
    return __atomic_load_n(&vt_n_stack_nodes, __ATOMIC_ACQUIRE);
}
void vt_stacks_forget(void);

typedef struct vt_module_s {
    const char *path; /* "" for the main program */
    uint64_t base;    /* load bias */
    uint64_t lo, hi;  /* address range of its loadable segments */
    uint8_t build_id[32];
    uint32_t build_id_len;
} vt_module_t;
bool vt_modules_refresh(void);
const vt_module_t *vt_modules_find(uint64_t ip);
void vt_modules_unloaded(void);              /* the dlopen door saw an object unloaded */
unsigned vt_modules_unloads(void);           /* how many times so far */
void vt_modules_refresh_after_unloads(void); /* the map again if one was since its refresh */
extern _Atomic unsigned vt_n_modules;
static inline unsigned vt_modules_count(void)
{
    return vt_n_modules;
}
const vt_module_t *vt_module(unsigned index);

/* ---- strings.c: interned strings, dense ids from 1 ------------------------------------------ */
#define VT_STRING_MAX 1024                            /* bytes kept of a longer string */
uint32_t vt_string_intern(const char *s, size_t len); /* 0 when out of memory; vt_lock held */
const char *vt_string(uint32_t id);                   /* NULL for an unknown id; no lock */
extern uint32_t vt_n_strings;
static inline uint32_t vt_string_count(void)
{
    return __atomic_load_n(&vt_n_strings, __ATOMIC_ACQUIRE);
}
void vt_strings_forget(void);

/* ---- python.c: Python frames of call-sites ---------------------------------------------------- */
/* A Python frame is a pseudo instruction pointer (VT_PYFRAME_IP of vt_format.h) spliced into
 * the native stack at the interpreter's evaluation frames; python.c's header has the rest. */
/* vt_python_splice: this thread's Python frames (at most max_py) spliced into the n_native
 * native frames of ips (innermost first; room for VT_MAX_FRAMES); returns the new count. */
int vt_python_splice(void **ips, int n_native, int max_py);
void vt_python_forget(void); /* fork child: after vt_strings_forget */

/* ---- symtab.c ------------------------------------------------------------------------------ */
const char *vt_symtab_name(const char *path, uint64_t addr);
void vt_frame_names(uint64_t ip, const char **func, const char **module);

/* ---- categorize.c: call-site and category of an allocation ----------------------------------- */

struct vt_callsite_s {
    uint32_t stack_id; /* 0: none */
    uint8_t category;  /* vt_category_t */
};

void vt_categories_init(void);
const vt_rules_t *vt_categories_rules(void);
void vt_callsite_take(vt_callsite_t *cs, vt_api_t api);
int vt_category_of_stack(uint32_t stack_id, void *const *ips, int n, vt_api_t api);
void vt_category_push(int category);
void vt_category_pop(void);
void vt_phase_push(const char *name);
void vt_phase_pop(void);
const char *vt_phase_current(void);

/* ---- nvtx.c: NVTX v3 ranges as phases (InitializeInjectionNvtx2 is exported) ---------------- */
bool vt_nvtx_range_name(uint64_t id, char *buf, size_t cap); /* an open start/end range */

/* ---- nvtx_inject.c: NVTX_INJECTION64_PATH pointed at us ------------------------------------- */
void vt_nvtx_init(void);      /* once, from init: NVTX_INJECTION64_PATH -> us, unless set */
void vt_nvtx_cuda_used(void); /* the process's first CUDA use: the variable if init left it */

/* ---- oom.c, summary.c: the reports on stderr ------------------------------------------------- */
void vt_oom_report(int device, vt_api_t api, uint64_t requested_bytes, const vt_callsite_t *cs);
void vt_exit_summary(void); /* the trace closed, then the exit line(s) */
/* vt_take_largest: the index of the largest non-zero values[i] (the first on a tie), its value in
 * *taken and zeroed in values, so that calls in a row list them largest first; -1 when none is
 * left. */
int vt_take_largest(uint64_t *values, int n, uint64_t *taken);

/* ---- writer.c: the trace file (vt_lock held) ---------------------------------------------- */
/* The ALLOC of a live entry, whose trace_slot it sets; a FREE names its entry's trace_slot. */
void vt_writer_alloc(vt_alloc_t *a, bool implicit);
void vt_writer_free(int series, uint64_t key, bool handle, bool unmatched, bool implicit,
                    vt_api_t api, uint32_t trace_slot);
void vt_writer_free_at(uint64_t t_ns, int series, uint64_t key, bool handle, bool unmatched,
                       bool implicit, vt_api_t api, uint32_t trace_slot);
void vt_writer_failed(vt_api_t api, uint64_t requested_bytes, int error, uint32_t stack_id);
void vt_writer_oom(int device, vt_api_t api, uint64_t requested_bytes, uint32_t stack_id,
                   uint64_t free_bytes, uint64_t total_bytes, const uint64_t live[VT_CAT_COUNT]);
void vt_writer_labelled(vt_record_type_t type, const char *label);
void vt_writer_meminfo(int device, uint64_t free_bytes, uint64_t total_bytes);
void vt_writer_phase_pop(void);
void vt_writer_close(const vt_totals_t *totals);
bool vt_writer_capped(void);
/* by_category and the figures after it: the device series' only */
void vt_writer_peak(int series, int device, uint64_t peak_bytes, uint64_t peak_t_ns,
                    const uint64_t by_category[VT_CAT_COUNT], uint64_t pool_spare_bytes,
                    uint64_t tensors_peak_bytes, uint64_t pool_reserved_peak_bytes);
void vt_writer_inflight(int device, uint64_t inflight_bytes);
void vt_writer_device(int device, const vt_device_info_t *info);
/* figures: reserved, used, reserved high, used high (bytes) */
void vt_writer_pool(int device, uint32_t pool, uint64_t t_ns, const uint64_t figures[4]);
const char *vt_writer_path(void);                /* the trace's path once opened, else NULL */
const char *vt_writer_path_shown(bool *partial); /* escaped; partial: stopped early */
void vt_writer_after_fork_child(void);
void vt_writer_after_fork_inside(void);

/* ---- resolve.c: real functions and the substitution doors ------------------------------------ */
typedef struct vt_real_s {
#define VT_HOOK_CU(name, base, ver, variant) __typeof__(&name) name;
#define VT_HOOK_RT(name)                     __typeof__(&name) name;
#define VT_REAL_CU(name)                     __typeof__(&name) name;
#include "hooks.def"
#undef VT_HOOK_CU
#undef VT_HOOK_RT
#undef VT_REAL_CU
} vt_real_t;
extern vt_real_t vt_real;

/* VT_REAL(name): the real function, resolved on first use (acquire load); NULL if none. */
#define VT_REAL(name)                                                                              \
    __extension__({                                                                                \
        __typeof__(&name) vt_f_ = __atomic_load_n(&vt_real.name, __ATOMIC_ACQUIRE);                \
        vt_f_ ? vt_f_ : (__typeof__(&name))vt_resolve_real(offsetof(vt_real_t, name), #name);      \
    })
void *vt_resolve_real(size_t slot_offset, const char *name);
void vt_substitute(const char *symbol, void **pfn, int cuda_version, uint64_t flags);
void *vt_dlsym_intercept(void *handle, const char *name);
bool vt_is_hooked_name(const char *name); /* a row of hooks.def with a shim */
void *vt_dlsym_next(const char *name, void *next, uintptr_t lo, uintptr_t hi);
extern void *(*vt_real_dlsym_ptr)(void *, const char *); /* glibc's dlsym, once looked up */
void *(*vt_real_dlsym(void))(void *, const char *);      /* vt_real_dlsym_ptr, looked up */
void *vt_patch_visit(void *ctx, const char *name, void *current, bool bound, bool weak);
void vt_pin_reals(void);
/* ---- loads.c: the program's references to CUDA pointed at the shims (GOT patching) ---------- */
void vt_loads_refresh(void);    /* after a load: patches the objects not patched yet */
void vt_loads_startup(void);    /* the constructor's part of the patch its resolver made */
bool vt_loads_found_cuda(void); /* an object looked at is CUDA's or calls a shim's function */
bool vt_is_own_address(const void *p);
int vt_current_device(void);          /* from the real driver; 0 when unknown */
int vt_device_of_pointer(uint64_t p); /* from the real driver; -1 when unknown */
/* ---- pools.c: stream-ordered pools' reservations, sampled where they can change -------------- */
/* pool 0: the device's current one; stream: vt_pools_stream's key */
void vt_pools_after_alloc(int device, uint64_t pool, uint64_t size_bytes, uint64_t stream);
#define VT_POOLS_NO_STREAM UINT64_MAX
uint64_t vt_pools_stream(const void *stream, bool per_thread);
/* What a stream-ordered request of size_bytes may add to the device: its pool grows by whole
 * granules (2 MiB) of mapped memory, at most the request rounded up to one, and the growth is
 * known only once the pool is sampled after it (vt_pools_after_alloc). The shims keep that much
 * in flight from before the real call until then. */
#define VT_POOL_GRANULE_BYTES ((uint64_t)2 << 20)
static inline uint64_t vt_pools_request_bytes(uint64_t size_bytes)
{
    uint64_t rounded = (size_bytes + VT_POOL_GRANULE_BYTES - 1) & ~(VT_POOL_GRANULE_BYTES - 1);
    return rounded < size_bytes ? size_bytes : rounded;
}
/* a stream-ordered allocation's, on stream (vt_pools_stream) */
void vt_pools_before_free(int device, uint64_t size_bytes, uint64_t stream);
void vt_pools_after_free(int device, uint64_t size_bytes, bool ok);
/* Whether api allocates from a stream-ordered pool. */
static inline bool vt_api_stream_ordered(unsigned api)
{
    return api == VT_API_cuMemAllocAsync || api == VT_API_cuMemAllocAsync_ptsz ||
           api == VT_API_cuMemAllocFromPoolAsync || api == VT_API_cuMemAllocFromPoolAsync_ptsz ||
           api == VT_API_cudaMallocAsync || api == VT_API_cudaMallocAsync_ptsz ||
           api == VT_API_cudaMallocFromPoolAsync || api == VT_API_cudaMallocFromPoolAsync_ptsz;
}
void vt_pools_at_sync(void);
void vt_pools_at_trim(uint64_t pool);
void vt_pools_current_changed(int device); /* cuDeviceSetMemPool */
void vt_pools_at_teardown(int device);
void vt_pools_at_exit(void);
int vt_current_context(uint64_t *ctx); /* the device; *ctx 0 when there is none */
void vt_context_destroyed(void);       /* a handle may now name another device's context */
void vt_note_primary_context(int device, uint64_t ctx);
uint64_t vt_primary_context(int device); /* 0: not seen */

#endif

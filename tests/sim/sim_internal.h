/* SPDX-License-Identifier: MIT */
/* The simulated CUDA driver's shared state: devices, contexts, the allocation registry and the
 * pools. One mutex (sim_lock) guards all of it; every entry point takes it for its whole body,
 * which keeps the double simple and makes concurrent callers exact. */
#ifndef SIM_INTERNAL_H
#define SIM_INTERNAL_H
#include <pthread.h>
#include <stdint.h>
#include "sim_cuda.h"
#include "uthash.h"

#define SIM_EXPORT      __attribute__((visibility("default")))
#define SIM_ALIGN_BYTES ((size_t)512)     /* cuMemAlloc alignment of the real driver */
#define SIM_GRAN_BYTES  ((size_t)2 << 20) /* VMM and pool granularity (2 MiB) */
#define SIM_MAX_DEVICES 16

/* Synthetic address space, far from where glibc maps host memory, so that a device address never
 * equals a host pointer: VMM reservations first, then 1 TiB per device. */
#define SIM_VMM_VA_BASE ((CUdeviceptr)0x200000000000ULL)
#define SIM_VA_BASE     ((CUdeviceptr)0x300000000000ULL)
#define SIM_VA_PER_DEV  ((CUdeviceptr)1 << 40)
#define SIM_VA_END      (SIM_VA_BASE + SIM_MAX_DEVICES * SIM_VA_PER_DEV)

typedef enum sim_kind_e {
    SIM_KIND_DEVICE,          /* cuMemAlloc, cuMemAllocPitch */
    SIM_KIND_MANAGED,         /* cuMemAllocManaged: host-accessible */
    SIM_KIND_HOST,            /* cuMemHostAlloc, cuMemAllocHost: host memory */
    SIM_KIND_HOST_REGISTERED, /* cuMemHostRegister: the caller's host memory */
    SIM_KIND_ASYNC,           /* cuMemAllocAsync, cuMemAllocFromPoolAsync */
    SIM_KIND_GRAPH,           /* a graph memory node's allocation */
    SIM_KIND_IPC              /* a peer's allocation opened with cuIpcOpenMemHandle */
} sim_kind_t;

typedef struct sim_pool_s sim_pool_t;
typedef struct sim_ctx_s sim_ctx_t;

/* A range of addresses handed out one after the other, with the freed ranges kept (sorted,
 * coalesced) for reuse when VTSIM_REUSE asks for it. */
typedef struct sim_va_range_s {
    CUdeviceptr base, end;
    struct sim_va_range_s *next;
} sim_va_range_t;

typedef struct sim_va_space_s {
    CUdeviceptr next, end;
    sim_va_range_t *free_ranges;
} sim_va_space_t;

/* What the simulator really charged or handed out, for VTSIM_STATS (sim_stats.c). */
typedef struct sim_series_s {
    size_t live_bytes, hwm_bytes;
    unsigned long long allocs, frees;
} sim_series_t;

/* One live address range. Device kinds get synthetic addresses that no host pointer can equal;
 * backing is host memory made only when the program copies into the range. */
typedef struct sim_alloc_s {
    CUdeviceptr base;
    size_t size_bytes;    /* what the caller asked for (pitch × height for pitched) */
    size_t charged_bytes; /* what the device's capacity was charged (0 for host kinds) */
    sim_kind_t kind;
    unsigned int flags; /* cuMemHostAlloc / cuMemHostRegister / cuMemAllocManaged flags */
    int device;
    sim_ctx_t *ctx;   /* the context that made it: its destruction frees it */
    sim_pool_t *pool; /* SIM_KIND_ASYNC */
    void *backing;    /* host memory holding the contents, or NULL */
    UT_hash_handle hh;
} sim_alloc_t;

struct sim_pool_s {
    int device;
    int is_default;
    int destroy_pending; /* cuMemPoolDestroy with allocations outstanding */
    unsigned id;         /* creation order, from 1: names the pool in VTSIM_STATS */
    size_t reserved_bytes, reserved_high_bytes; /* the high marks the program may reset */
    size_t used_bytes, used_high_bytes;
    size_t reserved_hwm_bytes, used_hwm_bytes; /* the true high-water marks, never reset */
    cuuint64_t release_threshold_bytes;
    int reuse[3]; /* the three CU_MEMPOOL_ATTR_REUSE_* flags */
    /* Freed on a stream and not reusable by another one yet: with neither opportunistic reuse
     * nor internal dependencies allowed, until a synchronization. In the reservation, not in
     * used_bytes. More streams than slots: the rest is reusable by none until then. */
    struct {
        CUstream stream;
        size_t bytes;
    } pending[8];
    size_t pending_stranded_bytes;
    sim_pool_t *next;
};

#define SIM_N_LIMITS 10 /* CU_LIMIT_STACK_SIZE .. CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED */

struct sim_ctx_s {
    int device;
    int is_primary;
    unsigned int refcount; /* primary-context retains */
    _Atomic int
        active; /* read unlocked by sim_current_device; retained (primary) or not yet destroyed (created) */
    unsigned int flags;
    unsigned long long id; /* cuCtxGetId: unique per context ever made */
    size_t limits[SIM_N_LIMITS];
    int cache_config;
    unsigned peers_enabled; /* bit d: cuCtxEnablePeerAccess to device d's primary context */
    struct sim_ctx_s *next; /* created contexts; a destroyed one stays, inactive */
};

typedef struct sim_device_s {
    size_t capacity_bytes;
    size_t used_bytes;     /* physical bytes charged: allocations, pool, VMM, graph, arrays */
    size_t used_hwm_bytes; /* the high-water mark of used_bytes */
    sim_series_t allocs;   /* device allocations, arrays and VMM handles, by requested size */
    sim_va_space_t va;     /* never reused unless VTSIM_REUSE=1 */
    sim_ctx_t primary;
    sim_pool_t *default_pool;
    sim_pool_t *current_pool;
    size_t graph_used_bytes, graph_used_high_bytes;
    size_t graph_reserved_bytes, graph_reserved_high_bytes;
    size_t graph_used_hwm_bytes, graph_reserved_hwm_bytes; /* never reset, for VTSIM_STATS */
} sim_device_t;

extern pthread_mutex_t sim_lock;
extern _Atomic int sim_initialized; /* read unlocked by every entry point */
extern int sim_n_devices;
extern int sim_driver_version;
extern sim_device_t sim_devices[SIM_MAX_DEVICES];
extern sim_alloc_t *sim_allocs; /* uthash by base */
extern sim_pool_t *sim_pools;
extern int sim_reuse_addresses;  /* VTSIM_REUSE=1 */
extern sim_series_t sim_pinned;  /* pinned and registered host memory */
extern sim_series_t sim_managed; /* managed memory */

/* sim_core.c */
void sim_config_load(void);                    /* idempotent; reads VTSIM_* */
CUresult sim_check_device(CUdevice dev);       /* needs cuInit */
CUresult sim_charge(int device, size_t bytes); /* OUT_OF_MEMORY past the capacity */
void sim_uncharge(int device, size_t bytes);
CUdeviceptr sim_va_take(int device, size_t bytes, size_t align);
void sim_va_give(int device, CUdeviceptr base, size_t bytes); /* kept only with VTSIM_REUSE */
size_t sim_round_up(size_t n, size_t align);
sim_alloc_t *sim_alloc_add(CUdeviceptr base, size_t size, size_t charged, sim_kind_t kind, int dev);
sim_alloc_t *sim_alloc_find(CUdeviceptr base);
sim_alloc_t *sim_alloc_containing(CUdeviceptr ptr, size_t len);
void sim_alloc_remove(sim_alloc_t *a); /* frees backing and uncharges */
void *sim_host_map(size_t bytes);      /* lazily backed anonymous memory */
void sim_host_unmap(void *p, size_t bytes);
void sim_ctx_teardown(sim_ctx_t *ctx); /* frees what the context made, without a free call */

/* sim_context.c */
CUresult sim_current_device(int *device); /* needs cuInit and a current context */
sim_ctx_t *sim_current_ctx(void);         /* the thread's current context, or NULL */
sim_ctx_t *sim_ctx_lookup(CUcontext ctx); /* a live context (primary or created), or NULL */
void sim_ctx_init_defaults(sim_ctx_t *ctx, int device);

/* sim_stream.c */
CUstreamCaptureMode sim_thread_capture_mode(void);
int sim_valid_stream(CUstream s, int *device); /* 1 when the handle is usable */
uint64_t sim_stream_last_hostfn(CUstream s);   /* what synchronizing s waits for */
void sim_stream_note_hostfn(CUstream s, uint64_t seq);

/* sim_va.c */
CUdeviceptr sim_va_space_take(sim_va_space_t *space, size_t bytes, size_t align);
void sim_va_space_give(sim_va_space_t *space, CUdeviceptr base, size_t bytes);

/* sim_stats.c */
void sim_series_add(sim_series_t *s, size_t bytes);
void sim_series_remove(sim_series_t *s, size_t bytes);
int sim_stats_write(const char *path); /* 0, or -1 when the file cannot be written */

/* sim_hostfn.c: host functions run on the simulator's own thread, in the order issued */
uint64_t sim_hostfn_enqueue(CUhostFn fn, CUstreamCallback cb, CUstream stream, void *user);
uint64_t sim_hostfn_issued(void);    /* the sequence number of the last one issued */
uint64_t sim_hostfn_completed(void); /* every one up to this number has returned */
void sim_hostfn_wait(uint64_t seq);  /* sim_lock must not be held: a host function may call in */

/* sim_array.c */
typedef struct sim_array_s sim_array_t;
sim_array_t *sim_array_lookup(CUarray handle); /* an array or a mipmap level, or NULL */
sim_array_t *sim_mipmapped_lookup(CUmipmappedArray handle);
size_t sim_array_layout(const CUDA_ARRAY3D_DESCRIPTOR *d, size_t *row_bytes, size_t *rows,
                        size_t *slices); /* bytes of one level, 0 when invalid */
unsigned sim_array_flags(const sim_array_t *a);
void *sim_array_row(sim_array_t *a, size_t x, size_t y, size_t z, size_t len, int for_write);
void sim_array_teardown(sim_ctx_t *ctx);
size_t sim_array_row_bytes(const sim_array_t *a); /* width × element bytes */
size_t sim_array_rows(const sim_array_t *a);      /* height, at least 1 */
size_t sim_array_slices(const sim_array_t *a);    /* depth or layers, at least 1 */

/* sim_event.c */
int sim_event_valid(CUevent e);                      /* sim_lock held */
void sim_event_record_locked(CUevent e, CUstream s); /* sim_lock held */

/* sim_copy2d.c (sim_lock held) */
CUresult sim_copy3d(const CUDA_MEMCPY3D *p);
CUresult sim_set2d(CUdeviceptr dst, size_t pitch, unsigned value, unsigned elem_bytes, size_t width,
                   size_t height);
int sim_capture_copy(CUstream stream, const CUDA_MEMCPY3D *p, CUresult *rc); /* takes sim_lock */
CUresult sim_memset_async(CUdeviceptr dst, unsigned value, unsigned elem_bytes, size_t n,
                          CUstream stream); /* takes sim_lock */

/* sim_copy.c */
void *sim_unified_view(CUdeviceptr p, size_t len, int for_write);
CUresult sim_stream_check(CUstream s); /* CUDA_ERROR_INVALID_HANDLE for an unknown stream */

/* sim_module.c */
void sim_module_teardown(sim_ctx_t *ctx);

/* sim_memory.c */
void *sim_resolve(CUdeviceptr ptr, size_t len, int for_write); /* host view of device bytes */

/* sim_graph.c: a graph node as added (and as an instantiated graph keeps it) */
typedef struct sim_node_s {
    int type; /* CUgraphNodeType */
    int device;
    CUdeviceptr dptr; /* memory nodes */
    size_t size_bytes;
    CUDA_MEMCPY3D copy;
    CUDA_MEMSET_NODE_PARAMS set;
    CUhostFn fn;
    void *user;
    CUevent event;
    CUgraph child;
    struct sim_node_s *next;
} sim_node_t;
CUgraph sim_graph_new(void);
CUresult sim_graph_add(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n_deps,
                       const sim_node_t *proto);
CUresult sim_graph_alloc_node(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n_deps,
                              int device, size_t bytesize, CUdeviceptr *dptr);
void sim_graph_free(sim_alloc_t *a);

/* sim_capture.c (sim_lock held) */
typedef struct sim_capture_s sim_capture_t;
sim_capture_t *sim_capture_of(CUstream s);
sim_capture_t *sim_capture_active(CUstream s, int *invalid);
void sim_capture_invalidate(sim_capture_t *c);
CUresult sim_capture_add(sim_capture_t *c, const sim_node_t *proto, CUgraphNode *out);
CUresult sim_capture_alloc(sim_capture_t *c, int device, size_t bytesize, CUdeviceptr *dptr);
void sim_capture_join(CUstream s, sim_capture_t *c);
int sim_capture_prohibits_unsafe(void); /* and invalidates the captures that prohibit */
int sim_capture_any(void);

/* sim_pool.c */
sim_pool_t *sim_pool_default(int device);
void sim_pool_release(sim_pool_t *pool, cuuint64_t keep_bytes);
void sim_pool_synchronized(sim_pool_t *pool); /* its frees are done: any stream may reuse them */
void sim_pool_sync_device(int device);        /* the release threshold at sync points */
void sim_async_free(sim_alloc_t *a);

/* sim_vmm.c */
void *sim_vmm_resolve(CUdeviceptr ptr, size_t len);

/* Every entry point runs its body under sim_lock: lock, call the static do_ function, unlock. */
#define SIM_LOCK()   pthread_mutex_lock(&sim_lock)
#define SIM_UNLOCK() pthread_mutex_unlock(&sim_lock)

#endif

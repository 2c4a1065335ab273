/* SPDX-License-Identifier: MIT */
/* Stream-ordered pools: what each pool reserves, which is what the process holds of the device
 * whatever its allocations add up to (a release threshold of UINT64_MAX, PyTorch's, never gives
 * any back). Asked of the real driver (cuMemPoolGetAttribute) only where the reservation can
 * have changed: after a stream-ordered allocation that may have grown it (the bytes allocated
 * from the pool since its last sample exceed what it had spare), at synchronizations that may
 * have shrunk it (it reserves more than its release threshold, and more than it used or
 * something was freed since), at trims and at context teardowns. Never under vt_lock; the
 * table has a small lock of its own, never held across a CUDA call. No allocation, no stdio. */
#include "vt_internal.h"

#include <stdatomic.h>

#define MAX_POOLS 32

typedef struct pool_s {
    uint64_t handle; /* CUmemoryPool; 0: an empty slot */
    int device;
    uint64_t reserved_bytes, used_bytes, threshold_bytes; /* at its last sample */
    uint64_t reserved_high_bytes, used_high_bytes;
    uint64_t allocated_bytes; /* allocated from it since its last sample */
    uint64_t sampled_t_ns;
} pool_t;

/* Frees change only what a pool uses, not what it holds: such samples are paced like the
 * memory-info samples, and a last one is taken at exit. */
#define USED_INTERVAL_NS 100000000u

static pool_t pools[MAX_POOLS];
static unsigned n_pools;
static uint64_t default_pool[VT_MAX_DEVICES];
static bool freed_since[VT_MAX_DEVICES]; /* a stream-ordered free since the device's samples */
static atomic_flag table_lock = ATOMIC_FLAG_INIT;

static void table_take(void)
{
    while (atomic_flag_test_and_set_explicit(&table_lock, memory_order_acquire)) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}

static void table_give(void)
{
    atomic_flag_clear_explicit(&table_lock, memory_order_release);
}

/* The slot of handle, made when new (NULL: the table is full). Table lock held. */
static pool_t *pool_slot(uint64_t handle, int device)
{
    for (unsigned i = 0; i < n_pools; i++)
        if (pools[i].handle == handle)
            return &pools[i];
    if (n_pools == MAX_POOLS)
        return NULL;
    pool_t *p = &pools[n_pools];
    __builtin_memset(p, 0, sizeof *p);
    p->handle = handle;
    p->device = device;
    p->allocated_bytes = 1;                                    /* never sampled: due */
    __atomic_store_n(&n_pools, n_pools + 1, __ATOMIC_RELEASE); /* read without the lock */
    return p;
}

/* Asks the driver about pool number index + 1 and writes a POOL record when a figure moved. A
 * pool the driver no longer knows (its context was torn down) is recorded empty and forgotten. */
static void sample(unsigned index, bool at_exit)
{
    table_take();
    uint64_t handle = pools[index].handle;
    int device = pools[index].device;
    table_give();
    if (!handle)
        return;
    __typeof__(&cuMemPoolGetAttribute) get = VT_REAL(cuMemPoolGetAttribute);
    if (!get)
        return;
    static const CUmemPool_attribute attrs[5] = {
        CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, CU_MEMPOOL_ATTR_USED_MEM_CURRENT,
        CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, CU_MEMPOOL_ATTR_USED_MEM_HIGH,
        CU_MEMPOOL_ATTR_RELEASE_THRESHOLD};
    cuuint64_t v[5] = {0};
    bool gone = false;
    for (int i = 0; i < 5 && !gone; i++)
        gone = get((CUmemoryPool)(uintptr_t)handle, attrs[i], &v[i]) != CUDA_SUCCESS;
    if (gone && at_exit)
        return; /* the driver may be shutting down first: keep the last figures */
    if (gone)
        __builtin_memset(v, 0, sizeof v);
    uint64_t now_ns = vt_now_ns();
    table_take();
    pool_t *p = &pools[index];
    bool moved =
        p->handle == handle && (p->reserved_bytes != v[0] || p->used_bytes != v[1] ||
                                p->reserved_high_bytes != v[2] || p->used_high_bytes != v[3]);
    if (p->handle == handle) {
        p->reserved_bytes = v[0];
        p->used_bytes = v[1];
        p->reserved_high_bytes = v[2];
        p->used_high_bytes = v[3];
        p->threshold_bytes = v[4];
        p->allocated_bytes = 0;
        p->sampled_t_ns = now_ns;
        if (gone)
            p->handle = 0; /* the slot stays: its number is the pool's in this trace */
    }
    table_give();
    if (moved) {
        uint64_t figures[4] = {v[0], v[1], v[2], v[3]};
        vt_track_pool(device, index + 1, figures);
    }
}

/* After a successful stream-ordered allocation of size_bytes from pool (0: the device's default
 * pool, where cuMemAllocAsync allocates unless the program set another with cuDeviceSetMemPool,
 * which is not followed). */
void vt_pools_after_alloc(int device, uint64_t pool, uint64_t size_bytes)
{
    if (device < 0 || device >= VT_MAX_DEVICES)
        return;
    if (!pool) {
        pool = __atomic_load_n(&default_pool[device], __ATOMIC_RELAXED);
        if (!pool) {
            __typeof__(&cuDeviceGetDefaultMemPool) get = VT_REAL(cuDeviceGetDefaultMemPool);
            CUmemoryPool h = NULL;
            if (!get || get(&h, device) != CUDA_SUCCESS || !h)
                return;
            pool = (uint64_t)(uintptr_t)h;
            __atomic_store_n(&default_pool[device], pool, __ATOMIC_RELAXED);
        }
    }
    table_take();
    pool_t *p = pool_slot(pool, device);
    bool due = false;
    unsigned index = 0;
    if (p) {
        p->allocated_bytes += size_bytes;
        due = p->used_bytes + p->allocated_bytes > p->reserved_bytes;
        index = (unsigned)(p - pools);
    }
    table_give();
    if (due)
        sample(index, false);
}

void vt_pools_after_free(int device)
{
    if (device >= 0 && device < VT_MAX_DEVICES)
        __atomic_store_n(&freed_since[device], true, __ATOMIC_RELAXED);
}

/* Samples every pool of device (-1: of every device) that may have shrunk, or whose use fell
 * (paced); all of them when forced. */
static void sample_shrinking(int device, bool forced, bool at_exit)
{
    unsigned n = __atomic_load_n(&n_pools, __ATOMIC_ACQUIRE);
    uint64_t now_ns = vt_now_ns();
    for (unsigned i = 0; i < n; i++) {
        table_take();
        const pool_t *p = &pools[i];
        int d = p->device;
        bool freed =
            d >= 0 && d < VT_MAX_DEVICES && __atomic_load_n(&freed_since[d], __ATOMIC_RELAXED);
        bool due = p->handle && (device < 0 || d == device) &&
                   (forced ||
                    (p->reserved_bytes > p->threshold_bytes &&
                     (p->reserved_bytes > p->used_bytes || freed)) ||
                    (freed && now_ns - p->sampled_t_ns >= USED_INTERVAL_NS));
        table_give();
        if (due)
            sample(i, at_exit);
    }
    for (int d = 0; d < VT_MAX_DEVICES; d++)
        if (device < 0 || d == device)
            __atomic_store_n(&freed_since[d], false, __ATOMIC_RELAXED);
}

void vt_pools_at_sync(void)
{
    if (__atomic_load_n(&n_pools, __ATOMIC_RELAXED))
        sample_shrinking(-1, false, false);
}

void vt_pools_at_trim(uint64_t pool)
{
    table_take();
    unsigned index = MAX_POOLS;
    for (unsigned i = 0; i < n_pools; i++)
        if (pools[i].handle == pool)
            index = i;
    table_give();
    if (index < MAX_POOLS)
        sample(index, false);
}

void vt_pools_at_teardown(int device)
{
    if (device >= 0 && device < VT_MAX_DEVICES)
        __atomic_store_n(&default_pool[device], 0, __ATOMIC_RELAXED);
    if (__atomic_load_n(&n_pools, __ATOMIC_RELAXED))
        sample_shrinking(device, true, false);
}

/* The last figures of every pool, at exit (before the trace is closed). */
void vt_pools_at_exit(void)
{
    if (__atomic_load_n(&n_pools, __ATOMIC_RELAXED))
        sample_shrinking(-1, true, true);
}

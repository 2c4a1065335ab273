/* SPDX-License-Identifier: MIT */
/* Stream-ordered pools: what each pool reserves, which is what the process holds of the device
 * whatever its allocations add up to (a release threshold of UINT64_MAX, PyTorch's, never gives
 * any back). Asked of the real driver (cuMemPoolGetAttribute) only where the reservation can
 * have changed: after a stream-ordered allocation that may have grown it (what it used at its
 * last sample, plus what was allocated from it since, less what was freed since, exceeds what it
 * reserved), at synchronizations that may have shrunk it (it reserves more than its release
 * threshold, and more than it used or something was freed since), at trims and at context
 * teardowns. Never under vt_lock; the table has a small lock of its own, never held across a
 * CUDA call. No allocation, no stdio. */
#include "vt_internal.h"
#include "vt_lock.h"

#include <stdatomic.h>

#define MAX_POOLS 32

/* The counts since a sample are differences of running totals, read around the driver's
 * answers so that what a pool uses is never under-counted: allocations are added after their
 * real call and read before the answers (one both in the answers and counted since is counted
 * twice: a sample more, never a growth missed). A free counts only once its real call returned
 * (freed_bytes), against the frees begun when the answers came (freeing_bytes): one in the
 * answers began before them and is not counted again; one still in its call is not counted. */
typedef struct pool_s {
    uint64_t handle; /* CUmemoryPool; 0: an empty slot, or a pool the driver no longer knows */
    int device;
    uint64_t reserved_bytes, used_bytes, threshold_bytes; /* at the sample stored */
    uint64_t reserved_high_bytes, used_high_bytes;
    uint64_t allocated_bytes;        /* allocated from it, all along */
    uint64_t allocated_at_sample;    /* allocated_bytes before the stored sample's answers */
    uint64_t freeing_at_sample;      /* its device's freeing_bytes after them */
    uint64_t sample_gen, stored_gen; /* samples begun; the newest one stored */
    uint64_t written_gen;            /* the newest one recorded (vt_track_pool, under vt_lock) */
    uint64_t sampled_t_ns;
} pool_t;

/* Frees change only what a pool uses, not what it holds: such samples are paced like the
 * memory-info samples, and a last one is taken at exit. */
#define USED_INTERVAL_NS 100000000u
#define NO_CREDIT        255 /* pools_on_device: a pool of the device is not in the table */

static pool_t pools[MAX_POOLS];
static unsigned n_pools;
static uint64_t current_pool[VT_MAX_DEVICES]; /* cuDeviceGetMemPool's answer; 0: ask it */
static bool freed_since[VT_MAX_DEVICES];      /* a stream-ordered free since the device's samples */
/* Bytes of stream-ordered allocations of each device whose free began (less those that
 * failed), and whose free returned, all along (atomic). A free's pool is not known: they count
 * toward a pool only when it is the one pool of its device. */
static uint64_t freeing_bytes[VT_MAX_DEVICES], freed_bytes[VT_MAX_DEVICES];
static uint8_t pools_on_device[VT_MAX_DEVICES]; /* known pools of each device; table lock */
/* A free is credited only to allocations on the stream it was made on: the driver reuses freed
 * memory on that stream at once, in stream order, but on another stream only when the pool's
 * reuse flags allow it or after a synchronization, and the pool grows otherwise. So each device
 * keeps the stream of its last stream-ordered frees in a row (run_stream, valid: run_known) and
 * its freeing_bytes when that row began (run_since); credit goes to an allocation on that
 * stream when the row began before the pool's sample. Table lock. */
static uint64_t run_stream[VT_MAX_DEVICES], run_since[VT_MAX_DEVICES];
static bool run_known[VT_MAX_DEVICES];
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

static bool valid_device(int device)
{
    return device >= 0 && device < VT_MAX_DEVICES;
}

/* The device has a pool the table cannot hold, or whose handle was not learned: frees on it
 * may be any pool's. Table lock held. */
static void no_credit(int device)
{
    if (valid_device(device))
        pools_on_device[device] = NO_CREDIT;
}

/* The slot of handle, made when new (NULL: the table is full). Table lock held. */
static pool_t *pool_slot(uint64_t handle, int device)
{
    for (unsigned i = 0; i < n_pools; i++)
        if (pools[i].handle == handle)
            return &pools[i];
    if (n_pools == MAX_POOLS) {
        no_credit(device);
        return NULL;
    }
    pool_t *p = &pools[n_pools];
    __builtin_memset(p, 0, sizeof *p);
    p->handle = handle;
    p->device = device;
    if (pools_on_device[device] != NO_CREDIT)
        pools_on_device[device]++;
    __atomic_store_n(&n_pools, n_pools + 1, __ATOMIC_RELEASE); /* read without the lock */
    return p;
}

/* Whether p can have grown since its stored sample, for an allocation on stream
 * (VT_POOLS_NO_STREAM: none): what it used then, plus what was allocated from it since, less
 * what was freed since on that very stream when it is its device's one pool, exceeds what it
 * reserved. Table lock held. */
static bool may_have_grown(const pool_t *p, uint64_t stream)
{
    uint64_t used_bytes = p->used_bytes + (p->allocated_bytes - p->allocated_at_sample);
    int d = p->device;
    if (pools_on_device[d] == 1) {
        /* Negative while frees begun before the answers are still in their calls. */
        int64_t freed =
            (int64_t)(__atomic_load_n(&freed_bytes[d], __ATOMIC_ACQUIRE) - p->freeing_at_sample);
        bool same_stream = stream != VT_POOLS_NO_STREAM && run_known[d] &&
                           run_stream[d] == stream && run_since[d] <= p->freeing_at_sample;
        if (freed < 0)
            used_bytes += (uint64_t)-freed;
        else if (same_stream)
            used_bytes = used_bytes > (uint64_t)freed ? used_bytes - (uint64_t)freed : 0;
    }
    return used_bytes > p->reserved_bytes || !p->stored_gen;
}

/* Asks the driver about pool number index + 1 and writes a POOL record when a figure moved. A
 * pool the driver no longer knows (its context was torn down) is recorded empty and forgotten.
 * Samples taken at once by several threads: the newest one stands, in the table and the trace.
 * When allocations since its answers may have grown the pool further, it asks again. */
static void sample(unsigned index, bool at_exit, uint64_t stream)
{
    vt_cancel_hold(); /* driver queries: not known to be free of cancellation points */
    __typeof__(&cuMemPoolGetAttribute) get = VT_REAL(cuMemPoolGetAttribute);
    if (!get)
        return;
    for (int round = 0; round < 3; round++) {
        table_take();
        pool_t *p = &pools[index];
        uint64_t handle = p->handle;
        int device = p->device;
        uint64_t gen = ++p->sample_gen;
        uint64_t allocated_before = p->allocated_bytes;
        table_give();
        if (!handle)
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
        uint64_t freeing_after = __atomic_load_n(&freeing_bytes[device], __ATOMIC_ACQUIRE);
        uint64_t now_ns = vt_now_ns();
        table_take();
        bool store = p->handle == handle && gen > p->stored_gen;
        bool moved = store && (p->reserved_bytes != v[0] || p->used_bytes != v[1] ||
                               p->reserved_high_bytes != v[2] || p->used_high_bytes != v[3]);
        if (store) {
            p->reserved_bytes = v[0];
            p->used_bytes = v[1];
            p->reserved_high_bytes = v[2];
            p->used_high_bytes = v[3];
            p->threshold_bytes = v[4];
            p->allocated_at_sample = allocated_before;
            p->freeing_at_sample = freeing_after;
            p->stored_gen = gen;
            p->sampled_t_ns = now_ns;
            if (gone) {
                p->handle = 0; /* the slot stays: its number is the pool's in this trace */
                if (pools_on_device[device] != NO_CREDIT)
                    pools_on_device[device]--;
            }
        }
        bool again = store && !gone && may_have_grown(p, stream);
        table_give();
        if (moved) {
            uint64_t figures[4] = {v[0], v[1], v[2], v[3]};
            vt_track_pool(device, index + 1, figures, gen, &p->written_gen);
        }
        if (!again)
            return;
    }
}

/* After a successful stream-ordered allocation of size_bytes on stream (vt_pools_stream) from
 * pool (0: the device's current pool, where cuMemAllocAsync allocates: its default pool unless
 * cuDeviceSetMemPool set another). */
void vt_pools_after_alloc(int device, uint64_t pool, uint64_t size_bytes, uint64_t stream)
{
    if (!valid_device(device))
        return;
    if (!pool) {
        pool = __atomic_load_n(&current_pool[device], __ATOMIC_RELAXED);
        if (!pool) {
            vt_cancel_hold(); /* a driver query */
            __typeof__(&cuDeviceGetMemPool) get = VT_REAL(cuDeviceGetMemPool);
            CUmemoryPool h = NULL;
            if (!get || get(&h, device) != CUDA_SUCCESS || !h) {
                table_take();
                no_credit(device);
                table_give();
                return;
            }
            pool = (uint64_t)(uintptr_t)h;
            __atomic_store_n(&current_pool[device], pool, __ATOMIC_RELAXED);
        }
    }
    table_take();
    pool_t *p = pool_slot(pool, device);
    bool due = false;
    unsigned index = 0;
    if (p) {
        p->allocated_bytes += size_bytes;
        due = may_have_grown(p, stream);
        index = (unsigned)(p - pools);
    }
    table_give();
    if (due)
        sample(index, false, stream);
}

/* The stream a stream-ordered call names, as a key (per_thread: a _ptsz entry point, whose
 * stream 0 is the per-thread default stream): each thread's per-thread default stream is its
 * own; other handles are pointers (8-byte aligned) or the legacy stream (0, 1), which the
 * thread keys ((tid << 2) | 3) never equal. */
uint64_t vt_pools_stream(const void *stream, bool per_thread)
{
    uintptr_t s = (uintptr_t)stream;
    if (s == 2 || (per_thread && s == 0))
        return ((uint64_t)vt_current_tid() << 2) | 3;
    return s;
}

/* Before the real free of size_bytes of a stream-ordered allocation on device and stream
 * (vt_pools_stream), and after it (ok: it succeeded). */
void vt_pools_before_free(int device, uint64_t size_bytes, uint64_t stream)
{
    if (!valid_device(device))
        return;
    table_take();
    if (!run_known[device] || run_stream[device] != stream) {
        run_known[device] = true;
        run_stream[device] = stream;
        run_since[device] = __atomic_load_n(&freeing_bytes[device], __ATOMIC_ACQUIRE);
    }
    __atomic_fetch_add(&freeing_bytes[device], size_bytes, __ATOMIC_ACQ_REL);
    table_give();
}

void vt_pools_after_free(int device, uint64_t size_bytes, bool ok)
{
    if (!valid_device(device))
        return;
    if (!ok) {
        /* The running total falls back: the row is begun again at the next free. */
        table_take();
        __atomic_fetch_sub(&freeing_bytes[device], size_bytes, __ATOMIC_ACQ_REL);
        run_known[device] = false;
        table_give();
        return;
    }
    __atomic_fetch_add(&freed_bytes[device], size_bytes, __ATOMIC_ACQ_REL);
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
        bool freed = valid_device(d) && __atomic_load_n(&freed_since[d], __ATOMIC_RELAXED);
        bool due = p->handle && (device < 0 || d == device) &&
                   (forced ||
                    (p->reserved_bytes > p->threshold_bytes &&
                     (p->reserved_bytes > p->used_bytes || freed)) ||
                    (freed && now_ns - p->sampled_t_ns >= USED_INTERVAL_NS));
        table_give();
        if (due)
            sample(i, at_exit, VT_POOLS_NO_STREAM);
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
        sample(index, false, VT_POOLS_NO_STREAM);
}

/* The device's current pool is asked again at its next stream-ordered allocation. */
void vt_pools_current_changed(int device)
{
    if (valid_device(device))
        __atomic_store_n(&current_pool[device], 0, __ATOMIC_RELAXED);
}

void vt_pools_at_teardown(int device)
{
    vt_pools_current_changed(device);
    if (__atomic_load_n(&n_pools, __ATOMIC_RELAXED))
        sample_shrinking(device, true, false);
}

/* The last figures of every pool, at exit (before the trace is closed). */
void vt_pools_at_exit(void)
{
    if (__atomic_load_n(&n_pools, __ATOMIC_RELAXED))
        sample_shrinking(-1, true, true);
}

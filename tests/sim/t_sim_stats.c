/* SPDX-License-Identifier: MIT */
/* The simulator's own figures and settings: the VTSIM_STATS file (on demand through
 * vtsim_write_stats, and at exit in a re-executed child), the pool release threshold UINT64_MAX
 * ("never release") surviving every synchronization, and VTSIM_REUSE (addresses never reused by
 * default; reused lowest-first with VTSIM_REUSE=1). Run as `t_sim_stats noreuse|reuse` with
 * VTSIM_DEVICE_MEMORY=1G; TMPDIR (or /tmp) holds the stats files. */
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sim_stats_read.h"
#include "sim_test.h"

#define MiB (1ULL << 20)

static char stats_path[512];

static int write_stats(const char *path)
{
    int (*fn)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "vtsim_write_stats");
    return fn ? fn(path) : -2;
}

static long long stat_of(const char *prefix, const char *key)
{
    return sim_stats_read(stats_path, prefix, key);
}

static void test_stats_on_demand(void)
{
    VT_CHECK_EQ("no path, no VTSIM_STATS", write_stats(NULL), -1);
    VT_CHECK_EQ("unwritable path", write_stats("/nonexistent-dir/x"), -1);
    CUdeviceptr a, b, c;
    void *host;
    VT_CHECK_EQ("alloc a", cuMemAlloc_v2(&a, 1000), CUDA_SUCCESS);    /* charged 1024 */
    VT_CHECK_EQ("alloc b", cuMemAlloc_v2(&b, 4 * MiB), CUDA_SUCCESS); /* charged 4 MiB */
    VT_CHECK_EQ("host alloc", cuMemHostAlloc(&host, 3000, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("managed", cuMemAllocManaged(&c, 5000, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
    VT_CHECK_EQ("write", write_stats(stats_path), 0);
    VT_CHECK_EQ("header", stat_of("vtsim-stats", "x"), -1);
    VT_CHECK_EQ("capacity", stat_of("device 0", "capacity_bytes"), 1ULL << 30);
    VT_CHECK_EQ("live charged", stat_of("device 0", "live_bytes"), 1024 + 4 * MiB);
    VT_CHECK_EQ("hwm charged", stat_of("device 0", "hwm_bytes"), 1024 + 4 * MiB);
    VT_CHECK_EQ("live requested", stat_of("device 0", "alloc_live_bytes"), 1000 + 4 * MiB);
    VT_CHECK_EQ("allocs", stat_of("device 0", "allocs"), 2);
    VT_CHECK_EQ("pinned", stat_of("pinned", "alloc_live_bytes"), 3000);
    VT_CHECK_EQ("managed", stat_of("managed", "alloc_hwm_bytes"), 5000);
    VT_CHECK_EQ("free b", cuMemFree_v2(b), CUDA_SUCCESS);
    VT_CHECK_EQ("free a", cuMemFree_v2(a), CUDA_SUCCESS);
    VT_CHECK_EQ("free c", cuMemFree_v2(c), CUDA_SUCCESS);
    VT_CHECK_EQ("free host", cuMemFreeHost(host), CUDA_SUCCESS);
    VT_CHECK_EQ("write again", write_stats(stats_path), 0);
    VT_CHECK_EQ("live after frees", stat_of("device 0", "live_bytes"), 0);
    VT_CHECK_EQ("hwm stays", stat_of("device 0", "hwm_bytes"), 1024 + 4 * MiB);
    VT_CHECK_EQ("requested hwm stays", stat_of("device 0", "alloc_hwm_bytes"), 1000 + 4 * MiB);
    VT_CHECK_EQ("frees", stat_of("device 0", "frees"), 2);
    VT_CHECK_EQ("pinned frees", stat_of("pinned", "frees"), 1);
    VT_CHECK_EQ("managed live", stat_of("managed", "alloc_live_bytes"), 0);
}

/* UINT64_MAX is "never release": the reservation must survive every synchronization. */
static void test_pool_never_release(void)
{
    CUmemoryPool pool;
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 0;
    VT_CHECK_EQ("pool create", cuMemPoolCreate(&pool, &props), CUDA_SUCCESS);
    cuuint64_t never = UINT64_MAX, got = 0;
    VT_CHECK_EQ("threshold", cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &never),
                CUDA_SUCCESS);
    size_t before = sim_test_used_bytes();
    CUdeviceptr p, q;
    VT_CHECK_EQ("alloc", cuMemAllocFromPoolAsync(&p, 3 * MiB, pool, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("alloc q", cuMemAllocFromPoolAsync(&q, 1 * MiB, pool, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("free q", cuMemFreeAsync(q, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("stream sync", cuStreamSynchronize(NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("reserved kept over a live allocation", sim_test_used_bytes() - before, 4 * MiB);
    VT_CHECK_EQ("free", cuMemFreeAsync(p, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("ctx sync", cuCtxSynchronize(), CUDA_SUCCESS);
    VT_CHECK_EQ("reserved kept with nothing live", sim_test_used_bytes() - before, 4 * MiB);
    VT_CHECK_EQ("reserved attr",
                cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &got),
                CUDA_SUCCESS);
    VT_CHECK_EQ("reserved 4 MiB", got, 4 * MiB);
    VT_CHECK_EQ("write", write_stats(stats_path), 0);
    char prefix[32];
    int id = -1;
    for (int i = 1; i < 8; i++) { /* the pool whose reservation is 4 MiB and is not a default */
        snprintf(prefix, sizeof prefix, "pool %d", i);
        if (stat_of(prefix, "default") == 0 &&
            stat_of(prefix, "reserved_bytes") == (long long)(4 * MiB))
            id = i;
    }
    VT_CHECK("the pool is in the stats file", id > 0);
    snprintf(prefix, sizeof prefix, "pool %d", id);
    VT_CHECK_EQ("pool used hwm", stat_of(prefix, "used_hwm_bytes"), 4 * MiB);
    VT_CHECK_EQ("pool used now", stat_of(prefix, "used_bytes"), 0);
    VT_CHECK_EQ("pool reserved hwm", stat_of(prefix, "reserved_hwm_bytes"), 4 * MiB);
    VT_CHECK_EQ(
        "a threshold just under the reservation",
        cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &(cuuint64_t){4 * MiB - 1}),
        CUDA_SUCCESS);
    VT_CHECK_EQ("sync", cuCtxSynchronize(), CUDA_SUCCESS);
    VT_CHECK_EQ("rounds up to the reservation: kept", sim_test_used_bytes() - before, 4 * MiB);
    VT_CHECK_EQ(
        "threshold 2 MiB",
        cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &(cuuint64_t){2 * MiB}),
        CUDA_SUCCESS);
    VT_CHECK_EQ("sync", cuCtxSynchronize(), CUDA_SUCCESS);
    VT_CHECK_EQ("shrinks to the threshold", sim_test_used_bytes() - before, 2 * MiB);
    VT_CHECK_EQ("trim", cuMemPoolTrimTo(pool, (size_t)-1), CUDA_SUCCESS);
    VT_CHECK_EQ("trim to SIZE_MAX keeps", sim_test_used_bytes() - before, 2 * MiB);
    VT_CHECK_EQ("destroy", cuMemPoolDestroy(pool), CUDA_SUCCESS);
    VT_CHECK_EQ("all back", sim_test_used_bytes(), before);
}

static void test_addresses(int reuse)
{
    CUdeviceptr a, b, c, d;
    VT_CHECK_EQ("a", cuMemAlloc_v2(&a, 4096), CUDA_SUCCESS);
    VT_CHECK_EQ("b", cuMemAlloc_v2(&b, 4096), CUDA_SUCCESS);
    VT_CHECK_EQ("free a", cuMemFree_v2(a), CUDA_SUCCESS);
    VT_CHECK_EQ("c", cuMemAlloc_v2(&c, 1000), CUDA_SUCCESS);
    if (reuse)
        VT_CHECK("a's address is handed out again", c == a);
    else
        VT_CHECK("never reused", c != a && c > b);
    VT_CHECK_EQ("free b", cuMemFree_v2(b), CUDA_SUCCESS);
    VT_CHECK_EQ("free c", cuMemFree_v2(c), CUDA_SUCCESS);
    VT_CHECK_EQ("d: a and b's ranges coalesced", cuMemAlloc_v2(&d, 8192), CUDA_SUCCESS);
    if (reuse)
        VT_CHECK("8 KiB at a's address", d == a);
    else
        VT_CHECK("fresh", d > c);
    VT_CHECK_EQ("free d", cuMemFree_v2(d), CUDA_SUCCESS);

    CUdeviceptr p, q;
    VT_CHECK_EQ("async", cuMemAllocAsync(&p, 512, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("async free", cuMemFreeAsync(p, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("async again", cuMemAllocAsync(&q, 512, NULL), CUDA_SUCCESS);
    VT_CHECK("pool address", reuse ? q == p : q != p);
    VT_CHECK_EQ("async free", cuMemFreeAsync(q, NULL), CUDA_SUCCESS);

    CUdeviceptr r1, r2;
    VT_CHECK_EQ("reserve", cuMemAddressReserve(&r1, 4 * MiB, 0, 0, 0), CUDA_SUCCESS);
    VT_CHECK_EQ("address free", cuMemAddressFree(r1, 4 * MiB), CUDA_SUCCESS);
    VT_CHECK_EQ("reserve again", cuMemAddressReserve(&r2, 2 * MiB, 0, 0, 0), CUDA_SUCCESS);
    VT_CHECK("VMM range", reuse ? r2 == r1 : r2 != r1);
    VT_CHECK_EQ("address free", cuMemAddressFree(r2, 2 * MiB), CUDA_SUCCESS);
}

/* The child of the at-exit test: allocates, frees one, leaks one and exits. */
static int child_main(void)
{
    CUdeviceptr a, b;
    if (sim_test_context(0) != CUDA_SUCCESS || cuMemAlloc_v2(&a, 2 * MiB) != CUDA_SUCCESS ||
        cuMemAlloc_v2(&b, 6 * MiB) != CUDA_SUCCESS || cuMemFree_v2(b) != CUDA_SUCCESS)
        return 3;
    return 0; /* a is leaked: live at exit */
}

static void test_stats_at_exit(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s.exit", stats_path);
    unlink(path);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("VTSIM_STATS", path, 1);
        execl("/proc/self/exe", "t_sim_stats", "child", (char *)NULL);
        _exit(127);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    VT_CHECK("child ok", WIFEXITED(status) && WEXITSTATUS(status) == 0);
    VT_CHECK_EQ("at exit: live", sim_stats_read(path, "device 0", "live_bytes"), 2 * MiB);
    VT_CHECK_EQ("at exit: hwm", sim_stats_read(path, "device 0", "hwm_bytes"), 8 * MiB);
    VT_CHECK_EQ("at exit: frees", sim_stats_read(path, "device 0", "frees"), 1);
    unlink(path);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "child") == 0)
        return child_main();
    if (argc != 2 || (strcmp(argv[1], "reuse") != 0 && strcmp(argv[1], "noreuse") != 0)) {
        fprintf(stderr, "usage: t_sim_stats noreuse|reuse\n");
        return 2;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(stats_path, sizeof stats_path, "%s/t_sim_stats.%d", tmp && *tmp ? tmp : "/tmp",
             (int)getpid());
    VT_CHECK_EQ("context", sim_test_context(0), CUDA_SUCCESS);
    test_stats_on_demand();
    test_pool_never_release();
    test_addresses(strcmp(argv[1], "reuse") == 0);
    test_stats_at_exit();
    unlink(stats_path);
    return vt_test_done();
}

/* SPDX-License-Identifier: MIT */
/* What the simulated device really charged, for tests that compare a tracer's figures with the
 * device's own: VTSIM_STATS=PATH makes the driver write them to PATH when the process exits (after
 * the program's atexit handlers), and vtsim_write_stats() writes them on demand. The format (one
 * line per device, pool, graph-memory device and host series; "key value" pairs after a kind and
 * an id) is documented in docs/simulator.md. The file is written whole and renamed into place,
 * so a reader never sees half of it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sim_internal.h"

void sim_series_add(sim_series_t *s, size_t bytes)
{
    s->live_bytes += bytes;
    if (s->live_bytes > s->hwm_bytes)
        s->hwm_bytes = s->live_bytes;
    s->allocs++;
}

void sim_series_remove(sim_series_t *s, size_t bytes)
{
    s->live_bytes -= bytes;
    s->frees++;
}

static void series_print(FILE *f, const char *kind, const sim_series_t *s)
{
    fprintf(f, "%s alloc_live_bytes %zu alloc_hwm_bytes %zu allocs %llu frees %llu\n", kind,
            s->live_bytes, s->hwm_bytes, s->allocs, s->frees);
}

/* sim_lock held. */
static int stats_print(FILE *f)
{
    fprintf(f, "vtsim-stats 1\n");
    for (int d = 0; d < sim_n_devices; d++) {
        const sim_device_t *dev = &sim_devices[d];
        fprintf(f,
                "device %d capacity_bytes %zu hwm_bytes %zu live_bytes %zu alloc_live_bytes %zu "
                "alloc_hwm_bytes %zu allocs %llu frees %llu\n",
                d, dev->capacity_bytes, dev->used_hwm_bytes, dev->used_bytes,
                dev->allocs.live_bytes, dev->allocs.hwm_bytes, dev->allocs.allocs,
                dev->allocs.frees);
        fprintf(f,
                "graph %d reserved_bytes %zu reserved_hwm_bytes %zu used_bytes %zu "
                "used_hwm_bytes %zu\n",
                d, dev->graph_reserved_bytes, dev->graph_reserved_hwm_bytes, dev->graph_used_bytes,
                dev->graph_used_hwm_bytes);
    }
    for (const sim_pool_t *p = sim_pools; p; p = p->next)
        fprintf(f,
                "pool %u device %d default %d reserved_bytes %zu reserved_hwm_bytes %zu "
                "used_bytes %zu used_hwm_bytes %zu\n",
                p->id, p->device, p->is_default, p->reserved_bytes, p->reserved_hwm_bytes,
                p->used_bytes, p->used_hwm_bytes);
    series_print(f, "pinned", &sim_pinned);
    series_print(f, "managed", &sim_managed);
    return ferror(f) ? -1 : 0;
}

int sim_stats_write(const char *path)
{
    char tmp[4096];
    if (!path || !*path ||
        snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof tmp)
        return -1;
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    SIM_LOCK();
    int rc = stats_print(f);
    SIM_UNLOCK();
    if (fclose(f) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1;
    if (rc != 0)
        unlink(tmp);
    return rc;
}

/* Writes the figures now, to `path` or (NULL) to VTSIM_STATS; 0 on success, -1 when there is no
 * path or the file cannot be written. Not a CUDA entry point: tests reach it with dlsym. */
SIM_EXPORT int vtsim_write_stats(const char *path)
{
    return sim_stats_write(path ? path : getenv("VTSIM_STATS"));
}

/* A fork child inherits VTSIM_STATS, and its exit would overwrite the parent's figures with its
 * own: only the process that loaded the driver writes at exit. */
static pid_t stats_owner;

__attribute__((constructor)) static void stats_ctor(void)
{
    stats_owner = getpid();
}

__attribute__((destructor)) static void stats_dtor(void)
{
    const char *path = getenv("VTSIM_STATS");
    if (path && *path && getpid() == stats_owner && sim_stats_write(path) != 0)
        fprintf(stderr, "vtsim: cannot write VTSIM_STATS file '%s'\n", path);
}

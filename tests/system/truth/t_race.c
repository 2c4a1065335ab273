/* SPDX-License-Identifier: MIT */
/* Threads racing allocations and frees through every door (the driver's exports, its functions
 * fetched through cuGetProcAddress and through dlsym, the runtime's cudaMalloc and
 * cudaMallocAsync, VMM handles, managed and pinned host memory), for tests that compare the
 * traced peak with the simulated device's own high-water mark (tests/system/truth/peak.sh).
 *   t_race race THREADS OPS SEED    THREADS threads, OPS operations each, calls overlapping
 *   t_race serial THREADS OPS SEED  the same, every call under one lock: no two overlap
 *   t_race double ROUNDS            two threads free one pointer at once, ROUNDS times
 *   t_race hostfn OPS               host functions free on the driver's thread while this one
 *                                   allocates
 *   t_race ipc SIZE                 a second process opens SIZE bytes of this one's through IPC
 *   t_race vmm-import SIZE          a VMM handle of SIZE bytes exported, imported and mapped
 * Exits 0 when every call answered as the driver must (one success per double free). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "t_rt_common.h"
#include "sim_test.h"

#define N_HELD      8
#define MIB         ((size_t)1 << 20)
#define GRANULE     (2 * MIB)
#define MAX_THREADS 64

enum door {
    DOOR_ALLOC,    /* cuMemAlloc_v2, the export */
    DOOR_PITCH,    /* cuMemAllocPitch_v2 */
    DOOR_ASYNC,    /* cuMemAllocAsync */
    DOOR_VMM,      /* cuMemCreate / cuMemRelease */
    DOOR_RT,       /* cudaMalloc / cudaFree */
    DOOR_RT_ASYNC, /* cudaMallocAsync / cudaFreeAsync */
    DOOR_GPA,      /* cuMemAlloc_v2 / cuMemFree_v2 as cuGetProcAddress_v2 hands them out */
    DOOR_DLSYM,    /* the same as dlsym on the driver's handle hands them out */
    DOOR_MANAGED,  /* cuMemAllocManaged / cuMemFree_v2: the managed series */
    DOOR_PINNED,   /* cudaMallocHost / cuMemFreeHost: the pinned series */
    N_DOORS
};

static __typeof__(&cuMemAlloc_v2) gpa_alloc, dlsym_alloc;
static __typeof__(&cuMemFree_v2) gpa_free, dlsym_free;

/* The driver functions as programs that never link the driver reach them. */
static int fetch_doors(void)
{
    CUdriverProcAddressQueryResult status;
    if (cuGetProcAddress_v2("cuMemAlloc", (void **)&gpa_alloc, 12000, 0, &status) ||
        cuGetProcAddress_v2("cuMemFree", (void **)&gpa_free, 12000, 0, &status))
        return -1;
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!driver)
        return -1;
    dlsym_alloc = (__typeof__(dlsym_alloc))dlsym(driver, "cuMemAlloc_v2");
    dlsym_free = (__typeof__(dlsym_free))dlsym(driver, "cuMemFree_v2");
    return gpa_alloc && gpa_free && dlsym_alloc && dlsym_free ? 0 : -1;
}

typedef struct held_s {
    CUdeviceptr ptr;
    CUmemGenericAllocationHandle handle;
    enum door door;
} held_t;

static CUcontext ctx;
static int serial;
static pthread_mutex_t serial_lock = PTHREAD_MUTEX_INITIALIZER;
static int n_errors;
static pthread_mutex_t errors_lock = PTHREAD_MUTEX_INITIALIZER;

static void error(const char *what, CUresult rc)
{
    pthread_mutex_lock(&errors_lock);
    if (n_errors++ < 10)
        fprintf(stderr, "t_race: %s: %d\n", what, (int)rc);
    pthread_mutex_unlock(&errors_lock);
}

static void enter(void)
{
    if (serial)
        pthread_mutex_lock(&serial_lock);
}

static void leave(void)
{
    if (serial)
        pthread_mutex_unlock(&serial_lock);
}

static unsigned next_rand(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return *state >> 8;
}

/* 64 KiB to 4 MiB in 512-byte steps (VMM: one or two granules). */
static bool take(held_t *h, unsigned *rng)
{
    size_t size = 512 * (size_t)(128 + next_rand(rng) % (8192 - 128 + 1));
    h->door = (enum door)(next_rand(rng) % N_DOORS);
    CUresult rc = CUDA_SUCCESS;
    enter();
    switch (h->door) {
    case DOOR_ALLOC:
        rc = cuMemAlloc_v2(&h->ptr, size);
        break;
    case DOOR_PITCH: {
        size_t pitch = 0;
        rc = cuMemAllocPitch_v2(&h->ptr, &pitch, 4096, size / 4096, 4);
        break;
    }
    case DOOR_ASYNC:
        rc = cuMemAllocAsync(&h->ptr, size, NULL);
        break;
    case DOOR_RT:
        rc = cudaMalloc((void **)&h->ptr, size) == cudaSuccess ? CUDA_SUCCESS
                                                               : CUDA_ERROR_OUT_OF_MEMORY;
        break;
    case DOOR_RT_ASYNC:
        rc = cudaMallocAsync((void **)&h->ptr, size, 0) == cudaSuccess ? CUDA_SUCCESS
                                                                       : CUDA_ERROR_OUT_OF_MEMORY;
        break;
    case DOOR_GPA:
        rc = gpa_alloc(&h->ptr, size);
        break;
    case DOOR_DLSYM:
        rc = dlsym_alloc(&h->ptr, size);
        break;
    case DOOR_MANAGED:
        rc = cuMemAllocManaged(&h->ptr, size, CU_MEM_ATTACH_GLOBAL);
        break;
    case DOOR_PINNED:
        rc = cudaMallocHost((void **)&h->ptr, size) == cudaSuccess ? CUDA_SUCCESS
                                                                   : CUDA_ERROR_OUT_OF_MEMORY;
        break;
    default: {
        CUmemAllocationProp prop;
        memset(&prop, 0, sizeof prop);
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = 0;
        rc = cuMemCreate(&h->handle, GRANULE * (1 + next_rand(rng) % 2), &prop, 0);
        break;
    }
    }
    leave();
    if (rc != CUDA_SUCCESS)
        error("allocation", rc);
    return rc == CUDA_SUCCESS;
}

static void give(held_t *h)
{
    CUresult rc;
    enter();
    switch (h->door) {
    case DOOR_ASYNC:
        rc = cuMemFreeAsync(h->ptr, NULL);
        break;
    case DOOR_VMM:
        rc = cuMemRelease(h->handle);
        break;
    case DOOR_RT:
        rc = cudaFree((void *)h->ptr) == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
        break;
    case DOOR_RT_ASYNC:
        rc = cudaFreeAsync((void *)h->ptr, 0) == cudaSuccess ? CUDA_SUCCESS
                                                             : CUDA_ERROR_INVALID_VALUE;
        break;
    case DOOR_GPA:
        rc = gpa_free(h->ptr);
        break;
    case DOOR_DLSYM:
        rc = dlsym_free(h->ptr);
        break;
    case DOOR_PINNED:
        rc = cuMemFreeHost((void *)h->ptr);
        break;
    default:
        rc = cuMemFree_v2(h->ptr);
        break;
    }
    leave();
    if (rc != CUDA_SUCCESS)
        error("free", rc);
}

typedef struct worker_s {
    int ops;
    unsigned seed;
} worker_t;

static void *worker(void *arg)
{
    worker_t *w = arg;
    held_t held[N_HELD];
    bool live[N_HELD] = {false};
    unsigned rng = w->seed;
    if (cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
        error("context", CUDA_ERROR_INVALID_CONTEXT);
        return NULL;
    }
    for (int i = 0; i < w->ops; i++) {
        unsigned slot = next_rand(&rng) % N_HELD;
        if (live[slot]) {
            give(&held[slot]);
            live[slot] = false;
        } else {
            live[slot] = take(&held[slot], &rng);
        }
    }
    for (int s = 0; s < N_HELD; s++)
        if (live[s])
            give(&held[s]);
    return NULL;
}

static int race(int n_threads, int ops, unsigned seed)
{
    pthread_t threads[MAX_THREADS];
    worker_t workers[MAX_THREADS];
    for (int t = 0; t < n_threads; t++) {
        workers[t] = (worker_t){ops, seed * 7919u + (unsigned)t};
        pthread_create(&threads[t], NULL, worker, &workers[t]);
    }
    for (int t = 0; t < n_threads; t++)
        pthread_join(threads[t], NULL);
    return n_errors ? 1 : 0;
}

/* ---- double free ------------------------------------------------------------------------- */

static pthread_barrier_t round_start, round_end;
static CUdeviceptr victim;
static CUresult results[2];
static int n_rounds;

static void *double_free(void *arg)
{
    int id = (int)(size_t)arg;
    cuCtxSetCurrent(ctx);
    for (int i = 0; i < n_rounds; i++) {
        pthread_barrier_wait(&round_start);
        results[id] = cuMemFree_v2(victim);
        pthread_barrier_wait(&round_end);
    }
    return NULL;
}

/* Two threads kept for every round, so a round costs two barriers, not two thread starts. */
static int double_frees(int rounds)
{
    n_rounds = rounds;
    pthread_barrier_init(&round_start, NULL, 3);
    pthread_barrier_init(&round_end, NULL, 3);
    pthread_t threads[2];
    for (int t = 0; t < 2; t++)
        pthread_create(&threads[t], NULL, double_free, (void *)(size_t)t);
    for (int i = 0; i < rounds; i++) {
        CUresult rc = cuMemAlloc_v2(&victim, 8192);
        if (rc != CUDA_SUCCESS)
            error("allocation", rc);
        pthread_barrier_wait(&round_start);
        pthread_barrier_wait(&round_end);
        if ((results[0] == CUDA_SUCCESS) == (results[1] == CUDA_SUCCESS))
            error("not exactly one free succeeded", results[0]);
    }
    for (int t = 0; t < 2; t++)
        pthread_join(threads[t], NULL);
    pthread_barrier_destroy(&round_start);
    pthread_barrier_destroy(&round_end);
    return n_errors ? 1 : 0;
}

/* ---- host functions freeing on the driver's thread ---------------------------------------- */

static void free_on_driver_thread(void *p)
{
    cuCtxSetCurrent(ctx); /* the driver's thread has none of its own */
    CUresult rc = cuMemFree_v2((CUdeviceptr)(uintptr_t)p);
    if (rc != CUDA_SUCCESS)
        error("free in a host function", rc);
}

static void rt_free_on_driver_thread(void *p)
{
    cuCtxSetCurrent(ctx);
    if (cudaFree(p) != cudaSuccess)
        error("cudaFree in a host function", CUDA_ERROR_INVALID_VALUE);
}

/* Every other allocation through the runtime, freed by the runtime in its host function. */
static int host_functions(int ops)
{
    unsigned rng = 1;
    for (int i = 0; i < ops; i++) {
        CUdeviceptr p = 0;
        size_t size = 512 * (size_t)(128 + next_rand(&rng) % 1024);
        bool rt = i % 2;
        CUresult rc = rt ? (cudaMalloc((void **)&p, size) == cudaSuccess ? CUDA_SUCCESS
                                                                         : CUDA_ERROR_OUT_OF_MEMORY)
                         : cuMemAlloc_v2(&p, size);
        if (rc != CUDA_SUCCESS) {
            error("allocation", rc);
            break;
        }
        rc = cuLaunchHostFunc(NULL, rt ? rt_free_on_driver_thread : free_on_driver_thread,
                              (void *)(uintptr_t)p);
        if (rc != CUDA_SUCCESS)
            error("cuLaunchHostFunc", rc);
        if (i % 64 == 63)
            cuCtxSynchronize();
    }
    cuCtxSynchronize();
    return n_errors ? 1 : 0;
}

/* ---- a peer's memory ------------------------------------------------------------------------ */

/* ipc SIZE: exports SIZE bytes and runs "PROGRAM ipc-open HANDLE" (HANDLE in hex), which opens
 * it, allocates half of SIZE of its own and closes both, so its trace has imported memory next
 * to its own. */
static int ipc_export(const char *self, size_t size)
{
    CUdeviceptr p;
    CUipcMemHandle h;
    if (cuMemAlloc_v2(&p, size) != CUDA_SUCCESS || cuIpcGetMemHandle(&h, p) != CUDA_SUCCESS)
        return 1;
    char hex[2 * sizeof h + 1], cmd[4096];
    for (size_t i = 0; i < sizeof h; i++)
        snprintf(hex + 2 * i, 3, "%02x", (unsigned char)h.reserved[i]);
    snprintf(cmd, sizeof cmd, "'%s' ipc-open %s %zu", self, hex, size / 2);
    int rc = system(cmd);
    cuMemFree_v2(p);
    return rc != 0;
}

static int ipc_open(const char *hex, size_t own)
{
    CUipcMemHandle h;
    memset(&h, 0, sizeof h);
    for (size_t i = 0; i < sizeof h && hex[2 * i] && hex[2 * i + 1]; i++) {
        unsigned v = 0;
        sscanf(hex + 2 * i, "%2x", &v);
        h.reserved[i] = (char)v;
    }
    CUdeviceptr peer, mine;
    if (cuIpcOpenMemHandle_v2(&peer, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) != CUDA_SUCCESS ||
        cuMemAlloc_v2(&mine, own) != CUDA_SUCCESS)
        return 1;
    return cuMemFree_v2(mine) != CUDA_SUCCESS || cuIpcCloseMemHandle(peer) != CUDA_SUCCESS;
}

/* vmm-import SIZE: makes a VMM handle of SIZE bytes (a multiple of 2 MiB), exports it as a file
 * descriptor, imports it and maps the imported handle whole: SIZE bytes made here, and SIZE
 * bytes of imported memory mapped, at once. */
static int vmm_import(size_t size)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    CUmemGenericAllocationHandle made, imported;
    CUdeviceptr va;
    int fd;
    if (cuMemAddressReserve(&va, size, 0, 0, 0) != CUDA_SUCCESS ||
        cuMemCreate(&made, size, &prop, 0) != CUDA_SUCCESS ||
        cuMemExportToShareableHandle(&fd, made, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) !=
            CUDA_SUCCESS ||
        cuMemImportFromShareableHandle(&imported, (void *)(intptr_t)fd,
                                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) != CUDA_SUCCESS ||
        cuMemMap(va, size, 0, imported, 0) != CUDA_SUCCESS)
        return 1;
    int rc = cuMemUnmap(va, size) != CUDA_SUCCESS || cuMemRelease(imported) != CUDA_SUCCESS ||
             cuMemRelease(made) != CUDA_SUCCESS || cuMemAddressFree(va, size) != CUDA_SUCCESS;
    close(fd);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3 || sim_test_context(0) != CUDA_SUCCESS) {
        fprintf(stderr,
                "usage: t_race race|serial THREADS OPS SEED | double ROUNDS | hostfn OPS\n");
        return 2;
    }
    cuCtxGetCurrent(&ctx);
    if (fetch_doors() != 0) {
        fprintf(stderr, "t_race: the driver's functions could not be fetched\n");
        return 1;
    }
    const char *mode = argv[1];
    int rc;
    if (!strcmp(mode, "double")) {
        rc = double_frees(atoi(argv[2]));
    } else if (!strcmp(mode, "ipc")) {
        rc = ipc_export(argv[0], (size_t)atol(argv[2]));
    } else if (!strcmp(mode, "ipc-open") && argc == 4) {
        rc = ipc_open(argv[2], (size_t)atol(argv[3]));
    } else if (!strcmp(mode, "vmm-import")) {
        rc = vmm_import((size_t)atol(argv[2]));
    } else if (!strcmp(mode, "hostfn")) {
        rc = host_functions(atoi(argv[2]));
    } else if (argc == 5 && (!strcmp(mode, "race") || !strcmp(mode, "serial"))) {
        serial = !strcmp(mode, "serial");
        int n_threads = atoi(argv[2]);
        rc = race(n_threads < 1             ? 1
                  : n_threads > MAX_THREADS ? MAX_THREADS
                                            : n_threads,
                  atoi(argv[3]), (unsigned)atoi(argv[4]));
    } else {
        fprintf(stderr, "t_race: unknown mode '%s'\n", mode);
        return 2;
    }
    return rc;
}

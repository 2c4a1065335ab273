/* SPDX-License-Identifier: MIT */
/* A CPython extension in the way PyTorch's bindings allocate, for nogil.py: entered with the
 * GIL held (ctypes.PyDLL), it releases the GIL (PyEval_SaveThread, as Py_BEGIN_ALLOW_THREADS
 * and pybind11::gil_scoped_release do), allocates through the runtime or through the driver
 * reached by dlopen + cuGetProcAddress, and takes the GIL back. Also a plain pthread that
 * allocates with no Python thread state at all. The C API is found with dlsym, so the helper
 * needs no Python headers, like libvramtrace.so itself. Names avoid every default rule's
 * native globs: only Python frames and thread names may decide the categories. */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/prctl.h>

#define NOGIL_API __attribute__((visibility("default")))

typedef int (*rt_malloc_fn)(void **, size_t);
typedef int (*rt_free_fn)(void *);
typedef int (*cu_get_proc_fn)(const char *, void **, int, unsigned long long);
typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_retain_fn)(void **, int);
typedef int (*cu_set_current_fn)(void *);
typedef int (*cu_mem_alloc_fn)(unsigned long long *, size_t);

static struct {
    void *(*save_thread)(void);
    void (*restore_thread)(void *);
    rt_malloc_fn rt_malloc;
    rt_free_fn rt_free;
    cu_init_fn cu_init;
    cu_retain_fn cu_retain;
    cu_set_current_fn cu_set_current;
    cu_mem_alloc_fn cu_mem_alloc;
} api;

/* Resolves everything; 0 on success, else the step that failed. */
NOGIL_API int nogil_setup(void)
{
    *(void **)&api.save_thread = dlsym(RTLD_DEFAULT, "PyEval_SaveThread");
    *(void **)&api.restore_thread = dlsym(RTLD_DEFAULT, "PyEval_RestoreThread");
    if (!api.save_thread || !api.restore_thread)
        return 1;
    void *rt = dlopen("libcudart.so.13", RTLD_NOW);
    void *cu = dlopen("libcuda.so.1", RTLD_NOW);
    if (!rt || !cu)
        return 2;
    *(void **)&api.rt_malloc = dlsym(rt, "cudaMalloc");
    *(void **)&api.rt_free = dlsym(rt, "cudaFree");
    cu_get_proc_fn get_proc;
    *(void **)&get_proc = dlsym(cu, "cuGetProcAddress");
    if (!api.rt_malloc || !api.rt_free || !get_proc)
        return 3;
    if (get_proc("cuInit", (void **)&api.cu_init, 12000, 0) ||
        get_proc("cuDevicePrimaryCtxRetain", (void **)&api.cu_retain, 12000, 0) ||
        get_proc("cuCtxSetCurrent", (void **)&api.cu_set_current, 12000, 0) ||
        get_proc("cuMemAlloc", (void **)&api.cu_mem_alloc, 12000, 0))
        return 4;
    return api.cu_init(0) ? 5 : 0;
}

/* cudaMalloc with the GIL released; its status. */
NOGIL_API int nogil_runtime_alloc(size_t bytes, void **out)
{
    void *state = api.save_thread();
    int rc = api.rt_malloc(out, bytes);
    api.restore_thread(state);
    return rc;
}

NOGIL_API int nogil_runtime_free(void *ptr)
{
    void *state = api.save_thread();
    int rc = api.rt_free(ptr);
    api.restore_thread(state);
    return rc;
}

/* cuMemAlloc in the primary context, with the GIL released; its status. */
NOGIL_API int nogil_driver_alloc(size_t bytes, unsigned long long *out)
{
    void *state = api.save_thread();
    void *ctx = NULL;
    int rc = api.cu_retain(&ctx, 0);
    if (rc == 0)
        rc = api.cu_set_current(ctx);
    if (rc == 0)
        rc = api.cu_mem_alloc(out, bytes);
    api.restore_thread(state);
    return rc;
}

struct job {
    size_t bytes;
    const char *name;
    int rc;
};

static void *plain_thread_main(void *arg)
{
    struct job *j = arg;
    prctl(PR_SET_NAME, j->name, 0, 0, 0);
    void *ptr = NULL;
    j->rc = api.rt_malloc(&ptr, j->bytes);
    return NULL;
}

/* Allocates on a new pthread named name (no Python thread state) and waits for it, with the GIL
 * released meanwhile. Returns the allocation's status, or -1 when the thread could not start. */
NOGIL_API int nogil_plain_thread_alloc(size_t bytes, const char *name)
{
    struct job j = {bytes, name, -1};
    pthread_t t;
    void *state = api.save_thread();
    int started = pthread_create(&t, NULL, plain_thread_main, &j) == 0;
    if (started)
        pthread_join(t, NULL);
    api.restore_thread(state);
    return started ? j.rc : -1;
}

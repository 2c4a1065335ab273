/* SPDX-License-Identifier: MIT */
/* Native helpers for train.py, loaded with ctypes.PyDLL (the GIL stays held across the call):
 * an allocation on a plain pthread, which has no Python thread state at all; one made while a
 * Python exception is pending, which libvramtrace.so must leave exactly as it was; and one
 * bracketed by a flag the script's GC callback reads, to prove no collection (which would run
 * Python code) starts inside the recording path. The C API is found with dlsym, so the helper
 * needs no Python headers, like libvramtrace.so itself. */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/prctl.h>

/* Built with -fvisibility=hidden like every target: ctypes needs these exported. */
#define HELPER_API __attribute__((visibility("default")))

typedef int (*alloc_fn)(void **, size_t); /* the runtime's cudaMalloc */

struct job {
    alloc_fn fn;
    size_t bytes;
    const char *name;
    void *ptr;
    int rc;
};

/* Not named like any default rule: its allocation is categorized by the thread name alone. */
static void *helper_thread_main(void *arg)
{
    struct job *j = arg;
    prctl(PR_SET_NAME, j->name, 0, 0, 0);
    j->rc = j->fn(&j->ptr, j->bytes);
    return NULL;
}

/* Allocates bytes on a new thread named name (at most 15 bytes) and waits for it. Returns the
 * allocation's status, or -1 when the thread could not start. */
HELPER_API int pyhelper_alloc_in_thread(alloc_fn fn, size_t bytes, const char *name)
{
    struct job j = {fn, bytes, name, NULL, -1};
    pthread_t t;
    if (pthread_create(&t, NULL, helper_thread_main, &j) != 0)
        return -1;
    pthread_join(t, NULL);
    return j.rc;
}

/* Sets KeyError('kept') and then allocates: ctypes.PyDLL raises the pending exception when the
 * call returns, so the script sees it only if the allocation left it alone. Returns the
 * allocation's status, or -1 when the C API is not found. */
HELPER_API int pyhelper_raise_then_alloc(alloc_fn fn, size_t bytes)
{
    void (*set_string)(void *, const char *) =
        (void (*)(void *, const char *))dlsym(RTLD_DEFAULT, "PyErr_SetString");
    void **key_error = (void **)dlsym(RTLD_DEFAULT, "PyExc_KeyError");
    if (!set_string || !key_error)
        return -1;
    set_string(*key_error, "kept");
    void *p = NULL;
    return fn(&p, bytes);
}

HELPER_API int pyhelper_in_alloc;

/* fn(out, bytes) with pyhelper_in_alloc set around it. */
HELPER_API int pyhelper_flagged_alloc(alloc_fn fn, void **out, size_t bytes)
{
    pyhelper_in_alloc = 1;
    int rc = fn(out, bytes);
    pyhelper_in_alloc = 0;
    return rc;
}

/* SPDX-License-Identifier: MIT */
/* dlsym(RTLD_NEXT, name) of a CUDA function, as a program that wants "the next definition after
 * me" writes it: from the program itself (linked with libcuda.so.1 and libcudart.so.13, so the
 * next definitions are the real ones) and from a plugin it dlopens (linked with libcuda.so.1
 * only). Beside them the same functions through RTLD_DEFAULT and a dlopen handle. Every answer
 * is called to allocate and free: expected/events/next.txt requires each pair recorded once,
 * passthru.sh the same transcript untraced (including the lookups glibc answers NULL). */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define MiB ((size_t)1 << 20)

typedef int (*dev_alloc_fn)(unsigned long long *, size_t);
typedef int (*dev_free_fn)(unsigned long long);
typedef int (*rt_alloc_fn)(void **, size_t);
typedef int (*rt_free_fn)(void *);

int cudaFree(void *p);

static int failed;

static void *lookup(void *handle, const char *how, const char *name)
{
    dlerror();
    void *fn = dlsym(handle, name);
    const char *err = dlerror();
    printf("dlsym(%s, %s): %s, dlerror: %s\n", how, name, fn ? "found" : "NULL",
           err ? "set" : "(none)");
    return fn;
}

static void driver_pair(void *handle, const char *how, size_t bytes)
{
    dev_alloc_fn alloc = (dev_alloc_fn)lookup(handle, how, "cuMemAlloc_v2");
    dev_free_fn release = (dev_free_fn)lookup(handle, how, "cuMemFree_v2");
    unsigned long long p = 0;
    int rc = alloc ? alloc(&p, bytes) : -1;
    int rc_free = release && p ? release(p) : -1;
    printf("  %zu MiB: alloc %d, free %d\n", bytes / MiB, rc, rc_free);
    failed |= rc != 0 || rc_free != 0;
}

static void runtime_pair(void *handle, const char *how, size_t bytes)
{
    rt_alloc_fn alloc = (rt_alloc_fn)lookup(handle, how, "cudaMalloc");
    rt_free_fn release = (rt_free_fn)lookup(handle, how, "cudaFree");
    void *p = NULL;
    int rc = alloc ? alloc(&p, bytes) : -1;
    int rc_free = release && p ? release(p) : -1;
    printf("  %zu MiB: malloc %d, free %d\n", bytes / MiB, rc, rc_free);
    failed |= rc != 0 || rc_free != 0;
}

int main(int argc, char **argv)
{
    (void)argc;
    printf("cudaFree(NULL): %d\n", cudaFree(NULL)); /* the context, made current */
    driver_pair(RTLD_NEXT, "RTLD_NEXT", 1 * MiB);
    driver_pair(RTLD_DEFAULT, "RTLD_DEFAULT", 2 * MiB);
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    driver_pair(driver, "libcuda.so.1", 3 * MiB);
    runtime_pair(RTLD_NEXT, "RTLD_NEXT", 4 * MiB);
    runtime_pair(RTLD_DEFAULT, "RTLD_DEFAULT", 5 * MiB);
    /* A second lookup of the same names gives the same answers. */
    failed |= lookup(RTLD_NEXT, "RTLD_NEXT", "cuMemAlloc_v2") !=
              lookup(RTLD_NEXT, "RTLD_NEXT", "cuMemAlloc_v2");
    lookup(RTLD_NEXT, "RTLD_NEXT", "cuNoSuchFunction");
    dlclose(driver);

    /* The plugin, next to the program, dlopened with a path. */
    char path[PATH_MAX];
    const char *slash = strrchr(argv[0], '/');
    snprintf(path, sizeof path, "%.*slibnext_plugin.so", slash ? (int)(slash - argv[0] + 1) : 0,
             argv[0]);
    void *plugin = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    printf("dlopen plugin: %s\n", plugin ? "ok" : "failed");
    int (*plugin_pair)(size_t) = plugin ? (int (*)(size_t))dlsym(plugin, "plugin_pair") : NULL;
    int rc = plugin_pair ? plugin_pair(6 * MiB) : -1;
    printf("plugin pair: %d\n", rc);
    failed |= rc != 0;
    return failed;
}

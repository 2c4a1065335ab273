/* SPDX-License-Identifier: MIT */
/* dlopen on several threads at once: each of 4 threads opens its own 25 copies of
 * libloadrace.so (linked with libcuda.so.1, RELRO, thousands of relocations), calling each copy
 * as soon as it is open (an allocation pair through its call and address slots), while a fifth
 * thread opens 25 copies of a library with no CUDA reference. A copy's slots must be turned
 * after its relocation and never by another thread's refresh in the middle of it (the loader
 * would overwrite the turned slot, or fault on a RELRO page made read-only again): every pair
 * recorded (expected/events/loadrace.txt), no crash. The copies go to the working directory. */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define THREADS 4
#define COPIES  25

int cuInit(unsigned flags);
int cuDeviceGet(int *device, int ordinal);
int cuDevicePrimaryCtxRetain(void **ctx, int device);
int cuCtxSetCurrent(void *ctx);

static char dir[PATH_MAX];
static void *ctx;
static int failures;
static pthread_barrier_t start;

/* A copy of dir/name as ./copy (a distinct file: glibc loads it as a distinct object). */
static int copy(const char *name, const char *copy_name)
{
    char from[PATH_MAX + 64], buf[65536];
    snprintf(from, sizeof from, "%s%s", dir, name);
    int in = open(from, O_RDONLY), out = open(copy_name, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    ssize_t n = 0;
    while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n)
            n = -1;
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
    return in >= 0 && out >= 0 && n == 0 ? 0 : -1;
}

static void *loader(void *arg)
{
    long t = (long)arg;
    cuCtxSetCurrent(ctx);
    pthread_barrier_wait(&start);
    for (int k = 0; k < COPIES; k++) {
        char path[64];
        snprintf(path, sizeof path, "./copy_%ld_%d.so", t, k);
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (t == THREADS) { /* the non-CUDA loader */
            __atomic_fetch_or(&failures, h == NULL, __ATOMIC_RELAXED);
            continue;
        }
        int (*pair)(size_t) = h ? (int (*)(size_t))dlsym(h, "loadrace_pair") : NULL;
        __atomic_fetch_or(&failures, !pair || pair((size_t)1 << 20), __ATOMIC_RELAXED);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    (void)argc;
    const char *slash = strrchr(argv[0], '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
    for (long t = 0; t <= THREADS; t++)
        for (int k = 0; k < COPIES; k++) {
            char path[64];
            snprintf(path, sizeof path, "./copy_%ld_%d.so", t, k);
            if (copy(t < THREADS ? "libloadrace.so" : "libloadrace_plain.so", path) != 0) {
                printf("cannot copy the libraries\n");
                return 1;
            }
        }
    int device = -1;
    int rc = cuInit(0);
    rc = rc ? rc : cuDeviceGet(&device, 0);
    rc = rc ? rc : cuDevicePrimaryCtxRetain(&ctx, device);
    printf("context: %d\n", rc);
    pthread_t threads[THREADS + 1];
    pthread_barrier_init(&start, NULL, THREADS + 1);
    for (long t = 0; t <= THREADS; t++)
        pthread_create(&threads[t], NULL, loader, (void *)t);
    for (long t = 0; t <= THREADS; t++)
        pthread_join(threads[t], NULL);
    printf("%d libraries opened and called on %d threads: %s\n", THREADS * COPIES, THREADS,
           failures ? "failed" : "ok");
    return rc != 0 || failures;
}

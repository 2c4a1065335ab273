/* SPDX-License-Identifier: MIT */
/* A program that interposes cuMemAlloc_v2 itself: its definition counts the calls and chains to
 * dlsym(RTLD_NEXT, "cuMemAlloc_v2"), as an interposer does. It calls its own definition, then
 * dlopens a library linked with libcuda.so.1 whose call binds to that definition too (the
 * program comes first in the global scope). Each allocation must be recorded exactly once, and
 * never recurse: the shim is the interposer's next function, so the interposer must never
 * become the shim's real one (expected/events/next_wrap.txt; passthru.sh: the same transcript
 * untraced). */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define MiB ((size_t)1 << 20)

int cuInit(unsigned flags);
int cuDeviceGet(int *device, int ordinal);
int cuDevicePrimaryCtxRetain(void **ctx, int device);
int cuCtxSetCurrent(void *ctx);
int cuMemFree_v2(unsigned long long p);

static int calls;

__attribute__((visibility("default"))) int cuMemAlloc_v2(unsigned long long *p, size_t bytes)
{
    static int (*next)(unsigned long long *, size_t);
    if (!next)
        next = (int (*)(unsigned long long *, size_t))dlsym(RTLD_NEXT, "cuMemAlloc_v2");
    calls++;
    return next ? next(p, bytes) : -1;
}

int main(int argc, char **argv)
{
    (void)argc;
    int device = -1;
    void *ctx = NULL;
    int rc = cuInit(0);
    rc = rc ? rc : cuDeviceGet(&device, 0);
    rc = rc ? rc : cuDevicePrimaryCtxRetain(&ctx, device);
    rc = rc ? rc : cuCtxSetCurrent(ctx);
    printf("context: %d\n", rc);
    unsigned long long p = 0;
    rc = cuMemAlloc_v2(&p, 1 * MiB);
    printf("own call: alloc %d, free %d\n", rc, cuMemFree_v2(p));

    char path[PATH_MAX];
    const char *slash = strrchr(argv[0], '/');
    snprintf(path, sizeof path, "%.*slibnext_user.so", slash ? (int)(slash - argv[0] + 1) : 0,
             argv[0]);
    void *user = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    int (*user_pair)(size_t) = user ? (int (*)(size_t))dlsym(user, "user_pair") : NULL;
    int user_rc = user_pair ? user_pair(2 * MiB) : -1;
    printf("library's call: %d; the interposer saw %d calls\n", user_rc, calls);
    return rc != 0 || user_rc != 0 || calls != 2;
}

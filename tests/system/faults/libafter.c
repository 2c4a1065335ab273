/* SPDX-License-Identifier: MIT */
/* Preloaded after libvramtrace.so (LD_PRELOAD="libvramtrace.so libafter.so"), this library is
 * finalized after it: its destructor calls CUDA once vramtrace's own exit has run, the way a
 * library torn down late (a runtime's teardown, a plugin) does. The calls go through the global
 * scope, so they reach vramtrace's hooks, which must forward them unrecorded and unharmed. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

typedef int (*alloc_fn)(unsigned long long *dptr, size_t size);
typedef int (*free_fn)(unsigned long long dptr);

__attribute__((destructor)) static void after_everything(void)
{
    alloc_fn a = (alloc_fn)dlsym(RTLD_DEFAULT, "cuMemAlloc_v2");
    free_fn f = (free_fn)dlsym(RTLD_DEFAULT, "cuMemFree_v2");
    unsigned long long p = 0;
    int ra = a ? a(&p, 1 << 20) : -1;
    int rf = ra == 0 && f ? f(p) : -1;
    printf("last library: alloc %d free %d\n", ra, rf);
    fflush(stdout);
}

/* SPDX-License-Identifier: MIT */
/* The preloaded dlsym must be invisible to everyone else's lookups (passthru.sh compares this
 * transcript with and without the library): dlsym(RTLD_NEXT, "x") in libfirst.so still reaches
 * libsecond.so's x (42, not a recursion), and dlsym/dlerror through an explicit handle, for
 * hooked driver names the handle does not define and for ordinary names, leave exactly the
 * same results and error strings. Linked with libfirst.so then libsecond.so; never touches
 * CUDA, so the traced run must also print nothing on stderr. */
#include <dlfcn.h>
#include <stdio.h>

int x(void);

static void lookup(void *h, const char *where, const char *name)
{
    dlerror();
    void *p = dlsym(h, name);
    const char *err = dlerror();
    printf("dlsym(%s, %s): %s, dlerror: %s\n", where, name, p ? "found" : "NULL",
           err ? err : "(none)");
    err = dlerror();
    printf("  dlerror again: %s\n", err ? err : "(none)");
}

int main(void)
{
    printf("x() = %d\n", x());
    void *second = dlopen("libsecond.so", RTLD_NOW | RTLD_NOLOAD);
    printf("dlopen libsecond.so: %s\n", second ? "ok" : dlerror());
    if (!second)
        return 1;
    lookup(second, "libsecond", "cuMemAlloc_v2");       /* hooked name, not defined there */
    lookup(second, "libsecond", "cuGetProcAddress_v2"); /* the hooked door itself */
    lookup(second, "libsecond", "cuMemGetInfo_v2");     /* a driver name we only call */
    lookup(second, "libsecond", "x");
    lookup(second, "libsecond", "no_such_symbol");
    lookup(RTLD_DEFAULT, "RTLD_DEFAULT", "no_such_symbol");
    lookup(RTLD_NEXT, "RTLD_NEXT", "x");
    lookup(RTLD_NEXT, "RTLD_NEXT", "no_such_symbol");
    dlclose(second);
    return x() == 42 ? 0 : 1;
}

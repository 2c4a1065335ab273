/* SPDX-License-Identifier: MIT */
/* The first of two definitions of x(): it finds the next one with dlsym(RTLD_NEXT, "x"), as
 * interposers and LLVM's OpenMP (ompt_start_tool) do. glibc picks "next" after the caller it
 * reads from the return address, so a preloaded dlsym that forwards with a normal call makes
 * this lookup find libfirst's x again and recurse (HAMi-core PR #315). Returns 1 if the lookup
 * finds nothing or finds itself. */
#include <dlfcn.h>

__attribute__((visibility("default"))) int x(void)
{
    int (*next)(void) = (int (*)(void))dlsym(RTLD_NEXT, "x");
    if (!next || next == x)
        return 1;
    return next();
}

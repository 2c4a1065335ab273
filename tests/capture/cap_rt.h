/* SPDX-License-Identifier: MIT */
/* What the traced runtime programs share: tests/sim's runtime declarations, and a check that
 * the loaded libcudart.so.13 is the simulated one that works under the preload (t_rt_common.h's
 * check looks cudaMalloc up through RTLD_DEFAULT, which finds libvramtrace.so's hook first; the
 * runtime's own handle does not). */
#ifndef CAP_RT_H
#define CAP_RT_H
#include "t_rt_common.h"

static inline int cap_sim_runtime_loaded(void)
{
    void *rt = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
    void *fn = rt ? dlsym(rt, "cudaMalloc") : NULL;
    Dl_info info;
    char got[PATH_MAX], want[PATH_MAX];
    int ok = fn && dladdr(fn, &info) && info.dli_fname && realpath(info.dli_fname, got) &&
             realpath(VT_SIM_CUDART, want) && strcmp(got, want) == 0;
    if (rt)
        dlclose(rt);
    return ok;
}

/* 1 when fn lies in libvramtrace.so. */
static inline int cap_is_ours(const void *fn)
{
    Dl_info info;
    return fn && dladdr(fn, &info) && info.dli_fname &&
           strstr(info.dli_fname, "libvramtrace.so") != NULL;
}
#endif

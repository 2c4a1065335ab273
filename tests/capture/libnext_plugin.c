/* SPDX-License-Identifier: MIT */
/* A plugin linked with libcuda.so.1 that finds the driver's functions with dlsym(RTLD_NEXT, …):
 * glibc searches the plugin's own dependencies after it. cudaMalloc is not among them (NULL). */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*dev_alloc_fn)(unsigned long long *, size_t);
typedef int (*dev_free_fn)(unsigned long long);

int cuInit(unsigned flags); /* the link to libcuda.so.1 */

__attribute__((visibility("default"))) int plugin_pair(size_t bytes)
{
    dev_alloc_fn alloc = (dev_alloc_fn)dlsym(RTLD_NEXT, "cuMemAlloc_v2");
    dev_free_fn release = (dev_free_fn)dlsym(RTLD_NEXT, "cuMemFree_v2");
    void *runtime = dlsym(RTLD_NEXT, "cudaMalloc");
    printf("plugin: cuMemAlloc_v2 %s, cuMemFree_v2 %s, cudaMalloc %s, cuInit %d\n",
           alloc ? "found" : "NULL", release ? "found" : "NULL", runtime ? "found" : "NULL",
           cuInit(0));
    unsigned long long p = 0;
    int rc = alloc ? alloc(&p, bytes) : -1;
    int rc_free = release && p ? release(p) : -1;
    return rc != 0 || rc_free != 0;
}

/* SPDX-License-Identifier: MIT */
/* A program with optional CUDA support, run without CUDA: it probes for the runtime and the
 * driver the usual ways (weak references, dlsym through the global scope and through the
 * program's own handle) and takes its CUDA path only when one answers. With libvramtrace.so
 * preloaded it must find nothing either, and print exactly what it prints without
 * (passthru.sh silent): the library exports no CUDA name. */
#include <dlfcn.h>
#include <stdio.h>

/* Weak: resolved to NULL when no loaded object defines them. The prototypes are not CUDA's;
 * only the addresses are read. */
extern int cuMemAlloc_v2(void) __attribute__((weak));
extern int cudaMalloc(void) __attribute__((weak));
extern int cuGetProcAddress_v2(void) __attribute__((weak));

static void probe(void *handle, const char *where, const char *name)
{
    dlerror();
    void *p = dlsym(handle, name);
    const char *error = dlerror();
    printf("dlsym(%s, %s): %s (%s)\n", where, name, p ? "found" : "absent",
           error ? error : "no error");
}

int main(void)
{
    printf("weak cuMemAlloc_v2: %s\n", cuMemAlloc_v2 ? "found" : "absent");
    printf("weak cudaMalloc: %s\n", cudaMalloc ? "found" : "absent");
    printf("weak cuGetProcAddress_v2: %s\n", cuGetProcAddress_v2 ? "found" : "absent");
    static const char *const names[] = {"cudaMalloc", "cudaGetDriverEntryPoint", "cuMemAlloc_v2",
                                        "cuGetProcAddress_v2", "cuMemCreate"};
    void *self = dlopen(NULL, RTLD_NOW);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        probe(RTLD_DEFAULT, "RTLD_DEFAULT", names[i]);
        probe(self, "the program", names[i]);
    }
    int (*alloc)(void) = cuMemAlloc_v2 ? cuMemAlloc_v2 : NULL;
    puts(alloc ? "taking the CUDA path" : "taking the CPU path");
    return 0;
}

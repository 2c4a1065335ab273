/* SPDX-License-Identifier: MIT */
/* t_reload FIRST OTHER: dlopens FIRST, allocates 1 MiB through its reload_first_alloc, dlcloses
 * it, dlopens OTHER and allocates 2 MiB through its reload_other_alloc, both from one call-site
 * (one loop over the arguments, whose count the compiler cannot know, so it is not unrolled),
 * both left live. When OTHER is not mapped where FIRST was, the case this test is about does not
 * arise: it says so and exits 77 (skipped). run_reload.sh checks the categories. */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include "sim_test.h"

typedef int (*alloc_fn)(CUdeviceptr *, size_t);

static void *previous;       /* the library loaded by the last call, unloaded by the next one */
static uintptr_t first_base; /* where the first one was mapped */
static int n_loaded;

/* Unloads the previous library, loads path and allocates through it; 0, 1 (failed) or 77 (the
 * library is not where the previous one was). */
__attribute__((noinline)) static int load_and_allocate(const char *path)
{
    static const char *const names[2] = {"reload_first_alloc", "reload_other_alloc"};
    if (previous && dlclose(previous) != 0)
        return 1;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    struct link_map *map = NULL;
    alloc_fn fn = h ? (alloc_fn)dlsym(h, names[n_loaded & 1]) : NULL;
    if (!fn || dlinfo(h, RTLD_DI_LINKMAP, &map) != 0) {
        fprintf(stderr, "t_reload: %s\n", dlerror());
        return 1;
    }
    if (!n_loaded)
        first_base = map->l_addr;
    else if (map->l_addr != first_base) {
        printf("the loader mapped the second library elsewhere: nothing to test\n");
        return 77;
    }
    previous = h;
    CUdeviceptr p = 0;
    int rc = fn(&p, (size_t)++n_loaded << 20);
    __asm__ volatile("" : : : "memory"); /* not a tail call: this frame stays */
    return rc == CUDA_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 3 || sim_test_context(0) != CUDA_SUCCESS)
        return 2;
    for (int i = 1; i < argc; i++) {
        int rc = load_and_allocate(argv[i]);
        if (rc != 0)
            return rc;
    }
    printf("allocated\n");
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* Loads libvt_plugin.so with dlopen after start-up and allocates through it, so the module map
 * must be refreshed for the call-site to be symbolized and categorized (run_modules.sh). */
#include <dlfcn.h>
#include <stdio.h>
#include "sim_test.h"

int main(int argc, char **argv)
{
    if (argc < 2 || sim_test_context(0) != CUDA_SUCCESS)
        return 2;
    void *h = dlopen(argv[1], RTLD_NOW);
    if (!h) {
        fprintf(stderr, "t_modules: %s\n", dlerror());
        return 1;
    }
    int (*init)(CUdeviceptr *) = (int (*)(CUdeviceptr *))dlsym(h, "plugin_init_weights");
    CUdeviceptr p = 0;
    if (!init || init(&p) != CUDA_SUCCESS)
        return 1;
    printf("allocated\n");
    return 0;
}

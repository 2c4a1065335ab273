/* SPDX-License-Identifier: MIT */
/* loads ROUNDS LIB...: the cost of a load under libvramtrace.so's dlopen door, which points the
 * new objects' CUDA references at its shims (src/loads.c). Each round dlopens every LIB and
 * dlcloses them again, so every round loads them afresh (and, after the unloads, the door
 * passes over every loaded object again: the worst case). Prints the mean ns per dlopen +
 * dlclose pair; bench/loads.sh runs it with and without the library. */
#include "bench.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: loads ROUNDS LIB...\n");
        return 2;
    }
    int rounds = atoi(argv[1]), n_libs = argc - 2;
    void **handles = calloc((size_t)n_libs, sizeof *handles);
    if (rounds <= 0 || !handles) {
        fprintf(stderr, "loads: bad ROUNDS '%s'\n", argv[1]);
        return 2;
    }
    uint64_t start_ns = bench_now_ns();
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n_libs; i++) {
            handles[i] = dlopen(argv[i + 2], RTLD_NOW | RTLD_LOCAL);
            if (!handles[i]) {
                fprintf(stderr, "loads: %s\n", dlerror());
                return 1;
            }
        }
        for (int i = n_libs - 1; i >= 0; i--)
            dlclose(handles[i]);
    }
    printf("ns_per_load %.0f\n", (double)(bench_now_ns() - start_ns) / ((double)rounds * n_libs));
    free(handles);
    return 0;
}

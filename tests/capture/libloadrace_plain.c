/* SPDX-License-Identifier: MIT */
/* The load race's other library: no CUDA reference, only relocations to keep the loader busy. */
static char cells[512];
#define P1(i) &cells[i]
#define P8(i) P1(i), P1(i + 1), P1(i + 2), P1(i + 3), P1(i + 4), P1(i + 5), P1(i + 6), P1(i + 7)
#define P64(i)                                                                                     \
    P8(i), P8(i + 8), P8(i + 16), P8(i + 24), P8(i + 32), P8(i + 40), P8(i + 48), P8(i + 56)
#define P512(i)                                                                                    \
    P64(i), P64(i + 64), P64(i + 128), P64(i + 192), P64(i + 256), P64(i + 320), P64(i + 384),     \
        P64(i + 448)
__attribute__((visibility("default"))) char *const loadrace_plain_table[512] = {P512(0)};

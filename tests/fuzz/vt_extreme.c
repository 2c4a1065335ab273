/* SPDX-License-Identifier: MIT */
/* vt-extreme DIR FIRST COUNT: writes DIR/extreme-SEED.vtr for the COUNT seeds from FIRST, each a
 * valid trace with extreme values (extreme.h), for the fuzz corpus and tests/fuzz/extreme.sh. */
#include <stdio.h>
#include <stdlib.h>

#include "extreme.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fputs("usage: vt-extreme DIR FIRST COUNT\n", stderr);
        return 2;
    }
    unsigned long long first = strtoull(argv[2], NULL, 10), count = strtoull(argv[3], NULL, 10);
    for (unsigned long long seed = first; seed < first + count; seed++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/extreme-%llu.vtr", argv[1], seed);
        tb_t tb;
        tb_init(&tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR);
        extreme_trace(&tb, seed);
        if (tb_write(&tb, path, tb.len) != 0) {
            perror(path);
            return 1;
        }
        tb_release(&tb);
    }
    return 0;
}

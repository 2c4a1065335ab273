/* SPDX-License-Identifier: MIT */
/* t_reader_hold TRACE hold|truncate: a reader of TRACE as the analyzer's (tools/trace_reader.h),
 * for tests/run/reader.sh. hold: opens (maps and locks) TRACE, says "open" on stdout, waits for
 * the end of stdin, then decodes every record and prints how many. truncate: writes TRACE (20 000
 * allocations, a few hundred KiB), opens it, cuts the file to its first page as another process
 * would, then decodes: the SIGBUS of the lost pages must become the analyzer's one-line error
 * and exit status 1. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trace_builder.h"
#include "trace_reader.h"

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    vt_reader_catch_truncation();
    if (strcmp(argv[2], "truncate") == 0) {
        tb_t tb;
        tb_init(&tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR);
        for (uint64_t i = 0; i < 20000; i++)
            tb_alloc(&tb, 1000, 0, VT_CAT_WEIGHTS, 0, 0, 0x100000 + (i << 20), 4096, 0, 1);
        tb_end(&tb, 1, 20000, 0, 0, 0, 0);
        if (tb_write(&tb, argv[1], tb.len) != 0)
            return 2;
        tb_release(&tb);
    }
    vt_reader_t r;
    if (vt_reader_open(&r, argv[1]) != 0) {
        fprintf(stderr, "%s\n", r.err);
        return 1;
    }
    if (strcmp(argv[2], "hold") == 0) {
        printf("open\n");
        fflush(stdout);
        char buf[64];
        while (fread(buf, 1, sizeof(buf), stdin) > 0)
            ;
    } else if (truncate(argv[1], 4096) != 0) {
        perror("truncate");
        return 2;
    }
    vt_event_t ev;
    uint64_t n = 0;
    while (vt_reader_next(&r, &ev) == 1)
        n++;
    printf("%llu records%s\n", (unsigned long long)n, r.state < 0 ? " (damaged)" : "");
    vt_reader_release(&r);
    return 0;
}

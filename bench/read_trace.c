/* SPDX-License-Identifier: MIT */
/* read_trace: the decoding floor of every analyzer command. Reads a trace to its end with the
 * reader alone (vt_reader_next: every record decoded, the compact records' state replayed, each
 * event handed out in a vt_event_t), nothing applied, and prints the records read. Timed by
 * bench/analyzer.sh beside `vramtrace report`, which decodes the same records (through the
 * analysis loop's own inlined copy of the fast path, without the vt_event_t) and applies them
 * to the live set: the difference is the analysis.
 *   usage: read_trace FILE */
#include "trace_reader.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: read_trace FILE\n");
        return 2;
    }
    vt_reader_t r;
    if (vt_reader_open(&r, argv[1]) != 0) {
        fprintf(stderr, "read_trace: %s\n", r.err);
        vt_reader_release(&r);
        return 1;
    }
    vt_event_t ev;
    int rc;
    while ((rc = vt_reader_next(&r, &ev)) > 0)
        continue;
    if (rc < 0)
        fprintf(stderr, "read_trace: %s\n", r.err);
    printf("read_trace: %llu records\n", (unsigned long long)r.n_records);
    vt_reader_release(&r);
    return rc < 0;
}

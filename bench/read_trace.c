/* SPDX-License-Identifier: MIT */
/* read_trace: the decoding floor of the analyzer's commands. Reads a trace to its end, nothing
 * applied, and prints the records read:
 *   read_trace FILE     the reader (vt_reader_next): every record decoded, the compact records'
 *                       state replayed, each event handed out in a vt_event_t, as the streaming
 *                       commands and the tests read;
 *   read_trace -f FILE  the fast path as `vramtrace report`'s loop inlines it (trace_decode.h:
 *                       fast_compact and fast_record into scalars, no event; any other record
 *                       through vt_reader_next): what report's decoding costs, without the
 *                       analysis.
 * Timed by bench/analyzer.sh beside `vramtrace report`, which decodes the same records the -f
 * way and applies them to the live set: the difference is the analysis. */
#include "trace_decode.h"

#include <stdio.h>
#include <string.h>

/* The records from r->pos on through the fast path where it takes them; returns
 * vt_reader_next's last result. */
static int read_fast(vt_reader_t *r, uint64_t *checksum)
{
    size_t fast_end = r->size > FAST_RECORD_BYTES ? r->size - FAST_RECORD_BYTES : 0;
    vt_event_t ev;
    for (;;) {
        size_t start = r->pos;
        if (start >= r->mapped && start < r->size)
            vt_reader_populate(r);
        if (start < fast_end && !r->state) {
            unsigned t = r->map[start];
            fast_rec_t f;
            if ((is_compact(r, t) && fast_compact(r, start, t, &f)) ||
                ((t == VT_REC_ALLOC || t == VT_REC_FREE) && fast_record(r, start, t, &f))) {
                *checksum += f.address ^ f.size_bytes; /* so nothing decoded is dead */
                continue;
            }
        }
        int rc = vt_reader_next(r, &ev);
        if (rc <= 0)
            return rc;
    }
}

int main(int argc, char **argv)
{
    int fast = argc == 3 && !strcmp(argv[1], "-f");
    if (argc != 2 + fast) {
        fprintf(stderr, "usage: read_trace [-f] FILE\n");
        return 2;
    }
    vt_reader_t r;
    if (vt_reader_open(&r, argv[1 + fast]) != 0) {
        fprintf(stderr, "read_trace: %s\n", r.err);
        vt_reader_release(&r);
        return 1;
    }
    uint64_t checksum = 0;
    int rc;
    if (fast) {
        rc = read_fast(&r, &checksum);
    } else {
        vt_event_t ev;
        while ((rc = vt_reader_next(&r, &ev)) > 0)
            checksum += ev.t_ns;
    }
    if (rc < 0)
        fprintf(stderr, "read_trace: %s\n", r.err);
    printf("read_trace: %llu records (%016llx)\n", (unsigned long long)r.n_records,
           (unsigned long long)checksum);
    vt_reader_release(&r);
    return rc < 0;
}

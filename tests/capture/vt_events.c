/* SPDX-License-Identifier: MIT */
/* vt_events TRACE...: one line per allocation, free and failure of the traces, with the API that
 * recorded it, its series and its size (no time, address or stack): what each door of the
 * library records, for events.sh to compare with a golden file as a multiset. */
#include <inttypes.h>
#include <stdio.h>

#include "trace_reader.h"

int main(int argc, char **argv)
{
    int status = 0;
    for (int a = 1; a < argc; a++) {
        vt_reader_t r;
        if (vt_reader_open(&r, argv[a]) != 0) {
            fprintf(stderr, "vt_events: cannot read '%s'\n", argv[a]);
            status = 1;
            continue;
        }
        vt_event_t ev;
        char api[128];
        int rc;
        while ((rc = vt_reader_next(&r, &ev)) == 1) {
            if (ev.type == VT_REC_ALLOC)
                printf("alloc %s series=%u size=%" PRIu64 "\n",
                       vt_reader_api_name(&r, ev.u.alloc.api, api, sizeof api), ev.u.alloc.series,
                       ev.u.alloc.size_bytes);
            else if (ev.type == VT_REC_FREE)
                printf("free %s series=%u%s\n",
                       vt_reader_api_name(&r, ev.u.free.api, api, sizeof api), ev.u.free.series,
                       ev.u.free.unmatched ? " unmatched" : "");
            else if (ev.type == VT_REC_FAILED)
                printf("failed %s size=%" PRIu64 " error=%" PRIu64 "\n",
                       vt_reader_api_name(&r, ev.u.failed.api, api, sizeof api),
                       ev.u.failed.requested_bytes, ev.u.failed.error);
        }
        if (rc < 0) {
            fprintf(stderr, "vt_events: '%s' is damaged\n", argv[a]);
            status = 1;
        }
        vt_reader_release(&r);
    }
    return status;
}

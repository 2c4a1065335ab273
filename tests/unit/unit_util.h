/* SPDX-License-Identifier: MIT */
/* Helpers shared by the unit tests on top of vt_test.h: string comparison with both values on
 * failure, and capture of what the code under test writes to fd 2 (vt_warn, vt_log) so tests
 * can compare exact lines. Not reentrant: one capture at a time. */
#ifndef VT_UNIT_UTIL_H
#define VT_UNIT_UTIL_H
#include "vt_test.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* VT_CHECK_STR: like VT_CHECK_EQ for two C strings. */
#define VT_CHECK_STR(name, got, want)                                                              \
    do {                                                                                           \
        const char *vt_gs_ = (got), *vt_ws_ = (want);                                              \
        vt_test_n_run++;                                                                           \
        if (strcmp(vt_gs_, vt_ws_) != 0) {                                                         \
            vt_test_n_failed++;                                                                    \
            fprintf(stderr, "%s:%d: FAIL %s: %s is \"%s\", want \"%s\"\n", __FILE__, __LINE__,     \
                    (name), #got, vt_gs_, vt_ws_);                                                 \
        }                                                                                          \
    } while (0)

static FILE *vt_capture_file;
static int vt_capture_saved_fd = -1;

static inline void vt_capture_begin(void)
{
    fflush(stderr);
    vt_capture_file = tmpfile();
    vt_capture_saved_fd = dup(2);
    dup2(fileno(vt_capture_file), 2);
}

/* Ends the capture, restores fd 2 and returns the captured text (NUL-terminated, truncated to
 * fit buf). */
static inline const char *vt_capture_end(char *buf, size_t cap)
{
    dup2(vt_capture_saved_fd, 2);
    close(vt_capture_saved_fd);
    rewind(vt_capture_file);
    size_t n = fread(buf, 1, cap - 1, vt_capture_file);
    buf[n] = '\0';
    fclose(vt_capture_file);
    return buf;
}

/* Number of '\n'-terminated lines in s. */
static inline int vt_count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}
#endif

/* SPDX-License-Identifier: MIT */
/* Opening an output without blocking (output.h). */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *vt_output_open(const char *path)
{
    /* O_NONBLOCK: opening a FIFO for writing waits for a reader; non-blocking, it fails with
     * ENXIO when there is none. O_NOCTTY: a terminal named here must not become ours. */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
    if (fd < 0)
        return NULL;
    /* Opened: from here writes wait for a slow reader as they would on stdout. */
    int flags = fcntl(fd, F_GETFL);
    FILE *out = NULL;
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 || !(out = fdopen(fd, "w"))) {
        int err = errno;
        close(fd);
        errno = err;
    }
    return out;
}

const char *vt_output_strerror(const char *path, int err)
{
    struct stat st;
    if (err == ENXIO && stat(path, &st) == 0 && S_ISFIFO(st.st_mode))
        return "a FIFO that no process is reading";
    if (err == ENXIO && stat(path, &st) == 0 && S_ISSOCK(st.st_mode))
        return "a socket, not a file";
    return strerror(err);
}

/* SPDX-License-Identifier: MIT */
/* Bounded reads of regular files (input.h). */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int vt_input_open(const char *path)
{
    /* O_NONBLOCK: opening a FIFO with no writer would wait for one; O_NOCTTY: a terminal
     * named here must not become ours. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    int err = 0;
    if (fstat(fd, &st) != 0)
        err = errno;
    else if (!S_ISREG(st.st_mode))
        err = S_ISDIR(st.st_mode) ? EISDIR : ENOTSUP;
    if (err) {
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

char *vt_input_read(const char *path, size_t max_bytes, size_t *len_out)
{
    int fd = vt_input_open(path);
    if (fd < 0)
        return NULL;
    /* Read until the end, whatever size fstat said: the file may change meanwhile. One byte
     * past the bound tells a file at the bound from a larger one. */
    size_t cap = 4096, len = 0;
    char *buf = NULL;
    int err = 0;
    for (;;) {
        if (len + 1 >= cap || !buf) {
            if (buf)
                cap *= 2;
            char *bigger = realloc(buf, cap);
            if (!bigger) {
                err = ENOMEM;
                break;
            }
            buf = bigger;
        }
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            err = errno;
            break;
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > max_bytes) {
            err = EFBIG;
            break;
        }
    }
    close(fd);
    if (err) {
        free(buf);
        errno = err;
        return NULL;
    }
    buf[len] = '\0';
    *len_out = len;
    return buf;
}

const char *vt_input_strerror(int err)
{
    if (err == ENOTSUP)
        return "not a regular file";
    if (err == EFBIG)
        return "too large (more than 16 MiB)";
    return strerror(err);
}

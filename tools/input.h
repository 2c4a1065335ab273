/* SPDX-License-Identifier: MIT */
/* The files the analyzer reads (a trace is mapped by tools/trace_reader.c, which opens it the
 * same way): a path must name a regular file, opened without blocking, so that a FIFO, a
 * device (/dev/zero) or a directory is one error at once instead of a hang or an endless read;
 * and a whole-file read is bounded. */
#ifndef VT_TOOLS_INPUT_H
#define VT_TOOLS_INPUT_H

#include <stddef.h>

/* The most a rules or model file may hold: a few KiB in practice. */
#define VT_INPUT_MAX_BYTES (16u << 20)

/* vt_input_open: path opened read-only and non-blocking, or -1 with errno set: the open's error,
 * EISDIR for a directory, ENOTSUP for anything else that is not a regular file (a FIFO, a
 * socket, a device). vt_input_strerror says these in words. */
int vt_input_open(const char *path);

/* vt_input_read: the whole of the regular file at path into a NUL-terminated malloc'd buffer
 * (*len_out bytes without the NUL), or NULL with errno set: vt_input_open's, EFBIG past
 * max_bytes, ENOMEM, or the read's error. */
char *vt_input_read(const char *path, size_t max_bytes, size_t *len_out);

/* vt_input_strerror: errno as the messages say it ("not a regular file" for ENOTSUP, "too large
 * (more than 16 MiB)" for EFBIG, strerror otherwise). */
const char *vt_input_strerror(int err);
#endif

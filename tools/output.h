/* SPDX-License-Identifier: MIT */
/* The files the analyzer writes (-o, --svg, --stacks): opened without blocking, so that a FIFO
 * nobody reads is one error at once instead of a hang, while a FIFO or pipe that has a reader
 * (`-o >(gzip >out.gz)`), a terminal or /dev/null is written as the user asked. */
#ifndef VT_TOOLS_OUTPUT_H
#define VT_TOOLS_OUTPUT_H

#include <stdio.h>

/* vt_output_open: path opened for writing (a regular file created or truncated, 0666 less the
 * umask; anything else written in place), or NULL with errno set: the open's error, ENXIO for a
 * FIFO with no reader or a socket. Writes then block as usual. vt_output_strerror says these in
 * words. */
FILE *vt_output_open(const char *path);

/* vt_output_strerror: errno of vt_output_open for path as the messages say it ("a FIFO that no
 * process is reading" for ENXIO on a FIFO, strerror otherwise). */
const char *vt_output_strerror(const char *path, int err);
#endif

/* SPDX-License-Identifier: MIT */
/* Bytes for people, the one formatter of both programs: the capture library's exit summary and
 * out-of-memory block and every analyzer view say sizes alike. No stdio, no allocation: safe in
 * a signal handler. */
#ifndef VT_UNITS_COMMON_H
#define VT_UNITS_COMMON_H
#include <stddef.h>
#include <stdint.h>

/* vt_fmt_bytes: bytes in binary units with `decimals` digits after the point (at most 3),
 * rounded to the nearest, ties to even (what printf's "%.*f" does with the exact quotient):
 * "512 B", "1.5 GiB" (1 decimal), "1.50 GiB" (2). Units go up to EiB. Writes at most cap bytes,
 * NUL included, cutting the end that does not fit; returns buf. */
char *vt_fmt_bytes(char *buf, size_t cap, uint64_t bytes, unsigned decimals);

#endif

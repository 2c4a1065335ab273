/* SPDX-License-Identifier: MIT */
/* Numbers for people, shared by every view: bytes in binary units, thousands separators,
 * seconds. */
#ifndef VT_UNITS_H
#define VT_UNITS_H
#include <stddef.h>
#include <stdint.h>

const char *vt_fmt_binary(uint64_t bytes, char *buf, size_t cap); /* "1.50 GiB", "512 B" */
const char *vt_fmt_commas(uint64_t v, char *buf, size_t cap);     /* "1,182,022,656" */
const char *vt_fmt_seconds(uint64_t ns, char *buf, size_t cap);   /* "12.345 s" */

#endif

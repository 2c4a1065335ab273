/* SPDX-License-Identifier: MIT */
/* Numbers for people, shared by every view: bytes in binary units, thousands separators,
 * seconds, a device with its capacity. */
#ifndef VT_UNITS_H
#define VT_UNITS_H
#include <stddef.h>
#include <stdint.h>

#include "vt_units.h"

/* Bytes as every view shows them, two decimals: "1.50 GiB", "512 B" (vt_units.h). */
static inline const char *vt_fmt_binary(uint64_t bytes, char *buf, size_t cap)
{
    return vt_fmt_bytes(buf, cap, bytes, 2);
}
const char *vt_fmt_commas(uint64_t v, char *buf, size_t cap); /* "1,182,022,656" */
/* "12.345 s"; below a second, when not whole milliseconds, "0.000500 s" */
const char *vt_fmt_seconds(uint64_t ns, char *buf, size_t cap);

/* vt_parse_duration: a time as the options take it (report --at, --window): a decimal number
 * of seconds, or of s, ms, us or ns ("3.2", "3.2s", "1500ms", "250us", "10ns"), into *t_ns
 * exactly (digits past a nanosecond are dropped). Returns 0, or -1 when it is not one. */
int vt_parse_duration(const char *s, uint64_t *t_ns);

/* A device as its DEVICE record tells it: "device 0 (NVIDIA H100 80GB HBM3, 79.19 GiB)" ... */
struct vt_reader_s;
const char *vt_reader_device_text(const struct vt_reader_s *r, uint32_t device, char *buf,
                                  size_t cap);
/* ... and bytes as a share of its capacity: "12.3% of its memory", "" when it is unknown. */
const char *vt_reader_device_share(const struct vt_reader_s *r, uint32_t device, uint64_t bytes,
                                   char *buf, size_t cap);

#endif

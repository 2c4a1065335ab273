/* SPDX-License-Identifier: MIT */
/* The one size grammar of vramtrace, compiled into the capture library (its VRAMTRACE_*
 * variables) and the analyzer (every option that takes a size): common/size.c. It depends on
 * nothing but libc's types, so both sides build it as it is. */
#ifndef VT_SIZE_H
#define VT_SIZE_H

#include <stdint.h>

/* vt_size_parse: s as a byte count into *out: decimal digits with an optional fraction, then
 * an optional unit, in any case: B; K, M, G, T or KiB, MiB, GiB, TiB (powers of 1024); KB, MB,
 * GB, TB (powers of 1000). "4096", "512M", "1.5GiB", "4GB", "2tb". A fraction rounds down to a
 * whole byte. Returns 0, -EINVAL when s is not a size, -ERANGE when it exceeds 2^64 - 1. */
int vt_size_parse(const char *s, uint64_t *out);

/* The grammar in words, for help texts and messages. */
#define VT_SIZE_GRAMMAR                                                                            \
    "K, M, G, T, KiB, MiB, GiB, TiB: powers of 1024; KB, MB, GB, TB: powers of 1000; any case"

#endif

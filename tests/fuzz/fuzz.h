/* SPDX-License-Identifier: MIT */
/* What the fuzz harnesses share: the libFuzzer entry point they define, and the input handed to
 * the parsers that take a path (vt_reader_open, vt_kv_parse_file) as a memfd's /proc path, so no
 * file is written per input. */
#ifndef VT_FUZZ_H
#define VT_FUZZ_H
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* fuzz_input_path: the bytes as the contents of one memfd, reused between inputs; returns its
 * "/proc/self/fd/N" path, or NULL when the memfd cannot be made (the harness then skips). */
const char *fuzz_input_path(const uint8_t *data, size_t size);
#endif

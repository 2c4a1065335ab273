/* SPDX-License-Identifier: MIT */
/* Valid traces with extreme values: every record well formed, every size, count, time and id at
 * or near the ends of its range (sizes near 2^63 and 2^64, two live 2^63-byte allocations,
 * times at 0 and near 2^64 (every third seed: sizes whose sum passes 2^64, which makes the
 * trace damaged there), a device total of 2^64 - 1, counts at their maximum, addresses at
 * the top of the address space, phases nested deep). The values come from a seed, so a run of
 * seeds covers their combinations. They are what a hostile or broken writer would give the
 * analyzer that the reader cannot refuse as malformed: every command must stay exact or
 * saturate, never overflow, and keep its output bounded. */
#ifndef VT_FUZZ_EXTREME_H
#define VT_FUZZ_EXTREME_H
#include <stdint.h>

#include "trace_builder.h"

/* extreme_trace: one such trace for seed into tb (tb_init'ed by the caller, format 1.x). */
void extreme_trace(tb_t *tb, uint64_t seed);
#endif

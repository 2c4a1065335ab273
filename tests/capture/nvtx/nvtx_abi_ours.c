/* SPDX-License-Identifier: MIT */
/* The src/vt_nvtx.h half of test_nvtx_abi: the values of nvtx_abi_check.def's rows as vramtrace
 * declares them, in a translation unit that never sees the toolkit's NVTX headers (the two
 * declare the same names). */
#include "vt_nvtx.h"

const long long vt_nvtx_abi_ours[] = {
#define VT_ABI_CONST(name)        (long long)(name),
#define VT_ABI_SIZE(type)         (long long)sizeof(type),
#define VT_ABI_FIELD(type, field) (long long)offsetof(type, field),
#include "nvtx_abi_check.def"
#undef VT_ABI_CONST
#undef VT_ABI_SIZE
#undef VT_ABI_FIELD
};

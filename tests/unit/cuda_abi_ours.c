/* SPDX-License-Identifier: MIT */
/* Half of test_cuda_abi: the constant values and struct layouts as src/vt_cuda.h declares them. */
#include <stddef.h>
#include "vt_cuda.h"
#include "cuda_abi_check.h"

const long long vt_abi_ours[] = {
#define VT_ABI_CONST(name)        (long long)(name),
#define VT_ABI_SIZE(type)         (long long)sizeof(type),
#define VT_ABI_FIELD(type, field) (long long)offsetof(type, field),
#include "cuda_abi_check.def"
#undef VT_ABI_CONST
#undef VT_ABI_SIZE
#undef VT_ABI_FIELD
};

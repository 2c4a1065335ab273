/* SPDX-License-Identifier: MIT */
/* Half of t_sim_abi: the constant values and struct layouts as sim_cuda.h declares them. */
#include <stddef.h>
#include "sim_cuda.h"

#define SIM_DEVICE_PROP struct sim_device_prop

extern const long long sim_abi_ours[];
const long long sim_abi_ours[] = {
#define VT_ABI_CONST(name)        (long long)(name),
#define VT_ABI_SIZE(type)         (long long)sizeof(type),
#define VT_ABI_FIELD(type, field) (long long)offsetof(type, field),
#include "sim_abi_check.def"
#undef VT_ABI_CONST
#undef VT_ABI_SIZE
#undef VT_ABI_FIELD
};

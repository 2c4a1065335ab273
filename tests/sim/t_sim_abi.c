/* SPDX-License-Identifier: MIT */
/* Checks sim_cuda.h against the CUDA toolkit's own headers, as tests/unit/test_cuda_abi.c checks
 * src/vt_cuda.h. This half includes only the toolkit: every row of sim_driver.def must have
 * exactly the type of the toolkit's PFN_<base>_v<version><variant> typedef, every row of
 * sim_runtime.def the type of the declared function (both at compile time), and every constant
 * and struct offset of sim_abi_check.def must equal what sim_cuda.h says (sim_abi_ours.c,
 * compared at run time, one line per mismatch). */
#include <stdio.h>
#include <stddef.h>
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cudaProfiler.h>
#include <cudaProfilerTypedefs.h>
#include <cuda_runtime_api.h>
#include <cuda_profiler_api.h>

extern const long long sim_abi_ours[];

#define VT_CU(ret, name, base, ver, variant, params, args)                                         \
    _Static_assert(__builtin_types_compatible_p(PFN_##base##_v##ver##variant, ret(*) params),      \
                   #name " differs from PFN_" #base "_v" #ver #variant);
#include "sim_driver.def"
#undef VT_CU

#define VT_RT(ret, name, decl, params, args)                                                       \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&decl), ret(*) params),                 \
                   #name " differs from " #decl " in cuda_runtime_api.h");
#include "sim_runtime.def"
#undef VT_RT

#define SIM_ATTR(number, name, value)                                                              \
    _Static_assert(CU_DEVICE_ATTRIBUTE_##name == number, "CU_DEVICE_ATTRIBUTE_" #name);
#include "sim_attributes.def"
#undef SIM_ATTR

#define SIM_DEVICE_PROP struct cudaDeviceProp /* sim_cuda.h mirrors it whole */

static const long long toolkit[] = {
#define VT_ABI_CONST(name)        (long long)(name),
#define VT_ABI_SIZE(type)         (long long)sizeof(type),
#define VT_ABI_FIELD(type, field) (long long)offsetof(type, field),
#include "sim_abi_check.def"
#undef VT_ABI_CONST
#undef VT_ABI_SIZE
#undef VT_ABI_FIELD
};

static const char *const row_names[] = {
#define VT_ABI_CONST(name)        #name,
#define VT_ABI_SIZE(type)         "sizeof(" #type ")",
#define VT_ABI_FIELD(type, field) "offsetof(" #type ", " #field ")",
#include "sim_abi_check.def"
#undef VT_ABI_CONST
#undef VT_ABI_SIZE
#undef VT_ABI_FIELD
};

int main(void)
{
    size_t n_rows = sizeof row_names / sizeof row_names[0], n_bad = 0;
    for (size_t i = 0; i < n_rows; i++) {
        if (sim_abi_ours[i] != toolkit[i]) {
            printf("mismatch: %s is %lld in sim_cuda.h, %lld in the toolkit\n", row_names[i],
                   sim_abi_ours[i], toolkit[i]);
            n_bad++;
        }
    }
    printf("%zu rows compared, %zu mismatches\n", n_rows, n_bad);
    return n_bad ? 1 : 0;
}

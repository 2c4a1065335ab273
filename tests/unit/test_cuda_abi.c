/* SPDX-License-Identifier: MIT */
/* Checks src/vt_cuda.h against the CUDA toolkit's own headers. This half includes only the
 * toolkit: every function row of cuda_driver.def must have exactly the type of the toolkit's
 * PFN_<base>_v<version><variant> typedef, every runtime row the type of the declared function
 * (both checked at compile time), and every constant and struct offset of cuda_abi_check.def must
 * equal what vt_cuda.h says (cuda_abi_ours.c, compared at run time, one line per mismatch). */
#include <stdio.h>
#include <stddef.h>
/* The toolkit's own switch for "no name-mapping macros, declare every ABI version": it makes
 * cuda.h leave cuGetProcAddress (the 4-argument export) alone and cudaTypedefs.h declare the
 * older PFN typedefs too (PFN_cuIpcOpenMemHandle_v4010, …). */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include "cuda_abi_check.h"

#define VT_CU(ret, name, base, ver, variant, params, args)                                         \
    _Static_assert(__builtin_types_compatible_p(PFN_##base##_v##ver##variant, ret(*) params),      \
                   #name " differs from PFN_" #base "_v" #ver #variant);
#include "cuda_driver.def"
#undef VT_CU

/* cudaGetDriverEntryPoint is deprecated in 13.0 but still exported; its type is still checked. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define VT_RT(ret, name, decl, params, args)                                                       \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&decl), ret(*) params),                 \
                   #name " differs from " #decl " in cuda_runtime_api.h");
#include "cuda_runtime.def"
#undef VT_RT

const long long vt_abi_toolkit[] = {
#define VT_ABI_CONST(name)        (long long)(name),
#define VT_ABI_SIZE(type)         (long long)sizeof(type),
#define VT_ABI_FIELD(type, field) (long long)offsetof(type, field),
#include "cuda_abi_check.def"
#undef VT_ABI_CONST
#undef VT_ABI_SIZE
#undef VT_ABI_FIELD
};

static const char *const row_names[] = {
#define VT_ABI_CONST(name)        #name,
#define VT_ABI_SIZE(type)         "sizeof(" #type ")",
#define VT_ABI_FIELD(type, field) "offsetof(" #type ", " #field ")",
#include "cuda_abi_check.def"
#undef VT_ABI_CONST
#undef VT_ABI_SIZE
#undef VT_ABI_FIELD
};

int main(void)
{
    size_t n_rows = sizeof row_names / sizeof row_names[0];
    size_t n_bad = 0;
    for (size_t i = 0; i < n_rows; i++) {
        if (vt_abi_ours[i] != vt_abi_toolkit[i]) {
            printf("mismatch: %s is %lld in vt_cuda.h, %lld in the toolkit\n", row_names[i],
                   vt_abi_ours[i], vt_abi_toolkit[i]);
            n_bad++;
        }
    }
    printf("%zu rows compared, %zu mismatches\n", n_rows, n_bad);
    return n_bad ? 1 : 0;
}

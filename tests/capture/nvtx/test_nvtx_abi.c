/* SPDX-License-Identifier: MIT */
/* Checks src/vt_nvtx.h against the toolkit's NVTX v3 headers: every constant, size and offset of
 * nvtx_abi_check.def must equal what vt_nvtx.h says (nvtx_abi_ours.c, compared at run time, one
 * line per mismatch), and the entry point and callback-table types must be the toolkit's
 * (checked at compile time). Built only when the toolkit is present. */
#include <stddef.h>
#include <stdio.h>
#include <nvtx3/nvToolsExt.h>

extern const long long vt_nvtx_abi_ours[];

/* The function types vramtrace relies on, spelled as vt_nvtx.h spells them. */
_Static_assert(__builtin_types_compatible_p(NvtxGetExportTableFunc_t, const void *(*)(uint32_t)),
               "NvtxGetExportTableFunc_t");
_Static_assert(__builtin_types_compatible_p(NvtxInitializeInjectionNvtxFunc_t,
                                            int (*)(NvtxGetExportTableFunc_t)),
               "NvtxInitializeInjectionNvtxFunc_t");
_Static_assert(__builtin_types_compatible_p(NvtxFunctionTable, void (***)(void)),
               "NvtxFunctionTable");
_Static_assert(__builtin_types_compatible_p(
                   __typeof__(((NvtxExportTableCallbacks *)0)->GetModuleFunctionTable),
                   int (*)(NvtxCallbackModule, NvtxFunctionTable *, unsigned int *)),
               "NvtxExportTableCallbacks.GetModuleFunctionTable");
/* The handler types src/nvtx.c installs. */
_Static_assert(__builtin_types_compatible_p(nvtxRangePushA_impl_fntype, int (*)(const char *)),
               "RangePushA");
_Static_assert(__builtin_types_compatible_p(nvtxRangePushW_impl_fntype, int (*)(const wchar_t *)),
               "RangePushW");
_Static_assert(__builtin_types_compatible_p(nvtxRangePushEx_impl_fntype,
                                            int (*)(const nvtxEventAttributes_t *)),
               "RangePushEx");
_Static_assert(__builtin_types_compatible_p(nvtxRangePop_impl_fntype, int (*)(void)), "RangePop");
_Static_assert(__builtin_types_compatible_p(nvtxRangeStartA_impl_fntype,
                                            nvtxRangeId_t (*)(const char *)),
               "RangeStartA");
_Static_assert(__builtin_types_compatible_p(nvtxRangeEnd_impl_fntype, void (*)(nvtxRangeId_t)),
               "RangeEnd");
_Static_assert(__builtin_types_compatible_p(nvtxMarkA_impl_fntype, void (*)(const char *)),
               "MarkA");
_Static_assert(__builtin_types_compatible_p(nvtxDomainRangePushEx_impl_fntype,
                                            int (*)(nvtxDomainHandle_t,
                                                    const nvtxEventAttributes_t *)),
               "DomainRangePushEx");
_Static_assert(__builtin_types_compatible_p(nvtxDomainRangePop_impl_fntype,
                                            int (*)(nvtxDomainHandle_t)),
               "DomainRangePop");
_Static_assert(__builtin_types_compatible_p(nvtxDomainCreateA_impl_fntype,
                                            nvtxDomainHandle_t (*)(const char *)),
               "DomainCreateA");
_Static_assert(__builtin_types_compatible_p(nvtxDomainRegisterStringA_impl_fntype,
                                            nvtxStringHandle_t (*)(nvtxDomainHandle_t,
                                                                   const char *)),
               "DomainRegisterStringA");

static const long long toolkit[] = {
#define VT_ABI_CONST(name)        (long long)(name),
#define VT_ABI_SIZE(type)         (long long)sizeof(type),
#define VT_ABI_FIELD(type, field) (long long)offsetof(type, field),
#include "nvtx_abi_check.def"
#undef VT_ABI_CONST
#undef VT_ABI_SIZE
#undef VT_ABI_FIELD
};

static const char *const row_names[] = {
#define VT_ABI_CONST(name)        #name,
#define VT_ABI_SIZE(type)         "sizeof(" #type ")",
#define VT_ABI_FIELD(type, field) "offsetof(" #type ", " #field ")",
#include "nvtx_abi_check.def"
#undef VT_ABI_CONST
#undef VT_ABI_SIZE
#undef VT_ABI_FIELD
};

int main(void)
{
    size_t n_rows = sizeof row_names / sizeof row_names[0];
    size_t n_bad = 0;
    for (size_t i = 0; i < n_rows; i++) {
        if (vt_nvtx_abi_ours[i] != toolkit[i]) {
            printf("mismatch: %s is %lld in vt_nvtx.h, %lld in the toolkit\n", row_names[i],
                   vt_nvtx_abi_ours[i], toolkit[i]);
            n_bad++;
        }
    }
    printf("%zu rows compared, %zu mismatches\n", n_rows, n_bad);
    return n_bad ? 1 : 0;
}

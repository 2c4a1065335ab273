/* SPDX-License-Identifier: MIT */
/* API ids' names, from hooks.def: the base every layer may name a call with. */
#include "vt_internal.h"

/* The name of an API id: the hooked entry point's export name. */
const char *vt_api_name(vt_api_t api)
{
    static const char *const names[VT_API_COUNT] = {
        "none",
#define VT_HOOK_CU(name, base, ver, variant) #name,
#define VT_HOOK_RT(name)                     #name,
#define VT_REAL_CU(name)
#include "hooks.def"
#undef VT_HOOK_CU
#undef VT_HOOK_RT
#undef VT_REAL_CU
    };
    return api < VT_API_COUNT ? names[api] : "unknown";
}

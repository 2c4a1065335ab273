/* SPDX-License-Identifier: MIT */
/* The exported entry points of libvramtrace.so, and nothing else: thin shims over the core
 * (heaptrack_preload.cpp). For now that is the annotation API of include/vramtrace.h plus the
 * constructor and destructor; the CUDA shims arrive with hooks.def. Every export must also be
 * listed in exports.map and tests/exports.expected. */
#define VRAMTRACE_BUILDING_LIBRARY 1
#include "vramtrace.h"
#include "vt_internal.h"

/* Another DSO's constructor may reach a shim first; vt_ensure_init copes, this only makes the
 * common case (init before main) cheap and deterministic. */
__attribute__((constructor)) static void vt_preload_ctor(void)
{
    vt_ensure_init();
}

__attribute__((destructor)) static void vt_preload_dtor(void)
{
    vt_in_hook = 1; /* whatever the exit path calls from here on is not ours to record */
    vt_shutdown();
}

VT_EXPORT void vramtrace_mark(const char *label)
{
    vt_ensure_init();
    if (vt_is_on())
        vt_mark(label);
}

VT_EXPORT void vramtrace_pause(void)
{
    vt_ensure_init();
    if (vt_is_on())
        vt_set_paused(true);
}

VT_EXPORT void vramtrace_resume(void)
{
    vt_ensure_init();
    if (vt_is_on())
        vt_set_paused(false);
}

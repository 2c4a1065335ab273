/* SPDX-License-Identifier: MIT */
/* The process-wide capture state every layer reads: the state word init moves (init.c), the
 * pause and CUDA-used flags (the per-thread guard is guard.c's). Everything here is AS-safe. */
#include "vt_internal.h"

/* Read by the inline fast paths in vt_internal.h (__atomic builtins on plain objects, so the
 * header needs no <stdatomic.h>); written by init.c and here. */
int vt_state_word VT_HOT_DATA = VT_STATE_UNINIT;
bool vt_paused_word;
bool vt_cuda_used_word;
int vt_callsites_word = VT_CALLSITES_NONE;

vt_state_t vt_state(void)
{
    return (vt_state_t)__atomic_load_n(&vt_state_word, __ATOMIC_ACQUIRE);
}

/* vt_shutdown: final; shims forward without recording from now on, CUDA tears down after us
 * (hook rule 12); vt_preload_dtor writes the summary and closes the trace after it. AS-safe. */
void vt_shutdown(void)
{
    __atomic_store_n(&vt_state_word, VT_STATE_OFF, __ATOMIC_RELEASE);
}

/* vt_set_paused: vramtrace_pause/resume. Not nested: one resume undoes any number of pauses,
 * like cudaProfilerStart/Stop. While paused, the shims record no new allocations (frees are
 * still seen, so memory allocated before the pause leaves the books). AS-safe. */
void vt_set_paused(bool paused)
{
    __atomic_store_n(&vt_paused_word, paused, __ATOMIC_RELAXED);
    vt_log(2, "%s", paused ? "paused" : "resumed");
}

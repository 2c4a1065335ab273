/* SPDX-License-Identifier: MIT */
/* The process-wide capture state every layer reads: the state word init moves (init.c), the
 * pause and CUDA-used flags, the per-thread reentrancy guard and saved cancellation state, and
 * the count of calls dropped inside vramtrace's own work. Everything here is AS-safe. */
#include "vt_internal.h"

#include <stdatomic.h>

__thread int vt_in_hook __attribute__((tls_model("initial-exec")));
__thread int vt_cancel_saved __attribute__((tls_model("initial-exec")));
static atomic_ulong vt_n_dropped_nested_;

void vt_note_dropped(void)
{
    atomic_fetch_add_explicit(&vt_n_dropped_nested_, 1, memory_order_relaxed);
}

unsigned long vt_n_dropped_nested(void)
{
    return atomic_load_explicit(&vt_n_dropped_nested_, memory_order_relaxed);
}

/* Read by the inline fast paths in vt_internal.h (__atomic builtins on plain objects, so the
 * header needs no <stdatomic.h>); written by init.c and here. */
int vt_state_word = VT_STATE_UNINIT;
bool vt_paused_word;
bool vt_cuda_used_word;

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

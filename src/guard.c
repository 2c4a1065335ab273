/* SPDX-License-Identifier: MIT */
/* The per-thread reentrancy guard and saved cancellation state (vt_internal.h), and the count of
 * calls dropped inside vramtrace's own work. A file of its own below log.c, whose write holds
 * cancellation (vt_cancel_hold), and state.c, which logs. Everything here is AS-safe. */
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

/* SPDX-License-Identifier: MIT */
/* Init: the lazy UNINIT -> INITING -> ON / OFF transitions every shim goes through (hook rule 4,
 * docs/design.md; the state itself is state.c's), the log level, the first CUDA use and the
 * fork-child reset. Init may run inside any hook, before our constructor and in a fork child, so
 * nothing here allocates or uses stdio or getenv; the only non-AS-safe calls are pthread_atfork
 * and setenv (vt_nvtx_init), each made once. */
#include "vt_internal.h"

#include <errno.h>
#include <pthread.h>
#include <sys/auxv.h>
#include <unistd.h>

static bool vt_atfork_registered; /* written only by the thread that holds INITING */

/* The pid of a process whose constructor left init to its first hook (vt_init_at_load); 0 when
 * init ran at load. No fork handler is registered until init, so a first init in another pid is
 * that of a fork child whose parent had not initialised. */
static pid_t deferred_in_pid VT_HOT_DATA;

/* vt_init_decide: the state init settles in. A secure-execution process (setuid, setgid, file
 * capabilities: AT_SECURE) stays OFF, because its environment belongs to a less privileged
 * caller and a trace file would be written with the raised privileges; VRAMTRACE_DISABLE
 * likewise. Pure, so tests can cover the AT_SECURE branch without a setuid binary. */
vt_state_t vt_init_decide(bool secure, bool disabled)
{
    return secure || disabled ? VT_STATE_OFF : VT_STATE_ON;
}

/* Fork (hook rule 11): the table lock is taken across fork so the child never inherits it
 * mid-update; the child then forgets the parent's allocations and starts over. */
static void atfork_prepare(void)
{
    vt_track_fork_prepare();
}

static void atfork_parent(void)
{
    vt_track_fork_parent();
}

/* A child forked by a signal handler inside vramtrace's own work goes on with that work when
 * the handler returns: it records nothing more (OFF), and keeps the state as it was. */
static void atfork_child(void)
{
    if (vt_track_after_fork_child()) {
        vt_reset_after_fork();
        return;
    }
    __atomic_store_n(&vt_cuda_used_word, false, __ATOMIC_RELAXED);
    vt_shutdown();
}

/* Runs once per process (and once more in each traced fork child) in the thread that won the
 * UNINIT -> INITING transition. Returns the state to settle in. */
static vt_state_t init_once(void)
{
    bool secure = getauxval(AT_SECURE) != 0;
    vt_warn_hold(); /* the settings' warnings wait for the process's first CUDA use */
    /* In a secure process we do not even read the environment: no warnings on its behalf. */
    if (!secure && !vt_options_parsed())
        vt_options_parse(environ);
    vt_log_set_level(vt_option_is_enabled(VT_OPTION_QUIET), (int)vt_option_get(VT_OPTION_VERBOSE));
    vt_state_t next = vt_init_decide(secure, !secure && vt_option_is_enabled(VT_OPTION_DISABLE));
    /* VRAMTRACE_FOLLOW_FORK=0 holds for the child of a parent that had not initialised as it
     * does through the fork handler (vt_reset_after_fork) for the child of one that had. */
    if (deferred_in_pid && getpid() != deferred_in_pid &&
        !vt_option_is_enabled(VT_OPTION_FOLLOW_FORK))
        return VT_STATE_OFF;
    if (next == VT_STATE_OFF) {
        vt_log(1, "disabled by %s", secure ? "secure execution (AT_SECURE)" : "VRAMTRACE_DISABLE");
        return next;
    }
    /* pthread_atfork registrations survive fork, so the child does not register again. */
    if (!vt_atfork_registered) {
        int rc = pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
        if (rc == 0)
            vt_atfork_registered = true;
        else
            vt_warn_later("cannot register fork handlers (error %d): fork children share the trace",
                          rc);
    }
    /* Once per process (the fork child inherits it). */
    static bool nvtx_ready;
    if (!nvtx_ready) {
        vt_nvtx_init();
        nvtx_ready = true;
    }
    vt_log(1, "enabled in pid %d, output '%s'", (int)getpid(), vt_option_get_str(VT_OPTION_OUTPUT));
    return VT_STATE_ON;
}

/* vt_ensure_init_slow: vt_ensure_init (vt_internal.h) when the state is neither ON nor OFF:
 * makes sure init has run. Callable from any shim at any time, including before our
 * constructor (another DSO's constructor may call CUDA first) and re-entrantly from init
 * itself. A thread that finds another thread INITING does not wait: it sees "not on" and
 * forwards unrecorded, because waiting could deadlock on the loader lock that init's callees
 * (dlsym) may take. AS-safe apart from the first call. */
void vt_ensure_init_slow(void)
{
    int s = __atomic_load_n(&vt_state_word, __ATOMIC_ACQUIRE);
    if (s == VT_STATE_ON || s == VT_STATE_OFF)
        return;
    int expected = VT_STATE_UNINIT;
    if (s != VT_STATE_UNINIT ||
        !__atomic_compare_exchange_n(&vt_state_word, &expected, VT_STATE_INITING, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return;
    int saved_errno = errno;
    int saved_in_hook = vt_in_hook;
    vt_in_hook = VT_HOOK_CALLING; /* calls made by init itself are never recorded */
    /* Init reads files and may warn: cancellation points, never to act inside it. */
    int cancel_state = 0;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    vt_state_t next = init_once();
    pthread_setcancelstate(cancel_state, &cancel_state);
    vt_in_hook = saved_in_hook;
    errno = saved_errno;
    /* A CAS, not a store: if vt_shutdown ran meanwhile, OFF wins. */
    expected = VT_STATE_INITING;
    __atomic_compare_exchange_n(&vt_state_word, &expected, (int)next, false, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
}

/* vt_init_at_load: the constructor's part. A process that has the CUDA driver or runtime loaded,
 * or an object that calls one of the shims' functions (cuda_loaded), initialises now, before
 * main, so that NVTX finds its variable set (vt_nvtx_init) before any call of the program's own.
 * Any other process (a shell, a compiler, Python before it imports a CUDA library) only reads its
 * settings, as they are when it starts, with their warnings held; the rest of init (the fork
 * handlers, NVTX, the log) waits for its first hook, which most such processes never reach.
 * Under INITING like init itself: a thread started by an earlier constructor may be in a hook. */
void vt_init_at_load(bool cuda_loaded)
{
    if (cuda_loaded) {
        vt_ensure_init();
        return;
    }
    int expected = VT_STATE_UNINIT;
    if (!__atomic_compare_exchange_n(&vt_state_word, &expected, VT_STATE_INITING, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return; /* init ran already, or runs in another thread */
    int saved_errno = errno;
    if (getauxval(AT_SECURE) == 0 && !vt_options_parsed()) {
        vt_warn_hold();
        vt_options_parse(environ);
    }
    deferred_in_pid = getpid();
    errno = saved_errno;
    expected = VT_STATE_INITING; /* OFF wins, as in vt_ensure_init_slow */
    __atomic_compare_exchange_n(&vt_state_word, &expected, VT_STATE_UNINIT, false, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
}

/* vt_cuda_first_use: vt_note_cuda_used's first time in this process (again in a fork child):
 * the process records, so the warnings held since init are written and NVTX is pointed at us
 * if init left it (vt_nvtx_cuda_used). Cancellation is off: both make system calls. */
void vt_cuda_first_use(void)
{
    if (__atomic_exchange_n(&vt_cuda_used_word, true, __ATOMIC_RELAXED))
        return; /* another thread was first */
    int cancel_state = 0;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    vt_warn_release();
    vt_nvtx_cuda_used();
    pthread_setcancelstate(cancel_state, &cancel_state);
}

/* vt_reset_after_fork: the pthread_atfork child handler (single-threaded context). A traced
 * child starts over lazily: UNINIT, so its first hook re-inits (keeping the parsed options)
 * and, later, opens its own trace file. With VRAMTRACE_FOLLOW_FORK=0 the child goes OFF. A
 * child forked while another thread was INITING also starts over: that thread is gone. */
void vt_reset_after_fork(void)
{
    __atomic_store_n(&vt_cuda_used_word, false, __ATOMIC_RELAXED);
    if (__atomic_load_n(&vt_callsites_word, __ATOMIC_RELAXED) == VT_CALLSITES_MAKING)
        __atomic_store_n(&vt_callsites_word, VT_CALLSITES_NONE, __ATOMIC_RELAXED);
    if (__atomic_load_n(&vt_state_word, __ATOMIC_RELAXED) == VT_STATE_OFF)
        return;
    vt_state_t next = vt_option_is_enabled(VT_OPTION_FOLLOW_FORK) ? VT_STATE_UNINIT : VT_STATE_OFF;
    __atomic_store_n(&vt_state_word, (int)next, __ATOMIC_RELEASE);
}

/* SPDX-License-Identifier: MIT */
/* The init state machine without LD_PRELOAD: the AT_SECURE / VRAMTRACE_DISABLE decision,
 * lazy idempotent init, the fork-child reset through the real pthread_atfork handler (with and
 * without VRAMTRACE_FOLLOW_FORK), shutdown to OFF, and the annotation state. States that
 * cannot be left (OFF) are checked in forked children. The call-site setup left to the first
 * call-site (not made by init, not waited for while another thread makes it, made again by a
 * child forked mid-way), and a thread's capture buffers handed to the next thread when it exits. */
#include "vt_internal.h"
#include "unit_util.h"

#include <errno.h>
#include <pthread.h>
#include <sys/wait.h>

/* Runs fn in a child process and checks that all of its VT_CHECKs passed. */
static void in_child(const char *name, void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        fn();
        fflush(NULL);
        _exit(vt_test_n_failed ? 1 : 0);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    VT_CHECK(name, WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void disabled_child(void)
{
    vt_options_parse((char *[]){"VRAMTRACE_DISABLE=1", "VRAMTRACE_VERBOSE=1", NULL});
    char out[256];
    vt_capture_begin();
    vt_ensure_init();
    vt_capture_end(out, sizeof(out));
    VT_CHECK_EQ("disabled is OFF", vt_state(), VT_STATE_OFF);
    VT_CHECK_STR("disabled says why", out, "vramtrace: disabled by VRAMTRACE_DISABLE\n");
    vt_reset_after_fork();
    VT_CHECK_EQ("OFF survives fork", vt_state(), VT_STATE_OFF);
}

static void forked_follow_child(void)
{
    /* The parent was ON; the atfork handler registered by init reset us to start over. */
    VT_CHECK_EQ("child starts over", vt_state(), VT_STATE_UNINIT);
    vt_ensure_init();
    VT_CHECK_EQ("child re-inits", vt_state(), VT_STATE_ON);
    VT_CHECK_EQ("child keeps options", vt_option_get(VT_OPTION_DEPTH), 7);
}

static void forked_nofollow_child(void)
{
    VT_CHECK_EQ("FOLLOW_FORK=0 child is OFF", vt_state(), VT_STATE_OFF);
    vt_ensure_init();
    VT_CHECK_EQ("and stays OFF", vt_state(), VT_STATE_OFF);
}

static void forked_while_making_child(void)
{
    VT_CHECK_EQ("a child forked mid-way starts the setup over", vt_callsites_word,
                VT_CALLSITES_NONE);
    VT_CHECK("and makes it itself", vt_callsites_ready());
    VT_CHECK_EQ("ready", vt_callsites_word, VT_CALLSITES_READY);
}

/* Each thread's first capture buffer, and whether it had captured before (a buffer handed on
 * must not say so). */
static vt_frames_t *thread_frames[2];
static uint64_t thread_fast_before[2];
static void *thread_found[2]; /* what the buffer held when the thread got it */
static char marker;

static void *take_frames(void *arg)
{
    int k = (int)(intptr_t)arg;
    vt_frames_t *f = vt_thread_frames();
    thread_frames[k] = f;
    thread_fast_before[k] = vt_unwind_fast_count();
    thread_found[k] = vt_frames_ips(f)[0];
    void *ips[8];
    vt_unwind(ips, 8);
    vt_frames_ips(f)[0] = &marker; /* a new mapping would be zeroes */
    return NULL;
}

static void callsites(void)
{
    VT_CHECK_EQ("init leaves the call-site setup", vt_callsites_word, VT_CALLSITES_NONE);
    /* Another thread making it: a call-site is taken without a stack and without the rules. */
    vt_callsites_word = VT_CALLSITES_MAKING;
    VT_CHECK("not ready while another thread makes it", !vt_callsites_ready());
    vt_callsite_t cs = {.stack_id = 7, .category = 3};
    vt_callsite_take(&cs, VT_API_cudaMalloc);
    VT_CHECK("no stack meanwhile", cs.stack_id == 0 && cs.category == VT_CAT_UNKNOWN);
    in_child("fork child while making", forked_while_making_child);
    vt_callsites_word = VT_CALLSITES_NONE;
    VT_CHECK("the first call-site makes it", vt_callsites_ready());
    VT_CHECK_EQ("ready", vt_callsites_word, VT_CALLSITES_READY);
    VT_CHECK("once", vt_callsites_ready());

    /* Threads one after the other: the second gets the first's buffer, as new. */
    for (int k = 0; k < 2; k++) {
        pthread_t tid;
        VT_CHECK("thread", pthread_create(&tid, NULL, take_frames, (void *)(intptr_t)k) == 0);
        pthread_join(tid, NULL);
    }
    VT_CHECK("a buffer", thread_frames[0] != NULL);
    VT_CHECK("handed to the next thread",
             thread_frames[1] == thread_frames[0] && thread_found[1] == &marker);
    VT_CHECK_EQ("with its count reset", thread_fast_before[1], 0);
}

int main(void)
{
    VT_CHECK_EQ("decide", vt_init_decide(false, false), VT_STATE_ON);
    VT_CHECK_EQ("decide secure", vt_init_decide(true, false), VT_STATE_OFF);
    VT_CHECK_EQ("decide disabled", vt_init_decide(false, true), VT_STATE_OFF);
    VT_CHECK_EQ("decide both", vt_init_decide(true, true), VT_STATE_OFF);

    VT_CHECK_EQ("starts UNINIT", vt_state(), VT_STATE_UNINIT);
    VT_CHECK("not on before init", !vt_is_on());
    in_child("disabled", disabled_child);

    /* Options parsed by the caller are kept; init reads environ only when nobody did. */
    vt_options_parse((char *[]){"VRAMTRACE_DEPTH=7", NULL});
    errno = ENOENT;
    vt_ensure_init();
    VT_CHECK_EQ("ON", vt_state(), VT_STATE_ON);
    VT_CHECK("is on", vt_is_on());
    VT_CHECK_EQ("errno kept", errno, ENOENT);
    VT_CHECK_EQ("guard released", vt_in_hook, 0);
    VT_CHECK_EQ("options kept", vt_option_get(VT_OPTION_DEPTH), 7);
    vt_ensure_init();
    VT_CHECK_EQ("idempotent", vt_state(), VT_STATE_ON);
    callsites();

    VT_CHECK("not paused", !vt_is_paused());
    vt_set_paused(true);
    vt_set_paused(true);
    VT_CHECK("paused", vt_is_paused());
    vt_set_paused(false);
    VT_CHECK("one resume undoes two pauses", !vt_is_paused());
    vt_mark("a");
    vt_mark(NULL);
    VT_CHECK_EQ("marks counted", vt_n_marks(), 2);

    in_child("fork child re-inits", forked_follow_child);
    vt_options_parse((char *[]){"VRAMTRACE_FOLLOW_FORK=0", NULL});
    in_child("fork child without FOLLOW_FORK", forked_nofollow_child);
    VT_CHECK_EQ("parent stays ON", vt_state(), VT_STATE_ON);

    vt_shutdown();
    VT_CHECK_EQ("shutdown is OFF", vt_state(), VT_STATE_OFF);
    vt_ensure_init();
    VT_CHECK("OFF is final", !vt_is_on());
    return vt_test_done();
}

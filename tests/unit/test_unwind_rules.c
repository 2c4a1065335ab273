/* SPDX-License-Identifier: MIT */
/* The unwind rule cache against libunwind: random call chains through functions of varied
 * frame shapes (unwind_shapes.c: alloca, a frame larger than a page, callee-saved registers,
 * varargs, recursion, a struct by value, a realigned stack), each compiled -O0 and -O2, with and
 * without frame pointers; at the end of each chain vt_unwind_raw and unw_backtrace capture the
 * same stack, which must be the same frames; every other chain captures on the thread's capture
 * stack (vt_run_capture), whose trampoline frame leads back onto the thread's own. A chain without a realigned frame must be answered
 * by the rules the second time (the first fills them); chains from a second thread, and from a
 * signal handler (libunwind's alone), too. VT_TEST_SEED=N runs another seed. */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "unwind_shapes.h"
#include "vt_internal.h"
#include "vt_test.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_STEPS = 48, CAPTURE_FRAMES = 256, CHAINS = 400 };

static const shape_fn *const variants[4] = {shapes_o0_fp, shapes_o0_nofp, shapes_o2_fp,
                                            shapes_o2_nofp};

typedef struct result_s {
    int compared;   /* captures compared */
    int differed;   /* ... whose frames differed */
    int fast;       /* second captures answered by the rules */
    int fast_ought; /* ... of chains the rules should answer */
} result_t;

static __thread result_t *tls_result;
static __thread bool tls_expect_fast;
static unsigned seed_used;

static void show(const char *what, void *const *a, int na, void *const *b, int nb)
{
    fprintf(stderr, "seed %u: %s: unw_backtrace %d frames, vt_unwind_raw %d\n", seed_used, what, na,
            nb);
    for (int i = 0; i < na || i < nb; i++)
        fprintf(stderr, "  %3d %18p %18p\n", i, i < na ? a[i] : NULL, i < nb ? b[i] : NULL);
}

/* Both captures from here: unw_backtrace's first frame is this function's return address at
 * its call; vt_unwind_raw's first two are inside unwind.c, then this function's at its call. */
__attribute__((noinline)) static void compare_here(bool second)
{
    static __thread void *a[CAPTURE_FRAMES], *b[CAPTURE_FRAMES + 2];
    int na = unw_backtrace(a, CAPTURE_FRAMES);
    uint64_t fast_before = vt_unwind_fast_count();
    int nb = vt_unwind_raw(b, CAPTURE_FRAMES + 2);
    bool fast = vt_unwind_fast_count() > fast_before;
    result_t *r = tls_result;
    r->compared++;
    bool same = nb == na + 2 && na < CAPTURE_FRAMES;
    for (int i = 1; same && i < na; i++)
        same = a[i] == b[i + 2];
    if (!same) {
        r->differed++;
        show(fast ? "differ (rules)" : "differ (libunwind)", a, na, b, nb);
    }
    if (second && tls_expect_fast) {
        r->fast_ought++;
        r->fast += fast;
    }
}

static volatile sig_atomic_t in_handler_capture;

static void on_signal(int sig)
{
    (void)sig;
    compare_here(false);
    compare_here(false);
    in_handler_capture = 1;
}

static __thread bool tls_second, tls_raise, tls_switch;

static void compare_cb(void *second)
{
    compare_here(*(bool *)second);
}

int shapes_next(const step_t *path, int i)
{
    const step_t *next = &path[i + 1];
    if (next->variant < 0) {
        if (tls_raise)
            raise(SIGUSR1);
        else if (tls_switch) /* on the capture stack, as the library captures */
            vt_run_capture(vt_thread_frames(), compare_cb, &tls_second);
        else
            compare_here(tls_second);
        return 0;
    }
    int r = variants[next->variant][next->shape](path, i + 1);
    __asm__ volatile("" : : : "memory");
    return r;
}

static int run_path(const step_t *path)
{
    return variants[path[0].variant][path[0].shape](path, 0);
}

static void random_path(unsigned *state, step_t *path)
{
    int n = 1 + (int)(rand_r(state) % (MAX_STEPS - 1));
    int shapes = rand_r(state) % 4 == 0 ? SHAPES : SHAPE_REALIGN; /* a realigned frame in 1/4 */
    for (int i = 0; i < n; i++) {
        path[i].variant = (int)(rand_r(state) % 4);
        path[i].shape = (int)(rand_r(state) % (unsigned)shapes);
        path[i].arg = (int)(rand_r(state) % 1000);
    }
    path[n].variant = -1;
}

static bool has_realign(const step_t *path)
{
    for (int i = 0; path[i].variant >= 0; i++)
        if (path[i].shape == SHAPE_REALIGN)
            return true;
    return false;
}

/* CHAINS random chains from seed, each captured twice. */
static void run_chains(unsigned seed, result_t *r)
{
    tls_result = r;
    unsigned state = seed;
    step_t path[MAX_STEPS + 1];
    for (int c = 0; c < CHAINS; c++) {
        random_path(&state, path);
        tls_expect_fast = !has_realign(path);
        tls_switch = c % 2 == 1;
        tls_second = false;
        run_path(path);
        tls_second = true;
        run_path(path);
    }
}

static unsigned thread_seed;
static result_t thread_result;

static void *thread_main(void *arg)
{
    (void)arg;
    run_chains(thread_seed, &thread_result);
    return NULL;
}

int main(void)
{
    /* No vt_unwind_init: the test executable would count as the library itself. */
    const char *env = getenv("VT_TEST_SEED");
    unsigned seed = env ? (unsigned)strtoul(env, NULL, 10) : 0x9e3779b9u;
    seed_used = seed;

    result_t main_result = {0};
    run_chains(seed, &main_result);
    VT_CHECK_EQ("main thread: every capture the same", main_result.differed, 0);
    VT_CHECK("main thread: captures compared", main_result.compared == 2 * CHAINS);
    VT_CHECK_EQ("main thread: the rules answered every chain without a realigned frame",
                main_result.fast, main_result.fast_ought);
    VT_CHECK("main thread: such chains", main_result.fast_ought > CHAINS / 2);
    printf("seed %u: %d captures compared, %d of %d chains without a realigned frame answered by "
           "the rules\n",
           seed, main_result.compared, main_result.fast, main_result.fast_ought);

    thread_seed = seed + 1;
    pthread_t t;
    VT_CHECK("thread started", pthread_create(&t, NULL, thread_main, NULL) == 0);
    pthread_join(t, NULL);
    VT_CHECK_EQ("second thread: every capture the same", thread_result.differed, 0);
    VT_CHECK_EQ("second thread: the rules answered", thread_result.fast, thread_result.fast_ought);
    VT_CHECK("second thread: such chains", thread_result.fast_ought > CHAINS / 2);

    /* From a signal handler: the signal frame is libunwind's, and the captures still agree. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGUSR1, &sa, NULL);
    result_t signal_result = {0};
    tls_result = &signal_result;
    tls_raise = true;
    unsigned state = seed + 2;
    step_t path[MAX_STEPS + 1];
    for (int c = 0; c < 20; c++) {
        random_path(&state, path);
        run_path(path);
    }
    tls_raise = false;
    VT_CHECK("signal handler ran", in_handler_capture == 1);
    VT_CHECK_EQ("signal handler: every capture the same", signal_result.differed, 0);
    VT_CHECK_EQ("signal handler: captures compared", signal_result.compared, 40);
    return vt_test_done();
}

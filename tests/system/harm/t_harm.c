/* SPDX-License-Identifier: MIT */
/* Programs that a careful user might write and that vramtrace must not harm: harm.sh runs each
 * case untraced and traced on the simulated device and requires the same output, the same exit
 * status and the same files of the program's own, then checks the traces.
 *   t_harm fd-reuse|fd-dup2|fd-closefrom
 *                        one allocation (the trace is open), then the trace's descriptor number
 *                        becomes the program's: closed and a file opened on it, dup2'ed onto,
 *                        or everything from 3 closed and files opened up to it; 1 MiB written to
 *                        user.dat through it, 150 000 pairs (past a trace chunk), a normal exit;
 *                        user.dat must be whole
 *   t_harm alloc N       N allocations of 4 KiB, freed
 *   t_harm exec K        one allocation, then exec of itself with K - 1 (same pid) while K > 0
 *   t_harm cancel        a thread with a deferred cancel pending makes the process's first
 *                        allocation (no cancellation point of its own), then reaches a
 *                        cancellation point; the main thread then allocates and forks
 *   t_harm signal-alloc|signal-mark|signal-nvtx
 *                        a SIGUSR1 handler that forks and allocates, run synchronously inside
 *                        vramtrace's own work while it holds its lock: the program defines
 *                        gethostname, which the writer calls as it opens the trace, and raises
 *                        the signal there. The trace is opened by the first allocation, by
 *                        vramtrace_mark (found with dlsym) or by an NVTX push, each after a
 *                        CUDA call that records nothing (cuMemAddressReserve). The program
 *                        calls gethostname itself too, so the handler runs untraced as well.
 *   t_harm stack-used [opened]
 *                        measures the stack a thread's first allocation takes (a painted 1 MiB
 *                        stack); with "opened" the main thread opens the trace first
 *   t_harm stack-64k|stack-altstack ROOM
 *                        the main thread allocates, then a thread with a 64 KiB stack makes its
 *                        first allocation with only ROOM bytes of stack left, or from a signal
 *                        handler on an alternate signal stack of ROOM bytes
 * Every line printed is the same traced and untraced (stack-used excepted). */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_test.h"
#ifdef VT_TEST_NVTX3
#    include <nvtx3/nvToolsExt.h>
#endif

#define USER_BYTES (1 << 20)

static int pairs(long n, size_t bytes)
{
    int failed = 0;
    for (long i = 0; i < n; i++) {
        CUdeviceptr p;
        if (cuMemAlloc_v2(&p, bytes) != CUDA_SUCCESS || cuMemFree_v2(p) != CUDA_SUCCESS)
            failed++;
    }
    return failed;
}

/* The trace's descriptor, found by its name; untraced (none), a number as high as the library's
 * would be, so both runs do the same. */
static int trace_fd(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int found = -1;
    while (d && (e = readdir(d)) && found < 0) {
        char link[300], target[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n > 4 && memcmp(target + n - 4, ".vtr", 4) == 0)
            found = atoi(e->d_name);
    }
    if (d)
        closedir(d);
    return found >= 0 ? found : 100;
}

/* Opens user.dat until it lands on fd; the others are closed again. */
static int open_on(int fd)
{
    int got, opened[1024], n = 0;
    while ((got = open("user.dat", O_RDWR | O_CREAT | O_TRUNC, 0644)) >= 0 && got != fd && n < 1024)
        opened[n++] = got;
    for (int i = 0; i < n; i++)
        close(opened[i]);
    return got;
}

static int fd_case(const char *how)
{
    CUdeviceptr first;
    if (cuMemAlloc_v2(&first, 4096) != CUDA_SUCCESS)
        return 1;
    int fd = trace_fd(), got = -1;
    if (strcmp(how, "fd-reuse") == 0) {
        close(fd);
        got = open_on(fd);
    } else if (strcmp(how, "fd-dup2") == 0) {
        int u = open("user.dat", O_RDWR | O_CREAT | O_TRUNC, 0644);
        got = u >= 0 ? dup2(u, fd) : -1;
        close(u);
    } else {
        for (int i = 3; i < 4096; i++) /* closefrom(3), portable to older glibc */
            close(i);
        got = open_on(fd);
    }
    printf("user.dat on the trace's number: %s\n", got == fd ? "yes" : "no");
    static char data[USER_BYTES];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (char)('a' + i % 26);
    ssize_t written = write(fd, data, sizeof data);
    printf("wrote %zd bytes\n", written);
    printf("pairs failed: %d\n", pairs(150000, 4096));
    cuMemFree_v2(first);
    return 0;
}

/* ---- cancellation ------------------------------------------------------------------------- */

static atomic_int cancel_step;
static CUcontext cancel_ctx;
static CUresult thread_rc = CUDA_ERROR_UNKNOWN;
static CUdeviceptr thread_ptr;

/* Not instrumented: ASan does not unpoison the frames a cancellation unwinds, and reports the
 * thread's teardown writing there (untraced as well). */
__attribute__((no_sanitize("address"))) static void *cancelled_thread(void *arg)
{
    (void)arg;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    cuCtxSetCurrent(cancel_ctx);
    atomic_store(&cancel_step, 1);
    while (atomic_load(&cancel_step) != 2) /* the cancel is sent meanwhile */
        ;
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL); /* deferred: pending, not acted on */
    thread_rc = cuMemAlloc_v2(&thread_ptr, 1 << 20);
    atomic_store(&cancel_step, 3);
    pthread_testcancel();
    return NULL;
}

static int cancel_case(void)
{
    cuCtxGetCurrent(&cancel_ctx);
    pthread_t t;
    pthread_create(&t, NULL, cancelled_thread, NULL);
    while (atomic_load(&cancel_step) != 1)
        ;
    pthread_cancel(t);
    atomic_store(&cancel_step, 2);
    void *result = NULL;
    pthread_join(t, &result);
    printf("thread: alloc %d, got to the end of the call: %s, cancelled: %s\n", (int)thread_rc,
           atomic_load(&cancel_step) == 3 ? "yes" : "no",
           result == PTHREAD_CANCELED ? "yes" : "no");
    printf("main: free of the thread's allocation %d, pairs failed %d\n",
           (int)cuMemFree_v2(thread_ptr), pairs(10, 4096));
    pid_t child = fork();
    if (child == 0)
        _exit(pairs(1, 4096) ? 1 : 5);
    int status = 0;
    waitpid(child, &status, 0);
    printf("fork: child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}

/* ---- signal handlers inside vramtrace ------------------------------------------------------ */

static atomic_int handler_runs, handler_failures, handler_installed;

/* The writer asks for the host name as it opens the trace, with vt_lock held: the program's own
 * definition comes first in the lookup order, and raises the signal there. */
__attribute__((visibility("default"))) int gethostname(char *name, size_t len)
{
    if (atomic_load(&handler_installed))
        raise(SIGUSR1);
    struct utsname u;
    if (uname(&u) != 0)
        return -1;
    snprintf(name, len, "%s", u.nodename);
    return 0;
}

static void on_usr1(int sig)
{
    (void)sig;
    atomic_fetch_add(&handler_runs, 1);
    pid_t child = fork();
    if (child == 0)
        _exit(7);
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 7)
        atomic_fetch_add(&handler_failures, 1);
    if (pairs(1, 8192))
        atomic_fetch_add(&handler_failures, 1);
#ifdef VT_TEST_NVTX3
    nvtxRangePushA("in the handler");
    nvtxRangePop();
#endif
}

static int signal_case(const char *how)
{
    struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    atomic_store(&handler_installed, 1);
    CUdeviceptr reserved = 0;
    if (strcmp(how, "signal-alloc") != 0)
        printf("reserve: %d\n", (int)cuMemAddressReserve(&reserved, 2 << 20, 0, 0, 0));
    if (strcmp(how, "signal-mark") == 0) {
        void (*mark)(const char *) = (void (*)(const char *))dlsym(RTLD_DEFAULT, "vramtrace_mark");
        if (mark)
            mark("before the first allocation");
    } else if (strcmp(how, "signal-nvtx") == 0) {
#ifdef VT_TEST_NVTX3
        nvtxRangePushA("phase");
#endif
    }
    printf("pairs failed: %d\n", pairs(3, 4096));
#ifdef VT_TEST_NVTX3
    if (strcmp(how, "signal-nvtx") == 0)
        nvtxRangePop();
#endif
    char host[256];
    gethostname(host, sizeof host);
    if (reserved)
        cuMemAddressFree(reserved, 2 << 20);
    pid_t child = fork();
    if (child == 0)
        _exit(pairs(1, 4096) ? 1 : 5);
    int status = 0;
    waitpid(child, &status, 0);
    printf("fork after: child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    printf("handler ran: %s, failures: %d\n", atomic_load(&handler_runs) ? "yes" : "no",
           atomic_load(&handler_failures));
    return 0;
}

/* ---- stack ---------------------------------------------------------------------------------- */

#define PAINT 0xa5

static CUcontext stack_ctx;
static CUresult stack_rc = CUDA_ERROR_UNKNOWN;

static uintptr_t stack_at_call; /* first_call's frame */

static void *first_call(void *arg)
{
    (void)arg;
    volatile char here = 0;
    stack_at_call = (uintptr_t)&here;
    cuCtxSetCurrent(stack_ctx);
    CUdeviceptr p;
    stack_rc = cuMemAlloc_v2(&p, 4096);
    if (stack_rc == CUDA_SUCCESS)
        cuMemFree_v2(p);
    return NULL;
}

/* Runs first_call on a thread whose stack of stack_bytes is painted; returns the bytes of it
 * the call used (from first_call's frame down to the deepest byte changed), or -1. */
static long stack_used(size_t stack_bytes)
{
    unsigned char *stack = mmap(NULL, stack_bytes, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        return -1;
    memset(stack, PAINT, stack_bytes);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, stack, stack_bytes);
    pthread_t t;
    long used = -1;
    if (pthread_create(&t, &attr, first_call, NULL) == 0 && pthread_join(t, NULL) == 0) {
        size_t i = 0;
        while (i < stack_bytes && stack[i] == PAINT)
            i++;
        used = (long)(stack_at_call - (uintptr_t)(stack + i));
    }
    pthread_attr_destroy(&attr);
    munmap(stack, stack_bytes);
    return used;
}

/* A 64 KiB thread that has used all but `room` bytes of its stack makes its first CUDA call. */
static size_t stack_room;

__attribute__((noinline)) static void call_with_room(void)
{
    char here;
    uintptr_t lo = 0;
    pthread_attr_t attr;
    void *addr = NULL;
    size_t size = 0;
    pthread_getattr_np(pthread_self(), &attr);
    pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    lo = (uintptr_t)addr;
    size_t pad = (uintptr_t)&here - lo > stack_room + 512 ? (uintptr_t)&here - lo - stack_room : 0;
    volatile char *p = __builtin_alloca(pad);
    p[0] = 0;
    first_call(NULL);
    __asm__ volatile("" ::"r"(p) : "memory");
}

static void *small_thread(void *arg)
{
    (void)arg;
    call_with_room();
    return NULL;
}

/* The same on an alternate signal stack of `room` bytes: a handler makes the thread's first call. */
static void on_usr2(int sig)
{
    (void)sig;
    first_call(NULL);
}

static void *altstack_thread(void *arg)
{
    (void)arg;
    /* A guard page below it, so that overflowing it faults. */
    char *base = mmap(NULL, stack_room + 4096, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    mprotect(base, 4096, PROT_NONE);
    stack_t ss = {.ss_sp = base + 4096, .ss_size = stack_room};
    sigaltstack(&ss, NULL);
    struct sigaction sa = {.sa_handler = on_usr2, .sa_flags = SA_ONSTACK};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR2, &sa, NULL);
    raise(SIGUSR2);
    return NULL;
}

static int small_stack_case(const char *how, size_t room)
{
    cuCtxGetCurrent(&stack_ctx);
    pairs(1, 4096); /* the trace is opened by the main thread */
    stack_room = room;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 << 10);
    pthread_t t;
    pthread_create(&t, &attr, strcmp(how, "stack-64k") == 0 ? small_thread : altstack_thread, NULL);
    pthread_join(t, NULL);
    printf("%s: alloc %d\n", how, (int)stack_rc);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (sim_test_context(0) != CUDA_SUCCESS)
        return 3;
    const char *c = argv[1];
    if (strncmp(c, "fd-", 3) == 0)
        return fd_case(c);
    if (strcmp(c, "stack-used") == 0) { /* measurement: differs traced and untraced */
        cuCtxGetCurrent(&stack_ctx);
        if (argc > 2) /* "opened": the trace opened first, by the main thread */
            pairs(1, 4096);
        long used = stack_used(1 << 20);
        printf("first call on a thread: %ld bytes of stack (alloc %d)\n", used, (int)stack_rc);
        return used < 0;
    }
    if ((strcmp(c, "stack-64k") == 0 || strcmp(c, "stack-altstack") == 0) && argc > 2)
        return small_stack_case(c, (size_t)atol(argv[2]));
    if (strcmp(c, "cancel") == 0)
        return cancel_case();
    if (strncmp(c, "signal-", 7) == 0)
        return signal_case(c);
    if (strcmp(c, "alloc") == 0 && argc > 2) {
        printf("alloc: %d failed\n", pairs(atol(argv[2]), 4096));
        return 0;
    }
    if (strcmp(c, "exec") == 0 && argc > 2) {
        int k = atoi(argv[2]);
        printf("image %d: %d failed\n", k, pairs(1, 4096));
        if (k > 0) {
            char next[16];
            snprintf(next, sizeof next, "%d", k - 1);
            execl("/proc/self/exe", argv[0], "exec", next, (char *)NULL);
            perror("exec");
            return 4;
        }
        return 0;
    }
    return 2;
}

/* SPDX-License-Identifier: MIT */
/* fork before the process has loaded CUDA: the parent is not linked with the driver and forks
 * first, as Python forks its workers before (or without) importing a CUDA library; libvramtrace.so
 * has then not initialised (a process without CUDA at load leaves init to its first hook) and
 * registered no fork handler. The child opens the driver and allocates, frees 64 KiB; then the
 * parent does the same with 1 MiB. Each reports its own (expected/fork.txt, the child first);
 * with VRAMTRACE_FOLLOW_FORK=0 the child records and prints nothing
 * (expected/fork_no_follow.txt), as the child of a parent that had initialised. */
#include <dlfcn.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sim_test.h"

/* The driver opened now, a primary context made current, and bytes allocated and freed, through
 * the driver's functions looked up with dlsym. True when every call succeeded. */
static bool allocate_and_free(size_t bytes)
{
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!driver)
        return false;
    __typeof__(&cuInit) init = (__typeof__(&cuInit))dlsym(driver, "cuInit");
    __typeof__(&cuDeviceGet) device_get = (__typeof__(&cuDeviceGet))dlsym(driver, "cuDeviceGet");
    __typeof__(&cuDevicePrimaryCtxRetain) retain =
        (__typeof__(&cuDevicePrimaryCtxRetain))dlsym(driver, "cuDevicePrimaryCtxRetain");
    __typeof__(&cuCtxSetCurrent) set_current =
        (__typeof__(&cuCtxSetCurrent))dlsym(driver, "cuCtxSetCurrent");
    __typeof__(&cuMemAlloc_v2) alloc = (__typeof__(&cuMemAlloc_v2))dlsym(driver, "cuMemAlloc_v2");
    __typeof__(&cuMemFree_v2) release = (__typeof__(&cuMemFree_v2))dlsym(driver, "cuMemFree_v2");
    if (!init || !device_get || !retain || !set_current || !alloc || !release)
        return false;
    CUdevice dev = 0;
    CUcontext ctx = NULL;
    CUdeviceptr p = 0;
    return init(0) == CUDA_SUCCESS && device_get(&dev, 0) == CUDA_SUCCESS &&
           retain(&ctx, dev) == CUDA_SUCCESS && set_current(ctx) == CUDA_SUCCESS &&
           alloc(&p, bytes) == CUDA_SUCCESS && release(p) == CUDA_SUCCESS;
}

int main(void)
{
    fflush(stdout);
    fflush(stderr);
    pid_t child = fork();
    if (child == 0)
        exit(allocate_and_free(64 << 10) ? 0 : 1); /* exit: the report comes from our destructor */
    int status = -1;
    waitpid(child, &status, 0);
    VT_CHECK("the child allocated and freed 64 KiB", WIFEXITED(status) && WEXITSTATUS(status) == 0);
    VT_CHECK("the parent allocated and freed 1 MiB", allocate_and_free(1 << 20));
    return vt_test_done();
}

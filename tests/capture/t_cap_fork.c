/* SPDX-License-Identifier: MIT */
/* fork with memory on both sides: the parent allocates A (1 MiB) and forks; the child
 * allocates B (64 KiB), frees it and exits normally (its destructor prints its report); then
 * the parent frees A. The child's report shows only B — never the inherited A, which is the
 * parent's memory — and the parent's only A (expected/fork.txt, the child's lines first since
 * the parent waits for it). With VRAMTRACE_FOLLOW_FORK=0 the child records and prints nothing
 * (expected/fork_no_follow.txt). A second child that never touches CUDA prints nothing either
 * way, as a DataLoader worker of a traced parent must not. */
#include <sys/wait.h>
#include <unistd.h>
#include "sim_test.h"

int main(void)
{
    VT_CHECK_EQ("context", sim_test_context(0), CUDA_SUCCESS);
    CUdeviceptr a = 0;
    VT_CHECK_EQ("parent allocates A", cuMemAlloc_v2(&a, 1 << 20), CUDA_SUCCESS);
    fflush(stdout);
    fflush(stderr);
    pid_t child = fork();
    if (child == 0) {
        CUdeviceptr b = 0;
        int ok = cuMemAlloc_v2(&b, 64 << 10) == CUDA_SUCCESS && cuMemFree_v2(b) == CUDA_SUCCESS;
        exit(ok ? 0 : 1); /* exit, not _exit: the child's report comes from our destructor */
    }
    int status = -1;
    waitpid(child, &status, 0);
    VT_CHECK("the child allocated and freed B", WIFEXITED(status) && WEXITSTATUS(status) == 0);
    child = fork();
    if (child == 0)
        exit(0);
    waitpid(child, &status, 0);
    VT_CHECK("the child without CUDA", WIFEXITED(status) && WEXITSTATUS(status) == 0);
    VT_CHECK_EQ("parent frees A", cuMemFree_v2(a), CUDA_SUCCESS);
    return vt_test_done();
}

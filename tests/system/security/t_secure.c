/* SPDX-License-Identifier: MIT */
/* A CUDA program for the security tests (docs/reliability.md), built twice: t_secure linked directly
 * against libvramtrace.so (DT_NEEDED, absolute RUNPATH: in an AT_SECURE process ld.so ignores
 * LD_PRELOAD paths, LD_LIBRARY_PATH and $ORIGIN) and the simulated libcuda.so.1, and
 * t_secure_plain without the library.
 *   t_secure[_plain]            allocations, one out-of-memory, frees; prints each result
 *   t_secure[_plain] probe      prints the process's identity and whether libvramtrace.so is
 *                               mapped (AT_SECURE, euid, ruid, loaded)
 *   t_secure[_plain] exec ARGV  one allocation, then a child that execs ARGV (the trace fd must
 *                               not be inherited: run it with `ls -l /proc/self/fd`) */
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sim_test.h"

static int find_vramtrace(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    if (strstr(info->dlpi_name, "libvramtrace"))
        *(int *)data = 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "probe") == 0) {
        int loaded = 0;
        dl_iterate_phdr(find_vramtrace, &loaded);
        printf("secure %lu euid %d ruid %d vramtrace %s\n", getauxval(AT_SECURE), (int)geteuid(),
               (int)getuid(), loaded ? "loaded" : "not loaded");
        return 0;
    }
    CUresult rc = sim_test_context(0);
    printf("context %d\n", (int)rc);
    if (rc != CUDA_SUCCESS)
        return 1;
    if (argc > 2 && strcmp(argv[1], "exec") == 0) {
        CUdeviceptr p;
        printf("alloc %d\n", (int)cuMemAlloc_v2(&p, 1 << 20));
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            execvp(argv[2], argv + 2);
            _exit(127);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        printf("child %d\n", status);
        return 0;
    }
    CUdeviceptr p[4] = {0};
    for (int i = 0; i < 3; i++) {
        rc = cuMemAlloc_v2(&p[i], (size_t)(i + 1) << 20);
        printf("alloc %d MiB: %d 0x%llx\n", i + 1, (int)rc, (unsigned long long)p[i]);
    }
    rc = cuMemAlloc_v2(&p[3], (size_t)1 << 40);
    printf("alloc 1 TiB: %d\n", (int)rc);
    for (int i = 0; i < 3; i++)
        printf("free: %d\n", (int)cuMemFree_v2(p[i]));
    return 7; /* a status of its own, compared too */
}

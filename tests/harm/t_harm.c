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
 * Every line printed is the same traced and untraced. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_test.h"

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

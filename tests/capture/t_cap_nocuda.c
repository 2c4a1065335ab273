/* SPDX-License-Identifier: MIT */
/* A program that never touches CUDA but does what every process under a traced parent does
 * (LD_PRELOAD reaches all of them: shells, compilers, nvidia-smi): dlopen and dlsym, fork, and
 * exec of a child through system(). With libvramtrace.so preloaded it must print exactly what
 * it prints without (passthru.sh silent: no summary, no line of ours on stderr). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
    void *m = dlopen("libm.so.6", RTLD_NOW);
    double (*cosine)(double) = m ? (double (*)(double))dlsym(m, "cos") : NULL;
    printf("cos(0) = %g\n", cosine ? cosine(0.0) : -1.0);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0)
        exit(3);
    int status = -1;
    waitpid(child, &status, 0);
    printf("forked child: %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    fflush(stdout);
    int rc = system("exit 5");
    printf("system(): %d\n", WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
    return 0;
}

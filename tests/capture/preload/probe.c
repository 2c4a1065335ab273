/* SPDX-License-Identifier: MIT */
/* An annotated program that does not link libvramtrace.so: run_preload.sh runs it with and
 * without LD_PRELOAD. It reports whether the API resolved and calls every macro; with "fork" it
 * also annotates from a fork child. Built twice: weak symbols, and VRAMTRACE_API_DLSYM. */
#include "vramtrace.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
#if defined(VRAMTRACE_API_DLSYM) && VRAMTRACE_API_DLSYM
    int present = dlsym(RTLD_DEFAULT, "vramtrace_mark") != NULL;
#else
    int present = vramtrace_mark != NULL;
#endif
    printf("api: %s\n", present ? "present" : "absent");
    fflush(stdout);
    VRAMTRACE_MARK("step 1");
    VRAMTRACE_PAUSE();
    VRAMTRACE_RESUME();
    if (argc > 1 && strcmp(argv[1], "fork") == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            VRAMTRACE_MARK("child");
            _exit(0);
        }
        int status = 1;
        if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
            return 1;
        VRAMTRACE_MARK("parent after fork");
    }
    return 0;
}

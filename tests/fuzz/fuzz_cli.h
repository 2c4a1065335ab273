/* SPDX-License-Identifier: MIT */
/* The vramtrace CLI inside a fuzz harness: its main called as a function, in a sandbox that
 * keeps every file it writes in one temporary directory. */
#ifndef VT_FUZZ_CLI_H
#define VT_FUZZ_CLI_H

/* fuzz_cli_run: `vramtrace ARGS` (argv[0] "vramtrace"), run in the sandbox: the first call makes
 * a temporary directory holding the fixtures (a.vtr: an ordinary trace, b.vtr: an extreme one
 * (extreme.h), d/: two ranks, r.rules, m.model), moves into it, and points stdin at /dev/null
 * and the stdio of stdout and stderr at /dev/null (sanitizer reports keep fd 2). A command line
 * that could reach outside the directory is refused without running: an argument holding '/'
 * or "..", or the command `run` (it executes programs). Whatever the run left beside the
 * fixtures is removed afterwards, and the directory at exit. VT_FUZZ_CLI_VERBOSE=1 in the
 * environment keeps stdout and stderr and says each exit status. Returns the exit status, or -1
 * when refused. */
int fuzz_cli_run(int argc, char **argv);

/* fuzz_cli_run_trusted: the same for a command line the harness wrote itself, whose paths
 * (a memfd's /proc path) may hold '/': not checked, still run in the sandbox. */
int fuzz_cli_run_trusted(int argc, char **argv);

/* fuzz_cli_dir: the sandbox's directory (made on the first call). */
const char *fuzz_cli_dir(void);
#endif

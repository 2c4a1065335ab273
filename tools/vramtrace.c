/* SPDX-License-Identifier: MIT */
/* The `vramtrace` command: the global options, then the command named (commands.h, git.c).
 * Exit statuses: the table in util.h; data on stdout, diagnostics on stderr, --help on stdout. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "util.h"

/* A failed write of the data we printed is an error, not a silent truncation (git's
 * check_write); a closed pipe (`vramtrace report | head`) is not worth a message. */
static int finish_stdout(int status)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (errno == EPIPE)
            return status;
        error("write failure on standard output: %s", strerror(errno));
        return status ? status : 1;
    }
    return status;
}

int main(int argc, char **argv)
{
    argc--, argv++;
    const char *memory_limit = NULL;
    /* Global options come before the command, as with git. */
    for (; argc > 0 && argv[0][0] == '-'; argc--, argv++) {
        const char *opt = argv[0];
        int i = 0, taken = vt_arg_value(argc, argv, &i, 0, "--memory-limit", "", &memory_limit);
        if (taken < 0)
            return EXIT_USAGE;
        if (taken) {
            argc -= i, argv += i;
            continue;
        }
        if (strcmp(opt, "--version") == 0)
            return finish_stdout(cmd_version(1, argv));
        if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0)
            return finish_stdout(cmd_help(1, argv));
        if (strcmp(opt, "--") == 0) {
            argc--, argv++;
            break;
        }
        error("unknown option '%s'. See 'vramtrace --help'.", opt);
        return EXIT_USAGE;
    }
    if (argc == 0) {
        vt_commands_usage(stderr);
        return EXIT_USAGE;
    }
    const vt_command_t *cmd = vt_command_find(argv[0]);
    if (!cmd)
        return vt_command_unknown(argv[0]);
    /* The analyzer's own memory is capped (a hostile trace must not take the machine's:
     * docs/reliability.md); `run` is not, since the limit would pass on to the traced program. */
    if (cmd->fn != cmd_run && vt_memory_limit(memory_limit) != 0)
        return EXIT_USAGE;
    return finish_stdout(cmd->fn(argc, argv));
}

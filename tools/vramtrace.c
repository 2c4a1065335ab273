/* SPDX-License-Identifier: MIT */
/* The `vramtrace` command: the global options, then the command named (commands.h, git.c).
 * Exit statuses: the table in util.h; data on stdout, diagnostics on stderr, --help on stdout. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "trace_reader.h"
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
    const char *memory_limit = NULL;
    vt_reader_catch_truncation();
    /* Global options come before the command, as with git. */
    vt_args_t args;
    vt_args_init(&args, &vt_global_spec, argc, argv);
    for (int opt; (opt = vt_args_next(&args)) != VT_ARG_DONE;) {
        if (opt == VT_ARG_ERROR)
            return EXIT_USAGE;
        if (opt == VT_ARG_HELP)
            return finish_stdout(cmd_help(1, argv));
        if (opt == VT_GLOBAL_VERSION)
            return finish_stdout(cmd_version(1, argv));
        if (opt == VT_GLOBAL_MEMORY_LIMIT)
            memory_limit = args.value;
        if (opt == VT_ARG_OPERAND) {
            args.next--; /* the command's name */
            break;
        }
    }
    argc -= args.next, argv += args.next;
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

/* SPDX-License-Identifier: MIT */
/* The command table of `vramtrace` (commands.h), its usage text, and the two commands that are
 * about the table itself: help and version. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "util.h"

static const vt_command_t commands[] = {
    {"run", cmd_run, "trace a command: run [-o FILE] -- CMD [ARGS]"},
    {"report", cmd_report, "peak, by category and call-site: report FILE [--json]"},
    {"oom", cmd_oom, "out-of-memory post-mortem: oom FILE"},
    {"leaks", cmd_leaks, "device memory never freed, by call-site: leaks FILE [--top N]"},
    {"timeline", cmd_timeline, "device memory over time: timeline FILE [--csv]"},
    {"check", cmd_check, "CI gate on the peaks: check FILE --max-peak SIZE"},
    {"export", cmd_export, "convert: export FILE --format perfetto|speedscope|folded|csv -o OUT"},
    {"html", cmd_html, "self-contained HTML report: html FILE [-o OUT] [--budget MODEL]"},
    {"budget", cmd_budget, "theoretical memory budget: budget [--model FILE] [KEY=VALUE...]"},
    {"rules", cmd_rules, "category rules: rules --defaults | --check FILE"},
    {"diff", cmd_diff, "what changed between two runs: diff A B [--json] [--top N]"},
    {"help", cmd_help, "show this help"},
    {"version", cmd_version, "print the version"},
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

void vt_commands_usage(FILE *out)
{
    fputs("usage: vramtrace [--version] [-h | --help] [--memory-limit SIZE] <command> [<args>]\n"
          "\n"
          "    --memory-limit SIZE  cap the analyzer's own memory at SIZE (512M, 4G; 'none':\n"
          "                         no cap); default: half the machine's memory\n"
          "\n"
          "Commands:\n",
          out);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "   %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("\n"
          "Capture without the launcher:\n"
          "   LD_PRELOAD=/path/to/libvramtrace.so VRAMTRACE_OUTPUT=FILE CMD [ARGS]\n"
          "\n"
          "Exit status: 0 fine, 1 unreadable or damaged input or another error, 2 usage error,\n"
          "3 'check' found a limit exceeded; 'run' exits with CMD's status.\n",
          out);
}

const vt_command_t *vt_command_find(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int vt_command_unknown(const char *name)
{
    error("'%s' is not a vramtrace command. See 'vramtrace --help'.", name);
    return EXIT_USAGE;
}

/* help [COMMAND]: the usage on stdout; a COMMAND must at least exist. */
int cmd_help(int argc, char **argv)
{
    if (argc > 2) {
        error("'help' takes at most one command");
        return EXIT_USAGE;
    }
    if (argc == 2 && !vt_command_find(argv[1]))
        return vt_command_unknown(argv[1]);
    vt_commands_usage(stdout);
    return 0;
}

int cmd_version(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        error("'version' takes no arguments");
        return EXIT_USAGE;
    }
    printf("vramtrace %s\n", VRAMTRACE_VERSION_STRING);
    return 0;
}

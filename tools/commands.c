/* SPDX-License-Identifier: MIT */
/* The command table of `vramtrace` (commands.h), its usage text, and the two commands that are
 * about the table itself: help and version. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "util.h"

static const vt_command_t commands[] = {
    {"run", cmd_run, "trace a command: run [-o FILE] -- CMD [ARGS]"},
    {"report", cmd_report, "peak, by category and call-site: report FILE [--json]"},
    {"oom", cmd_oom, "out-of-memory post-mortem: oom FILE"},
    {"leaks", cmd_leaks, "device memory never freed, by call-site: leaks FILE [--top N]"},
    {"timeline", cmd_timeline, "device memory over time: timeline FILE [--csv]"},
    {"top", cmd_top, "live view of a running job: top FILE|DIR|PID [--batch]"},
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

static void list_commands(FILE *out)
{
    fputs("Commands:\n", out);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "   %-10s %s\n", commands[i].name, commands[i].summary);
}

static const vt_option_t options[] = {
    {VT_GLOBAL_MEMORY_LIMIT, 0, "--memory-limit", "SIZE", 0,
     "cap the analyzer's own memory at SIZE ('none': no cap); default: half the machine's "
     "memory"},
    {VT_GLOBAL_VERSION, 0, "--version", NULL, 0, "print the version"},
    {0},
};

const vt_args_spec_t vt_global_spec = {
    .name = "",
    .usage = "usage: vramtrace [--version] [-h | --help] [--memory-limit SIZE] <command> "
             "[<args>]\n",
    .tables = {options},
    .list = list_commands,
    .after = "'vramtrace help COMMAND' or 'vramtrace COMMAND --help' shows a command's options.\n"
             "\n"
             "Capture without the launcher:\n"
             "    LD_PRELOAD=/path/to/libvramtrace.so VRAMTRACE_OUTPUT=FILE CMD [ARGS]\n"
             "\n" VT_ARGS_SIZE_HELP,
    .exit_status = "Exit status: 0 fine, 1 unreadable or damaged input or another error, 2 usage "
                   "error, 3 'check' found a limit exceeded; 'run' exits with CMD's status.",
    .options_first = 1,
};

void vt_commands_usage(FILE *out)
{
    vt_args_help(&vt_global_spec, out);
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

/* help [COMMAND]: the usage, or COMMAND's own help, on stdout. */
int cmd_help(int argc, char **argv)
{
    if (argc > 2) {
        error("'help' takes at most one command");
        return EXIT_USAGE;
    }
    if (argc == 1) {
        vt_commands_usage(stdout);
        return 0;
    }
    const vt_command_t *cmd = vt_command_find(argv[1]);
    if (!cmd)
        return vt_command_unknown(argv[1]);
    char *help_argv[] = {argv[1], "--help", NULL};
    return cmd->fn(2, help_argv);
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

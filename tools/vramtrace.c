/* SPDX-License-Identifier: MIT */
/* The `vramtrace` command: global options and the git-style command table (git.c). Each
 * command is `int cmd_<name>(int argc, char **argv)` in tools/cmd_<name>.c, called with argv[0]
 * the command name, returning the exit status (the table in util.h); data on stdout, diagnostics on stderr, --help on stdout. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "args.h"
#include "util.h"

typedef struct cmd_s {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} cmd_t;

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_budget(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_oom(int argc, char **argv);
int cmd_leaks(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_html(int argc, char **argv);

static const cmd_t commands[] = {
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

static void print_usage(FILE *out)
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

static const cmd_t *find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static int not_a_command(const char *name)
{
    error("'%s' is not a vramtrace command. See 'vramtrace --help'.", name);
    return EXIT_USAGE;
}

/* help [COMMAND]: the usage on stdout; a COMMAND must at least exist. */
static int cmd_help(int argc, char **argv)
{
    if (argc > 2) {
        error("'help' takes at most one command");
        return EXIT_USAGE;
    }
    if (argc == 2 && !find_command(argv[1]))
        return not_a_command(argv[1]);
    print_usage(stdout);
    return 0;
}

static int cmd_version(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        error("'version' takes no arguments");
        return EXIT_USAGE;
    }
    printf("vramtrace %s\n", VRAMTRACE_VERSION_STRING);
    return 0;
}

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
        print_usage(stderr);
        return EXIT_USAGE;
    }
    const cmd_t *cmd = find_command(argv[0]);
    if (!cmd)
        return not_a_command(argv[0]);
    /* The analyzer's own memory is capped (a hostile trace must not take the machine's:
     * docs/reliability.md); `run` is not, since the limit would pass on to the traced program. */
    if (cmd->fn != cmd_run && vt_memory_limit(memory_limit) != 0)
        return EXIT_USAGE;
    return finish_stdout(cmd->fn(argc, argv));
}

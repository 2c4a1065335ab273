/* SPDX-License-Identifier: MIT */
/* The commands of `vramtrace`, git-style (git's builtin.h). Each is
 * `int cmd_<name>(int argc, char **argv)` in tools/cmd_<name>.c, called with argv[0] the command
 * name and returning the exit status (0 ok, 1 error, 2 usage). A command file holds its
 * argument handling and its view; what two commands share lives in a file of its own.
 * To add a command: write tools/cmd_<name>.c, declare cmd_<name> below, give it a row in the
 * table of commands.c, list the file in tools/CMakeLists.txt, and add its golden tests under
 * tests/cli/<name>/. */
#ifndef VT_COMMANDS_H
#define VT_COMMANDS_H
#include <stdbool.h>
#include <stdio.h>

typedef struct vt_command_s {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary; /* one line of `vramtrace --help` */
} vt_command_t;

/* The command called name, or NULL. */
const vt_command_t *vt_command_find(const char *name);

/* "'NAME' is not a vramtrace command" on stderr; returns the usage exit status. */
int vt_command_unknown(const char *name);

/* The usage: the global options and one line per command. */
void vt_commands_usage(FILE *out);

/* vramtrace's own options, before the command (vramtrace.c). */
enum { VT_GLOBAL_MEMORY_LIMIT = 1, VT_GLOBAL_VERSION };
extern const struct vt_args_spec_s vt_global_spec;

int cmd_budget(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_html(int argc, char **argv);
int cmd_leaks(int argc, char **argv);
int cmd_oom(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_version(int argc, char **argv);

/* The text of `vramtrace oom FILE` into out, without a word on stderr (the page quotes it). */
int vt_oom_text(FILE *out, const char *path, bool all_frames);
#endif

/* SPDX-License-Identifier: MIT */
/* `vramtrace rules`: the category rules (docs/categories.md). `--defaults` prints the built-in rules
 * (a starting point for a file with `!defaults off`); `--check FILE` parses a rules file, names
 * the first bad line, and says whether the built-in rules follow it. The parser is the capture
 * library's own (common/rules.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "args.h"
#include "commands.h"
#include "util.h"
#include "vt_categories.h"

enum { OPT_DEFAULTS = 1, OPT_CHECK };

static const vt_option_t options[] = {
    {OPT_DEFAULTS, 0, "--defaults", NULL, 0, "print the built-in category rules"},
    {OPT_CHECK, 0, "--check", "FILE", 0, "check a rules file: exit 0, or name the bad line"},
    {0},
};

static const vt_args_spec_t spec = {
    .name = "rules",
    .usage = "usage: vramtrace rules --defaults\n"
             "   or: vramtrace rules --check FILE\n",
    .tables = {options},
};

static int check(const char *path)
{
    size_t len;
    char *text = vt_input_read(path, VT_INPUT_MAX_BYTES, &len);
    if (!text) {
        error("cannot read rules '%s': %s", path, vt_input_strerror(errno));
        return 1;
    }
    static vt_rules_t rules;
    char err[160];
    int bad_line = vt_rules_load(&rules, text, len, true, err, sizeof err);
    free(text);
    if (bad_line) {
        error("rules '%s' line %d: %s", path, bad_line, err);
        return 1;
    }
    int n_file = rules.n_rules - rules.n_builtin;
    if (rules.defaults_off)
        printf("%s: %d rules, without the built-in ones (!defaults off)\n", path, n_file);
    else
        printf("%s: %d rules, then the %d built-in ones\n", path, n_file, rules.n_builtin);
    return 0;
}

int cmd_rules(int argc, char **argv)
{
    vt_args_t args;
    vt_args_init(&args, &spec, argc, argv);
    const char *file = NULL;
    int defaults = 0, n = 0;
    for (int opt; (opt = vt_args_next(&args)) != VT_ARG_DONE; n++) {
        if (opt == VT_ARG_ERROR) {
            return vt_args_usage_error(&spec);
        } else if (opt == VT_ARG_HELP) {
            vt_args_help(&spec, stdout);
            return 0;
        } else if (opt == OPT_DEFAULTS) {
            defaults = 1;
        } else if (opt == OPT_CHECK) {
            file = args.value;
        }
    }
    if (n == 1 && defaults) {
        fputs(vt_default_rules, stdout);
        return 0;
    }
    if (n == 1 && file)
        return check(file);
    error("'rules' needs --defaults or --check FILE");
    return vt_args_usage_error(&spec);
}

/* SPDX-License-Identifier: MIT */
/* `vramtrace rules`: the category rules (docs/categories.md). `--defaults` prints the built-in rules
 * (a starting point for VRAMTRACE_RULES or `report --rules`); `--check FILE` parses a rules
 * file and names the first bad line. The parser is the capture library's own (src/rules.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "util.h"
#include "vt_categories.h"

static const char usage[] = "usage: vramtrace rules --defaults\n"
                            "   or: vramtrace rules --check FILE\n"
                            "\n"
                            "    --defaults     print the built-in category rules\n"
                            "    --check FILE   check a rules file: exit 0, or name the bad line\n"
                            "    -h, --help     show this help\n";

static int check(const char *path)
{
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        error("cannot read rules '%s': %s", path, strerror(errno));
        return 1;
    }
    static vt_rules_t rules;
    char err[160];
    int bad_line = vt_rules_parse(&rules, text, len, err, sizeof err);
    free(text);
    if (bad_line) {
        error("rules '%s' line %d: %s", path, bad_line, err);
        return 1;
    }
    printf("%s: %d rules\n", path, rules.n_rules);
    return 0;
}

int cmd_rules(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--defaults") == 0) {
        fputs(vt_default_rules, stdout);
        return 0;
    }
    int i = 1;
    const char *file;
    int taken = argc >= 2 ? vt_arg_value(argc, argv, &i, 0, "--check", "rules", &file) : 0;
    if (taken < 0)
        return EXIT_USAGE;
    if (taken && i == argc - 1)
        return check(file);
    if (argc >= 2 && argv[1][0] == '-' && !taken && strcmp(argv[1], "--defaults") != 0)
        error("unknown option '%s'", argv[1]);
    else
        error("'rules' needs --defaults or --check FILE");
    fputs(usage, stderr);
    return EXIT_USAGE;
}

/* SPDX-License-Identifier: MIT */
/* The commands' argument layer (args.h). */
#include "args.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int vt_arg_flag(const char *a, char short_name, const char *long_name)
{
    if (short_name && a[0] == '-' && a[1] == short_name && a[2] == '\0')
        return 1;
    return long_name && strcmp(a, long_name) == 0;
}

int vt_arg_value(int argc, char **argv, int *i, char short_name, const char *long_name,
                 const char *cmd, const char **value)
{
    const char *a = argv[*i], *v = NULL;
    char shown[3] = {'-', short_name, '\0'};
    size_t n = long_name ? strlen(long_name) : 0;
    int attached; /* the value is part of this argument: "--long=V" or "-sV" */
    if (long_name && strncmp(a, long_name, n) == 0 && (a[n] == '=' || a[n] == '\0')) {
        attached = a[n] == '=';
        v = attached ? a + n + 1 : NULL;
    } else if (short_name && a[0] == '-' && a[1] == short_name) {
        attached = a[2] != '\0';
        v = attached ? a + 2 : NULL;
    } else {
        return 0;
    }
    /* "--" ends the options ("run --rules -- CMD" lacks the value): it is never one. */
    if (!attached && *i + 1 < argc && strcmp(argv[*i + 1], "--") != 0)
        v = argv[++*i];
    if (!v || !*v) {
        error("'%s' needs a value. See 'vramtrace%s%s --help'.", long_name ? long_name : shown,
              *cmd ? " " : "", cmd);
        return -1;
    }
    *value = v;
    return 1;
}

int vt_arg_unknown(const char *a, const char *cmd)
{
    error("unknown option '%s'. See 'vramtrace %s --help'.", a, cmd);
    return EXIT_USAGE;
}

int vt_parse_count(const char *s, size_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > SIZE_MAX)
        return -1;
    *out = (size_t)v;
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* The one argument layer of the commands. A command walks its argv with these, so that every
 * option is spelled and checked the same way: a flag is "-s" or "--long"; an option with a
 * value is "--long VALUE", "--long=VALUE", "-s VALUE" or "-sVALUE" (the VALUE may start with
 * '-': "-o -" is stdout; "--" never is one). A missing or empty value is a usage error, reported here before the
 * command has read or written anything. Nothing here reads past argv[argc - 1]. */
#ifndef VT_TOOLS_ARGS_H
#define VT_TOOLS_ARGS_H

#include <stddef.h>

/* vt_arg_flag: whether a is the flag short_name (0: none) or long_name (NULL: none). */
int vt_arg_flag(const char *a, char short_name, const char *long_name);

/* vt_arg_value: when argv[*i] is the option short_name or long_name, its value in *value
 * (*i advanced past a value given as the next argument) and 1; 0 when argv[*i] is another
 * argument; -1 when the value is missing or empty: the message "'OPT' needs a value. See
 * 'vramtrace CMD --help'." is on stderr (CMD "": the global options) and the command exits EXIT_USAGE. */
int vt_arg_value(int argc, char **argv, int *i, char short_name, const char *long_name,
                 const char *cmd, const char **value);

/* vt_arg_unknown: the usage error of an option no command knows; returns EXIT_USAGE. */
int vt_arg_unknown(const char *a, const char *cmd);

/* vt_parse_count: a decimal count ("0".."SIZE_MAX", digits only) into *out; 0, or -1. */
int vt_parse_count(const char *s, size_t *out);

#endif

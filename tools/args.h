/* SPDX-License-Identifier: MIT */
/* The one argument layer of the commands. Each command states its options in a table
 * (vt_option_t): the parser reads argv with that table and --help is written from it, so no
 * option can be parsed without being in the help, nor shown without being parsed.
 *
 * Spelling, the same for every command: a flag is "-s" or "--long"; an option with a value is
 * "--long VALUE", "--long=VALUE", "-s VALUE" or "-sVALUE" (the VALUE may start with '-': "-o -"
 * is stdout; "--" never is one); an optional value only as "--long=VALUE". "-h" and "--help"
 * are every command's. A missing or empty value, a value given to a flag, or an unknown option
 * is a usage error, reported here before the command has read or written anything. "--" ends
 * the options. Nothing here reads past argv[argc - 1]. */
#ifndef VT_TOOLS_ARGS_H
#define VT_TOOLS_ARGS_H

#include <stddef.h>
#include <stdio.h>

/* One option: what the parser matches and what --help says of it. */
typedef struct vt_option_s {
    int id;                 /* > 0: what vt_args_next returns for it; 0 ends a table */
    char short_name;        /* 'o' for -o; 0: none */
    const char *long_name;  /* "--output"; NULL: none */
    const char *value_name; /* "OUT" when it takes a value; NULL: a flag */
    int value_optional;     /* the value only as --long=VALUE (--simulate[=SIZE]) */
    const char *help;       /* one paragraph; --help wraps it */
} vt_option_t;

#define VT_ARGS_MAX_TABLES 3

/* A command's arguments: its tables of options and the text --help puts around them. */
typedef struct vt_args_spec_s {
    const char *name;  /* "report"; "" for vramtrace's global options */
    const char *usage; /* the synopsis: "usage: vramtrace ...\n", maybe "   or: ...\n" lines */
    const char *about; /* the paragraphs between the synopsis and the options, or NULL */
    const vt_option_t *tables[VT_ARGS_MAX_TABLES]; /* each ended by a row of id 0 */
    void (*list)(FILE *out); /* writes a list after the options (the commands), or NULL */
    const char *after;       /* paragraphs after the options (examples, grammars), or NULL */
    const char *exit_status; /* the command's "Exit status: ..." paragraph; NULL: the common one */
    int options_first;       /* options stop at "--" (vt_args_next: VT_ARG_DONE) */
} vt_args_spec_t;

/* What vt_args_next returns besides an option's id. */
enum {
    VT_ARG_OPERAND = 0, /* an argument that is not an option: in value */
    VT_ARG_DONE = -1,   /* no more arguments (options_first: "--" read, or the end) */
    VT_ARG_ERROR = -2,  /* a usage error: the message is on stderr; exit EXIT_USAGE */
    VT_ARG_HELP = -3,   /* -h or --help: print vt_args_help on stdout, exit 0 */
};

typedef struct vt_args_s {
    const vt_args_spec_t *spec;
    int argc;
    char **argv;
    int next;          /* the index of the next argument to read */
    int operands_only; /* "--" was read */
    const char *arg;   /* the argument just read, as written */
    const char
        *value; /* its value (NULL: a flag, or an optional value not given), or the operand */
} vt_args_t;

/* vt_args_init: reads argv[1..argc-1] (argv[0] is the command's name) by spec. */
void vt_args_init(vt_args_t *a, const vt_args_spec_t *spec, int argc, char **argv);

/* vt_args_next: the next argument: an option's id (> 0), VT_ARG_OPERAND, VT_ARG_DONE,
 * VT_ARG_ERROR or VT_ARG_HELP. */
int vt_args_next(vt_args_t *a);

/* vt_args_help: the command's help: synopsis, about, every option of its tables and -h, the
 * text after them, and its exit statuses. */
void vt_args_help(const vt_args_spec_t *spec, FILE *out);

/* vt_args_usage_error: after a usage error's message, the synopsis's first line on stderr;
 * returns EXIT_USAGE. */
int vt_args_usage_error(const vt_args_spec_t *spec);

/* vt_args_paragraph: text wrapped at 79 columns, each line after the first indented by indent
 * columns (the first already sits there); ends with a newline. */
void vt_args_paragraph(FILE *out, const char *text, int indent);

/* vt_parse_count: a decimal count ("0".."SIZE_MAX", digits only) into *out; 0, or -1. */
int vt_parse_count(const char *s, size_t *out);

/* The help text of the size grammar (common/size.c), for every command that takes a SIZE. */
#define VT_ARGS_SIZE_HELP                                                                          \
    "SIZE is a byte count with an optional unit, in any case, fractions rounded down to the "      \
    "byte: 1000000, 512K, 512MiB, 1.5G, 16GiB, 4GB, 1T. K, M, G, T and KiB, MiB, GiB, TiB are "    \
    "powers of 1024; KB, MB, GB, TB powers of 1000."

/* The exit statuses every command shares (util.h); check adds 3. */
#define VT_ARGS_EXIT_HELP                                                                          \
    "Exit status: 0 fine, 1 unreadable or damaged input or another error, 2 usage error."
#endif

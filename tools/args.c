/* SPDX-License-Identifier: MIT */
/* The commands' argument layer (args.h). */
#include "args.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define HELP_WIDTH 79

static const vt_option_t help_option = {VT_ARG_HELP, 'h', "--help", NULL, 0, "show this help"};

void vt_args_init(vt_args_t *a, const vt_args_spec_t *spec, int argc, char **argv)
{
    memset(a, 0, sizeof(*a));
    a->spec = spec;
    a->argc = argc;
    a->argv = argv;
    a->next = 1;
}

/* "vramtrace report" as the messages name it; "vramtrace" for the global options. */
static void see_help(const vt_args_spec_t *spec)
{
    fprintf(stderr, "See 'vramtrace%s%s --help'.\n", *spec->name ? " " : "", spec->name);
}

static int usage_message(const vt_args_spec_t *spec, const char *fmt, const char *what)
{
    fputs("vramtrace: ", stderr);
    fprintf(stderr, fmt, what);
    fputc(' ', stderr);
    see_help(spec);
    return VT_ARG_ERROR;
}

/* The option spelled name (its first n bytes: a long name before '='), or NULL. */
static const vt_option_t *find(const vt_args_spec_t *spec, const char *name, size_t n,
                               char short_name)
{
    if (short_name ? short_name == 'h' : n == 6 && strncmp(name, "--help", 6) == 0)
        return &help_option;
    for (int t = 0; t < VT_ARGS_MAX_TABLES && spec->tables[t]; t++)
        for (const vt_option_t *o = spec->tables[t]; o->id; o++) {
            if (short_name ? o->short_name == short_name
                           : o->long_name && strlen(o->long_name) == n &&
                                 strncmp(o->long_name, name, n) == 0)
                return o;
        }
    return NULL;
}

int vt_args_next(vt_args_t *a)
{
    if (a->next >= a->argc)
        return VT_ARG_DONE;
    const char *arg = a->argv[a->next++];
    a->arg = arg;
    a->value = NULL;
    if (a->operands_only || arg[0] != '-' || arg[1] == '\0') {
        a->value = arg;
        return VT_ARG_OPERAND;
    }
    if (strcmp(arg, "--") == 0) {
        a->operands_only = 1;
        return a->spec->options_first ? VT_ARG_DONE : vt_args_next(a);
    }
    const vt_option_t *o;
    const char *attached = NULL; /* the value inside this argument: "--long=V" or "-sV" */
    if (arg[1] == '-') {
        const char *eq = strchr(arg, '=');
        o = find(a->spec, arg, eq ? (size_t)(eq - arg) : strlen(arg), 0);
        if (o && eq)
            attached = eq + 1;
    } else {
        o = find(a->spec, arg, 0, arg[1]);
        if (o && arg[2])
            attached = arg + 2;
    }
    if (!o)
        return usage_message(a->spec, "unknown option '%s'.", arg);
    const char *shown = arg[1] == '-' ? o->long_name : (char[3]){'-', o->short_name, '\0'};
    if (!o->value_name) {
        if (attached)
            return usage_message(a->spec, "'%s' takes no value.", shown);
        return o->id;
    }
    if (attached) {
        a->value = attached;
    } else if (!o->value_optional && a->next < a->argc && strcmp(a->argv[a->next], "--") != 0) {
        a->value = a->argv[a->next++]; /* "--" ends the options: it is never a value */
    } else if (o->value_optional) {
        return o->id;
    }
    if (!a->value || !*a->value)
        return usage_message(a->spec, "'%s' needs a value.", shown);
    return o->id;
}

void vt_args_paragraph(FILE *out, const char *text, int indent)
{
    int column = indent;
    const char *p = text;
    while (*p) {
        if (*p == '\n') { /* a line break the text asks for */
            fprintf(out, "\n%*s", p[1] && p[1] != '\n' ? indent : 0, "");
            column = indent;
            p++;
            continue;
        }
        if (*p == ' ' && column == indent) { /* a line that starts with spaces is kept as is */
            size_t line = strcspn(p, "\n");
            fwrite(p, 1, line, out);
            column += (int)line;
            p += line;
            continue;
        }
        size_t word = strcspn(p, " \n");
        if (column > indent && column + 1 + (int)word > HELP_WIDTH) {
            fprintf(out, "\n%*s", indent, "");
            column = indent;
        } else if (column > indent) {
            fputc(' ', out);
            column++;
        }
        fwrite(p, 1, word, out);
        column += (int)word;
        p += word;
        while (*p == ' ')
            p++;
    }
    fputc('\n', out);
}

/* An option's left column: "-o, --output OUT", "--simulate[=SIZE]", "-q, --quiet". */
static void left_column(const vt_option_t *o, char *buf, size_t cap)
{
    int n = 0;
    if (o->short_name && o->long_name)
        n = snprintf(buf, cap, "-%c, %s", o->short_name, o->long_name);
    else if (o->short_name)
        n = snprintf(buf, cap, "-%c", o->short_name);
    else
        n = snprintf(buf, cap, "%s", o->long_name);
    if (o->value_name && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, o->value_optional ? "[=%s]" : " %s", o->value_name);
}

void vt_args_help(const vt_args_spec_t *spec, FILE *out)
{
    char left[64];
    const vt_option_t *rows[64];
    int n = 0, width = 0;
    for (int t = 0; t < VT_ARGS_MAX_TABLES && spec->tables[t]; t++)
        for (const vt_option_t *o = spec->tables[t]; o->id && n < 63; o++)
            rows[n++] = o;
    rows[n++] = &help_option;
    for (int k = 0; k < n; k++) {
        left_column(rows[k], left, sizeof(left));
        if ((int)strlen(left) > width)
            width = (int)strlen(left);
    }
    fputs(spec->usage, out);
    if (spec->about) {
        fputc('\n', out);
        vt_args_paragraph(out, spec->about, 0);
    }
    fputc('\n', out);
    for (int k = 0; k < n; k++) {
        left_column(rows[k], left, sizeof(left));
        fprintf(out, "    %-*s  ", width, left);
        vt_args_paragraph(out, rows[k]->help, 4 + width + 2);
    }
    if (spec->list) {
        fputc('\n', out);
        spec->list(out);
    }
    if (spec->after) {
        fputc('\n', out);
        vt_args_paragraph(out, spec->after, 0);
    }
    fputc('\n', out);
    vt_args_paragraph(out, spec->exit_status ? spec->exit_status : VT_ARGS_EXIT_HELP, 0);
}

int vt_args_usage_error(const vt_args_spec_t *spec)
{
    const char *nl = strchr(spec->usage, '\n');
    fprintf(stderr, "%.*s", nl ? (int)(nl - spec->usage + 1) : (int)strlen(spec->usage),
            spec->usage);
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

/* SPDX-License-Identifier: MIT */
/* The VRAMTRACE_* option table (mimalloc options.c), parsed once at init from an environ-style
 * array, never with getenv: init can run inside a hook, before libc finished starting, or in a
 * fork child. Strings are copied into fixed buffers, so nothing here allocates. */
#include "vt_internal.h"
#include "vt_size.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#define VT_OPT_STR_MAX 4096 /* PATH_MAX: the str options are paths */

typedef enum vt_opt_kind_e { VT_KIND_BOOL, VT_KIND_INT, VT_KIND_SIZE, VT_KIND_STR } vt_opt_kind_t;

typedef struct vt_option_desc_s {
    const char *name;
    vt_opt_kind_t kind;
    long long def;       /* default of bool/int/size */
    const char *def_str; /* default of str */
    long long min, max;  /* accepted range of int/size */
    long long value;
    char *str; /* str value: points at def_str or at the option's buffer */
    bool is_set;
} vt_option_desc_t;

static char vt_output_buf[VT_OPT_STR_MAX];
static char vt_rules_buf[VT_OPT_STR_MAX];

/* Order matches vt_option_t. Adding an option: a row here, an enum entry in vt_internal.h and
 * a line in the docs; unknown VRAMTRACE_* names warn, so a typo does not silently do nothing. */
static vt_option_desc_t vt_options[VT_OPTION_COUNT] = {
    [VT_OPTION_OUTPUT] = {"VRAMTRACE_OUTPUT", VT_KIND_STR, .def_str = "vramtrace"},
    [VT_OPTION_DISABLE] = {"VRAMTRACE_DISABLE", VT_KIND_BOOL, .def = 0, .max = 1},
    [VT_OPTION_QUIET] = {"VRAMTRACE_QUIET", VT_KIND_BOOL, .def = 0, .max = 1},
    [VT_OPTION_VERBOSE] = {"VRAMTRACE_VERBOSE", VT_KIND_INT, .def = 0, .max = INT_MAX},
    [VT_OPTION_DEPTH] = {"VRAMTRACE_DEPTH", VT_KIND_INT, .def = 64, .max = 256},
    [VT_OPTION_FOLLOW_FORK] = {"VRAMTRACE_FOLLOW_FORK", VT_KIND_BOOL, .def = 1, .max = 1},
    [VT_OPTION_RULES] = {"VRAMTRACE_RULES", VT_KIND_STR, .def_str = ""},
    [VT_OPTION_DEFAULT_RULES] = {"VRAMTRACE_DEFAULT_RULES", VT_KIND_BOOL, .def = 1, .max = 1},
    [VT_OPTION_MAX_SIZE] = {"VRAMTRACE_MAX_SIZE", VT_KIND_SIZE, .def = 0, .max = LLONG_MAX},
    [VT_OPTION_ALL_FRAMES] = {"VRAMTRACE_ALL_FRAMES", VT_KIND_BOOL, .def = 0, .max = 1},
};

static char *const vt_option_bufs[VT_OPTION_COUNT] = {
    [VT_OPTION_OUTPUT] = vt_output_buf,
    [VT_OPTION_RULES] = vt_rules_buf,
};

static bool vt_parsed VT_HOT_DATA; /* the constructor parses (vt_init_at_load) */
static int vt_n_invalid VT_HOT_DATA;

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool eq_nocase(const char *a, const char *b)
{
    while (*a && lower(*a) == lower(*b))
        a++, b++;
    return lower(*a) == lower(*b);
}

/* vt_parse_bool: 1/0, on/off, yes/no, true/false, any case. Returns 0, or -EINVAL. */
int vt_parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"1", "on", "yes", "true"};
    static const char *const no[] = {"0", "off", "no", "false"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (eq_nocase(s, yes[i]) || eq_nocase(s, no[i])) {
            *out = eq_nocase(s, yes[i]);
            return 0;
        }
    }
    return -EINVAL;
}

/* vt_parse_int: an optionally signed decimal, nothing else around it. Returns 0, -EINVAL when
 * it is not a number, or -ERANGE when it does not fit a long long. */
int vt_parse_int(const char *s, long long *out)
{
    bool negative = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    if (!*s)
        return -EINVAL;
    unsigned long long v = 0, limit = negative ? (unsigned long long)LLONG_MAX + 1 : LLONG_MAX;
    int err = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -EINVAL;
        unsigned d = (unsigned)(*s - '0');
        if (v > (limit - d) / 10)
            err = -ERANGE; /* keep scanning: "99999999999999999999x" is not a number */
        else
            v = v * 10 + d;
    }
    if (err)
        return err;
    *out = negative ? (long long)(0ULL - v) : (long long)v;
    return 0;
}

/* vt_parse_size: the one size grammar (vt_size.h), for the library's size variables. */
int vt_parse_size(const char *s, unsigned long long *out)
{
    uint64_t v;
    int rc = vt_size_parse(s, &v);
    if (rc == 0)
        *out = v;
    return rc;
}

/* Warnings are capped per parse (the library parses once per process), so a broken
 * environment cannot flood the host's stderr. rc is -EINVAL (then `what` says what the value
 * is not) or -ERANGE (then the message gives the accepted range). */
static void warn_invalid(const vt_option_desc_t *opt, const char *value, int rc, const char *what)
{
    if (++vt_n_invalid > VT_OPTIONS_MAX_WARNINGS)
        return;
    if (rc == -ERANGE)
        vt_warn_later("ignoring %s='%.64s': out of range %lld..%lld", opt->name, value, opt->min,
                      opt->max);
    else
        vt_warn_later("ignoring %s='%.64s': %s", opt->name, value, what);
}

/* A str option's buffer is left as it is: it is read only once the option is set. */
static void set_default(vt_option_desc_t *opt)
{
    opt->value = opt->def;
    opt->str = (char *)opt->def_str;
    opt->is_set = false;
}

/* Parses one present option; on an invalid value warns and keeps the default. */
static void parse_one(vt_option_desc_t *opt, vt_option_t id, const char *value)
{
    int rc = 0;
    long long v = 0;
    const char *what = "";
    switch (opt->kind) {
    case VT_KIND_BOOL: {
        bool b = false;
        rc = vt_parse_bool(value, &b);
        v = b;
        what = "not a boolean";
        break;
    }
    case VT_KIND_INT:
        rc = vt_parse_int(value, &v);
        what = "not a number";
        break;
    case VT_KIND_SIZE: {
        unsigned long long size = 0;
        rc = vt_parse_size(value, &size);
        if (!rc && size > (unsigned long long)LLONG_MAX)
            rc = -ERANGE;
        v = (long long)size;
        what = "not a size";
        break;
    }
    case VT_KIND_STR: {
        size_t len = strlen(value);
        char *buf = vt_option_bufs[id];
        if (len == 0 || len >= VT_OPT_STR_MAX || VT_NEVER(!buf)) {
            warn_invalid(opt, value, -EINVAL, len ? "too long" : "empty");
            return;
        }
        memcpy(buf, value, len + 1);
        opt->str = buf;
        opt->is_set = true;
        return;
    }
    }
    if (rc == 0 && (v < opt->min || v > opt->max))
        rc = -ERANGE;
    if (rc) {
        warn_invalid(opt, value, rc, what);
        return;
    }
    opt->value = v;
    opt->is_set = true;
}

/* vt_options_parse: resets every option to its default, then applies the VRAMTRACE_* entries
 * of envp (a NULL-terminated "NAME=value" array, normally environ). The first entry of a name
 * wins, as with getenv. Invalid values and unknown VRAMTRACE_* names warn (one line each, at
 * most VT_OPTIONS_MAX_WARNINGS per parse) and change nothing. Not thread-safe: init calls it
 * once, from the thread that won the INITING transition. AS-safe. */
void vt_options_parse(char *const *envp)
{
    static const char prefix[] = "VRAMTRACE_";
    bool seen[VT_OPTION_COUNT] = {false};
    vt_n_invalid = 0;
    for (int i = 0; i < VT_OPTION_COUNT; i++)
        set_default(&vt_options[i]);
    for (; envp && *envp; envp++) {
        const char *entry = *envp;
        if (strncmp(entry, prefix, sizeof(prefix) - 1) != 0)
            continue;
        const char *eq = strchr(entry, '=');
        if (!eq)
            continue;
        size_t name_len = (size_t)(eq - entry);
        int id = 0;
        for (; id < VT_OPTION_COUNT; id++) {
            const char *name = vt_options[id].name;
            if (strncmp(entry, name, name_len) == 0 && name[name_len] == '\0')
                break;
        }
        if (id == VT_OPTION_COUNT) {
            if (++vt_n_invalid <= VT_OPTIONS_MAX_WARNINGS)
                vt_warn_later("ignoring unknown option %.*s", (int)name_len, entry);
            continue;
        }
        if (seen[id])
            continue;
        seen[id] = true;
        parse_one(&vt_options[id], (vt_option_t)id, eq + 1);
    }
    vt_parsed = true;
}

bool vt_options_parsed(void)
{
    return vt_parsed;
}

int vt_options_n_invalid(void)
{
    return vt_n_invalid;
}

/* Getters work before any parse (they return the defaults), so logging from early init is safe. */
long long vt_option_get(vt_option_t opt)
{
    if (VT_NEVER((unsigned)opt >= VT_OPTION_COUNT))
        return 0;
    const vt_option_desc_t *o = &vt_options[opt];
    return vt_parsed ? o->value : o->def;
}

bool vt_option_is_enabled(vt_option_t opt)
{
    return vt_option_get(opt) != 0;
}

const char *vt_option_get_str(vt_option_t opt)
{
    if (VT_NEVER((unsigned)opt >= VT_OPTION_COUNT))
        return "";
    const vt_option_desc_t *o = &vt_options[opt];
    if (o->kind != VT_KIND_STR)
        return "";
    return vt_parsed && o->str ? o->str : o->def_str;
}

bool vt_option_is_set(vt_option_t opt)
{
    return (unsigned)opt < VT_OPTION_COUNT && vt_parsed && vt_options[opt].is_set;
}

const char *vt_option_name(vt_option_t opt)
{
    return (unsigned)opt < VT_OPTION_COUNT ? vt_options[opt].name : "";
}

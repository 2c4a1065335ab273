/* SPDX-License-Identifier: MIT */
/* vt-mktrace: writes a trace from a readable script, one record per line, with the trace
 * builder, so the golden CLI tests (tests/cli/report, tests/cli/oom) generate their fixtures
 * at test time instead of checking in binary files.
 *
 *   usage: vt-mktrace OUT.vtr [SCRIPT]        (the script on stdin without SCRIPT)
 *
 * Lines ('#' comments; "quoted strings" may hold spaces; sizes take K/M/G/T, binary):
 *   version MAJOR MINOR                  the preamble's version (first line; default 1 1)
 *   process t0=NS start=NS KEY=VALUE...  PROCESS (pid=, host=, exe=, cmdline=, RANK=, ...)
 *   device N NAME TOTAL                  DEVICE
 *   apis NAME...                         API_NAMES: api 0, 1, ... in order
 *   thread N OS_TID NAME                 THREAD
 *   stack LABEL FRAME...                 STACK nodes from the root: 0xIP or py:FILE:FUNC:LINE;
 *                                        LABEL then names the leaf in stack=LABEL
 *   module bias= lo= hi= path= [buildid=HEX]
 *   alloc dt= addr= size= [series=device|pinned|managed|imported] [cat=] [dev=] [api=]
 *         [stack=] [thread=] [handle=1]
 *   free dt= addr= [series=] [unmatched=1] [api=] [thread=] [handle=1]
 *   failed dt= api= size= [error=2] [stack=] [thread=]
 *   oom dt= dev= api= size= [stack=] [thread=] [free=] [total=] live=W,G,O,A,D,WS,U
 *   push dt= thread= NAME | pop dt= thread= | mark dt= thread= LABEL
 *   meminfo dt= dev= free= total=
 *   end dt= [allocs= frees= failed= unmatched= dropped=]   (counts default to what was written)
 *   skip | eod | ext type=N [body=HEX] | raw HEX | truncate N (write only the first N bytes) */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_builder.h"

#define MAX_TOKENS 64
#define MAX_LABELS 256

static int line_no;
static struct {
    char name[64];
    uint32_t id;
} labels[MAX_LABELS];
static int n_labels;

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "vt-mktrace: line %d: ", line_no);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* Splits line in place into tokens; "..." groups (the quotes are dropped). */
static int tokenize(char *line, char **tok)
{
    int n = 0;
    char *p = line, *out;
    while (*p) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p || *p == '#')
            break;
        if (n == MAX_TOKENS)
            die("too many tokens");
        tok[n++] = out = p;
        int quoted = 0;
        while (*p && (quoted || !isspace((unsigned char)*p))) {
            if (*p == '"')
                quoted = !quoted, p++;
            else
                *out++ = *p++;
        }
        if (*p)
            p++;
        *out = '\0';
    }
    return n;
}

static uint64_t number(const char *s)
{
    char *end;
    errno = 0;
    uint64_t v = strtoull(s, &end, 0);
    if (end == s || errno)
        die("bad number '%s'", s);
    int shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K':
        shift = 10;
        break;
    case 'M':
        shift = 20;
        break;
    case 'G':
        shift = 30;
        break;
    case 'T':
        shift = 40;
        break;
    case '\0':
        break;
    default:
        die("bad number '%s'", s);
    }
    if (shift && end[1])
        die("bad number '%s'", s);
    return v << shift;
}

/* The value of key= among tok[1..n), or def when absent (NULL def: required). */
static const char *opt(char **tok, int n, const char *key, const char *def)
{
    size_t k = strlen(key);
    for (int i = 1; i < n; i++)
        if (strncmp(tok[i], key, k) == 0 && tok[i][k] == '=')
            return tok[i] + k + 1;
    if (!def)
        die("'%s' needs %s=", tok[0], key);
    return def;
}

static uint64_t num(char **tok, int n, const char *key, const char *def)
{
    return number(opt(tok, n, key, def));
}

static uint32_t label(const char *name)
{
    if (!*name)
        return 0;
    for (int i = 0; i < n_labels; i++)
        if (strcmp(labels[i].name, name) == 0)
            return labels[i].id;
    die("no stack '%s'", name);
}

static unsigned series(const char *s)
{
    static const char *const names[] = {"device", "pinned", "managed", "imported"};
    for (unsigned i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    die("bad series '%s'", s);
}

static unsigned category(const char *s)
{
    int c = vt_category_from_name(s, strlen(s));
    if (c < 0)
        die("bad category '%s'", s);
    return (unsigned)c;
}

static size_t hex(const char *s, uint8_t *out, size_t cap)
{
    size_t n = 0;
    for (; s[0] && s[1]; s += 2) {
        unsigned v;
        if (n == cap || sscanf(s, "%2x", &v) != 1)
            die("bad hex '%s'", s);
        out[n++] = (uint8_t)v;
    }
    return n;
}

/* A positional argument: the first token at or after i without '='. */
static const char *positional(char **tok, int n, int i)
{
    for (int k = 1; k < n; k++)
        if (!strchr(tok[k], '=') && --i == 0)
            return tok[k];
    die("'%s' needs more arguments", tok[0]);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: vt-mktrace OUT.vtr [SCRIPT]\n");
        return 2;
    }
    FILE *in = argc == 3 ? fopen(argv[2], "r") : stdin;
    if (!in) {
        fprintf(stderr, "vt-mktrace: cannot open '%s': %s\n", argv[2], strerror(errno));
        return 1;
    }
    tb_t tb;
    /* Minor 1 unless the script says otherwise: the fixtures' records are the full forms, and
     * their golden outputs name the version. */
    tb_init(&tb, VT_FORMAT_MAJOR, TB_MINOR_FULL_FORMS);
    uint64_t n_allocs = 0, n_frees = 0, n_failed = 0, n_unmatched = 0;
    size_t truncate_at = SIZE_MAX;
    char line[4096], *tok[MAX_TOKENS];
    while (fgets(line, sizeof(line), in)) {
        line_no++;
        int n = tokenize(line, tok);
        if (!n)
            continue;
        const char *c = tok[0];
        if (strcmp(c, "version") == 0) {
            if (tb.len != VT_FORMAT_PREAMBLE_BYTES || n != 3)
                die("'version MAJOR MINOR' comes first");
            unsigned major = (unsigned)number(tok[1]), minor = (unsigned)number(tok[2]);
            tb_release(&tb);
            tb_init(&tb, major, minor);
        } else if (strcmp(c, "process") == 0) {
            uint32_t kv[2 * MAX_TOKENS];
            unsigned m = 0;
            for (int i = 1; i < n; i++) {
                char *eq = strchr(tok[i], '=');
                if (!eq)
                    die("'process' takes KEY=VALUE");
                *eq = '\0';
                if (strcmp(tok[i], "t0") == 0 || strcmp(tok[i], "start") == 0) {
                    *eq = '=';
                    continue;
                }
                kv[2 * m] = tb_string(&tb, tok[i]);
                kv[2 * m + 1] = tb_string(&tb, eq + 1);
                m++;
                *eq = '=';
            }
            tb_process(&tb, num(tok, n, "t0", "0"), num(tok, n, "start", "0"), m, kv);
        } else if (strcmp(c, "device") == 0) {
            if (n != 4)
                die("'device N NAME TOTAL'");
            uint32_t name = tb_string(&tb, tok[2]);
            tb_device(&tb, (uint32_t)number(tok[1]), name, number(tok[3]));
        } else if (strcmp(c, "apis") == 0) {
            uint32_t ids[MAX_TOKENS];
            for (int i = 1; i < n; i++)
                ids[i - 1] = tb_string(&tb, tok[i]);
            tb_api_names(&tb, (unsigned)n - 1, ids);
        } else if (strcmp(c, "thread") == 0) {
            if (n != 4)
                die("'thread N OS_TID NAME'");
            uint32_t name = tb_string(&tb, tok[3]);
            tb_thread(&tb, number(tok[1]), number(tok[2]), name);
        } else if (strcmp(c, "stack") == 0) {
            if (n < 3 || n_labels == MAX_LABELS || strlen(tok[1]) >= sizeof(labels[0].name))
                die("'stack LABEL FRAME...'");
            uint32_t id = 0;
            for (int i = 2; i < n; i++) {
                uint64_t ip;
                if (strncmp(tok[i], "py:", 3) == 0) {
                    char *colon = strrchr(tok[i], ':');
                    uint64_t lineno = number(colon + 1);
                    *colon = '\0';
                    uint32_t s = tb_string(&tb, tok[i] + 3);
                    ip = VT_PYFRAME_BIT | (uint64_t)s << VT_PYFRAME_LINE_BITS | lineno;
                } else {
                    ip = number(tok[i]);
                }
                id = tb_stack(&tb, id, ip);
            }
            snprintf(labels[n_labels].name, sizeof(labels[0].name), "%s", tok[1]);
            labels[n_labels++].id = id;
        } else if (strcmp(c, "module") == 0) {
            uint8_t build_id[64];
            size_t len = hex(opt(tok, n, "buildid", ""), build_id, sizeof(build_id));
            uint32_t path = tb_string(&tb, opt(tok, n, "path", NULL));
            tb_module(&tb, num(tok, n, "bias", NULL), num(tok, n, "lo", NULL),
                      num(tok, n, "hi", NULL), path, build_id, len);
        } else if (strcmp(c, "alloc") == 0) {
            n_allocs++;
            tb_alloc(&tb, num(tok, n, "dt", NULL),
                     series(opt(tok, n, "series", "device")) |
                         (num(tok, n, "handle", "0") ? VT_FLAG_HANDLE : 0),
                     category(opt(tok, n, "cat", "unknown")), (uint32_t)num(tok, n, "dev", "0"),
                     (uint32_t)num(tok, n, "api", "1"), num(tok, n, "addr", NULL),
                     num(tok, n, "size", NULL), label(opt(tok, n, "stack", "")),
                     num(tok, n, "thread", "1"));
        } else if (strcmp(c, "free") == 0) {
            int unmatched = (int)num(tok, n, "unmatched", "0");
            n_frees++;
            n_unmatched += unmatched != 0;
            tb_free(&tb, num(tok, n, "dt", NULL),
                    series(opt(tok, n, "series", "device")) |
                        (num(tok, n, "handle", "0") ? VT_FLAG_HANDLE : 0),
                    unmatched, (uint32_t)num(tok, n, "api", "2"), num(tok, n, "addr", NULL),
                    num(tok, n, "thread", "1"));
        } else if (strcmp(c, "failed") == 0) {
            n_failed++;
            tb_failed(&tb, num(tok, n, "dt", NULL), (uint32_t)num(tok, n, "api", "1"),
                      num(tok, n, "size", NULL), num(tok, n, "error", "2"),
                      label(opt(tok, n, "stack", "")), num(tok, n, "thread", "1"));
        } else if (strcmp(c, "oom") == 0) {
            uint64_t live[VT_CAT_COUNT] = {0};
            char list[256];
            snprintf(list, sizeof(list), "%s", opt(tok, n, "live", "0"));
            int i = 0;
            for (char *s = strtok(list, ","); s; s = strtok(NULL, ","), i++) {
                if (i == VT_CAT_COUNT)
                    die("live= takes at most %d values", VT_CAT_COUNT);
                live[i] = number(s);
            }
            n_failed++;
            tb_oom(&tb, num(tok, n, "dt", NULL), (uint32_t)num(tok, n, "dev", "0"),
                   (uint32_t)num(tok, n, "api", "1"), num(tok, n, "size", NULL),
                   label(opt(tok, n, "stack", "")), num(tok, n, "thread", "1"),
                   num(tok, n, "free", "0"), num(tok, n, "total", "0"), live);
        } else if (strcmp(c, "push") == 0 || strcmp(c, "mark") == 0) {
            uint32_t s = tb_string(&tb, positional(tok, n, 1));
            if (c[0] == 'p')
                tb_phase_push(&tb, num(tok, n, "dt", NULL), num(tok, n, "thread", "1"), s);
            else
                tb_mark(&tb, num(tok, n, "dt", NULL), num(tok, n, "thread", "1"), s);
        } else if (strcmp(c, "pop") == 0) {
            tb_phase_pop(&tb, num(tok, n, "dt", NULL), num(tok, n, "thread", "1"));
        } else if (strcmp(c, "meminfo") == 0) {
            tb_meminfo(&tb, num(tok, n, "dt", NULL), (uint32_t)num(tok, n, "dev", "0"),
                       num(tok, n, "free", NULL), num(tok, n, "total", NULL));
        } else if (strcmp(c, "end") == 0) {
            char a[24], f[24], x[24], u[24];
            snprintf(a, sizeof(a), "%llu", (unsigned long long)n_allocs);
            snprintf(f, sizeof(f), "%llu", (unsigned long long)n_frees);
            snprintf(x, sizeof(x), "%llu", (unsigned long long)n_failed);
            snprintf(u, sizeof(u), "%llu", (unsigned long long)n_unmatched);
            tb_end(&tb, num(tok, n, "dt", NULL), num(tok, n, "allocs", a), num(tok, n, "frees", f),
                   num(tok, n, "failed", x), num(tok, n, "unmatched", u),
                   num(tok, n, "dropped", "0"));
        } else if (strcmp(c, "skip") == 0) {
            tb_skip(&tb);
        } else if (strcmp(c, "eod") == 0) {
            tb_end_of_data(&tb);
        } else if (strcmp(c, "ext") == 0) {
            uint8_t body[1024];
            size_t len = hex(opt(tok, n, "body", ""), body, sizeof(body));
            tb_extension(&tb, (unsigned)num(tok, n, "type", NULL), body, len);
        } else if (strcmp(c, "raw") == 0) {
            uint8_t bytes[1024];
            for (int i = 1; i < n; i++)
                tb_bytes(&tb, bytes, hex(tok[i], bytes, sizeof(bytes)));
        } else if (strcmp(c, "truncate") == 0) {
            if (n != 2)
                die("'truncate N'");
            truncate_at = (size_t)number(tok[1]);
        } else {
            die("unknown line '%s'", c);
        }
    }
    if (in != stdin)
        fclose(in);
    int rc = tb_write(&tb, argv[1], truncate_at);
    if (rc != 0)
        fprintf(stderr, "vt-mktrace: cannot write '%s': %s\n", argv[1], strerror(errno));
    tb_release(&tb);
    return rc ? 1 : 0;
}

/* SPDX-License-Identifier: MIT */
/* `vramtrace top FILE|DIR|PID`: a live view of a running job from its trace. The trace is
 * followed as it is written (vt_reader_follow: the file is read once, each refresh reads only
 * what was appended since) into the analysis, and each refresh shows every device's live memory
 * by category as bars against its capacity, the peak so far, allocations and frees per second,
 * the OOMs, and the largest live call-sites. Interactive on a terminal (q or Ctrl-C quits and
 * restores the terminal); --batch prints snapshots as text for scripts. When the trace ends (the
 * process exited) the view stays, and says so.
 *
 * PID: the trace that process has open (a link in /proc/PID/fd to a .vtr file: the library keeps
 * its trace open while the process runs); else the name its environment gives (VRAMTRACE_OUTPUT,
 * relative to its working directory: FILE.vtr, else PREFIX.PID.vtr; default vramtrace.PID.vtr).
 * DIR: its most recently modified .vtr file. Exit statuses: 0, 1 when the trace cannot be found
 * or read or is damaged, 2 usage. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "args.h"
#include "commands.h"
#include "frames.h"
#include "symbolize.h"
#include "trace_reader.h"
#include "units.h"
#include "util.h"

#define BAR_WIDTH    40
#define SITE_FRAMES  3    /* frames of a call-site on its line */
#define DEFAULT_TOP  5    /* call-sites listed per device */
#define FIND_WAIT_MS 5000 /* a process's trace may not be open yet, nor its preamble written */
#define WAIT_STEP_MS 100

enum { OPT_BATCH = 1, OPT_COUNT, OPT_INTERVAL, OPT_TOP, OPT_ALL_FRAMES };

static const vt_option_t options[] = {
    {OPT_BATCH, 'b', "--batch", NULL, 0,
     "print the snapshots as text on stdout, one after the other (for scripts), instead of the "
     "interactive view; stops after the snapshot that finds the trace ended"},
    {OPT_COUNT, 'n', "--count", "N", 0,
     "N snapshots (refreshes), then exit (default: 1 with --batch, until q without)"},
    {OPT_INTERVAL, 'i', "--interval", "SECONDS", 0,
     "the time between snapshots: seconds (fractions allowed), or with a unit as 500ms (default 1)"},
    {OPT_TOP, 0, "--top", "N", 0, "list the N largest live call-sites per device (default 5)"},
    {OPT_ALL_FRAMES, 0, "--all-frames", NULL, 0, VT_FRAMES_ALL_HELP},
    {0},
};

static const vt_args_spec_t spec = {
    .name = "top",
    .usage = "usage: vramtrace top FILE|DIR|PID [--batch] [-n N] [--interval SECONDS] [--top N]\n"
             "                     [--all-frames]\n",
    .about = "A live view of a running job from its trace: each device's live memory by category "
             "as bars against its capacity, the peak so far, allocations and frees per second, "
             "out-of-memory errors, and the largest live call-sites, refreshed every second. The "
             "trace is followed as it grows (each refresh reads only what was appended). Press q "
             "or Ctrl-C to quit. When the process exits the view stays and says so.\n\n"
             "FILE is a trace; DIR its most recently modified .vtr file; PID the trace that "
             "process is writing (the .vtr file it has open, in /proc/PID/fd; else the name its "
             "VRAMTRACE_OUTPUT gives).",
    .tables = {options},
};

/* ---- finding the trace ----------------------------------------------------------------------- */

static bool is_pid(const char *s)
{
    if (!*s)
        return false;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    return strlen(s) < 10;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static bool regular_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The .vtr file process pid has open, into out. */
static bool trace_of_fds(const char *pid, char *out, size_t cap)
{
    char dir[64], link[PATH_MAX + 64];
    snprintf(dir, sizeof(dir), "/proc/%s/fd", pid);
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(link, sizeof(link), "%s/%s", dir, e->d_name);
        ssize_t n = readlink(link, out, cap - 1);
        if (n <= 0)
            continue;
        out[n] = '\0';
        found = out[0] == '/' && ends_with(out, ".vtr") && regular_file(out);
    }
    closedir(d);
    return found;
}

/* The trace process pid's VRAMTRACE_OUTPUT names (src/writer.c's naming), into out. */
static bool trace_of_environ(const char *pid, char *out, size_t cap)
{
    char path[64], env[8192], output[PATH_MAX] = "vramtrace";
    snprintf(path, sizeof(path), "/proc/%s/environ", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(env, 1, sizeof(env) - 1, f);
    fclose(f);
    env[n] = '\0';
    for (size_t i = 0; i < n; i += strlen(env + i) + 1)
        if (strncmp(env + i, "VRAMTRACE_OUTPUT=", 17) == 0 && env[i + 17])
            snprintf(output, sizeof(output), "%s", env + i + 17);
    char base[PATH_MAX + 64];
    if (output[0] == '/')
        snprintf(base, sizeof(base), "%s", output);
    else
        snprintf(base, sizeof(base), "/proc/%s/cwd/%s", pid, output);
    size_t stem = strlen(base) - (ends_with(base, ".vtr") ? 4 : 0);
    if (ends_with(base, ".vtr") && regular_file(base)) {
        snprintf(out, cap, "%s", base);
        return true;
    }
    snprintf(out, cap, "%.*s.%s.vtr", (int)stem, base, pid);
    return regular_file(out);
}

/* The most recently modified .vtr file of dir, into out. */
static bool trace_of_dir(const char *dir, char *out, size_t cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct timespec newest = {0, 0};
    bool found = false;
    char path[PATH_MAX + 256];
    for (struct dirent *e; (e = readdir(d));) {
        struct stat st;
        if (!ends_with(e->d_name, ".vtr"))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (!found || st.st_mtim.tv_sec > newest.tv_sec ||
            (st.st_mtim.tv_sec == newest.tv_sec && st.st_mtim.tv_nsec > newest.tv_nsec)) {
            newest = st.st_mtim;
            found = (size_t)snprintf(out, cap, "%s", path) < cap;
        }
    }
    closedir(d);
    return found;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* ---- following the trace ---------------------------------------------------------------------- */

typedef struct top_s {
    const char *path;
    const char *pid; /* the PID given, or NULL */
    vt_reader_t r;
    vt_analysis_t a;
    int state; /* 0 following, 1 ended (END record), -1 damaged */
    bool gone; /* the PID's process is gone without an END record */
    vt_symbolizer_t sym;
    bool have_sym, all_frames;
    uint64_t sym_modules; /* the modules the symbolizer knows */
    uint64_t last_allocs, last_frees;
    struct timespec last_read;
    double allocs_per_s, frees_per_s;
} top_t;

static double since(const struct timespec *t0, const struct timespec *t1)
{
    return (double)(t1->tv_sec - t0->tv_sec) + (double)(t1->tv_nsec - t0->tv_nsec) / 1e9;
}

/* Reads what was appended since the last time, all of it at once: a trace already long when
 * top starts is read in one pass of the analysis before the first snapshot. */
static void top_read(top_t *t)
{
    if (t->state == 0) {
        if (vt_analyze_more(&t->r, &t->a) != 0) {
            t->state = -1;
        } else if (t->r.state == 0) {
            snprintf(t->r.err, sizeof(t->r.err), "'%s': out of memory following the trace",
                     t->path);
            t->state = -1;
        } else {
            int more = vt_reader_follow(&t->r);
            if (more < 0)
                t->state = -1;
            else if (more == 0)
                t->state = 1;
        }
    }
    if (t->pid && t->state == 0) {
        char proc[64];
        snprintf(proc, sizeof(proc), "/proc/%s", t->pid);
        t->gone = access(proc, F_OK) != 0;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double dt = since(&t->last_read, &now);
    if (!t->last_read.tv_sec) {
        /* the first look: the rates since the trace began */
        double trace_s = (double)(t->r.t_ns > t->r.t0_ns ? t->r.t_ns - t->r.t0_ns : 0) / 1e9;
        t->allocs_per_s = trace_s > 0 ? (double)t->a.n_allocs / trace_s : 0;
        t->frees_per_s = trace_s > 0 ? (double)t->a.n_frees / trace_s : 0;
    } else if (dt > 0) {
        t->allocs_per_s = (double)(t->a.n_allocs - t->last_allocs) / dt;
        t->frees_per_s = (double)(t->a.n_frees - t->last_frees) / dt;
    }
    t->last_read = now;
    t->last_allocs = t->a.n_allocs;
    t->last_frees = t->a.n_frees;
    /* Modules load as the program runs: the symbolizer learns the new ones. */
    if (t->r.n_modules != t->sym_modules) {
        if (t->have_sym)
            vt_symbolizer_release(&t->sym);
        t->have_sym = vt_symbolizer_init_trace(&t->sym, &t->r) == 0;
        if (t->have_sym)
            t->sym.all_frames = t->all_frames;
        t->sym_modules = t->r.n_modules;
    }
}

/* Opens the trace, waiting a little for a process that has not written its preamble yet. */
static int top_open(top_t *t)
{
    for (int waited = 0;; waited += WAIT_STEP_MS) {
        if (vt_reader_open(&t->r, t->path) == 0)
            return 0;
        bool empty = strstr(t->r.err, "empty file") || strstr(t->r.err, "no VRAMTRC magic") ||
                     strstr(t->r.err, "truncated preamble");
        if (!empty || !t->pid || waited >= FIND_WAIT_MS) {
            error("%s", t->r.err);
            vt_reader_release(&t->r);
            return -1;
        }
        vt_reader_release(&t->r);
        sleep_ms(WAIT_STEP_MS);
    }
}

/* ---- a snapshot -------------------------------------------------------------------------------- */

typedef struct line_ctx_s {
    FILE *out;
    int n;
} line_ctx_t;

static int site_frame(void *ctx, const char *frame)
{
    line_ctx_t *l = ctx;
    fprintf(l->out, "%s%s", l->n++ ? " < " : "", frame);
    return 0;
}

static void snapshot(FILE *out, top_t *t, size_t top)
{
    const vt_reader_t *r = &t->r;
    const vt_analysis_t *a = &t->a;
    char b1[32], b2[32], s1[32], buf[512];
    uint64_t now_ns = r->t_ns > r->t0_ns ? r->t_ns - r->t0_ns : 0;
    fprintf(out, "vramtrace top: %s", t->path);
    if (vt_reader_process(r, "pid", buf, sizeof(buf)))
        fprintf(out, ", pid %s", buf);
    if (vt_reader_process(r, "cmdline", buf, sizeof(buf)) && buf[0])
        fprintf(out, " (%s)", buf);
    fputc('\n', out);
    if (t->state > 0)
        fprintf(out, "ended: the process exited; the trace ends at %s\n",
                vt_fmt_seconds(now_ns, s1, sizeof(s1)));
    else if (t->state < 0)
        fprintf(out, "stopped: %s\n", r->err);
    else if (t->gone)
        fprintf(out, "ended: the process is gone without an exit record; the trace ends at %s\n",
                vt_fmt_seconds(now_ns, s1, sizeof(s1)));
    else
        fprintf(out, "running: %s into the trace\n", vt_fmt_seconds(now_ns, s1, sizeof(s1)));
    fprintf(out,
            "%.1f allocations/s, %.1f frees/s; %" PRIu64 " allocations, %" PRIu64 " frees, %" PRIu64
            " failed; out-of-memory errors: %" PRIu32 "\n",
            t->allocs_per_s, t->frees_per_s, a->n_allocs, a->n_frees, a->n_failed, a->n_ooms);
    if (a->n_ooms) {
        const vt_oom_t *o = &a->ooms[a->n_ooms - 1];
        fprintf(out, "last out-of-memory error: %s requested on device %" PRIu32 " at %s\n",
                vt_fmt_binary(o->requested_bytes, b1, sizeof(b1)), o->device,
                vt_fmt_seconds(o->t_ns > r->t0_ns ? o->t_ns - r->t0_ns : 0, s1, sizeof(s1)));
    }
    if (!a->n_devices)
        fputs("no device memory allocated yet\n", out);
    for (uint32_t i = 0; i < a->n_devices; i++) {
        const vt_device_stats_t *d = &a->devices[i];
        const vt_trace_device_t *info = vt_reader_device(r, d->device);
        uint64_t capacity = info ? info->total_bytes : 0;
        uint64_t scale = capacity ? capacity : (d->peak_bytes ? d->peak_bytes : 1);
        fprintf(
            out, "\n%s: live %s, peak %s at %s\n",
            vt_reader_device_text(r, d->device, buf, sizeof(buf)),
            vt_fmt_binary(d->live_bytes, b1, sizeof(b1)),
            vt_fmt_binary(d->peak_bytes, b2, sizeof(b2)),
            vt_fmt_seconds(d->peak_t_ns > r->t0_ns ? d->peak_t_ns - r->t0_ns : 0, s1, sizeof(s1)));
        for (int c = 0; c < VT_CAT_COUNT; c++) {
            uint64_t v = d->live_by_category[c];
            int fill = (int)((unsigned __int128)v * BAR_WIDTH / scale);
            if (v && !fill)
                fill = 1;
            if (fill > BAR_WIDTH)
                fill = BAR_WIDTH;
            fprintf(out, "  %-12s %11s |%.*s%*s|\n", vt_category_names[c],
                    vt_fmt_binary(v, b1, sizeof(b1)), fill,
                    "########################################", BAR_WIDTH - fill, "");
        }
        fprintf(out, "  bars: share of %s\n",
                capacity ? "the device's memory" : "the peak (capacity unknown)");
        vt_site_t *sites = NULL;
        size_t n = 0;
        if (!top || vt_analysis_sites(a, d->device, &sites, &n) != 0 || !n) {
            free(sites);
            continue;
        }
        fprintf(out, "  largest live call-sites:\n");
        vt_frames_opts_t o = {
            .sym = t->have_sym ? &t->sym : NULL, .max_frames = SITE_FRAMES, .shown = true};
        for (size_t k = 0; k < n && k < top; k++) {
            fprintf(out, "  %11s  %-11s ", vt_fmt_binary(sites[k].bytes, b1, sizeof(b1)),
                    vt_category_names[sites[k].category]);
            line_ctx_t l = {out, 0};
            if (!sites[k].stack_id)
                fputs("(no call-site recorded)", out);
            else if (vt_frames_walk(&o, r, sites[k].stack_id, site_frame, &l) > 0)
                fputs(" < ...", out);
            fputc('\n', out);
        }
        free(sites);
    }
}

/* ---- the terminal ------------------------------------------------------------------------------ */

static struct termios saved_termios;
static bool termios_saved;
static volatile sig_atomic_t quit_signal, resized;

static void on_quit(int sig)
{
    quit_signal = sig;
}

static void on_winch(int sig)
{
    (void)sig;
    resized = 1;
}

static void terminal_restore(void)
{
    if (!termios_saved)
        return;
    fputs("\033[?25h\033[?1049l", stdout); /* the cursor back, the main screen back */
    fflush(stdout);
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_termios);
    termios_saved = false;
}

static int terminal_setup(void)
{
    if (tcgetattr(STDIN_FILENO, &saved_termios) != 0)
        return error("top needs a terminal for its interactive view (or --batch): %s",
                     strerror(errno));
    struct termios raw = saved_termios;
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) != 0)
        return error("cannot set up the terminal: %s", strerror(errno));
    termios_saved = true;
    atexit(terminal_restore);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_quit;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_winch;
    sigaction(SIGWINCH, &sa, NULL);
    fputs("\033[?1049h\033[?25l", stdout); /* the alternate screen, no cursor */
    return 0;
}

/* The snapshot, cut to the terminal's size. */
static void draw(const char *text, size_t len)
{
    struct winsize ws = {0};
    int rows = 24, cols = 80;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
        rows = ws.ws_row;
        cols = ws.ws_col;
    }
    fputs("\033[H\033[2J", stdout);
    int row = 0;
    for (size_t i = 0; i < len && row < rows - 1;) {
        size_t e = i;
        while (e < len && text[e] != '\n')
            e++;
        fprintf(stdout, "%.*s\033[K\r\n", (int)(e - i < (size_t)cols ? e - i : (size_t)cols),
                text + i);
        row++;
        i = e + 1;
    }
    fputs("\033[7m q: quit \033[0m", stdout);
    fflush(stdout);
}

/* Waits up to ms for a key; returns true when it says quit. */
static bool wait_key(long ms)
{
    struct pollfd p = {STDIN_FILENO, POLLIN, 0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        if (quit_signal)
            return true;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        long left = ms - (long)(since(&t0, &t1) * 1000);
        if (left <= 0 || resized)
            return false;
        int rc = poll(&p, 1, (int)left);
        if (rc > 0) {
            char c;
            if (read(STDIN_FILENO, &c, 1) == 1 && (c == 'q' || c == 'Q' || c == 3))
                return true;
        }
    }
}

/* ---- the command ------------------------------------------------------------------------------- */

int cmd_top(int argc, char **argv)
{
    const char *target = NULL;
    bool batch = false, all_frames = false;
    size_t count = 0, top = DEFAULT_TOP;
    uint64_t interval_ns = 1000000000;
    vt_args_t args;
    vt_args_init(&args, &spec, argc, argv);
    for (int opt; (opt = vt_args_next(&args)) != VT_ARG_DONE;) {
        const char *v = args.value;
        if (opt == VT_ARG_ERROR) {
            return EXIT_USAGE;
        } else if (opt == VT_ARG_HELP) {
            vt_args_help(&spec, stdout);
            return 0;
        } else if (opt == OPT_BATCH) {
            batch = true;
        } else if (opt == OPT_ALL_FRAMES) {
            all_frames = true;
        } else if (opt == OPT_COUNT || opt == OPT_TOP) {
            if (vt_parse_count(v, opt == OPT_COUNT ? &count : &top) != 0 ||
                (opt == OPT_COUNT && count == 0)) {
                error("%s takes a count%s, not '%s'", args.arg,
                      opt == OPT_COUNT ? " of 1 or more" : "", v);
                return vt_args_usage_error(&spec);
            }
        } else if (opt == OPT_INTERVAL) {
            if (vt_parse_duration(v, &interval_ns) != 0 || interval_ns < 10000000 ||
                interval_ns > 86400000000000) {
                error("--interval takes a time from 10ms to 86400s (0.5 or 500ms), not '%s'", v);
                return vt_args_usage_error(&spec);
            }
        } else if (target) {
            error("top follows one trace: '%s' and '%s'", target, v);
            return vt_args_usage_error(&spec);
        } else {
            target = v;
        }
    }
    if (!target) {
        error("top needs a trace file, a directory or a process id. See 'vramtrace top --help'.");
        return vt_args_usage_error(&spec);
    }
    if (batch && !count)
        count = 1;

    static char path[PATH_MAX + 64];
    top_t t;
    memset(&t, 0, sizeof(t));
    t.all_frames = all_frames;
    struct stat st;
    if (is_pid(target) && stat(target, &st) != 0) {
        char proc[64];
        snprintf(proc, sizeof(proc), "/proc/%s", target);
        if (access(proc, F_OK) != 0) {
            error("no process %s", target);
            return 1;
        }
        t.pid = target;
        bool found = false;
        for (int waited = 0; !found; waited += WAIT_STEP_MS) {
            found = trace_of_fds(target, path, sizeof(path)) ||
                    trace_of_environ(target, path, sizeof(path));
            if (found || waited >= FIND_WAIT_MS)
                break;
            sleep_ms(WAIT_STEP_MS);
        }
        if (!found) {
            error("process %s has no trace open (is it traced by vramtrace? it opens its trace "
                  "at its first allocation)",
                  target);
            return 1;
        }
    } else if (stat(target, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (!trace_of_dir(target, path, sizeof(path))) {
            error("no .vtr file in '%s'", target);
            return 1;
        }
    } else {
        snprintf(path, sizeof(path), "%s", target);
    }
    t.path = path;
    if (top_open(&t) != 0)
        return 1;

    int rc = 0;
    if (!batch && terminal_setup() != 0) {
        vt_reader_release(&t.r);
        return 1;
    }
    if (!batch)
        signal(SIGPIPE, SIG_DFL);
    for (size_t i = 0; !count || i < count; i++) {
        if (batch && i)
            sleep_ms((long)(interval_ns / 1000000));
        top_read(&t);
        if (batch) {
            if (i)
                fputc('\n', stdout);
            snapshot(stdout, &t, top);
            fflush(stdout);
            if (t.state != 0 || t.gone)
                break;
            continue;
        }
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        if (mem) {
            snapshot(mem, &t, top);
            fclose(mem);
            draw(text, len);
        }
        free(text);
        resized = 0;
        if (wait_key((long)(interval_ns / 1000000)))
            break;
    }
    if (!batch)
        terminal_restore();
    if (t.state < 0) {
        error("%s", t.r.err);
        rc = 1;
    }
    if (t.have_sym)
        vt_symbolizer_release(&t.sym);
    vt_analysis_release(&t.a);
    vt_reader_release(&t.r);
    return rc;
}

/* SPDX-License-Identifier: MIT */
/* `vramtrace run`: the launcher (docs/design.md, "Contracts"). Runs CMD with libvramtrace.so preloaded and the
 * options as VRAMTRACE_* variables (optionally on the simulated device), waits for it and exits
 * with its status, or 128 + N when signal N killed it, so that `vramtrace run -- CMD` can stand in
 * for CMD in a script. The launcher never loads the library itself, and its own environment stays
 * untouched: CMD's variables are set in the child, between fork and exec. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "util.h"
#include "vt_size.h"

#ifndef VRAMTRACE_INSTALL_LIBDIR
#    define VRAMTRACE_INSTALL_LIBDIR "lib" /* CMAKE_INSTALL_LIBDIR, relative to the prefix */
#endif

enum {
    OPT_OUTPUT = 1,
    OPT_RULES,
    OPT_NO_DEFAULT_RULES,
    OPT_DEPTH,
    OPT_PER_TENSOR,
    OPT_NO_CACHING,
    OPT_SIMULATE,
    OPT_REPORT,
    OPT_QUIET,
    OPT_LIB,
};

static const vt_option_t options[] = {
    {OPT_OUTPUT, 'o', NULL, "FILE", 0,
     "CMD's trace is exactly FILE (a name ending in .vtr; a FILE left by an earlier run is "
     "replaced); other processes of the tree that allocate, and a later one once FILE holds a "
     "trace, write <FILE without .vtr>.<pid>.vtr beside it (.<pid>.<n>.vtr for an exec'ed image "
     "of the same pid); the last line names every file written. A character device "
     "(/dev/null): no trace. Without -o: the library's default, vramtrace.<pid>.vtr in the "
     "working directory, named by its exit line"},
    {OPT_RULES, 0, "--rules", "FILE", 0,
     "category rules read before the built-in ones, so that its lines win (VRAMTRACE_RULES)"},
    {OPT_NO_DEFAULT_RULES, 0, "--no-default-rules", NULL, 0,
     "leave the built-in category rules out (VRAMTRACE_DEFAULT_RULES=0)"},
    {OPT_DEPTH, 0, "--depth", "N", 0,
     "frames per call-site stack, 0 to 256 (VRAMTRACE_DEPTH; default 64)"},
    {OPT_PER_TENSOR, 0, "--per-tensor", NULL, 0,
     "every tensor its own stream-ordered allocation from the driver's pool, caching kept "
     "(near native speed): PYTORCH_CUDA_ALLOC_CONF gets backend:cudaMallocAsync before the keys "
     "already set (a backend the user chose is kept, with a note), "
     "TF_GPU_ALLOCATOR=cuda_malloc_async and XLA_PYTHON_CLIENT_ALLOCATOR=platform unless set"},
    {OPT_NO_CACHING, 0, "--no-caching", NULL, 0,
     "turn the framework caching allocators off, unless the variables are already set: "
     "PYTORCH_NO_CUDA_MEMORY_CACHING=1, XLA_PYTHON_CLIENT_ALLOCATOR=platform, "
     "TF_FORCE_GPU_ALLOW_GROWTH=true. Every tensor becomes a cudaMalloc/cudaFree of its own: "
     "exact per-tensor call-sites without a pool, but every free synchronizes"},
    {OPT_SIMULATE, 0, "--simulate", "SIZE", 1,
     "run on the simulated CUDA device (docs/simulator.md) with SIZE of memory "
     "(VTSIM_DEVICE_MEMORY; default 16G)"},
    {OPT_REPORT, 0, "--report", NULL, 0, "print 'vramtrace report' of CMD's trace after the run"},
    {OPT_QUIET, 'q', "--quiet", NULL, 0,
     "no summary line at exit (VRAMTRACE_QUIET=1) and no lines of ours"},
    {OPT_LIB, 0, "--lib", "PATH", 0, "the libvramtrace.so to preload"},
    {0},
};

static const vt_args_spec_t spec = {
    .name = "run",
    .usage = "usage: vramtrace run [OPTIONS] -- CMD [ARGS]\n",
    .about = "Runs CMD with libvramtrace.so preloaded and exits with its status (128 + N when "
             "signal N killed it). Options go before '--'; SIGINT, SIGTERM, SIGHUP and SIGQUIT "
             "sent to vramtrace are passed on to CMD.",
    .tables = {options},
    .after = "Without --lib, libvramtrace.so is looked for beside vramtrace: in the "
             "installation's library directory (<dir>/../lib), then in the build tree "
             "(<dir>/../src), <dir> being the directory of vramtrace. The simulated device exists "
             "in the build tree only (<dir>/../sim).\n"
             "\n" VT_ARGS_SIZE_HELP,
    .exit_status = "Exit status: CMD's (128 + N when signal N killed it); 2 usage error, 1 when "
                   "CMD could not be started.",
    .options_first = 1,
};

typedef struct run_opts_s {
    const char *output; /* -o, as given */
    const char *rules, *depth, *lib, *capacity;
    char capacity_bytes[24]; /* --simulate's size as a byte count */
    bool per_tensor, no_caching, simulate, report, quiet, no_default_rules;
    char **cmd; /* NULL-terminated, after "--" */
} run_opts_t;

/* One variable set in CMD's environment; keep: only when the user has not set it. */
typedef struct env_set_s {
    const char *name;
    char *value;
    bool keep;
} env_set_t;

#define MAX_ENV 16

/* ------------------------------------------------------------------ argument parsing */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A size for --simulate: the one size grammar (vt_size.h), not zero. The simulator ignores a
 * bad VTSIM_DEVICE_MEMORY (80G instead), so it is checked here, before CMD starts, and passed
 * on as a plain byte count, which every version of the simulator reads alike. */
static bool is_size(const char *s)
{
    uint64_t bytes;
    return vt_size_parse(s, &bytes) == 0 && bytes != 0;
}

static bool is_depth(const char *s)
{
    if (!*s || strlen(s) > 3)
        return false;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    return atoi(s) <= 256;
}

/* After the message of a usage error: the synopsis, the first line of the usage. */
static int usage_error(void)
{
    return vt_args_usage_error(&spec);
}

/* Parses argv (argv[0] is "run") into o. Returns -1 to go on, or the exit status: 0 after
 * --help, EXIT_USAGE after the message. */
static int parse(int argc, char **argv, run_opts_t *o)
{
    vt_args_t args;
    vt_args_init(&args, &spec, argc, argv);
    int last = 0; /* the option read before this argument */
    for (int opt; (opt = vt_args_next(&args)) != VT_ARG_DONE; last = opt) {
        const char *a = args.value;
        switch (opt) {
        case VT_ARG_ERROR:
            return EXIT_USAGE;
        case VT_ARG_HELP:
            vt_args_help(&spec, stdout);
            return 0;
        case OPT_OUTPUT:
            o->output = a;
            break;
        case OPT_RULES:
            o->rules = a;
            break;
        case OPT_NO_DEFAULT_RULES:
            o->no_default_rules = true;
            break;
        case OPT_DEPTH:
            o->depth = a;
            break;
        case OPT_LIB:
            o->lib = a;
            break;
        case OPT_PER_TENSOR:
            o->per_tensor = true;
            break;
        case OPT_NO_CACHING:
            o->no_caching = true;
            break;
        case OPT_SIMULATE:
            o->simulate = true;
            o->capacity = a;
            break;
        case OPT_REPORT:
            o->report = true;
            break;
        case OPT_QUIET:
            o->quiet = true;
            break;
        default: /* an operand before '--' */
            if (last == OPT_SIMULATE && !o->capacity && is_size(a)) {
                error("'--simulate %s': the size goes as --simulate=%s", a, a);
                return EXIT_USAGE;
            }
            error("'%s' before '--': options go before '--', the command after it", a);
            return usage_error();
        }
    }
    int i = args.next - 1; /* the "--", when there is one */
    if (!args.operands_only || i + 1 >= argc) {
        error(!args.operands_only ? "'run' needs '--' and a command"
                                  : "'run' needs a command after '--'");
        return usage_error();
    }
    struct stat st;
    if (o->output && (!ends_with(o->output, ".vtr") || strlen(o->output) == 4) &&
        !(stat(o->output, &st) == 0 && S_ISCHR(st.st_mode))) {
        char *shown = vt_escaped(o->output);
        error("'-o %s': the trace file name must end in .vtr", shown ? shown : "?");
        free(shown);
        return EXIT_USAGE;
    }
    if (o->depth && !is_depth(o->depth)) {
        error("bad --depth '%s': want a number of frames from 0 to 256", o->depth);
        return EXIT_USAGE;
    }
    if (o->capacity && !is_size(o->capacity)) {
        error("bad --simulate size '%s': want a size like 16G (" VT_SIZE_GRAMMAR ")", o->capacity);
        return EXIT_USAGE;
    }
    if (o->capacity) {
        uint64_t bytes = 0;
        vt_size_parse(o->capacity, &bytes);
        snprintf(o->capacity_bytes, sizeof(o->capacity_bytes), "%" PRIu64, bytes);
        o->capacity = o->capacity_bytes;
    }
    o->cmd = argv + i + 1;
    return -1;
}

/* ------------------------------------------------------------------ finding our files */

/* The directory above the one holding this executable (/proc/self/exe, symbolic links
 * resolved): the install prefix, or the build tree. Returns a malloc'd path, or NULL. */
static char *exe_parent(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            return NULL;
        *slash = '\0';
    }
    return strdup(exe);
}

static char *join(const char *a, const char *b, const char *c)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%s", a, b, c);
    return s;
}

static bool is_readable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* The first of parent/<subdir> (in order, skipping repeats) that holds a readable file, made
 * absolute; else NULL, with the paths tried in looked ("'A/file', 'B/file'"). Malloc'd. */
static char *find_dir(const char *parent, const char *const *subdirs, size_t n, const char *file,
                      char *looked, size_t looked_len)
{
    looked[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        bool repeat = false;
        for (size_t j = 0; j < i; j++)
            repeat |= strcmp(subdirs[i], subdirs[j]) == 0;
        char *path = repeat ? NULL : join(parent, subdirs[i], file);
        if (path && is_readable_file(path)) {
            *strrchr(path, '/') = '\0';
            char *dir = realpath(path, NULL);
            free(path);
            return dir;
        }
        if (path) {
            size_t used = strlen(looked);
            snprintf(looked + used, looked_len - used, "%s'%s'", used ? ", " : "", path);
        }
        free(path);
    }
    return NULL;
}

/* The absolute path of libvramtrace.so: --lib, or the first of the places the usage names.
 * Returns a malloc'd path, or NULL after the message. */
static char *find_library(const char *lib)
{
    if (lib) {
        char *abs = realpath(lib, NULL);
        if (!abs || !is_readable_file(abs)) {
            error("cannot use --lib '%s': %s", lib, abs ? "not a readable file" : strerror(errno));
            free(abs);
            return NULL;
        }
        return abs;
    }
    /* Installed: the library directory, which GNUInstallDirs may make lib64 or
     * lib/<multiarch>; "lib" too, for a copy of the installed tree. The build tree: src/. */
    static const char *const subdirs[] = {("/" VRAMTRACE_INSTALL_LIBDIR), "/lib", "/src"};
    char looked[4 * PATH_MAX];
    char *parent = exe_parent();
    char *dir =
        parent ? find_dir(parent, subdirs, 3, "/libvramtrace.so", looked, sizeof looked) : NULL;
    if (!parent)
        error("cannot find libvramtrace.so: cannot read /proc/self/exe: %s; use --lib PATH",
              strerror(errno));
    else if (!dir)
        error("cannot find libvramtrace.so (looked in %s); use --lib PATH", looked);
    free(parent);
    char *path = dir ? join(dir, "/libvramtrace.so", "") : NULL;
    free(dir);
    return path;
}

/* The directory of the simulated libcuda.so.1 and libcudart.so.13: the build tree's sim/, or
 * where an installation would put it (none does yet). Malloc'd, or NULL after the message. */
static char *find_simulator(void)
{
    static const char *const subdirs[] = {"/sim", "/lib/vramtrace/sim"};
    char looked[3 * PATH_MAX];
    char *parent = exe_parent();
    char *dir =
        parent ? find_dir(parent, subdirs, 2, "/libcuda.so.1", looked, sizeof looked) : NULL;
    if (!dir)
        error("cannot find the simulated device (looked in %s): it is built in the build tree "
              "(BUILD/sim) and not installed; use the build tree's tools/vramtrace",
              parent ? looked : "/proc/self/exe/../../sim");
    free(parent);
    return dir;
}

/* ------------------------------------------------------------------ CMD's environment */

/* LD_PRELOAD with lib first, joined to an existing value with the separator that value uses
 * (ld.so takes spaces and colons alike). Returns a malloc'd value, or NULL after the message. */
static char *preload_value(const char *lib)
{
    /* ld.so splits LD_PRELOAD at both, so no quoting can carry them through. */
    if (strpbrk(lib, " :")) {
        error("cannot preload '%s': LD_PRELOAD cannot hold a path with a space or colon", lib);
        return NULL;
    }
    const char *old = getenv("LD_PRELOAD");
    if (!old || !*old)
        return strdup(lib);
    const char *sep = strchr(old, ' ') && !strchr(old, ':') ? " " : ":";
    return join(lib, sep, old);
}

/* A relative path made absolute against the working directory, so that CMD may chdir. */
static char *absolute(const char *path)
{
    if (path[0] == '/')
        return strdup(path);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    return join(cwd, "/", path);
}

/* Fills env[] with what CMD gets. Returns the count, or -1 after the message (with nothing left
 * allocated). */
/* --per-tensor's PYTORCH_CUDA_ALLOC_CONF: backend:cudaMallocAsync before the user's keys
 * (comma-separated key:value pairs), or NULL to leave the user's value as it is, when it already
 * names a backend (a note says so when that backend is not cudaMallocAsync). Out of memory is a
 * NULL too: CMD then runs with the user's setting. */
static char *per_tensor_alloc_conf(const char *user, bool quiet)
{
    static const char ours[] = "backend:cudaMallocAsync";
    if (!user || !*user)
        return strdup(ours);
    for (const char *key = user; key && *key;
         key = strchr(key, ',') ? strchr(key, ',') + 1 : NULL) {
        while (*key == ' ')
            key++;
        if (strncmp(key, "backend", 7) != 0)
            continue;
        const char *v = key + 7;
        while (*v == ' ')
            v++;
        if (*v != ':')
            continue;
        for (v++; *v == ' '; v++)
            ;
        size_t len = strcspn(v, ", ");
        if (!quiet && !(len == 15 && strncmp(v, "cudaMallocAsync", 15) == 0))
            fprintf(stderr,
                    "vramtrace: note: PYTORCH_CUDA_ALLOC_CONF chooses backend:%.*s; --per-tensor "
                    "leaves it (its tensors are not traced one by one; --no-caching would)\n",
                    (int)len, v);
        return NULL;
    }
    return join(ours, ",", user);
}

static int build_env(const run_opts_t *o, env_set_t *env)
{
    int n = 0;
    char *lib = find_library(o->lib);
    if (!lib)
        goto fail;
    env[n++] = (env_set_t){"LD_PRELOAD", preload_value(lib), false};
    free(lib);
    if (!env[0].value)
        goto fail;
    if (o->output) {
        char *out = absolute(o->output);
        char *dir = out ? strdup(out) : NULL;
        if (dir)
            *strrchr(dir, '/') = '\0';
        struct stat st;
        bool device = out && stat(out, &st) == 0 && S_ISCHR(st.st_mode);
        if (!device && (!dir || access(*dir ? dir : "/", W_OK | X_OK) != 0)) {
            char *shown = vt_escaped(dir && *dir ? dir : "/");
            error("cannot write a trace in '%s': %s", shown ? shown : "?", strerror(errno));
            free(shown);
            free(out);
            free(dir);
            goto fail;
        }
        free(dir);
        env[n++] = (env_set_t){"VRAMTRACE_OUTPUT", out, false};
    }
    if (o->rules) {
        char *rules = realpath(o->rules, NULL);
        if (!rules || !is_readable_file(rules)) {
            error("cannot read rules '%s': %s", o->rules,
                  rules ? "not a readable file" : strerror(errno));
            free(rules);
            goto fail;
        }
        env[n++] = (env_set_t){"VRAMTRACE_RULES", rules, false};
    }
    if (o->no_default_rules)
        env[n++] = (env_set_t){"VRAMTRACE_DEFAULT_RULES", strdup("0"), false};
    if (o->depth)
        env[n++] = (env_set_t){"VRAMTRACE_DEPTH", strdup(o->depth), false};
    if (o->quiet)
        env[n++] = (env_set_t){"VRAMTRACE_QUIET", strdup("1"), false};
    if (o->per_tensor) {
        /* PyTorch's caching allocator and TensorFlow's BFC allocator otherwise hide every tensor
         * behind a few large cudaMalloc calls of their own; their cudaMallocAsync backends ask
         * the driver's stream-ordered pool for each tensor instead, which caches as well (no
         * synchronizing free). JAX has no such backend: platform is its per-tensor one. */
        char *conf = per_tensor_alloc_conf(getenv("PYTORCH_CUDA_ALLOC_CONF"), o->quiet);
        if (conf)
            env[n++] = (env_set_t){"PYTORCH_CUDA_ALLOC_CONF", conf, false};
        env[n++] = (env_set_t){"TF_GPU_ALLOCATOR", strdup("cuda_malloc_async"), true};
        env[n++] = (env_set_t){"XLA_PYTHON_CLIENT_ALLOCATOR", strdup("platform"), true};
    }
    if (o->no_caching) {
        /* No cache at all: one cudaMalloc and one synchronizing cudaFree per tensor. */
        env[n++] = (env_set_t){"PYTORCH_NO_CUDA_MEMORY_CACHING", strdup("1"), true};
        env[n++] = (env_set_t){"XLA_PYTHON_CLIENT_ALLOCATOR", strdup("platform"), true};
        env[n++] = (env_set_t){"TF_FORCE_GPU_ALLOW_GROWTH", strdup("true"), true};
    }
    if (o->simulate) {
        char *sim = find_simulator();
        if (!sim)
            goto fail;
        const char *old = getenv("LD_LIBRARY_PATH");
        env[n++] =
            (env_set_t){"LD_LIBRARY_PATH", old && *old ? join(sim, ":", old) : strdup(sim), false};
        free(sim);
        /* An explicit size wins; plain --simulate keeps a size the user already exported. */
        env[n++] = (env_set_t){"VTSIM_DEVICE_MEMORY", strdup(o->capacity ? o->capacity : "16G"),
                               !o->capacity};
    }
    for (int i = 0; i < n; i++) {
        if (!env[i].value) {
            error("out of memory");
            goto fail;
        }
    }
    return n;

fail:
    for (int i = 0; i < n; i++)
        free(env[i].value);
    return -1;
}

/* ------------------------------------------------------------------ running */

static volatile sig_atomic_t child_pid;
static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define N_FORWARDED (sizeof forwarded / sizeof forwarded[0])
static struct sigaction saved[N_FORWARDED];

/* Signal handler: passes the signal on to CMD. A signal the terminal generated (^C, ^\, hangup:
 * si_code SI_KERNEL) already went to the whole foreground process group, CMD included; sending
 * it again would interrupt CMD twice (Python raises a second KeyboardInterrupt inside the
 * handling of the first). kill(1), timeout(1) and job schedulers signal vramtrace alone. */
static void forward(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    int saved_errno = errno;
    if (child_pid > 0 && info->si_code != SI_KERNEL)
        kill((pid_t)child_pid, sig);
    errno = saved_errno;
}

/* Catches the forwarded signals, except those ignored when vramtrace started: `nohup` or a
 * shell's background job (SIGINT ignored) meant CMD to ignore them too, and it inherits that. */
static void catch_signals(void)
{
    for (size_t i = 0; i < N_FORWARDED; i++) {
        sigaction(forwarded[i], NULL, &saved[i]);
        if (saved[i].sa_handler == SIG_IGN)
            continue;
        struct sigaction sa = {.sa_sigaction = forward, .sa_flags = SA_SIGINFO | SA_RESTART};
        sigemptyset(&sa.sa_mask);
        sigaction(forwarded[i], &sa, NULL);
    }
}

/* Runs file (PATH lookup) with argv and env[] applied, and waits for it; *pid_out is its pid.
 * Returns its exit status (128 + N after signal N), or 126/127 after the message when it could
 * not be started (as shells do: 127 not found, 126 found but not runnable), which *exec_failed
 * tells apart from the same status of a program. */
static int spawn(const char *file, char **argv, const env_set_t *env, int n_env, pid_t *pid_out,
                 bool *exec_failed)
{
    *exec_failed = false;
    *pid_out = 0;
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        error("cannot run '%s': %s", argv[0], strerror(errno));
        return 1;
    }
    sigset_t block, old_mask;
    sigemptyset(&block);
    for (size_t i = 0; i < N_FORWARDED; i++)
        sigaddset(&block, forwarded[i]);
    /* Blocked across fork: a signal before child_pid is known is forwarded once it is, and the
     * child restores our caller's dispositions before it can receive one. */
    sigprocmask(SIG_BLOCK, &block, &old_mask);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(pipefd[0]);
        for (size_t i = 0; i < N_FORWARDED; i++)
            sigaction(forwarded[i], &saved[i], NULL);
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        int err = 0;
        for (int i = 0; i < n_env && !err; i++)
            if (!(env[i].keep && getenv(env[i].name)) && setenv(env[i].name, env[i].value, 1))
                err = errno;
        if (!err) {
            execvp(file, argv);
            err = errno;
        }
        ssize_t unused = write(pipefd[1], &err, sizeof err);
        (void)unused;
        _exit(err == ENOENT ? 127 : 126);
    }
    int fork_errno = errno;
    if (pid > 0)
        child_pid = *pid_out = pid;
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    close(pipefd[1]);
    if (pid < 0) {
        close(pipefd[0]);
        error("cannot run '%s': %s", argv[0], strerror(fork_errno));
        return 1;
    }
    int err = 0;
    ssize_t n;
    while ((n = read(pipefd[0], &err, sizeof err)) < 0 && errno == EINTR)
        ;
    close(pipefd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            error("cannot wait for '%s': %s", argv[0], strerror(errno));
            child_pid = 0;
            return 1;
        }
    }
    child_pid = 0;
    if (n == (ssize_t)sizeof err) {
        *exec_failed = true;
        error("cannot run '%s': %s", argv[0], strerror(err));
        return err == ENOENT ? 127 : 126;
    }
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* The trace of CMD's own process, as the library names it (src/writer.c open_trace): -o FILE,
 * else VRAMTRACE_OUTPUT as the user exported it, else vramtrace.<pid>.vtr. Malloc'd. */
static char *trace_of(const run_opts_t *o, pid_t pid)
{
    if (o->output)
        return strdup(o->output);
    const char *out = getenv("VRAMTRACE_OUTPUT");
    if (!out || !*out)
        out = "vramtrace";
    if (ends_with(out, ".vtr"))
        return strdup(out);
    char pid_vtr[32];
    snprintf(pid_vtr, sizeof pid_vtr, ".%d.vtr", (int)pid);
    return join(out, pid_vtr, "");
}

static bool before_time(const struct timespec *a, const struct timespec *b);

/* A FILE that an earlier run left, and no live process holds (the library keeps an exclusive
 * flock on the trace it writes), is removed before CMD starts: -o FILE is this run's trace, and
 * the library never truncates a file that holds a trace. Only a regular file of ours. */
static void discard_stale(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
        flock(fd, LOCK_EX | LOCK_NB) == 0)
        unlink(path);
    close(fd);
}

/* Whether name is one of the library's names for stem (src/writer.c open_trace): stem.vtr,
 * stem.<pid>.vtr, stem.<pid>.<n>.vtr. */
static bool is_trace_name(const char *name, const char *stem, size_t stem_len)
{
    if (strncmp(name, stem, stem_len) != 0)
        return false;
    const char *p = name + stem_len;
    for (int numbers = 0; numbers <= 2; numbers++) {
        if (strcmp(p, ".vtr") == 0)
            return true;
        if (*p != '.' || p[1] < '0' || p[1] > '9')
            return false;
        p += 1 + strspn(p + 1, "0123456789");
    }
    return false;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The traces of FILE's naming written since start, FILE itself first: a malloc'd array of
 * malloc'd paths spelled as FILE is (its directory as given), *n their count. */
static char **traces_written(const char *file, const struct timespec *start, size_t *n)
{
    *n = 0;
    const char *slash = strrchr(file, '/');
    size_t dir_len = slash ? (size_t)(slash - file) + 1 : 0;
    char *dir = slash ? strndup(file, dir_len) : strdup("./");
    const char *stem = file + dir_len;
    size_t stem_len = strlen(stem) - 4;
    DIR *d = dir ? opendir(dir) : NULL;
    char **list = NULL;
    size_t cap = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!is_trace_name(e->d_name, stem, stem_len))
            continue;
        char *path = malloc(dir_len + strlen(e->d_name) + 1);
        struct stat st;
        if (!path)
            break;
        sprintf(path, "%.*s%s", (int)dir_len, file, e->d_name);
        bool ours = stat(path, &st) == 0 && S_ISREG(st.st_mode) && !before_time(&st.st_mtim, start);
        if (ours && *n == cap) {
            cap = cap ? 2 * cap : 8;
            char **grown = realloc(list, cap * sizeof *list);
            if (!grown)
                ours = false;
            else
                list = grown;
        }
        if (ours)
            list[(*n)++] = path;
        else
            free(path);
    }
    if (d)
        closedir(d);
    free(dir);
    if (*n > 1)
        qsort(list, *n, sizeof *list, by_name);
    for (size_t i = 1; i < *n; i++) { /* FILE itself first */
        if (strcmp(list[i] + dir_len, stem) == 0) {
            char *exact = list[i];
            memmove(list + 1, list, i * sizeof *list);
            list[0] = exact;
        }
    }
    return list;
}

/* "vramtrace: trace in 'FILE'", or "traces in 'A', 'B', ..." naming every file the run wrote
 * (the first 32). */
static void say_traces(char **list, size_t n)
{
    char line[4096];
    size_t used = (size_t)snprintf(line, sizeof line, "trace%s in ", n > 1 ? "s" : "");
    for (size_t i = 0; i < n && i < 32 && used < sizeof line; i++) {
        char *shown = vt_escaped(list[i]);
        used += (size_t)snprintf(line + used, sizeof line - used, "%s'%s'", i ? ", " : "",
                                 shown ? shown : "?");
        free(shown);
    }
    if (n > 32 && used < sizeof line)
        snprintf(line + used, sizeof line - used, " and %zu more", n - 32);
    error("%s", line);
}

typedef struct file_stamp_s {
    bool exists;
    struct timespec mtime;
    ino_t ino;
} file_stamp_t;

static file_stamp_t stamp(const char *path)
{
    struct stat st;
    file_stamp_t s = {false, {0, 0}, 0};
    if (path && stat(path, &st) == 0)
        s = (file_stamp_t){true, st.st_mtim, st.st_ino};
    return s;
}

/* Whether the run wrote the file: it appeared, or a trace of an earlier run was rewritten. */
static bool changed(const file_stamp_t *before, const file_stamp_t *after)
{
    return after->exists && (!before->exists || after->ino != before->ino ||
                             after->mtime.tv_sec != before->mtime.tv_sec ||
                             after->mtime.tv_nsec != before->mtime.tv_nsec);
}

static bool before_time(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* `vramtrace run`: see the usage. Exit status: CMD's (128 + N when signal N killed it; 127/126
 * when it could not be started), else with --report the report's; 1 when vramtrace could not
 * set CMD up, 2 usage. */
int cmd_run(int argc, char **argv)
{
    run_opts_t o = {0};
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    env_set_t env[MAX_ENV];
    int n_env = build_env(&o, env);
    if (n_env < 0)
        return 1;

    /* The trace of an earlier run may exist under the same name: tell it from ours afterwards.
     * Without -o the name holds CMD's pid, known only after the fork: a file of that name is
     * ours when it changed after the start (file times come from the coarse clock). */
    struct stat out_st;
    bool device = o.output && stat(o.output, &out_st) == 0 && S_ISCHR(out_st.st_mode);
    if (o.output && !device)
        discard_stale(o.output);
    file_stamp_t before = stamp(o.output);
    struct timespec start;
    clock_gettime(CLOCK_REALTIME_COARSE, &start);
    catch_signals();
    bool exec_failed;
    pid_t cmd_pid;
    rc = spawn(o.cmd[0], o.cmd, env, n_env, &cmd_pid, &exec_failed);
    for (int i = 0; i < n_env; i++)
        free(env[i].value);
    if (exec_failed || (!o.output && !o.report) || device)
        return rc; /* the library's exit line names the trace */

    char *trace = trace_of(&o, cmd_pid);
    if (!trace) {
        error("out of memory");
        return rc ? rc : 1;
    }
    file_stamp_t after = stamp(trace);
    bool ours =
        o.output ? changed(&before, &after) : after.exists && !before_time(&after.mtime, &start);
    size_t n_written = 0;
    char **written = o.output ? traces_written(o.output, &start, &n_written) : NULL;
    if (!ours && (n_written == 0 || o.report)) {
        if (!o.quiet || o.report) {
            char *shown = vt_escaped(trace);
            error("no trace was written to '%s'", shown ? shown : "?");
            free(shown);
        }
    }
    if (n_written && !o.quiet)
        say_traces(written, n_written);
    for (size_t i = 0; i < n_written; i++)
        free(written[i]);
    free(written);
    if (ours && o.report) {
        /* A process of our own rather than a call of cmd_report: the report starts from a
         * clean slate (globals, stdio), and `run` does not depend on it at link time. */
        char *report_argv[] = {"vramtrace", "report", trace, NULL};
        int report_rc = spawn("/proc/self/exe", report_argv, NULL, 0, &cmd_pid, &exec_failed);
        if (!rc)
            rc = report_rc;
    }
    free(trace);
    return rc;
}

/* SPDX-License-Identifier: MIT */
/* The CLI's main in a sandbox (fuzz_cli.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extreme.h"
#include "fuzz_cli.h"
#include "trace_builder.h"

/* The CLI's main, renamed: this file is its caller. */
#define main vt_cli_main
#include "vramtrace.c"
#undef main

static const char *const fixtures[] = {"a.vtr", "b.vtr", "d", "r.rules", "m.model"};
#define N_FIXTURES (sizeof(fixtures) / sizeof(fixtures[0]))

static void die(const char *what)
{
    perror(what);
    abort();
}

/* An ordinary trace: a process, a device, stacks in a module, phases, allocations, an OOM. */
static void ordinary_trace(const char *path, const char *rank)
{
    tb_t tb;
    tb_init(&tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR);
    uint32_t kv[4] = {tb_string(&tb, "pid"), tb_string(&tb, "42"), tb_string(&tb, "RANK"),
                      tb_string(&tb, rank)};
    tb_process(&tb, 1000, 1700000000000000000ull, 2, kv);
    tb_device(&tb, 0, tb_string(&tb, "Sim GPU"), 16ull << 30);
    uint32_t apis[3] = {tb_string(&tb, "none"), tb_string(&tb, "cudaMalloc"),
                        tb_string(&tb, "cudaFree")};
    tb_api_names(&tb, 3, apis);
    tb_module(&tb, 0x7f0000000000, 0x7f0000000000, 0x7f0001000000,
              tb_string(&tb, "nonexistent-libtorch.so"), "\xab\xcd", 2);
    tb_thread(&tb, 1, 42, tb_string(&tb, "python3"));
    uint32_t s1 = tb_stack(&tb, 0, 0x7f0000001000);
    uint32_t s2 = tb_stack(&tb, s1, 0x7f0000002000);
    tb_alloc(&tb, 1000, 0, VT_CAT_WEIGHTS, 0, 1, 0x10000000, 512 << 20, s1, 1);
    tb_phase_push(&tb, 10, 1, tb_string(&tb, "forward"));
    tb_alloc(&tb, 1000, 0, VT_CAT_ACTIVATIONS, 0, 1, 0x40000000, 256 << 20, s2, 1);
    tb_alloc(&tb, 10, 1, VT_CAT_DATA, 0, 1, 0x50000000, 64 << 20, s2, 1);
    tb_phase_pop(&tb, 10, 1);
    tb_mark(&tb, 10, 1, tb_string(&tb, "step"));
    uint64_t live[VT_CAT_COUNT] = {512 << 20};
    tb_oom(&tb, 10, 0, 1, 32ull << 30, s2, 1, 1 << 30, 16ull << 30, live);
    tb_free(&tb, 1000, 0, 0, 2, 0x40000000, 1);
    tb_end(&tb, 1000, 3, 1, 0, 0, 0);
    if (tb_write(&tb, path, tb.len) != 0)
        die(path);
    tb_release(&tb);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        die(path);
}

static char dir[64];

static void make_fixtures(void)
{
    ordinary_trace("a.vtr", "0");
    tb_t tb;
    tb_init(&tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR);
    extreme_trace(&tb, 1);
    if (tb_write(&tb, "b.vtr", tb.len) != 0)
        die("b.vtr");
    tb_release(&tb);
    write_text("r.rules", "weights func:*load*\nactivations phase:forward\n");
    write_text("m.model", "method = realistic\nparams = 7B\ndtype = bf16\nbatch = 8\n"
                          "seq = 2048\nhidden = 4096\nlayers = 32\n");
}

/* Whether a run wrote over a fixture (an output named like one): then they are made again, so
 * every input meets the same files. */
static int fixture_changed(void)
{
    static const char *const files[] = {"a.vtr", "b.vtr", "r.rules", "m.model"};
    static struct stat was[4];
    static int known;
    int changed = 0;
    for (int i = 0; i < 4; i++) {
        struct stat st;
        if (stat(files[i], &st) != 0)
            memset(&st, 0, sizeof(st));
        if (known && (st.st_ino != was[i].st_ino || st.st_size != was[i].st_size ||
                      st.st_mtim.tv_nsec != was[i].st_mtim.tv_nsec ||
                      st.st_mtim.tv_sec != was[i].st_mtim.tv_sec || !S_ISREG(st.st_mode)))
            changed = 1;
        was[i] = st;
    }
    known = 1;
    return changed;
}

static void clean(void);
static void clean_fixtures(void);

/* At exit: the sandbox goes (a crash leaves it, beside the crash's input). */
static void remove_sandbox(void)
{
    clean();
    clean_fixtures();
    unlink("d/rank0.vtr");
    unlink("d/rank1.vtr");
    rmdir("d");
    if (chdir("/") == 0)
        rmdir(dir);
}

const char *fuzz_cli_dir(void)
{
    if (dir[0])
        return dir;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/vt-fuzz-cli.XXXXXX",
             tmp && *tmp && strlen(tmp) < 32 ? tmp : "/tmp");
    if (!mkdtemp(dir) || chdir(dir) != 0)
        die("fuzz_cli: sandbox");
    make_fixtures();
    if (mkdir("d", 0755) != 0)
        die("d");
    ordinary_trace("d/rank0.vtr", "0");
    ordinary_trace("d/rank1.vtr", "1");
    fixture_changed();
    atexit(remove_sandbox);
    if (!freopen("/dev/null", "r", stdin))
        die("/dev/null");
    if (getenv("VT_FUZZ_CLI_VERBOSE")) /* to see what an input does */
        return dir;
    FILE *null_out = fopen("/dev/null", "w");
    if (!null_out)
        die("/dev/null");
    stdout = null_out;
    stderr = null_out;
    return dir;
}

static int is_fixture(const char *name)
{
    for (size_t i = 0; i < N_FIXTURES; i++)
        if (strcmp(name, fixtures[i]) == 0)
            return 1;
    return 0;
}

/* Removes what a run left beside the fixtures (outputs are files: the commands make no
 * directory). */
static void clean(void)
{
    DIR *d = opendir(".");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, "..") != 0))
            if (!is_fixture(e->d_name))
                unlink(e->d_name);
    closedir(d);
}

/* Removes the fixture files (a directory an output was refused on stays). */
static void clean_fixtures(void)
{
    for (size_t i = 0; i < N_FIXTURES; i++)
        if (strcmp(fixtures[i], "d") != 0)
            unlink(fixtures[i]);
}

int fuzz_cli_run(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strchr(argv[i], '/') || strstr(argv[i], "..") || strcmp(argv[i], "run") == 0)
            return -1;
    return fuzz_cli_run_trusted(argc, argv);
}

int fuzz_cli_run_trusted(int argc, char **argv)
{
    fuzz_cli_dir();
    int status = vt_cli_main(argc, argv);
    if (getenv("VT_FUZZ_CLI_VERBOSE"))
        fprintf(stderr, "fuzz_cli: exit %d\n", status);
    fflush(stdout);
    clearerr(stdout);
    clean();
    if (fixture_changed()) {
        clean_fixtures();
        make_fixtures();
        fixture_changed();
    }
    return status;
}

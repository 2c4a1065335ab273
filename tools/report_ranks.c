/* SPDX-License-Identifier: MIT */
/* `vramtrace report A.vtr B.vtr ...` or `report DIR`: one row per trace (a torchrun, SLURM or
 * mpirun rank, or any process of the tree) with its rank, host, pid, device peak and the largest
 * category at that peak; the worst rank is flagged. Each trace is read once, one at a time:
 * memory is one trace's live set, whatever the number of ranks. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json.h"
#include "report_ranks.h"
#include "trace_reader.h"
#include "util.h"

typedef struct rank_row_s {
    const char *path;
    char rank[32], host[256], pid[32];
    int64_t rank_number; /* for sorting; INT64_MAX when no numeric rank was recorded */
    uint64_t peak_bytes, peak_t_ns;
    uint32_t device;
    int top_category; /* -1: no device memory */
} rank_row_t;

/* The rank variables the capture library records, most specific first. */
static const char *const rank_keys[] = {"RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK"};

int vt_report_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_trace_name(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return n > 4 && strcmp(d->d_name + n - 4, ".vtr") == 0;
}

/* Reads one trace into row; returns 0, or -1 when it is unreadable (after a message). */
static int read_row(const char *path, rank_row_t *row)
{
    vt_reader_t r;
    vt_analysis_t a;
    memset(row, 0, sizeof(*row));
    row->path = path;
    row->top_category = -1;
    row->rank_number = INT64_MAX;
    if (vt_trace_load(path, &r, &a) < 0)
        return -1;
    size_t k = 0;
    while (k < sizeof(rank_keys) / sizeof(rank_keys[0]) &&
           (!vt_reader_process(&r, rank_keys[k], row->rank, sizeof(row->rank)) || !row->rank[0]))
        k++;
    char *end;
    long long rank = strtoll(row->rank, &end, 10);
    if (!row->rank[0])
        strcpy(row->rank, "-");
    else if (end != row->rank && !*end)
        row->rank_number = rank;
    if (!vt_reader_process(&r, "host", row->host, sizeof(row->host)) || !row->host[0])
        strcpy(row->host, "-");
    if (!vt_reader_process(&r, "pid", row->pid, sizeof(row->pid)) || !row->pid[0])
        strcpy(row->pid, "-");
    const vt_device_stats_t *peak = vt_analysis_peak(&a);
    if (peak && peak->peak_bytes) {
        row->peak_bytes = peak->peak_bytes;
        row->peak_t_ns = peak->peak_t_ns > r.t0_ns ? peak->peak_t_ns - r.t0_ns : 0;
        row->device = peak->device;
        row->top_category = 0;
        for (int c = 1; c < VT_CAT_COUNT; c++)
            if (peak->peak_by_category[c] > peak->peak_by_category[row->top_category])
                row->top_category = c;
    }
    vt_analysis_release(&a);
    vt_reader_release(&r);
    return 0;
}

/* By rank number, ranks before traces without one, then by file name. */
static int row_order(const void *pa, const void *pb)
{
    const rank_row_t *a = pa, *b = pb;
    if (a->rank_number != b->rank_number)
        return a->rank_number < b->rank_number ? -1 : 1;
    return strcmp(a->path, b->path);
}

static void print_rows(const rank_row_t *rows, size_t n, size_t worst, uint64_t sum_bytes)
{
    char b[32], s[32];
    printf("%zu traces\n", n);
    printf("  %-6s %-16s %-8s %11s %6s %10s  %-12s %s\n", "rank", "host", "pid", "peak", "device",
           "at", "top category", "file");
    for (size_t i = 0; i < n; i++) {
        const rank_row_t *row = &rows[i];
        char device[16];
        snprintf(device, sizeof(device), "%" PRIu32, row->device);
        printf("%s %-6s %-16.16s %-8s %11s %6s %10s  %-12s %s\n", i == worst ? "*" : " ", row->rank,
               row->host, row->pid, vt_fmt_binary(row->peak_bytes, b, sizeof(b)),
               row->top_category >= 0 ? device : "-",
               row->top_category >= 0 ? vt_fmt_seconds(row->peak_t_ns, s, sizeof(s)) : "-",
               row->top_category >= 0 ? vt_category_names[row->top_category] : "-", row->path);
    }
    if (rows[worst].peak_bytes)
        printf("* worst: rank %s (%s), peak %s\n", rows[worst].rank, rows[worst].path,
               vt_fmt_binary(rows[worst].peak_bytes, b, sizeof(b)));
    printf("sum of the peaks: %s (each rank's device peak, added)\n",
           vt_fmt_binary(sum_bytes, b, sizeof(b)));
}

static void print_json(const rank_row_t *rows, size_t n, size_t worst, uint64_t sum_bytes)
{
    vt_json_t j;
    vt_json_init(&j, stdout);
    vt_json_begin_object(&j, NULL);
    vt_json_begin_array(&j, "ranks");
    for (size_t i = 0; i < n; i++) {
        const rank_row_t *row = &rows[i];
        vt_json_begin_object(&j, NULL);
        vt_json_string(&j, "file", row->path);
        if (row->rank_number != INT64_MAX)
            vt_json_int(&j, "rank", row->rank_number);
        else if (strcmp(row->rank, "-") != 0)
            vt_json_string(&j, "rank", row->rank);
        if (strcmp(row->host, "-") != 0)
            vt_json_string(&j, "host", row->host);
        if (strcmp(row->pid, "-") != 0)
            vt_json_literal(&j, "pid", row->pid);
        vt_json_uint(&j, "peak_bytes", row->peak_bytes);
        if (row->top_category >= 0) {
            vt_json_uint(&j, "peak_time_ns", row->peak_t_ns);
            vt_json_uint(&j, "device", row->device);
            vt_json_string(&j, "top_category", vt_category_names[row->top_category]);
        }
        vt_json_bool(&j, "worst", i == worst && row->peak_bytes);
        vt_json_end_object(&j);
    }
    vt_json_end_array(&j);
    vt_json_uint(&j, "sum_peak_bytes", sum_bytes);
    vt_json_end_object(&j);
    vt_json_finish(&j);
}

int vt_report_ranks(const char *const *args, size_t n_args, int json)
{
    char **names = NULL; /* the paths of a directory's traces, owned */
    const char *const *paths = args;
    size_t n_paths = n_args;
    int rc = 0;
    if (n_args == 1) {
        struct dirent **list;
        int n = scandir(args[0], &list, is_trace_name, alphasort);
        if (n < 0)
            return error("cannot read directory '%s'", args[0]), 1;
        if (n == 0) {
            free(list);
            return error("'%s': no traces (*.vtr) in this directory", args[0]), 1;
        }
        n_paths = (size_t)n;
        names = calloc(n_paths, sizeof(*names));
        for (size_t i = 0; i < n_paths; i++) {
            if (names && asprintf(&names[i], "%s/%s", args[0], list[i]->d_name) < 0) {
                names[i] = NULL; /* undefined after a failure */
                rc = -1;
            }
            free(list[i]);
        }
        free(list);
        paths = (const char *const *)names;
    }
    rank_row_t *rows = names || n_args > 1 ? calloc(n_paths, sizeof(*rows)) : NULL;
    if (!rows || rc) {
        rc = error("out of memory listing %zu traces", n_paths);
        goto out;
    }
    size_t n_rows = 0;
    for (size_t i = 0; i < n_paths; i++) {
        if (vt_report_is_dir(paths[i])) {
            rc = error("'%s': a directory: give it alone, or give trace files", paths[i]);
            continue;
        }
        if (read_row(paths[i], &rows[n_rows]) == 0)
            n_rows++;
        else
            rc = -1;
    }
    if (n_rows) {
        qsort(rows, n_rows, sizeof(*rows), row_order);
        size_t worst = 0;
        uint64_t sum_bytes = 0;
        for (size_t i = 0; i < n_rows; i++) {
            sum_bytes += rows[i].peak_bytes;
            if (rows[i].peak_bytes > rows[worst].peak_bytes)
                worst = i;
        }
        if (json)
            print_json(rows, n_rows, worst, sum_bytes);
        else
            print_rows(rows, n_rows, worst, sum_bytes);
    }
out:
    free(rows);
    for (size_t i = 0; names && i < n_paths; i++)
        free(names[i]);
    free(names);
    return rc ? 1 : 0;
}

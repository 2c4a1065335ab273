/* SPDX-License-Identifier: MIT */
/* `vramtrace report A.vtr B.vtr ...` or `report DIR`: one row per trace (a torchrun, SLURM or
 * mpirun rank, or any process of the tree) with its rank, host, pid, device peak, the largest
 * category at that peak and its OOM count, the worst rank flagged; then the job's merged views:
 * each category at each rank's own peak (sum, max and its rank, min, max/mean), the call-sites
 * live at the ranks' peaks matched across ranks by the text of their symbolized frames (the
 * addresses differ between processes with ASLR), and the job's first OOM. Each trace is read
 * one at a time, in one pass that keeps what was live at its peak: memory is one trace's live set
 * (at the end and at the peak) plus the merged call-site table, whatever the number of ranks. */
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sat.h"
#include "frames.h"
#include "json.h"
#include "load.h"
#include "report_ranks.h"
#include "symbolize.h"
#include "trace_reader.h"
#include "units.h"
#include "util.h"

#define FRAME_CAP       512
#define TEXT_MAX_FRAMES 8 /* as a single trace's report */
#define PART_HEAD       5 /* a packed frame's line (4 bytes, host order) and python flag */

typedef struct rank_row_s {
    const char *path;
    size_t order; /* in reading order: the merged call-sites name their ranks by it */
    char rank[32], host[256], pid[32];
    int64_t rank_number; /* for sorting; INT64_MAX when no numeric rank was recorded */
    uint64_t peak_bytes, peak_t_ns;
    uint64_t peak_by_category[VT_CAT_COUNT];
    uint32_t device;
    int top_category; /* -1: no device memory */
    int has_sites;    /* its peak's call-sites are in the merged table */
    uint32_t n_ooms;
    uint64_t start_unix_ns;
    vt_oom_t first_oom; /* when n_ooms; t_ns from the trace's t0 */
    char first_oom_api[64];
} rank_row_t;

/* A call-site of the merged table: the same frames (as text) and category on one or more ranks.
 * Ranks are added one after the other, so rank_bytes sums the current rank's share. */
typedef struct merged_site_s {
    char *frames; /* malloc'd: the frames from the leaf, each ending in '\n'; "" for none */
    /* In the same allocation after frames' NUL, the same frames as parts (vt_frame_t) for JSON,
     * each packed as PART_HEAD then function, file and module, each ending in NUL. */
    const char *parts;
    size_t parts_len;
    /* The frames the text view shows (without --all-frames, those of the interpreter, libc, the
     * loader and vramtrace left out, as a single trace's report leaves them), in the same
     * allocation after the parts; frames itself when they are all shown. */
    const char *shown;
    uint64_t hash, bytes, n_allocs, max_bytes, rank_bytes;
    size_t n_ranks, last_row, max_row; /* rows[] indices in reading order */
    uint8_t category, used;
} merged_site_t;

typedef struct site_table_s {
    merged_site_t *slots; /* open addressing on hash; cap a power of two */
    size_t n, cap;
} site_table_t;

typedef struct text_buf_s {
    char *p;
    size_t len, cap;
} text_buf_t;

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

/* By rank number, ranks before traces without one, then by file name. */
static int row_order(const void *pa, const void *pb)
{
    const rank_row_t *a = pa, *b = pb;
    if (a->rank_number != b->rank_number)
        return a->rank_number < b->rank_number ? -1 : 1;
    return strcmp(a->path, b->path);
}

/* The rank of row as the text names it: its rank, or its file when it recorded none. */
static const char *who(const rank_row_t *row)
{
    return strcmp(row->rank, "-") != 0 ? row->rank : row->path;
}

/* ---- the merged call-site table ------------------------------------------------------------ */

/* Appends n bytes of data to b, which stays NUL-terminated. */
static int buf_bytes(text_buf_t *b, const void *data, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

/* Appends s and a newline. */
static int buf_put(text_buf_t *b, const char *s)
{
    return buf_bytes(b, s, strlen(s)) || buf_bytes(b, "\n", 1) ? -1 : 0;
}

/* A call-site's frames as the merged table keeps them: the text (its key), the parts, and the
 * text of the frames shown (empty: all are). */
typedef struct site_key_s {
    text_buf_t text, parts, shown;
} site_key_t;

static int key_frame(void *ctx, const vt_frame_t *f)
{
    site_key_t *k = ctx;
    char head[PART_HEAD];
    uint32_t line = f->line;
    memcpy(head, &line, sizeof(line));
    head[4] = f->python;
    if (buf_put(&k->text, f->text) != 0 || buf_bytes(&k->parts, head, sizeof(head)) != 0 ||
        buf_bytes(&k->parts, f->function, strlen(f->function) + 1) != 0 ||
        buf_bytes(&k->parts, f->file, strlen(f->file) + 1) != 0 ||
        buf_bytes(&k->parts, f->module, strlen(f->module) + 1) != 0)
        return -1;
    return 0;
}

static int key_shown_frame(void *ctx, const vt_frame_t *f)
{
    return buf_put(&((site_key_t *)ctx)->shown, f->text);
}

/* The packed frame at p into f (its strings point into p); returns the next one. */
static const char *frame_unpack(const char *p, vt_frame_t *f)
{
    uint32_t line;
    memcpy(&line, p, sizeof(line));
    memset(f, 0, sizeof(*f));
    f->line = line;
    f->python = p[4] != 0;
    p += PART_HEAD;
    f->function = p;
    p += strlen(p) + 1;
    f->file = p;
    p += strlen(p) + 1;
    f->module = p;
    return p + strlen(p) + 1;
}

static uint64_t site_hash(const char *frames, uint8_t category)
{
    uint64_t h = 0xcbf29ce484222325ULL ^ category; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)frames; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return h;
}

static merged_site_t *site_slot(merged_site_t *slots, size_t cap, uint64_t hash, const char *frames,
                                uint8_t category)
{
    for (size_t i = (size_t)hash & (cap - 1);; i = (i + 1) & (cap - 1)) {
        merged_site_t *e = &slots[i];
        if (!e->used ||
            (e->hash == hash && e->category == category && strcmp(e->frames, frames) == 0))
            return e;
    }
}

/* Adds bytes of the call-site (frames, category) of rows[row] to t; rows[row] is the rank being
 * read, rows[0..row] hold the ranks read so far (unsorted). Returns 0, or -1 when out of
 * memory. */
static int site_add(site_table_t *t, const rank_row_t *rows, size_t row, const site_key_t *key,
                    uint8_t category, uint64_t bytes, uint64_t n_allocs)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        merged_site_t *slots = calloc(cap, sizeof(*slots));
        if (!slots)
            return -1;
        for (size_t i = 0; i < t->cap; i++)
            if (t->slots[i].used)
                *site_slot(slots, cap, t->slots[i].hash, t->slots[i].frames, t->slots[i].category) =
                    t->slots[i];
        free(t->slots);
        t->slots = slots;
        t->cap = cap;
    }
    const char *frames = key->text.len ? key->text.p : "";
    uint64_t hash = site_hash(frames, category);
    merged_site_t *e = site_slot(t->slots, t->cap, hash, frames, category);
    if (!e->used) {
        size_t text_len = strlen(frames), shown_len = key->shown.len;
        if (!(e->frames = malloc(text_len + 1 + key->parts.len + shown_len + 1)))
            return -1;
        memcpy(e->frames, frames, text_len + 1);
        if (key->parts.len)
            memcpy(e->frames + text_len + 1, key->parts.p, key->parts.len);
        e->parts = e->frames + text_len + 1;
        e->parts_len = key->parts.len;
        e->shown = e->frames;
        if (shown_len) {
            char *shown = e->frames + text_len + 1 + key->parts.len;
            memcpy(shown, key->shown.p, shown_len + 1);
            e->shown = shown;
        }
        e->used = 1;
        e->hash = hash;
        e->category = category;
        e->last_row = SIZE_MAX;
        t->n++;
    }
    if (e->last_row != row) { /* the first time on this rank */
        e->last_row = row;
        e->rank_bytes = 0;
        e->n_ranks++;
    }
    /* Several ranks' bytes: each fits, their sum may not. */
    e->rank_bytes = vt_sat_add(e->rank_bytes, bytes);
    e->bytes = vt_sat_add(e->bytes, bytes);
    e->n_allocs = vt_sat_add(e->n_allocs, n_allocs);
    /* A tie goes to the rank shown first. */
    if (e->n_ranks == 1 || e->rank_bytes > e->max_bytes ||
        (e->rank_bytes == e->max_bytes && e->max_row != row &&
         row_order(&rows[row], &rows[e->max_row]) < 0)) {
        e->max_bytes = e->rank_bytes;
        e->max_row = row;
    }
    return 0;
}

static void site_table_release(site_table_t *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->slots[i].frames);
    free(t->slots);
    memset(t, 0, sizeof(*t));
}

/* Largest first, then by category and frames: the same order whatever the order of the files. */
static int site_order(const void *pa, const void *pb)
{
    const merged_site_t *a = *(const merged_site_t *const *)pa;
    const merged_site_t *b = *(const merged_site_t *const *)pb;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    if (a->category != b->category)
        return a->category < b->category ? -1 : 1;
    return strcmp(a->frames, b->frames);
}

/* Adds the call-sites live at the peak of rows[row] (the trace r, read to its end: its whole
 * modules and stacks, since a library may be recorded after the peak) to t, symbolized by sym
 * (moved to r here; sym->all_frames: the text view shows every frame). sites (n_sites of them)
 * are taken over. Returns 0, or -1 when out of memory (after a message). */
static int merge_peak_sites(site_table_t *t, vt_symbolizer_t *sym, rank_row_t *rows, size_t row,
                            const vt_reader_t *r, vt_site_t *sites, size_t n_sites)
{
    int have_sym = vt_symbolizer_set_trace(sym, r) == 0, rc = 0;
    /* Every frame, matched across processes (ASLR moves the addresses, not the offsets). */
    vt_frames_opts_t frames = {.sym = have_sym ? sym : NULL, .across_processes = true};
    vt_frames_opts_t shown = frames;
    shown.shown = true;
    bool all_shown = !have_sym || sym->all_frames;
    site_key_t key = {{NULL, 0, 0}, {NULL, 0, 0}, {NULL, 0, 0}};
    for (size_t i = 0; rc == 0 && i < n_sites; i++) {
        key.text.len = key.parts.len = key.shown.len = 0;
        if (vt_frames_walk_parts(&frames, r, sites[i].stack_id, key_frame, &key) < 0 ||
            (!all_shown &&
             vt_frames_walk_parts(&shown, r, sites[i].stack_id, key_shown_frame, &key) < 0))
            rc = -1;
        if (rc == 0)
            rc = site_add(t, rows, row, &key, sites[i].category, sites[i].bytes, sites[i].n_allocs);
    }
    rows[row].has_sites = rc == 0;
    free(key.text.p);
    free(key.parts.p);
    free(key.shown.p);
    free(sites);
    if (rc)
        error("out of memory merging the call-sites of '%s'", rows[row].path);
    return rc;
}

/* ---- one rank ------------------------------------------------------------------------------ */

/* One trace as a worker thread reads it, for the main thread to merge in reading order. */
typedef struct rank_job_s {
    const char *path;
    int status; /* -1 no row (unreadable, a directory), 0 a row, 1 a row and out of memory */
    rank_row_t row;
    vt_reader_t r;    /* open when status >= 0: the peak's frames are symbolized from it */
    vt_site_t *sites; /* the call-sites live at the peak (malloc'd) */
    size_t n_sites;
    int merge_sites;        /* the sites are to be merged (the peak had a live set to group) */
    vt_messages_t messages; /* what error() said while reading it, printed in order */
} rank_job_t;

/* The call-sites live at the peak of the trace r, from what the first pass kept (kept:
 * vt_analysis_peak_sites's result) or, when it could not (kept 1), from a second pass stopped
 * at the record that made the peak, as a single trace's report does. Returns 1 with the sites,
 * 0 without (the trace cannot be reopened: its row stands), -1 when out of memory. */
static int peak_sites(rank_job_t *job, const vt_device_stats_t *peak, int kept)
{
    if (kept <= 0)
        return kept < 0 ? -1 : 1;
    vt_reader_t r_peak;
    vt_analysis_t a;
    if (vt_reader_open(&r_peak, job->path) != 0) {
        vt_reader_release(&r_peak);
        return 0; /* it was read a moment ago; its table row stands */
    }
    vt_analyze(&r_peak, &a, peak->peak_record);
    int rc = vt_analysis_sites(&a, peak->device, &job->sites, &job->n_sites) != 0 ? -1 : 1;
    vt_analysis_release(&a);
    vt_reader_release(&r_peak);
    return rc;
}

/* Reads job->path into job->row, with its peak's call-sites into job->sites. Sets job->status;
 * messages said. */
static void read_row(rank_job_t *job)
{
    rank_row_t *out = &job->row;
    vt_reader_t *r = &job->r;
    vt_analysis_t a;
    memset(out, 0, sizeof(*out));
    out->path = job->path;
    out->top_category = -1;
    out->rank_number = INT64_MAX;
    job->status = -1;
    if (vt_report_is_dir(job->path)) {
        error("'%s': a directory: give it alone, or give trace files", job->path);
        return;
    }
    if (vt_trace_load_keeping_peaks(job->path, r, &a) < 0)
        return;
    job->status = 0;
    size_t k = 0;
    while (k < sizeof(rank_keys) / sizeof(rank_keys[0]) &&
           (!vt_reader_process(r, rank_keys[k], out->rank, sizeof(out->rank)) || !out->rank[0]))
        k++;
    char *end;
    long long rank = strtoll(out->rank, &end, 10);
    if (!out->rank[0])
        strcpy(out->rank, "-");
    else if (end != out->rank && !*end)
        out->rank_number = rank;
    if (!vt_reader_process(r, "host", out->host, sizeof(out->host)) || !out->host[0])
        strcpy(out->host, "-");
    if (!vt_reader_process(r, "pid", out->pid, sizeof(out->pid)) || !out->pid[0])
        strcpy(out->pid, "-");
    out->start_unix_ns = r->start_unix_ns;
    out->n_ooms = a.n_ooms;
    if (a.n_ooms) {
        out->first_oom = a.ooms[0];
        out->first_oom.t_ns = a.ooms[0].t_ns > r->t0_ns ? a.ooms[0].t_ns - r->t0_ns : 0;
        vt_reader_api_name(r, a.ooms[0].api, out->first_oom_api, sizeof(out->first_oom_api));
    }
    const vt_device_stats_t *p = vt_analysis_peak(&a);
    if (!p || !p->peak_bytes) {
        vt_analysis_release(&a);
        return;
    }
    vt_device_stats_t peak = *p;
    out->peak_bytes = peak.peak_bytes;
    out->peak_t_ns = peak.peak_t_ns > r->t0_ns ? peak.peak_t_ns - r->t0_ns : 0;
    out->device = peak.device;
    memcpy(out->peak_by_category, peak.peak_by_category, sizeof(out->peak_by_category));
    out->top_category = 0;
    for (int c = 1; c < VT_CAT_COUNT; c++)
        if (peak.peak_by_category[c] > peak.peak_by_category[out->top_category])
            out->top_category = c;
    /* A peak reached after a cap has no live set in the trace to group by call-site. */
    if (peak.peak_record == UINT64_MAX) {
        vt_analysis_release(&a);
        return;
    }
    int kept = vt_analysis_peak_sites(&a, peak.device, &job->sites, &job->n_sites);
    /* The end's live set goes before a replay's is built: one live set at a time. */
    vt_analysis_release(&a);
    int found = peak_sites(job, &peak, kept);
    job->merge_sites = found > 0;
    if (found < 0) {
        error("out of memory merging the call-sites of '%s'", job->path);
        job->status = 1;
    }
}

/* ---- the traces, read on every CPU --------------------------------------------------------- */

/* Traces are read by the main thread and one worker thread per other CPU, at most `window` ahead
 * of the one the main thread merges (the memory is that many traces' peak call-sites and
 * mappings); the main thread merges them in reading order, so the table, the merged views and
 * the messages are those of one thread. */
typedef struct rank_pool_s {
    pthread_mutex_t lock;
    pthread_cond_t job_done, slot_free;
    rank_job_t *slots; /* window of them: job k in slots[k % window] */
    unsigned char *done;
    size_t window, n_jobs, next, n_merged, n_waiting;
    const char *const *paths;
} rank_pool_t;

/* Whether a job may be claimed now (lock held). */
static int claimable(const rank_pool_t *pool)
{
    return pool->next < pool->n_jobs && pool->next < pool->n_merged + pool->window;
}

/* Claims the next job and reads its trace, with the messages kept (lock held on entry and on
 * return, released while reading). */
static void run_job(rank_pool_t *pool)
{
    size_t k = pool->next++;
    rank_job_t *job = &pool->slots[k % pool->window];
    pthread_mutex_unlock(&pool->lock);
    memset(job, 0, sizeof(*job));
    job->path = pool->paths[k];
    vt_error_capture(&job->messages);
    read_row(job);
    vt_error_capture(NULL);
    pthread_mutex_lock(&pool->lock);
    pool->done[k % pool->window] = 1;
    if (k == pool->n_merged) /* the one the main thread waits for */
        pthread_cond_signal(&pool->job_done);
}

static void *rank_worker(void *arg)
{
    rank_pool_t *pool = arg;
    pthread_mutex_lock(&pool->lock);
    while (pool->next < pool->n_jobs) {
        if (claimable(pool)) {
            run_job(pool);
        } else {
            pool->n_waiting++;
            pthread_cond_wait(&pool->slot_free, &pool->lock);
            pool->n_waiting--;
        }
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

/* The CPUs this process may run on. */
static size_t n_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        return (size_t)CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (size_t)n : 1;
}

/* Merges the job read into rows[*n_rows] and t, and releases it. Returns 0, or -1 when its trace
 * could not be read or memory ran out (messages said). */
static int merge_job(rank_job_t *job, vt_symbolizer_t *sym, int have_sym, rank_row_t *rows,
                     size_t *n_rows, site_table_t *t)
{
    if (job->messages.len)
        fwrite(job->messages.text, 1, job->messages.len, stderr);
    free(job->messages.text);
    int rc = job->status != 0 ? -1 : 0;
    if (job->status < 0)
        return rc;
    size_t row = (*n_rows)++;
    rows[row] = job->row;
    rows[row].order = row;
    if (!job->merge_sites) {
        free(job->sites);
    } else if (!have_sym) {
        free(job->sites);
        rc = error("out of memory merging the call-sites of '%s'", rows[row].path);
    } else if (merge_peak_sites(t, sym, rows, row, &job->r, job->sites, job->n_sites) != 0) {
        rc = -1;
    }
    vt_reader_release(&job->r);
    return rc;
}

/* Reads paths[0..n_paths) on every CPU into rows (reading order; n_rows set) and their peaks'
 * call-sites into t, each distinct module symbolized once (all_frames: the text shows every
 * frame). Returns 0, or -1 when a trace could not be read or memory ran out (the others are
 * still read; messages said). */
static int read_rows(const char *const *paths, size_t n_paths, rank_row_t *rows, size_t *n_rows,
                     site_table_t *t, bool all_frames)
{
    size_t n_workers = n_cpus() - 1;
    if (n_workers > n_paths - 1)
        n_workers = n_paths - 1;
    if (n_workers > 63)
        n_workers = 63;
    rank_pool_t pool;
    memset(&pool, 0, sizeof(pool));
    pool.window = 4 * (n_workers + 1);
    pool.n_jobs = n_paths;
    pool.paths = paths;
    pool.slots = calloc(pool.window, sizeof(*pool.slots));
    pool.done = calloc(pool.window, 1);
    pthread_t *threads = calloc(n_workers + 1, sizeof(*threads));
    if (!pool.slots || !pool.done || !threads) {
        free(pool.slots);
        free(pool.done);
        free(threads);
        return error("out of memory reading %zu traces", n_paths);
    }
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.job_done, NULL);
    pthread_cond_init(&pool.slot_free, NULL);
    size_t n_started = 0; /* threads that cannot start leave their share to the others */
    while (n_started < n_workers &&
           pthread_create(&threads[n_started], NULL, rank_worker, &pool) == 0)
        n_started++;

    vt_symbolizer_t sym;
    int have_sym = vt_symbolizer_init(&sym, NULL, 0, NULL) == 0, rc = 0;
    if (have_sym)
        sym.all_frames = all_frames;
    *n_rows = 0;
    pthread_mutex_lock(&pool.lock);
    for (size_t k = 0; k < n_paths; k++) {
        /* The main thread reads traces too while the one it merges next is being read. */
        while (!pool.done[k % pool.window]) {
            if (claimable(&pool))
                run_job(&pool);
            else
                pthread_cond_wait(&pool.job_done, &pool.lock);
        }
        pthread_mutex_unlock(&pool.lock);
        if (merge_job(&pool.slots[k % pool.window], &sym, have_sym, rows, n_rows, t) != 0)
            rc = -1;
        pthread_mutex_lock(&pool.lock);
        pool.done[k % pool.window] = 0;
        pool.n_merged++;
        if (pool.n_waiting)
            pthread_cond_signal(&pool.slot_free);
    }
    pool.next = pool.n_jobs; /* nothing left: the waiting workers end */
    pthread_cond_broadcast(&pool.slot_free);
    pthread_mutex_unlock(&pool.lock);
    for (size_t i = 0; i < n_started; i++)
        pthread_join(threads[i], NULL);
    if (have_sym)
        vt_symbolizer_release(&sym);
    pthread_cond_destroy(&pool.slot_free);
    pthread_cond_destroy(&pool.job_done);
    pthread_mutex_destroy(&pool.lock);
    free(threads);
    free(pool.done);
    free(pool.slots);
    return rc;
}

/* ---- the merged views ---------------------------------------------------------------------- */

/* One category (or, with c == VT_CAT_COUNT, the whole peak) over the ranks with device memory. */
typedef struct merged_category_s {
    uint64_t sum_bytes, max_bytes, min_bytes;
    size_t max_row;   /* into the sorted rows */
    double imbalance; /* max / mean; 0 when no rank held any */
} merged_category_t;

static uint64_t row_bytes(const rank_row_t *row, int c)
{
    return c == VT_CAT_COUNT ? row->peak_bytes : row->peak_by_category[c];
}

/* Returns the number of ranks with device memory (those the mean and the min are over). */
static size_t merge_category(const rank_row_t *rows, size_t n, int c, merged_category_t *m)
{
    size_t n_dev = 0;
    memset(m, 0, sizeof(*m));
    for (size_t i = 0; i < n; i++) {
        if (rows[i].top_category < 0)
            continue;
        uint64_t b = row_bytes(&rows[i], c);
        m->sum_bytes = vt_sat_add(m->sum_bytes, b);
        if (!n_dev || b > m->max_bytes)
            m->max_bytes = b, m->max_row = i;
        if (!n_dev || b < m->min_bytes)
            m->min_bytes = b;
        n_dev++;
    }
    if (m->sum_bytes)
        m->imbalance = (double)m->max_bytes * (double)n_dev / (double)m->sum_bytes;
    return n_dev;
}

/* The row of the job's first OOM, by wall clock (each trace's start plus the OOM's time; the
 * first row on a tie), or SIZE_MAX when none. */
static size_t first_oom_row(const rank_row_t *rows, size_t n)
{
    size_t first = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        if (rows[i].n_ooms &&
            (first == SIZE_MAX || rows[i].start_unix_ns + rows[i].first_oom.t_ns <
                                      rows[first].start_unix_ns + rows[first].first_oom.t_ns))
            first = i;
    return first;
}

/* The merged sites, largest first, in a malloc'd array of *n_out (NULL when none), with each
 * max_row turned from reading order into sorted order by pos. */
static merged_site_t **sorted_sites(const site_table_t *t, const size_t *pos, size_t *n_out)
{
    merged_site_t **v = t->n ? malloc(t->n * sizeof(*v)) : NULL;
    size_t n = 0;
    *n_out = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].used) {
            t->slots[i].max_row = pos[t->slots[i].max_row];
            v[n++] = &t->slots[i];
        }
    qsort(v, n, sizeof(*v), site_order);
    *n_out = n;
    return v;
}

typedef struct job_s {
    const rank_row_t *rows; /* sorted */
    size_t n_rows, worst, n_site_ranks;
    uint64_t sum_bytes;
    merged_site_t **sites; /* largest first */
    size_t n_sites, top;   /* top: how many shown; 0 all */
} job_t;

static size_t n_shown(const job_t *job)
{
    return job->top && job->top < job->n_sites ? job->top : job->n_sites;
}

static void print_rows(const job_t *job)
{
    const rank_row_t *rows = job->rows;
    size_t n = job->n_rows, worst = job->worst;
    char b[32], b2[32], b3[32], b4[32], s[32], imb[32];
    printf("%zu traces\n", n);
    printf("  %-6s %-16s %-8s %11s %6s %10s  %-12s %4s  %s\n", "rank", "host", "pid", "peak",
           "device", "at", "top category", "ooms", "file");
    for (size_t i = 0; i < n; i++) {
        const rank_row_t *row = &rows[i];
        char device[16];
        snprintf(device, sizeof(device), "%" PRIu32, row->device);
        printf("%s %-6s %-16.16s %-8s %11s %6s %10s  %-12s %4" PRIu32 "  %s\n",
               i == worst ? "*" : " ", row->rank, row->host, row->pid,
               vt_fmt_binary(row->peak_bytes, b, sizeof(b)), row->top_category >= 0 ? device : "-",
               row->top_category >= 0 ? vt_fmt_seconds(row->peak_t_ns, s, sizeof(s)) : "-",
               row->top_category >= 0 ? vt_category_names[row->top_category] : "-", row->n_ooms,
               row->path);
    }
    if (rows[worst].peak_bytes)
        printf("* worst: rank %s (%s), peak %s\n", rows[worst].rank, rows[worst].path,
               vt_fmt_binary(rows[worst].peak_bytes, b, sizeof(b)));
    printf("sum of the peaks: %s (each rank's device peak, added)\n",
           vt_fmt_binary(job->sum_bytes, b, sizeof(b)));

    merged_category_t m;
    size_t n_dev = merge_category(rows, n, VT_CAT_COUNT, &m);
    if (n_dev) {
        printf("by category at each rank's peak, over the %zu rank%s with device memory:\n", n_dev,
               n_dev == 1 ? "" : "s");
        printf("  %-12s %11s %11s  %-6s %11s  %8s\n", "category", "sum", "max", "rank", "min",
               "max/mean");
        for (int c = 0; c <= VT_CAT_COUNT; c++) {
            merge_category(rows, n, c, &m);
            if (m.sum_bytes)
                snprintf(imb, sizeof(imb), "%.2f", m.imbalance);
            else
                snprintf(imb, sizeof(imb), "-");
            printf("  %-12s %11s %11s  %-6s %11s  %8s\n",
                   c < VT_CAT_COUNT ? vt_category_names[c] : "total",
                   vt_fmt_binary(m.sum_bytes, b, sizeof(b)),
                   vt_fmt_binary(m.max_bytes, b2, sizeof(b2)),
                   m.max_bytes ? who(&rows[m.max_row]) : "-",
                   vt_fmt_binary(m.min_bytes, b3, sizeof(b3)), imb);
        }
    }

    if (job->n_sites) {
        printf("top call-sites at each rank's peak, matched across ranks by their frames:\n");
        for (size_t i = 0; i < n_shown(job); i++) {
            const merged_site_t *e = job->sites[i];
            printf("  %11s  %-11s %" PRIu64 " allocation%s on %zu of %zu rank%s, at most %s on "
                   "rank %s\n",
                   vt_fmt_binary(e->bytes, b, sizeof(b)), vt_category_names[e->category],
                   e->n_allocs, e->n_allocs == 1 ? "" : "s", e->n_ranks, job->n_site_ranks,
                   job->n_site_ranks == 1 ? "" : "s", vt_fmt_binary(e->max_bytes, b2, sizeof(b2)),
                   who(&rows[e->max_row]));
            if (!e->shown[0])
                printf("      (no call-site recorded)\n");
            int depth = 0;
            for (const char *f = e->shown; *f; depth++) {
                const char *nl = strchr(f, '\n');
                if (depth == TEXT_MAX_FRAMES) {
                    printf("      ...\n");
                    break;
                }
                printf("      %.*s\n", (int)(nl - f), f);
                f = nl + 1;
            }
        }
    }

    size_t first = first_oom_row(rows, n), n_oom_ranks = 0;
    uint64_t n_ooms = 0;
    for (size_t i = 0; i < n; i++) {
        n_ooms += rows[i].n_ooms;
        n_oom_ranks += rows[i].n_ooms != 0;
    }
    if (first == SIZE_MAX) {
        printf("out-of-memory errors: none\n");
        return;
    }
    const vt_oom_t *o = &rows[first].first_oom;
    printf("out-of-memory errors: %" PRIu64 " on %zu rank%s, the first on rank %s (%s):\n", n_ooms,
           n_oom_ranks, n_oom_ranks == 1 ? "" : "s", rows[first].rank, rows[first].path);
    printf("  %s on device %" PRIu32 ": %s of %s failed with %s live\n",
           vt_fmt_seconds(o->t_ns, s, sizeof(s)), o->device, rows[first].first_oom_api,
           vt_fmt_binary(o->requested_bytes, b, sizeof(b)),
           vt_fmt_binary(o->live_total_bytes, b4, sizeof(b4)));
}

/* "rank": N, or S when it is not a number, or nothing when none was recorded. */
static void json_rank(vt_json_t *j, const char *key, const rank_row_t *row)
{
    if (row->rank_number != INT64_MAX)
        vt_json_int(j, key, row->rank_number);
    else if (strcmp(row->rank, "-") != 0)
        vt_json_string(j, key, row->rank);
}

static void json_imbalance(vt_json_t *j, const char *key, const merged_category_t *m)
{
    char v[32];
    if (m->sum_bytes)
        snprintf(v, sizeof(v), "%.3f", m->imbalance);
    else
        snprintf(v, sizeof(v), "null");
    vt_json_literal(j, key, v);
}

static void print_json(const job_t *job)
{
    const rank_row_t *rows = job->rows;
    size_t n = job->n_rows, worst = job->worst;
    vt_json_t j;
    vt_json_init(&j, stdout);
    vt_json_begin_object(&j, NULL);
    vt_json_begin_array(&j, "ranks");
    for (size_t i = 0; i < n; i++) {
        const rank_row_t *row = &rows[i];
        vt_json_begin_object(&j, NULL);
        vt_json_string(&j, "file", row->path);
        json_rank(&j, "rank", row);
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
        vt_json_uint(&j, "ooms", row->n_ooms);
        vt_json_end_object(&j);
    }
    vt_json_end_array(&j);
    vt_json_uint(&j, "sum_peak_bytes", job->sum_bytes);

    merged_category_t m;
    size_t n_dev = merge_category(rows, n, VT_CAT_COUNT, &m);
    vt_json_uint(&j, "device_ranks", n_dev);
    if (n_dev) {
        vt_json_uint(&j, "min_peak_bytes", m.min_bytes);
        json_imbalance(&j, "peak_imbalance", &m);
    }
    vt_json_begin_object(&j, "by_category");
    for (int c = 0; c < VT_CAT_COUNT; c++) {
        merge_category(rows, n, c, &m);
        vt_json_begin_object(&j, vt_category_names[c]);
        vt_json_uint(&j, "sum_bytes", m.sum_bytes);
        vt_json_uint(&j, "max_bytes", m.max_bytes);
        if (m.max_bytes) {
            json_rank(&j, "max_rank", &rows[m.max_row]);
            vt_json_string(&j, "max_file", rows[m.max_row].path);
        }
        vt_json_uint(&j, "min_bytes", m.min_bytes);
        json_imbalance(&j, "imbalance", &m);
        vt_json_end_object(&j);
    }
    vt_json_end_object(&j);

    vt_json_uint(&j, "site_ranks", job->n_site_ranks);
    vt_json_begin_array(&j, "top_sites");
    for (size_t i = 0; i < n_shown(job); i++) {
        const merged_site_t *e = job->sites[i];
        vt_json_begin_object(&j, NULL);
        vt_json_uint(&j, "bytes", e->bytes);
        vt_json_string(&j, "category", vt_category_names[e->category]);
        vt_json_uint(&j, "allocs", e->n_allocs);
        vt_json_uint(&j, "ranks", e->n_ranks);
        vt_json_uint(&j, "max_bytes", e->max_bytes);
        json_rank(&j, "max_rank", &rows[e->max_row]);
        vt_json_string(&j, "max_file", rows[e->max_row].path);
        vt_json_begin_array(&j, "frames");
        char frame[FRAME_CAP];
        for (const char *f = e->frames; *f;) {
            const char *nl = strchr(f, '\n');
            snprintf(frame, sizeof(frame), "%.*s", (int)(nl - f), f);
            vt_json_string(&j, NULL, frame);
            f = nl + 1;
        }
        vt_json_end_array(&j);
        vt_json_begin_array(&j, "stack");
        for (const char *p = e->parts; p < e->parts + e->parts_len;) {
            vt_frame_t f;
            p = frame_unpack(p, &f);
            vt_frames_json_object(&j, &f);
        }
        vt_json_end_array(&j);
        vt_json_end_object(&j);
    }
    vt_json_end_array(&j);

    uint64_t n_ooms = 0;
    for (size_t i = 0; i < n; i++)
        n_ooms += rows[i].n_ooms;
    vt_json_uint(&j, "total_ooms", n_ooms);
    size_t first = first_oom_row(rows, n);
    if (first != SIZE_MAX) {
        const rank_row_t *row = &rows[first];
        const vt_oom_t *o = &row->first_oom;
        vt_json_begin_object(&j, "first_oom");
        vt_json_string(&j, "file", row->path);
        json_rank(&j, "rank", row);
        vt_json_uint(&j, "time_ns", o->t_ns);
        vt_json_uint(&j, "unix_time_ns", row->start_unix_ns + o->t_ns);
        vt_json_uint(&j, "device", o->device);
        vt_json_uint(&j, "requested_bytes", o->requested_bytes);
        vt_json_uint(&j, "live_bytes", o->live_total_bytes);
        vt_json_string(&j, "api", row->first_oom_api);
        vt_json_end_object(&j);
    }
    vt_json_end_object(&j);
    vt_json_finish(&j);
}

int vt_report_ranks(const char *const *args, size_t n_args, int json, size_t top, bool all_frames)
{
    char **names = NULL; /* the paths of a directory's traces, owned */
    const char *const *paths = args;
    size_t n_paths = n_args, *pos = NULL;
    site_table_t sites = {NULL, 0, 0};
    merged_site_t **sorted = NULL;
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
        names = calloc((size_t)n, sizeof(*names));
        if (!names)
            rc = -1;
        size_t n_skipped = 0;
        n_paths = 0;
        for (int i = 0; i < n; i++) {
            char *name = NULL;
            struct stat st;
            if (names && asprintf(&name, "%s/%s", args[0], list[i]->d_name) < 0) {
                name = NULL; /* undefined after a failure */
                rc = -1;
            }
            /* A FIFO, a device or a directory named *.vtr is no trace: skipped, so that one
             * such entry cannot hang or stop the report of the whole job. */
            if (name && (stat(name, &st) != 0 || !S_ISREG(st.st_mode))) {
                n_skipped++;
                free(name);
            } else if (name) {
                names[n_paths++] = name;
            }
            free(list[i]);
        }
        free(list);
        if (n_skipped)
            error("warning: '%s': %zu entr%s named *.vtr skipped: not a regular file", args[0],
                  n_skipped, n_skipped == 1 ? "y" : "ies");
        if (!n_paths && !rc) {
            free(names);
            return error("'%s': no traces (*.vtr) in this directory", args[0]), 1;
        }
        paths = (const char *const *)names;
    }
    rank_row_t *rows = names || n_args > 1 ? calloc(n_paths, sizeof(*rows)) : NULL;
    pos = calloc(n_paths, sizeof(*pos));
    if (!rows || !pos || rc) {
        rc = error("out of memory listing %zu traces", n_paths);
        goto out;
    }
    size_t n_rows = 0;
    if (read_rows(paths, n_paths, rows, &n_rows, &sites, all_frames) != 0)
        rc = -1;
    if (n_rows) {
        qsort(rows, n_rows, sizeof(*rows), row_order);
        job_t job = {rows, n_rows, 0, 0, 0, NULL, 0, top};
        for (size_t i = 0; i < n_rows; i++) {
            pos[rows[i].order] = i;
            job.n_site_ranks += (size_t)rows[i].has_sites;
            job.sum_bytes = vt_sat_add(job.sum_bytes, rows[i].peak_bytes);
            if (rows[i].peak_bytes > rows[job.worst].peak_bytes)
                job.worst = i;
        }
        sorted = job.sites = sorted_sites(&sites, pos, &job.n_sites);
        if (sites.n && !sorted)
            rc = error("out of memory sorting %zu call-sites", sites.n);
        if (json)
            print_json(&job);
        else
            print_rows(&job);
    }
out:
    free(sorted);
    site_table_release(&sites);
    free(pos);
    free(rows);
    for (size_t i = 0; names && i < n_paths; i++)
        free(names[i]);
    free(names);
    return rc ? 1 : 0;
}

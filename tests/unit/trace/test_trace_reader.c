/* SPDX-License-Identifier: MIT */
/* The trace reader against traces written by the trace builder: every record type decoded to
 * the exact values written, the delta chains and implicit ids, the analysis (peaks, categories
 * at the peak, totals, OOMs, call-sites, a random live set against a plain model), and damage:
 * truncation at every byte, corruption of every byte, an unknown major version, unknown record
 * types, undefined references, bad files. Run under ASan with -DVRAMTRACE_SANITIZE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "trace_builder.h"
#include "trace_reader.h"
#include "vt_test.h"

static char dir[256];

static const char *tmp_path(const char *name)
{
    static char path[300];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return path;
}

static int contains(const char *s, const char *part)
{
    return strstr(s, part) != NULL;
}

/* ---- a trace with every record type ------------------------------------------------------- */

static const uint64_t oom_live[VT_CAT_COUNT] = {100, 200, 300, 400, 500, 600, 700};

static void build_all(tb_t *tb)
{
    tb_init(tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR);
    uint32_t k_pid = tb_string(tb, "pid");        /* 1 */
    uint32_t v_pid = tb_string(tb, "4242");       /* 2 */
    uint32_t k_exe = tb_string(tb, "exe");        /* 3 */
    uint32_t v_exe = tb_string(tb, "/bin/train"); /* 4 */
    uint32_t kv[4] = {k_pid, v_pid, k_exe, v_exe};
    tb_process(tb, 1000000000, 1700000000000000000ULL, 2, kv);
    uint32_t gpu = tb_string(tb, "Sim GPU"); /* 5 */
    tb_device(tb, 0, gpu, 16ULL << 30);
    uint32_t names[3] = {tb_string(tb, "none"), tb_string(tb, "cudaMalloc"),
                         tb_string(tb, "cudaFree")}; /* 6 7 8 */
    tb_api_names(tb, 3, names);
    uint32_t main_name = tb_string(tb, "main"); /* 9 */
    tb_thread(tb, 1, 777, main_name);
    uint32_t lib = tb_string(tb, "/lib/libx.so"); /* 10 */
    tb_module(tb, 0x7f0000000000, 0x7f0000001000, 0x7f0000100000, lib, "\x01\x02\x03", 3);
    uint32_t py = tb_string(tb, "train.py:step"); /* 11 */
    uint32_t s1 = tb_stack(tb, 0, 0x401000);
    uint32_t s2 = tb_stack(tb, s1, 0x400f00); /* a negative delta */
    uint32_t s3 = tb_stack(tb, s2, VT_PYFRAME_BIT | (uint64_t)py << VT_PYFRAME_LINE_BITS | 42);
    tb_alloc(tb, 10, VT_TRACE_SERIES_DEVICE, VT_CAT_WEIGHTS, 0, 1, 0x7f1000000000, 1000, s3, 1);
    tb_alloc(tb, 20, VT_TRACE_SERIES_DEVICE, VT_CAT_ACTIVATIONS, 0, 1, 0x7f0000000000, 500, s2, 1);
    tb_alloc(tb, 5, VT_TRACE_SERIES_PINNED, VT_CAT_DATA, 0, 1, 0x10000, 64, 0, 1);
    tb_alloc(tb, 5, VT_TRACE_SERIES_MANAGED, VT_CAT_UNKNOWN, 0, 1, 0x20000, 32, 0, 1);
    tb_free(tb, 30, VT_TRACE_SERIES_DEVICE, 0, 2, 0x7f0000000000, 1);
    tb_free(tb, 1, VT_TRACE_SERIES_DEVICE, 1, 2, 0x5000, 1);
    uint32_t phase = tb_string(tb, "forward"); /* 12 */
    tb_phase_push(tb, 2, 1, phase);
    tb_phase_pop(tb, 3, 1);
    tb_mark(tb, 4, 1, phase);
    tb_meminfo(tb, 5, 0, 8ULL << 30, 16ULL << 30);
    tb_failed(tb, 6, 1, 1ULL << 40, 2, s1, 1);
    tb_oom(tb, 7, 0, 1, 1ULL << 41, s3, 1, 123, 16ULL << 30, oom_live);
    tb_extension(tb, 200, "abc", 3);
    tb_end(tb, 8, 4, 2, 2, 1, 0);
}

static void test_round_trip(void)
{
    tb_t tb;
    build_all(&tb);
    const char *path = tmp_path("all.vtr");
    VT_CHECK("write", tb_write(&tb, path, SIZE_MAX) == 0);
    vt_reader_t r;
    VT_CHECK("open", vt_reader_open(&r, path) == 0);
    vt_event_t ev;
    int i = 0;
    uint64_t t = 1000000000;
#define NEXT(want_type)                                                                            \
    do {                                                                                           \
        VT_CHECK_EQ("next", vt_reader_next(&r, &ev), 1);                                           \
        VT_CHECK_EQ("type", ev.type, want_type);                                                   \
        i++;                                                                                       \
    } while (0)
    for (int k = 0; k < 4; k++) {
        NEXT(VT_REC_STRING);
        VT_CHECK_EQ("string id", ev.u.string.id, k + 1);
    }
    VT_CHECK("string 4", ev.u.string.len == 10 && memcmp(ev.u.string.bytes, "/bin/train", 10) == 0);
    NEXT(VT_REC_PROCESS);
    VT_CHECK_EQ("t0", ev.u.process.t0_ns, 1000000000);
    VT_CHECK("start", ev.u.process.start_unix_ns == 1700000000000000000ULL);
    VT_CHECK_EQ("n", ev.u.process.n, 2);
    NEXT(VT_REC_STRING);
    NEXT(VT_REC_DEVICE);
    VT_CHECK_EQ("device", ev.u.device.device, 0);
    VT_CHECK_EQ("device name", ev.u.device.name_string_id, 5);
    VT_CHECK("device total", ev.u.device.total_bytes == 16ULL << 30);
    for (int k = 0; k < 3; k++)
        NEXT(VT_REC_STRING);
    NEXT(VT_REC_API_NAMES);
    VT_CHECK_EQ("api count", ev.u.api_names.n, 3);
    NEXT(VT_REC_STRING);
    NEXT(VT_REC_THREAD);
    VT_CHECK_EQ("thread id", ev.u.thread.id, 1);
    VT_CHECK_EQ("thread", ev.u.thread.thread, 1);
    VT_CHECK_EQ("os tid", ev.u.thread.os_tid, 777);
    VT_CHECK_EQ("thread name", ev.u.thread.name_string_id, 9);
    NEXT(VT_REC_STRING);
    NEXT(VT_REC_MODULE);
    VT_CHECK("bias", ev.u.module.load_bias == 0x7f0000000000);
    VT_CHECK("lo", ev.u.module.lo == 0x7f0000001000);
    VT_CHECK("hi", ev.u.module.hi == 0x7f0000100000);
    VT_CHECK_EQ("path", ev.u.module.path_string_id, 10);
    VT_CHECK("build id", ev.u.module.build_id_len == 3 && ev.u.module.build_id[2] == 3);
    NEXT(VT_REC_STRING);
    VT_CHECK_EQ("py string id", ev.u.string.id, 11);
    NEXT(VT_REC_STACK);
    VT_CHECK("stack 1",
             ev.u.stack.id == 1 && ev.u.stack.parent_id == 0 && ev.u.stack.ip == 0x401000);
    NEXT(VT_REC_STACK);
    VT_CHECK("stack 2",
             ev.u.stack.id == 2 && ev.u.stack.parent_id == 1 && ev.u.stack.ip == 0x400f00);
    NEXT(VT_REC_STACK);
    VT_CHECK("stack 3", ev.u.stack.id == 3 && ev.u.stack.parent_id == 2);
    VT_CHECK("py frame", (ev.u.stack.ip & VT_PYFRAME_BIT) &&
                             VT_PYFRAME_STRING(ev.u.stack.ip) == 11 &&
                             VT_PYFRAME_LINE(ev.u.stack.ip) == 42);
    NEXT(VT_REC_ALLOC);
    t += 10;
    VT_CHECK("alloc t", ev.t_ns == t);
    VT_CHECK("alloc 1", ev.u.alloc.series == 0 && ev.u.alloc.category == VT_CAT_WEIGHTS &&
                            ev.u.alloc.device == 0 && ev.u.alloc.api == 1 &&
                            ev.u.alloc.address == 0x7f1000000000 && ev.u.alloc.size_bytes == 1000 &&
                            ev.u.alloc.stack_id == 3 && ev.u.alloc.thread == 1);
    NEXT(VT_REC_ALLOC);
    t += 20;
    VT_CHECK("alloc 2", ev.t_ns == t && ev.u.alloc.address == 0x7f0000000000 &&
                            ev.u.alloc.category == VT_CAT_ACTIVATIONS && ev.u.alloc.stack_id == 2);
    NEXT(VT_REC_ALLOC);
    VT_CHECK("alloc pinned", ev.u.alloc.series == 1 && ev.u.alloc.address == 0x10000 &&
                                 ev.u.alloc.category == VT_CAT_DATA && ev.u.alloc.stack_id == 0);
    NEXT(VT_REC_ALLOC);
    VT_CHECK("alloc managed", ev.u.alloc.series == 2 && ev.u.alloc.address == 0x20000);
    t += 10;
    NEXT(VT_REC_FREE);
    t += 30;
    VT_CHECK("free", ev.t_ns == t && ev.u.free.series == 0 && ev.u.free.unmatched == 0 &&
                         ev.u.free.api == 2 && ev.u.free.address == 0x7f0000000000);
    NEXT(VT_REC_FREE);
    VT_CHECK("free unmatched", ev.u.free.unmatched == 1 && ev.u.free.address == 0x5000);
    NEXT(VT_REC_STRING);
    NEXT(VT_REC_PHASE_PUSH);
    VT_CHECK("push", ev.u.phase.thread == 1 && ev.u.phase.string_id == 12);
    NEXT(VT_REC_PHASE_POP);
    VT_CHECK_EQ("pop thread", ev.u.phase.thread, 1);
    NEXT(VT_REC_MARK);
    VT_CHECK_EQ("mark label", ev.u.phase.string_id, 12);
    NEXT(VT_REC_MEMINFO);
    VT_CHECK("meminfo",
             ev.u.meminfo.free_bytes == 8ULL << 30 && ev.u.meminfo.total_bytes == 16ULL << 30);
    NEXT(VT_REC_FAILED);
    VT_CHECK("failed", ev.u.failed.api == 1 && ev.u.failed.requested_bytes == 1ULL << 40 &&
                           ev.u.failed.error == 2 && ev.u.failed.stack_id == 1);
    NEXT(VT_REC_OOM);
    t += 1 + 2 + 3 + 4 + 5 + 6 + 7;
    VT_CHECK("oom t", ev.t_ns == t);
    VT_CHECK("oom", ev.u.oom.device == 0 && ev.u.oom.api == 1 &&
                        ev.u.oom.requested_bytes == 1ULL << 41 && ev.u.oom.stack_id == 3 &&
                        ev.u.oom.free_bytes == 123 && ev.u.oom.total_bytes == 16ULL << 30 &&
                        memcmp(ev.u.oom.live_bytes, oom_live, sizeof(oom_live)) == 0);
    NEXT(200);
    VT_CHECK_EQ("extension length", ev.u.ext.body_len, 3);
    NEXT(VT_REC_END);
    VT_CHECK("end", ev.u.end.allocs == 4 && ev.u.end.frees == 2 && ev.u.end.failed == 2 &&
                        ev.u.end.unmatched_frees == 1 && ev.u.end.dropped == 0);
    VT_CHECK_EQ("end of data", vt_reader_next(&r, &ev), 0);
    VT_CHECK_EQ("stays at the end", vt_reader_next(&r, &ev), 0);
    VT_CHECK("seen end", r.seen_end);
    VT_CHECK_EQ("unknown extensions", r.n_unknown, 1);

    char buf[256];
    VT_CHECK("api name", strcmp(vt_reader_api_name(&r, 1, buf, sizeof(buf)), "cudaMalloc") == 0);
    VT_CHECK("api fallback", strcmp(vt_reader_api_name(&r, 9, buf, sizeof(buf)), "api#9") == 0);
    VT_CHECK("pid", strcmp(vt_reader_process(&r, "pid", buf, sizeof(buf)), "4242") == 0);
    VT_CHECK("no host", vt_reader_process(&r, "host", buf, sizeof(buf)) == NULL);
    VT_CHECK_EQ("frame py parent", vt_reader_frame(&r, 3, buf, sizeof(buf)), 2);
    VT_CHECK("frame py", strcmp(buf, "train.py:step:42") == 0);
    VT_CHECK_EQ("frame native parent", vt_reader_frame(&r, 2, buf, sizeof(buf)), 1);
    VT_CHECK("frame native", strcmp(buf, "0x400f00") == 0);
    vt_reader_release(&r);

    /* The analysis of the same trace. */
    vt_analysis_t a;
    VT_CHECK("reopen", vt_reader_open(&r, path) == 0);
    VT_CHECK_EQ("analyze", vt_analyze(&r, &a, UINT64_MAX), 0);
    const vt_device_stats_t *peak = vt_analysis_peak(&a);
    VT_CHECK("peak", peak && peak->device == 0 && peak->peak_bytes == 1500);
    VT_CHECK("peak time", peak && peak->peak_t_ns == 1000000030);
    VT_CHECK_EQ("peak record", peak ? peak->peak_record : 0, 21);
    VT_CHECK("peak weights", peak && peak->peak_by_category[VT_CAT_WEIGHTS] == 1000);
    VT_CHECK("peak activations", peak && peak->peak_by_category[VT_CAT_ACTIVATIONS] == 500);
    VT_CHECK_EQ("pinned", a.peak_bytes[VT_TRACE_SERIES_PINNED], 64);
    VT_CHECK_EQ("managed", a.peak_bytes[VT_TRACE_SERIES_MANAGED], 32);
    VT_CHECK_EQ("allocs", a.n_allocs, 4);
    VT_CHECK_EQ("frees", a.n_frees, 2);
    VT_CHECK_EQ("failed + oom", a.n_failed, 2);
    VT_CHECK_EQ("unmatched", a.n_unmatched_frees, 1);
    VT_CHECK_EQ("leaked", vt_analysis_leaked_bytes(&a), 1000);
    VT_CHECK("ooms", a.n_ooms == 1 && a.ooms[0].live_total_bytes == 2800 &&
                         a.ooms[0].requested_bytes == 1ULL << 41);
    vt_site_t *sites;
    size_t n_sites;
    VT_CHECK("sites", vt_analysis_sites(&a, 0, &sites, &n_sites) == 0 && n_sites == 1 &&
                          sites[0].bytes == 1000 && sites[0].stack_id == 3);
    free(sites);
    vt_analysis_release(&a);
    vt_reader_release(&r);

    /* Stopping at the peak's record leaves the live set of the peak. */
    VT_CHECK("reopen", vt_reader_open(&r, path) == 0);
    VT_CHECK_EQ("analyze to the peak", vt_analyze(&r, &a, 21), 0);
    VT_CHECK("at the peak", vt_analysis_sites(&a, 0, &sites, &n_sites) == 0 && n_sites == 2 &&
                                sites[0].bytes == 1000 && sites[1].bytes == 500 &&
                                sites[1].category == VT_CAT_ACTIVATIONS);
    free(sites);
    vt_analysis_release(&a);
    vt_reader_release(&r);
    tb_release(&tb);
}

/* ---- damage ------------------------------------------------------------------------------- */

/* Every prefix of a valid trace: the preamble's prefixes fail to open, the others read to a
 * record boundary (the end of data) or fail with "truncated record at byte N", N < length. */
static void test_truncation(void)
{
    tb_t tb;
    build_all(&tb);
    const char *path = tmp_path("cut.vtr");
    int n_bad = 0;
    for (size_t len = 0; len <= tb.len; len++) {
        tb_write(&tb, path, len);
        vt_reader_t r;
        vt_analysis_t a;
        if (vt_reader_open(&r, path) != 0) {
            n_bad += len >= VT_FORMAT_PREAMBLE_BYTES;
            n_bad += !contains(r.err, path);
            vt_reader_release(&r);
            continue;
        }
        int rc = vt_analyze(&r, &a, UINT64_MAX);
        if (rc != 0) {
            n_bad += !contains(r.err, "truncated record at byte");
            n_bad += r.err_offset >= len;
        }
        n_bad += a.n_allocs > 4 || a.n_frees > 2;
        n_bad += (len == tb.len) != r.seen_end; /* END is the last record */
        vt_analysis_release(&a);
        vt_reader_release(&r);
    }
    VT_CHECK_EQ("every prefix", n_bad, 0);
    tb_release(&tb);
}

/* Every byte replaced by a few values: no crash, and a failure names the file and a byte. */
static void test_corruption(void)
{
    tb_t tb;
    build_all(&tb);
    const char *path = tmp_path("bad.vtr");
    static const uint8_t values[] = {0x00, 0x01, 0x3f, 0x40, 0x7f, 0x80, 0xff};
    int n_bad = 0;
    for (size_t i = VT_FORMAT_PREAMBLE_BYTES; i < tb.len; i++) {
        uint8_t saved = tb.buf[i];
        for (size_t v = 0; v < sizeof(values); v++) {
            tb.buf[i] = values[v];
            tb_write(&tb, path, SIZE_MAX);
            vt_reader_t r;
            vt_analysis_t a;
            if (vt_reader_open(&r, path) != 0) {
                n_bad++;
                continue;
            }
            if (vt_analyze(&r, &a, UINT64_MAX) != 0)
                n_bad += !contains(r.err, path) || !contains(r.err, "record at byte");
            vt_analysis_release(&a);
            vt_reader_release(&r);
        }
        tb.buf[i] = saved;
    }
    VT_CHECK_EQ("every byte corrupted", n_bad, 0);
    tb_release(&tb);
}

static int open_error(const char *path, char *err, size_t cap)
{
    vt_reader_t r;
    int rc = vt_reader_open(&r, path);
    snprintf(err, cap, "%s", r.err);
    vt_reader_release(&r);
    return rc;
}

/* Reads path to the end: the reader's result, its message in err. */
static int read_all(const char *path, vt_analysis_t *a, vt_reader_t *r)
{
    if (vt_reader_open(r, path) != 0)
        return -2;
    return vt_analyze(r, a, UINT64_MAX);
}

static void test_versions_and_records(void)
{
    tb_t tb;
    char err[512], want[1024];
    vt_reader_t r;
    vt_analysis_t a;
    const char *path = tmp_path("v.vtr");

    tb_init(&tb, VT_FORMAT_MAJOR + 1, 0);
    tb_write(&tb, path, SIZE_MAX);
    VT_CHECK("unknown major", open_error(path, err, sizeof(err)) == -1);
    snprintf(want, sizeof(want),
             "'%s': trace format version %d.0 is not supported (this vramtrace reads %d.x)", path,
             VT_FORMAT_MAJOR + 1, VT_FORMAT_MAJOR);
    VT_CHECK("unknown major message", strcmp(err, want) == 0);
    tb_release(&tb);

    /* A newer minor with an extension record this reader does not know. */
    tb_init(&tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR + 3);
    tb_extension(&tb, 120, "\x80\x80\x80",
                 3); /* unknown to this reader, a body that is not valid varints */
    tb_extension(&tb, 255, "", 0);
    tb_alloc(&tb, 1, 0, VT_CAT_WEIGHTS, 0, 1, 0x1000, 4096, 0, 0);
    tb_write(&tb, path, SIZE_MAX);
    VT_CHECK_EQ("newer minor", read_all(path, &a, &r), 0);
    VT_CHECK_EQ("after the extensions", a.n_allocs, 1);
    VT_CHECK_EQ("skipped", r.n_unknown, 2);
    VT_CHECK("no end record", !r.seen_end);
    vt_analysis_release(&a);
    vt_reader_release(&r);
    tb_release(&tb);

    /* SKIP: the rest of the chunk is zeros, the next record starts at the boundary. */
    tb_init(&tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR);
    tb_alloc(&tb, 1, 0, VT_CAT_WEIGHTS, 0, 1, 0x1000, 4096, 0, 0);
    tb_skip(&tb);
    VT_CHECK_EQ("at the boundary", tb.len, VT_FORMAT_CHUNK_BYTES);
    tb_alloc(&tb, 1, 0, VT_CAT_DATA, 0, 1, 0x9000, 100, 0, 0);
    tb_skip(&tb);
    tb_free(&tb, 1, 0, 0, 2, 0x1000, 0);
    tb_end(&tb, 1, 2, 1, 0, 0, 0);
    tb_end_of_data(&tb);
    tb_bytes(&tb, "\x01\x02", 2); /* after the end of data: never read */
    tb_write(&tb, path, SIZE_MAX);
    VT_CHECK_EQ("skip", read_all(path, &a, &r), 0);
    VT_CHECK("skip records", a.n_allocs == 2 && a.n_frees == 1 && r.seen_end);
    VT_CHECK_EQ("skip leaked", vt_analysis_leaked_bytes(&a), 100);
    vt_analysis_release(&a);
    vt_reader_release(&r);
    /* Cut inside the zeros after SKIP: the end of data, not damage. */
    tb_write(&tb, path, VT_FORMAT_CHUNK_BYTES / 2);
    VT_CHECK_EQ("cut after skip", read_all(path, &a, &r), 0);
    vt_analysis_release(&a);
    vt_reader_release(&r);
    tb_release(&tb);

    /* Corrupt records: an unknown core type, an overlong varint, an undefined stack. */
    static const struct {
        const char *name, *bytes, *want;
        size_t len;
    } bad[] = {
        {"unknown core type", "\x39", "corrupt record at byte 16 (unknown record type 57)", 1},
        {"overlong varint", "\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f\x01",
         "corrupt record at byte 16 (a varint longer than 64 bits)", 12},
        {"undefined stack", "\x05\x07\x02",
         "corrupt record at byte 16 (stack parent 7 is not defined)", 3},
        {"undefined string", "\x0b\x00\x01\x09",
         "corrupt record at byte 16 (string 9 is not defined)", 4},
        {"long string",
         "\x06\x7f"
         "abc",
         "truncated record at byte 16", 5},
        {"long extension",
         "\x50\x10"
         "abc",
         "truncated record at byte 16", 5},
        {"short POOL body", "\x44\x01\x05",
         "corrupt record at byte 16 (a body of 1 bytes is too short)", 3},
        {"PEAK of series 9", "\x41\x0b\x09\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
         "corrupt record at byte 16 (series 9)", 13},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        tb_init(&tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR);
        tb_bytes(&tb, bad[i].bytes, bad[i].len);
        tb_write(&tb, path, SIZE_MAX);
        VT_CHECK_EQ(bad[i].name, read_all(path, &a, &r), -1);
        snprintf(want, sizeof(want), "'%s': %s", path, bad[i].want);
        VT_CHECK(bad[i].name, strcmp(r.err, want) == 0);
        if (strcmp(r.err, want) != 0)
            fprintf(stderr, "  got:  %s\n  want: %s\n", r.err, want);
        vt_analysis_release(&a);
        vt_reader_release(&r);
        tb_release(&tb);
    }
}

static void test_bad_files(void)
{
    char err[512], want[1024];
    const char *path = tmp_path("missing.vtr");
    VT_CHECK("missing", open_error(path, err, sizeof(err)) == -1);
    snprintf(want, sizeof(want), "cannot open '%s': No such file or directory", path);
    VT_CHECK("missing message", strcmp(err, want) == 0);

    VT_CHECK("directory", open_error(dir, err, sizeof(err)) == -1);
    snprintf(want, sizeof(want), "cannot read '%s': Is a directory", dir);
    VT_CHECK("directory message", strcmp(err, want) == 0);

    path = tmp_path("empty.vtr");
    FILE *f = fopen(path, "w");
    fclose(f);
    VT_CHECK("empty", open_error(path, err, sizeof(err)) == -1);
    snprintf(want, sizeof(want), "'%s': not a vramtrace trace (empty file)", path);
    VT_CHECK("empty message", strcmp(err, want) == 0);

    path = tmp_path("text.vtr");
    f = fopen(path, "w");
    fputs("hello, world\n", f);
    fclose(f);
    VT_CHECK("not a trace", open_error(path, err, sizeof(err)) == -1);
    snprintf(want, sizeof(want), "'%s': not a vramtrace trace (no VRAMTRC magic)", path);
    VT_CHECK("not a trace message", strcmp(err, want) == 0);

    path = tmp_path("short.vtr");
    f = fopen(path, "w");
    fwrite("VRAMTRC\0\1\0", 1, 10, f);
    fclose(f);
    VT_CHECK("short preamble", open_error(path, err, sizeof(err)) == -1);
    snprintf(want, sizeof(want), "'%s': truncated preamble (10 of 16 bytes)", path);
    VT_CHECK("short preamble message", strcmp(err, want) == 0);
}

/* VMM handles live in their own key space; graph memory is a pseudo-allocation at the top of
 * the address space, resized by a FREE and an ALLOC (vt_format.h, VT_FLAG_HANDLE). */
static void test_handles(void)
{
    tb_t tb;
    vt_reader_t r;
    vt_analysis_t a;
    const char *path = tmp_path("handles.vtr");
    tb_init(&tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR);
    tb_alloc(&tb, 1, VT_TRACE_SERIES_DEVICE, VT_CAT_WEIGHTS, 0, 1, 0x1000, 100, 0, 0);
    tb_alloc(&tb, 1, VT_TRACE_SERIES_DEVICE | VT_FLAG_HANDLE, VT_CAT_DATA, 0, 1, 0x1000, 200, 0, 0);
    tb_free(&tb, 1, VT_TRACE_SERIES_DEVICE | VT_FLAG_HANDLE, 0, 2, 0x1000, 0);
    tb_alloc(&tb, 1, VT_TRACE_SERIES_DEVICE, VT_CAT_WORKSPACE, 0, 1, UINT64_MAX, 50, 0, 0);
    tb_free(&tb, 1, VT_TRACE_SERIES_DEVICE, 0, 2, UINT64_MAX, 0);
    tb_alloc(&tb, 1, VT_TRACE_SERIES_DEVICE, VT_CAT_WORKSPACE, 0, 1, UINT64_MAX, 80, 0, 0);
    tb_write(&tb, path, SIZE_MAX);

    VT_CHECK("handles open", vt_reader_open(&r, path) == 0);
    vt_event_t ev;
    VT_CHECK("plain", vt_reader_next(&r, &ev) == 1 && !ev.u.alloc.handle);
    VT_CHECK("handle", vt_reader_next(&r, &ev) == 1 && ev.u.alloc.handle &&
                           ev.u.alloc.series == 0 && ev.u.alloc.category == VT_CAT_DATA);
    VT_CHECK("handle free", vt_reader_next(&r, &ev) == 1 && ev.u.free.handle &&
                                !ev.u.free.unmatched && ev.u.free.address == 0x1000);
    VT_CHECK("graph", vt_reader_next(&r, &ev) == 1 && ev.u.alloc.address == UINT64_MAX);
    vt_reader_release(&r);

    VT_CHECK_EQ("handles trace", read_all(path, &a, &r), 0);
    const vt_device_stats_t *p = vt_analysis_peak(&a);
    VT_CHECK("handles peak", p && p->peak_bytes == 300 && p->peak_by_category[VT_CAT_DATA] == 200);
    VT_CHECK_EQ("handles leaked", vt_analysis_leaked_bytes(&a), 180);
    VT_CHECK("handles workspace", a.devices[0].live_by_category[VT_CAT_WORKSPACE] == 80);
    vt_analysis_release(&a);
    vt_reader_release(&r);
    tb_release(&tb);
}

/* INFLIGHT (format 1.3): just before a FREE, live + the bytes in flight raise the device's peak
 * when higher (the in-flight bytes as unknown), a peak from events at that record; lower, it
 * changes nothing; a 1.2 reader would skip it as an unknown extension. */
static void test_inflight(void)
{
    tb_t tb;
    vt_reader_t r;
    vt_analysis_t a;
    const char *path = tmp_path("inflight.vtr");
    uint8_t body[8];
    tb_init(&tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR);
    tb_alloc(&tb, 1, VT_TRACE_SERIES_DEVICE, VT_CAT_WEIGHTS, 0, 1, 0x1000, 1000, 0, 0);
    tb_alloc(&tb, 1, VT_TRACE_SERIES_DEVICE, VT_CAT_DATA, 1, 1, 0x2000, 300, 0, 0);
    size_t n = vt_put_varint(body, 0);
    n += vt_put_varint(body + n, 500); /* 1000 + 500 on device 0 */
    tb_extension(&tb, VT_REC_INFLIGHT, body, n);
    tb_free(&tb, 1, VT_TRACE_SERIES_DEVICE, 0, 2, 0x1000, 0);
    n = vt_put_varint(body, 1);
    n += vt_put_varint(body + n, 100); /* 300 + 100 on device 1 */
    tb_extension(&tb, VT_REC_INFLIGHT, body, n);
    tb_free(&tb, 1, VT_TRACE_SERIES_DEVICE, 0, 2, 0x2000, 0);
    tb_alloc(&tb, 1, VT_TRACE_SERIES_DEVICE, VT_CAT_DATA, 0, 1, 0x3000, 1200, 0, 0);
    n = vt_put_varint(body, 0);
    n += vt_put_varint(body + n, 200); /* 1400: below the peak, nothing */
    tb_extension(&tb, VT_REC_INFLIGHT, body, n);
    tb_free(&tb, 1, VT_TRACE_SERIES_DEVICE, 0, 2, 0x3000, 0);
    tb_write(&tb, path, SIZE_MAX);

    VT_CHECK_EQ("inflight trace", read_all(path, &a, &r), 0);
    VT_CHECK_EQ("no unknown records", r.n_unknown, 0);
    const vt_device_stats_t *p = vt_analysis_peak(&a);
    VT_CHECK("peak with the bytes in flight", p && p->device == 0 && p->peak_bytes == 1500);
    VT_CHECK("in flight as unknown", p && p->peak_by_category[VT_CAT_UNKNOWN] == 500 &&
                                         p->peak_by_category[VT_CAT_WEIGHTS] == 1000);
    VT_CHECK_EQ("at the INFLIGHT record", p ? p->peak_record : 0, 3);
    VT_CHECK_EQ("device 1", a.n_devices == 2 ? a.devices[1].peak_bytes : 0, 400);
    VT_CHECK_EQ("nothing leaked", vt_analysis_leaked_bytes(&a), 0);
    vt_analysis_release(&a);
    vt_reader_release(&r);
    tb_release(&tb);
}

/* ---- stream-ordered pools (POOL, format 1.4) ------------------------------------------------ */

/* A POOL record of pool on device: its figures at t_ns (absolute). */
static void tb_pool(tb_t *tb, uint64_t t_ns, uint32_t device, uint32_t pool, uint64_t reserved,
                    uint64_t used, uint64_t reserved_high, uint64_t used_high)
{
    uint8_t body[80];
    size_t n = vt_put_varint(body, t_ns);
    n += vt_put_varint(body + n, device);
    n += vt_put_varint(body + n, pool);
    n += vt_put_varint(body + n, reserved);
    n += vt_put_varint(body + n, used);
    n += vt_put_varint(body + n, reserved_high);
    n += vt_put_varint(body + n, used_high);
    tb_extension(tb, VT_REC_POOL, body, n);
}

/* The POOL record read into each pool's figures, and a pool's reservation counted in its
 * device's figure: allocations + what the device's pools reserve beyond their stream-ordered
 * allocations (never below the allocations when a sample is older than them); the peak's
 * categories hold the allocations, pool_spare the rest. Pool number 0 is corrupt. */
static void test_pools(void)
{
    tb_t tb;
    vt_reader_t r;
    vt_analysis_t a;
    const char *path = tmp_path("pools.vtr");
    tb_init(&tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR);
    uint32_t names[4] = {tb_string(&tb, "cuMemAlloc_v2"), tb_string(&tb, "cuMemAllocAsync"),
                         tb_string(&tb, "cuMemFreeAsync"),
                         tb_string(&tb, "cudaMallocFromPoolAsync")};
    tb_api_names(&tb, 4, names);
    tb_alloc(&tb, 1, VT_TRACE_SERIES_DEVICE, VT_CAT_WEIGHTS, 0, 0, 0x1000, 1000, 0, 0);
    tb_alloc(&tb, 1, VT_TRACE_SERIES_DEVICE, VT_CAT_DATA, 0, 1, 0x2000, 3000, 0, 0);
    tb_pool(&tb, 101, 0, 1, 4096, 3000, 4096, 3000);          /* 1000 + 4096 */
    tb_free(&tb, 1, VT_TRACE_SERIES_DEVICE, 0, 2, 0x2000, 0); /* the pool keeps 4096 */
    tb_alloc(&tb, 1, VT_TRACE_SERIES_DEVICE, VT_CAT_DATA, 0, 3, 0x3000, 5000, 0, 0); /* 6000 */
    tb_pool(&tb, 102, 0, 1, 8192, 5000, 8192, 5000); /* 1000 + 8192 */
    tb_pool(&tb, 103, 0, 2, 2048, 0, 2048, 0);       /* 6000 + 10240 - 5000: the peak */
    tb_pool(&tb, 104, 0, 1, 0, 0, 8192, 5000);       /* a stale sample: below its allocations */
    tb_pool(&tb, 105, 1, 3, 4096, 0, 4096, 0);       /* a device with a pool and no allocation */
    tb_write(&tb, path, SIZE_MAX);

    VT_CHECK_EQ("pools trace", read_all(path, &a, &r), 0);
    VT_CHECK_EQ("pools: no unknown records", r.n_unknown, 0);
    VT_CHECK_EQ("pools: three", a.n_pools, 3);
    const vt_pool_stats_t *p1 = a.n_pools == 3 ? &a.pools[0] : NULL;
    VT_CHECK("pool 1 read", p1 && p1->pool == 1 && p1->device == 0 && p1->reserved_bytes == 0 &&
                                p1->used_bytes == 0 && p1->reserved_peak_bytes == 8192 &&
                                p1->used_peak_bytes == 5000 && p1->reserved_peak_t_ns == 102);
    VT_CHECK("pool 3 on device 1", a.n_pools == 3 && a.pools[2].pool == 3 &&
                                       a.pools[2].device == 1 && a.pools[2].reserved_bytes == 4096);
    const vt_device_stats_t *d0 = vt_stream_device(&a, 0), *d1 = vt_stream_device(&a, 1);
    VT_CHECK("device 0: the peak counts the reservations",
             d0 && d0->peak_bytes == 11240 && d0->peak_t_ns == 103);
    VT_CHECK("device 0: categories and pool spare at the peak",
             d0 && d0->peak_pool_spare_bytes == 5240 &&
                 d0->peak_by_category[VT_CAT_WEIGHTS] == 1000 &&
                 d0->peak_by_category[VT_CAT_DATA] == 5000);
    VT_CHECK("device 0: tensors live peak, pool reserved peak",
             d0 && d0->tensors_peak_bytes == 6000 && d0->pool_reserved_peak_bytes == 10240);
    VT_CHECK("device 0: a stale sample counts the allocations",
             d0 && d0->pool_reserved_bytes == 2048 && vt_device_held_bytes(d0) == 6000 &&
                 d0->live_bytes == 6000);
    VT_CHECK("device 1: its pool alone",
             d1 && d1->peak_bytes == 4096 && d1->live_bytes == 0 && d1->tensors_peak_bytes == 0);
    VT_CHECK("the peak is device 0's", vt_analysis_peak(&a) == d0);
    VT_CHECK_EQ("pools: leaked are allocations", vt_analysis_leaked_bytes(&a), 6000);
    vt_analysis_release(&a);
    vt_reader_release(&r);

    /* A freed stream-ordered allocation leaves the reservation: the figure stays. */
    tb_release(&tb);
    tb_init(&tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR);
    names[0] = tb_string(&tb, "cudaMallocAsync");
    tb_api_names(&tb, 1, names);
    tb_alloc(&tb, 1, VT_TRACE_SERIES_DEVICE, VT_CAT_DATA, 0, 0, 0x2000, 3000, 0, 0);
    tb_pool(&tb, 50, 0, 1, 4096, 3000, 4096, 3000);
    tb_free(&tb, 1, VT_TRACE_SERIES_DEVICE, 0, 0, 0x2000, 0);
    tb_alloc(&tb, 1, VT_TRACE_SERIES_DEVICE, VT_CAT_DATA, 0, 0, 0x3000, 4000, 0, 0);
    tb_write(&tb, path, SIZE_MAX);
    VT_CHECK_EQ("reuse trace", read_all(path, &a, &r), 0);
    d0 = vt_stream_device(&a, 0);
    VT_CHECK("a pool's reuse is no new memory",
             d0 && d0->peak_bytes == 4096 && d0->tensors_peak_bytes == 4000 &&
                 vt_device_held_bytes(d0) == 4096 && d0->peak_t_ns == 50);
    vt_analysis_release(&a);
    vt_reader_release(&r);

    tb_release(&tb);
    tb_init(&tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR);
    tb_pool(&tb, 1, 0, 0, 4096, 0, 4096, 0);
    tb_write(&tb, path, SIZE_MAX);
    VT_CHECK_EQ("pool 0 is corrupt", read_all(path, &a, &r), -1);
    VT_CHECK("pool 0 said", contains(r.err, "(pool 0)"));
    vt_analysis_release(&a);
    vt_reader_release(&r);
    tb_release(&tb);
}

/* A device's PEAK record (after a cap): from 1.5 its peak counts the pools' spare reservation,
 * given after the categories with the allocations' own peak and the pools' reserved peak; a 1.4
 * record (without them) is the allocations' peak alone. */
static void tb_peak(tb_t *tb, uint64_t peak_bytes, uint64_t weights_bytes, int n_more,
                    const uint64_t more[3])
{
    uint8_t body[160];
    size_t n = vt_put_varint(body, VT_TRACE_SERIES_DEVICE);
    n += vt_put_varint(body + n, 0);
    n += vt_put_varint(body + n, peak_bytes);
    n += vt_put_varint(body + n, 77);
    for (int c = 0; c < VT_CAT_COUNT; c++)
        n += vt_put_varint(body + n, c == VT_CAT_WEIGHTS ? weights_bytes : 0);
    for (int i = 0; i < n_more; i++)
        n += vt_put_varint(body + n, more[i]);
    tb_extension(tb, VT_REC_PEAK, body, n);
}

static void test_peak_records(void)
{
    tb_t tb;
    vt_reader_t r;
    vt_analysis_t a;
    const char *path = tmp_path("peak.vtr");
    const uint64_t pools[3] = {6000, 9000, 10000}; /* spare, tensors peak, reserved peak */
    for (int with_pools = 0; with_pools < 2; with_pools++) {
        tb_init(&tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR);
        tb_alloc(&tb, 1, VT_TRACE_SERIES_DEVICE, VT_CAT_WEIGHTS, 0, 0, 0x1000, 1000, 0, 0);
        tb_extension(&tb, VT_REC_CAPPED, (const uint8_t *)"\x80\x80\x40", 3);
        tb_peak(&tb, with_pools ? 15000 : 9000, 9000, with_pools ? 3 : 0, pools);
        tb_write(&tb, path, SIZE_MAX);
        VT_CHECK_EQ("peak trace", read_all(path, &a, &r), 0);
        const vt_device_stats_t *d = vt_stream_device(&a, 0);
        if (with_pools)
            VT_CHECK("1.5 PEAK: the device figure, its spare, the allocations' and pools' peaks",
                     d && d->peak_bytes == 15000 && d->peak_pool_spare_bytes == 6000 &&
                         d->tensors_peak_bytes == 9000 && d->pool_reserved_peak_bytes == 10000 &&
                         d->peak_by_category[VT_CAT_WEIGHTS] == 9000 && d->peak_t_ns == 77);
        else
            VT_CHECK("1.4 PEAK: the allocations' peak, no spare",
                     d && d->peak_bytes == 9000 && d->peak_pool_spare_bytes == 0 &&
                         d->tensors_peak_bytes == 9000 && d->pool_reserved_peak_bytes == 0);
        vt_analysis_release(&a);
        vt_reader_release(&r);
        tb_release(&tb);
    }
}

/* ---- the live set against a plain model ---------------------------------------------------- */

#define N_SLOTS 3000

static void test_live_set(void)
{
    static uint64_t size[N_SLOTS]; /* model: slot i is address 0x10000 * (i + 1), series i % 2 */
    tb_t tb;
    tb_init(&tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR);
    uint64_t live = 0, peak = 0, pinned = 0, pinned_peak = 0, n_allocs = 0, n_frees = 0;
    uint64_t by_cat[VT_CAT_COUNT] = {0}, peak_cat[VT_CAT_COUNT] = {0};
    uint8_t cat[N_SLOTS];
    srand(12345);
    for (int step = 0; step < 60000; step++) {
        int i = rand() % N_SLOTS;
        unsigned series = (unsigned)i % 2;
        uint64_t *series_live = series ? &pinned : &live;
        if (size[i]) {
            tb_free(&tb, 1, series, 0, 2, 0x10000ULL * (uint64_t)(i + 1), 0);
            *series_live -= size[i];
            if (!series)
                by_cat[cat[i]] -= size[i];
            size[i] = 0;
            n_frees++;
        } else {
            size[i] = 1 + (uint64_t)(rand() % 100000);
            cat[i] = (uint8_t)(rand() % VT_CAT_COUNT);
            tb_alloc(&tb, 1, series, cat[i], 0, 1, 0x10000ULL * (uint64_t)(i + 1), size[i], 0, 0);
            *series_live += size[i];
            n_allocs++;
            if (!series) {
                by_cat[cat[i]] += size[i];
                if (live > peak) {
                    peak = live;
                    memcpy(peak_cat, by_cat, sizeof(by_cat));
                }
            } else if (pinned > pinned_peak) {
                pinned_peak = pinned;
            }
        }
    }
    const char *path = tmp_path("live.vtr");
    tb_write(&tb, path, SIZE_MAX);
    vt_reader_t r;
    vt_analysis_t a;
    VT_CHECK_EQ("live set trace", read_all(path, &a, &r), 0);
    const vt_device_stats_t *p = vt_analysis_peak(&a);
    VT_CHECK("live set peak", p && p->peak_bytes == peak);
    VT_CHECK("live set peak categories",
             p && memcmp(p->peak_by_category, peak_cat, sizeof(peak_cat)) == 0);
    VT_CHECK_EQ("live set leaked", vt_analysis_leaked_bytes(&a), live);
    VT_CHECK_EQ("live set pinned peak", a.peak_bytes[VT_TRACE_SERIES_PINNED], pinned_peak);
    VT_CHECK_EQ("live set pinned live", a.live_bytes[VT_TRACE_SERIES_PINNED], pinned);
    VT_CHECK_EQ("live set allocs", a.n_allocs, n_allocs);
    VT_CHECK_EQ("live set frees", a.n_frees, n_frees);
    size_t n_live = 0;
    for (int i = 0; i < N_SLOTS; i++)
        n_live += size[i] != 0;
    VT_CHECK_EQ("live set entries", a.n_live, n_live);
    vt_analysis_release(&a);
    vt_reader_release(&r);
    tb_release(&tb);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/vt-trace-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_round_trip();
    test_truncation();
    test_corruption();
    test_versions_and_records();
    test_bad_files();
    test_handles();
    test_inflight();
    test_pools();
    test_peak_records();
    test_live_set();
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return vt_test_done();
}

/* SPDX-License-Identifier: MIT */
/* vt_reader_follow, the reader of a trace still being written (what `vramtrace top` reads):
 * records appended at the end of the file and in the zeros the writer pre-extends it with, a
 * record whose body is written but not yet its type byte (the writer's last store) read only
 * once whole, the END record ending the follow, the file trimmed at exit after END, the file
 * cut below what was read (an error, not a reader that waits forever), a record cut by the end
 * of the file (damaged: the reader fails and stays failed), and the name reused by another file
 * while the one opened goes on growing. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_builder.h"
#include "trace_reader.h"
#include "vt_test.h"

#define PREEXTENDED 4096 /* the zeros past the records, as the writer's file has them */

static char dir[256];

static const char *tmp_path(const char *name)
{
    static char path[300];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return path;
}

/* len bytes of data at offset of path (created when absent). */
static void put(const char *path, size_t offset, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    if (fd < 0 || pwrite(fd, data, len, (off_t)offset) != (ssize_t)len) {
        perror(path);
        exit(1);
    }
    close(fd);
}

static void cut(const char *path, size_t len)
{
    if (truncate(path, (off_t)len) != 0) {
        perror(path);
        exit(1);
    }
}

/* The events vt_reader_next gives until it returns 0 or -1 (*last: that value); each ALLOC's
 * address into addresses[] (up to 8). */
static int read_events(vt_reader_t *r, int *last, uint64_t *addresses)
{
    vt_event_t ev;
    int n = 0, rc;
    while ((rc = vt_reader_next(r, &ev)) > 0) {
        if (ev.type == VT_REC_ALLOC && n < 8)
            addresses[n] = ev.u.alloc.address;
        n++;
    }
    *last = rc;
    return n;
}

/* A scenario: the trace (three ALLOCs, a FREE, END; at[i] where record i starts, at[5] its
 * length), the file it is written to, the reader following it, and what the reader last gave. */
typedef struct fixture_s {
    tb_t tb;
    size_t at[6];
    char path[300];
    vt_reader_t r;
    uint64_t addr[8];
    int last;
} fixture_t;

/* Builds the trace, writes its records before record upto and extra bytes of the next into name
 * (over zeros_len zero bytes, the writer's pre-extended file, when not 0), opens it and reads to
 * the end of what is there: returns the number of events read, -1 when the open failed. */
static int start(fixture_t *f, const char *name, int upto, size_t extra, size_t zeros_len)
{
    static const uint8_t zeros[PREEXTENDED];
    memset(f, 0, sizeof(*f));
    tb_t *tb = &f->tb;
    tb_init(tb, VT_FORMAT_MAJOR, VT_FORMAT_MINOR);
    f->at[0] = tb->len;
    tb_alloc(tb, 10, VT_TRACE_SERIES_DEVICE, VT_CAT_WEIGHTS, 0, 1, 0x1000, 1000, 0, 0);
    f->at[1] = tb->len;
    tb_alloc(tb, 10, VT_TRACE_SERIES_DEVICE, VT_CAT_DATA, 0, 1, 0x2000, 2000, 0, 0);
    f->at[2] = tb->len;
    tb_alloc(tb, 10, VT_TRACE_SERIES_DEVICE, VT_CAT_DATA, 0, 1, 0x3000, 3000, 0, 0);
    f->at[3] = tb->len;
    tb_free(tb, 10, VT_TRACE_SERIES_DEVICE, 0, 2, 0x2000, 0);
    f->at[4] = tb->len;
    tb_end(tb, 10, 3, 1, 0, 0, 0);
    f->at[5] = tb->len;
    snprintf(f->path, sizeof(f->path), "%s", tmp_path(name));
    if (zeros_len)
        put(f->path, 0, zeros, zeros_len);
    put(f->path, 0, tb->buf, f->at[upto] + extra);
    f->last = 9;
    if (vt_reader_open(&f->r, f->path) != 0)
        return -1;
    return read_events(&f->r, &f->last, f->addr);
}

/* Writes the trace's bytes [from, to) in their place, as the writer stores them. */
static void write_part(fixture_t *f, size_t from, size_t to)
{
    put(f->path, from, f->tb.buf + from, to - from);
}

/* Follows, then reads to the end of what is there: returns the number of events read. */
static int follow_and_read(fixture_t *f, int want_follow, const char *what)
{
    VT_CHECK_EQ(what, vt_reader_follow(&f->r), want_follow);
    return read_events(&f->r, &f->last, f->addr);
}

static void finish(fixture_t *f)
{
    vt_reader_release(&f->r);
    tb_release(&f->tb);
}

/* The writer's way: records stored into zeros, each type byte last; then trimmed at exit. */
static void test_writer_protocol(void)
{
    fixture_t f;
    VT_CHECK_EQ("the first record", start(&f, "live.vtr", 1, 0, PREEXTENDED), 1);
    VT_CHECK_EQ("then the end of what was written", f.last, 0);
    VT_CHECK_EQ("its address", f.addr[0], 0x1000);
    VT_CHECK_EQ("nothing new", follow_and_read(&f, 1, "nothing new: follow"), 0);

    /* The second record's body, not yet its type byte: not read. */
    write_part(&f, f.at[1] + 1, f.at[2]);
    VT_CHECK_EQ("body only: no event", follow_and_read(&f, 1, "body only: follow"), 0);
    VT_CHECK_EQ("body only: the end for now", f.last, 0);
    /* The type byte: the record is whole, and read once. */
    write_part(&f, f.at[1], f.at[1] + 1);
    VT_CHECK_EQ("whole: one event", follow_and_read(&f, 1, "whole: follow"), 1);
    VT_CHECK_EQ("whole: its address", f.addr[0], 0x2000);

    /* Two records at once, then END, then the file trimmed to its records (the writer at exit):
     * the reader must not touch the pages past the new end (SIGBUS). */
    write_part(&f, f.at[2], f.at[4]);
    VT_CHECK_EQ("two more: events", follow_and_read(&f, 1, "two more: follow"), 2);
    VT_CHECK_EQ("two more: the ALLOC's address", f.addr[0], 0x3000);
    write_part(&f, f.at[4], f.at[5]);
    cut(f.path, f.at[5]);
    VT_CHECK_EQ("trimmed: the END record", follow_and_read(&f, 1, "trimmed: follow"), 1);
    VT_CHECK_EQ("trimmed: then the end", f.last, 0);
    VT_CHECK("END seen", f.r.seen_end);
    VT_CHECK_EQ("after END: follow says no more", vt_reader_follow(&f.r), 0);
    finish(&f);
}

/* A file written by appending (no zeros past the records): it grows past what was mapped. */
static void test_growth(void)
{
    fixture_t f;
    VT_CHECK_EQ("the first record", start(&f, "grow.vtr", 1, 0, 0), 1);
    for (int i = 1; i < 5; i++) {
        write_part(&f, f.at[i], f.at[i + 1]);
        VT_CHECK_EQ("grown: one record", follow_and_read(&f, 1, "grown: follow"), 1);
        VT_CHECK_EQ("grown: then the end for now", f.last, 0);
    }
    VT_CHECK_EQ("the mapping grew to the file", f.r.size, f.at[5]);
    VT_CHECK_EQ("END: follow says no more", vt_reader_follow(&f.r), 0);
    finish(&f);
}

/* Cut below what was read (another process truncated the file): an error, at once. */
static void test_cut_below(void)
{
    fixture_t f;
    VT_CHECK_EQ("three records", start(&f, "cut.vtr", 3, 0, 0), 3);
    cut(f.path, f.at[1]);
    VT_CHECK_EQ("cut: the reader stays failed", follow_and_read(&f, -1, "cut: follow fails"), 0);
    VT_CHECK("cut: says so", strstr(f.r.err, "was cut to") && strstr(f.r.err, f.path));
    VT_CHECK_EQ("cut: next fails", f.last, -1);
    VT_CHECK_EQ("cut: follow again", vt_reader_follow(&f.r), -1);
    finish(&f);
}

/* A record cut by the end of the file (not the writer's way: a copy in progress): damaged. */
static void test_record_cut_at_end(void)
{
    fixture_t f;
    VT_CHECK_EQ("the whole record", start(&f, "half.vtr", 1, 2, 0), 1);
    VT_CHECK_EQ("then the cut one fails", f.last, -1);
    VT_CHECK("truncated record", strstr(f.r.err, "truncated record at byte") != NULL);
    write_part(&f, f.at[1] + 2, f.at[2]);
    VT_CHECK_EQ("completed later: still failed", vt_reader_follow(&f.r), -1);
    finish(&f);
}

/* The name removed and reused by another file while the one opened grows on. */
static void test_name_reused(void)
{
    fixture_t f;
    VT_CHECK_EQ("the first record", start(&f, "reused.vtr", 1, 0, 0), 1);
    int fd = open(f.path, O_WRONLY); /* the writer's own descriptor */
    VT_CHECK("the writer's file open", fd >= 0);
    unlink(f.path);
    put(f.path, 0, "another file", 12);
    if (fd >= 0) {
        size_t n = f.at[2] - f.at[1];
        VT_CHECK("appended", pwrite(fd, f.tb.buf + f.at[1], n, (off_t)f.at[1]) == (ssize_t)n);
        close(fd);
    }
    VT_CHECK_EQ("reused: the opened file's record", follow_and_read(&f, 1, "reused: follow"), 1);
    VT_CHECK_EQ("reused: its address", f.addr[0], 0x2000);
    finish(&f);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/vt-follow-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_writer_protocol();
    test_growth();
    test_cut_below();
    test_record_cut_at_end();
    test_name_reused();
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return vt_test_done();
}

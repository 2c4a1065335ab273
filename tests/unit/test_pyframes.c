/* SPDX-License-Identifier: MIT */
/* The frame-chain reader (src/pyframes.c) on fake CPython structures built here, with the 3.8,
 * 3.10 and 3.12 layouts and fake type objects: the frames, their entry marks and offsets, the
 * lines of each line-table format, the text of str objects; and corrupt data (misaligned or
 * mistyped pointers, cycles, offsets outside the bytecode, cut tables) read as a failure or
 * "unknown", never as a crash or a read outside the objects. */
#include "unit_util.h"
#include "vt_internal.h"
#include "vt_pyframes.h"

#include <stdint.h>
#include <string.h>

/* Fake objects: 8-byte aligned, zeroed, big enough for every field read. */
typedef struct obj_s {
    _Alignas(16) unsigned char b[512];
} obj_t;

static char code_type[64], str_type[64], bytes_type[64], frame_type[64];

static void put_ptr(obj_t *o, int offset, const void *p)
{
    memcpy(o->b + offset, &p, sizeof p);
}

static void put_i64(obj_t *o, int offset, int64_t v)
{
    memcpy(o->b + offset, &v, sizeof v);
}

static void put_i32(obj_t *o, int offset, int32_t v)
{
    memcpy(o->b + offset, &v, sizeof v);
}

static vt_py_layout_t layout_of(int minor)
{
    vt_py_layout_t L = *vt_py_layout(minor);
    L.code_type = code_type;
    L.str_type = str_type;
    L.bytes_type = bytes_type;
    L.frame_type = minor < 11 ? frame_type : NULL;
    return L;
}

/* A compact ASCII str. */
static void make_str(const vt_py_layout_t *L, obj_t *o, const char *text)
{
    memset(o, 0, sizeof *o);
    put_ptr(o, 8, str_type);
    put_i64(o, 16, (int64_t)strlen(text));
    put_i32(o, 32, (1 << 2) | (1 << 5) | (1 << 6)); /* kind 1, compact, ascii */
    memcpy(o->b + L->str_ascii_data, text, strlen(text) + 1);
}

static void make_bytes(obj_t *o, const void *data, size_t len)
{
    memset(o, 0, sizeof *o);
    put_ptr(o, 8, bytes_type);
    put_i64(o, 16, (int64_t)len);
    memcpy(o->b + 32, data, len);
}

/* A code object with n_units of bytecode (3.11+: inline; before: a co_code bytes object). */
static void make_code(const vt_py_layout_t *L, obj_t *code, obj_t *file, obj_t *name, obj_t *table,
                      obj_t *bytecode, int first_line, int n_units)
{
    memset(code, 0, sizeof *code);
    put_ptr(code, 8, code_type);
    put_ptr(code, L->co_filename, file);
    put_ptr(code, L->co_name, name);
    put_ptr(code, L->co_linetable, table);
    put_i32(code, L->co_firstlineno, first_line);
    if (L->line_format == VT_PY_LOCATIONS_311) {
        put_i64(code, 16, n_units);
        put_i32(code, L->co_firsttraceable, 0);
    } else {
        unsigned char zeros[64] = {0};
        make_bytes(bytecode, zeros, (size_t)n_units * 2);
        put_ptr(code, L->co_code, bytecode);
    }
}

/* 3.12: tstate -> cframe -> inner frame -> C-stack entry frame -> outer frame -> end. */
static void test_walk_312(void)
{
    vt_py_layout_t L = layout_of(12);
    static obj_t tstate, cframe, inner, entry, outer, code_a, code_b, file, name_a, name_b, table;
    make_str(&L, &file, "/src/train.py");
    make_str(&L, &name_a, "forward");
    make_str(&L, &name_b, "main");
    unsigned char t[] = {0xd1, 5, 6, 0xda, 1, 2, 0xe8, 0x0a, 0xf8};
    make_bytes(&table, t, sizeof t);
    make_code(&L, &code_a, &file, &name_a, &table, NULL, 100, 10);
    make_code(&L, &code_b, &file, &name_b, &table, NULL, 7, 10);
    memset(&tstate, 0, sizeof tstate);
    memset(&cframe, 0, sizeof cframe);
    memset(&inner, 0, sizeof inner);
    memset(&entry, 0, sizeof entry);
    memset(&outer, 0, sizeof outer);
    put_ptr(&tstate, L.ts_frame, &cframe);
    put_ptr(&cframe, L.cframe_frame, &inner);
    put_ptr(&inner, L.fr_code, &code_a);
    put_ptr(&inner, L.fr_back, &entry);
    put_ptr(&inner, L.fr_instr, code_a.b + L.co_code + 2 * 5); /* offset 10 */
    entry.b[L.fr_owner] = 3;
    put_ptr(&entry, L.fr_back, &outer);
    put_ptr(&outer, L.fr_code, &code_b);
    put_ptr(&outer, L.fr_instr, code_b.b + L.co_code - 2); /* not started */
    outer.b[L.fr_owner] = 1;                               /* a generator's: complete */

    vt_py_frame_t f[8];
    int n = vt_py_walk(&L, &tstate, f, 8);
    VT_CHECK_EQ("3.12 frames", n, 2);
    VT_CHECK("3.12 inner code", f[0].code == &code_a);
    VT_CHECK_EQ("3.12 inner offset", f[0].offset, 10);
    VT_CHECK("3.12 inner ends its call", f[0].entry);
    VT_CHECK("3.12 outer code", f[1].code == &code_b);
    VT_CHECK_EQ("3.12 outer not started", f[1].offset, -1);
    VT_CHECK_EQ("3.12 max 1", vt_py_walk(&L, &tstate, f, 1), 1);

    /* Lines of the 3.11+ location table: [0,4) +0, [4,10) +1, [10,12) +5, [12,14) none. */
    int want[][2] = {{0, 100},  {2, 100}, {4, 101}, {8, 101},
                     {10, 106}, {12, 0},  {20, 0},  {-1, 100}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        VT_CHECK_EQ("3.11+ line", vt_py_line(&L, &code_a, want[i][0]), want[i][1]);
    VT_CHECK_EQ("line at the walk's offset", vt_py_line(&L, f[0].code, f[0].offset), 106);
    size_t used = 0, len = 0;
    const unsigned char *tab = vt_py_linetable(&L, &code_a, &len);
    VT_CHECK_EQ("table length", len, sizeof t);
    VT_CHECK_EQ("line_in", vt_py_line_in(&L, tab, len, 100, 4, &used), 101);
    VT_CHECK_EQ("bytes read to line 101", used, 4);
    /* A varint cut by the table's end: unknown, nothing read past it. */
    unsigned char cut[] = {0xd1, 5, 6, 0xe8, 0x4a};
    make_bytes(&table, cut, sizeof cut);
    VT_CHECK_EQ("cut varint", vt_py_line(&L, &code_a, 6), 0);

    size_t text_len = 0;
    char buf[64];
    const char *text = vt_py_str(&L, vt_py_code_filename(&L, &code_a), buf, sizeof buf, &text_len);
    VT_CHECK("filename read", text && text_len == 13 && memcmp(text, "/src/train.py", 13) == 0);
    text = vt_py_str(&L, vt_py_code_name(&L, &code_b), buf, sizeof buf, &text_len);
    VT_CHECK("name read", text && text_len == 4 && memcmp(text, "main", 4) == 0);

    /* Corruptions: each one fails the walk. */
    VT_CHECK_EQ("misaligned thread state", vt_py_walk(&L, tstate.b + 1, f, 8), -1);
    put_ptr(&cframe, L.cframe_frame, inner.b + 4);
    VT_CHECK_EQ("misaligned frame", vt_py_walk(&L, &tstate, f, 8), -1);
    put_ptr(&cframe, L.cframe_frame, &inner);
    put_ptr(&code_a, 8, str_type);
    VT_CHECK_EQ("not a code object", vt_py_walk(&L, &tstate, f, 8), -1);
    put_ptr(&code_a, 8, code_type);
    put_ptr(&inner, L.fr_instr, code_a.b + L.co_code + 2 * 10);
    VT_CHECK_EQ("past the bytecode", vt_py_walk(&L, &tstate, f, 8), -1);
    put_ptr(&inner, L.fr_instr, code_a.b + L.co_code + 3);
    VT_CHECK_EQ("inside a code unit", vt_py_walk(&L, &tstate, f, 8), -1);
    put_ptr(&inner, L.fr_instr, code_a.b);
    VT_CHECK_EQ("before the bytecode", vt_py_walk(&L, &tstate, f, 8), -1);
    put_ptr(&inner, L.fr_instr, code_a.b + L.co_code);
    put_ptr(&entry, L.fr_back, &entry); /* entry frames forever */
    VT_CHECK_EQ("cycle of entry frames", vt_py_walk(&L, &tstate, f, 8), -1);
    put_ptr(&inner, L.fr_back, &inner); /* a frame that is its own caller: bounded by max */
    VT_CHECK_EQ("cycle of frames", vt_py_walk(&L, &tstate, f, 8), 8);
    put_ptr(&code_a, L.co_linetable, &file);
    VT_CHECK_EQ("line table not bytes", vt_py_line(&L, &code_a, 0), 0);
    put_ptr(&code_a, L.co_linetable, &table);
    put_ptr(&tstate, L.ts_frame, NULL);
    VT_CHECK_EQ("no frames", vt_py_walk(&L, &tstate, f, 8), 0);
}

/* 3.8 and 3.10: frame objects, one per C evaluation call; lnotab and the 3.10 line table. */
static void test_walk_frame_objects(int minor)
{
    vt_py_layout_t L = layout_of(minor);
    static obj_t tstate, inner, outer, code, file, name, table, bytecode;
    make_str(&L, &file, "x.py");
    make_str(&L, &name, "f");
    unsigned char lnotab[] = {6, 1, 8, 2};               /* 3.8: [6,14) +1, [14,...) +2 more */
    unsigned char lt310[] = {4, 0, 6, 1, 2, 0x80, 4, 2}; /* 3.10: -128 (0x80): no line */
    if (minor < 10)
        make_bytes(&table, lnotab, sizeof lnotab);
    else
        make_bytes(&table, lt310, sizeof lt310);
    make_code(&L, &code, &file, &name, &table, &bytecode, 100, 10);
    memset(&tstate, 0, sizeof tstate);
    memset(&inner, 0, sizeof inner);
    memset(&outer, 0, sizeof outer);
    put_ptr(&tstate, L.ts_frame, &inner);
    put_ptr(&inner, 8, frame_type);
    put_ptr(&inner, L.fr_code, &code);
    put_ptr(&inner, L.fr_back, &outer);
    put_i32(&inner, L.fr_instr, minor < 10 ? 12 : 6); /* byte 12 either way */
    put_ptr(&outer, 8, frame_type);
    put_ptr(&outer, L.fr_code, &code);
    put_i32(&outer, L.fr_instr, -1);

    vt_py_frame_t f[4];
    VT_CHECK_EQ("frames", vt_py_walk(&L, &tstate, f, 4), 2);
    VT_CHECK_EQ("offset in bytes", f[0].offset, 12);
    VT_CHECK("one frame per call", f[0].entry && f[1].entry);
    VT_CHECK_EQ("not started", f[1].offset, -1);
    if (minor < 10) {
        int want[][2] = {{0, 100}, {5, 100}, {6, 101}, {13, 101}, {14, 103}, {18, 103}, {-1, 100}};
        for (size_t i = 0; i < sizeof want / sizeof *want; i++)
            VT_CHECK_EQ("lnotab line", vt_py_line(&L, &code, want[i][0]), want[i][1]);
    } else {
        int want[][2] = {{0, 100}, {4, 101}, {9, 101}, {10, 0}, {12, 103}, {16, 0}, {-1, 100}};
        for (size_t i = 0; i < sizeof want / sizeof *want; i++)
            VT_CHECK_EQ("3.10 line", vt_py_line(&L, &code, want[i][0]), want[i][1]);
    }

    put_ptr(&outer, 8, code_type);
    VT_CHECK_EQ("not a frame object", vt_py_walk(&L, &tstate, f, 4), -1);
    put_ptr(&outer, 8, frame_type);
    put_i32(&inner, L.fr_instr, 100);
    VT_CHECK_EQ("f_lasti past co_code", vt_py_walk(&L, &tstate, f, 4), -1);
    put_i32(&inner, L.fr_instr, 0);
    put_ptr(&code, L.co_code, &file);
    VT_CHECK_EQ("co_code not bytes", vt_py_walk(&L, &tstate, f, 4), -1);
}

/* Other kinds of str: UCS-2 encoded as UTF-8, non-compact and mistyped ones refused. */
static void test_strings(void)
{
    vt_py_layout_t L = layout_of(13);
    static obj_t s;
    memset(&s, 0, sizeof s);
    put_ptr(&s, 8, str_type);
    put_i64(&s, 16, 3);
    put_i32(&s, 32, (2 << 2) | (1 << 5)); /* kind 2, compact, not ascii */
    uint16_t units[] = {'a', 0xe9, 0x20ac};
    memcpy(s.b + L.str_compact_data, units, sizeof units);
    char buf[16];
    size_t len = 0;
    const char *text = vt_py_str(&L, &s, buf, sizeof buf, &len);
    VT_CHECK("UCS-2 as UTF-8", text && len == 6 && memcmp(text, "a\xc3\xa9\xe2\x82\xac", 6) == 0);
    text = vt_py_str(&L, &s, buf, 4, &len);
    VT_CHECK("cut at a character", text && len == 3);
    put_i32(&s, 32, (2 << 2)); /* not compact */
    VT_CHECK("not compact", !vt_py_str(&L, &s, buf, sizeof buf, &len));
    put_i32(&s, 32, (2 << 2) | (1 << 5));
    put_ptr(&s, 8, bytes_type);
    VT_CHECK("not a str", !vt_py_str(&L, &s, buf, sizeof buf, &len));
    VT_CHECK("NULL", !vt_py_str(&L, NULL, buf, sizeof buf, &len));
}

static void test_layouts(void)
{
    for (int minor = 8; minor <= 13; minor++)
        VT_CHECK("a layout for 3.8-3.13",
                 vt_py_layout(minor) && vt_py_layout(minor)->minor == minor);
    VT_CHECK("none for 3.7", !vt_py_layout(7));
    VT_CHECK("none for 3.14", !vt_py_layout(14));
}

int main(void)
{
    test_layouts();
    test_walk_312();
    test_walk_frame_objects(8);
    test_walk_frame_objects(10);
    test_strings();
    return vt_test_done();
}

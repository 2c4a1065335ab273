/* SPDX-License-Identifier: MIT */
/* Reading a CPython thread's frame chain as plain memory: no GIL, no Python API, no reference
 * count, no allocation. Sound only for the calling thread's own thread state: a thread that
 * released the GIL is running native code, so nothing can change its frame chain until it takes
 * the GIL back (another thread may materialize frame objects for it, which writes fields we do
 * not read), and every frame on the chain keeps its code object, whose fields are immutable,
 * alive. python.c finds the thread state and turns what this file reads into call-site frames.
 *
 * The struct offsets are those of each minor version's own headers (3.8 to 3.13, checked
 * against Include/cpython/pystate.h, Include/internal/pycore_frame.h and code.h as installed);
 * 3.13 also publishes its offsets in _PyRuntime (python.c checks the table against them).
 * Every pointer followed is checked before use: aligned, non-NULL, and for objects the type
 * pointer equal to the interpreter's own type object (frames before 3.11, code objects, the
 * str and bytes objects of a code object); offsets into the bytecode must fall inside it and
 * the walk is bounded. A check that fails fails the whole walk: the caller drops the Python
 * part of the call-site rather than risk a wrong one. Tests call these functions directly with
 * fake structures and a layout of their own (tests/unit/test_pyframes.c). */
#include "vt_internal.h"
#include "vt_pyframes.h"

#include <string.h>

/* The layouts, by minor version: the offsets in vt_py_layout_t's order, the type objects left
 * for python.c to fill in. */
#define LAYOUT(...)                                                                                \
    {                                                                                              \
        __VA_ARGS__, NULL, NULL, NULL, NULL                                                        \
    }
static const vt_py_layout_t layouts[] = {
    /* minor; ts_frame, cframe_frame; fr_back, fr_code, fr_instr, fr_owner, fr_is_entry;
     * co_filename, co_name, co_firstlineno, co_linetable, co_code, co_firsttraceable;
     * str_ascii_data, str_compact_data; line_format; co_version */
    LAYOUT(8, 24, -1, 24, 32, 104, -1, -1, 104, 112, 40, 120, 48, -1, 48, 72, VT_PY_LNOTAB, -1),
    LAYOUT(9, 24, -1, 24, 32, 104, -1, -1, 104, 112, 40, 120, 48, -1, 48, 72, VT_PY_LNOTAB, -1),
    LAYOUT(10, 24, -1, 24, 32, 96, -1, -1, 104, 112, 40, 120, 48, -1, 48, 72, VT_PY_LINETABLE_310,
           -1),
    LAYOUT(11, 56, 8, 48, 32, 56, 69, 68, 112, 120, 72, 136, 184, 168, 48, 72, VT_PY_LOCATIONS_311,
           -1),
    LAYOUT(12, 56, 0, 8, 0, 56, 70, -1, 112, 120, 68, 136, 192, 176, 40, 56, VT_PY_LOCATIONS_311,
           92),
    LAYOUT(13, 72, -1, 8, 0, 56, 70, -1, 112, 120, 68, 136, 200, 184, 40, 56, VT_PY_LOCATIONS_311,
           92),
};
#undef LAYOUT

const vt_py_layout_t *vt_py_layout(int minor)
{
    for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++)
        if (layouts[i].minor == minor)
            return &layouts[i];
    return NULL;
}

/* The instruction offset, in bytes from the start of the bytecode, that frame f of code object
 * `code` is executing; -1 before its first instruction; INT32_MIN when it does not fall inside
 * the bytecode. */
static int32_t instr_offset(const vt_py_layout_t *L, const void *f, const void *code)
{
    if (L->line_format != VT_PY_LOCATIONS_311) {
        /* f_lasti: bytes before 3.10, code units in 3.10; -1 before the first instruction. */
        int32_t lasti = vt_py_load_i32(f, L->fr_instr);
        const void *bytecode = vt_py_load_ptr(code, L->co_code);
        if (!vt_py_is_a(bytecode, L->bytes_type))
            return INT32_MIN;
        int64_t size = vt_py_load_i64(bytecode, OB_SIZE);
        int64_t offset = L->line_format == VT_PY_LINETABLE_310 ? (int64_t)lasti * CODE_UNIT : lasti;
        if (lasti < 0)
            return -1;
        return offset < size ? (int32_t)offset : INT32_MIN;
    }
    /* 3.11+: a pointer into the code object's own bytecode, whose size in code units is the
     * code object's ob_size. 3.11 and 3.12 point at the last instruction started (one before
     * the first before it starts), 3.13 at the current one: both mean "this instruction" to
     * CPython's own line lookup, which is what we repeat. */
    uintptr_t first = (uintptr_t)code + (uintptr_t)L->co_code;
    uintptr_t at = (uintptr_t)vt_py_load_ptr(f, L->fr_instr);
    int64_t n_units = vt_py_load_i64(code, OB_SIZE);
    if (at + CODE_UNIT == first)
        return -1;
    if (at < first || (at - first) % CODE_UNIT || n_units <= 0 ||
        (int64_t)((at - first) / CODE_UNIT) >= n_units)
        return INT32_MIN;
    return (int32_t)(at - first);
}

/* vt_py_walk: the frames of thread state `tstate`, innermost first, at most max of them (the
 * innermost ones). out[i].entry marks the outermost frame of each C evaluation call (one frame
 * per call before 3.11; the frames a call runs inline from 3.11). Returns the number read, or
 * -1 when a check failed (nothing of it may be used). */
int vt_py_walk(const vt_py_layout_t *L, const void *tstate, vt_py_frame_t *out, int max)
{
    if (!vt_py_aligned(tstate) || max <= 0)
        return vt_py_aligned(tstate) ? 0 : -1;
    const void *f = vt_py_load_ptr(tstate, L->ts_frame);
    if (L->cframe_frame >= 0) {
        if (!f)
            return 0;
        if (!vt_py_aligned(f))
            return -1;
        f = vt_py_load_ptr(f, L->cframe_frame);
    }
    int n = 0;
    /* Entry frames and incomplete ones are skipped; a chain longer than this is corrupt. */
    for (int steps = 0; f && n < max; steps++) {
        if (!vt_py_aligned(f) || steps > 2 * max + 16)
            return -1;
        if (L->fr_owner < 0 && !vt_py_is_a(f, L->frame_type))
            return -1;
        int owner = L->fr_owner >= 0 ? *((const unsigned char *)f + L->fr_owner) : 0;
        if (owner == OWNED_BY_CSTACK && L->minor >= 12) {
            if (n > 0)
                out[n - 1].entry = true;
            f = vt_py_load_ptr(f, L->fr_back);
            continue;
        }
        const void *code = vt_py_load_ptr(f, L->fr_code);
        if (!vt_py_is_a(code, L->code_type))
            return -1;
        int32_t offset = instr_offset(L, f, code);
        if (offset == INT32_MIN)
            return -1;
        bool entry = L->fr_is_entry >= 0 ? *((const unsigned char *)f + L->fr_is_entry) != 0
                                         : L->fr_owner < 0;
        /* A frame pushed but not yet past its prologue is not shown by CPython either. */
        bool incomplete = L->co_firsttraceable >= 0 && owner != OWNED_BY_GENERATOR &&
                          offset < vt_py_load_i32(code, L->co_firsttraceable) * CODE_UNIT;
        if (incomplete) {
            if (entry && n > 0)
                out[n - 1].entry = true;
        } else {
            out[n].code = code;
            out[n].offset = offset;
            out[n].entry = entry;
            n++;
        }
        f = vt_py_load_ptr(f, L->fr_back);
    }
    return n;
}

/* The decoders below return the line at bytecode offset addrq (-1: none) and set *used to the
 * number of bytes of the table they read: the same bytes give the same answer (python.c's line
 * cache relies on it); *used is the whole length when they reached the table's end. */

/* 3.8/3.9 co_lnotab: (bytecode increment, signed line increment) byte pairs. */
static int line_lnotab(const unsigned char *t, size_t len, int line, int32_t addrq, size_t *used)
{
    int32_t addr = 0;
    for (size_t i = 0; i + 1 < len; i += 2) {
        addr += t[i];
        if (addr > addrq) {
            *used = i + 1;
            return line;
        }
        line += (signed char)t[i + 1];
    }
    *used = len;
    return line;
}

/* 3.10 co_linetable: (bytecode length, signed line delta; -128: no line) byte pairs. */
static int line_310(const unsigned char *t, size_t len, int line, int32_t addrq, size_t *used)
{
    int32_t end = 0;
    int current = -1;
    for (size_t i = 0; i + 1 < len; i += 2) {
        end += t[i];
        int delta = (signed char)t[i + 1];
        if (delta == -128) {
            current = -1;
        } else {
            line += delta;
            current = line;
        }
        if (end > addrq) {
            *used = i + 2;
            return current;
        }
    }
    *used = len;
    return -1;
}

/* 3.11+ location table (Objects/locations.md): entries of one first byte (bit 7 set, code in
 * bits 6..3, code units - 1 in bits 2..0) and continuation bytes (bit 7 clear). */
static int line_311(const unsigned char *t, size_t len, int line, int32_t addrq, size_t *used)
{
    int32_t end = 0;
    size_t i = 0;
    *used = len;
    while (i < len) {
        unsigned first = t[i];
        unsigned code = (first >> 3) & 15;
        size_t read_to = i + 1;
        int delta = 0;
        if (code == 13 || code == 14) { /* no columns, long form: a signed varint */
            unsigned value = 0, shift = 0, byte;
            do {
                if (read_to >= len || shift > 24)
                    return -1;
                byte = t[read_to++];
                value |= (byte & 63) << shift;
                shift += 6;
            } while (byte & 64);
            delta = (value & 1) ? -(int)(value >> 1) : (int)(value >> 1);
        } else if (code >= 10 && code <= 12) { /* one line: 0, 1 or 2 below the last */
            delta = (int)code - 10;
        }
        line += delta;
        end += (int32_t)((first & 7) + 1) * CODE_UNIT;
        if (end > addrq) {
            *used = read_to;
            return code == 15 ? -1 : line;
        }
        do
            i++;
        while (i < len && !(t[i] & 128));
    }
    return -1;
}

/* vt_py_line_in: the line at bytecode offset `offset` (vt_py_walk's) of a code object whose line
 * table is table[0..len) and first line first_line, as CPython's own lookup gives it; 0 when
 * unknown. *used: the bytes of the table read (above). */
int vt_py_line_in(const vt_py_layout_t *L, const unsigned char *table, size_t len, int first_line,
                  int32_t offset, size_t *used)
{
    *used = 0;
    if (offset < 0)
        return first_line > 0 ? first_line : 0;
    int line = L->line_format == VT_PY_LNOTAB ? line_lnotab(table, len, first_line, offset, used)
               : L->line_format == VT_PY_LINETABLE_310
                   ? line_310(table, len, first_line, offset, used)
                   : line_311(table, len, first_line, offset, used);
    return line > 0 ? line : 0;
}

/* vt_py_line: vt_py_line_in on the code object's own table; 0 when it is not a bytes object. */
int vt_py_line(const vt_py_layout_t *L, const void *code, int32_t offset)
{
    size_t len = 0, used;
    const unsigned char *t = vt_py_linetable(L, code, &len);
    return t ? vt_py_line_in(L, t, len, vt_py_first_line(L, code), offset, &used) : 0;
}

/* vt_py_str_encode: vt_py_str's slow path: a compact non-ASCII str of `length` characters of
 * `kind` bytes each, encoded as UTF-8 into buf (cap bytes; what does not fit is cut); NULL for
 * another kind or a code point out of range. */
const char *vt_py_str_encode(const vt_py_layout_t *L, const void *s, unsigned kind, int64_t length,
                             char *buf, size_t cap, size_t *len)
{
    if (kind != 1 && kind != 2 && kind != 4)
        return NULL;
    const unsigned char *data = (const unsigned char *)s + L->str_compact_data;
    size_t used = 0;
    for (int64_t i = 0; i < length; i++) {
        uint32_t c = kind == 1   ? data[i]
                     : kind == 2 ? ((const uint16_t *)(const void *)data)[i]
                                 : ((const uint32_t *)(const void *)data)[i];
        unsigned char u[4];
        size_t n;
        if (c < 0x80) {
            u[0] = (unsigned char)c;
            n = 1;
        } else if (c < 0x800) {
            u[0] = (unsigned char)(0xc0 | (c >> 6));
            u[1] = (unsigned char)(0x80 | (c & 63));
            n = 2;
        } else if (c < 0x10000) {
            u[0] = (unsigned char)(0xe0 | (c >> 12));
            u[1] = (unsigned char)(0x80 | ((c >> 6) & 63));
            u[2] = (unsigned char)(0x80 | (c & 63));
            n = 3;
        } else if (c < 0x110000) {
            u[0] = (unsigned char)(0xf0 | (c >> 18));
            u[1] = (unsigned char)(0x80 | ((c >> 12) & 63));
            u[2] = (unsigned char)(0x80 | ((c >> 6) & 63));
            u[3] = (unsigned char)(0x80 | (c & 63));
            n = 4;
        } else {
            return NULL;
        }
        if (used + n > cap)
            break;
        memcpy(buf + used, u, n);
        used += n;
    }
    *len = used;
    return buf;
}

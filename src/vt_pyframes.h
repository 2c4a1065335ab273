/* SPDX-License-Identifier: MIT */
/* A CPython thread's frame chain read as memory, without the GIL (pyframes.c has the why): the
 * per-version layouts, the walk, the line lookup, and the small readers python.c calls for every
 * frame of every call-site, inline here. */
#ifndef VT_PYFRAMES_H
#define VT_PYFRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef enum { VT_PY_LNOTAB, VT_PY_LINETABLE_310, VT_PY_LOCATIONS_311 } vt_py_line_format_t;
/* Byte offsets of the fields read, for one minor version; -1: absent in it. */
typedef struct vt_py_layout_s {
    int minor;
    int ts_frame;     /* PyThreadState: frame (3.8-3.10), cframe (3.11-3.12), current_frame */
    int cframe_frame; /* _PyCFrame.current_frame (3.11-3.12) */
    int fr_back, fr_code, fr_instr; /* previous, code, f_lasti / prev_instr / instr_ptr */
    int fr_owner, fr_is_entry;      /* 3.11+; is_entry 3.11 only */
    int co_filename, co_name, co_firstlineno, co_linetable;
    int co_code;           /* the co_code bytes object (3.8-3.10), the inline bytecode (3.11+) */
    int co_firsttraceable; /* 3.11+ */
    int str_ascii_data, str_compact_data; /* sizeof PyASCIIObject, PyCompactUnicodeObject */
    vt_py_line_format_t line_format;
    /* co_version (3.12+): set once when the code object is made, from the interpreter's counter
     * of code and function versions (0 once it ran out), so no two code objects share one. */
    int co_version;
    /* The interpreter's own type objects (python.c fills a copy); frame_type before 3.11. */
    const void *code_type, *str_type, *bytes_type, *frame_type;
} vt_py_layout_t;
typedef struct vt_py_frame_s {
    const void *code; /* PyCodeObject */
    int32_t offset;   /* bytes into the bytecode of the instruction executing; -1 not started */
    bool entry;       /* the outermost frame of its C evaluation call */
} vt_py_frame_t;
const vt_py_layout_t *vt_py_layout(int minor); /* NULL for a version without one */
int vt_py_walk(const vt_py_layout_t *L, const void *tstate, vt_py_frame_t *out, int max);
int vt_py_line(const vt_py_layout_t *L, const void *code, int32_t offset);
int vt_py_line_in(const vt_py_layout_t *L, const unsigned char *table, size_t len, int first_line,
                  int32_t offset, size_t *used);
const char *vt_py_str_encode(const vt_py_layout_t *L, const void *s, unsigned kind, int64_t length,
                             char *buf, size_t cap, size_t *len);

/* Object header and the fields of the frame owners, the same in 3.8 to 3.13. */
/* (VT_PY_ prefixes spared: these names stay within the two files that include this one.) */
enum {
    OB_TYPE = 8,     /* PyObject.ob_type */
    OB_SIZE = 16,    /* PyVarObject.ob_size */
    BYTES_DATA = 32, /* PyBytesObject.ob_sval */
    STR_LENGTH = 16, /* PyASCIIObject.length */
    STR_STATE = 32,  /* PyASCIIObject.state: interned:2, kind:3, compact:1, ascii:1 */
    OWNED_BY_GENERATOR = 1,
    OWNED_BY_CSTACK = 3,     /* 3.12+: the entry frame each C evaluation call pushes */
    CODE_UNIT = 2,           /* sizeof(_Py_CODEUNIT) */
    LINETABLE_MAX = 1 << 24, /* a longer line table is taken for garbage */
};

static inline const void *vt_py_load_ptr(const void *base, int offset)
{
    const void *p;
    memcpy(&p, (const char *)base + offset, sizeof p);
    return p;
}

static inline int64_t vt_py_load_i64(const void *base, int offset)
{
    int64_t v;
    memcpy(&v, (const char *)base + offset, sizeof v);
    return v;
}

static inline int32_t vt_py_load_i32(const void *base, int offset)
{
    int32_t v;
    memcpy(&v, (const char *)base + offset, sizeof v);
    return v;
}

static inline bool vt_py_aligned(const void *p)
{
    return p && ((uintptr_t)p & 7) == 0;
}

/* True when p is an object of exactly type `type`. */
static inline bool vt_py_is_a(const void *p, const void *type)
{
    return vt_py_aligned(p) && type && vt_py_load_ptr(p, OB_TYPE) == type;
}

/* The co_filename and co_name objects of a code object (checked by vt_py_str when read). */
static inline const void *vt_py_code_filename(const vt_py_layout_t *L, const void *code)
{
    return vt_py_load_ptr(code, L->co_filename);
}

static inline const void *vt_py_code_name(const vt_py_layout_t *L, const void *code)
{
    return vt_py_load_ptr(code, L->co_name);
}

static inline int vt_py_first_line(const vt_py_layout_t *L, const void *code)
{
    return vt_py_load_i32(code, L->co_firstlineno);
}

/* The bytes of a bytes object and their number; NULL when b is not one. */
static inline const unsigned char *vt_py_bytes(const vt_py_layout_t *L, const void *b, size_t *len)
{
    if (!vt_py_is_a(b, L->bytes_type))
        return NULL;
    int64_t n = vt_py_load_i64(b, OB_SIZE);
    if (n < 0 || n > LINETABLE_MAX)
        return NULL;
    *len = (size_t)n;
    return (const unsigned char *)b + BYTES_DATA;
}

/* The line table of a code object and its length; NULL when it is not a bytes object. */
static inline const unsigned char *vt_py_linetable(const vt_py_layout_t *L, const void *code,
                                                   size_t *len)
{
    return vt_py_bytes(L, vt_py_load_ptr(code, L->co_linetable), len);
}

/* vt_py_str: the text of str object s as UTF-8. A compact ASCII string is returned in place
 * (*len bytes, immutable while the object lives); another compact string is encoded into buf
 * (cap bytes; the end that does not fit is cut); NULL when s is not an exact, compact str. */
static inline const char *vt_py_str(const vt_py_layout_t *L, const void *s, char *buf, size_t cap,
                                    size_t *len)
{
    if (!vt_py_is_a(s, L->str_type))
        return NULL;
    int64_t length = vt_py_load_i64(s, STR_LENGTH);
    unsigned state = (unsigned)vt_py_load_i32(s, STR_STATE);
    if (!((state >> 5) & 1) || length < 0 || length > LINETABLE_MAX) /* not compact */
        return NULL;
    if ((state >> 6) & 1) { /* ascii */
        *len = (size_t)length;
        return (const char *)s + L->str_ascii_data;
    }
    return vt_py_str_encode(L, s, (state >> 2) & 7, length, buf, cap, len);
}

#endif

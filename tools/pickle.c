/* SPDX-License-Identifier: MIT */
/* The pickle writer (pickle.h). Opcodes as Python's pickletools names them. */
#include "pickle.h"

#include <string.h>

#include "utf8.h"

#define OP_PROTO            0x80
#define OP_STOP             '.'
#define OP_MARK             '('
#define OP_EMPTY_DICT       '}'
#define OP_SETITEMS         'u'
#define OP_EMPTY_LIST       ']'
#define OP_APPENDS          'e'
#define OP_SHORT_BINUNICODE 0x8c
#define OP_BINUNICODE       'X'
#define OP_BININT1          'K'
#define OP_BININT2          'M'
#define OP_BININT           'J'
#define OP_LONG1            0x8a
#define OP_BINFLOAT         'G'
#define OP_NEWTRUE          0x88
#define OP_NEWFALSE         0x89
#define OP_NONE             'N'
#define OP_BINPUT           'q'
#define OP_LONG_BINPUT      'r'
#define OP_BINGET           'h'
#define OP_LONG_BINGET      'j'

#define LIST_BATCH 1000

static void put_u32(FILE *out, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    fwrite(b, 1, 4, out);
}

/* One item into the open container: a list's batch is closed and reopened every LIST_BATCH. */
static void item(vt_pickle_t *p)
{
    if (p->depth == 0 || !p->is_list[p->depth])
        return;
    if (p->n_items[p->depth]++ == LIST_BATCH) {
        fputc(OP_APPENDS, p->out);
        fputc(OP_MARK, p->out);
        p->n_items[p->depth] = 1;
    }
}

void vt_pickle_begin(vt_pickle_t *p, FILE *out)
{
    memset(p, 0, sizeof(*p));
    p->out = out;
    fputc(OP_PROTO, out);
    fputc(4, out);
}

void vt_pickle_end(vt_pickle_t *p)
{
    fputc(OP_STOP, p->out);
}

static void open_(vt_pickle_t *p, int op, bool is_list)
{
    item(p);
    fputc(op, p->out);
    fputc(OP_MARK, p->out);
    if (p->depth < VT_PICKLE_MAX_DEPTH - 1)
        p->depth++;
    p->is_list[p->depth] = is_list;
    p->n_items[p->depth] = 0;
}

static void close_(vt_pickle_t *p, int op)
{
    fputc(op, p->out);
    if (p->depth > 0)
        p->depth--;
}

void vt_pickle_dict_begin(vt_pickle_t *p)
{
    open_(p, OP_EMPTY_DICT, false);
}

void vt_pickle_dict_end(vt_pickle_t *p)
{
    close_(p, OP_SETITEMS);
}

void vt_pickle_list_begin(vt_pickle_t *p)
{
    open_(p, OP_EMPTY_LIST, true);
}

void vt_pickle_list_end(vt_pickle_t *p)
{
    close_(p, OP_APPENDS);
}

static void put_utf8(FILE *out, const unsigned char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        size_t n = vt_utf8_len(s + i); /* s is NUL-terminated */
        if (!n) {
            fputc('?', out);
            i++;
            continue;
        }
        fwrite(s + i, 1, n, out);
        i += n;
    }
}

void vt_pickle_str(vt_pickle_t *p, const char *s)
{
    item(p);
    size_t len = strlen(s); /* the '?' replacing an invalid byte keeps the length */
    if (len < 256) {
        fputc(OP_SHORT_BINUNICODE, p->out);
        fputc((int)len, p->out);
    } else {
        fputc(OP_BINUNICODE, p->out);
        put_u32(p->out, (uint32_t)(len > UINT32_MAX ? UINT32_MAX : len));
    }
    put_utf8(p->out, (const unsigned char *)s, len);
}

void vt_pickle_key(vt_pickle_t *p, const char *key)
{
    for (int i = 0; i < p->n_keys; i++)
        if (p->keys[i] == key) {
            vt_pickle_memo_get(p, p->key_memo[i]);
            return;
        }
    vt_pickle_str(p, key);
    if (p->n_keys < VT_PICKLE_KEYS) {
        p->keys[p->n_keys] = key;
        p->key_memo[p->n_keys++] = vt_pickle_memo_put(p);
    }
}

void vt_pickle_uint(vt_pickle_t *p, uint64_t v)
{
    item(p);
    if (v < 0x100) {
        fputc(OP_BININT1, p->out);
        fputc((int)v, p->out);
    } else if (v < 0x10000) {
        fputc(OP_BININT2, p->out);
        fputc((int)(v & 0xff), p->out);
        fputc((int)(v >> 8), p->out);
    } else if (v < 0x80000000u) {
        fputc(OP_BININT, p->out);
        put_u32(p->out, (uint32_t)v);
    } else {
        /* LONG1: little-endian two's complement, a zero byte more when the top bit is set. */
        unsigned char b[9];
        int n = 0;
        for (uint64_t x = v; x; x >>= 8)
            b[n++] = (unsigned char)x;
        if (b[n - 1] & 0x80)
            b[n++] = 0;
        fputc(OP_LONG1, p->out);
        fputc(n, p->out);
        fwrite(b, 1, (size_t)n, p->out);
    }
}

void vt_pickle_float(vt_pickle_t *p, double v)
{
    item(p);
    uint64_t bits;
    memcpy(&bits, &v, sizeof(bits));
    fputc(OP_BINFLOAT, p->out);
    for (int i = 7; i >= 0; i--) /* big-endian */
        fputc((int)((bits >> (8 * i)) & 0xff), p->out);
}

void vt_pickle_bool(vt_pickle_t *p, bool v)
{
    item(p);
    fputc(v ? OP_NEWTRUE : OP_NEWFALSE, p->out);
}

void vt_pickle_none(vt_pickle_t *p)
{
    item(p);
    fputc(OP_NONE, p->out);
}

uint32_t vt_pickle_memo_put(vt_pickle_t *p)
{
    uint32_t slot = p->n_memo++;
    if (slot < 0x100) {
        fputc(OP_BINPUT, p->out);
        fputc((int)slot, p->out);
    } else {
        fputc(OP_LONG_BINPUT, p->out);
        put_u32(p->out, slot);
    }
    return slot;
}

void vt_pickle_memo_get(vt_pickle_t *p, uint32_t slot)
{
    item(p);
    if (slot < 0x100) {
        fputc(OP_BINGET, p->out);
        fputc((int)slot, p->out);
    } else {
        fputc(OP_LONG_BINGET, p->out);
        put_u32(p->out, slot);
    }
}

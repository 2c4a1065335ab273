/* SPDX-License-Identifier: MIT */
/* The unwind rule of one return address, read from the module's .eh_frame (through its
 * .eh_frame_hdr search table): where the caller's frame starts (the CFA, a register plus an
 * offset), where the return address and the caller's frame pointer were saved. Only the forms
 * that ordinary x86-64 code uses are understood: the CFA from %rsp or %rbp plus a constant, the
 * return address at CFA-8, %rbp unchanged or saved at a constant offset from the CFA. Anything
 * else (expressions, other registers, signal frames, no unwind info) is VT_CFI_OTHER, and the
 * caller then asks libunwind. Called on the miss path only (unwind.c); reads only the loaded,
 * read-only unwind sections. AS-safe: dl_iterate_phdr, as libunwind calls it too. */
#include "vt_internal.h"

#include <link.h>
#include <string.h>

#if defined(__x86_64__)

enum {
    REG_RBP = 6, /* DWARF register numbers of x86-64 */
    REG_RSP = 7,
    REG_RA = 16,
    STATE_STACK = 8, /* DW_CFA_remember_state depth understood */
};

/* How a register is recovered in the caller. */
typedef enum reg_how_e { HOW_SAME, HOW_OFFSET, HOW_UNDEFINED, HOW_OTHER } reg_how_t;

typedef struct cfi_state_s {
    int cfa_reg; /* REG_RSP, REG_RBP, or -1: not a register plus an offset */
    int64_t cfa_off;
    reg_how_t rbp_how, ra_how, rsp_how;
    int64_t rbp_off, ra_off; /* HOW_OFFSET: saved at CFA + this */
} cfi_state_t;

typedef struct cie_s {
    uint64_t code_align;
    int64_t data_align;
    uint64_t ra_reg;
    uint8_t fde_enc; /* the 'R' augmentation: how the FDE's addresses are encoded */
    bool signal;     /* the 'S' augmentation */
    bool has_aug_data;
    const uint8_t *insns, *end;
} cie_t;

/* A bounded reader over the section. */
typedef struct reader_s {
    const uint8_t *p, *end;
    bool bad;
} reader_t;

static uint64_t rd_uleb(reader_t *r)
{
    uint64_t v = 0;
    for (unsigned shift = 0; r->p < r->end && shift < 64; shift += 7) {
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    r->bad = true;
    return 0;
}

static int64_t rd_sleb(reader_t *r)
{
    int64_t v = 0;
    unsigned shift = 0;
    while (r->p < r->end && shift < 64) {
        uint8_t b = *r->p++;
        v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
        shift += 7;
        if (!(b & 0x80)) {
            if (shift < 64 && (b & 0x40))
                v |= (int64_t)(~(uint64_t)0 << shift);
            return v;
        }
    }
    r->bad = true;
    return 0;
}

static bool rd_bytes(reader_t *r, void *out, size_t n)
{
    if ((size_t)(r->end - r->p) < n) {
        r->bad = true;
        return false;
    }
    memcpy(out, r->p, n);
    r->p += n;
    return true;
}

static uint8_t rd_u8(reader_t *r)
{
    uint8_t v = 0;
    rd_bytes(r, &v, 1);
    return v;
}

/* A pointer in DW_EH_PE encoding enc: absolute or relative to its own place (pcrel) or to
 * datarel_base; indirect pointers are read through. Others: r->bad. */
static uintptr_t rd_encoded(reader_t *r, uint8_t enc, uintptr_t datarel_base)
{
    if (enc == 0xff) /* DW_EH_PE_omit */
        return 0;
    uintptr_t here = (uintptr_t)r->p;
    uint64_t v = 0;
    switch (enc & 0x0f) {
    case 0x00: /* absptr */
    case 0x04: /* udata8 */
    case 0x0c: /* sdata8 */
        rd_bytes(r, &v, 8);
        break;
    case 0x01: /* uleb128 */
        v = rd_uleb(r);
        break;
    case 0x02: { /* udata2 */
        uint16_t u = 0;
        rd_bytes(r, &u, 2);
        v = u;
        break;
    }
    case 0x03: { /* udata4 */
        uint32_t u = 0;
        rd_bytes(r, &u, 4);
        v = u;
        break;
    }
    case 0x09: /* sleb128 */
        v = (uint64_t)rd_sleb(r);
        break;
    case 0x0a: { /* sdata2 */
        int16_t s = 0;
        rd_bytes(r, &s, 2);
        v = (uint64_t)(int64_t)s;
        break;
    }
    case 0x0b: { /* sdata4 */
        int32_t s = 0;
        rd_bytes(r, &s, 4);
        v = (uint64_t)(int64_t)s;
        break;
    }
    default:
        r->bad = true;
        return 0;
    }
    switch (enc & 0x70) {
    case 0x00:
        break;
    case 0x10: /* pcrel */
        v += here;
        break;
    case 0x30: /* datarel */
        v += datarel_base;
        break;
    default:
        r->bad = true;
        return 0;
    }
    if ((enc & 0x80) && !r->bad) /* indirect: only the personality is, and it is skipped */
        v = 0;
    return (uintptr_t)v;
}

/* ---- finding the FDE ------------------------------------------------------------------------ */

typedef struct find_s {
    uintptr_t pc;
    const uint8_t *hdr; /* the module's .eh_frame_hdr */
    uintptr_t hdr_end;
    bool in_module;
} find_t;

static int find_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    find_t *f = data;
    const ElfW(Phdr) *eh = NULL;
    bool hit = false;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && f->pc >= lo && f->pc < lo + ph->p_memsz)
            hit = true;
        else if (ph->p_type == PT_GNU_EH_FRAME)
            eh = ph;
    }
    if (!hit)
        return 0;
    f->in_module = true;
    if (eh) {
        f->hdr = (const uint8_t *)(info->dlpi_addr + eh->p_vaddr);
        f->hdr_end = (uintptr_t)f->hdr + eh->p_memsz;
    }
    return 1;
}

/* The FDE covering pc through the module's binary search table, or NULL. */
static const uint8_t *find_fde(uintptr_t pc)
{
    find_t f = {.pc = pc};
    dl_iterate_phdr(find_module, &f);
    if (!f.hdr)
        return NULL;
    reader_t r = {f.hdr, (const uint8_t *)f.hdr_end, false};
    uint8_t version = rd_u8(&r), frame_enc = rd_u8(&r), count_enc = rd_u8(&r),
            table_enc = rd_u8(&r);
    if (version != 1 || table_enc != 0x3b) /* datarel | sdata4: what every linker writes */
        return NULL;
    rd_encoded(&r, frame_enc, 0);
    uintptr_t count = rd_encoded(&r, count_enc, 0);
    if (r.bad || count == 0 || count > (uintptr_t)(r.end - r.p) / 8)
        return NULL;
    const int32_t *table = (const int32_t *)(const void *)r.p;
    uintptr_t base = (uintptr_t)f.hdr;
    size_t lo = 0, hi = count; /* the last entry whose start is <= pc */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (base + (uintptr_t)(intptr_t)table[2 * mid] <= pc)
            lo = mid;
        else
            hi = mid;
    }
    if (base + (uintptr_t)(intptr_t)table[2 * lo] > pc)
        return NULL;
    return (const uint8_t *)(base + (uintptr_t)(intptr_t)table[2 * lo + 1]);
}

/* One CIE or FDE record: its contents after the length; false when it does not parse. */
static bool record_at(const uint8_t *p, reader_t *out)
{
    uint32_t len32;
    memcpy(&len32, p, 4);
    if (len32 == 0 || len32 == 0xffffffffu) /* the terminator, or 64-bit DWARF: not ours */
        return false;
    out->p = p + 4;
    out->end = p + 4 + len32;
    out->bad = false;
    return true;
}

static bool parse_cie(const uint8_t *cie_at, cie_t *cie)
{
    reader_t r;
    if (!record_at(cie_at, &r))
        return false;
    uint32_t id = 1;
    rd_bytes(&r, &id, 4);
    uint8_t version = rd_u8(&r);
    if (id != 0 || (version != 1 && version != 3))
        return false;
    const char *aug = (const char *)r.p;
    size_t aug_len = strnlen(aug, (size_t)(r.end - r.p));
    if (aug_len == (size_t)(r.end - r.p))
        return false;
    r.p += aug_len + 1;
    memset(cie, 0, sizeof *cie);
    cie->code_align = rd_uleb(&r);
    cie->data_align = rd_sleb(&r);
    cie->ra_reg = version == 1 ? rd_u8(&r) : rd_uleb(&r);
    cie->fde_enc = 0; /* absptr */
    const uint8_t *aug_end = NULL;
    for (size_t i = 0; i < aug_len && !r.bad; i++) {
        switch (aug[i]) {
        case 'z': {
            if (i != 0)
                return false;
            uint64_t n = rd_uleb(&r);
            if (n > (uint64_t)(r.end - r.p))
                return false;
            aug_end = r.p + n;
            cie->has_aug_data = true;
            break;
        }
        case 'R':
            cie->fde_enc = rd_u8(&r);
            break;
        case 'P':
            rd_encoded(&r, rd_u8(&r), 0);
            break;
        case 'L':
            rd_u8(&r);
            break;
        case 'S':
            cie->signal = true;
            break;
        default: /* unknown: only skippable with 'z' */
            if (!aug_end)
                return false;
            i = aug_len;
            break;
        }
    }
    if (r.bad || aug[0] != 'z' || !aug_end)
        return false;
    cie->insns = aug_end;
    cie->end = r.end;
    return true;
}

/* ---- the CFA program ------------------------------------------------------------------------ */

static void set_reg(cfi_state_t *s, uint64_t reg, reg_how_t how, int64_t off)
{
    if (reg == REG_RBP) {
        s->rbp_how = how;
        s->rbp_off = off;
    } else if (reg == REG_RA) {
        s->ra_how = how;
        s->ra_off = off;
    } else if (reg == REG_RSP) {
        s->rsp_how = how;
    }
}

/* Runs the instructions [p, end) while the location stays <= pc; init is the CIE's state (for
 * DW_CFA_restore). False on anything not understood. */
static bool run_program(const cie_t *cie, const uint8_t *p, const uint8_t *end, uintptr_t loc,
                        uintptr_t pc, cfi_state_t *s, const cfi_state_t *init)
{
    cfi_state_t stack[STATE_STACK];
    int depth = 0;
    reader_t r = {p, end, false};
    while (r.p < r.end && !r.bad) {
        uint8_t op = rd_u8(&r);
        uint64_t reg = 0, delta = 0;
        switch (op & 0xc0) {
        case 0x40: /* advance_loc */
            delta = op & 0x3f;
            goto advance;
        case 0x80: /* offset */
            set_reg(s, op & 0x3f, HOW_OFFSET, (int64_t)rd_uleb(&r) * cie->data_align);
            continue;
        case 0xc0: /* restore */
            if (!init)
                return false;
            reg = op & 0x3f;
            goto restore;
        default:
            break;
        }
        switch (op) {
        case 0x00: /* nop */
            break;
        case 0x02: /* advance_loc1 */
            delta = rd_u8(&r);
            goto advance;
        case 0x03: { /* advance_loc2 */
            uint16_t d = 0;
            rd_bytes(&r, &d, 2);
            delta = d;
            goto advance;
        }
        case 0x04: { /* advance_loc4 */
            uint32_t d = 0;
            rd_bytes(&r, &d, 4);
            delta = d;
            goto advance;
        }
        case 0x05: /* offset_extended */
            reg = rd_uleb(&r);
            set_reg(s, reg, HOW_OFFSET, (int64_t)rd_uleb(&r) * cie->data_align);
            break;
        case 0x11: /* offset_extended_sf */
            reg = rd_uleb(&r);
            set_reg(s, reg, HOW_OFFSET, rd_sleb(&r) * cie->data_align);
            break;
        case 0x06: /* restore_extended */
            if (!init)
                return false;
            reg = rd_uleb(&r);
            goto restore;
        case 0x07: /* undefined */
            set_reg(s, rd_uleb(&r), HOW_UNDEFINED, 0);
            break;
        case 0x08: /* same_value */
            set_reg(s, rd_uleb(&r), HOW_SAME, 0);
            break;
        case 0x09: /* register */
            reg = rd_uleb(&r);
            rd_uleb(&r);
            set_reg(s, reg, HOW_OTHER, 0);
            break;
        case 0x0a: /* remember_state */
            if (depth == STATE_STACK)
                return false;
            stack[depth++] = *s;
            break;
        case 0x0b: /* restore_state */
            if (depth == 0)
                return false;
            *s = stack[--depth];
            break;
        case 0x0c: /* def_cfa */
            s->cfa_reg = (int)rd_uleb(&r);
            s->cfa_off = (int64_t)rd_uleb(&r);
            break;
        case 0x12: /* def_cfa_sf */
            s->cfa_reg = (int)rd_uleb(&r);
            s->cfa_off = rd_sleb(&r) * cie->data_align;
            break;
        case 0x0d: /* def_cfa_register */
            s->cfa_reg = (int)rd_uleb(&r);
            break;
        case 0x0e: /* def_cfa_offset */
            s->cfa_off = (int64_t)rd_uleb(&r);
            break;
        case 0x13: /* def_cfa_offset_sf */
            s->cfa_off = rd_sleb(&r) * cie->data_align;
            break;
        case 0x0f: { /* def_cfa_expression */
            uint64_t n = rd_uleb(&r);
            if (n > (uint64_t)(r.end - r.p))
                return false;
            r.p += n;
            s->cfa_reg = -1;
            break;
        }
        case 0x10:   /* expression */
        case 0x16: { /* val_expression */
            reg = rd_uleb(&r);
            uint64_t n = rd_uleb(&r);
            if (n > (uint64_t)(r.end - r.p))
                return false;
            r.p += n;
            set_reg(s, reg, HOW_OTHER, 0);
            break;
        }
        case 0x14: /* val_offset */
        case 0x15: /* val_offset_sf */
            reg = rd_uleb(&r);
            if (op == 0x14)
                rd_uleb(&r);
            else
                rd_sleb(&r);
            set_reg(s, reg, HOW_OTHER, 0);
            break;
        case 0x2e: /* GNU_args_size: the stack adjustment of a landing pad, not the CFA */
            rd_uleb(&r);
            break;
        default: /* set_loc, GNU_negative_offset_extended, anything newer */
            return false;
        }
        continue;
    advance:
        loc += delta * cie->code_align;
        if (loc > pc)
            return !r.bad;
        continue;
    restore:
        if (reg == REG_RBP)
            set_reg(s, reg, init->rbp_how, init->rbp_off);
        else if (reg == REG_RA)
            set_reg(s, reg, init->ra_how, init->ra_off);
        else if (reg == REG_RSP)
            set_reg(s, reg, init->rsp_how, 0);
    }
    return !r.bad;
}

vt_cfi_rule_t vt_cfi_rule(uintptr_t ra)
{
    vt_cfi_rule_t other = {.kind = VT_CFI_OTHER};
    uintptr_t pc = ra - 1; /* the call instruction, not what follows it */
    const uint8_t *fde = find_fde(pc);
    reader_t r;
    if (!fde || !record_at(fde, &r))
        return other;
    uint32_t cie_off = 0;
    const uint8_t *cie_ptr_at = r.p;
    rd_bytes(&r, &cie_off, 4);
    if (cie_off == 0)
        return other; /* a CIE where an FDE should be */
    cie_t cie;
    if (!parse_cie(cie_ptr_at - cie_off, &cie) || cie.signal || cie.ra_reg != REG_RA)
        return other;
    uintptr_t start = rd_encoded(&r, cie.fde_enc, 0);
    uintptr_t range = rd_encoded(&r, cie.fde_enc & 0x0f, 0);
    if (r.bad || pc < start || pc - start >= range)
        return other;
    if (cie.has_aug_data) {
        uint64_t n = rd_uleb(&r);
        if (r.bad || n > (uint64_t)(r.end - r.p))
            return other;
        r.p += n;
    }
    cfi_state_t s = {.cfa_reg = -1, .rbp_how = HOW_SAME, .ra_how = HOW_SAME, .rsp_how = HOW_SAME};
    if (!run_program(&cie, cie.insns, cie.end, start, UINTPTR_MAX, &s, NULL))
        return other;
    cfi_state_t init = s;
    if (!run_program(&cie, r.p, r.end, start, pc, &s, &init))
        return other;
    if (s.ra_how == HOW_UNDEFINED)
        return (vt_cfi_rule_t){.kind = VT_CFI_LAST};
    if ((s.cfa_reg != REG_RSP && s.cfa_reg != REG_RBP) || s.cfa_off <= 0 || s.cfa_off > INT32_MAX ||
        s.ra_how != HOW_OFFSET || s.ra_off != -8 || s.rsp_how != HOW_SAME ||
        (s.rbp_how != HOW_SAME && s.rbp_how != HOW_OFFSET) ||
        (s.rbp_how == HOW_OFFSET && (s.rbp_off >= 0 || s.rbp_off < INT16_MIN)))
        return other;
    return (vt_cfi_rule_t){.kind = VT_CFI_STANDARD,
                           .cfa_from_rbp = s.cfa_reg == REG_RBP,
                           .cfa_off = (int32_t)s.cfa_off,
                           .rbp_off = s.rbp_how == HOW_OFFSET ? (int16_t)s.rbp_off : 0};
}

#else /* not x86-64: libunwind alone */

vt_cfi_rule_t vt_cfi_rule(uintptr_t ra)
{
    (void)ra;
    return (vt_cfi_rule_t){.kind = VT_CFI_OTHER};
}

#endif

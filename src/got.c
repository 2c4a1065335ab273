/* SPDX-License-Identifier: MIT */
/* Relocation patching: the slots an object's calls and function pointers go through (its GOT:
 * JUMP_SLOT relocations of the PLT, GLOB_DAT of addresses taken), found by the symbol each names
 * and rewritten, so an object's references to a function reach another one without that
 * function's name being exported by anyone (docs/design.md, "What the exported doors 3 and 4
 * cost"). REL and RELA, lazy and immediate binding; a slot under RELRO is written with its page
 * made writable for the moment and read-only again, under one mutex (two threads must not
 * unprotect and protect the same page at once), taken only then: a walk that writes nothing
 * touches no lock. dl_iterate_phdr's caller holds the loader lock, so no object is unloaded
 * meanwhile. Not instrumented in a sanitizer build:
 * src/loads.c calls it while the loader relocates, before any sanitizer runtime is ready. */
#include "vt_internal.h"

#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#    define R_JUMP_SLOT     R_X86_64_JUMP_SLOT
#    define R_GLOB_DAT      R_X86_64_GLOB_DAT
#    define R_RELATIVE_TYPE R_X86_64_RELATIVE
#elif defined(__aarch64__)
#    define R_JUMP_SLOT     R_AARCH64_JUMP_SLOT
#    define R_GLOB_DAT      R_AARCH64_GLOB_DAT
#    define R_RELATIVE_TYPE R_AARCH64_RELATIVE
#elif defined(__i386__)
#    define R_JUMP_SLOT R_386_JMP_SLOT
#    define R_GLOB_DAT  R_386_GLOB_DAT
#elif defined(__arm__)
#    define R_JUMP_SLOT R_ARM_JUMP_SLOT
#    define R_GLOB_DAT  R_ARM_GLOB_DAT
#endif

/* DT_RELR's tags (glibc 2.36's elf.h has them; older headers do not). */
#define VT_DT_RELR   36
#define VT_DT_RELRSZ 35

#if __ELF_NATIVE_CLASS == 64
#    define REL_TYPE(info) ELF64_R_TYPE(info)
#    define REL_SYM(info)  ELF64_R_SYM(info)
#    define SYM_BIND(info) ELF64_ST_BIND(info)
#else
#    define REL_TYPE(info) ELF32_R_TYPE(info)
#    define REL_SYM(info)  ELF32_R_SYM(info)
#    define SYM_BIND(info) ELF32_ST_BIND(info)
#endif

static pthread_mutex_t patch_lock = PTHREAD_MUTEX_INITIALIZER;

/* What one object's dynamic section says, its addresses made absolute. */
typedef struct object_s {
    uintptr_t base, lo, hi;       /* load bias; the span of its loadable segments */
    uintptr_t relro_lo, relro_hi; /* read-only after relocation (PT_GNU_RELRO) */
    bool locked;                  /* a RELRO slot is written under patch_lock */
    const ElfW(Sym) * symtab;
    const char *strtab;
    size_t strsz;
    uintptr_t jmprel, pltrelsz, pltrel; /* the PLT's relocations, and their kind (DT_REL[A]) */
    uintptr_t rela, relasz, rel, relsz;
    uintptr_t relr, relrsz; /* packed relative relocations (DT_RELR) */
} object_t;

/* glibc makes the pointers of a loaded object's dynamic section absolute in place on most
 * machines; where it does not (the section is read-only there), they are offsets. */
VT_NO_SANITIZE static uintptr_t absolute(const object_t *o, uintptr_t p)
{
    return p < o->base ? p + o->base : p;
}

/* The part of object_t that the dynamic section alone tells (the tables), for the object loaded
 * at base; false when it has no symbol table. Field by field, not memset: no libc call while the
 * loader relocates (src/loads.c). */
VT_NO_SANITIZE static bool read_dynamic(uintptr_t base, const ElfW(Dyn) * dyn, object_t *o)
{
    o->base = base;
    o->symtab = NULL;
    o->strtab = NULL;
    o->strsz = 0;
    o->jmprel = o->pltrelsz = o->pltrel = 0;
    o->rela = o->relasz = o->rel = o->relsz = 0;
    o->relr = o->relrsz = 0;
    for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
        uintptr_t v = dyn->d_un.d_ptr;
        switch (dyn->d_tag) {
        case DT_SYMTAB:
            o->symtab = (const ElfW(Sym) *)absolute(o, v);
            break;
        case DT_STRTAB:
            o->strtab = (const char *)absolute(o, v);
            break;
        case DT_STRSZ:
            o->strsz = dyn->d_un.d_val;
            break;
        case DT_JMPREL:
            o->jmprel = absolute(o, v);
            break;
        case DT_PLTRELSZ:
            o->pltrelsz = dyn->d_un.d_val;
            break;
        case DT_PLTREL:
            o->pltrel = dyn->d_un.d_val;
            break;
        case DT_RELA:
            o->rela = absolute(o, v);
            break;
        case DT_RELASZ:
            o->relasz = dyn->d_un.d_val;
            break;
        case DT_REL:
            o->rel = absolute(o, v);
            break;
        case DT_RELSZ:
            o->relsz = dyn->d_un.d_val;
            break;
        case VT_DT_RELR:
            o->relr = absolute(o, v);
            break;
        case VT_DT_RELRSZ:
            o->relrsz = dyn->d_un.d_val;
            break;
        default:
            break;
        }
    }
    return o->symtab && o->strtab && o->strsz;
}

VT_NO_SANITIZE static bool read_object(const struct dl_phdr_info *info, object_t *o)
{
    o->lo = UINTPTR_MAX;
    o->hi = o->relro_lo = o->relro_hi = 0;
    o->locked = false;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD) {
            o->lo = a < o->lo ? a : o->lo;
            o->hi = a + ph->p_memsz > o->hi ? a + ph->p_memsz : o->hi;
        } else if (ph->p_type == PT_DYNAMIC) {
            dyn = (const ElfW(Dyn) *)a;
        } else if (ph->p_type == PT_GNU_RELRO) {
            o->relro_lo = a;
            o->relro_hi = a + ph->p_memsz;
        }
    }
    return dyn && read_dynamic(info->dlpi_addr, dyn, o);
}

/* Stores value in slot; under RELRO with its pages writable for the moment. */
VT_NO_SANITIZE static bool write_slot(const object_t *o, void **slot, void *value)
{
    uintptr_t at = (uintptr_t)slot;
    if (at < o->relro_lo || at >= o->relro_hi) {
        __atomic_store_n(slot, value, __ATOMIC_RELEASE);
        return true;
    }
    /* The system call itself: the sanitizers intercept mprotect, and src/loads.c patches
     * before their runtime is ready. */
    uintptr_t page = (uintptr_t)getpagesize();
    uintptr_t lo = at & ~(page - 1), hi = (at + sizeof *slot + page - 1) & ~(page - 1);
    if (o->locked)
        pthread_mutex_lock(&patch_lock);
    bool writable = syscall(SYS_mprotect, lo, hi - lo, PROT_READ | PROT_WRITE) == 0;
    if (writable) {
        __atomic_store_n(slot, value, __ATOMIC_RELEASE);
        syscall(SYS_mprotect, lo, hi - lo, PROT_READ);
    }
    if (o->locked)
        pthread_mutex_unlock(&patch_lock);
    return writable;
}

/* The name of the symbol a relocation refers to when it is a call or address slot; else NULL. */
VT_NO_SANITIZE static const char *slot_name(const object_t *o, uintptr_t info)
{
#if defined(R_JUMP_SLOT)
    unsigned long type = REL_TYPE(info), sym = REL_SYM(info);
    if ((type != R_JUMP_SLOT && type != R_GLOB_DAT) || sym == 0)
        return NULL;
    size_t name_at = o->symtab[sym].st_name;
    return name_at < o->strsz ? o->strtab + name_at : NULL;
#else
    (void)o;
    (void)info;
    return NULL;
#endif
}

/* Called with each relocation of an object (walk_object): true stops the walk. */
typedef bool (*reloc_fn)(const object_t *o, uintptr_t info, uintptr_t offset, void *ctx);

/* Calls each with the relocations of one table, in order; true when one stopped the walk. */
VT_NO_SANITIZE static bool walk_table(const object_t *o, uintptr_t table, uintptr_t bytes,
                                      bool with_addend, reloc_fn each, void *ctx)
{
    if (!table)
        return false;
    if (with_addend) {
        const ElfW(Rela) *r = (const ElfW(Rela) *)table;
        for (size_t i = 0; i < bytes / sizeof *r; i++)
            if (each(o, r[i].r_info, r[i].r_offset, ctx))
                return true;
    } else {
        const ElfW(Rel) *r = (const ElfW(Rel) *)table;
        for (size_t i = 0; i < bytes / sizeof *r; i++)
            if (each(o, r[i].r_info, r[i].r_offset, ctx))
                return true;
    }
    return false;
}

/* Calls each with every relocation of o: address slots first (a weak call slot not bound yet is
 * told apart by its address slot), the PLT's last. True when one stopped the walk. */
VT_NO_SANITIZE static bool walk_object(const object_t *o, reloc_fn each, void *ctx)
{
    return walk_table(o, o->rela, o->relasz, true, each, ctx) ||
           walk_table(o, o->rel, o->relsz, false, each, ctx) ||
           walk_table(o, o->jmprel, o->pltrelsz, o->pltrel == DT_RELA, each, ctx);
}

typedef struct patch_s {
    vt_got_visit_fn visit;
    void *ctx;
    int written;
} patch_t;

/* One relocation: when it is a call or address slot naming a symbol visit wants, its value. */
VT_NO_SANITIZE static bool patch_reloc(const object_t *o, uintptr_t info, uintptr_t offset,
                                       void *ctx)
{
    patch_t *p = ctx;
    const char *name = slot_name(o, info);
    if (!name)
        return false;
    unsigned long sym = REL_SYM(info);
    void **slot = (void **)(o->base + offset);
    void *current = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    /* An undefined weak reference: nothing to turn, the program tests it for NULL. */
    if (!current)
        return false;
    /* A lazy slot not bound yet leads back into the object's own PLT. */
    bool bound = (uintptr_t)current < o->lo || (uintptr_t)current >= o->hi;
    bool weak = SYM_BIND(o->symtab[sym].st_info) == STB_WEAK;
    void *value = p->visit(p->ctx, name, current, bound, weak);
    if (value && value != current && write_slot(o, slot, value))
        p->written++;
    return false;
}

VT_NO_SANITIZE static int patch_object(const struct dl_phdr_info *info, vt_got_visit_fn visit,
                                       void *ctx, bool locked)
{
#if defined(R_JUMP_SLOT)
    object_t o;
    if (!read_object(info, &o))
        return 0;
    o.locked = locked;
    patch_t p = {visit, ctx, 0};
    walk_object(&o, patch_reloc, &p);
    return p.written;
#else
    (void)info;
    (void)visit;
    (void)ctx;
    (void)locked;
    return 0;
#endif
}

int vt_got_patch(const struct dl_phdr_info *info, vt_got_visit_fn visit, void *ctx)
{
    return patch_object(info, visit, ctx, true);
}

/* vt_got_patch_alone: vt_got_patch while the process has a single thread (the loader's startup),
 * without the lock: no sanitizer runtime is ready to intercept a mutex then. */
VT_NO_SANITIZE int vt_got_patch_alone(const struct dl_phdr_info *info, vt_got_visit_fn visit,
                                      void *ctx)
{
    return patch_object(info, visit, ctx, false);
}

/* Stops at a call or address slot naming a symbol the vt_got_name_fn at ctx accepts. */
VT_NO_SANITIZE static bool names_wanted(const object_t *o, uintptr_t info, uintptr_t offset,
                                        void *ctx)
{
    (void)offset;
    const char *name = slot_name(o, info);
    return name && (*(vt_got_name_fn *)ctx)(name);
}

/* vt_got_names: whether the object loaded at base, whose dynamic section is at dynamic, has a
 * call or address slot naming a symbol that wanted accepts. The dynamic section alone tells it,
 * relocated or not: no program header is read, no system call made, no libc called, so the
 * loader's startup can ask it of every object, and an object that names none of ours is known
 * for good not to need patching. */
VT_NO_SANITIZE bool vt_got_names(uintptr_t base, const void *dynamic, vt_got_name_fn wanted)
{
    object_t o;
    return read_dynamic(base, dynamic, &o) && walk_object(&o, names_wanted, &wanted);
}

/* vt_got_relocated: whether the loader has relocated the object already: 1 yes, 0 not yet, -1
 * cannot be told. glibc relocates an object in one pass: its packed relative relocations
 * (DT_RELR), then DT_REL/DT_RELA in table order with the PLT's (DT_JMPREL) last. So the slot
 * of the last call relocation tells the most: before relocation it holds its link-time value, a
 * PLT address inside the object's unrelocated span [lo - base, hi - base); after, the PLT
 * address plus the load address (lazy binding), the function, or NULL (an undefined weak
 * reference bound now). Without one, a relative relocation's slot: RELA's holds the load
 * address plus the addend once applied; RELR's holds a link-time address inside the object,
 * which relocation moves by the load address. -1 when the object is where it was linked (no
 * way to tell), has none of these (only REL, or only address slots), or a value fits neither. */
#if defined(R_RELATIVE_TYPE)
/* 1 when v is the relocated form of a link-time address in the object's span, 0 when it is
 * the unrelocated one, -1 when neither. */
VT_NO_SANITIZE static int moved(const object_t *o, uintptr_t v)
{
    if (v >= o->lo && v < o->hi)
        return 1;
    if (v >= o->lo - o->base && v < o->hi - o->base)
        return 0;
    return -1;
}
#endif

VT_NO_SANITIZE int vt_got_relocated(const struct dl_phdr_info *info)
{
#if defined(R_RELATIVE_TYPE)
    object_t o;
    if (!read_object(info, &o) || o.base == 0 || o.hi - o.base > o.lo)
        return -1;
    if (o.jmprel && o.pltrel == DT_RELA) {
        const ElfW(Rela) *r = (const ElfW(Rela) *)o.jmprel;
        for (size_t i = o.pltrelsz / sizeof *r; i-- > 0;)
            if (REL_TYPE(r[i].r_info) == R_JUMP_SLOT) {
                uintptr_t v = *(const uintptr_t *)(o.base + r[i].r_offset);
                return v == 0 || moved(&o, v) != 0;
            }
    }
    if (o.rela) {
        const ElfW(Rela) *r = (const ElfW(Rela) *)o.rela;
        for (size_t i = 0; i < o.relasz / sizeof *r; i++)
            if (REL_TYPE(r[i].r_info) == R_RELATIVE_TYPE)
                return *(const uintptr_t *)(o.base + r[i].r_offset) ==
                       o.base + (uintptr_t)r[i].r_addend;
    }
    /* The first entry of DT_RELR is an address (even), the offset of a relocated slot. */
    if (o.relr && o.relrsz >= sizeof(ElfW(Addr)) && (*(const ElfW(Addr) *)o.relr & 1) == 0)
        return moved(&o, *(const uintptr_t *)(o.base + *(const ElfW(Addr) *)o.relr));
    return -1;
#else
    (void)info;
    return -1;
#endif
}

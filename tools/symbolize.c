/* SPDX-License-Identifier: MIT */
/* Offline symbolization (symbolize.h): each module of the trace is opened with libdwfl the
 * first time one of its ips is asked about, at the load bias the process had, and checked
 * against the build-id the capture library recorded; names come from the ELF symbol tables,
 * file:line and inlining from DWARF (separate debuginfo is found the standard way, through
 * /usr/lib/debug and .gnu_debuglink). Every answer is cached per ip, since a report shows the
 * same frames many times. Not thread-safe: one symbolizer per thread. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "input.h"
#include "symbolize.h"
#include "vt_frames.h"

#ifdef VT_HAVE_LIBDW
#    include <dwarf.h>
#    include <elfutils/libdwfl.h>

/* libstdc++'s demangler (the Itanium C++ ABI's): a well-kept one beats a hand-written one, and
 * the CLI alone links libstdc++ for it. Declared here because <cxxabi.h> is C++. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);
#endif

struct vt_sym_mod_s {
    char *path;       /* malloc'd; "" when unknown */
    const char *base; /* its basename; NULL when path is "" */
    uint64_t bias, lo, hi;
    uint8_t *build_id; /* malloc'd; build_id_len bytes */
    uint32_t build_id_len;
    int state;   /* 0 not opened yet, 1 open (dwmod), -1 unreadable, -2 build-id differs */
    void *dwmod; /* Dwfl_Module * */
};

struct vt_sym_entry_s {
    uint64_t ip;
    int used, known;
    vt_sym_frame_t frame; /* function, inlined_in and symbol are owned; file: the Dwfl's */
};

/* ---- modules ------------------------------------------------------------------------------- */

static int mod_set(struct vt_sym_mod_s *m, const char *path, size_t path_len, uint64_t bias,
                   uint64_t lo, uint64_t hi, const uint8_t *build_id, uint32_t build_id_len)
{
    memset(m, 0, sizeof(*m));
    m->path = malloc(path_len + 1);
    m->build_id = malloc(build_id_len ? build_id_len : 1);
    if (!m->path || !m->build_id)
        return -1;
    memcpy(m->path, path, path_len);
    m->path[path_len] = '\0';
    if (build_id_len)
        memcpy(m->build_id, build_id, build_id_len);
    m->build_id_len = build_id_len;
    if (m->path[0]) {
        const char *slash = strrchr(m->path, '/');
        m->base = slash && slash[1] ? slash + 1 : m->path;
    }
    m->bias = bias;
    m->lo = lo;
    m->hi = hi;
    return 0;
}

/* The module holding ip: the first recorded, when a library unloaded and another took its
 * place (a trace cannot tell which of them an old stack meant). */
static struct vt_sym_mod_s *mod_find(const vt_symbolizer_t *s, uint64_t ip)
{
    for (size_t i = 0; i < s->n_mods; i++)
        if (ip >= s->mods[i].lo && ip < s->mods[i].hi)
            return &s->mods[i];
    return NULL;
}

int vt_symbolizer_init(vt_symbolizer_t *s, const vt_sym_module_t *mods, size_t n,
                       const char *exe_path)
{
    memset(s, 0, sizeof(*s));
    if (n && !(s->mods = calloc(n, sizeof(*s->mods))))
        return -1;
    for (size_t i = 0; i < n; i++) {
        const vt_sym_module_t *m = &mods[i];
        /* dl_iterate_phdr names the main program ""; the PROCESS record has its path. */
        const char *path = m->path && m->path[0] ? m->path : exe_path ? exe_path : "";
        s->n_mods++;
        if (mod_set(&s->mods[i], path, strlen(path), m->bias, m->lo, m->hi, m->build_id,
                    m->build_id_len) != 0) {
            vt_symbolizer_release(s);
            return -1;
        }
    }
    return 0;
}

int vt_symbolizer_init_trace(vt_symbolizer_t *s, const vt_reader_t *r)
{
    char exe[4096];
    memset(s, 0, sizeof(*s));
    if (!vt_reader_process(r, "exe", exe, sizeof(exe)))
        exe[0] = '\0';
    if (r->n_modules && !(s->mods = calloc((size_t)r->n_modules, sizeof(*s->mods))))
        return -1;
    for (uint64_t i = 0; i < r->n_modules; i++) {
        const vt_trace_module_t *m = &r->modules[i];
        uint32_t len = 0;
        const char *path = vt_reader_string(r, m->path_string_id, &len);
        if (!path || !len) {
            path = exe;
            len = (uint32_t)strlen(exe);
        }
        s->n_mods++;
        if (mod_set(&s->mods[i], path, len, m->load_bias, m->lo, m->hi, m->build_id,
                    m->build_id_len) != 0) {
            vt_symbolizer_release(s);
            return -1;
        }
    }
    return 0;
}

void vt_symbolizer_release(vt_symbolizer_t *s)
{
    for (size_t i = 0; i < s->cap_cache; i++) {
        free((char *)s->cache[i].frame.function);
        free((char *)s->cache[i].frame.inlined_in);
        free((char *)s->cache[i].frame.symbol);
    }
    free(s->cache);
#ifdef VT_HAVE_LIBDW
    if (s->dwfl)
        dwfl_end(s->dwfl);
#endif
    for (size_t i = 0; i < s->n_mods; i++) {
        free(s->mods[i].path);
        free(s->mods[i].build_id);
    }
    free(s->mods);
    memset(s, 0, sizeof(*s));
}

/* ---- libdwfl ------------------------------------------------------------------------------- */

#ifdef VT_HAVE_LIBDW
static const Dwfl_Callbacks dwfl_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* Opens m's file into the Dwfl at the address it had in the traced process. A file whose
 * build-id differs from the recorded one was rebuilt (or replaced) after the trace: its
 * symbols would name the wrong functions, so it is refused and its ips stay addresses. */
static void mod_open(vt_symbolizer_t *s, struct vt_sym_mod_s *m)
{
    m->state = -1;
    if (!m->base)
        return;
    if (!s->dwfl && !(s->dwfl = dwfl_begin(&dwfl_callbacks)))
        return;
    /* The path comes from the trace: opened here, non-blocking and only when it is a regular
     * file, so a FIFO or a device named as a module cannot hang or flood the analysis. */
    int fd = vt_input_open(m->path);
    if (fd < 0)
        return;
    dwfl_report_begin_add(s->dwfl);
    Dwfl_Module *mod = dwfl_report_elf(s->dwfl, m->base, m->path, fd, m->bias, false);
    dwfl_report_end(s->dwfl, NULL, NULL);
    if (!mod) {
        close(fd); /* consumed only on success */
        return;
    }
    const unsigned char *bits;
    GElf_Addr vaddr;
    int len = dwfl_module_build_id(mod, &bits, &vaddr);
    if (m->build_id_len && len > 0 &&
        ((uint32_t)len != m->build_id_len || memcmp(bits, m->build_id, m->build_id_len) != 0)) {
        m->state = -2;
        return;
    }
    m->dwmod = mod;
    m->state = 1;
}

/* A DIE's name: the demangled linkage name when it has one (C++), else DW_AT_name, following
 * DW_AT_abstract_origin and DW_AT_specification. Returns a malloc'd string or NULL. */
static char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *name = NULL;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
        name = dwarf_formstring(&attr);
    if (name) {
        char *d = vt_symbolize_demangle(name);
        if (d)
            return d;
    }
    if (dwarf_attr_integrate(die, DW_AT_name, &attr))
        name = dwarf_formstring(&attr);
    return name ? strdup(name) : NULL;
}

/* When pc is in inlined code: the innermost inlined function's name into *inner and the one
 * it was inlined into into *outer (both malloc'd). dwarf_getscopes continues past an inlined
 * instance with its abstract origin's scopes, so the caller comes from dwarf_getscopes_die,
 * which walks the concrete tree instead (as eu-addr2line -i does). */
static void lookup_inlined(Dwfl_Module *mod, Dwarf_Addr pc, char **inner, char **outer)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias), *scopes = NULL, *chain = NULL;
    if (!cu)
        return;
    int n = dwarf_getscopes(cu, pc - bias, &scopes);
    for (int i = 0; i < n; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag == DW_TAG_subprogram)
            break; /* the innermost function is a real one: not inlined */
        if (tag != DW_TAG_inlined_subroutine)
            continue;
        int n_chain = dwarf_getscopes_die(&scopes[i], &chain);
        for (int j = 1; j < n_chain; j++) {
            tag = dwarf_tag(&chain[j]);
            if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
                *inner = die_name(&scopes[i]);
                *outer = die_name(&chain[j]);
                break;
            }
        }
        break;
    }
    free(chain);
    free(scopes);
}

static void lookup(struct vt_sym_mod_s *m, uint64_t ip, struct vt_sym_entry_s *e)
{
    Dwfl_Module *mod = m->dwmod;
    /* ip is a return address: the call is the instruction before it (ip − 1 lands in it, and
     * in the right function when the call was the function's last instruction). */
    Dwarf_Addr pc = ip - 1;
    char *inner = NULL, *outer = NULL;
    lookup_inlined(mod, pc, &inner, &outer);
    const char *name = dwfl_module_addrname(mod, pc);
    char *raw = name ? strdup(name) : NULL, *plain = NULL;
    if (raw) {
        /* .symtab spells versioned symbols "__libc_start_main@@GLIBC_2.34": the version
         * says nothing about the call-site (and no mangled name holds an '@'). */
        char *at = strchr(raw, '@');
        if (at && at != raw)
            *at = '\0';
        plain = vt_symbolize_demangle(raw);
    }
    if (inner && outer) {
        e->frame.function = inner;
        e->frame.inlined_in = outer;
        free(plain);
    } else {
        free(inner);
        free(outer);
        if (plain) {
            e->frame.function = plain;
        } else {
            e->frame.function = raw;
            raw = NULL;
        }
    }
    /* `report --rules` matches func: globs against the raw name too, as the capture library
     * does (dladdr gives it mangled), and against the symbol an inlined function landed in. */
    if (raw && e->frame.function && strcmp(raw, e->frame.function) != 0)
        e->frame.symbol = raw;
    else
        free(raw);
    Dwfl_Line *line = dwfl_module_getsrc(mod, pc);
    if (line) {
        int lineno = 0;
        const char *file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
        if (file && lineno > 0) {
            e->frame.file = file;
            e->frame.line = (unsigned)lineno;
        }
    }
}
#endif

char *vt_symbolize_demangle(const char *name)
{
#ifdef VT_HAVE_LIBDW
    if (!name || strncmp(name, "_Z", 2) != 0)
        return NULL;
    int status = 0;
    char *d = __cxa_demangle(name, NULL, NULL, &status);
    if (status != 0) {
        free(d);
        return NULL;
    }
    return d;
#else
    (void)name;
    return NULL;
#endif
}

bool vt_symbolize_have_debuginfo(void)
{
#ifdef VT_HAVE_LIBDW
    return true;
#else
    return false;
#endif
}

/* ---- the cache ----------------------------------------------------------------------------- */

static size_t ip_hash(uint64_t ip, size_t mask)
{
    ip ^= ip >> 33;
    ip *= 0xff51afd7ed558ccdULL;
    ip ^= ip >> 33;
    return (size_t)ip & mask;
}

/* The cache slot of ip: the filled one, or the empty one to fill. NULL when out of memory. */
static struct vt_sym_entry_s *cache_slot(vt_symbolizer_t *s, uint64_t ip)
{
    if ((s->n_cache + 1) * 2 > s->cap_cache) {
        size_t cap = s->cap_cache ? s->cap_cache * 2 : 256;
        struct vt_sym_entry_s *old = s->cache, *t = calloc(cap, sizeof(*t));
        if (!t)
            return NULL;
        for (size_t i = 0; i < s->cap_cache; i++) {
            if (!old[i].used)
                continue;
            size_t j = ip_hash(old[i].ip, cap - 1);
            while (t[j].used)
                j = (j + 1) & (cap - 1);
            t[j] = old[i];
        }
        free(old);
        s->cache = t;
        s->cap_cache = cap;
    }
    size_t mask = s->cap_cache - 1, i = ip_hash(ip, mask);
    while (s->cache[i].used && s->cache[i].ip != ip)
        i = (i + 1) & mask;
    return &s->cache[i];
}

int vt_symbolize(vt_symbolizer_t *s, uint64_t ip, vt_sym_frame_t *out)
{
    memset(out, 0, sizeof(*out));
    struct vt_sym_entry_s *e = cache_slot(s, ip), tmp;
    if (e && e->used) {
        *out = e->frame;
        return e->known;
    }
    if (!e) /* out of memory: answer without caching, naming the module only */
        e = &tmp;
    memset(e, 0, sizeof(*e));
    struct vt_sym_mod_s *m = mod_find(s, ip);
    if (m) {
        e->frame.module = m->base;
#ifdef VT_HAVE_LIBDW
        if (m->state == 0)
            mod_open(s, m);
        if (m->state == 1 && ip > 0 && e != &tmp)
            lookup(m, ip, e);
#endif
        e->frame.stale = m->state == -2;
    }
    e->ip = ip;
    e->known = e->frame.function != NULL;
    if (e != &tmp) {
        e->used = 1;
        s->n_cache++;
    }
    *out = e->frame;
    return e->known;
}

/* ---- text ---------------------------------------------------------------------------------- */

const char *vt_symbolize_format(const vt_sym_frame_t *f, uint64_t ip, char *buf, size_t cap)
{
    size_t len = 0;
#define PUT(...)                                                                                   \
    do {                                                                                           \
        if (len < cap) {                                                                           \
            int w_ = snprintf(buf + len, cap - len, __VA_ARGS__);                                  \
            len += w_ > 0 ? (size_t)w_ : 0;                                                        \
        }                                                                                          \
    } while (0)
    if (cap)
        buf[0] = '\0';
    if (f->function)
        PUT("%s", f->function);
    else
        PUT("0x%" PRIx64, ip);
    const char *sep = " (";
    if (f->function && f->file) {
        const char *slash = strrchr(f->file, '/');
        PUT("%s%s:%u", sep, slash ? slash + 1 : f->file, f->line);
        sep = ", ";
    }
    if (f->module) {
        PUT("%s%s", sep, f->module);
        sep = ", ";
    }
    if (f->stale) {
        PUT("%srebuilt since the trace", sep);
        sep = ", ";
    }
    if (sep[0] == ',')
        PUT(")");
    if (f->inlined_in)
        PUT(" inlined in %s", f->inlined_in);
#undef PUT
    return buf;
}

uint32_t vt_symbolize_shown(vt_symbolizer_t *s, const vt_reader_t *r, uint32_t stack_id)
{
    if (!s || s->all_frames)
        return stack_id;
    while (stack_id && stack_id < r->n_stacks && !(r->stacks[stack_id].ip & VT_PYFRAME_BIT)) {
        vt_sym_frame_t f;
        vt_symbolize(s, r->stacks[stack_id].ip, &f);
        if (!vt_module_is_internal(f.module))
            break;
        stack_id = r->stacks[stack_id].parent_id;
    }
    return stack_id < r->n_stacks ? stack_id : 0;
}

uint32_t vt_symbolize_first_shown(vt_symbolizer_t *s, const vt_reader_t *r, uint32_t stack_id)
{
    uint32_t shown = vt_symbolize_shown(s, r, stack_id);
    return shown ? shown : stack_id;
}

uint32_t vt_symbolize_frame(vt_symbolizer_t *s, const vt_reader_t *r, uint32_t stack_id, char *buf,
                            size_t cap)
{
    if (!s || stack_id == 0 || stack_id >= r->n_stacks || (r->stacks[stack_id].ip & VT_PYFRAME_BIT))
        return vt_reader_frame(r, stack_id, buf, cap);
    const vt_trace_stack_t *st = &r->stacks[stack_id];
    vt_sym_frame_t f;
    vt_symbolize(s, st->ip, &f);
    vt_symbolize_format(&f, st->ip, buf, cap);
    return st->parent_id;
}

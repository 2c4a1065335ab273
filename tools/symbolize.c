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

/* A module file: opened once, at the load bias the first trace that needed it had. */
struct vt_sym_file_s {
    char *path;        /* malloc'd; "" when unknown */
    const char *base;  /* its basename; NULL when path is "" */
    uint8_t *build_id; /* malloc'd; build_id_len bytes */
    uint32_t build_id_len;
    uint64_t size; /* hi - lo: part of the key when no build-id was recorded */
    uint64_t hash;
    uint64_t bias; /* where it is reported in the Dwfl */
    int state;     /* 0 not opened yet, 1 open (dwmod), -1 unreadable, -2 build-id differs */
    void *dwmod;   /* Dwfl_Module * */
};

/* A module of the current trace. */
struct vt_sym_mod_s {
    uint64_t bias, lo, hi;
    size_t file; /* into files */
};

/* An answer: in the trace's cache key is the ip (file 0), in the shared one it is the file
 * (index + 1; 0 for an ip in no module) and the offset from the module's bias (the ip itself in
 * no module). Strings are owned by the shared cache's entries. */
struct vt_sym_entry_s {
    uint64_t key;
    size_t file;
    int used, known;
    vt_sym_frame_t frame; /* function, inlined_in and symbol are owned; file: the Dwfl's */
};

/* ---- modules ------------------------------------------------------------------------------- */

static uint64_t file_key_hash(const char *path, size_t path_len, const uint8_t *build_id,
                              uint32_t build_id_len, uint64_t size)
{
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (size_t i = 0; i < path_len; i++)
        h = (h ^ (unsigned char)path[i]) * 0x100000001b3ULL;
    h = (h ^ 0xff) * 0x100000001b3ULL;
    for (uint32_t i = 0; i < build_id_len; i++)
        h = (h ^ build_id[i]) * 0x100000001b3ULL;
    return (h ^ size) * 0x100000001b3ULL;
}

/* The index of the file (path, build_id, and size when no build-id), added when new; SIZE_MAX
 * when out of memory. */
static size_t file_get(vt_symbolizer_t *s, const char *path, size_t path_len,
                       const uint8_t *build_id, uint32_t build_id_len, uint64_t size)
{
    if (!build_id_len)
        build_id = NULL;
    else
        size = 0; /* the build-id says which file it is */
    uint64_t h = file_key_hash(path, path_len, build_id, build_id_len, size);
    if ((s->n_files + 1) * 2 > s->cap_file_index) {
        size_t cap = s->cap_file_index ? s->cap_file_index * 2 : 64;
        size_t *index = calloc(cap, sizeof(*index));
        if (!index)
            return SIZE_MAX;
        for (size_t i = 0; i < s->n_files; i++) {
            size_t j = (size_t)s->files[i].hash & (cap - 1);
            while (index[j])
                j = (j + 1) & (cap - 1);
            index[j] = i + 1;
        }
        free(s->file_index);
        s->file_index = index;
        s->cap_file_index = cap;
    }
    size_t mask = s->cap_file_index - 1, j = (size_t)h & mask;
    for (; s->file_index[j]; j = (j + 1) & mask) {
        const struct vt_sym_file_s *f = &s->files[s->file_index[j] - 1];
        if (f->hash == h && f->size == size && f->build_id_len == build_id_len &&
            strlen(f->path) == path_len && memcmp(f->path, path, path_len) == 0 &&
            (!build_id_len || memcmp(f->build_id, build_id, build_id_len) == 0))
            return s->file_index[j] - 1;
    }
    if (s->n_files == s->cap_files) {
        size_t cap = s->cap_files ? s->cap_files * 2 : 16;
        struct vt_sym_file_s *files = realloc(s->files, cap * sizeof(*files));
        if (!files)
            return SIZE_MAX;
        s->files = files;
        s->cap_files = cap;
    }
    struct vt_sym_file_s *f = &s->files[s->n_files];
    memset(f, 0, sizeof(*f));
    f->path = malloc(path_len + 1);
    f->build_id = malloc(build_id_len ? build_id_len : 1);
    if (!f->path || !f->build_id) {
        free(f->path);
        free(f->build_id);
        return SIZE_MAX;
    }
    memcpy(f->path, path, path_len);
    f->path[path_len] = '\0';
    if (build_id_len)
        memcpy(f->build_id, build_id, build_id_len);
    f->build_id_len = build_id_len;
    f->size = size;
    f->hash = h;
    if (f->path[0]) {
        const char *slash = strrchr(f->path, '/');
        f->base = slash && slash[1] ? slash + 1 : f->path;
    }
    s->file_index[j] = ++s->n_files;
    return s->n_files - 1;
}

/* Adds a module of the current trace (mods has room). Returns 0, or -1 when out of memory. */
static int mod_add(vt_symbolizer_t *s, const char *path, size_t path_len, uint64_t bias,
                   uint64_t lo, uint64_t hi, const uint8_t *build_id, uint32_t build_id_len)
{
    size_t file = file_get(s, path, path_len, build_id, build_id_len, hi - lo);
    if (file == SIZE_MAX)
        return -1;
    if (s->files[file].state == 0)
        s->files[file].bias = bias; /* not opened yet: the first trace's bias */
    struct vt_sym_mod_s *m = &s->mods[s->n_mods++];
    m->bias = bias;
    m->lo = lo;
    m->hi = hi;
    m->file = file;
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

/* Forgets the current trace: its modules and its answers by ip (the shared answers stay). */
static void trace_clear(vt_symbolizer_t *s)
{
    free(s->mods);
    s->mods = NULL;
    s->n_mods = 0;
    free(s->cache);
    s->cache = NULL;
    s->n_cache = s->cap_cache = 0;
}

int vt_symbolizer_set_modules(vt_symbolizer_t *s, const vt_sym_module_t *mods, size_t n,
                              const char *exe_path)
{
    trace_clear(s);
    if (n && !(s->mods = calloc(n, sizeof(*s->mods))))
        return -1;
    for (size_t i = 0; i < n; i++) {
        const vt_sym_module_t *m = &mods[i];
        /* dl_iterate_phdr names the main program ""; the PROCESS record has its path. */
        const char *path = m->path && m->path[0] ? m->path : exe_path ? exe_path : "";
        if (mod_add(s, path, strlen(path), m->bias, m->lo, m->hi, m->build_id, m->build_id_len) !=
            0) {
            trace_clear(s);
            return -1;
        }
    }
    return 0;
}

int vt_symbolizer_init(vt_symbolizer_t *s, const vt_sym_module_t *mods, size_t n,
                       const char *exe_path)
{
    memset(s, 0, sizeof(*s));
    if (vt_symbolizer_set_modules(s, mods, n, exe_path) != 0) {
        vt_symbolizer_release(s);
        return -1;
    }
    return 0;
}

int vt_symbolizer_set_trace(vt_symbolizer_t *s, const vt_reader_t *r)
{
    char exe[4096];
    trace_clear(s);
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
        if (mod_add(s, path, len, m->load_bias, m->lo, m->hi, m->build_id, m->build_id_len) != 0) {
            trace_clear(s);
            return -1;
        }
    }
    return 0;
}

int vt_symbolizer_init_trace(vt_symbolizer_t *s, const vt_reader_t *r)
{
    memset(s, 0, sizeof(*s));
    if (vt_symbolizer_set_trace(s, r) != 0) {
        vt_symbolizer_release(s);
        return -1;
    }
    return 0;
}

void vt_symbolizer_release(vt_symbolizer_t *s)
{
    trace_clear(s);
    for (size_t i = 0; i < s->cap_shared; i++) {
        free((char *)s->shared[i].frame.function);
        free((char *)s->shared[i].frame.inlined_in);
        free((char *)s->shared[i].frame.symbol);
    }
    free(s->shared);
#ifdef VT_HAVE_LIBDW
    if (s->dwfl)
        dwfl_end(s->dwfl);
#endif
    for (size_t i = 0; i < s->n_files; i++) {
        free(s->files[i].path);
        free(s->files[i].build_id);
    }
    free(s->files);
    free(s->file_index);
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
static void mod_open(vt_symbolizer_t *s, struct vt_sym_file_s *m)
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

static void lookup(struct vt_sym_file_s *m, uint64_t ip, struct vt_sym_entry_s *e)
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

/* ---- the caches ---------------------------------------------------------------------------- */

static size_t key_hash(uint64_t key, size_t file, size_t mask)
{
    key ^= (uint64_t)file * 0x9e3779b97f4a7c15ULL;
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & mask;
}

/* The slot of (key, file) in the table *slots of *cap (n used): the filled one, or the empty
 * one to fill, after growing the table when half full. NULL when out of memory. */
static struct vt_sym_entry_s *slot(struct vt_sym_entry_s **slots, size_t *cap, size_t n,
                                   uint64_t key, size_t file)
{
    if ((n + 1) * 2 > *cap) {
        size_t new_cap = *cap ? *cap * 2 : 256;
        struct vt_sym_entry_s *old = *slots, *t = calloc(new_cap, sizeof(*t));
        if (!t)
            return NULL;
        for (size_t i = 0; i < *cap; i++) {
            if (!old[i].used)
                continue;
            size_t j = key_hash(old[i].key, old[i].file, new_cap - 1);
            while (t[j].used)
                j = (j + 1) & (new_cap - 1);
            t[j] = old[i];
        }
        free(old);
        *slots = t;
        *cap = new_cap;
    }
    size_t mask = *cap - 1, i = key_hash(key, file, mask);
    while ((*slots)[i].used && ((*slots)[i].key != key || (*slots)[i].file != file))
        i = (i + 1) & mask;
    return &(*slots)[i];
}

/* The answer for ip in the current trace, looked up in the module files when no trace before
 * asked about the same offset of the same file. e is filled; returns e. */
static void answer(vt_symbolizer_t *s, uint64_t ip, struct vt_sym_entry_s *e)
{
    const struct vt_sym_mod_s *m = mod_find(s, ip);
    struct vt_sym_file_s *f = m ? &s->files[m->file] : NULL;
    uint64_t offset = m ? ip - m->bias : ip;
    size_t file = m ? m->file + 1 : 0;
    struct vt_sym_entry_s *shared = slot(&s->shared, &s->cap_shared, s->n_shared, offset, file);
    if (shared && shared->used) {
        *e = *shared;
        return;
    }
    struct vt_sym_entry_s tmp;
    if (!shared) /* out of memory: answer without caching, naming the module only */
        shared = &tmp;
    memset(shared, 0, sizeof(*shared));
    if (f) {
        shared->frame.module = f->base;
#ifdef VT_HAVE_LIBDW
        if (f->state == 0)
            mod_open(s, f);
        if (f->state == 1 && ip > 0 && shared != &tmp)
            lookup(f, offset + f->bias, shared);
#endif
        shared->frame.stale = f->state == -2;
    }
    shared->key = offset;
    shared->file = file;
    shared->known = shared->frame.function != NULL;
    if (shared != &tmp) {
        shared->used = 1;
        s->n_shared++;
    }
    *e = *shared;
}

int vt_symbolize(vt_symbolizer_t *s, uint64_t ip, vt_sym_frame_t *out)
{
    struct vt_sym_entry_s *e = slot(&s->cache, &s->cap_cache, s->n_cache, ip, 0), tmp;
    if (e && e->used) {
        *out = e->frame;
        return e->known;
    }
    answer(s, ip, e ? e : &tmp);
    if (!e)
        e = &tmp;
    else
        s->n_cache++;
    e->key = ip;
    e->file = 0;
    e->used = 1;
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

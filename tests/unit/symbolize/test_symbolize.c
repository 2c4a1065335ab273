/* SPDX-License-Identifier: MIT */
/* The symbolizer (tools/symbolize.h) on this very program, built with -g -O0: the module table
 * comes from dl_iterate_phdr as the capture library would record it, and the addresses of
 * known functions must come back as their names, this file and their lines; a module whose
 * build-id differs is refused, and an ip outside every module stays an address. Without libdw
 * only the module names are checked. */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "symbolize.h"
#include "vt_test.h"

#define NOINLINE __attribute__((noinline))
#define MAX_MODS 256

static vt_sym_module_t mods[MAX_MODS];
static uint8_t build_ids[MAX_MODS][64];
static char exe[4096];
static size_t n_mods;

static void read_build_id(const struct dl_phdr_info *info, size_t i)
{
    for (int p = 0; p < info->dlpi_phnum; p++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[p];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *n = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = n + ph->p_memsz;
        while (n + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)n;
            const char *name = n + sizeof *nh;
            const uint8_t *desc = (const uint8_t *)(name + ((nh->n_namesz + 3) & ~3u));
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
                nh->n_descsz <= sizeof build_ids[i]) {
                memcpy(build_ids[i], desc, nh->n_descsz);
                mods[i].build_id = build_ids[i];
                mods[i].build_id_len = nh->n_descsz;
                return;
            }
            n = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    if (n_mods == MAX_MODS)
        return 1;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int p = 0; p < info->dlpi_phnum; p++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[p];
        if (ph->p_type != PT_LOAD)
            continue;
        uint64_t a = info->dlpi_addr + ph->p_vaddr;
        lo = a < lo ? a : lo;
        hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
    }
    if (!hi)
        return 0;
    vt_sym_module_t *m = &mods[n_mods];
    m->path = info->dlpi_name ? info->dlpi_name : "";
    m->bias = info->dlpi_addr;
    m->lo = lo;
    m->hi = hi;
    read_build_id(info, n_mods++);
    return 0;
}

/* The line of known_function's opening: its entry address maps to it or the next two. */
static const unsigned known_line = __LINE__ + 1;
NOINLINE int known_function(int x)
{
    return x * 3 + 1;
}

/* Its caller's return address, for the inlined case: returned into inner_inlined's body. */
NOINLINE static uintptr_t return_address(void)
{
    return (uintptr_t)__builtin_return_address(0);
}

static inline __attribute__((always_inline)) uintptr_t inner_inlined(void)
{
    return return_address();
}

NOINLINE static uintptr_t outer_function(void)
{
    return inner_inlined();
}

static const char *base(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path;
}

static int streq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

int main(void)
{
    ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    VT_CHECK("readlink /proc/self/exe", len > 0);
    exe[len > 0 ? len : 0] = '\0';
    dl_iterate_phdr(add_module, NULL);
    VT_CHECK("modules", n_mods > 1 && mods[0].path[0] == '\0');
    int dwarf = vt_symbolize_have_debuginfo();

    vt_symbolizer_t s;
    VT_CHECK("init", vt_symbolizer_init(&s, mods, n_mods, exe) == 0);
    vt_sym_frame_t f;
    char buf[512], want[512];
    uint64_t ip = (uint64_t)(uintptr_t)&known_function + 1; /* a "return address" into it */

    int known = vt_symbolize(&s, ip, &f);
    VT_CHECK("module of known_function", streq(f.module, "test_symbolize"));
    if (dwarf) {
        VT_CHECK("known", known == 1);
        VT_CHECK("function", streq(f.function, "known_function"));
        VT_CHECK("file", streq(base(f.file), "test_symbolize.c"));
        VT_CHECK("line", f.line >= known_line && f.line <= known_line + 2);
        VT_CHECK("not inlined", f.inlined_in == NULL && !f.stale);
        snprintf(want, sizeof(want), "known_function (test_symbolize.c:%u, test_symbolize)",
                 f.line);
        VT_CHECK("format", streq(vt_symbolize_format(&f, ip, buf, sizeof(buf)), want));
    } else {
        VT_CHECK("unknown without libdw", known == 0 && f.function == NULL);
        snprintf(want, sizeof(want), "0x%llx (test_symbolize)", (unsigned long long)ip);
        VT_CHECK("format", streq(vt_symbolize_format(&f, ip, buf, sizeof(buf)), want));
    }
    vt_sym_frame_t again;
    vt_symbolize(&s, ip, &again);
    VT_CHECK("cached", again.function == f.function && again.module == f.module);
    VT_CHECK_EQ("one cache entry", s.n_cache, 1);

    /* A function of libc: named by its symbol table (any alias will do). */
    ip = (uint64_t)(uintptr_t)&dl_iterate_phdr + 1;
    known = vt_symbolize(&s, ip, &f);
    VT_CHECK("libc module", f.module && strncmp(f.module, "libc", 4) == 0);
    if (dwarf)
        VT_CHECK("libc function", known == 1 && f.function && strstr(f.function, "iterate_phdr"));

    /* Inlined code: the innermost inlined function, and where it was inlined. */
    uint64_t ret = outer_function();
    known = vt_symbolize(&s, ret, &f);
    if (dwarf) {
        VT_CHECK("inlined function", streq(f.function, "inner_inlined"));
        VT_CHECK("inlined in", streq(f.inlined_in, "outer_function"));
        VT_CHECK("inlined format", strstr(vt_symbolize_format(&f, ret, buf, sizeof(buf)),
                                          ") inlined in outer_function"));
    }

    /* An ip in no module. */
    known = vt_symbolize(&s, 0x10, &f);
    VT_CHECK("no module", known == 0 && f.module == NULL && f.function == NULL);
    VT_CHECK("no module format", streq(vt_symbolize_format(&f, 0x10, buf, sizeof(buf)), "0x10"));

    /* Another trace of the same program, every module elsewhere (ASLR): the same answers from
     * the files and lookups of the first, nothing opened or looked up again. */
    static vt_sym_module_t moved[MAX_MODS];
    const uint64_t delta = 0x100000000000ULL;
    for (size_t i = 0; i < n_mods; i++) {
        moved[i] = mods[i];
        moved[i].bias += delta;
        moved[i].lo += delta;
        moved[i].hi += delta;
    }
    ip = (uint64_t)(uintptr_t)&known_function + 1;
    vt_symbolize(&s, ip, &f);
    size_t n_files = s.n_files, n_shared = s.n_shared;
    VT_CHECK("set modules", vt_symbolizer_set_modules(&s, moved, n_mods, exe) == 0);
    VT_CHECK_EQ("trace cache cleared", s.n_cache, 0);
    known = vt_symbolize(&s, ip + delta, &again);
    VT_CHECK("moved: same answer", known == (f.function != NULL) && again.function == f.function &&
                                       again.module == f.module && again.line == f.line);
    VT_CHECK_EQ("moved: no file opened again", s.n_files, n_files);
    VT_CHECK_EQ("moved: no lookup again", s.n_shared, n_shared);
    vt_symbolize(&s, ip, &again);
    VT_CHECK("moved: the old address is in no module", again.module == NULL);
    vt_symbolizer_release(&s);

    /* The program rebuilt since the trace: its build-id differs, so nothing is named. */
    uint8_t other[64];
    VT_CHECK("has a build-id", mods[0].build_id_len > 0);
    memcpy(other, mods[0].build_id, mods[0].build_id_len);
    other[0] ^= 0xff;
    mods[0].build_id = other;
    VT_CHECK("init stale", vt_symbolizer_init(&s, mods, n_mods, exe) == 0);
    ip = (uint64_t)(uintptr_t)&known_function + 1;
    known = vt_symbolize(&s, ip, &f);
    VT_CHECK("stale unknown", known == 0 && f.function == NULL && f.file == NULL);
    VT_CHECK("stale module", streq(f.module, "test_symbolize"));
    if (dwarf) {
        snprintf(want, sizeof(want), "0x%llx (test_symbolize, rebuilt since the trace)",
                 (unsigned long long)ip);
        VT_CHECK("stale format", streq(vt_symbolize_format(&f, ip, buf, sizeof(buf)), want));
    }
    vt_symbolizer_release(&s);

    /* A module whose file is gone: its name only. */
    vt_sym_module_t gone = {"/no/such/dir/libgone.so.1", 0x100000, 0x100000, 0x200000, NULL, 0};
    VT_CHECK("init gone", vt_symbolizer_init(&s, &gone, 1, NULL) == 0);
    known = vt_symbolize(&s, 0x180000, &f);
    VT_CHECK("gone", known == 0 && streq(f.module, "libgone.so.1") && f.function == NULL);
    VT_CHECK("gone format",
             streq(vt_symbolize_format(&f, 0x180000, buf, sizeof(buf)), "0x180000 (libgone.so.1)"));
    vt_symbolizer_release(&s);

    /* C++ names are demangled by libstdc++ when the CLI has it (with libdw). */
    char *d = vt_symbolize_demangle("_ZN2ns3fooEi");
    if (dwarf)
        VT_CHECK("demangle", streq(d, "ns::foo(int)"));
    free(d);
    VT_CHECK("not mangled", vt_symbolize_demangle("main") == NULL);
    VT_CHECK("bad mangling", vt_symbolize_demangle("_Zgarbage") == NULL);

    if (!dwarf)
        printf("built without libdw: names and lines not checked\n");
    return vt_test_done();
}

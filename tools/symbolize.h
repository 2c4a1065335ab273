/* SPDX-License-Identifier: MIT */
/* Offline symbolization for the analyzer: the raw instruction pointers of a trace's call-sites
 * become "function (file.c:123, module)" with elfutils' libdwfl reading each module's ELF
 * symbols and DWARF line tables, and C++ names demangled by libstdc++'s __cxa_demangle. Built
 * without libdw (VT_HAVE_LIBDW undefined) it still names the module of every ip, from the
 * trace's module table alone. Never used by the capture library, which gains no dependency. */
#ifndef VT_SYMBOLIZE_H
#define VT_SYMBOLIZE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_reader.h"

/* One loaded object, as a MODULE record gives it. */
typedef struct vt_sym_module_s {
    const char *path;        /* "" for the main program: exe_path of vt_symbolizer_init names it */
    uint64_t bias, lo, hi;   /* load bias (dlpi_addr); loaded range lo..hi, hi excluded */
    const uint8_t *build_id; /* GNU build-id, build_id_len bytes (0: not recorded) */
    uint32_t build_id_len;
} vt_sym_module_t;

/* What an ip is. Strings live as long as the symbolizer; any of them may be NULL. */
typedef struct vt_sym_frame_s {
    const char *function;   /* demangled when it was a C++ name, else the raw name */
    const char *file;       /* the source file of the line, as the debug info spells it */
    unsigned line;          /* 0: unknown */
    const char *module;     /* the basename of the object holding the ip */
    const char *inlined_in; /* function was inlined into this one at the ip */
    const char *symbol;     /* the ELF symbol holding the ip as the symbol table spells it
                             * (mangled), when it differs from function; else NULL */
    bool stale;             /* the module's file has another build-id than the traced one */
} vt_sym_frame_t;

struct vt_sym_entry_s;
struct vt_sym_mod_s;
struct vt_sym_file_s;

/* Two caches: the answers of the current trace by ip, and every answer by (module file, offset
 * in it), which outlives the trace: a symbolizer moved to the next trace of a job
 * (vt_symbolizer_set_trace) opens each distinct module file once and looks each of its
 * offsets up once, whatever the number of ranks and where ASLR put the module in each. */
typedef struct vt_symbolizer_s {
    struct vt_sym_mod_s *mods; /* the current trace's modules, in trace order */
    size_t n_mods;
    struct vt_sym_file_s *files; /* the distinct module files, by path and build-id */
    size_t n_files, cap_files;
    size_t *file_index; /* open addressing on the files' key: index + 1, 0 empty */
    size_t cap_file_index;
    void *dwfl;                   /* Dwfl *, created on the first lookup that needs it */
    struct vt_sym_entry_s *cache; /* the current trace's: open addressing on ip */
    size_t n_cache, cap_cache;
    struct vt_sym_entry_s *shared; /* open addressing on (file, offset); owns the strings */
    size_t n_shared, cap_shared;
    bool all_frames; /* the views show every frame (--all-frames); else vt_symbolize_shown */
} vt_symbolizer_t;

/* vt_symbolizer_init: a symbolizer for n modules (copied; nothing is opened yet: each module's
 * file is opened on the first ip that falls in it). exe_path replaces the main program's empty
 * path (NULL: none). Returns 0, or -1 when out of memory (s is then released). */
int vt_symbolizer_init(vt_symbolizer_t *s, const vt_sym_module_t *mods, size_t n,
                       const char *exe_path);

/* vt_symbolizer_init_trace: vt_symbolizer_init with r's MODULE records and its PROCESS exe. */
int vt_symbolizer_init_trace(vt_symbolizer_t *s, const vt_reader_t *r);

/* vt_symbolizer_set_modules: vt_symbolizer_set_trace with n modules (copied) and exe_path as in
 * vt_symbolizer_init. */
int vt_symbolizer_set_modules(vt_symbolizer_t *s, const vt_sym_module_t *mods, size_t n,
                              const char *exe_path);

/* vt_symbolizer_set_trace: s (initialized, possibly for another trace) now answers for r's
 * modules, keeping the module files it opened and what it looked up in them: a module with the
 * same path and build-id (or the same path and size when no build-id was recorded) is not read
 * again. Strings from earlier answers stay valid. Returns 0, or -1 when out of memory (s then
 * answers for no module until the next call, and is still released by vt_symbolizer_release). */
int vt_symbolizer_set_trace(vt_symbolizer_t *s, const vt_reader_t *r);

void vt_symbolizer_release(vt_symbolizer_t *s);

/* vt_symbolize: what the return address ip is (ip − 1 is looked up, the call instruction).
 * Results are cached per ip. Returns 1 when the function is known, 0 otherwise (out still
 * names the module when ip falls in one). */
int vt_symbolize(vt_symbolizer_t *s, uint64_t ip, vt_sym_frame_t *out);

/* vt_symbolize_format: frame as report text: "function (file.c:123, module)",
 * "function (module)", "0x7f12... (module)" or "0x7f12..." when in no module; a stale module
 * adds ", rebuilt since the trace" inside the parentheses, an inlined frame ends in
 * " inlined in outer". Files are shown by their basename. Returns buf. */
const char *vt_symbolize_format(const vt_sym_frame_t *frame, uint64_t ip, char *buf, size_t cap);

/* vt_symbolize_frame: vt_reader_frame with native frames symbolized by s (NULL: none); Python
 * frames are unchanged. Returns the parent id (0 at the root). */
uint32_t vt_symbolize_frame(vt_symbolizer_t *s, const vt_reader_t *r, uint32_t stack_id, char *buf,
                            size_t cap);

/* vt_symbolize_shown: the first frame at or outside stack_id (towards the root) that a view
 * shows: any frame when s->all_frames or s is NULL, else a Python frame or a native one outside
 * the interpreter, libffi, the C library, the loader and vramtrace (common/vt_frames.h); 0 when
 * none is left. */
uint32_t vt_symbolize_shown(vt_symbolizer_t *s, const vt_reader_t *r, uint32_t stack_id);

/* vt_symbolize_first_shown: vt_symbolize_shown, or stack_id itself when the stack has no frame
 * to show (a view never shows an empty call-site). */
uint32_t vt_symbolize_first_shown(vt_symbolizer_t *s, const vt_reader_t *r, uint32_t stack_id);

/* vt_symbolize_demangle: a malloc'd demangled copy of a C++ (Itanium ABI) name, or NULL when
 * name is not one, libstdc++ is not linked, or memory ran out. */
char *vt_symbolize_demangle(const char *name);

/* Whether this build reads debug info (libdw); without it only modules are named. */
bool vt_symbolize_have_debuginfo(void);

#endif

/* SPDX-License-Identifier: MIT */
/* Cross-file internal API of libvramtrace.so, grouped by the file that defines it (mimalloc
 * internal.h). Nothing here is exported; only VT_EXPORT functions in preload.c are. Everything
 * declared here may be called from a hook: no malloc, no stdio, no getenv. */
#ifndef VT_INTERNAL_H
#define VT_INTERNAL_H

#include <assert.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#define VT_EXPORT      __attribute__((visibility("default")))
#define VT_LIKELY(x)   __builtin_expect(!!(x), 1)
#define VT_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* "Cannot happen" conditions: asserted in debug builds, tolerated in release (SQLite). */
#ifdef NDEBUG
#    define VT_ALWAYS(x) (x)
#    define VT_NEVER(x)  (x)
#else
#    define VT_ALWAYS(x) ((x) ? 1 : (assert(0), 0))
#    define VT_NEVER(x)  ((x) ? (assert(0), 1) : 0)
#endif

/* ---- log.c ------------------------------------------------------------------------------ */
size_t vt_fmt(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
size_t vt_vfmt(char *buf, size_t cap, const char *fmt, va_list ap);
void vt_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- options.c -------------------------------------------------------------------------- */
typedef enum vt_option_e {
    VT_OPTION_OUTPUT,      /* str: trace path prefix */
    VT_OPTION_DISABLE,     /* bool: load inert */
    VT_OPTION_QUIET,       /* bool: no exit summary line */
    VT_OPTION_VERBOSE,     /* int: diagnostic level, 0 = none */
    VT_OPTION_DEPTH,       /* int: max stack frames recorded, 0..256 */
    VT_OPTION_FOLLOW_FORK, /* bool: trace fork children too */
    VT_OPTION_RULES,       /* str: category rules file; empty = built-in rules */
    VT_OPTION_COUNT
} vt_option_t;

#define VT_OPTIONS_MAX_WARNINGS 16

void vt_options_parse(char *const *envp);
bool vt_options_parsed(void);
int vt_options_n_invalid(void); /* invalid or unknown entries seen by the last parse */
long long vt_option_get(vt_option_t opt);
bool vt_option_is_enabled(vt_option_t opt);
const char *vt_option_get_str(vt_option_t opt);
bool vt_option_is_set(vt_option_t opt); /* given (validly) in the environment */
const char *vt_option_name(vt_option_t opt);
int vt_parse_bool(const char *s, bool *out);
int vt_parse_int(const char *s, long long *out);
int vt_parse_size(const char *s, unsigned long long *out);

/* ---- init.c ----------------------------------------------------------------------------- */
typedef enum vt_state_e { VT_STATE_UNINIT, VT_STATE_INITING, VT_STATE_ON, VT_STATE_OFF } vt_state_t;

/* Reentrancy guard for hooks (STYLE §3.3); initial-exec so reading it never allocates. */
extern __thread int vt_in_hook __attribute__((tls_model("initial-exec")));

void vt_ensure_init(void);
bool vt_is_on(void);
vt_state_t vt_state(void);
vt_state_t vt_init_decide(bool secure, bool disabled);
void vt_shutdown(void);
void vt_reset_after_fork(void);
void vt_set_paused(bool paused);
bool vt_is_paused(void);
void vt_mark(const char *label);
unsigned long vt_n_marks(void);

#endif

/* SPDX-License-Identifier: MIT */
/* What every vramtrace command shares: git-style diagnostics (docs/style.md, "Errors and messages") and the exit
 * statuses. */
#ifndef VT_TOOLS_UTIL_H
#define VT_TOOLS_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The exit statuses of every command, in one table (the top-level --help and README state it):
 * 0 fine, 1 unreadable or damaged input or another error, 2 usage, 3 `check` found a limit
 * exceeded (so CI tells a broken trace from a real regression). */
#define EXIT_USAGE      2
#define EXIT_OVER_LIMIT 3

/* error: "vramtrace: <message>" on stderr; returns -1 (git's error()). */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Messages kept instead of printed: text (malloc'd, NUL-terminated) holds len bytes. */
typedef struct vt_messages_s {
    char *text;
    size_t len;
} vt_messages_t;

/* vt_error_capture: error() called by this thread appends to messages (NULL: stderr again), so
 * that a command reading traces on several threads prints their messages in the order of its
 * inputs. */
void vt_error_capture(vt_messages_t *messages);

/* vt_xml_text: s as XML or HTML character data (text or a quoted attribute value): markup
 * escaped, control bytes as '?', each byte of malformed UTF-8 as U+FFFD (as the JSON writer
 * does). */
void vt_xml_text(FILE *out, const char *s);

/* vt_escaped: s as a message shows it (a path cannot end the line or send the terminal an
 * escape sequence): backslash, newline, tab, other control bytes and DEL as \\, \n, \t,
 * \xHH; other bytes as they are. Malloc'd, or NULL when out of memory. The library escapes its
 * messages the same way (src/log.c vt_escape). */
char *vt_escaped(const char *s);

/* vt_memory_limit: caps the CLI's own heap and anonymous memory (RLIMIT_DATA) at value (a size,
 * or "none"/"0" for no cap), or at half the machine's RAM when value is NULL; never raises the
 * limit it was started with. Returns 0, -1 with a message when value is not a size. */
int vt_memory_limit(const char *value);
#endif

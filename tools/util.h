/* SPDX-License-Identifier: MIT */
/* What every vramtrace command shares: git-style diagnostics (STYLE.md §5) and the exit
 * statuses. */
#ifndef VT_TOOLS_UTIL_H
#define VT_TOOLS_UTIL_H

#include <stdio.h>

#define EXIT_USAGE 2 /* 0 ok, 1 error, 2 usage */

/* error: "vramtrace: <message>" on stderr; returns -1 (git's error()). */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* read_file: the whole file at path into a NUL-terminated malloc'd buffer (*len_out bytes
 * without the NUL), or NULL with errno set. */
char *read_file(const char *path, size_t *len_out);

/* vt_xml_text: s as XML or HTML character data (text or a quoted attribute value): markup
 * escaped, control bytes and invalid UTF-8 as '?'. */
void vt_xml_text(FILE *out, const char *s);
#endif

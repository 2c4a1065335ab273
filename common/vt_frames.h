/* SPDX-License-Identifier: MIT */
/* Which native frames a view collapses by default: the machinery between the user's code and
 * the CUDA call, not code anyone reading a call-site wrote or can change. Shared by the
 * in-process out-of-memory block (src/oom.c) and the analyzer's views (tools/symbolize.c);
 * Python frames are never collapsed. */
#ifndef VT_FRAMES_COMMON_H
#define VT_FRAMES_COMMON_H

#include <stdbool.h>
#include <string.h>

/* True when module (an object's basename) is the CPython interpreter (libpython3.X.so, a
 * python3.X executable, the ctypes extension), libffi, the C library or the dynamic loader,
 * a sanitizer runtime (its interceptors stand in for the C library's functions), or vramtrace's
 * own library. */
static inline bool vt_module_is_internal(const char *module)
{
    static const char *const prefixes[] = {
        "libpython", "_ctypes.",        "libffi.so",  "libc.so",    "ld-linux",    "libpthread.so",
        "libdl.so",  "libvramtrace.so", "libasan.so", "libtsan.so", "libubsan.so", "liblsan.so"};
    if (!module)
        return false;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(module, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    /* The interpreter's executable: "python", "python3", "python3.12" (not "python_tool"). */
    if (strncmp(module, "python", 6) != 0)
        return false;
    for (const char *p = module + 6; *p; p++)
        if ((*p < '0' || *p > '9') && *p != '.')
            return false;
    return true;
}

#endif

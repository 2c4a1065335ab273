/* SPDX-License-Identifier: MIT */
/* The stderr block at an out-of-memory error (unless VRAMTRACE_QUIET): the request and its
 * call-site, the device's live bytes by category, what its stream-ordered pools reserve beyond
 * them, and the three largest live call-sites — what
 * a user needs when the job is about to die, before any trace is read. The OOM record in the
 * trace is written by the core; the analyzer decides later whether the OOM was recovered. */
#include "vt_frames.h"
#include "vt_internal.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OOM_REPORTS 8 /* frameworks retry after emptying caches: say it a few times, not 1000 */
#define MAX_SITES       64
#define MAX_MANGLED     4096 /* longer names are shown as they are */

typedef char *(*cxa_demangle_fn)(const char *mangled, char *out, size_t *length, int *status);

/* A C++ function name as written in the source, into buf; name itself when it is not a mangled
 * one or libstdc++ is not in the process (its __cxa_demangle, looked up once, at the first OOM).
 * __cxa_demangle mallocs its result: fine here, on the thread of a failed device allocation, not
 * on the recording path, and never under vt_lock. Returns the name to show. */
static const char *demangled(const char *name, char *buf, size_t cap)
{
    static cxa_demangle_fn demangle;
    static int looked_up;
    if (strncmp(name, "_Z", 2) != 0 || strnlen(name, MAX_MANGLED) == MAX_MANGLED)
        return name;
    if (!__atomic_load_n(&looked_up, __ATOMIC_ACQUIRE)) {
        /* NOLOAD: a copy loaded RTLD_LOCAL (a Python extension's dependency) counts, and none
         * is loaded when absent; its reference is kept, so the pointer stays valid. dlvsym, not
         * dlsym: ours answers dlsym. */
        void *libstdcxx = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_NOLOAD);
        void *fn = libstdcxx ? dlvsym(libstdcxx, "__cxa_demangle", "CXXABI_1.3") : NULL;
        __atomic_store_n(&demangle, (cxa_demangle_fn)fn, __ATOMIC_RELAXED);
        __atomic_store_n(&looked_up, 1, __ATOMIC_RELEASE);
    }
    cxa_demangle_fn fn = __atomic_load_n(&demangle, __ATOMIC_RELAXED);
    int status = -1;
    char *text = fn ? fn(name, NULL, NULL, &status) : NULL;
    if (!text || status != 0) {
        free(text);
        return name;
    }
    vt_fmt(buf, cap, "%s", text);
    free(text);
    return buf;
}

/* A call-site in a line: its three innermost named frames, innermost first, as
 * "function (module)" (C++ names demangled) or "file.py:function:line", joined by " < ",
 * leaving out the frames of the interpreter, libffi, libc, the loader and our own (vt_frames.h):
 * in a Python program those are all the innermost native ones. VRAMTRACE_ALL_FRAMES=1 keeps
 * them; the trace has them all either way (vramtrace oom --all-frames). */
static void describe_site(uint32_t stack_id, char *buf, size_t cap)
{
    size_t used = 0;
    int shown = 0;
    bool all_frames = vt_option_is_enabled(VT_OPTION_ALL_FRAMES);
    for (uint32_t id = stack_id; id && shown < 3;) {
        vt_track_lock();
        vt_stack_node_t *node = vt_stack_node(id);
        uint64_t ip = node ? vt_stack_node_ip(node) : 0;
        id = node ? vt_stack_node_parent(node) : 0;
        vt_track_unlock();
        const char *sep = shown ? " < " : "";
        if (ip & VT_PYFRAME_BIT) {
            const char *where = vt_string((uint32_t)VT_PYFRAME_STRING(ip));
            if (where) {
                used += vt_fmt(buf + used, used < cap ? cap - used : 0, "%s%s:%u", sep, where,
                               (unsigned)VT_PYFRAME_LINE(ip));
                shown++;
            }
            continue;
        }
        const char *func, *module;
        char readable[256];
        vt_frame_names(ip, &func, &module);
        if (*func && (all_frames || !vt_module_is_internal(module))) {
            used += vt_fmt(buf + used, used < cap ? cap - used : 0, "%s%s (%s)", sep,
                           demangled(func, readable, sizeof readable), module);
            shown++;
        }
    }
    if (!shown)
        vt_fmt(buf, cap, "an unknown call-site");
}

int vt_take_largest(uint64_t *values, int n, uint64_t *taken)
{
    int best = -1;
    for (int i = 0; i < n; i++)
        if (values[i] && (best < 0 || values[i] > values[best]))
            best = i;
    if (best >= 0) {
        *taken = values[best];
        values[best] = 0;
    }
    return best;
}

/* vt_oom_report: prints the block for a failed request of requested_bytes through api on
 * device, made at call-site cs. Not under vt_lock. */
void vt_oom_report(int device, vt_api_t api, uint64_t requested_bytes, const vt_callsite_t *cs)
{
    static int n_reports;
    if (vt_option_is_enabled(VT_OPTION_QUIET) ||
        __atomic_fetch_add(&n_reports, 1, __ATOMIC_RELAXED) >= MAX_OOM_REPORTS)
        return;
    /* The largest live call-sites of the device, by summing live entries per stack. */
    uint32_t site_stack[MAX_SITES];
    uint64_t site_bytes[MAX_SITES];
    int n_sites = 0;
    uint64_t live[VT_CAT_COUNT] = {0}, total = 0;
    vt_track_lock();
    vt_alloc_t *a;
    for (size_t pos = 0; (a = vt_table_iter(&pos));) {
        if (a->series != VT_SERIES_DEVICE || a->device != device)
            continue;
        live[a->category < VT_CAT_COUNT ? a->category : VT_CAT_UNKNOWN] += a->size_bytes;
        total += a->size_bytes;
        int s = 0;
        while (s < n_sites && site_stack[s] != a->stack_id)
            s++;
        if (s == n_sites && n_sites < MAX_SITES) {
            site_stack[n_sites] = a->stack_id;
            site_bytes[n_sites++] = 0;
        }
        if (s < n_sites)
            site_bytes[s] += a->size_bytes;
    }
    vt_track_unlock();

    char request[32], where[256], line[768];
    vt_fmt_bytes(request, sizeof request, requested_bytes, 1);
    describe_site(cs ? cs->stack_id : 0, where, sizeof where);
    vt_log(0, "out of memory on device %d: %s of %s failed in %s", device, vt_api_name(api),
           request, where);

    char amount[32];
    vt_fmt_bytes(amount, sizeof amount, total, 1);
    size_t used = vt_fmt(line, sizeof line, "  live %s", amount);
    uint64_t bytes;
    int best;
    for (int shown = 0; (best = vt_take_largest(live, VT_CAT_COUNT, &bytes)) >= 0; shown++) {
        vt_fmt_bytes(amount, sizeof amount, bytes, 1);
        used += vt_fmt(line + used, used < sizeof line ? sizeof line - used : 0, "%s %s %s",
                       shown ? "," : ":", vt_category_names[best], amount);
    }
    vt_log(0, "%s", line);
    /* A pool's reservation is the device's too: the figures the report's device peak counts. */
    vt_device_peak_t held;
    if (vt_track_device_peak(device, &held) && held.pool_reserved_bytes) {
        char reserved[32];
        vt_fmt_bytes(reserved, sizeof reserved, held.pool_reserved_bytes, 1);
        vt_fmt_bytes(amount, sizeof amount, held.pool_spare_bytes, 1);
        vt_log(0, "  pool reserved %s, pool spare %s (reserved beyond live allocations)", reserved,
               amount);
    }

    /* The eight largest stacks, described and merged where they read the same (one loop
     * unrolled by the compiler is several return addresses but one place to the reader). */
    enum { N_NAMED = 8 };
    char names[N_NAMED][256];
    uint64_t named_bytes[N_NAMED];
    int n_named = 0;
    for (int k = 0; k < N_NAMED && (best = vt_take_largest(site_bytes, n_sites, &bytes)) >= 0;
         k++) {
        describe_site(site_stack[best], where, sizeof where);
        int same = 0;
        while (same < n_named && strcmp(names[same], where) != 0)
            same++;
        if (same == n_named) {
            memcpy(names[n_named], where, sizeof names[0]);
            named_bytes[n_named++] = 0;
        }
        named_bytes[same] += bytes;
    }
    used = vt_fmt(line, sizeof line, "  largest live call-sites:");
    for (int shown = 0; shown < 3 && (best = vt_take_largest(named_bytes, n_named, &bytes)) >= 0;
         shown++) {
        vt_fmt_bytes(amount, sizeof amount, bytes, 1);
        used += vt_fmt(line + used, used < sizeof line ? sizeof line - used : 0, "%s %s %s",
                       shown ? ";" : "", names[best], amount);
    }
    if (n_sites)
        vt_log(0, "%s", line);
}

/* SPDX-License-Identifier: MIT */
/* An LD_PRELOAD spy that records how a process reaches the CUDA driver: every dlopen, every dlsym
 * (and whether its handle is libcuda.so.1's), and every cuGetProcAddress query with its
 * (name, ABI version, flags) and the pointer it came through. Used by t_rt_driver_path.c.
 *
 * Why interpose dlsym rather than export cuGetProcAddress_v2 or read LD_DEBUG=bindings: the
 * runtime calls dlsym(handle_of_libcuda, ...), which searches only libcuda's own scope, so an
 * export here would never be returned; LD_DEBUG shows bindings but not the queries. To see the
 * queries the spy hands out its own cuGetProcAddress wrappers (from dlsym, and again whenever
 * "cuGetProcAddress" itself is fetched, with the 4- or 5-argument ABI the version asks for),
 * as the real capture library does (door 2 of docs/design.md).
 *
 * dlopen and dlsym forward to glibc as tail calls: glibc takes RTLD_NEXT's starting point and the
 * dlopen caller's RPATH and namespace from the return address, which must stay the caller's. The
 * forward pointers come from dlvsym(RTLD_NEXT, ..., "GLIBC_2.2.5"), which is not interposed.
 *
 * Nothing on the dlsym path calls a libc function that a sanitizer runtime intercepts (string
 * functions, pthread mutexes or once): AddressSanitizer resolves its interceptors with dlsym
 * while it initialises, when those interceptors cannot run yet. Hence the hand-written string
 * helpers and the lock-free log. */
#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include "t_rt_spy.h"

#ifndef __OPTIMIZE__
#    error "the dlsym and dlopen forwards must compile to tail calls: build with optimisation"
#endif

#define SPY_EXPORT __attribute__((visibility("default")))

typedef void *(*dlsym_fn)(void *, const char *);
typedef void *(*dlopen_fn)(const char *, int);
/* cuGetProcAddress_v2 (12000) and cuGetProcAddress (11030) ABIs: CUresult is an int enum. */
typedef int (*gpa_v2_fn)(const char *, void **, int, unsigned long long, int *);
typedef int (*gpa_v1_fn)(const char *, void **, int, unsigned long long);

/* The forwards; set (idempotently, so racing first calls are harmless) by spy_init. */
static dlsym_fn real_dlsym;
static dlopen_fn real_dlopen;
static gpa_v2_fn dlsym_v2, fetched_v2;
static gpa_v1_fn fetched_v1;

/* Events are appended with an atomic index and read by the test once its threads are joined. */
static t_rt_spy_log_t spy_log;

static void spy_init(void)
{
    if (__atomic_load_n(&real_dlsym, __ATOMIC_ACQUIRE))
        return;
    __atomic_store_n(&real_dlopen, (dlopen_fn)dlvsym(RTLD_NEXT, "dlopen", "GLIBC_2.2.5"),
                     __ATOMIC_RELEASE);
    __atomic_store_n(&real_dlsym, (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5"),
                     __ATOMIC_RELEASE);
}

static const char *base_name(const char *path)
{
    const char *base = path;
    for (; *path; path++)
        if (*path == '/')
            base = path + 1;
    return base;
}

static int has_prefix(const char *s, const char *prefix)
{
    while (*prefix && *s == *prefix)
        s++, prefix++;
    return *prefix == '\0';
}

static int same(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* 1 when `ip` lies in a libcudart.so* (the simulated runtime). */
static int in_runtime(const void *ip)
{
    Dl_info info;
    return dladdr(ip, &info) && info.dli_fname &&
           has_prefix(base_name(info.dli_fname), "libcudart.so");
}

/* 1 when `handle` is a dlopen handle of a libcuda.so* (not a pseudo-handle). */
static int is_libcuda(void *handle)
{
    struct link_map *map = NULL;
    if (handle == RTLD_DEFAULT || handle == RTLD_NEXT ||
        dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name)
        return 0;
    return has_prefix(base_name(map->l_name), "libcuda.so");
}

static void record(t_rt_spy_kind_t kind, const char *name, int version, unsigned long long flags,
                   int into_libcuda, int from_runtime, t_rt_spy_via_t via)
{
    int i = __atomic_fetch_add(&spy_log.n_events, 1, __ATOMIC_ACQ_REL);
    if (i >= T_RT_SPY_MAX_EVENTS)
        return;
    t_rt_spy_event_t *e = &spy_log.events[i];
    e->kind = kind;
    if (!name)
        name = "(null)";
    for (size_t k = 0; k + 1 < sizeof e->name && name[k]; k++)
        e->name[k] = name[k];
    e->version = version;
    e->flags = flags;
    e->into_libcuda = into_libcuda;
    e->from_runtime = from_runtime;
    e->via = via;
}

static int gpa_v2_via_dlsym(const char *, void **, int, unsigned long long, int *);
static int gpa_v2_via_fetched(const char *, void **, int, unsigned long long, int *);
static int gpa_v1_via_fetched(const char *, void **, int, unsigned long long);

/* After a successful query for "cuGetProcAddress", hand out the wrapper of the ABI asked for
 * (12000 and later: 5 arguments; before: 4) so that later queries are seen too. */
static void keep_chain(const char *symbol, void **pfn, int version)
{
    if (!symbol || !pfn || !*pfn || !same(symbol, "cuGetProcAddress"))
        return;
    if (version >= 12000) {
        fetched_v2 = (gpa_v2_fn)*pfn;
        spy_log.fetched_v2 = *pfn;
        *pfn = (void *)gpa_v2_via_fetched;
    } else {
        fetched_v1 = (gpa_v1_fn)*pfn;
        *pfn = (void *)gpa_v1_via_fetched;
    }
}

static int gpa_v2_via_dlsym(const char *symbol, void **pfn, int version, unsigned long long flags,
                            int *status)
{
    record(T_RT_SPY_QUERY, symbol, version, flags, 0, in_runtime(__builtin_return_address(0)),
           T_RT_SPY_VIA_DLSYM);
    int rc = dlsym_v2(symbol, pfn, version, flags, status);
    if (rc == 0)
        keep_chain(symbol, pfn, version);
    return rc;
}

static int gpa_v2_via_fetched(const char *symbol, void **pfn, int version, unsigned long long flags,
                              int *status)
{
    record(T_RT_SPY_QUERY, symbol, version, flags, 0, in_runtime(__builtin_return_address(0)),
           T_RT_SPY_VIA_FETCHED_V2);
    int rc = fetched_v2(symbol, pfn, version, flags, status);
    if (rc == 0)
        keep_chain(symbol, pfn, version);
    return rc;
}

static int gpa_v1_via_fetched(const char *symbol, void **pfn, int version, unsigned long long flags)
{
    record(T_RT_SPY_QUERY, symbol, version, flags, 0, in_runtime(__builtin_return_address(0)),
           T_RT_SPY_VIA_FETCHED_V1);
    int rc = fetched_v1(symbol, pfn, version, flags);
    if (rc == 0)
        keep_chain(symbol, pfn, version);
    return rc;
}

SPY_EXPORT void *dlopen(const char *file, int mode)
{
    spy_init();
    record(T_RT_SPY_DLOPEN, file, 0, (unsigned long long)mode, 0,
           in_runtime(__builtin_return_address(0)), T_RT_SPY_VIA_DLSYM);
    return real_dlopen(file, mode); /* tail call: see the file comment */
}

SPY_EXPORT void *dlsym(void *handle, const char *symbol)
{
    spy_init();
    int into_libcuda = is_libcuda(handle);
    record(T_RT_SPY_DLSYM, symbol, 0, 0, into_libcuda, in_runtime(__builtin_return_address(0)),
           T_RT_SPY_VIA_DLSYM);
    if (into_libcuda && same(symbol, "cuGetProcAddress_v2")) {
        /* An explicit handle: glibc does not look at the caller, so this need not be a tail
         * call. */
        void *fn = real_dlsym(handle, symbol);
        if (!fn)
            return NULL;
        dlsym_v2 = (gpa_v2_fn)fn;
        spy_log.dlsym_v2 = fn;
        return (void *)gpa_v2_via_dlsym;
    }
    return real_dlsym(handle, symbol); /* tail call: see the file comment */
}

SPY_EXPORT const t_rt_spy_log_t *t_rt_spy_log(void)
{
    return &spy_log;
}

/* The test looks this up with dlsym(RTLD_NEXT, ...) from the executable: only a forward that
 * keeps the executable as the caller finds it, since the search starts after the caller. */
SPY_EXPORT int t_rt_spy_next_probe(void)
{
    return 42;
}

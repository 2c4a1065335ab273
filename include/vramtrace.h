/* SPDX-License-Identifier: MIT */
/* vramtrace.h: optional annotations for programs traced by vramtrace (heaptrack_api.h style).
 * An annotated program runs unchanged without libvramtrace.so: the macros do nothing unless
 * the library is loaded. Plain C, usable from C++; no CUDA headers needed.
 *
 *   VRAMTRACE_MARK("epoch 1");   a named point on the timeline
 *   VRAMTRACE_PAUSE();           stop recording (not nested: one RESUME undoes any PAUSEs)
 *   VRAMTRACE_RESUME();          record again
 *
 * Two ways to find the library:
 * - default: weak declarations. In a dynamically linked program or library (PIE or not, checked
 *   with GNU ld 2.40) the weak reference is left to the dynamic linker, so `if (vramtrace_mark)`
 *   sees the preloaded library's definition. A static link, or a link that resolves undefined
 *   weak symbols to NULL at link time (-z nodynamic-undefined-weak), makes the macros silently
 *   never fire;
 * - `#define VRAMTRACE_API_DLSYM 1` before including this header: each macro looks the
 *   function up with dlsym(RTLD_DEFAULT) on first use and caches it; use this for those links
 *   (link with -ldl on glibc older than 2.34).
 *
 * Version 0.1: libvramtrace.so accepts these calls but does not record marks in the trace
 * yet; at VRAMTRACE_VERBOSE=2 it logs each one to stderr. */
#ifndef VRAMTRACE_H
#define VRAMTRACE_H

/* Must match project(VERSION) in CMakeLists.txt. */
#define VRAMTRACE_VERSION_MAJOR 0
#define VRAMTRACE_VERSION_MINOR 1
#define VRAMTRACE_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

#if defined(VRAMTRACE_API_DLSYM) && VRAMTRACE_API_DLSYM

#    include <dlfcn.h>

/* RTLD_DEFAULT is only declared under _GNU_SOURCE; on glibc it is the null handle. */
#    ifdef RTLD_DEFAULT
#        define VRAMTRACE_RTLD_DEFAULT_ RTLD_DEFAULT
#    else
#        define VRAMTRACE_RTLD_DEFAULT_ ((void *)0)
#    endif

/* The looked-up function, or NULL when libvramtrace.so is not loaded. The lookup is cached per
 * translation unit and per name; a racing first use just looks up twice. */
static inline void *vramtrace_api_sym_(void **cache, const char *name)
{
    void *fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!fn) {
        fn = dlsym(VRAMTRACE_RTLD_DEFAULT_, name);
        /* Not found is cached as a non-null sentinel, so a program without the library does
         * not pay for a dlsym per call. */
        __atomic_store_n(cache, fn ? fn : (void *)cache, __ATOMIC_RELEASE);
    }
    return fn == (void *)cache ? (void *)0 : fn;
}

__attribute__((unused)) static void *vramtrace_api_mark_, *vramtrace_api_pause_,
    *vramtrace_api_resume_, *vramtrace_api_category_push_, *vramtrace_api_category_pop_;

#    define VRAMTRACE_MARK(label)                                                                  \
        do {                                                                                       \
            void (*vramtrace_fn_)(const char *) = (void (*)(const char *))vramtrace_api_sym_(      \
                &vramtrace_api_mark_, "vramtrace_mark");                                           \
            if (vramtrace_fn_)                                                                     \
                vramtrace_fn_(label);                                                              \
        } while (0)
#    define VRAMTRACE_PAUSE()                                                                      \
        do {                                                                                       \
            void (*vramtrace_fn_)(void) =                                                          \
                (void (*)(void))vramtrace_api_sym_(&vramtrace_api_pause_, "vramtrace_pause");      \
            if (vramtrace_fn_)                                                                     \
                vramtrace_fn_();                                                                   \
        } while (0)
#    define VRAMTRACE_RESUME()                                                                     \
        do {                                                                                       \
            void (*vramtrace_fn_)(void) =                                                          \
                (void (*)(void))vramtrace_api_sym_(&vramtrace_api_resume_, "vramtrace_resume");    \
            if (vramtrace_fn_)                                                                     \
                vramtrace_fn_();                                                                   \
        } while (0)
#    define VRAMTRACE_CATEGORY_PUSH(category)                                                      \
        do {                                                                                       \
            void (*vramtrace_fn_)(const char *) = (void (*)(const char *))vramtrace_api_sym_(      \
                &vramtrace_api_category_push_, "vramtrace_category_push");                         \
            if (vramtrace_fn_)                                                                     \
                vramtrace_fn_(category);                                                           \
        } while (0)
#    define VRAMTRACE_CATEGORY_POP()                                                               \
        do {                                                                                       \
            void (*vramtrace_fn_)(void) = (void (*)(void))vramtrace_api_sym_(                      \
                &vramtrace_api_category_pop_, "vramtrace_category_pop");                           \
            if (vramtrace_fn_)                                                                     \
                vramtrace_fn_();                                                                   \
        } while (0)

#else

/* The library's own build defines VRAMTRACE_BUILDING_LIBRARY so its definitions stay strong
 * while the compiler still checks them against these prototypes. */
#    ifdef VRAMTRACE_BUILDING_LIBRARY
#        define VRAMTRACE_WEAK_
#    else
#        define VRAMTRACE_WEAK_ __attribute__((weak))
#    endif

/* Records a named point on the timeline (a training step, a phase). label may be freed after
 * the call returns. */
VRAMTRACE_WEAK_ void vramtrace_mark(const char *label);
/* Stops recording new allocations until vramtrace_resume(). */
VRAMTRACE_WEAK_ void vramtrace_pause(void);
VRAMTRACE_WEAK_ void vramtrace_resume(void);
/* Allocations this thread makes until the matching pop take the named category ("weights",
 * "gradients", "optimizer", "activations", "data", "workspace" or "unknown"), whatever the
 * rules say; pushes nest, the innermost wins. An unknown name changes nothing. */
VRAMTRACE_WEAK_ void vramtrace_category_push(const char *category);
VRAMTRACE_WEAK_ void vramtrace_category_pop(void);

#    define VRAMTRACE_MARK(label)                                                                  \
        do {                                                                                       \
            if (vramtrace_mark)                                                                    \
                vramtrace_mark(label);                                                             \
        } while (0)
#    define VRAMTRACE_PAUSE()                                                                      \
        do {                                                                                       \
            if (vramtrace_pause)                                                                   \
                vramtrace_pause();                                                                 \
        } while (0)
#    define VRAMTRACE_RESUME()                                                                     \
        do {                                                                                       \
            if (vramtrace_resume)                                                                  \
                vramtrace_resume();                                                                \
        } while (0)
#    define VRAMTRACE_CATEGORY_PUSH(category)                                                      \
        do {                                                                                       \
            if (vramtrace_category_push)                                                           \
                vramtrace_category_push(category);                                                 \
        } while (0)
#    define VRAMTRACE_CATEGORY_POP()                                                               \
        do {                                                                                       \
            if (vramtrace_category_pop)                                                            \
                vramtrace_category_pop();                                                          \
        } while (0)

#endif

#ifdef __cplusplus
}
#endif
#endif

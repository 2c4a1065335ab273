/* SPDX-License-Identifier: MIT */
/* Python frames of call-sites: when the process runs CPython 3.8–3.13 and the allocating
 * thread holds the GIL, the frame chain (file, function and line per frame) read through
 * CPython's public C API, resolved at run time, so libvramtrace.so has no build-time Python
 * dependency and costs nothing in a process without Python.
 *
 * Pseudo instruction pointers. Each Python frame becomes one 64-bit value interned in the
 * stack trie like a return address (vt_internal.h, VT_PY_IP):
 *     bit  63      1: a Python frame (no user-space code address has it)
 *     bits 62..24  id of the interned string "path/file.py:function" (strings.c), 39 bits
 *     bits 23..0   the line the frame is executing, clamped to 2^24 - 1; 0 when unknown
 * They follow the native frames as the outermost ones: the stack is the native frames,
 * innermost first, then the Python frames, innermost first. Splicing them in at the
 * interpreter's own native frames is left to the analyzer. The string, not the code object, is
 * the key, so the ids survive code objects being freed and their addresses reused. Native and
 * Python frames share VRAMTRACE_DEPTH; Python keeps at least its innermost VT_PY_MIN_FRAMES
 * (categorize.c, add_python_frames). Rules match py: globs against the string.
 *
 * Safety. Python is only touched on a thread that holds the GIL of an initialized, not
 * finalizing interpreter; PyTorch's autograd threads and ctypes.CDLL calls run without it,
 * and there the native stack and thread name stand alone. Only C-level getters are called
 * (no Python code runs): the exception state is saved before and restored after, so nothing
 * the walk raises escapes and the program's pending exception is untouched, and the cyclic GC
 * is held off while 3.11+ materializes frame objects (allocating one may start a collection on
 * 3.11, which runs finalizers). Not AS-safe (Python allocates); the recording path is not
 * reached from signal handlers. */
#include "vt_internal.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/types.h>

_Static_assert(sizeof(void *) == 8, "pseudo instruction pointers need 64-bit pointers");

typedef struct py_object_s py_object_t; /* PyObject, opaque */

/* The C API used, as resolved; NULL members are absent in this version. */
static struct {
    int minor; /* 3.<minor> */
    int (*Py_IsInitialized)(void);
    int (*is_finalizing)(void); /* Py_IsFinalizing (3.13), _Py_IsFinalizing (3.8–3.12) */
    int (*PyGILState_Check)(void);
    void *(*PyGILState_GetThisThreadState)(void);
    void *(*thread_state_get)(void); /* PyThreadState_GetUnchecked, _PyThreadState_UncheckedGet */
    py_object_t *(*PyEval_GetFrame)(void);
    int (*PyFrame_GetLineNumber)(py_object_t *);
    py_object_t *(*PyFrame_GetCode)(py_object_t *); /* 3.9+ */
    py_object_t *(*PyFrame_GetBack)(py_object_t *); /* 3.9+ */
    py_object_t *(*PyObject_GetAttrString)(py_object_t *, const char *);
    const char *(*PyUnicode_AsUTF8AndSize)(py_object_t *, ssize_t *);
    void (*Py_DecRef)(py_object_t *);
    void (*PyErr_Fetch)(py_object_t **, py_object_t **, py_object_t **);
    void (*PyErr_Restore)(py_object_t *, py_object_t *, py_object_t *);
    py_object_t *(*PyErr_GetRaisedException)(void); /* 3.12+ */
    void (*PyErr_SetRaisedException)(py_object_t *);
    int (*PyGC_Disable)(void); /* 3.10+ */
    int (*PyGC_Enable)(void);
    py_object_t *none; /* &_Py_NoneStruct: 3.8's f_back at the outermost frame */
    /* The frame-name cache's (below); any absent: no cache. */
    py_object_t *(*PyObject_GetAttr)(py_object_t *, py_object_t *);
    py_object_t *(*PyUnicode_InternFromString)(const char *);
    py_object_t *(*PyObject_Type)(py_object_t *);
    void (*Py_IncRef)(py_object_t *);
    void *(*interpreter_get)(void); /* PyInterpreterState_Get (3.9+), _PyInterpreterState_Get */
    void *(*PyInterpreterState_Main)(void);
    py_object_t *unicode_type; /* &PyUnicode_Type */
    bool cache_usable;         /* all of the above, and a build with a GIL */
} py;

/* The frame-name cache: the string id of "path/file.py:function" by the identity of the code
 * object's co_filename and co_name objects. A Python loop at depth 64 spent ~0.65 us per frame
 * per allocation on two attribute lookups by C string, a UTF-8 copy and the interning under
 * vt_lock (docs/benchmarks.md, "Targets"); a hit costs two lookups by interned name
 * and two compares.
 *
 * Why it is exact: a slot holds a strong reference to both str objects, so neither can be freed
 * while it is cached, and a live str never changes its text: the code object whose co_filename
 * and co_name ARE those two objects has exactly the cached text, whichever code object it is
 * (the code object itself is not the key: a freed code object's address may be reused by
 * another, and holding code objects instead could not be released safely here, since freeing
 * one may run Python code: weakref callbacks, co_extra free functions). Only exact str objects
 * are held: freeing one runs no Python code (a str subclass could have __del__), so evicting a
 * slot is safe in the hook. The string id is checked against strings.c (vt_string returns the
 * same text pointer only while the id names the same interned string: after a fork child's
 * forget it names nothing or another string at another address, since forgotten strings are
 * never freed).
 *
 * When: only on threads of the main interpreter holding its GIL, which serializes every access
 * (no lock of ours), and never in a free-threaded build (no GIL to serialize them). A
 * subinterpreter's objects are never held, so none is released from another interpreter. */
#define NAME_CACHE_SLOTS 1024u
static struct {
    py_object_t *file, *name; /* strong references; NULL: empty */
    uint32_t id;
    const char *text; /* vt_string(id) when cached */
} name_cache[NAME_CACHE_SLOTS];
static py_object_t *attr_co_filename, *attr_co_name; /* interned, held for good */

enum { PY_UNKNOWN, PY_ABSENT, PY_RESOLVING, PY_PRESENT, PY_UNSUPPORTED };
static _Atomic int py_state = PY_UNKNOWN;
static _Atomic unsigned py_modules_seen; /* vt_modules_count() at the last look */

/* Symbols are looked up with the public dlsym on RTLD_DEFAULT. Inside libvramtrace.so that
 * name binds to our own exported dlsym, which intercepts only exact driver entry points
 * ("cu…") and forwards every other name to glibc's by a tail jump (resolve.c), so the lookup
 * is glibc's; RTLD_DEFAULT does not depend on the caller, unlike RTLD_NEXT. The unit tests
 * link the core without resolve.c and reach glibc directly. A miss makes glibc allocate its
 * dlerror message and replaces a pending dlerror() string: that happens once per process for
 * a version's optional symbols, and for "Py_GetVersion" only when the module map has grown. */
static void *sym(const char *name)
{
    return dlsym(RTLD_DEFAULT, name);
}

#define RESOLVE(field, name) (*(void **)&py.field = sym(name))

/* The minor version of the loaded CPython 3 from Py_GetVersion() ("3.11.7 (main, …"), which
 * needs no interpreter state; -1 when it is not CPython 3. */
static int python_minor(void)
{
    const char *(*get_version)(void) = (const char *(*)(void))sym("Py_GetVersion");
    const char *v = get_version ? get_version() : NULL;
    if (!v || v[0] != '3' || v[1] != '.' || v[2] < '0' || v[2] > '9')
        return -1;
    int minor = 0;
    for (const char *p = v + 2; *p >= '0' && *p <= '9' && minor < 1000; p++)
        minor = minor * 10 + (*p - '0');
    return minor;
}

/* Resolves the API for the version present. Returns the state to settle in. Runs in one
 * thread at a time (PY_RESOLVING). */
static int resolve(void)
{
    int minor = python_minor();
    if (minor < 0)
        return PY_ABSENT;
    /* Each accessor below is checked against the 3.8-3.13 headers; a later version may rename
     * or drop one (the 3.13 finalizing and thread-state getters did), so it is not guessed. */
    if (minor < 8 || minor > 13) {
        vt_log(1, "Python 3.%d is not supported (3.8 to 3.13): call-sites have native frames only",
               minor);
        return PY_UNSUPPORTED;
    }
    py.minor = minor;
    RESOLVE(Py_IsInitialized, "Py_IsInitialized");
    RESOLVE(is_finalizing, minor >= 13 ? "Py_IsFinalizing" : "_Py_IsFinalizing");
    RESOLVE(PyGILState_Check, "PyGILState_Check");
    RESOLVE(PyGILState_GetThisThreadState, "PyGILState_GetThisThreadState");
    RESOLVE(thread_state_get,
            minor >= 13 ? "PyThreadState_GetUnchecked" : "_PyThreadState_UncheckedGet");
    RESOLVE(PyEval_GetFrame, "PyEval_GetFrame");
    RESOLVE(PyFrame_GetLineNumber, "PyFrame_GetLineNumber");
    if (minor >= 9) {
        RESOLVE(PyFrame_GetCode, "PyFrame_GetCode");
        RESOLVE(PyFrame_GetBack, "PyFrame_GetBack");
    }
    RESOLVE(PyObject_GetAttrString, "PyObject_GetAttrString");
    RESOLVE(PyUnicode_AsUTF8AndSize, "PyUnicode_AsUTF8AndSize");
    RESOLVE(Py_DecRef, "Py_DecRef");
    if (minor >= 12) {
        RESOLVE(PyErr_GetRaisedException, "PyErr_GetRaisedException");
        RESOLVE(PyErr_SetRaisedException, "PyErr_SetRaisedException");
    } else {
        RESOLVE(PyErr_Fetch, "PyErr_Fetch");
        RESOLVE(PyErr_Restore, "PyErr_Restore");
    }
    if (minor >= 10) {
        RESOLVE(PyGC_Disable, "PyGC_Disable");
        RESOLVE(PyGC_Enable, "PyGC_Enable");
    }
    RESOLVE(none, "_Py_NoneStruct");
    RESOLVE(PyObject_GetAttr, "PyObject_GetAttr");
    RESOLVE(PyUnicode_InternFromString, "PyUnicode_InternFromString");
    RESOLVE(PyObject_Type, "PyObject_Type");
    RESOLVE(Py_IncRef, "Py_IncRef");
    RESOLVE(interpreter_get, minor >= 9 ? "PyInterpreterState_Get" : "_PyInterpreterState_Get");
    RESOLVE(PyInterpreterState_Main, "PyInterpreterState_Main");
    RESOLVE(unicode_type, "PyUnicode_Type");
    /* A free-threaded 3.13 says so in its version ("3.13.0 experimental free-threading build"). */
    const char *(*get_version)(void) = (const char *(*)(void))sym("Py_GetVersion");
    const char *version = get_version ? get_version() : NULL;
    py.cache_usable = py.PyObject_GetAttr && py.PyUnicode_InternFromString && py.PyObject_Type &&
                      py.Py_IncRef && py.interpreter_get && py.PyInterpreterState_Main &&
                      py.unicode_type && version && !strstr(version, "free-threading");
    bool errors_saved = minor >= 12 ? py.PyErr_GetRaisedException && py.PyErr_SetRaisedException
                                    : py.PyErr_Fetch && py.PyErr_Restore;
    bool frames = minor >= 9 ? py.PyFrame_GetCode && py.PyFrame_GetBack : py.none != NULL;
    /* 3.11+ may collect while making frame objects: without the GC switch, no walk. */
    bool gc_held = minor < 11 || (py.PyGC_Disable && py.PyGC_Enable);
    if (!py.Py_IsInitialized || !py.PyGILState_Check || !py.PyEval_GetFrame ||
        !py.PyFrame_GetLineNumber || !py.PyObject_GetAttrString || !py.PyUnicode_AsUTF8AndSize ||
        !py.Py_DecRef || !errors_saved || !frames || !gc_held) {
        vt_log(1, "Python 3.%d lacks a C API function we need: call-sites have native frames only",
               minor);
        return PY_UNSUPPORTED;
    }
    vt_log(1, "Python 3.%d found: call-sites get Python frames on threads holding the GIL", minor);
    return PY_PRESENT;
}

/* True when the API is resolved. The first call looks; while Python is absent, the look is
 * repeated only when the module map has grown (an embedding program may dlopen libpython
 * later; the map grows when a call-site frame falls outside every known module, so the first
 * allocation made through a newly loaded libpython may still go without Python frames).
 * Threads that find another one resolving go without, rather than wait. */
static bool python_ready(void)
{
    int s = atomic_load_explicit(&py_state, memory_order_acquire);
    if (VT_LIKELY(s == PY_PRESENT))
        return true;
    if (s == PY_RESOLVING || s == PY_UNSUPPORTED)
        return false;
    unsigned n_modules = vt_modules_count();
    if (s == PY_ABSENT && n_modules == atomic_load_explicit(&py_modules_seen, memory_order_relaxed))
        return false;
    if (!atomic_compare_exchange_strong_explicit(&py_state, &s, PY_RESOLVING, memory_order_acq_rel,
                                                 memory_order_acquire))
        return false;
    atomic_store_explicit(&py_modules_seen, n_modules, memory_order_relaxed);
    int next = resolve();
    atomic_store_explicit(&py_state, next, memory_order_release);
    return next == PY_PRESENT;
}

/* True when this thread holds the GIL of an initialized, not finalizing interpreter. Every
 * call here is documented as callable without the GIL. PyGILState_Check alone answers 1 when
 * its check is disabled (3.8–3.11 disable it once a subinterpreter exists), so the thread's
 * current thread state must also be its own GIL-state one: before 3.12 the "unchecked" getter
 * returns the GIL holder of the whole runtime, from 3.12 this thread's attached state. */
static bool holds_gil(void)
{
    if (!py.Py_IsInitialized() || (py.is_finalizing && py.is_finalizing()) ||
        !py.PyGILState_Check())
        return false;
    if (py.thread_state_get && py.PyGILState_GetThisThreadState) {
        void *current = py.thread_state_get();
        return current && current == py.PyGILState_GetThisThreadState();
    }
    return true;
}

/* Appends the UTF-8 text of a str object to buf at *used (cap bytes in all), keeping the end
 * of what does not fit (a path's tail is what rules look at). A non-str or unencodable object
 * reads as "?"; its exception is dropped with the rest when the walk ends. */
static void append_str(char *buf, size_t cap, size_t *used, py_object_t *s)
{
    ssize_t len = 0;
    const char *text = s ? py.PyUnicode_AsUTF8AndSize(s, &len) : NULL;
    if (!text || len < 0) {
        text = "?";
        len = 1;
    }
    size_t n = (size_t)len, room = cap - *used;
    if (n > room) {
        text += n - room;
        n = room;
    }
    memcpy(buf + *used, text, n);
    *used += n;
}

/* True when the walk may use the frame-name cache: the main interpreter's thread holding its
 * GIL (holds_gil said so), and the attribute names interned (made on first use). */
static bool name_cache_ready(void)
{
    if (!py.cache_usable || py.interpreter_get() != py.PyInterpreterState_Main())
        return false;
    if (!attr_co_filename) {
        py_object_t *file = py.PyUnicode_InternFromString("co_filename");
        py_object_t *name = py.PyUnicode_InternFromString("co_name");
        if (!file || !name) { /* out of memory: the walk drops the exception */
            if (file)
                py.Py_DecRef(file);
            if (name)
                py.Py_DecRef(name);
            py.cache_usable = false;
            return false;
        }
        attr_co_filename = file;
        attr_co_name = name;
    }
    return true;
}

static bool is_exact_str(py_object_t *o)
{
    py_object_t *type = py.PyObject_Type(o);
    if (type)
        py.Py_DecRef(type);
    return type == py.unicode_type;
}

static unsigned name_slot(const py_object_t *file, const py_object_t *name)
{
    uint64_t h = ((uint64_t)(uintptr_t)file ^ ((uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15ULL));
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (unsigned)h & (NAME_CACHE_SLOTS - 1);
}

/* The string id of a frame's "path/file.py:function"; 0 when it cannot be had. cached: the
 * frame-name cache may be used (name_cache_ready). */
static uint32_t frame_string(py_object_t *frame, bool cached)
{
    py_object_t *code =
        py.PyFrame_GetCode ? py.PyFrame_GetCode(frame) : py.PyObject_GetAttrString(frame, "f_code");
    if (!code)
        return 0;
    py_object_t *file, *name;
    if (cached) {
        file = py.PyObject_GetAttr(code, attr_co_filename);
        name = py.PyObject_GetAttr(code, attr_co_name);
        if (file && name) {
            unsigned k = name_slot(file, name);
            if (name_cache[k].file == file && name_cache[k].name == name &&
                vt_string(name_cache[k].id) == name_cache[k].text) {
                py.Py_DecRef(name);
                py.Py_DecRef(file);
                py.Py_DecRef(code);
                return name_cache[k].id;
            }
        }
    } else {
        file = py.PyObject_GetAttrString(code, "co_filename");
        name = py.PyObject_GetAttrString(code, "co_name");
    }
    char text[VT_STRING_MAX];
    size_t used = 0;
    append_str(text, sizeof text - 1 - 64, &used, file); /* room for ':' and a name */
    text[used++] = ':';
    append_str(text, sizeof text, &used, name);
    /* Python's UTF-8 may contain NUL bytes; the text ends at the first. */
    size_t len = strnlen(text, used);
    vt_track_lock();
    uint32_t id = vt_string_intern(text, len);
    vt_track_unlock();
    if (cached && id && file && name && is_exact_str(file) && is_exact_str(name)) {
        unsigned k = name_slot(file, name);
        py_object_t *old_file = name_cache[k].file, *old_name = name_cache[k].name;
        py.Py_IncRef(file);
        py.Py_IncRef(name);
        name_cache[k].file = file;
        name_cache[k].name = name;
        name_cache[k].id = id;
        name_cache[k].text = vt_string(id);
        if (old_file) { /* exact str objects: freeing them runs no Python code */
            py.Py_DecRef(old_file);
            py.Py_DecRef(old_name);
        }
    }
    py.Py_DecRef(name);
    py.Py_DecRef(file);
    py.Py_DecRef(code);
    return id;
}

/* vt_python_frames: at most max_frames pseudo instruction pointers (python.c header) of this
 * thread's Python frames, innermost first; 0 when Python is absent or unsupported, or the
 * thread does not hold the GIL. Not under vt_lock (it takes it to intern each string). */
int vt_python_frames(void **ips, int max_frames)
{
    if (max_frames <= 0 || !python_ready() || !holds_gil())
        return 0;
    py_object_t *exc = NULL, *exc_tb = NULL, *exc_value = NULL;
    if (py.PyErr_GetRaisedException)
        exc = py.PyErr_GetRaisedException();
    else
        py.PyErr_Fetch(&exc, &exc_value, &exc_tb);
    int gc_was_enabled = py.PyGC_Disable ? py.PyGC_Disable() : 0;

    int n = 0;
    bool cached = name_cache_ready();
    py_object_t *frame = py.PyEval_GetFrame(); /* borrowed */
    bool owned = false;
    while (frame && frame != py.none && n < max_frames) {
        uint32_t id = frame_string(frame, cached);
        int line = py.PyFrame_GetLineNumber(frame);
        if (id)
            ips[n++] = (void *)(uintptr_t)VT_PY_IP(id, line > 0 ? (uint32_t)line : 0);
        py_object_t *back = py.PyFrame_GetBack ? py.PyFrame_GetBack(frame)
                                               : py.PyObject_GetAttrString(frame, "f_back");
        if (owned)
            py.Py_DecRef(frame);
        frame = back; /* a new reference, or NULL */
        owned = true;
    }
    if (owned)
        py.Py_DecRef(frame);

    if (gc_was_enabled)
        py.PyGC_Enable();
    /* Restoring replaces (and releases) whatever the walk may have raised. */
    if (py.PyErr_SetRaisedException)
        py.PyErr_SetRaisedException(exc);
    else
        py.PyErr_Restore(exc, exc_value, exc_tb);
    return n;
}

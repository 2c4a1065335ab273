/* SPDX-License-Identifier: MIT */
/* Python frames of call-sites: when the process runs CPython 3.8–3.13, the allocating thread's
 * own frame chain (file, function and line per frame), spliced into its native stack at the
 * interpreter's evaluation frames, whether or not the thread holds the GIL. Nothing is resolved
 * at build time, and a process without Python pays one failed symbol lookup.
 *
 * Which threads. The thread state is the one CPython keeps for the calling thread in its
 * thread-specific key (PyGILState_GetThisThreadState: a pthread_getspecific, documented as
 * callable without the GIL, no lock, no allocation). A thread that released the GIL (PyTorch's
 * bindings around every operator, ctypes.CDLL, numba, any Py_BEGIN_ALLOW_THREADS) is running
 * native code, so its frame chain cannot change until it takes the GIL back; a thread holding
 * the GIL is running us. Either way pyframes.c reads the chain as memory, without the GIL (never
 * taken here: PyTorch's allocator calls cudaMalloc under its own mutex, which a thread holding
 * the GIL may be waiting for), without the Python API, without touching a reference count.
 * Threads with no thread state (PyTorch's autograd engine, NCCL's proxies, a program's own
 * pthreads) and threads of subinterpreters, whose states are not in that key, have native frames
 * only. While the interpreter is finalizing, other threads' states may be freed under them: no
 * Python frames then (checked before and after the walk); atexit handlers run before that.
 *
 * Pseudo instruction pointers. Each Python frame becomes one 64-bit value interned in the stack
 * trie like a return address (vt_format.h, VT_PYFRAME_IP):
 *     bit  63      1: a Python frame (no user-space code address has it)
 *     bits 62..24  id of the interned string "path/file.py:function" (strings.c), 39 bits
 *     bits 23..0   the line the frame is executing, clamped to 2^24 - 1; 0 when unknown
 * The string, not the code object, is the key, so the ids survive code objects being freed and
 * their addresses reused. Rules match py: globs against the string.
 *
 * Splicing. Each native frame in _PyEval_EvalFrameDefault (its address range resolved once) is
 * one C evaluation call, which runs one Python frame before 3.11 and, from 3.11, the frames
 * between two entry markers (pyframes.c). The stack, innermost first, is the native frames up
 * to each evaluation frame, that call's Python frames, then the evaluation frame itself:
 *     cudaMalloc ← at::empty ← … ← module.py:_call_impl ← _PyEval_EvalFrameDefault ← … ← main
 * Python frames left over (the native unwind stopped at VRAMTRACE_DEPTH, or the evaluation
 * function is not found) follow as the outermost ones, still in order. VRAMTRACE_DEPTH bounds
 * the native frames and, separately, the Python frames (the innermost ones); the whole stack
 * keeps at most VT_MAX_FRAMES, the native frames giving way to at least half of it for Python.
 *
 * The name cache. A frame's string id is cached by its code object's address, and a hit is
 * taken only when the cached string's text equals, byte for byte, the co_filename and co_name
 * the code object at that address has now (read in place: they are immutable while it lives,
 * and the frame keeps it alive). The key is only a hint: a freed code object whose address is
 * reused, a slot torn by two threads, or a forked child's forgotten strings (vt_string gives
 * NULL or another text) all fail the comparison and take the slow path, which interns the text
 * under vt_lock. No reference is held, so nothing is ever released here. The line cache
 * (frame_line) is exact the same way, and a code object met twice on one chain (recursion,
 * nested nn.Module calls) is one live object at that moment: its second frame reuses the first's
 * name. On 3.12+ a code object's co_version, unique to it, makes its address and version an
 * exact key: the text is not read then. The child of a fork forgets the cache with the strings.
 * docs/benchmarks.md has the cost per frame. */
#include "vt_internal.h"
#include "vt_pyframes.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>

_Static_assert(sizeof(void *) == 8, "pseudo instruction pointers need 64-bit pointers");

static struct {
    vt_py_layout_t layout;
    void *(*this_thread_state)(void); /* PyGILState_GetThisThreadState */
    int (*is_finalizing)(void);       /* Py_IsFinalizing (3.13), _Py_IsFinalizing */
    uintptr_t eval_lo, eval_hi;       /* _PyEval_EvalFrameDefault's code; 0, 0: unknown */
} py;

enum { PY_UNKNOWN, PY_ABSENT, PY_RESOLVING, PY_PRESENT, PY_UNSUPPORTED };
static _Atomic int py_state = PY_UNKNOWN;
static _Atomic unsigned py_modules_seen; /* vt_modules_count() at the last look */

/* Symbols are looked up with the public dlsym on RTLD_DEFAULT. Inside libvramtrace.so that
 * name binds to our own exported dlsym, which intercepts only exact driver entry points
 * ("cu…") and forwards every other name to glibc's by a tail jump (resolve.c), so the lookup
 * is glibc's; RTLD_DEFAULT does not depend on the caller, unlike RTLD_NEXT. The unit tests
 * link the core without resolve.c and reach glibc directly. A miss makes glibc allocate its
 * dlerror message and replaces a pending dlerror() string: that happens once per process for
 * "Py_GetVersion", and again only when the module map has grown. */
static void *sym(const char *name)
{
    return dlsym(RTLD_DEFAULT, name);
}

/* The minor version of the loaded CPython 3 from its version string ("3.11.7 (main, …"), which
 * needs no interpreter state; -1 when it is not CPython 3. */
static int python_minor(const char *v)
{
    if (!v || v[0] != '3' || v[1] != '.' || v[2] < '0' || v[2] > '9')
        return -1;
    int minor = 0;
    for (const char *p = v + 2; *p >= '0' && *p <= '9' && minor < 1000; p++)
        minor = minor * 10 + (*p - '0');
    return minor;
}

/* 3.13 publishes the offsets a debugger needs at the start of _PyRuntime (_Py_DebugOffsets,
 * Include/internal/pycore_runtime.h; its layout is 3.13's own). True when they agree with our
 * table for every field read. */
static bool debug_offsets_agree(const vt_py_layout_t *L)
{
    const unsigned char *runtime = sym("_PyRuntime");
    if (!runtime || memcmp(runtime, "xdebugpy", 8) != 0)
        return false;
    uint64_t v[73];
    memcpy(v, runtime, sizeof v);
    /* Indices are the 64-bit words of _Py_DebugOffsets in 3.13.0 (cookie = word 0). */
    struct {
        unsigned word;
        int ours;
    } const checks[] = {
        {23, L->ts_frame},       {29, L->fr_back},         {30, L->fr_code},
        {31, L->fr_instr},       {33, L->fr_owner},        {35, L->co_filename},
        {36, L->co_name},        {38, L->co_linetable},    {39, L->co_firstlineno},
        {43, L->co_code},        {45, 8 /* ob_type */},    {65, 16 /* bytes ob_size */},
        {66, 32 /* ob_sval */},  {68, 32 /* str state */}, {69, 16 /* str length */},
        {70, L->str_ascii_data},
    };
    if (((v[1] >> 16) & 0xff) != 13 || v[2] != 0) /* 3.13, not free-threaded */
        return false;
    for (size_t i = 0; i < sizeof checks / sizeof *checks; i++)
        if (v[checks[i].word] != (uint64_t)checks[i].ours)
            return false;
    return true;
}

/* Resolves what the reader needs for the version present. Returns the state to settle in. Runs
 * in one thread at a time (PY_RESOLVING). */
static int resolve(void)
{
    const char *(*get_version)(void) = (const char *(*)(void))sym("Py_GetVersion");
    const char *version = get_version ? get_version() : NULL;
    int minor = python_minor(version);
    if (minor < 0)
        return PY_ABSENT;
    const vt_py_layout_t *layout = vt_py_layout(minor);
    if (!layout || strstr(version, "free-threading")) {
        vt_log(1,
               "Python 3.%d%s is not supported (3.8 to 3.13 with a GIL): call-sites have "
               "native frames only",
               minor, layout ? " free-threaded" : "");
        return PY_UNSUPPORTED;
    }
    py.layout = *layout;
    py.layout.code_type = sym("PyCode_Type");
    py.layout.str_type = sym("PyUnicode_Type");
    py.layout.bytes_type = sym("PyBytes_Type");
    py.layout.frame_type = minor < 11 ? sym("PyFrame_Type") : NULL;
    *(void **)&py.this_thread_state = sym("PyGILState_GetThisThreadState");
    *(void **)&py.is_finalizing = sym(minor >= 13 ? "Py_IsFinalizing" : "_Py_IsFinalizing");
    if (!py.layout.code_type || !py.layout.str_type || !py.layout.bytes_type ||
        (minor < 11 && !py.layout.frame_type) || !py.this_thread_state || !py.is_finalizing) {
        vt_log(1, "Python 3.%d lacks a symbol we need: call-sites have native frames only", minor);
        return PY_UNSUPPORTED;
    }
    if (minor == 13 && !debug_offsets_agree(&py.layout)) {
        vt_log(1, "Python 3.13's _Py_DebugOffsets differ from ours: call-sites have native frames "
                  "only");
        return PY_UNSUPPORTED;
    }
    /* The evaluation loop's extent, for splicing; without it Python frames go outermost. */
    void *eval = sym("_PyEval_EvalFrameDefault");
    Dl_info info;
    const ElfW(Sym) *entry = NULL;
    if (eval && dladdr1(eval, &info, (void **)&entry, RTLD_DL_SYMENT) && entry && entry->st_size) {
        py.eval_lo = (uintptr_t)eval;
        py.eval_hi = (uintptr_t)eval + entry->st_size;
    }
    vt_log(1, "Python 3.%d found: call-sites get Python frames%s", minor,
           py.eval_lo ? "" : " (after the native ones: the evaluation loop is not found)");
    return PY_PRESENT;
}

/* True when the reader is resolved. The first call looks; while Python is absent, the look is
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

/* ---- frame names ---------------------------------------------------------------------------- */

/* A cache slot for the pair (a, b): a multiply-xor mix, so that nearby code objects and small
 * offsets spread over the whole table (a collision costs a lookup on every allocation). */
static inline unsigned slot_of(uint64_t a, uint64_t b, unsigned n_slots)
{
    uint64_t h = (a ^ (b * 0xff51afd7ed558ccdULL)) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 29;
    return (unsigned)(h >> 17) & (n_slots - 1);
}

#define NAME_CACHE_SLOTS 4096u
/* By code object address (a hint, header). Fields are read and written with relaxed atomics:
 * any mix of two writers' values fails the checks at worst. version_id holds the code object's
 * co_version (3.12+, else 0) above the string id, in one word. */
static struct {
    uintptr_t code;
    uint64_t version_id;
} name_cache[NAME_CACHE_SLOTS];

/* The co_filename and co_name text of a code object; NULL in *file or *name when unreadable.
 * bufs hold the UTF-8 of non-ASCII ones. */
typedef struct names_s {
    const char *file, *name;
    size_t file_len, name_len;
    char file_buf[VT_STRING_MAX], name_buf[256];
} names_t;

static void read_names(const void *code, names_t *n)
{
    n->file = vt_py_str(&py.layout, vt_py_code_filename(&py.layout, code), n->file_buf,
                        sizeof n->file_buf, &n->file_len);
    n->name = vt_py_str(&py.layout, vt_py_code_name(&py.layout, code), n->name_buf,
                        sizeof n->name_buf, &n->name_len);
}

/* True when text is exactly "file:name". */
static bool text_is(const char *text, const names_t *n)
{
    return text && n->file && n->name && memcmp(text, n->file, n->file_len) == 0 &&
           text[n->file_len] == ':' && memcmp(text + n->file_len + 1, n->name, n->name_len) == 0 &&
           text[n->file_len + 1 + n->name_len] == '\0';
}

/* Appends len bytes of s to buf at *used (cap bytes in all), keeping the end of what does not
 * fit (a path's tail is what rules look at); "?" for NULL. */
static void append(char *buf, size_t cap, size_t *used, const char *s, size_t len)
{
    if (!s) {
        s = "?";
        len = 1;
    }
    size_t room = cap - *used;
    if (len > room) {
        s += len - room;
        len = room;
    }
    memcpy(buf + *used, s, len);
    *used += len;
}

/* The string id of a code object's "path/file.py:function"; 0 when out of memory. On 3.12+ a
 * slot whose address and co_version are the code object's is that very object (no two share a
 * version), whose names are immutable: its id is taken without reading them. */
static uint32_t frame_string(const void *code)
{
    unsigned k = slot_of((uint64_t)(uintptr_t)code, 0, NAME_CACHE_SLOTS);
    uint64_t version_id = __atomic_load_n(&name_cache[k].version_id, __ATOMIC_RELAXED);
    uint32_t id = (uint32_t)version_id;
    bool same_code =
        __atomic_load_n(&name_cache[k].code, __ATOMIC_RELAXED) == (uintptr_t)code && id;
    uint32_t version =
        py.layout.co_version >= 0 ? (uint32_t)vt_py_load_i32(code, py.layout.co_version) : 0;
    if (same_code && version && (uint32_t)(version_id >> 32) == version)
        return id;
    names_t n;
    read_names(code, &n);
    if (same_code && text_is(vt_string(id), &n))
        return id;
    char text[VT_STRING_MAX];
    size_t used = 0;
    append(text, sizeof text - 1 - 64, &used, n.file, n.file_len); /* room for ':' and a name */
    text[used++] = ':';
    append(text, sizeof text, &used, n.name, n.name_len);
    size_t len = strnlen(text, used); /* the text ends at a NUL byte */
    vt_track_lock();
    id = vt_string_intern(text, len);
    vt_track_unlock();
    if (id && text_is(vt_string(id), &n)) { /* not a cut or "?" text: it can be checked again */
        __atomic_store_n(&name_cache[k].code, (uintptr_t)code, __ATOMIC_RELAXED);
        __atomic_store_n(&name_cache[k].version_id, (uint64_t)version << 32 | id, __ATOMIC_RELAXED);
    }
    return id;
}

/* The chain this thread recorded last, by position from its outermost frame: a loop allocating
 * from one place meets the same code objects at the same offsets every time. On 3.12+ a code
 * object's address and co_version name that very object (frame_string), whose names and line
 * table are immutable, so an entry whose three keys match gives the frame's encoded name and line
 * exactly, without touching the shared caches (their hashing, try-lock and table compare were
 * most of the cost per frame). Before 3.12 (no version) it is not used. Only this thread reads
 * or writes it, and never re-entered: hooks called from a signal handler inside a hook do not
 * record. */
#define THREAD_CHAIN_FRAMES 64
static __thread struct {
    const void *code;
    int32_t offset;
    uint32_t version;
    uintptr_t ip;
} thread_chain[THREAD_CHAIN_FRAMES] __attribute__((tls_model("initial-exec")));

/* Fork child, with the strings forgotten: the cached ids name nothing now. Single-threaded. */
void vt_python_forget(void)
{
    memset(name_cache, 0, sizeof name_cache);
    memset(thread_chain, 0, sizeof thread_chain); /* the only thread left */
}

/* ---- frame lines ---------------------------------------------------------------------------- */

/* The line cache: a frame's line by (code object address, instruction offset), taken only when
 * the code object's first line is the cached one and its line table starts with the very bytes
 * the cached lookup read (vt_py_line_in: the same bytes give the same line), compared against a
 * copy: exact whatever object now lives at that address. Scanning a long table (a script's
 * <module> frame) per allocation cost more than the rest of the call-site together. A slot is
 * used by one thread at a time (try-lock; a busy one means an uncached lookup), so its copy can
 * be replaced in place. */
#define LINE_CACHE_SLOTS 4096u
#define LINE_COPY_MAX    16384u /* bytes of a table kept; a longer prefix is looked up each time */
typedef struct line_slot_s {
    int busy; /* atomic */
    const void *code;
    int32_t offset, first_line;
    int line;
    uint32_t used;      /* bytes of the table the lookup read */
    uint32_t table_len; /* the table's length when the lookup reached its end, else UINT32_MAX */
    uint32_t capacity;
    unsigned char *copy; /* the `used` bytes (arena) */
} line_slot_t;
static line_slot_t line_cache[LINE_CACHE_SLOTS];

static int frame_line(const void *code, int32_t offset)
{
    size_t len = 0, used = 0;
    const unsigned char *table = vt_py_linetable(&py.layout, code, &len);
    if (!table)
        return 0;
    int first_line = vt_py_first_line(&py.layout, code);
    unsigned k =
        slot_of((uint64_t)(uintptr_t)code, (uint64_t)(uint32_t)offset + 1, LINE_CACHE_SLOTS);
    if (__atomic_exchange_n(&line_cache[k].busy, 1, __ATOMIC_ACQUIRE))
        return vt_py_line_in(&py.layout, table, len, first_line, offset, &used);
    line_slot_t *slot = &line_cache[k];
    int line;
    if (slot->code == code && slot->offset == offset && slot->first_line == first_line &&
        (slot->table_len == UINT32_MAX ? len >= slot->used : len == slot->table_len) &&
        (slot->used == 0 || memcmp(slot->copy, table, slot->used) == 0)) {
        line = slot->line;
    } else {
        line = vt_py_line_in(&py.layout, table, len, first_line, offset, &used);
        if (used > slot->capacity && used <= LINE_COPY_MAX) {
            uint32_t capacity = (uint32_t)(used < 64 ? 64 : used);
            unsigned char *copy = vt_arena_alloc_unzeroed(capacity);
            if (copy) {
                if (slot->copy)
                    vt_arena_free(slot->copy, slot->capacity);
                slot->copy = copy;
                slot->capacity = capacity;
            }
        }
        if (used <= slot->capacity) {
            if (used) /* an empty prefix has no copy yet (NULL) */
                memcpy(slot->copy, table, used);
            slot->code = code;
            slot->offset = offset;
            slot->first_line = first_line;
            slot->line = line;
            slot->used = (uint32_t)used;
            slot->table_len = used == len ? (uint32_t)len : UINT32_MAX;
        } else {
            slot->code = NULL;
        }
    }
    __atomic_store_n(&slot->busy, 0, __ATOMIC_RELEASE);
    return line;
}

/* Frames looked back at for the same code object (vt_python_splice). */
#define RECENT_FRAMES 8

/* ---- splicing ------------------------------------------------------------------------------- */

static bool finalizing(void)
{
    return py.is_finalizing() != 0;
}

static int splice(void **ips, int n_native, int max_py, const void *tstate);

int vt_python_splice(void **ips, int n_native, int max_py)
{
    if (max_py <= 0 || !python_ready() || finalizing())
        return n_native;
    const void *tstate = py.this_thread_state();
    if (!tstate)
        return n_native;
    return splice(ips, n_native, max_py, tstate);
}

/* Out of line: its frame (~8 KB of arrays) is taken only in a thread that runs Python. */
__attribute__((noinline)) static int splice(void **ips, int n_native, int max_py,
                                            const void *tstate)
{
    if (max_py > VT_MAX_FRAMES - n_native) { /* the native frames leave Python half at least */
        int half = max_py < VT_MAX_FRAMES / 2 ? max_py : VT_MAX_FRAMES / 2;
        if (n_native > VT_MAX_FRAMES - half)
            n_native = VT_MAX_FRAMES - half;
        max_py = VT_MAX_FRAMES - n_native;
    }
    vt_py_frame_t frames[VT_MAX_FRAMES];
    int n_py = vt_py_walk(&py.layout, tstate, frames, max_py);
    if (n_py <= 0)
        return n_native;
    void *py_ips[VT_MAX_FRAMES];
    for (int i = 0; i < n_py; i++) {
        int from_outer = n_py - 1 - i;
        uint32_t version = 0;
        if (py.layout.co_version >= 0 && from_outer < THREAD_CHAIN_FRAMES) {
            version = (uint32_t)vt_py_load_i32(frames[i].code, py.layout.co_version);
            if (version && thread_chain[from_outer].code == frames[i].code &&
                thread_chain[from_outer].offset == frames[i].offset &&
                thread_chain[from_outer].version == version) {
                py_ips[i] = (void *)thread_chain[from_outer].ip;
                continue;
            }
        }
        /* A code object already met on this chain (recursion, nested nn.Module calls) is the
         * same live object now: its name, and its line at the same offset, are known. */
        int same = i - 1;
        while (same >= 0 && i - same <= RECENT_FRAMES && frames[same].code != frames[i].code)
            same--;
        uint64_t known =
            same >= 0 && i - same <= RECENT_FRAMES ? (uint64_t)(uintptr_t)py_ips[same] : 0;
        uint32_t id = known ? VT_PYFRAME_STRING(known) : frame_string(frames[i].code);
        if (!id)
            return n_native;
        int line = known && frames[same].offset == frames[i].offset
                       ? (int)VT_PYFRAME_LINE(known)
                       : frame_line(frames[i].code, frames[i].offset);
        py_ips[i] = (void *)(uintptr_t)VT_PYFRAME_IP(id, (uint32_t)line);
        if (version && from_outer < THREAD_CHAIN_FRAMES) {
            thread_chain[from_outer].code = frames[i].code;
            thread_chain[from_outer].offset = frames[i].offset;
            thread_chain[from_outer].version = version;
            thread_chain[from_outer].ip = (uintptr_t)py_ips[i];
        }
    }
    /* The states of other threads may have been freed while we read: then nothing of it. */
    if (finalizing())
        return n_native;

    void *out[VT_MAX_FRAMES];
    int n = 0, next_py = 0;
    for (int i = 0; i < n_native; i++) {
        uintptr_t ip = (uintptr_t)ips[i];
        if (ip >= py.eval_lo && ip < py.eval_hi) {
            while (next_py < n_py) { /* this evaluation call's frames */
                bool entry = frames[next_py].entry;
                out[n++] = py_ips[next_py++];
                if (entry)
                    break;
            }
        }
        out[n++] = ips[i];
    }
    while (next_py < n_py)
        out[n++] = py_ips[next_py++];
    memcpy(ips, out, (size_t)n * sizeof *ips);
    return n;
}

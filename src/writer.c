/* SPDX-License-Identifier: MIT */
/* The trace writer: records appended to a MAP_SHARED mapping of the trace file, one chunk at a
 * time, so that a record written is a record kept even if the process is killed a microsecond
 * later (memray's capture file does this); no system call per event. The format is
 * common/vt_format.h. Every function here runs with vt_lock held (the core's events) and is
 * AS-safe: open/flock/posix_fallocate/mmap/ftruncate, no malloc, no stdio. A failure to write
 * (unwritable directory, disk full, file size limit) stops the writer with one warning; the
 * program runs on unchanged. */
#include "vt_format.h"
#include "vt_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { W_CLOSED, W_OPEN, W_FAILED, W_DONE }; /* not opened yet, writing, given up, closed */

/* The trace's descriptor is moved to this number or above, out of the range a program's own
 * fixed numbers (shell redirections, `exec 9>lock`) and first opens use. */
#define TRACE_FD_MIN 100

static struct writer_s {
    int state;
    int fd;
    dev_t dev;    /* the file the claim took: w.fd must still be it before every extend, map and */
    ino_t ino;    /* trim, or the program closed or reused the number and the file is its own */
    bool partial; /* stopped because the descriptor was no longer the trace's */
    pid_t pid;
    uint8_t *chunk; /* the mapping of [chunk_off, chunk_off + VT_FORMAT_CHUNK_BYTES) */
    uint64_t chunk_off;
    size_t pos;         /* next byte within the chunk */
    uint64_t last_t_ns; /* time of the previous event */
    uint64_t last_addr; /* address of the previous ALLOC or FREE */
    uint32_t strings_emitted, stacks_emitted, n_threads, generation;
    unsigned modules_emitted;
    uint64_t last_chunk_off; /* VRAMTRACE_MAX_SIZE: the last chunk allowed; UINT64_MAX: none */
    bool capped;             /* the limit was reached: only OOM, PEAK and END from now on */
    uint32_t cur_thread;     /* compact records: the current thread (vt_format.h) */
    char path[4096];
    char shown[1024]; /* path escaped for messages (vt_escape) */
} w = {.fd = -1, .last_chunk_off = UINT64_MAX};

/* Which trace a thread's number belongs to: a new file (fork child) numbers threads anew. With
 * it, the thread's context as the compact records left it (vt_format.h): its device and apis. */
static __thread struct {
    uint32_t generation;
    uint32_t index;
    uint32_t device, alloc_api, free_api;
} tls_thread __attribute__((tls_model("initial-exec")));

/* ---- the state of the compact records (format 1.2) ----------------------------------------- */

/* What a reader replays (vt_format.h): the stack cache and the live slots. A live allocation's
 * slot is kept in its live entry (vt_alloc_t.trace_slot), so a FREE finds it without a lookup;
 * the writer keeps which slots are live (a FREE of any other slot is written in full, so the
 * trace stays valid whatever it is handed), the released ones, and the live ones in the order of
 * their ALLOCs (a list both ways), so that a FREE of the newest says so instead of its slot. One anonymous mapping per
 * trace, made when the trace is opened (no allocation per event), its pages touched as they are
 * used. Without it (mmap failed) every event is written in its full form. */
#define NO_SLOT   UINT32_MAX
#define SLOT_LIVE (UINT32_MAX - 1) /* slot_next of a slot in use */

typedef struct cache_entry_s {
    uint64_t address, size_bytes;
    uint8_t flags;
} cache_entry_t;

typedef struct compact_s {
    cache_entry_t cache[VT_FORMAT_STACK_CACHE];
    uint32_t slot_next[VT_FORMAT_SLOTS]; /* released: the next one down the stack; SLOT_LIVE */
    uint32_t older[VT_FORMAT_SLOTS];     /* live: the live slot allocated before it, or NO_SLOT */
    uint32_t newer[VT_FORMAT_SLOTS];     /* live: the one allocated after it, or NO_SLOT */
    uint32_t n_slots;                    /* slots ever used: the next new one */
    uint32_t free_top;                   /* the last released slot, or NO_SLOT */
    uint32_t newest;                     /* the live slot allocated last, or NO_SLOT */
} compact_t;

static compact_t *cw;

static void compact_open(void)
{
    if (cw)
        munmap(cw, sizeof *cw);
    void *p = mmap(NULL, sizeof *cw, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cw = p == MAP_FAILED ? NULL : p;
    if (cw)
        cw->free_top = cw->newest = NO_SLOT;
}

/* ---- opening ----------------------------------------------------------------------------- */

/* Takes path for this process: created 0600 if absent, never through a symbolic link, only a
 * regular file of ours, only when no live process holds it (the owner keeps an exclusive flock
 * for its lifetime) and only when it is empty: a file that holds a trace, of a finished run or
 * of an earlier image of this very pid (exec drops the lock), is never truncated. Returns the
 * fd, moved to TRACE_FD_MIN or above, or -errno (-EBUSY: a live process owns it; -EEXIST: it
 * holds a trace). */
static int claim(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    struct stat st;
    int err = 0;
    if (fstat(fd, &st) != 0)
        err = errno;
    else if (!S_ISREG(st.st_mode) || st.st_uid != geteuid())
        err = EPERM;
    else if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        err = errno == EWOULDBLOCK ? EBUSY : errno;
    else if (fstat(fd, &st) != 0) /* the size now that nobody else can claim it */
        err = errno;
    else if (st.st_size != 0)
        err = EEXIST;
    else if ((st.st_mode & 07777) != 0600 && fchmod(fd, 0600) != 0)
        err = errno; /* an empty claim of ours made 0644 by a copy: the new events are ours only */
    if (err) {
        close(fd);
        return -err;
    }
    int high = fcntl(fd, F_DUPFD_CLOEXEC, TRACE_FD_MIN);
    if (high >= 0) { /* the duplicate shares the open file and its lock */
        close(fd);
        fd = high;
    }
    w.dev = st.st_dev;
    w.ino = st.st_ino;
    return fd;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Names tried for one process before giving up: FILE.<pid>.vtr, then FILE.<pid>.<n>.vtr. */
#define MAX_NAMES 1000

/* The naming of docs/design.md, "Output naming": VRAMTRACE_OUTPUT=FILE.vtr is exactly the file
 * of the first process of the tree that records (the traced command), when FILE.vtr is absent
 * or empty; any other process, or FILE.vtr holding a trace already, writes FILE.<pid>.vtr
 * beside it, and when that holds a trace too (an earlier image of this pid, before an exec, or
 * a stale trace of a reused pid) FILE.<pid>.1.vtr, FILE.<pid>.2.vtr, ... A value without .vtr
 * is a prefix: PREFIX.<pid>.vtr and so on. A character device (/dev/null) means no trace:
 * -ENODEV. */
static int open_trace(void)
{
    const char *out = vt_option_get_str(VT_OPTION_OUTPUT);
    if (!out || !*out)
        out = "vramtrace";
    struct stat st;
    if (stat(out, &st) == 0 && S_ISCHR(st.st_mode)) {
        vt_fmt(w.path, sizeof w.path, "%s", out);
        return -ENODEV;
    }
    size_t stem_len = strlen(out);
    int fd = -ENOENT;
    if (ends_with(out, ".vtr")) {
        stem_len -= 4;
        if (vt_fmt(w.path, sizeof w.path, "%s", out) < sizeof w.path) {
            fd = claim(w.path);
            if (fd >= 0 || (fd != -EBUSY && fd != -EEXIST))
                return fd;
        }
    }
    for (int n = 0; n < MAX_NAMES; n++) {
        size_t len =
            n ? vt_fmt(w.path, sizeof w.path, "%.*s.%d.%d.vtr", (int)stem_len, out, (int)getpid(),
                       n)
              : vt_fmt(w.path, sizeof w.path, "%.*s.%d.vtr", (int)stem_len, out, (int)getpid());
        if (len >= sizeof w.path)
            return -ENAMETOOLONG;
        fd = claim(w.path);
        if (fd >= 0 || (fd != -EBUSY && fd != -EEXIST))
            return fd;
    }
    return fd;
}

/* True when w.fd is still the file the claim took: a program that closes its descriptors
 * (closefrom, daemonizing code) may have given the number to a file of its own. */
static bool fd_is_trace(void)
{
    struct stat st;
    return w.fd >= 0 && fstat(w.fd, &st) == 0 && st.st_dev == w.dev && st.st_ino == w.ino;
}

/* The descriptor is no longer the trace's: recording stops with one warning, and the number,
 * now the program's, is neither written, extended, trimmed nor closed. What the mappings
 * received stays in the file. */
static void lost_descriptor(void)
{
    vt_warn("stopped: the program closed or reused the trace's descriptor (%d); the partial "
            "trace is '%s'",
            w.fd, w.shown);
    if (w.chunk)
        munmap(w.chunk, VT_FORMAT_CHUNK_BYTES);
    w.chunk = NULL;
    w.fd = -1;
    w.partial = true;
    w.state = W_FAILED;
}

static void fail(const char *what, int err)
{
    vt_cancel_hold();
    vt_warn("disabled: cannot write '%s': %s%s%s", w.shown, what, err ? ": " : "",
            err ? strerror(err) : "");
    if (w.chunk)
        munmap(w.chunk, VT_FORMAT_CHUNK_BYTES);
    if (w.fd >= 0)
        close(w.fd);
    w.chunk = NULL;
    w.fd = -1;
    w.state = W_FAILED;
}

/* Maps the chunk at off, after making the file long enough and its blocks allocated: writing
 * into a shared mapping of a hole on a full disk would kill the host with SIGBUS, and growing
 * past RLIMIT_FSIZE with SIGXFSZ. */
static bool map_chunk(uint64_t off)
{
    vt_cancel_hold();        /* posix_fallocate, a failure's close: cancellation points */
    if (w.pid != getpid()) { /* a fork child inside the writer: never the parent's file */
        w.state = W_FAILED;
        return false;
    }
    if (!fd_is_trace()) {
        lost_descriptor();
        return false;
    }
    struct rlimit lim;
    if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
        off + VT_FORMAT_CHUNK_BYTES > lim.rlim_cur) {
        fail("the file size limit (RLIMIT_FSIZE) is reached", 0);
        return false;
    }
    int err = posix_fallocate(w.fd, (off_t)off, VT_FORMAT_CHUNK_BYTES);
    if (err) {
        fail("cannot extend the file", err);
        return false;
    }
    if (w.chunk)
        munmap(w.chunk, VT_FORMAT_CHUNK_BYTES);
    void *p =
        mmap(NULL, VT_FORMAT_CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, w.fd, (off_t)off);
    if (p == MAP_FAILED) {
        w.chunk = NULL;
        fail("cannot map the file", errno);
        return false;
    }
    w.chunk = p;
    w.chunk_off = off;
    w.pos = 0;
    return true;
}

/* ---- records ----------------------------------------------------------------------------- */

/* Publishes a record whose body is in place: the type byte last (vt_format.h). */
static void commit(uint8_t *rec, vt_record_type_t type, size_t body_len)
{
    __atomic_store_n(rec, (uint8_t)type, __ATOMIC_RELEASE);
    w.pos += 1 + body_len;
}

/* Bytes of the last allowed chunk kept for the records that matter most once the limit is
 * reached: OOMs, the peaks and END. */
#define CRITICAL_RESERVE_BYTES (64u << 10)

/* The CAPPED extension record: written once, when the limit is reached. */
static void put_capped_record(void)
{
    uint8_t body[10];
    size_t body_len = vt_put_varint(body, w.last_chunk_off + VT_FORMAT_CHUNK_BYTES);
    uint8_t *rec = w.chunk + w.pos;
    size_t b = 1 + vt_put_varint(rec + 1, body_len);
    memcpy(rec + b, body, body_len);
    commit(rec, VT_REC_CAPPED, b - 1 + body_len);
}

/* Room for a record of at most max_body bytes after its type byte; moves to the next chunk
 * (leaving a SKIP record) when this one is too full. Past VRAMTRACE_MAX_SIZE only critical
 * records get room (from a reserve at the end of the last chunk). NULL when there is none or
 * the writer has failed. */
static uint8_t *reserve_for(size_t max_body, bool critical)
{
    bool last = w.chunk_off >= w.last_chunk_off;
    size_t limit = VT_FORMAT_CHUNK_BYTES - (last && !critical ? CRITICAL_RESERVE_BYTES : 0);
    if (w.capped && !critical)
        return NULL;
    if (last && w.pos + 1 + max_body > limit) {
        if (!w.capped && w.pos + 1 + 1 + 10 <= VT_FORMAT_CHUNK_BYTES) {
            w.capped = true;
            put_capped_record();
            vt_log(1, "'%s' reached VRAMTRACE_MAX_SIZE: events from now on are summarized",
                   w.shown);
        }
        return critical && w.pos + 1 + max_body <= VT_FORMAT_CHUNK_BYTES ? w.chunk + w.pos : NULL;
    }
    if (w.pos + 1 + max_body > VT_FORMAT_CHUNK_BYTES) {
        __atomic_store_n(&w.chunk[w.pos], (uint8_t)VT_REC_SKIP, __ATOMIC_RELEASE);
        if (!map_chunk(w.chunk_off + VT_FORMAT_CHUNK_BYTES))
            return NULL;
    }
    return w.chunk + w.pos;
}

static uint8_t *reserve(size_t max_body)
{
    return reserve_for(max_body, false);
}

static bool put_string_record(const char *s, size_t len)
{
    uint8_t *rec = reserve(10 + len);
    if (!rec)
        return false;
    size_t n = 1 + vt_put_varint(rec + 1, len);
    memcpy(rec + n, s, len);
    commit(rec, VT_REC_STRING, n - 1 + len);
    return true;
}

/* Everything interned since the last record: strings first (modules and Python frames name
 * them), then modules, then stack nodes (each after its parent). */
static bool nothing_pending(void)
{
    return vt_modules_count() == w.modules_emitted && vt_string_count() == w.strings_emitted &&
           vt_stack_count() == w.stacks_emitted;
}

static void emit_pending(void)
{
    if (w.capped || nothing_pending())
        return;
    unsigned n_modules = vt_modules_count();
    for (unsigned i = w.modules_emitted; i < n_modules; i++)
        vt_string_intern(vt_module(i)->path, strlen(vt_module(i)->path));
    for (uint32_t id = w.strings_emitted + 1; id <= vt_string_count() && w.state == W_OPEN; id++) {
        const char *s = vt_string(id);
        if (!put_string_record(s, strlen(s)))
            return; /* capped or failed: what is not written is not counted as emitted */
        w.strings_emitted = id;
    }
    for (unsigned i = w.modules_emitted; i < n_modules && w.state == W_OPEN; i++) {
        const vt_module_t *m = vt_module(i);
        uint8_t *rec = reserve(5 * 10 + m->build_id_len);
        if (!rec)
            return;
        size_t n = 1;
        n += vt_put_varint(rec + n, m->base);
        n += vt_put_varint(rec + n, m->lo);
        n += vt_put_varint(rec + n, m->hi);
        n += vt_put_varint(rec + n, vt_string_intern(m->path, strlen(m->path)));
        n += vt_put_varint(rec + n, m->build_id_len);
        memcpy(rec + n, m->build_id, m->build_id_len);
        commit(rec, VT_REC_MODULE, n - 1 + m->build_id_len);
        w.modules_emitted = i + 1;
    }
    uint32_t n_nodes = vt_stack_count();
    for (uint32_t id = w.stacks_emitted + 1; id <= n_nodes && w.state == W_OPEN; id++) {
        const vt_stack_node_t *node = vt_stack_node(id);
        uint32_t parent = vt_stack_node_parent(node);
        uint64_t parent_ip = parent ? vt_stack_node_ip(vt_stack_node(parent)) : 0;
        uint8_t *rec = reserve(20);
        if (!rec)
            return;
        size_t n = 1;
        n += vt_put_varint(rec + n, parent);
        n += vt_put_svarint(rec + n, (int64_t)(vt_stack_node_ip(node) - parent_ip));
        commit(rec, VT_REC_STACK, n - 1);
        w.stacks_emitted = id;
    }
}

/* The PROCESS record: who this trace is of. */
static void put_process_record(void)
{
    /* Environment variables that say which rank a process is and how its allocator is set. */
    static const char *const env_keys[] = {
        "RANK",
        "LOCAL_RANK",
        "WORLD_SIZE",
        "SLURM_PROCID",
        "OMPI_COMM_WORLD_RANK",
        "CUDA_VISIBLE_DEVICES",
        "PYTORCH_CUDA_ALLOC_CONF",
        "PYTORCH_NO_CUDA_MEMORY_CACHING",
        "XLA_PYTHON_CLIENT_PREALLOCATE",
        "XLA_PYTHON_CLIENT_ALLOCATOR",
        "XLA_PYTHON_CLIENT_MEM_FRACTION",
        "TF_FORCE_GPU_ALLOW_GROWTH",
    };
    enum { MAX_PAIRS = 20 }; /* pid, ppid, host, exe, cmdline and the variables above */
    uint32_t keys[MAX_PAIRS], values[MAX_PAIRS];
    unsigned n = 0;
    char buf[1024];
#define PAIR(k, text, len)                                                                         \
    do {                                                                                           \
        keys[n] = vt_string_intern(k, strlen(k));                                                  \
        values[n++] = vt_string_intern(text, len);                                                 \
    } while (0)
    size_t len = vt_fmt(buf, sizeof buf, "%d", (int)getpid());
    PAIR("pid", buf, len);
    len = vt_fmt(buf, sizeof buf, "%d", (int)getppid());
    PAIR("ppid", buf, len);
    if (gethostname(buf, sizeof buf) == 0) {
        buf[sizeof buf - 1] = '\0';
        PAIR("host", buf, strlen(buf));
    }
    ssize_t got = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (got > 0)
        PAIR("exe", buf, (size_t)got);
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        got = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (got > 0) {
            for (ssize_t i = 0; i < got; i++)
                if (buf[i] == '\0')
                    buf[i] = ' ';
            while (got > 0 && buf[got - 1] == ' ')
                got--;
            PAIR("cmdline", buf, (size_t)got);
        }
    }
    for (size_t k = 0; k < sizeof env_keys / sizeof env_keys[0] && n < MAX_PAIRS; k++) {
        size_t key_len = strlen(env_keys[k]);
        for (char **e = environ; e && *e; e++) {
            if (strncmp(*e, env_keys[k], key_len) == 0 && (*e)[key_len] == '=') {
                PAIR(env_keys[k], *e + key_len + 1, strlen(*e + key_len + 1));
                break;
            }
        }
    }
#undef PAIR
    emit_pending();
    uint8_t *rec = reserve(3 * 10 + 2 * 10 * MAX_PAIRS);
    if (!rec)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    size_t b = 1;
    b += vt_put_varint(rec + b, w.last_t_ns);
    b += vt_put_varint(rec + b, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
    b += vt_put_varint(rec + b, n);
    for (unsigned i = 0; i < n; i++) {
        b += vt_put_varint(rec + b, keys[i]);
        b += vt_put_varint(rec + b, values[i]);
    }
    commit(rec, VT_REC_PROCESS, b - 1);
}

/* The API_NAMES record: the names of the api numbers events carry. */
static void put_api_names_record(void)
{
    uint32_t ids[VT_API_COUNT];
    for (int api = 0; api < VT_API_COUNT; api++)
        ids[api] = vt_string_intern(vt_api_name((vt_api_t)api), strlen(vt_api_name((vt_api_t)api)));
    emit_pending();
    uint8_t *rec = reserve(10 + 10 * VT_API_COUNT);
    if (!rec)
        return;
    size_t b = 1 + vt_put_varint(rec + 1, VT_API_COUNT);
    for (int api = 0; api < VT_API_COUNT; api++)
        b += vt_put_varint(rec + b, ids[api]);
    commit(rec, VT_REC_API_NAMES, b - 1);
}

/* Opens this process's trace on its first event. False when the writer cannot write. */
static bool ready(void)
{
    if (VT_LIKELY(w.state == W_OPEN))
        return true;
    /* Only a traced process writes: not one that is OFF (disabled, exiting), nor a test
     * program that calls the core without initialising the library. */
    if (w.state != W_CLOSED || !vt_is_on())
        return false;
    vt_cancel_hold(); /* open, stat, readlink, read: cancellation points */
    int fd = open_trace();
    vt_escape(w.shown, sizeof w.shown, w.path);
    if (fd == -ENODEV) {
        vt_log(1, "'%s' is a device: no trace", w.shown);
        w.state = W_FAILED;
        return false;
    }
    if (fd < 0) {
        fail("cannot create it", -fd);
        return false;
    }
    w.fd = fd;
    w.pid = getpid();
    w.state = W_OPEN;
    /* VRAMTRACE_MAX_SIZE in whole chunks, at least two (the first holds the tables). */
    uint64_t max_bytes = (uint64_t)vt_option_get(VT_OPTION_MAX_SIZE);
    w.last_chunk_off = UINT64_MAX;
    if (max_bytes) {
        uint64_t n_chunks = max_bytes / VT_FORMAT_CHUNK_BYTES;
        w.last_chunk_off = (n_chunks < 2 ? 1 : n_chunks - 1) * (uint64_t)VT_FORMAT_CHUNK_BYTES;
    }
    w.generation++;
    w.cur_thread = 0;
    if (!map_chunk(0))
        return false;
    compact_open();
    memcpy(w.chunk, VT_FORMAT_MAGIC, VT_FORMAT_MAGIC_BYTES);
    uint16_t version[2] = {VT_FORMAT_MAJOR, VT_FORMAT_MINOR};
    memcpy(w.chunk + VT_FORMAT_MAGIC_BYTES, version, sizeof version);
    w.pos = VT_FORMAT_PREAMBLE_BYTES;
    w.last_t_ns = vt_now_ns();
    put_process_record();
    put_api_names_record();
    vt_log(1, "writing '%s'", w.shown);
    return w.state == W_OPEN;
}

/* This thread's number in the trace, announcing it with a THREAD record the first time. */
static uint32_t thread_index(void)
{
    if (tls_thread.generation == w.generation)
        return tls_thread.index;
    char name[16] = "";
    prctl(PR_GET_NAME, name);
    uint32_t name_id = vt_string_intern(name, strnlen(name, sizeof name));
    emit_pending();
    uint8_t *rec = reserve(30);
    if (!rec)
        return 0;
    uint32_t index = ++w.n_threads;
    size_t b = 1;
    b += vt_put_varint(rec + b, index);
    b += vt_put_varint(rec + b, (uint64_t)syscall(SYS_gettid));
    b += vt_put_varint(rec + b, name_id);
    commit(rec, VT_REC_THREAD, b - 1);
    tls_thread.generation = w.generation;
    tls_thread.index = index;
    tls_thread.device = tls_thread.alloc_api = tls_thread.free_api = 0;
    return index;
}

/* The general start of an event record: opens the trace, writes pending tables, announces the
 * thread, moves to the next chunk. Out of line: event_begin_for's own test passes on almost
 * every event. */
__attribute__((noinline)) static uint8_t *event_begin_slow(size_t max_body, uint32_t *thread,
                                                           bool critical)
{
    if (!ready() || (w.capped && !critical))
        return NULL;
    emit_pending();
    /* Past the limit a new thread cannot be announced: its events say thread 0 (unknown). */
    *thread = w.capped && tls_thread.generation != w.generation ? 0 : thread_index();
    return w.state == W_OPEN ? reserve_for(10 + max_body, critical) : NULL;
}

/* Starts an event record: pending tables, the thread, then the type byte's place and the
 * time delta. t_ns earlier than the previous event (taken before vt_lock) is clamped so the
 * deltas stay non-negative. Returns the record, with *b the body length so far. Inline in
 * each event: the usual case is one test. */
static inline __attribute__((always_inline)) uint8_t *
event_begin_for(uint64_t t_ns, size_t max_body, size_t *b, uint32_t *thread, bool critical)
{
    uint8_t *rec;
    /* The usual case in one test, which the general path would reach too: open, not capped,
     * this thread announced, nothing pending, room in this chunk even for an ordinary record of
     * the last chunk. */
    size_t limit = VT_FORMAT_CHUNK_BYTES -
                   (w.chunk_off >= w.last_chunk_off ? (size_t)CRITICAL_RESERVE_BYTES : 0);
    if (VT_LIKELY(w.state == W_OPEN && !w.capped && tls_thread.generation == w.generation &&
                  w.pos + 1 + 10 + max_body <= limit && nothing_pending())) {
        *thread = tls_thread.index;
        rec = w.chunk + w.pos;
    } else {
        rec = event_begin_slow(max_body, thread, critical);
        if (!rec)
            return NULL;
    }
    if (t_ns < w.last_t_ns)
        t_ns = w.last_t_ns;
    *b = 1 + vt_put_varint(rec + 1, t_ns - w.last_t_ns);
    w.last_t_ns = t_ns;
    return rec;
}

static inline __attribute__((always_inline)) uint8_t *event_begin(uint64_t t_ns, size_t max_body,
                                                                  size_t *b, uint32_t *thread)
{
    return event_begin_for(t_ns, max_body, b, thread, false);
}

static unsigned put_address(uint8_t *p, uint64_t addr)
{
    unsigned n = vt_put_svarint(p, (int64_t)(addr - w.last_addr));
    w.last_addr = addr;
    return n;
}

/* ---- the events (vt_lock held) --------------------------------------------------------------- */

/* A compact ALLOC (vt_format.h) when the state allows it: a slot free, the thread known, the
 * size and address codable when the stack cache does not have them; the slot taken goes to
 * a->trace_slot. False, having written nothing, otherwise. */
static inline bool put_compact_alloc(uint8_t *rec, size_t b, uint32_t thread, vt_alloc_t *a,
                                     uint8_t flags)
{
    if (!cw || !thread || (cw->free_top == NO_SLOT && cw->n_slots == VT_FORMAT_SLOTS))
        return false;
    unsigned bits = 0;
    uint64_t size_code = 0, address_code = 0;
    uint32_t stack_id = a->stack_id;
    cache_entry_t *entry = &cw->cache[stack_id & (VT_FORMAT_STACK_CACHE - 1)];
    if (entry->flags == flags)
        bits |= VT_ALLOC_C_SAME_FLAGS;
    if (entry->size_bytes == a->size_bytes)
        bits |= VT_ALLOC_C_SAME_SIZE;
    else if (!vt_size_code(a->size_bytes, &size_code))
        return false;
    if (entry->address == a->key)
        bits |= VT_ALLOC_C_SAME_ADDRESS;
    else if (!vt_address_code(a->key, w.last_addr, &address_code))
        return false;
    if (thread != w.cur_thread) {
        bits |= VT_ALLOC_C_THREAD;
        b += vt_put_varint(rec + b, thread);
        w.cur_thread = thread;
    }
    if ((uint32_t)a->device != tls_thread.device || a->api != tls_thread.alloc_api) {
        bits |= VT_ALLOC_C_CONTEXT;
        b += vt_put_varint(rec + b, (uint32_t)a->device);
        b += vt_put_varint(rec + b, a->api);
        tls_thread.device = (uint32_t)a->device;
        tls_thread.alloc_api = a->api;
    }
    b += vt_put_varint(rec + b, stack_id);
    if (!(bits & VT_ALLOC_C_SAME_FLAGS))
        rec[b++] = flags;
    if (!(bits & VT_ALLOC_C_SAME_SIZE))
        b += vt_put_varint(rec + b, size_code);
    if (!(bits & VT_ALLOC_C_SAME_ADDRESS))
        b += vt_put_varint(rec + b, address_code);
    entry->flags = flags;
    entry->size_bytes = a->size_bytes;
    entry->address = a->key;
    w.last_addr = a->key;

    uint32_t slot = cw->free_top;
    if (slot != NO_SLOT)
        cw->free_top = cw->slot_next[slot];
    else
        slot = cw->n_slots++;
    cw->slot_next[slot] = SLOT_LIVE;
    cw->older[slot] = cw->newest;
    cw->newer[slot] = NO_SLOT;
    if (cw->newest != NO_SLOT)
        cw->newer[cw->newest] = slot;
    cw->newest = slot;
    a->trace_slot = slot + 1;
    commit(rec, (vt_record_type_t)(VT_REC_ALLOC_C + bits), b - 1);
    return true;
}

void vt_writer_alloc(vt_alloc_t *a, bool implicit)
{
    size_t b;
    uint32_t thread;
    uint8_t *rec = event_begin(a->t_ns, 70, &b, &thread);
    if (!rec)
        return;
    uint8_t flags =
        (uint8_t)((unsigned)a->series & VT_FLAG_SERIES_MASK) | (uint8_t)((a->category & 7u) << 2) |
        (a->space == VT_SPACE_VMM_HANDLE ? VT_FLAG_HANDLE : 0) | (implicit ? VT_FLAG_IMPLICIT : 0);
    if (VT_LIKELY(put_compact_alloc(rec, b, thread, a, flags)))
        return;
    rec[b++] = flags;
    b += vt_put_varint(rec + b, (uint64_t)a->device);
    b += vt_put_varint(rec + b, a->api);
    b += put_address(rec + b, a->key);
    b += vt_put_varint(rec + b, a->size_bytes);
    b += vt_put_varint(rec + b, a->stack_id);
    b += vt_put_varint(rec + b, thread);
    commit(rec, VT_REC_ALLOC, b - 1);
}

/* A compact FREE (vt_format.h) of the allocation in live slot trace_slot - 1 (0: none) when the
 * thread is known. False, having written nothing, otherwise. */
static inline bool put_compact_free(uint8_t *rec, size_t b, uint32_t thread, uint32_t trace_slot,
                                    uint64_t key, uint8_t flags, vt_api_t api)
{
    uint32_t slot = trace_slot - 1;
    if (!cw || !thread || !trace_slot || slot >= cw->n_slots || cw->slot_next[slot] != SLOT_LIVE)
        return false;
    unsigned bits = 0;
    if (thread != w.cur_thread) {
        bits |= VT_FREE_C_THREAD;
        b += vt_put_varint(rec + b, thread);
        w.cur_thread = thread;
    }
    if (flags || (uint32_t)api != tls_thread.free_api) {
        bits |= VT_FREE_C_EXPLICIT;
        rec[b++] = flags;
        b += vt_put_varint(rec + b, (uint32_t)api);
        tls_thread.free_api = (uint32_t)api;
    }
    uint32_t older = cw->older[slot], newer = cw->newer[slot];
    if (slot == cw->newest)
        bits |= VT_FREE_C_NEWEST;
    else
        b += vt_put_varint(rec + b, slot);
    if (older != NO_SLOT)
        cw->newer[older] = newer;
    if (newer != NO_SLOT)
        cw->older[newer] = older;
    else
        cw->newest = older;
    cw->slot_next[slot] = cw->free_top;
    cw->free_top = slot;
    w.last_addr = key;
    commit(rec, (vt_record_type_t)(VT_REC_FREE_C + bits), b - 1);
    return true;
}

/* A free of key in series (a VMM handle when handle), unmatched when this process never saw it
 * allocated, implicit when no free call of the program made it (vt_format.h), at t_ns (read
 * before vt_lock, like an allocation's time, so the lock is not held across a clock read);
 * trace_slot: its entry's (vt_alloc_t.trace_slot; 0: none). */
void vt_writer_free_at(uint64_t t_ns, int series, uint64_t key, bool handle, bool unmatched,
                       bool implicit, vt_api_t api, uint32_t trace_slot)
{
    size_t b;
    uint32_t thread;
    uint8_t *rec = event_begin(t_ns, 40, &b, &thread);
    if (!rec)
        return;
    if (VT_LIKELY(put_compact_free(
            rec, b, thread, trace_slot, key,
            (uint8_t)((unmatched ? VT_FLAG_UNMATCHED : 0) | (implicit ? VT_FLAG_IMPLICIT : 0)),
            api)))
        return;
    rec[b++] =
        (uint8_t)(((unsigned)series & VT_FLAG_SERIES_MASK) | (unmatched ? VT_FLAG_UNMATCHED : 0) |
                  (handle ? VT_FLAG_HANDLE : 0) | (implicit ? VT_FLAG_IMPLICIT : 0));
    b += vt_put_varint(rec + b, api);
    b += put_address(rec + b, key);
    b += vt_put_varint(rec + b, thread);
    commit(rec, VT_REC_FREE, b - 1);
}

void vt_writer_free(int series, uint64_t key, bool handle, bool unmatched, bool implicit,
                    vt_api_t api, uint32_t trace_slot)
{
    vt_writer_free_at(vt_now_ns(), series, key, handle, unmatched, implicit, api, trace_slot);
}

void vt_writer_failed(vt_api_t api, uint64_t requested_bytes, int error, uint32_t stack_id)
{
    size_t b;
    uint32_t thread;
    uint8_t *rec = event_begin(vt_now_ns(), 50, &b, &thread);
    if (!rec)
        return;
    b += vt_put_varint(rec + b, api);
    b += vt_put_varint(rec + b, requested_bytes);
    b += vt_put_varint(rec + b, (uint64_t)(unsigned)error);
    b += vt_put_varint(rec + b, stack_id);
    b += vt_put_varint(rec + b, thread);
    commit(rec, VT_REC_FAILED, b - 1);
}

void vt_writer_oom(int device, vt_api_t api, uint64_t requested_bytes, uint32_t stack_id,
                   uint64_t free_bytes, uint64_t total_bytes, const uint64_t live[VT_CAT_COUNT])
{
    size_t b;
    uint32_t thread;
    uint8_t *rec = event_begin_for(vt_now_ns(), 10 * (7 + VT_CAT_COUNT), &b, &thread, true);
    if (!rec)
        return;
    b += vt_put_varint(rec + b, (uint64_t)device);
    b += vt_put_varint(rec + b, api);
    b += vt_put_varint(rec + b, requested_bytes);
    /* Past the limit a new stack cannot be written: the OOM then has no call-site. */
    b += vt_put_varint(rec + b, stack_id <= w.stacks_emitted ? stack_id : 0);
    b += vt_put_varint(rec + b, thread);
    b += vt_put_varint(rec + b, free_bytes);
    b += vt_put_varint(rec + b, total_bytes);
    for (int c = 0; c < VT_CAT_COUNT; c++)
        b += vt_put_varint(rec + b, live[c]);
    commit(rec, VT_REC_OOM, b - 1);
}

void vt_writer_meminfo(int device, uint64_t free_bytes, uint64_t total_bytes)
{
    size_t b;
    uint32_t thread;
    uint8_t *rec = event_begin(vt_now_ns(), 30, &b, &thread);
    if (!rec)
        return;
    b += vt_put_varint(rec + b, (uint64_t)device);
    b += vt_put_varint(rec + b, free_bytes);
    b += vt_put_varint(rec + b, total_bytes);
    commit(rec, VT_REC_MEMINFO, b - 1);
}

/* A string-carrying event of this thread: PHASE_PUSH or MARK. */
void vt_writer_labelled(vt_record_type_t type, const char *label)
{
    /* A process that has not touched CUDA gets no file for its marks or phases. */
    if (w.state != W_OPEN && !vt_cuda_used())
        return;
    if (!ready())
        return;
    uint32_t id = vt_string_intern(label ? label : "", label ? strnlen(label, VT_STRING_MAX) : 0);
    size_t b;
    uint32_t thread;
    uint8_t *rec = event_begin(vt_now_ns(), 20, &b, &thread);
    if (!rec)
        return;
    b += vt_put_varint(rec + b, thread);
    b += vt_put_varint(rec + b, id);
    commit(rec, type, b - 1);
}

void vt_writer_phase_pop(void)
{
    if (w.state != W_OPEN)
        return; /* nothing recorded yet: the pop of a phase the trace never saw */
    size_t b;
    uint32_t thread;
    uint8_t *rec = event_begin(vt_now_ns(), 10, &b, &thread);
    if (!rec)
        return;
    b += vt_put_varint(rec + b, thread);
    commit(rec, VT_REC_PHASE_POP, b - 1);
}

bool vt_writer_capped(void)
{
    return w.capped && w.state == W_OPEN && w.pid == getpid();
}

/* A PEAK extension record: the library's own peak of (series, device), written at exit when
 * the trace was capped so the peak survives the cap. */
void vt_writer_peak(int series, int device, uint64_t peak_bytes, uint64_t peak_t_ns,
                    const uint64_t by_category[VT_CAT_COUNT], uint64_t pool_spare_bytes,
                    uint64_t tensors_peak_bytes, uint64_t pool_reserved_peak_bytes)
{
    if (!vt_writer_capped())
        return;
    uint8_t body[10 * (7 + VT_CAT_COUNT)];
    size_t n = 0;
    n += vt_put_varint(body + n, (uint64_t)series);
    n += vt_put_varint(body + n, (uint64_t)device);
    n += vt_put_varint(body + n, peak_bytes);
    n += vt_put_varint(body + n, peak_t_ns);
    for (int c = 0; c < VT_CAT_COUNT; c++)
        n += vt_put_varint(body + n, by_category ? by_category[c] : 0);
    if (series == VT_SERIES_DEVICE) {
        n += vt_put_varint(body + n, pool_spare_bytes);
        n += vt_put_varint(body + n, tensors_peak_bytes);
        n += vt_put_varint(body + n, pool_reserved_peak_bytes);
    }
    uint8_t *rec = reserve_for(10 + n, true);
    if (!rec)
        return;
    size_t b = 1 + vt_put_varint(rec + 1, n);
    memcpy(rec + b, body, n);
    commit(rec, VT_REC_PEAK, b - 1 + n);
}

/* An INFLIGHT extension record: device's live bytes are about to fall while inflight_bytes of
 * allocation calls are in flight (track.c count_inflight). */
void vt_writer_inflight(int device, uint64_t inflight_bytes)
{
    if (!ready())
        return;
    uint8_t body[20];
    size_t n = vt_put_varint(body, (uint64_t)device);
    n += vt_put_varint(body + n, inflight_bytes);
    uint8_t *rec = reserve(10 + n);
    if (!rec)
        return;
    size_t b = 1 + vt_put_varint(rec + 1, n);
    memcpy(rec + b, body, n);
    commit(rec, VT_REC_INFLIGHT, b - 1 + n);
}

/* A POOL record (format 1.4): one sample of a stream-ordered pool. */
void vt_writer_pool(int device, uint32_t pool, uint64_t t_ns, const uint64_t figures[4])
{
    if (!ready())
        return;
    uint8_t body[70];
    size_t n = vt_put_varint(body, t_ns);
    n += vt_put_varint(body + n, (uint64_t)device);
    n += vt_put_varint(body + n, pool);
    for (int i = 0; i < 4; i++)
        n += vt_put_varint(body + n, figures[i]);
    uint8_t *rec = reserve(10 + n);
    if (!rec)
        return;
    size_t b = 1 + vt_put_varint(rec + 1, n);
    memcpy(rec + b, body, n);
    commit(rec, VT_REC_POOL, b - 1 + n);
}

/* The DEVICE record of a device (name and capacity), and a DEVICE_IDS extension record when
 * the driver told its UUID or PCI bus id. */
void vt_writer_device(int device, const vt_device_info_t *info)
{
    if (!ready())
        return;
    uint32_t name = vt_string_intern(info->name, strnlen(info->name, sizeof info->name));
    uint32_t uuid = info->uuid[0] ? vt_string_intern(info->uuid, strlen(info->uuid)) : 0;
    uint32_t pci =
        info->pci_bus_id[0] ? vt_string_intern(info->pci_bus_id, strlen(info->pci_bus_id)) : 0;
    emit_pending();
    uint8_t *rec = reserve(30);
    if (!rec)
        return;
    size_t n = 1;
    n += vt_put_varint(rec + n, (uint64_t)device);
    n += vt_put_varint(rec + n, name);
    n += vt_put_varint(rec + n, info->total_bytes);
    commit(rec, VT_REC_DEVICE, n - 1);
    if (!uuid && !pci)
        return;
    uint8_t body[30];
    size_t len = vt_put_varint(body, (uint64_t)device);
    len += vt_put_varint(body + len, uuid);
    len += vt_put_varint(body + len, pci);
    rec = reserve(10 + len);
    if (!rec)
        return;
    n = 1 + vt_put_varint(rec + 1, len);
    memcpy(rec + n, body, len);
    commit(rec, VT_REC_DEVICE_IDS, n - 1 + len);
}

/* The END record and the file trimmed to what was written; the trace is then closed. */
void vt_writer_close(const vt_totals_t *t)
{
    if (w.state != W_OPEN || w.pid != getpid())
        return;
    size_t b;
    uint32_t thread;
    uint8_t *rec = event_begin_for(vt_now_ns(), 50, &b, &thread, true);
    if (rec) {
        b += vt_put_varint(rec + b, t->n_allocs);
        b += vt_put_varint(rec + b, t->n_frees);
        b += vt_put_varint(rec + b, t->n_failed);
        b += vt_put_varint(rec + b, t->n_unmatched_frees);
        b += vt_put_varint(rec + b, t->n_dropped);
        commit(rec, VT_REC_END, b - 1);
    }
    if (w.state != W_OPEN)
        return;
    if (!fd_is_trace()) { /* END is in the mapping; the file keeps its whole last chunk */
        lost_descriptor();
        return;
    }
    uint64_t size = w.chunk_off + w.pos;
    vt_cancel_hold();
    munmap(w.chunk, VT_FORMAT_CHUNK_BYTES);
    if (ftruncate(w.fd, (off_t)size) != 0)
        vt_log(1, "cannot trim '%s': %s", w.shown, strerror(errno));
    close(w.fd);
    w.chunk = NULL;
    w.fd = -1;
    w.state = W_DONE;
}

const char *vt_writer_path(void)
{
    return w.state == W_OPEN || w.state == W_DONE || w.partial ? w.path : NULL;
}

/* The path as messages show it (escaped), with whether the trace stopped early; NULL when
 * there is no trace. */
const char *vt_writer_path_shown(bool *partial)
{
    *partial = w.partial;
    return vt_writer_path() ? w.shown : NULL;
}

/* The fork child (single-threaded): the mapping and the descriptor are the parent's trace.
 * Drop both without writing (the descriptor only while it is still the trace's: the parent
 * may have given the number to a file of its own); the child's first event opens its own
 * file. */
void vt_writer_after_fork_child(void)
{
    if (w.chunk)
        munmap(w.chunk, VT_FORMAT_CHUNK_BYTES);
    if (fd_is_trace())
        close(w.fd);
    if (cw)
        munmap(cw, sizeof *cw);
    cw = NULL;
    uint32_t generation = w.generation;
    memset(&w, 0, sizeof w);
    w.fd = -1;
    w.last_chunk_off = UINT64_MAX;
    w.generation = generation + 1;
    w.state = W_CLOSED;
}

/* The child of a fork made by a signal handler that interrupted the writer (vt_lock held): when
 * the handler returns, the interrupted record is finished in the child too. The chunk it writes
 * becomes the child's private copy (mremap over the shared mapping), so the parent's file only
 * ever gets the parent's bytes; map_chunk refuses to go further in another process. */
void vt_writer_after_fork_inside(void)
{
    if (!w.chunk)
        return;
    void *copy = mmap(NULL, VT_FORMAT_CHUNK_BYTES, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (copy != MAP_FAILED) {
        memcpy(copy, w.chunk, VT_FORMAT_CHUNK_BYTES);
        if (mremap(copy, VT_FORMAT_CHUNK_BYTES, VT_FORMAT_CHUNK_BYTES,
                   MREMAP_MAYMOVE | MREMAP_FIXED, w.chunk) != MAP_FAILED)
            return;
        munmap(copy, VT_FORMAT_CHUNK_BYTES);
    }
    /* No copy (out of memory): the interrupted record is finished in the shared chunk, with the
     * very bytes the parent writes there from the same state. */
}

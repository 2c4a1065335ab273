/* SPDX-License-Identifier: MIT */
/* The module map: every loaded object's path, load address, address range and build-id, so
 * the raw instruction pointers of call-sites can be symbolized offline after the process is
 * gone (jemalloc prof_sys.c records its maps for the same reason). Taken at init and again
 * whenever a new call-site frame falls outside every known module (a library dlopen()ed later).
 * dl_iterate_phdr takes the loader lock, so this never runs under vt_lock; a thread that
 * finds another one refreshing does not wait. AS-safe apart from the loader lock. */
#include "vt_internal.h"

#include <link.h>
#include <pthread.h>
#include <string.h>

#define MAX_MODULES     4096
#define PATH_POOL_BYTES (1u << 20)

static vt_module_t modules[MAX_MODULES];
_Atomic unsigned vt_n_modules; /* published count: entries below it are final */
static char path_pool[PATH_POOL_BYTES];
static size_t path_pool_used;
static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER;

/* The GNU build-id note of an object, if it has one. */
static void read_build_id(const struct dl_phdr_info *info, vt_module_t *m)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const char *name = p + sizeof *nh;
            const uint8_t *desc = (const uint8_t *)(name + ((nh->n_namesz + 3) & ~3u));
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                m->build_id_len =
                    nh->n_descsz < sizeof m->build_id ? nh->n_descsz : sizeof m->build_id;
                memcpy(m->build_id, desc, m->build_id_len);
                return;
            }
            p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
}

static bool known(uint64_t lo, const char *path)
{
    unsigned n = vt_n_modules;
    for (unsigned i = 0; i < n; i++)
        if (modules[i].lo == lo && strcmp(modules[i].path, path) == 0)
            return true;
    return false;
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uint64_t a = info->dlpi_addr + ph->p_vaddr;
        lo = a < lo ? a : lo;
        hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
    }
    /* The main program has an empty name; the vdso a name but no file. Both are kept: the
     * reader maps the empty name to /proc/<pid>/exe's path recorded in the trace header. */
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    if (hi == 0 || known(lo, name))
        return 0;
    unsigned n = vt_n_modules;
    size_t len = strlen(name);
    if (n >= MAX_MODULES || path_pool_used + len + 1 > PATH_POOL_BYTES)
        return 1;
    vt_module_t *m = &modules[n];
    memset(m, 0, sizeof *m);
    m->path = memcpy(path_pool + path_pool_used, name, len + 1);
    path_pool_used += len + 1;
    m->base = info->dlpi_addr;
    m->lo = lo;
    m->hi = hi;
    read_build_id(info, m);
    vt_n_modules = n + 1; /* publish after the entry is complete */
    return 0;
}

/* vt_modules_refresh: adds the objects loaded since the last refresh. Returns false when
 * another thread is refreshing (its result covers ours) or the table is full. */
bool vt_modules_refresh(void)
{
    if (pthread_mutex_trylock(&refresh_lock) != 0)
        return false;
    dl_iterate_phdr(add_module, NULL);
    pthread_mutex_unlock(&refresh_lock);
    return true;
}

/* The module holding ip, or NULL. Lock-free: entries are final once published. The newest
 * first: an object unloaded keeps its entry, and the one loaded at its addresses since comes
 * after it. */
const vt_module_t *vt_modules_find(uint64_t ip)
{
    for (unsigned i = vt_n_modules; i-- > 0;)
        if (ip >= modules[i].lo && ip < modules[i].hi)
            return &modules[i];
    return NULL;
}

/* Objects unloaded, as the dlopen door's refresh counts them (vt_modules_unloaded); and their
 * count at the last refresh of the map. After an unload a new object may sit at the freed
 * addresses: frames there are not outside every known module, so the map would not be
 * refreshed for them, and a stack's frame verdict (categorize.c) would be the old object's. */
static unsigned unloads, unloads_mapped;

void vt_modules_unloaded(void)
{
    __atomic_add_fetch(&unloads, 1, __ATOMIC_RELEASE);
}

unsigned vt_modules_unloads(void)
{
    return __atomic_load_n(&unloads, __ATOMIC_ACQUIRE);
}

/* vt_modules_refresh when an object was unloaded since the map's last refresh after one. */
void vt_modules_refresh_after_unloads(void)
{
    unsigned seen = vt_modules_unloads();
    if (VT_LIKELY(__atomic_load_n(&unloads_mapped, __ATOMIC_RELAXED) == seen))
        return;
    if (vt_modules_refresh())
        __atomic_store_n(&unloads_mapped, seen, __ATOMIC_RELAXED);
}

const vt_module_t *vt_module(unsigned index)
{
    return index < vt_n_modules ? &modules[index] : NULL;
}

/* SPDX-License-Identifier: MIT */
/* Function names from a module's full symbol table (.symtab), for the in-process category rules
 * when dladdr finds nothing: static functions, and every function of a program not linked with
 * -rdynamic. The file is mapped read-only once and scanned per unique stack frame (the caller
 * caches per stack), so no sorted index is built. Offline symbolization (with debug info) is the
 * analyzer's job. Uses open/fstat/mmap only; never called under vt_lock. */
#include "vt_internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_MAPPED 64

typedef struct mapped_s {
    char path[256];
    const uint8_t *data; /* NULL: the file has no usable symbol table */
    size_t size;
} mapped_t;

static mapped_t mapped[MAX_MAPPED];
static int n_mapped;
static pthread_mutex_t symtab_lock = PTHREAD_MUTEX_INITIALIZER;

/* Maps path, keeping it only if it is a 64-bit ELF file of this machine. */
static void map_file(mapped_t *m)
{
    vt_cancel_hold(); /* open: a cancellation point */
    int fd = open(m->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof(Elf64_Ehdr)) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        const Elf64_Ehdr *eh = p;
        if (p != MAP_FAILED && memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
            eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_shentsize == sizeof(Elf64_Shdr) &&
            eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) <= (uint64_t)st.st_size) {
            m->data = p;
            m->size = (size_t)st.st_size;
        } else if (p != MAP_FAILED) {
            munmap(p, (size_t)st.st_size);
        }
    }
    close(fd);
}

static const mapped_t *mapping_of(const char *path)
{
    const mapped_t *found = NULL;
    pthread_mutex_lock(&symtab_lock);
    for (int i = 0; i < n_mapped && !found; i++)
        if (strcmp(mapped[i].path, path) == 0)
            found = &mapped[i];
    if (!found && n_mapped < MAX_MAPPED && strlen(path) < sizeof mapped[0].path) {
        mapped_t *m = &mapped[n_mapped++];
        strcpy(m->path, path);
        map_file(m);
        found = m;
    }
    pthread_mutex_unlock(&symtab_lock);
    return found;
}

/* vt_symtab_name: the name of the function containing file offset-adjusted address addr
 * (ip − load bias) in the ELF file at path, from .symtab; NULL when unknown. The string lives
 * in the mapped file for the life of the process. */
const char *vt_symtab_name(const char *path, uint64_t addr)
{
    const mapped_t *m = mapping_of(path);
    if (!m || !m->data)
        return NULL;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->data;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(m->data + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum ||
            sh[i].sh_entsize != sizeof(Elf64_Sym))
            continue;
        const Elf64_Shdr *strtab = &sh[sh[i].sh_link];
        if (sh[i].sh_offset + sh[i].sh_size > m->size ||
            strtab->sh_offset + strtab->sh_size > m->size)
            return NULL;
        const Elf64_Sym *syms = (const Elf64_Sym *)(m->data + sh[i].sh_offset);
        const char *names = (const char *)(m->data + strtab->sh_offset);
        size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
        for (size_t k = 0; k < n; k++) {
            const Elf64_Sym *s = &syms[k];
            if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF)
                continue;
            if (addr >= s->st_value && addr - s->st_value < (s->st_size ? s->st_size : 1) &&
                s->st_name < strtab->sh_size)
                return names + s->st_name;
        }
    }
    return NULL;
}

/* vt_frame_names: the function and module (basename) of native frame ip, a return address; ""
 * when unknown. Function names come from the dynamic symbols (dladdr), else the module's
 * .symtab. Takes the loader lock: never under vt_lock. */
void vt_frame_names(uint64_t ip, const char **func, const char **module)
{
    Dl_info info;
    *func = *module = "";
    /* Return addresses point after the call; the call itself is one byte earlier. */
    if (!dladdr((void *)(uintptr_t)(ip - 1), &info))
        return;
    const char *name = info.dli_sname;
    if (!name) {
        /* The main program's name from dladdr may be relative or empty; /proc/self/exe is
         * the file. */
        const vt_module_t *mod = vt_modules_find(ip - 1);
        const char *path = mod && mod->path[0] ? mod->path : "/proc/self/exe";
        uint64_t bias = mod ? mod->base : (uint64_t)(uintptr_t)info.dli_fbase;
        name = vt_symtab_name(path, ip - 1 - bias);
    }
    if (name)
        *func = name;
    if (info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        *module = slash ? slash + 1 : info.dli_fname;
    }
}

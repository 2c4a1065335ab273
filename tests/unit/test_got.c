/* SPDX-License-Identifier: MIT */
/* Relocation patching (src/got.c) on real objects: a library that calls got_target and takes the
 * address of got_other, linked with immediate binding and full RELRO (both slots read-only after loading) and
 * with lazy binding (the call's slot unbound until the first call), has both slots turned to
 * replacement; the real function is reported as it was bound, the object's mappings keep their
 * protections, another object's slots are untouched; which names an object's slots refer to is read
 * from its dynamic section alone (vt_got_names). */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vt_internal.h"
#include "vt_test.h"

static int replacement(void)
{
    return 2;
}

static int other_replacement(void)
{
    return 3;
}

typedef struct visit_s {
    const char *object; /* the library's file name to patch */
    int seen, unbound;
    void *real, *other_real; /* the bound slots' values */
} visit_t;

static void *visit(void *ctx, const char *name, void *current, bool bound, bool weak)
{
    (void)weak;
    visit_t *v = ctx;
    bool other = strcmp(name, "got_other") == 0;
    void *to = other ? (void *)&other_replacement : (void *)&replacement;
    if (!other && strcmp(name, "got_target") != 0)
        return NULL;
    v->seen++;
    if (!bound)
        v->unbound++;
    else if (current != to)
        *(other ? &v->other_real : &v->real) = current;
    return to;
}

static bool names_target(const char *name)
{
    return strcmp(name, "got_target") == 0;
}

static bool names_other(const char *name)
{
    return strcmp(name, "got_other") == 0;
}

static bool names_unknown(const char *name)
{
    return strcmp(name, "got_unknown") == 0;
}

/* vt_got_names on the object behind a dlopen handle, from its dynamic section alone. */
static bool object_names(void *handle, vt_got_name_fn wanted)
{
    struct link_map *map = NULL;
    return dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map &&
           vt_got_names(map->l_addr, map->l_ld, wanted);
}

static int patched_slots;

static int patch_one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    visit_t *v = data;
    if (info->dlpi_name && strstr(info->dlpi_name, v->object))
        patched_slots += vt_got_patch(info, visit, v);
    return 0;
}

/* The lines of /proc/self/maps that name the object: address ranges and protections. */
static void maps_of(const char *object, char *out, size_t cap)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    out[0] = '\0';
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, object) && strlen(out) + strlen(line) < cap)
            strcat(out, line);
    if (f)
        fclose(f);
}

static void check_library(const char *dir, const char *file, int mode, bool lazy)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    void *h = dlopen(path, mode);
    VT_CHECK("the library loads", h != NULL);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return;
    }
    int (*calls)(void) = (int (*)(void))dlsym(h, "caller_calls");
    void *(*address)(void) = (void *(*)(void))dlsym(h, "caller_address");
    void *real = dlsym(h, "got_target"), *other_real = dlsym(h, "got_other");
    if (!lazy)
        VT_CHECK_EQ("before: the real function", calls(), 1);
    VT_CHECK("its dynamic section tells it calls got_target", object_names(h, names_target));
    VT_CHECK("and takes got_other's address", object_names(h, names_other));
    VT_CHECK("and names no other function", !object_names(h, names_unknown));
    char before[4096], after[4096];
    maps_of(file, before, sizeof before);
    visit_t v = {file, 0, 0, NULL, NULL};
    patched_slots = 0;
    dl_iterate_phdr(patch_one, &v);
    maps_of(file, after, sizeof after);
    VT_CHECK_EQ("both slots visited", v.seen, 2);
    VT_CHECK_EQ("both slots written", patched_slots, 2);
    if (lazy && !getenv("LD_BIND_NOW"))
        VT_CHECK_EQ("the lazy call slot was not bound yet", v.unbound, 1);
    else
        VT_CHECK("the call slot reported the real function", v.real == real);
    VT_CHECK("the address slot reported the real function", v.other_real == other_real);
    VT_CHECK("the protections are as they were", strcmp(before, after) == 0);
    VT_CHECK_EQ("the call reaches the replacement", calls(), 2);
    VT_CHECK("the address taken is the replacement", address() == (void *)&other_replacement);
    /* Patched again: nothing left to write. */
    patched_slots = 0;
    dl_iterate_phdr(patch_one, &v);
    VT_CHECK_EQ("a second patch writes nothing", patched_slots, 0);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_got DIR\n");
        return 2;
    }
    check_library(argv[1], "libgot_caller_now.so", RTLD_NOW, false);
    check_library(argv[1], "libgot_caller_lazy.so", RTLD_LAZY, true);
    /* The target itself, never patched, still answers 1. */
    void *t = dlopen("libgot_target.so", RTLD_NOW | RTLD_NOLOAD);
    int (*target)(void) = t ? (int (*)(void))dlsym(t, "got_target") : NULL;
    VT_CHECK("the target is loaded", target != NULL);
    if (target)
        VT_CHECK_EQ("the target itself is unchanged", target(), 1);
    VT_CHECK("the target defines got_target, it has no slot naming it",
             !t || !object_names(t, names_target));
    return vt_test_done();
}

/* SPDX-License-Identifier: MIT */
/* hooks.def against the declaration tables it relies on: every VT_HOOK_CU row must carry exactly
 * the (base name, ABI version, variant) key of the cuda_driver.def row with the same export
 * name, because the cuGetProcAddress door substitutes a wrapper by that key; a typo would hand
 * an application our wrapper for a different ABI of the function, or never trace it. Every
 * VT_HOOK_RT and VT_REAL_CU name must be declared in cuda_runtime.def / cuda_driver.def, and no
 * name may appear twice in hooks.def (it would make two slots and two exports). The .def files
 * are read as string tables through our own X-macro definitions, so no prototype is needed. */
#include "vt_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct row_s {
    const char *kind; /* "CU", "RT" or "REAL" for hooks.def rows */
    const char *name;
    const char *base;
    const char *version;
    const char *variant;
} row_t;

/* #x of an empty argument is "", exactly what the variant column holds for most rows. */
static const row_t hooks[] = {
#define VT_HOOK_CU(name, base, ver, variant) {"CU", #name, #base, #ver, #variant},
#define VT_HOOK_RT(name)                     {"RT", #name, NULL, NULL, NULL},
#define VT_REAL_CU(name)                     {"REAL", #name, NULL, NULL, NULL},
#include "hooks.def"
#undef VT_HOOK_CU
#undef VT_HOOK_RT
#undef VT_REAL_CU
};

static const row_t driver[] = {
#define VT_CU(ret, name, base, ver, variant, params, args) {"CU", #name, #base, #ver, #variant},
#include "cuda_driver.def"
#undef VT_CU
};

static const row_t runtime[] = {
#define VT_RT(ret, name, declared, params, args) {"RT", #name, #declared, NULL, NULL},
#include "cuda_runtime.def"
#undef VT_RT
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const row_t *lookup(const row_t *rows, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return NULL;
}

static void fail_row(const char *what, const row_t *h, const row_t *d)
{
    fprintf(stderr, "  %s: hooks.def (%s, %s, %s, '%s') vs cuda_driver.def (%s, %s, %s, '%s')\n",
            what, h->name, h->base, h->version, h->variant, d->name, d->base, d->version,
            d->variant);
}

static void test_driver_keys(void)
{
    size_t n_cu = 0;
    for (size_t i = 0; i < COUNT(hooks); i++) {
        const row_t *h = &hooks[i];
        if (strcmp(h->kind, "CU") != 0)
            continue;
        n_cu++;
        const row_t *d = lookup(driver, COUNT(driver), h->name);
        if (!d) {
            fprintf(stderr, "  VT_HOOK_CU %s: no row in cuda_driver.def\n", h->name);
            VT_CHECK("hooked driver export declared", 0);
            continue;
        }
        bool same = strcmp(h->base, d->base) == 0 && strcmp(h->version, d->version) == 0 &&
                    strcmp(h->variant, d->variant) == 0;
        if (!same)
            fail_row("key differs", h, d);
        VT_CHECK("VT_HOOK_CU key equals cuda_driver.def", same);
    }
    VT_CHECK("hooks.def has driver hooks", n_cu > 0);
    /* The table itself is sane: the export is the base name plus an optional _v<N> and then the
     * variant, which catches a base or variant copied from the wrong row of both files. */
    for (size_t i = 0; i < COUNT(driver); i++) {
        const row_t *d = &driver[i];
        size_t base_len = strlen(d->base), var_len = strlen(d->variant), name_len = strlen(d->name);
        bool ok = strncmp(d->name, d->base, base_len) == 0 && name_len >= base_len + var_len &&
                  strcmp(d->name + name_len - var_len, d->variant) == 0;
        const char *mid = d->name + base_len;
        size_t mid_len = name_len - base_len - var_len;
        if (ok && mid_len) /* "_v2", "_v3", … */
            ok = mid_len >= 3 && mid[0] == '_' && mid[1] == 'v' &&
                 strspn(mid + 2, "0123456789") == mid_len - 2;
        if (!ok)
            fprintf(stderr, "  cuda_driver.def row %s: export is not base[_vN]variant\n", d->name);
        VT_CHECK("cuda_driver.def export = base[_vN]variant", ok);
    }
}

static void test_names_declared(void)
{
    size_t n_rt = 0, n_real = 0;
    for (size_t i = 0; i < COUNT(hooks); i++) {
        const row_t *h = &hooks[i];
        if (strcmp(h->kind, "RT") == 0) {
            n_rt++;
            bool found = lookup(runtime, COUNT(runtime), h->name) != NULL;
            if (!found)
                fprintf(stderr, "  VT_HOOK_RT %s: not in cuda_runtime.def\n", h->name);
            VT_CHECK("VT_HOOK_RT declared in cuda_runtime.def", found);
        } else if (strcmp(h->kind, "REAL") == 0) {
            n_real++;
            bool found = lookup(driver, COUNT(driver), h->name) != NULL;
            if (!found)
                fprintf(stderr, "  VT_REAL_CU %s: not in cuda_driver.def\n", h->name);
            VT_CHECK("VT_REAL_CU declared in cuda_driver.def", found);
        }
    }
    VT_CHECK("hooks.def has runtime hooks", n_rt > 0);
    VT_CHECK("hooks.def has call-only rows", n_real > 0);
}

static void test_no_duplicates(void)
{
    for (size_t i = 0; i < COUNT(hooks); i++)
        for (size_t j = i + 1; j < COUNT(hooks); j++)
            if (strcmp(hooks[i].name, hooks[j].name) == 0) {
                fprintf(stderr, "  %s appears twice in hooks.def\n", hooks[i].name);
                VT_CHECK("no name twice in hooks.def", 0);
            }
    /* Two VT_HOOK_CU rows with one (base, version, variant) key would make substitution
     * ambiguous. */
    for (size_t i = 0; i < COUNT(hooks); i++)
        for (size_t j = i + 1; j < COUNT(hooks); j++) {
            const row_t *a = &hooks[i], *b = &hooks[j];
            if (strcmp(a->kind, "CU") == 0 && strcmp(b->kind, "CU") == 0 &&
                strcmp(a->base, b->base) == 0 && strcmp(a->version, b->version) == 0 &&
                strcmp(a->variant, b->variant) == 0) {
                fprintf(stderr, "  %s and %s share one cuGetProcAddress key\n", a->name, b->name);
                VT_CHECK("no key twice in hooks.def", 0);
            }
        }
    VT_CHECK("the tables are not empty", COUNT(hooks) > 40 && COUNT(driver) > 40);
}

int main(void)
{
    test_driver_keys();
    test_names_declared();
    test_no_duplicates();
    return vt_test_done();
}

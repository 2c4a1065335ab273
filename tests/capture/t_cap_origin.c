/* SPDX-License-Identifier: MIT */
/* dlopen("libplugin.so") resolved through this program's RUNPATH $ORIGIN/sub: glibc uses the
 * RUNPATH of the object that called dlopen, read from the return address, and libvramtrace.so's
 * dlopen door calls glibc itself, so it must resolve the name as this program would (memray
 * #212, hook rule 5 of docs/design.md). Also $ORIGIN in the name itself, a dlmopen into a new
 * namespace through the same RUNPATH, and a name found nowhere (glibc's own error). Prints the
 * plugin's answers; never touches CUDA (passthru.sh: same transcript with and without the
 * library, nothing on stderr). */
#include <dlfcn.h>
#include <stdio.h>

static void try_plugin(const char *how, void *h)
{
    if (!h) {
        printf("%s: %s\n", how, dlerror());
        return;
    }
    int (*answer)(void) = (int (*)(void))dlsym(h, "plugin_answer");
    printf("%s: plugin_answer() = %d\n", how, answer ? answer() : -1);
    dlclose(h);
}

int main(void)
{
    void *h = dlopen("libplugin.so", RTLD_NOW);
    if (!h) {
        printf("dlopen libplugin.so: %s\n", dlerror());
        return 1;
    }
    try_plugin("dlopen libplugin.so", h);
    try_plugin("dlopen $ORIGIN/sub/libplugin.so", dlopen("$ORIGIN/sub/libplugin.so", RTLD_NOW));
    try_plugin("dlmopen new namespace libplugin.so",
               dlmopen(LM_ID_NEWLM, "libplugin.so", RTLD_NOW));
    try_plugin("dlopen libnowhere.so", dlopen("libnowhere.so", RTLD_NOW));
    return 0;
}

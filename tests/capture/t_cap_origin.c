/* SPDX-License-Identifier: MIT */
/* dlopen("libplugin.so") resolved through this program's RUNPATH $ORIGIN/sub: glibc uses the
 * RUNPATH of the object that called dlopen, read from the return address, so it works with
 * libvramtrace.so preloaded only as long as the library does not wrap dlopen (or only with a
 * tail call; memray #212, hook rule 5 of docs/design.md). Prints the plugin's answer; never touches
 * CUDA (passthru.sh: same transcript with and without the library, nothing on stderr). */
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
    void *h = dlopen("libplugin.so", RTLD_NOW);
    if (!h) {
        printf("dlopen libplugin.so: %s\n", dlerror());
        return 1;
    }
    int (*answer)(void) = (int (*)(void))dlsym(h, "plugin_answer");
    printf("plugin_answer() = %d\n", answer ? answer() : -1);
    dlclose(h);
    return 0;
}

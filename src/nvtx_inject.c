/* SPDX-License-Identifier: MIT */
/* NVTX_INJECTION64_PATH pointed at this library, so that each NVTX copy in the process finds
 * InitializeInjectionNvtx2 (nvtx.c; docs/nvtx.md). Init's part of NVTX: nvtx.c's entry point
 * runs init, so init cannot reach into nvtx.c. */
#include "vt_internal.h"
#include "vt_nvtx.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether init left NVTX_INJECTION64_PATH for the first CUDA use (vt_nvtx_cuda_used). */
static bool injection_pending;

static int find_cuda(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    const char *slash = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    const char *name = slash ? slash + 1 : info->dlpi_name ? info->dlpi_name : "";
    return strncmp(name, "libcuda.so", 10) == 0 || strncmp(name, "libcudart.so", 12) == 0;
}

/* Points NVTX_INJECTION64_PATH at this library, unless the variable is already in the
 * environment (even empty): Nsight Systems and other tools use it, and theirs wins. Only when
 * this code is the loaded libvramtrace.so (InitializeInjectionNvtx2 is in the dynamic symbol
 * table of the object that holds it), not when the core is linked into a test program. NVTX's
 * dlopen of this path returns the object already loaded by LD_PRELOAD, so no second copy and no
 * new initial-exec TLS is needed (tests/capture/nvtx checks both). */
static void set_injection(void)
{
    static const char var[] = "NVTX_INJECTION64_PATH";
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, var, sizeof var - 1) == 0 && (*e)[sizeof var - 1] == '=') {
            vt_log(2, "nvtx: %s is set ('%.256s'): not replacing it", var, *e + sizeof var);
            return;
        }
    }
    Dl_info info;
    if (!dladdr((void *)InitializeInjectionNvtx2, &info) || !info.dli_fname || !info.dli_sname ||
        strcmp(info.dli_sname, "InitializeInjectionNvtx2") != 0)
        return;
    /* A relative LD_PRELOAD path would break for children that change directory. */
    static char abs_path[PATH_MAX];
    const char *path = info.dli_fname;
    if (path[0] != '/' && realpath(path, abs_path))
        path = abs_path;
    if (setenv(var, path, 0) != 0)
        vt_warn("cannot set %s: NVTX ranges will not be seen", var);
    else
        vt_log(3, "nvtx: %s=%s", var, path);
}

/* vt_nvtx_init: the environment is changed only for processes that use CUDA. A process that has
 * the driver or the runtime loaded at init (linked against it) gets the variable now, before
 * any NVTX call of its own reads it; any other process (Python, a shell, a compiler) only at
 * its first CUDA use (vt_nvtx_cuda_used): an NVTX range it opens before that is not seen.
 * setenv allocates and is not thread-safe against a concurrent getenv, which is why it is done
 * once, from our constructor when it can. */
void vt_nvtx_init(void)
{
    if (dl_iterate_phdr(find_cuda, NULL))
        set_injection();
    else
        injection_pending = true;
}

void vt_nvtx_cuda_used(void)
{
    if (injection_pending) {
        injection_pending = false;
        set_injection();
    }
}

/* SPDX-License-Identifier: MIT */
/* Another NVTX tool (as Nsight Systems is) named by NVTX_INJECTION64_PATH before vramtrace
 * starts: vramtrace must leave the variable alone, so this tool is the one NVTX loads. It
 * announces each NVTX copy that initialises it and installs no handlers (NVTX calls become
 * no-ops, as with no tool). */
#include <stdio.h>
#include <nvtx3/nvToolsExt.h>

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
    (void)get;
    fprintf(stderr, "other_tool: InitializeInjectionNvtx2\n");
    return 1;
}

/* SPDX-License-Identifier: MIT */
/* The version in include/vramtrace.h must be the project(VERSION) of CMakeLists.txt, which the
 * build passes in as VRAMTRACE_VERSION_STRING (the CLI prints that one). */
#include "vramtrace.h"
#include "unit_util.h"

int main(void)
{
    char header[32];
    snprintf(header, sizeof(header), "%d.%d.%d", VRAMTRACE_VERSION_MAJOR, VRAMTRACE_VERSION_MINOR,
             VRAMTRACE_VERSION_PATCH);
    VT_CHECK_STR("vramtrace.h matches project(VERSION)", header, VRAMTRACE_VERSION_STRING);
    return vt_test_done();
}

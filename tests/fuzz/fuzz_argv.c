/* SPDX-License-Identifier: MIT */
/* Fuzz harness of the CLI's arguments: the input is an argument vector, its arguments separated
 * by NUL bytes, given to vramtrace's main in a sandbox (fuzz_cli.h) that holds traces, a rank
 * directory, a rules file and a model to name. Whatever the arguments, a command must answer
 * with an exit status: no crash, no read past argv, no leak, no overflow. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_cli.h"

#define MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    /* A copy that ends in NUL, so every argument is a C string. */
    char *buf = malloc(size + 1), *argv[MAX_ARGS + 2];
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    int argc = 0;
    argv[argc++] = "vramtrace";
    for (size_t at = 0; at < size && argc <= MAX_ARGS; at += strlen(buf + at) + 1)
        argv[argc++] = buf + at;
    argv[argc] = NULL;
    int status = fuzz_cli_run(argc, argv);
    if (status > 3)
        abort(); /* the exit statuses are 0..3 */
    free(buf);
    return 0;
}

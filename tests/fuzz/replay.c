/* SPDX-License-Identifier: MIT */
/* The libFuzzer-less driver of a harness: replay FILE|DIR... feeds every file given, and every
 * file in every directory given, to LLVMFuzzerTestOneInput once, so the regression inputs of
 * tests/fuzz/regressions run in the normal (and the sanitizer) builds without clang. Exits 1 when
 * a file cannot be read; a crash is the harness's. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open '%s'\n", path);
        return 1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *bigger = realloc(buf, cap *= 2);
            if (!bigger)
                free(buf);
            buf = bigger;
        }
    }
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "replay: cannot read '%s'\n", path);
        free(buf);
        return 1;
    }
    /* A copy of exactly len bytes, so ASan catches a read one past the input. */
    uint8_t *exact = malloc(len ? len : 1);
    if (exact) {
        memcpy(exact, buf, len);
        LLVMFuzzerTestOneInput(exact, len);
    }
    free(exact);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int status = 0, n = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
            status |= replay_file(argv[i]);
            n++;
            continue;
        }
        struct dirent **names;
        int k = scandir(argv[i], &names, NULL, alphasort);
        if (k < 0) {
            fprintf(stderr, "replay: cannot list '%s'\n", argv[i]);
            status = 1;
            continue;
        }
        for (int j = 0; j < k; j++) {
            if (names[j]->d_name[0] != '.') {
                char path[4096];
                snprintf(path, sizeof(path), "%s/%s", argv[i], names[j]->d_name);
                status |= replay_file(path);
                n++;
            }
            free(names[j]);
        }
        free(names);
    }
    printf("replay: %d inputs\n", n);
    return status;
}

/* SPDX-License-Identifier: MIT */
/* Reads one figure of a VTSIM_STATS file (docs/simulator.md): the value of KEY on the line that
 * starts with PREFIX ("device 0", "pool 3", "pinned"). Header-only, for the test programs. */
#ifndef SIM_STATS_READ_H
#define SIM_STATS_READ_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value, or -1 when the file, the line or the key is missing. */
static inline long long sim_stats_read(const char *path, const char *prefix, const char *key)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[1024];
    long long value = -1;
    size_t n = strlen(prefix);
    while (value < 0 && fgets(line, sizeof line, f)) {
        if (strncmp(line, prefix, n) != 0 || line[n] != ' ')
            continue;
        for (char *tok = strtok(line + n, " \n"); tok; tok = strtok(NULL, " \n")) {
            char *val = strtok(NULL, " \n");
            if (val && strcmp(tok, key) == 0) {
                value = strtoll(val, NULL, 10);
                break;
            }
        }
    }
    fclose(f);
    return value;
}
#endif

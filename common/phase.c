/* SPDX-License-Identifier: MIT */
/* The phase path (vt_phase.h). */
#include "vt_phase.h"

#include <string.h>

#include "vt_categories.h"

#define FORCE_PREFIX "vramtrace:"

void vt_phase_path_push(vt_phase_path_t *p, const char *name, size_t len)
{
    int depth = p->depth++;
    if (depth >= VT_PHASE_NESTING)
        return;
    if (!name)
        len = 0;
    size_t used = depth ? p->ends[depth] : 0;
    if (depth == 0)
        p->ends[0] = 0;
    size_t room = VT_PHASE_BYTES - 1 - used;
    size_t sep = used ? 1 : 0;
    size_t kept = len;
    if (kept + sep > room)
        kept = room > sep ? room - sep : 0;
    if (sep && room)
        p->text[used++] = '/';
    if (kept)
        memcpy(p->text + used, name, kept);
    used += kept;
    p->text[used] = '\0';
    p->ends[depth + 1] = (uint16_t)used;
    int forced = -1;
    size_t prefix = sizeof FORCE_PREFIX - 1;
    if (len > prefix && memcmp(name, FORCE_PREFIX, prefix) == 0)
        forced = vt_category_from_name(name + prefix, len - prefix);
    p->forced[depth + 1] = (int8_t)(forced >= 0 ? forced : depth ? p->forced[depth] : -1);
}

void vt_phase_path_pop(vt_phase_path_t *p)
{
    if (p->depth == 0)
        return;
    int depth = --p->depth;
    if (depth < VT_PHASE_NESTING)
        p->text[p->ends[depth]] = '\0';
}

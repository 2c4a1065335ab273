/* SPDX-License-Identifier: MIT */
/* The transcript the pass-through programs print, one line per call: the label, the return
 * code, errno (set to a sentinel before the call, so any change shows) and the out-params.
 * passthru.sh runs a program with and without libvramtrace.so and requires the two transcripts
 * to be identical. Device addresses are printed exactly (the simulator's are deterministic,
 * so a hidden allocation of ours would shift them); host pointers, handles and function
 * pointers only as untouched / NULL / set, since those legitimately differ between runs. */
#ifndef CAP_TRANSCRIPT_H
#define CAP_TRANSCRIPT_H
#include <errno.h>
#include <stdio.h>

#define CAP_ERRNO_SENTINEL 1234
#define CAP_SENTINEL       ((void *)0x5e47)
#define CAP_DPTR_SENTINEL  0x5e475e47ULL

static int cap_rc, cap_errno;

/* CAP_CALL(label, call): runs call with errno at the sentinel and starts its line. */
#define CAP_CALL(label, call)                                                                      \
    do {                                                                                           \
        errno = CAP_ERRNO_SENTINEL;                                                                \
        cap_rc = (int)(call);                                                                      \
        cap_errno = errno;                                                                         \
        printf("%s: rc=%d errno=%d", (label), cap_rc, cap_errno);                                  \
    } while (0)

static inline const char *cap_class(const void *p)
{
    return p == CAP_SENTINEL ? "untouched" : p ? "set" : "NULL";
}

/* One out-param: an opaque pointer, an exact number, the end of the line. */
static inline void cap_ptr(const char *name, const void *p)
{
    printf(" %s=%s", name, cap_class(p));
}

static inline void cap_num(const char *name, unsigned long long v)
{
    if (v == CAP_DPTR_SENTINEL)
        printf(" %s=untouched", name);
    else
        printf(" %s=0x%llx", name, v);
}

static inline void cap_end(void)
{
    printf("\n");
}
#endif

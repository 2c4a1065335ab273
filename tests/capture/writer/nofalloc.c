/* SPDX-License-Identifier: MIT */
/* A posix_fallocate that only sets the file's size (ftruncate), as a writer without it would:
 * the blocks stay unallocated. Preloaded before libvramtrace.so by enospc.sh to show that the
 * ENOSPC test would catch a writer that maps holes of a full file system: the traced program
 * then dies of SIGBUS on its first store past the free space. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static int grow(int fd, off_t off, off_t len)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return 9; /* EBADF */
    if (st.st_size < off + len && ftruncate(fd, off + len) != 0)
        return 27; /* EFBIG */
    return 0;
}

int posix_fallocate(int fd, off_t off, off_t len)
{
    return grow(fd, off, len);
}

int posix_fallocate64(int fd, off_t off, off_t len)
{
    return grow(fd, off, len);
}

/* SPDX-License-Identifier: MIT */
/*
 * file_open.h - opening a file that a recording names (a DSO, a build-id
 * cache copy, a debug file, a kernel symbol list, a JIT map): regular files
 * only, and never blocking, whatever the path now is.
 */
#ifndef PERFEV_FILE_OPEN_H
#define PERFEV_FILE_OPEN_H

#include <errno.h>

/*
 * Opens path read-only when it is a regular file: it is looked at first
 * (stat), so a device node is never opened, then opened with O_NONBLOCK |
 * O_NOCTTY | O_CLOEXEC, so a FIFO put there since cannot block, and checked
 * again (fstat) on the descriptor. Returns the descriptor (O_NONBLOCK
 * cleared again), PEV_ENOTREG when the path is anything but a regular
 * file, or -errno when it cannot be looked at or opened.
 */
int pev__open_regular(const char *path);

/* What pev__open_regular returns for a path that is not a regular file. */
#define PEV_ENOTREG (-EMEDIUMTYPE)

/* Says what a negative pev__open_regular result means ("not a regular file"
 * for PEV_ENOTREG, strerror otherwise). */
const char *pev__open_strerror(int r);

#endif /* PERFEV_FILE_OPEN_H */

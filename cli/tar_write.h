/* SPDX-License-Identifier: MIT */
/*
 * tar_write.h - a small writer of gzip-compressed tar archives (POSIX
 * ustar, with a pax extended header for a name, link target or size that
 * ustar's fields cannot hold), as GNU tar, bsdtar and Python's tarfile read
 * them. `perfev archive` packs build-id cache entries with it.
 */
#ifndef PERFEV_CLI_TAR_WRITE_H
#define PERFEV_CLI_TAR_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* An archive being written. */
struct tar_writer;

/*
 * Starts a gzip-compressed archive on fd (open for writing, from
 * cli_output_fd; the writer owns it from now on, even on failure), path
 * its name in messages. Returns the writer, or NULL with errno set.
 */
struct tar_writer *tar_write_open(int fd, const char *path);

/* Adds directory name (without a trailing slash) with permissions mode. Returns 0 or a negative
 * errno. */
int tar_write_dir(struct tar_writer *w, const char *name, mode_t mode, int64_t mtime);

/* Adds symbolic link name pointing at target (stored as is). Returns 0 or a negative errno. */
int tar_write_symlink(struct tar_writer *w, const char *name, const char *target, int64_t mtime);

/*
 * Adds the regular file at path as name, with its size, permissions and
 * modification time. Returns 0 or a negative errno (-EINVAL when path is
 * not a regular file; -EIO when it changed size while read).
 */
int tar_write_file(struct tar_writer *w, const char *name, const char *path);

/*
 * Ends the archive (two zero blocks), finishes the gzip stream and closes
 * the file; frees w. Returns 0, or a negative errno when any write failed.
 */
int tar_write_close(struct tar_writer *w);

/* Discards an archive being written: closes and removes its file, frees w. */
void tar_write_abort(struct tar_writer *w);

#endif /* PERFEV_CLI_TAR_WRITE_H */

/* SPDX-License-Identifier: MIT */
/*
 * archive_unpack.h - extracting a tar archive into perf's build-id cache
 * without letting it reach outside: `perfev archive --unpack`.
 *
 * Refused, with the entry and the reason: an absolute name, a ".."
 * component, a symbolic link whose target is absolute or climbs out of the
 * cache (or has ".." after a name), a hard link to anything but a file the
 * archive stored before it, an entry below a symbolic link (the archive's
 * or one already in the cache), and any entry that is not a directory, a
 * regular file or a link (devices, FIFOs). Nothing is ever written through
 * a symbolic link: each directory on the way is opened with O_NOFOLLOW
 * from the cache's own descriptor, and files are created with O_EXCL. An
 * entry the cache holds already is kept as it is (one build id names one
 * build; and a cached file may be a hard link to the installed program,
 * which must not be rewritten).
 */
#ifndef PERFEV_CLI_ARCHIVE_UNPACK_H
#define PERFEV_CLI_ARCHIVE_UNPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tar_read.h"

/* What an extraction did. */
struct unpack_counts {
	unsigned written; /* files and links created */
	unsigned kept;    /* entries the cache held already */
};

/*
 * Reads every entry of r and checks it (write false: nothing is written;
 * cache_fd, the cache directory, may be -1 when it does not exist yet),
 * or checks and extracts it into the directory cache_fd (write true),
 * naming each file written on verbose when not NULL. Returns 0, or -1 with
 * the reason in why ("../x: a name with '..' in it").
 */
int unpack_entries(struct tar_reader *r, int cache_fd, bool write, FILE *verbose,
                   struct unpack_counts *counts, char *why, size_t why_size);

#endif /* PERFEV_CLI_ARCHIVE_UNPACK_H */

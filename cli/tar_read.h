/* SPDX-License-Identifier: MIT */
/*
 * tar_read.h - a reader of tar archives, gzip-compressed or not: ustar,
 * its pax extended headers (path, linkpath, size) and GNU tar's long
 * names. It hands out entries and their data; what to do with them (and
 * whether they are safe to write) is the caller's.
 */
#ifndef PERFEV_CLI_TAR_READ_H
#define PERFEV_CLI_TAR_READ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* An archive being read. */
struct tar_reader;

/* One entry of an archive: valid until the next tar_read_next. */
struct tar_entry {
	char type; /* '0' regular file, '1' hard link, '2' symbolic link, '5' directory, ... */
	const char *name; /* as stored (pax or GNU long names applied) */
	const char *link; /* a link's target ("" for other entries) */
	uint64_t size;    /* bytes of data that follow */
	unsigned mode;    /* permission bits */
};

/*
 * Starts reading the archive from fd (which the reader then owns and
 * closes); gzip data is decompressed, anything else read as it is.
 * Returns NULL when out of memory (fd closed).
 */
struct tar_reader *tar_read_open(int fd);

/*
 * Reads the next entry's header into *e, skipping what the caller left
 * unread of the previous entry's data. Returns 1, 0 at the archive's end
 * (its zero blocks, and the whole compressed stream read and checked), or
 * -1 on a damaged or truncated archive (tar_read_error says why).
 */
int tar_read_next(struct tar_reader *r, struct tar_entry *e);

/*
 * Reads up to size bytes of the current entry's data. Returns how many
 * (0 at the entry's end), or -1 on a damaged or truncated archive.
 */
ssize_t tar_read_data(struct tar_reader *r, void *buf, size_t size);

/* Why the last call failed, as a phrase ("truncated archive (unexpected end of file)"). */
const char *tar_read_error(const struct tar_reader *r);

/* Closes the archive's fd and frees r. */
void tar_read_close(struct tar_reader *r);

#endif /* PERFEV_CLI_TAR_READ_H */

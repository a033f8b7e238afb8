/* SPDX-License-Identifier: MIT */
/*
 * tar_read.c - reading tar archives (tar_read.h) through zlib's gz
 * functions, which decompress gzip and pass other data through as it is.
 *
 * A header block's checksum must match (the unsigned sum of its bytes with
 * the checksum field as spaces, or the signed sum some old tars wrote).
 * Metadata entries are applied to the entry after them: a pax 'x' header's
 * path, linkpath and size records; GNU tar's 'L' (long name) and 'K' (long
 * link target); a pax 'g' (global) header is skipped. The archive ends at
 * a zero block, which must be there (data that stops before it was cut
 * short); the compressed stream is then read to its end, so a truncated or
 * corrupt gzip file is an error even past the last entry.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "tar_read.h"

#define BLOCK    512
#define META_MAX (1U << 20) /* the largest pax header or GNU long name read */

struct tar_reader {
	gzFile gz;
	uint64_t left, padding;    /* the current entry's unread data, then its padding */
	char *name, *link;         /* the current entry's */
	char *pax_name, *pax_link; /* from metadata entries, for the next entry */
	uint64_t pax_size;
	bool has_pax_size;
	char why[256];
};

struct tar_reader *tar_read_open(int fd)
{
	struct tar_reader *r = calloc(1, sizeof(*r));

	if (!r || !(r->gz = gzdopen(fd, "rb"))) {
		free(r);
		close(fd);
		return NULL;
	}
	return r;
}

const char *tar_read_error(const struct tar_reader *r)
{
	return r->why;
}

/* Says why reading failed, from zlib's state; returns -1. */
static int fail_read(struct tar_reader *r)
{
	int errnum = 0;
	const char *msg = gzerror(r->gz, &errnum);

	if (errnum == Z_ERRNO)
		snprintf(r->why, sizeof(r->why), "cannot read the archive: %s", strerror(errno));
	else if (errnum == Z_BUF_ERROR || errnum == Z_OK)
		snprintf(r->why, sizeof(r->why), "truncated archive (unexpected end of file)");
	else
		snprintf(r->why, sizeof(r->why), "damaged gzip data (%s)", msg ? msg : "?");
	return -1;
}

/* Reads exactly size bytes. Returns 0, or -1 (said why) at an error or the data's end. */
static int read_full(struct tar_reader *r, void *buf, size_t size)
{
	char *p = buf;

	while (size) {
		unsigned want = size > (1U << 30) ? 1U << 30 : (unsigned)size;
		int n = gzread(r->gz, p, want);
		if (n <= 0)
			return fail_read(r);
		p += n;
		size -= (size_t)n;
	}
	return 0;
}

/* Skips size bytes. Returns 0 or -1. */
static int skip(struct tar_reader *r, uint64_t size)
{
	char buf[8192];

	while (size) {
		size_t n = size < sizeof(buf) ? (size_t)size : sizeof(buf);
		if (read_full(r, buf, n) < 0)
			return -1;
		size -= n;
	}
	return 0;
}

ssize_t tar_read_data(struct tar_reader *r, void *buf, size_t size)
{
	if (size > r->left)
		size = (size_t)r->left;
	if (size > (1U << 30))
		size = 1U << 30;
	if (size && read_full(r, buf, size) < 0)
		return -1;
	r->left -= size;
	return (ssize_t)size;
}

/* A numeric field: octal digits (spaces and NULs around them), or GNU's base-256. */
static bool number(const char *field, size_t width, uint64_t *out)
{
	const unsigned char *f = (const unsigned char *)field;
	uint64_t v = 0;
	size_t i = 0;

	if (f[0] & 0x80) {
		/* Base-256, big-endian, in the bits after the flag; negative (0x40) is refused. */
		if (f[0] & 0x40)
			return false;
		v = f[0] & 0x3f;
		for (i = 1; i < width; i++) {
			if (v >> 56)
				return false;
			v = v << 8 | f[i];
		}
		*out = v;
		return true;
	}
	while (i < width && f[i] == ' ')
		i++;
	for (; i < width && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v >> 60)
			return false;
		v = v << 3 | (uint64_t)(f[i] - '0');
	}
	for (; i < width; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return false;
	*out = v;
	return true;
}

/* Whether the header block's checksum field matches its bytes. */
static bool checksum_ok(const unsigned char *h)
{
	uint64_t stored;
	unsigned sum = 0;
	int ssum = 0;

	if (!number((const char *)h + 148, 8, &stored))
		return false;
	for (size_t i = 0; i < BLOCK; i++) {
		unsigned char c = i >= 148 && i < 156 ? ' ' : h[i];
		sum += c;
		ssum += (signed char)c;
	}
	return stored == sum || (int64_t)stored == ssum;
}

/* A metadata entry's data (META_MAX bytes at most) as a string (malloc'ed), or NULL. */
static char *read_meta(struct tar_reader *r, uint64_t size)
{
	char *buf;

	if (size > META_MAX) {
		snprintf(r->why, sizeof(r->why), "damaged archive (a %llu-byte extended header)",
		         (unsigned long long)size);
		return NULL;
	}
	if (!(buf = malloc((size_t)size + 1))) {
		snprintf(r->why, sizeof(r->why), "out of memory");
		return NULL;
	}
	if (read_full(r, buf, (size_t)size) < 0 || skip(r, (BLOCK - size % BLOCK) % BLOCK) < 0) {
		free(buf);
		return NULL;
	}
	buf[size] = '\0';
	return buf;
}

/* Replaces *slot with a copy of len bytes at s. */
static int set_string(struct tar_reader *r, char **slot, const char *s, size_t len)
{
	char *copy = malloc(len + 1);

	if (!copy) {
		snprintf(r->why, sizeof(r->why), "out of memory");
		return -1;
	}
	memcpy(copy, s, len);
	copy[len] = '\0';
	free(*slot);
	*slot = copy;
	return 0;
}

/* Applies a pax header's records ("LEN KEY=VALUE\n"). Returns 0 or -1. */
static int apply_pax(struct tar_reader *r, const char *data, size_t size)
{
	size_t at = 0;

	while (at < size) {
		char *end;
		unsigned long len = strtoul(data + at, &end, 10);
		size_t ndigits = (size_t)(end - (data + at));
		const char *key, *eq = NULL, *stop;

		/* LEN counts "LEN KEY=VALUE\n" whole: at least the digits, a space and the newline.
		 */
		if (ndigits == 0 || *end != ' ' || len > size - at || len < ndigits + 2) {
			snprintf(r->why, sizeof(r->why), "damaged archive (a bad pax record)");
			return -1;
		}
		key = end + 1;
		stop = data + at + len;
		if (stop[-1] != '\n' || !(eq = memchr(key, '=', (size_t)(stop - key)))) {
			snprintf(r->why, sizeof(r->why), "damaged archive (a bad pax record)");
			return -1;
		}
		const char *value = eq + 1;
		size_t klen = (size_t)(eq - key), vlen = (size_t)(stop - 1 - value);
		if (klen == 4 && memcmp(key, "path", 4) == 0) {
			if (set_string(r, &r->pax_name, value, vlen) < 0)
				return -1;
		} else if (klen == 8 && memcmp(key, "linkpath", 8) == 0) {
			if (set_string(r, &r->pax_link, value, vlen) < 0)
				return -1;
		} else if (klen == 4 && memcmp(key, "size", 4) == 0) {
			char digits[24];
			if (vlen == 0 || vlen >= sizeof(digits) ||
			    strspn(value, "0123456789") < vlen) {
				snprintf(r->why, sizeof(r->why),
				         "damaged archive (a bad pax size)");
				return -1;
			}
			memcpy(digits, value, vlen);
			digits[vlen] = '\0';
			r->pax_size = strtoull(digits, NULL, 10);
			r->has_pax_size = true;
		}
		at += len;
	}
	return 0;
}

/* Whether the rest of the compressed stream reads to its end without an error. */
static int drain(struct tar_reader *r)
{
	char buf[8192];
	int n;

	while ((n = gzread(r->gz, buf, sizeof(buf))) > 0)
		;
	return n < 0 ? fail_read(r) : 0;
}

/* Clears what metadata entries set for the next entry. */
static void clear_pending(struct tar_reader *r)
{
	free(r->pax_name);
	free(r->pax_link);
	r->pax_name = r->pax_link = NULL;
	r->has_pax_size = false;
}

int tar_read_next(struct tar_reader *r, struct tar_entry *e)
{
	static const unsigned char zero[BLOCK];
	unsigned char h[BLOCK];
	uint64_t size, mode;

	if (skip(r, r->left + r->padding) < 0)
		return -1;
	r->left = r->padding = 0;
	for (;;) {
		int n = gzread(r->gz, h, BLOCK);

		if (n != BLOCK) {
			/* The data ends before the end-of-archive block: cut short. */
			if (n >= 0)
				snprintf(r->why, sizeof(r->why),
				         "truncated archive (unexpected end of file)");
			return n < 0 ? fail_read(r) : -1;
		}
		if (memcmp(h, zero, BLOCK) == 0)
			return drain(r);
		if (!checksum_ok(h)) {
			snprintf(r->why, sizeof(r->why),
			         "not a tar archive, or a damaged one (bad header checksum)");
			return -1;
		}
		if (!number((const char *)h + 124, 12, &size) ||
		    !number((const char *)h + 100, 8, &mode)) {
			snprintf(r->why, sizeof(r->why), "damaged archive (a bad size or mode)");
			return -1;
		}
		char type = (char)h[156];
		if (type == 'x' || type == 'L' || type == 'K') {
			char *meta = read_meta(r, size);
			int bad = !meta;

			if (meta && type == 'x')
				bad = apply_pax(r, meta, (size_t)size) < 0;
			else if (meta)
				bad = set_string(r, type == 'L' ? &r->pax_name : &r->pax_link, meta,
				                 strlen(meta)) < 0;
			free(meta);
			if (bad)
				return -1;
			continue;
		}
		if (type == 'g') {
			if (skip(r, size + (BLOCK - size % BLOCK) % BLOCK) < 0)
				return -1;
			continue;
		}
		/* The entry itself. */
		char name[256 + 2];
		size_t nlen = strnlen((const char *)h, 100);
		if (memcmp(h + 257, "ustar", 6) == 0 && h[345]) {
			/* POSIX ustar: the prefix, a slash, then the name. */
			size_t plen = strnlen((const char *)h + 345, 155);
			memcpy(name, h + 345, plen);
			name[plen] = '/';
			memcpy(name + plen + 1, h, nlen);
			nlen += plen + 1;
		} else {
			memcpy(name, h, nlen);
		}
		if (set_string(r, &r->name, r->pax_name ? r->pax_name : name,
		               r->pax_name ? strlen(r->pax_name) : nlen) < 0 ||
		    set_string(r, &r->link, r->pax_link ? r->pax_link : (const char *)h + 157,
		               r->pax_link ? strlen(r->pax_link)
		                           : strnlen((const char *)h + 157, 100)) < 0)
			return -1;
		if (r->has_pax_size)
			size = r->pax_size;
		clear_pending(r);
		e->type = type;
		e->name = r->name;
		e->link = r->link;
		e->mode = (unsigned)(mode & 07777);
		/* Links and directories have no data, whatever their size field says. */
		if (type == '1' || type == '2' || type == '5')
			size = 0;
		e->size = size;
		r->left = size;
		r->padding = (BLOCK - size % BLOCK) % BLOCK;
		return 1;
	}
}

void tar_read_close(struct tar_reader *r)
{
	if (!r)
		return;
	gzclose(r->gz);
	clear_pending(r);
	free(r->name);
	free(r->link);
	free(r);
}

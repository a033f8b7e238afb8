/* SPDX-License-Identifier: MIT */
/*
 * tar_write.c - gzip-compressed ustar archives (tar_write.h).
 *
 * Each entry is a 512-byte header block and its data padded to a whole
 * block. ustar's header holds a name of 100 bytes (255 with its 155-byte
 * prefix split at a slash), a link target of 100 and a size under 8 GiB;
 * beyond that a pax extended header ('x' entry of "LEN KEY=VALUE\n"
 * records, POSIX.1-2001) carries the value before the entry, and the
 * ustar fields keep a shortened copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "tar_write.h"

#define BLOCK      512
#define SIZE_LIMIT 077777777777ULL /* the largest size 11 octal digits hold */

struct tar_writer {
	gzFile gz;
	char *path;
	int error; /* the first write error, a negative errno */
};

/* One ustar header block, as POSIX lays it out. */
struct header {
	char name[100], mode[8], uid[8], gid[8], size[12], mtime[12], chksum[8], typeflag,
	    linkname[100], magic[6], version[2], uname[32], gname[32], devmajor[8], devminor[8],
	    prefix[155], pad[12];
};
_Static_assert(sizeof(struct header) == BLOCK, "a tar header is one block");

struct tar_writer *tar_write_open(int fd, const char *path)
{
	struct tar_writer *w = calloc(1, sizeof(*w));

	if (!w || !(w->path = strdup(path))) {
		free(w);
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	errno = 0;
	if (!(w->gz = gzdopen(fd, "wb6"))) {
		int e = errno ? errno : ENOMEM;
		close(fd);
		free(w->path);
		free(w);
		errno = e;
		return NULL;
	}
	return w;
}

/* Writes size bytes to the gzip stream; remembers the first error. */
static void put(struct tar_writer *w, const void *buf, size_t size)
{
	const char *p = buf;

	while (!w->error && size) {
		unsigned n = size > (1U << 30) ? 1U << 30 : (unsigned)size;
		int errnum = 0;

		errno = 0;
		if (gzwrite(w->gz, p, n) != (int)n) {
			gzerror(w->gz, &errnum);
			w->error = errnum == Z_ERRNO && errno ? -errno : -EIO;
			return;
		}
		p += n;
		size -= n;
	}
}

/* Pads the data of size bytes just written to a whole block. */
static void pad(struct tar_writer *w, uint64_t size)
{
	static const char zeros[BLOCK];

	if (size % BLOCK)
		put(w, zeros, BLOCK - size % BLOCK);
}

/* value in octal, zero-filled, into the field of width bytes (its last a NUL). */
static void octal(char *field, size_t width, uint64_t value)
{
	for (size_t i = width - 1; i-- > 0; value >>= 3)
		field[i] = (char)('0' + (value & 7));
	field[width - 1] = '\0';
}

/* Appends the pax record "LEN key=value\n" (LEN counting itself) to buf at *at. */
static void pax_record(char *buf, size_t *at, const char *key, const char *value)
{
	size_t body = strlen(key) + strlen(value) + 3, len = body + 1;
	char digits[24];

	/* LEN's own digits count in LEN. */
	while ((size_t)snprintf(digits, sizeof(digits), "%zu", len) + body != len)
		len = body + (size_t)snprintf(digits, sizeof(digits), "%zu", len);
	*at += (size_t)sprintf(buf + *at, "%zu %s=%s\n", len, key, value);
}

/* Puts name into the header's name and prefix fields; false when it does not fit. */
static bool split_name(struct header *h, const char *name)
{
	size_t len = strlen(name);

	if (len <= sizeof(h->name)) {
		memcpy(h->name, name, len);
		return true;
	}
	/* prefix "/" name: the last slash that leaves a name of at most 100 bytes. */
	for (size_t cut = len; cut-- > 0;) {
		if (name[cut] != '/')
			continue;
		if (len - cut - 1 > sizeof(h->name) || cut > sizeof(h->prefix) ||
		    len - cut - 1 == 0)
			return false;
		memcpy(h->prefix, name, cut);
		memcpy(h->name, name + cut + 1, len - cut - 1);
		return true;
	}
	return false;
}

/* Writes a header (a pax header before it when needed). Returns w's error state. */
static int header(struct tar_writer *w, char type, const char *name, const char *link, mode_t mode,
                  uint64_t size, int64_t mtime)
{
	struct header h;
	char *pax = NULL;
	size_t pax_len = 0;
	bool long_name, long_link = link && strlen(link) > sizeof(h.linkname);
	unsigned sum = 0;

	memset(&h, 0, sizeof(h));
	long_name = !split_name(&h, name);
	if (long_name || long_link || size > SIZE_LIMIT) {
		size_t cap = strlen(name) + (link ? strlen(link) : 0) + 128;

		if (!(pax = malloc(cap)))
			return w->error ? w->error : (w->error = -ENOMEM);
		if (long_name)
			pax_record(pax, &pax_len, "path", name);
		if (long_link)
			pax_record(pax, &pax_len, "linkpath", link);
		if (size > SIZE_LIMIT) {
			char digits[24];
			snprintf(digits, sizeof(digits), "%llu", (unsigned long long)size);
			pax_record(pax, &pax_len, "size", digits);
		}
		/* The extended header's own entry, named after the entry it describes. */
		int r = header(w, 'x', "PaxHeader", NULL, 0644, pax_len, mtime);
		put(w, pax, pax_len);
		pad(w, pax_len);
		free(pax);
		if (r < 0)
			return r;
		/* The ustar fields keep what fits: the name's tail, the link's head. */
		memset(&h, 0, sizeof(h));
		if (long_name)
			memcpy(h.name, name + strlen(name) - sizeof(h.name) + 1,
			       sizeof(h.name) - 1);
		else
			split_name(&h, name);
	}
	octal(h.mode, sizeof(h.mode), mode & 07777);
	octal(h.uid, sizeof(h.uid), 0);
	octal(h.gid, sizeof(h.gid), 0);
	octal(h.size, sizeof(h.size), size > SIZE_LIMIT ? 0 : size);
	octal(h.mtime, sizeof(h.mtime), mtime < 0 ? 0 : (uint64_t)mtime & SIZE_LIMIT);
	h.typeflag = type;
	if (link)
		memcpy(h.linkname, link, long_link ? sizeof(h.linkname) : strlen(link));
	memcpy(h.magic, "ustar", 6);
	memcpy(h.version, "00", 2);
	/* The checksum: the sum of the header's bytes with the checksum field as spaces. */
	memset(h.chksum, ' ', sizeof(h.chksum));
	for (size_t i = 0; i < BLOCK; i++)
		sum += ((const unsigned char *)&h)[i];
	snprintf(h.chksum, sizeof(h.chksum), "%06o", sum);
	put(w, &h, sizeof(h));
	return w->error;
}

int tar_write_dir(struct tar_writer *w, const char *name, mode_t mode, int64_t mtime)
{
	size_t len = strlen(name);
	char *slashed = malloc(len + 2);
	int r;

	if (!slashed)
		return w->error ? w->error : (w->error = -ENOMEM);
	memcpy(slashed, name, len);
	memcpy(slashed + len, "/", 2);
	r = header(w, '5', slashed, NULL, mode, 0, mtime);
	free(slashed);
	return r;
}

int tar_write_symlink(struct tar_writer *w, const char *name, const char *target, int64_t mtime)
{
	return header(w, '2', name, target, 0777, 0, mtime);
}

int tar_write_file(struct tar_writer *w, const char *name, const char *path)
{
	char buf[65536];
	struct stat st;
	uint64_t left;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if ((r = header(w, '0', name, NULL, st.st_mode, (uint64_t)st.st_size, st.st_mtime)) < 0) {
		close(fd);
		return r;
	}
	for (left = (uint64_t)st.st_size; left && !w->error;) {
		ssize_t n = read(fd, buf, left < sizeof(buf) ? (size_t)left : sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* The header promised st_size bytes: an archive that lies is no archive. */
			w->error = n < 0 ? -errno : -EIO;
			break;
		}
		put(w, buf, (size_t)n);
		left -= (uint64_t)n;
	}
	close(fd);
	pad(w, (uint64_t)st.st_size);
	return w->error;
}

int tar_write_close(struct tar_writer *w)
{
	static const char zeros[2 * BLOCK];
	int r, z;

	put(w, zeros, sizeof(zeros));
	errno = 0;
	z = gzclose(w->gz);
	r = w->error;
	if (!r && z != Z_OK)
		r = z == Z_ERRNO && errno ? -errno : -EIO;
	if (r)
		unlink(w->path);
	free(w->path);
	free(w);
	return r;
}

void tar_write_abort(struct tar_writer *w)
{
	gzclose(w->gz);
	unlink(w->path);
	free(w->path);
	free(w);
}

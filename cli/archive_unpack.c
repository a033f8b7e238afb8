/* SPDX-License-Identifier: MIT */
/*
 * archive_unpack.c - safe extraction into the build-id cache
 * (archive_unpack.h). Names are split into components once ("." and empty
 * components dropped, "./x" is "x"), and every file operation is relative
 * to a directory descriptor opened without following links.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_unpack.h"

#define MAX_DEPTH 128 /* components in a name */

/* A name split into components (pointing into buf). */
struct parts {
	char buf[PATH_MAX];
	const char *c[MAX_DEPTH];
	int n;
};

/* The names seen so far: the archive's symbolic links and regular files. */
struct seen {
	char **v;
	size_t n;
	char *kind; /* '2' link or '0' file, per name */
};

/* Splits name into p. Returns NULL, or why it is refused. */
static const char *split(const char *name, struct parts *p)
{
	size_t len = strlen(name);
	char *save = NULL;

	p->n = 0;
	if (name[0] == '/')
		return "an absolute name";
	if (len >= sizeof(p->buf))
		return "a name too long";
	memcpy(p->buf, name, len + 1);
	p->n = 0;
	for (char *c = strtok_r(p->buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0)
			return "a name with '..' in it";
		if (p->n == MAX_DEPTH)
			return "a name too deep";
		p->c[p->n++] = c;
	}
	return NULL;
}

/* The first k components of p joined with slashes, into out. */
static void join(const struct parts *p, int k, char *out, size_t size)
{
	size_t at = 0;

	out[0] = '\0';
	for (int i = 0; i < k && at < size; i++)
		at += (size_t)snprintf(out + at, size - at, "%s%s", i ? "/" : "", p->c[i]);
}

/*
 * Whether the target of a link at p stays in the cache, read as written:
 * relative, its ".." components all leading and no more of them than the
 * link's directories. (Links the archive made before cannot lead out either,
 * by the same rule, so following several stays inside.)
 */
static bool target_inside(const struct parts *p, const char *target)
{
	int up = 0, depth = p->n - 1;
	bool named = false;
	const char *s = target;

	if (!target[0] || target[0] == '/')
		return false;
	while (*s) {
		size_t len = strcspn(s, "/");

		if (len == 2 && s[0] == '.' && s[1] == '.') {
			if (named || ++up > depth)
				return false;
		} else if (len && !(len == 1 && s[0] == '.')) {
			named = true;
		}
		s += len;
		s += *s == '/';
	}
	return true;
}

static int seen_kind(const struct seen *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], name) == 0)
			return s->kind[i];
	return 0;
}

static int seen_add(struct seen *s, const char *name, char kind)
{
	char **v = realloc(s->v, (s->n + 1) * sizeof(*v));
	char *k;

	if (!v)
		return -1;
	s->v = v;
	if (!(k = realloc(s->kind, s->n + 1)))
		return -1;
	s->kind = k;
	if (!(s->v[s->n] = strdup(name)))
		return -1;
	s->kind[s->n++] = kind;
	return 0;
}

static void seen_free(struct seen *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	free(s->kind);
}

/*
 * Opens the directory holding p's last component, walking from dir without
 * following a link; creates missing directories when create. Returns 0
 * with *out (the caller closes it), 1 when a directory is missing (create
 * false), or -1 when one is a link or no directory (its path into bad).
 */
static int open_parent(int dir, const struct parts *p, int upto, bool create, int *out, char *bad,
                       size_t bad_size)
{
	int fd = dup(dir);

	*out = -1;
	if (fd < 0)
		return -1;
	for (int i = 0; i < upto; i++) {
		int next = openat(fd, p->c[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (next < 0 && errno == ENOENT && create &&
		    (mkdirat(fd, p->c[i], 0755) == 0 || errno == EEXIST))
			next = openat(fd, p->c[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			int e = errno;
			close(fd);
			if (e == ENOENT && !create)
				return 1;
			join(p, i + 1, bad, bad_size);
			return -1;
		}
		close(fd);
		fd = next;
	}
	*out = fd;
	return 0;
}

/* Writes size bytes to fd. Returns 0 or -1. */
static int write_all(int fd, const char *buf, size_t size)
{
	while (size) {
		ssize_t n = write(fd, buf, size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		size -= (size_t)n;
	}
	return 0;
}

/* Copies the entry's data into the new file leaf of dir. Returns 0, or -1 with errno or why set. */
static int extract_file(struct tar_reader *r, int dir, const char *leaf, unsigned mode, char *why,
                        size_t why_size, const char *name)
{
	char buf[65536];
	ssize_t n;
	int fd = openat(dir, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	                mode & 0777 ? mode & 0777 : 0644);

	if (fd < 0)
		return -1;
	while ((n = tar_read_data(r, buf, sizeof(buf))) > 0)
		if (write_all(fd, buf, (size_t)n) < 0)
			break;
	if (n < 0)
		snprintf(why, why_size, "%s", tar_read_error(r));
	else if (n > 0)
		snprintf(why, why_size, "cannot write %s: %s", name, strerror(errno));
	if (close(fd) != 0 && !n) {
		snprintf(why, why_size, "cannot write %s: %s", name, strerror(errno));
		n = 1;
	}
	if (n) {
		unlinkat(dir, leaf, 0);
		errno = 0;
		return -1;
	}
	return 0;
}

/* Refuses entry name: why = "NAME: REASON". Returns -1. */
static int refuse(char *why, size_t size, const char *name, const char *reason)
{
	snprintf(why, size, "%s: %s", name, reason);
	return -1;
}

/* Checks one entry against the archive so far and the cache. Returns 0 or -1 (why). */
static int check(const struct tar_entry *e, const struct parts *p, int cache_fd,
                 const struct seen *seen, char *why, size_t why_size)
{
	char path[PATH_MAX + 128], bad[PATH_MAX];
	struct parts t;
	int dir = -1;

	if (e->type != '0' && e->type != '\0' && e->type != '7' && e->type != '1' &&
	    e->type != '2' && e->type != '5') {
		snprintf(path, sizeof(path),
		         "an entry of type '%c' (not a file, directory or link)", e->type);
		return refuse(why, why_size, e->name, path);
	}
	for (int k = 1; k < p->n; k++) {
		join(p, k, path, sizeof(path));
		if (seen_kind(seen, path) == '2')
			return refuse(why, why_size, e->name,
			              "below a symbolic link of the archive (nothing is written "
			              "through a link)");
	}
	if (e->type == '2' && !target_inside(p, e->link)) {
		snprintf(path, sizeof(path), "a symbolic link to '%s', outside the cache", e->link);
		return refuse(why, why_size, e->name, path);
	}
	if (e->type == '1') {
		bool known = !split(e->link, &t) && t.n > 0;

		if (known) {
			join(&t, t.n, path, sizeof(path));
			known = seen_kind(seen, path) == '0';
		}
		if (!known)
			return refuse(why, why_size, e->name,
			              "a hard link to no file stored before it in the archive");
	}
	if (cache_fd < 0)
		return 0;
	int got = open_parent(cache_fd, p, p->n - 1, false, &dir, bad, sizeof(bad));
	if (got < 0) {
		snprintf(path, sizeof(path),
		         "%s in the cache is a symbolic link or no directory (nothing is written "
		         "through a link)",
		         bad);
		return refuse(why, why_size, e->name, path);
	}
	if (got == 0 && e->type == '5') {
		struct stat st;
		if (fstatat(dir, p->c[p->n - 1], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISDIR(st.st_mode)) {
			close(dir);
			return refuse(why, why_size, e->name,
			              "a directory where the cache has a link or a file");
		}
	}
	if (dir >= 0)
		close(dir);
	return 0;
}

/* Extracts one checked entry. Returns 0 or -1 (why). */
static int extract(struct tar_reader *r, const struct tar_entry *e, const struct parts *p,
                   int cache_fd, FILE *verbose, struct unpack_counts *counts, char *why,
                   size_t why_size)
{
	char bad[PATH_MAX];
	const char *leaf = p->c[p->n - 1];
	struct stat st;
	int dir, rc = 0;

	if (open_parent(cache_fd, p, p->n - 1, true, &dir, bad, sizeof(bad)) != 0) {
		snprintf(why, why_size, "%s: cannot make directory %s in the cache: %s", e->name,
		         bad, strerror(errno));
		return -1;
	}
	errno = 0;
	switch (e->type) {
	case '5':
		if (mkdirat(dir, leaf, (e->mode & 0777) | 0700) != 0) {
			if (errno != EEXIST)
				snprintf(why, why_size, "%s: cannot make the directory: %s",
				         e->name, strerror(errno));
			else if (fstatat(dir, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
			         !S_ISDIR(st.st_mode))
				snprintf(why, why_size, "%s: a link or a file is in the way",
				         e->name);
			else
				why[0] = '\0';
			rc = why[0] ? -1 : 0;
		}
		close(dir);
		return rc;
	case '2':
		rc = symlinkat(e->link, dir, leaf);
		break;
	case '1': {
		struct parts t;
		int tdir;
		split(e->link, &t);
		rc = open_parent(cache_fd, &t, t.n - 1, false, &tdir, bad, sizeof(bad)) ? -1 : 0;
		if (!rc) {
			rc = linkat(tdir, t.c[t.n - 1], dir, leaf, 0);
			close(tdir);
		}
		break;
	}
	default:
		why[0] = '\0';
		rc = extract_file(r, dir, leaf, e->mode, why, why_size, e->name);
		break;
	}
	close(dir);
	if (rc != 0 && errno == EEXIST) {
		counts->kept++;
		return 0;
	}
	if (rc != 0) {
		if (errno || !why[0])
			snprintf(why, why_size, "%s: cannot write it into the cache: %s", e->name,
			         strerror(errno ? errno : EIO));
		return -1;
	}
	counts->written++;
	if (verbose)
		fprintf(verbose, "%s\n", e->name);
	return 0;
}

int unpack_entries(struct tar_reader *r, int cache_fd, bool write, FILE *verbose,
                   struct unpack_counts *counts, char *why, size_t why_size)
{
	struct seen seen = {0};
	struct tar_entry e;
	struct parts *p = malloc(sizeof(*p));
	char path[PATH_MAX];
	int got, rc = 0;

	if (!p) {
		snprintf(why, why_size, "out of memory");
		return -1;
	}
	while ((got = tar_read_next(r, &e)) > 0) {
		const char *bad = split(e.name, p);

		if (bad) {
			rc = refuse(why, why_size, e.name, bad);
			break;
		}
		if (p->n == 0)
			continue; /* "./": the cache itself */
		if ((rc = check(&e, p, cache_fd, &seen, why, why_size)) < 0)
			break;
		join(p, p->n, path, sizeof(path));
		if ((e.type == '2' || e.type == '0' || e.type == '\0' || e.type == '7') &&
		    seen_add(&seen, path, e.type == '2' ? '2' : '0') < 0) {
			snprintf(why, why_size, "out of memory");
			rc = -1;
			break;
		}
		if (write && (rc = extract(r, &e, p, cache_fd, verbose, counts, why, why_size)) < 0)
			break;
	}
	if (got < 0) {
		snprintf(why, why_size, "%s", tar_read_error(r));
		rc = -1;
	}
	seen_free(&seen);
	free(p);
	return rc;
}

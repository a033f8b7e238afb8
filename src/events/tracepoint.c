/* SPDX-License-Identifier: MIT */
/*
 * tracepoint.c - tracepoints by name, through tracefs.
 *
 * Finding tracefs reads /proc/self/mounts; listing and looking up
 * tracepoints read <tracefs>/events/<system>/<name>/id. Every function takes
 * the tracefs path as an argument, so tests point them at a plain directory
 * tree (tests/fixtures/tracefs).
 *
 * libtracefs is not used here, on purpose: tracefs_tracing_dir() and
 * tracefs_event_systems(NULL) mount tracefs (and, failing that, debugfs)
 * behind the caller's back, print warnings on stderr, and lose errno, which
 * the diagnosis needs (EACCES versus ENOENT). Reading the directories with
 * openat() is also cheaper than its stat()-per-entry lists.
 */
#include "perfev/tracepoint.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error_internal.h"
#include "core/suggest.h"
#include "core/util.h"

#define TRACEFS_DEFAULT    "/sys/kernel/tracing"
#define TRACEFS_MOUNT_HINT "mount -t tracefs nodev /sys/kernel/tracing"


/* ---- finding tracefs ----------------------------------------------------- */

/* Formats a path into buf (size bytes). Returns false when it did not fit. */
static bool PEV_PRINTF(3, 4) build_path(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Looks for tracefs in the mount table: a tracefs mount (the one at
 * /sys/kernel/tracing when there are several), else the tracing/ directory
 * of a mounted debugfs. Writes it into out (PATH_MAX bytes). Returns 1 when
 * found, 0 when not, -errno when the mount table cannot be read.
 */
static int find_tracefs(char *out)
{
	char debugfs[PATH_MAX] = "";
	bool found = false;
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/self/mounts", "re");

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char *save = NULL;
		char *dev = strtok_r(line, " \t\n", &save);
		char *dir = dev ? strtok_r(NULL, " \t\n", &save) : NULL;
		char *type = dir ? strtok_r(NULL, " \t\n", &save) : NULL;

		if (!type)
			continue;
		pev__unescape_mount_path(dir);
		if (strcmp(type, "tracefs") == 0) {
			if (!found || strcmp(dir, TRACEFS_DEFAULT) == 0)
				pev__strlcpy(out, dir, PATH_MAX);
			found = true;
		} else if (strcmp(type, "debugfs") == 0 && !debugfs[0]) {
			if (!build_path(debugfs, sizeof(debugfs), "%s/tracing", strcmp(dir, "/") ? dir : ""))
				debugfs[0] = '\0';
		}
	}
	free(line);
	fclose(f);
	if (found)
		return 1;
	if (debugfs[0] && is_dir(debugfs)) {
		pev__strlcpy(out, debugfs, PATH_MAX);
		return 1;
	}
	return 0;
}

/* Without a readable mount table (no /proc), trusts the usual places if they hold events/. */
static int guess_tracefs(char *out)
{
	static const char *const places[] = {TRACEFS_DEFAULT, "/sys/kernel/debug/tracing"};

	for (size_t i = 0; i < PEV_ARRAY_SIZE(places); i++) {
		char events[64];
		build_path(events, sizeof(events), "%s/events", places[i]);
		if (is_dir(events)) {
			pev__strlcpy(out, places[i], PATH_MAX);
			return 1;
		}
	}
	return 0;
}

static int not_mounted(struct pev_error *err, bool tried, int mount_errno)
{
	pev__error_start(err, PEV_ENOENT, tried ? mount_errno : ENOENT, tried ? "mount" : NULL,
			 NULL, true);
	pev__error_msg(err, "tracefs is not mounted, so tracepoints cannot be found by name");
	if (!tried) {
		pev__error_msg(err, " (mounting it was not allowed)");
		pev__error_hint(err, "mount it as root: " TRACEFS_MOUNT_HINT);
		return PEV_ENOENT;
	}
	pev__error_msg(err, "; mounting it at " TRACEFS_DEFAULT " failed: %s", strerror(mount_errno));
	switch (mount_errno) {
	case EPERM:
	case EACCES:
		pev__error_msg(err, " (mounting needs CAP_SYS_ADMIN, which this process lacks)");
		pev__error_hint(err, "mount it as root: " TRACEFS_MOUNT_HINT);
		pev__error_hint(err, "or run this program as root, and it mounts tracefs itself");
		pev__error_hint(err, "or mount it at every boot: add 'tracefs " TRACEFS_DEFAULT
				     " tracefs defaults 0 0' to /etc/fstab");
		break;
	case ENODEV:
		pev__error_msg(err, " (this kernel has no tracefs: it was built without "
				    "CONFIG_TRACING)");
		pev__error_hint(err, "use a kernel built with CONFIG_FTRACE and CONFIG_TRACING");
		break;
	case ENOENT:
	case ENOTDIR:
		pev__error_msg(err, " (" TRACEFS_DEFAULT " does not exist: is sysfs mounted?)");
		pev__error_hint(err, "mount sysfs first: mount -t sysfs sysfs /sys; then " TRACEFS_MOUNT_HINT);
		break;
	default:
		pev__error_hint(err, "mount it as root: " TRACEFS_MOUNT_HINT);
		break;
	}
	return PEV_ENOENT;
}

static int copy_path(const char *path, char *buf, size_t size, struct pev_error *err)
{
	size_t len = strlen(path);

	if (len >= size)
		return pev__bad_arg(err, "pev_tracefs_path", "size",
				    "%zu bytes cannot hold the tracefs path '%s' (%zu bytes)", size,
				    path, len + 1);
	memcpy(buf, path, len + 1);
	return 0;
}

PEV_API int pev_tracefs_path(bool may_mount, char *buf, size_t size, struct pev_error *err)
{
	char path[PATH_MAX];
	int found;

	pev__error_clear(err);
	if (!buf)
		return pev__bad_arg(err, "pev_tracefs_path", "buf", "NULL");
	if (size == 0)
		return pev__bad_arg(err, "pev_tracefs_path", "size", "0");
	buf[0] = '\0';
	found = find_tracefs(path);
	if (found < 0)
		found = guess_tracefs(path);
	if (found > 0)
		return copy_path(path, buf, size, err);
	if (!may_mount)
		return not_mounted(err, false, 0);
	if (mount("nodev", TRACEFS_DEFAULT, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0)
		return copy_path(TRACEFS_DEFAULT, buf, size, err);
	int mount_errno = errno;
	/* Someone may have mounted it meanwhile. */
	if (find_tracefs(path) > 0)
		return copy_path(path, buf, size, err);
	return not_mounted(err, true, mount_errno);
}

/* ---- errors shared by the walk and the lookup ----------------------------- */

/* Explains an error opening something under tracefs (path) and returns the code. */
static int read_error(struct pev_error *err, int errnum, const char *tracefs, const char *path,
		      const char *event)
{
	int code;

	switch (errnum) {
	case EACCES:
	case EPERM:
		code = pev__error_start(err, PEV_EACCES, errnum, "open", event, true);
		pev__error_msg(err, "cannot read %s: %s (tracefs is readable only by root by default; "
				    "it can give its group access, never other users)",
			       path, strerror(errnum));
		pev__error_hint(err, "run as root");
		pev__error_hint(err, "or give a group access (as root): mount -o remount,gid=GROUP,"
				     "mode=750 %s, and add the user to GROUP",
				tracefs);
		return code;
	case ENOENT:
	case ENOTDIR:
		code = pev__error_start(err, PEV_ENOENT, errnum, "open", event, true);
		pev__error_msg(err, "%s does not exist: tracefs is not mounted at %s", path, tracefs);
		pev__error_hint(err, "mount it (as root): " TRACEFS_MOUNT_HINT);
		return code;
	default:
		code = pev__error_start(err, pev_error_from_errno(errnum), errnum, "open", event,
					true);
		pev__error_msg(err, "cannot read %s: %s", path, strerror(errnum));
		return code;
	}
}

static int no_memory(struct pev_error *err, const char *event)
{
	pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, event, true);
	pev__error_msg(err, "out of memory while reading tracefs");
	return PEV_ENOMEM;
}

/* ---- directory listings --------------------------------------------------- */

struct names {
	char **v;
	size_t n, cap;
};

static void names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	*ns = (struct names){0};
}

static int names_add(struct names *ns, const char *s)
{
	if (ns->n == ns->cap) {
		size_t cap = ns->cap ? ns->cap * 2 : 64;
		char **v = realloc(ns->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		ns->v = v;
		ns->cap = cap;
	}
	if (!(ns->v[ns->n] = strdup(s)))
		return -ENOMEM;
	ns->n++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Lists the entries of directory dfd (which stays open) that may be
 * directories and match glob (NULL: all), sorted. Entries the directory
 * listing says are files (enable, filter, header_page) are left out; the
 * caller weeds out the rest when it opens them. Returns 0 or -errno.
 */
static int list_dirs(int dfd, const char *glob, struct names *out)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *e;
	int r = 0;

	if (fd < 0)
		return -errno;
	if (!(d = fdopendir(fd))) {
		r = -errno;
		close(fd);
		return r;
	}
	errno = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN && e->d_type != DT_LNK)
			continue;
		if (glob && fnmatch(glob, e->d_name, 0) != 0)
			continue;
		if ((r = names_add(out, e->d_name)) < 0)
			break;
		errno = 0;
	}
	if (r == 0 && errno != 0)
		r = -errno;
	closedir(d);
	if (r < 0) {
		names_free(out);
		return r;
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(out->v[0]), cmp_names);
	return 0;
}

/*
 * Reads <dfd>/<name>/id. Returns 0 and sets *id; 1 when name is not a
 * tracepoint (no id file, not a directory, not a number); -errno otherwise.
 */
static int read_id_at(int dfd, const char *name, uint64_t *id)
{
	char rel[NAME_MAX + 4], text[32];
	int len, fd;

	if (!build_path(rel, sizeof(rel), "%s/id", name))
		return 1;
	fd = openat(dfd, rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? 1 : -errno;
	len = pev__read_fd(fd, text, sizeof(text));
	close(fd);
	if (len < 0)
		return len;
	while (len > 0 && isspace((unsigned char)text[len - 1]))
		text[--len] = '\0';
	return pev__parse_u64(text, id) ? 0 : 1;
}

/* ---- walking ------------------------------------------------------------- */

PEV_API int pev_tracepoints_foreach(const char *tracefs, const char *system_glob,
				    const char *name_glob, pev_tracepoint_fn fn, void *ctx,
				    struct pev_error *err)
{
	char events[PATH_MAX], path[PATH_MAX];
	struct names systems = {0};
	int efd, r = 0, count = 0;

	pev__error_clear(err);
	if (!tracefs || !tracefs[0])
		return pev__bad_arg(err, "pev_tracepoints_foreach", "tracefs",
				    "%s (pass the path pev_tracefs_path() finds)",
				    tracefs ? "empty" : "NULL");
	if (!fn)
		return pev__bad_arg(err, "pev_tracepoints_foreach", "fn", "NULL");
	if (!build_path(events, sizeof(events), "%s/events", tracefs))
		return pev__bad_arg(err, "pev_tracepoints_foreach", "tracefs", "path too long");
	efd = open(events, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (efd < 0)
		return read_error(err, errno, tracefs, events, NULL);
	if ((r = list_dirs(efd, system_glob, &systems)) < 0) {
		close(efd);
		return r == -ENOMEM ? no_memory(err, NULL) : read_error(err, -r, tracefs, events, NULL);
	}
	for (size_t s = 0; s < systems.n && r == 0; s++) {
		const char *system = systems.v[s];
		struct names tps = {0};
		int sfd = openat(efd, system, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (sfd < 0) {
			/* A file after all, or a system that went away meanwhile. */
			if (errno == ENOENT || errno == ENOTDIR)
				continue;
			build_path(path, sizeof(path), "%s/%s", events, system);
			r = read_error(err, errno, tracefs, path, NULL);
			break;
		}
		if ((r = list_dirs(sfd, name_glob, &tps)) < 0) {
			build_path(path, sizeof(path), "%s/%s", events, system);
			r = r == -ENOMEM ? no_memory(err, NULL) : read_error(err, -r, tracefs, path, NULL);
		}
		for (size_t i = 0; i < tps.n && r == 0; i++) {
			struct pev_tracepoint tp = {.system = system, .name = tps.v[i]};
			int got = read_id_at(sfd, tps.v[i], &tp.id);

			if (got > 0)
				continue;
			if (got < 0) {
				build_path(path, sizeof(path), "%s/%s/%s/id", events, system, tps.v[i]);
				r = read_error(err, -got, tracefs, path, NULL);
				break;
			}
			r = fn(&tp, ctx);
			if (r == 0)
				count++;
		}
		names_free(&tps);
		close(sfd);
	}
	names_free(&systems);
	close(efd);
	return r != 0 ? r : count;
}

/* ---- lookup and suggestions ---------------------------------------------- */

/* Collects the directory entries of path closest to word. Returns how many. */
static int closest_names(const char *path, const char *word, struct pev_suggest *sg)
{
	struct names all = {0};
	int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	pev__suggest_init(sg, word);
	if (dfd < 0)
		return 0;
	if (list_dirs(dfd, NULL, &all) < 0) {
		close(dfd);
		return 0;
	}
	close(dfd);
	/* all is sorted, so equally close names come out in alphabetical order. */
	for (size_t i = 0; i < all.n; i++)
		pev__suggest_add(sg, all.v[i]);
	names_free(&all);
	return sg->n;
}

static int not_found(struct pev_error *err, const char *tracefs, const char *events,
		     const char *system, const char *name, const char *event)
{
	struct pev_suggest best;
	char path[PATH_MAX];
	int n;
	bool system_exists;

	build_path(path, sizeof(path), "%s/%s", events, system);
	system_exists = is_dir(path);
	pev__error_start(err, PEV_ENOTFOUND, ENOENT, NULL, event, true);
	if (!err)
		return PEV_ENOTFOUND;
	if (system_exists) {
		pev__error_msg(err, "no tracepoint '%s:%s' in %s: system '%s' has no event '%s'",
			       system, name, tracefs, system, name);
		n = closest_names(path, name, &best);
		for (int i = 0; i < n; i++)
			pev__error_hint(err, "%s'%s:%s'?", i ? "or " : "did you mean ", system,
					best.name[i]);
		pev__error_hint(err, "%ssee the tracepoints of '%s': ls %s", n ? "or " : "", system,
				path);
		return PEV_ENOTFOUND;
	}
	pev__error_msg(err, "no tracepoint '%s:%s' in %s: there is no tracepoint system '%s'",
		       system, name, tracefs, system);
	n = closest_names(events, system, &best);
	for (int i = 0; i < n; i++) {
		char id[PATH_MAX];
		build_path(id, sizeof(id), "%s/%s/%s/id", events, best.name[i], name);
		if (access(id, F_OK) == 0)
			pev__error_hint(err, "%s'%s:%s'?", i ? "or " : "did you mean ", best.name[i],
					name);
		else
			pev__error_hint(err, "%ssystem '%s'?", i ? "or " : "did you mean ",
					best.name[i]);
	}
	pev__error_hint(err, "%ssee the tracepoint systems: ls %s", n ? "or " : "", events);
	return PEV_ENOTFOUND;
}

/* A system or event name is one path component: not empty, no '/', not "." or "..". */
static bool bad_component(const char *s)
{
	return !s[0] || strchr(s, '/') || strcmp(s, ".") == 0 || strcmp(s, "..") == 0;
}

PEV_API int pev_tracepoint_id(const char *tracefs, const char *system, const char *name,
			      uint64_t *id, struct pev_error *err)
{
	static const char func[] = "pev_tracepoint_id";
	char events[PATH_MAX], path[PATH_MAX], event[96], text[32];
	int r;

	pev__error_clear(err);
	if (!tracefs || !tracefs[0])
		return pev__bad_arg(err, func, "tracefs", "%s (pass the path pev_tracefs_path() finds)",
				    tracefs ? "empty" : "NULL");
	if (!system || bad_component(system))
		return pev__bad_arg(err, func, "system", "%s%s%s", system ? "'" : "NULL",
				    system ? system : "", system ? "' is not a tracepoint system name" : "");
	if (!name || bad_component(name))
		return pev__bad_arg(err, func, "name", "%s%s%s", name ? "'" : "NULL",
				    name ? name : "", name ? "' is not a tracepoint name" : "");
	if (!id)
		return pev__bad_arg(err, func, "id", "NULL");
	if (!build_path(events, sizeof(events), "%s/events", tracefs) ||
	    !build_path(path, sizeof(path), "%s/%s/%s/id", events, system, name))
		return pev__bad_arg(err, func, "tracefs", "path too long");
	snprintf(event, sizeof(event), "%s:%s", system, name);

	r = pev__read_text(path, text, sizeof(text));
	if (r >= 0) {
		if (pev__parse_u64(text, id))
			return 0;
		pev__error_start(err, PEV_EFORMAT, 0, NULL, event, true);
		pev__error_msg(err, "%s does not hold a tracepoint id: '%s'", path, text);
		return PEV_EFORMAT;
	}
	if (r != -ENOENT && r != -ENOTDIR)
		return read_error(err, -r, tracefs, path, event);
	/* Is it the tracepoint that is missing, or tracefs itself? */
	if (faccessat(AT_FDCWD, events, X_OK, AT_EACCESS) < 0)
		return read_error(err, errno, tracefs, events, event);
	return not_found(err, tracefs, events, system, name, event);
}

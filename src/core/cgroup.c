/* SPDX-License-Identifier: MIT */
/*
 * cgroup.c - control groups as perf events see them: the hierarchies'
 * mount points (from /proc/self/mountinfo), names to directories, the
 * kernel's ids (a directory's file handle), container ids in paths, and a
 * table of ids to paths.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfev/cgroup.h"
#include "core/error_internal.h"
#include "core/util.h"

/* Which hierarchy a mountinfo search looks for. */
enum hierarchy {
	HIER_V2,         /* a cgroup2 mount */
	HIER_PERF_EVENT, /* a cgroup (v1) mount with the perf_event controller */
};

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *w = s;

	for (const char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* Whether the comma-separated list opts holds word. */
static bool has_option(const char *opts, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, word, n) && (p[n] == ',' || p[n] == '\0' || isspace((unsigned char)p[n])))
			return true;
	return false;
}

/*
 * The first mount of hierarchy h into buf. A mountinfo line: ID PARENT
 * MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPEROPTIONS.
 * Returns 0, PEV_EUNSUPPORTED (none) or PEV_EBADARG (buf too small).
 */
static int find_mount(enum hierarchy h, char *buf, size_t size)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int r = PEV_EUNSUPPORTED;

	if (!f)
		return PEV_EUNSUPPORTED;
	while (r == PEV_EUNSUPPORTED && getline(&line, &cap, f) > 0) {
		char mnt[PATH_MAX], fstype[64], super[512];
		const char *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(dash + 3, "%63s %*s %511s", fstype, super) != 2)
			continue;
		bool match = h == HIER_V2 ? !strcmp(fstype, "cgroup2")
					  : !strcmp(fstype, "cgroup") && has_option(super, "perf_event");
		if (!match)
			continue;
		unescape(mnt);
		r = strlen(mnt) < size ? 0 : PEV_EBADARG;
		if (!r)
			memcpy(buf, mnt, strlen(mnt) + 1);
	}
	free(line);
	fclose(f);
	return r;
}

PEV_API int pev_cgroup_v2_root(char *buf, size_t size)
{
	if (!buf || !size)
		return pev__bad_arg(NULL, "pev_cgroup_v2_root", "buf", "NULL or empty");
	return find_mount(HIER_V2, buf, size);
}

PEV_API int pev_cgroup_events_root(char *buf, size_t size)
{
	if (!buf || !size)
		return pev__bad_arg(NULL, "pev_cgroup_events_root", "buf", "NULL or empty");
	int r = find_mount(HIER_PERF_EVENT, buf, size);
	return r == PEV_EUNSUPPORTED ? find_mount(HIER_V2, buf, size) : r;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

PEV_API int pev_cgroup_dir(const char *name, char *buf, size_t size, struct pev_error *err)
{
	char root[PATH_MAX];
	size_t rn;

	if (!name || !buf || !size)
		return pev__bad_arg(err, "pev_cgroup_dir", !name ? "name" : "buf", "NULL or empty");
	int r = pev_cgroup_events_root(root, sizeof(root));
	if (r == PEV_EUNSUPPORTED) {
		pev__error_start(err, r, 0, NULL, NULL, true);
		pev__error_field(err, "cgroup");
		pev__error_msg(err, "cannot find cgroup '%s': no cgroup v2 hierarchy and no cgroup "
				    "v1 perf_event hierarchy is mounted",
			       name);
		pev__error_hint(err, "mount one: mount -t cgroup2 none /sys/fs/cgroup");
		return r;
	}
	if (r)
		return r;
	rn = strlen(root);
	/* An absolute path inside the hierarchy names the directory itself. */
	if (!strncmp(name, root, rn) && (name[rn] == '/' || name[rn] == '\0') && is_dir(name)) {
		if (strlen(name) >= size)
			return pev__bad_arg(err, "pev_cgroup_dir", "size", "too small for '%s'", name);
		memcpy(buf, name, strlen(name) + 1);
		return 0;
	}
	while (*name == '/')
		name++;
	if ((size_t)snprintf(buf, size, "%s%s%s", root, *name ? "/" : "", name) >= size)
		return pev__bad_arg(err, "pev_cgroup_dir", "size", "too small for '%s'", name);
	if (!is_dir(buf)) {
		pev__error_start(err, PEV_ENOTFOUND, errno, NULL, NULL, true);
		pev__error_field(err, "cgroup");
		pev__error_msg(err, "no cgroup '/%s': '%s' is not a directory", name, buf);
		pev__error_hint(err, "cgroup names are paths under %s (list them with: find %s "
				     "-type d); a container's cgroup is in /proc/PID/cgroup",
				root, root);
		return PEV_ENOTFOUND;
	}
	return 0;
}

PEV_API int pev_cgroup_id(const char *dir, uint64_t *id)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[64];
	} h;
	int mount_id;

	if (!dir || !id)
		return pev__bad_arg(NULL, "pev_cgroup_id", !dir ? "dir" : "id", "NULL");
	memset(&h, 0, sizeof(h));
	h.fh.handle_bytes = sizeof(h.bytes);
	if (name_to_handle_at(AT_FDCWD, dir, &h.fh, &mount_id, 0) < 0)
		return -errno;
	/* cgroup file systems (kernfs) hand out the node's 64-bit id as the handle. */
	if (h.fh.handle_bytes != sizeof(uint64_t))
		return -EOPNOTSUPP;
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

/* ---- container ids ---------------------------------------------------------- */

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

/*
 * The container id in one path component (n bytes at c): the component is
 * the id, or a runtime's prefix, the id and ".scope". Returns its start or NULL.
 */
static const char *component_id(const char *c, size_t n)
{
	static const char *const prefixes[] = {"docker-", "cri-containerd-", "crio-", "libpod-",
					       "containerd-", ""};
	const size_t idlen = 64;

	if (n > 6 && !memcmp(c + n - 6, ".scope", 6))
		n -= 6;
	for (size_t i = 0; i < PEV_ARRAY_SIZE(prefixes); i++) {
		size_t pn = strlen(prefixes[i]);
		if (n == pn + idlen && !memcmp(c, prefixes[i], pn) && all_hex(c + pn, idlen))
			return c + pn;
	}
	return NULL;
}

PEV_API int pev_cgroup_container_id(const char *path, char *buf, size_t size)
{
	if (!path || !buf || size < 65)
		return pev__bad_arg(NULL, "pev_cgroup_container_id", !path ? "path" : "buf",
				    "NULL or under 65 bytes");
	buf[0] = '\0';
	/* From the innermost component out: a container may nest cgroups of its own. */
	const char *end = path + strlen(path);
	while (end > path) {
		const char *start = end;
		while (start > path && start[-1] != '/')
			start--;
		const char *id = component_id(start, (size_t)(end - start));
		if (id) {
			memcpy(buf, id, 64);
			buf[64] = '\0';
			return 1;
		}
		end = start > path ? start - 1 : path;
	}
	return 0;
}

/* ---- the table of ids to paths --------------------------------------------- */

struct cgroup_entry {
	uint64_t id;
	char *path;
};

struct pev_cgroup_names {
	struct cgroup_entry *entries; /* in the order added */
	size_t n, cap;
	uint32_t *slots; /* open addressing: index + 1, 0 empty */
	size_t mask;     /* slots - 1, or 0 before the first add */
};

static size_t slot_of(uint64_t id, size_t mask)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (size_t)id & mask;
}

/* The index of id's entry, or SIZE_MAX. */
static size_t find_index(const struct pev_cgroup_names *t, uint64_t id)
{
	if (!t->mask)
		return SIZE_MAX;
	for (size_t i = slot_of(id, t->mask);; i = (i + 1) & t->mask) {
		uint32_t v = t->slots[i];
		if (!v)
			return SIZE_MAX;
		if (t->entries[v - 1].id == id)
			return v - 1;
	}
}

/* Doubles the slots (kept under half full). Returns 0 or PEV_ENOMEM. */
static int grow_slots(struct pev_cgroup_names *t)
{
	size_t nslots = t->mask ? (t->mask + 1) * 2 : 64;
	uint32_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return PEV_ENOMEM;
	for (size_t e = 0; e < t->n; e++) {
		size_t i = slot_of(t->entries[e].id, nslots - 1);
		while (slots[i])
			i = (i + 1) & (nslots - 1);
		slots[i] = (uint32_t)(e + 1);
	}
	free(t->slots);
	t->slots = slots;
	t->mask = nslots - 1;
	return 0;
}

PEV_API int pev_cgroup_names_new(struct pev_cgroup_names **out)
{
	if (!out)
		return pev__bad_arg(NULL, "pev_cgroup_names_new", "out", "NULL");
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : PEV_ENOMEM;
}

PEV_API void pev_cgroup_names_free(struct pev_cgroup_names *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->entries[i].path);
	free(t->entries);
	free(t->slots);
	free(t);
}

PEV_API int pev_cgroup_names_add(struct pev_cgroup_names *t, uint64_t id, const char *path)
{
	if (!t || !path)
		return pev__bad_arg(NULL, "pev_cgroup_names_add", !t ? "names" : "path", "NULL");
	char *copy = strdup(path);
	if (!copy)
		return PEV_ENOMEM;
	size_t at = find_index(t, id);
	if (at != SIZE_MAX) {
		free(t->entries[at].path);
		t->entries[at].path = copy;
		return 0;
	}
	if (t->n >= UINT32_MAX - 1 || ((t->n + 1) * 2 > t->mask && grow_slots(t) < 0)) {
		free(copy);
		return PEV_ENOMEM;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 32;
		struct cgroup_entry *e = realloc(t->entries, cap * sizeof(*e));
		if (!e) {
			free(copy);
			return PEV_ENOMEM;
		}
		t->entries = e;
		t->cap = cap;
	}
	t->entries[t->n] = (struct cgroup_entry){.id = id, .path = copy};
	size_t i = slot_of(id, t->mask);
	while (t->slots[i])
		i = (i + 1) & t->mask;
	t->slots[i] = (uint32_t)++t->n;
	return 0;
}

PEV_API const char *pev_cgroup_names_find(const struct pev_cgroup_names *t, uint64_t id)
{
	size_t at = t ? find_index(t, id) : SIZE_MAX;

	return at == SIZE_MAX ? NULL : t->entries[at].path;
}

PEV_API size_t pev_cgroup_names_count(const struct pev_cgroup_names *t)
{
	return t ? t->n : 0;
}

PEV_API int pev_cgroup_names_at(const struct pev_cgroup_names *t, size_t i, uint64_t *id,
				const char **path)
{
	if (!t || i >= t->n)
		return pev__bad_arg(NULL, "pev_cgroup_names_at", !t ? "names" : "i",
				    "NULL or out of range");
	if (id)
		*id = t->entries[i].id;
	if (path)
		*path = t->entries[i].path;
	return 0;
}

/* Deepest nesting the walk follows (the kernel's default limit is far above real trees). */
#define SCAN_MAX_DEPTH 64

/* Adds dir (rel: its path from the root, "/" for the root) and its children. */
static int scan_dir(struct pev_cgroup_names *t, char *abs, size_t cap, const char *rel, int depth)
{
	uint64_t id;
	int added = 0;

	if (pev_cgroup_id(abs, &id) < 0)
		return 0; /* gone, or not a cgroup file system */
	int r = pev_cgroup_names_add(t, id, rel);
	if (r < 0)
		return r;
	added++;
	if (depth >= SCAN_MAX_DEPTH)
		return added;
	DIR *d = opendir(abs);
	if (!d)
		return added;
	size_t an = strlen(abs), rn = strlen(rel);
	char *child_rel = malloc(cap);
	if (!child_rel) {
		closedir(d);
		return PEV_ENOMEM;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		size_t nn = strlen(de->d_name);
		if (an + 1 + nn >= cap || rn + 1 + nn >= cap)
			continue;
		abs[an] = '/';
		memcpy(abs + an + 1, de->d_name, nn + 1);
		snprintf(child_rel, cap, "%s%s%s", rn > 1 ? rel : "", "/", de->d_name);
		r = scan_dir(t, abs, cap, child_rel, depth + 1);
		abs[an] = '\0';
		if (r < 0) {
			added = r;
			break;
		}
		added += r;
	}
	free(child_rel);
	closedir(d);
	return added;
}

PEV_API int pev_cgroup_names_scan(struct pev_cgroup_names *t, const char *root)
{
	char abs[PATH_MAX];

	if (!t)
		return pev__bad_arg(NULL, "pev_cgroup_names_scan", "names", "NULL");
	if (root) {
		if (strlen(root) >= sizeof(abs))
			return pev__bad_arg(NULL, "pev_cgroup_names_scan", "root", "too long");
		memcpy(abs, root, strlen(root) + 1);
	} else {
		int r = pev_cgroup_v2_root(abs, sizeof(abs));
		if (r < 0)
			return r;
	}
	size_t n = strlen(abs);
	while (n > 1 && abs[n - 1] == '/')
		abs[--n] = '\0';
	return scan_dir(t, abs, sizeof(abs), "/", 0);
}

/* SPDX-License-Identifier: MIT */
/*
 * buildid_cache.c - writing, listing and pruning perf's build-id cache
 * (layout in buildid_cache.h). Files are hard-linked into the cache when
 * it is on the same file system, as perf does, and copied otherwise.
 * Nothing is written through a symbolic link but the .build-id links the
 * cache is made of, and only regular files are read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdint.h>
#include <link.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid_cache.h"

#define GNU_BUILD_ID 3 /* NT_GNU_BUILD_ID */

bool bc_dir(char *buf, size_t size)
{
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");

	if (env && env[0])
		return snprintf(buf, size, "%s", env) < (int)size;
	if (home && home[0])
		return snprintf(buf, size, "%s/.debug", home) < (int)size;
	return false;
}

void bc_hex(char *out, const unsigned char *id, size_t len)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * len] = '\0';
}

size_t bc_note_build_id(const unsigned char *p, size_t len, unsigned char *id, size_t max)
{
	size_t at = 0;

	while (at + 12 <= len) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + at, 4);
		memcpy(&descsz, p + at + 4, 4);
		memcpy(&type, p + at + 8, 4);
		size_t name_at = at + 12, desc_at = name_at + ((namesz + 3) & ~3U);
		size_t next = desc_at + ((descsz + 3) & ~3U);
		if (next > len || next <= at)
			return 0;
		if (type == GNU_BUILD_ID && namesz == 4 && memcmp(p + name_at, "GNU", 4) == 0 &&
		    descsz > 0 && descsz <= max) {
			memcpy(id, p + desc_at, descsz);
			return descsz;
		}
		at = next;
	}
	return 0;
}

/* Opens path for reading when it is a regular file (never a FIFO or device); -1 otherwise. */
static int open_regular(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

size_t bc_file_build_id(const char *path, unsigned char *id, size_t max)
{
	size_t got = 0;
	int fd = open_regular(path);

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	for (Elf_Scn *scn = NULL; e && !got && (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_rawdata(scn, NULL);
		if (data && data->d_buf)
			got = bc_note_build_id(data->d_buf, data->d_size, id, max);
	}
	if (e)
		elf_end(e);
	close(fd);
	return got;
}

size_t bc_kernel_build_id(unsigned char *id, size_t max)
{
	unsigned char buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 ? bc_note_build_id(buf, (size_t)n, id, max) : 0;
}

/*
 * The image is the ELF file as it is, its size the end of its headers'
 * tables; its PT_NOTE segments hold the build id.
 */
size_t bc_vdso(const void **image, size_t *size, unsigned char *id, size_t max)
{
	const unsigned char *base = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	ElfW(Ehdr) eh;
	size_t end;

	if (!base)
		return 0;
	memcpy(&eh, base, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_phentsize != sizeof(ElfW(Phdr)))
		return 0;
	end = eh.e_phoff + (size_t)eh.e_phnum * eh.e_phentsize;
	if (eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize > end)
		end = eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
	for (size_t i = 0; i < eh.e_phnum; i++) {
		ElfW(Phdr) ph;
		size_t got;

		memcpy(&ph, base + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_NOTE || ph.p_offset > end || ph.p_filesz > end - ph.p_offset)
			continue;
		got = bc_note_build_id(base + ph.p_offset, ph.p_filesz, id, max);
		if (got) {
			*image = base;
			*size = end;
			return got;
		}
	}
	return 0;
}

int bc_make_dirs(const char *dir)
{
	char p[PATH_MAX];
	size_t len = strlen(dir);

	if (len >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, dir, len + 1);
	for (size_t i = 1; i <= len; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		char c = p[i];
		p[i] = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST)
			return -errno;
		p[i] = c;
	}
	return 0;
}

/* Writes size bytes to fd. Returns 0 or a negative errno. */
static int write_all(int fd, const void *buf, size_t size)
{
	const char *p = buf;

	while (size) {
		ssize_t n = write(fd, p, size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		size -= (size_t)n;
	}
	return 0;
}

/*
 * Puts src (a path; or, when NULL, size bytes at mem) at dst, a new file:
 * a hard link when link_ok and the file system allows, else a copy with
 * mode. An existing dst is left as it is. Returns 0 or a negative errno.
 */
static int put_file(const char *dst, const char *src, const void *mem, size_t size,
		    mode_t mode, bool link_ok)
{
	char buf[65536];
	int in = -1, out, r = 0;

	if (src && link_ok && (link(src, dst) == 0 || errno == EEXIST))
		return 0;
	if (src && (in = open_regular(src)) < 0)
		return -ENOENT;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (out < 0) {
		r = errno == EEXIST ? 0 : -errno;
		if (in >= 0)
			close(in);
		return r;
	}
	if (!src) {
		r = write_all(out, mem, size);
	} else {
		for (;;) {
			ssize_t n = read(in, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				r = n < 0 ? -errno : 0;
				break;
			}
			if ((r = write_all(out, buf, (size_t)n)) < 0)
				break;
		}
		close(in);
	}
	if (close(out) != 0 && !r)
		r = -errno;
	if (r < 0)
		unlink(dst);
	return r;
}

/* The .build-id link of id into link (and its directory into dir). */
static bool link_path(const char *cache, const unsigned char *id, size_t len, char *dir,
		      size_t dsize, char *lnk, size_t lsize)
{
	char hex[2 * BC_ID_MAX + 1];

	if (!len || len > BC_ID_MAX)
		return false;
	bc_hex(hex, id, len);
	return snprintf(dir, dsize, "%s/.build-id/%.2s", cache, hex) < (int)dsize &&
	       snprintf(lnk, lsize, "%s/%s", dir, hex + 2) < (int)lsize;
}

bool bc_has(const char *cache, const unsigned char *id, size_t len)
{
	char dir[PATH_MAX], lnk[PATH_MAX];
	struct stat st;

	/* stat follows the link: an entry whose directory is gone is no entry. */
	return link_path(cache, id, len, dir, sizeof(dir), lnk, sizeof(lnk)) &&
	       stat(lnk, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Makes DIR/NAME/HEX (into entry) and the .build-id link to it. name is a
 * path without its leading slash, or "[kernel.kallsyms]" and the like.
 */
static int make_entry(const char *cache, const char *name, const unsigned char *id, size_t len,
		      char *entry, size_t esize)
{
	char hex[2 * BC_ID_MAX + 1], dir[PATH_MAX], lnk[PATH_MAX], target[PATH_MAX];
	int r;

	if (!link_path(cache, id, len, dir, sizeof(dir), lnk, sizeof(lnk)))
		return -EINVAL;
	bc_hex(hex, id, len);
	if (snprintf(entry, esize, "%s/%s/%s", cache, name, hex) >= (int)esize ||
	    snprintf(target, sizeof(target), "../../%s/%s", name, hex) >= (int)sizeof(target))
		return -ENAMETOOLONG;
	if ((r = bc_make_dirs(entry)) < 0 || (r = bc_make_dirs(dir)) < 0)
		return r;
	if (symlink(target, lnk) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* The debug file of build id hex under the debug directory, into out; false when none. */
static bool find_debug(const char *hex, char *out, size_t size)
{
	const char *env = getenv("PERFEV_DEBUG_DIR");
	const char *root = env && env[0] ? env : "/usr/lib/debug";
	struct stat st;

	return snprintf(out, size, "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2) < (int)size &&
	       stat(out, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * Whether path is absolute with no empty, "." or ".." component: its entry
 * then lies inside the cache, whatever a perf.data names.
 */
static bool plain_path(const char *path)
{
	if (path[0] != '/')
		return false;
	for (const char *p = path; *p; p++) {
		if (*p != '/')
			continue;
		if (p[1] == '/' || p[1] == '\0' ||
		    (p[1] == '.' && (p[2] == '/' || p[2] == '\0' ||
				     (p[2] == '.' && (p[3] == '/' || p[3] == '\0')))))
			return false;
	}
	return true;
}

int bc_add_file(const char *cache, const char *path, const unsigned char *id, size_t len)
{
	char entry[PATH_MAX], file[PATH_MAX], debug[PATH_MAX], hex[2 * BC_ID_MAX + 1];
	struct stat st;
	int r;

	if (!plain_path(path) || !len || len > BC_ID_MAX)
		return -EINVAL;
	if (bc_has(cache, id, len))
		return 0;
	if (stat(path, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((r = make_entry(cache, path + 1, id, len, entry, sizeof(entry))) < 0)
		return r;
	if (snprintf(file, sizeof(file), "%s/elf", entry) >= (int)sizeof(file))
		return -ENAMETOOLONG;
	if ((r = put_file(file, path, NULL, 0, st.st_mode & 07777, true)) < 0)
		return r;
	bc_hex(hex, id, len);
	if (find_debug(hex, debug, sizeof(debug)) &&
	    snprintf(file, sizeof(file), "%s/debug", entry) < (int)sizeof(file))
		put_file(file, debug, NULL, 0, 0644, true); /* the copy of the file is what matters */
	return 1;
}

int bc_add_special(const char *cache, const char *name, const char *file, const unsigned char *id,
		   size_t len, const char *src, const void *mem, size_t size)
{
	char entry[PATH_MAX], path[PATH_MAX];
	int r;

	if (bc_has(cache, id, len))
		return 0;
	if ((r = make_entry(cache, name, id, len, entry, sizeof(entry))) < 0)
		return r;
	if (snprintf(path, sizeof(path), "%s/%s", entry, file) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	/* A /proc file is not regular and reads as size 0: copied, never linked. */
	if (src) {
		int in = open(src, O_RDONLY | O_CLOEXEC), out;
		char buf[65536];
		ssize_t n;

		if (in < 0)
			return -errno;
		out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (out < 0) {
			r = -errno;
			close(in);
			return r == -EEXIST ? 0 : r;
		}
		while ((n = read(in, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
			if (n > 0 && (r = write_all(out, buf, (size_t)n)) < 0)
				break;
		if (n < 0 && !r)
			r = -errno;
		close(in);
		if (close(out) != 0 && !r)
			r = -errno;
		if (r < 0)
			unlink(path);
		return r < 0 ? r : 1;
	}
	r = put_file(path, NULL, mem, size, 0644, false);
	return r < 0 ? r : 1;
}

/* Removes every file in dir, then dir. Returns 0 or a negative errno. */
static int remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[PATH_MAX];

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		    snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) < (int)sizeof(p))
			unlink(p);
	closedir(d);
	return rmdir(dir) == 0 ? 0 : -errno;
}

int bc_remove(const char *cache, const char *path, const unsigned char *id, size_t len)
{
	char dir[PATH_MAX], lnk[PATH_MAX], entry[PATH_MAX], hex[2 * BC_ID_MAX + 1];
	struct stat st;

	if (!link_path(cache, id, len, dir, sizeof(dir), lnk, sizeof(lnk)))
		return -EINVAL;
	if (lstat(lnk, &st) != 0)
		return 0;
	bc_hex(hex, id, len);
	if (snprintf(entry, sizeof(entry), "%s/%s/%s", cache, path[0] == '/' ? path + 1 : path,
		     hex) >= (int)sizeof(entry))
		return -ENAMETOOLONG;
	if (unlink(lnk) != 0)
		return -errno;
	if (stat(entry, &st) == 0 && S_ISDIR(st.st_mode))
		return remove_dir(entry) < 0 ? -errno : 1;
	return 1;
}

/* One listed entry. */
struct listed {
	char hex[2 * BC_ID_MAX + 1];
	char *name;
};

static int by_hex(const void *a, const void *b)
{
	return strcmp(((const struct listed *)a)->hex, ((const struct listed *)b)->hex);
}

/* Whether the entry directory dir holds a file perf lists it for. */
static bool listable(const char *dir)
{
	static const char *const files[] = {"elf", "debug", "kallsyms"};
	char p[PATH_MAX];
	struct stat st;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (snprintf(p, sizeof(p), "%s/%s", dir, files[i]) < (int)sizeof(p) &&
		    stat(p, &st) == 0 && S_ISREG(st.st_mode))
			return true;
	return false;
}

/* Adds the entries of cache/.build-id/xx (xx: sub) to *v. */
static void list_sub(const char *cache, const char *sub, struct listed **v, size_t *n, size_t *cap)
{
	char dir[PATH_MAX], lnk[PATH_MAX], target[PATH_MAX];
	DIR *d;
	struct dirent *e;

	if (snprintf(dir, sizeof(dir), "%s/.build-id/%s", cache, sub) >= (int)sizeof(dir) ||
	    !(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		size_t hl = strlen(e->d_name);
		ssize_t tl;
		char *slash;

		if (e->d_name[0] == '.' || hl + 2 > 2 * BC_ID_MAX ||
		    snprintf(lnk, sizeof(lnk), "%s/%s", dir, e->d_name) >= (int)sizeof(lnk) ||
		    (tl = readlink(lnk, target, sizeof(target) - 1)) <= 6)
			continue;
		target[tl] = '\0';
		/* ../../NAME/HEX: NAME is the path without its slash, or [kernel.kallsyms] */
		slash = strrchr(target, '/');
		if (strncmp(target, "../../", 6) != 0 || !slash || slash <= target + 6 ||
		    !listable(lnk))
			continue;
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			struct listed *grown = realloc(*v, *cap * sizeof(**v));
			if (!grown)
				break;
			*v = grown;
		}
		struct listed *l = &(*v)[*n];
		snprintf(l->hex, sizeof(l->hex), "%s%s", sub, e->d_name);
		*slash = '\0';
		l->name = malloc(strlen(target + 6) + 2);
		if (!l->name)
			break;
		sprintf(l->name, "%s%s", target[6] == '[' ? "" : "/", target + 6);
		(*n)++;
	}
	closedir(d);
}

int bc_list(const char *cache, FILE *out)
{
	char dir[PATH_MAX];
	struct listed *v = NULL;
	size_t n = 0, cap = 0;
	DIR *d;
	struct dirent *e;

	if (snprintf(dir, sizeof(dir), "%s/.build-id", cache) >= (int)sizeof(dir) ||
	    !(d = opendir(dir)))
		return 0;
	while ((e = readdir(d)))
		if (strlen(e->d_name) == 2 && e->d_name[0] != '.')
			list_sub(cache, e->d_name, &v, &n, &cap);
	closedir(d);
	qsort(v, n, sizeof(*v), by_hex);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s %s\n", v[i].hex, v[i].name);
		free(v[i].name);
	}
	free(v);
	return (int)n;
}

/*
 * Whether /proc/kallsyms shows zeros for addresses (kptr_restrict, or
 * perf_event_paranoid for this user): such a copy would hide the kernel's
 * symbols from every later report, so it is not cached, as perf does not.
 */
static bool kallsyms_hidden(void)
{
	char line[256];
	FILE *f = fopen("/proc/kallsyms", "re");
	bool hidden = true;

	if (f) {
		if (fgets(line, sizeof(line), f))
			hidden = strspn(line, "0") == strcspn(line, " ");
		fclose(f);
	}
	return hidden;
}

int bc_add_named(const char *cache, const char *name, const unsigned char *id, size_t len)
{
	unsigned char here[BC_ID_MAX];
	size_t n, size = 0;
	const void *image = NULL;

	if (!len || len > BC_ID_MAX)
		return -EINVAL;
	if (strcmp(name, "[kernel.kallsyms]") == 0) {
		n = bc_kernel_build_id(here, sizeof(here));
		if (n != len || memcmp(here, id, len) != 0)
			return -ESTALE;
		if (kallsyms_hidden())
			return -EACCES;
		return bc_add_special(cache, name, "kallsyms", id, len, "/proc/kallsyms", NULL, 0);
	}
	if (strcmp(name, "[vdso]") == 0) {
		n = bc_vdso(&image, &size, here, sizeof(here));
		if (n != len || memcmp(here, id, len) != 0)
			return -ESTALE;
		return bc_add_special(cache, name, "vdso", id, len, NULL, image, size);
	}
	if (name[0] != '/')
		return -EINVAL;
	n = bc_file_build_id(name, here, sizeof(here));
	if (n != len || memcmp(here, id, len) != 0)
		return -ESTALE;
	return bc_add_file(cache, name, id, len);
}

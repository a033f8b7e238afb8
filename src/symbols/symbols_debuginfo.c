/* SPDX-License-Identifier: MIT */
/*
 * symbols_debuginfo.c - finding a DSO's separate debuginfo file without
 * debuginfod unless the user asked for it.
 *
 * libdwfl's dwfl_standard_find_debuginfo ends, when nothing is found on
 * disk, with a debuginfod query, and to make it loads libdebuginfod and
 * its dependencies (curl, TLS, Kerberos: about 7 MB of resident memory,
 * more than a whole report of 100,000 samples needs) even when
 * DEBUGINFOD_URLS is unset and the query can do nothing. So perfev looks
 * on disk itself, as libdwfl does, and hands over to libdwfl's search only
 * when DEBUGINFOD_URLS names a server.
 *
 * On disk: by build id under the debug directory (.build-id/xx/rest.debug,
 * where libdwfl's dwfl_build_id_find_debuginfo looks), then by .gnu_debuglink name (or
 * BASENAME.debug) beside the file, in .debug/ beside it, and under the
 * debug directory followed by the file's directory. A candidate with a
 * build id must carry the module's. Every candidate is opened with
 * pev__open_regular: a path a file names is never a FIFO or device opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>

#include "core/file_open.h"
#include "symbols/symbols_internal.h"

/* Whether fd is a debuginfo file for mod: its build id, when both have one, matches. */
static bool matches(Dwfl_Module *mod, int fd)
{
	const unsigned char *want;
	const void *got;
	GElf_Addr vaddr;
	int wlen = dwfl_module_build_id(mod, &want, &vaddr), glen;
	Elf *elf;
	bool ok;

	if (wlen <= 0)
		return true;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return false;
	glen = (int)dwelf_elf_gnu_build_id(elf, &got);
	ok = glen <= 0 || (glen == wlen && memcmp(got, want, (size_t)wlen) == 0);
	elf_end(elf);
	return ok;
}

/* Opens dir/name when it is a regular file other than the module's own (main). */
static int try_path(Dwfl_Module *mod, const char *dir, const char *sub, const char *name,
                    const struct stat *main, char **found)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (snprintf(path, sizeof(path), "%s%s/%s", dir, sub, name) >= (int)sizeof(path))
		return -1;
	fd = pev__open_regular(path);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 ||
	    (main && st.st_dev == main->st_dev && st.st_ino == main->st_ino) || !matches(mod, fd)) {
		close(fd);
		return -1;
	}
	*found = strdup(path);
	if (!*found) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Opens debug_dir/.build-id/xx/rest.debug for mod's build id, when it has one. */
static int by_build_id(Dwfl_Module *mod, const char *debug_dir, char **found)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *bid;
	char hex[2 * 64 + 1], sub[32];
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bid, &vaddr);

	if (len <= 1 || len > 64 || !debug_dir[0])
		return -1;
	for (int i = 0; i < len; i++) {
		hex[2 * i] = digits[bid[i] >> 4];
		hex[2 * i + 1] = digits[bid[i] & 15];
	}
	hex[2 * len] = '\0';
	snprintf(sub, sizeof(sub), "/.build-id/%.2s", hex);
	if (strlen(hex + 2) + 7 > NAME_MAX)
		return -1;
	char name[NAME_MAX + 1];
	snprintf(name, sizeof(name), "%s.debug", hex + 2);
	return try_path(mod, debug_dir, sub, name, NULL, found);
}

int pev__find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
                        const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                        char **debuginfo_file_name)
{
	const struct pev_symbols *s = userdata ? *userdata : NULL;
	const char *urls = getenv("DEBUGINFOD_URLS");
	char dir[PATH_MAX], name[NAME_MAX + 1];
	struct stat main_st;
	const char *slash;
	int fd;

	if ((urls && *urls) || !s || !file_name)
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
		                                    debuglink_file, debuglink_crc,
		                                    debuginfo_file_name);
	if ((fd = by_build_id(mod, s->debug_dir, debuginfo_file_name)) >= 0)
		return fd;
	slash = strrchr(file_name, '/');
	if (!slash || (size_t)(slash - file_name) >= sizeof(dir))
		return -1;
	memcpy(dir, file_name, (size_t)(slash - file_name));
	dir[slash - file_name] = '\0';
	if (debuglink_file && *debuglink_file) {
		if (snprintf(name, sizeof(name), "%s", debuglink_file) >= (int)sizeof(name))
			return -1;
	} else if (snprintf(name, sizeof(name), "%s.debug", slash + 1) >= (int)sizeof(name)) {
		return -1;
	}
	const struct stat *main = stat(file_name, &main_st) == 0 ? &main_st : NULL;

	if ((fd = try_path(mod, dir, "", name, main, debuginfo_file_name)) >= 0 ||
	    (fd = try_path(mod, dir, "/.debug", name, main, debuginfo_file_name)) >= 0)
		return fd;
	if (dir[0] == '/' && s->debug_dir[0] == '/') {
		char under[PATH_MAX];

		if (snprintf(under, sizeof(under), "%s%s", s->debug_dir, dir) <
		        (int)sizeof(under) &&
		    (fd = try_path(mod, under, "", name, main, debuginfo_file_name)) >= 0)
			return fd;
	}
	errno = ENOENT;
	return -1;
}

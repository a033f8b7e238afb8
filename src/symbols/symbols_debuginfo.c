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
 * libdwfl asks for a debuginfo file once per module, when the file itself
 * lacks what is wanted (a .symtab, DWARF), and keeps the answer: the search
 * costs once per DSO, never per sample. It goes, in order:
 *
 *   1. perf's build-id cache (PERF_BUILDID_DIR or $HOME/.debug):
 *      .build-id/xx/rest/debug (a debug file perf or perfev cached), then
 *      .build-id/xx/rest/elf when that copy has a .symtab or DWARF (an
 *      unstripped build of a binary stripped since) and is not the file
 *      itself (perf hard-links its copies);
 *   2. the debug directory by build id (.build-id/xx/rest.debug, where
 *      libdwfl's dwfl_build_id_find_debuginfo and gdb look);
 *   3. the .gnu_debuglink name (or BASENAME.debug) beside the file, in
 *      .debug/ beside it, and under the debug directory followed by the
 *      file's directory;
 *   4. debuginfod, through libdwfl's standard search, only when
 *      DEBUGINFOD_URLS names a server.
 *
 * A candidate with a build id must carry the module's. Every candidate is
 * opened with pev__open_regular: a path a file names is never a FIFO or
 * device opened. When no debug file is found, a stripped file's
 * MiniDebugInfo (.gnu_debugdata) is what libdwfl reads: its symbols merged
 * with .dynsym's.
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
#include <gelf.h>

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

/* Whether the ELF file fd has a symbol table or DWARF: what a debug file is for. */
static bool has_debug_data(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	if (!elf)
		return false;
	if (elf_getshdrstrndx(elf, &shstrndx) == 0)
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			found = sh.sh_type == SHT_SYMTAB ||
				(name && (strcmp(name, ".debug_info") == 0 ||
					  strcmp(name, ".zdebug_info") == 0));
		}
	elf_end(elf);
	return found;
}

/*
 * Opens dir/name when it is a regular file other than the module's own
 * (main) and, when need_data, it holds symbols or DWARF.
 */
static int try_file(Dwfl_Module *mod, const char *dir, const char *sub, const char *name,
		    const struct stat *main, bool need_data, char **found)
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
	    (main && st.st_dev == main->st_dev && st.st_ino == main->st_ino) || !matches(mod, fd) ||
	    (need_data && !has_debug_data(fd))) {
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

/* mod's build id in hex into hex (2 * 64 + 1 bytes); false when it has none. */
static bool build_id_hex(Dwfl_Module *mod, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *bid;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bid, &vaddr);

	if (len <= 1 || len > 64)
		return false;
	for (int i = 0; i < len; i++) {
		hex[2 * i] = digits[bid[i] >> 4];
		hex[2 * i + 1] = digits[bid[i] & 15];
	}
	hex[2 * len] = '\0';
	return true;
}

/*
 * Opens the debug file of mod in perf's build-id cache (.build-id/xx/rest/
 * debug), else its cached copy (.../elf) when that has symbols or DWARF.
 */
static int in_cache(Dwfl_Module *mod, const char *cache, const char *hex,
		    const struct stat *main, char **found)
{
	char sub[PATH_MAX];
	int fd;

	if (!cache[0] || snprintf(sub, sizeof(sub), "/.build-id/%.2s/%s", hex, hex + 2) >=
				 (int)sizeof(sub))
		return -1;
	if ((fd = try_file(mod, cache, sub, "debug", main, false, found)) >= 0)
		return fd;
	return try_file(mod, cache, sub, "elf", main, true, found);
}

/* Opens debug_dir/.build-id/xx/rest.debug for mod's build id. */
static int by_build_id(Dwfl_Module *mod, const char *debug_dir, const char *hex, char **found)
{
	char sub[32], name[NAME_MAX + 1];

	if (!debug_dir[0] || strlen(hex + 2) + 7 > NAME_MAX)
		return -1;
	snprintf(sub, sizeof(sub), "/.build-id/%.2s", hex);
	snprintf(name, sizeof(name), "%s.debug", hex + 2);
	return try_file(mod, debug_dir, sub, name, NULL, false, found);
}

/* The search on disk (1. to 3. above). */
static int on_disk(Dwfl_Module *mod, const struct pev_symbols *s, const char *file_name,
		   const char *debuglink_file, char **found)
{
	char dir[PATH_MAX], name[NAME_MAX + 1], hex[2 * 64 + 1];
	struct stat main_st;
	const struct stat *main = stat(file_name, &main_st) == 0 ? &main_st : NULL;
	const char *slash;
	int fd;

	if (build_id_hex(mod, hex) &&
	    ((fd = in_cache(mod, s->buildid_cache, hex, main, found)) >= 0 ||
	     (fd = by_build_id(mod, s->debug_dir, hex, found)) >= 0))
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
	if ((fd = try_file(mod, dir, "", name, main, false, found)) >= 0 ||
	    (fd = try_file(mod, dir, "/.debug", name, main, false, found)) >= 0)
		return fd;
	if (dir[0] == '/' && s->debug_dir[0] == '/') {
		char under[PATH_MAX];

		if (snprintf(under, sizeof(under), "%s%s", s->debug_dir, dir) <
		        (int)sizeof(under) &&
		    (fd = try_file(mod, under, "", name, main, false, found)) >= 0)
			return fd;
	}
	return -1;
}

int pev__find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
                        const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                        char **debuginfo_file_name)
{
	const struct pev_symbols *s = userdata ? *userdata : NULL;
	const char *urls = getenv("DEBUGINFOD_URLS");
	int fd;

	if (s && file_name &&
	    (fd = on_disk(mod, s, file_name, debuglink_file, debuginfo_file_name)) >= 0)
		return fd;
	/* libdwfl's own search ends with debuginfod: asked only when a server is named. */
	if (urls && *urls)
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
		                                    debuglink_file, debuglink_crc,
		                                    debuginfo_file_name);
	errno = ENOENT;
	return -1;
}

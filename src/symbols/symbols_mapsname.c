/* SPDX-License-Identifier: MIT */
/*
 * symbols_mapsname.c - the file a name in /proc/PID/maps stands for.
 *
 * The kernel writes a mapping's path with one byte escaped: a newline
 * becomes the four characters "\012" (show_map_vma passes "\n" as the set
 * of bytes to escape). Every other byte, a backslash included, is written
 * as it is, so "\012" in the text is either an escaped newline or four
 * characters of the file's own name. The line's inode number tells them
 * apart: of the readings (every "\012" a newline first, none last), the
 * one whose file has that inode wins; when none has (a deleted or replaced
 * file), the first that exists, else the reading with newlines.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perfev/symbols.h"

/* The escape the kernel writes for a newline. */
#define NL_ESCAPE "\\012"
#define NL_ESCAPE_LEN 4

/* Above this many escapes only the two plain readings (all, none) are tried. */
#define MAX_MIXED 6

/* Writes name into out with the escapes that mask selects as newlines (bit i: the i-th escape). */
static void reading(const char *name, unsigned long mask, char *out)
{
	unsigned i = 0;

	while (*name) {
		if (strncmp(name, NL_ESCAPE, NL_ESCAPE_LEN) == 0) {
			bool nl = i < 8 * sizeof(mask) ? (mask >> i) & 1 : mask != 0;
			i++;
			if (nl) {
				*out++ = '\n';
				name += NL_ESCAPE_LEN;
				continue;
			}
			memcpy(out, name, NL_ESCAPE_LEN);
			out += NL_ESCAPE_LEN;
			name += NL_ESCAPE_LEN;
			continue;
		}
		*out++ = *name++;
	}
	*out = '\0';
}

/* Copies src into dst (size bytes) as snprintf would; returns strlen(src). */
static size_t copy_out(char *dst, size_t size, const char *src)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

PEV_API size_t pev_maps_name_lookup(const char *name, uint64_t ino, const char *root, char *path,
				    size_t size)
{
	size_t len, rlen = root ? strlen(root) : 0;
	unsigned n = 0;
	char *cand, *full;
	unsigned long all, chosen, mask;
	bool found = false, exists = false;

	if (!name)
		name = "";
	for (const char *e = strstr(name, NL_ESCAPE); e; e = strstr(e + NL_ESCAPE_LEN, NL_ESCAPE))
		n++;
	if (n == 0)
		return copy_out(path, size, name);
	len = strlen(name);
	cand = malloc(len + 1);
	full = malloc(rlen + len + 1);
	all = n <= MAX_MIXED ? (1ul << n) - 1 : ~0ul;
	chosen = all;
	if (!cand || !full) { /* out of memory: the name as the kernel wrote it */
		free(full);
		free(cand);
		return copy_out(path, size, name);
	}
	/* From every escape a newline (the kernel's doing) down to none (the name's own text). */
	for (mask = all;; mask = n <= MAX_MIXED ? mask - 1 : 0) {
		struct stat st;

		reading(name, mask, cand);
		memcpy(full, root ? root : "", rlen);
		memcpy(full + rlen, cand, strlen(cand) + 1);
		if (stat(full, &st) == 0) {
			if (ino && (uint64_t)st.st_ino == ino) {
				chosen = mask;
				found = true;
			} else if (!exists) {
				chosen = mask;
				exists = true;
			}
		}
		if (found || mask == 0)
			break;
	}
	reading(name, chosen, cand);
	len = copy_out(path, size, cand);
	free(full);
	free(cand);
	return len;
}

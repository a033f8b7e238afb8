/* SPDX-License-Identifier: MIT */
/*
 * buildid_cache.h - perf's build-id cache, written as perf writes it, for
 * `perfev buildid-cache` and `perfev record`: the files a recording names,
 * kept by build id so that the recording reads right after they change or
 * on another machine.
 *
 * Layout (that of perf 6.1 and 7.2, checked with `perf buildid-cache -a`
 * and `perf record`), under DIR ($PERF_BUILDID_DIR, else $HOME/.debug):
 *
 *   DIR/PATH/HEX/elf                 a copy (hard link when possible) of PATH
 *   DIR/PATH/HEX/debug               its debug file, when one was found
 *   DIR/[kernel.kallsyms]/HEX/kallsyms  the kernel's symbol list
 *   DIR/[vdso]/HEX/vdso              the vDSO's image
 *   DIR/.build-id/XX/REST -> ../../PATH/HEX   (XX: HEX's first two digits)
 */
#ifndef PERFEV_CLI_BUILDID_CACHE_H
#define PERFEV_CLI_BUILDID_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The longest build id handled, in bytes. */
#define BC_ID_MAX 64

/* The cache directory into buf: $PERF_BUILDID_DIR, else $HOME/.debug. False when neither is set. */
bool bc_dir(char *buf, size_t size);

/* Creates directory dir and its missing parents (0755). Returns 0 or a negative errno. */
int bc_make_dirs(const char *dir);

/* id (len bytes) as lower-case hex into out (2 * len + 1 bytes). */
void bc_hex(char *out, const unsigned char *id, size_t len);

/* The GNU build id in ELF note bytes (4-aligned); its length, or 0. */
size_t bc_note_build_id(const unsigned char *p, size_t len, unsigned char *id, size_t max);

/* The build id of the regular ELF file at path: its length, or 0 (none, or unreadable). */
size_t bc_file_build_id(const char *path, unsigned char *id, size_t max);

/* The running kernel's build id (/sys/kernel/notes); its length, or 0. */
size_t bc_kernel_build_id(unsigned char *id, size_t max);

/*
 * The vDSO's image (perfev's own: the kernel maps the same one into every
 * process of an ABI) into *image and *size, and its build id; the id's
 * length, or 0 without a vDSO or a build id.
 */
size_t bc_vdso(const void **image, size_t *size, unsigned char *id, size_t max);

/*
 * Adds what a recording names by build id: name is a file's path, or
 * "[kernel.kallsyms]" or "[vdso]" (cached only when id is this machine's
 * running kernel's or vDSO's). Returns 1 when added, 0 when the cache held
 * it already, -ESTALE when what is here now has another build id (or none),
 * -EACCES for a kernel whose /proc/kallsyms hides its addresses, -EINVAL
 * for a name that is no plain absolute path, or a negative errno.
 */
int bc_add_named(const char *cache, const char *name, const unsigned char *id, size_t len);

/* Whether the cache holds an entry for build id id. */
bool bc_has(const char *cache, const unsigned char *id, size_t len);

/*
 * Adds the file at path (absolute) with build id id: its copy as elf, the
 * debug file of that build id under the debug directory ($PERFEV_DEBUG_DIR,
 * else /usr/lib/debug) as debug, and the .build-id link. Returns 1 when
 * added, 0 when the cache held it already, or a negative errno.
 */
int bc_add_file(const char *cache, const char *path, const unsigned char *id, size_t len);

/*
 * Adds an entry that is not a file at a path: DIR/NAME/HEX/FILE gets the
 * contents of src (a path, read to its end) or, when src is NULL, the size
 * bytes at mem. Returns 1, 0 or a negative errno as bc_add_file.
 */
int bc_add_special(const char *cache, const char *name, const char *file, const unsigned char *id,
		   size_t len, const char *src, const void *mem, size_t size);

/*
 * Removes build id id of path from the cache: its .build-id link and the
 * PATH/HEX directory. Returns 1 when removed, 0 when not cached, or a negative errno.
 */
int bc_remove(const char *cache, const char *path, const unsigned char *id, size_t len);

/*
 * Prints "HEX NAME" for every entry of the cache with a file (elf, debug
 * or kallsyms), in the order of the build ids. Returns how many.
 */
int bc_list(const char *cache, FILE *out);

#endif /* PERFEV_CLI_BUILDID_CACHE_H */

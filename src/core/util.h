/* SPDX-License-Identifier: MIT */
/*
 * util.h - small internal helpers: bounded string building and reading
 * short text files from procfs and sysfs (optionally under a fake root).
 */
#ifndef PERFEV_UTIL_H
#define PERFEV_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PEV_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Marks printf-like functions so the compiler checks their arguments. */
#define PEV_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))

/* Copies src into dst (size bytes, always terminated). Returns strlen(src). */
size_t pev__strlcpy(char *dst, const char *src, size_t size);

/* Appends formatted text to the string in buf (size bytes, always terminated). */
void pev__appendf(char *buf, size_t size, const char *fmt, ...) PEV_PRINTF(3, 4);
void pev__vappendf(char *buf, size_t size, const char *fmt, va_list ap) PEV_PRINTF(3, 0);

/* Writes root + formatted path into buf; root NULL or "" means the real root. */
void pev__path(char *buf, size_t size, const char *root, const char *fmt, ...) PEV_PRINTF(4, 5);

/*
 * Reads from fd until end of file or until buf holds size-1 bytes (size >= 1),
 * retrying reads that a signal interrupts, and terminates buf. Returns the
 * length, or -errno when a read fails. The caller keeps fd and closes it.
 */
int pev__read_fd(int fd, char *buf, size_t size);

/*
 * Reads at most size-1 bytes of a file into buf and terminates it, dropping a
 * trailing newline. Returns the length, or -errno.
 */
int pev__read_text(const char *path, char *buf, size_t size);

/* Reads a file holding one integer. Returns 0 or -errno (-EINVAL if not a number). */
int pev__read_long(const char *path, long long *out);

/*
 * Decodes, in place, the octal escapes (\040 for a space, \012 for a
 * newline, \134 for a backslash) the kernel writes in the paths of
 * /proc/mounts and /proc/self/mounts.
 */
void pev__unescape_mount_path(char *s);

/* Parses a whole decimal or 0x-hex unsigned number. Returns true on success. */
bool pev__parse_u64(const char *s, uint64_t *out);

/*
 * Reads a NUL-terminated string at addr in this process without faulting
 * (process_vm_readv): for pointers a caller handed in that may be bad.
 * Returns true and fills buf when the memory is readable.
 */
bool pev__read_user_string(uint64_t addr, char *buf, size_t size);

#endif /* PERFEV_UTIL_H */

/* SPDX-License-Identifier: MIT */
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

size_t pev__strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

void pev__vappendf(char *buf, size_t size, const char *fmt, va_list ap)
{
	size_t used = strnlen(buf, size);

	if (used + 1 >= size)
		return;
	vsnprintf(buf + used, size - used, fmt, ap);
}

void pev__appendf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pev__vappendf(buf, size, fmt, ap);
	va_end(ap);
}

void pev__path(char *buf, size_t size, const char *root, const char *fmt, ...)
{
	va_list ap;

	pev__strlcpy(buf, root ? root : "", size);
	va_start(ap, fmt);
	pev__vappendf(buf, size, fmt, ap);
	va_end(ap);
}

void pev__unescape_mount_path(char *s)
{
	char *out = s;

	for (const char *in = s; *in;) {
		if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' &&
		    in[3] >= '0' && in[3] <= '7') {
			*out++ = (char)(((in[1] - '0') << 6) | ((in[2] - '0') << 3) | (in[3] - '0'));
			in += 4;
		} else {
			*out++ = *in++;
		}
	}
	*out = '\0';
}

int pev__read_fd(int fd, char *buf, size_t size)
{
	size_t len = 0;

	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			buf[len] = '\0';
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return (int)len;
}

int pev__read_text(const char *path, char *buf, size_t size)
{
	int fd, len;

	if (size == 0)
		return -EINVAL;
	buf[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	len = pev__read_fd(fd, buf, size);
	close(fd);
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	return len;
}

int pev__read_long(const char *path, long long *out)
{
	char buf[64];
	char *end;
	int r = pev__read_text(path, buf, sizeof(buf));

	if (r < 0)
		return r;
	errno = 0;
	long long v = strtoll(buf, &end, 0);
	if (end == buf || errno)
		return -EINVAL;
	*out = v;
	return 0;
}

bool pev__parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

bool pev__read_user_string(uint64_t addr, char *buf, size_t size)
{
	size_t got = 0;

	if (!addr || size < 2)
		return false;
	/*
	 * A page at a time: a short string before a hole reads, and one that
	 * crosses into the next page reads on there.
	 */
	while (got < size - 1) {
		uint64_t at = addr + got;
		size_t want = size - 1 - got, to_page_end = 4096 - (at & 4095);
		if (want > to_page_end)
			want = to_page_end;
		struct iovec local = {buf + got, want};
		struct iovec remote = {(void *)(uintptr_t)at, want};
		ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
		if (n <= 0)
			break;
		if (memchr(buf + got, '\0', (size_t)n)) {
			got += (size_t)n;
			buf[got] = '\0';
			return true;
		}
		got += (size_t)n;
		if ((size_t)n < want)
			break;
	}
	buf[got] = '\0';
	return got == size - 1;
}

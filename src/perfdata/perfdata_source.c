/* SPDX-License-Identifier: MIT */
/*
 * perfdata_source.c - where the reader's bytes come from: the caller's
 * buffer, a regular file (pread at any offset) or a stream (read once, in
 * order); and the window records are read through, so that a record is
 * always whole and 8-aligned however the source hands it over.
 */
#include "core/error_internal.h"
#include "perfdata/perfdata_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool pev__pd_random_access(const struct pev_perfdata *pd)
{
	return pd->kind != PD_SRC_STREAM;
}

int64_t pev__pd_fetch(struct pev_perfdata *pd, uint64_t off, void *buf, size_t len,
		      struct pev_error *err)
{
	size_t got = 0;

	if (pd->kind == PD_SRC_MEMORY) {
		if (off >= pd->size)
			return 0;
		if (len > pd->size - off)
			len = (size_t)(pd->size - off);
		memcpy(buf, pd->mem + off, len);
		return (int64_t)len;
	}
	if (pd->kind == PD_SRC_STREAM && off != pd->stream_pos)
		return pev__pd_fail(pd, err, PEV_EUNEXPECTED, "stream",
				    "cannot go back in a stream (to offset 0x%" PRIx64
				    " from 0x%" PRIx64 ")",
				    off, pd->stream_pos);
	while (got < len) {
		ssize_t n;

		if (pd->kind == PD_SRC_FILE) {
			if (off + got > (uint64_t)INT64_MAX)
				break;
			n = pread(pd->fd, (char *)buf + got, len - got, (off_t)(off + got));
		} else {
			n = read(pd->fd, (char *)buf + got, len - got);
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			int code = pev__pd_fail(pd, err, pev_error_from_errno(e), "data",
						"cannot read at offset 0x%" PRIx64 ": %s",
						off + got, strerror(e));
			pev__error_of(err)->sys_errno = e;
			pev__strlcpy(pev__error_of(err)->syscall,
				     pd->kind == PD_SRC_FILE ? "pread" : "read",
				     sizeof(err->syscall));
			return code;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (pd->kind == PD_SRC_STREAM) {
			pd->stream_pos += (uint64_t)n;
			break; /* a stream hands out what it has; the caller asks again */
		}
	}
	return (int64_t)got;
}

int pev__pd_read_at(struct pev_perfdata *pd, uint64_t off, void *buf, size_t len, const char *what,
		    struct pev_error *err)
{
	uint64_t end;

	if (!pd_add_ok(off, len, &end) || end > pd->size)
		return pev__pd_fail(pd, err, PEV_EFORMAT, what,
				    "%s at offset 0x%" PRIx64
				    " size 0x%zx runs past the end of the file "
				    "(size 0x%" PRIx64 ")",
				    what, off, len, pd->size);
	size_t got = 0;
	while (got < len) {
		int64_t n = pev__pd_fetch(pd, off + got, (char *)buf + got, len - got, err);
		if (n < 0)
			return (int)n;
		if (n == 0)
			return pev__pd_fail(pd, err, PEV_EIO, what,
					    "%s at offset 0x%" PRIx64
					    ": the file ended after 0x%" PRIx64
					    " bytes (was it truncated while being read?)",
					    what, off, off + got);
		got += (size_t)n;
	}
	return 0;
}

/* Makes room for n bytes at pos in the window: keeps what is there from pos on. */
static int window_make_room(struct pev_perfdata *pd, uint64_t pos, size_t n,
			    struct pev_error *err)
{
	size_t at = (size_t)(pos - pd->win_base);

	if (at + n <= pd->win_cap)
		return 0;
	/* Move the bytes from pos on to the start. */
	memmove(pd->win, pd->win + at, pd->win_len - at);
	pd->win_len -= at;
	pd->win_base = pos;
	if (n > pd->win_cap) {
		size_t cap = (n + 4095) & ~(size_t)4095;
		unsigned char *w = realloc(pd->win, cap);
		if (!w)
			return pev__pd_fail(pd, err, PEV_ENOMEM, "data",
					    "out of memory for a %zu-byte read window", cap);
		pd->win = w;
		pd->win_cap = cap;
	}
	return 0;
}

int64_t pev__pd_window(struct pev_perfdata *pd, uint64_t pos, size_t n, const unsigned char **p,
		       struct pev_error *err)
{
	if (!pd->win) {
		pd->win = malloc(PD_WINDOW_SIZE);
		if (!pd->win)
			return pev__pd_fail(pd, err, PEV_ENOMEM, "data",
					    "out of memory for the read window");
		pd->win_cap = PD_WINDOW_SIZE;
		pd->win_len = 0;
		pd->win_base = pos;
	}
	if (pos < pd->win_base || pos > pd->win_base + pd->win_len) {
		if (pd->kind == PD_SRC_STREAM)
			return pev__pd_fail(pd, err, PEV_EUNEXPECTED, "stream",
					    "cannot move to offset 0x%" PRIx64
					    " of a stream from 0x%" PRIx64,
					    pos, pd->win_base + pd->win_len);
		pd->win_base = pos;
		pd->win_len = 0;
	}
	int rc = window_make_room(pd, pos, n, err);
	if (rc < 0)
		return rc;
	size_t at = (size_t)(pos - pd->win_base);
	while (pd->win_len < at + n) {
		/* Read as much as fits: fewer, larger reads. */
		int64_t got = pev__pd_fetch(pd, pd->win_base + pd->win_len, pd->win + pd->win_len,
					    pd->win_cap - pd->win_len, err);
		if (got < 0)
			return got;
		if (got == 0)
			break;
		pd->win_len += (size_t)got;
	}
	*p = pd->win + at;
	size_t avail = pd->win_len - at;
	return (int64_t)(avail < n ? avail : n);
}

int pev__pd_skip(struct pev_perfdata *pd, uint64_t pos, uint64_t len, struct pev_error *err)
{
	uint64_t target;

	if (!pd_add_ok(pos, len, &target))
		return pev__pd_fail(pd, err, PEV_EFORMAT, "data",
				    "a payload of 0x%" PRIx64 " bytes at offset 0x%" PRIx64
				    " runs past any file",
				    len, pos);
	if (pd->kind != PD_SRC_STREAM)
		return 0; /* random access: the next read goes there */
	/* Drop what the window holds up to the target, then read and drop the rest. */
	while (pd->win_base + pd->win_len < target) {
		pd->win_base += pd->win_len;
		pd->win_len = 0;
		uint64_t left = target - pd->win_base;
		size_t chunk = left < pd->win_cap ? (size_t)left : pd->win_cap;
		int64_t got = pev__pd_fetch(pd, pd->win_base, pd->win, chunk, err);
		if (got < 0)
			return (int)got;
		if (got == 0)
			return pev__pd_fail(pd, err, PEV_EFORMAT, "data",
					    "the stream ends 0x%" PRIx64
					    " bytes into a payload of 0x%" PRIx64
					    " bytes at offset 0x%" PRIx64,
					    pd->win_base - pos, len, pos);
		pd->win_len = (size_t)got;
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * symbols_jitdump.c - code generated at run time, described in a jitdump
 * file (jit-PID.dump), the binary format `node --perf-prof` and the JVM's
 * perf agents write, read directly (no `perf inject --jit`).
 *
 * The writer maps the file executable once, so that the recording holds an
 * MMAP of it: that record tells which process the dump describes. The file
 * is a header and then records, each with an id, its size and a time:
 *
 *   header        magic "JiTD" (0x4A695444 in the writer's byte order),
 *                 version, header size, ELF machine, pad, pid, time, flags
 *   CODE_LOAD (0) pid, tid, vma, code address, code size, code index,
 *                 the function's name (NUL-terminated), the code bytes
 *   CODE_MOVE (1) pid, tid, vma, old address, new address, size, code index
 *   DEBUG_INFO(2) code address, entry count, entries of (address, line,
 *                 discriminator, file name; "\xff" repeats the previous)
 *   CLOSE (3), UNWINDING_INFO (4) and later ids are skipped.
 *
 * Code is replaced over time: a sample names the code loaded last at its
 * address no later than the sample itself (when the times compare: the
 * recording's clock is CLOCK_MONOTONIC and the dump's times are not the
 * CPU's time stamp counter), else the code loaded last in the file. Names
 * and DSOs are those perf shows after `perf inject --jit`: the function
 * name as written, in DIR/jitted-PID-INDEX.so (DIR the dump's directory).
 *
 * The file is read once, when an address of its process is first looked
 * up (again only when a lookup misses and the file has grown since: a JIT
 * still running, as perfev top sees it). Its bytes are not trusted: every field is checked against the bytes
 * that hold it, a bad record ends the reading (what came before stays), and
 * a file of another byte order is read swapped. Like a JIT map, it is read
 * only when this user or root owns it and neither group nor others may
 * write it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file_open.h"
#include "core/log_internal.h"
#include "symbols/symbols_internal.h"

#define JITDUMP_MAGIC 0x4A695444u
#define JITDUMP_HEADER 40 /* bytes of the version 1 header */
#define JITDUMP_RECORD 16 /* bytes of a record's header */
#define JITDUMP_ARCH_TIMESTAMP 1u /* flags: times are the CPU's time stamp counter */
#define JITDUMP_ELF_TEXT 0x80 /* offset of the code in perf inject's jitted-PID-N.so */

enum { JIT_CODE_LOAD = 0, JIT_CODE_MOVE = 1, JIT_CODE_DEBUG_INFO = 2 };

/* The largest file read: a bigger one is read up to here. */
#define JITDUMP_MAX_BYTES (UINT64_C(1) << 32)

/* Reads the bytes of a dump in its writer's byte order. */
struct reader {
	const unsigned char *p;
	size_t len;
	bool swap;
};

static bool get32(const struct reader *r, size_t at, uint32_t *out)
{
	uint32_t v;

	if (at > r->len || r->len - at < 4)
		return false;
	memcpy(&v, r->p + at, 4);
	*out = r->swap ? __builtin_bswap32(v) : v;
	return true;
}

static bool get64(const struct reader *r, size_t at, uint64_t *out)
{
	uint64_t v;

	if (at > r->len || r->len - at < 8)
		return false;
	memcpy(&v, r->p + at, 8);
	*out = r->swap ? __builtin_bswap64(v) : v;
	return true;
}

/* The NUL-terminated string at [at, end): its length, or -1 when unterminated. */
static ptrdiff_t get_str(const struct reader *r, size_t at, size_t end)
{
	const unsigned char *nul;

	if (at >= end || end > r->len)
		return -1;
	nul = memchr(r->p + at, '\0', end - at);
	return nul ? nul - (r->p + at) : -1;
}

void pev__jitdump_free(struct sym_jitdump *d)
{
	if (!d)
		return;
	pev__arena_free(&d->arena);
	pev__u64map_free(&d->by_index);
	free(d->code);
	free(d->path);
	free(d->dir);
	free(d);
}

struct sym_jitdump *pev__jitdump_new(const char *path)
{
	struct sym_jitdump *d = calloc(1, sizeof(*d));
	const char *slash = path ? strrchr(path, '/') : NULL;

	if (!d)
		return NULL;
	d->path = strdup(path ? path : "");
	d->dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	if (!d->path || !d->dir) {
		pev__jitdump_free(d);
		return NULL;
	}
	return d;
}

/* Appends one piece of code. Returns 0 or -ENOMEM. */
static int add_code(struct sym_jitdump *d, uint64_t start, uint64_t size, uint64_t time,
		    const char *name, uint32_t pid, uint64_t index, const struct jitdump_line *lines,
		    uint32_t nlines)
{
	char dso[4096 + 64];
	struct jitdump_code *c;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		struct jitdump_code *nc = realloc(d->code, cap * sizeof(*nc));
		if (!nc)
			return -ENOMEM;
		d->code = nc;
		d->cap = cap;
	}
	snprintf(dso, sizeof(dso), "%s/jitted-%" PRIu32 "-%" PRIu64 ".so", d->dir, pid, index);
	c = &d->code[d->n];
	*c = (struct jitdump_code){.start = start, .size = size, .time = time, .name = name,
				   .order = (uint32_t)d->n, .lines = lines, .nlines = nlines};
	if (!(c->dso = pev__arena_strdup(&d->arena, dso)))
		return -ENOMEM;
	d->n++;
	if (size > d->max_size)
		d->max_size = size;
	return 0;
}

/*
 * A DEBUG_INFO record's entries (body: the bytes after the record header,
 * blen of them) into *lines (arena). Returns the entries read (a bad one
 * ends the list), or -ENOMEM.
 */
static int64_t read_lines(struct sym_jitdump *d, const struct reader *r, size_t body, size_t end,
			  uint64_t nr, struct jitdump_line **lines)
{
	const char *prev = NULL;
	size_t at = body + 16;
	uint64_t k = 0;

	/* Each entry takes at least 17 bytes: the count cannot exceed what fits. */
	if (at >= end)
		return 0;
	if (nr > (end - at) / 17)
		nr = (end - at) / 17;
	if (!nr)
		return 0;
	*lines = pev__arena_alloc(&d->arena, (size_t)nr * sizeof(**lines));
	if (!*lines)
		return -ENOMEM;
	for (; k < nr; k++) {
		uint64_t addr;
		uint32_t line;
		ptrdiff_t len;
		const char *file;

		if (!get64(r, at, &addr) || !get32(r, at + 8, &line) ||
		    (len = get_str(r, at + 16, end)) < 0)
			break;
		if (len == 1 && r->p[at + 16] == 0xff)
			file = prev; /* the previous entry's file (none for the first) */
		else if (!(file = pev__arena_strndup(&d->arena, (const char *)r->p + at + 16,
						     (size_t)len)))
			return -ENOMEM;
		(*lines)[k] = (struct jitdump_line){.addr = addr, .file = file, .line = line};
		prev = file;
		at += 16 + (size_t)len + 1;
	}
	return (int64_t)k;
}

static int by_start(const void *a, const void *b)
{
	const struct jitdump_code *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int by_addr(const void *a, const void *b)
{
	const struct jitdump_line *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int pev__jitdump_parse(struct sym_jitdump *d, const void *bytes, size_t len)
{
	struct reader r = {.p = bytes, .len = len};
	uint32_t magic, hsize;
	uint64_t flags;
	size_t at;
	/* The DEBUG_INFO record read last: for the CODE_LOAD at its address that follows. */
	uint64_t debug_addr = 0;
	struct jitdump_line *debug_lines = NULL;
	int64_t debug_n = 0;
	int rc = 0;

	if (!bytes || !get32(&r, 0, &magic))
		return -EINVAL;
	if (magic != JITDUMP_MAGIC) {
		r.swap = true;
		if (!get32(&r, 0, &magic) || magic != JITDUMP_MAGIC)
			return -EINVAL;
	}
	d->swapped = r.swap;
	if (!get32(&r, 4, &d->version) || !get32(&r, 8, &hsize) || !get32(&r, 20, &d->pid) ||
	    !get64(&r, 32, &flags) || hsize < JITDUMP_HEADER || hsize > len)
		return -EINVAL;
	d->arch_timestamp = flags & JITDUMP_ARCH_TIMESTAMP;
	for (at = hsize; at < len;) {
		uint32_t id, size;
		uint64_t time;
		size_t end, body = at + JITDUMP_RECORD;

		if (!get32(&r, at, &id) || !get32(&r, at + 4, &size) || !get64(&r, at + 8, &time) ||
		    size < JITDUMP_RECORD || size > len - at) {
			d->truncated = true; /* a record cut short (still being written) or garbage */
			break;
		}
		end = at + size;
		/* The record's fields are read within the record only. */
		struct reader rr = {.p = r.p, .len = end, .swap = r.swap};
		if (id == JIT_CODE_LOAD) {
			uint32_t pid;
			uint64_t addr, csize, index;
			ptrdiff_t nlen;
			const char *name;

			if (!get32(&rr, body, &pid) || !get64(&rr, body + 16, &addr) ||
			    !get64(&rr, body + 24, &csize) || !get64(&rr, body + 32, &index) ||
			    (nlen = get_str(&rr, body + 40, end)) < 0) {
				d->bad++;
			} else if (csize && addr + csize > addr) {
				if (!(name = pev__arena_strndup(&d->arena, (const char *)rr.p + body + 40,
								(size_t)nlen)) ||
				    pev__u64map_put(&d->by_index, index, (void *)name) < 0) {
					rc = -ENOMEM;
					break;
				}
				bool lines = debug_n > 0 && debug_addr == addr;
				if ((rc = add_code(d, addr, csize, time, name, pid, index,
						   lines ? debug_lines : NULL,
						   lines ? (uint32_t)debug_n : 0)))
					break;
				if (lines)
					debug_n = 0; /* used */
			}
		} else if (id == JIT_CODE_MOVE) {
			uint32_t pid;
			uint64_t to, csize, index;
			const char *name;

			if (!get32(&rr, body, &pid) || !get64(&rr, body + 24, &to) ||
			    !get64(&rr, body + 32, &csize) || !get64(&rr, body + 40, &index))
				d->bad++;
			else if (csize && to + csize > to &&
				 (name = pev__u64map_get(&d->by_index, index)) &&
				 (rc = add_code(d, to, csize, time, name, pid, index, NULL, 0)))
				break;
		} else if (id == JIT_CODE_DEBUG_INFO) {
			uint64_t nr;

			debug_n = 0;
			if (!get64(&rr, body, &debug_addr) || !get64(&rr, body + 8, &nr)) {
				d->bad++;
			} else if ((debug_n = read_lines(d, &rr, body, end, nr, &debug_lines)) < 0) {
				rc = -ENOMEM;
				break;
			} else if (debug_n > 1) {
				qsort(debug_lines, (size_t)debug_n, sizeof(*debug_lines), by_addr);
			}
		}
		at = end;
	}
	if (d->n > 1)
		qsort(d->code, d->n, sizeof(*d->code), by_start);
	return rc;
}

/* Whether st, the stat of a dump, is one to trust (as a JIT map: see symbols_jit.c). */
static bool trusted(const struct stat *st)
{
	return (st->st_uid == geteuid() || st->st_uid == 0) && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* Reads and parses d's file, once. */
static void load(struct sym_jitdump *d)
{
	struct stat st;
	unsigned char *buf = NULL;
	size_t want, got = 0;
	const char *why = NULL;
	int fd, rc;

	d->loaded = true;
	fd = pev__open_regular(d->path);
	if (fd < 0) {
		pev__log(PEV_LOG_WARN,
			 "jitdump %s not read: %s; its process's JIT code stays unnamed "
			 "(report where the recording was made, with the dump still there)",
			 d->path, pev__open_strerror(fd));
		return;
	}
	if (fstat(fd, &st) < 0) {
		why = strerror(errno);
	} else if (!trusted(&st)) {
		pev__log(PEV_LOG_WARN,
			 "jitdump %s skipped: %s (uid %u, mode %03o); only dumps owned by this "
			 "user (uid %u) or root and not writable by group or others are read",
			 d->path,
			 st.st_mode & (S_IWGRP | S_IWOTH) ? "writable by group or others"
							  : "owned by another user",
			 (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777), (unsigned)geteuid());
		d->read_size = (uint64_t)st.st_size; /* said once: not again until it grows */
		close(fd);
		return;
	} else {
		uint64_t size = (uint64_t)st.st_size;
		if (size > JITDUMP_MAX_BYTES)
			size = JITDUMP_MAX_BYTES;
		want = size > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)size;
		buf = malloc(want ? want : 1);
		while (buf && got < want) {
			ssize_t n = pread(fd, buf + got, want - got, (off_t)got);
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		if (!buf)
			why = strerror(ENOMEM);
	}
	close(fd);
	if (!why) {
		rc = pev__jitdump_parse(d, buf, got);
		if (rc == -EINVAL)
			why = "not a jitdump file (bad magic or header)";
		else if (rc < 0)
			why = strerror(-rc);
		else if (d->truncated || d->bad)
			pev__log(PEV_LOG_DEBUG, "jitdump %s: %zu pieces of code; %u bad records%s",
				 d->path, d->n, d->bad, d->truncated ? ", cut short" : "");
	}
	free(buf);
	d->read_size = got;
	if (why)
		pev__log(PEV_LOG_WARN, "jitdump %s not read: %s", d->path, why);
}

/*
 * Reads d again when its file grew since it was read (a JIT still running:
 * perfev top). Names read before stay valid (the arena keeps them).
 */
static bool reload_grown(struct sym_jitdump *d)
{
	struct stat st;

	if (!d->loaded || stat(d->path, &st) < 0 || (uint64_t)st.st_size <= d->read_size)
		return false;
	d->n = 0;
	d->max_size = 0;
	d->truncated = false;
	d->bad = 0;
	pev__u64map_free(&d->by_index);
	load(d);
	return true;
}

/* The line entry of c that holds addr (the last one at or before it), or NULL. */
static const struct jitdump_line *line_of(const struct jitdump_code *c, uint64_t addr)
{
	size_t lo = 0, hi = c->nlines;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->lines[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &c->lines[lo - 1] : NULL;
}

const struct jitdump_code *pev__jitdump_find(struct sym_jitdump *d, uint64_t addr, uint64_t time,
					     uint64_t *from, uint64_t *until)
{
	const struct jitdump_code *best = NULL;
	size_t lo = 0, hi;
	bool timed = time != UINT64_MAX && !d->arch_timestamp;

	if (!d->loaded)
		load(d);
	*from = 0;
	*until = UINT64_MAX;
	hi = d->n;
	while (lo < hi) { /* past the last piece starting at or below addr */
		size_t mid = lo + (hi - lo) / 2;
		if (d->code[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Pieces that start further back than the longest one cannot hold addr. */
	for (size_t i = lo; i-- > 0;) {
		const struct jitdump_code *c = &d->code[i];

		if (addr - c->start >= d->max_size)
			break;
		if (addr - c->start >= c->size)
			continue;
		if (!timed) {
			if (!best || c->order > best->order)
				best = c;
		} else if (c->time > time) {
			if (c->time < *until) /* loaded after the sample: not yet there */
				*until = c->time;
		} else if (!best || c->time > best->time ||
			   (c->time == best->time && c->order > best->order)) {
			best = c;
		}
	}
	if (timed && best)
		*from = best->time;
	if (!timed) /* the answer holds whatever the time */
		*until = UINT64_MAX;
	return best;
}

bool pev__jitdump_resolve(struct pev_symbols *s, int32_t pid, uint64_t addr, uint64_t time,
			  struct pev_symbol *out, uint64_t *from, uint64_t *until)
{
	struct sym_jitdump *d = pev__u64map_get(&s->jitdumps, (uint32_t)pid);
	const struct jitdump_code *c;
	const struct jitdump_line *l;

	*from = 0;
	*until = UINT64_MAX;
	if (!d)
		return false;
	c = pev__jitdump_find(d, addr, time, from, until);
	if (!c && reload_grown(d))
		c = pev__jitdump_find(d, addr, time, from, until);
	if (!c)
		return false;
	out->status = PEV_SYMBOL_OK;
	out->flags |= PEV_SYMBOL_JIT;
	out->name = c->name;
	out->start = c->start;
	out->offset = addr - c->start;
	out->size = c->size;
	out->dso = c->dso;
	out->dso_addr = addr;
	/* Where the ELF file perf inject --jit writes holds the byte: its code
	 * starts 0x80 bytes in (after the ELF and program headers), what perf
	 * 6.1's script shows as the address. */
	out->flags |= PEV_SYMBOL_IN_FILE;
	out->file_offset = JITDUMP_ELF_TEXT + (addr - c->start);
	if ((l = line_of(c, addr))) {
		out->file = l->file;
		out->line = l->line;
	}
	return true;
}

bool pev__jitdump_path(const char *path, int32_t *pid)
{
	const char *base = strrchr(path, '/');
	size_t digits;

	base = base ? base + 1 : path;
	if (strncmp(base, "jit-", 4) != 0)
		return false;
	digits = strspn(base + 4, "0123456789");
	if (!digits || digits > 9 || strcmp(base + 4 + digits, ".dump") != 0)
		return false;
	if (pid)
		*pid = (int32_t)strtol(base + 4, NULL, 10);
	return true;
}

int pev__jitdump_add(struct pev_symbols *s, int32_t pid, const char *path)
{
	struct sym_jitdump *d = pev__u64map_get(&s->jitdumps, (uint32_t)pid);

	if (d && strcmp(d->path, path) == 0)
		return 0;
	/* Another dump for the pid (reused by a new process): it replaces the old,
	 * which stays allocated since results point into it. */
	if (d) {
		d->next_old = s->old_jitdumps;
		s->old_jitdumps = d;
	}
	if (!(d = pev__jitdump_new(path)))
		return -ENOMEM;
	if (pev__u64map_put(&s->jitdumps, (uint32_t)pid, d) < 0) {
		pev__jitdump_free(d);
		return -ENOMEM;
	}
	return 0;
}

void pev__jitdump_forget(struct pev_symbols *s, int32_t pid)
{
	struct sym_jitdump *d = pev__u64map_del(&s->jitdumps, (uint32_t)pid);

	if (d) { /* results point into it: kept until the symbolizer goes */
		d->next_old = s->old_jitdumps;
		s->old_jitdumps = d;
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * symbols_jit.c - code generated at run time, named in /tmp/perf-PID.map.
 *
 * JIT compilers (V8, the JVM with an agent, LuaJIT, .NET, ...) append one
 * line per function they emit: "START SIZE NAME", START and SIZE in
 * hexadecimal (with or without 0x), NAME the rest of the line. Code can be
 * replaced at the same address, so among entries that hold an address the
 * last line of the file wins. The file grows while the process runs: a
 * lookup that finds nothing reads it again when its size or time changed.
 *
 * The file names code in someone's report, often root's, and lives in a
 * directory anyone may write: a map is read only when this user (the
 * effective uid) or root owns it and neither group nor others may write it.
 * Any other is skipped, with a warning through the log callback.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "core/file_open.h"
#include "core/log_internal.h"
#include "symbols/symbols_internal.h"

struct jit_sym {
	uint64_t start, size;
	const char *name; /* in one of sym_jit.chunks */
	uint32_t order;   /* line number: later lines win */
};

/* Text read from the file. Chunks live until the symbolizer is freed, since
 * results point into them. */
struct jit_chunk {
	struct jit_chunk *next;
	char text[];
};

struct sym_jit {
	char *path;
	struct jit_chunk *chunks;
	struct jit_sym *syms; /* sorted by start, then order */
	size_t n, cap;
	uint64_t max_size;
	uint32_t lines;    /* lines parsed so far: the next line's order */
	off_t consumed;    /* bytes parsed: up to the end of the last whole line */
	bool read_once;
	bool warned;       /* a skip of this path was logged */
	struct stat st;    /* of the file as last read or skipped */
};

void pev__jit_free(struct sym_jit *j)
{
	if (!j)
		return;
	while (j->chunks) {
		struct jit_chunk *next = j->chunks->next;
		free(j->chunks);
		j->chunks = next;
	}
	free(j->path);
	free(j->syms);
	free(j);
}

static int by_start(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Parses the whole lines in text (len bytes, terminated) into j->syms. */
static int parse(struct sym_jit *j, char *text, size_t len)
{
	size_t lines = 1;
	char *p = text, *end = text + len;

	for (char *q = text; q < end; q++)
		lines += *q == '\n';
	if (j->n + lines > j->cap) {
		size_t cap = j->cap ? j->cap : 64;
		while (cap < j->n + lines)
			cap *= 2;
		struct jit_sym *ns = realloc(j->syms, cap * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		j->syms = ns;
		j->cap = cap;
	}
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *line = p, *q, *name;
		unsigned long long start, size;

		if (nl)
			*nl = '\0';
		p = nl ? nl + 1 : end;
		j->lines++;
		errno = 0;
		start = strtoull(line, &q, 16);
		if (q == line || (*q != ' ' && *q != '\t') || errno)
			continue;
		line = q;
		size = strtoull(line, &q, 16);
		if (q == line || (*q != ' ' && *q != '\t') || errno || size == 0 ||
		    start + size < start)
			continue;
		name = q;
		while (*name == ' ' || *name == '\t')
			name++;
		size_t name_len = strlen(name);
		while (name_len && (name[name_len - 1] == '\r' || name[name_len - 1] == ' '))
			name[--name_len] = '\0';
		if (!name_len)
			continue;
		j->syms[j->n++] = (struct jit_sym){
			.start = start, .size = size, .name = name, .order = j->lines};
		if (size > j->max_size)
			j->max_size = size;
	}
	qsort(j->syms, j->n, sizeof(*j->syms), by_start);
	return 0;
}

/* Whether st, the stat of a JIT map, is one to trust (see the top of the file). */
static bool trusted(const struct stat *st)
{
	return (st->st_uid == geteuid() || st->st_uid == 0) && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

static bool same_file_state(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size && a->st_ino == b->st_ino &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Forgets what j read (a later read starts over; names read stay valid). */
static void start_over(struct sym_jit *j)
{
	j->n = 0;
	j->lines = 0;
	j->max_size = 0;
	j->consumed = 0;
}

/* Drops what j held and says (the first time for this path) why st is not read. */
static int skip(struct sym_jit *j, const struct stat *st)
{
	start_over(j);
	j->st = *st;
	j->read_once = true;
	if (!j->warned)
		pev__log(PEV_LOG_WARN,
			 "JIT map %s skipped: %s (uid %u, mode %03o); only maps owned by "
			 "this user (uid %u) or root and not writable by group or others are "
			 "read: fix its owner and mode, or ignore its symbols",
			 j->path,
			 st->st_mode & (S_IWGRP | S_IWOTH) ? "writable by group or others"
							   : "owned by another user",
			 (unsigned)st->st_uid, (unsigned)(st->st_mode & 0777), (unsigned)geteuid());
	j->warned = true;
	return -EPERM;
}

/*
 * Reads what was added to the map since the last read (all of it the first
 * time, or when the file was replaced or shrank). Returns 0 or -errno
 * (-EPERM for a map skipped as untrusted).
 */
static int refresh(struct pev_symbols *s, struct sym_jit *j)
{
	struct stat st;
	struct jit_chunk *c;
	ssize_t got;
	size_t want, whole;
	int fd;

	if (stat(j->path, &st) < 0)
		return -errno;
	if (j->read_once && same_file_state(&st, &j->st))
		return 0;
	fd = pev__open_regular(j->path);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	if (!trusted(&st)) {
		close(fd);
		return skip(j, &st);
	}
	if (j->read_once && (st.st_ino != j->st.st_ino || st.st_size < j->consumed))
		start_over(j); /* another file now: start over (old names stay valid) */
	j->st = st;
	j->read_once = true;
	if (st.st_size <= j->consumed) {
		close(fd);
		return 0;
	}
	want = (size_t)(st.st_size - j->consumed);
	c = malloc(sizeof(*c) + want + 1);
	if (!c) {
		close(fd);
		return -ENOMEM;
	}
	got = pread(fd, c->text, want, j->consumed);
	close(fd);
	if (got <= 0) {
		free(c);
		return got < 0 ? -errno : 0;
	}
	/* A line still being written is left for the next read. */
	for (whole = (size_t)got; whole && c->text[whole - 1] != '\n'; whole--)
		;
	if (!whole) {
		free(c);
		return 0;
	}
	c->text[whole] = '\0';
	c->next = j->chunks;
	j->chunks = c;
	j->consumed += (off_t)whole;
	s->st.jit_reads++;
	return parse(j, c->text, whole);
}

static const struct jit_sym *find(const struct sym_jit *j, uint64_t addr)
{
	size_t lo = 0, hi = j->n;
	const struct jit_sym *best = NULL;

	while (lo < hi) { /* past the last entry starting at or below addr */
		size_t mid = lo + (hi - lo) / 2;
		if (j->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Entries that start further back than the longest one cannot hold addr. */
	for (size_t i = lo; i-- > 0;) {
		const struct jit_sym *e = &j->syms[i];

		if (addr - e->start >= j->max_size)
			break;
		if (addr - e->start < e->size && (!best || e->order > best->order))
			best = e;
	}
	return best;
}

/* pid's JIT map (not read yet when new), or NULL when out of memory. */
static struct sym_jit *jit_of(struct pev_symbols *s, int32_t pid)
{
	struct sym_jit *j = pev__u64map_get(&s->jits, (uint32_t)pid);
	char path[4096];

	if (j)
		return j;
	j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	snprintf(path, sizeof(path), "%s/perf-%" PRId32 ".map", s->jit_dir, pid);
	j->path = strdup(path);
	if (!j->path || pev__u64map_put(&s->jits, (uint32_t)pid, j) < 0) {
		pev__jit_free(j);
		return NULL;
	}
	return j;
}

const char *pev__jit_map_path(struct pev_symbols *s, int32_t pid)
{
	struct sym_jit *j = jit_of(s, pid);

	return j ? j->path : NULL;
}

bool pev__jit_resolve(struct pev_symbols *s, int32_t pid, uint64_t addr, struct pev_symbol *out)
{
	struct sym_jit *j = jit_of(s, pid);
	const struct jit_sym *e;

	if (!j)
		return false;
	e = j->read_once ? find(j, addr) : NULL;
	if (!e && refresh(s, j) == 0)
		e = find(j, addr);
	if (!e)
		return false;
	out->status = PEV_SYMBOL_OK;
	out->flags |= PEV_SYMBOL_JIT;
	out->name = e->name;
	out->start = e->start;
	out->offset = addr - e->start;
	out->size = e->size;
	out->dso = j->path;
	out->dso_addr = addr;
	return true;
}

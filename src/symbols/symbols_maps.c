/* SPDX-License-Identifier: MIT */
/*
 * symbols_maps.c - address spaces: the mappings of each process, kept sorted
 * and disjoint the way the kernel keeps them, fed from records or read from
 * /proc/PID/maps.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error_internal.h"
#include "symbols/symbols_internal.h"

struct sym_proc *pev__sym_proc(struct pev_symbols *s, int32_t pid, bool create)
{
	uint64_t key = (uint32_t)pid;
	struct sym_proc *p = pev__u64map_get(&s->procs, key);

	if (p || !create)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	if (pev__u64map_put(&s->procs, key, p) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

void pev__sym_proc_free(struct sym_proc *p)
{
	if (!p)
		return;
	pev__unwind_free(p->unwind);
	free(p->maps);
	free(p);
}

/* Index of the first mapping that ends after addr (nmaps when none). */
static size_t first_ending_after(const struct sym_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct sym_map *pev__sym_map_find(const struct sym_proc *p, uint64_t addr)
{
	size_t i = first_ending_after(p, addr);

	if (i < p->nmaps && p->maps[i].start <= addr)
		return &p->maps[i];
	return NULL;
}

static int reserve(struct sym_proc *p, size_t more)
{
	if (p->nmaps + more <= p->cap)
		return 0;
	size_t cap = p->cap ? p->cap * 2 : 16;
	while (cap < p->nmaps + more)
		cap *= 2;
	struct sym_map *m = realloc(p->maps, cap * sizeof(*m));
	if (!m)
		return -ENOMEM;
	p->maps = m;
	p->cap = cap;
	return 0;
}

/*
 * Inserts [start, end) and cuts the mappings it overlaps: one that starts
 * before keeps its head, one that ends after keeps its tail (with its file
 * offset moved along), those inside go away.
 */
int pev__sym_map_insert(struct pev_symbols *s, struct sym_proc *p, uint64_t start, uint64_t end,
			uint64_t pgoff, struct sym_dso *dso, const char *label)
{
	size_t i, j;
	bool files = dso != NULL;
	(void)s;

	/* At most one existing mapping is split in two: room for it and the new one. */
	if (reserve(p, 2) < 0)
		return -ENOMEM;
	i = first_ending_after(p, start);
	for (j = i; !files && j < p->nmaps && p->maps[j].start < end; j++)
		files = p->maps[j].dso != NULL;
	if (i < p->nmaps && p->maps[i].start < start && p->maps[i].end > end) {
		/* The new mapping lands inside one: split it around the hole. */
		struct sym_map tail = p->maps[i];

		tail.pgoff += end - tail.start;
		tail.start = end;
		p->maps[i].end = start;
		memmove(&p->maps[i + 3], &p->maps[i + 1], (p->nmaps - i - 1) * sizeof(*p->maps));
		p->maps[i + 2] = tail;
		p->nmaps += 2;
		i++;
	} else {
		if (i < p->nmaps && p->maps[i].start < start) {
			p->maps[i].end = start; /* keeps its head */
			i++;
		}
		/* Mappings from i on start at or after start; drop those inside. */
		for (j = i; j < p->nmaps && p->maps[j].end <= end; j++)
			;
		if (j < p->nmaps && p->maps[j].start < end) { /* keeps its tail */
			p->maps[j].pgoff += end - p->maps[j].start;
			p->maps[j].start = end;
		}
		if (j != i + 1) {
			memmove(&p->maps[i + 1], &p->maps[j], (p->nmaps - j) * sizeof(*p->maps));
			p->nmaps = p->nmaps - (j - i) + 1;
		}
	}
	p->maps[i] = (struct sym_map){
		.start = start, .end = end, .pgoff = pgoff, .dso = dso, .label = label, .owner = p->pid};
	if (files) /* anonymous memory coming and going changes no module */
		p->files_version++;
	return 0;
}

/* ---- /proc/PID/maps ------------------------------------------------------ */

/* True when pid sees another root directory than we do (a container). */
static bool other_root(int32_t pid, char *prefix, size_t size)
{
	struct stat ours, theirs;

	snprintf(prefix, size, "/proc/%" PRId32 "/root", pid);
	if (stat("/", &ours) < 0 || stat(prefix, &theirs) < 0)
		return false;
	return ours.st_dev != theirs.st_dev || ours.st_ino != theirs.st_ino;
}

static int maps_error(struct pev_error *err, int32_t pid, int errnum, const char *path)
{
	int code = errnum == ENOENT ? PEV_ESRCH : pev_error_from_errno(errnum);

	pev__error_start(err, code, errnum, "open", NULL, false);
	pev__error_field(err, "pid");
	if (errnum == ENOENT) {
		pev__error_msg(err, "no process %" PRId32 " (%s does not exist)", pid, path);
		pev__error_hint(err, "give the pid of a running process; for a recording, feed its "
				     "MMAP records with pev_symbols_add_mapping instead");
	} else {
		pev__error_msg(err, "cannot read %s: %s", path, strerror(errnum));
		if (errnum == EACCES || errnum == EPERM)
			pev__error_hint(err, "reading another user's maps needs the same user, root or "
					     "CAP_SYS_PTRACE (ptrace access mode)");
	}
	return code;
}

int pev__sym_read_maps(struct pev_symbols *s, int32_t pid, struct pev_error *err)
{
	char path[64], root[64], line[4096 + 128], real[4096 + 128];
	bool contained;
	FILE *f;
	struct sym_proc *p;
	int r = 0;

	snprintf(path, sizeof(path), "/proc/%" PRId32 "/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return maps_error(err, pid, errno, path);
	/* A process gone between open and read shows an empty file: still ESRCH. */
	contained = other_root(pid, root, sizeof(root));
	p = pev__sym_proc(s, pid, true);
	if (!p) {
		fclose(f);
		return pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, NULL, true);
	}
	p->nmaps = 0;

	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, ino;
		char perms[8];
		int pos = -1;
		size_t len = strlen(line);

		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %llu%n", &lo, &hi, perms, &off, &ino, &pos) <
			5 ||
		    pos < 0 || hi <= lo)
			continue;
		const char *name = line + pos;
		while (*name == ' ')
			name++;
		/* A newline in a path is written "\012": the file's real name, looked
		 * for where the process sees it (its root: "/" itself when not contained). */
		if (strstr(name, "\\012")) {
			pev_maps_name_lookup(name, ino, root, real, sizeof(real));
			name = real;
		}
		if (pev__sym_add(s, p, lo, hi, off, name, contained ? root : NULL, NULL, 0) < 0) {
			r = -ENOMEM;
			break;
		}
	}
	if (r == 0 && ferror(f))
		r = maps_error(err, pid, errno ? errno : EIO, path);
	fclose(f);
	if (r == -ENOMEM)
		return pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, NULL, true);
	if (r == 0 && p->nmaps == 0) {
		/* Kernel threads have no maps; a process that exited shows none either. */
		char status[64];
		snprintf(status, sizeof(status), "/proc/%" PRId32, pid);
		if (access(status, F_OK) < 0)
			return maps_error(err, pid, ENOENT, path);
	}
	return r;
}

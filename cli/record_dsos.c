/* SPDX-License-Identifier: MIT */
/*
 * record_dsos.c - what `perfev record` learns from the records it writes:
 * samples and lost records are counted; MMAP and MMAP2 records give each
 * process's executable mappings (FORK and exec COMM records keep them as
 * the kernel does); each sample's address, and its call chain's, marks the
 * file it falls in as hit. At the end the build ids of the files hit (read
 * from their ELF notes with libelf), of the kernel (/sys/kernel/notes)
 * and, when a process mapped it, of the vDSO (perfev's own image) go into
 * the BUILD_ID feature, so that perf report knows what it reads, and into
 * perf's build-id cache unless -N (buildid_cache.c), as perf record does.
 *
 * This runs on every record, so it reads fields at fixed offsets and looks
 * a sample up in its process's mappings, the last one found first.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid_cache.h"
#include "record.h"

static uint64_t u64_at(const struct pev_event_header *h, size_t off)
{
	uint64_t v;

	memcpy(&v, (const unsigned char *)h + off, 8);
	return v;
}

static uint32_t u32_at(const struct pev_event_header *h, size_t off)
{
	uint32_t v;

	memcpy(&v, (const unsigned char *)h + off, 4);
	return v;
}

/* Process pid's entry; created when `create`. */
static struct rec_proc *proc_get(struct rec_dsos *d, int32_t pid, bool create)
{
	struct rec_proc **head = &d->procs[(uint32_t)pid % REC_PROC_BUCKETS];

	for (struct rec_proc *p = *head; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!create)
		return NULL;
	struct rec_proc *p = cli_xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->parent = -1;
	p->next = *head;
	*head = p;
	return p;
}

/* The index of the file at path, added when new. */
static int dso_get(struct rec_dsos *d, const char *path)
{
	for (int i = d->ndsos - 1; i >= 0; i--)
		if (strcmp(d->dsos[i].path, path) == 0)
			return i;
	if (d->ndsos == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 64;
		d->dsos = realloc(d->dsos, (size_t)d->cap * sizeof(*d->dsos));
		if (!d->dsos) {
			cli_error("out of memory");
			exit(1);
		}
	}
	d->dsos[d->ndsos].path = strdup(path);
	d->dsos[d->ndsos].hit = false;
	if (!d->dsos[d->ndsos].path) {
		cli_error("out of memory");
		exit(1);
	}
	return d->ndsos++;
}

static void add_map(struct rec_dsos *d, int32_t pid, uint64_t start, uint64_t len, const char *path)
{
	if (strcmp(path, "[vdso]") == 0)
		d->vdso_mapped = true;
	if (pid < 0 || path[0] != '/' || !len)
		return;
	struct rec_proc *p = proc_get(d, pid, true);
	if (p->nmaps == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 32;
		p->maps = realloc(p->maps, (size_t)p->cap * sizeof(*p->maps));
		if (!p->maps) {
			cli_error("out of memory");
			exit(1);
		}
	}
	p->maps[p->nmaps++] = (struct rec_map){start, start + len, dso_get(d, path)};
}

/*
 * Marks the file holding user address ip of process pid (or the process it
 * forked from). Returns whether a mapping held it.
 */
static bool find_user(struct rec_dsos *d, int32_t pid, uint64_t ip)
{
	for (int depth = 0; depth < 8 && pid >= 0; depth++) {
		struct rec_proc *p = proc_get(d, pid, false);
		if (!p)
			return false;
		if (p->last < p->nmaps && ip >= p->maps[p->last].start &&
		    ip < p->maps[p->last].end) {
			d->dsos[p->maps[p->last].dso].hit = true;
			return true;
		}
		/* Newest first: a later mapping replaces what it overlaps. */
		for (int i = p->nmaps - 1; i >= 0; i--)
			if (ip >= p->maps[i].start && ip < p->maps[i].end) {
				p->last = i;
				d->dsos[p->maps[i].dso].hit = true;
				return true;
			}
		pid = p->parent;
	}
	return false;
}

#define MAX_PENDING (1u << 20) /* addresses kept for the second look (16 MiB) */

/* find_user, keeping an address no mapping holds yet for rec_dsos_add_build_ids. */
static void mark_user(struct rec_dsos *d, int32_t pid, uint64_t ip)
{
	if (find_user(d, pid, ip))
		return;
	if (d->npending && d->pending[d->npending - 1].pid == pid &&
	    d->pending[d->npending - 1].ip == ip)
		return;
	if (d->npending == d->cap_pending) {
		if (d->cap_pending >= MAX_PENDING)
			return;
		size_t cap = d->cap_pending ? 2 * d->cap_pending : 256;
		struct rec_pending *grown = realloc(d->pending, cap * sizeof(*grown));
		if (!grown)
			return;
		d->pending = grown;
		d->cap_pending = cap;
	}
	d->pending[d->npending++] = (struct rec_pending){pid, ip};
}

/* A SAMPLE: its address and its call chain's mark the files they fall in. */
static void account_sample(struct rec_state *s, const struct pev_event_header *h, size_t size)
{
	uint64_t st = s->sample_type;
	size_t at = 8 + (st & PEV_SAMPLE_IDENTIFIER ? 8 : 0);

	if (at + 16 > size)
		return;
	uint64_t ip = u64_at(h, at);
	int32_t pid = (int32_t)u32_at(h, at + 8);
	unsigned mode = h->misc & PEV_RECORD_MISC_CPUMODE_MASK;
	if (mode == PEV_RECORD_MISC_KERNEL)
		s->dsos.kernel_hit = true;
	else if (mode == PEV_RECORD_MISC_USER)
		mark_user(&s->dsos, pid, ip);
	if (!(st & PEV_SAMPLE_CALLCHAIN) || !s->uniform)
		return;
	/* IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD: one word each; no READ here. */
	at += 16;
	at += st & PEV_SAMPLE_TIME ? 8 : 0;
	at += st & PEV_SAMPLE_ADDR ? 8 : 0;
	at += st & PEV_SAMPLE_ID ? 8 : 0;
	at += st & PEV_SAMPLE_STREAM_ID ? 8 : 0;
	at += st & PEV_SAMPLE_CPU ? 8 : 0;
	at += st & PEV_SAMPLE_PERIOD ? 8 : 0;
	if ((st & PEV_SAMPLE_READ) || at + 8 > size)
		return;
	uint64_t nr = u64_at(h, at);
	at += 8;
	if (nr > (size - at) / 8)
		return;
	bool user = mode == PEV_RECORD_MISC_USER;
	uint64_t last = 0;
	for (uint64_t i = 0; i < nr; i++, at += 8) {
		uint64_t e = u64_at(h, at);
		if (e >= PEV_CONTEXT_MAX) {
			user = e == PEV_CONTEXT_USER;
			if (e == PEV_CONTEXT_KERNEL)
				s->dsos.kernel_hit = true;
		} else if (user && e != last) {
			mark_user(&s->dsos, pid, e);
			last = e;
		}
	}
}

void rec_dsos_account(struct rec_state *s, const struct pev_event_header *h, size_t size)
{
	struct rec_dsos *d = &s->dsos;

	switch (h->type) {
	case PEV_RECORD_SAMPLE:
		s->stats.samples++;
		account_sample(s, h, size);
		break;
	case PEV_RECORD_LOST:
		if (size >= 24)
			s->stats.lost += u64_at(h, 16);
		break;
	case PEV_RECORD_LOST_SAMPLES:
		if (size >= 16)
			s->stats.lost += u64_at(h, 8);
		break;
	case PEV_RECORD_MMAP:
		if (size > 40 && !(h->misc & PEV_RECORD_MISC_MMAP_DATA) &&
		    memchr((const char *)h + 40, '\0', size - 40))
			add_map(d, (int32_t)u32_at(h, 8), u64_at(h, 16), u64_at(h, 24),
			        (const char *)h + 40);
		break;
	case PEV_RECORD_MMAP2:
		if (size > 72 && (u32_at(h, 64) & PROT_EXEC) &&
		    memchr((const char *)h + 72, '\0', size - 72))
			add_map(d, (int32_t)u32_at(h, 8), u64_at(h, 16), u64_at(h, 24),
			        (const char *)h + 72);
		break;
	case PEV_RECORD_FORK:
		if (size >= 24 && u32_at(h, 8) != u32_at(h, 12)) {
			struct rec_proc *p = proc_get(d, (int32_t)u32_at(h, 8), true);
			p->nmaps = p->last = 0;
			p->parent = (int32_t)u32_at(h, 12);
		}
		break;
	case PEV_RECORD_COMM:
		if ((h->misc & PEV_RECORD_MISC_COMM_EXEC) && size >= 16) {
			struct rec_proc *p = proc_get(d, (int32_t)u32_at(h, 8), false);
			if (p) {
				p->nmaps = p->last = 0;
				p->parent = -1;
			}
		}
		break;
	default:
		break;
	}
}

/* Adds name's build id to the file and, unless -N, the file itself to perf's build-id cache. */
static void add_build_id(struct rec_state *s, const char *cache, uint16_t cpumode,
			 const unsigned char *id, size_t n, const char *name)
{
	int r;

	pev_perfdata_writer_add_build_id(s->writer, -1, cpumode, id, n, name);
	/* Not cached, as by perf: a file changed since it was mapped, hidden kernel addresses. */
	if (cache && (r = bc_add_named(cache, name, id, n)) < 0 && r != -ESTALE && r != -EACCES &&
	    r != -EINVAL)
		cli_warning("cannot add %s to the build-id cache %s: %s", name, cache, strerror(-r));
}

void rec_dsos_retry(struct rec_state *s)
{
	for (size_t i = 0; i < s->dsos.npending; i++)
		find_user(&s->dsos, s->dsos.pending[i].pid, s->dsos.pending[i].ip);
	s->dsos.npending = 0;
}

void rec_dsos_add_build_ids(struct rec_state *s)
{
	unsigned char id[PEV_PERFDATA_BUILD_ID_MAX];
	char dir[PATH_MAX];
	const char *cache = NULL;
	const void *image;
	size_t n, size;

	/* perf caches what a file names when it finishes it: never in pipe mode. */
	if (!s->cfg.no_buildid_cache && !s->cfg.pipe && bc_dir(dir, sizeof(dir)))
		cache = dir;
	rec_dsos_retry(s);
	for (int i = 0; i < s->dsos.ndsos; i++) {
		if (!s->dsos.dsos[i].hit)
			continue;
		n = bc_file_build_id(s->dsos.dsos[i].path, id, sizeof(id));
		if (n)
			add_build_id(s, cache, PEV_RECORD_MISC_USER, id, n, s->dsos.dsos[i].path);
	}
	/* perf lists the vDSO whenever a process mapped it, hit or not. */
	if (s->dsos.vdso_mapped && (n = bc_vdso(&image, &size, id, sizeof(id))) > 0)
		add_build_id(s, cache, PEV_RECORD_MISC_USER, id, n, "[vdso]");
	if (s->dsos.kernel_hit && (n = bc_kernel_build_id(id, sizeof(id))) > 0)
		add_build_id(s, cache, PEV_RECORD_MISC_KERNEL, id, n, "[kernel.kallsyms]");
}

void rec_dsos_free(struct rec_dsos *d)
{
	for (int b = 0; b < REC_PROC_BUCKETS; b++) {
		for (struct rec_proc *p = d->procs[b], *next; p; p = next) {
			next = p->next;
			free(p->maps);
			free(p);
		}
		d->procs[b] = NULL;
	}
	for (int i = 0; i < d->ndsos; i++)
		free(d->dsos[i].path);
	free(d->dsos);
	d->dsos = NULL;
	free(d->pending);
	d->pending = NULL;
	d->npending = d->cap_pending = 0;
	d->ndsos = d->cap = 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * record_dsos.c - what `perfev record` learns from the records it writes:
 * samples and lost records are counted; MMAP and MMAP2 records give each
 * process's executable mappings (FORK and exec COMM records keep them as
 * the kernel does); each sample's address, and its call chain's, marks the
 * file it falls in as hit. The rings are read one after another, so a
 * process's records come out of time order (its exec after the mappings of
 * the new program, a sample before the mapping it hit): records' times
 * decide which mappings served a sample, and addresses no mapping held yet
 * are looked up again after each pass. At the end the build ids of the files hit (read
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

static void add_map(struct rec_dsos *d, int32_t pid, uint64_t start, uint64_t len, const char *path,
                    uint64_t time)
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
	p->maps[p->nmaps++] = (struct rec_map){start, start + len, time, dso_get(d, path)};
}

/*
 * Whether mapping m served process p at time t: made no later than t, and
 * not before p's exec or fork that came last before t (another program, or
 * an earlier process of that pid). Without times (t 0) every mapping does.
 */
static bool map_at(const struct rec_proc *p, const struct rec_map *m, uint64_t t)
{
	if (!t)
		return true;
	uint64_t begin = p->start <= t ? p->start : 0;
	return m->time <= t && m->time >= begin;
}

/*
 * Marks the file holding user address ip of process pid at time t (or of
 * the process it forked from, before it ran a program of its own).
 * Returns whether a mapping held it.
 */
static bool find_user(struct rec_dsos *d, int32_t pid, uint64_t ip, uint64_t t)
{
	for (int depth = 0; depth < 8 && pid >= 0; depth++) {
		struct rec_proc *p = proc_get(d, pid, false);
		if (!p)
			return false;
		const struct rec_map *m = p->last < p->nmaps ? &p->maps[p->last] : NULL;
		if (m && ip >= m->start && ip < m->end && map_at(p, m, t)) {
			d->dsos[m->dso].hit = true;
			return true;
		}
		/* The newest that holds it: a later mapping replaces what it overlaps. */
		int best = -1;
		for (int i = p->nmaps - 1; i >= 0; i--) {
			m = &p->maps[i];
			if (ip >= m->start && ip < m->end && map_at(p, m, t) &&
			    (best < 0 || m->time > p->maps[best].time))
				best = i;
		}
		if (best >= 0) {
			p->last = best;
			d->dsos[p->maps[best].dso].hit = true;
			return true;
		}
		if (t && p->exec && p->start <= t)
			return false; /* its own program by then: nothing inherited */
		pid = p->parent;
	}
	return false;
}

#define MAX_PENDING (1u << 20) /* addresses kept for the second look (16 MiB) */

/* find_user, keeping an address no mapping holds yet for rec_dsos_retry. */
static void mark_user(struct rec_dsos *d, int32_t pid, uint64_t ip, uint64_t t)
{
	if (find_user(d, pid, ip, t))
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
	d->pending[d->npending++] = (struct rec_pending){pid, ip, t};
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
	uint64_t t = (st & PEV_SAMPLE_TIME) && at + 24 <= size ? u64_at(h, at + 16) : 0;
	unsigned mode = h->misc & PEV_RECORD_MISC_CPUMODE_MASK;
	if (mode == PEV_RECORD_MISC_KERNEL)
		s->dsos.kernel_hit = true;
	else if (mode == PEV_RECORD_MISC_USER)
		mark_user(&s->dsos, pid, ip, t);
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
			mark_user(&s->dsos, pid, e, t);
			last = e;
		}
	}
}

/*
 * The time in a record's sample_id trailer (every event has the same
 * layout); 0 when the records carry no time, or for those perfev
 * synthesized from /proc (a zeroed trailer).
 */
static uint64_t trailer_time(const struct rec_state *s, size_t size,
                             const struct pev_event_header *h)
{
	static const uint64_t fields[] = {PEV_SAMPLE_TID,       PEV_SAMPLE_TIME, PEV_SAMPLE_ID,
	                                  PEV_SAMPLE_STREAM_ID, PEV_SAMPLE_CPU,  PEV_SAMPLE_IDENTIFIER};
	uint64_t st = s->sample_type;
	size_t n = 0;

	if (!s->uniform || !(st & PEV_SAMPLE_TIME))
		return 0;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		n += st & fields[i] ? 8 : 0;
	if (size < 8 + n)
		return 0;
	return u64_at(h, size - n + (st & PEV_SAMPLE_TID ? 8 : 0));
}

/*
 * Process pid starts anew at time t (an exec, or a fork that made it):
 * with a time, mappings older than t stop serving later samples (map_at);
 * without, they are dropped.
 */
static struct rec_proc *proc_restart(struct rec_dsos *d, int32_t pid, uint64_t t, bool exec)
{
	struct rec_proc *p = proc_get(d, pid, true);

	if (!t) {
		p->nmaps = p->last = 0;
	} else if (t >= p->start) {
		p->start = t;
		p->exec = exec;
	}
	return p;
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
			        (const char *)h + 40, trailer_time(s, size, h));
		break;
	case PEV_RECORD_MMAP2:
		if (size > 72 && (u32_at(h, 64) & PROT_EXEC) &&
		    memchr((const char *)h + 72, '\0', size - 72))
			add_map(d, (int32_t)u32_at(h, 8), u64_at(h, 16), u64_at(h, 24),
			        (const char *)h + 72, trailer_time(s, size, h));
		break;
	case PEV_RECORD_FORK:
		/* pid, ppid, tid, ptid, time: a new process, not a thread */
		if (size >= 32 && u32_at(h, 8) != u32_at(h, 12)) {
			uint64_t t = s->uniform && (s->sample_type & PEV_SAMPLE_TIME) ? u64_at(h, 24) : 0;
			struct rec_proc *p = proc_restart(d, (int32_t)u32_at(h, 8), t, false);
			p->parent = (int32_t)u32_at(h, 12);
		}
		break;
	case PEV_RECORD_COMM:
		if ((h->misc & PEV_RECORD_MISC_COMM_EXEC) && size >= 16) {
			uint64_t t = trailer_time(s, size, h);
			int32_t pid = (int32_t)u32_at(h, 8);
			if (t || proc_get(d, pid, false)) {
				struct rec_proc *p = proc_restart(d, pid, t, true);
				if (!t)
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
		find_user(&s->dsos, s->dsos.pending[i].pid, s->dsos.pending[i].ip,
		          s->dsos.pending[i].time);
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

/* SPDX-License-Identifier: MIT */
/*
 * record_dsos.c - what `perfev record` learns from the records it writes:
 * samples and lost records are counted; MMAP and MMAP2 records give each
 * process's executable mappings (FORK and exec COMM records keep them as
 * the kernel does); each sample's address, and its call chain's, marks the
 * file it falls in as hit. At the end the build ids of the files hit (read
 * from their ELF notes with libelf), of the kernel (/sys/kernel/notes)
 * and, when a process mapped it, of the vDSO (perfev's own image) go into
 * the BUILD_ID feature, so that perf report knows what it reads.
 *
 * This runs on every record, so it reads fields at fixed offsets and looks
 * a sample up in its process's mappings, the last one found first.
 */
#include <fcntl.h>
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

#include "record.h"

#define GNU_BUILD_ID 3 /* NT_GNU_BUILD_ID */

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

/* Marks the file holding user address ip of process pid (or the process it forked from). */
static void mark_user(struct rec_dsos *d, int32_t pid, uint64_t ip)
{
	for (int depth = 0; depth < 8 && pid >= 0; depth++) {
		struct rec_proc *p = proc_get(d, pid, false);
		if (!p)
			return;
		if (p->last < p->nmaps && ip >= p->maps[p->last].start &&
		    ip < p->maps[p->last].end) {
			d->dsos[p->maps[p->last].dso].hit = true;
			return;
		}
		/* Newest first: a later mapping replaces what it overlaps. */
		for (int i = p->nmaps - 1; i >= 0; i--)
			if (ip >= p->maps[i].start && ip < p->maps[i].end) {
				p->last = i;
				d->dsos[p->maps[i].dso].hit = true;
				return;
			}
		pid = p->parent;
	}
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

/* Finds a GNU build id in note bytes (ELF note layout, 4-aligned); returns its length or 0. */
static size_t note_build_id(const unsigned char *p, size_t len, unsigned char *id, size_t max)
{
	size_t at = 0;

	while (at + 12 <= len) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + at, 4);
		memcpy(&descsz, p + at + 4, 4);
		memcpy(&type, p + at + 8, 4);
		size_t name_at = at + 12, desc_at = name_at + ((namesz + 3) & ~3U);
		size_t next = desc_at + ((descsz + 3) & ~3U);
		if (next > len || next <= at)
			return 0;
		if (type == GNU_BUILD_ID && namesz == 4 && memcmp(p + name_at, "GNU", 4) == 0 &&
		    descsz > 0 && descsz <= max) {
			memcpy(id, p + desc_at, descsz);
			return descsz;
		}
		at = next;
	}
	return 0;
}

/* The build id of an ELF file from its note sections; 0 when it has none or cannot be read. */
static size_t file_build_id(const char *path, unsigned char *id, size_t max)
{
	size_t got = 0;
	struct stat st;
	int fd;

	/* A mapped file may since have become a FIFO or a device: only a regular
	 * file is opened, without blocking (the rule of src/core/file_open.c,
	 * which the command line cannot include). */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	for (Elf_Scn *scn = NULL; e && !got && (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_rawdata(scn, NULL);
		if (data && data->d_buf)
			got = note_build_id(data->d_buf, data->d_size, id, max);
	}
	if (e)
		elf_end(e);
	close(fd);
	return got;
}

/* The running kernel's build id from /sys/kernel/notes; 0 when unreadable. */
static size_t kernel_build_id(unsigned char *id, size_t max)
{
	unsigned char buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 ? note_build_id(buf, (size_t)n, id, max) : 0;
}

/*
 * The vDSO's build id. The kernel maps the same image into every process
 * (of one ABI), so perfev's own, at AT_SYSINFO_EHDR, stands for the
 * recorded processes'. The image is the ELF file as it is, its size the
 * end of its headers' tables; its PT_NOTE segments hold the build id.
 * Returns its length, or 0 without a vDSO or a build id.
 */
static size_t vdso_build_id(unsigned char *id, size_t max)
{
	const unsigned char *base = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	ElfW(Ehdr) eh;
	size_t size;

	if (!base)
		return 0;
	memcpy(&eh, base, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_phentsize != sizeof(ElfW(Phdr)))
		return 0;
	size = eh.e_phoff + (size_t)eh.e_phnum * eh.e_phentsize;
	if (eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize > size)
		size = eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
	for (size_t i = 0; i < eh.e_phnum; i++) {
		ElfW(Phdr) ph;
		size_t got;

		memcpy(&ph, base + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_NOTE || ph.p_offset > size || ph.p_filesz > size - ph.p_offset)
			continue;
		got = note_build_id(base + ph.p_offset, ph.p_filesz, id, max);
		if (got)
			return got;
	}
	return 0;
}

void rec_dsos_add_build_ids(struct rec_state *s)
{
	unsigned char id[PEV_PERFDATA_BUILD_ID_MAX];
	size_t n;

	elf_version(EV_CURRENT);
	for (int i = 0; i < s->dsos.ndsos; i++) {
		if (!s->dsos.dsos[i].hit)
			continue;
		n = file_build_id(s->dsos.dsos[i].path, id, sizeof(id));
		if (n)
			pev_perfdata_writer_add_build_id(s->writer, -1, PEV_RECORD_MISC_USER, id, n,
			                                 s->dsos.dsos[i].path);
	}
	/* perf lists the vDSO whenever a process mapped it, hit or not. */
	if (s->dsos.vdso_mapped && (n = vdso_build_id(id, sizeof(id))) > 0)
		pev_perfdata_writer_add_build_id(s->writer, -1, PEV_RECORD_MISC_USER, id, n, "[vdso]");
	if (s->dsos.kernel_hit && (n = kernel_build_id(id, sizeof(id))) > 0)
		pev_perfdata_writer_add_build_id(s->writer, -1, PEV_RECORD_MISC_KERNEL, id, n,
		                                 "[kernel.kallsyms]");
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
	d->ndsos = d->cap = 0;
}

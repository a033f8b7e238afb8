/* SPDX-License-Identifier: MIT */
/*
 * record_synth.c - the records the kernel does not write for what existed
 * before recording started, made from /proc as perf record makes them: the
 * kernel's text mapping ("[kernel.kallsyms]_text", or _stext where the
 * kernel lists no _text: kernel_text.c; pid -1), and for tasks
 * that run already (-p, -t, -a, -C) a COMM per thread, a FORK per thread
 * other than the main one, and an MMAP2 per executable mapping (its path
 * as the kernel's own MMAP2 would name it: a "\012" of /proc/PID/maps is
 * read back as the newline it stands for). With them
 * `perf report` can name the samples' tasks and symbolize their addresses.
 * Each record ends with a zeroed sample_id trailer of the events' layout.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>

#include "kernel_modules.h"
#include "kernel_text.h"
#include "record.h"

/* A buffer of synthesized records, handed to the sink when full and at the end. */
struct synth_buf {
	unsigned char *bytes;
	size_t len, cap;
	size_t trailer; /* bytes of the sample_id trailer each record ends with */
	rec_synth_sink sink;
	void *ctx;
};

/* Appends a record: header, body (body_len bytes), a NUL-padded string, the trailer. */
static void put_record(struct synth_buf *b, uint32_t type, uint16_t misc, const void *body,
                       size_t body_len, const char *str)
{
	size_t slen = str ? (strlen(str) + 8) & ~(size_t)7 : 0; /* NUL included, 8-aligned */
	size_t size = 8 + body_len + slen + b->trailer;

	if (size > UINT16_MAX)
		return;
	if (b->len + size > b->cap) {
		b->cap = 2 * (b->len + size) + 4096;
		b->bytes = realloc(b->bytes, b->cap);
		if (!b->bytes) {
			cli_error("out of memory");
			exit(1);
		}
	}
	unsigned char *p = b->bytes + b->len;
	struct pev_event_header h = {type, misc, (uint16_t)size};
	memset(p, 0, size);
	memcpy(p, &h, sizeof(h));
	memcpy(p + 8, body, body_len);
	if (str)
		memcpy(p + 8 + body_len, str, strlen(str));
	b->len += size;
}

/* Hands the buffer's records to its sink and empties it. */
static int flush_buf(struct synth_buf *b)
{
	int r = b->len ? b->sink(b->ctx, b->bytes, b->len) : 0;

	b->len = 0;
	return r;
}

/* record's sink: the records go to the file, their mappings noted. */
static int file_sink(void *ctx, const void *bytes, size_t len)
{
	struct rec_state *s = ctx;
	struct pev_error err;

	for (size_t at = 0; at < len;) {
		const struct pev_event_header *h = (const void *)((const char *)bytes + at);
		rec_dsos_account(s, h, h->size);
		s->stats.synthesized++;
		at += h->size;
	}
	int r = pev_perfdata_writer_write(s->writer, bytes, len, &err);
	if (r != 0)
		cli_error("cannot write '%s': %s", s->cfg.output, err.message);
	return r;
}

/*
 * The kernel's text, as perf names it: without it perf report says kernel
 * maps were restricted. It runs to the first module above it, or to the end
 * of the address space: every kernel address outside a module falls in it.
 * Then an MMAP per loaded module, by address, named by its file (perf's
 * records): with them perf names a module's samples by the module.
 */
static void synth_kernel(struct synth_buf *b)
{
	uint64_t text;
	const char *sym;
	char name[32];
	struct cli_kmod *mods;
	struct utsname u;
	char dir[512];
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
	} body;

	if (!cli_kernel_text("/proc/kallsyms", &text, &sym))
		return;
	snprintf(dir, sizeof(dir), "/lib/modules/%s", uname(&u) == 0 ? u.release : "");
	int n = cli_kernel_modules("/proc/modules", dir, &mods);
	snprintf(name, sizeof(name), "[kernel.kallsyms]%s", sym);
	body.pid = UINT32_MAX;
	body.tid = 0;
	body.addr = text;
	body.len = UINT64_MAX - text;
	for (int i = 0; i < n; i++)
		if (mods[i].start > text) {
			body.len = mods[i].start - text;
			break;
		}
	body.pgoff = text;
	put_record(b, PEV_RECORD_MMAP, PEV_RECORD_MISC_KERNEL, &body, sizeof(body), name);
	for (int i = 0; i < n; i++) {
		body.addr = mods[i].start;
		body.len = mods[i].size;
		body.pgoff = 0;
		put_record(b, PEV_RECORD_MMAP, PEV_RECORD_MISC_KERNEL, &body, sizeof(body),
			   mods[i].path);
	}
	free(mods);
}

/*
 * The kernel's own size of a task's name, NUL included (TASK_COMM_LEN).
 * /proc/PID/comm shows a kernel worker with its workqueue's name after it
 * ("kworker/u8:0-events_unbound"), longer than the name the kernel keeps
 * and writes into its own COMM records; perf cuts it to this size too.
 */
#define TASK_COMM_LEN 16

/* COMM of thread tid of process pid (FORK first for a thread that is not the main one),
 * with the name cut to the kernel's length. */
static void synth_thread(struct synth_buf *b, pid_t pid, pid_t tid)
{
	char path[64], comm[64];
	struct {
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
	} fork = {(uint32_t)pid, (uint32_t)pid, (uint32_t)tid, (uint32_t)pid, 0};
	uint32_t ids[2] = {(uint32_t)pid, (uint32_t)tid};

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	if (!cli_read_comm(path, comm, sizeof(comm)))
		return;
	comm[TASK_COMM_LEN - 1] = '\0';
	if (tid != pid)
		put_record(b, PEV_RECORD_FORK, 0, &fork, sizeof(fork), NULL);
	put_record(b, PEV_RECORD_COMM, 0, ids, sizeof(ids), comm);
}

/* MMAP2 of every executable mapping of process pid, from /proc/PID/maps. */
static void synth_maps(struct synth_buf *b, pid_t pid)
{
	char path[64], root[64], line[4352], real[4352];
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_generation;
		uint32_t prot, flags;
	} body;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		unsigned maj, min;
		char perms[8];
		int name_at = 0;
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off,
		           &maj, &min, &ino, &name_at) < 7 ||
		    !name_at || perms[2] != 'x')
			continue;
		const char *name = line + name_at;
		if (name[0] != '/' && strcmp(name, "[vdso]") != 0)
			continue;
		/* The kernel writes a newline in a path as "\012": the record names the
		 * file, looked for where the process sees it. */
		if (strstr(name, "\\012")) {
			snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
			pev_maps_name_lookup(name, ino, root, real, sizeof(real));
			name = real;
		}
		memset(&body, 0, sizeof(body));
		body.pid = body.tid = (uint32_t)pid;
		body.addr = start;
		body.len = end - start;
		body.pgoff = off;
		body.maj = maj;
		body.min = min;
		body.ino = ino;
		body.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		            PROT_EXEC;
		body.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		put_record(b, PEV_RECORD_MMAP2, PEV_RECORD_MISC_USER, &body, sizeof(body), name);
	}
	fclose(f);
}

/* Every thread of process pid, then its mappings. */
static int synth_process(struct synth_buf *b, pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return 0; /* gone meanwhile */
	synth_thread(b, pid, pid);
	for (struct dirent *de; (de = readdir(d));) {
		long tid = strtol(de->d_name, NULL, 10);
		if (isdigit((unsigned char)de->d_name[0]) && tid != pid)
			synth_thread(b, pid, (pid_t)tid);
	}
	closedir(d);
	synth_maps(b, pid);
	return b->len > (1U << 20) ? flush_buf(b) : 0;
}

int rec_synth_tasks(enum rec_target target, const pid_t *ids, int nids, size_t trailer,
                    rec_synth_sink sink, void *ctx)
{
	struct synth_buf b = {.trailer = trailer, .sink = sink, .ctx = ctx};
	int r = 0;

	synth_kernel(&b);
	switch (target) {
	case REC_TARGET_COMMAND:
		/*
		 * The kernel writes the command's own records as it runs; a later
		 * window of --rotate needs them anew for the processes the earlier
		 * ones saw (ids: those still alive; none for the first window).
		 */
		for (int i = 0; i < nids && r == 0; i++)
			r = synth_process(&b, ids[i]);
		break;
	case REC_TARGET_PROCESS:
		for (int i = 0; i < nids && r == 0; i++)
			r = synth_process(&b, ids[i]);
		break;
	case REC_TARGET_THREAD:
		for (int i = 0; i < nids && r == 0; i++) {
			pid_t pid = cli_tgid_of(ids[i]);
			if (!pid)
				pid = ids[i]; /* gone meanwhile: its records say nothing */
			synth_thread(&b, pid, ids[i]);
			synth_maps(&b, pid);
		}
		break;
	case REC_TARGET_CPUS: {
		DIR *d = opendir("/proc");
		if (!d)
			break;
		for (struct dirent *de; r == 0 && (de = readdir(d));)
			if (isdigit((unsigned char)de->d_name[0]))
				r = synth_process(&b, (pid_t)strtol(de->d_name, NULL, 10));
		closedir(d);
		break;
	}
	}
	if (r == 0)
		r = flush_buf(&b);
	free(b.bytes);
	return r;
}

/*
 * --all-cgroups: a CGROUP record for every cgroup of the unified hierarchy
 * (id and path), as perf record writes them before the tasks': the kernel
 * writes records only for cgroups made while it records. Without the
 * hierarchy (a v1-only host) samples carry the root's id and nothing is
 * written.
 */
static int synth_cgroups(struct rec_state *s)
{
	struct synth_buf b = {.trailer = s->fmt.id_size, .sink = file_sink, .ctx = s};
	struct pev_cgroup_names *names;
	int r;

	if (pev_cgroup_names_new(&names) < 0) {
		cli_error("out of memory");
		return 1;
	}
	if ((r = pev_cgroup_names_scan(names, NULL)) < 0 && r != PEV_EUNSUPPORTED)
		cli_warning("--all-cgroups: cannot read the cgroup hierarchy: %s", pev_strerror(r));
	for (size_t i = 0; i < pev_cgroup_names_count(names); i++) {
		uint64_t id;
		const char *path;
		pev_cgroup_names_at(names, i, &id, &path);
		put_record(&b, PEV_RECORD_CGROUP, 0, &id, sizeof(id), path);
	}
	pev_cgroup_names_free(names);
	r = flush_buf(&b);
	free(b.bytes);
	return r;
}

int rec_synthesize(struct rec_state *s)
{
	bool command = s->cfg.target == REC_TARGET_COMMAND;

	if (s->cfg.all_cgroups && synth_cgroups(s) != 0)
		return 1;
	return rec_synth_tasks(s->cfg.target, command ? s->known : s->cfg.ids,
	                       command ? s->nknown : s->cfg.nids, s->fmt.id_size, file_sink, s);
}

int rec_finished_init(struct rec_state *s)
{
	struct pev_event_header h = {PEV_RECORD_FINISHED_INIT, 0, sizeof(h)};
	struct pev_error err;
	int r = pev_perfdata_writer_write(s->writer, &h, sizeof(h), &err);

	if (r != 0)
		cli_error("cannot write '%s': %s", s->cfg.output, err.message);
	return r;
}

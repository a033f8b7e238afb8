/* SPDX-License-Identifier: MIT */
/*
 * test_perfdata.c - perf.data both ways, with Debian's perf as the oracle:
 * perfev reads what `perf record` writes (file and pipe mode, call chains,
 * two events, a tracepoint on every CPU, compressed data refused) with the
 * same record counts as `perf report -D`; perf reads what perfev's writer
 * writes from real kernel records with no warning and finds the known top
 * symbol; what the writer writes the reader reads back record for record;
 * a recording stopped by SIGINT or cut short by a crash leaves a readable
 * file. Tests that need perf skip with a reason when it is not installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

/* ---- files and programs ------------------------------------------------------ */

static void read_file(const char *path, unsigned char **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	rewind(f);
	*data = malloc(n > 0 ? (size_t)n : 1);
	cr_assert_not_null(*data);
	cr_assert_eq(fread(*data, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
}

/* ---- counting records, ours and perf's ----------------------------------------- */

struct counts {
	unsigned long type[256];       /* records per type (types above 255 in [255]) */
	unsigned long total;
	unsigned long samples_of[8];   /* SAMPLE records per event index */
	unsigned long without_event;   /* kernel records with no event */
	unsigned long samples_without_time;
	uint64_t first_time, last_time; /* of SAMPLE records */
};

static struct pev_perfdata *open_ok(const char *path)
{
	struct pev_perfdata *pd = NULL;
	struct pev_error err;
	int rc = pev_perfdata_open(path, 0, &pd, &err);
	cr_assert_eq(rc, 0, "%s: %s", path, err.message);
	return pd;
}

static void count_records(struct pev_perfdata *pd, struct counts *c)
{
	struct pev_perfdata_record r;
	struct pev_error err;
	int rc;

	memset(c, 0, sizeof(*c));
	while ((rc = pev_perfdata_next(pd, &r, &err)) == 1) {
		c->type[r.type < 255 ? r.type : 255]++;
		c->total++;
		cr_assert_eq(r.size, r.header->size);
		cr_assert_eq((uintptr_t)r.header % 8, 0, "record at 0x%" PRIx64 " is not 8-aligned",
			     r.offset);
		if (r.type < PEV_RECORD_USER_TYPE_START && !r.event)
			c->without_event++;
		if (r.type == PEV_RECORD_SAMPLE && r.event && r.event->index < 8)
			c->samples_of[r.event->index]++;
		if (r.type == PEV_RECORD_SAMPLE) {
			if (!r.has_time) {
				c->samples_without_time++;
			} else {
				if (!c->first_time || r.time < c->first_time)
					c->first_time = r.time;
				if (r.time > c->last_time)
					c->last_time = r.time;
			}
		}
	}
	cr_assert_eq(rc, 0, "reading: %s", err.message);
}

/* perf's name of a record type in `perf report -D`'s statistics. */
static const char *perf_stat_name(unsigned type)
{
	switch (type) {
	case PEV_RECORD_HEADER_ATTR:
		return "ATTR";
	case PEV_RECORD_HEADER_FEATURE:
		return "FEATURE";
	case PEV_RECORD_HEADER_TRACING_DATA:
		return "TRACING_DATA";
	case PEV_RECORD_HEADER_BUILD_ID:
		return "BUILD_ID";
	default:
		return pev_perfdata_record_type_name(type);
	}
}

/*
 * Compares our counts with `perf report -D -i path`'s "Aggregated stats":
 * the total, each type, and the SAMPLE records of each event by name.
 */
static void expect_counts_match_perf(const char *path, struct pev_perfdata *pd,
				     const struct counts *c)
{
	char cmd[PATH_MAX + 64], *out, *err;

	snprintf(cmd, sizeof(cmd), "perf report -D -i '%s'", path);
	cr_assert_eq(th_sh(cmd, &out, &err), 0, "perf report -D: %s", err);
	char *stats = strstr(out, "Aggregated stats:");
	cr_assert_not_null(stats, "no statistics in perf report -D");
	unsigned long total = 0;
	char *line = strstr(stats, "TOTAL events:");
	cr_assert_not_null(line);
	cr_assert_eq(sscanf(line, "TOTAL events: %lu", &total), 1);
	cr_expect_eq(total, c->total, "%s: perf counts %lu records, perfev %lu", path, total,
		     c->total);
	for (unsigned t = 1; t < 255; t++) {
		char key[64];
		unsigned long n = 0;
		snprintf(key, sizeof(key), " %s events:", perf_stat_name(t));
		char *hit = strstr(stats, key);
		/* The per-event sections below repeat "SAMPLE events": take the first. */
		if (hit)
			cr_assert_eq(sscanf(hit + strlen(key), "%lu", &n), 1);
		cr_expect_eq(n, c->type[t], "%s: %s: perf counts %lu, perfev %lu", path,
			     perf_stat_name(t), n, c->type[t]);
	}
	for (int i = 0; i < pev_perfdata_nr_events(pd) && i < 8; i++) {
		const struct pev_perfdata_event *ev = pev_perfdata_event(pd, i);
		char key[160];
		unsigned long n = 0;
		cr_assert_not_null(ev->name);
		snprintf(key, sizeof(key), "\n%s stats:", ev->name);
		char *sec = strstr(stats, key);
		if (sec) {
			char *s = strstr(sec, "SAMPLE events:");
			cr_assert_not_null(s);
			cr_assert_eq(sscanf(s, "SAMPLE events: %lu", &n), 1);
		}
		cr_expect_eq(n, c->samples_of[i], "%s: event %s: perf counts %lu samples, perfev %lu",
			     path, ev->name, n, c->samples_of[i]);
	}
	free(out);
	free(err);
}

/* The features every perf 6.x recording has, checked against this machine. */
static void expect_machine_features(const struct pev_perfdata_features *f, const char *cmdword)
{
	struct utsname u;

	cr_assert_eq(uname(&u), 0);
	cr_assert(pev_perfdata_has_feature(f, PEV_HEADER_HOSTNAME));
	cr_expect_str_eq(f->hostname, u.nodename);
	cr_expect_str_eq(f->osrelease, u.release);
	cr_expect_str_eq(f->arch, u.machine);
	cr_expect_eq(f->nr_cpus_online, (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
	cr_expect_geq(f->nr_cpus_avail, f->nr_cpus_online);
	cr_expect_gt(f->total_mem_kb, 0);
	cr_assert_geq(f->nr_cmdline, 2);
	bool found = false;
	for (uint32_t i = 0; i < f->nr_cmdline; i++)
		found |= strcmp(f->cmdline[i], cmdword) == 0;
	cr_expect(found, "'%s' is not in the CMDLINE feature", cmdword);
	cr_expect(pev_perfdata_has_feature(f, PEV_HEADER_EVENT_DESC));
	/* Every section's bytes are kept, and each set bit has one. */
	size_t bits = 0;
	for (unsigned b = 0; b < PEV_HEADER_FEAT_BITS; b++)
		bits += pev_perfdata_has_feature(f, b);
	cr_expect_eq(f->nr_sections, bits);
}

/* ---- reading perf's files --------------------------------------------------------- */

Test(perfdata, reads_perf_record_with_callchains)
{
	th_need_perf();
	const char *dir = th_temp_dir("pd");
	char *path = th_path_join(dir, "g.data"), cmd[2 * PATH_MAX], *out, *err;
	snprintf(cmd, sizeof(cmd), "perf record -q -o '%s' -e cpu-clock -g -- '%s' 100", path,
		 th_test_program("perfdata_spin"));
	cr_assert_eq(th_sh(cmd, &out, &err), 0, "%s: %s", cmd, err);
	free(out);
	free(err);

	struct pev_perfdata *pd = open_ok(path);
	cr_expect_not(pev_perfdata_pipe_mode(pd));
	const struct pev_perfdata_layout *l = pev_perfdata_layout(pd);
	cr_expect_eq(l->header_size, PEV_PERFDATA_HEADER_SIZE);
	cr_expect_eq(l->attrs_size % l->attr_size, 0);
	cr_expect_eq(l->feat_offset, l->data_offset + l->data_size);
	cr_assert_eq(pev_perfdata_nr_events(pd), 1);
	const struct pev_perfdata_event *ev = pev_perfdata_event(pd, 0);
	cr_expect_eq(ev->attr.type, PEV_TYPE_SOFTWARE);
	cr_expect_eq(ev->attr.config, PEV_SW_CPU_CLOCK);
	cr_expect(ev->attr.sample_type & PEV_SAMPLE_CALLCHAIN);
	cr_expect(ev->attr.flags & PEV_ATTR_SAMPLE_ID_ALL);
	cr_expect_str_eq(ev->name, "cpu-clock");
	cr_expect_geq(ev->nr_ids, 1);
	for (size_t i = 0; i < ev->nr_ids; i++)
		cr_expect_eq(pev_perfdata_event_by_id(pd, ev->ids[i]), ev);
	cr_expect_null(pev_perfdata_event(pd, 1));

	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	expect_machine_features(f, "record");
	cr_expect(pev_perfdata_has_feature(f, PEV_HEADER_BUILD_ID));
	cr_expect_gt(f->nr_build_ids, 0);
	cr_expect(pev_perfdata_has_feature(f, PEV_HEADER_SAMPLE_TIME));

	struct counts c;
	count_records(pd, &c);
	cr_expect_gt(c.type[PEV_RECORD_SAMPLE], 10);
	cr_expect_eq(c.without_event, 0);
	cr_expect_eq(c.samples_without_time, 0);
	/* SAMPLE_TIME says when the first and the last sample were taken. */
	cr_expect_eq(f->sample_time_first, c.first_time);
	cr_expect_eq(f->sample_time_last, c.last_time);
	/* perf record writes these of its own. */
	cr_expect_gt(c.type[PEV_RECORD_FINISHED_ROUND], 0);
	size_t nthreads = 0, ncpus = 0;
	if (c.type[PEV_RECORD_THREAD_MAP])
		cr_expect_not_null(pev_perfdata_threads(pd, &nthreads));
	if (c.type[PEV_RECORD_CPU_MAP])
		cr_expect_not_null(pev_perfdata_cpus(pd, &ncpus));
	if (c.type[PEV_RECORD_ID_INDEX]) {
		struct pev_perfdata_id_entry e;
		cr_expect_eq(pev_perfdata_id_index(pd, ev->ids[0], &e), 0);
		cr_expect_eq(e.id, ev->ids[0]);
	}
	expect_counts_match_perf(path, pd, &c);
	cr_expect_eq(pev_perfdata_nr_notes(pd), 0, "note: %s", pev_perfdata_note(pd, 0));
	pev_perfdata_close(pd);
	free(path);
}

Test(perfdata, reads_perf_pipe_mode)
{
	th_need_perf();
	const char *dir = th_temp_dir("pd");
	char *path = th_path_join(dir, "p.data"), cmd[2 * PATH_MAX], *out, *err;
	snprintf(cmd, sizeof(cmd), "perf record -q -o - -e cpu-clock -- '%s' 100 | cat > '%s'",
		 th_test_program("perfdata_spin"), path);
	cr_assert_eq(th_sh(cmd, &out, &err), 0, "%s: %s", cmd, err);
	free(out);
	free(err);

	struct pev_perfdata *pd = open_ok(path);
	cr_expect(pev_perfdata_pipe_mode(pd));
	cr_expect_eq(pev_perfdata_layout(pd)->header_size, PEV_PERFDATA_PIPE_HEADER_SIZE);
	/* Known at open: the events and features came as records before the samples. */
	cr_assert_eq(pev_perfdata_nr_events(pd), 1);
	cr_expect_str_eq(pev_perfdata_event(pd, 0)->name, "cpu-clock");
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	expect_machine_features(f, "record");
	struct counts c;
	count_records(pd, &c);
	cr_expect_gt(c.type[PEV_RECORD_SAMPLE], 10);
	cr_expect_gt(c.type[PEV_RECORD_HEADER_FEATURE], 5);
	cr_expect_eq(c.type[PEV_RECORD_HEADER_ATTR], 1);
	cr_expect_eq(c.without_event, 0);
	expect_counts_match_perf(path, pd, &c);
	pev_perfdata_close(pd);

	/* The same stream read from a pipe, as `perf record -o - | perfev report -i -`. */
	int p[2];
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid_t child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		unsigned char *data;
		size_t size, done = 0;
		close(p[0]);
		read_file(path, &data, &size);
		while (done < size) {
			ssize_t n = write(p[1], data + done, size - done);
			if (n <= 0)
				_exit(1);
			done += (size_t)n;
		}
		_exit(0);
	}
	close(p[1]);
	struct pev_error err2;
	cr_assert_eq(pev_perfdata_open_fd(p[0], 0, &pd, &err2), 0, "%s", err2.message);
	struct counts c2;
	count_records(pd, &c2);
	cr_expect_eq(c2.total, c.total);
	cr_expect_eq(c2.type[PEV_RECORD_SAMPLE], c.type[PEV_RECORD_SAMPLE]);
	cr_expect_eq(pev_perfdata_layout(pd)->file_size, UINT64_MAX);
	pev_perfdata_close(pd);
	close(p[0]);
	waitpid(child, NULL, 0);
	free(path);
}

Test(perfdata, reads_perf_record_two_events)
{
	th_need_perf();
	const char *dir = th_temp_dir("pd");
	char *path = th_path_join(dir, "two.data"), cmd[2 * PATH_MAX], *out, *err;
	snprintf(cmd, sizeof(cmd), "perf record -q -o '%s' -e cpu-clock,task-clock -- '%s' 150",
		 path, th_test_program("perfdata_spin"));
	cr_assert_eq(th_sh(cmd, &out, &err), 0, "%s: %s", cmd, err);
	free(out);
	free(err);

	struct pev_perfdata *pd = open_ok(path);
	cr_assert_eq(pev_perfdata_nr_events(pd), 2);
	const struct pev_perfdata_event *a = pev_perfdata_event(pd, 0), *b = pev_perfdata_event(pd, 1);
	cr_expect_str_eq(a->name, "cpu-clock");
	cr_expect_str_eq(b->name, "task-clock");
	cr_expect_eq(b->attr.config, PEV_SW_TASK_CLOCK);
	/* Two events: perf asks for an id in every record. */
	cr_expect(a->attr.sample_type & (PEV_SAMPLE_IDENTIFIER | PEV_SAMPLE_ID));

	struct pev_perfdata_record r;
	struct pev_error e;
	int rc;
	unsigned long per[2] = {0, 0};
	while ((rc = pev_perfdata_next(pd, &r, &e)) == 1) {
		if (r.type != PEV_RECORD_SAMPLE)
			continue;
		cr_assert(r.has_id);
		cr_assert_not_null(r.event);
		/* The id in the record is one of its event's. */
		bool mine = false;
		for (size_t i = 0; i < r.event->nr_ids; i++)
			mine |= r.event->ids[i] == r.id;
		cr_assert(mine, "sample id %" PRIu64 " is not one of %s's", r.id, r.event->name);
		per[r.event->index]++;
	}
	cr_assert_eq(rc, 0, "%s", e.message);
	cr_expect_gt(per[0], 5);
	cr_expect_gt(per[1], 5);
	pev_perfdata_close(pd);

	pd = open_ok(path);
	struct counts c;
	count_records(pd, &c);
	cr_expect_eq(c.samples_of[0], per[0]);
	cr_expect_eq(c.samples_of[1], per[1]);
	expect_counts_match_perf(path, pd, &c);
	pev_perfdata_close(pd);
	free(path);
}

Test(perfdata, reads_perf_tracepoint_on_every_cpu)
{
	th_need_perf();
	if (!th_tracefs())
		th_skip("tracefs is not mounted and cannot be");
	const char *dir = th_temp_dir("pd");
	char *path = th_path_join(dir, "tp.data"), cmd[2 * PATH_MAX], *out, *err;
	snprintf(cmd, sizeof(cmd), "perf record -q -o '%s' -e sched:sched_switch -a -- '%s' 100",
		 path, th_test_program("perfdata_spin"));
	cr_assert_eq(th_sh(cmd, &out, &err), 0, "%s: %s", cmd, err);
	free(out);
	free(err);

	struct pev_perfdata *pd = open_ok(path);
	cr_assert_geq(pev_perfdata_nr_events(pd), 1);
	const struct pev_perfdata_event *ev = pev_perfdata_event(pd, 0);
	cr_expect_eq(ev->attr.type, PEV_TYPE_TRACEPOINT);
	cr_expect_eq(ev->attr.config, th_tracepoint_id("sched", "sched_switch"));
	cr_expect_str_eq(ev->name, "sched:sched_switch");
	/* One descriptor per CPU: an id each. */
	cr_expect_geq(ev->nr_ids, (size_t)sysconf(_SC_NPROCESSORS_ONLN));
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	cr_assert(pev_perfdata_has_feature(f, PEV_HEADER_TRACING_DATA));
	bool tracing = false;
	for (size_t i = 0; i < f->nr_sections; i++)
		if (f->sections[i].feature == PEV_HEADER_TRACING_DATA)
			tracing = f->sections[i].size > 1000 && f->sections[i].data;
	cr_expect(tracing, "the tracing data (event formats) is kept");
	struct counts c;
	count_records(pd, &c);
	cr_expect_gt(c.type[PEV_RECORD_SAMPLE], 0);
	cr_expect_eq(c.without_event, 0);
	expect_counts_match_perf(path, pd, &c);
	pev_perfdata_close(pd);
	free(path);
}

Test(perfdata, refuses_compressed_data_with_a_hint)
{
	th_need_perf();
	const char *dir = th_temp_dir("pd");
	char *path = th_path_join(dir, "z.data"), cmd[2 * PATH_MAX], *out, *err;
	snprintf(cmd, sizeof(cmd), "perf record -q -z -o '%s' -e cpu-clock -- '%s' 50", path,
		 th_test_program("perfdata_spin"));
	if (th_sh(cmd, &out, &err) != 0 || strstr(err, "zstd"))
		th_skip("this perf cannot compress: %s", err);
	free(out);
	free(err);

	struct pev_perfdata *pd = open_ok(path);
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	cr_expect(pev_perfdata_has_feature(f, PEV_HEADER_COMPRESSED));
	cr_expect_eq(f->compressed_type, 1, "zstd");
	struct pev_perfdata_record r;
	struct pev_error e;
	int rc;
	while ((rc = pev_perfdata_next(pd, &r, &e)) == 1)
		;
	cr_assert_eq(rc, PEV_EUNSUPPORTED);
	expect_has(e.message, "compressed (zstd) data is not supported");
	expect_has(e.hint, "perf inject");
	/* It stays failed. */
	memset(&e, 0, sizeof(e));
	cr_expect_eq(pev_perfdata_next(pd, &r, &e), PEV_EUNSUPPORTED);
	expect_has(e.message, "compressed (zstd)");
	pev_perfdata_close(pd);
	free(path);
}

/* ---- the writer and perf ------------------------------------------------------------- */

/* Copies the records waiting in a ring into *buf (grown as needed); returns the bytes. */
static size_t drain(struct pev_ring *ring, unsigned char **buf, size_t *cap)
{
	const struct pev_mmap_page *pg = pev_ring_page(ring);
	const unsigned char *data = (const unsigned char *)pg + pg->data_offset;
	uint64_t size = pev_ring_data_size(ring);
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	size_t len = 0;

	cr_assert_leq(head - tail, size);
	if (*cap < head - tail) {
		*cap = (size_t)(head - tail);
		*buf = realloc(*buf, *cap);
		cr_assert_not_null(*buf);
	}
	for (uint64_t at = tail; at < head; at++)
		(*buf)[len++] = data[at % size];
	__atomic_store_n((uint64_t *)&pg->data_tail, head, __ATOMIC_RELEASE);
	return len;
}

/* The GNU build id of an ELF file, read with libelf; returns its length. */
static size_t build_id_of(const char *path, unsigned char *id, size_t max)
{
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(e);
	for (Elf_Scn *s = NULL; !got && (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(s, NULL);
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;
		while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + name_off, "GNU", 4) == 0 && nh.n_descsz <= max) {
				memcpy(id, (char *)d->d_buf + desc_off, nh.n_descsz);
				got = nh.n_descsz;
				break;
			}
		}
	}
	elf_end(e);
	close(fd);
	return got;
}

/* Reads a symbol's address from /proc/kallsyms; 0 when hidden or absent. */
static uint64_t kallsyms(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[256], sym[200], t;
	unsigned long long addr;
	uint64_t found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %199s", &addr, &t, sym) == 3 && strcmp(sym, name) == 0)
			found = addr;
	fclose(f);
	return found;
}

/*
 * The kernel's MMAP record as perf record synthesizes it ("[kernel.kallsyms]_text",
 * pid -1): without it perf report warns that kernel maps were restricted.
 * trailer bytes of zeros end it, as the event's sample_id_all trailer.
 */
static size_t kernel_mmap(unsigned char *out, size_t trailer)
{
	static const char name[] = "[kernel.kallsyms]_text";
	uint64_t text = kallsyms("_text"), etext = kallsyms("_etext");

	if (!text || !etext)
		th_skip("/proc/kallsyms hides the kernel's addresses (kptr_restrict)");
	size_t name_len = (sizeof(name) + 7) & ~(size_t)7;
	size_t size = 8 + 8 + 24 + name_len + trailer;
	memset(out, 0, size);
	struct pev_event_header h = {PEV_RECORD_MMAP, PEV_RECORD_MISC_KERNEL, (uint16_t)size};
	memcpy(out, &h, 8);
	uint32_t pid = UINT32_MAX, tid = 0;
	uint64_t len = etext - text;
	memcpy(out + 8, &pid, 4);
	memcpy(out + 12, &tid, 4);
	memcpy(out + 16, &text, 8);
	memcpy(out + 24, &len, 8);
	memcpy(out + 32, &text, 8);
	memcpy(out + 40, name, sizeof(name));
	return size;
}

struct recorded {
	unsigned char *bytes; /* every record the writer was given, FINISHED_ROUNDs included */
	size_t len, cap;
	uint64_t first_time, last_time;
	unsigned long samples;
	size_t time_at; /* where TIME is in a SAMPLE: 24 (IP, TID, TIME) unless set */
};

static void keep(struct recorded *r, const void *p, size_t n)
{
	if (r->len + n > r->cap) {
		r->cap = 2 * (r->len + n);
		r->bytes = realloc(r->bytes, r->cap);
		cr_assert_not_null(r->bytes);
	}
	memcpy(r->bytes + r->len, p, n);
	r->len += n;
}

/* Writes the records of buf, keeps them, notes the samples' times (see time_at). */
static void write_batch(struct pev_perfdata_writer *w, struct recorded *rec, const unsigned char *buf,
			size_t len)
{
	static const unsigned char round[8] = {PEV_RECORD_FINISHED_ROUND, 0, 0, 0, 0, 0, 8, 0};
	struct pev_error err;

	if (!len)
		return;
	cr_assert_eq(pev_perfdata_writer_write(w, buf, len, &err), 0, "%s", err.message);
	keep(rec, buf, len);
	for (size_t at = 0; at < len;) {
		const struct pev_event_header *h = (const void *)(buf + at);
		if (h->type == PEV_RECORD_SAMPLE) {
			uint64_t t;
			memcpy(&t, buf + at + (rec->time_at ? rec->time_at : 24), 8);
			if (!rec->samples || t < rec->first_time)
				rec->first_time = t;
			if (t > rec->last_time)
				rec->last_time = t;
			rec->samples++;
		}
		at += h->size;
	}
	cr_assert_eq(pev_perfdata_writer_round(w, &err), 0, "%s", err.message);
	keep(rec, round, sizeof(round));
}

/* Reads path back and expects exactly the records of rec, byte for byte. */
static void expect_records(const char *path, const struct recorded *rec)
{
	struct pev_perfdata *pd = open_ok(path);
	struct pev_perfdata_record r;
	struct pev_error err;
	size_t at = 0;
	unsigned long n = 0;
	int rc;

	while ((rc = pev_perfdata_next(pd, &r, &err)) == 1) {
		cr_assert_leq(at + r.size, rec->len, "record #%lu is beyond what was written", n);
		cr_assert_eq(memcmp(r.header, rec->bytes + at, r.size), 0,
			     "record #%lu (type %u at 0x%" PRIx64 ") differs from what was written", n,
			     r.type, r.offset);
		cr_assert_eq(r.offset, pev_perfdata_layout(pd)->data_offset + at);
		at += r.size;
		n++;
	}
	cr_assert_eq(rc, 0, "%s", err.message);
	cr_expect_eq(at, rec->len, "read back %zu bytes of records, wrote %zu", at, rec->len);
	cr_expect_eq(pev_perfdata_nr_notes(pd), 0, "note: %s", pev_perfdata_note(pd, 0));
	pev_perfdata_close(pd);
}

/* The first non-comment line of perf report's output. */
static char *first_report_line(char *out)
{
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))
		if (line[0] != '#' && line[strspn(line, " ")] != '\0')
			return line;
	return NULL;
}

Test(perfdata, writer_output_from_real_records_is_read_by_perf)
{
	th_need_perf();
	th_require_root();
	unsigned char kmap[128];
	size_t kmap_size = kernel_mmap(kmap, 16); /* trailer: TID, TIME; skips before the fork */
	const char *spin = th_test_program("perfdata_spin"), *dir = th_temp_dir("pd");
	char *path = th_path_join(dir, "w.data");
	int go[2];

	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	pid_t child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		execl(spin, spin, "400", (char *)NULL);
		_exit(127);
	}
	close(go[0]);

	/* cpu-clock in user space every 250 us, with the records perf needs to symbolize. */
	struct pev_opts o = th_opts();
	o.sample_period = 250000;
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME | PEV_SAMPLE_PERIOD;
	o.exclude_kernel = o.exclude_hv = true;
	o.mmap = o.mmap2 = o.comm = o.comm_exec = o.task = o.sample_id_all = true;
	o.enable_on_exec = true;
	struct pev_target t = pev_target_thread(child);
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_CPU_CLOCK), &o, &t, NULL);
	struct pev_ring *ring = NULL;
	struct pev_error err;
	cr_assert_eq(pev_ring_open(c, 0, 64, &ring, &err), 0, "%s", err.message);
	uint64_t id;
	cr_assert_eq(pev_counter_id(c, 0, &id), 0);

	struct pev_perfdata_writer *w = NULL;
	cr_assert_eq(pev_perfdata_writer_open(path, 0, &w, &err), 0, "%s", err.message);
	cr_assert_eq(pev_perfdata_writer_add_event(w, pev_counter_attr(c), "cpu-clock:u", &id, 1,
						   &err),
		     0, "%s", err.message);
	struct recorded rec = {0};
	write_batch(w, &rec, kmap, kmap_size);

	cr_assert_eq(write(go[1], "x", 1), 1);
	close(go[1]);
	unsigned char *buf = NULL;
	size_t cap = 0;
	int status = 0;
	for (;;) {
		struct timespec ms10 = {0, 10000000};
		nanosleep(&ms10, NULL);
		size_t got = drain(ring, &buf, &cap); /* first: it may move buf */
		write_batch(w, &rec, buf, got);
		pid_t done = waitpid(child, &status, WNOHANG);
		cr_assert_geq(done, 0);
		if (done == child)
			break;
	}
	size_t got = drain(ring, &buf, &cap);
	write_batch(w, &rec, buf, got);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the workload failed: %d", status);
	cr_assert_gt(rec.samples, 100, "only %lu samples", rec.samples);

	unsigned char bid[PEV_PERFDATA_BUILD_ID_MAX];
	size_t bid_len = build_id_of(spin, bid, sizeof(bid));
	cr_assert_gt(bid_len, 0, "%s has no build id", spin);
	cr_assert_eq(pev_perfdata_writer_add_build_id(w, -1, PEV_RECORD_MISC_USER, bid, bid_len,
						      spin),
		     0);
	const char *argv[] = {"perfev", "record", "-e", "cpu-clock:u", spin};
	cr_assert_eq(pev_perfdata_writer_set_cmdline(w, 5, argv), 0);
	cr_assert_eq(pev_perfdata_writer_data_size(w), rec.len);
	cr_assert_eq(pev_perfdata_writer_finish(w, &err), 0, "%s", err.message);
	pev_perfdata_writer_close(w);
	pev_ring_close(ring);
	pev_counter_close(c);
	free(buf);

	/* perf reads it without a word on stderr, and finds the workload's hot function. */
	char cmd[2 * PATH_MAX], *out, *perr;
	snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio --sort sym", path);
	cr_assert_eq(th_sh(cmd, &out, &perr), 0, "%s: %s", cmd, perr);
	cr_expect_str_empty(perr, "%s wrote on stderr: %s", cmd, perr);
	char *top = first_report_line(out);
	cr_assert_not_null(top, "perf report printed no samples");
	expect_has(top, "perfdata_spin_hot");
	free(out);
	free(perr);

	snprintf(cmd, sizeof(cmd), "perf script -i '%s'", path);
	cr_assert_eq(th_sh(cmd, &out, &perr), 0, "%s: %s", cmd, perr);
	cr_expect_str_empty(perr, "%s wrote on stderr: %s", cmd, perr);
	unsigned long lines = 0, hot = 0;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		lines++;
		hot += strstr(line, "perfdata_spin_hot") != NULL;
		cr_expect(strstr(line, "perfdata_spin") != NULL, "not the workload: %s", line);
	}
	cr_expect_eq(lines, rec.samples, "perf script shows %lu samples of %lu", lines, rec.samples);
	cr_expect_gt(hot * 10, lines * 8, "only %lu of %lu samples in perfdata_spin_hot", hot, lines);
	free(out);
	free(perr);

	struct utsname u;
	cr_assert_eq(uname(&u), 0);
	char want[512];
	snprintf(cmd, sizeof(cmd), "perf report --header-only -i '%s'", path);
	cr_assert_eq(th_sh(cmd, &out, &perr), 0, "%s: %s", cmd, perr);
	cr_expect_str_empty(perr, "%s wrote on stderr: %s", cmd, perr);
	snprintf(want, sizeof(want), "# hostname : %s\n", u.nodename);
	expect_has(out, want);
	snprintf(want, sizeof(want), "# os release : %s\n", u.release);
	expect_has(out, want);
	snprintf(want, sizeof(want), "# arch : %s\n", u.machine);
	expect_has(out, want);
	snprintf(want, sizeof(want), "# nrcpus online : %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	expect_has(out, want);
	snprintf(want, sizeof(want), "# cmdline : perfev record -e cpu-clock:u %s", spin);
	expect_has(out, want);
	expect_has(out, "# perf version : perfev " PEV_VERSION_STRING "\n");
	snprintf(want, sizeof(want), "# event : name = cpu-clock:u, , id = { %" PRIu64 " }", id);
	expect_has(out, want);
	expect_has(out, "# total memory : ");
	expect_has(out, "# time of first sample : ");
	free(out);
	free(perr);

	snprintf(cmd, sizeof(cmd), "perf buildid-list -i '%s'", path);
	cr_assert_eq(th_sh(cmd, &out, &perr), 0, "%s: %s", cmd, perr);
	cr_expect_str_empty(perr, "%s wrote on stderr: %s", cmd, perr);
	char hex[2 * PEV_PERFDATA_BUILD_ID_MAX + 1] = "";
	for (size_t i = 0; i < bid_len; i++)
		sprintf(hex + 2 * i, "%02x", bid[i]);
	snprintf(want, sizeof(want), "%s %s", hex, spin);
	expect_has(out, want);
	free(out);
	free(perr);

	snprintf(cmd, sizeof(cmd), "perf evlist -v -i '%s'", path);
	cr_assert_eq(th_sh(cmd, &out, &perr), 0, "%s: %s", cmd, perr);
	cr_expect_str_empty(perr, "%s wrote on stderr: %s", cmd, perr);
	expect_has(out, "cpu-clock:u: type: 1");
	free(out);
	free(perr);

	/* Round trip: perfev reads back every record as written, and the features. */
	expect_records(path, &rec);
	struct pev_perfdata *pd = open_ok(path);
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	expect_machine_features(f, "record");
	cr_expect_str_eq(f->version, "perfev " PEV_VERSION_STRING);
	cr_assert_eq(f->nr_cmdline, 5);
	for (int i = 0; i < 5; i++)
		cr_expect_str_eq(f->cmdline[i], argv[i]);
	cr_assert_eq(f->nr_build_ids, 1);
	cr_expect_eq(f->build_ids[0].pid, -1);
	cr_expect_eq(f->build_ids[0].cpumode, PEV_RECORD_MISC_USER);
	cr_expect_eq(f->build_ids[0].size, bid_len);
	cr_expect_eq(memcmp(f->build_ids[0].build_id, bid, bid_len), 0);
	cr_expect_str_eq(f->build_ids[0].filename, spin);
	cr_expect_eq(f->sample_time_first, rec.first_time);
	cr_expect_eq(f->sample_time_last, rec.last_time);
	const struct pev_perfdata_event *ev = pev_perfdata_event(pd, 0);
	cr_assert_not_null(ev);
	cr_expect_str_eq(ev->name, "cpu-clock:u");
	cr_expect_eq(ev->nr_ids, 1);
	cr_expect_eq(ev->ids[0], id);
	cr_expect_eq(ev->attr.sample_type, o.sample_type);
	cr_expect_eq(ev->attr.sample_period, o.sample_period);
	cr_expect_eq(ev->attr.size, ev->file_attr_size);
	pev_perfdata_close(pd);
	free(rec.bytes);
	free(path);
}

/* ---- synthetic records: the writer's features, round trips, crashes ---------------- */

/* A SAMPLE of an event with IDENTIFIER|IP|TID|TIME|ID|PERIOD. */
static size_t synth_sample(unsigned char *p, uint64_t id, uint64_t ip, uint64_t time)
{
	struct pev_event_header h = {PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 56};
	uint32_t pidtid[2] = {4242, 4242};
	uint64_t period = 1000;

	memcpy(p, &h, 8);
	memcpy(p + 8, &id, 8);
	memcpy(p + 16, &ip, 8);
	memcpy(p + 24, pidtid, 8);
	memcpy(p + 32, &time, 8);
	memcpy(p + 40, &id, 8);
	memcpy(p + 48, &period, 8);
	return 56;
}

/* A COMM record with the sample_id_all trailer of that layout (TID, TIME, ID, IDENTIFIER). */
static size_t synth_comm(unsigned char *p, uint64_t id, uint64_t time)
{
	struct pev_event_header h = {PEV_RECORD_COMM, PEV_RECORD_MISC_USER, 56};
	uint32_t pidtid[2] = {4242, 4242};

	memset(p, 0, 56);
	memcpy(p, &h, 8);
	memcpy(p + 8, pidtid, 8);
	memcpy(p + 16, "synth", 6);
	memcpy(p + 24, pidtid, 8);
	memcpy(p + 32, &time, 8);
	memcpy(p + 40, &id, 8);
	memcpy(p + 48, &id, 8);
	return 56;
}

static struct pev_attr synth_attr(uint64_t config)
{
	struct pev_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PEV_TYPE_SOFTWARE;
	a.size = PEV_ATTR_SIZE_LATEST;
	a.config = config;
	a.sample_period = 1000;
	a.sample_type = PEV_SAMPLE_IDENTIFIER | PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME |
			PEV_SAMPLE_ID | PEV_SAMPLE_PERIOD;
	a.flags = PEV_ATTR_DISABLED | PEV_ATTR_COMM | PEV_ATTR_SAMPLE_ID_ALL;
	return a;
}

static const uint64_t ids_a[] = {101, 102}, ids_b[] = {201, 202}, ids_c[] = {301};

/* A writer with three events (a group of two), records of both, build ids, a command line. */
static struct pev_perfdata_writer *synth_writer(const char *path, unsigned flags,
						struct recorded *rec, int rounds)
{
	struct pev_perfdata_writer *w;
	struct pev_error err;

	cr_assert_eq(pev_perfdata_writer_open(path, flags, &w, &err), 0, "%s", err.message);
	struct pev_attr a = synth_attr(PEV_SW_CPU_CLOCK), b = synth_attr(PEV_SW_TASK_CLOCK);
	struct pev_attr c = synth_attr(PEV_SW_PAGE_FAULTS);
	b.flags |= PEV_ATTR_USE_CLOCKID;
	b.clockid = CLOCK_MONOTONIC;
	c.sample_type |= PEV_SAMPLE_BRANCH_STACK;
	cr_assert_eq(pev_perfdata_writer_add_event(w, &a, "cpu-clock", ids_a, 2, &err), 0, "%s",
		     err.message);
	cr_assert_eq(pev_perfdata_writer_add_event(w, &b, "task-clock", ids_b, 2, &err), 1, "%s",
		     err.message);
	cr_assert_eq(pev_perfdata_writer_add_event(w, &c, NULL, ids_c, 1, &err), 2, "%s",
		     err.message);
	cr_assert_eq(pev_perfdata_writer_add_group(w, "{clocks}", 0, 2), 0);
	static const unsigned char k[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
					    17, 18, 19, 20};
	cr_assert_eq(pev_perfdata_writer_add_build_id(w, -1, PEV_RECORD_MISC_KERNEL, k, 20,
						      "[kernel.kallsyms]"),
		     0);
	cr_assert_eq(pev_perfdata_writer_add_build_id(w, 7, PEV_RECORD_MISC_GUEST_USER, k + 4, 16,
						      "/usr/lib/guest/libx.so"),
		     0);
	const char *argv[] = {"/usr/bin/perfev", "record", "-o", path};
	cr_assert_eq(pev_perfdata_writer_set_cmdline(w, 4, argv), 0);

	rec->time_at = 32; /* after IDENTIFIER, IP and TID */
	unsigned char buf[4096];
	for (int r = 0; r < rounds; r++) {
		size_t len = synth_comm(buf, ids_a[0], 5000 + 100 * (uint64_t)r);
		for (int i = 0; i < 20; i++)
			len += synth_sample(buf + len, i % 2 ? ids_b[i % 4 / 2] : ids_a[i % 4 / 2],
					    0x400000 + (uint64_t)i, 5001 + 100 * (uint64_t)r + (uint64_t)i);
		write_batch(w, rec, buf, len);
	}
	return w;
}

Test(perfdata, writer_features_read_back)
{
	const char *dir = th_temp_dir("pd");
	char *path = th_path_join(dir, "s.data");
	struct recorded rec = {0};
	struct pev_error err;
	struct pev_perfdata_writer *w = synth_writer(path, 0, &rec, 3);
	cr_assert_eq(pev_perfdata_writer_finish(w, &err), 0, "%s", err.message);
	pev_perfdata_writer_close(w);
	expect_records(path, &rec);

	struct pev_perfdata *pd = open_ok(path);
	cr_assert_eq(pev_perfdata_nr_events(pd), 3);
	const struct pev_perfdata_event *a = pev_perfdata_event(pd, 0), *b = pev_perfdata_event(pd, 1),
					*c = pev_perfdata_event(pd, 2);
	cr_expect_str_eq(a->name, "cpu-clock");
	cr_expect_str_eq(b->name, "task-clock");
	cr_expect_str_eq(c->name, "page-faults", "an event without a name is described");
	cr_expect_eq(a->leader, 0);
	cr_expect_eq(b->leader, 0);
	cr_expect_eq(c->leader, 2);
	cr_expect_str_eq(a->group_name, "{clocks}");
	/* One attr size for all: the smallest that holds every event's fields. */
	cr_expect_eq(a->file_attr_size, b->file_attr_size);
	cr_expect_eq(b->attr.clockid, CLOCK_MONOTONIC);
	cr_expect_eq(pev_perfdata_event_by_id(pd, 202), b);
	cr_expect_eq(pev_perfdata_event_by_id(pd, 301), c);
	cr_expect_null(pev_perfdata_event_by_id(pd, 999));

	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	expect_machine_features(f, "record");
	cr_expect(pev_perfdata_has_feature(f, PEV_HEADER_CPU_TOPOLOGY));
	cr_expect_gt(f->nr_package_cpus, 0);
	cr_expect_gt(f->nr_core_cpus, 0);
	cr_expect_eq(f->nr_topology_cpus, f->nr_cpus_avail);
	cr_expect(pev_perfdata_has_feature(f, PEV_HEADER_PMU_MAPPINGS));
	bool software = false;
	for (uint32_t i = 0; i < f->nr_pmus; i++)
		software |= f->pmus[i].type == PEV_TYPE_SOFTWARE && !strcmp(f->pmus[i].name, "software");
	cr_expect(software, "PMU_MAPPINGS has software = 1");
	cr_expect(pev_perfdata_has_feature(f, PEV_HEADER_BRANCH_STACK));
	cr_assert_eq(f->nr_groups, 1);
	cr_expect_str_eq(f->groups[0].name, "{clocks}");
	cr_expect_eq(f->groups[0].nr_members, 2);
	cr_assert_eq(f->nr_build_ids, 2);
	cr_expect_str_eq(f->build_ids[0].filename, "[kernel.kallsyms]");
	cr_expect_eq(f->build_ids[0].cpumode, PEV_RECORD_MISC_KERNEL);
	cr_expect_eq(f->build_ids[0].size, 20);
	cr_expect_eq(f->build_ids[1].pid, 7);
	cr_expect_eq(f->build_ids[1].size, 16);
	cr_expect_eq(f->build_ids[1].build_id[0], 5);
	cr_expect_eq(f->build_ids[1].cpumode, PEV_RECORD_MISC_GUEST_USER);
	cr_expect(pev_perfdata_has_feature(f, PEV_HEADER_CLOCKID));
	cr_expect(pev_perfdata_has_feature(f, PEV_HEADER_CLOCK_DATA));
	cr_expect_eq(f->clock_data_clockid, CLOCK_MONOTONIC);
	cr_expect_gt(f->clock_data_tod_ns, 0);
	cr_expect_gt(f->clockid_res_ns, 0);
	cr_expect(pev_perfdata_has_feature(f, PEV_HEADER_SAMPLE_TIME));
	cr_expect_eq(f->sample_time_first, rec.first_time);
	cr_expect_eq(f->sample_time_last, rec.last_time);

	/* Every record gets its event from its id; times come out of samples and trailers. */
	struct counts cnt;
	count_records(pd, &cnt);
	cr_expect_eq(cnt.without_event, 0);
	cr_expect_eq(cnt.samples_of[0], 30);
	cr_expect_eq(cnt.samples_of[1], 30);
	cr_expect_eq(cnt.type[PEV_RECORD_FINISHED_ROUND], 3);
	pev_perfdata_close(pd);

	/* perf reads the header and the events without a word on stderr. */
	if (th_have_program("perf")) {
		char cmd[PATH_MAX + 64], *out, *perr;
		snprintf(cmd, sizeof(cmd), "perf report --header-only -I -i '%s'", path);
		cr_assert_eq(th_sh(cmd, &out, &perr), 0, "%s: %s", cmd, perr);
		cr_expect_str_empty(perr, "%s: %s", cmd, perr);
		expect_has(out, "# group: {clocks}{cpu-clock,task-clock}");
		expect_has(out, "# clockid: monotonic (1)");
		expect_has(out, "# contains samples with branch stack");
		expect_has(out, "# pmu mappings: ");
		expect_has(out, "# sibling sockets : ");
		free(out);
		free(perr);
		snprintf(cmd, sizeof(cmd), "perf evlist -v -i '%s'", path);
		cr_assert_eq(th_sh(cmd, &out, &perr), 0, "%s: %s", cmd, perr);
		cr_expect_str_empty(perr, "%s: %s", cmd, perr);
		expect_has(out, "task-clock: type: 1, size: ");
		free(out);
		free(perr);
	}
	free(rec.bytes);
	free(path);
}

/* Copies src into dst with the writer: events, records and every feature's bytes. */
static void copy_file(const char *src, const char *dst)
{
	struct pev_perfdata *pd = open_ok(src);
	struct pev_perfdata_writer *w;
	struct pev_perfdata_record r;
	struct pev_error err;
	int rc;

	cr_assert_eq(pev_perfdata_writer_open(dst, PEV_PERFDATA_WRITER_NO_MACHINE, &w, &err), 0,
		     "%s", err.message);
	for (int i = 0; i < pev_perfdata_nr_events(pd); i++) {
		const struct pev_perfdata_event *e = pev_perfdata_event(pd, i);
		cr_assert_eq(pev_perfdata_writer_add_event(w, &e->attr, e->name, e->ids, e->nr_ids,
							   &err),
			     i, "%s", err.message);
	}
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	for (size_t i = 0; i < f->nr_sections; i++)
		cr_assert_eq(pev_perfdata_writer_set_feature(w, f->sections[i].feature,
							     f->sections[i].data, f->sections[i].size),
			     0);
	/* Only what the source has: drop what the writer would add of its own. */
	for (unsigned b = 1; b < PEV_HEADER_FEAT_BITS; b++)
		if (!pev_perfdata_has_feature(f, b))
			pev_perfdata_writer_drop_feature(w, b);
	while ((rc = pev_perfdata_next(pd, &r, &err)) == 1) {
		if (r.type == PEV_RECORD_FINISHED_ROUND)
			cr_assert_eq(pev_perfdata_writer_round(w, &err), 0);
		else
			cr_assert_eq(pev_perfdata_writer_write(w, r.header, r.size, &err), 0, "%s",
				     err.message);
	}
	cr_assert_eq(rc, 0, "%s", err.message);
	cr_assert_eq(pev_perfdata_writer_finish(w, &err), 0, "%s", err.message);
	pev_perfdata_writer_close(w);
	pev_perfdata_close(pd);
}

/* Two files hold the same events, records and features (raw bytes and parsed). */
static void expect_same_files(const char *p1, const char *p2)
{
	struct pev_perfdata *a = open_ok(p1), *b = open_ok(p2);
	struct pev_perfdata_record ra, rb;
	struct pev_error err;
	int rc;

	cr_assert_eq(pev_perfdata_nr_events(a), pev_perfdata_nr_events(b));
	for (int i = 0; i < pev_perfdata_nr_events(a); i++) {
		const struct pev_perfdata_event *x = pev_perfdata_event(a, i), *y = pev_perfdata_event(b, i);
		struct pev_attr ax = x->attr, ay = y->attr;
		ax.size = ay.size = 0; /* the copy stores the smallest size that holds the fields */
		cr_expect_eq(memcmp(&ax, &ay, sizeof(ax)), 0, "event #%d's attributes differ", i);
		cr_assert_eq(x->nr_ids, y->nr_ids);
		cr_expect_eq(memcmp(x->ids, y->ids, 8 * x->nr_ids), 0);
		cr_expect_str_eq(x->name ? x->name : "", y->name ? y->name : "");
	}
	unsigned long n = 0;
	while ((rc = pev_perfdata_next(a, &ra, &err)) == 1) {
		cr_assert_eq(pev_perfdata_next(b, &rb, &err), 1, "the copy ends at record #%lu", n);
		cr_assert_eq(ra.size, rb.size, "record #%lu", n);
		cr_assert_eq(memcmp(ra.header, rb.header, ra.size), 0, "record #%lu differs", n);
		cr_assert_eq(ra.event ? ra.event->index : -1, rb.event ? rb.event->index : -1);
		n++;
	}
	cr_assert_eq(rc, 0, "%s", err.message);
	cr_assert_eq(pev_perfdata_next(b, &rb, &err), 0, "the copy has more records");
	const struct pev_perfdata_features *fa = pev_perfdata_features(a), *fb = pev_perfdata_features(b);
	cr_expect_eq(memcmp(fa->bits, fb->bits, sizeof(fa->bits)), 0);
	cr_assert_eq(fa->nr_sections, fb->nr_sections);
	for (size_t i = 0; i < fa->nr_sections; i++) {
		cr_assert_eq(fa->sections[i].feature, fb->sections[i].feature);
		cr_assert_eq(fa->sections[i].size, fb->sections[i].size, "feature %s",
			     pev_perfdata_feature_name(fa->sections[i].feature));
		cr_expect_eq(memcmp(fa->sections[i].data, fb->sections[i].data, fa->sections[i].size), 0,
			     "feature %s differs", pev_perfdata_feature_name(fa->sections[i].feature));
	}
	cr_expect_str_eq(fa->hostname, fb->hostname);
	cr_expect_eq(fa->nr_cmdline, fb->nr_cmdline);
	cr_expect_eq(fa->nr_build_ids, fb->nr_build_ids);
	cr_expect_eq(fa->sample_time_first, fb->sample_time_first);
	pev_perfdata_close(a);
	pev_perfdata_close(b);
}

Test(perfdata, round_trip_writer_to_reader_to_writer)
{
	const char *dir = th_temp_dir("pd");
	char *p1 = th_path_join(dir, "one.data"), *p2 = th_path_join(dir, "two.data");
	struct recorded rec = {0};
	struct pev_error err;
	struct pev_perfdata_writer *w = synth_writer(p1, 0, &rec, 4);
	cr_assert_eq(pev_perfdata_writer_finish(w, &err), 0, "%s", err.message);
	pev_perfdata_writer_close(w);
	copy_file(p1, p2);
	expect_same_files(p1, p2);
	expect_records(p2, &rec);
	free(rec.bytes);
	free(p1);
	free(p2);
}

Test(perfdata, round_trip_of_a_perf_record_file)
{
	th_need_perf();
	const char *dir = th_temp_dir("pd");
	char *p1 = th_path_join(dir, "perf.data"), *p2 = th_path_join(dir, "copy.data");
	char cmd[3 * PATH_MAX], *out1, *out2, *err;
	snprintf(cmd, sizeof(cmd), "perf record -q -o '%s' -e cpu-clock,task-clock -g -- '%s' 100",
		 p1, th_test_program("perfdata_spin"));
	cr_assert_eq(th_sh(cmd, &out1, &err), 0, "%s: %s", cmd, err);
	free(out1);
	free(err);
	copy_file(p1, p2);
	expect_same_files(p1, p2);

	/* perf reports the copy exactly as the original (but for its random tip line). */
	snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio --sort comm,dso,sym | grep -v Tip", p1);
	cr_assert_eq(th_sh(cmd, &out1, &err), 0, "%s", err);
	free(err);
	snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio --sort comm,dso,sym | grep -v Tip", p2);
	cr_assert_eq(th_sh(cmd, &out2, &err), 0, "%s", err);
	cr_expect_str_empty(err, "perf on the copy: %s", err);
	cr_expect_str_eq(out1, out2);
	free(out1);
	free(out2);
	free(err);
	free(p1);
	free(p2);
}

/* What a recorder that died wrote: the records it had flushed, and all of them. */
struct crash_ctx {
	char path[PATH_MAX];
	size_t flushed_len, all_len;
	unsigned char flushed[8 << 10];
	unsigned char all[1 << 20];
};

static void keep_in(unsigned char *dst, size_t *len, size_t cap, const struct recorded *rec)
{
	*len = rec->len < cap ? rec->len : cap;
	memcpy(dst, rec->bytes, *len);
}

/* In a child: write, flush, write more than the buffer holds, then die without closing. */
static void record_then_die(void *p)
{
	struct crash_ctx *ctx = p;
	struct recorded rec = {0};
	struct pev_error err;
	struct pev_perfdata_writer *w = synth_writer(ctx->path, 0, &rec, 2);

	if (pev_perfdata_writer_flush(w, &err) != 0)
		_exit(2);
	keep_in(ctx->flushed, &ctx->flushed_len, sizeof(ctx->flushed), &rec);
	unsigned char buf[56 * 64];
	for (int i = 0; i < 200; i++) {
		size_t len = 0;
		for (int k = 0; k < 64; k++)
			len += synth_sample(buf + len, ids_a[0], 0x1000,
					    9000 + (uint64_t)i * 64 + (uint64_t)k);
		write_batch(w, &rec, buf, len);
	}
	keep_in(ctx->all, &ctx->all_len, sizeof(ctx->all), &rec);
	_exit(0); /* a crash: no finish, no close */
}

/* In a child: write more than the buffer holds, never flush, die. */
static void record_unflushed_then_die(void *p)
{
	struct crash_ctx *ctx = p;
	struct recorded rec = {0};
	struct pev_perfdata_writer *w = synth_writer(ctx->path, 0, &rec, 1);
	unsigned char buf[56 * 64];

	for (int i = 0; i < 100; i++) {
		size_t len = 0;
		for (int k = 0; k < 64; k++)
			len += synth_sample(buf + len, ids_b[1], 0x2000,
					    7000 + (uint64_t)i * 64 + (uint64_t)k);
		write_batch(w, &rec, buf, len);
	}
	keep_in(ctx->all, &ctx->all_len, sizeof(ctx->all), &rec);
	(void)w;
	_exit(0);
}

Test(perfdata, flushed_file_survives_a_crash)
{
	const char *dir = th_temp_dir("pd");
	struct crash_ctx *ctx = calloc(1, sizeof(*ctx));
	cr_assert_not_null(ctx);
	snprintf(ctx->path, sizeof(ctx->path), "%s/c.data", dir);
	cr_assert(th_in_child(record_then_die, ctx, sizeof(*ctx)));
	cr_assert_gt(ctx->all_len, (size_t)(256 << 10) + ctx->flushed_len, "more than the buffer");

	/* The file reads as of the flush: those records, no features, no note. */
	struct recorded flushed = {.bytes = ctx->flushed, .len = ctx->flushed_len};
	expect_records(ctx->path, &flushed);
	struct pev_perfdata *pd = open_ok(ctx->path);
	cr_expect_eq(pev_perfdata_features(pd)->nr_sections, 0);
	cr_expect_eq(pev_perfdata_nr_events(pd), 3);
	pev_perfdata_close(pd);
	if (th_have_program("perf")) {
		char cmd[PATH_MAX + 64], *out, *perr;
		snprintf(cmd, sizeof(cmd), "perf report --header-only -i '%s'", ctx->path);
		cr_assert_eq(th_sh(cmd, &out, &perr), 0, "%s: %s", cmd, perr);
		cr_expect_str_empty(perr, "%s: %s", cmd, perr);
		free(out);
		free(perr);
	}
	free(ctx);
}

Test(perfdata, crash_before_any_flush_is_read_to_the_end_with_a_note)
{
	const char *dir = th_temp_dir("pd");
	struct crash_ctx *ctx = calloc(1, sizeof(*ctx));
	cr_assert_not_null(ctx);
	snprintf(ctx->path, sizeof(ctx->path), "%s/d.data", dir);
	cr_assert(th_in_child(record_unflushed_then_die, ctx, sizeof(*ctx)));

	/* And the tail of the file is a torn record, as a crash inside a write leaves it. */
	unsigned char junk[20] = {PEV_RECORD_SAMPLE, 0, 0, 0, 0, 0, 56, 0};
	int fd = open(ctx->path, O_WRONLY | O_APPEND | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	close(fd);

	struct pev_perfdata *pd = open_ok(ctx->path);
	struct pev_perfdata_record r;
	struct pev_error err;
	size_t at = 0;
	int rc;
	while ((rc = pev_perfdata_next(pd, &r, &err)) == 1) {
		cr_assert_leq(at + r.size, ctx->all_len);
		cr_assert_eq(memcmp(r.header, ctx->all + at, r.size), 0, "record at 0x%" PRIx64,
			     r.offset);
		at += r.size;
	}
	cr_assert_eq(rc, 0, "%s", err.message);
	/* What the full buffer spilled reached the file; what it still held did not. */
	cr_expect_geq(at, (size_t)(256 << 10) - 4096, "read %zu bytes of records; %s", at,
		      pev_perfdata_note(pd, 1));
	cr_expect_lt(at, ctx->all_len);
	cr_assert_geq(pev_perfdata_nr_notes(pd), 2);
	expect_has(pev_perfdata_note(pd, 0), "not finalized");
	expect_has(pev_perfdata_note(pd, 1), "cut short");
	pev_perfdata_close(pd);
	free(ctx);
}

/* ---- Ctrl-C ------------------------------------------------------------------------ */

static volatile sig_atomic_t stop;

static void on_sigint(int sig)
{
	(void)sig;
	stop = 1;
}

Test(perfdata, sigint_flag_then_finish_leaves_a_complete_file)
{
	const char *dir = th_temp_dir("pd");
	char *path = th_path_join(dir, "int.data");
	int ready[2];

	cr_assert_eq(pipe2(ready, O_CLOEXEC), 0);
	pid_t child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		/* A recorder: its handler only sets a flag (no SA_RESTART: writes see EINTR). */
		struct sigaction sa = {.sa_handler = on_sigint};
		sigaction(SIGINT, &sa, NULL);
		struct pev_perfdata_writer *w;
		if (pev_perfdata_writer_open(path, 0, &w, NULL))
			_exit(2);
		struct pev_attr a = synth_attr(PEV_SW_CPU_CLOCK);
		if (pev_perfdata_writer_add_event(w, &a, "cpu-clock", ids_a, 2, NULL) != 0)
			_exit(3);
		unsigned char buf[56 * 256];
		uint64_t t = 1;
		for (unsigned long batch = 0; !stop; batch++) {
			size_t len = 0;
			for (int k = 0; k < 256; k++)
				len += synth_sample(buf + len, ids_a[k % 2], 0x1000, t++);
			if (pev_perfdata_writer_write(w, buf, len, NULL) ||
			    pev_perfdata_writer_round(w, NULL))
				_exit(4);
			if (batch == 10 && write(ready[1], "r", 1) != 1)
				_exit(5);
		}
		if (pev_perfdata_writer_finish(w, NULL))
			_exit(6);
		pev_perfdata_writer_close(w);
		_exit(0);
	}
	close(ready[1]);
	char c;
	cr_assert_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
	struct timespec ms = {0, 30000000};
	nanosleep(&ms, NULL);
	cr_assert_eq(kill(child, SIGINT), 0);
	int status;
	cr_assert_eq(waitpid(child, &status, 0), child);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "recorder status %d", status);

	struct pev_perfdata *pd = open_ok(path);
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	cr_expect(pev_perfdata_has_feature(f, PEV_HEADER_HOSTNAME), "finished: features follow the data");
	cr_expect(pev_perfdata_has_feature(f, PEV_HEADER_SAMPLE_TIME));
	struct counts cnt;
	count_records(pd, &cnt);
	cr_expect_gt(cnt.type[PEV_RECORD_SAMPLE], 10 * 256);
	cr_expect_eq(cnt.type[PEV_RECORD_SAMPLE] % 256, 0, "whole batches only");
	cr_expect_eq(f->sample_time_first, 1);
	cr_expect_eq(f->sample_time_last, cnt.type[PEV_RECORD_SAMPLE]);
	cr_expect_eq(pev_perfdata_nr_notes(pd), 0, "note: %s", pev_perfdata_note(pd, 0));
	pev_perfdata_close(pd);
	free(path);
}

/* ---- writer errors and arguments ---------------------------------------------------- */

struct fsize_ctx {
	int first, second;
	char msg1[PEV_ERROR_MESSAGE_MAX], msg2[PEV_ERROR_MESSAGE_MAX];
	bool finish_failed;
};

static void write_past_fsize(void *p)
{
	struct fsize_ctx *ctx = p;
	struct rlimit rl = {64 << 10, 64 << 10};
	struct pev_perfdata_writer *w;
	struct pev_error err;
	char path[] = "/tmp/perfev-pd-fsize.XXXXXX";
	int fd = mkstemp(path);

	signal(SIGXFSZ, SIG_IGN);
	if (fd < 0 || setrlimit(RLIMIT_FSIZE, &rl) != 0)
		return;
	unlink(path);
	if (pev_perfdata_writer_open_fd(fd, 0, &w, NULL) != 0)
		return;
	struct pev_attr a = synth_attr(PEV_SW_CPU_CLOCK);
	pev_perfdata_writer_add_event(w, &a, "cpu-clock", ids_a, 2, NULL);
	unsigned char buf[56 * 1024];
	size_t len = 0;
	for (int k = 0; k < 1024; k++)
		len += synth_sample(buf + len, ids_a[0], 0x1000, (uint64_t)k);
	for (int i = 0; i < 64 && !ctx->first; i++)
		ctx->first = pev_perfdata_writer_write(w, buf, len, &err);
	snprintf(ctx->msg1, sizeof(ctx->msg1), "%s", err.message);
	ctx->second = pev_perfdata_writer_write(w, buf, 56, &err);
	snprintf(ctx->msg2, sizeof(ctx->msg2), "%s", err.message);
	ctx->finish_failed = pev_perfdata_writer_finish(w, NULL) != 0;
	pev_perfdata_writer_close(w);
	close(fd);
}

Test(perfdata, writer_write_error_is_reported_and_sticks)
{
	struct fsize_ctx ctx = {0};

	cr_assert(th_in_child(write_past_fsize, &ctx, sizeof(ctx)));
	cr_expect_eq(ctx.first, -EFBIG, "%d: %s", ctx.first, ctx.msg1);
	expect_has(ctx.msg1, "cannot write records");
	expect_has(ctx.msg1, strerror(EFBIG));
	cr_expect_eq(ctx.second, -EFBIG);
	expect_has(ctx.msg2, "an earlier write failed");
	cr_expect(ctx.finish_failed);
}

Test(perfdata, writer_checks_its_arguments)
{
	const char *dir = th_temp_dir("pd");
	char *path = th_path_join(dir, "args.data");
	struct pev_perfdata_writer *w = NULL;
	struct pev_error err;
	struct pev_attr a = synth_attr(PEV_SW_CPU_CLOCK);

	cr_expect_eq(pev_perfdata_writer_open(NULL, 0, &w, &err), PEV_EBADARG);
	expect_has(err.message, "pev_perfdata_writer_open");
	cr_expect_eq(pev_perfdata_writer_open(path, 0, NULL, &err), PEV_EBADARG);
	cr_expect_eq(pev_perfdata_writer_open(path, 0x80, &w, &err), PEV_EBADARG);
	cr_expect_null(w);
	cr_expect_eq(pev_perfdata_writer_open("/nonexistent-dir/x.data", 0, &w, &err), PEV_ENOENT);
	expect_has(err.message, "cannot create");
	int pipefd[2];
	cr_assert_eq(pipe2(pipefd, O_CLOEXEC), 0);
	cr_expect_eq(pev_perfdata_writer_open_fd(pipefd[1], 0, &w, &err), PEV_EBADARG);
	expect_has(err.message, "not a regular file");
	close(pipefd[0]);
	close(pipefd[1]);

	cr_assert_eq(pev_perfdata_writer_open(path, 0, &w, &err), 0, "%s", err.message);
	/* Until the first record, the file says it is not complete. */
	struct pev_perfdata *pd = NULL;
	cr_expect_eq(pev_perfdata_open(path, 0, &pd, &err), PEV_EFORMAT);
	expect_has(err.message, "header.attr_size is 0");
	cr_expect_eq(pev_perfdata_writer_add_event(w, NULL, "x", NULL, 0, &err), PEV_EBADARG);
	cr_expect_eq(pev_perfdata_writer_add_event(w, &a, "x", NULL, 3, &err), PEV_EBADARG);
	struct pev_attr small = a;
	small.size = 32;
	cr_expect_eq(pev_perfdata_writer_add_event(w, &small, "x", NULL, 0, &err), PEV_EFORMAT);
	cr_expect_eq(pev_perfdata_writer_add_event(w, &a, "x", ids_a, 2, &err), 0);
	cr_expect_eq(pev_perfdata_writer_add_group(w, NULL, 0, 1), PEV_EBADARG);
	cr_expect_eq(pev_perfdata_writer_add_group(w, NULL, 0, 2), PEV_EBADARG, "one event only");
	unsigned char id[21] = {1};
	cr_expect_eq(pev_perfdata_writer_add_build_id(w, -1, PEV_RECORD_MISC_USER, id, 0, "/x"),
		     PEV_EBADARG);
	cr_expect_eq(pev_perfdata_writer_add_build_id(w, -1, PEV_RECORD_MISC_USER, id, 21, "/x"),
		     PEV_EBADARG);
	cr_expect_eq(pev_perfdata_writer_add_build_id(w, -1, PEV_RECORD_MISC_USER, id, 20, NULL),
		     PEV_EBADARG);
	cr_expect_eq(pev_perfdata_writer_add_build_id(w, -1, 0x100, id, 20, "/x"), PEV_EBADARG);
	cr_expect_eq(pev_perfdata_writer_set_feature(w, 0, "x", 1), PEV_EBADARG);
	cr_expect_eq(pev_perfdata_writer_set_feature(w, 256, "x", 1), PEV_EBADARG);
	cr_expect_eq(pev_perfdata_writer_set_feature(w, 40, NULL, 1), PEV_EBADARG);
	cr_expect_eq(pev_perfdata_writer_drop_feature(w, 0), PEV_EBADARG);
	cr_expect_eq(pev_perfdata_writer_set_cmdline(w, -1, NULL), PEV_EBADARG);
	const char *holes[] = {"a", NULL};
	cr_expect_eq(pev_perfdata_writer_set_cmdline(w, 2, holes), PEV_EBADARG);
	cr_expect_eq(pev_perfdata_writer_set_sample_time(w, 5, 4), PEV_EBADARG);

	/* Bad record sizes: nothing of the buffer is written. */
	unsigned char rec[64];
	size_t n = synth_sample(rec, ids_a[0], 1, 1);
	struct pev_event_header bad = {PEV_RECORD_SAMPLE, 0, 12};
	memcpy(rec + n, &bad, 8);
	cr_expect_eq(pev_perfdata_writer_write(w, rec, n + 8, &err), PEV_EFORMAT);
	expect_has(err.message, "record #1 (type 9) at byte 56 of the buffer: size 12 is not a multiple of 8");
	bad.size = 0;
	memcpy(rec, &bad, 8);
	cr_expect_eq(pev_perfdata_writer_write(w, rec, 8, &err), PEV_EFORMAT);
	expect_has(err.message, "less than its 8-byte header");
	n = synth_sample(rec, ids_a[0], 1, 1);
	cr_expect_eq(pev_perfdata_writer_write(w, rec, n - 8, &err), PEV_EFORMAT);
	expect_has(err.message, "past the end of the buffer");
	cr_expect_eq(pev_perfdata_writer_write(w, rec, 4, &err), PEV_EFORMAT);
	cr_expect_eq(pev_perfdata_writer_write(w, NULL, 8, &err), PEV_EBADARG);
	cr_expect_eq(pev_perfdata_writer_data_size(w), 0);
	cr_expect_eq(pev_perfdata_writer_round(w, &err), 0, "nothing to end: no record");
	cr_expect_eq(pev_perfdata_writer_data_size(w), 0);

	cr_expect_eq(pev_perfdata_writer_write(w, rec, n, &err), 0, "%s", err.message);
	cr_expect_eq(pev_perfdata_writer_add_event(w, &a, "late", NULL, 0, &err), PEV_EBADARG);
	expect_has(err.message, "before the first record");
	cr_expect_eq(pev_perfdata_writer_finish(w, &err), 0, "%s", err.message);
	cr_expect_eq(pev_perfdata_writer_write(w, rec, n, &err), PEV_EBADARG);
	expect_has(err.message, "finished already");
	cr_expect_eq(pev_perfdata_writer_finish(w, &err), PEV_EBADARG);
	pev_perfdata_writer_close(w);
	pev_perfdata_writer_close(NULL);

	/* The file is complete, and its one sample's time is SAMPLE_TIME. */
	pd = open_ok(path);
	cr_expect_eq(pev_perfdata_features(pd)->sample_time_first, 1);
	pev_perfdata_close(pd);
	free(path);
}

Test(perfdata, writer_without_machine_features)
{
	const char *dir = th_temp_dir("pd");
	char *path = th_path_join(dir, "nm.data");
	struct pev_perfdata_writer *w;
	struct pev_error err;
	struct pev_attr a = synth_attr(PEV_SW_CPU_CLOCK);

	cr_assert_eq(pev_perfdata_writer_open(path, PEV_PERFDATA_WRITER_NO_MACHINE, &w, &err), 0);
	cr_assert_eq(pev_perfdata_writer_add_event(w, &a, "cpu-clock", ids_a, 2, &err), 0);
	cr_assert_eq(pev_perfdata_writer_set_sample_time(w, 10, 20), 0);
	cr_assert_eq(pev_perfdata_writer_set_feature(w, 40, "future", 6), 0);
	cr_assert_eq(pev_perfdata_writer_set_feature(w, PEV_HEADER_HOSTNAME, "\x08\0\0\0mybox\0\0\0", 12),
		     0);
	cr_assert_eq(pev_perfdata_writer_drop_feature(w, PEV_HEADER_CMDLINE), 0);
	cr_assert_eq(pev_perfdata_writer_finish(w, &err), 0, "%s", err.message);
	pev_perfdata_writer_close(w);

	struct pev_perfdata *pd = open_ok(path);
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	cr_expect_not(pev_perfdata_has_feature(f, PEV_HEADER_NRCPUS));
	cr_expect_not(pev_perfdata_has_feature(f, PEV_HEADER_OSRELEASE));
	cr_expect_not(pev_perfdata_has_feature(f, PEV_HEADER_CPU_TOPOLOGY));
	cr_expect_not(pev_perfdata_has_feature(f, PEV_HEADER_CMDLINE));
	cr_expect_not(pev_perfdata_has_feature(f, PEV_HEADER_BUILD_ID), "no build ids given");
	cr_expect(pev_perfdata_has_feature(f, PEV_HEADER_VERSION));
	cr_expect(pev_perfdata_has_feature(f, PEV_HEADER_EVENT_DESC));
	cr_expect(pev_perfdata_has_feature(f, 40));
	cr_expect_str_eq(f->hostname, "mybox");
	cr_expect_eq(f->sample_time_first, 10);
	cr_expect_eq(f->sample_time_last, 20);
	cr_expect_eq(pev_perfdata_nr_notes(pd), 1);
	expect_has(pev_perfdata_note(pd, 0), "feature bit 40 is unknown");
	struct counts c;
	count_records(pd, &c);
	cr_expect_eq(c.total, 0);
	pev_perfdata_close(pd);
	free(path);
}

/* ---- the reader's entry points ----------------------------------------------------- */

Test(perfdata, reader_entry_points_and_arguments)
{
	const char *dir = th_temp_dir("pd");
	char *path = th_path_join(dir, "e.data");
	struct recorded rec = {0};
	struct pev_error err;
	struct pev_perfdata_writer *w = synth_writer(path, 0, &rec, 2);
	cr_assert_eq(pev_perfdata_writer_finish(w, &err), 0, "%s", err.message);
	pev_perfdata_writer_close(w);

	struct pev_perfdata *pd = (void *)1;
	cr_expect_eq(pev_perfdata_open(NULL, 0, &pd, &err), PEV_EBADARG);
	cr_expect_null(pd);
	expect_has(err.message, "pev_perfdata_open");
	cr_expect_eq(pev_perfdata_open(path, 0, NULL, &err), PEV_EBADARG);
	cr_expect_eq(pev_perfdata_open(path, 0x10, &pd, &err), PEV_EBADARG);
	cr_expect_eq(pev_perfdata_open_memory(NULL, 10, 0, &pd, &err), PEV_EBADARG);
	cr_expect_eq(pev_perfdata_open_fd(-1, 0, &pd, &err), PEV_EBADF);
	cr_expect_eq(pev_perfdata_next(NULL, NULL, &err), PEV_EBADARG);
	cr_expect_eq(pev_perfdata_nr_events(NULL), PEV_EBADARG);
	cr_expect_null(pev_perfdata_features(NULL));
	cr_expect_null(pev_perfdata_note(NULL, 0));
	pev_perfdata_close(NULL);

	/* A descriptor is read from offset 0 whatever its position, and left open. */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(lseek(fd, 100, SEEK_SET), 100);
	cr_assert_eq(pev_perfdata_open_fd(fd, 0, &pd, &err), 0, "%s", err.message);
	struct counts c1;
	count_records(pd, &c1);
	pev_perfdata_close(pd);
	cr_expect_eq(fcntl(fd, F_GETFD), FD_CLOEXEC, "still open");
	close(fd);

	/* From memory. */
	unsigned char *data;
	size_t size;
	read_file(path, &data, &size);
	cr_assert_eq(pev_perfdata_open_memory(data, size, 0, &pd, &err), 0, "%s", err.message);
	struct counts c2;
	count_records(pd, &c2);
	cr_expect_eq(c1.total, c2.total);
	cr_expect_eq(c1.type[PEV_RECORD_SAMPLE], 40);
	/* At the end it stays at the end. */
	struct pev_perfdata_record r;
	cr_expect_eq(pev_perfdata_next(pd, &r, &err), 0);
	pev_perfdata_close(pd);

	/* A file-mode file cannot come through a pipe: its features are at its end. */
	int p[2];
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	cr_assert_eq(write(p[1], data, 4096 < size ? 4096 : size), (ssize_t)(4096 < size ? 4096 : size));
	close(p[1]);
	cr_expect_eq(pev_perfdata_open_fd(p[0], 0, &pd, &err), PEV_EUNSUPPORTED);
	expect_has(err.message, "cannot be read from a pipe");
	close(p[0]);
	free(data);
	free(rec.bytes);
	free(path);
}

Test(perfdata, names_of_features_and_record_types)
{
	cr_expect_str_eq(pev_perfdata_feature_name(PEV_HEADER_BUILD_ID), "BUILD_ID");
	cr_expect_str_eq(pev_perfdata_feature_name(PEV_HEADER_CLOCK_DATA), "CLOCK_DATA");
	cr_expect_str_eq(pev_perfdata_feature_name(PEV_HEADER_CPU_DOMAIN_INFO), "CPU_DOMAIN_INFO");
	cr_expect_str_eq(pev_perfdata_feature_name(PEV_HEADER_LAST_FEATURE), "UNKNOWN");
	cr_expect_str_eq(pev_perfdata_feature_name(1000), "UNKNOWN");
	cr_expect_str_eq(pev_perfdata_record_type_name(PEV_RECORD_FINISHED_ROUND), "FINISHED_ROUND");
	cr_expect_str_eq(pev_perfdata_record_type_name(PEV_RECORD_HEADER_FEATURE), "HEADER_FEATURE");
	cr_expect_str_eq(pev_perfdata_record_type_name(PEV_RECORD_COMPRESSED2), "COMPRESSED2");
	cr_expect_str_eq(pev_perfdata_record_type_name(PEV_RECORD_SAMPLE), "SAMPLE");
	cr_expect_str_eq(pev_perfdata_record_type_name(PEV_RECORD_HEADER_MAX), "UNKNOWN");
	cr_expect_str_eq(pev_perfdata_record_type_name(UINT32_MAX), "UNKNOWN");
}

Test(perfdata, writer_refuses_a_link)
{
	char other[PATH_MAX];
	const char *dir = th_temp_dir("pd_link");
	const char *link = th_link_to_keep(dir, "perf.data", other, sizeof(other));
	struct pev_perfdata_writer *w = NULL;
	struct pev_error err;

	cr_expect_lt(pev_perfdata_writer_open(link, 0, &w, &err), 0);
	cr_expect_null(w);
	cr_expect(strstr(err.message, "symbolic link"), "%s", err.message);
	th_expect_kept(other);
}

/* Appends a perf string (u32 length, then the bytes, NUL-padded to 8) to buf at *len. */
static void put_perf_string(unsigned char *buf, size_t *len, const char *s)
{
	uint32_t n = (uint32_t)((strlen(s) + 1 + 7) / 8 * 8);

	memcpy(buf + *len, &n, 4);
	memset(buf + *len + 4, 0, n);
	memcpy(buf + *len + 4, s, strlen(s));
	*len += 4 + n;
}

static void put_u32(unsigned char *buf, size_t *len, uint32_t v)
{
	memcpy(buf + *len, &v, 4);
	*len += 4;
}

/*
 * CPU_PMU_CAPS and PMU_CAPS: parsed into pmu_caps, and printed by `perfev
 * report --header-only` as perf prints them ("# cpu pmu capabilities: ...",
 * "# armv8_pmuv3 pmu capabilities: ..."; an empty list "not available").
 */
Test(perfdata, pmu_capabilities_read_and_printed_like_perf)
{
	const char *dir = th_temp_dir("pd");
	char *path = th_path_join(dir, "caps.data");
	struct recorded rec = {0};
	struct pev_error err;
	unsigned char cpu[256], pmus[512];
	size_t ncpu = 0, npmus = 0;
	struct pev_perfdata_writer *w = synth_writer(path, 0, &rec, 2);

	put_u32(cpu, &ncpu, 2);
	put_perf_string(cpu, &ncpu, "max_precise");
	put_perf_string(cpu, &ncpu, "3");
	put_perf_string(cpu, &ncpu, "pmu_name");
	put_perf_string(cpu, &ncpu, "skylake");
	put_u32(pmus, &npmus, 2);
	put_u32(pmus, &npmus, 3);
	put_perf_string(pmus, &npmus, "slots");
	put_perf_string(pmus, &npmus, "0x00000000");
	put_perf_string(pmus, &npmus, "bus_slots");
	put_perf_string(pmus, &npmus, "0x00000000");
	put_perf_string(pmus, &npmus, "bus_width");
	put_perf_string(pmus, &npmus, "0x00000008");
	put_perf_string(pmus, &npmus, "armv8_pmuv3");
	put_u32(pmus, &npmus, 0);
	put_perf_string(pmus, &npmus, "empty_pmu");
	cr_assert_eq(pev_perfdata_writer_set_feature(w, PEV_HEADER_CPU_PMU_CAPS, cpu, ncpu), 0);
	cr_assert_eq(pev_perfdata_writer_set_feature(w, PEV_HEADER_PMU_CAPS, pmus, npmus), 0);
	cr_assert_eq(pev_perfdata_writer_finish(w, &err), 0, "%s", err.message);
	pev_perfdata_writer_close(w);

	struct pev_perfdata *pd = open_ok(path);
	uint32_t nr_caps;
	const struct pev_perfdata_pmu_caps *caps = pev_perfdata_pmu_caps(pd, &nr_caps);
	cr_assert_eq(nr_caps, 3);
	cr_expect_str_eq(caps[0].pmu, "cpu");
	cr_assert_eq(caps[0].nr_caps, 2);
	cr_expect_str_eq(caps[0].names[1], "pmu_name");
	cr_expect_str_eq(caps[0].values[1], "skylake");
	cr_expect_str_eq(caps[1].pmu, "armv8_pmuv3");
	cr_assert_eq(caps[1].nr_caps, 3);
	cr_expect_str_eq(caps[1].names[2], "bus_width");
	cr_expect_str_eq(caps[1].values[2], "0x00000008");
	cr_expect_str_eq(caps[2].pmu, "empty_pmu");
	cr_expect_eq(caps[2].nr_caps, 0);
	pev_perfdata_close(pd);

	char cmd[2 * PATH_MAX], *ours, *theirs;
	const char *want = "# cpu pmu capabilities: max_precise=3, pmu_name=skylake\n"
			   "# armv8_pmuv3 pmu capabilities: slots=0x00000000, "
			   "bus_slots=0x00000000, bus_width=0x00000008\n"
			   "# empty_pmu pmu capabilities: not available\n";
	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --header-only | grep 'pmu capabilities'",
		 th_perfev_bin(), path);
	ours = th_sh_ok(cmd);
	cr_expect_str_eq(ours, want);
	if (th_have_program("perf")) {
		snprintf(cmd, sizeof(cmd),
			 "perf report -i '%s' --header-only 2>/dev/null | grep 'pmu capabilities'",
			 path);
		theirs = th_sh_ok(cmd);
		cr_expect_str_eq(ours, theirs, "perfev:\n%s\nperf:\n%s", ours, theirs);
		free(theirs);
	}
	free(ours);

	/* A count the section cannot hold is refused with the feature named. */
	unsigned char bad[24] = {0};
	size_t nbad = 0;
	put_u32(bad, &nbad, 1);
	put_u32(bad, &nbad, 1000);
	nbad = sizeof(bad);
	w = synth_writer(path, 0, &rec, 1);
	cr_assert_eq(pev_perfdata_writer_set_feature(w, PEV_HEADER_PMU_CAPS, bad, nbad), 0);
	cr_assert_eq(pev_perfdata_writer_finish(w, &err), 0, "%s", err.message);
	pev_perfdata_writer_close(w);
	cr_expect_eq(pev_perfdata_open(path, 0, &pd, &err), PEV_EFORMAT);
	expect_has(err.message, "capability count");
	free(rec.bytes);
	free(path);
}

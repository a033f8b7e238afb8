/* SPDX-License-Identifier: MIT */
/*
 * fuzz_perfdata.c - libFuzzer harness for the perf.data reader.
 *
 * The input is a perf.data file, file mode or pipe mode (the reader tells
 * them apart by the header), as it is: seeds are small valid files and the
 * malformed corpus of tests/fixtures/perfdata-bad/. Each input is read
 * three ways:
 *   - from memory (pev_perfdata_open_memory), strict;
 *   - from memory with PEV_PERFDATA_LENIENT;
 *   - through a pipe (pev_perfdata_open_fd on its read end: the streaming
 *     source, read once in order), strict or lenient by the input's last
 *     byte, when the pipe can hold the whole input.
 * The memory copy is a heap block of exactly the input's size, so the
 * sanitizer sees any read past it.
 *
 * After a successful open the harness touches everything the reader hands
 * out: the layout, every event (attribute block, name, unit, ids, CPUs,
 * group), the lookup of each id, every feature (strings, command line,
 * build ids, topology, PMUs, groups, the raw bytes of every section), the
 * notes; then it reads every record with pev_perfdata_next(), reading each
 * record's bytes, decoding the kernel's records with the event's format,
 * and taking the ID_INDEX entries, THREAD_MAP, CPU_MAP and TIME_CONV the
 * reader kept (features again too: pipe mode adds some as records). It
 * abort()s when a promise is broken: an error code the API does not list,
 * an error without a message, a record that is not 8-aligned or whose size
 * differs from its header, a string without its NUL, a record read after
 * the reader failed, a count that does not match its array.
 *
 * Mutations: LLVMFuzzerCustomMutator hands most inputs to the
 * structure-aware mutator (fuzz/perfdata_mutator.c: sample fields by the
 * event's sample_type, read values, callchains, DWARF stacks and registers,
 * attributes and ids, records, feature sections), the rest (and any input
 * it cannot walk) to libFuzzer's own byte mutations;
 * LLVMFuzzerCustomCrossOver splices records of one input into another.
 *
 * Seeds: fuzz/corpus/perfdata/ (fuzz/make_perfdata_corpus.sh writes them: perf's
 * files and streams, perfev's own streams, finished and cut short).
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true, then
 *   ./build-fuzz/fuzz/fuzz_perfdata -max_total_time=60 fuzz/corpus/perfdata
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfdata_mutator.h"
#include "perfev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
				 size_t size2, uint8_t *out, size_t max_out_size, unsigned int seed);

/* Records read per input at most: the stream of a small file is short anyway. */
#define MAX_RECORDS 100000

static uint64_t sink;

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_perfdata: %s\n", what);
	abort();
}

static void touch(const void *p, size_t n)
{
	const unsigned char *b = p;

	if (n && !p)
		fail("a NULL array with a non-zero count");
	for (size_t i = 0; i < n; i++)
		sink += b[i];
}

static void touch_string(const char *s)
{
	if (s)
		sink += strlen(s);
}

static void check_error(int rc, const struct pev_error *err, const char *where)
{
	switch (rc) {
	case PEV_EFORMAT:
	case PEV_EUNSUPPORTED:
	case PEV_ENOMEM:
	case PEV_EIO:
		break;
	default:
		fprintf(stderr, "fuzz_perfdata: %s gave %d (%s)\n", where, rc, pev_error_name(rc));
		abort();
	}
	if (!err->message[0] || !memchr(err->message, '\0', sizeof(err->message)))
		fail("an error without a message");
}

static void touch_event(const struct pev_perfdata *pd, const struct pev_perfdata_event *ev, int i)
{
	struct pev_record_format fmt;

	if (!ev || ev->index != i)
		fail("event i is missing or has another index");
	touch(&ev->attr, sizeof(ev->attr));
	touch_string(ev->name);
	touch_string(ev->unit);
	touch_string(ev->group_name);
	touch(ev->ids, ev->nr_ids * sizeof(*ev->ids));
	touch(ev->cpus, ev->nr_cpus * sizeof(*ev->cpus));
	if (ev->leader < 0 || ev->leader >= pev_perfdata_nr_events(pd))
		fail("a group leader out of range");
	for (size_t k = 0; k < ev->nr_ids; k++) {
		const struct pev_perfdata_event *by = pev_perfdata_event_by_id(pd, ev->ids[k]);
		struct pev_perfdata_id_entry e;
		if (!by)
			fail("an event's own id finds no event");
		if (pev_perfdata_id_index(pd, ev->ids[k], &e) == 0)
			sink += e.idx + e.cpu + e.tid;
	}
	(void)pev_record_format_from_attr(&ev->attr, &fmt);
}

static void touch_strings(const char *const *v, size_t n)
{
	if (n && !v)
		fail("a NULL string array with a non-zero count");
	for (size_t i = 0; i < n; i++) {
		if (!v[i])
			fail("a NULL string in an array");
		touch_string(v[i]);
	}
}

static void touch_features(const struct pev_perfdata *pd)
{
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);

	if (!f)
		fail("no features");
	touch_string(f->hostname);
	touch_string(f->osrelease);
	touch_string(f->version);
	touch_string(f->arch);
	touch_string(f->cpudesc);
	touch_string(f->cpuid);
	touch_strings(f->cmdline, f->nr_cmdline);
	touch(f->build_ids, f->nr_build_ids * sizeof(*f->build_ids));
	for (size_t i = 0; i < f->nr_build_ids; i++) {
		if (f->build_ids[i].size > PEV_PERFDATA_BUILD_ID_MAX)
			fail("a build id longer than its array");
		touch_string(f->build_ids[i].filename);
	}
	touch_strings(f->package_cpus, f->nr_package_cpus);
	touch_strings(f->core_cpus, f->nr_core_cpus);
	touch_strings(f->die_cpus, f->nr_die_cpus);
	touch(f->cpu_topology, f->nr_topology_cpus * sizeof(*f->cpu_topology));
	touch(f->pmus, f->nr_pmus * sizeof(*f->pmus));
	for (uint32_t i = 0; i < f->nr_pmus; i++)
		touch_string(f->pmus[i].name);
	touch(f->groups, f->nr_groups * sizeof(*f->groups));
	for (uint32_t i = 0; i < f->nr_groups; i++)
		touch_string(f->groups[i].name);
	touch(f->sections, f->nr_sections * sizeof(*f->sections));
	/* (A section whose feature was dropped, PEV_PERFDATA_LENIENT, is kept with its bit clear.) */
	for (size_t i = 0; i < f->nr_sections; i++)
		touch(f->sections[i].data, (size_t)f->sections[i].size);
	for (unsigned b = 0; b < PEV_HEADER_FEAT_BITS + 2; b++)
		sink += pev_perfdata_has_feature(f, b);
}

static void touch_reader(const struct pev_perfdata *pd)
{
	const struct pev_perfdata_layout *l = pev_perfdata_layout(pd);
	size_t n;

	if (!l)
		fail("no layout");
	touch(l, sizeof(*l));
	int nev = pev_perfdata_nr_events(pd);
	if (nev < 0)
		fail("a negative event count");
	for (int i = 0; i < nev; i++)
		touch_event(pd, pev_perfdata_event(pd, i), i);
	if (pev_perfdata_event(pd, nev) || pev_perfdata_event(pd, -1))
		fail("an event out of range");
	touch_features(pd);
	const struct pev_perfdata_thread *t = pev_perfdata_threads(pd, &n);
	touch(t, n * sizeof(*t));
	for (size_t i = 0; i < n; i++)
		if (!memchr(t[i].comm, '\0', sizeof(t[i].comm)))
			fail("a thread name without its NUL");
	const int *cpus = pev_perfdata_cpus(pd, &n);
	touch(cpus, n * sizeof(*cpus));
	const struct pev_perfdata_time_conv *tc = pev_perfdata_time_conv(pd);
	if (tc)
		touch(tc, sizeof(*tc));
	size_t notes = pev_perfdata_nr_notes(pd);
	for (size_t i = 0; i < notes; i++) {
		if (!pev_perfdata_note(pd, i))
			fail("a note is missing");
		touch_string(pev_perfdata_note(pd, i));
	}
	if (pev_perfdata_note(pd, notes))
		fail("a note out of range");
}

/* Decodes a kernel record with the format of the event the reader attributes it to. */
static void decode(const struct pev_perfdata_record *rec)
{
	struct pev_record_format fmt;
	struct pev_record r;
	char line[160];

	if (!rec->event || rec->type >= PEV_RECORD_USER_TYPE_START)
		return;
	if (pev_record_format_from_attr(&rec->event->attr, &fmt) != 0)
		return;
	int got = pev_record_decode(&fmt, rec->header, rec->size, &r);
	if (got > 0) {
		if ((size_t)got != rec->size)
			fail("the decoder consumed another size than the reader's");
		pev_record_describe(&r, line, sizeof(line));
	} else if (got != PEV_EFORMAT) {
		fail("the decoder gave an error other than PEV_EFORMAT");
	}
}

static void read_all(struct pev_perfdata *pd)
{
	struct pev_perfdata_record rec;
	struct pev_error err;
	int rc = 0;

	for (int i = 0; i < MAX_RECORDS; i++) {
		memset(&err, 0, sizeof(err));
		rc = pev_perfdata_next(pd, &rec, &err);
		if (rc <= 0)
			break;
		if (rc != 1)
			fail("pev_perfdata_next returned a value above 1");
		if (!rec.header || ((uintptr_t)rec.header & 7) || rec.size < 8 ||
		    rec.size != rec.header->size || rec.type != rec.header->type)
			fail("a record whose header disagrees with what the reader says");
		touch(rec.header, rec.size);
		if (rec.event)
			sink += (uint64_t)rec.event->index;
		decode(&rec);
		if (rec.type == PEV_RECORD_ID_INDEX || rec.type == PEV_RECORD_THREAD_MAP ||
		    rec.type == PEV_RECORD_CPU_MAP || rec.type == PEV_RECORD_TIME_CONV ||
		    rec.type == PEV_RECORD_HEADER_ATTR || rec.type == PEV_RECORD_HEADER_FEATURE ||
		    rec.type == PEV_RECORD_HEADER_BUILD_ID || rec.type == PEV_RECORD_EVENT_UPDATE ||
		    rec.type == PEV_RECORD_HEADER_TRACING_DATA)
			touch_reader(pd);
	}
	if (rc < 0) {
		check_error(rc, &err, "pev_perfdata_next");
		/* A failed reader stays failed. */
		int again = pev_perfdata_next(pd, &rec, NULL);
		if (again != rc)
			fail("a failed reader read on");
	}
	touch_reader(pd);
}

static void read_memory(const uint8_t *data, size_t size, unsigned flags)
{
	struct pev_perfdata *pd = NULL;
	struct pev_error err;
	unsigned char *copy = malloc(size ? size : 1);

	if (!copy)
		return;
	memcpy(copy, data, size);
	memset(&err, 0, sizeof(err));
	int rc = pev_perfdata_open_memory(copy, size, flags, &pd, &err);
	if (rc < 0) {
		if (pd)
			fail("a failed open left a reader");
		check_error(rc, &err, "pev_perfdata_open_memory");
	} else {
		if (!pd)
			fail("an open without a reader");
		touch_reader(pd);
		read_all(pd);
		pev_perfdata_close(pd);
	}
	free(copy);
}

/* Reads the input through a pipe: the streaming source. Skipped when the pipe cannot hold it. */
static void read_pipe(const uint8_t *data, size_t size, unsigned flags)
{
	struct pev_perfdata *pd = NULL;
	struct pev_error err;
	int p[2];

	if (pipe2(p, O_CLOEXEC) != 0)
		return;
	int cap = fcntl(p[1], F_GETPIPE_SZ);
	if (cap > 0 && (size_t)cap < size)
		cap = fcntl(p[1], F_SETPIPE_SZ, (int)(size < (1 << 20) ? size : (1 << 20)));
	if (cap < 0 || (size_t)cap < size)
		goto out;
	for (size_t done = 0; done < size;) {
		ssize_t w = write(p[1], data + done, size - done);
		if (w <= 0)
			goto out;
		done += (size_t)w;
	}
	close(p[1]);
	p[1] = -1;
	memset(&err, 0, sizeof(err));
	int rc = pev_perfdata_open_fd(p[0], flags, &pd, &err);
	if (rc < 0) {
		check_error(rc, &err, "pev_perfdata_open_fd");
	} else {
		touch_reader(pd);
		read_all(pd);
		pev_perfdata_close(pd);
	}
out:
	close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_memory(data, size, 0);
	read_memory(data, size, PEV_PERFDATA_LENIENT);
	read_pipe(data, size, size && (data[size - 1] & 1) ? PEV_PERFDATA_LENIENT : 0);
	return 0;
}

/* Mostly structure-aware; one time in five (or on an input it cannot walk) libFuzzer's bytes. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	if (seed % 5 != 0) {
		size_t n = pdm_mutate(data, size, max_size, pdm_seed(seed, size), NULL, 0);
		if (n)
			return n;
	}
	return LLVMFuzzerMutate(data, size, max_size);
}

/* Records of one input spliced into the other's data section. */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
				 size_t size2, uint8_t *out, size_t max_out_size, unsigned int seed)
{
	return pdm_crossover(data1, size1, data2, size2, out, max_out_size, pdm_seed(seed, size2));
}

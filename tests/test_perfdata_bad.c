/* SPDX-License-Identifier: MIT */
/*
 * test_perfdata_bad.c - the perf.data reader on bad input: the corpus in
 * tests/fixtures/perfdata-bad/ (written by make_corpus.py, with the
 * expected answer of each file in expected.tsv), a missing file, a
 * directory, a program; every truncation and every single-byte corruption
 * of a good file, each of which must end in a clean answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

static char *fixture(const char *name)
{
	char *p = malloc(PATH_MAX);
	cr_assert_not_null(p);
	snprintf(p, PATH_MAX, "%s/perfdata-bad/%s", th_fixtures(), name);
	return p;
}

static void load(const char *name, unsigned char **data, size_t *size)
{
	char *path = fixture(name);
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	*data = malloc(n > 0 ? (size_t)n : 1);
	cr_assert_not_null(*data);
	cr_assert_eq(fread(*data, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	free(path);
}

/* How reading a file ended. */
struct outcome {
	const char *stage; /* "open", "read" or "ok" */
	int code;
	struct pev_error err;
	char notes[4096];
	unsigned long records;
};

/* Opens (from memory when data is given, else the path) and reads every record. */
static void try_read(const char *path, const unsigned char *data, size_t size, unsigned flags,
		     struct outcome *o)
{
	struct pev_perfdata *pd = NULL;
	struct pev_perfdata_record r;

	memset(o, 0, sizeof(*o));
	memset(&o->err, 0x5a, sizeof(o->err)); /* nothing stale passes */
	o->code = data || !path ? pev_perfdata_open_memory(data, size, flags, &pd, &o->err)
				: pev_perfdata_open(path, flags, &pd, &o->err);
	if (o->code) {
		o->stage = "open";
		cr_assert_null(pd);
		cr_assert_lt(o->code, 0);
		cr_assert_eq(o->err.code, o->code);
		cr_assert_not_null(memchr(o->err.message, '\0', sizeof(o->err.message)));
		cr_assert_neq(o->err.message[0], '\0', "a failure without a message");
		return;
	}
	memset(&o->err, 0x5a, sizeof(o->err));
	while ((o->code = pev_perfdata_next(pd, &r, &o->err)) == 1) {
		o->records++;
		cr_assert_geq(r.size, 8);
		cr_assert_eq(r.size, r.header->size);
		cr_assert_eq((uintptr_t)r.header % 8, 0);
		/* The whole record can be read. */
		volatile unsigned char sink = 0;
		for (size_t i = 0; i < r.size; i++)
			sink ^= ((const unsigned char *)r.header)[i];
		(void)sink;
	}
	o->stage = o->code ? "read" : "ok";
	if (o->code) {
		cr_assert_eq(o->err.code, o->code);
		cr_assert_neq(o->err.message[0], '\0');
		/* A failed reader stays failed. */
		struct pev_error again;
		cr_assert_eq(pev_perfdata_next(pd, &r, &again), o->code);
		cr_assert_str_eq(again.message, o->err.message);
	}
	for (size_t i = 0; i < pev_perfdata_nr_notes(pd); i++) {
		size_t used = strlen(o->notes);
		snprintf(o->notes + used, sizeof(o->notes) - used, "%s\n", pev_perfdata_note(pd, i));
	}
	pev_perfdata_close(pd);
}

Test(perfdata_bad, corpus_gives_the_expected_answers)
{
	char *table = fixture("expected.tsv");
	FILE *f = fopen(table, "r");
	char line[1024];
	int rows = 0;

	cr_assert_not_null(f, "%s: %s (run make_corpus.py)", table, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = '\0';
		char *save, *file = strtok_r(line, "\t", &save), *stage = strtok_r(NULL, "\t", &save);
		char *error = strtok_r(NULL, "\t", &save), *text = strtok_r(NULL, "\t", &save);
		cr_assert(file && stage && error && text, "bad row in expected.tsv");
		char *path = fixture(file);
		struct outcome o;
		try_read(path, NULL, 0, 0, &o);
		cr_expect_str_eq(o.stage, stage, "%s: ended at %s (%s), expected %s", file, o.stage,
				 o.code ? o.err.message : "no error", stage);
		if (strcmp(stage, "ok") == 0) {
			if (strcmp(text, "-") == 0)
				cr_expect_str_empty(o.notes, "%s: unexpected notes: %s", file, o.notes);
			else
				cr_expect(strstr(o.notes, text) != NULL, "%s: no note \"%s\" in: %s",
					  file, text, o.notes);
			if (!strstr(file, "empty-data") && !strstr(file, "header-only"))
				cr_expect_gt(o.records, 0, "%s: no records", file);
		} else {
			cr_expect_str_eq(pev_error_name(o.code), error, "%s: %s", file, o.err.message);
			cr_expect(strstr(o.err.message, text) != NULL, "%s: \"%s\" is not in: %s", file,
				  text, o.err.message);
			/* Messages name the file first. */
			cr_expect(strncmp(o.err.message, path, strlen(path)) == 0, "%s: %s", file,
				  o.err.message);
		}
		/* The same bytes from memory give the same answer. */
		unsigned char *data;
		size_t size;
		struct outcome m;
		load(file, &data, &size);
		try_read(NULL, data, size, 0, &m);
		cr_expect_str_eq(m.stage, o.stage, "%s: from memory: %s", file, m.err.message);
		cr_expect_eq(m.code, o.code, "%s", file);
		free(data);
		free(path);
		rows++;
	}
	fclose(f);
	cr_expect_geq(rows, 60, "only %d files in the corpus", rows);
	free(table);
}

Test(perfdata_bad, missing_directory_and_foreign_files)
{
	struct outcome o;

	try_read("/nonexistent/perf.data", NULL, 0, 0, &o);
	cr_expect_eq(o.code, PEV_ENOENT);
	cr_expect_str_eq(o.err.syscall, "open");
	expect_has(o.err.message, "/nonexistent/perf.data: cannot open: No such file or directory");
	expect_has(o.err.hint, "perf.data");

	try_read("/tmp", NULL, 0, 0, &o);
	cr_expect_eq(o.code, PEV_EUNSUPPORTED);
	expect_has(o.err.message, "/tmp: is a directory");

	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	cr_assert_gt(n, 0);
	exe[n] = '\0';
	try_read(exe, NULL, 0, 0, &o);
	cr_expect_eq(o.code, PEV_EFORMAT);
	expect_has(o.err.message, "not a perf.data file: it is an ELF file");

	try_read("/proc/self/status", NULL, 0, 0, &o);
	cr_expect_eq(o.code, PEV_EFORMAT);
	expect_has(o.err.message, "not a perf.data file: it starts with the bytes 4e 61 6d 65");

	try_read(NULL, (const unsigned char *)"", 0, 0, &o);
	cr_expect_eq(o.code, PEV_EFORMAT);
	expect_has(o.err.message, "perf.data (memory): the file is empty");
}

Test(perfdata_bad, lenient_mode_drops_bad_features_and_records)
{
	struct outcome o;
	char *path = fixture("hostname-no-nul.data");
	struct pev_perfdata *pd;
	struct pev_error err;

	cr_assert_eq(pev_perfdata_open(path, PEV_PERFDATA_LENIENT, &pd, &err), 0, "%s", err.message);
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	cr_expect_null(f->hostname);
	cr_expect_not(pev_perfdata_has_feature(f, PEV_HEADER_HOSTNAME));
	cr_expect_str_eq(f->osrelease, "6.0.0-test", "the other features are read");
	cr_assert_eq(pev_perfdata_nr_notes(pd), 1);
	expect_has(pev_perfdata_note(pd, 0), "dropped: ");
	expect_has(pev_perfdata_note(pd, 0), "64 bytes without a terminating NUL");
	pev_perfdata_close(pd);
	free(path);

	path = fixture("build-id-no-nul.data");
	cr_assert_eq(pev_perfdata_open(path, PEV_PERFDATA_LENIENT, &pd, &err), 0, "%s", err.message);
	cr_expect_eq(pev_perfdata_features(pd)->nr_build_ids, 0, "no half-read build ids");
	pev_perfdata_close(pd);
	free(path);

	path = fixture("thread-map-huge.data");
	try_read(path, NULL, 0, PEV_PERFDATA_LENIENT, &o);
	cr_expect_str_eq(o.stage, "ok", "%s", o.err.message);
	expect_has(o.notes, "THREAD_MAP record at offset 0x268 ignored: ");
	cr_expect_eq(o.records, 15, "every record, the bad one too");
	free(path);

	/* The framing is checked however lenient. */
	path = fixture("record-size-0.data");
	try_read(path, NULL, 0, PEV_PERFDATA_LENIENT, &o);
	cr_expect_str_eq(o.stage, "read");
	free(path);
}

Test(perfdata_bad, good_files_are_read_whole)
{
	struct pev_perfdata *pd;
	struct pev_error err;
	char *path = fixture("good.data");

	cr_assert_eq(pev_perfdata_open(path, 0, &pd, &err), 0, "%s", err.message);
	const struct pev_perfdata_event *a = pev_perfdata_event(pd, 0), *b = pev_perfdata_event(pd, 1);
	cr_expect_str_eq(a->name, "cpu-clock");
	cr_expect_str_eq(b->name, "task-clock");
	cr_expect_eq(b->leader, 0);
	cr_expect_eq(a->nr_ids, 2);
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	cr_expect_str_eq(f->hostname, "testhost");
	cr_expect_eq(f->nr_cmdline, 4);
	cr_expect_str_eq(f->cmdline[3], "x.data");
	cr_expect_eq(f->nr_build_ids, 2);
	cr_expect_str_eq(f->build_ids[1].filename, "/usr/bin/spin");
	cr_expect_eq(f->build_ids[1].build_id[0], 21);
	cr_expect_eq(f->nr_pmus, 2);
	cr_expect_str_eq(f->pmus[1].name, "tracepoint");
	struct pev_perfdata_record r;
	unsigned long samples[2] = {0, 0};
	int rc;
	while ((rc = pev_perfdata_next(pd, &r, &err)) == 1) {
		cr_assert(r.type >= PEV_RECORD_USER_TYPE_START || r.event != NULL);
		if (r.type == PEV_RECORD_SAMPLE) {
			samples[r.event->index]++;
			cr_expect_eq(r.time, 2000 + samples[0] + samples[1] - 1);
		}
		if (r.type == PEV_RECORD_COMM) {
			cr_expect(r.has_time);
			cr_expect_eq(r.time, 1000, "from the sample_id_all trailer");
			cr_expect_eq(r.id, 11);
		}
	}
	cr_assert_eq(rc, 0, "%s", err.message);
	cr_expect_eq(samples[0], 3);
	cr_expect_eq(samples[1], 3);
	/* What perf's own records said. */
	size_t n;
	const struct pev_perfdata_thread *t = pev_perfdata_threads(pd, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(t[0].pid, 100);
	cr_expect_str_eq(t[0].comm, "spin");
	const int *cpus = pev_perfdata_cpus(pd, &n);
	cr_assert_eq(n, 2);
	cr_expect_eq(cpus[1], 1);
	struct pev_perfdata_id_entry e;
	cr_expect_eq(pev_perfdata_id_index(pd, 21, &e), 0);
	cr_expect_eq(e.tid, 100);
	cr_expect_eq(pev_perfdata_id_index(pd, 12, &e), PEV_ENOTFOUND);
	cr_expect_eq(b->scale, 0.5, "EVENT_UPDATE scale");
	const struct pev_perfdata_time_conv *tc = pev_perfdata_time_conv(pd);
	cr_assert_not_null(tc);
	cr_expect_eq(tc->time_mult, 20);
	cr_expect(tc->cap_user_time_short);
	pev_perfdata_close(pd);
	free(path);

	/* Pipe mode: the same, from records. */
	path = fixture("pipe-good.data");
	cr_assert_eq(pev_perfdata_open(path, 0, &pd, &err), 0, "%s", err.message);
	cr_expect(pev_perfdata_pipe_mode(pd));
	cr_expect_eq(pev_perfdata_nr_events(pd), 2);
	cr_expect_str_eq(pev_perfdata_event(pd, 1)->name, "task-clock");
	cr_expect_eq(pev_perfdata_event(pd, 1)->leader, 0);
	cr_expect_str_eq(pev_perfdata_features(pd)->hostname, "testhost");
	cr_expect_eq(pev_perfdata_features(pd)->nr_build_ids, 2);
	pev_perfdata_close(pd);
	free(path);
}

/* Offsets where records start in a pipe-mode image (and its end). */
static size_t record_starts(const unsigned char *data, size_t size, size_t *starts, size_t max)
{
	size_t n = 0;

	for (size_t at = PEV_PERFDATA_PIPE_HEADER_SIZE; at + 8 <= size && n < max;) {
		starts[n++] = at;
		uint16_t sz;
		memcpy(&sz, data + at + 6, 2);
		at += sz;
	}
	return n;
}

Test(perfdata_bad, every_truncation_is_refused)
{
	unsigned char *data, *copy;
	size_t size;
	struct outcome o;

	/* File mode: the header points past any prefix. */
	load("good.data", &data, &size);
	for (size_t len = 0; len < size; len++) {
		copy = malloc(len ? len : 1);
		memcpy(copy, data, len);
		try_read(NULL, copy, len, 0, &o);
		cr_assert_str_neq(o.stage, "ok", "a %zu-byte prefix of %zu reads", len, size);
		free(copy);
	}
	free(data);

	/*
	 * Pipe mode: a prefix that ends between records is a shorter stream
	 * (unfinished unless it ends with FINISHED_ROUND); one that ends
	 * inside a record is a recorder killed mid-stream: read up to there,
	 * with a note.
	 */
	size_t starts[64];
	load("pipe-good.data", &data, &size);
	size_t nstarts = record_starts(data, size, starts, 64);
	cr_assert_gt(nstarts, 10);
	for (size_t len = 0; len < size; len++) {
		bool boundary = len == PEV_PERFDATA_PIPE_HEADER_SIZE;
		for (size_t k = 0; k < nstarts; k++)
			boundary |= starts[k] == len;
		copy = malloc(len ? len : 1);
		memcpy(copy, data, len);
		try_read(NULL, copy, len, 0, &o);
		if (boundary)
			cr_assert_str_eq(o.stage, "ok", "a %zu-byte prefix ending between records: %s",
					 len, o.err.message);
		else if (len >= PEV_PERFDATA_PIPE_HEADER_SIZE)
			cr_assert(strcmp(o.stage, "ok") == 0 ? strstr(o.notes, "never finished") != NULL
							     : strcmp(o.stage, "open") == 0,
				  "a %zu-byte prefix ending inside a record: %s, notes: %s", len,
				  o.stage, o.notes);
		else
			cr_assert_str_eq(o.stage, "open", "a %zu-byte prefix of the header", len);
		free(copy);
	}
	free(data);
}

Test(perfdata_bad, every_byte_corruption_ends_cleanly)
{
	static const unsigned char values[] = {0x00, 0xff, 0x80, 0x07};
	const char *files[] = {"good.data", "pipe-good.data"};

	for (size_t fi = 0; fi < 2; fi++) {
		unsigned char *data;
		size_t size;
		unsigned long failures = 0, total = 0;
		load(files[fi], &data, &size);
		for (size_t at = 0; at < size; at++) {
			unsigned char orig = data[at];
			for (size_t v = 0; v < sizeof(values); v++) {
				if (values[v] == orig)
					continue;
				/* An exact-size copy, so a read past the end is caught. */
				unsigned char *copy = malloc(size);
				memcpy(copy, data, size);
				copy[at] = values[v];
				struct outcome o;
				try_read(NULL, copy, size, 0, &o);
				cr_assert(o.code == 0 || o.code == PEV_EFORMAT || o.code == PEV_EUNSUPPORTED ||
						  o.code == PEV_ENOMEM,
					  "%s byte %zu = 0x%02x: code %d", files[fi], at, values[v], o.code);
				failures += o.code != 0;
				total++;
				free(copy);
			}
		}
		/* Most corruptions are noticed; some (an ip, a time) are not corruption at all. */
		cr_expect_gt(failures, total / 20, "%s: only %lu of %lu noticed", files[fi], failures,
			     total);
		free(data);
	}
}

/*
 * Found by fuzz_perfdata: an ID_INDEX record with no entries, the first of
 * its stream, made the reader sort a NULL array (undefined behaviour that
 * UBSan reports). The golden bytes: a pipe-mode header and that record.
 */
Test(perfdata_bad, an_empty_id_index_adds_nothing)
{
	static const unsigned char stream[] = {
		'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 16, 0, 0, 0, 0, 0, 0, 0, /* pipe header */
		69, 0, 0, 0, 0, 0, 16, 0, /* ID_INDEX, misc 0, size 16 */
		0, 0, 0, 0, 0, 0, 0, 0,   /* nr 0 */
	};
	static const unsigned flags[] = {0, PEV_PERFDATA_LENIENT};

	for (size_t i = 0; i < 2; i++) {
		unsigned char *copy = malloc(sizeof(stream));
		struct pev_perfdata_record r;
		struct pev_perfdata_id_entry e;
		struct pev_perfdata *pd;
		struct pev_error err;

		cr_assert_not_null(copy);
		memcpy(copy, stream, sizeof(stream));
		cr_assert_eq(pev_perfdata_open_memory(copy, sizeof(stream), flags[i], &pd, &err), 0,
			     "%s", err.message);
		cr_expect(pev_perfdata_pipe_mode(pd));
		cr_assert_eq(pev_perfdata_next(pd, &r, &err), 1, "%s", err.message);
		cr_expect_eq(r.type, PEV_RECORD_ID_INDEX);
		cr_expect_eq(r.size, 16);
		cr_expect_eq(pev_perfdata_next(pd, &r, &err), 0, "%s", err.message);
		cr_expect_eq(pev_perfdata_id_index(pd, 0, &e), PEV_ENOTFOUND);
		cr_expect_eq(pev_perfdata_nr_notes(pd), 0);
		pev_perfdata_close(pd);
		free(copy);
	}
}

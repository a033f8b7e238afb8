/* SPDX-License-Identifier: MIT */
/*
 * test_report_otlp.c - OpenTelemetry profiles output
 * (pev_profile_write_otlp, report --format otlp), decoded by a real
 * protobuf decoder: scripts/otlp_check.py compiles perfev's .proto files
 * with protoc, decodes with Debian's python3-protobuf, checks the rules
 * of the OTLP profiles signal and prints what it found as JSON, which the
 * tests compare with what they put in: hand-made profiles (inline frames,
 * kernel frames, build ids, an off-CPU event, with and without timeline),
 * a live recording of xz and a file perf 6.1 recorded.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "perfev/report.h"
#include "report/report_otlp.h"

/* ---- the checker ---------------------------------------------------------------- */

/* Skips unless protoc and python3-protobuf are there. */
static void need_checker(void)
{
	if (!th_have_program("protoc"))
		th_skip("protoc is not installed (Debian: protobuf-compiler, "
			"scripts/install-deps.sh)");
	if (th_sh("/usr/bin/python3 -c 'import google.protobuf'", NULL, NULL) != 0)
		th_skip("python3-protobuf is not installed (scripts/install-deps.sh)");
}

/* Runs scripts/otlp_check.py on path, which must pass; its summary (json_object_put it). */
static json_object *checked(const char *path, bool samples)
{
	char cmd[8192], *out = NULL, *err = NULL;
	const char *root = getenv("PERFEV_SOURCE_ROOT");

	need_checker();
	cr_assert(root, "PERFEV_SOURCE_ROOT is not set");
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/scripts/otlp_check.py' %s '%s'", root,
		 samples ? "--samples" : "", path);
	int status = th_sh(cmd, &out, &err);
	cr_assert_eq(status, 0, "otlp_check.py fails %s (status %d):\n%s", path, status, err);
	json_object *o = th_json_parse(out);
	free(out);
	free(err);
	return o;
}

static json_object *get(json_object *o, const char *key)
{
	return th_json_get(o, key);
}

static size_t len(json_object *a)
{
	return json_object_array_length(a);
}

static json_object *at(json_object *a, size_t i)
{
	cr_assert(i < len(a), "no element %zu", i);
	return json_object_array_get_idx(a, i);
}

static int64_t num(json_object *o, const char *key)
{
	return json_object_get_int64(get(o, key));
}

/* The profile of sample type `type`. */
static json_object *profile_of(json_object *sum, const char *type)
{
	json_object *ps = get(sum, "profiles");

	for (size_t i = 0; i < len(ps); i++)
		if (strcmp(th_json_get_str(at(ps, i), "type"), type) == 0)
			return at(ps, i);
	cr_assert_fail("no profile of type %s in %s", type, json_object_to_json_string(ps));
	return NULL;
}

/* The summed value of a stack ("root;...;leaf") of a profile, 0 when absent. */
static int64_t stack_value(json_object *prof, const char *stack)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(get(prof, "stacks"), stack, &v))
		return 0;
	return json_object_get_int64(v);
}

/* The sample of prof with stack `stack` and thread id tid (--samples summaries). */
static json_object *sample_of(json_object *prof, const char *stack, int tid)
{
	json_object *list = get(prof, "sample_list");

	for (size_t i = 0; i < len(list); i++) {
		json_object *s = at(list, i), *t = NULL;
		if (strcmp(th_json_get_str(s, "stack"), stack) == 0 &&
		    json_object_object_get_ex(get(s, "attributes"), "thread.id", &t) &&
		    json_object_get_int(t) == tid)
			return s;
	}
	cr_assert_fail("no sample of stack %s in thread %d: %s", stack, tid,
		       json_object_to_json_string(list));
	return NULL;
}

static json_object *mapping_of(json_object *sum, const char *file)
{
	json_object *m = get(sum, "mappings");

	for (size_t i = 0; i < len(m); i++)
		if (strcmp(th_json_get_str(at(m, i), "filename"), file) == 0)
			return at(m, i);
	cr_assert_fail("no mapping of %s", file);
	return NULL;
}

/* ---- a profile made by hand --------------------------------------------------------- */

#define START 1700000000000000000ull
#define MS 1000000ull
#define BUILD_ID "0123456789abcdef0123456789abcdef01234567"

static void frame(struct pev_profile_frame *f, const char *sym, const char *dso, uint64_t addr,
		  uint32_t line, uint32_t flags)
{
	memset(f, 0, sizeof(*f));
	f->symbol = sym;
	f->dso = dso;
	f->address = addr;
	f->file = sym ? "w.c" : NULL;
	f->line = line;
	f->flags = flags;
}

static void add(struct pev_profile *p, unsigned event, int tid, const char *comm, uint64_t time,
		uint64_t period, const struct pev_profile_frame *frames, size_t n)
{
	struct pev_profile_sample s = PEV_PROFILE_SAMPLE_INIT;

	s.event = event;
	s.pid = 10;
	s.tid = tid;
	s.comm = comm;
	s.time = time;
	s.period = period;
	s.frames = frames;
	s.nr_frames = n;
	cr_assert_eq(pev_profile_add_sample(p, &s), 0);
}

/*
 * Process 10: thread 10 "main" runs work() (with helper() inlined) at 1
 * and 2 ms and an unresolved spot of libc at 5 ms, waits in nanosleep
 * (kernel: schedule) from 3 ms for 5 ms; thread 11 "worker" runs work()
 * at 4 ms. Page faults: 3 at 2.5 ms and 4 at 6 ms in work(), 2 in a
 * thread whose name is not UTF-8 at 7 ms.
 */
static struct pev_profile *hand_made(bool timeline)
{
	struct pev_profile *p;
	struct pev_profile_event on = PEV_PROFILE_EVENT_INIT, off = PEV_PROFILE_EVENT_INIT,
				 pf = PEV_PROFILE_EVENT_INIT;
	struct pev_profile_mapping m = PEV_PROFILE_MAPPING_INIT;
	struct pev_profile_frame work[3], wait[4], odd[2];
	static const unsigned char bid[20] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd,
					      0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
					      0xcd, 0xef, 0x01, 0x23, 0x45, 0x67};

	cr_assert_eq(pev_profile_new(&p), 0);
	if (timeline)
		cr_assert_eq(pev_profile_keep_timeline(p), 0);
	on.name = "cpu-clock";
	on.unit = PEV_PROFILE_UNIT_NANOSECONDS;
	on.period = MS;
	off.name = "offcpu-time";
	off.unit = PEV_PROFILE_UNIT_NANOSECONDS;
	off.flags = PEV_PROFILE_EVENT_OFFCPU;
	pf.name = "page-faults";
	cr_assert_eq(pev_profile_add_event(p, &on), 0);
	cr_assert_eq(pev_profile_add_event(p, &off), 1);
	cr_assert_eq(pev_profile_add_event(p, &pf), 2);
	m.dso = "/usr/bin/w";
	m.start = 0x1000;
	m.limit = 0x2000;
	m.build_id = bid;
	m.build_id_size = sizeof(bid);
	m.flags = PEV_PROFILE_MAPPING_MAIN;
	cr_assert_eq(pev_profile_add_mapping(p, &m), 0);

	frame(&work[0], "helper", "/usr/bin/w", 0x1010, 5, PEV_FRAME_INLINED);
	frame(&work[1], "work", "/usr/bin/w", 0x1010, 12, 0);
	frame(&work[2], "main", "/usr/bin/w", 0x1100, 30, 0);
	frame(&wait[0], "schedule", "[kernel.kallsyms]", 0xffffffff81000100ull, 0,
	      PEV_FRAME_KERNEL);
	frame(&wait[1], "do_nanosleep", "[kernel.kallsyms]", 0xffffffff81000200ull, 0,
	      PEV_FRAME_KERNEL);
	frame(&wait[2], "clock_nanosleep", "/lib/libc.so.6", 0x7f0000001000ull, 0, 0);
	frame(&wait[3], "main", "/usr/bin/w", 0x1120, 31, 0);
	frame(&odd[0], NULL, "/lib/libc.so.6", 0x7f0000002345ull, 0, PEV_FRAME_DSO_OFFSET);
	odd[0].dso_offset = 0x2345;
	frame(&odd[1], "main", "/usr/bin/w", 0x1100, 30, 0);

	add(p, 0, 10, "main", 1 * MS, MS, work, 3);
	add(p, 0, 10, "main", 2 * MS, MS, work, 3);
	add(p, 2, 10, "main", 2 * MS + MS / 2, 3, work, 3);
	add(p, 1, 10, "main", 3 * MS, 5 * MS, wait, 4);
	add(p, 0, 11, "worker", 4 * MS, MS, work, 3);
	add(p, 0, 10, "main", 5 * MS, MS, odd, 2);
	add(p, 2, 10, "main", 6 * MS, 4, work, 3);
	add(p, 2, 12, "bad\xff\xfe", 7 * MS, 2, work, 3);
	cr_assert_eq(pev_profile_set_time(p, START, 9 * MS), 0);
	return p;
}

/* Writes p to a new file in dir; returns its path (malloc'ed). */
static char *written(const struct pev_profile *p, const struct pev_report_opts *o, const char *dir,
		     const char *name)
{
	char *path = th_path_join(dir, name);
	struct pev_error err;
	FILE *f = fopen(path, "wb");

	cr_assert(f, "cannot create %s", path);
	int rc = pev_profile_write_otlp(p, f, o, &err);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(rc, 0, "pev_profile_write_otlp: %s", err.message);
	return path;
}

/* What both hand-made profiles hold whatever the timeline. */
static void expect_hand_made(json_object *sum)
{
	json_object *r = get(sum, "resource");

	cr_expect_str_eq(th_json_get_str(r, "host.name"), "testhost");
	cr_expect_str_eq(th_json_get_str(r, "service.name"), "main");
	cr_expect_str_eq(th_json_get_str(r, "process.executable.name"), "main");
	cr_expect_str_eq(th_json_get_str(r, "process.executable.path"), "/usr/bin/w");
	cr_expect_eq(num(r, "process.pid"), 10);
	cr_expect_str_eq(th_json_get_str(at(get(sum, "scopes"), 0), "name"), "perfev");
	cr_expect_str_eq(th_json_get_str(at(get(sum, "scopes"), 0), "version"), PEV_VERSION_STRING);
	cr_expect_eq(len(get(sum, "profiles")), 3);

	/* Mappings: the build id where one was given. */
	json_object *w = mapping_of(sum, "/usr/bin/w"), *libc = mapping_of(sum, "/lib/libc.so.6");
	cr_expect_str_eq(th_json_get_str(w, "build_id"), BUILD_ID);
	cr_expect_eq(num(w, "start"), 0x1000);
	cr_expect_eq(num(w, "limit"), 0x2000);
	cr_expect(json_object_is_type(get(libc, "build_id"), json_type_null));
	cr_expect(json_object_is_type(get(mapping_of(sum, "[kernel.kallsyms]"), "build_id"),
				      json_type_null));

	/* Frame types. */
	json_object *ft = get(sum, "frame_types");
	cr_expect_str_eq(th_json_get_str(ft, "schedule"), "kernel");
	cr_expect_str_eq(th_json_get_str(ft, "do_nanosleep"), "kernel");
	cr_expect_str_eq(th_json_get_str(ft, "clock_nanosleep"), "native");
	cr_expect_str_eq(th_json_get_str(ft, "work"), "native");
	cr_expect_str_eq(th_json_get_str(ft, "helper"), "native");
	cr_expect_str_eq(th_json_get_str(ft, "0x2345"), "native");

	/* cpu-clock: (cpu, nanoseconds); helper inlined into work, leaf last root first. */
	json_object *cpu = profile_of(sum, "cpu");
	cr_expect_str_eq(th_json_get_str(cpu, "unit"), "nanoseconds");
	cr_expect_str_eq(th_json_get_str(cpu, "period_type"), "cpu");
	cr_expect_eq(num(cpu, "period"), (int64_t)MS);
	cr_expect_str_eq(th_json_get_str(get(cpu, "attributes"), "perfev.event"), "cpu-clock");
	cr_expect_eq(num(cpu, "total"), 4 * (int64_t)MS);
	cr_expect_eq(stack_value(cpu, "main;work;helper"), 3 * (int64_t)MS);
	cr_expect_eq(stack_value(cpu, "main;0x2345"), (int64_t)MS);
	cr_expect_eq(num(cpu, "samples"), 3, "threads 10 and 11 in work, 10 in libc");
	cr_expect_eq(num(cpu, "time"), (int64_t)START);
	cr_expect_geq(num(cpu, "duration"), 9 * (int64_t)MS);

	/* Off-CPU: (off_cpu, nanoseconds), sampled at each context switch. */
	json_object *off = profile_of(sum, "off_cpu");
	cr_expect_str_eq(th_json_get_str(off, "unit"), "nanoseconds");
	cr_expect_str_eq(th_json_get_str(off, "period_type"), "context_switch");
	cr_expect_str_eq(th_json_get_str(off, "period_unit"), "count");
	cr_expect_eq(num(off, "total"), 5 * (int64_t)MS);
	cr_expect_eq(stack_value(off, "main;clock_nanosleep;do_nanosleep;schedule"),
		     5 * (int64_t)MS);

	/* A count: (its name, count). */
	json_object *pf = profile_of(sum, "page-faults");
	cr_expect_str_eq(th_json_get_str(pf, "unit"), "count");
	cr_expect_eq(num(pf, "total"), 9);
	cr_expect_eq(stack_value(pf, "main;work;helper"), 9);
}

Test(report_otlp, a_hand_made_profile_with_its_timeline)
{
	struct pev_profile *p = hand_made(true);
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	const char *dir = th_temp_dir("otlp-hand");

	o.host = "testhost";
	char *path = written(p, &o, dir, "t.pb");
	json_object *sum = checked(path, true);
	expect_hand_made(sum);

	/* Each observation with its time: the start is the first sample's (1 ms). */
	json_object *cpu = profile_of(sum, "cpu");
	cr_expect(json_object_get_boolean(get(cpu, "timed")));
	cr_expect_eq(num(cpu, "observations"), 4);
	json_object *s = sample_of(cpu, "main;work;helper", 10);
	json_object *ts = get(s, "timestamps"), *vs = get(s, "values");
	cr_assert_eq(len(ts), 2);
	cr_assert_eq(len(vs), 2);
	cr_expect_eq(json_object_get_int64(at(ts, 0)), (int64_t)START);
	cr_expect_eq(json_object_get_int64(at(ts, 1)), (int64_t)(START + MS));
	cr_expect_eq(json_object_get_int64(at(vs, 0)), (int64_t)MS);
	json_object *a = get(s, "attributes");
	cr_expect_str_eq(th_json_get_str(a, "thread.name"), "main");
	cr_expect_eq(num(a, "thread.id"), 10);
	cr_expect_eq(num(a, "process.pid"), 10);
	s = sample_of(cpu, "main;work;helper", 11);
	cr_expect_str_eq(th_json_get_str(get(s, "attributes"), "thread.name"), "worker");
	cr_expect_eq(json_object_get_int64(at(get(s, "timestamps"), 0)), (int64_t)(START + 3 * MS));
	s = sample_of(profile_of(sum, "off_cpu"), "main;clock_nanosleep;do_nanosleep;schedule", 10);
	cr_expect_eq(json_object_get_int64(at(get(s, "timestamps"), 0)), (int64_t)(START + 2 * MS));
	cr_expect_eq(json_object_get_int64(at(get(s, "values"), 0)), 5 * (int64_t)MS);
	/* A name that is not UTF-8 arrives as valid UTF-8 (U+FFFD for each bad byte). */
	s = sample_of(profile_of(sum, "page-faults"), "main;work;helper", 12);
	cr_expect_str_eq(th_json_get_str(get(s, "attributes"), "thread.name"),
			 "bad\xef\xbf\xbd\xef\xbf\xbd");
	json_object_put(sum);
	free(path);
	pev_profile_free(p);
}

Test(report_otlp, a_hand_made_profile_without_timeline)
{
	struct pev_profile *p = hand_made(false);
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	const char *dir = th_temp_dir("otlp-plain");

	o.host = "testhost";
	char *path = written(p, &o, dir, "p.pb");
	json_object *sum = checked(path, true);
	expect_hand_made(sum);

	/* One summed value per sample, no timestamps. */
	json_object *cpu = profile_of(sum, "cpu");
	cr_expect(!json_object_get_boolean(get(cpu, "timed")));
	cr_expect_eq(num(cpu, "observations"), 3);
	json_object *s = sample_of(cpu, "main;work;helper", 10);
	cr_expect_eq(len(get(s, "timestamps")), 0);
	cr_assert_eq(len(get(s, "values")), 1);
	cr_expect_eq(json_object_get_int64(at(get(s, "values"), 0)), 2 * (int64_t)MS);
	json_object_put(sum);
	free(path);
	pev_profile_free(p);
}

Test(report_otlp, options_event_no_inline_labels_host)
{
	struct pev_profile *p = hand_made(true);
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	const char *dir = th_temp_dir("otlp-opts");
	char host[256];

	/* One event. */
	o.event = "offcpu-time";
	char *path = written(p, &o, dir, "e.pb");
	json_object *sum = checked(path, false);
	cr_expect_eq(len(get(sum, "profiles")), 1);
	cr_expect_str_eq(th_json_get_str(at(get(sum, "profiles"), 0), "type"), "off_cpu");
	/* No host given: this machine's name. */
	cr_assert_eq(gethostname(host, sizeof(host)), 0);
	host[sizeof(host) - 1] = '\0';
	cr_expect_str_eq(th_json_get_str(get(sum, "resource"), "host.name"), host);
	json_object_put(sum);
	free(path);

	/* Inline frames left out: helper is nowhere. */
	o.event = "cpu-clock";
	o.flags = PEV_REPORT_NO_INLINE;
	o.host = "";
	path = written(p, &o, dir, "n.pb");
	sum = checked(path, false);
	json_object *cpu = profile_of(sum, "cpu"), *v;
	cr_expect_eq(stack_value(cpu, "main;work"), 3 * (int64_t)MS);
	cr_expect_eq(stack_value(cpu, "main;work;helper"), 0);
	cr_expect(!json_object_object_get_ex(get(sum, "frame_types"), "helper", &v));
	cr_expect(!json_object_object_get_ex(get(sum, "resource"), "host.name", &v),
		  "host \"\": no host.name");
	json_object_put(sum);
	free(path);

	/* No attributes: the threads' samples of one stack merge. */
	o.flags = 0;
	o.labels = PEV_REPORT_LABEL_NONE;
	path = written(p, &o, dir, "l.pb");
	sum = checked(path, true);
	cpu = profile_of(sum, "cpu");
	cr_expect_eq(num(cpu, "samples"), 2);
	json_object *list = get(cpu, "sample_list");
	for (size_t i = 0; i < len(list); i++)
		cr_expect_eq(json_object_object_length(get(at(list, i), "attributes")), 0);
	json_object_put(sum);
	free(path);

	/* Only the thread id. */
	o.labels = PEV_REPORT_LABEL_TID;
	path = written(p, &o, dir, "t.pb");
	sum = checked(path, true);
	cpu = profile_of(sum, "cpu");
	cr_expect_eq(num(cpu, "samples"), 3);
	list = get(cpu, "sample_list");
	for (size_t i = 0; i < len(list); i++) {
		json_object *a = get(at(list, i), "attributes");
		cr_expect_eq(json_object_object_length(a), 1);
		cr_expect(json_object_object_get_ex(a, "thread.id", &v));
	}
	json_object_put(sum);
	free(path);
	pev_profile_free(p);
}

Test(report_otlp, memstream_gzip_and_the_bytes_in_memory)
{
	struct pev_profile *p = hand_made(true);
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	struct pev_error err;
	char *plain = NULL, *gz = NULL;
	size_t nplain = 0, ngz = 0, n = 0;
	uint8_t *bytes = NULL;
	FILE *f;

	o.host = "h";
	f = open_memstream(&plain, &nplain);
	cr_assert_eq(pev_profile_write_otlp(p, f, &o, &err), 0, "%s", err.message);
	cr_assert_eq(fclose(f), 0);
	cr_assert_gt(nplain, 100);

	/* pev__otlp_encode gives the same bytes. */
	cr_assert_eq(pev__otlp_encode(p, &o, &bytes, &n, &err), 0, "%s", err.message);
	cr_expect_eq(n, nplain);
	cr_expect(n == nplain && memcmp(bytes, plain, n) == 0, "pev__otlp_encode differs");
	free(bytes);

	/* Compressed: the same once inflated. */
	o.flags = PEV_REPORT_GZIP;
	f = open_memstream(&gz, &ngz);
	cr_assert_eq(pev_profile_write_otlp(p, f, &o, &err), 0, "%s", err.message);
	cr_assert_eq(fclose(f), 0);
	cr_assert(ngz > 2 && (unsigned char)gz[0] == 0x1f && (unsigned char)gz[1] == 0x8b);
	size_t ninf = 0;
	unsigned char *inf = th_gunzip(gz, ngz, &ninf);
	cr_expect(ninf == nplain && memcmp(inf, plain, ninf) == 0, "inflated bytes differ");
	/* and the checker reads the compressed file as well */
	char *path = th_path_join(th_temp_dir("otlp-gz"), "p.pb.gz");
	FILE *w = fopen(path, "wb");
	cr_assert(w && fwrite(gz, 1, ngz, w) == ngz && fclose(w) == 0);
	json_object_put(checked(path, false));
	free(path);
	free(inf);
	free(gz);
	free(plain);

	/* The same profile twice: the same bytes (nothing depends on addresses or time). */
	uint8_t *again = NULL;
	size_t na = 0;
	o.flags = 0;
	cr_assert_eq(pev__otlp_encode(p, &o, &bytes, &n, &err), 0);
	cr_assert_eq(pev__otlp_encode(p, &o, &again, &na, &err), 0);
	cr_expect(n == na && memcmp(bytes, again, n) == 0);
	free(bytes);
	free(again);
	pev_profile_free(p);
}

Test(report_otlp, bad_arguments)
{
	struct pev_profile *p = hand_made(false);
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	struct pev_error err;
	uint8_t *buf = (uint8_t *)"x";
	size_t n = 1;

	cr_expect_eq(pev_profile_write_otlp(NULL, stdout, NULL, &err), PEV_EBADARG);
	cr_expect_eq(pev_profile_write_otlp(p, NULL, NULL, &err), PEV_EBADARG);
	o.event = "cycles";
	cr_expect_eq(pev_profile_write_otlp(p, stdout, &o, &err), PEV_ENOTFOUND);
	expect_has(err.message, "no event 'cycles'");
	cr_expect_eq(pev__otlp_encode(p, &o, &buf, &n, &err), PEV_ENOTFOUND);
	cr_expect(buf == NULL && n == 0);
	cr_expect_eq(pev__otlp_encode(NULL, NULL, &buf, &n, &err), PEV_EBADARG);

	/* An empty profile: a request with no profile, still valid. */
	struct pev_profile *e;
	cr_assert_eq(pev_profile_new(&e), 0);
	char *path = written(e, NULL, th_temp_dir("otlp-empty"), "e.pb");
	json_object *sum = checked(path, false);
	cr_expect_eq(len(get(sum, "profiles")), 0);
	cr_expect_str_eq(th_json_get_str(get(sum, "resource"), "service.name"), "perfev");
	json_object_put(sum);
	free(path);
	pev_profile_free(e);
	pev_profile_free(p);
}

/* ---- recordings ----------------------------------------------------------------------- */

/* perfev report's JSON totals of event: samples and period. */
static void json_totals(const char *data, const char *event, int64_t *samples, int64_t *period)
{
	struct th_output r = th_perfev("report", "-i", data, "--format", "json", "-q");

	cr_assert_eq(r.status, 0, "report --format json: %s", r.err);
	json_object *j = th_json_parse(r.out), *evs = get(j, "events");
	*samples = *period = -1;
	for (size_t i = 0; i < len(evs); i++)
		if (strcmp(th_json_get_str(at(evs, i), "name"), event) == 0) {
			*samples = num(at(evs, i), "samples");
			*period = num(at(evs, i), "period");
		}
	cr_assert_geq(*samples, 0, "no event %s in %s", event, r.out);
	json_object_put(j);
	th_output_free(&r);
}

/*
 * Writes data as OTLP (report --format otlp -o), checks it, and compares
 * its cpu-clock totals with report's: the sum of the values is the event's
 * period, the observations its samples. Returns the summary.
 */
static json_object *otlp_of_recording(const char *dir, const char *data)
{
	char *out = th_path_join(dir, "rec.otlp.pb");
	struct th_output r = th_perfev("report", "-i", data, "--format", "otlp", "-o", out);
	int64_t samples, period;

	cr_assert_eq(r.status, 0, "report --format otlp: %s", r.err);
	th_output_free(&r);
	json_object *sum = checked(out, false);
	json_totals(data, "cpu-clock", &samples, &period);
	cr_assert_eq(len(get(sum, "profiles")), 1);
	json_object *cpu = profile_of(sum, "cpu");
	cr_expect_eq(num(cpu, "total"), period, "OTLP's values add up to %" PRId64 ", report's "
		     "period is %" PRId64, num(cpu, "total"), period);
	cr_expect(json_object_get_boolean(get(cpu, "timed")), "a recording's samples have times");
	cr_expect_eq(num(cpu, "observations"), samples);
	cr_expect_geq(samples, 20, "%" PRId64 " samples", samples);
	/* One process: xz, the program recorded. */
	json_object *res = get(sum, "resource");
	cr_expect_str_eq(th_json_get_str(res, "service.name"), "xz");
	cr_expect_str_eq(th_json_get_str(res, "process.executable.name"), "xz");
	expect_has(th_json_get_str(res, "process.executable.path"), "xz");
	/* liblzma's code is where xz spends its time, with its build id. */
	json_object *maps = get(sum, "mappings");
	bool lzma = false;
	for (size_t i = 0; i < len(maps); i++) {
		json_object *b = get(at(maps, i), "build_id");
		if (strstr(th_json_get_str(at(maps, i), "filename"), "liblzma") &&
		    json_object_is_type(b, json_type_string) &&
		    strlen(json_object_get_string(b)) == 40)
			lzma = true;
	}
	cr_expect(lzma, "no liblzma mapping with a build id: %s", json_object_to_json_string(maps));
	free(out);
	return sum;
}

/* A few MB of random bytes to compress (xz works hard on them). */
static char *random_input(const char *dir)
{
	char *in = th_path_join(dir, "in.bin");

	free(th_sh_okf("head -c 3000000 /dev/urandom > '%s'", in));
	return in;
}

Test(report_otlp, a_live_recording_of_xz)
{
	need_checker();
	if (!th_have_program("xz"))
		th_skip("xz is not installed");
	const char *dir = th_temp_dir("otlp-live");
	char *in = random_input(dir), *data = th_path_join(dir, "perf.data");

	free(th_sh_okf("'%s' record -q -e cpu-clock -g -o '%s' -- xz -6 -T1 -c '%s' > /dev/null",
		       th_perfev_bin(), data, in));
	json_object *sum = otlp_of_recording(dir, data);
	/* The recording's host. */
	char host[256];
	cr_assert_eq(gethostname(host, sizeof(host)), 0);
	host[sizeof(host) - 1] = '\0';
	cr_expect_str_eq(th_json_get_str(get(sum, "resource"), "host.name"), host);
	json_object_put(sum);

	/* -o NAME.gz: compressed, the checker reads it the same. */
	char *gz = th_path_join(dir, "rec.otlp.pb.gz");
	struct th_output r = th_perfev("report", "-i", data, "--format", "otlp", "-o", gz);
	cr_assert_eq(r.status, 0, "%s", r.err);
	size_t n = 0;
	char *bytes = th_slurp(gz, &n);
	cr_expect(n > 2 && (unsigned char)bytes[0] == 0x1f && (unsigned char)bytes[1] == 0x8b);
	json_object_put(checked(gz, false));
	free(bytes);
	th_output_free(&r);
	free(gz);
	free(in);
	free(data);
}

Test(report_otlp, a_file_perf_recorded)
{
	need_checker();
	th_need_perf();
	if (!th_have_program("xz"))
		th_skip("xz is not installed");
	const char *dir = th_temp_dir("otlp-perf");
	char *in = random_input(dir), *data = th_path_join(dir, "perf.data");

	free(th_sh_okf("perf record -q -e cpu-clock -g -o '%s' -- xz -6 -T1 -c '%s' > /dev/null "
		       "2>&1",
		       data, in));
	json_object *sum = otlp_of_recording(dir, data);
	/* perf's HOSTNAME header is the resource's host.name. */
	char *uname = th_sh_ok("uname -n");
	uname[strcspn(uname, "\n")] = '\0';
	cr_expect_str_eq(th_json_get_str(get(sum, "resource"), "host.name"), uname);
	free(uname);
	json_object_put(sum);
	free(in);
	free(data);
}

Test(report_otlp, refuses_a_terminal)
{
	/* Binary output to a terminal is refused with a hint (script gives a pty). */
	if (!th_have_program("script"))
		th_skip("script (util-linux) is not installed");
	const char *dir = th_temp_dir("otlp-tty");
	char *data = th_path_join(dir, "perf.data");
	free(th_sh_okf("'%s' record -q -e cpu-clock -o '%s' -- true", th_perfev_bin(), data));
	char *out = NULL, *err = NULL, cmd[8192];
	snprintf(cmd, sizeof(cmd), "script -qec \"'%s' report -i '%s' --format otlp\" /dev/null",
		 th_perfev_bin(), data);
	int status = th_sh(cmd, &out, &err);
	cr_expect_neq(status, 0);
	expect_has(out, "OTLP output is binary; name a file with -o");
	free(out);
	free(err);
	free(data);
}

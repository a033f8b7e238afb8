/* SPDX-License-Identifier: MIT */
/*
 * test_report_browser.c - the formats people open in a browser: the
 * Firefox Profiler's Gecko format and speedscope's, from profiles built
 * by hand (their rules: tables, stacks, times, CPU deltas, markers) and
 * from real recordings, against perf 7.2's Gecko exporter, and opened in
 * speedscope itself under headless Chromium.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "perfev/report.h"

/* ---- JSON ---------------------------------------------------------------------- */

/* Parses text as strict JSON in UTF-8; the test fails when it is not. */
static json_object *parse(const char *text, const char *what)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, text, (int)strlen(text));
	cr_assert(o, "%s is not JSON: %s (at byte %zu of %zu)", what,
		  json_tokener_error_desc(json_tokener_get_error(tok)), json_tokener_get_parse_end(tok),
		  strlen(text));
	json_tokener_free(tok);
	return o;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	cr_assert(json_object_object_get_ex(o, key, &v), "no \"%s\" in %s", key,
		  json_object_to_json_string(o));
	return v;
}

static json_object *at(json_object *a, size_t i)
{
	cr_assert(json_object_is_type(a, json_type_array) && i < json_object_array_length(a),
		  "no element %zu", i);
	return json_object_array_get_idx(a, i);
}

static size_t len(json_object *a)
{
	return json_object_array_length(a);
}

/*
 * Checks the speedscope file at path against the schema the speedscope
 * package ships (file-format-schema.json), with Debian's python3-jsonschema.
 */
static void expect_speedscope_schema(const char *path)
{
	const char *app = getenv("PERFEV_SPEEDSCOPE") ? getenv("PERFEV_SPEEDSCOPE")
						      : "/var/cache/perfev/speedscope-1.25.0";
	char schema[4096], *out = NULL, *err = NULL, cmd[16384];

	snprintf(schema, sizeof(schema), "%s/dist/release/file-format-schema.json", app);
	if (access(schema, R_OK) != 0)
		th_skip("no speedscope schema at %s (scripts/fetch_speedscope.sh installs it)", schema);
	if (th_sh("/usr/bin/python3 -c 'import jsonschema'", NULL, NULL) != 0)
		th_skip("python3-jsonschema is not installed (scripts/install-deps.sh)");
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 -c 'import json, sys, jsonschema; "
		 "jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' "
		 "'%s' '%s'",
		 path, schema);
	int status = th_sh(cmd, &out, &err);
	cr_expect_eq(status, 0, "%s does not follow speedscope's schema: %s", path, err);
	free(out);
	free(err);
}

/* ---- a profile made by hand -------------------------------------------------------- */

static char *written(const struct pev_profile *p, const char *event, unsigned flags, bool gecko)
{
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	struct pev_error err;
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	int rc;

	o.event = event;
	o.flags = flags;
	rc = gecko ? pev_profile_write_gecko(p, f, &o, &err)
		   : pev_profile_write_speedscope(p, f, &o, &err);
	fclose(f);
	cr_assert_eq(rc, 0, "writing: %s", err.message);
	return buf;
}

static void frame(struct pev_profile_frame *f, const char *sym, const char *dso, uint64_t addr,
		  uint32_t flags)
{
	memset(f, 0, sizeof(*f));
	f->symbol = sym;
	f->dso = dso;
	f->address = addr;
	f->flags = flags;
}

/*
 * Thread 10 ("main") works in work() at 1 and 2 ms, then waits in
 * nanosleep (kernel schedule) from 3 ms for 5 ms; thread 11 ("worker"),
 * started at 1.5 ms, ends at 9 ms, works once at 4 ms. Its process ran
 * exec at 0.5 ms; 7 records were lost at 6 ms.
 */
static struct pev_profile *hand_made(void)
{
	struct pev_profile *p;
	struct pev_profile_event on = PEV_PROFILE_EVENT_INIT, off = PEV_PROFILE_EVENT_INIT;
	struct pev_profile_frame work[2], wait[3], odd[2];
	struct pev_profile_sample s = PEV_PROFILE_SAMPLE_INIT;
	struct pev_profile_marker m = PEV_PROFILE_MARKER_INIT;

	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(pev_profile_keep_timeline(p), 0);
	on.name = "cpu-clock";
	on.unit = PEV_PROFILE_UNIT_NANOSECONDS;
	on.period = 1000000;
	off.name = "offcpu-time";
	off.unit = PEV_PROFILE_UNIT_NANOSECONDS;
	off.flags = PEV_PROFILE_EVENT_OFFCPU;
	cr_assert_eq(pev_profile_add_event(p, &on), 0);
	cr_assert_eq(pev_profile_add_event(p, &off), 1);
	frame(&work[0], "work", "/usr/bin/w", 0x1010, 0);
	frame(&work[1], "main", "/usr/bin/w", 0x1100, 0);
	frame(&wait[0], "schedule", "[kernel.kallsyms]", 0xffffffff81000000ull, PEV_FRAME_KERNEL);
	frame(&wait[1], "nanosleep", "/usr/lib/libc.so.6", 0x7f0000001000ull, 0);
	frame(&wait[2], "main", "/usr/bin/w", 0x1104, 0);
	/* A hostile name: a quote, a backslash, a control byte and bytes that are not UTF-8. */
	frame(&odd[0], "we\"ird\\\x01\xff\xfe", NULL, 0x2000, 0);
	frame(&odd[1], "main", "/usr/bin/w", 0x1100, 0);

	s.comm = "main";
	s.pid = s.tid = 10;
	s.period = 1000000;
	s.frames = work;
	s.nr_frames = 2;
	s.time = 1000000;
	cr_assert_eq(pev_profile_add_sample(p, &s), 0);
	s.time = 2000000;
	cr_assert_eq(pev_profile_add_sample(p, &s), 0);
	s.event = 1;
	s.time = 3000000;
	s.period = 5000000;
	s.frames = wait;
	s.nr_frames = 3;
	cr_assert_eq(pev_profile_add_sample(p, &s), 0);
	s.event = 0;
	s.comm = "worker";
	s.tid = 11;
	s.time = 4000000;
	s.period = 1000000;
	s.frames = odd;
	s.nr_frames = 2;
	cr_assert_eq(pev_profile_add_sample(p, &s), 0);

	m.kind = PEV_PROFILE_MARKER_EXEC;
	m.pid = m.tid = 10;
	m.start = 500000;
	m.text = "w";
	cr_assert_eq(pev_profile_add_marker(p, &m), 0);
	m = (struct pev_profile_marker)PEV_PROFILE_MARKER_INIT;
	m.kind = PEV_PROFILE_MARKER_THREAD_START;
	m.pid = 10;
	m.tid = 11;
	m.start = 1500000;
	m.value = 10;
	cr_assert_eq(pev_profile_add_marker(p, &m), 0);
	m.kind = PEV_PROFILE_MARKER_THREAD_END;
	m.start = 9000000;
	m.value = 0;
	cr_assert_eq(pev_profile_add_marker(p, &m), 0);
	m = (struct pev_profile_marker)PEV_PROFILE_MARKER_INIT;
	m.kind = PEV_PROFILE_MARKER_LOST;
	m.start = 6000000;
	m.value = 7;
	cr_assert_eq(pev_profile_add_marker(p, &m), 0);
	return p;
}

/* The frame names of a Gecko stack, leaf first, joined by ';'. */
static void gecko_stack(json_object *thread, int64_t stack, char *buf, size_t size)
{
	json_object *stacks = get(get(thread, "stackTable"), "data");
	json_object *frames = get(get(thread, "frameTable"), "data");
	json_object *strings = get(thread, "stringTable");
	size_t used = 0;

	buf[0] = '\0';
	for (int depth = 0; stack >= 0 && depth < 64; depth++) {
		json_object *node = at(stacks, (size_t)stack);
		json_object *f = at(frames, (size_t)json_object_get_int64(at(node, 1)));
		const char *name = json_object_get_string(
			at(strings, (size_t)json_object_get_int64(at(f, 0))));

		used += (size_t)snprintf(buf + used, used < size ? size - used : 0, "%s%s",
					 depth ? ";" : "", name);
		json_object *prefix = at(node, 0);
		stack = json_object_is_type(prefix, json_type_null) ? -1
								   : json_object_get_int64(prefix);
	}
}

/* The category of a stack's leaf frame. */
static int64_t gecko_leaf_category(json_object *thread, int64_t stack)
{
	json_object *node = at(get(get(thread, "stackTable"), "data"), (size_t)stack);
	json_object *f =
		at(get(get(thread, "frameTable"), "data"), (size_t)json_object_get_int64(at(node, 1)));

	return json_object_get_int64(at(f, 6));
}

/* The markers of a thread named name: how many, and the first's tuple. */
static json_object *gecko_marker(json_object *thread, const char *name, size_t *count)
{
	json_object *data = get(get(thread, "markers"), "data"), *first = NULL;
	json_object *strings = get(thread, "stringTable");

	*count = 0;
	for (size_t i = 0; i < len(data); i++) {
		json_object *m = at(data, i);
		const char *n = json_object_get_string(
			at(strings, (size_t)json_object_get_int64(at(m, 0))));
		if (strcmp(n, name) == 0 && (*count)++ == 0)
			first = m;
	}
	return first;
}

/*
 * The format's rules, as the Firefox Profiler reads them
 * (docs-developer/gecko-profile-format.md, src/types/gecko-profile.ts): each
 * table's schema names its columns; a stack's prefix comes before it; every
 * index points into its table; a thread's samples are in time order; a
 * marker's category is one of meta.categories and its payload's type one of
 * meta.markerSchema; an interval marker ends no earlier than it starts.
 */
static void expect_gecko_rules(json_object *g)
{
	json_object *meta = get(g, "meta"), *threads = get(g, "threads");
	size_t categories = len(get(meta, "categories"));
	json_object *schemas = get(meta, "markerSchema");

	cr_expect_eq(json_object_get_int(get(meta, "version")), 24);
	cr_expect(json_object_is_type(get(g, "libs"), json_type_array));
	cr_expect(json_object_is_type(get(g, "processes"), json_type_array));
	for (size_t t = 0; t < len(threads); t++) {
		json_object *th = at(threads, t);
		json_object *strings = get(th, "stringTable");
		json_object *frames = get(get(th, "frameTable"), "data");
		json_object *stacks = get(get(th, "stackTable"), "data");
		json_object *samples = get(get(th, "samples"), "data");
		json_object *markers = get(get(th, "markers"), "data");

		cr_expect_eq(json_object_get_int(get(get(get(th, "frameTable"), "schema"),
						     "category")), 6);
		cr_expect_eq(json_object_get_int(get(get(get(th, "samples"), "schema"),
						     "threadCPUDelta")), 3);
		for (size_t i = 0; i < len(frames); i++) {
			json_object *f = at(frames, i);
			cr_expect_lt((size_t)json_object_get_int64(at(f, 0)), len(strings));
			cr_expect_lt((size_t)json_object_get_int64(at(f, 6)), categories);
		}
		for (size_t i = 0; i < len(stacks); i++) {
			json_object *prefix = at(at(stacks, i), 0);
			if (!json_object_is_type(prefix, json_type_null))
				cr_expect_lt((size_t)json_object_get_int64(prefix), i,
					     "stack %zu's prefix comes after it", i);
			cr_expect_lt((size_t)json_object_get_int64(at(at(stacks, i), 1)), len(frames));
		}
		double last = -1;
		for (size_t i = 0; i < len(samples); i++) {
			json_object *smp = at(samples, i);
			if (!json_object_is_type(at(smp, 0), json_type_null))
				cr_expect_lt((size_t)json_object_get_int64(at(smp, 0)), len(stacks));
			double time = json_object_get_double(at(smp, 1));
			cr_expect_geq(time, last, "thread %zu's sample %zu goes back in time", t, i);
			last = time;
		}
		for (size_t i = 0; i < len(markers); i++) {
			json_object *m = at(markers, i), *data = at(m, 5);
			cr_expect_lt((size_t)json_object_get_int64(at(m, 0)), len(strings));
			cr_expect_lt((size_t)json_object_get_int64(at(m, 4)), categories);
			if (json_object_get_int(at(m, 3)) == 1)
				cr_expect_geq(json_object_get_double(at(m, 2)),
					      json_object_get_double(at(m, 1)));
			const char *type = json_object_get_string(get(data, "type"));
			bool known = false;
			for (size_t k = 0; k < len(schemas); k++)
				known |= strcmp(json_object_get_string(get(at(schemas, k), "name")),
						type) == 0;
			cr_expect(known, "marker type %s has no schema", type);
		}
	}
}

Test(report_browser, gecko_of_a_profile_made_by_hand)
{
	struct pev_profile *p = hand_made();
	char *text = written(p, NULL, 0, true), names[1024];
	json_object *g = parse(text, "the Gecko profile");
	json_object *meta = get(g, "meta"), *threads = get(g, "threads");
	size_t n;

	expect_gecko_rules(g);
	cr_expect_eq(json_object_get_int(get(meta, "version")), 24);
	cr_expect(json_object_get_boolean(get(meta, "presymbolicated")));
	cr_expect_str_eq(json_object_get_string(get(at(get(meta, "categories"), 1), "name")),
			 "Kernel");
	cr_expect_str_eq(json_object_get_string(get(get(meta, "sampleUnits"), "threadCPUDelta")),
			 "ns");
	cr_expect(fabs(json_object_get_double(get(meta, "interval")) - 1.0) < 1e-9,
		  "the interval is cpu-clock's period, 1 ms: %s",
		  json_object_to_json_string(get(meta, "interval")));
	cr_assert_eq(len(threads), 2);

	json_object *main_t = at(threads, 0), *worker = at(threads, 1);
	cr_expect_str_eq(json_object_get_string(get(main_t, "name")), "main");
	cr_expect_eq(json_object_get_int(get(main_t, "tid")), 10);
	cr_expect_eq(json_object_get_int(get(worker, "tid")), 11);
	cr_expect_eq(json_object_get_int(get(worker, "pid")), 10);
	cr_expect_str_eq(json_object_get_string(get(worker, "processName")), "main");

	/* Samples: times in ms since the earliest thing (the exec at 0.5 ms). */
	json_object *samples = get(get(main_t, "samples"), "data");
	cr_assert_eq(len(samples), 3);
	cr_expect(fabs(json_object_get_double(at(at(samples, 0), 1)) - 0.5) < 1e-9);
	cr_expect(fabs(json_object_get_double(at(at(samples, 2), 1)) - 2.5) < 1e-9);
	gecko_stack(main_t, json_object_get_int64(at(at(samples, 0), 0)), names, sizeof(names));
	cr_expect_str_eq(names, "work (in w);main (in w)");
	gecko_stack(main_t, json_object_get_int64(at(at(samples, 2), 0)), names, sizeof(names));
	cr_expect_str_eq(names,
			 "schedule (in [kernel.kallsyms]);nanosleep (in libc.so.6);main (in w)");
	cr_expect_eq(gecko_leaf_category(main_t, json_object_get_int64(at(at(samples, 2), 0))), 1,
		     "a kernel frame is in the category Kernel");
	cr_expect_eq(gecko_leaf_category(main_t, json_object_get_int64(at(at(samples, 0), 0))), 0);
	/* CPU deltas: the period, then the time since the sample before. */
	cr_expect_eq(json_object_get_int64(at(at(samples, 0), 3)), 1000000);
	cr_expect_eq(json_object_get_int64(at(at(samples, 1), 3)), 1000000);
	cr_expect_eq(json_object_get_int64(at(at(samples, 2), 3)), 1000000);

	/* The wait: an Off-CPU interval holding the sample's stack. */
	json_object *m = gecko_marker(main_t, "Off-CPU", &n);
	cr_assert_eq(n, 1);
	cr_expect(fabs(json_object_get_double(at(m, 1)) - 2.5) < 1e-9);
	cr_expect(fabs(json_object_get_double(at(m, 2)) - 7.5) < 1e-9);
	cr_expect_eq(json_object_get_int(at(m, 3)), 1, "an interval");
	json_object *cause = get(get(get(at(m, 5), "stack"), "samples"), "data");
	cr_expect_eq(json_object_get_int64(at(at(cause, 0), 0)),
		     json_object_get_int64(at(at(samples, 2), 0)));
	m = gecko_marker(main_t, "Exec", &n);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(json_object_get_string(get(at(m, 5), "name")), "w");
	cr_expect_eq(json_object_get_int(at(m, 3)), 0, "an instant");
	gecko_marker(main_t, "Lost records", &n);
	cr_expect_eq(n, 1, "the recording's markers go to the first thread");
	gecko_marker(worker, "Lost records", &n);
	cr_expect_eq(n, 0);

	/* The worker: registered at its start, unregistered at its end, a hostile name kept valid. */
	cr_expect(fabs(json_object_get_double(get(worker, "registerTime")) - 1.0) < 1e-9);
	cr_expect(fabs(json_object_get_double(get(worker, "unregisterTime")) - 8.5) < 1e-9);
	json_object *ws = get(get(worker, "samples"), "data");
	gecko_stack(worker, json_object_get_int64(at(at(ws, 0), 0)), names, sizeof(names));
	cr_expect_str_eq(names, "we\"ird\\\x01\xef\xbf\xbd\xef\xbf\xbd (in [unknown]);main (in w)");

	/* One event: its samples only. */
	json_object_put(g);
	free(text);
	text = written(p, "cpu-clock", 0, true);
	g = parse(text, "the Gecko profile of cpu-clock");
	cr_expect_eq(len(get(get(at(get(g, "threads"), 0), "samples"), "data")), 2);
	json_object_put(g);
	free(text);
	pev_profile_free(p);
}

Test(report_browser, speedscope_of_a_profile_made_by_hand)
{
	struct pev_profile *p = hand_made();
	char *text = written(p, NULL, 0, false);
	json_object *s = parse(text, "the speedscope file");
	json_object *frames = get(get(s, "shared"), "frames"), *profiles = get(s, "profiles");

	cr_expect_str_eq(json_object_get_string(get(s, "$schema")),
			 "https://www.speedscope.app/file-format-schema.json");
	char *path = th_path_join(th_temp_dir("browser-schema"), "hand.json");
	th_write_file(path, text);
	expect_speedscope_schema(path);
	free(path);
	cr_assert_eq(len(profiles), 2);
	json_object *main_p = at(profiles, 0);
	cr_expect_str_eq(json_object_get_string(get(main_p, "name")), "main 10/10");
	cr_expect_str_eq(json_object_get_string(get(main_p, "unit")), "nanoseconds");
	/* Two samples in a row with one stack are one, their weights summed. */
	json_object *samples = get(main_p, "samples"), *weights = get(main_p, "weights");
	cr_assert_eq(len(samples), 1);
	cr_assert_eq(len(weights), 1);
	cr_expect_eq(json_object_get_int64(at(weights, 0)), 2000000);
	cr_expect_eq(json_object_get_int64(get(main_p, "endValue")), 2000000);
	json_object *st = at(samples, 0);
	cr_assert_eq(len(st), 2);
	cr_expect_str_eq(json_object_get_string(get(at(frames, (size_t)json_object_get_int(at(st, 0))),
						     "name")),
			 "main", "root first");
	cr_expect_str_eq(json_object_get_string(get(at(frames, (size_t)json_object_get_int(at(st, 1))),
						     "name")),
			 "work");
	json_object_put(s);
	free(text);

	/* Off-CPU alone: its stack ends in "[off-cpu]", weighed by the time waited. */
	text = written(p, "offcpu-time", 0, false);
	s = parse(text, "the speedscope file of offcpu-time");
	frames = get(get(s, "shared"), "frames");
	st = at(get(at(get(s, "profiles"), 0), "samples"), 0);
	cr_assert_eq(len(st), 4);
	cr_expect_str_eq(json_object_get_string(get(at(frames, (size_t)json_object_get_int(at(st, 3))),
						     "name")),
			 "[off-cpu]");
	cr_expect_eq(json_object_get_int64(at(get(at(get(s, "profiles"), 0), "weights"), 0)),
		     5000000);
	json_object_put(s);
	free(text);

	/* The wall-clock event: both, in time order. */
	cr_assert_eq(pev_profile_add_wall_clock(p, NULL), 0);
	text = written(p, "wall-clock", 0, false);
	s = parse(text, "the speedscope file of wall-clock");
	weights = get(at(get(s, "profiles"), 0), "weights");
	cr_assert_eq(len(weights), 2);
	cr_expect_eq(json_object_get_int64(at(weights, 0)), 2000000);
	cr_expect_eq(json_object_get_int64(at(weights, 1)), 5000000);
	json_object_put(s);
	free(text);
	pev_profile_free(p);
}

Test(report_browser, gzip_output_inflates_to_the_same_json)
{
	struct pev_profile *p = hand_made();
	const char *dir = th_temp_dir("browser-gz");
	char *plain = written(p, NULL, 0, true);
	char *path = th_path_join(dir, "g.json.gz");
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	struct pev_error err;
	FILE *f = fopen(path, "w");

	o.flags = PEV_REPORT_GZIP;
	cr_assert_eq(pev_profile_write_gecko(p, f, &o, &err), 0, "%s", err.message);
	cr_assert_eq(fclose(f), 0);
	char *inflated = th_sh_okf("gzip -dc '%s'", path);
	cr_expect_str_eq(inflated, plain);
	free(inflated);
	free(plain);
	free(path);
	pev_profile_free(p);
}

Test(report_browser, the_timeline_is_asked_for_before_samples)
{
	struct pev_profile *p;
	struct pev_profile_event ev = PEV_PROFILE_EVENT_INIT;
	struct pev_profile_sample s = PEV_PROFILE_SAMPLE_INIT;
	struct pev_profile_marker m = PEV_PROFILE_MARKER_INIT;
	struct pev_error err;
	char *buf = NULL;
	size_t n = 0;

	cr_assert_eq(pev_profile_new(&p), 0);
	ev.name = "cycles";
	cr_assert_eq(pev_profile_add_event(p, &ev), 0);
	s.comm = "w";
	s.pid = s.tid = 1;
	s.period = 1;
	cr_assert_eq(pev_profile_add_sample(p, &s), 0);
	cr_expect_eq(pev_profile_keep_timeline(p), PEV_EBADARG);
	m.kind = PEV_PROFILE_MARKER_LOST;
	cr_expect_eq(pev_profile_add_marker(p, &m), PEV_EBADARG, "no timeline kept");
	FILE *f = open_memstream(&buf, &n);
	cr_expect_eq(pev_profile_write_gecko(p, f, NULL, &err), PEV_EBADARG);
	cr_expect(strstr(err.message, "pev_profile_keep_timeline"), "%s", err.message);
	/* speedscope does without: one sample per distinct stack. */
	cr_expect_eq(pev_profile_write_speedscope(p, f, NULL, &err), 0, "%s", err.message);
	fclose(f);
	free(buf);
	pev_profile_free(p);

	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(pev_profile_keep_timeline(p), 0);
	m.kind = (enum pev_profile_marker_kind)99;
	cr_expect_eq(pev_profile_add_marker(p, &m), PEV_EBADARG);
	cr_expect_eq(pev_profile_add_marker(p, NULL), PEV_EBADARG);
	cr_expect_eq(pev_profile_keep_timeline(NULL), PEV_EBADARG);
	pev_profile_free(p);
}

/* ---- real recordings ---------------------------------------------------------------- */

/*
 * Records offcpu_work (program: a path) with --off-cpu and call chains of
 * the kind given ("fp", or "dwarf": libc's sleep call keeps its caller)
 * into dir/name.
 */
static char *record_offcpu(const char *dir, const char *program, const char *name,
			   const char *chains)
{
	char *data = th_path_join(dir, name);
	struct th_output r = th_perfev("record", "--off-cpu", "--call-graph", chains, "-q", "-o",
				       data, program);

	if (r.status != 0 && strstr(r.err, "off-cpu"))
		th_skip("perfev record --off-cpu cannot run here: %s", r.err);
	cr_assert_eq(r.status, 0, "record: %s", r.err);
	th_output_free(&r);
	return data;
}

/* The share (0-1) of weight whose folded stack holds func, from "a;b;c N" lines. */
static double folded_share(const char *folded, const char *func)
{
	double all = 0, with = 0;
	char pat[128];

	snprintf(pat, sizeof(pat), ";%s;", func);
	for (const char *l = folded; *l;) {
		const char *end = strchr(l, '\n');
		size_t n = end ? (size_t)(end - l) : strlen(l);
		char line[8192];
		snprintf(line, sizeof(line), ";%.*s", (int)n, l);
		char *sp = strrchr(line, ' ');
		if (sp) {
			double w = atof(sp + 1);
			*sp = ';';
			sp[1] = '\0';
			all += w;
			if (strstr(line, pat))
				with += w;
		}
		l += n + (end ? 1 : 0);
	}
	return all > 0 ? with / all : 0;
}

/* The share of speedscope profile prof's weight whose stack holds func. */
static double speedscope_share(json_object *s, json_object *prof, const char *func)
{
	json_object *frames = get(get(s, "shared"), "frames");
	json_object *samples = get(prof, "samples"), *weights = get(prof, "weights");
	double all = 0, with = 0;

	for (size_t i = 0; i < len(samples); i++) {
		json_object *st = at(samples, i);
		double w = (double)json_object_get_int64(at(weights, i));
		bool has = false;
		for (size_t k = 0; k < len(st); k++)
			has |= strcmp(json_object_get_string(get(
					      at(frames, (size_t)json_object_get_int(at(st, k))), "name")),
				      func) == 0;
		all += w;
		with += has ? w : 0;
	}
	return all > 0 ? with / all : 0;
}

/* The profile of speedscope file s whose name starts with comm. */
static json_object *speedscope_profile(json_object *s, const char *comm)
{
	json_object *profiles = get(s, "profiles");

	for (size_t i = 0; i < len(profiles); i++)
		if (strncmp(json_object_get_string(get(at(profiles, i), "name")), comm,
			    strlen(comm)) == 0)
			return at(profiles, i);
	cr_assert_fail("no speedscope profile of %s", comm);
	return NULL;
}

Test(report_browser, an_offcpu_recording_in_both_formats)
{
	const char *dir = th_temp_dir("browser-live");
	char *data = record_offcpu(dir, th_test_program("offcpu_work"), "off.data", "dwarf");
	char *gecko = th_path_join(dir, "g.json"), *ss = th_path_join(dir, "s.json");
	struct th_output r = th_perfev("report", "-i", data, "--format", "gecko", "-o", gecko);

	cr_assert_eq(r.status, 0, "report --format gecko: %s", r.err);
	th_output_free(&r);
	char *text = th_slurp(gecko, NULL);
	json_object *g = parse(text, "the Gecko profile");
	expect_gecko_rules(g);
	json_object *threads = get(g, "threads"), *t = NULL;
	for (size_t i = 0; i < len(threads); i++)
		if (strcmp(json_object_get_string(get(at(threads, i), "name")), "offcpu_work") == 0)
			t = at(threads, i);
	cr_assert(t, "no thread offcpu_work in %zu threads", len(threads));

	/* The thread waits about 300 ms: Off-CPU markers add up to it, the CPU deltas do not. */
	json_object *markers = get(get(t, "markers"), "data");
	json_object *strings = get(t, "stringTable");
	double waited = 0, cpu = 0;
	for (size_t i = 0; i < len(markers); i++) {
		json_object *m = at(markers, i);
		if (strcmp(json_object_get_string(
				   at(strings, (size_t)json_object_get_int64(at(m, 0)))),
			   "Off-CPU") == 0)
			waited += json_object_get_double(at(m, 2)) - json_object_get_double(at(m, 1));
	}
	json_object *samples = get(get(t, "samples"), "data");
	for (size_t i = 0; i < len(samples); i++)
		cpu += (double)json_object_get_int64(at(at(samples, i), 3)) / 1e6;
	double span = json_object_get_double(at(at(samples, len(samples) - 1), 1)) -
		      json_object_get_double(at(at(samples, 0), 1));
	/* The sleep is 300 ms off the CPU however loaded the machine; the spin's CPU time
	 * is what the scheduler gave it, no more than the time between the first and the
	 * last sample less the sleep. */
	cr_expect_geq(waited, 290, "off-CPU intervals add up to %.1f ms", waited);
	cr_expect_gt(cpu, 10, "CPU deltas add up to %.1f ms", cpu);
	cr_expect_leq(cpu, span - 290 + 5, "CPU deltas add up to %.1f ms in %.1f ms with %.1f ms "
		      "off the CPU", cpu, span, waited);
	json_object_put(g);
	free(text);

	/* speedscope of the wall-clock time: each half about half, as the folded stacks say. */
	r = th_perfev("report", "-i", data, "--wall-clock", "--format", "speedscope", "-o", ss);
	cr_assert_eq(r.status, 0, "report --format speedscope: %s", r.err);
	th_output_free(&r);
	struct th_output fo = th_perfev("report", "-i", data, "--wall-clock", "--format", "folded");
	cr_assert_eq(fo.status, 0, "%s", fo.err);
	expect_speedscope_schema(ss);
	text = th_slurp(ss, NULL);
	json_object *s = parse(text, "the speedscope file");
	json_object *prof = speedscope_profile(s, "offcpu_work");
	double sleep_s = speedscope_share(s, prof, "offcpu_sleep");
	double spin_s = speedscope_share(s, prof, "offcpu_spin");
	double sleep_f = folded_share(fo.out, "offcpu_sleep"), spin_f = folded_share(fo.out, "offcpu_spin");
	cr_expect(fabs(sleep_s - sleep_f) < 0.02 && fabs(spin_s - spin_f) < 0.02,
		  "speedscope: sleep %.3f spin %.3f; folded: sleep %.3f spin %.3f", sleep_s, spin_s,
		  sleep_f, spin_f);
	cr_expect(sleep_s > 0.3 && spin_s > 0.3, "sleep %.3f spin %.3f", sleep_s, spin_s);
	json_object_put(s);
	free(text);
	th_output_free(&fo);

	/* A pipe-mode stream, read from stdin: the same threads. */
	char *pipe_data = th_path_join(dir, "pipe.data");
	free(th_sh_okf("'%s' record -q --off-cpu -g -o - '%s' > '%s' 2>/dev/null", getenv("PERFEV_BIN"),
		       th_test_program("offcpu_work"), pipe_data));
	char *out = th_sh_okf("'%s' report -i - --format gecko < '%s'", getenv("PERFEV_BIN"),
			      pipe_data);
	g = parse(out, "the Gecko profile of a pipe");
	cr_expect_geq(len(get(g, "threads")), 1);
	json_object_put(g);
	free(out);
	free(pipe_data);
	free(gecko);
	free(ss);
	free(data);
}

Test(report_browser, perfs_own_file_in_both_formats)
{
	th_need_perf();
	const char *dir = th_temp_dir("browser-perf");
	char *data = th_path_join(dir, "perf.data");
	free(th_sh_okf("perf record -q -g -e cpu-clock -o '%s' '%s' >/dev/null 2>&1",
		       data, th_test_program("offcpu_work")));
	char *out = th_sh_okf("'%s' report -i '%s' --format gecko", getenv("PERFEV_BIN"), data);
	json_object *g = parse(out, "the Gecko profile of perf's file");
	expect_gecko_rules(g);
	json_object *threads = get(g, "threads");
	size_t samples = 0;
	for (size_t i = 0; i < len(threads); i++)
		samples += len(get(get(at(threads, i), "samples"), "data"));
	cr_expect_geq(samples, 50, "%zu samples", samples);
	json_object_put(g);
	free(out);
	out = th_sh_okf("'%s' report -i '%s' --format speedscope", getenv("PERFEV_BIN"), data);
	g = parse(out, "the speedscope file of perf's file");
	cr_expect_geq(len(get(g, "profiles")), 1);
	json_object_put(g);
	free(out);
	free(data);
}

/* ---- against perf 7.2's exporter ----------------------------------------------------- */

/* Per thread of a Gecko profile: its tid, sample count and the leaf functions' counts. */
struct thread_summary {
	int64_t tid;
	size_t samples;
	char leaves[4096]; /* "name=count," in the order met */
	char *stacks;      /* every sample's stack, "leaf;...;root" lines, sorted (malloc'ed) */
};

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A stack as both exporters can give it: function names only (perf names a
 * DSO by path, perfev by file name), without [vdso] frames (perf 7.2 cannot
 * name them in its own tree and drops them) or unresolved ones ("0x...":
 * perf drops frames without a symbol). Rewrites names in place.
 */
static void comparable_stack(char *names)
{
	char *out = names, *frame = names;

	while (frame && *frame) {
		char *next = strchr(frame, ';');
		if (next)
			*next++ = '\0';
		char *cut = strstr(frame, " (in ");
		bool drop = strncmp(frame, "0x", 2) == 0 || (cut && strcmp(cut, " (in [vdso])") == 0);
		if (cut)
			*cut = '\0';
		if (!drop) {
			if (out != names)
				*out++ = ';';
			size_t n = strlen(frame);
			memmove(out, frame, n);
			out += n;
		}
		frame = next;
	}
	*out = '\0';
}

static void add_leaf(struct thread_summary *t, const char *name)
{
	char key[512];

	if (snprintf(key, sizeof(key), ",%.500s=", name) < 0)
		return;
	char *hit = strstr(t->leaves, key);
	if (hit) {
		/* Counted in place: rewrite the number. */
		char *num = hit + strlen(key), rest[4096];
		long n = strtol(num, NULL, 10);
		char *end = strchr(num, ',');
		snprintf(rest, sizeof(rest), "%s", end ? end : "");
		snprintf(num, sizeof(t->leaves) - (size_t)(num - t->leaves), "%ld%s", n + 1, rest);
		return;
	}
	size_t used = strlen(t->leaves);
	snprintf(t->leaves + used, sizeof(t->leaves) - used, "%s%s=1,", used ? "" : ",", name);
}

static size_t summarize(json_object *g, struct thread_summary *out, size_t max)
{
	json_object *threads = get(g, "threads");
	size_t n = 0;

	for (size_t i = 0; i < len(threads) && n < max; i++) {
		json_object *t = at(threads, i), *samples = get(get(t, "samples"), "data");
		if (!len(samples))
			continue;
		struct thread_summary *s = &out[n++];
		memset(s, 0, sizeof(*s));
		s->tid = json_object_get_int64(get(t, "tid"));
		s->samples = len(samples);
		char **lines = calloc(len(samples), sizeof(*lines));
		size_t total = 1;
		cr_assert(lines);
		for (size_t k = 0; k < len(samples); k++) {
			char names[8192];
			gecko_stack(t, json_object_get_int64(at(at(samples, k), 0)), names,
				    sizeof(names));
			lines[k] = strdup(names);
			cr_assert(lines[k]);
			comparable_stack(lines[k]);
			total += strlen(lines[k]) + 1;
			/* The leaf function's name: perf names DSOs by path, perfev by file name. A
			 * [vdso] frame perf 7 could not name in its tree (no vDSO image there) is
			 * left out, as perf leaves out frames without a symbol. */
			char *leaf = names;
			while (strncmp(leaf, "__vdso_", 7) == 0 && strchr(leaf, ';') &&
			       strstr(leaf, " (in [vdso])") < strchr(leaf, ';'))
				leaf = strchr(leaf, ';') + 1;
			char *cut = strstr(leaf, " (in ");
			if (cut)
				*cut = '\0';
			add_leaf(s, leaf);
		}
		qsort(lines, len(samples), sizeof(*lines), line_cmp);
		s->stacks = calloc(total, 1);
		cr_assert(s->stacks);
		for (size_t k = 0; k < len(samples); k++) {
			strcat(strcat(s->stacks, lines[k]), "\n");
			free(lines[k]);
		}
		free(lines);
	}
	return n;
}

/* The first line where a and b differ, for the message. */
static void first_difference(const char *a, const char *b, char *buf, size_t size)
{
	while (*a && *a == *b) {
		const char *na = strchr(a, '\n'), *nb = strchr(b, '\n');
		if (!na || !nb || na - a != nb - b || strncmp(a, b, (size_t)(na - a)) != 0)
			break;
		a = na + 1;
		b = nb + 1;
	}
	snprintf(buf, size, "perfev: %.*s\nperf:   %.*s", (int)strcspn(a, "\n"), a,
		 (int)strcspn(b, "\n"), b);
}

Test(report_browser, the_same_threads_samples_stacks_and_leaves_as_perf_7)
{
	const char *latest = th_perf_latest();

	if (!latest)
		th_skip("no perf 7 (../shared/tools/perf-latest) to export the Gecko format");
	/* perf-latest --chroot sees this machine's /tmp, not its build tree: a static copy of
	 * the workload under /tmp is symbolized the same by both. */
	const char *dir = th_temp_dir("browser-perf7");
	char *prog = th_path_join(dir, "offcpu_work_static");
	free(th_sh_okf("cp '%s' '%s'", th_test_program("offcpu_work_static"), prog));
	char *data = record_offcpu(dir, prog, "perf.data", "fp");
	free(th_sh_okf("cd '%s' && '%s' --chroot script report gecko --save-only=perf7.json "
		       ">/dev/null 2>&1",
		       dir, latest));
	char *p7 = th_path_join(dir, "perf7.json");
	char *theirs_text = th_slurp(p7, NULL);
	/* --symbol-at-return: callers named at their return address, as perf names them
	 * (docs/PERF_DIFFERENCES.md). */
	char *ours_text = th_sh_okf("'%s' report -i '%s' --format gecko --symbol-at-return",
				    getenv("PERFEV_BIN"), data);
	json_object *theirs = parse(theirs_text, "perf 7's Gecko profile");
	json_object *ours = parse(ours_text, "perfev's Gecko profile");
	struct thread_summary a[8], b[8];
	size_t na = summarize(ours, a, 8), nb = summarize(theirs, b, 8);

	cr_assert_eq(na, nb, "threads with samples: perfev %zu, perf %zu", na, nb);
	for (size_t i = 0; i < na; i++) {
		size_t k = 0;
		while (k < nb && b[k].tid != a[i].tid)
			k++;
		cr_assert(k < nb, "thread %" PRId64 " is not in perf's profile", a[i].tid);
		cr_expect_eq(a[i].samples, b[k].samples, "thread %" PRId64 ": %zu samples, perf %zu",
			     a[i].tid, a[i].samples, b[k].samples);
		cr_expect_str_eq(a[i].leaves, b[k].leaves, "thread %" PRId64 "'s leaf functions:\n"
				 "perfev: %s\nperf:   %s", a[i].tid, a[i].leaves, b[k].leaves);
		char diff[4096];
		first_difference(a[i].stacks, b[k].stacks, diff, sizeof(diff));
		cr_expect(strcmp(a[i].stacks, b[k].stacks) == 0,
			  "thread %" PRId64 "'s stacks differ; the first that does:\n%s", a[i].tid,
			  diff);
	}
	for (size_t i = 0; i < na; i++)
		free(a[i].stacks);
	for (size_t i = 0; i < nb; i++)
		free(b[i].stacks);
	json_object_put(theirs);
	json_object_put(ours);
	free(theirs_text);
	free(ours_text);
	free(p7);
	free(data);
	free(prog);
}

/* ---- in speedscope itself ------------------------------------------------------------ */

Test(report_browser, speedscope_draws_both_stacks_at_their_shares, .timeout = 240)
{
	const char *root = getenv("PERFEV_SOURCE_ROOT");
	const char *app = getenv("PERFEV_SPEEDSCOPE") ? getenv("PERFEV_SPEEDSCOPE")
						      : "/var/cache/perfev/speedscope-1.25.0";
	char index[4096];

	snprintf(index, sizeof(index), "%s/dist/release/index.html", app);
	if (access("/usr/bin/chromium", X_OK) != 0)
		th_skip("no Chromium (Debian: apt-get install chromium; scripts/install-deps.sh)");
	if (access(index, R_OK) != 0)
		th_skip("no speedscope at %s (scripts/fetch_speedscope.sh installs it)", app);
	const char *dir = th_temp_dir("browser-view");
	char *data = record_offcpu(dir, th_test_program("offcpu_work"), "off.data", "dwarf");
	char *ss = th_path_join(dir, "s.json");
	struct th_output r =
		th_perfev("report", "-i", data, "--wall-clock", "--format", "speedscope", "-o", ss);
	cr_assert_eq(r.status, 0, "%s", r.err);
	th_output_free(&r);
	struct th_output fo = th_perfev("report", "-i", data, "--wall-clock", "--format", "folded");
	cr_assert_eq(fo.status, 0, "%s", fo.err);

	/* What speedscope drew: its boxes, read from the page (name and horizontal extent). */
	char *shown = th_sh_okf("/usr/bin/python3 '%s/scripts/speedscope_view.py' --speedscope '%s' "
				"--view left-heavy --screenshot '%s/shot.png' '%s'",
				root, app, dir, ss);
	json_object *v = parse(shown, "speedscope_view's output");
	json_object *frames = get(v, "frames");
	double sleep_w = 0, spin_w = 0;
	for (size_t i = 0; i < len(frames); i++) {
		json_object *f = at(frames, i);
		const char *name = json_object_get_string(get(f, "name"));
		double w = json_object_get_double(get(f, "x1")) - json_object_get_double(get(f, "x0"));
		if (strcmp(name, "offcpu_sleep") == 0 && w > sleep_w)
			sleep_w = w;
		if (strcmp(name, "offcpu_spin") == 0 && w > spin_w)
			spin_w = w;
	}
	double sleep_f = folded_share(fo.out, "offcpu_sleep"), spin_f = folded_share(fo.out, "offcpu_spin");
	cr_expect(sleep_w > 0 && spin_w > 0, "speedscope drew offcpu_sleep %.3f, offcpu_spin %.3f: %s",
		  sleep_w, spin_w, shown);
	cr_expect(fabs(sleep_w - sleep_f) < 0.04 && fabs(spin_w - spin_f) < 0.04,
		  "drawn widths: sleep %.3f spin %.3f; the report's shares: sleep %.3f spin %.3f",
		  sleep_w, spin_w, sleep_f, spin_f);
	json_object_put(v);
	free(shown);
	th_output_free(&fo);
	free(ss);
	free(data);
}

Test(report_browser, an_empty_profile_in_both_formats)
{
	struct pev_profile *p;
	struct pev_profile_event ev = PEV_PROFILE_EVENT_INIT;

	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(pev_profile_keep_timeline(p), 0);
	char *text = written(p, NULL, 0, true);
	json_object *g = parse(text, "the Gecko profile of nothing");
	cr_expect_eq(len(get(g, "threads")), 0);
	json_object_put(g);
	free(text);
	text = written(p, NULL, 0, false);
	g = parse(text, "the speedscope file of nothing");
	cr_expect_eq(len(get(g, "profiles")), 0);
	json_object_put(g);
	free(text);
	/* An event without samples: no threads either. */
	ev.name = "cycles";
	cr_assert_eq(pev_profile_add_event(p, &ev), 0);
	text = written(p, NULL, 0, true);
	g = parse(text, "the Gecko profile of an event without samples");
	cr_expect_eq(len(get(g, "threads")), 0);
	json_object_put(g);
	free(text);
	pev_profile_free(p);
}

/* SPDX-License-Identifier: MIT */
/*
 * test_report.c - the report layer on synthetic profiles whose every
 * figure is computed by hand below:
 *
 *   - the model: events, samples, interning, totals, argument checks;
 *   - the table: exact text against perf's layout (headers, widths, [.] and
 *     [k], addresses of unresolved symbols, [unknown] DSOs), percentages
 *     and order, --percent-limit, sort key combinations, children,
 *     several events, perf's short sample counts;
 *   - call graphs: callee and caller, with and without children, limits;
 *   - folded stacks: exact lines and options, and a random profile checked
 *     stack by stack against the samples that made it;
 *   - the SVG flame graph: parsed as XML (libxml2), one rect per frame,
 *     widths, tooltips, escaping, colours, truncation, and a screenshot in
 *     headless Chromium (the frames are drawn; a #s= search colours them);
 *   - pprof: the gzip file inflated and decoded with protobuf-c, every
 *     table checked; JSON parsed back with json-c;
 *   - a missing libprotobuf-c or libjson-c, and errors of every writer.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <zlib.h>

#include "helpers.h"

#include "report/pprof_shim.h"

#include "report/pprof.pb-c.h"
#include "report/report_dl.h"
#include "report/report_internal.h"

TestSuite(report, .init = th_leak_init, .fini = th_leak_fini);

/* ---- building profiles -------------------------------------------------------------- */

/* A user frame of a resolved function. */
#define F(s_, d_) ((struct pev_profile_frame){.address = 0x1000, .symbol = (s_), .dso = (d_)})
/* A kernel frame. */
#define K(s_) ((struct pev_profile_frame){.address = 0xffffffff81000000ULL, .symbol = (s_), \
					   .dso = "[kernel.kallsyms]", .flags = PEV_FRAME_KERNEL})
/* An unresolved address in a DSO. */
#define U(a_, d_) ((struct pev_profile_frame){.address = (a_), .dso = (d_)})

static void add(struct pev_profile *p, unsigned event, int times, uint64_t period, const char *comm,
		int pid, int tid, int cpu, const struct pev_profile_frame *frames, size_t n)
{
	struct pev_profile_sample s = PEV_PROFILE_SAMPLE_INIT;

	s.event = event;
	s.period = period;
	s.comm = comm;
	s.pid = pid;
	s.tid = tid;
	s.cpu = cpu;
	s.frames = frames;
	s.nr_frames = n;
	for (int i = 0; i < times; i++) {
		s.time = 1000000 + (uint64_t)i * 1000;
		cr_assert_eq(pev_profile_add_sample(p, &s), 0);
	}
}

#define ADD(p, ev, times, period, comm, pid, tid, cpu, ...)                                          \
	do {                                                                                       \
		const struct pev_profile_frame fr_[] = {__VA_ARGS__};                              \
		add(p, ev, times, period, comm, pid, tid, cpu, fr_, sizeof(fr_) / sizeof(fr_[0])); \
	} while (0)

static int add_event(struct pev_profile *p, const char *name, enum pev_profile_unit unit)
{
	struct pev_profile_event ev = PEV_PROFILE_EVENT_INIT;

	ev.name = name;
	ev.unit = unit;
	return pev_profile_add_event(p, &ev);
}

/*
 * The basic profile, event "cpu-clock" (total period 1400 in 12 samples):
 *   5 x 100  w  pid 10 tid 10 cpu 0   leaf <- a <- main
 *   3 x 100  w  pid 10 tid 11 cpu 1   leaf <- main
 *   1 x 300  w  pid 10 tid 10 cpu 1   b <- a <- main
 *   1 x 100  sh pid 20 tid 20 cpu 0   memcpy (libc.so.6) <- main (sh)
 *   1 x 100  w  pid 10 tid 10 cpu 0   schedule [k] <- write (libc.so.6) <- main
 *   1 x 100  w  pid 10 tid 10 cpu 1   0x1234 (unresolved in w) <- main
 */
static struct pev_profile *basic(void)
{
	struct pev_profile *p = NULL;

	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "cpu-clock", PEV_PROFILE_UNIT_NANOSECONDS), 0);
	ADD(p, 0, 5, 100, "w", 10, 10, 0, F("leaf", "w"), F("a", "w"), F("main", "w"));
	ADD(p, 0, 3, 100, "w", 10, 11, 1, F("leaf", "w"), F("main", "w"));
	ADD(p, 0, 1, 300, "w", 10, 10, 1, F("b", "w"), F("a", "w"), F("main", "w"));
	ADD(p, 0, 1, 100, "sh", 20, 20, 0, F("memcpy", "libc.so.6"), F("main", "sh"));
	ADD(p, 0, 1, 100, "w", 10, 10, 0, K("schedule"), F("write", "libc.so.6"), F("main", "w"));
	ADD(p, 0, 1, 100, "w", 10, 10, 1, U(0x1234, "w"), F("main", "w"));
	return p;
}

/* Runs a writer into memory; returns its return code and the text in *text (caller frees). */
typedef int (*writer_fn)(const struct pev_profile *, FILE *, const struct pev_report_opts *,
			 struct pev_error *);

static int run_writer(writer_fn fn, const struct pev_profile *p, const struct pev_report_opts *o,
		      char **text, size_t *len, struct pev_error *err)
{
	size_t l = 0;
	FILE *f = open_memstream(text, &l);
	int r;

	cr_assert_not_null(f);
	r = fn(p, f, o, err);
	cr_assert_eq(fclose(f), 0);
	if (len)
		*len = l;
	return r;
}

/* Writes with fn and expects success; returns the text (caller frees). */
static char *write_ok(writer_fn fn, const struct pev_profile *p, const struct pev_report_opts *o)
{
	struct pev_error err;
	char *text = NULL;
	int r = run_writer(fn, p, o, &text, NULL, &err);

	cr_assert_eq(r, 0, "writer failed: %d %s", r, r ? err.message : "");
	return text;
}

static void expect_text(const char *got, const char *want)
{
	cr_expect_str_eq(got, want, "got:\n%s\nwanted:\n%s", got, want);
}

/* ---- the model ------------------------------------------------------------------------ */

Test(report, model_totals_and_checks)
{
	struct pev_profile *p = basic();
	struct pev_profile_sample s = PEV_PROFILE_SAMPLE_INIT;
	struct pev_profile_event ev = PEV_PROFILE_EVENT_INIT;
	uint64_t n = 0, period = 0;

	cr_expect_eq(pev_profile_nr_events(p), 1);
	cr_expect_eq(pev_profile_totals(p, 0, &n, &period), 0);
	cr_expect_eq(n, 12);
	cr_expect_eq(period, 1400);
	cr_expect_eq(pev_profile_totals(p, 1, &n, &period), PEV_EBADARG);

	/* Events: a name is needed and must be new; units are checked. */
	cr_expect_eq(pev_profile_add_event(p, &ev), PEV_EBADARG);
	ev.name = "cpu-clock";
	cr_expect_eq(pev_profile_add_event(p, &ev), PEV_EBADARG);
	ev.name = "cycles";
	ev.unit = (enum pev_profile_unit)7;
	cr_expect_eq(pev_profile_add_event(p, &ev), PEV_EBADARG);
	ev.unit = PEV_PROFILE_UNIT_COUNT;
	cr_expect_eq(pev_profile_add_event(p, &ev), 1);

	/* Samples: an event that exists, frames when nr_frames says so. */
	s.event = 2;
	cr_expect_eq(pev_profile_add_sample(p, &s), PEV_EBADARG);
	s.event = 1;
	s.nr_frames = 1;
	cr_expect_eq(pev_profile_add_sample(p, &s), PEV_EBADARG);
	s.nr_frames = 0;
	cr_expect_eq(pev_profile_add_sample(p, &s), 0, "a sample without frames is fine");
	s.sz = 4;
	cr_expect_eq(pev_profile_add_sample(p, &s), PEV_EBADARG, "sz below the size field");

	cr_expect_eq(pev_profile_new(NULL), PEV_EBADARG);
	cr_expect_eq(pev_profile_add_sample(NULL, &s), PEV_EBADARG);
	cr_expect_eq(pev_profile_set_lost(NULL, 1), PEV_EBADARG);
	cr_expect_eq(pev_profile_set_time(NULL, 1, 1), PEV_EBADARG);
	cr_expect_eq(pev_profile_nr_events(NULL), 0);
	pev_profile_free(p);
	pev_profile_free(NULL);
}

/* An event's total never wraps: a period that would take it past 2^64 - 1 is refused. */
Test(report, model_totals_stop_below_2_64)
{
	struct pev_profile *p = NULL;
	struct pev_profile_sample s = PEV_PROFILE_SAMPLE_INIT;
	uint64_t n = 0, period = 0;

	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "cpu-clock", PEV_PROFILE_UNIT_NANOSECONDS), 0);
	s.period = UINT64_MAX - 10;
	cr_expect_eq(pev_profile_add_sample(p, &s), 0);
	s.period = 11;
	cr_expect_eq(pev_profile_add_sample(p, &s), PEV_EBADARG, "the total would wrap");
	s.period = 10;
	cr_expect_eq(pev_profile_add_sample(p, &s), 0, "the total reaches 2^64 - 1");
	s.period = 1;
	cr_expect_eq(pev_profile_add_sample(p, &s), PEV_EBADARG);
	s.period = 0;
	cr_expect_eq(pev_profile_add_sample(p, &s), 0, "a period of 0 always fits");
	cr_expect_eq(pev_profile_totals(p, 0, &n, &period), 0);
	cr_expect_eq(n, 3);
	cr_expect_eq(period, UINT64_MAX);
	pev_profile_free(p);
}

Test(report, model_newer_caller_struct)
{
	/* A caller compiled against a newer perfev: a longer struct with its new fields zero is
	 * accepted, one that sets them is refused. */
	struct {
		struct pev_profile_sample s;
		uint64_t newer;
	} big;
	struct pev_profile *p = NULL;

	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "e", PEV_PROFILE_UNIT_COUNT), 0);
	memset(&big, 0, sizeof(big));
	big.s.sz = sizeof(big);
	big.s.frame_sz = sizeof(struct pev_profile_frame);
	cr_expect_eq(pev_profile_add_sample(p, &big.s), 0);
	big.newer = 1;
	cr_expect_eq(pev_profile_add_sample(p, &big.s), PEV_EBADARG);
	pev_profile_free(p);
}

Test(report, model_older_frame_struct)
{
	/* frames[] of an older, shorter frame struct (no file, line, flags): read by frame_sz. */
	struct old_frame {
		uint64_t address;
		const char *symbol;
		uint64_t offset;
		const char *dso;
	} fr[2] = {{0x10, "inner", 0, "x"}, {0x20, "outer", 0, "x"}};
	struct pev_profile_sample s = PEV_PROFILE_SAMPLE_INIT;
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	struct pev_profile *p = NULL;
	char *text;

	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "e", PEV_PROFILE_UNIT_COUNT), 0);
	s.frame_sz = sizeof(fr[0]);
	s.frames = (const void *)fr;
	s.nr_frames = 2;
	s.comm = "c";
	cr_expect_eq(pev_profile_add_sample(p, &s), 0);
	s.frame_sz = 8;
	cr_expect_eq(pev_profile_add_sample(p, &s), PEV_EBADARG, "a frame_sz without dso");
	text = write_ok(pev_profile_write_folded, p, &o);
	expect_text(text, "c;outer;inner 1\n");
	free(text);
	pev_profile_free(p);
}

/* ---- the table ------------------------------------------------------------------------ */

Test(report, table_layout_as_perf)
{
	struct pev_profile *p = basic();
	char *text = write_ok(pev_profile_write_table, p, NULL);

	/* Widths: Command 7 (its title), Shared Object 17 ("[kernel.kallsyms]"), Symbol 22
	 * ("[.] 0x0000000000001234"). Percentages: 800/1400, 300/1400, 100/1400. Equal
	 * overheads follow the keys: comm "sh" < "w", then dso "[kernel.kallsyms]" < "w". */
	expect_text(text, "#\n"
			  "# Total Lost Samples: 0\n"
			  "#\n"
			  "# Samples: 12  of event 'cpu-clock'\n"
			  "# Event count (approx.): 1400\n"
			  "#\n"
			  "# Overhead  Command  Shared Object      Symbol                \n"
			  "# ........  .......  .................  ......................\n"
			  "#\n"
			  "    57.14%  w        w                  [.] leaf\n"
			  "    21.43%  w        w                  [.] b\n"
			  "     7.14%  sh       libc.so.6          [.] memcpy\n"
			  "     7.14%  w        [kernel.kallsyms]  [k] schedule\n"
			  "     7.14%  w        w                  [.] 0x0000000000001234\n"
			  "\n\n");
	free(text);
	pev_profile_free(p);
}

/* The padding every table writer uses: to the column's width, never below zero. */
Test(report, pad_never_underflows)
{
	char buf[64] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	cr_assert_not_null(f);
	pev__pad(f, '.', 4, 0);
	fputc('|', f);
	pev__pad(f, ' ', 5, 2);
	fputc('|', f);
	pev__pad(f, ' ', 5, 5);
	fputc('|', f);
	pev__pad(f, ' ', 5, 9); /* a cell wider than its column: nothing, not 2^64 - 4 spaces */
	fputc('|', f);
	pev__pad(f, ' ', 0, SIZE_MAX);
	fputc('|', f);
	cr_assert_eq(fclose(f), 0);
	cr_expect_str_eq(buf, "....|   ||||", "got '%s'", buf);
}

/*
 * A cell wider than its column overflows it, as perf's do, and the rest of
 * the line follows it: a period of 20 digits in the Period column (12
 * wide), a share that stays at 100.00% of a total of 2^64 - 1.
 */
Test(report, over_wide_cells_overflow_their_columns)
{
	struct pev_profile *p = NULL;
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	char buf[4096] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w"); /* bounded: an underflow cannot fill memory */

	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "cpu-clock", PEV_PROFILE_UNIT_NANOSECONDS), 0);
	ADD(p, 0, 1, UINT64_MAX - 1000, "w", 10, 10, 0, F("big", "w"));
	ADD(p, 0, 1, 1000, "w", 10, 10, 0, F("small", "w"));
	o.fields = "overhead,period,sym";
	cr_assert_not_null(f);
	cr_expect_eq(pev_profile_write_table(p, f, &o, NULL), 0);
	fclose(f);
	expect_text(buf, "#\n"
			 "# Total Lost Samples: 0\n"
			 "#\n"
			 "# Samples: 2  of event 'cpu-clock'\n"
			 "# Event count (approx.): 18446744073709551615\n"
			 "#\n"
			 "# Overhead        Period  Symbol   \n"
			 "# ........  ............  .........\n"
			 "#\n"
			 "   100.00%  18446744073709550615  [.] big\n"
			 "     0.00%          1000  [.] small\n"
			 "\n\n");
	pev_profile_free(p);
}

/* Adds n samples of event 0 with the trace text t (no frames). */
static void add_traced(struct pev_profile *p, int n, const char *comm, const char *t)
{
	struct pev_profile_sample s = PEV_PROFILE_SAMPLE_INIT;

	s.period = 1;
	s.comm = comm;
	s.pid = s.tid = 7;
	s.trace = t;
	for (int i = 0; i < n; i++)
		cr_assert_eq(pev_profile_add_sample(p, &s), 0);
}

Test(report, table_trace_key)
{
	struct pev_profile *p = NULL;
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	char *text;

	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "sched:sched_switch", PEV_PROFILE_UNIT_COUNT), 0);
	add_traced(p, 2, "a", "prev_pid=2 ==> next_pid=0");
	add_traced(p, 1, "b", "prev_pid=1 ==> next_pid=0");
	add_traced(p, 1, "a", "prev_pid=3 ==> next_pid=0");
	add_traced(p, 2, "b", "prev_pid=4 ==> next_pid=0");
	o.sort = "trace";
	/* The title padded to the widest text, the texts not (as perf's); ties by text. */
	text = write_ok(pev_profile_write_table, p, &o);
	expect_text(text, "#\n"
			  "# Total Lost Samples: 0\n"
			  "#\n"
			  "# Samples: 6  of event 'sched:sched_switch'\n"
			  "# Event count (approx.): 6\n"
			  "#\n"
			  "# Overhead  Trace output             \n"
			  "# ........  .........................\n"
			  "#\n"
			  "    33.33%  prev_pid=2 ==> next_pid=0\n"
			  "    33.33%  prev_pid=4 ==> next_pid=0\n"
			  "    16.67%  prev_pid=1 ==> next_pid=0\n"
			  "    16.67%  prev_pid=3 ==> next_pid=0\n"
			  "\n\n");
	free(text);
	/* Without the key, samples differing only in their text merge. */
	o.sort = "comm";
	text = write_ok(pev_profile_write_table, p, &o);
	expect_has(text, "    50.00%  a      \n");
	free(text);
	pev_profile_free(p);
}

Test(report, table_percent_limit)
{
	struct pev_profile *p = basic();
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	char *text;

	o.flags = PEV_REPORT_NO_HEADER;
	o.percent_limit = 10;
	text = write_ok(pev_profile_write_table, p, &o);
	/* The columns stay as wide as the hidden entries make them, as perf's. */
	expect_text(text, "    57.14%  w        w                  [.] leaf\n"
			  "    21.43%  w        w                  [.] b\n\n\n");
	free(text);
	/* 100/1400 = 7.1428...%: shown at 7.14, hidden at 7.15. */
	o.percent_limit = 7.14;
	text = write_ok(pev_profile_write_table, p, &o);
	cr_expect_not_null(strstr(text, "0x0000000000001234"));
	free(text);
	o.percent_limit = 7.15;
	text = write_ok(pev_profile_write_table, p, &o);
	cr_expect_null(strstr(text, "memcpy"));
	cr_expect_not_null(strstr(text, "[.] b"));
	free(text);
	o.percent_limit = -1;
	cr_expect_eq(run_writer(pev_profile_write_table, p, &o, &text, NULL, NULL), PEV_EBADARG);
	free(text);
	pev_profile_free(p);
}

Test(report, table_sort_keys)
{
	struct pev_profile *p = basic();
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	char *text;

	o.flags = PEV_REPORT_NO_HEADER;
	o.sort = "dso,sym";
	text = write_ok(pev_profile_write_table, p, &o);
	expect_text(text, "    57.14%  w                  [.] leaf\n"
			  "    21.43%  w                  [.] b\n"
			  "     7.14%  [kernel.kallsyms]  [k] schedule\n"
			  "     7.14%  libc.so.6          [.] memcpy\n"
			  "     7.14%  w                  [.] 0x0000000000001234\n\n\n");
	free(text);

	o.sort = "comm";
	text = write_ok(pev_profile_write_table, p, &o);
	/* Columns other than the symbol are padded to their width, as perf's. */
	expect_text(text, "    92.86%  w      \n     7.14%  sh     \n\n\n");
	free(text);

	/* pid is perf's: each thread, "%7d:comm" of its tid under perf's title. */
	o.sort = "pid";
	o.flags = 0;
	text = write_ok(pev_profile_write_table, p, &o);
	expect_has(text, "# Overhead      Pid:Command\n# ........  ...............\n");
	expect_has(text, "    71.43%       10:w      \n"
			 "    21.43%       11:w      \n"
			 "     7.14%       20:sh     \n");
	free(text);

	/* process: perfev's key of each process. */
	o.sort = "process";
	text = write_ok(pev_profile_write_table, p, &o);
	expect_has(text, "# Overhead  Process:Command\n# ........  ...............\n");
	expect_has(text, "    92.86%       10:w      \n     7.14%       20:sh     \n");
	free(text);

	o.flags = PEV_REPORT_NO_HEADER;
	o.sort = "tid,comm";
	text = write_ok(pev_profile_write_table, p, &o);
	expect_text(text, "    71.43%       10:w        w      \n"
			  "    21.43%       11:w        w      \n"
			  "     7.14%       20:sh       sh     \n\n\n");
	free(text);

	/* cpu 0 and cpu 1 both have 700: the tie goes by CPU number. */
	o.sort = "cpu";
	text = write_ok(pev_profile_write_table, p, &o);
	expect_text(text, "    50.00%  000\n    50.00%  001\n\n\n");
	free(text);

	o.sort = "sym,comm";
	text = write_ok(pev_profile_write_table, p, &o);
	expect_has(text, "    57.14%  [.] leaf                w      \n");
	expect_has(text, "     7.14%  [.] 0x0000000000001234  w      \n");
	free(text);

	o.sort = "symbol";
	text = write_ok(pev_profile_write_table, p, &o);
	expect_has(text, "    57.14%  [.] leaf\n");
	free(text);
	pev_profile_free(p);
}

Test(report, table_bad_sort_key)
{
	struct pev_profile *p = basic();
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	struct pev_error err;
	char *text = NULL;

	o.sort = "comm,bogus";
	cr_expect_eq(run_writer(pev_profile_write_table, p, &o, &text, NULL, &err), PEV_EPARSE);
	expect_has(err.message, "unknown sort key 'bogus'");
	expect_has(err.hint, "comm, pid, process, tid, cpu, dso, sym, srcline, trace and cgroup");
	cr_expect_eq(err.position, 5);
	cr_expect_eq(err.length, 5);
	cr_expect_str_eq(text, "", "nothing is written before the check");
	free(text);
	o.sort = "";
	cr_expect_eq(run_writer(pev_profile_write_table, p, &o, &text, NULL, &err), PEV_EPARSE);
	free(text);
	pev_profile_free(p);
}

Test(report, table_children)
{
	struct pev_profile *p = basic();
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	char *text;

	/* Inclusive: main (w) is in 1300 of 1400, a in 800 (500 + 300), write in 100, main
	 * (sh) in 100. Sorted by children, then self, then keys. */
	o.flags = PEV_REPORT_CHILDREN;
	text = write_ok(pev_profile_write_table, p, &o);
	expect_has(text, "# Children      Self  Command  Shared Object      Symbol                \n"
			 "# ........  ........  .......  .................  ......................\n"
			 "#\n"
			 "    92.86%     0.00%  w        w                  [.] main\n"
			 "    57.14%    57.14%  w        w                  [.] leaf\n"
			 "    57.14%     0.00%  w        w                  [.] a\n"
			 "    21.43%    21.43%  w        w                  [.] b\n"
			 "     7.14%     7.14%  sh       libc.so.6          [.] memcpy\n"
			 "     7.14%     7.14%  w        [kernel.kallsyms]  [k] schedule\n"
			 "     7.14%     7.14%  w        w                  [.] 0x0000000000001234\n"
			 "     7.14%     0.00%  sh       sh                 [.] main\n"
			 "     7.14%     0.00%  w        libc.so.6          [.] write\n"
			 "\n\n");
	free(text);

	/* A recursive function counts once per sample. */
	pev_profile_free(p);
	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "e", PEV_PROFILE_UNIT_COUNT), 0);
	ADD(p, 0, 1, 10, "r", 1, 1, 0, F("f", "r"), F("f", "r"), F("f", "r"), F("main", "r"));
	ADD(p, 0, 1, 30, "r", 1, 1, 0, F("g", "r"), F("main", "r"));
	o.flags = PEV_REPORT_CHILDREN | PEV_REPORT_NO_HEADER;
	o.sort = "sym";
	text = write_ok(pev_profile_write_table, p, &o);
	expect_text(text, "   100.00%     0.00%  [.] main\n"
			  "    75.00%    75.00%  [.] g\n"
			  "    25.00%    25.00%  [.] f\n\n\n");
	free(text);
	/* Without a frame key, children equal self. */
	o.sort = "comm";
	text = write_ok(pev_profile_write_table, p, &o);
	expect_text(text, "   100.00%   100.00%  r      \n\n\n");
	free(text);
	pev_profile_free(p);
}

Test(report, table_several_events)
{
	struct pev_profile *p = basic();
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	char *text;

	cr_assert_eq(add_event(p, "page-faults", PEV_PROFILE_UNIT_COUNT), 1);
	ADD(p, 1, 3, 1, "w", 10, 10, 0, F("leaf", "w"), F("a", "w"), F("main", "w"));
	ADD(p, 1, 1, 1, "sh", 20, 20, 0, F("memcpy", "libc.so.6"), F("main", "sh"));
	pev_profile_set_lost(p, 7);
	text = write_ok(pev_profile_write_table, p, NULL);
	expect_has(text, "# Total Lost Samples: 7\n");
	expect_has(text, "# Samples: 12  of event 'cpu-clock'\n# Event count (approx.): 1400\n");
	expect_has(text, "     7.14%  w        w                  [.] 0x0000000000001234\n"
			 "\n\n"
			 "# Samples: 4  of event 'page-faults'\n"
			 "# Event count (approx.): 4\n"
			 "#\n"
			 "# Overhead  Command  Shared Object  Symbol    \n"
			 "# ........  .......  .............  ..........\n"
			 "#\n"
			 "    75.00%  w        w              [.] leaf\n"
			 "    25.00%  sh       libc.so.6      [.] memcpy\n"
			 "\n\n");
	free(text);

	/* One event by name. */
	o.event = "page-faults";
	text = write_ok(pev_profile_write_table, p, &o);
	cr_expect_null(strstr(text, "cpu-clock"));
	expect_has(text, "# Samples: 4  of event 'page-faults'\n");
	free(text);
	pev_profile_free(p);
}

Test(report, table_short_counts)
{
	struct pev_profile *p = NULL;
	char *text;

	/* perf divides by 1000 while the count is above 1000: 1001 -> 1K, 1000 stays. */
	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "a", PEV_PROFILE_UNIT_COUNT), 0);
	cr_assert_eq(add_event(p, "b", PEV_PROFILE_UNIT_COUNT), 1);
	ADD(p, 0, 1000, 1, "c", 1, 1, 0, F("f", "c"));
	ADD(p, 1, 2500, 1, "c", 1, 1, 0, F("f", "c"));
	text = write_ok(pev_profile_write_table, p, NULL);
	expect_has(text, "# Samples: 1000  of event 'a'\n");
	expect_has(text, "# Samples: 2K of event 'b'\n");
	free(text);
	pev_profile_free(p);
}

Test(report, table_inlined_and_frameless)
{
	struct pev_profile *p = NULL;
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	struct pev_profile_frame inl = F("helper", "x");
	char *text;

	/* The self entry of a stack is its first frame that is not inlined; a sample without
	 * frames counts for the unknown address 0, which widens the DSO column to 16 (perf's
	 * width of an address). */
	inl.flags = PEV_FRAME_INLINED;
	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "e", PEV_PROFILE_UNIT_COUNT), 0);
	ADD(p, 0, 3, 1, "x", 1, 1, 0, inl, F("outer", "x"), F("main", "x"));
	add(p, 0, 1, 1, "x", 1, 1, 0, NULL, 0);
	o.flags = PEV_REPORT_NO_HEADER;
	text = write_ok(pev_profile_write_table, p, &o);
	expect_text(text, "    75.00%  x        x                 [.] outer\n"
			  "    25.00%  x        [unknown]         [.] 0000000000000000\n\n\n");
	free(text);
	pev_profile_free(p);
}

/* ---- call graphs ---------------------------------------------------------------------- */

Test(report, callgraph_callee_golden)
{
	struct pev_profile *p = basic();
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	char *text;

	o.flags = PEV_REPORT_NO_HEADER;
	o.callgraph = PEV_REPORT_CALLGRAPH_CALLEE;
	text = write_ok(pev_profile_write_table, p, &o);
	/* leaf: 500 via a <- main (35.71%), 300 via main (21.43%). */
	expect_text(text, "    57.14%  w        w                  [.] leaf\n"
			  "            |\n"
			  "            ---leaf\n"
			  "               |          \n"
			  "               |--35.71%--a\n"
			  "               |          main\n"
			  "               |          \n"
			  "                --21.43%--main\n"
			  "\n"
			  "    21.43%  w        w                  [.] b\n"
			  "            |\n"
			  "            ---b\n"
			  "               a\n"
			  "               main\n"
			  "\n"
			  "     7.14%  sh       libc.so.6          [.] memcpy\n"
			  "            |\n"
			  "            ---memcpy\n"
			  "               main\n"
			  "\n"
			  "     7.14%  w        [kernel.kallsyms]  [k] schedule\n"
			  "            |\n"
			  "            ---schedule\n"
			  "               write\n"
			  "               main\n"
			  "\n"
			  "     7.14%  w        w                  [.] 0x0000000000001234\n"
			  "            |\n"
			  "            ---[unknown]\n"
			  "               main\n"
			  "\n"
			  "\n\n");
	free(text);

	/* Addresses instead of [unknown]; a limit above 21.43% hides that branch; a limit
	 * above an entry's share hides its whole graph. */
	o.flags = PEV_REPORT_NO_HEADER | PEV_REPORT_ADDRESSES;
	o.callgraph_limit = 25;
	text = write_ok(pev_profile_write_table, p, &o);
	expect_text(text, "    57.14%  w        w                  [.] leaf\n"
			  "            |\n"
			  "            ---leaf\n"
			  "               |          \n"
			  "                --35.71%--a\n"
			  "                          main\n"
			  "\n"
			  "    21.43%  w        w                  [.] b\n"
			  "     7.14%  sh       libc.so.6          [.] memcpy\n"
			  "     7.14%  w        [kernel.kallsyms]  [k] schedule\n"
			  "     7.14%  w        w                  [.] 0x0000000000001234\n"
			  "\n\n");
	free(text);
	o.callgraph_limit = -1;
	text = write_ok(pev_profile_write_table, p, &o);
	expect_has(text, "            ---0x1234\n               main\n");
	free(text);
	pev_profile_free(p);
}

Test(report, callgraph_caller_golden)
{
	struct pev_profile *p = basic();
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	char *text;

	o.flags = PEV_REPORT_NO_HEADER;
	o.callgraph = PEV_REPORT_CALLGRAPH_CALLER;
	o.percent_limit = 20;
	text = write_ok(pev_profile_write_table, p, &o);
	/* From the outermost caller down: main -> a -> leaf (500), main -> leaf (300). */
	expect_text(text, "    57.14%  w        w                  [.] leaf\n"
			  "            |\n"
			  "            ---main\n"
			  "               |          \n"
			  "               |--35.71%--a\n"
			  "               |          leaf\n"
			  "               |          \n"
			  "                --21.43%--leaf\n"
			  "\n"
			  "    21.43%  w        w                  [.] b\n"
			  "            |\n"
			  "            ---main\n"
			  "               a\n"
			  "               b\n"
			  "\n"
			  "\n\n");
	free(text);
	pev_profile_free(p);
}

Test(report, callgraph_children_modes)
{
	struct pev_profile *p = basic();
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	char *text;

	/* With children, the caller graph of an entry goes from it down to what it calls:
	 * a -> leaf (500), a -> b (300); the callee graph from it up to its callers. */
	o.flags = PEV_REPORT_NO_HEADER | PEV_REPORT_CHILDREN;
	o.callgraph = PEV_REPORT_CALLGRAPH_CALLER;
	o.sort = "sym";
	o.percent_limit = 50;
	text = write_ok(pev_profile_write_table, p, &o);
	/* Sorted by symbol, a lone chain's first frame (the entry) is left out, as perf
	 * does; leaf's own samples give their whole chain, from main down. */
	expect_text(text, "    92.86%     0.00%  [.] main\n"
			  "            |          \n"
			  "            |--57.14%--a\n"
			  "            |          |          \n"
			  "            |          |--35.71%--leaf\n"
			  "            |          |          \n"
			  "            |           --21.43%--b\n"
			  "            |          \n"
			  "            |--21.43%--leaf\n"
			  "            |          \n"
			  "            |--7.14%--[unknown]\n"
			  "            |          \n"
			  "             --7.14%--write\n"
			  "                       schedule\n"
			  "\n"
			  "    57.14%    57.14%  [.] leaf\n"
			  "            |          \n"
			  "            |--35.71%--a\n"
			  "            |          leaf\n"
			  "            |          \n"
			  "             --21.43%--leaf\n"
			  "\n"
			  "    57.14%     0.00%  [.] a\n"
			  "            |          \n"
			  "            |--35.71%--leaf\n"
			  "            |          \n"
			  "             --21.43%--b\n"
			  "\n"
			  "\n\n");
	free(text);

	o.callgraph = PEV_REPORT_CALLGRAPH_CALLEE;
	o.percent_limit = 55;
	o.sort = "sym";
	text = write_ok(pev_profile_write_table, p, &o);
	expect_has(text, "    57.14%     0.00%  [.] a\n"
			 "            |\n"
			 "            ---main\n"
			 "\n");
	free(text);
	pev_profile_free(p);
}

/*
 * A self frame whose debuginfo name differs from its symbol (libc's
 * clock_gettime@@GLIBC_2.17, "__clock_gettime" in DWARF): with inline
 * marks the chains name it "__clock_gettime (inlined)", an entry of its
 * own under children. That entry is a callee's, as perf draws it: its
 * graph runs from it down (itself alone), while the symbol's own entry
 * holds the whole chain from the outermost caller. parity::cxx failed on
 * such a sample now and then.
 */
Test(report, callgraph_self_frame_named_by_debuginfo)
{
	struct pev_profile *p = NULL;
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	struct pev_profile_frame leaf = F("clock_gettime@@GLIBC_2.17", "libc.so.6");
	char *text;

	leaf.debug_name = "__clock_gettime";
	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "cpu-clock", PEV_PROFILE_UNIT_NANOSECONDS), 0);
	ADD(p, 0, 1, 100, "w", 10, 10, 0, leaf, F("now", "libstdc++.so.6"), F("main", "w"));
	o.flags = PEV_REPORT_NO_HEADER | PEV_REPORT_CHILDREN | PEV_REPORT_INLINE_MARKS;
	o.callgraph = PEV_REPORT_CALLGRAPH_CALLER;
	o.sort = "dso,sym";
	text = write_ok(pev_profile_write_table, p, &o);
	expect_has(text, "[.] clock_gettime@@GLIBC_2.17\n"
			 "            |\n"
			 "            ---main\n"
			 "               now\n"
			 "               __clock_gettime (inlined)\n");
	expect_has(text, "     0.00%  libc.so.6       [.] __clock_gettime (inlined)\n"
			 "            |\n"
			 "            ---__clock_gettime (inlined)\n");
	free(text);
	pev_profile_free(p);
}

/*
 * perf keeps an inlined function as one children entry per function it is
 * inlined into (its range is its holder's): glibc's tcache_init, inlined
 * into __libc_malloc and the debuginfo name of its clone tcache_init.part.0,
 * is two entries of one sample each. The same function inlined at another
 * address of the same holder is the same entry. Seen in the arm64 guest
 * (parity::cxx_dwarf_call_graph).
 */
Test(report, children_entry_of_an_inlined_function_per_holder)
{
	struct pev_profile *p = NULL;
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	struct pev_profile_frame clone = F("tcache_init.part.0", "libc.so.6"),
				 inl = F("tcache_init", "libc.so.6"),
				 malloc1 = F("__libc_malloc", "libc.so.6"), malloc2;
	char *text, *second;

	clone.address = 0x9000, clone.offset = 0x10, clone.debug_name = "tcache_init";
	inl.flags = PEV_FRAME_INLINED;
	malloc1.address = 0x5040, malloc1.offset = 0x40;
	malloc2 = malloc1;
	malloc2.address = 0x5080, malloc2.offset = 0x80;
	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "cpu-clock", PEV_PROFILE_UNIT_NANOSECONDS), 0);
	ADD(p, 0, 1, 100, "w", 10, 10, 0, F("_int_malloc", "libc.so.6"), clone, inl, malloc1,
	    F("main", "w"));
	ADD(p, 0, 1, 100, "w", 10, 10, 0, F("_int_malloc", "libc.so.6"), clone, inl, malloc2,
	    F("main", "w"));
	o.flags = PEV_REPORT_NO_HEADER | PEV_REPORT_CHILDREN | PEV_REPORT_INLINE_MARKS;
	o.callgraph = PEV_REPORT_CALLGRAPH_NONE;
	o.sort = "sym";
	text = write_ok(pev_profile_write_table, p, &o);
	/* Two entries, each with both samples: one per holder, not one per address. */
	const char *line = "   100.00%     0.00%  [.] tcache_init (inlined)\n";
	char *first = strstr(text, line);
	cr_assert_not_null(first, "%s", text);
	second = strstr(first + 1, line);
	cr_expect_not_null(second, "%s", text);
	cr_expect_null(second ? strstr(second + 1, line) : NULL, "%s", text);
	cr_expect_null(strstr(text, "50.00%"), "%s", text);
	free(text);
	/* Without inline marks, no entry of an inlined function at all. */
	o.flags = PEV_REPORT_NO_HEADER | PEV_REPORT_CHILDREN;
	text = write_ok(pev_profile_write_table, p, &o);
	cr_expect_null(strstr(text, "tcache_init (inlined)"), "%s", text);
	free(text);
	pev_profile_free(p);
}

Test(report, callgraph_print_types)
{
	struct pev_profile *p = basic();
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	char *text;

	/* leaf: leaf <- a <- main (500), leaf <- main (300), of 1400 in all. */
	o.flags = PEV_REPORT_NO_HEADER;
	o.callgraph = PEV_REPORT_CALLGRAPH_CALLEE;
	o.percent_limit = 50;
	o.callgraph_print = PEV_REPORT_CG_FRACTAL;
	text = write_ok(pev_profile_write_table, p, &o);
	expect_text(text, "    57.14%  w        w                  [.] leaf\n"
			  "            |\n"
			  "            ---leaf\n"
			  "               |          \n"
			  "               |--62.50%--a\n"
			  "               |          main\n"
			  "               |          \n"
			  "                --37.50%--main\n"
			  "\n"
			  "\n"
			  "\n");
	free(text);
	/* Fractal with a 40% threshold: main's 37.5% of leaf is what "[...]" stands for. */
	o.callgraph_limit = 40;
	text = write_ok(pev_profile_write_table, p, &o);
	expect_text(text, "    57.14%  w        w                  [.] leaf\n"
			  "            |\n"
			  "            ---leaf\n"
			  "               |          \n"
			  "               |--62.50%--a\n"
			  "               |          main\n"
			  "                --37.50%--[...]\n"
			  "\n"
			  "\n"
			  "\n");
	free(text);
	o.callgraph_limit = 0;
	o.callgraph_print = PEV_REPORT_CG_FLAT;
	text = write_ok(pev_profile_write_table, p, &o);
	expect_text(text, "    57.14%  w        w                  [.] leaf\n"
			  "           35.71%\n"
			  "                leaf\n"
			  "                a\n"
			  "                main\n"
			  "\n"
			  "           21.43%\n"
			  "                leaf\n"
			  "                main\n"
			  "\n"
			  "\n"
			  "\n");
	free(text);
	o.callgraph_print = PEV_REPORT_CG_FOLDED;
	o.callgraph_value = PEV_REPORT_CG_COUNT;
	text = write_ok(pev_profile_write_table, p, &o);
	expect_text(text, "    57.14%  w        w                  [.] leaf\n"
			  "5 leaf;a;main\n"
			  "3 leaf;main\n"
			  "\n"
			  "\n");
	free(text);
	/* The print limit: one branch per level; the period as the value. */
	o.callgraph_print = PEV_REPORT_CG_GRAPH;
	o.callgraph_value = PEV_REPORT_CG_PERIOD;
	o.callgraph_print_limit = 1;
	text = write_ok(pev_profile_write_table, p, &o);
	expect_text(text, "    57.14%  w        w                  [.] leaf\n"
			  "            |\n"
			  "            ---leaf\n"
			  "               |          \n"
			  "               |--500--a\n"
			  "               |          main\n"
			  "\n"
			  "\n"
			  "\n");
	free(text);
	/* Two frames of each stack, from the leaf; with children, from the outermost caller. */
	o.callgraph_value = PEV_REPORT_CG_PERCENT;
	o.callgraph_print_limit = 0;
	o.max_stack = 2;
	o.percent_limit = 20;
	o.sort = "sym";
	text = write_ok(pev_profile_write_table, p, &o);
	expect_text(text, "    57.14%  [.] leaf\n"
			  "            |          \n"
			  "            |--35.71%--a\n"
			  "            |          \n"
			  "             --21.43%--main\n"
			  "\n"
			  "    21.43%  [.] b\n"
			  "            |\n"
			  "            ---a\n"
			  "\n"
			  "\n"
			  "\n");
	free(text);
	o.flags |= PEV_REPORT_CHILDREN;
	o.callgraph = PEV_REPORT_CALLGRAPH_CALLER;
	text = write_ok(pev_profile_write_table, p, &o);
	expect_text(text, "    92.86%     0.00%  [.] main\n"
			  "            |          \n"
			  "            |--57.14%--a\n"
			  "            |          \n"
			  "            |--21.43%--leaf\n"
			  "            |          \n"
			  "            |--7.14%--[unknown]\n"
			  "            |          \n"
			  "             --7.14%--write\n"
			  "\n"
			  "    57.14%    57.14%  [.] leaf\n"
			  "            |          \n"
			  "            |--35.71%--a\n"
			  "            |          \n"
			  "             --21.43%--leaf\n"
			  "\n"
			  "    57.14%     0.00%  [.] a\n"
			  "    21.43%    21.43%  [.] b\n"
			  "            |\n"
			  "            ---a\n"
			  "\n"
			  "\n"
			  "\n");
	free(text);
	pev_profile_free(p);
}

/*
 * --max-stack counts addresses, as perf: not a function inlined at an
 * address (it comes with its address), nor arm64's leaf caller from the
 * link register (a frame the chain did not hold). Here leaf <- caller
 * (from x30) <- mid (inlined into outer) <- outer <- main: two addresses
 * from the leaf are leaf and outer, with caller and mid between.
 */
Test(report, max_stack_counts_addresses)
{
	struct pev_profile *p = NULL;
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	struct pev_profile_frame lr = F("caller", "w"), mid = F("mid", "w");
	char *text;

	lr.flags = PEV_FRAME_LINK_REGISTER;
	mid.flags = PEV_FRAME_INLINED;
	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "cpu-clock", PEV_PROFILE_UNIT_NANOSECONDS), 0);
	ADD(p, 0, 1, 100, "w", 10, 10, 0, F("leaf", "w"), lr, mid, F("outer", "w"), F("main", "w"));
	o.flags = PEV_REPORT_NO_HEADER | PEV_REPORT_INLINE_MARKS;
	o.sort = "sym";
	o.callgraph = PEV_REPORT_CALLGRAPH_CALLEE;
	o.max_stack = 2;
	text = write_ok(pev_profile_write_table, p, &o);
	expect_text(text, "   100.00%  [.] leaf\n"
			  "            |\n"
			  "            ---caller\n"
			  "               mid (inlined)\n"
			  "               outer\n"
			  "\n"
			  "\n"
			  "\n");
	free(text);
	/*
	 * From the outermost caller: main and outer, with the function inlined
	 * into outer (the graph of a --no-children entry starts below the
	 * window's outermost frame, as with two frames that count alone).
	 */
	o.callgraph = PEV_REPORT_CALLGRAPH_CALLER;
	text = write_ok(pev_profile_write_table, p, &o);
	expect_text(text, "   100.00%  [.] leaf\n"
			  "            |\n"
			  "            ---outer\n"
			  "               mid (inlined)\n"
			  "\n"
			  "\n"
			  "\n");
	free(text);
	pev_profile_free(p);
}

/* ---- folded stacks -------------------------------------------------------------------- */

Test(report, folded_exact)
{
	struct pev_profile *p = basic();
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	char *text = write_ok(pev_profile_write_folded, p, NULL);

	expect_text(text, "sh;main;memcpy 1\n"
			  "w;main;[unknown] 1\n"
			  "w;main;a;b 1\n"
			  "w;main;a;leaf 5\n"
			  "w;main;leaf 3\n"
			  "w;main;write;schedule 1\n");
	free(text);

	o.flags = PEV_REPORT_ANNOTATE | PEV_REPORT_ADDRESSES | PEV_REPORT_PERIOD;
	text = write_ok(pev_profile_write_folded, p, &o);
	expect_text(text, "sh;main;memcpy 100\n"
			  "w;main;0x1234 100\n"
			  "w;main;a;b 300\n"
			  "w;main;a;leaf 500\n"
			  "w;main;leaf 300\n"
			  "w;main;write;schedule_[k] 100\n");
	free(text);

	o.flags = PEV_REPORT_TID;
	text = write_ok(pev_profile_write_folded, p, &o);
	expect_text(text, "sh-20/20;main;memcpy 1\n"
			  "w-10/10;main;[unknown] 1\n"
			  "w-10/10;main;a;b 1\n"
			  "w-10/10;main;a;leaf 5\n"
			  "w-10/10;main;write;schedule 1\n"
			  "w-10/11;main;leaf 3\n");
	free(text);

	o.flags = PEV_REPORT_PID;
	text = write_ok(pev_profile_write_folded, p, &o);
	expect_has(text, "w-10;main;leaf 3\n");
	free(text);

	/* Without the command, the two "main" roots (w's and sh's) are one frame. */
	o.flags = PEV_REPORT_NO_COMM;
	text = write_ok(pev_profile_write_folded, p, &o);
	expect_text(text, "main;[unknown] 1\n"
			  "main;a;b 1\n"
			  "main;a;leaf 5\n"
			  "main;leaf 3\n"
			  "main;memcpy 1\n"
			  "main;write;schedule 1\n");
	free(text);
	pev_profile_free(p);
}

Test(report, folded_names_and_inline)
{
	struct pev_profile *p = NULL;
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	struct pev_profile_frame inl = F("inl", "x");
	char *text;

	inl.flags = PEV_FRAME_INLINED;
	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "e", PEV_PROFILE_UNIT_COUNT), 0);
	/* ';' would split a frame and a newline a line: both are replaced. */
	ADD(p, 0, 2, 1, "my prog", 1, 1, 0, F("a;b\nc", "x"), F("main", "x"));
	ADD(p, 0, 1, 1, "my prog", 1, 1, 0, inl, F("outer", "x"), F("main", "x"));
	add(p, 0, 1, 1, NULL, 1, 1, 0, NULL, 0);
	text = write_ok(pev_profile_write_folded, p, NULL);
	expect_text(text, "[unknown] 1\n"
			  "my prog;main;a:b c 2\n"
			  "my prog;main;outer;inl 1\n");
	free(text);
	o.flags = PEV_REPORT_ANNOTATE;
	text = write_ok(pev_profile_write_folded, p, &o);
	expect_has(text, "my prog;main;outer;inl_[i] 1\n");
	free(text);
	o.flags = PEV_REPORT_NO_INLINE | PEV_REPORT_NO_COMM;
	text = write_ok(pev_profile_write_folded, p, &o);
	expect_text(text, "[unknown] 1\nmain;a:b c 2\nmain;outer 1\n");
	free(text);
	pev_profile_free(p);
}

/* A tiny deterministic generator for the random profiles. */
static uint32_t rnd(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(*state >> 33);
}

struct expected_line {
	char *stack;
	uint64_t count;
};

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(((const struct expected_line *)a)->stack,
		      ((const struct expected_line *)b)->stack);
}

Test(report, folded_random_profile_against_samples)
{
	static const char *names[] = {"alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"};
	static const char *comms[] = {"one", "two", "three"};
	struct pev_profile *p = NULL;
	struct expected_line *want = calloc(3000, sizeof(*want));
	size_t nwant = 0, nlines = 0;
	uint64_t state = 42, sum = 0;
	char *text, *save = NULL;

	cr_assert_not_null(want);
	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "e", PEV_PROFILE_UNIT_COUNT), 0);
	for (int i = 0; i < 3000; i++) {
		struct pev_profile_frame fr[12];
		char line[512];
		const char *comm = comms[rnd(&state) % 3];
		unsigned depth = rnd(&state) % 12;

		for (unsigned d = 0; d < depth; d++) {
			unsigned k = rnd(&state) % 8;
			fr[d] = (struct pev_profile_frame){.address = 0x400000 + k * 16 + d,
							   .symbol = names[k], .dso = "prog"};
		}
		add(p, 0, 1, 1 + rnd(&state) % 50, comm, 1, 1, 0, fr, depth);
		/* The folded line this sample belongs to, built from the sample itself. */
		snprintf(line, sizeof(line), "%s", comm);
		for (unsigned d = depth; d-- > 0;)
			snprintf(line + strlen(line), sizeof(line) - strlen(line), ";%s", fr[d].symbol);
		for (size_t j = 0; j <= nwant; j++) {
			if (j == nwant) {
				want[nwant].stack = strdup(line);
				want[nwant++].count = 1;
				break;
			}
			if (strcmp(want[j].stack, line) == 0) {
				want[j].count++;
				break;
			}
		}
	}
	text = write_ok(pev_profile_write_folded, p, NULL);
	qsort(want, nwant, sizeof(*want), cmp_lines);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *space = strrchr(l, ' ');
		struct expected_line key, *hit;

		cr_assert_not_null(space, "line without a count: %s", l);
		*space = '\0';
		key.stack = l;
		hit = bsearch(&key, want, nwant, sizeof(*want), cmp_lines);
		cr_assert_not_null(hit, "stack not among the samples: %s", l);
		cr_expect_eq(strtoull(space + 1, NULL, 10), hit->count, "count of %s", l);
		hit->count = 0; /* each stack exactly once */
		sum += strtoull(space + 1, NULL, 10);
		nlines++;
	}
	cr_expect_eq(nlines, nwant, "every distinct stack has its line");
	cr_expect_eq(sum, 3000, "the counts add up to the samples");
	for (size_t j = 0; j < nwant; j++)
		free(want[j].stack);
	free(want);
	free(text);
	pev_profile_free(p);
}

/* ---- flame graph ---------------------------------------------------------------------- */

/* Parses an SVG, failing the test when it is not well-formed XML. */
static xmlDocPtr parse_svg(const char *text, size_t len)
{
	xmlDocPtr doc = xmlReadMemory(text, (int)len, "graph.svg", NULL,
				      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);

	cr_assert_not_null(doc, "the SVG is not well-formed XML");
	return doc;
}

/* Calls back for every element named `name` under node. */
static void each_element(xmlNodePtr node, const char *name, void (*fn)(xmlNodePtr, void *),
			 void *ctx)
{
	for (xmlNodePtr n = node; n; n = n->next) {
		if (n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0)
			fn(n, ctx);
		each_element(n->children, name, fn, ctx);
	}
}

static xmlNodePtr find_id(xmlNodePtr node, const char *id)
{
	for (xmlNodePtr n = node; n; n = n->next) {
		if (n->type == XML_ELEMENT_NODE) {
			xmlChar *v = xmlGetProp(n, (const xmlChar *)"id");
			bool hit = v && strcmp((const char *)v, id) == 0;
			xmlFree(v);
			if (hit)
				return n;
			xmlNodePtr c = find_id(n->children, id);
			if (c)
				return c;
		}
	}
	return NULL;
}

struct frame_info {
	char title[256];
	double x, width;
	char fill[32];
	char text[256];
};

struct frames {
	struct frame_info f[64];
	int n;
};

static void collect_frame(xmlNodePtr g, void *ctx)
{
	struct frames *fs = ctx;
	struct frame_info *fi;

	cr_assert_lt(fs->n, 64);
	fi = &fs->f[fs->n++];
	for (xmlNodePtr c = g->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		xmlChar *content = xmlNodeGetContent(c);
		if (strcmp((const char *)c->name, "title") == 0)
			snprintf(fi->title, sizeof(fi->title), "%s", (const char *)content);
		if (strcmp((const char *)c->name, "text") == 0)
			snprintf(fi->text, sizeof(fi->text), "%s", (const char *)content);
		if (strcmp((const char *)c->name, "rect") == 0) {
			xmlChar *x = xmlGetProp(c, (const xmlChar *)"x");
			xmlChar *w = xmlGetProp(c, (const xmlChar *)"width");
			xmlChar *fill = xmlGetProp(c, (const xmlChar *)"fill");
			fi->x = strtod((const char *)x, NULL);
			fi->width = strtod((const char *)w, NULL);
			snprintf(fi->fill, sizeof(fi->fill), "%s", (const char *)fill);
			xmlFree(x);
			xmlFree(w);
			xmlFree(fill);
		}
		xmlFree(content);
	}
}

static void count_rects(xmlNodePtr n, void *ctx)
{
	(void)n;
	(*(int *)ctx)++;
}

static const struct frame_info *frame_titled(const struct frames *fs, const char *prefix)
{
	for (int i = 0; i < fs->n; i++)
		if (strncmp(fs->f[i].title, prefix, strlen(prefix)) == 0)
			return &fs->f[i];
	cr_assert_fail("no frame titled \"%s...\"", prefix);
	return NULL;
}

Test(report, flamegraph_structure)
{
	struct pev_profile *p = basic();
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	struct frames fs = {.n = 0};
	const struct frame_info *f;
	char *text = NULL;
	size_t len = 0;
	int rects = 0;
	xmlDocPtr doc;
	xmlNodePtr group;

	o.title = "Test <graph> & co";
	cr_assert_eq(run_writer(pev_profile_write_flamegraph, p, &o, &text, &len, NULL), 0);
	doc = parse_svg(text, len);
	cr_expect_str_eq((const char *)xmlDocGetRootElement(doc)->name, "svg");
	group = find_id(xmlDocGetRootElement(doc), "frames");
	cr_assert_not_null(group);
	/* Frames: all, sh, sh;main, sh;main;memcpy, w, w;main, and under it [unknown], a, a;b,
	 * a;leaf, leaf, write, write;schedule: 13, each one <g> with one <rect>. */
	each_element(group->children, "g", collect_frame, &fs);
	each_element(group->children, "rect", count_rects, &rects);
	cr_expect_eq(fs.n, 13);
	cr_expect_eq(rects, 13);
	/* Widths in proportion: 1180 pixels between the margins for 12 samples. */
	f = frame_titled(&fs, "all (12 samples, 100.00%)");
	cr_expect_float_eq(f->x, 10.0, 0.01);
	cr_expect_float_eq(f->width, 1180.0, 0.01);
	f = frame_titled(&fs, "w (11 samples, 91.67%)");
	cr_expect_float_eq(f->width, 1180.0 * 11 / 12, 0.01);
	cr_expect_float_eq(f->x, 10.0 + 1180.0 / 12, 0.01, "w comes after sh");
	f = frame_titled(&fs, "leaf (5 samples, 41.67%)");
	cr_expect_float_eq(f->width, 1180.0 * 5 / 12, 0.01);
	cr_expect_str_eq(f->text, "leaf");
	f = frame_titled(&fs, "leaf (3 samples, 25.00%)");
	cr_expect_float_eq(f->width, 1180.0 * 3 / 12, 0.01);
	/* Colours: kernel frames blue, user ones warm, the same name the same colour. */
	{
		int r, g, b;
		f = frame_titled(&fs, "schedule (1 samples");
		cr_assert_eq(sscanf(f->fill, "rgb(%d,%d,%d)", &r, &g, &b), 3);
		cr_expect_gt(b, r, "kernel frames are blue: %s", f->fill);
		f = frame_titled(&fs, "memcpy (1 samples");
		cr_assert_eq(sscanf(f->fill, "rgb(%d,%d,%d)", &r, &g, &b), 3);
		cr_expect_gt(r, b, "user frames are warm: %s", f->fill);
		cr_expect_str_eq(frame_titled(&fs, "leaf (5")->fill, frame_titled(&fs, "leaf (3")->fill);
	}
	/* The title is escaped, the script and style are inline, nothing is fetched. */
	expect_has(text, "Test &lt;graph&gt; &amp; co");
	expect_has(text, "<script type=\"text/ecmascript\"><![CDATA[");
	expect_lacks(text, "href=");
	expect_lacks(text, "http://www.w3.org/1999/xlink");
	xmlFreeDoc(doc);
	free(text);
	pev_profile_free(p);
}

Test(report, flamegraph_escaping_truncation_and_min_width)
{
	struct pev_profile *p = NULL;
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	struct frames fs = {.n = 0};
	char longname[400];
	char *text = NULL;
	size_t len = 0;
	xmlDocPtr doc;

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "e", PEV_PROFILE_UNIT_COUNT), 0);
	ADD(p, 0, 1, 1, "c", 1, 1, 0, F("operator<<(std::ostream&, \"q\")", "x"), F(longname, "x"));
	ADD(p, 0, 1, 1, "c", 1, 1, 0, F("bad\xff\xfeutf8\x01", "x"));
	ADD(p, 0, 1000, 1, "c", 1, 1, 0, F("big", "x"));
	o.flags = PEV_REPORT_NO_COMM;
	cr_assert_eq(run_writer(pev_profile_write_flamegraph, p, &o, &text, &len, NULL), 0);
	doc = parse_svg(text, len);
	each_element(find_id(xmlDocGetRootElement(doc), "frames")->children, "g", collect_frame, &fs);
	/* all, big, bad..., the long name, operator<<: the last three 1/1002 of 1180 px wide. */
	cr_expect_eq(fs.n, 5);
	frame_titled(&fs, "operator<<(std::ostream&, \"q\") (1 samples");
	/* Bytes that are not UTF-8 are U+FFFD, as in folded stacks (perfev/text.h). */
	frame_titled(&fs, "bad\xef\xbf\xbd\xef\xbf\xbdutf8  (1 samples");
	cr_expect_str_eq(frame_titled(&fs, "big (1000")->text, "big");
	cr_expect_str_eq(frame_titled(&fs, "xxxx")->text, "", "a 1.2 px frame has no text");
	xmlFreeDoc(doc);
	free(text);
	text = NULL;

	/* Frames narrower than min_width are left out; a narrow image cuts names with "..". */
	o.min_width = 2;
	o.width = 320;
	cr_assert_eq(run_writer(pev_profile_write_flamegraph, p, &o, &text, &len, NULL), 0);
	doc = parse_svg(text, len);
	fs.n = 0;
	each_element(find_id(xmlDocGetRootElement(doc), "frames")->children, "g", collect_frame, &fs);
	cr_expect_eq(fs.n, 2, "only all and big are 2 px wide or more");
	xmlFreeDoc(doc);
	free(text);
	pev_profile_free(p);

	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "e", PEV_PROFILE_UNIT_COUNT), 0);
	ADD(p, 0, 1, 1, "c", 1, 1, 0, F(longname, "x"));
	o.min_width = 0;
	o.width = 200;
	cr_assert_eq(run_writer(pev_profile_write_flamegraph, p, &o, &text, &len, NULL), 0);
	doc = parse_svg(text, len);
	fs.n = 0;
	each_element(find_id(xmlDocGetRootElement(doc), "frames")->children, "g", collect_frame, &fs);
	{
		/* 180 px: (180 - 6) / 7.2 = 24 characters, 22 of the name and "..". */
		const struct frame_info *f = frame_titled(&fs, "xxxx");
		cr_expect_eq(strlen(f->text), 24);
		cr_expect_str_eq(f->text + 22, "..");
	}
	xmlFreeDoc(doc);
	free(text);
	pev_profile_free(p);
}

/* ---- a screenshot in headless Chromium ---------------------------------------------------- */

static uint32_t be32(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* The pixels of an 8-bit RGB or RGBA PNG, without interlacing: a minimal decoder. */
struct image {
	uint32_t w, h, bpp;
	unsigned char *px; /* h rows of w * bpp bytes */
};

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static bool png_decode(const unsigned char *d, size_t len, struct image *img)
{
	unsigned char *idat = NULL, *raw;
	size_t idat_len = 0, at = 8;
	uLongf raw_len;
	uint32_t stride;

	memset(img, 0, sizeof(*img));
	if (len < 8 || memcmp(d, "\x89PNG\r\n\x1a\n", 8) != 0)
		return false;
	while (at + 12 <= len) {
		uint32_t n = be32(d + at);
		const unsigned char *type = d + at + 4, *body = d + at + 8;
		if (at + 12 + n > len)
			return false;
		if (memcmp(type, "IHDR", 4) == 0) {
			img->w = be32(body);
			img->h = be32(body + 4);
			if (body[8] != 8 || (body[9] != 2 && body[9] != 6) || body[12] != 0)
				return false;
			img->bpp = body[9] == 6 ? 4 : 3;
		} else if (memcmp(type, "IDAT", 4) == 0) {
			idat = realloc(idat, idat_len + n);
			memcpy(idat + idat_len, body, n);
			idat_len += n;
		}
		at += 12 + n;
	}
	if (!img->w || !idat)
		return free(idat), false;
	stride = img->w * img->bpp;
	raw_len = (uLongf)(stride + 1) * img->h;
	raw = malloc(raw_len);
	img->px = malloc((size_t)stride * img->h);
	if (uncompress(raw, &raw_len, idat, idat_len) != Z_OK ||
	    raw_len != (uLongf)(stride + 1) * img->h) {
		free(idat);
		free(raw);
		return false;
	}
	free(idat);
	for (uint32_t y = 0; y < img->h; y++) {
		const unsigned char *src = raw + (size_t)y * (stride + 1) + 1;
		unsigned char *row = img->px + (size_t)y * stride;
		const unsigned char *up = y ? row - stride : NULL;
		unsigned filter = src[-1];
		for (uint32_t i = 0; i < stride; i++) {
			int a = i >= img->bpp ? row[i - img->bpp] : 0, b = up ? up[i] : 0;
			int c = (up && i >= img->bpp) ? up[i - img->bpp] : 0, v = src[i];
			switch (filter) {
			case 1: v += a; break;
			case 2: v += b; break;
			case 3: v += (a + b) / 2; break;
			case 4: v += paeth(a, b, c); break;
			default: break;
			}
			row[i] = (unsigned char)v;
		}
	}
	free(raw);
	return true;
}

struct pixel_counts {
	long warm, blue, magenta, total;
};

static void count_pixels(const struct image *img, struct pixel_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < (size_t)img->w * img->h; i++) {
		const unsigned char *px = img->px + i * img->bpp;
		int r = px[0], g = px[1], b = px[2];
		c->total++;
		if (r > 200 && g >= 60 && b < 80 && r - b > 120)
			c->warm++; /* a user frame */
		if (b > 200 && r < 160 && b - r > 50)
			c->blue++; /* a kernel frame */
		if (r > 200 && g < 40 && b > 200)
			c->magenta++; /* a search match */
	}
}

/* Screenshots url with Chromium into png; false (with why) when Chromium is absent. */
static bool screenshot(const char *chromium, const char *url, const char *png, const char *dir)
{
	char shot[600], profile[600], limit[16];
	char *out = NULL, *err = NULL;
	char *argv[] = {"/usr/bin/timeout", limit, (char *)chromium, "--headless", "--no-sandbox",
			"--disable-gpu", "--hide-scrollbars", "--no-first-run",
			"--window-size=1200,800", profile, shot, (char *)url, NULL};
	int status;

	/* Chromium starts in seconds, in minutes under emulation (the lab). */
	snprintf(limit, sizeof(limit), "%d", 120 * th_time_scale());
	snprintf(shot, sizeof(shot), "--screenshot=%s", png);
	snprintf(profile, sizeof(profile), "--user-data-dir=%s/chromium-profile", dir);
	unlink(png);
	status = th_run(argv, false, &out, &err);
	cr_expect_eq(status, 0, "chromium failed (%d): %s", status, err);
	free(out);
	free(err);
	return status == 0;
}

static bool read_file(const char *path, unsigned char **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return false;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	*data = malloc((size_t)n + 1);
	*len = fread(*data, 1, (size_t)n, f);
	fclose(f);
	return *len == (size_t)n;
}

Test(report, flamegraph_in_headless_chromium)
{
	char *chromium = th_which("chromium");
	char svg[300], png[300], url[400];
	struct pev_profile *p;
	struct pixel_counts plain, searched, zoomed;
	struct image img;
	unsigned char *data;
	size_t len;
	FILE *f;

	if (!chromium)
		chromium = th_which("chromium-browser");
	/* Not cr_log_warn: Criterion 2.4 then exits 1 though every test passed. */
	if (!chromium)
		th_skip("chromium is not installed (scripts/install-deps.sh installs it): "
			"the browser check of the flame graph is skipped");
	const char *dir = th_temp_dir("flame"); /* removed at exit, chromium's profile too */
	snprintf(svg, sizeof(svg), "%s/graph.svg", dir);
	snprintf(png, sizeof(png), "%s/shot.png", dir);
	p = basic();
	f = fopen(svg, "w");
	cr_assert_not_null(f);
	cr_assert_eq(pev_profile_write_flamegraph(p, f, NULL, NULL), 0);
	cr_assert_eq(fclose(f), 0);

	/* As written: frames are drawn, warm user frames and a blue kernel frame. */
	snprintf(url, sizeof(url), "file://%s", svg);
	cr_assert(screenshot(chromium, url, png, dir));
	cr_assert(read_file(png, &data, &len), "no screenshot at %s", png);
	cr_assert(png_decode(data, len, &img), "the screenshot is not a PNG this test reads");
	free(data);
	cr_expect_eq(img.w, 1200);
	count_pixels(&img, &plain);
	free(img.px);
	cr_expect_gt(plain.warm, 20000, "user frames drawn (%ld warm pixels)", plain.warm);
	cr_expect_gt(plain.blue, 500, "the kernel frame drawn (%ld blue pixels)", plain.blue);
	cr_expect_eq(plain.magenta, 0);

	/* The script runs: a search from the link colours the matching frames. */
	snprintf(url, sizeof(url), "file://%s#s=leaf", svg);
	cr_assert(screenshot(chromium, url, png, dir));
	cr_assert(read_file(png, &data, &len));
	cr_assert(png_decode(data, len, &img));
	free(data);
	count_pixels(&img, &searched);
	free(img.px);
	cr_expect_gt(searched.magenta, 5000, "search matches coloured (%ld)", searched.magenta);

	/* Zooming into the kernel frame's parent stretches it over the whole width. */
	snprintf(url, sizeof(url), "file://%s#z=write", svg);
	cr_assert(screenshot(chromium, url, png, dir));
	cr_assert(read_file(png, &data, &len));
	cr_assert(png_decode(data, len, &img));
	free(data);
	count_pixels(&img, &zoomed);
	free(img.px);
	cr_expect_gt(zoomed.blue, plain.blue * 8, "zoomed: %ld blue pixels, before %ld", zoomed.blue,
		     plain.blue);

	pev_profile_free(p);
	free(chromium);
}

/* ---- pprof ------------------------------------------------------------------------------ */

static Pev__Pprof__Profile *decode_pprof(const char *gz, size_t len)
{
	size_t out_len;
	unsigned char *out;
	Pev__Pprof__Profile *prof;

	cr_assert_gt(len, 2);
	cr_expect_eq((unsigned char)gz[0], 0x1f, "gzip magic");
	cr_expect_eq((unsigned char)gz[1], 0x8b, "gzip magic");
	out = th_gunzip(gz, len, &out_len);
	cr_assert_eq(pev__report_dl_protobuf("test", NULL), 0);
	prof = pev__pprof__profile__unpack(NULL, out_len, out);
	free(out);
	cr_assert_not_null(prof, "protobuf-c cannot decode the profile");
	return prof;
}

static const char *pstr(const Pev__Pprof__Profile *prof, int64_t i)
{
	cr_assert(i >= 0 && (size_t)i < prof->n_string_table, "string index %" PRId64, i);
	return prof->string_table[i];
}

static const Pev__Pprof__Location *ploc(const Pev__Pprof__Profile *prof, uint64_t id)
{
	for (size_t i = 0; i < prof->n_location; i++)
		if (prof->location[i]->id == id)
			return prof->location[i];
	cr_assert_fail("no location %" PRIu64, id);
	return NULL;
}

static const Pev__Pprof__Function *pfn(const Pev__Pprof__Profile *prof, uint64_t id)
{
	for (size_t i = 0; i < prof->n_function; i++)
		if (prof->function[i]->id == id)
			return prof->function[i];
	cr_assert_fail("no function %" PRIu64, id);
	return NULL;
}

/* A sample's stack as "leaf;...;root" from its locations (inline chains innermost first). */
static void pstack(const Pev__Pprof__Profile *prof, const Pev__Pprof__Sample *s, char *buf,
		   size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < s->n_location_id; i++) {
		const Pev__Pprof__Location *l = ploc(prof, s->location_id[i]);
		if (l->n_line == 0)
			snprintf(buf + strlen(buf), size - strlen(buf), "%s0x%" PRIx64, buf[0] ? ";" : "",
				 l->address);
		for (size_t k = 0; k < l->n_line; k++)
			snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? ";" : "",
				 pstr(prof, pfn(prof, l->line[k]->function_id)->name));
	}
}

static const char *plabel(const Pev__Pprof__Profile *prof, const Pev__Pprof__Sample *s,
			  const char *key, int64_t *num)
{
	for (size_t i = 0; i < s->n_label; i++)
		if (strcmp(pstr(prof, s->label[i]->key), key) == 0) {
			if (num)
				*num = s->label[i]->num;
			return pstr(prof, s->label[i]->str);
		}
	return NULL;
}

Test(report, pprof_decoded_back)
{
	struct pev_profile *p = basic();
	Pev__Pprof__Profile *prof;
	char *gz = NULL, stack[512];
	size_t len = 0;
	int64_t total_samples = 0, total_period = 0;
	bool seen_leaf_a = false, seen_unresolved = false;

	cr_assert_eq(pev_profile_set_time(p, 1700000000000000000ULL, 5000000000ULL), 0);
	cr_assert_eq(run_writer(pev_profile_write_pprof, p, NULL, &gz, &len, NULL), 0);
	prof = decode_pprof(gz, len);

	cr_assert_gt(prof->n_string_table, 0);
	cr_expect_str_eq(prof->string_table[0], "");
	cr_assert_eq(prof->n_sample_type, 2);
	cr_expect_str_eq(pstr(prof, prof->sample_type[0]->type), "samples");
	cr_expect_str_eq(pstr(prof, prof->sample_type[0]->unit), "count");
	cr_expect_str_eq(pstr(prof, prof->sample_type[1]->type), "cpu");
	cr_expect_str_eq(pstr(prof, prof->sample_type[1]->unit), "nanoseconds");
	cr_assert_not_null(prof->period_type);
	cr_expect_str_eq(pstr(prof, prof->period_type->type), "cpu");
	cr_expect_eq(prof->period, 1400 / 12, "no fixed period: the mean");
	cr_expect_str_eq(pstr(prof, prof->default_sample_type), "cpu");
	cr_expect_eq(prof->time_nanos, 1700000000000000000LL);
	cr_expect_eq(prof->duration_nanos, 5000000000LL);
	cr_assert_geq(prof->n_comment, 1);
	cr_expect_str_eq(pstr(prof, prof->comment[0]), "perfev " PEV_VERSION_STRING);

	/* Distinct (stack, comm, pid): leaf<-a<-main, leaf<-main, b<-a<-main, memcpy<-main,
	 * schedule<-write<-main, 0x1234<-main. */
	cr_expect_eq(prof->n_sample, 6);
	for (size_t i = 0; i < prof->n_sample; i++) {
		const Pev__Pprof__Sample *s = prof->sample[i];
		int64_t pid = -1;
		const char *comm = plabel(prof, s, "comm", NULL);

		cr_assert_eq(s->n_value, 2);
		total_samples += s->value[0];
		total_period += s->value[1];
		cr_assert_not_null(comm);
		plabel(prof, s, "pid", &pid);
		cr_expect_eq(pid, strcmp(comm, "sh") == 0 ? 20 : 10);
		pstack(prof, s, stack, sizeof(stack));
		if (strcmp(stack, "leaf;a;main") == 0) {
			seen_leaf_a = true;
			cr_expect_eq(s->value[0], 5);
			cr_expect_eq(s->value[1], 500);
		}
		if (strcmp(stack, "0x1234;main") == 0)
			seen_unresolved = true;
		if (strcmp(stack, "schedule;write;main") == 0)
			cr_expect_eq(s->value[1], 100);
	}
	cr_expect(seen_leaf_a);
	cr_expect(seen_unresolved, "an unresolved frame is a location without lines");
	cr_expect_eq(total_samples, 12);
	cr_expect_eq(total_period, 1400);

	/* Functions: leaf, a, main, b, memcpy, schedule, write (main of w and sh share name and
	 * file: one function). Mappings: w, libc.so.6, sh, [kernel.kallsyms]. */
	cr_expect_eq(prof->n_function, 7);
	cr_expect_eq(prof->n_mapping, 4);
	for (size_t i = 0; i < prof->n_mapping; i++) {
		const Pev__Pprof__Mapping *m = prof->mapping[i];
		cr_expect_neq(m->id, 0);
		cr_expect_gt(m->memory_limit, m->memory_start);
		if (strcmp(pstr(prof, m->filename), "w") == 0) {
			cr_expect(m->has_functions);
			cr_expect_eq(m->memory_start, 0x1000);
			cr_expect_eq(m->memory_limit, 0x1235, "covers the unresolved 0x1234");
		}
	}
	for (size_t i = 0; i < prof->n_location; i++)
		cr_expect_neq(prof->location[i]->id, 0);
	pev__pprof__profile__free_unpacked(prof, NULL);
	free(gz);
	pev_profile_free(p);
}

/* An unresolved address in a file: run-time address a_, offset o_ in the file d_. */
#define UO(a_, o_, d_)                                                                             \
	((struct pev_profile_frame){.address = (a_), .dso = (d_), .flags = PEV_FRAME_DSO_OFFSET, \
				    .dso_offset = (o_)})

/*
 * One spot of a library run by two processes at two run-time addresses is
 * one unresolved symbol, shown by its offset in the file (as perf), in the
 * table and in pprof, whose locations and mapping are
 * offsets in the file (file_offset set so that they map to themselves).
 */
Test(report, unresolved_shown_by_file_offset)
{
	struct pev_profile *p = NULL;
	Pev__Pprof__Profile *prof;
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	char *gz = NULL, *text;
	size_t len = 0;

	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "cpu-clock", PEV_PROFILE_UNIT_NANOSECONDS), 0);
	ADD(p, 0, 2, 100, "w", 10, 10, 0, UO(0x7f0000002234, 0x1234, "lib.so"), F("main", "w"));
	ADD(p, 0, 1, 100, "w", 20, 20, 0, UO(0x7f2000006234, 0x1234, "lib.so"), F("main", "w"));

	text = write_ok(pev_profile_write_table, p, &o);
	expect_has(text, "[.] 0x0000000000001234");
	cr_expect_null(strstr(text, "0x00007f"), "a run-time address is shown:\n%s", text);
	char *row = strstr(text, "[.] 0x");
	cr_expect(row && !strstr(row + 1, "[.] 0x"), "not one row:\n%s", text);
	free(text);

	cr_assert_eq(run_writer(pev_profile_write_pprof, p, NULL, &gz, &len, NULL), 0);
	prof = decode_pprof(gz, len);
	bool seen = false;
	for (size_t i = 0; i < prof->n_location; i++) {
		const Pev__Pprof__Location *l = prof->location[i];
		if (l->n_line)
			continue;
		cr_expect_eq(l->address, 0x1234, "location at 0x%" PRIx64, l->address);
		seen = true;
	}
	cr_expect(seen);
	for (size_t i = 0; i < prof->n_mapping; i++) {
		const Pev__Pprof__Mapping *m = prof->mapping[i];
		if (strcmp(pstr(prof, m->filename), "lib.so") != 0)
			continue;
		cr_expect_eq(m->memory_start, 0x1234);
		cr_expect_eq(m->memory_limit, 0x1235);
		cr_expect_eq(m->file_offset, 0x1234);
	}
	pev__pprof__profile__free_unpacked(prof, NULL);
	free(gz);
	pev_profile_free(p);
}

/* The first mapping of a pprof profile, by name. */
static const char *pmain(const Pev__Pprof__Profile *prof)
{
	return prof->n_mapping ? pstr(prof, prof->mapping[0]->filename) : "(none)";
}

static const Pev__Pprof__Mapping *pmapping(const Pev__Pprof__Profile *prof, const char *file)
{
	for (size_t i = 0; i < prof->n_mapping; i++)
		if (strcmp(pstr(prof, prof->mapping[i]->filename), file) == 0)
			return prof->mapping[i];
	return NULL;
}

/*
 * pprof's main binary (its first mapping) is the program: without a word
 * from pev_profile_add_mapping, the file named like a program in the most
 * stacks; with PEV_PROFILE_MAPPING_MAIN, that one, even without a frame.
 * Mappings get the build ids and ranges described; samples get comm, pid,
 * tid and cpu (when known) labels by default.
 */
Test(report, pprof_main_mapping_build_ids_labels)
{
	static const unsigned char bid[20] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6,
					      7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
	struct pev_profile_mapping m = PEV_PROFILE_MAPPING_INIT;
	struct pev_profile_frame libc = {.address = 0x7f0000026100, .symbol = "memcpy",
					 .dso = "/lib/libc.so.6", .flags = PEV_FRAME_DSO_OFFSET,
					 .dso_offset = 0x26100};
	struct pev_profile *p = NULL;
	Pev__Pprof__Profile *prof;
	const Pev__Pprof__Mapping *x;
	char *gz = NULL;
	size_t len = 0;
	int64_t num;

	uint64_t start = 1, duration = 1;

	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(pev_profile_time(p, &start, &duration), 0);
	cr_expect(start == 0 && duration == 0, "no time yet");
	cr_expect_eq(pev_profile_time(NULL, &start, NULL), PEV_EBADARG);
	cr_assert_eq(add_event(p, "cpu-clock", PEV_PROFILE_UNIT_NANOSECONDS), 0);
	ADD(p, 0, 5, 100, "w", 10, 11, -1, libc);
	ADD(p, 0, 3, 100, "w", 10, 10, 2, libc, F("main", "/bin/w"));
	ADD(p, 0, 1, 100, "sh", 20, 20, 1, F("main", "/bin/sh"));

	cr_assert_eq(run_writer(pev_profile_write_pprof, p, NULL, &gz, &len, NULL), 0);
	prof = decode_pprof(gz, len);
	cr_expect_str_eq(pmain(prof), "/bin/w", "the program in the most stacks comes first");
	for (size_t i = 0; i < prof->n_sample; i++) {
		const Pev__Pprof__Sample *s = prof->sample[i];
		int64_t tid = -1;
		cr_expect_not_null(plabel(prof, s, "comm", NULL));
		cr_expect(plabel(prof, s, "tid", &tid) != NULL, "no tid label");
		bool cpu = plabel(prof, s, "cpu", &num) != NULL;
		cr_expect_eq(cpu, tid != 11, "a cpu label only where the sample has a CPU");
		if (tid == 10)
			cr_expect_eq(num, 2);
	}
	pev__pprof__profile__free_unpacked(prof, NULL);
	free(gz);

	m.dso = "/lib/libc.so.6";
	m.start = m.file_offset = 0x26000;
	m.limit = 0x17c000;
	m.build_id = bid;
	m.build_id_size = sizeof(bid);
	cr_assert_eq(pev_profile_add_mapping(p, &m), 0);
	m = (struct pev_profile_mapping)PEV_PROFILE_MAPPING_INIT;
	m.dso = "/usr/bin/python3";
	m.start = m.file_offset = 0x1000;
	m.limit = 0x3000;
	m.flags = PEV_PROFILE_MAPPING_MAIN;
	cr_assert_eq(pev_profile_add_mapping(p, &m), 0);
	cr_assert_eq(run_writer(pev_profile_write_pprof, p, NULL, &gz, &len, NULL), 0);
	prof = decode_pprof(gz, len);
	cr_expect_str_eq(pmain(prof), "/usr/bin/python3", "the program said, without frames");
	cr_expect_eq(prof->mapping[0]->memory_start, 0x1000);
	cr_expect_eq(prof->mapping[0]->memory_limit, 0x3000);
	cr_expect_eq(prof->mapping[0]->file_offset, 0x1000);
	x = pmapping(prof, "/lib/libc.so.6");
	cr_assert_not_null(x);
	cr_expect_str_eq(pstr(prof, x->build_id), "deadbeef0102030405060708090a0b0c0d0e0f10");
	cr_expect_eq(x->memory_start, 0x26000);
	cr_expect_eq(x->memory_limit, 0x17c000);
	cr_expect_eq(x->file_offset, 0x26000);
	cr_expect(x->has_functions);
	pev__pprof__profile__free_unpacked(prof, NULL);
	free(gz);

	/* Refused: no DSO, a range backwards, a build id too long, unknown flags. */
	m = (struct pev_profile_mapping)PEV_PROFILE_MAPPING_INIT;
	cr_expect_eq(pev_profile_add_mapping(p, &m), PEV_EBADARG);
	m.dso = "/x";
	m.start = 2;
	m.limit = 1;
	cr_expect_eq(pev_profile_add_mapping(p, &m), PEV_EBADARG);
	m.limit = 3;
	m.build_id = bid;
	m.build_id_size = 65;
	cr_expect_eq(pev_profile_add_mapping(p, &m), PEV_EBADARG);
	m.build_id_size = 0;
	m.flags = 2;
	cr_expect_eq(pev_profile_add_mapping(p, &m), PEV_EBADARG);
	cr_expect_eq(pev_profile_add_mapping(NULL, &m), PEV_EBADARG);
	pev_profile_free(p);
}

Test(report, pprof_inline_events_labels)
{
	struct pev_profile *p = NULL;
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	struct pev_profile_event ev = PEV_PROFILE_EVENT_INIT;
	struct pev_profile_frame inl = F("inlined_fn", "x");
	Pev__Pprof__Profile *prof;
	char *gz = NULL, stack[256];
	size_t len = 0;

	inl.address = 0x2000;
	inl.file = "x.c";
	inl.line = 12;
	inl.flags = PEV_FRAME_INLINED;
	cr_assert_eq(pev_profile_new(&p), 0);
	ev.name = "cycles";
	ev.period = 100003;
	cr_assert_eq(pev_profile_add_event(p, &ev), 0);
	cr_assert_eq(add_event(p, "instructions", PEV_PROFILE_UNIT_COUNT), 1);
	{
		struct pev_profile_frame outer = F("outer", "x");
		outer.address = 0x2000;
		outer.file = "x.c";
		outer.line = 40;
		ADD(p, 0, 2, 100003, "x", 5, 6, 1, inl, outer, F("main", "x"));
		ADD(p, 1, 3, 7, "x", 5, 7, 2, inl, outer, F("main", "x"));
	}

	o.labels = PEV_REPORT_LABEL_TID | PEV_REPORT_LABEL_CPU;
	cr_assert_eq(run_writer(pev_profile_write_pprof, p, &o, &gz, &len, NULL), 0);
	prof = decode_pprof(gz, len);
	/* Two events: four value types, in event order. */
	cr_assert_eq(prof->n_sample_type, 4);
	cr_expect_str_eq(pstr(prof, prof->sample_type[0]->type), "cycles_samples");
	cr_expect_str_eq(pstr(prof, prof->sample_type[1]->type), "cycles");
	cr_expect_str_eq(pstr(prof, prof->sample_type[2]->type), "instructions_samples");
	cr_expect_str_eq(pstr(prof, prof->sample_type[3]->type), "instructions");
	cr_expect_str_eq(pstr(prof, prof->sample_type[3]->unit), "count");
	cr_expect_eq(prof->period, 100003);
	/* Different tids: two samples, each with tid and cpu labels and no comm. */
	cr_assert_eq(prof->n_sample, 2);
	for (size_t i = 0; i < prof->n_sample; i++) {
		const Pev__Pprof__Sample *s = prof->sample[i];
		int64_t tid = 0, cpu = 0;
		cr_expect_null(plabel(prof, s, "comm", NULL));
		cr_assert_not_null(plabel(prof, s, "tid", &tid));
		cr_assert_not_null(plabel(prof, s, "cpu", &cpu));
		cr_assert_eq(s->n_value, 4);
		if (tid == 6) {
			cr_expect_eq(cpu, 1);
			cr_expect(s->value[0] == 2 && s->value[1] == 200006 && s->value[2] == 0 &&
				  s->value[3] == 0);
		} else {
			cr_expect_eq(tid, 7);
			cr_expect(s->value[0] == 0 && s->value[1] == 0 && s->value[2] == 3 &&
				  s->value[3] == 21);
		}
		/* The inlined function and the one it is in are one location, innermost first. */
		cr_assert_eq(s->n_location_id, 2);
		pstack(prof, s, stack, sizeof(stack));
		cr_expect_str_eq(stack, "inlined_fn;outer;main");
		{
			const Pev__Pprof__Location *l = ploc(prof, s->location_id[0]);
			cr_assert_eq(l->n_line, 2);
			cr_expect_eq(l->address, 0x2000);
			cr_expect_eq(l->line[0]->line, 12);
			cr_expect_eq(l->line[1]->line, 40);
			cr_expect_str_eq(pstr(prof, pfn(prof, l->line[0]->function_id)->filename), "x.c");
		}
	}
	cr_assert_eq(prof->n_mapping, 1);
	cr_expect(prof->mapping[0]->has_inline_frames);
	cr_expect(prof->mapping[0]->has_line_numbers);
	cr_expect(prof->mapping[0]->has_filenames);
	pev__pprof__profile__free_unpacked(prof, NULL);
	free(gz);

	/* One event by name, no labels, inlined frames dropped. */
	o.event = "instructions";
	o.labels = PEV_REPORT_LABEL_NONE;
	o.flags = PEV_REPORT_NO_INLINE;
	cr_assert_eq(run_writer(pev_profile_write_pprof, p, &o, &gz, &len, NULL), 0);
	prof = decode_pprof(gz, len);
	cr_assert_eq(prof->n_sample_type, 2);
	cr_expect_str_eq(pstr(prof, prof->sample_type[1]->type), "instructions");
	cr_assert_eq(prof->n_sample, 1);
	cr_expect_eq(prof->sample[0]->n_label, 0);
	cr_expect_eq(prof->sample[0]->value[0], 3);
	pstack(prof, prof->sample[0], stack, sizeof(stack));
	cr_expect_str_eq(stack, "outer;main");
	pev__pprof__profile__free_unpacked(prof, NULL);
	free(gz);
	pev_profile_free(p);
}

Test(report, pprof_empty_profile)
{
	struct pev_profile *p = NULL;
	Pev__Pprof__Profile *prof;
	char *gz = NULL;
	size_t len = 0;

	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(run_writer(pev_profile_write_pprof, p, NULL, &gz, &len, NULL), 0);
	prof = decode_pprof(gz, len);
	cr_expect_eq(prof->n_sample, 0);
	cr_expect_eq(prof->n_sample_type, 0);
	cr_expect_str_eq(prof->string_table[0], "");
	pev__pprof__profile__free_unpacked(prof, NULL);
	free(gz);
	pev_profile_free(p);
}

/* ---- JSON ------------------------------------------------------------------------------- */

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	cr_assert(json_object_object_get_ex(o, key, &v), "no \"%s\" in %s", key,
		  json_object_to_json_string(o));
	return v;
}

Test(report, json_parsed_back)
{
	struct pev_profile *p = basic();
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	json_object *root, *ev, *rows, *row, *cg, *kids;
	char *text;

	pev_profile_set_lost(p, 3);
	o.callgraph = PEV_REPORT_CALLGRAPH_CALLEE;
	o.flags = PEV_REPORT_PRETTY;
	text = write_ok(pev_profile_write_json, p, &o);
	root = json_tokener_parse(text);
	cr_assert_not_null(root, "not JSON: %s", text);
	cr_expect_eq(json_object_get_int64(get(root, "lost")), 3);
	cr_expect_eq(json_object_array_length(get(root, "sort")), 3);
	cr_assert_eq(json_object_array_length(get(root, "events")), 1);
	ev = json_object_array_get_idx(get(root, "events"), 0);
	cr_expect_str_eq(json_object_get_string(get(ev, "name")), "cpu-clock");
	cr_expect_str_eq(json_object_get_string(get(ev, "unit")), "nanoseconds");
	cr_expect_eq(json_object_get_int64(get(ev, "samples")), 12);
	cr_expect_eq(json_object_get_int64(get(ev, "period")), 1400);
	rows = get(ev, "rows");
	cr_assert_eq(json_object_array_length(rows), 5);
	row = json_object_array_get_idx(rows, 0);
	cr_expect(json_object_is_type(get(row, "overhead"), json_type_double));
	cr_expect_float_eq(json_object_get_double(get(row, "overhead")), 57.14, 1e-9);
	cr_expect(json_object_is_type(get(row, "period"), json_type_int));
	cr_expect_eq(json_object_get_int64(get(row, "period")), 800);
	cr_expect_eq(json_object_get_int64(get(row, "samples")), 8);
	cr_expect_str_eq(json_object_get_string(get(row, "comm")), "w");
	cr_expect_str_eq(json_object_get_string(get(row, "dso")), "w");
	cr_expect_str_eq(json_object_get_string(get(row, "symbol")), "leaf");
	cr_expect(!json_object_get_boolean(get(row, "kernel")));
	/* The call graph: leaf, then its callers a (500) and main (300). */
	cg = get(row, "callgraph");
	cr_expect_str_eq(json_object_get_string(get(cg, "mode")), "callee");
	kids = get(cg, "children");
	cr_assert_eq(json_object_array_length(kids), 1);
	cr_expect_str_eq(json_object_get_string(get(json_object_array_get_idx(kids, 0), "symbol")),
			 "leaf");
	kids = get(json_object_array_get_idx(kids, 0), "children");
	cr_assert_eq(json_object_array_length(kids), 2);
	cr_expect_str_eq(json_object_get_string(get(json_object_array_get_idx(kids, 0), "symbol")), "a");
	cr_expect_eq(json_object_get_int64(get(json_object_array_get_idx(kids, 0), "period")), 500);
	cr_expect_str_eq(json_object_get_string(get(json_object_array_get_idx(kids, 1), "symbol")),
			 "main");
	/* The unresolved row carries its address; the kernel one says so. */
	row = json_object_array_get_idx(rows, 4);
	cr_expect_eq(json_object_get_int64(get(row, "address")), 0x1234);
	row = json_object_array_get_idx(rows, 3);
	cr_expect(json_object_get_boolean(get(row, "kernel")));
	json_object_put(root);
	free(text);

	/* Other keys and children. */
	o.sort = "pid,cpu";
	o.flags = PEV_REPORT_CHILDREN;
	o.callgraph = PEV_REPORT_CALLGRAPH_NONE;
	text = write_ok(pev_profile_write_json, p, &o);
	root = json_tokener_parse(text);
	cr_assert_not_null(root);
	rows = get(json_object_array_get_idx(get(root, "events"), 0), "rows");
	row = json_object_array_get_idx(rows, 0);
	cr_expect_eq(json_object_get_int64(get(row, "pid")), 10);
	cr_expect(json_object_is_type(get(row, "cpu"), json_type_int));
	cr_expect_float_eq(json_object_get_double(get(row, "children")),
			   json_object_get_double(get(row, "overhead")), 1e-9);
	json_object_put(root);
	free(text);
	pev_profile_free(p);
}

/* ---- missing libraries and errors ----------------------------------------------------- */

Test(report, missing_protobuf_c_degrades_pprof_only)
{
	struct pev_profile *p = basic();
	struct pev_error err;
	char *text = NULL;

	pev__report_dl_names("libperfev-no-such-protobuf.so.1", "libperfev-no-such-json.so.5");
	cr_expect_eq(run_writer(pev_profile_write_pprof, p, NULL, &text, NULL, &err),
		     PEV_EUNSUPPORTED);
	expect_has(err.message, "pprof output needs libperfev-no-such-protobuf.so.1");
	expect_has(err.hint, "apt-get install libprotobuf-c1");
	free(text);
	cr_expect_eq(run_writer(pev_profile_write_json, p, NULL, &text, NULL, &err),
		     PEV_EUNSUPPORTED);
	expect_has(err.message, "JSON output needs libperfev-no-such-json.so.5");
	expect_has(err.hint, "apt-get install libjson-c5");
	free(text);
	/* The other formats do not need them. */
	text = write_ok(pev_profile_write_table, p, NULL);
	free(text);
	text = write_ok(pev_profile_write_flamegraph, p, NULL);
	free(text);
	/* Back to the real names: found again. */
	pev__report_dl_names(NULL, NULL);
	text = write_ok(pev_profile_write_pprof, p, NULL);
	free(text);
	pev_profile_free(p);
}

Test(report, writer_argument_errors)
{
	static const writer_fn writers[] = {pev_profile_write_table, pev_profile_write_folded,
					    pev_profile_write_flamegraph, pev_profile_write_pprof,
					    pev_profile_write_json};
	struct pev_profile *p = basic();
	struct {
		struct pev_report_opts o;
		uint32_t newer;
	} big;
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	struct pev_error err;
	FILE *full;

	for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++) {
		char *text = NULL;

		cr_expect_eq(writers[i](NULL, stdout, NULL, &err), PEV_EBADARG);
		expect_has(err.message, "pev_profile_write_");
		cr_expect_eq(writers[i](p, NULL, NULL, &err), PEV_EBADARG);
		o.event = "nope";
		cr_expect_eq(run_writer(writers[i], p, &o, &text, NULL, &err), PEV_ENOTFOUND);
		expect_has(err.message, "no event 'nope'");
		expect_has(err.hint, "it has 'cpu-clock'");
		free(text);
		o.event = NULL;
		memset(&big, 0, sizeof(big));
		big.o.sz = sizeof(big);
		cr_expect_eq(run_writer(writers[i], p, &big.o, &text, NULL, &err), 0);
		free(text);
		big.newer = 1;
		cr_expect_eq(run_writer(writers[i], p, &big.o, &text, NULL, &err), PEV_EBADARG);
		expect_has(err.message, "upgrade libperfev");
		free(text);
		o.callgraph = (enum pev_report_callgraph)9;
		cr_expect_eq(run_writer(writers[i], p, &o, &text, NULL, &err), PEV_EBADARG);
		free(text);
		o.callgraph = PEV_REPORT_CALLGRAPH_NONE;
		/* A stream that cannot be written: PEV_EIO, not silence. */
		full = fopen("/dev/full", "w");
		cr_assert_not_null(full);
		cr_expect_eq(writers[i](p, full, NULL, &err), PEV_EIO, "writer %zu", i);
		fclose(full);
	}
	pev_profile_free(p);
}

Test(report, writers_on_an_empty_profile)
{
	struct pev_profile *p = NULL;
	char *text;

	cr_assert_eq(pev_profile_new(&p), 0);
	text = write_ok(pev_profile_write_table, p, NULL);
	expect_text(text, "#\n# Total Lost Samples: 0\n#\n");
	free(text);
	text = write_ok(pev_profile_write_folded, p, NULL);
	expect_text(text, "");
	free(text);
	text = write_ok(pev_profile_write_flamegraph, p, NULL);
	expect_has(text, "</svg>");
	free(text);
	text = write_ok(pev_profile_write_json, p, NULL);
	expect_has(text, "\"events\":[]");
	free(text);
	cr_assert_eq(add_event(p, "e", PEV_PROFILE_UNIT_COUNT), 0);
	text = write_ok(pev_profile_write_table, p, NULL);
	expect_has(text, "# Samples: 0  of event 'e'\n# Event count (approx.): 0\n");
	free(text);
	pev_profile_free(p);
}

/*
 * The cgroup key: a row per cgroup path ("N/A" for a sample without one),
 * rows that weigh the same in the order of the cgroups' ids, as perf orders
 * them (not their paths'); folded stacks start at the cgroup with
 * PEV_REPORT_CGROUP; JSON names it.
 */
Test(report, cgroup_key_rows_ties_by_id_and_folded_roots)
{
	struct pev_profile *p = NULL;
	struct pev_profile_sample s = PEV_PROFILE_SAMPLE_INIT;
	const struct pev_profile_frame fr[] = {F("work", "w"), F("main", "w")};
	static const struct {
		const char *cgroup;
		uint64_t id;
		int times;
	} in[] = {{"/b.slice", 7, 2}, {"/a.slice", 9, 2}, {"/c.slice", 3, 5}, {NULL, 0, 1}};

	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(add_event(p, "cpu-clock", PEV_PROFILE_UNIT_NANOSECONDS), 0);
	s.period = 100;
	s.comm = "w";
	s.pid = s.tid = 10;
	s.frames = fr;
	s.nr_frames = 2;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		s.cgroup = in[i].cgroup;
		s.cgroup_id = in[i].id;
		for (int t = 0; t < in[i].times; t++)
			cr_assert_eq(pev_profile_add_sample(p, &s), 0);
	}
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	o.sort = "cgroup";
	o.flags = PEV_REPORT_NO_HEADER;
	char *t = write_ok(pev_profile_write_table, p, &o);
	/* /b.slice (id 7) before /a.slice (id 9): equal weights, by id. */
	cr_expect_str_eq(t, "    50.00%  /c.slice\n"
			    "    20.00%  /b.slice\n"
			    "    20.00%  /a.slice\n"
			    "    10.00%  N/A\n\n\n", "%s", t);
	free(t);
	t = write_ok(pev_profile_write_json, p, &o);
	expect_has(t, "\"cgroup\":\"/c.slice\"");
	free(t);
	o.sort = NULL;
	o.flags = PEV_REPORT_CGROUP;
	t = write_ok(pev_profile_write_folded, p, &o);
	expect_has(t, "/c.slice;w;main;work 5\n");
	expect_has(t, "N/A;w;main;work 1\n");
	free(t);
	pev_profile_free(p);
}

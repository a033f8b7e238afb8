/* SPDX-License-Identifier: MIT */
/*
 * test_report_diff.c - two synthetic profiles compared (perfev/diff.h),
 * every figure computed by hand:
 *
 *   baseline a (10 samples of 100):  main>hot_a 6, main>hot_b 2, sched [k] 2
 *   new b      (10 samples of 100):  main>hot_a 2, main>hot_b 6, main>new_fn 2
 *
 * b was built elsewhere (/opt/b2/w, not /usr/bin/w) and its functions sit
 * at other addresses, so entries pair by name and DSO base name only. The
 * tables are perf diff's exact text (the layout test_cmd_diff checks
 * against perf); folded lines carry both counts; the differential flame
 * graph colours each frame by the change of its share.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

TestSuite(report_diff, .init = th_leak_init, .fini = th_leak_fini);

static void add(struct pev_profile *p, unsigned ev, int times, uint64_t period,
		const struct pev_profile_frame *fr, size_t n)
{
	struct pev_profile_sample s = PEV_PROFILE_SAMPLE_INIT;

	s.event = ev;
	s.period = period;
	s.comm = "w";
	s.pid = s.tid = 42;
	s.frames = fr;
	s.nr_frames = n;
	for (int i = 0; i < times; i++)
		cr_assert_eq(pev_profile_add_sample(p, &s), 0);
}

/* A user frame of function s_ at address a_ in DSO d_. */
#define F(s_, a_, d_) ((struct pev_profile_frame){.address = (a_), .symbol = (s_), .dso = (d_)})

static int event(struct pev_profile *p, const char *name)
{
	struct pev_profile_event ev = PEV_PROFILE_EVENT_INIT;

	ev.name = name;
	ev.unit = PEV_PROFILE_UNIT_NANOSECONDS;
	return pev_profile_add_event(p, &ev);
}

/* The baseline: hot_a hot. */
static struct pev_profile *profile_a(void)
{
	struct pev_profile *p;
	const char *d = "/usr/bin/w";
	struct pev_profile_frame ha[] = {F("hot_a", 0x1010, d), F("main", 0x1100, d)};
	struct pev_profile_frame hb[] = {F("hot_b", 0x1050, d), F("main", 0x1108, d)};
	struct pev_profile_frame k[] = {{.address = 0xffffffff81000000ULL, .symbol = "sched",
					 .dso = "[kernel.kallsyms]", .flags = PEV_FRAME_KERNEL}};

	cr_assert_eq(pev_profile_new(&p), 0);
	cr_assert_eq(event(p, "cpu-clock"), 0);
	add(p, 0, 6, 100, ha, 2);
	add(p, 0, 2, 100, hb, 2);
	add(p, 0, 2, 100, k, 1);
	return p;
}

/* The new run: hot_b hot, new_fn new, sched gone; another build at other addresses. */
static struct pev_profile *profile_b(const char *first_event)
{
	struct pev_profile *p;
	const char *d = "/opt/b2/w";
	struct pev_profile_frame ha[] = {F("hot_a", 0x2010, d), F("main", 0x2200, d)};
	struct pev_profile_frame hb[] = {F("hot_b", 0x2090, d), F("main", 0x2208, d)};
	struct pev_profile_frame nf[] = {F("new_fn", 0x20d0, d), F("main", 0x2210, d)};
	int ev;

	cr_assert_eq(pev_profile_new(&p), 0);
	if (first_event)
		cr_assert_eq(event(p, first_event), 0);
	ev = event(p, "cpu-clock");
	cr_assert_geq(ev, 0);
	add(p, (unsigned)ev, 2, 100, ha, 2);
	add(p, (unsigned)ev, 6, 100, hb, 2);
	add(p, (unsigned)ev, 2, 100, nf, 2);
	return p;
}

typedef int (*writer)(const struct pev_profile *, const struct pev_profile *, FILE *,
		      const struct pev_diff_opts *, struct pev_error *);

/* What w writes for a against b (returns must be 0); malloc'ed. */
static char *run(writer w, const struct pev_profile *a, const struct pev_profile *b,
		 const struct pev_diff_opts *o)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct pev_error err;

	cr_assert_not_null(f);
	cr_assert_eq(w(a, b, f, o, &err), 0, "%s", err.message);
	fclose(f);
	return text;
}

static void expect_table(const struct pev_diff_opts *o, const char *want)
{
	struct pev_profile *a = profile_a(), *b = profile_b(NULL);
	char *got = run(pev_profile_write_diff, a, b, o);

	cr_expect_str_eq(got, want, "got:\n%s\nwant:\n%s", got, want);
	free(got);
	pev_profile_free(a);
	pev_profile_free(b);
}

#define HEAD(col, dots)                                                                            \
	"# Event 'cpu-clock'\n#\n# Baseline  " col "  Shared Object      Symbol    \n"             \
	"# ........  " dots "  .................  ..........\n#\n"

Test(report_diff, delta_abs_default)
{
	/* |-40| ties |+40|: the larger baseline first; b's new entry, then a's lost one. */
	expect_table(NULL, HEAD("Delta Abs", ".........")
		     "    60.00%    -40.00%  w                  [.] hot_a\n"
		     "    20.00%    +40.00%  w                  [.] hot_b\n"
		     "              +20.00%  w                  [.] new_fn\n"
		     "    20.00%             [kernel.kallsyms]  [k] sched\n");
}

Test(report_diff, delta_signed)
{
	struct pev_diff_opts o = PEV_DIFF_OPTS_INIT;

	o.compute = PEV_DIFF_DELTA;
	expect_table(&o, HEAD("  Delta", ".......")
		     "    20.00%  +40.00%  w                  [.] hot_b\n"
		     "            +20.00%  w                  [.] new_fn\n"
		     "    60.00%  -40.00%  w                  [.] hot_a\n"
		     "    20.00%           [kernel.kallsyms]  [k] sched\n");
}

Test(report_diff, ratio)
{
	struct pev_diff_opts o = PEV_DIFF_OPTS_INIT;

	o.compute = PEV_DIFF_RATIO;
	expect_table(&o, HEAD("         Ratio", "..............")
		     "    20.00%        3.000000  w                  [.] hot_b\n"
		     "    60.00%        0.333333  w                  [.] hot_a\n"
		     "                       N/A  w                  [.] new_fn\n"
		     "    20.00%                  [kernel.kallsyms]  [k] sched\n");
}

Test(report_diff, wdiff_and_periods)
{
	struct pev_diff_opts o = PEV_DIFF_OPTS_INIT;

	o.compute = PEV_DIFF_WDIFF;
	o.w1 = 1;
	o.w2 = 2;
	o.flags = PEV_DIFF_PERIOD;
	/* 600*2 - 200*1 = 1000; 200*2 - 600*1 = -200 */
	expect_table(&o,
		     "# Event 'cpu-clock'\n#\n"
		     "# Baseline     Base period   Weighted diff          Period  Shared Object      "
		     "Symbol    \n"
		     "# ........  ..............  ..............  ..............  .................  "
		     "..........\n#\n"
		     "    20.00%             200            1000             600  w                  [.] hot_b\n"
		     "    60.00%             600            -200             200  w                  [.] hot_a\n"
		     "                         0             N/A             200  w                  [.] new_fn\n"
		     "    20.00%             200                                  [kernel.kallsyms]  [k] sched\n");
}

Test(report_diff, wdiff_zero_printed)
{
	struct pev_diff_opts o = PEV_DIFF_OPTS_INIT;

	o.compute = PEV_DIFF_WDIFF;
	o.w1 = 3;
	o.w2 = 1;
	/* 600*1 - 200*3 = 0: printed, as perf prints it (not left blank). */
	expect_table(&o, HEAD(" Weighted diff", "..............")
		     "    20.00%               0  w                  [.] hot_b\n"
		     "    60.00%           -1600  w                  [.] hot_a\n"
		     "                       N/A  w                  [.] new_fn\n"
		     "    20.00%                  [kernel.kallsyms]  [k] sched\n");
}

/*
 * Functions one key shows alike are one entry, as in perf diff: the copies
 * of a method a JIT compiled again at other addresses (one name, several
 * starts) add up, though report keeps them apart.
 */
Test(report_diff, rows_with_one_name_are_one_entry)
{
	const char *jit = "/tmp/perf-42.map";
	struct pev_profile_frame c1[] = {{.address = 0x7f0010, .offset = 0x10, .symbol = "JS:hot",
					  .dso = jit}};
	struct pev_profile_frame c2[] = {{.address = 0x7f5020, .offset = 0x20, .symbol = "JS:hot",
					  .dso = jit}};
	struct pev_profile_frame c3[] = {{.address = 0x7f9008, .offset = 0x8, .symbol = "JS:hot",
					  .dso = jit}};
	struct pev_profile_frame cold[] = {{.address = 0x7fa000, .offset = 0, .symbol = "JS:cold",
					    .dso = jit}};
	struct pev_profile *a, *b;

	cr_assert_eq(pev_profile_new(&a), 0);
	cr_assert_eq(event(a, "cpu-clock"), 0);
	add(a, 0, 3, 100, c1, 1);
	add(a, 0, 3, 100, c2, 1);
	add(a, 0, 4, 100, cold, 1);
	cr_assert_eq(pev_profile_new(&b), 0);
	cr_assert_eq(event(b, "cpu-clock"), 0);
	add(b, 0, 8, 100, c3, 1);
	add(b, 0, 2, 100, cold, 1);
	char *got = run(pev_profile_write_diff, a, b, NULL);
	const char *want = "# Event 'cpu-clock'\n#\n"
			   "# Baseline  Delta Abs  Shared Object  Symbol     \n"
			   "# ........  .........  .............  ...........\n#\n"
			   "    60.00%    +20.00%  [JIT] tid 42   [.] JS:hot\n"
			   "    40.00%    -20.00%  [JIT] tid 42   [.] JS:cold\n";
	cr_expect_str_eq(got, want, "got:\n%s\nwant:\n%s", got, want);
	free(got);
	pev_profile_free(a);
	pev_profile_free(b);
}

/* Events pair by name, else by name without modifiers (perf's cpu-clock:ppp, perfev's cpu-clock). */
Test(report_diff, events_pair_without_their_modifiers)
{
	struct pev_profile *a = profile_a(), *b = profile_b(NULL), *c;
	struct pev_profile_frame f[] = {F("hot_a", 0x2010, "/opt/b2/w")};

	cr_assert_eq(pev_profile_new(&c), 0);
	cr_assert_eq(event(c, "cpu-clock:ppp"), 0);
	add(c, 0, 5, 100, f, 1);
	char *got = run(pev_profile_write_diff, a, c, NULL);
	cr_expect(strstr(got, "# Event 'cpu-clock'") && strstr(got, "+40.00%  w"), "%s", got);
	free(got);
	pev_profile_free(c);
	/* a tracepoint keeps its whole name: sched:sched_switch is no "sched" with modifiers */
	cr_assert_eq(pev_profile_new(&c), 0);
	cr_assert_eq(event(c, "sched:sched_switch"), 0);
	add(c, 0, 5, 100, f, 1);
	struct pev_profile *d;
	cr_assert_eq(pev_profile_new(&d), 0);
	cr_assert_eq(event(d, "sched"), 0);
	add(d, 0, 5, 100, f, 1);
	got = run(pev_profile_write_diff, c, d, NULL);
	cr_expect_null(strstr(got, "# Event"), "%s", got);
	free(got);
	pev_profile_free(c);
	pev_profile_free(d);
	pev_profile_free(a);
	pev_profile_free(b);
}

Test(report_diff, formula)
{
	struct pev_diff_opts o = PEV_DIFF_OPTS_INIT;
	struct pev_report_opts r = PEV_REPORT_OPTS_INIT;
	struct pev_profile *a = profile_a(), *b = profile_b(NULL);
	char *got, want[256];

	o.flags = PEV_DIFF_FORMULA;
	o.report = &r;
	r.symbols = "hot_a";
	got = run(pev_profile_write_diff, a, b, &o);
	/* The formula's column is 70 wide, right-aligned. */
	snprintf(want, sizeof(want), "    60.00%%    -40.00%%  %70s  w              [.] hot_a\n",
		 "(200 * 100 / 1000) - (600 * 100 / 1000)");
	cr_expect(strstr(got, want) != NULL, "%s", got);
	cr_expect(strstr(got, "hot_b") == NULL, "the symbol filter keeps hot_a only:\n%s", got);
	free(got);
	pev_profile_free(a);
	pev_profile_free(b);
}

/* What w writes for a against b into a bounded buffer (an underflowing pad cannot fill memory). */
static void run_bounded(writer w, const struct pev_profile *a, const struct pev_profile *b,
			const struct pev_diff_opts *o, char *buf, size_t size)
{
	FILE *f = fmemopen(buf, size - 1, "w");
	struct pev_error err;

	memset(buf, 0, size);
	cr_assert_not_null(f);
	cr_expect_eq(w(a, b, f, o, &err), 0, "%s", err.message);
	fclose(f);
}

/*
 * Cells wider than their columns overflow them, as perf's do: periods of
 * 20 digits in the 14-wide period columns, a formula longer than its 70
 * columns, and a weighted diff past what 64 bits hold, held at INT64_MAX
 * (5 * 18e18 - 3 * 8.4e18) and INT64_MIN (5 * 1 - 3 * 1e19) rather than
 * wrapped (or undefined, as a signed overflow).
 */
Test(report_diff, over_wide_cells_overflow_their_columns)
{
	struct pev_diff_opts o = PEV_DIFF_OPTS_INIT;
	struct pev_profile *a, *b;
	struct pev_profile_frame big[] = {F("big", 0x1010, "/usr/bin/w")};
	struct pev_profile_frame gone[] = {F("gone", 0x1020, "/usr/bin/w")};
	char got[8192];

	cr_assert_eq(pev_profile_new(&a), 0);
	cr_assert_eq(event(a, "cpu-clock"), 0);
	add(a, 0, 1, UINT64_MAX - 10000000000000000000u, big, 1);
	add(a, 0, 1, 10000000000000000000u, gone, 1);
	cr_assert_eq(pev_profile_new(&b), 0);
	cr_assert_eq(event(b, "cpu-clock"), 0);
	add(b, 0, 1, 18000000000000000000u, big, 1);
	add(b, 0, 1, 1, gone, 1);
	o.compute = PEV_DIFF_WDIFF;
	o.w1 = 3;
	o.w2 = 5;
	o.flags = PEV_DIFF_PERIOD | PEV_DIFF_FORMULA;
	run_bounded(pev_profile_write_diff, a, b, &o, got, sizeof(got));
	const char *want =
		"# Event 'cpu-clock'\n#\n"
		"# Baseline     Base period   Weighted diff  "
		"                                                               Formula  "
		"        Period  Shared Object  Symbol  \n"
		"# ........  ..............  ..............  "
		"......................................................................  "
		"..............  .............  ........\n#\n"
		"    45.79%  8446744073709551615  9223372036854775807  "
		"                (18000000000000000000 * 5) - (8446744073709551615 * 3)  "
		"18000000000000000000  w              [.] big\n"
		"    54.21%  10000000000000000000  -9223372036854775808  "
		"                                  (1 * 5) - (10000000000000000000 * 3)  "
		"             1  w              [.] gone\n";
	cr_expect_str_eq(got, want, "got:\n%s\nwant:\n%s", got, want);
	/* A formula of 104 characters in its 70 columns: it starts where the column does. */
	o.compute = PEV_DIFF_DELTA;
	o.flags = PEV_DIFF_FORMULA;
	run_bounded(pev_profile_write_diff, a, b, &o, got, sizeof(got));
	cr_expect(strstr(got, "%  (18000000000000000000 * 100 / 18000000000000000001) - "
			      "(8446744073709551615 * 100 / 18446744073709551615)  w  ") != NULL,
		  "%s", got);
	pev_profile_free(a);
	pev_profile_free(b);
}

Test(report_diff, baseline_only_and_percent_limit)
{
	struct pev_diff_opts o = PEV_DIFF_OPTS_INIT;
	struct pev_report_opts r = PEV_REPORT_OPTS_INIT;
	struct pev_profile *a = profile_a(), *b = profile_b(NULL);
	char *got;

	/* -b: entries both have, the baseline's shares of what is left (600 + 200). */
	o.flags = PEV_DIFF_BASELINE_ONLY;
	got = run(pev_profile_write_diff, a, b, &o);
	cr_expect(strstr(got, "    75.00%    -40.00%  w              [.] hot_a\n"
			      "    25.00%    +40.00%  w              [.] hot_b\n") != NULL,
		  "%s", got);
	cr_expect(!strstr(got, "sched") && !strstr(got, "new_fn"), "%s", got);
	free(got);
	/* a limit of 25%: entries under it in both profiles go; the widths stay. */
	o.flags = 0;
	o.report = &r;
	r.percent_limit = 25;
	r.flags = PEV_REPORT_NO_HEADER;
	got = run(pev_profile_write_diff, a, b, &o);
	cr_expect_str_eq(got, "    60.00%    -40.00%  w                  [.] hot_a\n"
			      "    20.00%    +40.00%  w                  [.] hot_b\n");
	free(got);
	pev_profile_free(a);
	pev_profile_free(b);
}

Test(report_diff, sort_keys_and_events_by_name)
{
	struct pev_diff_opts o = PEV_DIFF_OPTS_INIT;
	struct pev_report_opts r = PEV_REPORT_OPTS_INIT;
	/* b's cpu-clock is its second event: events pair by name, not position. */
	struct pev_profile *a = profile_a(), *b = profile_b("task-clock");
	char *got;

	o.report = &r;
	r.sort = "comm,sym";
	got = run(pev_profile_write_diff, a, b, &o);
	cr_expect_str_eq(got, "# Event 'cpu-clock'\n#\n"
			      "# Baseline  Delta Abs  Command  Symbol    \n"
			      "# ........  .........  .......  ..........\n#\n"
			      "    60.00%    -40.00%  w        [.] hot_a\n"
			      "    20.00%    +40.00%  w        [.] hot_b\n"
			      "              +20.00%  w        [.] new_fn\n"
			      "    20.00%             w        [k] sched\n");
	free(got);
	pev_profile_free(a);
	pev_profile_free(b);
}

Test(report_diff, folded_both_counts)
{
	struct pev_profile *a = profile_a(), *b = profile_b(NULL);
	char *got = run(pev_profile_write_diff_folded, a, b, NULL);

	cr_expect_str_eq(got, "w;main;hot_a 6 2\n"
			      "w;main;hot_b 2 6\n"
			      "w;main;new_fn 0 2\n"
			      "w;sched 2 0\n");
	free(got);
	pev_profile_free(a);
	pev_profile_free(b);
}

/* The fill of the frame whose tooltip starts with name, or "" when it is not drawn. */
static const char *fill_of(const char *svg, const char *name, char *buf, size_t size)
{
	char key[128];
	const char *t, *f;

	snprintf(key, sizeof(key), "<title>%s (", name);
	buf[0] = '\0';
	if (!(t = strstr(svg, key)) || !(f = strstr(t, "fill=\"")))
		return buf;
	snprintf(buf, size, "%.*s", (int)strcspn(f + 6, "\""), f + 6);
	return buf;
}

Test(report_diff, flamegraph_colours_follow_the_change)
{
	struct pev_profile *a = profile_a(), *b = profile_b(NULL);
	char *svg = run(pev_profile_write_diff_flamegraph, a, b, NULL);
	char buf[64];

	/* The largest change (40 points) is the deepest colour; half of it half as deep. */
	cr_expect_str_eq(fill_of(svg, "hot_b", buf, sizeof(buf)), "rgb(255,50,50)");
	cr_expect_str_eq(fill_of(svg, "hot_a", buf, sizeof(buf)), "rgb(50,50,255)");
	cr_expect_str_eq(fill_of(svg, "new_fn", buf, sizeof(buf)), "rgb(255,152,152)");
	cr_expect_str_eq(fill_of(svg, "main", buf, sizeof(buf)), "rgb(255,152,152)"); /* 80 -> 100% */
	cr_expect_str_eq(fill_of(svg, "w", buf, sizeof(buf)), "rgb(255,255,255)");
	/* Widths are b's: sched, only in a, is not drawn. */
	cr_expect_str_eq(fill_of(svg, "sched", buf, sizeof(buf)), "");
	cr_expect(strstr(svg, "<title>hot_a (2 samples, 20.00%; baseline 6 samples, 60.00%; "
			      "change -40.00%)</title>") != NULL,
		  "%s", svg);
	cr_expect(strstr(svg, "cpu-clock: 10 samples, baseline 10; red: grew, blue: shrank") !=
		  NULL);
	cr_expect(strstr(svg, ">Differential Flame Graph</text>") != NULL);
	free(svg);
	pev_profile_free(a);
	pev_profile_free(b);
}

Test(report_diff, errors)
{
	struct pev_profile *a = profile_a(), *b = profile_b(NULL), *none;
	struct pev_diff_opts o = PEV_DIFF_OPTS_INIT;
	struct pev_report_opts r = PEV_REPORT_OPTS_INIT;
	struct pev_error err;
	FILE *f = fopen("/dev/null", "w");

	cr_assert_not_null(f);
	cr_expect_eq(pev_profile_write_diff(NULL, b, f, NULL, &err), PEV_EBADARG);
	cr_expect_eq(pev_profile_write_diff(a, b, NULL, NULL, &err), PEV_EBADARG);
	o.compute = PEV_DIFF_WDIFF; /* weights 0 */
	cr_expect_eq(pev_profile_write_diff(a, b, f, &o, &err), PEV_EBADARG);
	cr_expect(strstr(err.message, "weights") != NULL, "%s", err.message);
	o.compute = (enum pev_diff_compute)9;
	cr_expect_eq(pev_profile_write_diff(a, b, f, &o, &err), PEV_EBADARG);
	o.compute = PEV_DIFF_DELTA;
	o.report = &r;
	r.sort = "dso,nope";
	cr_expect_eq(pev_profile_write_diff(a, b, f, &o, &err), PEV_EPARSE);
	r.sort = NULL;
	r.event = "task-clock";
	cr_expect_eq(pev_profile_write_diff_folded(a, b, f, &o, &err), PEV_ENOTFOUND);
	/* No event in both: an empty table and no stacks, not an error. */
	cr_assert_eq(pev_profile_new(&none), 0);
	cr_assert_eq(event(none, "page-faults"), 0);
	cr_expect_eq(pev_profile_write_diff(a, none, f, NULL, &err), 0);
	cr_expect_eq(pev_profile_write_diff_flamegraph(a, none, f, NULL, &err), 0);
	fclose(f);
	pev_profile_free(none);
	pev_profile_free(a);
	pev_profile_free(b);
}

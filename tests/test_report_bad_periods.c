/* SPDX-License-Identifier: MIT */
/*
 * test_report_bad_periods.c - periods a file gets wrong, and periods perf 7
 * takes per thread (issue 22, item 1), on real recordings with perf as the
 * oracle:
 *
 *   - a `{cpu-clock,page-faults}:S` recording of perfev's with one value
 *     the leader read lowered below the read before it: perf 6.1 takes the
 *     difference modulo 2^64 (an overhead of trillions of percent; perfev's
 *     table then padded a cell 2^64 columns wide and never ended); perfev
 *     leaves that read out, says so once with a count, and every other row
 *     has perf's period;
 *   - three samples whose PERIOD is 0x6000000000003039 (3/8 of 2^64): the
 *     third would take the event's total past 2^64 - 1 (perf's total wraps,
 *     and its shares pass 100%); perfev leaves it out and says so;
 *   - perf 7's `:S` groups are inherited, each thread its own counter: the
 *     reads of two threads interleave, and a count read per id alone goes
 *     back and forth; perfev reads them per thread, as perf 7 does, and its
 *     table and script lines are perf 7's (xz -T2);
 *   - the backwards read through perfev script: perf's lines but that one.
 *
 * report and diff of each file finish at once (under `timeout` and a file
 * size limit), every percentage at or below 100%.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

static void make_dir(void)
{
	th_leak_init();
	th_suite_dir("badperiods");
}

static void remove_dir(void)
{
	th_leak_fini();
}

TestSuite(report_bad_periods, .init = make_dir, .fini = remove_dir);


/* ---- where a file's samples keep their period and read values ------------------------- */

struct sample_at {
	uint64_t period_at; /* file offset of the PERIOD field, 0 when none */
	uint64_t read_at;   /* file offset of the first value read (the leader's), 0 when none */
	uint64_t id;        /* that value's id */
	uint64_t value;     /* the value */
	uint32_t tid;
};

struct samples {
	struct sample_at *v;
	size_t n;
	size_t reads; /* values read with an id of the file */
	bool inherit; /* the events are inherited */
};

/* The fields of a SAMPLE before PERIOD, 8 bytes each (perf_event_open(2)'s layout). */
#define BEFORE_PERIOD                                                                              \
	(PEV_SAMPLE_IDENTIFIER | PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME |                \
	 PEV_SAMPLE_ADDR | PEV_SAMPLE_ID | PEV_SAMPLE_STREAM_ID | PEV_SAMPLE_CPU)

/* Every sample of the file at path, where its fields are checked against the decoder's. */
static struct samples samples_of(const char *path)
{
	struct samples out = {0};
	struct pev_perfdata *pd = NULL;
	struct pev_perfdata_record rec;
	struct pev_error err;
	size_t cap = 0;
	int r;

	cr_assert_eq(pev_perfdata_open(path, 0, &pd, &err), 0, "%s", err.message);
	while ((r = pev_perfdata_next(pd, &rec, &err)) == 1) {
		struct pev_record_format fmt;
		struct pev_record dec;
		struct sample_at a = {0};
		const char *base = (const char *)rec.header;

		if (rec.type != PEV_RECORD_SAMPLE || !rec.event)
			continue;
		uint64_t st = rec.event->attr.sample_type;
		cr_assert_eq(pev_record_format_from_attr(&rec.event->attr, &fmt), 0);
		cr_assert_gt(pev_record_decode(&fmt, rec.header, rec.size, &dec), 0);
		const struct pev_sample *s = &dec.sample;
		out.inherit |= (rec.event->attr.flags & PEV_ATTR_INHERIT) != 0;
		a.tid = dec.sample_id.tid;
		if (st & PEV_SAMPLE_PERIOD) {
			size_t at = 8 + 8 * (size_t)__builtin_popcountll(st & BEFORE_PERIOD);
			uint64_t v;
			memcpy(&v, base + at, 8);
			cr_assert_eq(v, s->period, "PERIOD at +%zu", at);
			a.period_at = rec.offset + at;
		}
		if ((s->fields & PEV_SAMPLE_READ) && (s->read.read_format & PEV_FORMAT_GROUP) &&
		    s->read.nr) {
			/* { nr, [time_enabled], [time_running], { value, [id], [lost] } ... } */
			struct pev_read_value v;
			size_t w = 1 + !!(s->read.read_format & PEV_FORMAT_TOTAL_TIME_ENABLED) +
			           !!(s->read.read_format & PEV_FORMAT_TOTAL_TIME_RUNNING);
			cr_assert_eq(pev_read_data_value(&s->read, 0, &v), 0);
			cr_assert_eq(s->read.words[w], v.value);
			a.read_at = rec.offset + (uint64_t)((const char *)&s->read.words[w] - base);
			a.id = v.id;
			a.value = v.value;
			for (uint64_t i = 0; i < s->read.nr; i++)
				if (!pev_read_data_value(&s->read, i, &v) &&
				    pev_perfdata_event_by_id(pd, v.id))
					out.reads++;
		}
		if (out.n == cap) {
			cap = cap ? 2 * cap : 1024;
			out.v = realloc(out.v, cap * sizeof(*out.v));
			cr_assert_not_null(out.v);
		}
		out.v[out.n++] = a;
	}
	cr_assert_eq(r, 0, "%s", err.message);
	pev_perfdata_close(pd);
	return out;
}

static void put_u64(const char *path, uint64_t at, uint64_t v)
{
	FILE *f = fopen(path, "r+b");

	cr_assert_not_null(f);
	cr_assert_eq(fseeko(f, (off_t)at, SEEK_SET), 0);
	cr_assert_eq(fwrite(&v, 8, 1, f), 1);
	cr_assert_eq(fclose(f), 0);
}

/* ---- running perfev on a bad file ------------------------------------------------------ */

struct run {
	int status;
	char *out, *err;
};

/*
 * `perfev ARGS` (a shell word list) with its output into files of at most
 * 8 MiB (a table that pads forever is stopped by SIGXFSZ) and a time limit
 * of 60 s (`timeout` exits 124): the run must end by itself.
 */
static struct run perfev(const char *args)
{
	struct run r;
	char *status = th_sh_okf("(ulimit -f 16384; timeout 60 '%s' %s >'%s' 2>'%s'; echo $?)",
	                  th_perfev_bin(), args, th_path_in("run.out"), th_path_in("run.err"));

	r.status = atoi(status);
	free(status);
	r.out = th_sh_okf("cat '%s'", th_path_in("run.out"));
	r.err = th_sh_okf("cat '%s'", th_path_in("run.err"));
	return r;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

/* Every "N.NN%" outside the '#' lines is at most 100. */
static void expect_percentages_sane(const char *text, const char *what)
{
	int seen = 0;

	for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
		size_t len = strcspn(l, "\n");
		if (l[0] == '#')
			continue;
		for (size_t i = 0; i < len; i++) {
			size_t b = i;
			if (l[i] != '%')
				continue;
			while (b > 0 && (l[b - 1] == '.' || (l[b - 1] >= '0' && l[b - 1] <= '9')))
				b--;
			if (b == i)
				continue;
			double v = strtod(l + b, NULL);
			seen++;
			cr_expect_leq(v, 100.0, "%s: a share of %.2f%%: %.*s", what, v, (int)len,
			              l);
		}
	}
	cr_expect_gt(seen, 0, "%s shows no percentage:\n%s", what, text);
}

/* `perfev report` and `perfev diff` (both ways against good) of bad end with sane shares. */
static void expect_report_and_diff_sane(const char *bad, const char *good, const char *warning)
{
	/* The swapped diff reads bad as its baseline: its warning is not asked for. */
	const struct {
		const char *fmt, *a, *b, *what;
		bool warns;
	} runs[] = {
		{"report -i '%s' --stdio%s", bad, "", "report", true},
		{"diff '%s' '%s'", good, bad, "diff", true},
		{"diff '%s' '%s'", bad, good, "diff (swapped)", false},
	};

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		char args[8192];
		struct run r;

		snprintf(args, sizeof(args), runs[i].fmt, runs[i].a, runs[i].b);
		r = perfev(args);
		cr_expect_eq(r.status, 0, "perfev %s: status %d: %s", args, r.status, r.err);
		cr_expect(!runs[i].warns || strstr(r.err, warning), "perfev %s: no warning '%s':\n%s",
			  args, warning, r.err);
		expect_percentages_sane(r.out, runs[i].what);
		run_free(&r);
	}
}

/* ---- the rows of `report -F period,sym` ------------------------------------------------- */

/*
 * The symbols a report of report_work names: a dozen on a quiet machine,
 * more where the kernel's share grows (an emulated machine loading the
 * program over 9p).
 */
#define MAX_SYMS 512

/* Periods summed by symbol text (modulo 2^64, as perf sums them). */
struct by_sym {
	char sym[MAX_SYMS][256];
	uint64_t period[MAX_SYMS][2]; /* [0]: perfev's, [1]: perf's */
	size_t n;
	bool full;
};

static void add_rows(struct by_sym *t, const char *text, int side)
{
	for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
		size_t len = strcspn(l, "\n");
		const char *sym = l + strspn(l, " 0123456789");
		size_t i = 0;

		if (l[0] == '#' || !len)
			continue;
		char name[256];
		snprintf(name, sizeof(name), "%.*s", (int)(len - (size_t)(sym - l)), sym);
		/* perf 6.1 names a PLT stub after the _init before the PLT (listed
		 * in docs/PERF_DIFFERENCES.md): a sample on report_work's call of
		 * clock_gettime is its "_init", perfev's "clock_gettime@plt". On
		 * arm64 it goes both ways (perf names libc's "NAME@plt" where
		 * perfev says "_init"): a stub is "_init" on both sides. */
		size_t nl = strlen(name);
		if (nl > 4 && strcmp(name + nl - 4, "@plt") == 0)
			snprintf(name, sizeof(name), "[.] _init");
		while (i < t->n && strcmp(t->sym[i], name) != 0)
			i++;
		if (i == t->n) {
			if (t->n == MAX_SYMS) {
				t->full = true;
				continue;
			}
			snprintf(t->sym[t->n++], sizeof(t->sym[0]), "%s", name);
		}
		t->period[i][side] += strtoull(l, NULL, 10);
	}
}

/*
 * perf's and perfev's periods by symbol agree but for one symbol, whose
 * period in perf's table is perfev's plus `more` (modulo 2^64): what perf
 * made of the bad sample (a difference taken modulo 2^64, a total that
 * wraps) against what perfev left out.
 */
static void expect_periods_like_perf_but(const char *file, uint64_t more)
{
	char args[8192];
	struct by_sym *t = calloc(1, sizeof(*t));
	char *theirs = th_sh_okf("perf report --stdio -i '%s' -F period,sym --no-group 2>/dev/null", file);
	size_t differ = 0;

	snprintf(args, sizeof(args), "report --stdio -i '%s' -F period,sym --no-group", file);
	struct run ours = perfev(args);
	cr_assert_eq(ours.status, 0, "perfev %s: %s", args, ours.err);
	cr_assert_not_null(t);
	add_rows(t, ours.out, 0);
	add_rows(t, theirs, 1);
	cr_assert(!t->full, "more than %d symbols", MAX_SYMS);
	for (size_t i = 0; i < t->n; i++) {
		if (t->period[i][1] == t->period[i][0])
			continue;
		differ++;
		cr_expect_eq(t->period[i][1] - t->period[i][0], more,
		             "%s: perf %" PRIu64 ", perfev %" PRIu64 ", %" PRIu64
		             " apart, not %" PRIu64,
		             t->sym[i], t->period[i][1], t->period[i][0],
		             t->period[i][1] - t->period[i][0], more);
	}
	cr_expect_eq(differ, 1, "%zu symbols differ:\n---- perfev:\n%s---- perf:\n%s", differ,
	             ours.out, theirs);
	free(t);
	run_free(&ours);
	free(theirs);
}

/* ---- the tests ------------------------------------------------------------------------ */

/*
 * Records good (a ':S' group) and makes bad of it: the middle sample's
 * leader reads half of what the same counter read before. Returns bad's
 * samples; *drop gets how much the count went back.
 */
static struct samples make_backwards(const char *good, const char *bad, uint64_t *drop)
{
	free(th_sh_okf("'%s' record -q -e '{cpu-clock,page-faults}:S' -o '%s' '%s' 200 2>&1",
	        th_perfev_bin(), good, th_test_program("report_work")));
	free(th_sh_okf("cp '%s' '%s'", good, bad));
	struct samples s = samples_of(bad);
	cr_assert_gt(s.n, 20, "only %zu samples", s.n);

	size_t k = s.n / 2, j = k;
	while (j-- > 0 && s.v[j].id != s.v[k].id)
		;
	cr_assert_lt(j, k, "no earlier read of the same counter");
	cr_assert_gt(s.v[j].value, 2);
	put_u64(bad, s.v[k].read_at, s.v[j].value / 2);
	*drop = s.v[j].value - s.v[j].value / 2;
	return s;
}

Test(report_bad_periods, read_value_going_back_is_left_out_and_said)
{
	char good[4096], bad[4096];
	uint64_t drop;

	snprintf(good, sizeof(good), "%s", th_path_in("good.data"));
	snprintf(bad, sizeof(bad), "%s", th_path_in("bad.data"));
	th_need_perf();
	struct samples s = make_backwards(good, bad, &drop);

	char warning[256];
	snprintf(warning, sizeof(warning),
	         "bad.data: 1 of %zu counter values read in samples (PERF_SAMPLE_READ) are smaller "
	         "than the same counter's read before",
	         s.reads);
	expect_report_and_diff_sane(bad, good, warning);
	/*
	 * perf 6.1 counts the read as 2^64 - drop (its symbol's row wraps, or
	 * shows about 2^64); every other symbol has perf's period.
	 */
	expect_periods_like_perf_but(bad, 0 - drop);
	/* The file as recorded says nothing of the kind. */
	char args[8192];
	snprintf(args, sizeof(args), "report --stdio -i '%s'", good);
	struct run r = perfev(args);
	cr_expect_eq(r.status, 0);
	cr_expect(!strstr(r.err, "PERF_SAMPLE_READ"), "%s", r.err);
	free(s.v);
	run_free(&r);
}

Test(report_bad_periods, period_past_the_total_is_left_out_and_said)
{
	char good[4096], bad[4096];

	snprintf(good, sizeof(good), "%s", th_path_in("good.data"));
	snprintf(bad, sizeof(bad), "%s", th_path_in("bad.data"));
	th_need_perf();

	free(th_sh_okf("'%s' record -q -e cpu-clock -o '%s' '%s' 200 2>&1", th_perfev_bin(), good,
	        th_test_program("report_work")));
	free(th_sh_okf("cp '%s' '%s'", good, bad));
	struct samples s = samples_of(bad);
	cr_assert_gt(s.n, 20, "only %zu samples", s.n);
	/* Three periods of 0.375 * 2^64 each: the third takes the total past 2^64 - 1. */
	const uint64_t big = UINT64_C(0x6000000000000000) + 12345;
	for (size_t i = 1; i <= 3; i++) {
		cr_assert_neq(s.v[i * s.n / 4].period_at, 0, "no PERIOD in the samples");
		put_u64(bad, s.v[i * s.n / 4].period_at, big);
	}

	char warning[256];
	snprintf(warning, sizeof(warning),
	         "bad.data: 1 of %zu samples have a period that would take their event's total "
	         "past 2^64 - 1: left out of the profile",
	         s.n);
	expect_report_and_diff_sane(bad, good, warning);
	/* perf counts the third too, its total wrapping; every other symbol agrees. */
	expect_periods_like_perf_but(bad, big);
	free(s.v);
}

Test(report_bad_periods, inherited_reads_count_per_thread_like_perf_7)
{
	const char *latest = th_perf_latest();

	if (!latest)
		th_skip("no perf 7 (../shared/tools/perf-latest) to record inherited ':S' groups");
	if (!th_have_program("xz"))
		th_skip("xz is not installed (Debian: apt-get install xz-utils)");
	char in[4096], file[4096];

	snprintf(in, sizeof(in), "%s", th_path_in("in.bin"));
	snprintf(file, sizeof(file), "%s", th_path_in("mt.data"));

	/* Three blocks of xz -1 (3 MiB each), compressed by two threads at once. */
	free(th_sh_okf("head -c 8000000 /dev/urandom >'%s'", in));
	free(th_sh_okf("'%s' record -q -e '{cpu-clock,page-faults}:S' -o '%s' -- xz -T2 -1 -c '%s' "
	        ">/dev/null 2>&1",
	        latest, file, in));
	struct samples s = samples_of(file);
	cr_assert(s.inherit, "perf 7 no longer inherits ':S' groups: nothing is read per thread");
	size_t threads = 0;
	uint32_t seen[64];
	for (size_t i = 0; i < s.n && threads < 64; i++) {
		size_t t = 0;
		while (t < threads && seen[t] != s.v[i].tid)
			t++;
		if (t == threads)
			seen[threads++] = s.v[i].tid;
	}
	cr_assert_geq(threads, 2, "xz -T2 sampled in %zu thread(s)", threads);

	char args[8192];
	snprintf(args, sizeof(args), "report --stdio -i '%s' --sort comm,dso", file);
	struct run ours = perfev(args);
	cr_expect_eq(ours.status, 0, "perfev %s: %s", args, ours.err);
	cr_expect(!strstr(ours.err, "warning"), "perfev %s: %s", args, ours.err);
	expect_percentages_sane(ours.out, "report");
	char *theirs = th_sh_okf("'%s' report --stdio -i '%s' --sort comm,dso 2>/dev/null", latest, file);
	/* The same lines, but for perf's note and tip. */
	char *a = th_sh_okf("grep -v -e '^# To display' -e '^# (Tip:' -e '^#$' -e '^$' '%s' || true",
	             th_path_in("run.out"));
	FILE *f = fopen(th_path_in("theirs.out"), "w");
	cr_assert_not_null(f);
	fputs(theirs, f);
	cr_assert_eq(fclose(f), 0);
	char *b = th_sh_okf("grep -v -e '^# To display' -e '^# (Tip:' -e '^#$' -e '^$' '%s' || true",
	             th_path_in("theirs.out"));
	cr_expect_str_eq(a, b, "perfev:\n%s\n---- perf 7:\n%s", a, b);
	free(a);
	free(b);
	free(theirs);
	run_free(&ours);

	/*
	 * perf 7's script: a line per member that grew, its period read per
	 * thread; the same lines (perf 7 pads the thread id wider: blanks
	 * squeezed). perf 6.1 cannot read such a file.
	 */
	const char *fields = "comm,tid,time,period,event,ip,sym";
	snprintf(args, sizeof(args), "script -i '%s' -F %s", file, fields);
	ours = perfev(args);
	cr_expect_eq(ours.status, 0, "perfev %s: %s", args, ours.err);
	cr_expect(!strstr(ours.err, "warning"), "perfev %s: %s", args, ours.err);
	a = th_sh_okf("tr -s ' ' <'%s'", th_path_in("run.out"));
	b = th_sh_okf("'%s' script -i '%s' -F %s 2>/dev/null | tr -s ' '", latest, file, fields);
	cr_expect(strstr(b, "page-faults"), "perf 7 printed no member's line");
	cr_expect(strcmp(a, b) == 0, "perfev script's lines are not perf 7's");
	free(a);
	free(b);
	run_free(&ours);
	free(s.v);
}

/*
 * The same file through perfev script: perf script prints the read that
 * went back as a line of period 2^64 - drop; perfev prints every other
 * line as perf does (one per group member that grew, the next read
 * growing from the lowered count) and leaves that one out, saying so once.
 */
Test(report_bad_periods, read_value_going_back_through_script)
{
	char good[4096], bad[4096], args[8192], wrapped[32];
	uint64_t drop;

	snprintf(good, sizeof(good), "%s", th_path_in("good.data"));
	snprintf(bad, sizeof(bad), "%s", th_path_in("bad.data"));
	th_need_perf();
	struct samples s = make_backwards(good, bad, &drop);

	snprintf(args, sizeof(args), "script -i '%s'", bad);
	struct run ours = perfev(args);
	cr_expect_eq(ours.status, 0, "perfev %s: %s", args, ours.err);
	char warning[4096 + 256];
	snprintf(warning, sizeof(warning),
	         "'%s': 1 of %zu counter values read in samples (PERF_SAMPLE_READ) are smaller "
	         "than the same counter's read before; a counter never goes back: not printed",
	         bad, s.reads);
	const char *w = strstr(ours.err, warning);
	cr_expect(w && !strstr(w + strlen(warning), "PERF_SAMPLE_READ"), "not said once: %s",
	          ours.err);
	/* perf's lines, but for the one with the wrapped period. */
	snprintf(wrapped, sizeof(wrapped), "%" PRIu64, 0 - drop);
	char *theirs = th_sh_okf("perf script -i '%s' 2>/dev/null", bad);
	cr_assert(strstr(theirs, wrapped), "perf no longer prints %s", wrapped);
	FILE *f = fopen(th_path_in("theirs.out"), "w");
	cr_assert_not_null(f);
	fputs(theirs, f);
	cr_assert_eq(fclose(f), 0);
	char *expected = th_sh_okf("grep -v -F ' %s ' '%s'", wrapped, th_path_in("theirs.out"));
	size_t lines_theirs = 0, lines_expected = 0;
	for (const char *c = theirs; *c; c++)
		lines_theirs += *c == '\n';
	for (const char *c = expected; *c; c++)
		lines_expected += *c == '\n';
	cr_expect_eq(lines_theirs, lines_expected + 1, "%zu lines of perf's have %s",
	             lines_theirs - lines_expected, wrapped);
	/* A module's function: perf 6.1 reading kcore says [kernel.kallsyms] (th_modules_as_kernel). */
	char *ours_k = th_modules_as_kernel(strdup(ours.out));
	expected = th_modules_as_kernel(expected);
	cr_expect(strcmp(ours_k, expected) == 0, "perfev's lines are not perf's (%s, %s)",
	          th_path_in("run.out"), th_path_in("theirs.out"));
	free(ours_k);
	free(expected);
	free(theirs);
	run_free(&ours);
	free(s.v);
}

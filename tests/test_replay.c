/* SPDX-License-Identifier: MIT */
/*
 * test_replay.c - the library side of reports: pev_replay and
 * pev_profile_load on files `perf record` writes. The samples handed out
 * are the file's (as many as the reader's SAMPLE records), in time order,
 * with thread, CPU, period and a stack whose leaf is the workload's hot
 * function; file order gives the same samples; the caller's symbolizer is
 * used and left alive; inline frames come with debuginfo and go with
 * PEV_REPLAY_NO_INLINE; the profile's totals match; bad arguments are
 * refused. Tests that need perf skip when it is missing.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

static const char *dir;
static char file[PATH_MAX];

/* Records the workload with call chains into a fresh directory (skips without perf). */
static void record(void)
{
	char *perf = th_which("perf"), cmd[2 * PATH_MAX + 128], *out = NULL, *err = NULL;
	char *argv[] = {"/bin/sh", "-c", cmd, NULL};

	th_leak_init();
	if (!perf)
		th_skip("perf is not installed (Debian: apt-get install linux-perf)");
	free(perf);
	dir = th_temp_dir("replay");
	snprintf(file, sizeof(file), "%s/g.data", dir);
	snprintf(cmd, sizeof(cmd), "perf record -q -g -e cpu-clock -o '%s' '%s' 150 2>&1", file,
		 th_test_program("report_work"));
	cr_assert_eq(th_run(argv, false, &out, &err), 0, "%s: %s%s", cmd, out, err);
	free(out);
	free(err);
}

static void cleanup(void)
{
	th_leak_fini(); /* the directory goes when the process exits */
}

static struct pev_perfdata *open_file(void)
{
	struct pev_perfdata *pd = NULL;
	struct pev_error err;

	cr_assert_eq(pev_perfdata_open(file, 0, &pd, &err), 0, "%s", err.message);
	return pd;
}

/* SAMPLE records in the file, by the reader. */
static unsigned long count_samples(void)
{
	struct pev_perfdata *pd = open_file();
	struct pev_perfdata_record r;
	unsigned long n = 0;

	while (pev_perfdata_next(pd, &r, NULL) == 1)
		n += r.type == PEV_RECORD_SAMPLE;
	pev_perfdata_close(pd);
	return n;
}

struct walk {
	unsigned long samples, hot_leaf, inlined, with_caller;
	uint64_t period, last_time;
	bool ordered;
};

static void walk(unsigned flags, struct pev_symbols *sym, struct walk *w)
{
	struct pev_replay_opts o = PEV_REPLAY_OPTS_INIT;
	struct pev_perfdata *pd = open_file();
	struct pev_replay *r = NULL;
	struct pev_replay_sample s;
	struct pev_error err;
	int rc;

	o.flags = flags;
	o.symbols = sym;
	memset(w, 0, sizeof(*w));
	w->ordered = true;
	cr_assert_eq(pev_replay_open(pd, &o, &r, &err), 0, "%s", err.message);
	if (sym)
		cr_expect_eq(pev_replay_symbols(r), sym);
	while ((rc = pev_replay_next(r, &s, &err)) == 1) {
		size_t leaf = 0;

		w->samples++;
		w->period += s.period;
		cr_assert_not_null(s.event);
		cr_assert_not_null(s.comm);
		cr_expect_gt(s.pid, 0);
		cr_expect_gt(s.tid, 0);
		cr_expect_gt(s.time, 0);
		if (s.time < w->last_time)
			w->ordered = false;
		w->last_time = s.time;
		cr_assert_gt(s.nr_frames, 0);
		cr_expect_geq(s.nr_frames, s.nr_addresses);
		while (leaf + 1 < s.nr_frames && (s.frames[leaf].flags & PEV_FRAME_INLINED))
			leaf++;
		w->inlined += leaf > 0;
		if (s.frames[leaf].symbol && strcmp(s.frames[leaf].symbol, "report_work_a") == 0) {
			w->hot_leaf++;
			cr_expect_str_eq(s.comm, "report_work");
			for (size_t i = leaf + 1; i < s.nr_frames; i++)
				if (s.frames[i].symbol && strcmp(s.frames[i].symbol, "main") == 0) {
					w->with_caller++;
					break;
				}
		}
	}
	cr_expect_eq(rc, 0, "%s", err.message);
	cr_expect_eq(pev_replay_lost(r), 0);
	pev_replay_close(r);
	pev_perfdata_close(pd);
}

TestSuite(replay, .init = record, .fini = cleanup);

Test(replay, samples_in_time_order_with_stacks)
{
	unsigned long n = count_samples();
	struct walk w, f;

	walk(0, NULL, &w);
	cr_expect_eq(w.samples, n, "replay gave %lu samples, the file has %lu", w.samples, n);
	cr_expect(w.ordered, "samples out of time order");
	/* report_work_a takes 4/10 of the workload's time: clearly the most frequent leaf. */
	cr_expect_gt(w.hot_leaf * 5, n, "report_work_a is the leaf of %lu of %lu samples",
		     w.hot_leaf, n);
	cr_expect_gt(w.with_caller * 10, w.hot_leaf * 9, "main under report_work_a: %lu of %lu",
		     w.with_caller, w.hot_leaf);
#ifdef __clang__
	/*
	 * Known gap: the symbolizer finds no inline chain in clang 14's DWARF
	 * (test_symbols' inline tests fail in clang builds for the same reason).
	 */
	if (!w.inlined)
		cr_log_warn("no inline frames from a clang-built workload: known symbolizer gap");
#else
	cr_expect_gt(w.inlined, 0, "no inline frame (mix() is inlined into report_work_a)");
#endif
	cr_expect_eq(w.period, n * 250000, "cpu-clock at 4000 Hz: 250 us a sample");

	walk(PEV_REPLAY_FILE_ORDER | PEV_REPLAY_NO_INLINE, NULL, &f);
	cr_expect_eq(f.samples, w.samples);
	/*
	 * Symbols are not compared: file order can put samples before the MMAP
	 * of their code (perf writes one CPU's ring after the other, and a short
	 * recording is a single round), which is why the replay sorts by default.
	 */
	cr_expect_eq(f.inlined, 0, "inline frames despite PEV_REPLAY_NO_INLINE");
}

Test(replay, callers_symbolizer_and_no_callchain)
{
	struct pev_symbols *sym = NULL;
	struct pev_symbols_stats st = PEV_SYMBOLS_STATS_INIT;
	struct walk w;

	cr_assert_eq(pev_symbols_new(NULL, &sym, NULL), 0);
	walk(PEV_REPLAY_NO_CALLCHAIN, sym, &w);
	cr_expect_eq(w.with_caller, 0, "callers despite PEV_REPLAY_NO_CALLCHAIN");
	cr_expect_gt(w.hot_leaf, 0);
	/* Still the caller's, and it did the work. */
	cr_assert_eq(pev_symbols_stats(sym, &st), 0);
	cr_expect_gt(st.lookups, 0);
	cr_expect_gt(st.dso_opens, 0); /* (its processes are gone: the file ends with their EXIT) */
	/* Each distinct address is symbolized once: far fewer lookups than samples. */
	cr_expect_lt(st.lookups, w.samples, "%lu lookups for %lu samples",
		     (unsigned long)st.lookups, w.samples);
	pev_symbols_free(sym);
}

Test(replay, profile_load_totals)
{
	struct pev_perfdata *pd = open_file();
	struct pev_profile *p = NULL;
	struct pev_error err;
	uint64_t samples = 0, period = 0;
	unsigned long n = count_samples();

	cr_assert_eq(pev_profile_load(pd, NULL, &p, &err), 0, "%s", err.message);
	cr_assert_eq(pev_profile_nr_events(p), 1);
	cr_assert_eq(pev_profile_totals(p, 0, &samples, &period), 0);
	cr_expect_eq(samples, n);
	cr_expect_eq(period, n * 250000);
	pev_profile_free(p);
	pev_perfdata_close(pd);
}

Test(replay, bad_arguments)
{
	struct pev_replay_opts o = PEV_REPLAY_OPTS_INIT;
	struct pev_perfdata *pd = open_file();
	struct pev_replay *r = (struct pev_replay *)&o;
	struct pev_profile *p = (struct pev_profile *)&o;
	struct pev_error err;
	char name[64];

	cr_expect_eq(pev_replay_open(NULL, NULL, &r, &err), PEV_EBADARG);
	cr_expect_null(r);
	cr_expect_eq(pev_replay_open(pd, NULL, NULL, &err), PEV_EBADARG);
	o.sz = 2;
	cr_expect_eq(pev_replay_open(pd, &o, &r, &err), PEV_EBADARG);
	expect_has(err.message, "PEV_REPLAY_OPTS_INIT");
	cr_expect_eq(pev_replay_next(NULL, NULL, &err), PEV_EBADARG);
	cr_expect_eq(pev_profile_load(NULL, NULL, &p, &err), PEV_EBADARG);
	cr_expect_null(p);
	pev_replay_close(NULL);
	cr_expect_eq(pev_replay_lost(NULL), 0);
	pev_replay_event_name(pev_perfdata_event(pd, 0), name, sizeof(name));
	cr_expect(strncmp(name, "cpu-clock", 9) == 0, "event named '%s'", name);
	cr_expect_eq(pev_replay_event_unit(pev_perfdata_event(pd, 0)),
		     PEV_PROFILE_UNIT_NANOSECONDS);
	pev_perfdata_close(pd);
}

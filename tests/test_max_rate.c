/* SPDX-License-Identifier: MIT */
/*
 * test_max_rate.c - a default sampling rate above the kernel's limit,
 * kernel.perf_event_max_sample_rate, live: each test writes a lower limit
 * to /proc/sys and puts the old value back afterwards. A rate nobody asked
 * for (record's and top's 4000 Hz, the library session's 1000 Hz) comes
 * down to the limit, as perf's default does, and perfev says so in one
 * line; a rate the user gave (-F, an event's freq= term) is still refused
 * with the limit named. The kernel lowers the limit by itself when sampling
 * interrupts take too long (a loaded CI machine: "perf: interrupt took too
 * long"), so without this every default recording there would fail.
 *
 * The limit is the whole machine's: meson runs this program alone
 * (is_parallel: false in tests/meson.build), so that the tests that sample
 * at a rate of their own in the other programs never meet the lowered limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#define LIMIT_PATH "/proc/sys/kernel/perf_event_max_sample_rate"

static int lock_fd = -1;    /* the limit's file, locked while a test holds it lowered */
static int guard_fd = -1;   /* closing it makes the restorer put the limit back */
static pid_t restorer = -1; /* the child holding the old limit */
static long saved_limit = -1;

/* Writes v to the limit; returns 0 or the errno. */
static int write_limit(long v)
{
	char text[32];
	int n = snprintf(text, sizeof(text), "%ld\n", v);
	int fd = open(LIMIT_PATH, O_WRONLY | O_CLOEXEC);
	int e = 0;

	if (fd < 0)
		return errno;
	if (write(fd, text, (size_t)n) != n)
		e = errno ? errno : EIO;
	close(fd);
	return e;
}

/*
 * Lowers the limit to want (or keeps it, when it is already lower) and
 * returns the limit now in force. The old value goes back at the suite's
 * fini (put_limit_back) or, should this test process die before, when the
 * restorer child sees its pipe close: the machine never keeps the lower limit.
 */
static long lower_limit(long want)
{
	int p[2];

	th_require_root();
	/*
	 * Criterion runs the tests of this program side by side, and another
	 * checkout's run may be here too: one at a time, or one would save the
	 * limit another lowered and "restore" that. The restorer shares the
	 * lock (a flock belongs to the open file), so it ends only once the
	 * old limit is back, even when this process dies first.
	 */
	lock_fd = open(LIMIT_PATH, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(lock_fd, 0, "cannot open " LIMIT_PATH ": %s", strerror(errno));
	while (flock(lock_fd, LOCK_EX) < 0)
		cr_assert_eq(errno, EINTR, "flock: %s", strerror(errno));
	saved_limit = th_sysctl("perf_event_max_sample_rate");
	long v = saved_limit < want ? saved_limit : want;
	/* Whether the kernel takes a limit at all, before a restorer runs to put one back. */
	int e = write_limit(saved_limit);
	if (e == EINVAL)
		/* The kernel takes no new limit while perf_cpu_time_max_percent is 0 or 100. */
		th_skip("cannot lower " LIMIT_PATH " (kernel.perf_cpu_time_max_percent is %ld)",
		        th_sysctl("perf_cpu_time_max_percent"));
	cr_assert_eq(e, 0, "cannot write " LIMIT_PATH ": %s", strerror(e));
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	restorer = fork();
	cr_assert_geq(restorer, 0, "fork: %s", strerror(errno));
	if (restorer == 0) {
		char c;
		close(p[1]);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(write_limit(saved_limit) == 0 ? 0 : 1);
	}
	close(p[0]);
	guard_fd = p[1];
	e = write_limit(v);
	cr_assert_eq(e, 0, "cannot write " LIMIT_PATH ": %s", strerror(e));
	return v;
}

/* Puts the old limit back (through the restorer) and checks it is there. */
static void put_limit_back(void)
{
	int status = -1;

	if (guard_fd >= 0) {
		close(guard_fd);
		guard_fd = -1;
		while (waitpid(restorer, &status, 0) < 0 && errno == EINTR)
			;
		restorer = -1;
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		          "the old limit (%ld) could not be written back", saved_limit);
		cr_expect_eq(th_sysctl("perf_event_max_sample_rate"), saved_limit);
	}
	if (lock_fd >= 0) {
		close(lock_fd);
		lock_fd = -1;
	}
	th_leak_fini();
}

TestSuite(max_rate, .init = th_leak_init, .fini = put_limit_back);

/* The rate perfev's warning line says it samples at, or -1 without one. */
static long announced_rate(const char *err)
{
	const char *w = strstr(err, "perfev: warning: sampling at ");

	if (!w || !strstr(w, "kernel.perf_event_max_sample_rate"))
		return -1;
	return strtol(w + strlen("perfev: warning: sampling at "), NULL, 10);
}

/* The one event's sample_freq in a perf.data file (0 when it samples by period). */
static uint64_t file_freq(const char *path)
{
	struct pev_perfdata *pd = NULL;
	struct pev_error err;

	cr_assert_eq(pev_perfdata_open(path, 0, &pd, &err), 0, "%s: %s", path, err.message);
	cr_assert_geq(pev_perfdata_nr_events(pd), 1);
	const struct pev_attr *a = &pev_perfdata_event(pd, 0)->attr;
	uint64_t f = (a->flags & PEV_ATTR_FREQ) ? a->sample_freq : 0;
	pev_perfdata_close(pd);
	return f;
}

Test(max_rate, record_default_comes_down_to_the_limit_as_perf)
{
	const char *dir = th_suite_dir("max_rate");
	char *out_perfev = th_path_join(dir, "perfev.data");
	char *out_perf = th_path_join(dir, "perf.data");
	long limit = lower_limit(3000);

	struct th_output r = th_perfev("record", "-e", "cpu-clock", "-o", out_perfev, "--", "true");
	cr_assert_eq(r.status, 0, "limit %ld: status %d: %s", limit, r.status, r.err);
	long said = announced_rate(r.err);
	cr_assert_gt(said, 0, "no line says the rate came down:\n%s", r.err);
	cr_expect_leq(said, limit);
	cr_expect_eq(file_freq(out_perfev), (uint64_t)said, "%s", r.err);
	th_output_free(&r);

	/* perf records too, at the limit ("Lowering default frequency rate"). */
	th_need_perf();
	char cmd[512];
	char *perf_out, *perf_err;
	snprintf(cmd, sizeof(cmd), "perf record -e cpu-clock -o '%s' -- true", out_perf);
	int rc = th_sh(cmd, &perf_out, &perf_err);
	cr_assert_eq(rc, 0, "%s: %s", cmd, perf_err);
	cr_expect(strstr(perf_err, "Lowering default frequency"), "%s", perf_err);
	cr_expect_eq(file_freq(out_perf), file_freq(out_perfev));
	free(perf_out);
	free(perf_err);
	free(out_perfev);
	free(out_perf);
}

Test(max_rate, record_rate_given_above_the_limit_is_refused)
{
	const char *dir = th_suite_dir("max_rate");
	char *out = th_path_join(dir, "perf.data");
	long limit = lower_limit(3000);
	char above[32], limit_text[32];

	snprintf(above, sizeof(above), "%ld", limit + 1);
	snprintf(limit_text, sizeof(limit_text), "limit of %ld", limit);
	struct th_output r = th_perfev("record", "-e", "cpu-clock", "-F", above, "-o", out, "--",
	                               "true");
	cr_expect_eq(r.status, 129, "-F %s: %s", above, r.err);
	expect_has(r.err, limit_text);
	expect_has(r.err, "kernel.perf_event_max_sample_rate");
	th_output_free(&r);

	/* An event's own freq= term is a rate asked for too. */
	char event[64];
	snprintf(event, sizeof(event), "cpu-clock/freq=%ld/", limit + 1);
	r = th_perfev("record", "-e", event, "-o", out, "--", "true");
	cr_expect_eq(r.status, 1, "%s: %s", event, r.err);
	expect_has(r.err, "kernel.perf_event_max_sample_rate");
	th_output_free(&r);

	/* -F max and -c take no default: they sample as asked, without the line. */
	r = th_perfev("record", "-e", "cpu-clock", "-F", "max", "-o", out, "--", "true");
	cr_expect_eq(r.status, 0, "-F max: %s", r.err);
	cr_expect_eq(announced_rate(r.err), -1, "%s", r.err);
	cr_expect_eq(file_freq(out), (uint64_t)limit);
	th_output_free(&r);
	r = th_perfev("record", "-e", "cpu-clock", "-c", "100000", "-o", out, "--", "true");
	cr_expect_eq(r.status, 0, "-c: %s", r.err);
	cr_expect_eq(announced_rate(r.err), -1, "%s", r.err);
	th_output_free(&r);
	free(out);
}

Test(max_rate, top_default_comes_down_to_the_limit)
{
	char pid[16];
	long limit = lower_limit(3000);

	/* This process waits for top meanwhile: a target that lives as long as it does. */
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	struct th_output r =
	    th_perfev("top", "--stdio", "-e", "cpu-clock", "-d", "0.2", "-n", "1", "-p", pid);
	cr_expect_eq(r.status, 0, "limit %ld: status %d: %s", limit, r.status, r.err);
	long said = announced_rate(r.err);
	cr_expect(said > 0 && said <= limit, "limit %ld: %s", limit, r.err);
	th_output_free(&r);
}

Test(max_rate, library_session_default_comes_down_to_the_limit)
{
	struct pev_session_opts o = PEV_SESSION_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_session *s = NULL;
	struct pev_error err;
	long limit = lower_limit(500); /* below the session's default of 1000 Hz */

	o.event_text = "cpu-clock";
	o.target = &self;
	o.sample_type = PEV_SAMPLE_IP;
	cr_assert_eq(pev_session_open(&o, &s, &err), 0, "limit %ld: %s", limit, err.message);
	const struct pev_attr *a = pev_counter_attr(pev_session_counter(s, 0));
	cr_expect(a->flags & PEV_ATTR_FREQ);
	cr_expect_leq(a->sample_freq, (uint64_t)limit);
	cr_expect_geq(a->sample_freq, 1);
	pev_session_close(s);

	/* A rate the caller asked for is its own: above the limit, refused. */
	o.sample_freq = (uint64_t)limit + 1;
	s = NULL;
	cr_expect_eq(pev_session_open(&o, &s, &err), PEV_EINVAL);
	cr_expect_null(s);
	expect_has(err.message, "kernel.perf_event_max_sample_rate");
}

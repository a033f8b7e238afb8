/* SPDX-License-Identifier: MIT */
/*
 * test_levels.c - the privilege-level rule of every entry point
 * (docs/API.md, "Privilege levels"), made to happen: with no level chosen
 * an event counts the kernel where the caller may and user space only
 * where it may not; events the kernel raises only in kernel context never
 * fall back and are refused with ':u', and each of those claims is checked
 * against this kernel (a ':u' context-switches counter really reads 0, a
 * ':u' syscalls:* tracepoint and a ':u' uprobe event really count).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "helpers.h"

/* Blocks n times for 1 ms: each sleep is a voluntary context switch of this thread. */
static void sleep_n(int n)
{
	for (int i = 0; i < n; i++) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
}

static uint64_t flags_of(const struct pev_counter *c)
{
	return pev_counter_attr(c)->flags;
}

static void expect_paranoid_2(void)
{
	if (th_sysctl("perf_event_paranoid") != 2)
		th_skip("the fallback is seen at perf_event_paranoid 2; it is %ld",
			th_sysctl("perf_event_paranoid"));
}

/* ---- as root: every level ---------------------------------------------- */

Test(levels, no_level_chosen_counts_the_kernel_where_the_caller_may, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_counter *c;
	struct pev_count v;

	th_require_root();
	c = th_open_ok(pev_event_software(PEV_SW_CONTEXT_SWITCHES), NULL, NULL, NULL);
	cr_expect_eq(flags_of(c) & (PEV_ATTR_EXCLUDE_KERNEL | PEV_ATTR_EXCLUDE_HV), 0,
		     "root counts every level");
	sleep_n(5);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_geq(v.value, 5, "5 sleeps, %" PRIu64 " context switches", v.value);
	pev_counter_close(c);
}

/* The issue this rule closed: selfmon's context-switches read 0 with counted = true. */
Test(levels, selfmon_counts_context_switches_as_root, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_selfmon *s;
	struct pev_error err;
	struct pev_count c[3];

	th_require_root();
	cr_assert_eq(pev_selfmon_open("task-clock,page-faults,context-switches", &s, &err), 0,
		     "%s", err.message);
	cr_assert_eq(pev_selfmon_start(s), 0);
	sleep_n(5);
	cr_assert_eq(pev_selfmon_stop(s), 0);
	cr_assert_eq(pev_selfmon_read(s, c, 3), 3);
	cr_expect(c[2].counted);
	cr_expect_geq(c[2].value, 5, "5 sleeps, %" PRIu64 " context switches", c[2].value);
	pev_selfmon_close(s);
}

/* ---- events that happen only in the kernel ----------------------------- */

/* Opens ev with ':u' (exclude_kernel, exclude_hv) and the given open flags. */
static int open_user_only(struct pev_event ev, unsigned open_flags, struct pev_counter **c,
			  struct pev_error *err)
{
	struct pev_opts o = PEV_OPTS_INIT;

	o.exclude_kernel = o.exclude_hv = true;
	o.open_flags = open_flags;
	return pev_counter_open(&ev, &o, NULL, NULL, c, err);
}

Test(levels, user_only_context_switches_read_0_so_they_are_refused, .init = th_leak_init,
     .fini = th_leak_fini)
{
	static const enum pev_sw_id ids[] = {PEV_SW_CONTEXT_SWITCHES, PEV_SW_CPU_MIGRATIONS,
					     PEV_SW_CGROUP_SWITCHES};
	struct pev_counter *c = NULL;
	struct pev_error err;
	struct pev_count v;

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		cr_expect_eq(open_user_only(pev_event_software(ids[i]), 0, &c, &err), PEV_EINVAL,
			     "%s:u", pev_sw_name(ids[i]));
		cr_expect_null(c);
		cr_expect_str_eq(err.field, "exclude_kernel");
		cr_expect(err.before_syscall);
		cr_expect(strstr(err.message, "always read 0"), "%s", err.message);
		cr_expect(strstr(err.hint, "drop ':u'"), "%s", err.hint);
	}
	/* The premise, on this kernel: past the check, the counter opens and never counts. */
	cr_assert_eq(open_user_only(pev_event_software(PEV_SW_CONTEXT_SWITCHES),
				    PEV_OPEN_NO_VALIDATE, &c, &err),
		     0, "%s", err.message);
	sleep_n(5);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_eq(v.value, 0, "a user-only context-switches counter counted %" PRIu64,
		     v.value);
	pev_counter_close(c);
}

/* Opens the first event of text (perfev's syntax) as parsed; returns the open's code. */
static int open_parsed(const char *text, struct pev_counter **c, struct pev_error *err)
{
	struct pev_event_list *l;
	int r;

	if (pev_event_parse(text, NULL, &l, err) < 0)
		th_skip("cannot parse '%s' here: %s", text, err->message);
	const struct pev_event_spec *sp = pev_event_list_at(l, 0);
	r = pev_counter_open(&sp->ev, &sp->opts, NULL, NULL, c, err);
	pev_event_list_free(l);
	return r;
}

Test(levels, user_only_tracepoints_are_refused_but_syscalls_count, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_counter *c = NULL;
	struct pev_error err;
	struct pev_count v;

	th_require_root();
	if (!th_tracefs())
		th_skip("no tracefs here");
	cr_expect_eq(open_parsed("sched:sched_switch:u", &c, &err), PEV_EINVAL, "%s",
		     err.message);
	cr_expect_str_eq(err.field, "exclude_kernel");
	cr_expect(strstr(err.message, "a tracepoint"), "%s", err.message);
	/* Kernel included, the same tracepoint counts: the refusal was about ':u' alone. */
	cr_assert_eq(open_parsed("sched:sched_switch", &c, &err), 0, "%s", err.message);
	sleep_n(5);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_geq(v.value, 5);
	pev_counter_close(c);

	/* syscalls:* fire with the caller's user registers: ':u' counts them. */
	if (open_parsed("syscalls:sys_enter_getppid:u", &c, &err) == PEV_ENOTFOUND)
		th_skip("no syscalls:* tracepoints (CONFIG_FTRACE_SYSCALLS)");
	cr_assert_not_null(c, "%s", err.message);
	for (int i = 0; i < 20; i++)
		syscall(SYS_getppid);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_eq(v.value, 20, "20 getppid calls, %" PRIu64 " counted", v.value);
	pev_counter_close(c);
}

/* What the uprobe event probes. */
__attribute__((noinline, used)) static int levels_probed(int i)
{
	__asm__ volatile("" : : "r"(i) : "memory");
	return i + 1;
}

/* Appends line to <tracefs>/uprobe_events; 0 or -1 (stdio's "a" seeks, which tracefs refuses). */
static int uprobe_events_write(const char *tracefs, const char *line)
{
	char path[256];
	int fd, r;

	snprintf(path, sizeof(path), "%s/uprobe_events", tracefs);
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0)
		return -1;
	r = write(fd, line, strlen(line)) == (ssize_t)strlen(line) ? 0 : -1;
	close(fd);
	return r;
}

Test(levels, user_only_uprobe_tracepoints_count, .init = th_leak_init, .fini = th_leak_fini)
{
	const char *tracefs;
	char exe[512], line[700];
	struct pev_counter *c = NULL;
	struct pev_error err;
	struct pev_count v;
	uint64_t offset;
	ssize_t n;

	th_require_root();
	if (!(tracefs = th_tracefs()))
		th_skip("no tracefs here");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	cr_assert_gt(n, 0);
	exe[n] = '\0';
	cr_assert_eq(pev_uprobe_resolve(exe, "levels_probed", &offset, &err), 0, "%s",
		     err.message);
	snprintf(line, sizeof(line), "p:perfev_levels_%d/probed %s:0x%" PRIx64 "\n", (int)getpid(),
		 exe, offset);
	if (uprobe_events_write(tracefs, line) < 0)
		th_skip("cannot define a uprobe event in %s/uprobe_events: %m", tracefs);
	snprintf(line, sizeof(line), "perfev_levels_%d:probed:u", (int)getpid());
	int r = open_parsed(line, &c, &err);
	cr_expect_eq(r, 0, "a uprobe event fires in user space: %s", err.message);
	if (r == 0) {
		for (int i = 0; i < 7; i++)
			levels_probed(i);
		cr_expect_eq(pev_counter_read(c, &v), 0);
		cr_expect_eq(v.value, 7, "7 calls, %" PRIu64 " counted", v.value);
		pev_counter_close(c);
	}
	snprintf(line, sizeof(line), "-:perfev_levels_%d/probed\n", (int)getpid());
	cr_expect_eq(uprobe_events_write(tracefs, line), 0, "remove the uprobe event: %m");
}

Test(levels, user_only_kprobes_are_refused, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_event ev;
	struct pev_counter *c = NULL;
	struct pev_error err;

	if (pev_event_kprobe(&ev, "do_nanosleep", 0, false, NULL, &err) < 0)
		th_skip("no kprobe PMU here: %s", err.message);
	cr_expect_eq(open_user_only(ev, 0, &c, &err), PEV_EINVAL, "%s", err.message);
	cr_expect_str_eq(err.field, "exclude_kernel");
	cr_expect(strstr(err.message, "a kprobe"), "%s", err.message);
}

/* ---- as nobody at perf_event_paranoid 2 -------------------------------- */

struct nobody_result {
	int plain, exact, uk, cs, selfmon;
	uint64_t plain_flags;
	struct pev_error cs_err, exact_err, selfmon_err;
};

static void open_as_nobody(void *ctx)
{
	struct nobody_result *r = ctx;
	struct pev_event tc = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c = NULL;
	struct pev_selfmon *s;

	r->plain = pev_counter_open(&tc, &o, NULL, NULL, &c, NULL);
	if (c)
		r->plain_flags = flags_of(c);
	pev_counter_close(c);
	o.open_flags = PEV_OPEN_EXACT_LEVELS;
	r->exact = pev_counter_open(&tc, &o, NULL, NULL, &c, &r->exact_err);
	pev_counter_close(c);
	o.open_flags = 0;
	o.exclude_hv = true; /* ":uk" */
	r->uk = pev_counter_open(&tc, &o, NULL, NULL, &c, NULL);
	pev_counter_close(c);
	struct pev_event cs = pev_event_software(PEV_SW_CONTEXT_SWITCHES);
	r->cs = pev_counter_open(&cs, NULL, NULL, NULL, &c, &r->cs_err);
	pev_counter_close(c);
	r->selfmon = pev_selfmon_open("task-clock,page-faults,context-switches", &s, &r->selfmon_err);
	if (r->selfmon == 0)
		pev_selfmon_close(s);
}

/* Runs open_as_nobody at perf_event_paranoid 2 (else skips) into *r. */
static void run_as_nobody(struct nobody_result *r)
{
	memset(r, 0xff, sizeof(*r));
	expect_paranoid_2();
	cr_assert(th_as_nobody(open_as_nobody, r, sizeof(*r)), "the child did not run");
}

Test(levels, nobody_counts_user_space_only_unless_the_levels_were_chosen, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct nobody_result r;

	run_as_nobody(&r);
	cr_expect_eq(r.plain, 0, "no level chosen: user space only, %s", pev_error_name(r.plain));
	cr_expect_eq(r.plain_flags & (PEV_ATTR_EXCLUDE_KERNEL | PEV_ATTR_EXCLUDE_HV),
		     PEV_ATTR_EXCLUDE_KERNEL | PEV_ATTR_EXCLUDE_HV);
	cr_expect_eq(r.exact, PEV_EACCES, "PEV_OPEN_EXACT_LEVELS: %s", pev_error_name(r.exact));
	cr_expect(strstr(r.exact_err.hint, "':u'"), "%s", r.exact_err.hint);
	cr_expect_eq(r.uk, PEV_EACCES, "':uk' chose the kernel: %s", pev_error_name(r.uk));
}

Test(levels, nobody_is_told_why_kernel_only_events_cannot_count, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct nobody_result r;

	run_as_nobody(&r);
	cr_expect_eq(r.cs, PEV_EACCES, "context-switches: %s", pev_error_name(r.cs));
	cr_expect(strstr(r.cs_err.message, "context switches, which happen only inside the kernel"),
		  "%s", r.cs_err.message);
	cr_expect(strstr(r.cs_err.message, "would always read 0"), "%s", r.cs_err.message);
	cr_expect_not(strstr(r.cs_err.hint, "':u'"), "':u' is no fix: %s", r.cs_err.hint);
	cr_expect(strstr(r.cs_err.hint, "perf_event_paranoid=1"), "%s", r.cs_err.hint);
	cr_expect_eq(r.selfmon, PEV_EACCES, "selfmon with context-switches: %s",
		     pev_error_name(r.selfmon));
	cr_expect(strstr(r.selfmon_err.message, "context switches"), "%s", r.selfmon_err.message);
}

/* ---- the command line: the same rule, and ":u" on the names -------------- */

Test(levels, stat_as_nobody_says_why_context_switches_are_not_counted, .init = th_leak_init,
     .fini = th_leak_fini)
{
	expect_paranoid_2();
	th_require_root();
	struct th_output r =
	    th_perfev_nobody("stat", "-x", ",", "-e", "task-clock,context-switches", "--", "true");

	cr_expect_eq(r.status, 0, "one event counts, so stat succeeds: %s", r.err);
	cr_expect(strstr(r.err, ",task-clock:u,"), "task-clock counted in user space only: %s",
		  r.err);
	cr_expect(strstr(r.err, "<not counted>,,context-switches,"), "%s", r.err);
	th_output_free(&r);
	/* The table says why under the counts. */
	r = th_perfev_nobody("stat", "-e", "task-clock,context-switches", "--", "true");
	cr_expect(strstr(r.err, "only inside the kernel"), "the reason: %s", r.err);
	th_output_free(&r);
	/* ':u' on it is refused, not counted as 0. */
	r = th_perfev("stat", "-e", "task-clock,context-switches:u", "--", "true");
	cr_expect(strstr(r.err, "always read 0"), "%s", r.err);
	th_output_free(&r);
}

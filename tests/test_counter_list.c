/* SPDX-License-Identifier: MIT */
/*
 * test_counter_list.c - parsed event lists opened as counters: groups read
 * together with one read(2), modifiers honoured, the calling thread and
 * other processes as targets, enable_on_exec, ':W' groups falling back to
 * separate events, and failures that leave nothing open.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "workloads.h"
#include "core/sys.h"

#define LIST "{task-clock,page-faults},cpu-clock:u"

static struct pev_event_list *parse(const char *text)
{
	struct pev_event_list *events = NULL;
	struct pev_error err;

	cr_assert_eq(pev_event_parse(text, NULL, &events, &err), 0, "%s: %s", text, err.message);
	return events;
}

/* Opens text on target with opts; the test fails with perfev's message when it cannot. */
static struct pev_counter_list *open_list(const char *text,
					  const struct pev_counter_list_opts *opts,
					  const struct pev_target *target)
{
	struct pev_event_list *events = parse(text);
	struct pev_counter_list *l = NULL;
	struct pev_error err;

	int r = pev_counter_list_open(events, opts, target, &l, &err);
	pev_event_list_free(events); /* the counters keep what they need */
	cr_assert_eq(r, 0, "%s (%s): %s", text, pev_error_name(r), err.message);
	cr_assert_not_null(l);
	return l;
}

/* read(2) calls on event descriptors since the last count_reads(). */
static struct pev_sys counting_sys;
static int reads;

static ssize_t counting_read(int fd, void *buf, size_t count)
{
	reads++;
	return pev__sys_real.read(fd, buf, count);
}

static void count_reads(void)
{
	reads = 0;
	counting_sys = pev__sys_real;
	counting_sys.read = counting_read;
	pev__sys_set(&counting_sys);
}

Test(counter_list, groups_modifiers_and_one_read_per_group, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_counter_list_opts o = PEV_COUNTER_LIST_OPTS_INIT;
	struct pev_count c[4];

	o.disabled = true;
	struct pev_counter_list *l = open_list(LIST, &o, NULL);
	cr_assert_eq(pev_counter_list_count(l), 3);
	struct pev_counter *tc = pev_counter_list_at(l, 0), *pf = pev_counter_list_at(l, 1),
			   *cc = pev_counter_list_at(l, 2);
	cr_assert(tc && pf && cc);
	cr_expect_null(pev_counter_list_at(l, 3));
	cr_expect_null(pev_counter_list_at(l, -1));
	cr_expect_str_eq(pev_counter_name(tc), "task-clock");
	cr_expect_eq(pev_counter_leader(tc), tc, "the group's first event leads it");
	cr_expect_eq(pev_counter_leader(pf), tc);
	cr_expect_null(pev_counter_leader(cc), "cpu-clock:u is alone");
	const struct pev_attr *a = pev_counter_attr(cc);
	cr_expect(a->flags & PEV_ATTR_EXCLUDE_KERNEL, ":u is honoured");
	cr_expect_not(pev_counter_attr(tc)->flags & PEV_ATTR_EXCLUDE_KERNEL);
	uint64_t times = PEV_FORMAT_TOTAL_TIME_ENABLED | PEV_FORMAT_TOTAL_TIME_RUNNING;
	cr_expect_eq(pev_counter_attr(tc)->read_format & (times | PEV_FORMAT_GROUP),
		     times | PEV_FORMAT_GROUP);
	cr_expect_eq(a->read_format & times, times);

	/* Opened disabled: nothing counted yet. */
	th_spin_ms(2);
	cr_assert_eq(pev_counter_list_read(l, c, 4), 3);
	for (int i = 0; i < 3; i++)
		cr_expect_not(c[i].counted, "event %d before enable", i);

	cr_assert_eq(pev_counter_list_enable(l), 0);
	th_spin_ms(5);
	th_touch_pages(16);
	cr_assert_eq(pev_counter_list_disable(l), 0);
	count_reads();
	cr_assert_eq(pev_counter_list_read(l, c, 4), 3);
	cr_expect_eq(reads, 2, "one read(2) for the group, one for cpu-clock: %d", reads);
	th_inject_reset();
	for (int i = 0; i < 3; i++)
		cr_expect(c[i].counted, "event %d", i);
	cr_expect_geq(c[0].value, 3000000, "task-clock %" PRIu64 " ns", c[0].value);
	cr_expect_geq(c[1].value, 16, "page-faults %" PRIu64, c[1].value);
	cr_expect_lt(c[1].value, 1000, "page-faults %" PRIu64, c[1].value);
	cr_expect_gt(c[2].value, 0, "cpu-clock:u %" PRIu64, c[2].value);

	/* Each entry is what its counter reads alone (they are disabled: nothing moves). */
	for (int i = 0; i < 3; i++) {
		struct pev_count one;
		cr_assert_eq(pev_counter_read(pev_counter_list_at(l, i), &one), 0);
		cr_expect_eq(one.value, c[i].value, "event %d", i);
	}

	/* Room for fewer: the first ones, the group still read whole. */
	memset(c, 0xEE, sizeof(c));
	cr_assert_eq(pev_counter_list_read(l, c, 1), 1);
	cr_expect(c[0].counted);
	cr_expect_eq(c[1].value, UINT64_C(0xEEEEEEEEEEEEEEEE), "only one entry written");

	cr_assert_eq(pev_counter_list_reset(l), 0);
	cr_assert_eq(pev_counter_list_read(l, c, 4), 3);
	cr_expect_eq(c[1].value, 0, "reset");
	pev_counter_list_close(l);
}

Test(counter_list, counts_from_the_open_by_default, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter_list *l = open_list(LIST, NULL, NULL);
	struct pev_count c[3];

	th_touch_pages(8);
	cr_assert_eq(pev_counter_list_read(l, c, 3), 3);
	for (int i = 0; i < 3; i++)
		cr_expect(c[i].counted, "event %d", i);
	cr_expect_geq(c[1].value, 8);
	pev_counter_list_close(l);
}

/* Every thread of another process: 4 threads that spin 20 ms each. */
Test(counter_list, a_process_with_threads, .init = th_leak_init, .fini = th_leak_fini)
{
	struct th_threaded_child tc;
	struct pev_counter_list *l = NULL;
	struct pev_event_list *events = parse(LIST);
	struct pev_error err;
	struct pev_count c[3];

	th_threaded_child_start(&tc);
	struct pev_target t = pev_target_process(tc.pid);
	int r = pev_counter_list_open(events, NULL, &t, &l, &err);
	int status = th_threaded_child_finish(&tc);
	pev_event_list_free(events);
	cr_assert_eq(r, 0, "%s", err.message);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_expect_eq(pev_counter_nr_fds(pev_counter_list_at(l, 1)), 4, "a member on every thread");
	cr_assert_eq(pev_counter_list_read(l, c, 3), 3);
	cr_expect_geq(c[0].value, 40 * 1000000ULL, "4 x 20 ms: %" PRIu64 " ns", c[0].value);
	cr_expect_geq(c[2].value, 40 * 1000000ULL, "cpu-clock:u %" PRIu64 " ns", c[2].value);
	for (int i = 0; i < 3; i++)
		cr_expect(c[i].counted, "event %d", i);
	pev_counter_list_close(l);
}

/* A child that waits for a byte on a pipe, then runs /bin/true. */
Test(counter_list, a_child_from_its_exec, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter_list_opts o = PEV_COUNTER_LIST_OPTS_INIT;
	struct pev_counter_list *l = NULL;
	struct pev_event_list *events = parse(LIST);
	struct pev_error err;
	struct pev_count c[3];
	int go[2];

	cr_assert_eq(pipe(go), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char b;
		close(go[1]);
		if (read(go[0], &b, 1) == 1)
			execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	o.enable_on_exec = true;
	struct pev_target t = pev_target_thread(pid);
	int r = pev_counter_list_open(events, &o, &t, &l, &err);
	pev_event_list_free(events);
	if (r == 0) {
		cr_assert_eq(pev_counter_list_read(l, c, 3), 3);
		for (int i = 0; i < 3; i++)
			cr_expect_not(c[i].counted, "event %d before the exec", i);
	}
	cr_assert_eq(write(go[1], "x", 1), 1);
	close(go[1]);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert_eq(r, 0, "%s", err.message);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
	cr_assert_eq(pev_counter_list_read(l, c, 3), 3);
	for (int i = 0; i < 3; i++)
		cr_expect(c[i].counted, "event %d after the exec", i);
	cr_expect_gt(c[1].value, 10, "true's page faults: %" PRIu64, c[1].value);
	pev_counter_list_close(l);
}

/* Opens text with perf_event_open call number `nth` (0-based) failing with ENOSPC. */
static int open_failing(const char *text, int nth, struct pev_counter_list **l,
			struct pev_error *err)
{
	struct pev_event_list *events = parse(text);

	th_inject_open_errno(ENOSPC, nth, 1);
	int r = pev_counter_list_open(events, NULL, NULL, l, err);
	th_inject_reset();
	pev_event_list_free(events);
	return r;
}

Test(counter_list, a_failure_leaves_nothing_open, .init = th_leak_init, .fini = th_leak_fini)
{
	int fds = th_count_fds(), perf_fds = th_count_perf_fds();

	for (int nth = 0; nth < 3; nth++) {
		struct pev_counter_list *l = (struct pev_counter_list *)1;
		struct pev_error err;
		int r = open_failing(LIST, nth, &l, &err);
		cr_expect_eq(r, PEV_ENOSPC, "open %d failing: %s", nth, pev_error_name(r));
		cr_expect_null(l);
		cr_expect_eq(err.code, PEV_ENOSPC);
		const char *names[] = {"task-clock", "page-faults", "cpu-clock"};
		cr_expect(strstr(err.event, names[nth]), "the error names %s: '%s'", names[nth],
			  err.event);
		cr_expect_eq(th_count_perf_fds(), perf_fds, "open %d failing: perf fds left", nth);
		cr_expect_eq(th_count_fds(), fds, "open %d failing: fds left", nth);
	}
}

Test(counter_list, a_weak_group_falls_back_to_separate_events, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_counter_list *l = NULL;
	struct pev_error err;
	struct pev_count c[3];

	/* The member cannot join: the group's events are opened alone. */
	int r = open_failing("{task-clock,page-faults}:W,cpu-clock", 1, &l, &err);
	cr_assert_eq(r, 0, "%s", err.message);
	cr_expect_null(pev_counter_leader(pev_counter_list_at(l, 0)));
	cr_expect_null(pev_counter_leader(pev_counter_list_at(l, 1)));
	cr_expect_not(pev_counter_attr(pev_counter_list_at(l, 0))->read_format & PEV_FORMAT_GROUP);
	th_touch_pages(4);
	cr_assert_eq(pev_counter_list_read(l, c, 3), 3);
	for (int i = 0; i < 3; i++)
		cr_expect(c[i].counted, "event %d", i);
	cr_expect_geq(c[1].value, 4);
	pev_counter_list_close(l);

	/* Without ':W' the failure stands. */
	r = open_failing("{task-clock,page-faults},cpu-clock", 1, &l, &err);
	cr_expect_eq(r, PEV_ENOSPC);
	cr_expect_null(l);
	/* A weak group's leader that fails: nothing to fall back to. */
	r = open_failing("{task-clock,page-faults}:W", 0, &l, &err);
	cr_expect_eq(r, PEV_ENOSPC);
	cr_expect_null(l);
}

Test(counter_list, arguments, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_event_list *events = parse("task-clock");
	struct pev_counter_list *l = (struct pev_counter_list *)1;
	struct pev_counter_list_opts o = PEV_COUNTER_LIST_OPTS_INIT;
	struct pev_error err;
	struct pev_count c;

	cr_expect_eq(pev_counter_list_open(events, NULL, NULL, NULL, &err), PEV_EBADARG);
	cr_expect_eq(pev_counter_list_open(NULL, NULL, NULL, &l, &err), PEV_EBADARG);
	cr_expect_null(l);
	cr_expect_str_eq(err.field, "events");
	o.sz = 0;
	cr_expect_eq(pev_counter_list_open(events, &o, NULL, &l, &err), PEV_EBADARG);
	cr_expect_null(l);
	cr_expect_eq(pev_counter_list_count(NULL), PEV_EBADARG);
	cr_expect_null(pev_counter_list_at(NULL, 0));
	cr_expect_eq(pev_counter_list_read(NULL, &c, 1), PEV_EBADARG);
	cr_expect_eq(pev_counter_list_enable(NULL), PEV_EBADARG);
	cr_expect_eq(pev_counter_list_disable(NULL), PEV_EBADARG);
	cr_expect_eq(pev_counter_list_reset(NULL), PEV_EBADARG);
	pev_counter_list_close(NULL);

	o.sz = sizeof(o);
	cr_assert_eq(pev_counter_list_open(events, &o, NULL, &l, &err), 0, "%s", err.message);
	cr_expect_eq(pev_counter_list_read(l, NULL, 1), PEV_EBADARG);
	cr_expect_eq(pev_counter_list_read(l, &c, 0), PEV_EBADARG);
	cr_expect_eq(pev_counter_list_read(l, &c, 1), 1);
	pev_counter_list_close(l);
	pev_event_list_free(events);
}

/* SPDX-License-Identifier: MIT */
/*
 * test_targets.c - what a target expands to, and deterministic workloads
 * counted on it: CPU lists (in the order written, refused when malformed),
 * every online CPU, the threads of a process from /proc/PID/task (one
 * descriptor each; gone threads left out; a process with none left refused),
 * inherit across fork, cgroups, and counts that are exact or bounded:
 * page faults of fresh pages, context switches of blocking pipe round
 * trips, watchpoint hits, uprobe hits.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "workloads.h"

static int wait_child(pid_t pid)
{
	int status = -1;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

#define expect_exit0(status)                                                                       \
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", (status))

/* ---- CPU lists ------------------------------------------------------------- */

static void expect_cpus(const char *list, const int *want, int n)
{
	struct pev_target t = pev_target_cpu_list(list);
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_CPU_CLOCK), NULL, &t, NULL);

	cr_assert_eq(pev_counter_nr_fds(c), n, "\"%s\": %d descriptors", list,
		     pev_counter_nr_fds(c));
	for (int i = 0; i < n; i++) {
		cr_expect_eq(pev_counter_cpu(c, i), want[i], "\"%s\" descriptor %d: CPU %d", list, i,
			     pev_counter_cpu(c, i));
		cr_expect_eq(pev_counter_tid(c, i), -1, "every task of the CPU");
		cr_expect_geq(pev_counter_fd(c, i), 0);
	}
	cr_expect_eq(pev_counter_cpu(c, n), PEV_EBADARG);
	cr_expect_eq(pev_counter_cpu(c, -1), PEV_EBADARG);
	pev_counter_close(c);
}

Test(targets, cpulist_parse_and_contains, .init = th_leak_init, .fini = th_leak_fini)
{
	static const struct {
		const char *list;
		int n;
		int cpus[8];
	} ok[] = {
		{"0", 1, {0}},
		{"0-3,7", 5, {0, 1, 2, 3, 7}},
		{"7,0-1", 3, {7, 0, 1}},
		{" 2-2\n", 1, {2}},
		{"", 0, {0}},
		{"\n", 0, {0}},
		{"1048576", 1, {1048576}},
	};
	static const char *const bad[] = {"-1", "1-", "3-1", "0,", ",0", "0,,1", "a", "0 1",
					  "1048577", "0-1048577", "0x1"};
	int cpus[8];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cr_expect_eq(pev_cpulist_parse(ok[i].list, NULL, 0), ok[i].n, "'%s'", ok[i].list);
		cr_assert_eq(pev_cpulist_parse(ok[i].list, cpus, 8), ok[i].n, "'%s'", ok[i].list);
		for (int k = 0; k < ok[i].n; k++)
			cr_expect_eq(cpus[k], ok[i].cpus[k], "'%s' [%d]", ok[i].list, k);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(pev_cpulist_parse(bad[i], cpus, 8), PEV_EINVAL, "'%s'", bad[i]);
	cr_expect_eq(pev_cpulist_parse(NULL, cpus, 8), PEV_EBADARG);
	/* More CPUs than room: the count is still the list's, only max are stored. */
	cpus[2] = -7;
	cr_expect_eq(pev_cpulist_parse("0-9", cpus, 2), 10);
	cr_expect_eq(cpus[1], 1);
	cr_expect_eq(cpus[2], -7);

	cr_expect(pev_cpulist_contains("0-3,7", 7));
	cr_expect(pev_cpulist_contains("0-3,7", 2));
	cr_expect_not(pev_cpulist_contains("0-3,7", 4));
	cr_expect_not(pev_cpulist_contains("0-3,7", -1));
	cr_expect_not(pev_cpulist_contains(NULL, 0));
}

Test(targets, cpu_lists_in_the_order_written, .init = th_leak_init, .fini = th_leak_fini)
{
	int cpus[1024];
	char text[256];
	int n = th_online_cpus(cpus, 1024, text, sizeof(text));

	expect_cpus("0", (const int[]){0}, 1);
	expect_cpus(" 0\n", (const int[]){0}, 1);
	if (n < 2 || cpus[1] != 1)
		th_skip("needs CPUs 0 and 1 online (online: %s)", text);
	expect_cpus("0-1", (const int[]){0, 1}, 2);
	expect_cpus("0,1", (const int[]){0, 1}, 2);
	expect_cpus("1,0", (const int[]){1, 0}, 2);
	expect_cpus("1-1,0-0", (const int[]){1, 0}, 2);
}

Test(targets, cpu_list_of_the_online_cpus_is_every_cpu, .init = th_leak_init,
     .fini = th_leak_fini)
{
	int cpus[1024];
	char text[256];
	int n = th_online_cpus(cpus, 1024, text, sizeof(text));
	struct pev_target all = pev_target_all_cpus(), list = pev_target_cpu_list(text);
	struct pev_counter *a = th_open_ok(pev_event_software(PEV_SW_CPU_CLOCK), NULL, &all, NULL);
	struct pev_counter *l = th_open_ok(pev_event_software(PEV_SW_CPU_CLOCK), NULL, &list, NULL);

	cr_assert_eq(pev_counter_nr_fds(a), n, "online \"%s\"", text);
	cr_assert_eq(pev_counter_nr_fds(l), n);
	for (int i = 0; i < n && i < 1024; i++) {
		cr_expect_eq(pev_counter_cpu(a, i), cpus[i]);
		cr_expect_eq(pev_counter_cpu(l, i), cpus[i]);
	}
	pev_counter_close(l);
	pev_counter_close(a);
}

static void expect_bad_list(const char *list, int code, const char *field, const char *says)
{
	struct pev_target t = pev_target_cpu_list(list);
	struct pev_event ev = pev_event_software(PEV_SW_CPU_CLOCK);
	struct pev_counter *c = (struct pev_counter *)1;
	struct pev_error err;
	int before = th_count_perf_fds();

	int r = pev_counter_open(&ev, NULL, &t, NULL, &c, &err);
	cr_expect_eq(r, code, "\"%s\": %s (%s)", list, pev_error_name(r), err.message);
	cr_expect_null(c, "\"%s\": *out cleared", list);
	cr_expect_eq(err.code, r);
	cr_expect_str_eq(err.field, field, "\"%s\": field '%s'", list, err.field);
	cr_expect(err.before_syscall, "\"%s\" is refused before any syscall", list);
	expect_has(err.message, says);
	cr_expect_eq(th_count_perf_fds(), before, "\"%s\": nothing left open", list);
}

Test(targets, malformed_cpu_lists_are_refused, .init = th_leak_init, .fini = th_leak_fini)
{
	expect_bad_list("", PEV_EBADARG, "cpus", "empty");
	expect_bad_list("  ", PEV_EBADARG, "cpus", "empty");
	expect_bad_list("x", PEV_EBADARG, "cpus", "'x' is not a CPU list");
	expect_bad_list("3-1", PEV_EBADARG, "cpus", "'3-1' is not a CPU list");
	expect_bad_list("-1", PEV_EBADARG, "cpus", "not a CPU list");
	expect_bad_list("0,", PEV_EBADARG, "cpus", "not a CPU list");
	expect_bad_list("0-", PEV_EBADARG, "cpus", "not a CPU list");
	expect_bad_list("0;1", PEV_EBADARG, "cpus", "not a CPU list");
	expect_bad_list("0,0", PEV_EBADARG, "cpus", "CPU 0 appears twice in '0,0'");
	expect_bad_list("0-1,1", PEV_EBADARG, "cpus", "CPU 1 appears twice");
	expect_bad_list("99999999", PEV_EBADARG, "cpus", "not a CPU list");
}

Test(targets, cpus_that_do_not_exist_are_refused, .init = th_leak_init, .fini = th_leak_fini)
{
	/* Well-formed, but this machine has no such CPUs: the kernel would say EINVAL. */
	expect_bad_list("99999", PEV_EINVAL, "cpu", "CPU 99999 does not exist");
	expect_bad_list("0-99999", PEV_EINVAL, "cpu", "does not exist");
	expect_bad_list("4095,0", PEV_EINVAL, "cpu", "CPU 4095 does not exist");
}

/* The longest list the parser takes, checked for duplicates in linear time. */
Test(targets, a_huge_cpu_list_is_refused_quickly, .init = th_leak_init, .fini = th_leak_fini)
{
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	expect_bad_list("0-1048576", PEV_EINVAL, "cpu", "does not exist");
	expect_bad_list("0-1048576,7", PEV_EBADARG, "cpus", "CPU 7 appears twice");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	/* A bound that quadratic duplicate checks (hours) break, not a timing. */
	cr_expect_lt(s, 20.0, "two lists of a million CPUs took %.2f s", s);
}

Test(targets, members_follow_their_leader_cpu_order, .init = th_leak_init, .fini = th_leak_fini)
{
	int cpus[1024];
	char text[256];
	if (th_online_cpus(cpus, 1024, text, sizeof(text)) < 2 || cpus[1] != 1)
		th_skip("needs CPUs 0 and 1 online (online: %s)", text);
	struct pev_target t10 = pev_target_cpu_list("1,0"), t01 = pev_target_cpu_list("0,1");
	struct pev_opts lo = th_opts();
	lo.read_format = PEV_FORMAT_GROUP;
	struct pev_counter *leader = th_open_ok(pev_event_software(PEV_SW_CPU_CLOCK), &lo, &t10, NULL);
	struct pev_counter *m = th_open_ok(pev_event_software(PEV_SW_CONTEXT_SWITCHES), NULL, &t10,
					leader);
	struct pev_event ev = pev_event_software(PEV_SW_CPU_CLOCK);
	struct pev_counter *c = NULL;
	struct pev_error err;

	cr_expect_eq(pev_counter_cpu(m, 0), 1);
	cr_expect_eq(pev_counter_cpu(m, 1), 0);
	int r = pev_counter_open(&ev, NULL, &t01, leader, &c, &err);
	cr_expect_eq(r, PEV_EINVAL, "the same CPUs in another order: %s", pev_error_name(r));
	cr_expect_str_eq(err.field, "cpu");
	cr_expect_null(c);
	pev_counter_close(m);
	pev_counter_close(leader);
}

/* ---- a child process with 4 threads ---------------------------------------- */

/* The thread ids in /proc/<pid>/task, sorted; returns how many. */
static int list_tasks(pid_t pid, pid_t *tids, int max)
{
	char path[64];
	struct dirent *e;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	cr_assert_not_null(d, "%s: %s", path, strerror(errno));
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && n < max)
			tids[n++] = (pid_t)atoi(e->d_name);
	closedir(d);
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && tids[j - 1] > tids[j]; j--) {
			pid_t x = tids[j];
			tids[j] = tids[j - 1];
			tids[j - 1] = x;
		}
	return n;
}

Test(targets, every_thread_of_a_process, .init = th_leak_init, .fini = th_leak_fini)
{
	struct th_threaded_child tc;
	struct pev_counter *c = NULL;
	struct pev_error err;
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	pid_t tids[16];

	th_threaded_child_start(&tc);
	int nt = list_tasks(tc.pid, tids, 16);
	struct pev_target t = pev_target_process(tc.pid);
	int r = pev_counter_open(&ev, NULL, &t, NULL, &c, &err);
	int status = th_threaded_child_finish(&tc);
	cr_assert_eq(r, 0, "open on process %d: %s", (int)tc.pid, err.message);
	expect_exit0(status);

	cr_expect_eq(nt, 4, "/proc/%d/task lists %d threads", (int)tc.pid, nt);
	cr_assert_eq(pev_counter_nr_fds(c), 4, "%d descriptors", pev_counter_nr_fds(c));
	cr_expect_eq(tids[0], tc.pid, "the main thread's id is the pid");
	for (int i = 0; i < 4; i++) {
		struct pev_count v;
		cr_expect_eq(pev_counter_tid(c, i), tids[i], "descriptor %d: thread %d, want %d", i,
			     (int)pev_counter_tid(c, i), (int)tids[i]);
		cr_expect_eq(pev_counter_cpu(c, i), -1);
		cr_assert_eq(pev_counter_read_fd(c, i, &v), 0);
		cr_expect_geq(v.value, 10 * 1000000ULL, "thread %d spun 20 ms: %" PRIu64 " ns",
			      (int)pev_counter_tid(c, i), v.value);
	}
	pev_counter_close(c);
}

Test(targets, every_thread_on_every_cpu, .init = th_leak_init, .fini = th_leak_fini)
{
	int cpus[1024];
	char text[256];
	int ncpu = th_online_cpus(cpus, 1024, text, sizeof(text));
	struct th_threaded_child tc;
	struct pev_counter *c = NULL;
	struct pev_error err;
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	pid_t tids[16];

	th_threaded_child_start(&tc);
	cr_assert_eq(list_tasks(tc.pid, tids, 16), 4);
	struct pev_target t = pev_target_process(tc.pid);
	t.cpu = PEV_CPU_ALL;
	int r = pev_counter_open(&ev, NULL, &t, NULL, &c, &err);
	int status = th_threaded_child_finish(&tc);
	cr_assert_eq(r, 0, "open on process %d, every CPU: %s", (int)tc.pid, err.message);
	expect_exit0(status);

	/* CPU-major: every thread on the first CPU, then on the next. */
	cr_assert_eq(pev_counter_nr_fds(c), 4 * ncpu);
	uint64_t per_thread[4] = {0};
	for (int i = 0; i < 4 * ncpu; i++) {
		struct pev_count v;
		cr_expect_eq(pev_counter_cpu(c, i), cpus[i / 4]);
		cr_expect_eq(pev_counter_tid(c, i), tids[i % 4]);
		cr_assert_eq(pev_counter_read_fd(c, i, &v), 0);
		per_thread[i % 4] += v.value;
	}
	for (int k = 0; k < 4; k++)
		cr_expect_geq(per_thread[k], 10 * 1000000ULL, "thread %d over all CPUs: %" PRIu64,
			      (int)tids[k], per_thread[k]);
	pev_counter_close(c);
}

Test(targets, threads_gone_before_their_open_are_left_out, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct th_threaded_child tc;
	struct pev_counter *c = NULL;
	struct pev_error err;
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	pid_t tids[16];

	th_threaded_child_start(&tc);
	cr_assert_eq(list_tasks(tc.pid, tids, 16), 4);
	struct pev_target t = pev_target_process(tc.pid);
	/* The second thread "exits" between the listing and its open. */
	th_inject_open_errno(ESRCH, 1, 1);
	int r = pev_counter_open(&ev, NULL, &t, NULL, &c, &err);
	th_inject_reset();
	int status = th_threaded_child_finish(&tc);
	cr_assert_eq(r, 0, "%s", err.message);
	expect_exit0(status);
	cr_assert_eq(pev_counter_nr_fds(c), 3);
	cr_expect_eq(pev_counter_tid(c, 0), tids[0]);
	cr_expect_eq(pev_counter_tid(c, 1), tids[2], "the gone thread is skipped");
	cr_expect_eq(pev_counter_tid(c, 2), tids[3]);
	for (int i = 0; i < 3; i++)
		cr_expect_geq(pev_counter_fd(c, i), 0);
	cr_expect_eq(pev_counter_fd(c, 3), PEV_EBADARG);
	for (int i = 0; i < 3; i++) {
		struct pev_count v;
		cr_assert_eq(pev_counter_read_fd(c, i, &v), 0);
		cr_expect_geq(v.value, 10 * 1000000ULL, "thread %d", (int)pev_counter_tid(c, i));
	}
	pev_counter_close(c);
}

Test(targets, a_failed_open_leaves_nothing_open, .init = th_leak_init, .fini = th_leak_fini)
{
	struct th_threaded_child tc;
	struct pev_counter *c = (struct pev_counter *)1;
	struct pev_error err;
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	int before = th_count_perf_fds();

	th_threaded_child_start(&tc);
	struct pev_target t = pev_target_process(tc.pid);
	/* The third of four opens fails. */
	th_inject_open_errno(EMFILE, 2, 1);
	int r = pev_counter_open(&ev, NULL, &t, NULL, &c, &err);
	cr_expect_eq(th_count_perf_fds(), before, "the two opened descriptors were closed");
	th_inject_reset();
	int status = th_threaded_child_finish(&tc);
	expect_exit0(status);
	cr_expect_eq(r, PEV_EMFILE, "got %s", pev_error_name(r));
	cr_expect_null(c);
	cr_expect_eq(err.code, PEV_EMFILE);

	/* The same on every CPU: the last CPU's open fails. */
	int cpus[1024];
	char text[256];
	int n = th_online_cpus(cpus, 1024, text, sizeof(text));
	struct pev_target all = pev_target_all_cpus();
	ev = pev_event_software(PEV_SW_CPU_CLOCK);
	th_inject_open_errno(EBUSY, n - 1, 1);
	r = pev_counter_open(&ev, NULL, &all, NULL, &c, NULL);
	cr_expect_eq(r, PEV_EBUSY, "got %s", pev_error_name(r));
	cr_expect_eq(th_count_perf_fds(), before);
	th_inject_reset();

	/* A group member whose second CPU fails: the leader stays, with no member. */
	struct pev_opts lo = th_opts();
	lo.read_format = PEV_FORMAT_GROUP;
	struct pev_counter *leader = th_open_ok(ev, &lo, &all, NULL);
	th_inject_open_errno(EBUSY, n > 1 ? 1 : 0, 1);
	struct pev_event cs = pev_event_software(PEV_SW_CONTEXT_SWITCHES);
	r = pev_counter_open(&cs, NULL, &all, leader, &c, NULL);
	th_inject_reset();
	cr_expect_eq(r, PEV_EBUSY);
	cr_expect_eq(th_count_perf_fds(), before + n, "only the leader's descriptors");
	struct pev_count out[2];
	cr_expect_eq(pev_counter_read_group(leader, out, 2), 1, "the leader reads alone");
	pev_counter_close(leader);
}

Test(targets, a_process_with_no_threads_left, .init = th_leak_init, .fini = th_leak_fini)
{
	siginfo_t si;
	struct pev_counter *c = (struct pev_counter *)1;
	struct pev_error err;
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);

	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(0);
	/* Wait for the exit without reaping: a zombie still lists its thread in /proc. */
	cr_assert_eq(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	pid_t tids[4];
	int listed = list_tasks(pid, tids, 4);

	struct pev_target t = pev_target_process(pid);
	int r = pev_counter_open(&ev, NULL, &t, NULL, &c, &err);
	int status = wait_child(pid);
	expect_exit0(status);
	cr_expect_eq(listed, 1, "the zombie lists %d threads", listed);
	cr_expect_eq(r, PEV_ESRCH, "got %s: %s", pev_error_name(r), err.message);
	cr_expect_null(c);
	cr_expect_eq(err.code, PEV_ESRCH);
	char want[96];
	snprintf(want, sizeof(want), "every thread of process %d exited", (int)pid);
	expect_has(err.message, want);
}

Test(targets, a_process_that_does_not_exist, .init = th_leak_init, .fini = th_leak_fini)
{
	pid_t gone = th_reaped_pid();
	struct pev_counter *c = (struct pev_counter *)1;
	struct pev_error err;
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	char want[64];

	struct pev_target t = pev_target_process(gone);
	int r = pev_counter_open(&ev, NULL, &t, NULL, &c, &err);
	cr_expect_eq(r, PEV_ESRCH, "got %s", pev_error_name(r));
	cr_expect_null(c);
	cr_expect_eq(err.code, PEV_ESRCH);
	snprintf(want, sizeof(want), "process %d does not exist", (int)gone);
	expect_has(err.message, want);

	/* As a single thread the kernel says so. */
	t = pev_target_thread(gone);
	c = (struct pev_counter *)1;
	r = pev_counter_open(&ev, NULL, &t, NULL, &c, &err);
	cr_expect_eq(r, PEV_ESRCH, "got %s", pev_error_name(r));
	cr_expect_null(c);
}

/* ---- inherit across fork -------------------------------------------------- */

/* CPU time the grandchild of the inherit tests spins; its parent only forks and waits. */
#define GRANDCHILD_SPIN_MS 60

/*
 * A child that waits for a byte, then forks a grandchild that touches
 * `pages` fresh pages and spins 20 ms; the child reaps it and exits.
 */
static pid_t forking_child(int *go_out, size_t pages)
{
	int go[2];

	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char b;
		int status;
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(2);
		pid_t g = fork();
		if (g < 0)
			_exit(3);
		if (g == 0) {
			char *mem = th_fresh_pages(pages);
			if (!mem)
				_exit(4);
			th_touch(mem, pages);
			/* Far more than the child's own fork and wait, even under ASan. */
			th_spin_ms(GRANDCHILD_SPIN_MS);
			_exit(0);
		}
		if (waitpid(g, &status, 0) != g || !WIFEXITED(status) || WEXITSTATUS(status))
			_exit(5);
		_exit(0);
	}
	close(go[0]);
	*go_out = go[1];
	return pid;
}

static void inherit_case(enum pev_inherit inherit, uint64_t *faults, uint64_t *clock_ns)
{
	const size_t pages = 512;
	int go;
	pid_t pid = forking_child(&go, pages);
	struct pev_target t = pev_target_thread(pid);
	struct pev_opts o = th_opts();
	struct pev_counter *pf = NULL, *clk = NULL;
	struct pev_event ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_error err;

	o.inherit = inherit;
	int r = pev_counter_open(&ev, &o, &t, NULL, &pf, &err);
	if (r == 0) {
		ev = pev_event_software(PEV_SW_TASK_CLOCK);
		r = pev_counter_open(&ev, &o, &t, NULL, &clk, &err);
	}
	cr_expect_eq(write(go, "g", 1), 1);
	close(go);
	int status = wait_child(pid);
	cr_assert_eq(r, 0, "open on child %d: %s", (int)pid, err.message);
	expect_exit0(status);
	*faults = th_value(pf);
	*clock_ns = th_value(clk);
	pev_counter_close(clk);
	pev_counter_close(pf);
}

Test(targets, inherit_follows_fork, .init = th_leak_init, .fini = th_leak_fini)
{
	uint64_t faults, ns;

	inherit_case(PEV_INHERIT_ALL, &faults, &ns);
	cr_expect_geq(faults, 512, "inherited: the grandchild's 512 faults count (%" PRIu64 ")",
		      faults);
	cr_expect_geq(ns, GRANDCHILD_SPIN_MS * 1000000ULL / 2,
		      "inherited: the grandchild's %d ms count (%" PRIu64 " ns)", GRANDCHILD_SPIN_MS,
		      ns);
}

Test(targets, without_inherit_the_fork_is_not_counted, .init = th_leak_init,
     .fini = th_leak_fini)
{
	uint64_t faults, ns;

	inherit_case(PEV_INHERIT_NONE, &faults, &ns);
	cr_expect_lt(faults, 256, "not inherited: only the child's own faults (%" PRIu64 ")",
		     faults);
	cr_expect_lt(ns, GRANDCHILD_SPIN_MS * 1000000ULL / 2,
		     "not inherited: only the child's own time (%" PRIu64 " ns)", ns);
}

Test(targets, inherit_threads_does_not_follow_fork, .init = th_leak_init, .fini = th_leak_fini)
{
	uint64_t faults, ns;

	inherit_case(PEV_INHERIT_THREADS, &faults, &ns);
	cr_expect_lt(faults, 256, "threads only: the forked grandchild is not counted (%" PRIu64 ")",
		     faults);
}

/* ---- cgroups -------------------------------------------------------------- */

Test(targets, cgroup_on_every_cpu_or_a_list, .init = th_leak_init, .fini = th_leak_fini)
{
	char text[256];
	int cpus[1024];
	int n = th_online_cpus(cpus, 1024, text, sizeof(text));
	struct th_cgroup cg;

	th_cgroup_make(&cg, "targets");
	const char *dir = cg.dir;

	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_counter *all = NULL, *one = NULL, *list = NULL;
	struct pev_error err;
	struct pev_target t = pev_target_cgroup(dir);
	int r1 = pev_counter_open(&ev, NULL, &t, NULL, &all, &err);
	t.cpu = 0; /* one CPU */
	int r2 = pev_counter_open(&ev, NULL, &t, NULL, &one, &err);
	t.cpus = "0"; /* a list wins over cpu */
	t.cpu = PEV_CPU_ALL;
	int r3 = pev_counter_open(&ev, NULL, &t, NULL, &list, &err);
	cr_expect_eq(r1, 0);
	cr_expect_eq(r2, 0);
	cr_expect_eq(r3, 0);
	if (all) {
		cr_expect_eq(pev_counter_nr_fds(all), n);
		for (int i = 0; i < pev_counter_nr_fds(all); i++) {
			cr_expect_eq(pev_counter_cpu(all, i), cpus[i]);
			cr_expect_eq(pev_counter_tid(all, i), -1, "a cgroup counts every task in it");
		}
	}
	if (one) {
		cr_expect_eq(pev_counter_nr_fds(one), 1);
		cr_expect_eq(pev_counter_cpu(one, 0), 0);
	}
	if (list) {
		cr_expect_eq(pev_counter_nr_fds(list), 1);
		cr_expect_eq(pev_counter_cpu(list, 0), 0);
	}
	pev_counter_close(list);
	pev_counter_close(one);
	pev_counter_close(all);
	th_cgroup_remove(&cg);
}

/* ---- deterministic workloads ------------------------------------------------ */

Test(targets, page_faults_of_fresh_pages, .init = th_leak_init, .fini = th_leak_fini)
{
	const size_t pages = 256;
	struct pev_opts o = th_opts();
	o.disabled = true;
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), &o, NULL, NULL);
	char *mem = th_fresh_pages(pages);

	cr_assert_not_null(mem);
	cr_assert_eq(pev_counter_enable(c), 0);
	th_touch(mem, pages);
	cr_assert_eq(pev_counter_disable(c), 0);
	uint64_t v = th_value(c);
	cr_expect_geq(v, pages, "%zu fresh pages: %" PRIu64 " faults", pages, v);
	cr_expect_leq(v, pages + 16, "%zu fresh pages: %" PRIu64 " faults", pages, v);

	/* Touching them again costs nothing: they are mapped now. */
	cr_assert_eq(pev_counter_reset(c), 0);
	cr_assert_eq(pev_counter_enable(c), 0);
	th_touch(mem, pages);
	cr_assert_eq(pev_counter_disable(c), 0);
	v = th_value(c);
	cr_expect_leq(v, 16, "touched again: %" PRIu64 " faults", v);
	munmap(mem, pages * (size_t)sysconf(_SC_PAGESIZE));
	pev_counter_close(c);
}

/*
 * N round trips through two pipes with a child, both pinned to one CPU. A
 * round trip needs the child to run between our write and our read's
 * return, and on one CPU that means we are switched out at least once:
 * at least N context switches. Each round trip normally costs exactly one
 * (we block in read, or the child's wakeup preempts our write); other tasks
 * on that CPU may add a few, so the upper bound is loose: 2N + 64.
 */
Test(targets, context_switches_of_pipe_round_trips, .init = th_leak_init, .fini = th_leak_fini)
{
	const int trips = 200;
	int ping[2], pong[2];
	cpu_set_t one, saved;

	cr_assert_eq(sched_getaffinity(0, sizeof(saved), &saved), 0);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
	cr_assert_eq(sched_setaffinity(0, sizeof(one), &one), 0, "%s", strerror(errno));
	cr_assert_eq(pipe2(ping, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(pong, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char b;
		close(ping[1]);
		close(pong[0]);
		for (int i = 0; i < trips; i++)
			if (read(ping[0], &b, 1) != 1 || write(pong[1], &b, 1) != 1)
				_exit(2);
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);

	struct pev_opts o = th_opts();
	o.disabled = true;
	struct pev_target child = pev_target_thread(pid);
	struct pev_counter *mine = th_open_ok(pev_event_software(PEV_SW_CONTEXT_SWITCHES), &o, NULL,
					   NULL);
	struct pev_counter *theirs = th_open_ok(pev_event_software(PEV_SW_CONTEXT_SWITCHES), &o,
					     &child, NULL);
	cr_assert_eq(pev_counter_enable(theirs), 0);
	cr_assert_eq(pev_counter_enable(mine), 0);
	int done = 0;
	for (; done < trips; done++) {
		char b = 'x';
		if (write(ping[1], &b, 1) != 1 || read(pong[0], &b, 1) != 1)
			break;
	}
	cr_assert_eq(pev_counter_disable(mine), 0);
	close(ping[1]);
	close(pong[0]);
	int status = wait_child(pid);
	sched_setaffinity(0, sizeof(saved), &saved);
	cr_assert_eq(done, trips);
	expect_exit0(status);

	uint64_t v = th_value(mine), w = th_value(theirs);
	cr_expect_geq(v, (uint64_t)trips, "%d round trips: %" PRIu64 " switches", trips, v);
	cr_expect_leq(v, 2 * (uint64_t)trips + 64, "%d round trips: %" PRIu64 " switches", trips,
		      v);
	/*
	 * The child blocks in its read until we write: a switch per trip, but the
	 * first block came before the counter was enabled and its exit is past
	 * the counter's end, so at least N - 1.
	 */
	cr_expect_geq(w, (uint64_t)trips - 1, "the child: %" PRIu64 " switches", w);
	cr_expect_leq(w, 2 * (uint64_t)trips + 64, "the child: %" PRIu64 " switches", w);
	pev_counter_close(theirs);
	pev_counter_close(mine);
}

static volatile uint64_t watched, unwatched;

Test(targets, watchpoint_hits_are_exact, .init = th_leak_init, .fini = th_leak_fini)
{
	th_require_cap(PEV_CAP_BREAKPOINT);
	const int writes = 1000;
	struct pev_opts o = th_opts();
	o.exclude_kernel = true;
	o.disabled = true;
	struct pev_counter *w = th_open_ok(pev_event_breakpoint((uint64_t)(uintptr_t)&watched,
							      PEV_BP_LEN_8, PEV_BP_W),
					&o, NULL, NULL);
	struct pev_counter *rw = th_open_ok(pev_event_breakpoint((uint64_t)(uintptr_t)&watched,
							       PEV_BP_LEN_8, PEV_BP_RW),
					 &o, NULL, NULL);
	uint64_t sum = 0;

	cr_assert_eq(pev_counter_enable(w), 0);
	cr_assert_eq(pev_counter_enable(rw), 0);
	for (int i = 0; i < writes; i++) {
		watched = (uint64_t)i;
		unwatched = (uint64_t)i;
	}
	for (int i = 0; i < 10; i++)
		sum += watched;
	cr_assert_eq(pev_counter_disable(w), 0);
	cr_assert_eq(pev_counter_disable(rw), 0);
	cr_expect_eq(th_value(w), (uint64_t)writes, "%d writes: %" PRIu64 " hits", writes,
		     th_value(w));
	cr_expect_eq(th_value(rw), (uint64_t)writes + 10, "%d writes and 10 reads: %" PRIu64,
		     writes, th_value(rw));
	cr_expect_gt(sum, 0);
	pev_counter_close(rw);
	pev_counter_close(w);
}

int targets_probe_fn(int x);

__attribute__((noinline, used)) int targets_probe_fn(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 7 + 3;
}

/* Called through a volatile pointer so the compiler keeps every call. */
static int (*volatile probe_fn)(int) = targets_probe_fn;

Test(targets, uprobe_hits_are_exact, .init = th_leak_init, .fini = th_leak_fini)
{
	const int calls = 1000;
	char exe[PATH_MAX];
	struct pev_error err;
	struct pev_event ev;
	uint64_t off;
	long sum = 0;

	th_require_root();
	th_require_cap(PEV_CAP_UPROBE);
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	cr_assert_gt(n, 0);
	exe[n] = '\0';
	cr_assert_eq(pev_uprobe_resolve("/proc/self/exe", "targets_probe_fn", &off, &err), 0, "%s",
		     err.message);
	int r = pev_event_uprobe(&ev, exe, off, false, NULL, &err);
	cr_assert_eq(r, 0, "%s", err.message);
	struct pev_opts o = th_opts();
	o.disabled = true;
	struct pev_counter *c = th_open_ok(ev, &o, NULL, NULL);

	sum += probe_fn(-1); /* before enable: not counted */
	cr_assert_eq(pev_counter_enable(c), 0);
	for (int i = 0; i < calls; i++)
		sum += probe_fn(i);
	cr_assert_eq(pev_counter_disable(c), 0);
	sum += probe_fn(-2); /* after disable: not counted */
	cr_expect_eq(th_value(c), (uint64_t)calls, "%d calls: %" PRIu64 " hits", calls,
		     th_value(c));
	cr_expect_neq(sum, 0);
	pev_counter_close(c);
}

Test(targets, uprobe_hits_in_a_child, .init = th_leak_init, .fini = th_leak_fini)
{
	const int calls = 300;
	char exe[PATH_MAX];
	struct pev_error err;
	struct pev_event ev;
	uint64_t off;
	int go[2];

	th_require_root();
	th_require_cap(PEV_CAP_UPROBE);
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	cr_assert_gt(n, 0);
	exe[n] = '\0';
	cr_assert_eq(pev_uprobe_resolve(exe, "targets_probe_fn", &off, &err), 0, "%s",
		     err.message);
	int r = pev_event_uprobe(&ev, exe, off, false, NULL, &err);
	cr_assert_eq(r, 0, "%s", err.message);

	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char b;
		long sum = 0;
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(2);
		for (int i = 0; i < calls; i++)
			sum += probe_fn(i);
		_exit(sum > 0 ? 0 : 3);
	}
	close(go[0]);
	struct pev_target t = pev_target_process(pid);
	struct pev_counter *c = NULL;
	r = pev_counter_open(&ev, NULL, &t, NULL, &c, &err);
	cr_expect_eq(write(go[1], "g", 1), 1);
	close(go[1]);
	int status = wait_child(pid);
	cr_assert_eq(r, 0, "%s", err.message);
	expect_exit0(status);
	cr_expect_eq(th_value(c), (uint64_t)calls, "%d calls in the child: %" PRIu64 " hits", calls,
		     th_value(c));
	/* Our own calls are not the child's. */
	cr_expect_neq(probe_fn(1), 0);
	cr_expect_eq(th_value(c), (uint64_t)calls);
	pev_counter_close(c);
}

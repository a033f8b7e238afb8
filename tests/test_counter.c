/* SPDX-License-Identifier: MIT */
/*
 * test_counter.c - the open layer: targets (self, another process, a CPU,
 * every CPU, a cgroup), groups, the enable/disable/reset/read life cycle,
 * read_format layouts, close-on-exec, and argument checking.
 *
 * Everything here runs without a hardware PMU: task-clock, cpu-clock and
 * page-faults are software events the kernel always has.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "workloads.h"


static bool is_cloexec(int fd)
{
	int flags = fcntl(fd, F_GETFD);
	return flags >= 0 && (flags & FD_CLOEXEC);
}

/* ---- targets ----------------------------------------------------------- */

Test(counter, self_counts_task_clock, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_target self = pev_target_self();
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), NULL, &self, NULL);
	struct pev_count v;

	cr_expect_eq(pev_counter_nr_fds(c), 1);
	cr_expect_eq(pev_counter_cpu(c, 0), -1, "a task event follows the task on any CPU");
	cr_expect_str_eq(pev_counter_name(c), "task-clock");
	cr_expect_eq(pev_counter_attr(c)->type, PEV_TYPE_SOFTWARE);
	cr_expect_eq(pev_counter_attr(c)->config, PEV_SW_TASK_CLOCK);
	th_spin_ms(20);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_geq(v.value, 10 * 1000000ULL, "20 ms of spinning counted as %llu ns",
		      (unsigned long long)v.value);
	pev_counter_close(c);
}

Test(counter, null_target_means_the_calling_thread, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), NULL, NULL, NULL);
	struct pev_count v;

	cr_expect_eq(pev_counter_nr_fds(c), 1);
	th_spin_ms(5);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_gt(v.value, 0);
	pev_counter_close(c);
}

Test(counter, own_thread_id_is_a_valid_target, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_target t = pev_target_thread(gettid());
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), NULL, &t, NULL);
	struct pev_count v;

	th_spin_ms(5);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_gt(v.value, 0);
	pev_counter_close(c);
}

Test(counter, child_process_counted_after_release, .init = th_leak_init, .fini = th_leak_fini)
{
	int go[2], status;
	struct pev_count before, after;

	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char b;
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(2);
		th_spin_ms(40);
		_exit(0);
	}
	close(go[0]);

	struct pev_target t = pev_target_thread(pid);
	struct pev_counter *c = NULL;
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_error err;
	int r = pev_counter_open(&ev, NULL, &t, NULL, &c, &err);
	if (r == 0) {
		cr_expect_eq(pev_counter_read(c, &before), 0);
	}
	/* Release and reap the child whatever happened, so nothing is left behind. */
	cr_expect_eq(write(go[1], "x", 1), 1);
	close(go[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	cr_assert_eq(r, 0, "open on child %d: %s", (int)pid, err.message);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert_eq(pev_counter_read(c, &after), 0, "the count stays readable after the exit");
	cr_expect_geq(after.value, before.value + 20 * 1000000ULL,
		      "40 ms in the child counted as %llu ns (before release: %llu)",
		      (unsigned long long)after.value, (unsigned long long)before.value);
	pev_counter_close(c);
}

Test(counter, one_cpu, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_target t = pev_target_cpu(0);
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_CPU_CLOCK), NULL, &t, NULL);
	struct pev_count v;
	struct timespec ts = {0, 10 * 1000000L};

	cr_expect_eq(pev_counter_nr_fds(c), 1);
	cr_expect_eq(pev_counter_cpu(c, 0), 0);
	nanosleep(&ts, NULL);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_gt(v.value, 0, "a CPU-wide cpu-clock runs whatever runs on the CPU");
	pev_counter_close(c);
}

Test(counter, all_cpus_one_descriptor_per_online_cpu, .init = th_leak_init,
     .fini = th_leak_fini)
{
	int cpus[1024];
	int n = th_online_cpus(cpus, 1024, NULL, 0);
	struct pev_target t = pev_target_all_cpus();
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_CPU_CLOCK), NULL, &t, NULL);
	struct pev_count v;
	struct timespec ts = {0, 10 * 1000000L};

	cr_assert_eq(pev_counter_nr_fds(c), n, "%d descriptors for %d online CPUs",
		     pev_counter_nr_fds(c), n);
	for (int i = 0; i < n && i < 1024; i++) {
		cr_expect_eq(pev_counter_cpu(c, i), cpus[i], "descriptor %d", i);
		cr_expect_geq(pev_counter_fd(c, i), 0);
		for (int j = 0; j < i; j++)
			cr_expect_neq(pev_counter_fd(c, i), pev_counter_fd(c, j));
	}
	cr_expect_eq(pev_counter_fd(c, n), PEV_EBADARG);
	cr_expect_eq(pev_counter_cpu(c, n), PEV_EBADARG);
	nanosleep(&ts, NULL);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_gt(v.value, 0);
	pev_counter_close(c);
}

Test(counter, cgroup_counts_its_tasks, .init = th_leak_init, .fini = th_leak_fini)
{
	char procs[PATH_MAX + 16];
	int cpus[1024], go[2], status, fd;
	int n = th_online_cpus(cpus, 1024, NULL, 0);
	struct th_cgroup cg;

	th_cgroup_make(&cg, "test");
	if (cg.v1[0]) {
		/* The kernel refused the v2 cgroup: perfev said why and what to do. */
		expect_has(cg.refusal, "no perf_event state for cgroup");
		cr_log_info("counting in a cgroup v1 hierarchy: %s", cg.refusal);
	}
	const char *dir = cg.dir;
	struct pev_target t = pev_target_cgroup(dir);
	struct pev_counter *c = NULL;
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_error err;
	int r = pev_counter_open(&ev, NULL, &t, NULL, &c, &err);
	if (r != 0) {
		th_cgroup_remove(&cg);
		cr_assert_fail("open on cgroup %s: %s", dir, err.message);
	}
	cr_expect_eq(pev_counter_nr_fds(c), n, "one descriptor per online CPU");
	for (int i = 0; i < pev_counter_nr_fds(c); i++)
		cr_expect_eq(pev_counter_cpu(c, i), cpus[i]);

	/* A child moves itself into the cgroup and spins there. */
	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char b;
		close(go[1]);
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
		fd = open(procs, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, "0", 1) != 1)
			_exit(3);
		close(fd);
		if (read(go[0], &b, 1) != 1)
			_exit(2);
		th_spin_ms(40);
		_exit(0);
	}
	close(go[0]);
	cr_expect_eq(write(go[1], "x", 1), 1);
	close(go[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status 0x%x", status);

	struct pev_count v;
	cr_expect_eq(pev_counter_read(c, &v), 0);
	cr_expect_geq(v.value, 20 * 1000000ULL, "40 ms in the cgroup counted as %llu ns",
		      (unsigned long long)v.value);
	pev_counter_close(c);
	th_cgroup_remove(&cg);
}

Test(counter, cgroup_path_that_does_not_exist, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_target t = pev_target_cgroup("/nonexistent/perfev/cgroup");
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_counter *c = (struct pev_counter *)1;
	struct pev_error err;

	int r = pev_counter_open(&ev, NULL, &t, NULL, &c, &err);
	cr_expect_eq(r, PEV_ENOENT, "got %s", pev_error_name(r));
	cr_expect_null(c);
	cr_expect_eq(err.code, r);
	cr_expect_str_eq(err.field, "cgroup");
	expect_has(err.message, "/nonexistent/perfev/cgroup");
	expect_has(err.hint, "cgroup v2");
}

/* ---- groups ------------------------------------------------------------ */

Test(counter, group_member_joins_leader, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts lo = th_opts();
	lo.read_format = PEV_FORMAT_GROUP | PEV_FORMAT_ID | PEV_FORMAT_TOTAL_TIME_ENABLED |
			 PEV_FORMAT_TOTAL_TIME_RUNNING;
	struct pev_target self = pev_target_self();
	struct pev_counter *leader =
		th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), &lo, &self, NULL);
	struct pev_counter *member =
		th_open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), NULL, &self, leader);
	uint64_t lid = 0, mid = 0, buf[16];

	cr_expect_eq(pev_counter_nr_fds(member), 1);
	cr_assert_eq(pev_counter_id(leader, 0, &lid), 0);
	cr_assert_eq(pev_counter_id(member, 0, &mid), 0);
	cr_expect_neq(lid, 0);
	cr_expect_neq(lid, mid, "two events have distinct ids");

	/* The leader's group read lists the member: it joined the leader's descriptor. */
	th_spin_ms(2);
	ssize_t n = read(pev_counter_fd(leader, 0), buf, sizeof(buf));
	cr_assert_eq(n, (ssize_t)(7 * sizeof(uint64_t)), "group read of %zd bytes", n);
	cr_expect_eq(buf[0], 2, "nr = %llu", (unsigned long long)buf[0]);
	cr_expect_gt(buf[1], 0, "time enabled");
	cr_expect_eq(buf[4], lid);
	cr_expect_eq(buf[6], mid);

	struct pev_count v;
	cr_assert_eq(pev_counter_read(leader, &v), 0);
	cr_expect_geq(v.value, buf[3], "the leader's own value, not the sum");
	cr_expect_geq(v.time_enabled, buf[1]);
	pev_counter_close(member);
	pev_counter_close(leader);
}

Test(counter, group_on_every_cpu, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts lo = th_opts();
	lo.read_format = PEV_FORMAT_GROUP;
	lo.open_flags = PEV_OPEN_EXACT_READ_FORMAT; /* the raw read below: nr and two values */
	struct pev_target all = pev_target_all_cpus();
	struct pev_counter *leader = th_open_ok(pev_event_software(PEV_SW_CPU_CLOCK), &lo, &all, NULL);
	struct pev_counter *member =
		th_open_ok(pev_event_software(PEV_SW_CONTEXT_SWITCHES), NULL, &all, leader);

	cr_assert_eq(pev_counter_nr_fds(member), pev_counter_nr_fds(leader));
	for (int i = 0; i < pev_counter_nr_fds(leader); i++) {
		uint64_t buf[8];
		cr_expect_eq(pev_counter_cpu(member, i), pev_counter_cpu(leader, i));
		ssize_t n = read(pev_counter_fd(leader, i), buf, sizeof(buf));
		cr_assert_eq(n, (ssize_t)(3 * sizeof(uint64_t)));
		cr_expect_eq(buf[0], 2, "the leader on CPU %d has the member", pev_counter_cpu(leader, i));
	}
	pev_counter_close(member);
	pev_counter_close(leader);
}

Test(counter, member_on_another_target_is_refused, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_target self = pev_target_self(), all = pev_target_all_cpus();
	struct pev_counter *leader =
		th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), NULL, &self, NULL);
	struct pev_event ev = pev_event_software(PEV_SW_CPU_CLOCK);
	struct pev_counter *c = (struct pev_counter *)1;
	struct pev_error err;

	int r = pev_counter_open(&ev, NULL, &all, leader, &c, &err);
	cr_expect_eq(r, PEV_EBADARG, "got %s", pev_error_name(r));
	cr_expect_null(c);
	cr_expect_str_eq(err.field, "group");
	cr_expect(err.before_syscall);
	expect_has(err.message, "task-clock");
	expect_has(err.message, "leader's target");
	pev_counter_close(leader);
}

Test(counter, member_on_another_cpu_is_refused, .init = th_leak_init, .fini = th_leak_fini)
{
	int cpus[1024];
	if (th_online_cpus(cpus, 1024, NULL, 0) < 2)
		th_skip("needs two online CPUs");
	struct pev_target t0 = pev_target_cpu(cpus[0]), t1 = pev_target_cpu(cpus[1]);
	struct pev_counter *leader = th_open_ok(pev_event_software(PEV_SW_CPU_CLOCK), NULL, &t0, NULL);
	struct pev_event ev = pev_event_software(PEV_SW_CPU_CLOCK);
	struct pev_counter *c = NULL;
	struct pev_error err;

	int r = pev_counter_open(&ev, NULL, &t1, leader, &c, &err);
	cr_expect_eq(r, PEV_EINVAL, "got %s", pev_error_name(r));
	cr_expect_null(c);
	cr_expect_str_eq(err.field, "cpu");
	cr_expect(err.before_syscall);
	expect_has(err.message, "leader's CPU");
	pev_counter_close(leader);
}

/* ---- life cycle -------------------------------------------------------- */

Test(counter, enable_disable_reset_read, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	o.disabled = true;
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, NULL);
	struct pev_count v0, v1, v2, v3;

	th_spin_ms(5);
	cr_assert_eq(pev_counter_read(c, &v0), 0);
	cr_expect_eq(v0.value, 0, "opened disabled: nothing counted (%llu)",
		     (unsigned long long)v0.value);

	cr_assert_eq(pev_counter_enable(c), 0);
	th_spin_ms(10);
	cr_assert_eq(pev_counter_disable(c), 0);
	cr_assert_eq(pev_counter_read(c, &v1), 0);
	cr_expect_geq(v1.value, 5 * 1000000ULL, "10 ms enabled counted %llu ns",
		      (unsigned long long)v1.value);

	th_spin_ms(10);
	cr_assert_eq(pev_counter_read(c, &v2), 0);
	cr_expect_eq(v2.value, v1.value, "disabled: the count stands still");

	cr_assert_eq(pev_counter_reset(c), 0);
	cr_assert_eq(pev_counter_read(c, &v3), 0);
	cr_expect_eq(v3.value, 0, "reset brings it to 0 (%llu)", (unsigned long long)v3.value);

	cr_assert_eq(pev_counter_enable(c), 0);
	th_spin_ms(2);
	cr_assert_eq(pev_counter_read(c, &v3), 0);
	cr_expect_gt(v3.value, 0, "counts again after a second enable");
	pev_counter_close(c);
}

Test(counter, page_faults_count_touched_pages, .init = th_leak_init, .fini = th_leak_fini)
{
	const size_t pages = 64;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct pev_opts o = th_opts();
	o.disabled = true;
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), &o, NULL, NULL);
	struct pev_count v;

	char *mem = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	cr_assert_neq(mem, MAP_FAILED);
	/* One fault per page: no huge pages for this range. */
	madvise(mem, pages * page, MADV_NOHUGEPAGE);
	cr_assert_eq(pev_counter_enable(c), 0);
	for (size_t i = 0; i < pages; i++)
		((volatile char *)mem)[i * page] = 1;
	cr_assert_eq(pev_counter_disable(c), 0);
	munmap(mem, pages * page);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_geq(v.value, pages, "%zu fresh pages touched, %llu faults counted", pages,
		      (unsigned long long)v.value);
	pev_counter_close(c);
}

/* ---- read_format ------------------------------------------------------- */

Test(counter, read_format_times_id_lost, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	o.read_format = PEV_FORMAT_TOTAL_TIME_ENABLED | PEV_FORMAT_TOTAL_TIME_RUNNING |
			PEV_FORMAT_ID | PEV_FORMAT_LOST;
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, NULL);
	struct pev_count v;
	uint64_t id, buf[8];

	th_spin_ms(5);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_gt(v.value, 0);
	cr_expect_gt(v.time_enabled, 0);
	cr_expect_gt(v.time_running, 0);
	cr_expect_leq(v.time_running, v.time_enabled);
	cr_expect_eq(v.lost, 0);

	/* The raw layout: value, enabled, running, id, lost. */
	cr_assert_eq(pev_counter_id(c, 0, &id), 0);
	ssize_t n = read(pev_counter_fd(c, 0), buf, sizeof(buf));
	cr_assert_eq(n, (ssize_t)(5 * sizeof(uint64_t)));
	cr_expect_eq(buf[3], id);
	cr_expect_eq(buf[4], 0);
	pev_counter_close(c);
}

Test(counter, read_format_group_with_every_bit, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	o.read_format = PEV_FORMAT_ALL;
	o.disabled = true;
	struct pev_counter *leader = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, NULL);
	struct pev_opts mo = th_opts();
	mo.read_format = PEV_FORMAT_ALL;
	struct pev_counter *member =
		th_open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), &mo, NULL, leader);
	struct pev_count lv, mv;
	uint64_t buf[16], lid, mid;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = 16;
	char *mem = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);

	cr_assert_neq(mem, MAP_FAILED);
	madvise(mem, pages * page, MADV_NOHUGEPAGE);
	cr_assert_eq(pev_counter_enable(leader), 0, "enabling the leader starts the group");
	th_spin_ms(5);
	for (size_t i = 0; i < pages; i++)
		((volatile char *)mem)[i * page] = 1;
	cr_assert_eq(pev_counter_disable(leader), 0);
	munmap(mem, pages * page);
	cr_assert_eq(pev_counter_read(leader, &lv), 0);
	cr_assert_eq(pev_counter_read(member, &mv), 0);
	cr_expect_gt(lv.value, 0);
	cr_expect_gt(lv.time_enabled, 0);
	cr_expect_gt(lv.time_running, 0);
	cr_expect_eq(lv.lost, 0);

	/* nr, enabled, running, then {value, id, lost} per event. */
	cr_assert_eq(pev_counter_id(leader, 0, &lid), 0);
	cr_assert_eq(pev_counter_id(member, 0, &mid), 0);
	ssize_t n = read(pev_counter_fd(leader, 0), buf, sizeof(buf));
	cr_assert_eq(n, (ssize_t)(9 * sizeof(uint64_t)));
	cr_expect_eq(buf[0], 2);
	cr_expect_eq(buf[3], lv.value, "pev_counter_read gives the leader's value");
	cr_expect_eq(buf[4], lid);
	cr_expect_eq(buf[7], mid);
	cr_expect_geq(buf[6], pages, "the member counted page faults with its leader");
	cr_expect_neq(buf[3], buf[6]);
	cr_expect_eq(mv.value, buf[6], "reading a member gives the member's own value "
				       "(leader %llu, member %llu, read %llu)",
		     (unsigned long long)buf[3], (unsigned long long)buf[6],
		     (unsigned long long)mv.value);
	pev_counter_close(member);
	pev_counter_close(leader);
}

/* ---- descriptors ------------------------------------------------------- */

Test(counter, every_descriptor_is_close_on_exec, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_target all = pev_target_all_cpus(), self = pev_target_self();
	struct pev_counter *a = th_open_ok(pev_event_software(PEV_SW_CPU_CLOCK), NULL, &all, NULL);
	struct pev_counter *s = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), NULL, &self, NULL);
	struct pev_counter *m = th_open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), NULL, &self, s);

	for (int i = 0; i < pev_counter_nr_fds(a); i++)
		cr_expect(is_cloexec(pev_counter_fd(a, i)), "all-CPU descriptor %d", i);
	cr_expect(is_cloexec(pev_counter_fd(s, 0)));
	cr_expect(is_cloexec(pev_counter_fd(m, 0)), "group member");
	pev_counter_close(m);
	pev_counter_close(s);
	pev_counter_close(a);
}

Test(counter, close_null_is_a_no_op, .init = th_leak_init, .fini = th_leak_fini)
{
	pev_counter_close(NULL);
	cr_expect_eq(pev_counter_nr_fds(NULL), PEV_EBADARG);
	cr_expect_eq(pev_counter_fd(NULL, 0), PEV_EBADARG);
	cr_expect_eq(pev_counter_cpu(NULL, 0), PEV_EBADARG);
	cr_expect_null(pev_counter_attr(NULL));
	cr_expect_null(pev_counter_name(NULL));
}

/* ---- arguments --------------------------------------------------------- */

Test(counter, null_arguments_are_named, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_counter *c = (struct pev_counter *)1;
	struct pev_error err;
	int r;

	r = pev_counter_open(&ev, NULL, NULL, NULL, NULL, &err);
	cr_expect_eq(r, PEV_EBADARG);
	cr_expect_eq(err.code, PEV_EBADARG);
	cr_expect(err.before_syscall);
	cr_expect_str_eq(err.field, "out");
	expect_has(err.message, "'out'");
	expect_has(err.message, "pev_counter_open");

	r = pev_counter_open(NULL, NULL, NULL, NULL, &c, &err);
	cr_expect_eq(r, PEV_EBADARG);
	cr_expect_null(c, "*out is cleared on failure");
	cr_expect_str_eq(err.field, "ev");
	expect_has(err.message, "'ev'");

	/* Without an error struct the code alone comes back. */
	cr_expect_eq(pev_counter_open(NULL, NULL, NULL, NULL, &c, NULL), PEV_EBADARG);

	struct pev_attr attr;
	cr_assert_eq(pev_attr_encode(&attr, &ev, NULL, NULL), 0);
	r = pev_counter_open_attr(NULL, sizeof(attr), NULL, NULL, 0, &c, &err);
	cr_expect_eq(r, PEV_EBADARG);
	cr_expect_str_eq(err.field, "attr");
	expect_has(err.message, "pev_counter_open_attr");
	r = pev_counter_open_attr(&attr, sizeof(attr), NULL, NULL, 0, NULL, &err);
	cr_expect_eq(r, PEV_EBADARG);
	cr_expect_str_eq(err.field, "out");
}

Test(counter, bad_attr_lengths_are_named, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_counter *c = NULL;
	struct pev_attr attr;
	struct pev_error err;
	int r;

	cr_assert_eq(pev_attr_encode(&attr, &ev, NULL, NULL), 0);
	r = pev_counter_open_attr(&attr, 32, NULL, NULL, 0, &c, &err);
	cr_expect_eq(r, PEV_EBADARG);
	cr_expect_str_eq(err.field, "attr_len");
	expect_has(err.message, "32 bytes");

	attr.size = PEV_ATTR_SIZE_VER8;
	r = pev_counter_open_attr(&attr, PEV_ATTR_SIZE_VER0, NULL, NULL, 0, &c, &err);
	cr_expect_eq(r, PEV_EBADARG);
	cr_expect_str_eq(err.field, "attr");
	expect_has(err.message, "attr.size is 136");
	cr_expect_null(c);

	/* A valid block opens. */
	attr.size = PEV_ATTR_SIZE_VER0;
	r = pev_counter_open_attr(&attr, sizeof(attr), NULL, NULL, 0, &c, &err);
	cr_assert_eq(r, 0, "%s", err.message);
	cr_expect_str_eq(pev_counter_name(c), "task-clock");
	pev_counter_close(c);
}

Test(counter, bad_indexes_and_null_handles, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), NULL, NULL, NULL);
	struct pev_count v;
	uint64_t id;

	cr_expect_eq(pev_counter_fd(c, -1), PEV_EBADARG);
	cr_expect_eq(pev_counter_fd(c, 1), PEV_EBADARG);
	cr_expect_eq(pev_counter_cpu(c, 1), PEV_EBADARG);
	cr_expect_eq(pev_counter_id(c, 1, &id), PEV_EBADARG);
	cr_expect_eq(pev_counter_id(c, 0, NULL), PEV_EBADARG);
	cr_expect_eq(pev_counter_id(NULL, 0, &id), PEV_EBADARG);
	cr_expect_eq(pev_counter_read(c, NULL), PEV_EBADARG);
	cr_expect_eq(pev_counter_read(NULL, &v), PEV_EBADARG);
	cr_expect_eq(pev_counter_enable(NULL), PEV_EBADARG);
	cr_expect_eq(pev_counter_disable(NULL), PEV_EBADARG);
	cr_expect_eq(pev_counter_reset(NULL), PEV_EBADARG);
	pev_counter_close(c);
}

/* Options from a newer caller: a bigger struct. */
struct newer_opts {
	struct pev_opts o;
	unsigned char tail[32];
};

Test(counter, larger_opts_with_unknown_fields_refused, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct newer_opts n;
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_counter *c = NULL;
	struct pev_error err;

	memset(&n, 0, sizeof(n));
	n.o.sz = sizeof(n);
	n.tail[5] = 1;
	int r = pev_counter_open(&ev, &n.o, NULL, NULL, &c, &err);
	cr_expect_eq(r, PEV_EBADARG);
	cr_expect_null(c);
	cr_expect_str_eq(err.field, "opts");
	expect_has(err.message, "'opts'");
	expect_has(err.message, "upgrade libperfev");

	/* The same size with a zero tail is fine: the caller uses nothing new. */
	n.tail[5] = 0;
	r = pev_counter_open(&ev, &n.o, NULL, NULL, &c, &err);
	cr_assert_eq(r, 0, "%s", err.message);
	pev_counter_close(c);

	/* sz 0: not initialized. */
	memset(&n, 0, sizeof(n));
	c = NULL;
	r = pev_counter_open(&ev, &n.o, NULL, NULL, &c, &err);
	cr_expect_eq(r, PEV_EBADARG);
	cr_expect_str_eq(err.field, "opts");
	expect_has(err.message, "PEV_OPTS_INIT");
	cr_expect_null(c);
}

Test(counter, smaller_opts_from_an_older_caller_open, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_counter *c = NULL;
	struct pev_error err;

	o.exclude_kernel = true;
	o.open_flags = PEV_OPEN_NO_VALIDATE; /* beyond sz: must be ignored */
	o.sz = offsetof(struct pev_opts, exclude_idle);
	int r = pev_counter_open(&ev, &o, NULL, NULL, &c, &err);
	cr_assert_eq(r, 0, "%s", err.message);
	cr_expect(pev_counter_attr(c)->flags & PEV_ATTR_EXCLUDE_KERNEL);
	pev_counter_close(c);
}

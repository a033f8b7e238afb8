/* SPDX-License-Identifier: MIT */
/*
 * test_parse_live.c - event strings parsed against this machine's sysfs and
 * tracefs, opened, and counted: software events, tracepoints (with tracefs
 * mounted by the parser), tracepoint globs, a hardware breakpoint on a test
 * variable, a uprobe on a test function, and a group.
 *
 * The development machines have no hardware PMU but do have software
 * events, tracepoints, breakpoints and uprobes. Every test here needs root
 * (the strings count the kernel too, tracefs is root's, uprobes need
 * CAP_SYS_ADMIN) and skips without it.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

/* Parses text against this machine (real /sys, tracefs found or mounted). */
static struct pev_event_list *parse_live(const char *text)
{
	struct pev_parse_opts o = PEV_PARSE_OPTS_INIT;
	struct pev_event_list *l = NULL;
	struct pev_error err;

	o.no_pfm = true;
	int r = pev_event_parse(text, &o, &l, &err);
	cr_assert_eq(r, 0, "'%s': %s: %s\n%s", text, pev_error_name(r), err.message, err.hint);
	return l;
}

/* Opens spec i of l on this thread (joining group when not NULL). */
static struct pev_counter *open_spec(const struct pev_event_list *l, int i,
				     struct pev_counter *group)
{
	const struct pev_event_spec *s = pev_event_list_at(l, i);
	struct pev_counter *c = NULL;
	struct pev_target self = pev_target_self();
	struct pev_error err;

	cr_assert_not_null(s);
	int r = pev_counter_open(&s->ev, &s->opts, &self, group, &c, &err);
	cr_assert_eq(r, 0, "open '%s': %s: %s\n%s", s->ev.name, pev_error_name(r), err.message,
		     err.hint);
	return c;
}

static uint64_t count_of(const struct pev_counter *c)
{
	struct pev_count v;
	int r = pev_counter_read(c, &v);

	cr_assert_eq(r, 0, "read '%s': %s", pev_counter_name(c), pev_error_name(r));
	return v.value;
}

/* ---- software events ------------------------------------------------------ */

Test(parse_live, task_clock_and_user_page_faults, .init = th_leak_init, .fini = th_leak_fini)
{
	enum { N = 64 };
	th_require_root();
	long page = sysconf(_SC_PAGESIZE);
	struct pev_event_list *l = parse_live("task-clock,page-faults:u");

	cr_assert_eq(pev_event_list_count(l), 2);
	cr_expect(pev_event_list_at(l, 1)->opts.exclude_kernel);
	struct pev_counter *clock = open_spec(l, 0, NULL);
	struct pev_counter *faults = open_spec(l, 1, NULL);

	/* N fresh pages, each touched once: N faults from user space. */
	char *mem = mmap(NULL, (size_t)(N * page), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(mem, MAP_FAILED);
	madvise(mem, (size_t)(N * page), MADV_NOHUGEPAGE);
	uint64_t before = count_of(faults);
	for (int i = 0; i < N; i++)
		((volatile char *)mem)[(long)i * page] = 1;
	uint64_t after = count_of(faults);
	munmap(mem, (size_t)(N * page));

	cr_expect_geq(after - before, N, "page-faults:u counted %" PRIu64 " for %d fresh pages",
		      after - before, N);
	cr_expect_gt(count_of(clock), 0, "task-clock did not run");
	pev_counter_close(faults);
	pev_counter_close(clock);
	pev_event_list_free(l);
}

Test(parse_live, group_of_software_events, .init = th_leak_init, .fini = th_leak_fini)
{
	th_require_root();
	struct pev_event_list *l = parse_live("{task-clock,page-faults}");

	cr_assert_eq(pev_event_list_count(l), 2);
	cr_expect(pev_event_list_at(l, 0)->group_leader);
	cr_expect_not(pev_event_list_at(l, 1)->group_leader);
	cr_expect_eq(pev_event_list_at(l, 1)->group, pev_event_list_at(l, 0)->group);
	/*
	 * Open the leader disabled and enable it once the member has joined: the
	 * kernel schedules a member added to a group that is already counting
	 * only at the task's next context switch, so it would miss the faults.
	 */
	const struct pev_event_spec *s = pev_event_list_at(l, 0);
	struct pev_opts lo = s->opts;
	struct pev_target self = pev_target_self();
	struct pev_counter *leader = NULL;
	struct pev_error err;
	lo.disabled = true;
	cr_assert_eq(pev_counter_open(&s->ev, &lo, &self, NULL, &leader, &err), 0, "%s",
		     err.message);
	struct pev_counter *member = open_spec(l, 1, leader);
	cr_assert_eq(pev_counter_enable(leader), 0);

	char *mem = mmap(NULL, 4096 * 4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(mem, MAP_FAILED);
	for (int i = 0; i < 4; i++)
		((volatile char *)mem)[i * 4096] = 1;
	munmap(mem, 4096 * 4);

	cr_expect_gt(count_of(leader), 0);
	uint64_t m = count_of(member);
	cr_expect_geq(m, 4, "page-faults in the group: %" PRIu64, m);
	pev_counter_close(member);
	pev_counter_close(leader);
	pev_event_list_free(l);
}

/* ---- tracepoints ------------------------------------------------------------ */

static bool tracefs_mounted(void)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char line[512];
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " tracefs ") || strstr(line, " debugfs "))
			found = true;
	fclose(f);
	return found;
}

struct switch_ctx {
	int step;          /* how far the child got */
	int unshare_errno; /* why there is no private mount namespace */
	bool was_mounted;  /* tracefs mounted before parsing (after unmounting it) */
	bool mounted;      /* tracefs mounted after parsing */
	int parse_rc, open_rc, n_specs;
	uint64_t config, count;
	char message[2048];
};

/*
 * In a private mount namespace (so the rest of the machine keeps its
 * tracefs): unmount tracefs, let the parser find it missing and mount it,
 * then count this process's context switches over N blocking round trips
 * with a child through pipes.
 */
static void count_switches(void *arg)
{
	enum { N = 50 };
	struct switch_ctx *c = arg;
	struct pev_parse_opts o = PEV_PARSE_OPTS_INIT;
	struct pev_event_list *l = NULL;
	struct pev_counter *ctr = NULL;
	struct pev_target self = pev_target_self();
	struct pev_error err;
	int to_child[2], to_parent[2];
	char b = 0;

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		c->unshare_errno = errno;
		return;
	}
	c->step = 1;
	while (umount2("/sys/kernel/tracing", MNT_DETACH) == 0)
		;
	while (umount2("/sys/kernel/debug", MNT_DETACH) == 0)
		;
	c->was_mounted = tracefs_mounted();

	o.no_pfm = true; /* no_mount stays false: the parser may mount tracefs */
	c->parse_rc = pev_event_parse("sched:sched_switch", &o, &l, &err);
	c->mounted = tracefs_mounted();
	if (c->parse_rc < 0) {
		pev_error_format(&err, c->message, sizeof(c->message));
		return;
	}
	c->step = 2;
	c->n_specs = pev_event_list_count(l);
	c->config = pev_event_list_at(l, 0)->ev.config;
	c->open_rc = pev_counter_open(&pev_event_list_at(l, 0)->ev, &pev_event_list_at(l, 0)->opts,
				      &self, NULL, &ctr, &err);
	if (c->open_rc < 0) {
		pev_error_format(&err, c->message, sizeof(c->message));
		pev_event_list_free(l);
		return;
	}
	if (pipe(to_child) < 0 || pipe(to_parent) < 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < N; i++)
			if (read(to_child[0], &b, 1) != 1 || write(to_parent[1], &b, 1) != 1)
				_exit(1);
		_exit(0);
	}
	struct pev_count v0, v1;
	pev_counter_read(ctr, &v0);
	for (int i = 0; i < N; i++)
		if (write(to_child[1], &b, 1) != 1 || read(to_parent[0], &b, 1) != 1)
			break;
	pev_counter_read(ctr, &v1);
	waitpid(pid, NULL, 0);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
	c->count = v1.value - v0.value;
	c->step = 3;
	pev_counter_close(ctr);
	pev_event_list_free(l);
}

Test(parse_live, sched_switch_mounts_tracefs_and_counts, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct switch_ctx c;

	th_require_root();
	memset(&c, 0, sizeof(c));
	cr_assert(th_in_child(count_switches, &c, sizeof(c)), "the child died");
	cr_assert_geq(c.step, 1, "no private mount namespace: %s", strerror(c.unshare_errno));
	cr_expect_not(c.was_mounted, "tracefs could not be unmounted for the test");
	cr_assert_eq(c.parse_rc, 0, "parse: %s: %s", pev_error_name(c.parse_rc), c.message);
	cr_expect(c.mounted, "the parser did not mount tracefs");
	cr_assert_eq(c.open_rc, 0, "open: %s: %s", pev_error_name(c.open_rc), c.message);
	cr_assert_eq(c.step, 3);
	cr_expect_eq(c.n_specs, 1);
	uint64_t id = th_tracepoint_id("sched", "sched_switch");
	cr_expect_eq(c.config, id, "config %" PRIu64 ", tracefs says %" PRIu64, c.config, id);
	cr_expect_geq(c.count, 50, "sched_switch counted %" PRIu64 " for 50 blocking round trips",
		      c.count);
}

Test(parse_live, syscalls_glob_gives_every_syscall, .init = th_leak_init, .fini = th_leak_fini)
{
	th_require_root();
	struct pev_event_list *l = parse_live("syscalls:sys_enter_*");
	int n = pev_event_list_count(l);

	cr_expect_gt(n, 100, "syscalls:sys_enter_* gave %d events", n);
	for (int i = 0; i < n; i++) {
		const struct pev_event_spec *s = pev_event_list_at(l, i);
		cr_expect_eq(s->ev.type, PEV_TYPE_TRACEPOINT);
		cr_expect_eq(strncmp(s->ev.name, "syscalls:sys_enter_", 19), 0, "%s", s->ev.name);
		cr_expect_eq(s->group, -1);
	}
	pev_event_list_free(l);
}

Test(parse_live, sys_enter_getpid_counts_each_call, .init = th_leak_init, .fini = th_leak_fini)
{
	enum { N = 1000 };
	th_require_root();
	struct pev_event_list *l = parse_live("syscalls:sys_enter_getpid");
	cr_assert_eq(pev_event_list_count(l), 1);
	cr_expect_eq(pev_event_list_at(l, 0)->ev.config, th_tracepoint_id("syscalls", "sys_enter_getpid"));
	struct pev_counter *c = open_spec(l, 0, NULL);

	uint64_t before = count_of(c);
	for (int i = 0; i < N; i++)
		syscall(SYS_getpid);
	uint64_t after = count_of(c);

	cr_expect_eq(after - before, N, "%" PRIu64 " sys_enter_getpid for %d calls", after - before,
		     N);
	pev_counter_close(c);
	pev_event_list_free(l);
}

/* ---- a breakpoint on a variable ------------------------------------------------ */

static volatile int watched;

/* Parses "mem:ADDR/4:w" for the variable the breakpoint tests watch, and checks the event. */
static struct pev_event_list *parse_watchpoint(void)
{
	char text[64];

	snprintf(text, sizeof(text), "mem:%p/4:w", (void *)&watched);
	struct pev_event_list *l = parse_live(text);
	const struct pev_event_spec *s = pev_event_list_at(l, 0);
	cr_assert_eq(s->ev.type, PEV_TYPE_BREAKPOINT);
	cr_expect_eq(s->ev.config1, (uint64_t)(uintptr_t)&watched);
	cr_expect_eq(s->ev.config2, 4);
	cr_expect_eq(s->ev.bp_type, PEV_BP_W);
	return l;
}

/* On every host, breakpoints firing or not: the string opens as the event it says. */
Test(parse_live, write_breakpoint_opens, .init = th_leak_init, .fini = th_leak_fini)
{
	th_require_root();
	struct pev_event_list *l = parse_watchpoint();
	struct pev_counter *c = open_spec(l, 0, NULL);

	cr_expect_eq(pev_counter_attr(c)->bp_addr, (uint64_t)(uintptr_t)&watched);
	cr_expect_eq(pev_counter_attr(c)->bp_len, 4);
	pev_counter_close(c);
	pev_event_list_free(l);
}

Test(parse_live, write_breakpoint_counts_each_write, .init = th_leak_init, .fini = th_leak_fini)
{
	enum { N = 100 };
	th_require_root();
	th_require_cap(PEV_CAP_BREAKPOINT);
	struct pev_event_list *l = parse_watchpoint();
	struct pev_counter *c = open_spec(l, 0, NULL);

	uint64_t before = count_of(c);
	int sum = 0;
	for (int i = 0; i < N; i++) {
		watched = i;   /* a write: counted */
		sum += watched; /* a read: not counted */
	}
	uint64_t after = count_of(c);

	cr_expect_eq(after - before, N, "%" PRIu64 " writes counted for %d (sum %d)", after - before,
		     N, sum);
	pev_counter_close(c);
	pev_event_list_free(l);
}

/* ---- a uprobe on a function of this test -------------------------------------- */

__attribute__((noinline, used)) int live_probe_target(int x);
__attribute__((noinline, used)) int live_probe_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

/* Called through a volatile pointer, so every call reaches the symbol itself. */
static int (*volatile call_target)(int) = live_probe_target;

Test(parse_live, uprobe_counts_each_call, .init = th_leak_init, .fini = th_leak_fini)
{
	enum { N = 200 };
	th_require_root();
	struct pev_event_list *l = parse_live("uprobe:/proc/self/exe:live_probe_target");
	const struct pev_event_spec *s = pev_event_list_at(l, 0);
	cr_assert_eq(pev_event_list_count(l), 1);
	cr_expect_str_eq(s->pmu, "uprobe");
	cr_expect_eq(s->ev.type, (uint32_t)pev_pmu_type("uprobe", NULL));
	struct pev_counter *c = open_spec(l, 0, NULL);

	uint64_t before = count_of(c);
	int x = 0;
	for (int i = 0; i < N; i++)
		x = call_target(x);
	uint64_t after = count_of(c);

	cr_expect_eq(x, N);
	cr_expect_eq(after - before, N, "%" PRIu64 " hits for %d calls", after - before, N);
	pev_counter_close(c);
	pev_event_list_free(l);
}

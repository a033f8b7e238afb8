/* SPDX-License-Identifier: MIT */
/*
 * test_control.c - the ioctls of an open counter and prctl: enable, disable
 * and reset (one event and the whole group), refresh, period, id, ftrace
 * filter, BPF attach and query, pause output, modify (moving a watchpoint),
 * PR_TASK_PERF_EVENTS_{DISABLE,ENABLE}, and ioctl failures coming back as
 * their codes.
 *
 * Workloads are deterministic where the kernel allows: page faults of fresh
 * pages, getppid(2) calls through a raw_syscalls tracepoint, writes to a
 * watched variable.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "workloads.h"

/* A page-fault counter that samples every `period` faults (no ring: the samples go nowhere). */
static struct pev_counter *open_sampling_faults(uint64_t period, bool disabled)
{
	struct pev_opts o = th_opts();

	o.sample_period = period;
	o.sample_type = PEV_SAMPLE_IP;
	o.disabled = disabled;
	o.exclude_kernel = true;
	return th_open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), &o, NULL, NULL);
}

/* ---- enable / disable / reset ---------------------------------------------- */

Test(control, enable_disable_reset_one_event, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	o.disabled = true;
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), &o, NULL, NULL);

	th_touch_pages(16);
	cr_expect_eq(th_value(c), 0, "opened disabled");

	cr_assert_eq(pev_counter_enable(c), 0);
	th_touch_pages(64);
	uint64_t on = th_value(c);
	cr_expect_geq(on, 64, "64 pages while enabled: %" PRIu64 " faults", on);
	cr_expect_leq(on, 64 + 16, "64 pages while enabled: %" PRIu64 " faults", on);

	cr_assert_eq(pev_counter_disable(c), 0);
	uint64_t off = th_value(c);
	th_touch_pages(64);
	cr_expect_eq(th_value(c), off, "disabled: the count stands still");

	cr_assert_eq(pev_counter_reset(c), 0);
	cr_expect_eq(th_value(c), 0, "reset zeroes the count");
	th_touch_pages(8);
	cr_expect_eq(th_value(c), 0, "reset does not enable");

	cr_assert_eq(pev_counter_enable(c), 0);
	th_touch_pages(8);
	cr_expect_geq(th_value(c), 8, "counts again from 0");
	cr_assert_eq(pev_counter_reset(c), 0);
	cr_expect_lt(th_value(c), 8, "reset while enabled restarts from 0");
	pev_counter_close(c);
}

Test(control, reset_and_disable_act_on_every_descriptor, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_target all = pev_target_all_cpus();
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_CPU_CLOCK), NULL, &all, NULL);
	struct pev_count v;
	int n = pev_counter_nr_fds(c);

	th_sleep_briefly(10);
	cr_assert_eq(pev_counter_disable(c), 0);
	cr_assert_eq(pev_counter_reset(c), 0);
	th_sleep_briefly(10);
	for (int i = 0; i < n; i++) {
		cr_assert_eq(pev_counter_read_fd(c, i, &v), 0);
		cr_expect_eq(v.value, 0, "CPU %d: disabled and reset, %" PRIu64,
			     pev_counter_cpu(c, i), v.value);
	}
	cr_assert_eq(pev_counter_enable(c), 0);
	th_sleep_briefly(10);
	for (int i = 0; i < n; i++) {
		cr_assert_eq(pev_counter_read_fd(c, i, &v), 0);
		cr_expect_gt(v.value, 0, "CPU %d counts after enable", pev_counter_cpu(c, i));
	}
	pev_counter_close(c);
}

/* A disabled leader with two disabled members. */
struct trio {
	struct pev_counter *c[3];
};

static void trio_open(struct trio *t)
{
	struct pev_opts o = th_opts();
	struct pev_target self = pev_target_self();

	o.disabled = true;
	o.read_format = PEV_FORMAT_GROUP | PEV_FORMAT_ID;
	t->c[0] = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), &o, &self, NULL);
	o.read_format = 0;
	t->c[1] = th_open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), &o, &self, t->c[0]);
	t->c[2] = th_open_ok(pev_event_software(PEV_SW_CONTEXT_SWITCHES), &o, &self, t->c[0]);
}

static void trio_close(struct trio *t)
{
	for (int k = 2; k >= 0; k--)
		pev_counter_close(t->c[k]);
}

static void trio_values(struct trio *t, uint64_t v[3])
{
	struct pev_count out[3];

	cr_assert_eq(pev_counter_read_group(t->c[0], out, 3), 3);
	for (int k = 0; k < 3; k++)
		v[k] = out[k].value;
}

/* Page faults first: right after an enable, before any context switch. */
static void trio_work(void)
{
	th_touch_pages(16);
	th_spin_ms(3);
	th_sleep_briefly(3);
}

Test(control, group_forms_act_on_leader_and_members, .init = th_leak_init, .fini = th_leak_fini)
{
	struct trio t;
	uint64_t v[3], w[3];

	trio_open(&t);
	trio_work();
	trio_values(&t, v);
	for (int k = 0; k < 3; k++)
		cr_expect_eq(v[k], 0, "entry %d counted while the group was disabled", k);

	/* Through a member: the leader and both members start. */
	cr_assert_eq(pev_counter_enable_group(t.c[1]), 0);
	trio_work();
	trio_values(&t, v);
	cr_expect_gt(v[0], 1000000, "task-clock: %" PRIu64, v[0]);
	cr_expect_geq(v[1], 16, "page-faults: %" PRIu64, v[1]);
	cr_expect_geq(v[2], 3, "context-switches: %" PRIu64, v[2]);

	/* Through the other member: all stop. */
	cr_assert_eq(pev_counter_disable_group(t.c[2]), 0);
	trio_values(&t, v);
	trio_work();
	trio_values(&t, w);
	for (int k = 0; k < 3; k++)
		cr_expect_eq(w[k], v[k], "entry %d moved while the group was disabled", k);

	/* Reset through a member: all zero. */
	cr_assert_eq(pev_counter_reset_group(t.c[1]), 0);
	trio_values(&t, v);
	for (int k = 0; k < 3; k++)
		cr_expect_eq(v[k], 0, "entry %d after the group reset: %" PRIu64, k, v[k]);

	/* Through the leader itself, a few times: every member starts at once, every time. */
	for (int round = 0; round < 5; round++) {
		cr_assert_eq(pev_counter_reset_group(t.c[0]), 0);
		cr_assert_eq(pev_counter_enable_group(t.c[0]), 0);
		th_touch_pages(16);
		cr_assert_eq(pev_counter_disable_group(t.c[0]), 0);
		trio_values(&t, v);
		cr_expect_geq(v[1], 16, "round %d: page-faults right after the group enable: %" PRIu64,
			      round, v[1]);
		cr_expect_gt(v[0], 0, "round %d: task-clock", round);
	}
	trio_close(&t);
}

Test(control, single_forms_act_on_one_event, .init = th_leak_init, .fini = th_leak_fini)
{
	struct trio t;
	uint64_t v[3];

	trio_open(&t);
	/* One member alone: a member counts only while its leader runs. */
	cr_assert_eq(pev_counter_enable(t.c[1]), 0);
	trio_work();
	trio_values(&t, v);
	for (int k = 0; k < 3; k++)
		cr_expect_eq(v[k], 0, "entry %d counted with the leader off: %" PRIu64, k, v[k]);

	/* Then the leader alone: it and the enabled member count, the other member not. */
	cr_assert_eq(pev_counter_enable(t.c[0]), 0);
	trio_work();
	trio_values(&t, v);
	cr_expect_gt(v[0], 1000000, "task-clock: %" PRIu64, v[0]);
	cr_expect_geq(v[1], 16, "page-faults: %" PRIu64, v[1]);
	cr_expect_eq(v[2], 0, "context-switches was not enabled: %" PRIu64, v[2]);

	/* Resetting one member leaves the others. */
	cr_assert_eq(pev_counter_disable(t.c[0]), 0);
	cr_assert_eq(pev_counter_reset(t.c[1]), 0);
	trio_values(&t, v);
	cr_expect_eq(v[1], 0);
	cr_expect_gt(v[0], 0, "the leader was not reset");
	trio_close(&t);
}

Test(control, group_forms_on_a_lone_counter, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	o.disabled = true;
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), &o, NULL, NULL);

	cr_assert_eq(pev_counter_enable_group(c), 0, "a lone event is its own group");
	th_touch_pages(8);
	cr_expect_geq(th_value(c), 8);
	cr_assert_eq(pev_counter_disable_group(c), 0);
	cr_assert_eq(pev_counter_reset_group(c), 0);
	cr_expect_eq(th_value(c), 0);
	cr_expect_eq(pev_counter_enable_group(NULL), PEV_EBADARG);
	th_expect_last_error(PEV_EBADARG, "c", "pev_counter_enable_group", "NULL", NULL);
	cr_expect_eq(pev_counter_disable_group(NULL), PEV_EBADARG);
	cr_expect_eq(pev_counter_reset_group(NULL), PEV_EBADARG);
	pev_counter_close(c);
}

/* ---- refresh and period ---------------------------------------------------- */

/*
 * PERF_EVENT_IOC_REFRESH n adds n to the overflows a sampling event may
 * take, and enables it; at the last it disables itself. With sample_period 1
 * on page faults each fault is an overflow, so the count stops at n (the
 * disable runs from irq_work, before the next fault).
 */
Test(control, refresh_counts_n_overflows_then_stops, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *c = open_sampling_faults(1, true);

	th_touch_pages(16);
	cr_expect_eq(th_value(c), 0, "opened disabled");
	cr_assert_eq(pev_counter_refresh(c, 3), 0);
	th_touch_pages(64);
	uint64_t v = th_value(c);
	cr_expect_geq(v, 3, "refresh 3 with period 1: %" PRIu64 " faults counted", v);
	cr_expect_leq(v, 4, "refresh 3 with period 1: %" PRIu64 " faults counted", v);

	/* Again: two more overflows. */
	cr_assert_eq(pev_counter_refresh(c, 2), 0);
	th_touch_pages(64);
	uint64_t w = th_value(c);
	cr_expect_geq(w, v + 2, "refresh 2 more: %" PRIu64 " -> %" PRIu64, v, w);
	cr_expect_leq(w, v + 3, "refresh 2 more: %" PRIu64 " -> %" PRIu64, v, w);
	pev_counter_close(c);
}

Test(control, refresh_refusals, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *sampling = open_sampling_faults(1, true);
	struct pev_counter *counting = th_open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), NULL, NULL,
					       NULL);
	struct pev_opts o = th_opts();

	cr_expect_eq(pev_counter_refresh(sampling, 0), PEV_EBADARG);
	th_expect_last_error(PEV_EBADARG, "n", "pev_counter_refresh", "1 overflow or more", NULL);
	cr_expect_eq(pev_counter_refresh(sampling, -1), PEV_EBADARG);
	cr_expect_eq(pev_counter_refresh(NULL, 1), PEV_EBADARG);
	cr_expect_eq(pev_counter_refresh(counting, 1), PEV_EINVAL,
		     "the kernel refreshes sampling events only");
	th_expect_last_error(PEV_EINVAL, "", "ioctl(REFRESH) on 'page-faults' failed",
			     "does not sample", NULL);

	o.sample_period = 1;
	o.inherit = PEV_INHERIT_ALL;
	o.disabled = true;
	struct pev_counter *inherited = th_open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), &o, NULL,
						NULL);
	cr_expect_eq(pev_counter_refresh(inherited, 1), PEV_EINVAL, "nor inherited events");
	th_expect_last_error(PEV_EINVAL, "", "ioctl(REFRESH)", "PEV_INHERIT_NONE", NULL);
	pev_counter_close(inherited);
	pev_counter_close(counting);
	pev_counter_close(sampling);
}

Test(control, set_period_takes_effect, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *c = open_sampling_faults(1000000, true);

	/* Period 5 with one refresh: the event stops at the fifth fault. */
	cr_assert_eq(pev_counter_set_period(c, 5), 0);
	cr_assert_eq(pev_counter_refresh(c, 1), 0);
	th_touch_pages(64);
	uint64_t v = th_value(c);
	cr_expect_geq(v, 5, "period 5, one overflow: %" PRIu64 " faults", v);
	cr_expect_leq(v, 6, "period 5, one overflow: %" PRIu64 " faults", v);
	pev_counter_close(c);
}

Test(control, set_period_refusals, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *c = open_sampling_faults(1000, true);
	struct pev_counter *counting = th_open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), NULL, NULL,
					       NULL);
	struct pev_opts o = th_opts();

	cr_expect_eq(pev_counter_set_period(c, 0), PEV_EINVAL, "period 0");
	cr_expect_eq(pev_counter_set_period(c, UINT64_C(1) << 63), PEV_EINVAL, "bit 63 set");
	cr_expect_eq(pev_counter_set_period(counting, 1000), PEV_EINVAL, "a counting event");
	th_expect_last_error(PEV_EINVAL, "", "ioctl(PERIOD)", "only a sampling event", NULL);
	cr_expect_eq(pev_counter_set_period(NULL, 1000), PEV_EBADARG);
	cr_expect_eq(pev_counter_set_period(c, 2000), 0);

	/* A frequency event takes a new frequency (0 is refused there too). */
	o.sample_freq = 100;
	struct pev_counter *freq = th_open_ok(pev_event_software(PEV_SW_CPU_CLOCK), &o, NULL, NULL);
	cr_expect_eq(pev_counter_set_period(freq, 200), 0);
	cr_expect_eq(pev_counter_set_period(freq, 0), PEV_EINVAL);
	th_expect_last_error(PEV_EINVAL, "", "perf_event_max_sample_rate", NULL);
	pev_counter_close(freq);
	pev_counter_close(counting);
	pev_counter_close(c);
}

/* ---- id -------------------------------------------------------------------- */

Test(control, ids_distinct_per_descriptor, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_target all = pev_target_all_cpus();
	struct pev_counter *a = th_open_ok(pev_event_software(PEV_SW_CPU_CLOCK), NULL, &all, NULL);
	struct pev_counter *b = th_open_ok(pev_event_software(PEV_SW_CONTEXT_SWITCHES), NULL, &all,
					NULL);
	int n = pev_counter_nr_fds(a);
	uint64_t ids[2][256];

	cr_assert_leq(n, 256);
	for (int i = 0; i < n; i++) {
		cr_assert_eq(pev_counter_id(a, i, &ids[0][i]), 0);
		cr_assert_eq(pev_counter_id(b, i, &ids[1][i]), 0);
		cr_expect_neq(ids[0][i], 0);
	}
	for (int x = 0; x < 2 * n; x++)
		for (int y = x + 1; y < 2 * n; y++)
			cr_expect_neq(ids[x / n][x % n], ids[y / n][y % n],
				      "descriptors %d and %d share id %" PRIu64, x, y,
				      ids[x / n][x % n]);
	/* Asking twice gives the same id. */
	uint64_t again;
	cr_assert_eq(pev_counter_id(a, 0, &again), 0);
	cr_expect_eq(again, ids[0][0]);
	cr_expect_eq(pev_counter_id(a, n, &again), PEV_EBADARG);
	pev_counter_close(b);
	pev_counter_close(a);
}

/* ---- ftrace filter ---------------------------------------------------------- */

/* The raw_syscalls:sys_enter tracepoint, counting the calling thread; skips when absent. */
static struct pev_counter *open_sys_enter_in(struct pev_counter *group)
{
	th_require_root();
	uint64_t id = th_tracepoint_id("raw_syscalls", "sys_enter");
	if (!id)
		th_skip("tracefs or raw_syscalls:sys_enter unavailable (tracefs at %s)",
			     th_tracefs() ? th_tracefs() : "nowhere");
	struct pev_opts o = th_opts();
	o.disabled = true;
	return th_open_ok(pev_event_tracepoint(id), &o, NULL, group);
}

static struct pev_counter *open_sys_enter(void)
{
	return open_sys_enter_in(NULL);
}

/* Runs `calls` getppid(2) and two other syscalls with the group of cs[0] enabled. */
static void count_getppid_calls(struct pev_counter **cs, int n, int calls, uint64_t *out)
{
	cr_assert_eq(pev_counter_reset_group(cs[0]), 0);
	cr_assert_eq(pev_counter_enable_group(cs[0]), 0);
	for (int i = 0; i < calls; i++)
		syscall(SYS_getppid);
	(void)syscall(SYS_getpid);
	(void)syscall(SYS_getuid);
	cr_assert_eq(pev_counter_disable_group(cs[0]), 0);
	for (int k = 0; k < n; k++)
		out[k] = th_value(cs[k]);
}

Test(control, set_filter_on_a_tracepoint, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *cs[3];
	char only[64], others[64];
	uint64_t v[3];
	const int calls = 37;

	/* One group, so that all three count exactly the same stretch of syscalls. */
	cs[0] = open_sys_enter();
	cs[1] = open_sys_enter_in(cs[0]);
	cs[2] = open_sys_enter_in(cs[0]);
	/* The kernel takes one filter per event: one counter per filter. */
	snprintf(only, sizeof(only), "id == %d", (int)SYS_getppid);
	snprintf(others, sizeof(others), "id != %d", (int)SYS_getppid);
	cr_assert_eq(pev_counter_set_filter(cs[1], only), 0, "filter \"%s\"", only);
	cr_assert_eq(pev_counter_set_filter(cs[2], others), 0, "filter \"%s\"", others);
	count_getppid_calls(cs, 3, calls, v);
	cr_expect_geq(v[0], (uint64_t)calls + 2, "unfiltered: %" PRIu64 " syscalls", v[0]);
	cr_expect_eq(v[1], (uint64_t)calls, "filter \"%s\": %" PRIu64 " for %d calls", only,
		     v[1], calls);
	cr_expect_geq(v[2], 2, "getpid and getuid pass \"%s\": %" PRIu64, others, v[2]);
	cr_expect_eq(v[1] + v[2], v[0], "the two filters split the unfiltered count: %" PRIu64
		     " + %" PRIu64 " != %" PRIu64, v[1], v[2], v[0]);

	/* A second filter on the same event: the kernel keeps the first. */
	cr_expect_eq(pev_counter_set_filter(cs[1], others), PEV_EEXIST);
	count_getppid_calls(cs, 3, calls, v);
	cr_expect_eq(v[1], (uint64_t)calls, "the first filter still holds: %" PRIu64, v[1]);
	for (int k = 2; k >= 0; k--)
		pev_counter_close(cs[k]);
}

Test(control, set_filter_refusals, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *tp = open_sys_enter();
	struct pev_counter *sw = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), NULL, NULL, NULL);

	cr_expect_eq(pev_counter_set_filter(tp, "no_such_field == 1"), PEV_EINVAL);
	cr_expect_eq(pev_counter_set_filter(tp, "id =="), PEV_EINVAL);
	cr_expect_eq(pev_counter_set_filter(sw, "id == 1"), PEV_EINVAL,
		     "a software event has no ftrace filter");
	th_expect_last_error(PEV_EINVAL, "", "ioctl(SET_FILTER) on 'task-clock'",
			     "tracepoint, kprobe and uprobe events", NULL);
	cr_expect_eq(pev_counter_set_filter(tp, NULL), PEV_EBADARG);
	cr_expect_eq(pev_counter_set_filter(NULL, "id == 1"), PEV_EBADARG);
	pev_counter_close(sw);
	pev_counter_close(tp);
}

/* ---- BPF ------------------------------------------------------------------- */

Test(control, set_bpf_refuses_what_is_no_program, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *tp = open_sys_enter();
	struct pev_counter *sw = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), NULL, NULL, NULL);
	int p[2];

	cr_expect_eq(pev_counter_set_bpf(tp, -1), PEV_EBADARG);
	cr_expect_eq(pev_counter_set_bpf(NULL, 3), PEV_EBADARG);

	/* A descriptor number nothing has open. */
	int fd = dup(0);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_expect_eq(pev_counter_set_bpf(tp, fd), PEV_EBADF);
	cr_expect_eq(pev_counter_set_bpf(sw, fd), PEV_EBADF, "a software event alike");

	/* An open descriptor that is no BPF program. */
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	int r = pev_counter_set_bpf(tp, p[0]);
	cr_expect_eq(r, PEV_EINVAL, "a pipe as a BPF program: %s", pev_error_name(r));

	cr_expect_eq(pev_counter_set_bpf(sw, p[0]), PEV_EINVAL, "a software event alike");
	th_expect_last_error(PEV_EINVAL, "", "ioctl(SET_BPF)", "matching program type", NULL);
	pev_counter_close(sw);
	close(p[0]);
	close(p[1]);
	pev_counter_close(tp);
}

Test(control, query_bpf_on_a_tracepoint_without_programs, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_counter *tp = open_sys_enter();
	struct pev_counter *sw = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), NULL, NULL, NULL);
	uint32_t ids[8], count = 99;

	memset(ids, 0xAB, sizeof(ids));
	cr_assert_eq(pev_counter_query_bpf(tp, ids, 8, &count), 0);
	cr_expect_eq(count, 0);
	cr_expect_eq(ids[0], 0xABABABABU, "no ids written");
	count = 99;
	cr_assert_eq(pev_counter_query_bpf(tp, NULL, 0, &count), 0, "the count alone");
	cr_expect_eq(count, 0);

	cr_expect_eq(pev_counter_query_bpf(sw, ids, 8, &count), PEV_EINVAL,
		     "a software event has no program array");
	cr_expect_eq(pev_counter_query_bpf(tp, ids, 8, NULL), PEV_EBADARG);
	cr_expect_eq(pev_counter_query_bpf(tp, NULL, 8, &count), PEV_EBADARG);
	cr_expect_eq(pev_counter_query_bpf(NULL, ids, 8, &count), PEV_EBADARG);
	pev_counter_close(sw);
	pev_counter_close(tp);
}

/* ---- pause output ----------------------------------------------------------- */

static uint64_t data_head(const struct pev_ring *r)
{
	return __atomic_load_n(&pev_ring_page(r)->data_head, __ATOMIC_ACQUIRE);
}

Test(control, pause_output_stops_the_ring, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_ring *ring = NULL;
	struct pev_error err;
	struct pev_count v;

	o.sample_period = 1;
	o.sample_type = PEV_SAMPLE_IP;
	o.exclude_kernel = true;
	o.read_format = PEV_FORMAT_LOST;
	o.disabled = true;
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), &o, NULL, NULL);

	cr_expect_eq(pev_counter_pause_output(c, true), PEV_EINVAL, "no ring to pause yet");
	th_expect_last_error(PEV_EINVAL, "", "ioctl(PAUSE_OUTPUT)", "pev_ring_open", NULL);
	cr_assert_eq(pev_ring_open(c, 0, 1, &ring, &err), 0, "%s", err.message);
	cr_assert_eq(pev_counter_enable(c), 0);

	/* Paused: samples are dropped and counted as lost, the ring stays as it was. */
	cr_assert_eq(pev_counter_pause_output(c, true), 0);
	uint64_t head = data_head(ring);
	th_touch_pages(8);
	cr_expect_eq(data_head(ring), head, "paused: nothing written");
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_geq(v.lost, 8, "paused: %" PRIu64 " samples lost for 8 faults", v.lost);
	cr_expect_geq(v.value, 8, "counting goes on while output is paused");

	/* Resumed: samples land in the ring again. */
	cr_assert_eq(pev_counter_pause_output(c, false), 0);
	th_touch_pages(8);
	cr_expect_gt(data_head(ring), head, "resumed: records written");
	uint64_t lost = v.lost;
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_eq(v.lost, lost, "nothing more lost once resumed (a page holds 8 samples)");

	pev_ring_close(ring);
	pev_counter_close(c);
}

/* ---- modify: moving a watchpoint ------------------------------------------ */

static volatile uint64_t watch_a, watch_b;

static void write_both(int n)
{
	for (int i = 0; i < n; i++) {
		watch_a = (uint64_t)i;
		watch_b = (uint64_t)i;
		watch_b = (uint64_t)i + 1;
	}
}

Test(control, modify_moves_a_watchpoint, .init = th_leak_init, .fini = th_leak_fini)
{
	/* Where breakpoints never fire, the modifications are checked without the counts. */
	bool fires = th_cap_works(PEV_CAP_BREAKPOINT);
	struct pev_opts o = th_opts();
	struct pev_event ev = pev_event_breakpoint((uint64_t)(uintptr_t)&watch_a, PEV_BP_LEN_8,
						   PEV_BP_W);
	o.exclude_kernel = true;
	o.disabled = true;
	struct pev_counter *c = th_open_ok(ev, &o, NULL, NULL);

	cr_assert_eq(pev_counter_enable(c), 0);
	write_both(10);
	if (fires)
		cr_expect_eq(th_value(c), 10, "watching a: 10 writes to a, 20 to b");

	/*
	 * The kernel takes the disabled bit from the new attributes too: a
	 * block copied from a counter opened disabled would switch it off.
	 */
	struct pev_attr attr = *pev_counter_attr(c);
	attr.flags &= ~PEV_ATTR_DISABLED;
	attr.bp_addr = (uint64_t)(uintptr_t)&watch_b;
	cr_assert_eq(pev_counter_modify(c, &attr), 0);
	cr_expect_eq(pev_counter_attr(c)->bp_addr, (uint64_t)(uintptr_t)&watch_b,
		     "the counter records the new address");
	cr_expect_not(pev_counter_attr(c)->flags & PEV_ATTR_DISABLED, "and that it is enabled");
	cr_assert_eq(pev_counter_reset(c), 0);
	write_both(10);
	if (fires)
		cr_expect_eq(th_value(c), 20, "watching b: 20 writes to b count, 10 to a do not");

	/* Back to a, now for reads and writes (x86 has no read-only watchpoints). */
	attr.bp_type = PEV_BP_RW;
	attr.bp_addr = (uint64_t)(uintptr_t)&watch_a;
	cr_assert_eq(pev_counter_modify(c, &attr), 0);
	cr_expect_eq(pev_counter_attr(c)->bp_type, PEV_BP_RW);
	cr_assert_eq(pev_counter_reset(c), 0);
	uint64_t sink = 0;
	for (int i = 0; i < 5; i++)
		sink += watch_a;
	/* Keep the store apart: one read-modify-write instruction traps once. */
	__asm__ volatile("" ::: "memory");
	watch_a = sink;
	uint64_t hits = th_value(c);
	if (fires)
		cr_expect_eq(hits, 6, "RW on a: 5 reads and a write, %" PRIu64 " hits", hits);

	/* With the disabled bit set the watchpoint stays off after the change. */
	attr.flags |= PEV_ATTR_DISABLED;
	attr.bp_type = PEV_BP_W;
	cr_assert_eq(pev_counter_modify(c, &attr), 0);
	cr_expect(pev_counter_attr(c)->flags & PEV_ATTR_DISABLED, "the counter records the bit");
	cr_assert_eq(pev_counter_reset(c), 0);
	write_both(10);
	cr_expect_eq(th_value(c), 0, "modified with the disabled bit: not counting");
	cr_assert_eq(pev_counter_enable(c), 0);
	write_both(10);
	if (fires)
		cr_expect_eq(th_value(c), 10, "enabled again: 10 writes to a");
	pev_counter_close(c);
	if (!fires)
		th_skip_log("hit counts not checked: breakpoint %s here: %s",
			    pev_capability_verdict_name(th_capability(PEV_CAP_BREAKPOINT)->verdict),
			    th_capability(PEV_CAP_BREAKPOINT)->detail);
}

Test(control, modify_refusals, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	o.exclude_kernel = true;
	struct pev_counter *bp = th_open_ok(pev_event_breakpoint((uint64_t)(uintptr_t)&watch_a,
							       PEV_BP_LEN_8, PEV_BP_W),
					 &o, NULL, NULL);
	struct pev_counter *sw = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), NULL, NULL, NULL);
	struct pev_attr attr = *pev_counter_attr(sw);

	/* Only breakpoints can be modified (Linux 6.18 says EINVAL, older ones EOPNOTSUPP). */
	int r = pev_counter_modify(sw, &attr);
	cr_expect(r == PEV_EINVAL || r == PEV_EOPNOTSUPP, "modify task-clock: %s",
		  pev_error_name(r));
	cr_expect_eq(pev_counter_modify(bp, &attr), PEV_EINVAL, "another type");
	th_expect_last_error(PEV_EINVAL, "", "ioctl(MODIFY_ATTRIBUTES)", "same kind", NULL);
	cr_expect_eq(pev_counter_modify(bp, NULL), PEV_EBADARG);
	cr_expect_eq(pev_counter_modify(NULL, &attr), PEV_EBADARG);

	/* A refused change leaves the recorded attributes alone. */
	attr = *pev_counter_attr(bp);
	attr.bp_len = 9; /* a breakpoint length no architecture has */
	attr.bp_addr = (uint64_t)(uintptr_t)&watch_b;
	r = pev_counter_modify(bp, &attr);
	cr_expect_eq(r, PEV_EINVAL, "bp_len 9: %s", pev_error_name(r));
	cr_expect_eq(pev_counter_attr(bp)->bp_addr, (uint64_t)(uintptr_t)&watch_a);
	cr_expect_eq(pev_counter_attr(bp)->bp_len, PEV_BP_LEN_8);
	pev_counter_close(sw);
	pev_counter_close(bp);
}

/* ---- prctl: every counter of the calling process ----------------------------- */

Test(control, process_counters_disable_and_enable, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *clk = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), NULL, NULL, NULL);
	struct pev_counter *pf = th_open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), NULL, NULL, NULL);

	th_spin_ms(2);
	cr_assert_eq(pev_process_counters_disable(), 0);
	uint64_t c0 = th_value(clk), p0 = th_value(pf);
	th_spin_ms(20);
	th_touch_pages(16);
	cr_expect_eq(th_value(clk), c0, "task-clock stays flat while disabled");
	cr_expect_eq(th_value(pf), p0, "page-faults stays flat while disabled");

	cr_assert_eq(pev_process_counters_enable(), 0);
	th_spin_ms(20);
	th_touch_pages(16);
	cr_expect_geq(th_value(clk), c0 + 10 * 1000000ULL, "task-clock resumes");
	cr_expect_geq(th_value(pf), p0 + 16, "page-faults resumes");
	pev_counter_close(pf);
	pev_counter_close(clk);
}

/* ---- ioctl failures -------------------------------------------------------- */

Test(control, ioctl_errors_come_back_as_codes, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *c = open_sampling_faults(1000, true);
	struct pev_attr attr = *pev_counter_attr(c);
	uint32_t count;
	uint64_t id;
	const int errs[] = {ENOTTY, EIO, EFAULT};

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		int e = errs[i], want = -e;
		th_inject_call_errno("ioctl", e);
		cr_expect_eq(pev_counter_enable(c), want, "enable, errno %d", e);
		cr_expect_eq(pev_counter_disable(c), want);
		cr_expect_eq(pev_counter_reset(c), want);
		cr_expect_eq(pev_counter_enable_group(c), want);
		cr_expect_eq(pev_counter_disable_group(c), want);
		cr_expect_eq(pev_counter_reset_group(c), want);
		cr_expect_eq(pev_counter_refresh(c, 1), want);
		cr_expect_eq(pev_counter_set_period(c, 10), want);
		cr_expect_eq(pev_counter_set_filter(c, "x"), want);
		cr_expect_eq(pev_counter_set_bpf(c, 5), want);
		cr_expect_eq(pev_counter_query_bpf(c, NULL, 0, &count), want);
		cr_expect_eq(pev_counter_pause_output(c, true), want);
		cr_expect_eq(pev_counter_modify(c, &attr), want);
		cr_expect_eq(pev_counter_id(c, 0, &id), want, "id of a counter opened without ids");
	}
	cr_expect_eq(pev_error_from_errno(ENOTTY), PEV_ENOTTY);
	th_inject_reset();
	pev_counter_close(c);
}

Test(control, first_failing_descriptor_stops_the_loop, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_target all = pev_target_all_cpus();
	struct pev_opts o = th_opts();
	o.disabled = true;
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_CPU_CLOCK), &o, &all, NULL);

	th_inject_call_errno("ioctl", EBADF);
	cr_expect_eq(pev_counter_enable(c), PEV_EBADF);
	th_inject_reset();
	/* Nothing was enabled: the injected failure came first. */
	th_sleep_briefly(3);
	cr_expect_eq(th_value(c), 0);
	pev_counter_close(c);
}

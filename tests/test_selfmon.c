/* SPDX-License-Identifier: MIT */
/*
 * test_selfmon.c - pev_mmap_read() against hand-built control pages (the
 * rdpmc and rdtsc instructions replaced through their seam), and the
 * pev_selfmon start/stop API: live through its read(2) fallback (this VM
 * has no PMU), and on its rdpmc path with fake pages behind the syscall seam.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers.h"
#include "count/selfmon_internal.h"
#include "core/sys.h"

/* ---- the fake instructions -------------------------------------------- */

static uint64_t fake_pmc[8];     /* what rdpmc(i) returns */
static uint64_t fake_tsc;        /* what rdtsc returns */
static int rdpmc_calls, rdtsc_calls;
static uint32_t last_counter;    /* the argument of the last rdpmc */
static struct pev_mmap_page *meddle_page; /* rdpmc bumps its lock ... */
static int meddle_times;                  /* ... this many times (< 0: always) */

static uint64_t fake_rdpmc(uint32_t counter)
{
	rdpmc_calls++;
	last_counter = counter;
	if (meddle_page && meddle_times != 0) {
		/* An update of the page while the reader is between its two looks at lock. */
		meddle_page->lock += 2;
		meddle_page->offset += 1000;
		if (meddle_times > 0)
			meddle_times--;
	}
	return fake_pmc[counter % 8];
}

static uint64_t fake_rdtsc(void)
{
	rdtsc_calls++;
	return fake_tsc;
}

static const struct pev__pmc_ops fake_ops = {fake_rdpmc, fake_rdtsc};
static const struct pev__pmc_ops no_rdpmc_ops = {NULL, fake_rdtsc};

static void fake_init(void)
{
	memset(fake_pmc, 0, sizeof(fake_pmc));
	fake_tsc = 0;
	rdpmc_calls = rdtsc_calls = 0;
	last_counter = UINT32_MAX;
	meddle_page = NULL;
	meddle_times = 0;
	pev__pmc_set(&fake_ops);
	th_leak_init();
}

static void fake_fini(void)
{
	pev__pmc_set(NULL);
	th_leak_fini();
}

/* A page the kernel could have written for a counter on the PMU, readable from user space. */
static struct pev_mmap_page readable_page(uint32_t index, int64_t offset, uint16_t width)
{
	struct pev_mmap_page p;

	memset(&p, 0, sizeof(p));
	p.version = 0;
	p.lock = 4;
	p.index = index;
	p.offset = offset;
	p.pmc_width = width;
	p.capabilities = PEV_CAP_BIT0_IS_DEPRECATED | PEV_CAP_USER_RDPMC;
	return p;
}

/* ---- pev_mmap_read with hand-built pages ------------------------------ */

Test(mmap_read, refuses_what_user_space_cannot_read, .init = fake_init, .fini = fake_fini)
{
	struct pev_mmap_page p = readable_page(1, 0, 48);
	struct pev_count c;

	p.capabilities = PEV_CAP_BIT0_IS_DEPRECATED | PEV_CAP_USER_TIME; /* no cap_user_rdpmc */
	cr_expect_eq(pev_mmap_read(&p, &c), PEV_EAGAIN);
	p = readable_page(0, 0, 48); /* index 0: not on the PMU, every software event */
	cr_expect_eq(pev_mmap_read(&p, &c), PEV_EAGAIN);
	cr_expect_eq(rdpmc_calls, 0, "rdpmc must not run for a counter it cannot read");

	/* A machine without the instruction. */
	pev__pmc_set(&no_rdpmc_ops);
	p = readable_page(1, 0, 48);
	cr_expect_eq(pev_mmap_read(&p, &c), PEV_EAGAIN);
	pev__pmc_set(&fake_ops);

	/* Values no kernel writes: a width of 0 or above 64, a time shift of 64. */
	p = readable_page(1, 0, 0);
	cr_expect_eq(pev_mmap_read(&p, &c), PEV_EAGAIN);
	p = readable_page(1, 0, 65);
	cr_expect_eq(pev_mmap_read(&p, &c), PEV_EAGAIN);
	p = readable_page(1, 0, 48);
	p.capabilities |= PEV_CAP_USER_TIME;
	p.time_shift = 64;
	cr_expect_eq(pev_mmap_read(&p, &c), PEV_EAGAIN);
}

Test(mmap_read, bad_arguments, .init = fake_init, .fini = fake_fini)
{
	struct pev_mmap_page p = readable_page(1, 0, 48);
	struct pev_count c;

	cr_expect_eq(pev_mmap_read(NULL, &c), PEV_EBADARG);
	cr_expect_eq(pev_mmap_read(&p, NULL), PEV_EBADARG);
}

Test(mmap_read, offset_plus_counter, .init = fake_init, .fini = fake_fini)
{
	struct pev_mmap_page p = readable_page(3, 1000, 48);
	struct pev_count c;

	fake_pmc[2] = 234;
	cr_assert_eq(pev_mmap_read(&p, &c), 0);
	cr_expect_eq(last_counter, 2, "rdpmc reads counter index - 1");
	cr_expect_eq(c.value, 1234);
	cr_expect_eq(c.scaled, 1234);
	cr_expect(c.counted);
	cr_expect_eq(c.id, 0);
	cr_expect_eq(c.lost, 0);
	cr_expect_eq(rdtsc_calls, 0, "no rdtsc without cap_user_time");
}

Test(mmap_read, counter_is_sign_extended_from_its_width, .init = fake_init, .fini = fake_fini)
{
	struct pev_mmap_page p = readable_page(1, 10000, 48);
	struct pev_count c;

	/* Bit 47 set: -4096 in 48 bits; the bits above the width are noise to ignore. */
	fake_pmc[0] = UINT64_C(0xabcd000000000000) | UINT64_C(0xfffffffff000);
	cr_assert_eq(pev_mmap_read(&p, &c), 0);
	cr_expect_eq(c.value, 10000 - 4096);

	/* Bit 47 clear: positive, noise still ignored. */
	fake_pmc[0] = UINT64_C(0xffff000000000000) | UINT64_C(0x7fffffffffff);
	cr_assert_eq(pev_mmap_read(&p, &c), 0);
	cr_expect_eq(c.value, 10000 + UINT64_C(0x7fffffffffff));

	/* 40-bit counters (older Intel). */
	p.pmc_width = 40;
	fake_pmc[0] = UINT64_C(0xffffffffff); /* -1 */
	cr_assert_eq(pev_mmap_read(&p, &c), 0);
	cr_expect_eq(c.value, 9999);

	/* Full 64-bit width. */
	p.pmc_width = 64;
	fake_pmc[0] = UINT64_C(0x8000000000000005);
	cr_assert_eq(pev_mmap_read(&p, &c), 0);
	cr_expect_eq(c.value, UINT64_C(0x8000000000000005) + 10000);
}

Test(mmap_read, negative_offset_wraps_to_the_count, .init = fake_init, .fini = fake_fini)
{
	/* The kernel stores count - counter's raw value: often negative. */
	struct pev_mmap_page p = readable_page(1, -((int64_t)1 << 47) + 50, 48);
	struct pev_count c;

	fake_pmc[0] = (UINT64_C(1) << 47) - 1 + 8; /* bit 47 set: negative in 48 bits */
	cr_assert_eq(pev_mmap_read(&p, &c), 0);
	/* -(2^47) + 50 + sign_extend(2^47 + 7) = -(2^47) + 50 - (2^47) + 7 (mod 2^64) */
	cr_expect_eq(c.value, (uint64_t)(-((int64_t)1 << 48) + 57));

	p.offset = -100;
	fake_pmc[0] = 130;
	cr_assert_eq(pev_mmap_read(&p, &c), 0);
	cr_expect_eq(c.value, 30);
}

Test(mmap_read, lock_change_during_the_read_is_retried, .init = fake_init, .fini = fake_fini)
{
	struct pev_mmap_page p = readable_page(1, 100, 48);
	struct pev_count c;

	fake_pmc[0] = 5;
	meddle_page = &p;
	meddle_times = 1; /* the first attempt sees lock change */
	cr_assert_eq(pev_mmap_read(&p, &c), 0);
	cr_expect_eq(rdpmc_calls, 2, "one retry, got %d rdpmc", rdpmc_calls);
	cr_expect_eq(c.value, 1105, "the value of the second, consistent attempt");
}

Test(mmap_read, a_page_that_never_settles_falls_back, .init = fake_init, .fini = fake_fini)
{
	struct pev_mmap_page p = readable_page(1, 100, 48);
	struct pev_count c;

	meddle_page = &p;
	meddle_times = -1;
	cr_expect_eq(pev_mmap_read(&p, &c), PEV_EAGAIN);
	cr_expect_gt(rdpmc_calls, 1);

	/* An odd lock: an update under way that never ends. */
	meddle_page = NULL;
	rdpmc_calls = 0;
	p.lock = 7;
	cr_expect_eq(pev_mmap_read(&p, &c), PEV_EAGAIN);
	cr_expect_eq(rdpmc_calls, 0);
}

Test(mmap_read, time_delta_from_the_tsc, .init = fake_init, .fini = fake_fini)
{
	struct pev_mmap_page p = readable_page(1, 0, 48);
	struct pev_count c;

	p.capabilities |= PEV_CAP_USER_TIME;
	p.time_enabled = 10000;
	p.time_running = 5000;
	p.time_shift = 10;
	p.time_mult = 1536;                /* 1.5 ns per cycle */
	p.time_offset = (uint64_t)-1000;   /* the page was updated 1000 ns after TSC 0 */
	fake_tsc = (UINT64_C(5) << 10) + 7; /* 5127 cycles: 5 x 1536 + (7 x 1536 >> 10) = 7690 ns */
	fake_pmc[0] = 11690;
	cr_assert_eq(pev_mmap_read(&p, &c), 0);
	cr_expect_eq(rdtsc_calls, 1);
	cr_expect_eq(c.time_enabled, 10000 + 6690);
	cr_expect_eq(c.time_running, 5000 + 6690);
	cr_expect_eq(c.value, 11690);
	cr_expect_eq(c.scaled, 16690, "value x enabled / running");
	cr_expect(c.running > 0.70 && c.running < 0.71, "%f", c.running);

	/* enabled == running: the delta still brings both up to now. */
	p.time_enabled = p.time_running = 2000;
	cr_assert_eq(pev_mmap_read(&p, &c), 0);
	cr_expect_eq(c.time_enabled, 8690);
	cr_expect_eq(c.time_running, 8690);
	cr_expect_eq(c.scaled, c.value);

	/* High cycle counts: quot x mult wraps like the kernel's arithmetic, no precision lost. */
	p.time_shift = 31;
	p.time_mult = UINT32_C(0x80000000); /* 1.0 */
	p.time_offset = 0;
	p.time_enabled = p.time_running = 0;
	fake_tsc = UINT64_C(0x123456789abcdef);
	cr_assert_eq(pev_mmap_read(&p, &c), 0);
	cr_expect_eq(c.time_enabled, UINT64_C(0x123456789abcdef));
}

Test(mmap_read, short_time_counter, .init = fake_init, .fini = fake_fini)
{
	struct pev_mmap_page p = readable_page(1, 0, 48);
	struct pev_count c;

	/* A 24-bit clock that wrapped since the page's update at cycle 0x5_00ff_fff0. */
	p.capabilities |= PEV_CAP_USER_TIME | PEV_CAP_USER_TIME_SHORT;
	p.time_cycles = UINT64_C(0x500fffff0);
	p.time_mask = UINT64_C(0xffffff);
	p.time_shift = 0;
	p.time_mult = 1;
	p.time_offset = (uint64_t) - (int64_t)UINT64_C(0x501000000);
	p.time_enabled = 100;
	p.time_running = 100;
	fake_tsc = 0x10; /* the raw 24-bit reading: 0x20 cycles after time_cycles */
	cr_assert_eq(pev_mmap_read(&p, &c), 0);
	/* cyc = 0x5_00ff_fff0 + 0x20 = 0x5_0100_0010; delta = cyc - 0x5_0100_0000 = 16 */
	cr_expect_eq(c.time_enabled, 116);
	cr_expect_eq(c.time_running, 116);

	/* Without cap_user_time_short the same fields are ignored. */
	p.capabilities &= ~PEV_CAP_USER_TIME_SHORT;
	fake_tsc = UINT64_C(0x501000020);
	cr_assert_eq(pev_mmap_read(&p, &c), 0);
	cr_expect_eq(c.time_enabled, 132);
}

Test(mmap_read, without_cap_user_time_the_page_times_are_kept, .init = fake_init,
     .fini = fake_fini)
{
	struct pev_mmap_page p = readable_page(1, 0, 48);
	struct pev_count c;

	p.time_enabled = 4000;
	p.time_running = 1000;
	p.time_mult = 12345; /* not valid without the capability */
	fake_pmc[0] = 10;
	cr_assert_eq(pev_mmap_read(&p, &c), 0);
	cr_expect_eq(rdtsc_calls, 0);
	cr_expect_eq(c.time_enabled, 4000);
	cr_expect_eq(c.time_running, 1000);
	cr_expect_eq(c.scaled, 40);
}

/* ---- the live page of a software event -------------------------------- */

Test(mmap_read, live_software_event_is_not_readable, .init = th_leak_init, .fini = th_leak_fini)
{
	static const struct pev_event tc = {.type = PEV_TYPE_SOFTWARE,
					    .config = PEV_SW_TASK_CLOCK,
					    .name = "task-clock"};
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_counter *c;
	struct pev_count count;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	o.exclude_kernel = o.exclude_hv = true;
	cr_assert_eq(pev_counter_open(&tc, &o, &self, NULL, &c, NULL), 0);
	const struct pev_mmap_page *pc =
		mmap(NULL, page, PROT_READ, MAP_SHARED, pev_counter_fd(c, 0), 0);
	cr_assert_neq(pc, MAP_FAILED, "%s", strerror(errno));
	cr_expect_eq(pc->index, 0, "a software event is never on the PMU");
	cr_expect_eq(pev_mmap_read(pc, &count), PEV_EAGAIN);
	munmap((void *)pc, page);
	pev_counter_close(c);
}

/* ---- pev_selfmon, live (read(2) fallback on this machine) -------------- */

/* Touches n fresh pages and unmaps them; returns 0 or -1. */
static int touch_pages(int n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	volatile char *m = mmap(NULL, page * (size_t)n, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return -1;
	for (int i = 0; i < n; i++)
		m[(size_t)i * page] = 1;
	munmap((void *)m, page * (size_t)n);
	return 0;
}

Test(selfmon, counts_page_faults_of_a_region, .init = th_leak_init, .fini = th_leak_fini)
{
	enum { N = 64 };
	struct pev_selfmon *s;
	struct pev_count c[2];
	struct pev_error err;

	cr_assert_eq(pev_selfmon_open("task-clock,page-faults", &s, &err), 0, "%s", err.message);
	cr_expect_eq(pev_selfmon_count(s), 2);
	cr_expect_str_eq(pev_selfmon_name(s, 0), "task-clock");
	cr_expect_str_eq(pev_selfmon_name(s, 1), "page-faults");
	cr_expect_not(pev_selfmon_uses_rdpmc(s, 0), "software events are never read with rdpmc");
	cr_expect_not(pev_selfmon_uses_rdpmc(s, 1));

	cr_assert_eq(pev_selfmon_start(s), 0);
	cr_assert_eq(touch_pages(N), 0);
	cr_assert_eq(pev_selfmon_stop(s), 0);
	cr_assert_eq(pev_selfmon_read(s, c, 2), 2);

	cr_expect(c[1].counted);
	cr_expect_geq(c[1].value, N);
	cr_expect_leq(c[1].value, N + 16);
	cr_expect_eq(c[1].scaled, c[1].value, "a software group is never multiplexed");
	cr_expect(c[0].counted);
	cr_expect_gt(c[0].value, 0, "task-clock: ns on the CPU");
	cr_expect_gt(c[0].time_enabled, 0);
	cr_expect_eq(c[0].time_enabled, c[1].time_enabled, "one group read: the same times");
	cr_expect_neq(c[0].id, 0);
	cr_expect_neq(c[0].id, c[1].id);

	/* read() does not consume: the same deltas again, and fewer entries on request. */
	struct pev_count again[1];
	cr_expect_eq(pev_selfmon_read(s, again, 1), 1);
	cr_expect_eq(again[0].value, c[0].value);
	pev_selfmon_close(s);
}

Test(selfmon, empty_region_gives_small_deltas, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_selfmon *s;
	struct pev_count c[2];

	cr_assert_eq(pev_selfmon_open("task-clock,page-faults", &s, NULL), 0);
	cr_assert_eq(pev_selfmon_start(s), 0);
	cr_assert_eq(pev_selfmon_stop(s), 0);
	cr_assert_eq(pev_selfmon_read(s, c, 2), 2);
	cr_expect_leq(c[1].value, 2, "page faults of an empty region: %lu", (unsigned long)c[1].value);
	cr_expect_lt(c[0].value, 20 * 1000 * 1000, "task-clock of an empty region: %lu ns",
		     (unsigned long)c[0].value);

	/* Measuring again, with the same set. */
	cr_assert_eq(pev_selfmon_start(s), 0);
	cr_expect_eq(pev_selfmon_read(s, c, 2), PEV_EBADARG, "no stop after this start yet");
	cr_assert_eq(touch_pages(8), 0);
	cr_assert_eq(pev_selfmon_stop(s), 0);
	cr_assert_eq(pev_selfmon_read(s, c, 2), 2);
	cr_expect_geq(c[1].value, 8);
	pev_selfmon_close(s);
}

/* Counts read(2) calls on their way to the kernel. */
static struct pev_sys counting_sys;
static int read_calls;

static ssize_t counting_read(int fd, void *buf, size_t n)
{
	read_calls++;
	return pev__sys_real.read(fd, buf, n);
}

Test(selfmon, fallback_is_one_read_for_the_whole_group, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_selfmon *s;
	struct pev_count c[3];

	cr_assert_eq(pev_selfmon_open("page-faults,task-clock,context-switches", &s, NULL), 0);
	counting_sys = pev__sys_real;
	counting_sys.read = counting_read;
	pev__sys_set(&counting_sys);
	read_calls = 0;
	cr_assert_eq(pev_selfmon_start(s), 0);
	cr_expect_eq(read_calls, 1);
	cr_assert_eq(touch_pages(4), 0);
	cr_assert_eq(pev_selfmon_stop(s), 0);
	cr_expect_eq(read_calls, 2);
	cr_assert_eq(pev_selfmon_read(s, c, 3), 3);
	cr_expect_eq(read_calls, 2, "read needs no system call");
	pev__sys_set(NULL);
	cr_expect_geq(c[0].value, 4, "the leader's entry is its own");
	cr_expect_gt(c[1].value, 0);
	pev_selfmon_close(s);
}

static void open_as_nobody(void *ctx)
{
	int *r = ctx;
	struct pev_selfmon *s;

	r[0] = pev_selfmon_open("task-clock,page-faults", &s, NULL);
	if (r[0] == 0) {
		struct pev_count c[2];
		r[1] = pev_selfmon_start(s);
		touch_pages(4);
		r[2] = pev_selfmon_stop(s);
		r[3] = pev_selfmon_read(s, c, 2);
		r[4] = (int)c[1].value;
		pev_selfmon_close(s);
	}
	/* Naming the kernel asks for what an unprivileged user may not have. */
	r[5] = pev_selfmon_open("task-clock:k", &s, NULL);
	if (r[5] == 0)
		pev_selfmon_close(s);
}

Test(selfmon, falls_back_to_user_space_so_it_opens_unprivileged, .init = th_leak_init,
     .fini = th_leak_fini)
{
	int r[6] = {1, 1, 1, 1, 1, 1};

	if (th_sysctl("perf_event_paranoid") < 2)
		th_skip("perf_event_paranoid < 2: the unprivileged limit is not in force");
	cr_assert(th_as_nobody(open_as_nobody, r, sizeof(r)));
	cr_expect_eq(r[0], 0, "open as nobody: %s", pev_error_name(r[0]));
	cr_expect_eq(r[1], 0);
	cr_expect_eq(r[2], 0);
	cr_expect_eq(r[3], 2);
	cr_expect_geq(r[4], 4);
	cr_expect_lt(r[5], 0, "':k' must keep the kernel counted, and be refused");
}

Test(selfmon, bad_arguments, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_selfmon *s = (struct pev_selfmon *)1;
	struct pev_count c[2];
	struct pev_error err;

	cr_expect_eq(pev_selfmon_open(NULL, &s, &err), PEV_EBADARG);
	cr_expect_null(s, "*out is cleared");
	expect_has(err.message, "events");
	cr_expect_eq(pev_selfmon_open("task-clock", NULL, &err), PEV_EBADARG);
	expect_has(err.message, "out");
	cr_expect_eq(pev_selfmon_start(NULL), PEV_EBADARG);
	cr_expect_eq(pev_selfmon_stop(NULL), PEV_EBADARG);
	cr_expect_eq(pev_selfmon_read(NULL, c, 2), PEV_EBADARG);
	cr_expect_eq(pev_selfmon_count(NULL), PEV_EBADARG);
	cr_expect_null(pev_selfmon_name(NULL, 0));
	cr_expect_not(pev_selfmon_uses_rdpmc(NULL, 0));
	pev_selfmon_close(NULL);

	cr_assert_eq(pev_selfmon_open("task-clock", &s, NULL), 0);
	cr_expect_eq(pev_selfmon_stop(s), PEV_EBADARG, "stop before any start");
	cr_expect_eq(pev_selfmon_read(s, c, 2), PEV_EBADARG, "read before any stop");
	cr_assert_eq(pev_selfmon_start(s), 0);
	cr_assert_eq(pev_selfmon_stop(s), 0);
	cr_expect_eq(pev_selfmon_read(s, NULL, 2), PEV_EBADARG);
	cr_expect_eq(pev_selfmon_read(s, c, 0), PEV_EBADARG);
	cr_expect_eq(pev_selfmon_read(s, c, 2), 1, "room for 2, one event");
	cr_expect_null(pev_selfmon_name(s, 1));
	cr_expect_null(pev_selfmon_name(s, -1));
	cr_expect_not(pev_selfmon_uses_rdpmc(s, 1));
	cr_expect_not(pev_selfmon_uses_rdpmc(s, -1));
	pev_selfmon_close(s);
}

Test(selfmon, unknown_event_is_explained, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_selfmon *s = (struct pev_selfmon *)1;
	struct pev_error err;

	cr_expect_lt(pev_selfmon_open("task-clock,no-such-event-here", &s, &err), 0);
	cr_expect_null(s);
	cr_expect_lt(err.code, 0);
	expect_has(err.message, "no-such-event-here");
}

Test(selfmon, hardware_event_without_a_pmu_fails_cleanly, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_selfmon *s;
	struct pev_error err;
	int r = pev_selfmon_open("task-clock,instructions", &s, &err);

	if (r == 0) {
		/* A machine with a PMU: the hardware event may be read with rdpmc. */
		cr_expect_not(pev_selfmon_uses_rdpmc(s, 0));
		cr_assert_eq(pev_selfmon_start(s), 0);
		cr_assert_eq(pev_selfmon_stop(s), 0);
		pev_selfmon_close(s);
		return;
	}
	cr_expect_eq(err.code, r);
	cr_expect_neq(err.message[0], '\0', "the failure is explained");
}

Test(selfmon, failed_open_of_a_later_event_closes_the_first, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_selfmon *s = (struct pev_selfmon *)1;

	th_inject_open_errno(EMFILE, 1, 1);
	cr_expect_eq(pev_selfmon_open("task-clock,page-faults", &s, NULL), PEV_EMFILE);
	cr_expect_null(s);
	th_inject_reset();
}

Test(selfmon, refused_mapping_falls_back_to_read, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_selfmon *s;
	struct pev_count c[2];

	th_inject_call_errno("mmap", EPERM);
	cr_assert_eq(pev_selfmon_open("task-clock,page-faults", &s, NULL), 0);
	th_inject_reset();
	cr_expect_not(pev_selfmon_uses_rdpmc(s, 0));
	cr_assert_eq(pev_selfmon_start(s), 0);
	cr_assert_eq(touch_pages(3), 0);
	cr_assert_eq(pev_selfmon_stop(s), 0);
	cr_assert_eq(pev_selfmon_read(s, c, 2), 2);
	cr_expect_geq(c[1].value, 3);
	pev_selfmon_close(s);
}

Test(selfmon, read_error_is_returned, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_selfmon *s;
	struct pev_count c[1];

	cr_assert_eq(pev_selfmon_open("task-clock", &s, NULL), 0);
	th_inject_call_errno("read", EIO);
	cr_expect_eq(pev_selfmon_start(s), PEV_EIO);
	th_inject_reset();
	cr_expect_eq(pev_selfmon_stop(s), PEV_EBADARG, "the start failed");
	cr_assert_eq(pev_selfmon_start(s), 0);
	th_inject_call_errno("read", EIO);
	cr_expect_eq(pev_selfmon_stop(s), PEV_EIO);
	th_inject_reset();
	cr_expect_eq(pev_selfmon_read(s, c, 1), PEV_EBADARG, "no stop succeeded");
	pev_selfmon_close(s);
}

/* ---- pev_selfmon on its rdpmc path: fake pages behind the syscall seam -- */

static struct pev_mmap_page fake_pages[4] __attribute__((aligned(4096)));
static int fake_maps, fake_unmaps;
static struct pev_sys fake_sys;

static void *fake_mmap(size_t length, int prot, int flags, int fd, off_t offset, int *err)
{
	(void)length, (void)prot, (void)flags, (void)fd, (void)offset;
	if (fake_maps >= 4) {
		*err = ENOMEM;
		return NULL;
	}
	struct pev_mmap_page *p = &fake_pages[fake_maps];
	*p = readable_page((uint32_t)fake_maps + 1, 1000 * (fake_maps + 1), 48);
	p->capabilities |= PEV_CAP_USER_TIME;
	p->time_shift = 0;
	p->time_mult = 1; /* 1 ns per cycle */
	p->time_offset = 0;
	p->time_enabled = p->time_running = 500;
	fake_maps++;
	return p;
}

static int fake_munmap(void *addr, size_t length)
{
	(void)length;
	if ((char *)addr >= (char *)fake_pages && (char *)addr < (char *)(fake_pages + 4)) {
		fake_unmaps++;
		return 0;
	}
	return pev__sys_real.munmap(addr, length);
}

static void fake_sys_init(void)
{
	fake_init();
	fake_maps = fake_unmaps = 0;
	read_calls = 0;
	fake_sys = pev__sys_real;
	fake_sys.mmap = fake_mmap;
	fake_sys.munmap = fake_munmap;
	fake_sys.read = counting_read;
	pev__sys_set(&fake_sys);
}

Test(selfmon_rdpmc, start_and_stop_make_no_system_call, .init = fake_sys_init,
     .fini = fake_fini)
{
	struct pev_selfmon *s;
	struct pev_count c[2];

	cr_assert_eq(pev_selfmon_open("task-clock,page-faults", &s, NULL), 0);
	cr_expect_eq(fake_maps, 2);
	cr_expect(pev_selfmon_uses_rdpmc(s, 0));
	cr_expect(pev_selfmon_uses_rdpmc(s, 1));

	fake_pmc[0] = 100;
	fake_pmc[1] = UINT64_C(0xfffffffffff0); /* -16 in 48 bits */
	fake_tsc = 10;
	read_calls = 0;
	cr_assert_eq(pev_selfmon_start(s), 0);
	fake_pmc[0] = 350;
	fake_pmc[1] = 4; /* the counter wrapped through 0: +20 */
	fake_tsc = 2010;
	cr_assert_eq(pev_selfmon_stop(s), 0);
	cr_expect_eq(read_calls, 0, "rdpmc only");
	cr_assert_eq(pev_selfmon_read(s, c, 2), 2);
	cr_expect_eq(c[0].value, 250);
	cr_expect_eq(c[1].value, 20);
	cr_expect_eq(c[0].time_enabled, 2000);
	cr_expect_eq(c[0].time_running, 2000);
	cr_expect_eq(c[1].scaled, 20);
	cr_expect(c[1].counted);
	pev_selfmon_close(s);
	cr_expect_eq(fake_unmaps, 2);
}

Test(selfmon_rdpmc, one_event_off_the_pmu_means_one_group_read, .init = fake_sys_init,
     .fini = fake_fini)
{
	struct pev_selfmon *s;
	struct pev_count c[2];

	cr_assert_eq(pev_selfmon_open("task-clock,page-faults", &s, NULL), 0);
	fake_pages[1].index = 0; /* the second event left the PMU (multiplexed out) */
	cr_expect(pev_selfmon_uses_rdpmc(s, 0));
	cr_expect_not(pev_selfmon_uses_rdpmc(s, 1));
	read_calls = 0;
	cr_assert_eq(pev_selfmon_start(s), 0);
	cr_expect_eq(read_calls, 1);
	cr_assert_eq(touch_pages(5), 0);
	cr_assert_eq(pev_selfmon_stop(s), 0);
	cr_expect_eq(read_calls, 2);
	/* Both snapshots came from the kernel's group read: real counts. */
	cr_assert_eq(pev_selfmon_read(s, c, 2), 2);
	cr_expect_geq(c[1].value, 5);
	pev_selfmon_close(s);
}

Test(selfmon_rdpmc, pages_without_user_time_are_read_with_read, .init = fake_sys_init,
     .fini = fake_fini)
{
	struct pev_selfmon *s;
	struct pev_count c;

	cr_assert_eq(pev_selfmon_open("task-clock", &s, NULL), 0);
	fake_pages[0].capabilities &= ~PEV_CAP_USER_TIME;
	cr_expect_eq(pev_mmap_read(&fake_pages[0], &c), 0, "the counter itself is readable");
	cr_expect_not(pev_selfmon_uses_rdpmc(s, 0),
		      "but its times would lag read(2)'s: selfmon does not mix them");
	read_calls = 0;
	cr_assert_eq(pev_selfmon_start(s), 0);
	cr_expect_eq(read_calls, 1);
	pev_selfmon_close(s);
}

Test(selfmon, ioctl_failure_leaves_nothing_open, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_selfmon *s = (struct pev_selfmon *)1;
	struct pev_error err;

	th_inject_call_errno("ioctl", EIO);
	cr_expect_eq(pev_selfmon_open("task-clock,page-faults", &s, &err), PEV_EIO);
	cr_expect_null(s);
	cr_expect_eq(err.code, PEV_EIO);
	expect_has(err.message, "task-clock");
	th_inject_reset();
}

/* ---- why an event is read with read(2) ---------------------------------- */

Test(selfmon, rdpmc_error_says_why, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_selfmon *s;
	struct pev_error err;

	cr_assert_eq(pev_selfmon_open("task-clock", &s, NULL), 0);
	cr_expect_eq(pev_selfmon_rdpmc_error(s, 0, &err), PEV_EUNSUPPORTED);
	cr_expect_eq(err.code, PEV_EUNSUPPORTED);
	cr_expect(strstr(err.message, "not by a hardware counter") ||
		      strstr(err.message, "x86-64 and arm64 only"),
		  "%s", err.message);
	cr_expect_eq(pev_selfmon_rdpmc_error(s, 1, &err), PEV_EBADARG);
	cr_expect_eq(pev_selfmon_rdpmc_error(s, -1, NULL), PEV_EBADARG);
	cr_expect_eq(pev_selfmon_rdpmc_error(NULL, 0, &err), PEV_EBADARG);
	pev_selfmon_close(s);
}

Test(selfmon_rdpmc, rdpmc_error_is_0_for_a_readable_page, .init = fake_sys_init,
     .fini = fake_fini)
{
	struct pev_selfmon *s;
	struct pev_error err;

	cr_assert_eq(pev_selfmon_open("task-clock", &s, NULL), 0);
	cr_expect_eq(pev_selfmon_rdpmc_error(s, 0, &err), 0, "%s", err.message);
	pev_selfmon_close(s);
}

#if defined(__aarch64__)
/* Writes v to /proc/sys/kernel/perf_user_access; returns false when it cannot. */
static bool set_user_access(long v)
{
	FILE *f = fopen("/proc/sys/kernel/perf_user_access", "we");

	if (!f)
		return false;
	bool ok = fprintf(f, "%ld\n", v) > 0;
	return fclose(f) == 0 && ok;
}
#endif

/*
 * arm64: a cycles counter is read with mrs through its page when the sysctl
 * kernel.perf_user_access is 1, agreeing with read(2); at 0 the reason names
 * the sysctl.
 */
Test(selfmon, arm64_user_access_follows_the_sysctl, .init = th_leak_init, .fini = th_leak_fini)
{
#if !defined(__aarch64__)
	th_skip("user-space reads through kernel.perf_user_access are arm64's");
#else
	struct pev_selfmon *s;
	struct pev_error err;
	struct pev_count c;
	volatile uint64_t sink = 0;

	if (!th_have_core_pmu())
		th_skip("no core PMU: cycles cannot be opened");
	th_require_root();
	long before = th_sysctl("perf_user_access");
	cr_assert(set_user_access(0));
	int r = pev_selfmon_open("cycles", &s, &err);
	cr_assert_eq(r, 0, "%s", err.message);
	cr_expect_not(pev_selfmon_uses_rdpmc(s, 0));
	cr_expect_eq(pev_selfmon_rdpmc_error(s, 0, &err), PEV_EACCES, "%s", err.message);
	cr_expect(strstr(err.message, "kernel.perf_user_access is 0"), "%s", err.message);
	cr_expect(strstr(err.hint, "sysctl -w kernel.perf_user_access=1"), "%s", err.hint);
	pev_selfmon_close(s);

	cr_assert(set_user_access(1));
	cr_assert_eq(pev_selfmon_open("cycles", &s, &err), 0, "%s", err.message);
	r = pev_selfmon_rdpmc_error(s, 0, &err);
	cr_expect_eq(r, 0, "%s", err.message);
	cr_expect(pev_selfmon_uses_rdpmc(s, 0));
	cr_assert_eq(pev_selfmon_start(s), 0);
	for (int i = 0; i < 100000; i++)
		sink += (uint64_t)i;
	cr_assert_eq(pev_selfmon_stop(s), 0);
	cr_assert_eq(pev_selfmon_read(s, &c, 1), 1);
	cr_expect_gt(c.value, 0, "cycles of a loop of 100,000 additions");
	set_user_access(before);
	pev_selfmon_close(s);
#endif
}

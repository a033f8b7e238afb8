/* SPDX-License-Identifier: MIT */
/*
 * test_capability.c - the probes of perfev/capability.h.
 *
 * Live: every probe runs here and fills a coherent result; the breakpoint
 * verdict agrees with a watchpoint opened without perfev. Through the
 * syscall seam, on every host: a watchpoint or uprobe that opens but never
 * counts is "opens, never fires", one that counts what was caused works,
 * one that miscounts is partial, one the kernel refuses is unavailable.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "core/sys.h"
#include "helpers.h"

Test(capability, names_are_stable_and_unique)
{
	static const char *const expected[PEV_CAP_COUNT] = {
		"software",   "hardware", "cache",      "tracepoint", "breakpoint",      "uprobe",
		"kprobe",     "cpu_wide", "sampling",   "callchains", "kernel_sampling", "ring_buffer",
		"off_cpu",
	};

	for (int i = 0; i < PEV_CAP_COUNT; i++)
		cr_expect_str_eq(pev_capability_name((enum pev_cap)i), expected[i]);
	cr_expect_null(pev_capability_name(PEV_CAP_COUNT));
	cr_expect_str_eq(pev_capability_verdict_name(PEV_CAP_WORKS), "works");
	cr_expect_str_eq(pev_capability_verdict_name(PEV_CAP_PARTIAL), "partial");
	cr_expect_str_eq(pev_capability_verdict_name(PEV_CAP_SILENT), "opens_never_fires");
	cr_expect_str_eq(pev_capability_verdict_name(PEV_CAP_UNAVAILABLE), "unavailable");
	cr_expect_null(pev_capability_verdict_name((enum pev_cap_verdict)9));
}

Test(capability, bad_arguments)
{
	struct pev_capability c = PEV_CAPABILITY_INIT;

	cr_expect_eq(pev_capability_probe(PEV_CAP_SOFTWARE, NULL, NULL), PEV_EBADARG);
	cr_expect_eq(pev_capability_probe(PEV_CAP_COUNT, NULL, &c), PEV_EBADARG);
	cr_expect_eq(pev_capability_probe((enum pev_cap)-1, NULL, &c), PEV_EBADARG);
	c.sz = sizeof(c) - 1;
	cr_expect_eq(pev_capability_probe(PEV_CAP_SOFTWARE, NULL, &c), PEV_EBADARG);
}

/* Every probe, run for real: a result that holds together, nothing left open. */
Test(capability, every_probe_fills_a_coherent_result, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_machine *m = calloc(1, sizeof(*m));
	uint64_t total_ns = 0;

	cr_assert_not_null(m);
	pev_machine_read(m, NULL);
	for (int i = 0; i < PEV_CAP_COUNT; i++) {
		struct pev_capability c = PEV_CAPABILITY_INIT;
		const char *name = pev_capability_name((enum pev_cap)i);

		cr_assert_eq(pev_capability_probe((enum pev_cap)i, m, &c), 0, "%s", name);
		cr_expect_eq(c.sz, sizeof(c));
		cr_expect_eq((int)c.cap, i);
		cr_expect_not_null(pev_capability_verdict_name(c.verdict), "%s", name);
		cr_expect_neq(c.detail[0], '\0', "%s says what it found", name);
		cr_expect_gt(c.elapsed_ns, 0, "%s", name);
		switch (c.verdict) {
		case PEV_CAP_WORKS:
			cr_expect_gt(c.measured, 0, "%s works but measured nothing: %s", name,
				     c.detail);
			cr_expect_eq(c.code, 0, "%s", name);
			break;
		case PEV_CAP_SILENT:
			cr_expect_eq(c.measured, 0, "%s: %s", name, c.detail);
			cr_expect_gt(c.expected, 0, "%s: silent for what?", name);
			cr_expect_neq(c.fix[0], '\0', "%s: a silent class comes with a cause", name);
			break;
		case PEV_CAP_UNAVAILABLE:
			cr_expect_lt(c.code, 0, "%s: unavailable with a code", name);
			break;
		case PEV_CAP_PARTIAL:
			cr_expect_neq(c.fix[0], '\0', "%s: partial comes with a fix", name);
			break;
		}
		cr_log_info("%-16s %-18s %6.2f ms  %s", name, pev_capability_verdict_name(c.verdict),
			    (double)c.elapsed_ns / 1e6, c.detail);
		total_ns += c.elapsed_ns;
	}
	cr_log_info("all probes: %.1f ms", (double)total_ns / 1e6);
	free(m);
}

/* As root on any Linux with perf events, software events count. */
Test(capability, software_events_work)
{
	struct pev_capability c = PEV_CAPABILITY_INIT;

	th_require_root();
	cr_assert_eq(pev_capability_probe(PEV_CAP_SOFTWARE, NULL, &c), 0);
	cr_expect_eq(c.verdict, PEV_CAP_WORKS, "%s", c.detail);
	cr_expect_gt(c.expected, 0);
}

/* The breakpoint verdict is this host's truth, as a raw watchpoint sees it. */
Test(capability, breakpoint_verdict_agrees_with_a_raw_watchpoint)
{
	const struct pev_capability *c = th_capability(PEV_CAP_BREAKPOINT);

	th_require_root();
	cr_assert_eq(c->expected, PEV_CAP_REPEAT);
	if (th_breakpoints_fire()) {
		cr_expect_eq(c->verdict, PEV_CAP_WORKS, "%s", c->detail);
		cr_expect_eq(c->measured, PEV_CAP_REPEAT);
	} else {
		cr_expect_eq(c->verdict, PEV_CAP_SILENT, "%s", c->detail);
		cr_expect_eq(c->measured, 0);
		cr_expect(strstr(c->detail, "opens, never fires"), "%s", c->detail);
	}
}

/* ---- the seam: events that open and then count what the test says ------- */

/*
 * The event type whose reads are faked, the count they return, and its fds;
 * a sampling period put in place of the one asked for (0: none).
 */
static struct {
	uint32_t type;
	uint64_t count;
	int refuse_errno;
	uint64_t period;
	bool fds[1024];
} fake;

static int fake_open(struct pev_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	int fd;

	if (attr->type == fake.type && fake.refuse_errno)
		return -fake.refuse_errno;
	if (attr->type == fake.type && fake.period && !(attr->flags & PEV_ATTR_FREQ) &&
	    attr->sample_period)
		attr->sample_period = fake.period;
	fd = pev__sys_real.perf_event_open(attr, pid, cpu, group_fd, flags);
	if (fd >= 0 && fd < 1024)
		fake.fds[fd] = attr->type == fake.type;
	return fd;
}

static ssize_t fake_read(int fd, void *buf, size_t count)
{
	ssize_t n = pev__sys_real.read(fd, buf, count);

	/* The first word is the count, whatever the read format adds after it. */
	if (n >= 8 && fd >= 0 && fd < 1024 && fake.fds[fd])
		memcpy(buf, &fake.count, sizeof(fake.count));
	return n;
}

static int fake_close(int fd)
{
	if (fd >= 0 && fd < 1024)
		fake.fds[fd] = false;
	return pev__sys_real.close(fd);
}

/* Probes cap with reads of events of `type` faked to `count` (or their opens refused). */
static struct pev_capability probe_faked(enum pev_cap cap, uint32_t type, uint64_t count,
					 int refuse_errno)
{
	static struct pev_sys sys;
	struct pev_capability c = PEV_CAPABILITY_INIT;

	if (!fake.period)
		memset(&fake, 0, sizeof(fake));
	fake.type = type;
	fake.count = count;
	fake.refuse_errno = refuse_errno;
	sys = pev__sys_real;
	sys.perf_event_open = fake_open;
	sys.read = fake_read;
	sys.close = fake_close;
	pev__sys_set(&sys);
	cr_assert_eq(pev_capability_probe(cap, NULL, &c), 0);
	pev__sys_set(NULL);
	return c;
}

/* Opens as the real kernel does, then reads 0: this host made to look like an AMD EPYC VM. */
Test(capability, a_watchpoint_that_never_fires_is_silent, .init = th_leak_init,
     .fini = th_leak_fini)
{
	th_require_root();
	struct pev_capability c = probe_faked(PEV_CAP_BREAKPOINT, PEV_TYPE_BREAKPOINT, 0, 0);

	cr_expect_eq(c.verdict, PEV_CAP_SILENT, "%s", c.detail);
	cr_expect_eq(c.expected, PEV_CAP_REPEAT);
	cr_expect_eq(c.measured, 0);
	cr_expect_str_eq(c.detail, "opens, never fires: a write watchpoint counted 0 of 100 writes");
	cr_expect(strstr(c.fix, "the hypervisor does not deliver debug exceptions"), "%s", c.fix);
	cr_expect(strstr(c.fix, "uprobes"), "the fix offers what works instead: %s", c.fix);
}

/* And the other way: a host whose watchpoints do not fire, made to look like one where they do. */
Test(capability, a_watchpoint_that_counts_every_write_works, .init = th_leak_init,
     .fini = th_leak_fini)
{
	th_require_root();
	struct pev_capability c =
		probe_faked(PEV_CAP_BREAKPOINT, PEV_TYPE_BREAKPOINT, PEV_CAP_REPEAT, 0);

	cr_expect_eq(c.verdict, PEV_CAP_WORKS, "%s", c.detail);
	cr_expect_eq(c.measured, PEV_CAP_REPEAT);
	cr_expect(strstr(c.detail, "a write watchpoint counted 100 of 100 writes"), "%s", c.detail);
	cr_expect_str_eq(c.fix, "");
}

Test(capability, a_watchpoint_that_miscounts_is_partial, .init = th_leak_init,
     .fini = th_leak_fini)
{
	th_require_root();
	struct pev_capability c = probe_faked(PEV_CAP_BREAKPOINT, PEV_TYPE_BREAKPOINT, 37, 0);

	cr_expect_eq(c.verdict, PEV_CAP_PARTIAL, "%s", c.detail);
	cr_expect_eq(c.measured, 37);
	cr_expect(strstr(c.detail, "counted 37 for 100 writes"), "%s", c.detail);
	cr_expect(strstr(c.fix, "not to be trusted"), "%s", c.fix);
}

Test(capability, a_refused_watchpoint_is_unavailable_with_the_diagnosis, .init = th_leak_init,
     .fini = th_leak_fini)
{
	th_require_root();
	struct pev_capability c = probe_faked(PEV_CAP_BREAKPOINT, PEV_TYPE_BREAKPOINT, 0, ENOSPC);

	cr_expect_eq(c.verdict, PEV_CAP_UNAVAILABLE, "%s", c.detail);
	cr_expect_eq(c.code, PEV_ENOSPC, "%s", pev_error_name(c.code));
	cr_expect_neq(c.detail[0], '\0');
}

/*
 * A core PMU without an instructions event (QEMU's arm64 PMU without
 * -icount): the seam refuses instructions with ENOENT and counts cycles
 * (a software dummy underneath) as `fake.count`.
 */
static int no_instructions_open(struct pev_attr *attr, pid_t pid, int cpu, int group_fd,
				unsigned long flags)
{
	struct pev_attr a = *attr;
	int fd;

	if (attr->type != PEV_TYPE_HARDWARE)
		return pev__sys_real.perf_event_open(attr, pid, cpu, group_fd, flags);
	if (attr->config == PEV_HW_INSTRUCTIONS)
		return -ENOENT;
	a.type = PEV_TYPE_SOFTWARE;
	a.config = PEV_SW_DUMMY;
	fd = pev__sys_real.perf_event_open(&a, pid, cpu, group_fd, flags);
	if (fd >= 0 && fd < 1024)
		fake.fds[fd] = true;
	return fd;
}

Test(capability, hardware_without_instructions_is_proved_by_cycles, .init = th_leak_init,
     .fini = th_leak_fini)
{
	static struct pev_sys sys;
	struct pev_capability c = PEV_CAPABILITY_INIT;
	struct pev_machine m;
	char root[512];

	snprintf(root, sizeof(root), "%s/machines/arm64-qemu", th_fixtures());
	cr_assert_eq(pev_machine_read(&m, root), 0);
	memset(&fake, 0, sizeof(fake));
	fake.count = 500000; /* cycles of the probe's loop: more than its 100,000 iterations */
	sys = pev__sys_real;
	sys.perf_event_open = no_instructions_open;
	sys.read = fake_read;
	sys.close = fake_close;
	pev__sys_set(&sys);
	cr_assert_eq(pev_capability_probe(PEV_CAP_HARDWARE, &m, &c), 0);
	pev__sys_set(NULL);
	cr_expect_eq(c.verdict, PEV_CAP_WORKS, "%s", c.detail);
	cr_expect(strstr(c.detail, "cycles:u counted"), "%s", c.detail);
	cr_expect(strstr(c.detail, "no instructions event"), "%s", c.detail);
}

/* Uprobes too: registered, hit, never counted. */
Test(capability, a_uprobe_that_never_fires_is_silent, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_machine *m = calloc(1, sizeof(*m));

	th_require_root();
	cr_assert_not_null(m);
	pev_machine_read(m, NULL);
	int type = pev_pmu_type("uprobe", NULL);
	free(m);
	if (type < 0)
		th_skip("no uprobe PMU: nothing to open");
	struct pev_capability c = probe_faked(PEV_CAP_UPROBE, (uint32_t)type, 0, 0);

	cr_expect_eq(c.verdict, PEV_CAP_SILENT, "%s", c.detail);
	cr_expect(strstr(c.detail, "opens but counted 0 of 100 calls"), "%s", c.detail);
	cr_expect_neq(c.fix[0], '\0');
}

/* A count off by one is not a working probe: an exact class must count exactly. */
Test(capability, a_uprobe_that_counts_one_too_many_is_partial, .init = th_leak_init,
     .fini = th_leak_fini)
{
	th_require_root();
	int type = pev_pmu_type("uprobe", NULL);
	if (type < 0)
		th_skip("no uprobe PMU: nothing to open");
	struct pev_capability c =
		probe_faked(PEV_CAP_UPROBE, (uint32_t)type, PEV_CAP_REPEAT + 1, 0);

	cr_expect_eq(c.verdict, PEV_CAP_PARTIAL, "%s", c.detail);
	cr_expect(strstr(c.detail, "counted 101 for 100 calls"), "%s", c.detail);
}

/*
 * Probes sampling with task-clock overflowing every period ns instead of the
 * probe's 100 us: the timer of a loaded or emulated machine held back.
 */
static struct pev_capability probe_sampling_every(uint64_t period)
{
	memset(&fake, 0, sizeof(fake));
	fake.period = period;
	struct pev_capability c = probe_faked(PEV_CAP_SAMPLING, PEV_TYPE_SOFTWARE, 0, 0);
	fake.period = 0;
	return c;
}

/* No sample in the first 5 ms is not yet silence: the probe goes on until one comes. */
Test(capability, sampling_whose_first_sample_comes_late_is_not_silent, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_capability c = probe_sampling_every(30000000);

	cr_expect_neq(c.verdict, PEV_CAP_SILENT, "%s", c.detail);
	cr_expect_geq(c.measured, 1, "%s", c.detail);
	cr_expect_geq(c.expected, 300, "30 ms of spinning at least: %s", c.detail);
}

/*
 * A timer that never fires is silence after 200 ms of spinning, not sooner,
 * and not without end. The last 5 ms round may end late: a thread's CPU
 * clock in an emulated machine also runs while the host holds its vCPU
 * back (224.5 ms in the arm64 guest's README run), so the bound is 300 ms.
 */
Test(capability, sampling_that_never_fires_is_silent_after_200_ms, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_capability c = probe_sampling_every(60000000000ULL);

	cr_expect_eq(c.verdict, PEV_CAP_SILENT, "%s", c.detail);
	cr_expect(strstr(c.detail, "task-clock:u every 100 us opens but delivered no sample"), "%s",
	          c.detail);
	cr_expect(c.expected >= 2000 && c.expected < 3000, "200 to 300 ms of spinning: %s",
	          c.detail);
}

/* Software counting that reads 0 ns for 2 ms of work. */
Test(capability, a_clock_that_never_counts_is_silent, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_capability c = probe_faked(PEV_CAP_SOFTWARE, PEV_TYPE_SOFTWARE, 0, 0);

	cr_expect_eq(c.verdict, PEV_CAP_SILENT, "%s", c.detail);
	cr_expect(strstr(c.detail, "task-clock opens but counted 0 ns"), "%s", c.detail);
}

/* The skip path of the suite: a class that does not work skips with the verdict as reason. */
Test(capability, a_test_needing_a_silent_class_skips_with_the_reason)
{
	th_require_root();
	struct pev_capability silent = probe_faked(PEV_CAP_BREAKPOINT, PEV_TYPE_BREAKPOINT, 0, 0);
	struct pev_capability works =
		probe_faked(PEV_CAP_BREAKPOINT, PEV_TYPE_BREAKPOINT, PEV_CAP_REPEAT, 0);
	char reason[2048] = "";

	cr_expect(th_cap_reason(&works, reason, sizeof(reason)), "works: no skip");
	cr_expect_str_eq(reason, "");
	cr_expect_not(th_cap_reason(&silent, reason, sizeof(reason)), "silent: a skip");
	cr_expect_str_eq(reason, "breakpoint opens_never_fires here: opens, never fires: a write "
				 "watchpoint counted 0 of 100 writes");
}

/* Skips are logged for the run's summary, one line each. */
Test(capability, skips_are_logged_for_the_summary)
{
	const char *dir = th_temp_dir("skiplog");
	char path[4096], line[512] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/skips.log", dir);
	setenv("PERFEV_SKIP_LOG", path, 1);
	th_skip_log("breakpoint %s here", "opens_never_fires");
	th_skip_log("second");
	cr_assert_not_null(f = fopen(path, "r"));
	cr_expect_not_null(fgets(line, sizeof(line), f));
	cr_expect_str_eq(line, "capability::skips_are_logged_for_the_summary: breakpoint "
			       "opens_never_fires here\n");
	cr_expect_not_null(fgets(line, sizeof(line), f));
	cr_expect_str_eq(line, "capability::skips_are_logged_for_the_summary: second\n");
	fclose(f);
}

/* SPDX-License-Identifier: MIT */
/*
 * test_errno_live.c - every errno of perf_event_open provoked for real on
 * this machine (no PMU, paranoid 2, root), through pev_counter_open and
 * pev_counter_open_attr, with the diagnosis checked: the code, the errno,
 * whether perfev caught it before the syscall, and the facts the message
 * and the hint must name.
 *
 * ENODEV, EBUSY, EINTR, ENFILE and ENOMEM cannot be provoked here; they are
 * injected at the syscall seam in test_errno_injected.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "helpers.h"


/* Expects a diagnosis of what the kernel said (not caught before). */
static void expect_kernel_said(const struct pev_error *err, int errnum)
{
	cr_expect_eq(err->sys_errno, errnum, "sys_errno %d, expected %d", err->sys_errno, errnum);
	cr_expect_not(err->before_syscall, "the kernel said it, not the validation");
}

/* Expects a diagnosis made before the syscall, of what the kernel would say. */
static void expect_caught_before(const struct pev_error *err, int errnum, const char *field)
{
	cr_expect_eq(err->sys_errno, errnum, "sys_errno %d, expected %d", err->sys_errno, errnum);
	cr_expect(err->before_syscall, "caught before the syscall");
	cr_expect_str_eq(err->field, field);
}

static bool cpu_has_flag(const char *flag)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096];
	bool found = false;
	size_t n = strlen(flag);

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		for (char *p = strstr(line, flag); p && !found; p = strstr(p + 1, flag))
			found = (p[-1] == ' ' || p[-1] == '\t') && (p[n] == ' ' || p[n] == '\n');
	}
	fclose(f);
	return found;
}

/* ---- ESRCH ------------------------------------------------------------- */

Test(errno_live, esrch_reaped_pid, .init = th_leak_init, .fini = th_leak_fini)
{
	pid_t pid = th_reaped_pid();
	struct pev_target t = pev_target_thread(pid);
	struct pev_error err;
	char text[64];

	th_open_fails(pev_event_software(PEV_SW_TASK_CLOCK), NULL, &t, NULL, PEV_ESRCH, &err);
	expect_kernel_said(&err, ESRCH);
	cr_expect_str_eq(pev_error_name(err.code), "ProcessNotFound");
	snprintf(text, sizeof(text), "thread %d does not exist", (int)pid);
	expect_has(err.message, text);
	expect_has(err.message, "task-clock");
	expect_has(err.hint, "ps");
}

/* ---- EBADF ------------------------------------------------------------- */

Test(errno_live, ebadf_group_leader_fd_closed_behind_the_library, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_target self = pev_target_self();
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_counter *leader = NULL;
	struct pev_error err;
	char text[64];

	cr_assert_eq(pev_counter_open(&ev, NULL, &self, NULL, &leader, &err), 0, "%s", err.message);
	int fd = pev_counter_fd(leader, 0);
	close(fd);

	th_open_fails(pev_event_software(PEV_SW_PAGE_FAULTS), NULL, &self, leader, PEV_EBADF, &err);
	expect_kernel_said(&err, EBADF);
	snprintf(text, sizeof(text), "group fd %d is not an open descriptor", fd);
	expect_has(err.message, text);
	expect_has(err.hint, "group leader");

	/* The leader's fd number must still be free, so closing the leader closes nothing else. */
	cr_assert_lt(fcntl(fd, F_GETFD), 0, "fd %d was reused during the test", fd);
	pev_counter_close(leader);
}

Test(errno_live, ebadf_group_fd_is_not_a_perf_event, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_target self = pev_target_self();
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_counter *leader = NULL;
	struct pev_error err;
	char text[96];

	cr_assert_eq(pev_counter_open(&ev, NULL, &self, NULL, &leader, &err), 0, "%s", err.message);
	/* Put /dev/null where the leader's descriptor was; closing the leader closes it. */
	int fd = pev_counter_fd(leader, 0);
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(null, 0);
	cr_assert_eq(dup3(null, fd, O_CLOEXEC), fd);
	close(null);

	th_open_fails(pev_event_software(PEV_SW_PAGE_FAULTS), NULL, &self, leader, PEV_EBADF, &err);
	expect_kernel_said(&err, EBADF);
	snprintf(text, sizeof(text), "group fd %d is '/dev/null', not a perf event", fd);
	expect_has(err.message, text);
	pev_counter_close(leader);
}

Test(errno_live, ebadf_diagnosis_of_group_fd_0, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_machine m;
	struct pev_attr attr;
	struct pev_error err;
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);

	cr_assert_eq(pev_attr_encode(&attr, &ev, NULL, NULL), 0);
	cr_assert_eq(pev_machine_read(&m, NULL), 0);
	int saved = dup(0);
	int null = open("/dev/null", O_RDONLY);
	cr_assert(saved >= 0 && null >= 0);
	cr_assert_eq(dup2(null, 0), 0);
	close(null);

	struct pev_open_request req = {
		.attr = &attr, .pid = 0, .cpu = -1, .group_fd = 0, .event = "task-clock",
		.fds_needed = 1,
	};
	int r = pev_diagnose_open(&m, &req, EBADF, 0, &err);

	dup2(saved, 0);
	close(saved);
	cr_expect_eq(r, PEV_EBADF);
	cr_expect_eq(err.code, PEV_EBADF);
	cr_expect_eq(err.sys_errno, EBADF);
	expect_has(err.message, "group fd 0 is '/dev/null', not a perf event");
}

Test(errno_live, ebadf_cgroup_path_is_not_a_cgroup, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_target t = pev_target_cgroup("/tmp");
	struct pev_error err;

	th_require_root();
	th_open_fails(pev_event_software(PEV_SW_TASK_CLOCK), NULL, &t, NULL, PEV_EBADF, &err);
	expect_kernel_said(&err, EBADF);
	expect_has(err.message, "'/tmp' is not usable as a cgroup");
	expect_has(err.message, "for cgroup /tmp");
	expect_has(err.hint, "cgroup v2");
}

/* ---- EINVAL: sample_freq ----------------------------------------------- */

Test(errno_live, einval_sample_freq_above_the_limit, .init = th_leak_init, .fini = th_leak_fini)
{
	long max = th_sysctl("perf_event_max_sample_rate");
	struct pev_opts o = th_opts();
	struct pev_error err;
	char limit[32];

	o.sample_freq = (uint64_t)max + 1;
	o.sample_type = PEV_SAMPLE_IP;
	snprintf(limit, sizeof(limit), "%ld", max);

	th_open_fails(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, NULL, PEV_EINVAL, &err);
	expect_caught_before(&err, EINVAL, "sample_freq");
	expect_has(err.message, limit);
	expect_has(err.message, "perf_event_max_sample_rate");
	expect_has(err.hint, limit);
	expect_has(err.hint, "sysctl kernel.perf_event_max_sample_rate");

	/* Without validation the kernel refuses it, and the retries name the field. */
	o.open_flags = PEV_OPEN_NO_VALIDATE;
	th_open_fails(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, NULL, PEV_EINVAL, &err);
	expect_kernel_said(&err, EINVAL);
	cr_expect_str_eq(err.field, "sample_freq");
	expect_has(err.message, limit);
	expect_has(err.hint, "sysctl kernel.perf_event_max_sample_rate");
}

/* ---- E2BIG ------------------------------------------------------------- */

union big_attr {
	struct pev_attr attr;
	unsigned char bytes[4104];
};

static void task_clock_attr(union big_attr *b)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);

	memset(b, 0, sizeof(*b));
	cr_assert_eq(pev_attr_encode(&b->attr, &ev, NULL, NULL), 0);
}

static void open_attr_fails(const void *attr, size_t len, const struct pev_target *t,
			    unsigned flags, int code, struct pev_error *err)
{
	struct pev_counter *c = (struct pev_counter *)1;

	memset(err, 0x5a, sizeof(*err));
	int r = pev_counter_open_attr(attr, len, t, NULL, flags, &c, err);
	if (r == 0)
		pev_counter_close(c);
	cr_assert_eq(r, code, "expected %s, got %s (%d): %s", pev_error_name(code),
		     pev_error_name(r), r, r ? err->message : "opened");
	cr_expect_null(c);
	cr_expect_eq(err->code, code);
}

/* The attr size this kernel expects (136 on Linux 6.18, 128 on 6.1). */
static int kernel_attr_size(void)
{
	struct pev_machine m;

	cr_assert_eq(pev_machine_read(&m, NULL), 0);
	cr_assert_gt(pev_machine_probe_attr_size(&m), 0);
	cr_assert_gt(m.attr_size, 0);
	return m.attr_size;
}

Test(errno_live, e2big_size_above_a_page, .init = th_leak_init, .fini = th_leak_fini)
{
	union big_attr b;
	struct pev_error err;
	char want[64];

	task_clock_attr(&b);
	b.attr.size = sizeof(b);
	open_attr_fails(&b, sizeof(b), NULL, PEV_OPEN_NO_VALIDATE, PEV_E2BIG, &err);
	expect_kernel_said(&err, E2BIG);
	cr_expect_str_eq(pev_error_name(err.code), "TooBig");
	expect_has(err.message, "attr.size is 4104");
	snprintf(want, sizeof(want), "expects %d", kernel_attr_size());
	expect_has(err.message, want);
	expect_has(err.message, "more than a page");
}

Test(errno_live, e2big_non_zero_tail_beyond_the_kernel, .init = th_leak_init,
     .fini = th_leak_fini)
{
	union big_attr b;
	struct pev_error err;
	int known = kernel_attr_size();
	char want[64];

	if (known > 140)
		th_skip("this kernel knows byte 140 of the attr (size %d)", known);
	task_clock_attr(&b);
	b.attr.size = 144;
	b.bytes[140] = 1;
	open_attr_fails(&b, sizeof(b), NULL, PEV_OPEN_NO_VALIDATE, PEV_E2BIG, &err);
	expect_kernel_said(&err, E2BIG);
	expect_has(err.message, "attr.size is 144");
	snprintf(want, sizeof(want), "Bytes %d..143", known);
	expect_has(err.message, want);
	expect_has(err.hint, "pev_attr_encode");

	/* The same size with a zero tail is accepted: the kernel only minds non-zero bytes. */
	struct pev_counter *c = NULL;
	b.bytes[140] = 0;
	cr_expect_eq(pev_counter_open_attr(&b, sizeof(b), NULL, NULL, PEV_OPEN_NO_VALIDATE, &c,
					   &err),
		     0, "%s", err.message);
	pev_counter_close(c);
}

Test(errno_live, e2big_caught_before_the_syscall, .init = th_leak_init, .fini = th_leak_fini)
{
	union big_attr b;
	struct pev_error err;

	task_clock_attr(&b);
	b.attr.size = sizeof(b);
	open_attr_fails(&b, sizeof(b), NULL, 0, PEV_E2BIG, &err);
	expect_caught_before(&err, E2BIG, "size");
	expect_has(err.message, "4104");
	expect_has(err.message, "4096");
}

/* ---- EOVERFLOW --------------------------------------------------------- */

Test(errno_live, eoverflow_callchain_deeper_than_max_stack, .init = th_leak_init,
     .fini = th_leak_fini)
{
	long max = th_sysctl("perf_event_max_stack");
	struct pev_opts o = th_opts();
	struct pev_error err;
	char limit[64], asked[32];

	o.sample_period = 100000;
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_CALLCHAIN;
	o.callchain_max_stack = (uint16_t)(max + 1);
	snprintf(limit, sizeof(limit), "limit of %ld", max);
	snprintf(asked, sizeof(asked), "%ld frames", max + 1);

	th_open_fails(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, NULL, PEV_EOVERFLOW, &err);
	expect_caught_before(&err, EOVERFLOW, "sample_max_stack");
	cr_expect_str_eq(pev_error_name(err.code), "SampleMaxStackOverflow");
	expect_has(err.message, limit);
	expect_has(err.message, asked);
	expect_has(err.message, "perf_event_max_stack");

	o.open_flags = PEV_OPEN_NO_VALIDATE;
	th_open_fails(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, NULL, PEV_EOVERFLOW, &err);
	expect_kernel_said(&err, EOVERFLOW);
	cr_expect_str_eq(err.field, "sample_max_stack");
	expect_has(err.message, limit);
	expect_has(err.hint, "sysctl kernel.perf_event_max_stack");
}

/* ---- ENOENT ------------------------------------------------------------ */

Test(errno_live, enoent_cycles_without_a_pmu, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_error err;

	if (th_have_core_pmu())
		th_skip("this machine has a hardware PMU, so cycles opens");
	th_open_fails(pev_event_hardware(PEV_HW_CPU_CYCLES), NULL, NULL, NULL, PEV_ENOENT, &err);
	expect_kernel_said(&err, ENOENT);
	expect_has(err.message, "cycles");
	expect_has(err.message, "no hardware PMU");
	if (cpu_has_flag("hypervisor"))
		expect_has(err.message, "virtual machine");
	expect_has(err.hint, "cpu-clock");
	expect_has(err.hint, "task-clock");
}

/* A uprobe on path (/nonexistent/perfev-probe-target, wherever it lies) fails, naming it. */
static void expect_missing_probe_file(const char *path)
{
	struct pev_event ev;
	struct pev_error err;

	if (pev_event_uprobe(&ev, path, 0, false, NULL, &err) < 0)
		th_skip("no uprobe PMU: %s", err.message);
	th_require_root();
	th_open_fails(ev, NULL, NULL, NULL, PEV_ENOENT, &err);
	expect_kernel_said(&err, ENOENT);
	expect_has(err.message, "'/nonexistent/perfev-probe-target' does not exist");
	expect_has(err.hint, "existing executable");
}

Test(errno_live, enoent_uprobe_on_a_missing_file, .init = th_leak_init, .fini = th_leak_fini)
{
	static const char path[] = "/nonexistent/perfev-probe-target";

	expect_missing_probe_file(path);
}

/*
 * The same path with its bytes across a page boundary (where arm64's
 * linker once put the string above): the message still names it whole.
 */
Test(errno_live, enoent_uprobe_path_across_two_pages, .init = th_leak_init,
     .fini = th_leak_fini)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *mem = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert_neq(mem, MAP_FAILED);
	strcpy(mem + page - 10, "/nonexistent/perfev-probe-target");
	expect_missing_probe_file(mem + page - 10);
	munmap(mem, 2 * page);
}

Test(errno_live, enoent_software_id_unknown_to_the_kernel, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_error err;

	th_open_fails(pev_event_software((enum pev_sw_id)999), NULL, NULL, NULL, PEV_ENOENT, &err);
	expect_kernel_said(&err, ENOENT);
	expect_has(err.message, "software event id 999 is not known to this kernel");
}

Test(errno_live, enoent_no_pmu_of_that_type, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_event ev = {.type = 4000};
	struct pev_error err;

	if (access("/sys/bus/event_source/devices/software", F_OK) != 0)
		th_skip("no /sys/bus/event_source/devices to list the PMUs from");
	th_open_fails(ev, NULL, NULL, NULL, PEV_ENOENT, &err);
	expect_kernel_said(&err, ENOENT);
	expect_has(err.message, "no PMU has type 4000");
	expect_has(err.message, "software(1)");
	expect_has(err.hint, "/sys/bus/event_source/devices/<pmu>/type");
}

Test(errno_live, einval_tracepoint_id_that_does_not_exist, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_error err;

	th_require_root();
	th_open_fails(pev_event_tracepoint(0xffffff), NULL, NULL, NULL, PEV_EINVAL, &err);
	expect_kernel_said(&err, EINVAL);
	expect_has(err.message, "no tracepoint with id 16777215");
	/* Where to look the id up, or how to mount tracefs to do so. */
	cr_expect(strstr(err.hint, "/events/<subsystem>/<event>/id") ||
			  strstr(err.hint, "mount -t tracefs"),
		  "hint: %s", err.hint);
	cr_expect_str_eq(err.field, "");
	expect_has(err.message, "no single field");
}

/* ---- EACCES, EPERM as nobody ------------------------------------------- */

/* What a child opens, and what came back. */
struct child_open {
	struct pev_event ev;
	struct pev_opts opts;
	struct pev_target target;
	int code;
	struct pev_error err;
};

static void child_open(void *p)
{
	struct child_open *c = p;
	struct pev_counter *cnt = NULL;

	c->code = pev_counter_open(&c->ev, &c->opts, &c->target, NULL, &cnt, &c->err);
	pev_counter_close(cnt);
}

static void expect_paranoid_2(void)
{
	if (th_sysctl("perf_event_paranoid") != 2)
		th_skip("these checks are for perf_event_paranoid 2; it is %ld",
			     th_sysctl("perf_event_paranoid"));
}

Test(errno_live, eacces_nobody_counting_the_kernel, .init = th_leak_init, .fini = th_leak_fini)
{
	struct child_open c = {.ev = pev_event_software(PEV_SW_TASK_CLOCK),
			       .opts = th_opts(),
			       .target = pev_target_self()};

	/* Exact levels: with none chosen, pev_counter_open would count user space only. */
	c.opts.open_flags = PEV_OPEN_EXACT_LEVELS;
	expect_paranoid_2();
	cr_assert(th_as_nobody(child_open, &c, sizeof(c)), "the child did not run");
	cr_assert_eq(c.code, PEV_EACCES, "got %s: %s", pev_error_name(c.code), c.err.message);
	cr_expect_eq(c.err.code, PEV_EACCES);
	expect_kernel_said(&c.err, EACCES);
	expect_has(c.err.message, "perf_event_paranoid is 2");
	expect_has(c.err.message, "uid 65534");
	expect_has(c.err.message, "neither CAP_PERFMON nor CAP_SYS_ADMIN");
	expect_has(c.err.message, "exclude_kernel");
	expect_has(c.err.hint, "':u'");
	expect_has(c.err.hint, "cap_perfmon");
	expect_has(c.err.hint, "perf_event_paranoid=1");
}

Test(errno_live, eacces_nobody_cpu_wide, .init = th_leak_init, .fini = th_leak_fini)
{
	struct child_open c = {.ev = pev_event_software(PEV_SW_CPU_CLOCK),
			       .opts = th_opts(),
			       .target = pev_target_cpu(0)};

	expect_paranoid_2();
	c.opts.exclude_kernel = true;
	cr_assert(th_as_nobody(child_open, &c, sizeof(c)), "the child did not run");
	cr_assert_eq(c.code, PEV_EACCES, "got %s: %s", pev_error_name(c.code), c.err.message);
	expect_kernel_said(&c.err, EACCES);
	expect_has(c.err.message, "perf_event_paranoid is 2");
	expect_has(c.err.message, "CPU-wide");
	expect_has(c.err.message, "every task of CPU 0");
	expect_lacks(c.err.message, "exclude_kernel is off");
	expect_has(c.err.hint, "perf_event_paranoid=0");
	expect_has(c.err.hint, "cap_perfmon");
}

Test(errno_live, eperm_nobody_raw_tracepoint_data, .init = th_leak_init, .fini = th_leak_fini)
{
	uint64_t id = th_tracepoint_id("sched", "sched_switch");
	if (!id)
		th_skip("tracefs is not mounted and cannot be (no sched:sched_switch id)");
	expect_paranoid_2();
	struct child_open c = {.ev = pev_event_tracepoint(id), .opts = th_opts(),
			       .target = pev_target_self()};
	c.opts.exclude_kernel = true;
	c.opts.sample_type = PEV_SAMPLE_RAW;
	c.opts.sample_period = 1;

	cr_assert(th_as_nobody(child_open, &c, sizeof(c)), "the child did not run");
	cr_assert_eq(c.code, PEV_EPERM, "got %s: %s", pev_error_name(c.code), c.err.message);
	expect_kernel_said(&c.err, EPERM);
	cr_expect_str_eq(pev_error_name(c.err.code), "PermissionDenied");
	expect_has(c.err.message, "perf_event_paranoid is 2");
	expect_has(c.err.message, "raw tracepoint data");
	expect_has(c.err.message, "PEV_SAMPLE_RAW");
	expect_has(c.err.hint, "drop PEV_SAMPLE_RAW");
	expect_has(c.err.hint, "perf_event_paranoid=-1");
}

/* ---- EMFILE ------------------------------------------------------------ */

/* The RLIMIT_NOFILE value that leaves exactly `free_slots` descriptor numbers free (0: none found). */
static rlim_t limit_leaving(int free_slots)
{
	bool used[4096] = {false};
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int dfd = d ? dirfd(d) : -1;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] != '.' && fd != dfd && fd >= 0 && fd < 4096)
			used[fd] = true;
	}
	closedir(d);
	/* The limit is the number of the first free slot that must stay unusable. */
	int free_below = 0;
	for (int lim = 0; lim < 4096; lim++) {
		if (used[lim])
			continue;
		if (free_below == free_slots)
			return (rlim_t)lim;
		free_below++;
	}
	return 0;
}

struct emfile_ctx {
	int free_slots;   /* in: descriptor numbers left free under the limit */
	bool all_cpus;    /* in: open one counter on every CPU instead of many on self */
	int opened;       /* out: counters opened before the failure */
	int code;         /* out */
	int fds_before, fds_after;
	int perf_before, perf_after;
	bool setup_failed;
	struct pev_error err;
};

static void child_emfile(void *p)
{
	struct emfile_ctx *x = p;
	struct pev_counter *c[64] = {NULL};
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_target t = x->all_cpus ? pev_target_all_cpus() : pev_target_self();
	struct rlimit rl;

	if (x->all_cpus)
		ev = pev_event_software(PEV_SW_CPU_CLOCK);
	x->fds_before = th_count_fds();
	x->perf_before = th_count_perf_fds();
	rlim_t lim = limit_leaving(x->free_slots);
	if (lim == 0 || getrlimit(RLIMIT_NOFILE, &rl) < 0) {
		x->setup_failed = true;
		return;
	}
	rl.rlim_cur = lim;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		x->setup_failed = true;
		return;
	}
	x->code = 0;
	for (x->opened = 0; x->opened < 64; x->opened++) {
		x->code = pev_counter_open(&ev, NULL, &t, NULL, &c[x->opened], &x->err);
		if (x->code < 0)
			break;
	}
	for (int i = 0; i < 64; i++)
		pev_counter_close(c[i]);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	x->fds_after = th_count_fds();
	x->perf_after = th_count_perf_fds();
}

Test(errno_live, emfile_rlimit_nofile, .init = th_leak_init, .fini = th_leak_fini)
{
	struct emfile_ctx x = {.free_slots = 2};

	cr_assert(th_in_child(child_emfile, &x, sizeof(x)), "the child did not run");
	cr_assert_not(x.setup_failed, "cannot lower RLIMIT_NOFILE");
	cr_expect_eq(x.opened, 2, "two counters fit in two free descriptors, opened %d", x.opened);
	cr_assert_eq(x.code, PEV_EMFILE, "got %s: %s", pev_error_name(x.code), x.err.message);
	expect_kernel_said(&x.err, EMFILE);
	cr_expect_str_eq(pev_error_name(x.err.code), "ProcessResources");
	expect_has(x.err.message, "RLIMIT_NOFILE");
	expect_has(x.err.message, "needs 1");
	expect_has(x.err.hint, "ulimit -n");
	cr_expect_eq(x.fds_after, x.fds_before);
	cr_expect_eq(x.perf_after, x.perf_before);
}

Test(errno_live, emfile_all_cpus_leaks_nothing, .init = th_leak_init, .fini = th_leak_fini)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 2)
		th_skip("needs two online CPUs to fail between descriptors");
	struct emfile_ctx x = {.free_slots = (int)cpus - 1, .all_cpus = true};
	char need[32];

	cr_assert(th_in_child(child_emfile, &x, sizeof(x)), "the child did not run");
	cr_assert_not(x.setup_failed, "cannot lower RLIMIT_NOFILE");
	cr_expect_eq(x.opened, 0);
	cr_assert_eq(x.code, PEV_EMFILE, "got %s: %s", pev_error_name(x.code), x.err.message);
	expect_kernel_said(&x.err, EMFILE);
	snprintf(need, sizeof(need), "needs %ld", cpus);
	expect_has(x.err.message, need);
	expect_has(x.err.message, "RLIMIT_NOFILE");
	expect_has(x.err.hint, "fewer CPUs");
	cr_expect_eq(x.fds_after, x.fds_before, "descriptors %d -> %d", x.fds_before, x.fds_after);
	cr_expect_eq(x.perf_after, x.perf_before, "perf descriptors %d -> %d", x.perf_before,
		     x.perf_after);
}

Test(errno_live, emfile_no_descriptor_left_for_the_cpu_list, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct emfile_ctx x = {.free_slots = 0, .all_cpus = true};

	cr_assert(th_in_child(child_emfile, &x, sizeof(x)), "the child did not run");
	cr_assert_not(x.setup_failed, "cannot lower RLIMIT_NOFILE");
	cr_expect_eq(x.opened, 0);
	cr_assert_eq(x.code, PEV_EMFILE, "got %s: %s", pev_error_name(x.code), x.err.message);
	cr_expect_eq(x.err.sys_errno, EMFILE);
	cr_expect(x.err.before_syscall);
	expect_has(x.err.message, "online CPUs");
	expect_has(x.err.hint, "RLIMIT_NOFILE");
	cr_expect_eq(x.fds_after, x.fds_before);
}

/* ---- ENOSPC ------------------------------------------------------------ */

static volatile uint64_t watched[5];

Test(errno_live, enospc_fifth_breakpoint, .init = th_leak_init, .fini = th_leak_fini)
{
#if !defined(__x86_64__) && !defined(__i386__)
	th_skip("the debug register count is checked for x86 only");
#endif
	struct pev_counter *bp[4] = {NULL};
	struct pev_opts o = th_opts();
	struct pev_error err;

	o.exclude_kernel = true;
	for (int i = 0; i < 4; i++) {
		struct pev_event ev =
			pev_event_breakpoint((uint64_t)(uintptr_t)&watched[i], 8, PEV_BP_W);
		int r = pev_counter_open(&ev, &o, NULL, NULL, &bp[i], &err);
		cr_expect_eq(r, 0, "breakpoint %d: %s", i, err.message);
	}
	th_open_fails(pev_event_breakpoint((uint64_t)(uintptr_t)&watched[4], 8, PEV_BP_W), &o, NULL,
		   NULL, PEV_ENOSPC, &err);
	expect_kernel_said(&err, ENOSPC);
	cr_expect_str_eq(pev_error_name(err.code), "TooManyBreakpoints");
	expect_has(err.message, "4 debug registers");
	expect_has(err.hint, "one longer breakpoint");
	for (int i = 0; i < 4; i++)
		pev_counter_close(bp[i]);

	/* With the slots free again the fifth opens. */
	struct pev_counter *c = NULL;
	struct pev_event ev = pev_event_breakpoint((uint64_t)(uintptr_t)&watched[4], 8, PEV_BP_W);
	cr_expect_eq(pev_counter_open(&ev, &o, NULL, NULL, &c, &err), 0, "%s", err.message);
	pev_counter_close(c);
}

/* ---- EOPNOTSUPP -------------------------------------------------------- */

Test(errno_live, eopnotsupp_branch_stack_on_a_software_event, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_error err;

	o.sample_period = 100000;
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_BRANCH_STACK;
	o.branch_sample_type = PEV_BRANCH_ANY;
	th_open_fails(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, NULL, PEV_EOPNOTSUPP, &err);
	expect_kernel_said(&err, EOPNOTSUPP);
	cr_expect_str_eq(pev_error_name(err.code), "EventNotSupported");
	expect_has(err.message, "Branch stacks");
	expect_has(err.message, "software");
	cr_expect_str_eq(err.field, "sample_type PEV_SAMPLE_BRANCH_STACK");
	expect_has(err.hint, "hardware event");
}

/* ---- EFAULT ------------------------------------------------------------ */

Test(errno_live, efault_uprobe_path_pointer, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_event ev;
	struct pev_error err;
	char text[64];

	if (pev_event_uprobe(&ev, "/bin/true", 0, false, NULL, &err) < 0)
		th_skip("no uprobe PMU: %s", err.message);
	th_require_root();
	ev.config1 = 1;
	th_open_fails(ev, NULL, NULL, NULL, PEV_EFAULT, &err);
	expect_kernel_said(&err, EFAULT);
	cr_expect_str_eq(pev_error_name(err.code), "BadAddress");
	snprintf(text, sizeof(text), "config1 (0x1)");
	expect_has(err.message, text);
	expect_has(err.message, "path of the file to probe");
}

/* ---- EINVAL: fields found by validation or by retrying ----------------- */

Test(errno_live, einval_regs_user_mask_named_by_retrying, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_error err;

	o.sample_period = 100000;
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_REGS_USER;
	o.sample_regs_user = ~0ULL;
	th_open_fails(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, NULL, PEV_EINVAL, &err);
	expect_kernel_said(&err, EINVAL);
	cr_expect_str_eq(err.field, "sample_type PEV_SAMPLE_REGS_USER");
	expect_has(err.message, "without sample_type PEV_SAMPLE_REGS_USER");
	expect_has(err.hint, "drop sample_type PEV_SAMPLE_REGS_USER");
}

/* x86 takes lengths 1, 2, 4 and 8; arm64 any of 1 to 8 (3 opens there), neither 9. */
Test(errno_live, einval_breakpoint_length_3, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_error err;
#if defined(__aarch64__)
	const uint64_t len = 9;
#else
	const uint64_t len = 3;
#endif

	o.exclude_kernel = true;
	th_open_fails(pev_event_breakpoint((uint64_t)(uintptr_t)&watched[0], len, PEV_BP_W), &o,
		      NULL, NULL, PEV_EINVAL, &err);
	expect_caught_before(&err, EINVAL, "bp_len");
#if defined(__aarch64__)
	expect_has(err.message, "length 9");
	expect_has(err.message, "1 to 8");
#else
	expect_has(err.message, "length 3");
	expect_has(err.message, "1, 2, 4 or 8");
#endif
}

Test(errno_live, einval_read_only_breakpoint_on_x86, .init = th_leak_init, .fini = th_leak_fini)
{
#if !defined(__x86_64__) && !defined(__i386__)
	th_skip("read-only breakpoints are refused on x86 only");
#endif
	struct pev_opts o = th_opts();
	struct pev_error err;

	o.exclude_kernel = true;
	th_open_fails(pev_event_breakpoint((uint64_t)(uintptr_t)&watched[0], 8, PEV_BP_R), &o, NULL,
		   NULL, PEV_EINVAL, &err);
	expect_caught_before(&err, EINVAL, "bp_type");
	expect_has(err.message, "reads alone");
	expect_has(err.hint, "PEV_BP_RW");

	/* The kernel agrees. */
	o.open_flags = PEV_OPEN_NO_VALIDATE | PEV_OPEN_NO_PROBE;
	th_open_fails(pev_event_breakpoint((uint64_t)(uintptr_t)&watched[0], 8, PEV_BP_R), &o, NULL,
		   NULL, PEV_EINVAL, &err);
	expect_kernel_said(&err, EINVAL);
}

Test(errno_live, einval_every_task_on_every_cpu, .init = th_leak_init, .fini = th_leak_fini)
{
	union big_attr b;
	struct pev_target t = {PEV_PID_ANY, PEV_CPU_ANY, NULL, NULL, false, {0}};
	struct pev_error err;

	task_clock_attr(&b);
	open_attr_fails(&b.attr, sizeof(b.attr), &t, 0, PEV_EINVAL, &err);
	expect_caught_before(&err, EINVAL, "pid");
	expect_has(err.message, "pid -1");
	expect_has(err.message, "cpu is -1");
	expect_has(err.hint, "PEV_CPU_ALL");

	/* The kernel says EINVAL too; the diagnosis still names the target, not the event. */
	open_attr_fails(&b.attr, sizeof(b.attr), &t, PEV_OPEN_NO_VALIDATE, PEV_EINVAL, &err);
	expect_kernel_said(&err, EINVAL);
	cr_expect_str_eq(err.field, "pid");
	expect_has(err.message, "pid -1");
	expect_lacks(err.message, "the event itself");
}

Test(errno_live, einval_cpu_that_does_not_exist, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_target t = pev_target_cpu(4096);
	struct pev_error err;

	th_open_fails(pev_event_software(PEV_SW_CPU_CLOCK), NULL, &t, NULL, PEV_EINVAL, &err);
	expect_caught_before(&err, EINVAL, "cpu");
	expect_has(err.message, "CPU 4096 does not exist");

	struct pev_opts o = th_opts();
	o.open_flags = PEV_OPEN_NO_VALIDATE;
	th_open_fails(pev_event_software(PEV_SW_CPU_CLOCK), &o, &t, NULL, PEV_EINVAL, &err);
	expect_kernel_said(&err, EINVAL);
	cr_expect_str_eq(err.field, "cpu");
	expect_has(err.message, "CPU 4096 does not exist");
	expect_lacks(err.message, "the event itself");
}

Test(errno_live, einval_pinned_group_member, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_target self = pev_target_self();
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_counter *leader = NULL;
	struct pev_opts o = th_opts();
	struct pev_error err;

	cr_assert_eq(pev_counter_open(&ev, NULL, &self, NULL, &leader, &err), 0, "%s", err.message);
	o.pinned = true;
	th_open_fails(pev_event_software(PEV_SW_PAGE_FAULTS), &o, &self, leader, PEV_EINVAL, &err);
	expect_caught_before(&err, EINVAL, "pinned");
	expect_has(err.message, "group leader");
	expect_has(err.hint, "group leader");

	o.open_flags = PEV_OPEN_NO_VALIDATE;
	th_open_fails(pev_event_software(PEV_SW_PAGE_FAULTS), &o, &self, leader, PEV_EINVAL, &err);
	expect_kernel_said(&err, EINVAL);
	cr_expect_str_eq(err.field, "pinned");
	pev_counter_close(leader);
}

Test(errno_live, einval_sigtrap_without_remove_on_exec, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_error err;

	o.sigtrap = true;
	o.exclude_kernel = true;
	th_open_fails(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, NULL, PEV_EINVAL, &err);
	expect_caught_before(&err, EINVAL, "sigtrap");
	expect_has(err.message, "remove_on_exec");
	expect_has(err.hint, "remove_on_exec");

	o.open_flags = PEV_OPEN_NO_VALIDATE;
	th_open_fails(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, NULL, PEV_EINVAL, &err);
	expect_kernel_said(&err, EINVAL);
	cr_expect_str_eq(err.field, "sigtrap");
}

/* ---- ENOSYS, EPERM from a seccomp filter ------------------------------- */

#if defined(__x86_64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

struct seccomp_ctx {
	int errnum;        /* in: what the filter makes perf_event_open return */
	int install_errno; /* out: 0 when the filter was installed */
	int code;
	struct pev_error err;
};

static void child_seccomp(void *p)
{
	struct seccomp_ctx *x = p;
#ifdef TEST_AUDIT_ARCH
	struct sock_filter filter[] = {
		/* Another architecture's syscall numbers mean other calls: allow them. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TEST_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)x->errnum & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(filter) / sizeof(filter[0]), .filter = filter};
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_counter *c = NULL;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
		x->install_errno = errno;
		return;
	}
	x->code = pev_counter_open(&ev, NULL, NULL, NULL, &c, &x->err);
	pev_counter_close(c);
#else
	x->install_errno = ENOSYS;
#endif
}

Test(errno_live, enosys_from_a_seccomp_filter, .init = th_leak_init, .fini = th_leak_fini)
{
	struct seccomp_ctx x = {.errnum = ENOSYS};

	cr_assert(th_in_child(child_seccomp, &x, sizeof(x)), "the child did not run");
	if (x.install_errno)
		th_skip("cannot install a seccomp filter here: %s", strerror(x.install_errno));
	cr_assert_eq(x.code, PEV_ENOSYS, "got %s: %s", pev_error_name(x.code), x.err.message);
	expect_kernel_said(&x.err, ENOSYS);
	expect_has(x.err.message, "ENOSYS");
	expect_has(x.err.message, "seccomp");
	expect_has(x.err.hint, "seccomp=unconfined");
}

Test(errno_live, eperm_from_a_docker_like_seccomp_filter, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct seccomp_ctx x = {.errnum = EPERM};

	cr_assert(th_in_child(child_seccomp, &x, sizeof(x)), "the child did not run");
	if (x.install_errno)
		th_skip("cannot install a seccomp filter here: %s", strerror(x.install_errno));
	cr_assert_eq(x.code, PEV_EPERM, "got %s: %s", pev_error_name(x.code), x.err.message);
	expect_kernel_said(&x.err, EPERM);
	expect_has(x.err.message, "seccomp");
	expect_has(x.err.message, "perf_event_paranoid is");
	expect_lacks(x.err.message, "security module");
	expect_has(x.err.hint, "seccomp=unconfined");
}

Test(errno_live, msr_refuses_privilege_exclusions_and_the_probe_says_so, .init = th_leak_init,
     .fini = th_leak_fini)
{
	int type = pev_pmu_type("msr", NULL);
	struct pev_event ev = {.type = 0, .config = 0, .name = "msr/tsc/u"};
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c = NULL;
	struct pev_error err;

	if (type < 0)
		th_skip("this machine has no msr PMU");
	th_require_root();
	ev.type = (uint32_t)type;
	o.exclude_kernel = true;
	o.exclude_hv = true;
	cr_assert_eq(pev_counter_open(&ev, &o, NULL, NULL, &c, &err), PEV_EINVAL);
	cr_assert_null(c);
	expect_has(err.field, "privilege-level exclusions");
	/* Without them it opens. */
	o.exclude_kernel = o.exclude_hv = false;
	cr_assert_eq(pev_counter_open(&ev, &o, NULL, NULL, &c, &err), 0, "%s", err.message);
	pev_counter_close(c);
}

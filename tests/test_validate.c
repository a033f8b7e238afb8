/* SPDX-License-Identifier: MIT */
/*
 * test_validate.c - pev_attr_check: the rules of perf_event_open checked
 * before the syscall, one test per rule, against the fake machines under
 * tests/fixtures/machines.
 *
 * Each refusal must carry the code the kernel would return, the field at
 * fault, before_syscall, the value and the limit in the message, and a
 * hint where there is something to do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

#define HAS(text, needle)                                                                          \
	cr_expect(strstr((text), (needle)) != NULL, "expected \"%s\" in: %s", (needle), (text))
#define HASNT(text, needle)                                                                        \
	cr_expect(strstr((text), (needle)) == NULL, "did not expect \"%s\" in: %s", (needle), (text))

/* The prefix every open error starts with, for a request on the calling thread. */
#define PREFIX "cannot open 'task-clock' on the calling thread: "

/* Asserts a refusal: code, errno, field, before_syscall and the prefix. */
#define EXPECT_REFUSED(rc, err, want_code, want_field)                                             \
	do {                                                                                       \
		cr_expect_eq((rc), (want_code), "returned %d (%s)", (rc), pev_error_name(rc));    \
		cr_expect_eq((err).code, (want_code));                                             \
		cr_expect_eq((err).sys_errno, -(want_code));                                       \
		cr_expect_str_eq((err).field, (want_field));                                       \
		cr_expect((err).before_syscall);                                                   \
		cr_expect_str_eq((err).syscall, "perf_event_open");                                \
		cr_expect_str_eq((err).event, "task-clock");                                       \
	} while (0)

static struct pev_machine machine;

static void load(const char *name)
{
	char root[512];

	snprintf(root, sizeof(root), "%s/machines/%s", th_fixtures(), name);
	cr_assert_eq(pev_machine_read(&machine, root), 0, "reading fixture %s", name);
}

/* A valid counting attr for task-clock of user space, built by the library. */
static struct pev_attr task_clock(void)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_opts opts = PEV_OPTS_INIT;
	struct pev_attr a;

	opts.exclude_kernel = true;
	opts.exclude_hv = true;
	opts.disabled = true;
	cr_assert_eq(pev_attr_encode(&a, &ev, &opts, NULL), 0);
	return a;
}

/* A request for attr on the calling thread, any CPU, no group. */
static struct pev_open_request request(const struct pev_attr *a)
{
	struct pev_open_request r = {
		.attr = a,
		.pid = 0,
		.cpu = -1,
		.group_fd = -1,
		.flags = PEV_FLAG_FD_CLOEXEC,
		.event = "task-clock",
		.fds_needed = 1,
	};
	return r;
}

/* Checks r on the vm-nopmu machine into a fresh err. */
static int check_vm(const struct pev_open_request *r, struct pev_error *err)
{
	load("vm-nopmu");
	memset(err, 0, sizeof(*err));
	return pev_attr_check(&machine, r, err);
}

static void expect_ok(int rc, const struct pev_error *err)
{
	cr_expect_eq(rc, 0, "refused: %s", err->message);
	cr_expect_eq(err->code, 0);
	cr_expect_str_eq(err->message, "");
	cr_expect_str_eq(err->field, "");
}

/* ---- accepted requests ------------------------------------------------- */

Test(validate, a_valid_request_passes_and_leaves_err_zero)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	expect_ok(check_vm(&r, &err), &err);
	r.cpu = 1;
	expect_ok(check_vm(&r, &err), &err);
	r.pid = -1; /* CPU-wide: a privilege question, not a validity one */
	expect_ok(check_vm(&r, &err), &err);
	cr_expect_eq(pev_attr_check(&machine, &r, NULL), 0, "err is optional");
}

Test(validate, a_sampling_request_within_the_limits_passes)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.flags |= PEV_ATTR_FREQ | PEV_ATTR_INHERIT;
	a.sample_freq = 4000;
	a.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME | PEV_SAMPLE_CALLCHAIN |
			PEV_SAMPLE_READ | PEV_SAMPLE_STACK_USER | PEV_SAMPLE_WEIGHT_STRUCT;
	a.sample_max_stack = 127;
	a.sample_stack_user = 8192;
	a.read_format = PEV_FORMAT_ALL;
	expect_ok(check_vm(&r, &err), &err);
}

Test(validate, attr_size_zero_means_the_first_layout)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.size = 0;
	expect_ok(check_vm(&r, &err), &err);
	a.size = PEV_ATTR_SIZE_VER0;
	expect_ok(check_vm(&r, &err), &err);
	a.size = 4096;
	expect_ok(check_vm(&r, &err), &err);
}

/* ---- target and flags -------------------------------------------------- */

Test(validate, unknown_open_flags)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	r.flags |= 1UL << 5;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "flags");
	HAS(err.message, PREFIX);
	HAS(err.message, "unknown perf_event_open flags 0x20");
	HAS(err.message, "known: 0xf");
}

Test(validate, cgroup_event_needs_a_cpu)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	r.flags |= PEV_FLAG_PID_CGROUP;
	r.pid = 5;
	r.cgroup = "/sys/fs/cgroup/app";
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "cpu");
	HAS(err.message, "cannot open 'task-clock' for cgroup /sys/fs/cgroup/app on every CPU: ");
	HAS(err.message, "cpu is -1");
	HAS(err.hint, "once per CPU");
}

Test(validate, every_task_on_every_cpu_is_refused)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	r.pid = -1;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "pid");
	HAS(err.message, "cannot open 'task-clock' on every task of every CPU: ");
	HAS(err.message, "pid -1");
	HAS(err.message, "cpu is -1");
	HAS(err.hint, "pid 0 is the calling thread");
}

Test(validate, cpu_below_minus_one)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	r.cpu = -2;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "cpu");
	HAS(err.message, "cpu -2 is not a CPU number");
	HAS(err.message, "-1 for any CPU");
}

Test(validate, cpu_that_is_not_possible_is_einval)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	load("old-kernel");
	r.cpu = 8;
	int rc = pev_attr_check(&machine, &r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "cpu");
	HAS(err.message, "cannot open 'task-clock' on the calling thread on CPU 8: ");
	HAS(err.message, "CPU 8 does not exist");
	HAS(err.message, "0-7");
}

Test(validate, cpu_wide_event_on_an_offline_cpu_is_enodev)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	load("old-kernel");
	r.pid = -1;
	r.cpu = 5;
	int rc = pev_attr_check(&machine, &r, &err);
	EXPECT_REFUSED(rc, err, PEV_ENODEV, "cpu");
	HAS(err.message, "on every task of CPU 5: ");
	HAS(err.message, "CPU 5 is offline");
	HAS(err.message, "online CPUs: 0-3");
	HAS(err.hint, "/sys/devices/system/cpu/cpu5/online");
	r.cpu = 3;
	memset(&err, 0, sizeof(err));
	expect_ok(pev_attr_check(&machine, &r, &err), &err);
}

Test(validate, cgroup_event_on_an_offline_cpu_is_enodev)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	load("old-kernel");
	r.flags |= PEV_FLAG_PID_CGROUP;
	r.pid = 5;
	r.cgroup = "/sys/fs/cgroup/app";
	r.cpu = 6;
	int rc = pev_attr_check(&machine, &r, &err);
	EXPECT_REFUSED(rc, err, PEV_ENODEV, "cpu");
	HAS(err.message, "CPU 6 is offline");
}

/* The kernel checks that the CPU is online only when the event has no task
 * (perf_event_open, kernel/events/core.c): a task's event on an offline but
 * possible CPU opens, and counts when the CPU is back and the task runs there. */
Test(validate, task_event_on_an_offline_cpu_is_accepted)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	load("old-kernel");
	r.cpu = 5;
	memset(&err, 0, sizeof(err));
	expect_ok(pev_attr_check(&machine, &r, &err), &err);
	r.pid = 1234;
	expect_ok(pev_attr_check(&machine, &r, &err), &err);
	/* A CPU that does not exist stays refused for a task too (perf_event_alloc). */
	r.cpu = 8;
	int rc = pev_attr_check(&machine, &r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "cpu");
}

Test(validate, pinned_on_a_group_member)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.flags |= PEV_ATTR_PINNED;
	expect_ok(check_vm(&r, &err), &err); /* fine on a leader */
	r.group_fd = 7;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "pinned");
	HAS(err.message, "pinned applies to a whole group");
	HAS(err.message, "group fd 7");
	HAS(err.hint, "group leader");
}

Test(validate, exclusive_on_a_group_member)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.flags |= PEV_ATTR_EXCLUSIVE;
	r.group_fd = 9;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "exclusive");
	HAS(err.message, "exclusive applies to a whole group");
	HAS(err.message, "group fd 9");
	HAS(err.hint, "group leader");
}

/* ---- size and reserved bits ------------------------------------------- */

Test(validate, attr_size_below_the_first_layout)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.size = 63;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_E2BIG, "size");
	HAS(err.message, "attr.size 63");
	HAS(err.message, "64 to one page");
	HAS(err.hint, "pev_attr_encode");
}

Test(validate, attr_size_above_a_page)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.size = 4097;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_E2BIG, "size");
	HAS(err.message, "attr.size 4097");
	HAS(err.message, "4096 bytes");
	cr_expect_neq(err.hint[0], '\0');
}

Test(validate, reserved_flag_bits)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.flags |= UINT64_C(1) << 38 | UINT64_C(1) << 63;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "flags");
	HAS(err.message, "reserved bit 38");
	HAS(err.message, "bits 0-37");
}

Test(validate, reserved_aux_action_bit)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.aux_action = PEV_AUX_PAUSE | 1U << 3;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "aux_action");
	HAS(err.message, "reserved bit 3 of aux_action");
}

Test(validate, reserved_2_must_be_zero)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.reserved_2 = 0x10;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "__reserved_2");
	HAS(err.message, "0x10, not 0");
}

Test(validate, unknown_sample_type_bit)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.sample_type = PEV_SAMPLE_IP | UINT64_C(1) << 25;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "sample_type");
	HAS(err.message, "sample_type bit 25 is not defined");
	HAS(err.message, "bits 0-24");
}

Test(validate, unknown_read_format_bit)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.read_format = PEV_FORMAT_ID | UINT64_C(1) << 7;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "read_format");
	HAS(err.message, "read_format bit 7 is not defined");
	HAS(err.message, "bits 0-4");
}

/* ---- sampling ----------------------------------------------------------- */

Test(validate, sample_freq_above_the_limit)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.flags |= PEV_ATTR_FREQ;
	a.sample_freq = 100001;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "sample_freq");
	HAS(err.message, "sample_freq 100001 Hz");
	HAS(err.message, "limit of 100000 Hz");
	HAS(err.message, "kernel.perf_event_max_sample_rate");
	HAS(err.hint, "sample at 100000 Hz or less");
	HAS(err.hint, "sysctl kernel.perf_event_max_sample_rate=100001");
}

Test(validate, sample_freq_equal_to_the_limit_passes)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.flags |= PEV_ATTR_FREQ;
	a.sample_freq = 100000;
	expect_ok(check_vm(&r, &err), &err);
}

Test(validate, sample_freq_limit_is_the_machines)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.flags |= PEV_ATTR_FREQ;
	a.sample_freq = 60000;
	expect_ok(check_vm(&r, &err), &err);
	load("hybrid");
	int rc = pev_attr_check(&machine, &r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "sample_freq");
	HAS(err.message, "sample_freq 60000 Hz");
	HAS(err.message, "limit of 50000 Hz");
}

Test(validate, sample_period_with_bit_63)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.sample_period = UINT64_C(1) << 63 | 1000;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "sample_period");
	HAS(err.message, "sample_period 0x80000000000003e8 has bit 63 set");
	HAS(err.message, "2^63");
	a.sample_period = (UINT64_C(1) << 63) - 1;
	expect_ok(check_vm(&r, &err), &err);
}

Test(validate, callchain_deeper_than_the_limit)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.sample_period = 10000;
	a.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_CALLCHAIN;
	a.sample_max_stack = 128;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EOVERFLOW, "sample_max_stack");
	HAS(err.message, "sample_max_stack 128 frames");
	HAS(err.message, "limit of 127");
	HAS(err.message, "kernel.perf_event_max_stack");
	HAS(err.hint, "127 frames or fewer");
	HAS(err.hint, "sysctl kernel.perf_event_max_stack=128");
}

Test(validate, max_stack_is_ignored_without_callchain)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.sample_period = 10000;
	a.sample_type = PEV_SAMPLE_IP;
	a.sample_max_stack = 1000;
	expect_ok(check_vm(&r, &err), &err);
	a.sample_type |= PEV_SAMPLE_CALLCHAIN;
	a.sample_max_stack = 127;
	expect_ok(check_vm(&r, &err), &err);
}

Test(validate, weight_and_weight_struct_together)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.sample_period = 10000;
	a.sample_type = PEV_SAMPLE_WEIGHT | PEV_SAMPLE_WEIGHT_STRUCT;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "sample_type");
	HAS(err.message, "both WEIGHT and WEIGHT_STRUCT");
	HAS(err.hint, "keep one");
}

Test(validate, stack_user_not_a_multiple_of_8)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.sample_period = 10000;
	a.sample_type = PEV_SAMPLE_STACK_USER;
	a.sample_stack_user = 100;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "sample_stack_user");
	HAS(err.message, "sample_stack_user 100 bytes");
	HAS(err.message, "multiple of 8");
	HAS(err.message, "65535");
	HAS(err.hint, "65528");
}

Test(validate, stack_user_of_64_kib_or_more)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.sample_period = 10000;
	a.sample_type = PEV_SAMPLE_STACK_USER;
	a.sample_stack_user = 65536;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "sample_stack_user");
	HAS(err.message, "sample_stack_user 65536 bytes");
	HAS(err.message, "below 65535");
	a.sample_stack_user = 65528;
	expect_ok(check_vm(&r, &err), &err);
	a.sample_type = 0; /* not sampled: the field is not looked at */
	a.sample_stack_user = 100;
	expect_ok(check_vm(&r, &err), &err);
}

Test(validate, branch_stack_with_only_privilege_bits)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.sample_period = 10000;
	a.sample_type = PEV_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PEV_BRANCH_USER | PEV_BRANCH_KERNEL;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "branch_sample_type");
	HAS(err.message, "branch_sample_type 0x3 names no kind of branch");
	HAS(err.hint, "PEV_BRANCH_ANY");
	a.branch_sample_type |= PEV_BRANCH_ANY;
	expect_ok(check_vm(&r, &err), &err);
}

Test(validate, branch_stack_with_unknown_bits)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.sample_period = 10000;
	a.sample_type = PEV_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PEV_BRANCH_ANY | UINT64_C(1) << 20;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "branch_sample_type");
	HAS(err.message, "branch_sample_type bit 20 is not defined");
	HAS(err.message, "bits 0-19");
}

Test(validate, inherit_with_sample_read_needs_tid)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.flags |= PEV_ATTR_INHERIT;
	a.sample_period = 10000;
	a.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_READ;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "sample_type");
	HAS(err.message, "inherited event with PEV_SAMPLE_READ");
	HAS(err.message, "PEV_SAMPLE_TID");
	HAS(err.hint, "add PEV_SAMPLE_TID");
	a.sample_type |= PEV_SAMPLE_TID;
	expect_ok(check_vm(&r, &err), &err);
}

Test(validate, inherit_thread_without_inherit)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.flags |= PEV_ATTR_INHERIT_THREAD;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "inherit_thread");
	HAS(err.message, "inherit, which is not set");
	HAS(err.hint, "PEV_INHERIT_THREADS");
	a.flags |= PEV_ATTR_INHERIT;
	expect_ok(check_vm(&r, &err), &err);
}

Test(validate, sigtrap_without_remove_on_exec)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.flags |= PEV_ATTR_SIGTRAP;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "sigtrap");
	HAS(err.message, "sigtrap requires remove_on_exec");
	HAS(err.hint, "remove_on_exec");
	a.flags |= PEV_ATTR_REMOVE_ON_EXEC;
	expect_ok(check_vm(&r, &err), &err);
}

Test(validate, unknown_clockid)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.flags |= PEV_ATTR_USE_CLOCKID;
	a.clockid = 99;
	int rc = check_vm(&r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "clockid");
	HAS(err.message, "clockid 99 is not a clock");
	HAS(err.hint, "CLOCK_MONOTONIC");
	a.flags &= ~PEV_ATTR_USE_CLOCKID; /* ignored without use_clockid */
	expect_ok(check_vm(&r, &err), &err);
}

Test(validate, every_supported_clock_passes)
{
	static const int clocks[] = {CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW,
				     CLOCK_BOOTTIME, CLOCK_TAI};
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.flags |= PEV_ATTR_USE_CLOCKID;
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		a.clockid = clocks[i];
		int rc = check_vm(&r, &err);
		cr_expect_eq(rc, 0, "clock %d: %s", clocks[i], err.message);
	}
	a.clockid = CLOCK_PROCESS_CPUTIME_ID;
	cr_expect_eq(check_vm(&r, &err), PEV_EINVAL, "a CPU-time clock is not usable");
}

/* ---- breakpoints -------------------------------------------------------- */

static struct pev_attr breakpoint(uint32_t kind, uint64_t addr, uint64_t len)
{
	struct pev_attr a = task_clock();

	a.type = PEV_TYPE_BREAKPOINT;
	a.config = 0;
	a.bp_type = kind;
	a.bp_addr = addr;
	a.bp_len = len;
	return a;
}

/* Checks a breakpoint request named "bp" on the vm-nopmu machine. */
static int check_bp(const struct pev_attr *a, struct pev_error *err)
{
	struct pev_open_request r = request(a);

	r.event = "bp";
	return check_vm(&r, err);
}

#define EXPECT_BP_REFUSED(rc, err, want_field)                                                     \
	do {                                                                                       \
		cr_expect_eq((rc), PEV_EINVAL, "returned %d", (rc));                               \
		cr_expect_eq((err).sys_errno, EINVAL);                                             \
		cr_expect_str_eq((err).field, (want_field));                                       \
		cr_expect((err).before_syscall);                                                   \
		HAS((err).message, "cannot open 'bp' on the calling thread: ");                    \
	} while (0)

Test(validate, valid_breakpoints_pass)
{
	struct pev_error err;
	struct pev_attr a;

	a = breakpoint(PEV_BP_W, 0x601000, 8);
	cr_expect_eq(check_bp(&a, &err), 0, "%s", err.message);
	a = breakpoint(PEV_BP_RW, 0x601002, 2);
	cr_expect_eq(check_bp(&a, &err), 0, "%s", err.message);
	a = breakpoint(PEV_BP_X, 0x401000, sizeof(long));
	cr_expect_eq(check_bp(&a, &err), 0, "%s", err.message);
}

Test(validate, breakpoint_kind_zero)
{
	struct pev_attr a = breakpoint(PEV_BP_EMPTY, 0x601000, 8);
	struct pev_error err;

	int rc = check_bp(&a, &err);
	EXPECT_BP_REFUSED(rc, err, "bp_type");
	HAS(err.message, "breakpoint kind 0 is not one of r, w, rw or x");
}

Test(validate, breakpoint_kind_seven)
{
	struct pev_attr a = breakpoint(PEV_BP_INVALID, 0x601000, 8);
	struct pev_error err;

	int rc = check_bp(&a, &err);
	EXPECT_BP_REFUSED(rc, err, "bp_type");
	HAS(err.message, "breakpoint kind 7");
}

Test(validate, breakpoint_execute_with_write)
{
	struct pev_attr a = breakpoint(PEV_BP_X | PEV_BP_W, 0x601000, 8);
	struct pev_error err;

	int rc = check_bp(&a, &err);
	EXPECT_BP_REFUSED(rc, err, "bp_type");
	HAS(err.message, "breakpoint kind 6");
	HAS(err.message, "x cannot be combined with r or w");
}

Test(validate, breakpoint_read_alone_on_x86)
{
	struct pev_attr a = breakpoint(PEV_BP_R, 0x601000, 8);
	struct pev_error err;

	int rc = check_bp(&a, &err);
	EXPECT_BP_REFUSED(rc, err, "bp_type");
	HAS(err.message, "x86 debug registers cannot trap reads alone");
	HAS(err.hint, "PEV_BP_RW");
}

Test(validate, breakpoint_read_alone_elsewhere_is_left_to_the_kernel)
{
	struct pev_attr a = breakpoint(PEV_BP_R, 0x601000, 8);
	struct pev_open_request r = request(&a);
	struct pev_error err;

	load("no-perf"); /* armv7l */
	memset(&err, 0, sizeof(err));
	expect_ok(pev_attr_check(&machine, &r, &err), &err);
}

Test(validate, breakpoint_execute_with_length_4_on_x86_64)
{
	struct pev_attr a = breakpoint(PEV_BP_X, 0x401000, 4);
	struct pev_error err;

	int rc = check_bp(&a, &err);
	EXPECT_BP_REFUSED(rc, err, "bp_len");
	HAS(err.message, "must have length 8, not 4");
	HAS(err.hint, "bp_len to 8");
}

Test(validate, breakpoint_length_3)
{
	struct pev_attr a = breakpoint(PEV_BP_W, 0x601000, 3);
	struct pev_error err;

	int rc = check_bp(&a, &err);
	EXPECT_BP_REFUSED(rc, err, "bp_len");
	HAS(err.message, "breakpoint length 3 is not 1, 2, 4 or 8 bytes");
}

/* arm64's watchpoints take a byte mask: any length of 1 to 8 opens, 9 does not. */
Test(validate, breakpoint_lengths_on_arm64)
{
	struct pev_error err;
	struct pev_open_request r;
	struct pev_attr a;

	load("arm64-qemu");
	for (uint64_t len = 1; len <= 8; len++) {
		a = breakpoint(PEV_BP_W, 0x601000, len);
		r = request(&a);
		memset(&err, 0, sizeof(err));
		expect_ok(pev_attr_check(&machine, &r, &err), &err);
	}
	a = breakpoint(PEV_BP_W, 0x601000, 9);
	r = request(&a);
	r.event = "bp";
	memset(&err, 0, sizeof(err));
	int rc = pev_attr_check(&machine, &r, &err);
	EXPECT_BP_REFUSED(rc, err, "bp_len");
	HAS(err.message, "breakpoint length 9 is not 1 to 8 bytes");
}

Test(validate, breakpoint_misaligned_address)
{
	struct pev_attr a = breakpoint(PEV_BP_RW, 0x601002, 4);
	struct pev_error err;

	int rc = check_bp(&a, &err);
	EXPECT_BP_REFUSED(rc, err, "bp_addr");
	HAS(err.message, "breakpoint address 0x601002 is not aligned to its length 4");
	HAS(err.hint, "multiple of 4");
}

Test(validate, breakpoint_on_kernel_address_with_exclude_kernel)
{
	struct pev_attr a = breakpoint(PEV_BP_W, UINT64_C(0xffffffff81000000), 8);
	struct pev_error err;

	int rc = check_bp(&a, &err);
	EXPECT_BP_REFUSED(rc, err, "bp_addr");
	HAS(err.message, "0xffffffff81000000 is in the kernel");
	HAS(err.message, "excludes the kernel");
	HAS(err.hint, "CAP_PERFMON");
	a.flags &= ~PEV_ATTR_EXCLUDE_KERNEL; /* then it is a question of privilege */
	cr_expect_eq(check_bp(&a, &err), 0, "%s", err.message);
}

/* ---- without facts ------------------------------------------------------ */

Test(validate, null_machine_skips_the_rules_that_need_facts)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	memset(&err, 0, sizeof(err));
	expect_ok(pev_attr_check(NULL, &r, &err), &err);
	r.cpu = 1000; /* no CPU list */
	expect_ok(pev_attr_check(NULL, &r, &err), &err);
	a.flags |= PEV_ATTR_FREQ;
	a.sample_freq = 10000000; /* no rate limit */
	a.sample_type = PEV_SAMPLE_CALLCHAIN;
	a.sample_max_stack = 60000; /* no stack limit */
	expect_ok(pev_attr_check(NULL, &r, &err), &err);
}

Test(validate, null_machine_still_applies_the_fixed_rules)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	r.pid = -1;
	int rc = pev_attr_check(NULL, &r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "pid");
	r.pid = 0;
	a.size = 63;
	rc = pev_attr_check(NULL, &r, &err);
	EXPECT_REFUSED(rc, err, PEV_E2BIG, "size");
	a = breakpoint(PEV_BP_W, UINT64_C(0xffff888000000000), 8);
	r.event = "task-clock";
	rc = pev_attr_check(NULL, &r, &err);
	EXPECT_REFUSED(rc, err, PEV_EINVAL, "bp_addr");
}

Test(validate, unknown_facts_skip_the_rules_that_need_them)
{
	char root[] = "/tmp/perfev-validate-XXXXXX";
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	cr_assert_not_null(mkdtemp(root));
	cr_assert_eq(pev_machine_read(&machine, root), 0);
	rmdir(root);
	r.cpu = 64;
	a.flags |= PEV_ATTR_FREQ;
	a.sample_freq = 1000000;
	memset(&err, 0, sizeof(err));
	expect_ok(pev_attr_check(&machine, &r, &err), &err);
}

Test(validate, bad_arguments)
{
	struct pev_open_request r = {.pid = 0, .cpu = -1, .group_fd = -1};
	struct pev_error err;

	load("vm-nopmu");
	cr_expect_eq(pev_attr_check(&machine, NULL, &err), PEV_EBADARG);
	cr_expect_eq(err.code, PEV_EBADARG);
	cr_expect_eq(pev_attr_check(&machine, &r, &err), PEV_EBADARG, "no attr");
	cr_expect_str_eq(err.field, "req");
	cr_expect_eq(pev_attr_check(NULL, NULL, NULL), PEV_EBADARG);
}

Test(validate, event_name_comes_from_the_attr_when_not_given)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	r.event = NULL;
	r.pid = -1;
	int rc = check_vm(&r, &err);
	cr_expect_eq(rc, PEV_EINVAL);
	cr_expect_str_eq(err.event, "task-clock");
	HAS(err.message, "cannot open 'task-clock' on every task of every CPU: ");
}

Test(validate, first_broken_rule_wins_and_is_reported_once)
{
	struct pev_attr a = task_clock();
	struct pev_open_request r = request(&a);
	struct pev_error err;

	a.size = 63;
	r.pid = -1;
	a.flags |= PEV_ATTR_SIGTRAP;
	int rc = check_vm(&r, &err);
	cr_expect_eq(rc, PEV_E2BIG);
	HASNT(err.message, "pid -1");
	HASNT(err.message, "sigtrap");
	cr_expect_eq(strstr(err.message, "cannot open"), err.message);
	cr_expect_null(strstr(err.message + 1, "cannot open"));
}

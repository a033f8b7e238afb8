/* SPDX-License-Identifier: MIT */
/*
 * test_errno_injected.c - errors this machine cannot produce, injected at
 * the syscall seam: EBUSY, EINTR, ENODEV, ENFILE, ENOMEM, EACCES/EPERM for
 * root, an errno perf_event_open never documents, a failure half way through
 * a per-CPU open, a fake kernel that refuses chosen attribute bits (to test
 * the retries that name the refused field), and failing ioctl, read and
 * mmap calls.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"


/* Opens ev expecting `code`, with the kernel (here: the seam) having said errnum. */
static void open_fails(struct pev_event ev, const struct pev_opts *o, const struct pev_target *t,
		       int code, int errnum, struct pev_error *err)
{
	th_open_fails(ev, o, t, NULL, code, err);
	cr_expect_eq(err->sys_errno, errnum);
	cr_expect_not(err->before_syscall);
}

static volatile uint64_t watched;

/* ---- errnos the machine cannot produce --------------------------------- */

Test(errno_injected, ebusy, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_error err;

	th_inject_open_errno(EBUSY, 0, 1);
	open_fails(pev_event_software(PEV_SW_TASK_CLOCK), NULL, NULL, PEV_EBUSY, EBUSY, &err);
	cr_expect_str_eq(pev_error_name(err.code), "DeviceBusy");
	expect_has(err.message, "busy");
	expect_has(err.message, "EBUSY");
	expect_has(err.message, "exclusively");
	expect_has(err.hint, "other tool");
	cr_expect_eq(th_open_calls(), 1, "EBUSY is not retried");
}

Test(errno_injected, eintr_uprobe_shared_with_ftrace, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_event ev;
	struct pev_error err;

	if (pev_event_uprobe(&ev, "/bin/true", 0, false, NULL, &err) < 0)
		th_skip("no uprobe PMU: %s", err.message);
	th_inject_open_errno(EINTR, 0, 1);
	open_fails(ev, NULL, NULL, PEV_EINTR, EINTR, &err);
	cr_expect_str_eq(pev_error_name(err.code), "Interrupted");
	expect_has(err.message, "uprobe");
	expect_has(err.message, "ftrace");
	expect_has(err.hint, "uprobe_events");
}

Test(errno_injected, enodev_breakpoint, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_error err;

	o.exclude_kernel = true;
	th_inject_open_errno(ENODEV, 0, 1);
	open_fails(pev_event_breakpoint((uint64_t)(uintptr_t)&watched, 8, PEV_BP_W), &o, NULL,
		   PEV_ENODEV, ENODEV, &err);
	cr_expect_str_eq(pev_error_name(err.code), "EventRequiresUnsupportedCpuFeature");
	expect_has(err.message, "CPU feature");
	expect_has(err.message, "ENODEV");
}

Test(errno_injected, enodev_software_event, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_error err;

	th_inject_open_errno(ENODEV, 0, 1);
	open_fails(pev_event_software(PEV_SW_TASK_CLOCK), NULL, NULL, PEV_ENODEV, ENODEV, &err);
	expect_has(err.message, "CPU feature");
	expect_has(err.message, "task-clock");
}

Test(errno_injected, enfile, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_error err;

	th_inject_open_errno(ENFILE, 0, 1);
	open_fails(pev_event_software(PEV_SW_TASK_CLOCK), NULL, NULL, PEV_ENFILE, ENFILE, &err);
	cr_expect_str_eq(pev_error_name(err.code), "SystemResources");
	expect_has(err.message, "open file table is full");
	expect_has(err.hint, "fs.file-max");
}

Test(errno_injected, enomem, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_error err;

	th_inject_open_errno(ENOMEM, 0, 1);
	open_fails(pev_event_software(PEV_SW_TASK_CLOCK), NULL, NULL, PEV_ENOMEM, ENOMEM, &err);
	cr_expect_str_eq(pev_error_name(err.code), "OutOfMemory");
	expect_has(err.message, "out of memory");
}

Test(errno_injected, enosys_without_seccomp, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_error err;

	th_inject_open_errno(ENOSYS, 0, 1);
	open_fails(pev_event_software(PEV_SW_TASK_CLOCK), NULL, NULL, PEV_ENOSYS, ENOSYS, &err);
	expect_has(err.message, "ENOSYS");
	expect_lacks(err.message, "seccomp filter is active");
	expect_has(err.message, "does not implement perf_event_open");
}

Test(errno_injected, enosys_user_stack_sampling, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_error err;

	o.sample_period = 100000;
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_STACK_USER;
	o.sample_stack_user = 8192;
	th_inject_open_errno(ENOSYS, 0, 1);
	open_fails(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, PEV_ENOSYS, ENOSYS, &err);
	expect_has(err.message, "PEV_SAMPLE_STACK_USER");
	expect_has(err.hint, "PEV_SAMPLE_CALLCHAIN");
}

/* ---- EACCES / EPERM for a privileged process --------------------------- */

static void check_root_access_message(int errnum, int code)
{
	struct pev_error err;
	char paranoid[64];

	th_require_root();
	snprintf(paranoid, sizeof(paranoid), "perf_event_paranoid is %ld",
		 th_sysctl("perf_event_paranoid"));
	/*
	 * Refused twice: counting the kernel, then user space only (the fallback
	 * of an event that chose no level, docs/API.md): the first diagnosis stays.
	 */
	th_inject_open_errno(errnum, 0, 2);
	open_fails(pev_event_software(PEV_SW_TASK_CLOCK), NULL, NULL, code, errnum, &err);
	expect_has(err.message, errnum == EPERM ? "EPERM" : "EACCES");
	expect_has(err.message, paranoid);
	expect_has(err.message, "uid 0");
	expect_has(err.message, "CAP_PERFMON");
	expect_has(err.message, "CAP_SYS_ADMIN");
	/* Nothing the request does needs more privilege than root has: say what else denies. */
	expect_has(err.message, "security module");
	expect_lacks(err.message, "exclude_kernel is off");
}

Test(errno_injected, eacces_for_root, .init = th_leak_init, .fini = th_leak_fini)
{
	check_root_access_message(EACCES, PEV_EACCES);
}

Test(errno_injected, eperm_for_root, .init = th_leak_init, .fini = th_leak_fini)
{
	check_root_access_message(EPERM, PEV_EPERM);
}

/* ---- an errno perf_event_open does not document ------------------------ */

Test(errno_injected, unknown_errno_keeps_its_value, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_error err;
	char text[128];

	th_inject_open_errno(EXDEV, 0, 1);
	open_fails(pev_event_software(PEV_SW_TASK_CLOCK), NULL, NULL, -EXDEV, EXDEV, &err);
	cr_expect_str_eq(pev_error_name(err.code), "Unexpected");
	cr_expect_str_eq(pev_strerror(err.code), "unexpected error");
	snprintf(text, sizeof(text), "%s (errno %d)", strerror(EXDEV), EXDEV);
	expect_has(err.message, text);
	expect_has(err.message, "task-clock");
}

/* ---- a failure half way through a per-CPU open ------------------------- */

Test(errno_injected, second_cpu_fails_nothing_leaks, .init = th_leak_init, .fini = th_leak_fini)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct pev_target all = pev_target_all_cpus();
	struct pev_error err;
	char need[32];

	if (cpus < 2)
		th_skip("needs two online CPUs");
	int perf_before = th_count_perf_fds(), fds_before = th_count_fds();
	th_inject_open_errno(EMFILE, 1, 1);
	open_fails(pev_event_software(PEV_SW_CPU_CLOCK), NULL, &all, PEV_EMFILE, EMFILE, &err);
	cr_expect_eq(th_open_calls(), 2, "the first CPU opened, the second failed");
	cr_expect_eq(th_count_perf_fds(), perf_before, "the first CPU's descriptor was closed");
	cr_expect_eq(th_count_fds(), fds_before);
	snprintf(need, sizeof(need), "needs %ld", cpus);
	expect_has(err.message, need);
	expect_has(err.message, "on every task of CPU 1");
}

Test(errno_injected, last_cpu_fails_with_another_errno, .init = th_leak_init,
     .fini = th_leak_fini)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct pev_target all = pev_target_all_cpus();
	struct pev_error err;

	if (cpus < 2)
		th_skip("needs two online CPUs");
	int perf_before = th_count_perf_fds();
	th_inject_open_errno(ENOMEM, (int)cpus - 1, 1);
	open_fails(pev_event_software(PEV_SW_CPU_CLOCK), NULL, &all, PEV_ENOMEM, ENOMEM, &err);
	cr_expect_eq(th_open_calls(), (int)cpus);
	cr_expect_eq(th_count_perf_fds(), perf_before);
}

/* ---- the retries that name the refused field --------------------------- */

Test(errno_injected, probe_names_a_refused_flag, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_error err;

	o.context_switch = true;
	o.exclude_kernel = true;
	o.comm = true;
	th_inject_refuse_bits(PEV_ATTR_CONTEXT_SWITCH, 0, 0);
	open_fails(pev_event_software(PEV_SW_DUMMY), &o, NULL, PEV_EINVAL, EINVAL, &err);
	cr_expect_str_eq(err.field, "context_switch");
	expect_has(err.message, "without context_switch");
	expect_has(err.hint, "drop context_switch");
	cr_expect_gt(th_open_calls(), 1, "the probe retried");
}

Test(errno_injected, probe_names_a_refused_sample_bit, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_error err;

	o.sample_period = 10000;
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_PHYS_ADDR | PEV_SAMPLE_TIME;
	th_inject_refuse_bits(0, PEV_SAMPLE_PHYS_ADDR, 0);
	open_fails(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, PEV_EINVAL, EINVAL, &err);
	cr_expect_str_eq(err.field, "sample_type PEV_SAMPLE_PHYS_ADDR");
	expect_has(err.message, "without sample_type PEV_SAMPLE_PHYS_ADDR");
}

Test(errno_injected, probe_names_a_refused_read_format_bit, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_error err;

	o.read_format = PEV_FORMAT_TOTAL_TIME_ENABLED | PEV_FORMAT_ID | PEV_FORMAT_LOST;
	th_inject_refuse_bits(0, 0, PEV_FORMAT_LOST);
	open_fails(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, PEV_EINVAL, EINVAL, &err);
	cr_expect_str_eq(err.field, "read_format PEV_FORMAT_LOST");
	expect_has(err.hint, "drop read_format PEV_FORMAT_LOST");
}

Test(errno_injected, no_probe_flag_suppresses_the_retries, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_error err;

	o.context_switch = true;
	o.open_flags = PEV_OPEN_NO_PROBE;
	th_inject_refuse_bits(PEV_ATTR_CONTEXT_SWITCH, 0, 0);
	open_fails(pev_event_software(PEV_SW_DUMMY), &o, NULL, PEV_EINVAL, EINVAL, &err);
	cr_expect_eq(th_open_calls(), 1, "one call, no retries (%d)", th_open_calls());
	cr_expect_str_eq(err.field, "");
	expect_lacks(err.message, "Retrying");
	expect_lacks(err.message, "accepts the event without");
}

Test(errno_injected, two_refused_bits_no_single_field, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_error err;

	o.context_switch = true;
	o.sample_period = 10000;
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_PHYS_ADDR;
	th_inject_refuse_bits(PEV_ATTR_CONTEXT_SWITCH, PEV_SAMPLE_PHYS_ADDR, 0);
	open_fails(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, PEV_EINVAL, EINVAL, &err);
	cr_expect_str_eq(err.field, "");
	expect_has(err.message, "no single field");
	expect_lacks(err.message, "accepts the event without");
	cr_expect_gt(th_open_calls(), 2, "every candidate was tried");
}

/* ---- ioctl, read and mmap ---------------------------------------------- */

Test(errno_injected, ioctl_failures_return_the_code, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), NULL, NULL, NULL);
	uint64_t id;

	th_inject_call_errno("ioctl", ENOTTY);
	cr_expect_eq(pev_counter_enable(c), PEV_ENOTTY);
	cr_expect_eq(pev_counter_disable(c), PEV_ENOTTY);
	cr_expect_eq(pev_counter_reset(c), PEV_ENOTTY);
	cr_expect_eq(pev_counter_id(c, 0, &id), PEV_ENOTTY);
	th_inject_call_errno("ioctl", EINVAL);
	cr_expect_eq(pev_counter_enable(c), PEV_EINVAL);
	th_inject_reset();
	cr_expect_eq(pev_counter_enable(c), 0);
	pev_counter_close(c);
}

Test(errno_injected, read_failures_return_the_code, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), NULL, NULL, NULL);
	struct pev_count v;

	th_inject_call_errno("read", EIO);
	cr_expect_eq(pev_counter_read(c, &v), PEV_EIO);
	th_inject_call_errno("read", ENOSPC);
	cr_expect_eq(pev_counter_read(c, &v), PEV_ENOSPC);
	th_inject_reset();
	cr_expect_eq(pev_counter_read(c, &v), 0);
	pev_counter_close(c);
}

Test(errno_injected, mmap_eperm_explains_the_locked_memory_budget, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_ring *r = (struct pev_ring *)1;
	struct pev_error err;
	char mlock[64];

	o.sample_period = 100000;
	o.sample_type = PEV_SAMPLE_IP;
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, NULL);
	snprintf(mlock, sizeof(mlock), "allows %ld KiB per CPU", th_sysctl("perf_event_mlock_kb"));

	/* 1 + 1024 pages is more than perf_event_mlock_kb on every CPU here allows. */
	th_inject_call_errno("mmap", EPERM);
	int code = pev_ring_open(c, 0, 1024, &r, &err);
	cr_expect_eq(code, PEV_EPERM, "got %s", pev_error_name(code));
	cr_expect_null(r);
	cr_expect_eq(err.code, PEV_EPERM);
	cr_expect_eq(err.sys_errno, EPERM);
	cr_expect_str_eq(err.syscall, "mmap");
	cr_expect_str_eq(err.event, "task-clock");
	cr_expect_not(err.before_syscall);
	expect_has(err.message, "perf_event_mlock_kb");
	expect_has(err.message, mlock);
	expect_has(err.message, "RLIMIT_MEMLOCK");
	expect_has(err.message, "1 + 1024 pages");
	expect_has(err.hint, "map fewer pages");
	expect_has(err.hint, "sysctl kernel.perf_event_mlock_kb");

	/* With the real kernel back the same ring maps. */
	th_inject_reset();
	cr_assert_eq(pev_ring_open(c, 0, 8, &r, &err), 0, "%s", err.message);
	pev_ring_close(r);
	pev_counter_close(c);
}

Test(errno_injected, mmap_other_errno, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_ring *r = NULL;
	struct pev_error err;

	o.sample_period = 100000;
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, NULL);
	th_inject_call_errno("mmap", ENODEV);
	cr_expect_eq(pev_ring_open(c, 0, 4, &r, &err), PEV_ENODEV);
	cr_expect_null(r);
	expect_has(err.message, strerror(ENODEV));
	th_inject_reset();
	pev_counter_close(c);
}

Test(errno_injected, probe_names_privilege_exclusions_refused_together, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c = NULL;
	struct pev_error err;

	/* A PMU that filters no privilege level refuses each exclude_* bit. */
	th_inject_refuse_bits(PEV_ATTR_EXCLUDE_USER | PEV_ATTR_EXCLUDE_KERNEL | PEV_ATTR_EXCLUDE_HV,
			      0, 0);
	o.exclude_kernel = true;
	o.exclude_hv = true;
	cr_assert_eq(pev_counter_open(&ev, &o, NULL, NULL, &c, &err), PEV_EINVAL);
	cr_assert_null(c);
	expect_has(err.field, "privilege-level exclusions");
	expect_has(err.hint, "drop the privilege-level exclusions");
}

/* ---- EPERM for an exclude_* bit the PMU cannot honour ------------------- */

/*
 * The man page's EPERM entry (and Zig's wrapper) name a second cause: a PMU
 * that cannot filter by privilege level refuses an exclude_* bit with EPERM
 * on some architectures. The retry without the bit tells it from a lack of
 * privilege, names the bit and says to drop it.
 */
Test(errno_injected, eperm_for_an_exclude_bit_names_it, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_error err;

	o.exclude_hv = true;
	o.exclude_kernel = false;
	th_inject_refuse_bits_errno(EPERM, PEV_ATTR_EXCLUDE_HV, 0, 0);
	open_fails(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, PEV_EPERM, EPERM, &err);
	cr_expect_str_eq(err.field, "exclude_hv");
	expect_has(err.message, "EPERM");
	expect_has(err.message, "not for lack of privilege");
	expect_has(err.message, "without exclude_hv");
	expect_has(err.hint, "drop exclude_hv");
	expect_lacks(err.message, "perf_event_paranoid");
	cr_expect_eq(th_open_calls(), 3, "the open, without every exclude_* bit, without exclude_hv");
}

Test(errno_injected, eperm_for_several_exclude_bits_names_them_together, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_error err;

	o.exclude_kernel = true;
	o.exclude_hv = true;
	th_inject_refuse_bits_errno(EPERM, PEV_ATTR_EXCLUDE_KERNEL | PEV_ATTR_EXCLUDE_HV, 0, 0);
	open_fails(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, PEV_EPERM, EPERM, &err);
	expect_has(err.field, "privilege-level exclusions");
	expect_has(err.hint, "drop the privilege-level exclusions");
}

/* EPERM that the exclude_* bits do not explain stays a matter of privilege. */
Test(errno_injected, eperm_not_caused_by_exclude_bits_is_about_privilege, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_error err;

	o.exclude_hv = true;
	th_inject_open_errno(EPERM, 0, -1);
	open_fails(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, PEV_EPERM, EPERM, &err);
	cr_expect_str_eq(err.field, "");
	expect_has(err.message, "perf_event_paranoid");
	expect_has(err.message, "refuse an exclude_* bit");
	expect_has(err.hint, "without its exclude_* bits");
	cr_expect_eq(th_open_calls(), 2, "the open and one retry without the exclude_* bits");
}

/* PEV_OPEN_NO_PROBE: no retry, the privilege diagnosis alone. */
Test(errno_injected, eperm_no_probe_flag_skips_the_retry, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_opts o = th_opts();
	struct pev_error err;

	o.exclude_hv = true;
	o.open_flags = PEV_OPEN_NO_PROBE;
	th_inject_refuse_bits_errno(EPERM, PEV_ATTR_EXCLUDE_HV, 0, 0);
	open_fails(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, PEV_EPERM, EPERM, &err);
	cr_expect_eq(th_open_calls(), 1);
	cr_expect_str_eq(err.field, "");
}

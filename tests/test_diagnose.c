/* SPDX-License-Identifier: MIT */
/*
 * test_diagnose.c - from an errno to what went wrong on this machine and the
 * fix: pev_diagnose_open for every errno of perf_event_open, pev_diagnose_mmap
 * and pev_diagnose_call, against the fake machines in tests/fixtures/machines.
 *
 * The assertions check facts, not whole sentences: the code and errno, the
 * event and target, the numbers and names the user needs, and the fixes.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"

#define HAS(text, needle)                                                                          \
	cr_expect(strstr((text), (needle)) != NULL, "expected \"%s\" in: %s", (needle), (text))
#define HASNT(text, needle)                                                                        \
	cr_expect(strstr((text), (needle)) == NULL, "did not expect \"%s\" in: %s", (needle), (text))

static struct pev_machine m;
static struct pev_error err;

static void load(const char *name)
{
	char root[512];

	snprintf(root, sizeof(root), "%s/machines/%s", th_fixtures(), name);
	cr_assert_eq(pev_machine_read(&m, root), 0, "reading fixture %s", name);
}

/* The facts of vm-nopmu as seen by a process dropped to nobody without capabilities. */
static void load_vm_as_nobody(void)
{
	load("vm-nopmu");
	m.euid = 65534;
	m.cap_perfmon = m.cap_sys_admin = m.cap_sys_ptrace = m.cap_ipc_lock = false;
}

static int count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static struct pev_attr attr_of(uint32_t type, uint64_t config, bool user_only)
{
	struct pev_attr a;

	memset(&a, 0, sizeof(a));
	a.type = type;
	a.size = PEV_ATTR_SIZE_LATEST;
	a.config = config;
	a.flags = PEV_ATTR_DISABLED;
	if (user_only)
		a.flags |= PEV_ATTR_EXCLUDE_KERNEL | PEV_ATTR_EXCLUDE_HV;
	return a;
}

static struct pev_open_request request(const struct pev_attr *a, const char *event)
{
	struct pev_open_request r = {
		.attr = a,
		.pid = 0,
		.cpu = -1,
		.group_fd = -1,
		.flags = PEV_FLAG_FD_CLOEXEC,
		.event = event,
		.fds_needed = 1,
	};
	return r;
}

/*
 * Diagnoses errnum for r on the loaded machine and checks what every
 * diagnosis carries: the code, the errno, the call, the event and the
 * "cannot open '<event>' <target>: " prefix.
 */
static void diagnose(const struct pev_open_request *r, int errnum, uint32_t size_back,
		     const char *target)
{
	char prefix[256];

	memset(&err, 0x5a, sizeof(err));
	int rc = pev_diagnose_open(&m, r, errnum, size_back, &err);
	cr_expect_eq(rc, pev_error_from_errno(errnum));
	cr_expect_eq(rc, -errnum);
	cr_expect_eq(err.code, rc);
	cr_expect_eq(err.sys_errno, errnum);
	cr_expect_not(err.before_syscall);
	cr_expect_str_eq(err.syscall, "perf_event_open");
	cr_expect_str_eq(err.event, r->event);
	snprintf(prefix, sizeof(prefix), "cannot open '%s' %s: ", r->event, target);
	cr_expect_eq(strncmp(err.message, prefix, strlen(prefix)), 0, "expected \"%s\" to start: %s",
		     prefix, err.message);
	cr_expect_lt(strlen(err.message), sizeof(err.message) - 1, "message cut: %s", err.message);
}

#define SELF "on the calling thread"

/* ---- EACCES / EPERM ------------------------------------------------------ */

Test(diagnose, eacces_as_root_points_at_a_security_module)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_TASK_CLOCK, false);
	struct pev_open_request r = request(&a, "task-clock");

	load("vm-nopmu");
	diagnose(&r, EACCES, 0, SELF);
	HAS(err.message, "permission denied (EACCES)");
	HAS(err.message, "perf_event_paranoid is 2");
	HAS(err.message, pev_paranoid_meaning(2));
	HAS(err.message, "uid 0");
	HAS(err.message, "holds CAP_PERFMON and CAP_SYS_ADMIN");
	HAS(err.message, "security module");
	HASNT(err.message, "counts the kernel");
	HASNT(err.hint, "setcap");
}

/*
 * The kernel checks privileges before it looks for a PMU: on a machine with
 * none, a refused hardware event is explained by the missing PMU, not by the
 * paranoid level (neither ':u' nor a sysctl would make it count).
 */
Test(diagnose, eacces_for_hardware_without_a_pmu_names_the_missing_pmu)
{
	struct pev_attr a = attr_of(PEV_TYPE_HARDWARE, PEV_HW_CPU_CYCLES, false);
	struct pev_open_request r = request(&a, "cycles");

	load_vm_as_nobody();
	diagnose(&r, EACCES, 0, SELF);
	HAS(err.message, "permission denied (EACCES)");
	HAS(err.message, "no hardware PMU");
	HASNT(err.message, "perf_event_paranoid is");
	HAS(err.hint, "cpu-clock");
	HASNT(err.hint, "':u'");
	HASNT(err.hint, "perf_event_paranoid");

	/* A software event refused the same way is about privileges still. */
	a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_TASK_CLOCK, false);
	r = request(&a, "task-clock");
	diagnose(&r, EACCES, 0, SELF);
	HAS(err.message, "perf_event_paranoid is 2");
	HASNT(err.message, "no hardware PMU");
}

Test(diagnose, eacces_in_a_container_at_level_3)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_TASK_CLOCK, true);
	struct pev_open_request r = request(&a, "task-clock:u");

	load("container");
	diagnose(&r, EACCES, 0, SELF);
	HAS(err.message, "perf_event_paranoid is 3");
	HAS(err.message, "level 3");
	HAS(err.message, "not use perf_event_open at all");
	HAS(err.message, "uid 1000");
	HAS(err.message, "neither CAP_PERFMON nor CAP_SYS_ADMIN");
	HAS(err.message, "seccomp");
	HAS(err.message, "container");
	HAS(err.hint, "sysctl kernel.perf_event_paranoid=2");
	HAS(err.hint, "setcap cap_perfmon+ep");
	HAS(err.hint, "seccomp=unconfined");
	cr_expect_eq(count(err.hint, "setcap"), 1, "one capability hint: %s", err.hint);
	HASNT(err.message, "counts the kernel"); /* it is :u */
}

Test(diagnose, eperm_from_seccomp_names_the_profile)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_TASK_CLOCK, true);
	struct pev_open_request r = request(&a, "task-clock:u");

	load("container");
	diagnose(&r, EPERM, 0, SELF);
	HAS(err.message, "operation not permitted (EPERM)");
	HAS(err.message, "Seccomp: 2");
	HAS(err.hint, "--security-opt seccomp=unconfined");
}

Test(diagnose, eacces_for_kernel_counting_at_level_2)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_TASK_CLOCK, false);
	struct pev_open_request r = request(&a, "task-clock");

	load_vm_as_nobody();
	diagnose(&r, EACCES, 0, SELF);
	HAS(err.message, "perf_event_paranoid is 2");
	HAS(err.message, "user space only");
	HAS(err.message, "uid 65534");
	HAS(err.message, "neither CAP_PERFMON nor CAP_SYS_ADMIN");
	HAS(err.message, "counts the kernel");
	HAS(err.message, "level 1 or less");
	HAS(err.hint, "':u'");
	HAS(err.hint, "sysctl kernel.perf_event_paranoid=1");
	HAS(err.hint, "setcap cap_perfmon+ep");
	HASNT(err.message, "seccomp");
}

Test(diagnose, eacces_for_a_cpu_wide_event)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	load_vm_as_nobody();
	r.pid = -1;
	r.cpu = 1;
	diagnose(&r, EACCES, 0, "on every task of CPU 1");
	HAS(err.message, "CPU-wide");
	HAS(err.message, "level 0 or less");
	HAS(err.hint, "sysctl kernel.perf_event_paranoid=0");
	HAS(err.hint, "measure your own processes");
	HAS(err.hint, "setcap cap_perfmon+ep");
	HASNT(err.message, "counts the kernel");
}

Test(diagnose, eacces_on_an_old_kernel_suggests_cap_sys_admin)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	load("old-kernel");
	r.pid = -1;
	r.cpu = 0;
	diagnose(&r, EACCES, 0, "on every task of CPU 0");
	HAS(err.message, "perf_event_paranoid is 1");
	HAS(err.message, "CPU-wide");
	HAS(err.hint, "sysctl kernel.perf_event_paranoid=0");
	HAS(err.hint, "CAP_SYS_ADMIN");
	HAS(err.hint, "5.8");
	HAS(err.hint, "4.19.0-27-amd64");
	HASNT(err.hint, "cap_perfmon");
}

Test(diagnose, eacces_for_another_users_process)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_TASK_CLOCK, true);
	struct pev_open_request r = request(&a, "task-clock:u");

	load("old-kernel");
	r.pid = 4321;
	diagnose(&r, EACCES, 0, "on thread 4321");
	HAS(err.message, "Thread 4321 belongs to uid 0");
	HAS(err.message, "uid 1000");
	HAS(err.message, "CAP_SYS_PTRACE");
	HAS(err.hint, "run as uid 0");
	HAS(err.hint, "CAP_SYS_PTRACE");
}

Test(diagnose, eacces_for_an_own_process_does_not_blame_the_owner)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_TASK_CLOCK, true);
	struct pev_open_request r = request(&a, "task-clock:u");

	load("old-kernel");
	r.pid = 4322; /* uid 1000, like the caller */
	diagnose(&r, EACCES, 0, "on thread 4322");
	HASNT(err.message, "belongs to uid");
	r.pid = 4399; /* no such process: no owner to name */
	diagnose(&r, EACCES, 0, "on thread 4399");
	HASNT(err.message, "belongs to uid");
}

Test(diagnose, eacces_for_a_kernel_breakpoint)
{
	struct pev_attr a = attr_of(PEV_TYPE_BREAKPOINT, 0, false);
	struct pev_open_request r = request(&a, "mem:0xffffffff81000000:w");

	a.bp_type = PEV_BP_W;
	a.bp_addr = UINT64_C(0xffffffff81000000);
	a.bp_len = 8;
	load_vm_as_nobody();
	diagnose(&r, EACCES, 0, SELF);
	HAS(err.message, "breakpoint address 0xffffffff81000000 is kernel memory");
	HAS(err.hint, "watch user-space memory");
	HAS(err.hint, "CAP_PERFMON");
}

Test(diagnose, eperm_for_raw_tracepoint_data)
{
	struct pev_attr a = attr_of(PEV_TYPE_TRACEPOINT, 321, true);
	struct pev_open_request r = request(&a, "sched:sched_switch");

	a.sample_period = 1;
	a.sample_type = PEV_SAMPLE_RAW | PEV_SAMPLE_TID;
	load_vm_as_nobody();
	diagnose(&r, EPERM, 0, SELF);
	HAS(err.message, "operation not permitted (EPERM)");
	HAS(err.message, "raw tracepoint data");
	HAS(err.message, "PEV_SAMPLE_RAW");
	HAS(err.message, "level -1");
	HAS(err.hint, "drop PEV_SAMPLE_RAW");
	HAS(err.hint, "sysctl kernel.perf_event_paranoid=-1");
}

Test(diagnose, eacces_for_a_uprobe_needs_cap_perfmon)
{
	static const char path[] = "/usr/bin/true";
	struct pev_attr a = attr_of(8, 0, true); /* vm-nopmu's uprobe PMU */
	struct pev_open_request r = request(&a, "uprobe:/usr/bin/true:0x1000");

	a.config1 = (uint64_t)(uintptr_t)path;
	a.config2 = 0x1000;
	load_vm_as_nobody();
	diagnose(&r, EACCES, 0, SELF);
	HAS(err.message, "uprobe events needs CAP_PERFMON or CAP_SYS_ADMIN");
	HAS(err.message, "whatever the paranoid level");
	HAS(err.hint, "setcap cap_perfmon+ep");
}

Test(diagnose, eacces_for_branch_stacks_with_kernel_branches)
{
	struct pev_attr a = attr_of(PEV_TYPE_RAW, 0xc4, true);
	struct pev_open_request r = request(&a, "r00c4:u");

	a.sample_period = 10000;
	a.sample_type = PEV_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PEV_BRANCH_ANY | PEV_BRANCH_KERNEL;
	/* A machine with a PMU: without one, the missing PMU is the explanation. */
	load("hybrid");
	m.paranoid = 2;
	m.euid = 65534;
	m.cap_perfmon = m.cap_sys_admin = m.cap_sys_ptrace = m.cap_ipc_lock = false;
	diagnose(&r, EACCES, 0, SELF);
	HAS(err.message, "kernel branches");
	HAS(err.hint, "PEV_BRANCH_KERNEL");
}

Test(diagnose, eacces_at_level_minus_1_is_not_unknown)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_TASK_CLOCK, false);
	struct pev_open_request r = request(&a, "task-clock");

	load_vm_as_nobody();
	m.paranoid = -1;
	diagnose(&r, EACCES, 0, SELF);
	HAS(err.message, "perf_event_paranoid is -1");
	HAS(err.message, "no restrictions");
	HASNT(err.message, "unknown");
	HASNT(err.message, "counts the kernel");
}

Test(diagnose, eacces_without_perf_events)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_TASK_CLOCK, true);
	struct pev_open_request r = request(&a, "task-clock:u");

	load("no-perf");
	diagnose(&r, EACCES, 0, SELF);
	HAS(err.message, "no perf events support");
}

/* ---- ENOENT -------------------------------------------------------------- */

Test(diagnose, enoent_cycles_in_a_vm_without_pmu)
{
	struct pev_attr a = attr_of(PEV_TYPE_HARDWARE, PEV_HW_CPU_CYCLES, true);
	struct pev_open_request r = request(&a, "cycles:u");

	load("vm-nopmu");
	diagnose(&r, ENOENT, 0, SELF);
	HAS(err.message, "no such event (ENOENT)");
	HAS(err.message, "no hardware PMU");
	HAS(err.message, "virtual machine");
	HAS(err.message, "QEMU Standard PC (i440FX + PIIX, 1996)");
	HAS(err.hint, "cpu-clock");
	HAS(err.hint, "task-clock");
	HAS(err.hint, "pmu=on");
}

Test(diagnose, enoent_cache_event_in_a_vm_has_no_software_stand_in)
{
	struct pev_attr a = attr_of(PEV_TYPE_HW_CACHE, PEV_HW_CACHE_CONFIG(PEV_HW_CACHE_L1D,
			PEV_HW_CACHE_OP_READ, PEV_HW_CACHE_RESULT_MISS), true);
	struct pev_open_request r = request(&a, "L1-dcache-load-misses:u");

	load("vm-nopmu");
	diagnose(&r, ENOENT, 0, SELF);
	HAS(err.message, "no hardware PMU");
	HAS(err.hint, "no software equivalent");
	HAS(err.hint, "pmu=on");
}

Test(diagnose, enoent_on_bare_metal_without_core_pmu)
{
	struct pev_attr a = attr_of(PEV_TYPE_HARDWARE, PEV_HW_INSTRUCTIONS, true);
	struct pev_open_request r = request(&a, "instructions:u");

	load("no-perf");
	diagnose(&r, ENOENT, 0, SELF);
	HAS(err.message, "no hardware PMU");
	HASNT(err.message, "virtual machine");
	HAS(err.hint, "cpu-clock");
	HASNT(err.hint, "pmu=on");
}

Test(diagnose, enoent_cycles_where_the_pmu_exists)
{
	struct pev_attr a = attr_of(PEV_TYPE_HARDWARE, PEV_HW_REF_CPU_CYCLES, true);
	struct pev_open_request r = request(&a, "ref-cycles:u");

	load("hybrid");
	diagnose(&r, ENOENT, 0, SELF);
	HAS(err.message, "the core PMUs (cpu_atom cpu_core) do not implement generic hardware "
			 "event 9");
	HASNT(err.message, "no hardware PMU");
	HAS(err.hint, "ls /sys/bus/event_source/devices/{cpu_atom,cpu_core}/events");
	HAS(err.hint, "cpu-clock");
}

Test(diagnose, enoent_unknown_dynamic_type_lists_the_pmus)
{
	struct pev_attr a = attr_of(99, 1, true);
	struct pev_open_request r = request(&a, "foo/bar/");

	load("vm-nopmu");
	diagnose(&r, ENOENT, 0, SELF);
	HAS(err.message, "no PMU has type 99");
	HAS(err.message, "breakpoint(5)");
	HAS(err.message, "msr(10)");
	HAS(err.message, "uprobe(8)");
	HAS(err.message, "software(1)");
	HAS(err.hint, "/sys/bus/event_source/devices/<pmu>/type");
}

Test(diagnose, enoent_unknown_software_id)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, 99, true);
	struct pev_open_request r = request(&a, "software event 99");

	load("vm-nopmu");
	diagnose(&r, ENOENT, 0, SELF);
	HAS(err.message, "software event id 99 is not known to this kernel (6.18.44)");
}

Test(diagnose, enoent_cgroup_switches_on_an_old_kernel)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CGROUP_SWITCHES, true);
	struct pev_open_request r = request(&a, "cgroup-switches");

	load("old-kernel");
	diagnose(&r, ENOENT, 0, SELF);
	HAS(err.message, "software event id 11");
	HAS(err.message, "4.19.0-27-amd64");
	HAS(err.message, "Linux 5.13");
}

Test(diagnose, enoent_uprobe_quotes_the_missing_path)
{
	static const char path[] = "/no/such/file";
	struct pev_attr a = attr_of(8, 0, true);
	struct pev_open_request r = request(&a, "uprobe:/no/such/file:0x10");

	a.config1 = (uint64_t)(uintptr_t)path;
	a.config2 = 0x10;
	load("vm-nopmu");
	diagnose(&r, ENOENT, 0, SELF);
	HAS(err.message, "'/no/such/file' does not exist");
	HAS(err.hint, "existing executable or library");
}

Test(diagnose, enoent_kprobe_quotes_the_missing_function)
{
	static const char func[] = "no_such_function";
	struct pev_attr a = attr_of(6, 0, false); /* container's kprobe PMU */
	struct pev_open_request r = request(&a, "kprobe:no_such_function");

	a.config1 = (uint64_t)(uintptr_t)func;
	load("container");
	diagnose(&r, ENOENT, 0, SELF);
	HAS(err.message, "'no_such_function' does not exist");
	HAS(err.hint, "/proc/kallsyms");
}

Test(diagnose, enoent_uprobe_with_an_unreadable_path_pointer)
{
	struct pev_attr a = attr_of(8, 0, true);
	struct pev_open_request r = request(&a, "uprobe");

	a.config1 = 0x10; /* not mapped: must not crash */
	load("vm-nopmu");
	diagnose(&r, ENOENT, 0, SELF);
	HAS(err.message, "the file to probe does not exist");
}

Test(diagnose, enoent_unknown_config_of_a_pmu)
{
	struct pev_attr a = attr_of(10, 0x99, false); /* vm-nopmu's msr */
	struct pev_open_request r = request(&a, "msr/event=0x99/");

	load("vm-nopmu");
	diagnose(&r, ENOENT, 0, SELF);
	HAS(err.message, "the msr PMU has no event with config 0x99");
	HAS(err.hint, "/sys/bus/event_source/devices/msr/events");
}

/* ---- EINVAL -------------------------------------------------------------- */

Test(diagnose, einval_tracepoint_without_tracefs)
{
	struct pev_attr a = attr_of(PEV_TYPE_TRACEPOINT, 123456, false);
	struct pev_open_request r = request(&a, "tracepoint 123456");

	load("vm-nopmu");
	diagnose(&r, EINVAL, 0, SELF);
	HAS(err.message, "EINVAL");
	HAS(err.message, "no tracepoint with id 123456");
	HAS(err.hint, "mount -t tracefs nodev /sys/kernel/tracing");
	load("hybrid");
	diagnose(&r, EINVAL, 0, SELF);
	HAS(err.hint, "/sys/kernel/tracing/events/");
}

Test(diagnose, einval_per_cpu_only_pmu)
{
	struct pev_attr a = attr_of(10, 0, false); /* msr */
	struct pev_open_request r = request(&a, "msr/tsc/");

	load("vm-nopmu");
	diagnose(&r, EINVAL, 0, SELF);
	/* msr has no cpumask: it counts per task too, so no per-CPU claim. */
	HASNT(err.message, "per CPU only");
}

Test(diagnose, einval_uncore_pmu_counts_per_cpu_only)
{
	struct pev_attr a = attr_of(12, 0, false); /* uncore_imc_0, with a cpumask */
	struct pev_open_request r = request(&a, "uncore_imc_0/cas_count_read/");

	load("vm-nopmu");
	diagnose(&r, EINVAL, 0, SELF);
	HAS(err.message, "uncore_imc_0 PMU counts per CPU only");
	HAS(err.hint, "CPU-wide");
}

Test(diagnose, einval_bad_cache_config)
{
	struct pev_attr a = attr_of(PEV_TYPE_HW_CACHE, PEV_HW_CACHE_CONFIG(9, 0, 0), false);
	struct pev_open_request r = request(&a, "cache 9");

	load("hybrid");
	diagnose(&r, EINVAL, 0, SELF);
	HAS(err.message, "Cache config 0x9");
}

Test(diagnose, einval_uprobe_offset)
{
	static const char path[] = "/usr/bin/true";
	struct pev_attr a = attr_of(8, 0, true);
	struct pev_open_request r = request(&a, "uprobe:/usr/bin/true:0x7fffffff");

	a.config1 = (uint64_t)(uintptr_t)path;
	a.config2 = 0x7fffffff;
	load("vm-nopmu");
	diagnose(&r, EINVAL, 0, SELF);
	HAS(err.message, "offset 0x7fffffff");
	cr_expect_neq(err.hint[0], '\0');
}

/* ---- ENODEV -------------------------------------------------------------- */

Test(diagnose, enodev_hardware_event_in_a_vm)
{
	struct pev_attr a = attr_of(PEV_TYPE_HARDWARE, PEV_HW_INSTRUCTIONS, true);
	struct pev_open_request r = request(&a, "instructions:u");

	load("vm-nopmu");
	diagnose(&r, ENODEV, 0, SELF);
	HAS(err.message, "no such device (ENODEV)");
	HAS(err.message, "no hardware PMU");
	HAS(err.message, "virtual machine (QEMU");
	HAS(err.hint, "cpu-clock");
	HAS(err.hint, "pmu=on");
}

Test(diagnose, enodev_precise_ip_where_the_pmu_exists)
{
	struct pev_attr a = attr_of(PEV_TYPE_HARDWARE, PEV_HW_CPU_CYCLES, true);
	struct pev_open_request r = request(&a, "cycles:ppp");

	a.flags |= UINT64_C(3) << PEV_ATTR_PRECISE_IP_SHIFT;
	load("hybrid");
	diagnose(&r, ENODEV, 0, SELF);
	HAS(err.message, "(ENODEV)");
	HAS(err.message, "precise_ip 3");
	HAS(err.message, "PEBS");
	HAS(err.message, "has a hardware PMU");
	HASNT(err.message, "no hardware PMU");
	HAS(err.hint, "fewer p modifiers");
	HAS(err.hint, "cpu-clock");
}

Test(diagnose, enodev_offline_cpu)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	load("old-kernel");
	r.pid = -1;
	r.cpu = 6;
	diagnose(&r, ENODEV, 0, "on every task of CPU 6");
	HAS(err.message, "CPU 6 is offline (online: 0-3)");
}

/* A task's event is not refused for an offline CPU (the kernel checks only
 * CPU-wide events), so ENODEV there has another cause: offline is not named. */
Test(diagnose, enodev_task_event_does_not_blame_an_offline_cpu)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	load("old-kernel");
	r.cpu = 6;
	diagnose(&r, ENODEV, 0, SELF " on CPU 6");
	HASNT(err.message, "offline");
}

/* ---- EOPNOTSUPP ---------------------------------------------------------- */

Test(diagnose, eopnotsupp_branch_stack_on_a_software_event)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	a.sample_period = 100000;
	a.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PEV_BRANCH_ANY;
	load("vm-nopmu");
	diagnose(&r, EOPNOTSUPP, 0, SELF);
	HAS(err.message, "(EOPNOTSUPP)");
	HAS(err.message, "software PMU");
	HAS(err.message, "Branch stacks");
	HAS(err.message, "LBR");
	HAS(err.hint, "records branches");
}

Test(diagnose, eopnotsupp_sampling_on_a_counting_only_pmu)
{
	struct pev_attr a = attr_of(10, 0, false); /* msr, type from the fixture */
	struct pev_open_request r = request(&a, "msr/tsc/");

	a.sample_period = 1000;
	load("vm-nopmu");
	r.pid = -1;
	r.cpu = 0;
	diagnose(&r, EOPNOTSUPP, 0, "on every task of CPU 0");
	HAS(err.message, "msr PMU");
	HAS(err.message, "cannot sample");
	HAS(err.hint, "count it instead");
}

Test(diagnose, eopnotsupp_hardware_event_in_a_vm)
{
	struct pev_attr a = attr_of(PEV_TYPE_HARDWARE, PEV_HW_CPU_CYCLES, true);
	struct pev_open_request r = request(&a, "cycles:u");

	a.sample_period = 100000;
	load("vm-nopmu");
	diagnose(&r, EOPNOTSUPP, 0, SELF);
	HAS(err.message, "(EOPNOTSUPP)");
	HAS(err.message, "no hardware PMU");
	HAS(err.message, "virtual machine");
	HAS(err.hint, "cpu-clock");
}

Test(diagnose, eopnotsupp_privilege_filter)
{
	struct pev_attr a = attr_of(10, 0, true);
	struct pev_open_request r = request(&a, "msr/tsc/u");

	load("vm-nopmu");
	r.pid = -1;
	r.cpu = 0;
	diagnose(&r, EOPNOTSUPP, 0, "on every task of CPU 0");
	HAS(err.message, "exclude_");
	HAS(err.hint, ":u/:k");
}

/* ---- ENOSPC, EMFILE, ENFILE ---------------------------------------------- */

Test(diagnose, enospc_breakpoints_name_the_debug_registers)
{
	struct pev_attr a = attr_of(PEV_TYPE_BREAKPOINT, 0, true);
	struct pev_open_request r = request(&a, "mem:0x601000:w");

	a.bp_type = PEV_BP_W;
	a.bp_addr = 0x601000;
	a.bp_len = 8;
	load("vm-nopmu");
	diagnose(&r, ENOSPC, 0, SELF);
	HAS(err.message, "no free hardware breakpoint slot (ENOSPC)");
	HAS(err.message, "4 debug registers");
	HAS(err.message, "x86_64");
	HAS(err.hint, "watchpoints");
}

Test(diagnose, enospc_breakpoints_without_known_registers)
{
	struct pev_attr a = attr_of(PEV_TYPE_BREAKPOINT, 0, true);
	struct pev_open_request r = request(&a, "mem:0x601000:w");

	a.bp_type = PEV_BP_W;
	a.bp_addr = 0x601000;
	a.bp_len = 4;
	load("no-perf");
	diagnose(&r, ENOSPC, 0, SELF);
	HAS(err.message, "Every debug register");
}

Test(diagnose, emfile_names_the_limits_and_the_fds_needed)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	load("old-kernel");
	r.fds_needed = 2000;
	diagnose(&r, EMFILE, 0, SELF);
	HAS(err.message, "too many open files (EMFILE)");
	HAS(err.message, "needs 2000");
	HAS(err.message, "5 are open already");
	HAS(err.message, "1024 soft");
	HAS(err.message, "4096 hard");
	HAS(err.hint, "ulimit -n 4096");
	HAS(err.hint, "fewer");
}

Test(diagnose, emfile_at_the_hard_limit_needs_root)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	load("container");
	r.fds_needed = 0; /* unset counts as one */
	diagnose(&r, EMFILE, 0, SELF);
	HAS(err.message, "needs 1");
	HAS(err.message, "1048576 soft, 1048576 hard");
	HAS(err.hint, "LimitNOFILE");
	HASNT(err.hint, "ulimit -n 1048576");
}

Test(diagnose, enfile)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	load("vm-nopmu");
	diagnose(&r, ENFILE, 0, SELF);
	HAS(err.message, "(ENFILE)");
	HAS(err.hint, "fs.file-max");
}

/* ---- ESRCH, EBADF, EBUSY ------------------------------------------------- */

Test(diagnose, esrch_zombie)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_TASK_CLOCK, true);
	struct pev_open_request r = request(&a, "task-clock:u");

	load("old-kernel");
	r.pid = 4322;
	diagnose(&r, ESRCH, 0, "on thread 4322");
	HAS(err.message, "no such process (ESRCH)");
	HAS(err.message, "thread 4322 has exited");
	HAS(err.message, "zombie");
	HAS(err.hint, "ps");
}

Test(diagnose, esrch_missing_process)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_TASK_CLOCK, true);
	struct pev_open_request r = request(&a, "task-clock:u");

	load("old-kernel");
	r.pid = 4399;
	diagnose(&r, ESRCH, 0, "on thread 4399");
	HAS(err.message, "thread 4399 does not exist");
	HASNT(err.message, "zombie");
}

Test(diagnose, esrch_live_process_in_another_namespace)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_TASK_CLOCK, true);
	struct pev_open_request r = request(&a, "task-clock:u");

	load("old-kernel");
	r.pid = 4321; /* sleeping */
	diagnose(&r, ESRCH, 0, "on thread 4321");
	HAS(err.message, "PID namespace");
}

Test(diagnose, ebadf_group_fd_minus_one)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_TASK_CLOCK, true);
	struct pev_open_request r = request(&a, "task-clock:u");

	load("vm-nopmu");
	diagnose(&r, EBADF, 0, SELF);
	HAS(err.message, "bad file descriptor (EBADF)");
	HAS(err.message, "group fd -1 is not an open descriptor");
	HAS(err.hint, "group leader");
}

Test(diagnose, ebadf_closed_group_fd)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_TASK_CLOCK, true);
	struct pev_open_request r = request(&a, "task-clock:u");

	load("vm-nopmu");
	r.group_fd = 9; /* not in the fixture's proc/self/fd */
	diagnose(&r, EBADF, 0, SELF);
	HAS(err.message, "group fd 9 is not an open descriptor");
}

Test(diagnose, ebadf_group_fd_that_is_not_a_perf_event)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_TASK_CLOCK, true);
	struct pev_open_request r = request(&a, "task-clock:u");

	load("vm-nopmu");
	r.group_fd = 5;
	diagnose(&r, EBADF, 0, SELF);
	HAS(err.message, "group fd 5 is '/tmp/notes.txt', not a perf event");
}

Test(diagnose, ebadf_cgroup_fd)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	load("vm-nopmu");
	r.flags |= PEV_FLAG_PID_CGROUP;
	r.pid = 1;
	r.cpu = 0;
	r.cgroup = "/sys/fs/cgroup/app";
	diagnose(&r, EBADF, 0, "for cgroup /sys/fs/cgroup/app on CPU 0");
	HAS(err.message, "'/sys/fs/cgroup/app' is not usable as a cgroup");
	HAS(err.hint, "/sys/fs/cgroup");
}

Test(diagnose, ebusy_names_the_holder_and_the_nmi_watchdog)
{
	struct pev_attr a = attr_of(PEV_TYPE_HARDWARE, PEV_HW_CPU_CYCLES, true);
	struct pev_open_request r = request(&a, "cycles:u");

	load("old-kernel");
	diagnose(&r, EBUSY, 0, SELF);
	HAS(err.message, "(EBUSY)");
	HAS(err.message, "perf (pid 2345)");
	HASNT(err.message, "sshd");
	HAS(err.hint, "sysctl kernel.nmi_watchdog=0");
}

Test(diagnose, ebusy_without_watchdog_or_hardware)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	load("old-kernel"); /* watchdog on, but a software event */
	diagnose(&r, EBUSY, 0, SELF);
	HASNT(err.hint, "nmi_watchdog");
	a = attr_of(PEV_TYPE_HARDWARE, PEV_HW_CPU_CYCLES, true);
	load("vm-nopmu"); /* hardware, watchdog off, nobody holds events */
	diagnose(&r, EBUSY, 0, SELF);
	HASNT(err.hint, "nmi_watchdog");
	HASNT(err.message, "Processes holding");
	HAS(err.hint, "stop it");
}

/* ---- EFAULT, EINTR, ENOSYS ----------------------------------------------- */

Test(diagnose, efault_names_config1_for_uprobes)
{
	struct pev_attr a = attr_of(8, 0, true);
	struct pev_open_request r = request(&a, "uprobe");

	a.config1 = 0x10;
	load("vm-nopmu");
	diagnose(&r, EFAULT, 0, SELF);
	HAS(err.message, "(EFAULT)");
	HAS(err.message, "config1 (0x10)");
	HAS(err.message, "path of the file to probe");
}

Test(diagnose, efault_for_other_events_names_the_attr)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	load("vm-nopmu");
	diagnose(&r, EFAULT, 0, SELF);
	HAS(err.message, "attribute block");
}

Test(diagnose, eintr_explains_the_ftrace_uprobe_clash)
{
	struct pev_attr a = attr_of(8, 0, true);
	struct pev_open_request r = request(&a, "uprobe");

	load("vm-nopmu");
	diagnose(&r, EINTR, 0, SELF);
	HAS(err.message, "interrupted (EINTR)");
	HAS(err.message, "tracefs");
	HAS(err.hint, "uprobe_events");
}

Test(diagnose, enosys_kernel_without_perf_events)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	load("no-perf");
	diagnose(&r, ENOSYS, 0, SELF);
	HAS(err.message, "function not implemented (ENOSYS)");
	HAS(err.message, "CONFIG_PERF_EVENTS");
	HAS(err.hint, "CONFIG_PERF_EVENTS=y");
}

Test(diagnose, enosys_from_a_containers_seccomp_profile)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	load("container");
	diagnose(&r, ENOSYS, 0, SELF);
	HAS(err.message, "seccomp");
	HAS(err.message, "container");
	HAS(err.hint, "seccomp=unconfined");
}

Test(diagnose, enosys_user_stack_sampling)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	a.sample_period = 100000;
	a.sample_type = PEV_SAMPLE_STACK_USER;
	a.sample_stack_user = 8192;
	load("vm-nopmu");
	diagnose(&r, ENOSYS, 0, SELF);
	HAS(err.message, "PEV_SAMPLE_STACK_USER");
	HAS(err.hint, "PEV_SAMPLE_CALLCHAIN");
	a.sample_type = 0;
	diagnose(&r, ENOSYS, 0, SELF);
	HAS(err.message, "sandbox");
}

/* ---- E2BIG, EOVERFLOW, ENOMEM, others ------------------------------------ */

Test(diagnose, e2big_gives_both_sizes)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	a.size = 144;
	load("vm-nopmu");
	diagnose(&r, E2BIG, 136, SELF);
	HAS(err.message, "(E2BIG)");
	HAS(err.message, "attr.size is 144");
	HAS(err.message, "expects 136");
	HAS(err.message, "Bytes 136..143");
	HAS(err.hint, "smallest size");
}

Test(diagnose, e2big_outside_what_any_kernel_takes)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	load("old-kernel");
	a.size = 40;
	diagnose(&r, E2BIG, 112, SELF);
	HAS(err.message, "attr.size is 40");
	HAS(err.message, "expects 112");
	HAS(err.message, "less than 64 bytes");
	a.size = 8192;
	diagnose(&r, E2BIG, 112, SELF);
	HAS(err.message, "attr.size is 8192");
	HAS(err.message, "more than a page");
}

Test(diagnose, e2big_without_a_size_written_back)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	a.size = 144;
	load("vm-nopmu");
	diagnose(&r, E2BIG, 0, SELF);
	HAS(err.message, "attr.size is 144");
	HAS(err.message, "did not write back");
	HASNT(err.message, "expects 0");
}

Test(diagnose, eoverflow_names_the_stack_limit)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	a.sample_period = 100000;
	a.sample_type = PEV_SAMPLE_CALLCHAIN;
	a.sample_max_stack = 300;
	load("vm-nopmu");
	diagnose(&r, EOVERFLOW, 0, SELF);
	cr_expect_str_eq(err.field, "sample_max_stack");
	HAS(err.message, "(EOVERFLOW)");
	HAS(err.message, "sample_max_stack 300 frames");
	HAS(err.message, "limit of 127");
	HAS(err.hint, "sysctl kernel.perf_event_max_stack=300");
}

Test(diagnose, enomem)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");

	load("vm-nopmu");
	diagnose(&r, ENOMEM, 0, SELF);
	HAS(err.message, "out of memory (ENOMEM)");
}

Test(diagnose, an_unknown_errno_keeps_its_value_and_text)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");
	char text[64];

	load("vm-nopmu");
	diagnose(&r, EXDEV, 0, SELF);
	cr_expect_eq(err.code, -EXDEV);
	snprintf(text, sizeof(text), "%s (errno %d)", strerror(EXDEV), EXDEV);
	HAS(err.message, text);
}

/* ---- the frame ------------------------------------------------------------ */

Test(diagnose, event_name_falls_back_to_a_description_of_the_attr)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_PAGE_FAULTS, true);
	struct pev_open_request r = request(&a, NULL);
	struct pev_event ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	char name[96], prefix[160];

	pev_event_describe(&ev, name, sizeof(name));
	load("vm-nopmu");
	cr_expect_eq(pev_diagnose_open(&m, &r, ENOMEM, 0, &err), PEV_ENOMEM);
	cr_expect_str_eq(err.event, name);
	snprintf(prefix, sizeof(prefix), "cannot open '%s' on the calling thread: ", name);
	HAS(err.message, prefix);
}

Test(diagnose, bad_arguments)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_CPU_CLOCK, true);
	struct pev_open_request r = request(&a, "cpu-clock:u");
	struct pev_open_request no_attr = request(NULL, "x");

	load("vm-nopmu");
	cr_expect_eq(pev_diagnose_open(NULL, &r, EACCES, 0, &err), PEV_EBADARG);
	cr_expect_eq(err.code, PEV_EBADARG);
	cr_expect_str_eq(err.field, "m");
	cr_expect_eq(pev_diagnose_open(&m, NULL, EACCES, 0, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "req");
	cr_expect_eq(pev_diagnose_open(&m, &no_attr, EACCES, 0, &err), PEV_EBADARG);
	cr_expect_eq(pev_diagnose_open(NULL, NULL, EACCES, 0, NULL), PEV_EBADARG);
	cr_expect_eq(pev_diagnose_mmap(NULL, "x", 8, 0, EPERM, &err), PEV_EBADARG);
	cr_expect_eq(pev_diagnose_mmap(NULL, "x", 8, 0, EPERM, NULL), PEV_EBADARG);
}

Test(diagnose, a_null_error_is_allowed)
{
	struct pev_attr a = attr_of(PEV_TYPE_HARDWARE, PEV_HW_CPU_CYCLES, false);
	struct pev_open_request r = request(&a, "cycles");
	static const int errnos[] = {EACCES, EPERM, ENOENT, EINVAL, EOPNOTSUPP, ENODEV, ENOSPC,
				     EMFILE, ENFILE, ESRCH, EBADF, EBUSY, EFAULT, EINTR, ENOSYS,
				     E2BIG, EOVERFLOW, ENOMEM, EXDEV};

	load("old-kernel");
	r.pid = 4322;
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		cr_expect_eq(pev_diagnose_open(&m, &r, errnos[i], 0, NULL), -errnos[i]);
	cr_expect_eq(pev_diagnose_mmap(&m, "cycles", 3, 0, EINVAL, NULL), PEV_EINVAL);
	cr_expect_eq(pev_diagnose_call("read", "cycles", EBADF, NULL), PEV_EBADF);
}

Test(diagnose, every_errno_on_every_machine_fits_the_message)
{
	static const char *const machines[] = {"vm-nopmu", "container", "hybrid", "old-kernel",
					       "no-perf"};
	static const int errnos[] = {EACCES, EPERM, ENOENT, EINVAL, EOPNOTSUPP, ENODEV, ENOSPC,
				     EMFILE, ENFILE, ESRCH, EBADF, EBUSY, EFAULT, EINTR, ENOSYS,
				     E2BIG, EOVERFLOW, ENOMEM, EXDEV};
	struct pev_attr a = attr_of(PEV_TYPE_HARDWARE, PEV_HW_CPU_CYCLES, false);
	struct pev_open_request r = request(&a, "cycles");

	a.sample_period = 1000;
	a.sample_type = PEV_SAMPLE_BRANCH_STACK | PEV_SAMPLE_RAW | PEV_SAMPLE_CALLCHAIN;
	a.branch_sample_type = PEV_BRANCH_ANY | PEV_BRANCH_KERNEL;
	r.pid = -1;
	r.cpu = 0;
	for (size_t i = 0; i < sizeof(machines) / sizeof(machines[0]); i++) {
		load(machines[i]);
		for (size_t j = 0; j < sizeof(errnos) / sizeof(errnos[0]); j++) {
			memset(&err, 0, sizeof(err));
			cr_expect_eq(pev_diagnose_open(&m, &r, errnos[j], 136, &err), -errnos[j]);
			cr_expect_lt(strlen(err.message), sizeof(err.message) - 1, "%s errno %d cut",
				     machines[i], errnos[j]);
			HAS(err.message, "cannot open 'cycles' on every task of CPU 0: ");
		}
	}
}

/* ---- pev_diagnose_mmap --------------------------------------------------- */

Test(diagnose, mmap_eperm_compares_the_mlock_budget_with_the_pages)
{
	load("container"); /* 516 kB per CPU, 2 CPUs, no CAP_IPC_LOCK */
	m.page_size = 4096;
	m.memlock_soft = m.memlock_hard = 64 * 1024;
	int rc = pev_diagnose_mmap(&m, "cycles", 512, 0, EPERM, &err);
	cr_expect_eq(rc, PEV_EPERM);
	cr_expect_eq(err.code, PEV_EPERM);
	cr_expect_eq(err.sys_errno, EPERM);
	cr_expect_str_eq(err.syscall, "mmap");
	cr_expect_str_eq(err.event, "cycles");
	cr_expect_str_eq(err.field, "pages");
	cr_expect_not(err.before_syscall);
	HAS(err.message, "cannot map the ring buffer of 'cycles' (1 + 512 pages, 2052 KiB)");
	HAS(err.message, "(EPERM)");
	HAS(err.message, "516 KiB per CPU");
	HAS(err.message, "1032 KiB");
	HAS(err.message, "2 online CPUs");
	HAS(err.message, "RLIMIT_MEMLOCK adds 64 KiB");
	HASNT(err.message, "privileged");
	HAS(err.hint, "256 data pages fit");
	HAS(err.hint, "sysctl kernel.perf_event_mlock_kb=");
	HAS(err.hint, "ulimit -l");
	HAS(err.hint, "CAP_IPC_LOCK");
}

Test(diagnose, mmap_eperm_counts_what_is_mapped_already)
{
	load("container");
	m.page_size = 4096;
	int rc = pev_diagnose_mmap(&m, "cycles", 128, 520, EPERM, &err);
	cr_expect_eq(rc, PEV_EPERM);
	HAS(err.message, "520 KiB are mapped already");
	HAS(err.message, "RLIMIT_MEMLOCK is unlimited");
	HAS(err.hint, "64 data pages fit"); /* (1032 - 520) / 4 - 1 = 127 -> 64 */
	rc = pev_diagnose_mmap(&m, "cycles", 128, 1032, EPERM, &err);
	HAS(err.hint, "unmap other rings first");
}

Test(diagnose, mmap_eperm_privileged_process_note)
{
	load("vm-nopmu"); /* root: CAP_IPC_LOCK */
	m.page_size = 4096;
	cr_expect_eq(pev_diagnose_mmap(&m, "cycles", 1024, 0, EPERM, &err), PEV_EPERM);
	HAS(err.message, "privileged");
	HAS(err.message, "short of memory");
}

Test(diagnose, mmap_eperm_cap_perfmon_does_not_lift_the_budget)
{
	load("hybrid"); /* CAP_PERFMON only: the kernel still applies the budget */
	m.page_size = 4096;
	cr_expect_eq(pev_diagnose_mmap(&m, "cycles", 1024, 0, EPERM, &err), PEV_EPERM);
	HASNT(err.message, "should not apply");
	HAS(err.hint, "CAP_IPC_LOCK");
}

Test(diagnose, mmap_einval_wants_a_power_of_two)
{
	load("vm-nopmu");
	cr_expect_eq(pev_diagnose_mmap(&m, "cpu-clock", 3, 0, EINVAL, &err), PEV_EINVAL);
	cr_expect_str_eq(err.field, "pages");
	HAS(err.message, "power of two");
	HAS(err.message, "3 is not");
	HAS(err.hint, "use 2 or 4 pages");
	cr_expect_eq(pev_diagnose_mmap(&m, "cpu-clock", 100, 0, EINVAL, &err), PEV_EINVAL);
	HAS(err.hint, "use 64 or 128 pages");
}

Test(diagnose, mmap_other_errors)
{
	load("vm-nopmu");
	cr_expect_eq(pev_diagnose_mmap(&m, NULL, 8, 0, EINVAL, &err), PEV_EINVAL);
	HAS(err.message, "'?'");
	HAS(err.message, "(errno 22)");
	cr_expect_eq(pev_diagnose_mmap(&m, "x", 8, 0, ENODEV, &err), PEV_ENODEV);
	HAS(err.message, "(errno 19)");
}

/* ---- pev_diagnose_call --------------------------------------------------- */

Test(diagnose, call_errors)
{
	static const struct {
		int errnum;
		const char *text;
	} cases[] = {
		{EBADF, "descriptor is closed (EBADF)"},
		{ENOTTY, "not a perf event (ENOTTY)"},
		{ENOSPC, "buffer is too small for the event's read_format (ENOSPC)"},
		{EINVAL, "refused the argument (EINVAL)"},
		{EAGAIN, "no data yet (EAGAIN)"},
		{EPERM, "not permitted (EPERM)"},
		{EACCES, "not permitted (EACCES)"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = pev_diagnose_call("ioctl(ENABLE)", "cycles", cases[i].errnum, &err);
		cr_expect_eq(rc, pev_error_from_errno(cases[i].errnum));
		cr_expect_eq(err.code, rc);
		cr_expect_eq(err.sys_errno, cases[i].errnum);
		cr_expect_str_eq(err.syscall, "ioctl(ENABLE)");
		cr_expect_str_eq(err.event, "cycles");
		cr_expect_not(err.before_syscall);
		HAS(err.message, "ioctl(ENABLE) on 'cycles' failed: ");
		HAS(err.message, cases[i].text);
	}
	pev_diagnose_call("read", "cycles", ENOSPC, &err);
	HAS(err.hint, "read_format");
	cr_expect_eq(pev_diagnose_call(NULL, NULL, EIO, &err), PEV_EIO);
	HAS(err.message, "call on '?' failed: ");
	HAS(err.message, "(errno 5)");
}

Test(diagnose, mmap_eperm_hint_asks_a_per_cpu_sysctl_value)
{
	load("container"); /* 516 kB per CPU, 2 CPUs */
	m.page_size = 4096;
	pev_diagnose_mmap(&m, "cycles", 512, 0, EPERM, &err);
	/* 2052 KiB over 2 CPUs: 1026 KiB per CPU is enough. */
	HAS(err.hint, "sysctl kernel.perf_event_mlock_kb=1026");
}

Test(diagnose, mmap_eperm_within_the_budget_suggests_neither_fewer_pages_nor_the_sysctl)
{
	load("container");
	m.page_size = 4096;
	pev_diagnose_mmap(&m, "cycles", 8, 0, EPERM, &err);
	HASNT(err.hint, "data pages fit");
	HASNT(err.hint, "perf_event_mlock_kb=");
	HAS(err.hint, "ulimit -l");
}

Test(diagnose, mmap_eperm_with_unreadable_facts_invents_no_numbers)
{
	load("container");
	m.page_size = 4096;
	m.mlock_kb = PEV_UNKNOWN;
	m.cpus_online = PEV_UNKNOWN;
	pev_diagnose_mmap(&m, "cycles", 512, 0, EPERM, &err);
	HAS(err.message, "kernel.perf_event_mlock_kb) is unreadable");
	HASNT(err.message, "-2147483648");
	HASNT(err.message, "online CPUs");
	HASNT(err.hint, "perf_event_mlock_kb=");
}

Test(diagnose, emfile_with_an_unlimited_hard_limit_raises_the_soft_one)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_TASK_CLOCK, true);
	struct pev_open_request r = request(&a, "task-clock:u");

	load("old-kernel");
	m.nofile_soft = 1024;
	m.nofile_hard = PEV_UNLIMITED;
	m.open_fds = 1024;
	diagnose(&r, EMFILE, 0, SELF);
	HAS(err.message, "1024 soft, unlimited hard");
	HAS(err.hint, "raise the soft limit: ulimit -n 1089");
	HASNT(err.hint, "as root");
}

Test(diagnose, eacces_for_a_kernel_only_event_does_not_suggest_user_space_only)
{
	struct pev_attr a = attr_of(PEV_TYPE_SOFTWARE, PEV_SW_PAGE_FAULTS, false);
	struct pev_open_request r = request(&a, "page-faults:k");

	a.flags |= PEV_ATTR_EXCLUDE_USER | PEV_ATTR_EXCLUDE_HV;
	load_vm_as_nobody();
	diagnose(&r, EACCES, 0, SELF);
	HAS(err.message, "counts the kernel");
	HASNT(err.hint, "':u'");
	HAS(err.hint, "perf_event_paranoid=1");
}

Test(diagnose, eopnotsupp_does_not_say_a_uprobe_cannot_sample)
{
	struct pev_attr a = attr_of(8, 0, true); /* vm-nopmu's uprobe */
	struct pev_open_request r = request(&a, "uprobe:/bin/true+0x0");

	a.sample_period = 1;
	load("vm-nopmu");
	diagnose(&r, EOPNOTSUPP, 0, SELF);
	HASNT(err.message, "cannot sample");
}

Test(diagnose, call_with_a_perfev_code_uses_its_text)
{
	pev_diagnose_call("read", "task-clock", -PEV_EFORMAT, &err);
	HAS(err.message, "malformed or truncated data");
	HASNT(err.message, "Unknown error");
}

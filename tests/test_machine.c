/* SPDX-License-Identifier: MIT */
/*
 * test_machine.c - the machine facts: read from the fake roots under
 * tests/fixtures/machines (see its README.md) and from the real machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "helpers.h"

#define KV(a, b, c) ((a) << 16 | (b) << 8 | (c))

#define CAP_BIT(n) (UINT64_C(1) << (n))

static void load(struct pev_machine *m, const char *name)
{
	char root[512];

	snprintf(root, sizeof(root), "%s/machines/%s", th_fixtures(), name);
	cr_assert_eq(pev_machine_read(m, root), 0, "reading fixture %s", name);
	cr_assert_str_eq(m->root, root, "the root must fit in m->root: diagnoses read under it");
}

/* Index of PMU `name` in m->pmus, or -1. */
static int pmu_index(const struct pev_machine *m, const char *name)
{
	for (int i = 0; i < m->nr_pmus; i++)
		if (strcmp(m->pmus[i].name, name) == 0)
			return i;
	return -1;
}

static void expect_pmus_sorted(const struct pev_machine *m)
{
	for (int i = 1; i < m->nr_pmus; i++)
		cr_expect_lt(strcmp(m->pmus[i - 1].name, m->pmus[i].name), 0, "%s before %s",
			     m->pmus[i - 1].name, m->pmus[i].name);
}

/* ---- vm-nopmu ------------------------------------------------------------ */

Test(machine, vm_nopmu_kernel_and_sysctls)
{
	struct pev_machine m;

	load(&m, "vm-nopmu");
	cr_expect_str_eq(m.kernel_release, "6.18.44");
	cr_expect_eq(m.kernel_version, KV(6, 18, 44));
	cr_expect_str_eq(m.arch, "x86_64");
	cr_expect(m.perf_events);
	cr_expect_eq(m.attr_size, 0, "attr_size is only set by pev_machine_probe_attr_size");
	cr_expect_eq(m.paranoid, 2);
	cr_expect_eq(m.max_sample_rate, 100000);
	cr_expect_eq(m.max_stack, 127);
	cr_expect_eq(m.max_contexts_per_stack, 8);
	cr_expect_eq(m.mlock_kb, 516);
	cr_expect_eq(m.cpu_time_max_percent, 25);
	cr_expect_eq(m.nmi_watchdog, 0);
}

Test(machine, vm_nopmu_process_is_root_with_every_capability)
{
	struct pev_machine m;

	load(&m, "vm-nopmu");
	cr_expect_eq(m.euid, 0);
	cr_expect(m.cap_perfmon);
	cr_expect(m.cap_sys_admin);
	cr_expect(m.cap_sys_ptrace);
	cr_expect(m.cap_ipc_lock);
	cr_expect_eq(m.seccomp, 0);
	cr_expect_not(m.no_new_privs);
	cr_expect_not(m.in_container, "init is systemd in /init.scope, pid 1 of the host");
	cr_expect_eq(m.nofile_soft, 1048576);
	cr_expect_eq(m.nofile_hard, 1048576);
	cr_expect_eq(m.memlock_soft, 8388608);
	cr_expect_eq(m.memlock_hard, 8388608);
	cr_expect_eq(m.open_fds, 4, "proc/self/fd holds 0, 1, 2 and 5");
}

Test(machine, vm_nopmu_is_a_virtual_machine_without_core_pmu)
{
	struct pev_machine m;

	load(&m, "vm-nopmu");
	cr_expect(m.hypervisor);
	cr_expect_str_eq(m.vm_vendor, "QEMU Standard PC (i440FX + PIIX, 1996)");
	cr_expect_str_eq(m.cpu_vendor, "GenuineIntel");
	cr_expect_str_eq(m.cpu_model, "Intel(R) Xeon(R) Processor @ 2.50GHz");
	cr_expect_not(m.arch_perfmon);
	cr_expect_not(m.has_core_pmu);
	cr_expect_not(m.hybrid);
	cr_expect_str_eq(m.core_pmus, "");
	cr_expect_eq(m.debug_registers, 4, "x86_64 has DR0-DR3");
	cr_expect_eq(m.page_size, (int)sysconf(_SC_PAGESIZE));
}

Test(machine, vm_nopmu_pmus_are_sorted_with_their_types)
{
	static const struct pev_machine_pmu want[] = {
		{"breakpoint", 5}, {"msr", 10}, {"power", 9},
		{"software", 1},   {"tracepoint", 2}, {"uncore_imc_0", 12},
		{"uprobe", 8},
	};
	struct pev_machine m;

	load(&m, "vm-nopmu");
	cr_assert_eq(m.nr_pmus, (int)(sizeof(want) / sizeof(want[0])));
	for (int i = 0; i < m.nr_pmus; i++) {
		cr_expect_str_eq(m.pmus[i].name, want[i].name);
		cr_expect_eq(m.pmus[i].type, want[i].type, "%s", want[i].name);
	}
	expect_pmus_sorted(&m);
	cr_expect(m.has_uprobe_pmu);
	cr_expect_not(m.has_kprobe_pmu);
	cr_expect_str_eq(pev_machine_pmu_name(&m, 8), "uprobe");
	cr_expect_str_eq(pev_machine_pmu_name(&m, 10), "msr");
	cr_expect_null(pev_machine_pmu_name(&m, 4), "no raw/core PMU here");
	cr_expect_null(pev_machine_pmu_name(&m, 99));
	cr_expect_null(pev_machine_pmu_name(NULL, 1));
}

Test(machine, vm_nopmu_cpus_and_tracing)
{
	struct pev_machine m;

	load(&m, "vm-nopmu");
	cr_expect_eq(m.cpus_online, 2);
	cr_expect_str_eq(m.cpus_online_list, "0-1");
	cr_expect_str_eq(m.cpus_possible_list, "0-1");
	cr_expect(pev_machine_cpu_online(&m, 0));
	cr_expect(pev_machine_cpu_online(&m, 1));
	cr_expect_not(pev_machine_cpu_online(&m, 2));
	cr_expect_not(pev_machine_cpu_online(&m, -1));
	cr_expect_not(pev_machine_cpu_possible(&m, 2));
	cr_expect(m.tracefs_supported);
	cr_expect_not(m.tracefs_mounted);
	cr_expect_str_eq(m.tracefs_path, "");
}

/* ---- arm64-qemu ----------------------------------------------------------- */

/* QEMU's arm64 "virt" board: no CPU flag says hypervisor, its device tree does. */
Test(machine, arm64_qemu_is_a_virtual_machine_with_the_pmuv3)
{
	struct pev_machine m;

	load(&m, "arm64-qemu");
	cr_expect_str_eq(m.arch, "aarch64");
	cr_expect(m.hypervisor, "the device tree's linux,dummy-virt board is QEMU's");
	cr_expect_str_eq(m.vm_vendor, "linux,dummy-virt");
	cr_expect(m.has_core_pmu);
	cr_expect_not(m.hybrid);
	cr_expect_str_eq(m.core_pmus, "armv8_pmuv3_0");
	cr_expect_eq(m.debug_registers, 0, "arm64's watchpoint count is not read");
}

/* Arm's cpuinfo names the implementer and part: the cpu row is never empty. */
Test(machine, arm64_qemu_cpu_is_named_from_implementer_and_part)
{
	struct pev_machine m;
	char root[512], path[600];

	load(&m, "arm64-qemu");
	cr_expect_str_eq(m.cpu_vendor, "", "QEMU's max CPU has implementer 0, no vendor");
	cr_expect_str_eq(m.cpu_model, "implementer 0x00, part 0x051 r0p0");

	/* A Cortex-A72 (ARM, 0xd08, r0p3) has the vendor's name. */
	snprintf(root, sizeof(root), "%s", th_temp_dir("machine"));
	snprintf(path, sizeof(path), "%s/proc", root);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	th_write_file(path, "processor\t: 0\nBogoMIPS\t: 108.00\nCPU implementer\t: 0x41\n"
			    "CPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\n"
			    "CPU revision\t: 3\n\n");
	cr_assert_eq(pev_machine_read(&m, root), 0);
	cr_expect_str_eq(m.cpu_vendor, "ARM");
	cr_expect_str_eq(m.cpu_model, "part 0xd08 r0p3");
	cr_expect_not(m.hypervisor, "no DMI, device tree or CPU flag says virtual");
}

/* ---- container ----------------------------------------------------------- */

Test(machine, container_is_detected_with_its_seccomp_filter)
{
	struct pev_machine m;

	load(&m, "container");
	cr_expect_str_eq(m.kernel_release, "6.8.0-45-generic");
	cr_expect_eq(m.kernel_version, KV(6, 8, 0));
	cr_expect_eq(m.paranoid, 3);
	cr_expect(m.in_container, "init's cgroup names docker");
	cr_expect_eq(m.seccomp, 2);
	cr_expect(m.no_new_privs);
	cr_expect_eq(m.euid, 1000);
	cr_expect_not(m.cap_perfmon);
	cr_expect_not(m.cap_sys_admin);
	cr_expect_not(m.cap_sys_ptrace);
	cr_expect_not(m.cap_ipc_lock);
	cr_expect_eq(m.open_fds, 3);
}

Test(machine, container_unlimited_rlimit_is_pev_unlimited)
{
	struct pev_machine m;

	load(&m, "container");
	cr_expect_eq(m.memlock_soft, PEV_UNLIMITED);
	cr_expect_eq(m.memlock_hard, PEV_UNLIMITED);
	cr_expect_eq(m.nofile_soft, 1048576);
	cr_expect_eq(m.nofile_hard, 1048576);
}

Test(machine, container_on_bare_metal_has_the_cpu_pmu)
{
	struct pev_machine m;

	load(&m, "container");
	cr_expect_not(m.hypervisor);
	cr_expect_str_eq(m.vm_vendor, "");
	cr_expect(m.arch_perfmon);
	cr_expect(m.has_core_pmu, "'cpu' with type 4 (PERF_TYPE_RAW) is the core PMU");
	cr_expect_not(m.hybrid);
	cr_expect_str_eq(m.core_pmus, "cpu");
	cr_expect(m.has_kprobe_pmu);
	cr_expect(m.has_uprobe_pmu);
	cr_expect_eq(m.nr_pmus, 7);
	expect_pmus_sorted(&m);
	cr_expect(m.tracefs_supported);
	cr_expect_not(m.tracefs_mounted);
}

Test(machine, a_runtime_marker_file_means_a_container)
{
	char root[] = "/tmp/perfev-machine-XXXXXX", path[600];
	struct pev_machine m;

	cr_assert_not_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/run", root);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/run/.containerenv", root);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_expect_eq(pev_machine_read(&m, root), 0);
	cr_expect(m.in_container, "podman's /run/.containerenv");
	unlink(path);
	snprintf(path, sizeof(path), "%s/run", root);
	rmdir(path);
	rmdir(root);
}

/* ---- hybrid -------------------------------------------------------------- */

Test(machine, hybrid_has_two_core_pmus)
{
	struct pev_machine m;

	load(&m, "hybrid");
	cr_expect_eq(m.kernel_version, KV(6, 18, 2));
	cr_expect(m.has_core_pmu);
	cr_expect(m.hybrid);
	cr_expect_str_eq(m.core_pmus, "cpu_atom,cpu_core", "names in sorted order");
	cr_expect(m.arch_perfmon);
	cr_expect_not(m.hypervisor);
	cr_expect_str_eq(m.cpu_model, "12th Gen Intel(R) Core(TM) i7-1260P");
	int core = pmu_index(&m, "cpu_core"), atom = pmu_index(&m, "cpu_atom");
	cr_assert_geq(core, 0);
	cr_assert_geq(atom, 0);
	cr_expect_eq(m.pmus[core].type, 4);
	cr_expect_eq(m.pmus[atom].type, 10);
	cr_expect_str_eq(pev_machine_pmu_name(&m, 10), "cpu_atom");
	cr_expect_str_eq(pev_machine_pmu_name(&m, 9), "intel_pt");
	cr_expect_eq(m.nr_pmus, 9);
	expect_pmus_sorted(&m);
	cr_expect(m.has_kprobe_pmu);
	cr_expect(m.has_uprobe_pmu);
}

Test(machine, hybrid_user_holds_cap_perfmon_only)
{
	struct pev_machine m;

	load(&m, "hybrid");
	cr_expect_eq(m.euid, 1000);
	cr_expect(m.cap_perfmon, "bit 38 of CapEff 0000004000000000");
	cr_expect_not(m.cap_sys_admin);
	cr_expect_not(m.cap_sys_ptrace);
	cr_expect_not(m.cap_ipc_lock);
	cr_expect_eq(m.paranoid, 1);
	cr_expect_eq(m.max_sample_rate, 50000);
	cr_expect_eq(m.nmi_watchdog, 1);
	cr_expect_eq(m.nofile_soft, 1024);
	cr_expect_eq(m.nofile_hard, 524288);
	cr_expect_not(m.in_container);
}

Test(machine, hybrid_tracefs_prefers_sys_kernel_tracing)
{
	struct pev_machine m;

	load(&m, "hybrid");
	cr_expect(m.tracefs_supported);
	cr_expect(m.tracefs_mounted);
	cr_expect_str_eq(m.tracefs_path, "/sys/kernel/tracing",
			 "the debugfs mount is listed first but /sys/kernel/tracing wins");
	cr_expect_eq(m.cpus_online, 16);
	cr_expect(pev_machine_cpu_online(&m, 15));
	cr_expect_not(pev_machine_cpu_online(&m, 16));
}

/* ---- old-kernel ---------------------------------------------------------- */

Test(machine, old_kernel_version_and_limits)
{
	struct pev_machine m;

	load(&m, "old-kernel");
	cr_expect_str_eq(m.kernel_release, "4.19.0-27-amd64");
	cr_expect_eq(m.kernel_version, KV(4, 19, 0));
	cr_expect_lt(m.kernel_version, KV(5, 8, 0), "before CAP_PERFMON");
	cr_expect_eq(m.paranoid, 1);
	cr_expect_eq(m.euid, 1000);
	cr_expect_not(m.cap_perfmon);
	cr_expect_not(m.cap_sys_admin);
	cr_expect_eq(m.seccomp, 0);
	cr_expect_eq(m.nofile_soft, 1024);
	cr_expect_eq(m.nofile_hard, 4096);
	cr_expect_eq(m.memlock_soft, 64 * 1024);
	cr_expect_eq(m.memlock_hard, 64 * 1024);
	cr_expect_eq(m.open_fds, 5);
	cr_expect_str_eq(m.core_pmus, "cpu");
	cr_expect_not(m.hybrid);
}

Test(machine, old_kernel_has_offline_cpus)
{
	struct pev_machine m;

	load(&m, "old-kernel");
	cr_expect_eq(m.cpus_online, 4);
	cr_expect_str_eq(m.cpus_online_list, "0-3");
	cr_expect_str_eq(m.cpus_possible_list, "0-7");
	for (int cpu = 0; cpu < 8; cpu++) {
		cr_expect(pev_machine_cpu_possible(&m, cpu), "cpu %d", cpu);
		cr_expect_eq(pev_machine_cpu_online(&m, cpu), cpu < 4, "cpu %d", cpu);
	}
	cr_expect_not(pev_machine_cpu_possible(&m, 8));
	cr_expect_not(pev_machine_cpu_online(NULL, 0));
	cr_expect_not(pev_machine_cpu_possible(NULL, 0));
}

/* ---- no-perf ------------------------------------------------------------- */

Test(machine, no_perf_kernel_has_no_perf_sysctls)
{
	struct pev_machine m;

	load(&m, "no-perf");
	cr_expect_str_eq(m.kernel_release, "5.10.120-tiny");
	cr_expect_eq(m.kernel_version, KV(5, 10, 120));
	cr_expect_str_eq(m.arch, "armv7l");
	cr_expect_not(m.perf_events);
	cr_expect_eq(m.paranoid, PEV_UNKNOWN);
	cr_expect_eq(m.max_sample_rate, PEV_UNKNOWN);
	cr_expect_eq(m.max_stack, PEV_UNKNOWN);
	cr_expect_eq(m.mlock_kb, PEV_UNKNOWN);
	cr_expect_eq(m.nmi_watchdog, 0);
	cr_expect_eq(m.nr_pmus, 0);
	cr_expect_not(m.has_core_pmu);
	cr_expect_eq(m.debug_registers, 0, "not x86: unknown");
	cr_expect_eq(m.cpus_online, 1);
	cr_expect_str_eq(m.cpus_possible_list, "0");
	cr_expect_not(m.tracefs_supported);
}

/* ---- nothing readable ---------------------------------------------------- */

Test(machine, an_empty_root_gives_unknown_facts)
{
	char root[] = "/tmp/perfev-machine-XXXXXX";
	struct pev_machine m;

	cr_assert_not_null(mkdtemp(root));
	memset(&m, 0x5a, sizeof(m));
	cr_assert_eq(pev_machine_read(&m, root), 0);
	rmdir(root);
	cr_expect_str_eq(m.kernel_release, "", "no uname() fallback for a fake root");
	cr_expect_eq(m.kernel_version, PEV_UNKNOWN);
	cr_expect_str_eq(m.arch, "");
	cr_expect_not(m.perf_events);
	cr_expect_eq(m.paranoid, PEV_UNKNOWN);
	cr_expect_eq(m.max_sample_rate, PEV_UNKNOWN);
	cr_expect_eq(m.max_stack, PEV_UNKNOWN);
	cr_expect_eq(m.max_contexts_per_stack, PEV_UNKNOWN);
	cr_expect_eq(m.mlock_kb, PEV_UNKNOWN);
	cr_expect_eq(m.cpu_time_max_percent, PEV_UNKNOWN);
	cr_expect_eq(m.nmi_watchdog, PEV_UNKNOWN);
	cr_expect_eq(m.euid, (uid_t)-1);
	cr_expect_not(m.cap_perfmon);
	cr_expect_not(m.cap_sys_admin);
	cr_expect_eq(m.seccomp, PEV_UNKNOWN);
	cr_expect_not(m.in_container);
	cr_expect_eq(m.open_fds, PEV_UNKNOWN);
	cr_expect_eq(m.nofile_soft, PEV_UNLIMITED);
	cr_expect_not(m.hypervisor);
	cr_expect_str_eq(m.vm_vendor, "");
	cr_expect_not(m.has_core_pmu);
	cr_expect_eq(m.nr_pmus, 0);
	cr_expect_eq(m.cpus_online, PEV_UNKNOWN);
	cr_expect_str_eq(m.cpus_online_list, "");
	cr_expect_not(pev_machine_cpu_online(&m, 0));
	cr_expect_not(m.tracefs_supported);
	cr_expect_not(m.tracefs_mounted);
	cr_expect_eq(m.page_size, (int)sysconf(_SC_PAGESIZE));
}

Test(machine, a_missing_root_gives_unknown_facts)
{
	struct pev_machine m;

	cr_assert_eq(pev_machine_read(&m, "/nonexistent/perfev/root"), 0);
	cr_expect_eq(m.paranoid, PEV_UNKNOWN);
	cr_expect_eq(m.kernel_version, PEV_UNKNOWN);
	cr_expect_eq(m.nr_pmus, 0);
}

Test(machine, null_machine_is_a_bad_argument)
{
	cr_expect_eq(pev_machine_read(NULL, NULL), PEV_EBADARG);
	cr_expect_eq(pev_machine_probe_attr_size(NULL), PEV_EBADARG);
}

/* ---- the real machine ---------------------------------------------------- */

static int read_int_file(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = PEV_UNKNOWN;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = PEV_UNKNOWN;
		fclose(f);
	}
	return v;
}

Test(machine, real_machine_matches_the_system)
{
	struct pev_machine m;
	struct utsname u;

	cr_assert_eq(pev_machine_read(&m, NULL), 0);
	cr_expect_str_eq(m.root, "");
	cr_assert_eq(uname(&u), 0);
	cr_expect_str_eq(m.kernel_release, u.release);
	cr_expect_str_eq(m.arch, u.machine);
	cr_expect_neq(m.kernel_version, PEV_UNKNOWN);
	cr_expect(m.perf_events);
	cr_expect_eq(m.paranoid, read_int_file("/proc/sys/kernel/perf_event_paranoid"));
	cr_expect_eq(m.max_sample_rate, read_int_file("/proc/sys/kernel/perf_event_max_sample_rate"));
	cr_expect_eq(m.max_stack, read_int_file("/proc/sys/kernel/perf_event_max_stack"));
	cr_expect_eq(m.mlock_kb, read_int_file("/proc/sys/kernel/perf_event_mlock_kb"));
	cr_expect_eq(m.cpus_online, (int)sysconf(_SC_NPROCESSORS_ONLN));
	cr_expect_eq(m.euid, geteuid());
	cr_expect_eq(m.page_size, (int)sysconf(_SC_PAGESIZE));
	cr_expect_gt(m.open_fds, 2, "at least stdin, stdout and stderr");
	cr_expect_neq(m.seccomp, PEV_UNKNOWN);
	cr_expect_gt(m.nr_pmus, 0);
	cr_expect_str_eq(pev_machine_pmu_name(&m, 1), "software");
	expect_pmus_sorted(&m);
}

Test(machine, real_machine_open_fds_counts_this_process)
{
	struct pev_machine before, after;
	int fd;

	cr_assert_eq(pev_machine_read(&before, ""), 0, "\"\" is the real root too");
	cr_assert_geq(fd = dup(0), 0);
	cr_assert_eq(pev_machine_read(&after, NULL), 0);
	close(fd);
	cr_expect_eq(after.open_fds, before.open_fds + 1);
	cr_expect_eq(before.open_fds, th_count_fds(), "the directory stream is not counted");
}

Test(machine, real_machine_capabilities_of_root)
{
	struct pev_machine m;

	th_require_root();
	cr_assert_eq(pev_machine_read(&m, NULL), 0);
	cr_expect_eq(m.euid, 0);
	cr_expect(m.cap_sys_admin);
	cr_expect(m.cap_perfmon);
}

Test(machine, probe_attr_size_gets_the_size_the_kernel_writes_back)
{
	struct pev_machine m;

	cr_assert_eq(pev_machine_read(&m, NULL), 0);
	int size = pev_machine_probe_attr_size(&m);
	cr_expect_eq(size, m.attr_size);
	if (m.kernel_version >= KV(6, 3, 0))
		cr_expect_eq(size, 136, "Linux 6.3+ (config3) wants 136 bytes, got %d", size);
	else
		cr_expect_geq(size, 64);
}

/* ---- pev_paranoid_meaning ------------------------------------------------ */

Test(machine, paranoid_levels_have_distinct_meanings)
{
	const char *meaning[5];

	for (int level = -1; level <= 3; level++) {
		meaning[level + 1] = pev_paranoid_meaning(level);
		cr_assert_not_null(meaning[level + 1]);
		cr_expect_neq(meaning[level + 1][0], '\0', "level %d", level);
	}
	for (int i = 0; i < 5; i++)
		for (int j = i + 1; j < 5; j++)
			cr_expect_str_neq(meaning[i], meaning[j], "levels %d and %d", i - 1, j - 1);
	cr_expect(strstr(meaning[0], "no restrictions"), "-1: %s", meaning[0]);
	cr_expect(strstr(meaning[1], "tracepoint"), "0: %s", meaning[1]);
	cr_expect(strstr(meaning[2], "not whole CPUs"), "1: %s", meaning[2]);
	cr_expect(strstr(meaning[3], "user space only"), "2: %s", meaning[3]);
	cr_expect(strstr(meaning[4], "not use perf_event_open at all"), "3: %s", meaning[4]);
	cr_expect_str_eq(pev_paranoid_meaning(4), meaning[4], "above 3 is like 3");
	cr_expect_str_eq(pev_paranoid_meaning(-5), meaning[0], "below -1 is like -1");
}

Test(machine, unknown_paranoid_level_says_unknown)
{
	const char *s = pev_paranoid_meaning(PEV_UNKNOWN);

	cr_assert_not_null(s);
	cr_expect(strstr(s, "unknown"), "%s", s);
	cr_expect_str_neq(s, pev_paranoid_meaning(-1),
			  "PEV_UNKNOWN must not be mistaken for level -1 (no restrictions)");
}

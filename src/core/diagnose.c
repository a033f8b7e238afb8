/* SPDX-License-Identifier: MIT */
/*
 * diagnose.c - from an errno to what went wrong on this machine and the fix.
 *
 * The diagnosis is a function of the request, the machine's facts and the
 * errno. It reads a few more files for the case at hand (the target
 * process's owner, what a bad fd is, who holds perf events), always under
 * the machine's root so that tests can fake them.
 */
#include <dirent.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/diag_internal.h"
#include "core/probe.h"

static bool is_probe_type(const struct pev_machine *m, uint32_t type, const char *which)
{
	const char *name = pev_machine_pmu_name(m, type);
	return name && strcmp(name, which) == 0;
}

static void hint_capability(const struct pev_machine *m, struct pev_error *err)
{
	if (m->kernel_version != PEV_UNKNOWN && m->kernel_version < (5 << 16 | 8 << 8))
		pev__error_hint(err, "or run it with CAP_SYS_ADMIN (as root); CAP_PERFMON needs "
				     "Linux 5.8 and this is %s",
				m->kernel_release);
	else
		pev__error_hint(err, "or grant CAP_PERFMON: setcap cap_perfmon+ep <program> (or run "
				     "as root)");
}

static void say_privileges(const struct pev_machine *m, struct pev_error *err)
{
	pev__error_msg(err, " This process (uid %d) holds %s.", (int)m->euid,
		       m->cap_perfmon && m->cap_sys_admin ? "CAP_PERFMON and CAP_SYS_ADMIN"
		       : m->cap_perfmon                   ? "CAP_PERFMON but not CAP_SYS_ADMIN"
		       : m->cap_sys_admin                 ? "CAP_SYS_ADMIN but not CAP_PERFMON"
							  : "neither CAP_PERFMON nor CAP_SYS_ADMIN");
}

static void say_seccomp(const struct pev_machine *m, struct pev_error *err)
{
	if (m->seccomp != 2)
		return;
	pev__error_msg(err, " A seccomp filter is active in this process%s (Seccomp: 2 in "
			    "/proc/self/status); container runtimes' default profiles refuse "
			    "perf_event_open.",
		       m->in_container ? ", which runs in a container" : "");
	pev__error_hint(err, "in a container, allow the syscall: docker/podman run "
			     "--security-opt seccomp=unconfined --cap-add PERFMON (or a profile "
			     "that allows perf_event_open)");
}

/* Reads the effective uid of process pid from <root>/proc/<pid>/status. */
static long owner_of(const struct pev_machine *m, pid_t pid)
{
	char path[512], text[4096];
	const char *uid;
	unsigned long real, eff;

	pev__path(path, sizeof(path), m->root, "/proc/%d/status", (int)pid);
	if (pev__read_text(path, text, sizeof(text)) <= 0 || !(uid = strstr(text, "\nUid:")))
		return -1;
	if (sscanf(uid + 5, "%lu %lu", &real, &eff) != 2)
		return -1;
	return (long)eff;
}

/* ---- per-errno diagnoses ----------------------------------------------- */

/* Lowers *need to level when level is stricter (smaller). */
static void need_level(int *need, int level)
{
	if (level < *need)
		*need = level;
}

static void diagnose_no_pmu(const struct pev_machine *m, const struct pev_open_request *req,
			    struct pev_error *err);

static void diagnose_access(const struct pev_machine *m, const struct pev_open_request *req,
			    int errnum, struct pev_error *err)
{
	const struct pev_attr *a = req->attr;
	int p = m->paranoid;
	bool priv = pev__privileged(m);
	bool explained = false, kernel_only_blocker = true;
	/* The highest perf_event_paranoid value that would allow the whole request. */
	int need = INT_MAX;

	pev__error_msg(err, "%s. ", errnum == EPERM ? "operation not permitted (EPERM)"
						    : "permission denied (EACCES)");
	if (!m->perf_events) {
		pev__error_msg(err, "This kernel has no perf events support.");
		return;
	}
	/*
	 * The kernel checks privileges before it looks for the PMU: with no
	 * hardware PMU, no privilege or paranoid level would make this count.
	 */
	if (pev__is_hardware_type(m, a->type) && !m->has_core_pmu && m->nr_pmus > 0) {
		pev__error_msg(err, "The kernel refused it before looking for a PMU, but ");
		diagnose_no_pmu(m, req, err);
		return;
	}
	if (p == PEV_UNKNOWN)
		pev__error_msg(err, "perf_event_paranoid is unreadable.");
	else
		pev__error_msg(err, "perf_event_paranoid is %d: %s.", p, pev_paranoid_meaning(p));
	say_privileges(m, err);

	if (!priv && (is_probe_type(m, a->type, "uprobe") || is_probe_type(m, a->type, "kprobe"))) {
		pev__error_msg(err, " Creating %s events needs CAP_PERFMON or CAP_SYS_ADMIN "
				    "whatever the paranoid level.",
			       pev_machine_pmu_name(m, a->type));
		explained = true;
		kernel_only_blocker = false;
	}
	if (!priv && p >= 3) {
		pev__error_msg(err, " At level 3 no unprivileged use is allowed.");
		need_level(&need, 2);
		explained = true;
	}
	if (!priv && a->type == PEV_TYPE_TRACEPOINT && (a->sample_type & PEV_SAMPLE_RAW) && p >= 0) {
		pev__error_msg(err, " The event samples raw tracepoint data (PEV_SAMPLE_RAW), which "
				    "unprivileged users may read only at level -1.");
		pev__error_hint(err, "drop PEV_SAMPLE_RAW from sample_type");
		need_level(&need, -1);
		explained = true;
		kernel_only_blocker = false;
	}
	if (!priv && a->type == PEV_TYPE_BREAKPOINT && pev__kernel_address(m, a->bp_addr)) {
		pev__error_msg(err, " The breakpoint address 0x%" PRIx64 " is kernel memory, which "
				    "needs level 1 or less.",
			       a->bp_addr);
		pev__error_hint(err, "watch user-space memory instead");
		need_level(&need, 1);
		explained = true;
		kernel_only_blocker = false;
	}
	if (!priv && req->pid == -1 && p >= 1) {
		pev__error_msg(err, " The event counts every task on %s (CPU-wide), which needs "
				    "level 0 or less.",
			       req->cpu >= 0 ? "a CPU" : "the CPUs");
		pev__error_hint(err, "measure your own processes instead of whole CPUs (a command "
				     "you start, or a process you own)");
		need_level(&need, 0);
		explained = true;
		kernel_only_blocker = false;
	}
	if (!priv && req->pid > 0 && !m->cap_sys_ptrace) {
		long owner = owner_of(m, req->pid);
		if (owner >= 0 && owner != (long)m->euid) {
			pev__error_msg(err, " Thread %d belongs to uid %ld, not to this process's "
					    "uid %d, and measuring another user's process needs "
					    "CAP_SYS_PTRACE.",
				       (int)req->pid, owner, (int)m->euid);
			pev__error_hint(err, "run as uid %ld, or grant CAP_SYS_PTRACE", owner);
			explained = true;
			kernel_only_blocker = false;
		}
	}
	if (!priv && p >= 2 && !(a->flags & PEV_ATTR_EXCLUDE_KERNEL) &&
	    a->type == PEV_TYPE_TRACEPOINT) {
		pev__error_msg(err, " Tracepoints fire inside the kernel, so counting one needs "
				    "kernel-side access (level 1 or less); with ':u' it opens but "
				    "counts nothing (only syscalls:* and uprobe events count user "
				    "space).");
		need_level(&need, 1);
		explained = true;
	} else if (!priv && p >= 2 && !(a->flags & PEV_ATTR_EXCLUDE_KERNEL) &&
		   pev__kernel_only_software(a)) {
		pev__error_msg(err, " This event counts %s, which happen only inside the kernel: "
				    "counting them needs kernel-side access (level 1 or less), and "
				    "user space alone (':u') would always read 0.",
			       pev__kernel_only_software(a));
		need_level(&need, 1);
		explained = true;
	} else if (!priv && p >= 2 && !(a->flags & PEV_ATTR_EXCLUDE_KERNEL)) {
		pev__error_msg(err, " The event also counts the kernel (exclude_kernel is off), "
				    "which needs level 1 or less.");
		/* ':u' is the fix only when nothing else stands in the way. */
		if (kernel_only_blocker && p < 3 && !(a->flags & PEV_ATTR_EXCLUDE_USER))
			pev__error_hint(err, "exclude the kernel: add ':u' to the event "
					     "(opts.exclude_kernel)");
		need_level(&need, 1);
		explained = true;
	}
	if (!priv && p >= 2 && (a->sample_type & PEV_SAMPLE_BRANCH_STACK) &&
	    (a->branch_sample_type & PEV_BRANCH_KERNEL)) {
		pev__error_msg(err, " The branch stack filter includes kernel branches, which needs "
				    "level 1 or less.");
		pev__error_hint(err, "or drop PEV_BRANCH_KERNEL from branch_sample_type");
		need_level(&need, 1);
		explained = true;
	}
	if (need != INT_MAX && p != PEV_UNKNOWN && need < p)
		pev__error_hint(err, "or allow it for everyone: sysctl kernel.perf_event_paranoid=%d",
				need);
	if (explained && !priv)
		hint_capability(m, err);
	say_seccomp(m, err);
	if (errnum == EPERM && (a->flags & PEV__EXCLUDE_LEVELS) && !explained) {
		pev__error_msg(err, " Some PMUs cannot filter by privilege level and refuse an "
				    "exclude_* bit (:u, :k) with EPERM.");
		pev__error_hint(err, "try the event without its exclude_* bits (no :u or :k)");
	}
	if (!explained && m->seccomp != 2)
		pev__error_msg(err, " Nothing in the request needs more privilege than this "
				    "process has; a Linux security module (SELinux, AppArmor, "
				    "lockdown) may deny perf events here.");
}

static const char *software_stand_in(const struct pev_attr *a)
{
	if (a->type == PEV_TYPE_HARDWARE) {
		switch (a->config & PEV_HW_EVENT_MASK) {
		case PEV_HW_CPU_CYCLES:
		case PEV_HW_REF_CPU_CYCLES:
		case PEV_HW_BUS_CYCLES:
		case PEV_HW_INSTRUCTIONS:
			return "cpu-clock or task-clock (time on CPU instead of cycles)";
		default:
			break;
		}
	}
	return NULL;
}

/* For a hardware event on a machine that has a PMU: the software event that can stand in. */
static void hint_stand_in(const struct pev_attr *a, struct pev_error *err)
{
	const char *stand_in = software_stand_in(a);

	if (stand_in)
		pev__error_hint(err, "or use a software event instead: %s", stand_in);
}

static void diagnose_no_pmu(const struct pev_machine *m, const struct pev_open_request *req,
			    struct pev_error *err)
{
	const struct pev_attr *a = req->attr;
	const char *stand_in = software_stand_in(a);

	if (m->hypervisor)
		pev__error_msg(err, "this machine has no hardware PMU; it is a virtual machine%s%s%s "
				    "whose hypervisor does not pass the CPU's performance counters "
				    "through.",
			       m->vm_vendor[0] ? " (" : "", m->vm_vendor, m->vm_vendor[0] ? ")" : "");
	else
		pev__error_msg(err, "the kernel found no hardware PMU on this machine (no core PMU "
				    "under /sys/bus/event_source/devices).");
	if (stand_in)
		pev__error_hint(err, "use a software event instead: %s", stand_in);
	else
		pev__error_hint(err, "there is no software equivalent of this event; software events "
				     "(cpu-clock, task-clock, page-faults, context-switches) still work");
	if (m->hypervisor)
		pev__error_hint(err, "or enable the virtual PMU (KVM/QEMU: -cpu host,pmu=on; VMware: "
				     "\"virtualize CPU performance counters\"; clouds: an instance type "
				     "that exposes the PMU)");
}

/*
 * Names the core PMU a hardware, cache or raw event goes to, as the subject of
 * a sentence ("the cpu_core PMU", "the core PMUs (cpu_atom cpu_core)"), and
 * returns true when that subject is plural:
 * the PMU of the extended type in config's upper half (hybrid CPUs), else every
 * core PMU. dirs receives the sysfs directory name(s) for a path ("cpu",
 * "{cpu_atom,cpu_core}").
 */
static bool core_pmus_of(const struct pev_machine *m, uint64_t config, char *label, size_t lsize,
			 char *dirs, size_t dsize)
{
	const char *name = config >> PEV_PMU_TYPE_SHIFT
				   ? pev_machine_pmu_name(m, (uint32_t)(config >> PEV_PMU_TYPE_SHIFT))
				   : NULL;

	if (!name && m->hybrid) {
		char list[sizeof(m->core_pmus) + 16];
		snprintf(list, sizeof(list), "%s", m->core_pmus);
		for (char *c = list; (c = strchr(c, ','));)
			*c = ' ';
		snprintf(label, lsize, "the core PMUs (%s)", list);
		snprintf(dirs, dsize, "{%s}", m->core_pmus);
		return true;
	}
	if (!name)
		name = m->core_pmus[0] ? m->core_pmus : "cpu";
	snprintf(label, lsize, "the %s PMU", name);
	snprintf(dirs, dsize, "%s", name);
	return false;
}

/* True when the PMU of `type` has `file` in its sysfs directory (e.g. "cpumask"). */
static bool pmu_has_file(const struct pev_machine *m, uint32_t type, const char *file)
{
	const char *name = pev_machine_pmu_name(m, type);
	char path[512];

	if (!name)
		return false;
	pev__path(path, sizeof(path), m->root, "/sys/bus/event_source/devices/%s/%s", name, file);
	return access(path, F_OK) == 0;
}

static void diagnose_noent(const struct pev_machine *m, const struct pev_open_request *req,
			   struct pev_error *err)
{
	const struct pev_attr *a = req->attr;
	char pmu[128], s[256];

	pev__error_msg(err, "no such event (ENOENT): ");
	/* A software event every kernel has: the cgroup is what was not found. */
	if ((req->flags & PEV_FLAG_PID_CGROUP) && a->type == PEV_TYPE_SOFTWARE &&
	    a->config < PEV_SW_CGROUP_SWITCHES) {
		pev__error_msg(err, "the kernel keeps no perf_event state for cgroup '%s': the "
				    "cgroup was removed, or this kernel counts no events in the cgroups "
				    "of its hierarchy (some count only in a cgroup v1 perf_event "
				    "hierarchy).",
			       req->cgroup ? req->cgroup : "?");
		pev__error_hint(err, "check that the cgroup exists and that /proc/cgroups lists "
				     "perf_event as enabled; else mount a v1 hierarchy (mount -t cgroup "
				     "-o perf_event none DIR) and count a cgroup made there");
		return;
	}
	if (pev__is_hardware_type(m, a->type) && !m->has_core_pmu) {
		diagnose_no_pmu(m, req, err);
		return;
	}
	if (a->type == PEV_TYPE_HARDWARE || a->type == PEV_TYPE_HW_CACHE ||
	    a->type == PEV_TYPE_RAW) {
		uint64_t id = a->config & PEV_HW_EVENT_MASK;
		char label[160], dirs[160];
		bool plural = core_pmus_of(m, a->type == PEV_TYPE_RAW ? 0 : a->config, label,
					   sizeof(label), dirs, sizeof(dirs));
		if (a->type == PEV_TYPE_HARDWARE)
			pev__error_msg(err, "%s %s not implement generic hardware event %" PRIu64
					    " (%s).",
				       label, plural ? "do" : "does", id,
				       pev_hw_name(id) ? pev_hw_name(id) : "unknown id");
		else if (a->type == PEV_TYPE_HW_CACHE)
			pev__error_msg(err, "%s %s no counter for cache event 0x%" PRIx64 "; generic "
					    "cache events map to CPU-specific ones, and many "
					    "combinations do not exist.",
				       label, plural ? "have" : "has", id);
		else
			pev__error_msg(err, "%s %s no event with raw code 0x%" PRIx64 ".", label,
				       plural ? "have" : "has", a->config);
		pev__error_hint(err, "see the events offered: ls /sys/bus/event_source/devices/%s/events",
				dirs);
		hint_stand_in(a, err);
		return;
	}
	if (a->type == PEV_TYPE_SOFTWARE) {
		pev__error_msg(err, "software event id %" PRIu64 " is not known to this kernel "
				    "(%s)%s.",
			       a->config, m->kernel_release,
			       a->config == PEV_SW_CGROUP_SWITCHES ? "; cgroup-switches needs Linux 5.13"
								   : "");
		return;
	}
	if (is_probe_type(m, a->type, "uprobe") || is_probe_type(m, a->type, "kprobe")) {
		bool up = is_probe_type(m, a->type, "uprobe");
		if (pev__read_user_string(a->config1, s, sizeof(s)))
			pev__error_msg(err, "%s '%s' does not exist.",
				       up ? "the file to probe," : "the kernel function", s);
		else
			pev__error_msg(err, "the %s to probe does not exist.",
				       up ? "file" : "kernel function");
		pev__error_hint(err, up ? "give an existing executable or library path"
					: "check the name in /proc/kallsyms");
		return;
	}
	if (a->type >= PEV_TYPE_FIXED_MAX && !pev_machine_pmu_name(m, a->type)) {
		pev__error_msg(err, "no PMU has type %u. PMUs here:", a->type);
		for (int i = 0; i < m->nr_pmus; i++)
			pev__error_msg(err, " %s(%u)", m->pmus[i].name, m->pmus[i].type);
		pev__error_msg(err, ".");
		pev__error_hint(err, "PMU types are assigned at boot; read them from "
				     "/sys/bus/event_source/devices/<pmu>/type");
		return;
	}
	pev__error_msg(err, "the %s PMU has no event with config 0x%" PRIx64 ".",
		       pev__pmu_of(m, a->type, pmu, sizeof(pmu)), a->config);
	if (pmu_has_file(m, a->type, "events"))
		pev__error_hint(err, "see the PMU's events: ls /sys/bus/event_source/devices/%s/events",
				pmu);
}

static void diagnose_inval(const struct pev_machine *m, const struct pev_open_request *req,
			   struct pev_error *err)
{
	const struct pev_attr *a = req->attr;
	char pmu[64];

	pev__error_msg(err, "the kernel refused the event's attributes (EINVAL).");
	if (a->type == PEV_TYPE_TRACEPOINT) {
		pev__error_msg(err, " There may be no tracepoint with id %" PRIu64 ".", a->config);
		if (!m->tracefs_mounted)
			pev__error_hint(err, "tracepoint ids come from tracefs, which is not mounted: "
					     "mount -t tracefs nodev /sys/kernel/tracing");
		else
			pev__error_hint(err, "look up the id in %s/events/<subsystem>/<event>/id",
					m->tracefs_path);
	} else if (a->type == PEV_TYPE_HW_CACHE &&
		   ((a->config & 0xff) >= PEV_HW_CACHE_MAX ||
		    ((a->config >> 8) & 0xff) >= PEV_HW_CACHE_OP_MAX ||
		    ((a->config >> 16) & 0xff) >= PEV_HW_CACHE_RESULT_MAX)) {
		pev__error_msg(err, " Cache config 0x%" PRIx64 " is not id | op << 8 | result << 16 "
				    "with id < 7, op < 3, result < 2.",
			       a->config);
	} else if (is_probe_type(m, a->type, "uprobe")) {
		pev__error_msg(err, " The offset 0x%" PRIx64 " may lie outside the file or not at "
				    "an instruction.",
			       a->config2);
		pev__error_hint(err, "give the file offset of an instruction (a symbol's address "
				     "minus its section's address plus the section's file offset)");
	} else if (req->pid != -1 && a->type >= PEV_TYPE_FIXED_MAX &&
		   pmu_has_file(m, a->type, "cpumask")) {
		pev__error_msg(err, " The %s PMU counts per CPU only (it has a cpumask, like uncore "
				    "PMUs), not per task.",
			       pev__pmu_of(m, a->type, pmu, sizeof(pmu)));
		pev__error_hint(err, "open it CPU-wide: pid -1 on each CPU of its cpumask");
	}
}

static void diagnose_opnotsupp(const struct pev_machine *m, const struct pev_open_request *req,
			       struct pev_error *err)
{
	const struct pev_attr *a = req->attr;
	char pmu[64];
	bool hw = pev__is_hardware_type(m, a->type);

	pev__pmu_of(m, a->type, pmu, sizeof(pmu));
	pev__error_msg(err, "the %s PMU does not support what the event asks (EOPNOTSUPP).", pmu);
	if (hw && !m->has_core_pmu) {
		pev__error_msg(err, " In fact ");
		diagnose_no_pmu(m, req, err);
		return;
	}
	if ((a->sample_type & PEV_SAMPLE_BRANCH_STACK) && !hw) {
		pev__error_msg(err, " Branch stacks (PEV_SAMPLE_BRANCH_STACK) come from a hardware "
				    "branch recorder (LBR, BRBE), which %s events do not have.",
			       pmu);
		pev__error_hint(err, "sample branch stacks on a hardware event, on a machine whose "
				     "PMU records branches");
	} else if (a->flags & PEV_ATTR_AUX_OUTPUT) {
		pev__error_msg(err, " aux_output needs a group leader on an AUX-area PMU such as "
				    "intel_pt.");
	} else if (a->sample_period && !hw && a->type != PEV_TYPE_SOFTWARE &&
		   a->type != PEV_TYPE_TRACEPOINT && a->type != PEV_TYPE_BREAKPOINT &&
		   !is_probe_type(m, a->type, "uprobe") && !is_probe_type(m, a->type, "kprobe")) {
		pev__error_msg(err, " The %s PMU cannot sample (it raises no overflow interrupt).",
			       pmu);
		pev__error_hint(err, "count it instead (no sample period or frequency)");
	} else if (a->flags & (PEV_ATTR_EXCLUDE_USER | PEV_ATTR_EXCLUDE_KERNEL | PEV_ATTR_EXCLUDE_HV |
			       PEV_ATTR_EXCLUDE_IDLE)) {
		pev__error_msg(err, " It may not filter by privilege level (exclude_*).");
		pev__error_hint(err, "drop the :u/:k modifiers for this PMU");
	} else if (PEV_ATTR_PRECISE_IP(a->flags)) {
		pev__error_msg(err, " It may not offer precise_ip %u.", PEV_ATTR_PRECISE_IP(a->flags));
		pev__error_hint(err, "use fewer p modifiers");
	}
}

static void diagnose_nodev(const struct pev_machine *m, const struct pev_open_request *req,
			   struct pev_error *err)
{
	const struct pev_attr *a = req->attr;

	pev__error_msg(err, "the event needs a CPU feature this machine lacks (ENODEV).");
	if (req->cpu >= 0 && (req->pid == -1 || (req->flags & PEV_FLAG_PID_CGROUP)) &&
	    m->cpus_online_list[0] && !pev_machine_cpu_online(m, req->cpu)) {
		pev__error_msg(err, " CPU %d is offline (online: %s).", req->cpu,
			       m->cpus_online_list);
		return;
	}
	if (PEV_ATTR_PRECISE_IP(a->flags)) {
		pev__error_msg(err, " precise_ip %u needs PEBS (Intel) or IBS (AMD) for this event.",
			       PEV_ATTR_PRECISE_IP(a->flags));
		pev__error_hint(err, "use fewer p modifiers (:p instead of :pp)");
	}
	if (a->sample_type & PEV_SAMPLE_BRANCH_STACK)
		pev__error_msg(err, " Branch stacks need LBR (Intel), BRS/LbrExtV2 (AMD) or BRBE (Arm).");
	if (!m->has_core_pmu) {
		pev__error_msg(err, " This machine has no hardware PMU at all%s.",
			       m->hypervisor ? " (a virtual machine)" : "");
	} else if (pev__is_hardware_type(m, a->type)) {
		pev__error_msg(err, " This machine has a hardware PMU (%s), but not this feature.",
			       m->core_pmus);
		hint_stand_in(a, err);
	}
}

static void diagnose_nospc(const struct pev_machine *m, const struct pev_open_request *req,
			   struct pev_error *err)
{
	if (req->attr->type == PEV_TYPE_BREAKPOINT) {
		pev__error_msg(err, "no free hardware breakpoint slot (ENOSPC).");
		if (m->debug_registers)
			pev__error_msg(err, " This %s CPU has %d debug registers, shared by every "
					    "breakpoint on the same thread or CPU (perf events, gdb "
					    "watchpoints, ptrace), and all are taken.",
				       m->arch, m->debug_registers);
		else
			pev__error_msg(err, " Every debug register of this CPU is taken.");
		pev__error_hint(err, "close other breakpoint events or debugger watchpoints, or "
				     "cover neighbouring variables with one longer breakpoint");
	} else {
		pev__error_msg(err, "the PMU has no room for the event (ENOSPC).");
	}
}

static void diagnose_mfile(const struct pev_machine *m, const struct pev_open_request *req,
			   struct pev_error *err)
{
	int need = req->fds_needed > 0 ? req->fds_needed : 1;

	pev__error_msg(err, "too many open files (EMFILE): each event needs one descriptor per CPU "
			    "and task, and this request needs %d.",
		       need);
	if (m->nofile_soft != PEV_UNLIMITED) {
		if (m->open_fds != PEV_UNKNOWN)
			pev__error_msg(err, " %d are open already;", m->open_fds);
		pev__error_msg(err, " %s limit (RLIMIT_NOFILE) is %" PRIu64 " soft, ",
			       m->open_fds != PEV_UNKNOWN ? "the" : "The", m->nofile_soft);
		if (m->nofile_hard == PEV_UNLIMITED)
			pev__error_msg(err, "unlimited hard.");
		else
			pev__error_msg(err, "%" PRIu64 " hard.", m->nofile_hard);
	}
	if (m->nofile_soft < m->nofile_hard && m->nofile_hard != PEV_UNLIMITED)
		pev__error_hint(err, "raise the soft limit to the hard one: ulimit -n %" PRIu64
				     " (or setrlimit(RLIMIT_NOFILE) in the program)",
				m->nofile_hard);
	else if (m->nofile_soft < m->nofile_hard)
		pev__error_hint(err, "raise the soft limit: ulimit -n %" PRIu64
				     " (or setrlimit(RLIMIT_NOFILE) in the program)",
				(m->open_fds != PEV_UNKNOWN ? (uint64_t)m->open_fds : m->nofile_soft) +
					(uint64_t)need + 64);
	else
		pev__error_hint(err, "raise the hard limit as root (limits.conf nofile, or "
				     "systemd's LimitNOFILE=) and then ulimit -n");
	pev__error_hint(err, "or open fewer descriptors: fewer events, fewer CPUs, or one "
			     "thread instead of all");
}

static void diagnose_srch(const struct pev_machine *m, const struct pev_open_request *req,
			  struct pev_error *err)
{
	char path[512], stat[512];

	pev__error_msg(err, "no such process (ESRCH): ");
	pev__path(path, sizeof(path), m->root, "/proc/%d/stat", (int)req->pid);
	if (pev__read_text(path, stat, sizeof(stat)) > 0) {
		const char *close = strrchr(stat, ')');
		if (close && close[1] == ' ' && (close[2] == 'Z' || close[2] == 'X'))
			pev__error_msg(err, "thread %d has exited (it is a zombie waiting to be "
					    "reaped).",
				       (int)req->pid);
		else
			pev__error_msg(err, "thread %d is not visible to the kernel for this "
					    "request (another PID namespace?).",
				       (int)req->pid);
	} else {
		pev__error_msg(err, "thread %d does not exist, or has exited and been reaped.",
			       (int)req->pid);
	}
	pev__error_hint(err, "check the id (ps -p %d); to count a program from its first "
			     "instruction, fork it, open the counter on the child "
			     "(pev_target_process) with opts.enable_on_exec, then let the child exec",
			(int)req->pid);
}

static void diagnose_badf(const struct pev_machine *m, const struct pev_open_request *req,
			  struct pev_error *err)
{
	char path[512], target[512];
	int fd = (req->flags & PEV_FLAG_PID_CGROUP) ? (int)req->pid : req->group_fd;
	const char *what = (req->flags & PEV_FLAG_PID_CGROUP) ? "cgroup fd" : "group fd";

	pev__error_msg(err, "bad file descriptor (EBADF): ");
	pev__path(path, sizeof(path), m->root, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (n >= 0)
		target[n] = '\0';
	if ((req->flags & PEV_FLAG_PID_CGROUP) && req->cgroup)
		pev__error_msg(err, "'%s' is not usable as a cgroup (%s).", req->cgroup,
			       n >= 0 ? "its descriptor is not a cgroup directory"
				      : "its descriptor is not open");
	else if (fd < 0 || n < 0)
		pev__error_msg(err, "%s %d is not an open descriptor.", what, fd);
	else if (req->flags & PEV_FLAG_PID_CGROUP)
		pev__error_msg(err, "cgroup fd %d is '%s', not a cgroup directory.", fd, target);
	else
		pev__error_msg(err, "group fd %d is '%s', not a perf event.", fd, target);
	pev__error_hint(err, (req->flags & PEV_FLAG_PID_CGROUP)
				     ? "open the cgroup's directory (cgroup v2, /sys/fs/cgroup/...) "
				       "and pass that descriptor"
				     : "pass the descriptor of an open group leader, or -1 for none");
}

/* Lists up to five processes holding perf event descriptors into the message. */
static void name_perf_holders(const struct pev_machine *m, struct pev_error *err)
{
	char path[512], link[128], comm[64];
	int found = 0;
	DIR *proc;
	struct dirent *p;

	pev__path(path, sizeof(path), m->root, "/proc");
	if (!(proc = opendir(path)))
		return;
	while ((p = readdir(proc)) && found < 5) {
		int pid = atoi(p->d_name);
		if (pid <= 0 || pid == getpid())
			continue;
		pev__path(path, sizeof(path), m->root, "/proc/%d/fd", pid);
		DIR *fds = opendir(path);
		if (!fds)
			continue;
		struct dirent *f;
		bool holds = false;
		while (!holds && (f = readdir(fds))) {
			char fdpath[800];
			snprintf(fdpath, sizeof(fdpath), "%s/%s", path, f->d_name);
			ssize_t n = readlink(fdpath, link, sizeof(link) - 1);
			if (n > 0) {
				link[n] = '\0';
				holds = strcmp(link, "anon_inode:[perf_event]") == 0;
			}
		}
		closedir(fds);
		if (!holds)
			continue;
		pev__path(path, sizeof(path), m->root, "/proc/%d/comm", pid);
		if (pev__read_text(path, comm, sizeof(comm)) <= 0)
			pev__strlcpy(comm, "?", sizeof(comm));
		pev__error_msg(err, "%s %s (pid %d)", found ? "," : " Processes holding perf events:",
			       comm, pid);
		found++;
	}
	closedir(proc);
	if (found)
		pev__error_msg(err, ".");
}

static void diagnose_busy(const struct pev_machine *m, const struct pev_open_request *req,
			  struct pev_error *err)
{
	char pmu[64];

	pev__error_msg(err, "the %s PMU is busy (EBUSY): another event holds it exclusively.",
		       pev__pmu_of(m, req->attr->type, pmu, sizeof(pmu)));
	name_perf_holders(m, err);
	if (m->nmi_watchdog == 1 && pev__is_hardware_type(m, req->attr->type))
		pev__error_hint(err, "the NMI watchdog keeps a hardware counter: sysctl "
				     "kernel.nmi_watchdog=0 frees it");
	pev__error_hint(err, "wait for the other tool to finish, or stop it");
}

static void diagnose_fault(const struct pev_machine *m, const struct pev_open_request *req,
			   struct pev_error *err)
{
	const struct pev_attr *a = req->attr;
	bool up = is_probe_type(m, a->type, "uprobe"), kp = is_probe_type(m, a->type, "kprobe");

	pev__error_msg(err, "the kernel could not read memory the request points to (EFAULT).");
	if (up || kp)
		pev__error_msg(err, " config1 (0x%" PRIx64 ") should point to the %s as a "
				    "NUL-terminated string in this process.",
			       a->config1, up ? "path of the file to probe" : "kernel function's name");
	else
		pev__error_msg(err, " The attribute block at %p is not readable.", (const void *)a);
}

static void diagnose_nosys(const struct pev_machine *m, const struct pev_open_request *req,
			   struct pev_error *err)
{
	pev__error_msg(err, "function not implemented (ENOSYS).");
	if (!m->perf_events) {
		pev__error_msg(err, " This kernel has no perf events (CONFIG_PERF_EVENTS is off: "
				    "/proc/sys/kernel/perf_event_paranoid does not exist).");
		pev__error_hint(err, "boot a kernel built with CONFIG_PERF_EVENTS=y");
	} else if (m->seccomp == 2) {
		say_seccomp(m, err);
	} else if (req->attr->sample_type & PEV_SAMPLE_STACK_USER) {
		pev__error_msg(err, " Sampling the user stack (PEV_SAMPLE_STACK_USER) is not "
				    "supported on this architecture.");
		pev__error_hint(err, "use frame-pointer callchains (PEV_SAMPLE_CALLCHAIN) instead");
	} else {
		pev__error_msg(err, " Something between this program and the kernel (a sandbox, "
				    "gVisor, an emulator) does not implement perf_event_open.");
	}
}

static void diagnose_e2big(const struct pev_open_request *req, uint32_t size_back,
			   struct pev_error *err)
{
	uint32_t size = req->attr->size;

	pev__error_msg(err, "the attribute block's size is not acceptable (E2BIG): attr.size is "
			    "%u",
		       size);
	if (size_back)
		pev__error_msg(err, ", and this kernel expects %u.", size_back);
	else
		pev__error_msg(err, ", and the kernel did not write back the size it expects.");
	if (size && size < PEV_ATTR_SIZE_VER0)
		pev__error_msg(err, " No kernel accepts less than %d bytes.", PEV_ATTR_SIZE_VER0);
	else if (size > 4096)
		pev__error_msg(err, " No kernel accepts more than a page (4096 bytes).");
	else if (size_back && size > size_back)
		pev__error_msg(err, " Bytes %u..%u are beyond what this kernel knows and must be "
				    "zero, but some are not: the event uses a field newer than the "
				    "kernel.",
			       size_back, size - 1);
	pev__error_hint(err, "send the smallest size that holds the fields in use "
			     "(pev_attr_encode does), and leave newer fields zero on older kernels");
}

static void diagnose_overflow(const struct pev_machine *m, const struct pev_open_request *req,
			      struct pev_error *err)
{
	pev__error_field(err, "sample_max_stack");
	if (m->max_stack == PEV_UNKNOWN) {
		pev__error_msg(err, "sample_max_stack %u frames is above the limit in "
				    "kernel.perf_event_max_stack (EOVERFLOW).",
			       req->attr->sample_max_stack);
		pev__error_hint(err, "ask for fewer frames (the default limit is %d)",
				PEV_MAX_STACK_DEPTH);
		return;
	}
	pev__error_msg(err, "sample_max_stack %u frames is above this machine's limit of %d "
			    "frames, kernel.perf_event_max_stack (EOVERFLOW).",
		       req->attr->sample_max_stack, m->max_stack);
	pev__error_hint(err, "ask for %d frames or fewer", m->max_stack);
	pev__error_hint(err, "or raise the limit: sysctl kernel.perf_event_max_stack=%u",
			req->attr->sample_max_stack);
}

static void diagnose_intr(struct pev_error *err)
{
	pev__error_msg(err, "interrupted (EINTR): a uprobe at the same place was created through "
			    "tracefs (uprobe_events), and perf and ftrace cannot share it.");
	pev__error_hint(err, "remove the ftrace probe (echo '-:<name>' >> "
			     "/sys/kernel/tracing/uprobe_events) or retry");
}

/*
 * EINVAL from the kernel for a request the caller did not validate
 * (PEV_OPEN_NO_VALIDATE, or its own syscall): when one of the rules checked
 * before the syscall explains it, that rule's field, message and hint are the
 * diagnosis. Returns true when a rule did.
 */
static bool explain_by_rules(const struct pev_machine *m, const struct pev_open_request *req,
			     struct pev_error *err)
{
	struct pev_error *rule;
	bool found = false;

	if (!err || !(rule = calloc(1, sizeof(*rule))))
		return false;
	if (pev_attr_check(m, req, rule) == PEV_EINVAL) {
		/* Both messages start with the same "cannot open '<event>' <target>: ". */
		size_t prefix = strlen(err->message);
		pev__error_field(err, rule->field);
		pev__error_msg(err, "the kernel refused the request (EINVAL): %s.",
			       strlen(rule->message) > prefix ? rule->message + prefix : rule->message);
		if (rule->hint[0])
			pev__error_hint(err, "%s", rule->hint);
		found = true;
	}
	free(rule);
	return found;
}

PEV_API int pev_diagnose_open(const struct pev_machine *m, const struct pev_open_request *req,
			      int errnum, uint32_t size_back, struct pev_error *err)
{
	int code = pev_error_from_errno(errnum);

	pev__error_clear(err);
	if (!m || !req || !req->attr)
		return pev__bad_arg(err, "pev_diagnose_open", !m ? "m" : "req",
				    "needs machine facts and a request with an attr");
	pev__open_error(err, m, req, code, false);
	pev__error_of(err)->sys_errno = errnum;
	switch (errnum) {
	case EACCES:
	case EPERM:
		diagnose_access(m, req, errnum, err);
		break;
	case ENOENT:
		diagnose_noent(m, req, err);
		break;
	case EINVAL:
		if (!explain_by_rules(m, req, err))
			diagnose_inval(m, req, err);
		break;
	case EOPNOTSUPP:
		diagnose_opnotsupp(m, req, err);
		break;
	case ENODEV:
		if (pev__is_hardware_type(m, req->attr->type) && !m->has_core_pmu) {
			pev__error_msg(err, "no such device (ENODEV): ");
			diagnose_no_pmu(m, req, err);
		} else {
			diagnose_nodev(m, req, err);
		}
		break;
	case ENOSPC:
		diagnose_nospc(m, req, err);
		break;
	case EMFILE:
		diagnose_mfile(m, req, err);
		break;
	case ENFILE:
		pev__error_msg(err, "the system's open file table is full (ENFILE).");
		pev__error_hint(err, "raise fs.file-max, or close descriptors elsewhere");
		break;
	case ESRCH:
		diagnose_srch(m, req, err);
		break;
	case EBADF:
		diagnose_badf(m, req, err);
		break;
	case EBUSY:
		diagnose_busy(m, req, err);
		break;
	case EFAULT:
		diagnose_fault(m, req, err);
		break;
	case EINTR:
		diagnose_intr(err);
		break;
	case ENOSYS:
		diagnose_nosys(m, req, err);
		break;
	case E2BIG:
		diagnose_e2big(req, size_back, err);
		break;
	case EOVERFLOW:
		diagnose_overflow(m, req, err);
		break;
	case ENOMEM:
		pev__error_msg(err, "the kernel is out of memory (ENOMEM).");
		break;
	default:
		pev__error_msg(err, "%s (errno %d).", strerror(errnum), errnum);
		break;
	}
	return code;
}

PEV_API int pev_diagnose_mmap(const struct pev_machine *m, const char *event, size_t data_pages,
			      uint64_t mapped_kb, int errnum, struct pev_error *err)
{
	int code = pev_error_from_errno(errnum);
	uint64_t page_kb = m && m->page_size > 0 ? (uint64_t)m->page_size / 1024 : 4;
	uint64_t want_kb = (data_pages + 1) * page_kb;

	pev__error_clear(err);
	if (!m)
		return pev__bad_arg(err, "pev_diagnose_mmap", "m", "needs machine facts");
	pev__error_start(err, code, errnum, "mmap", event, false);
	pev__error_msg(err, "cannot map the ring buffer of '%s' (1 + %zu pages, %" PRIu64
			    " KiB): ",
		       event ? event : "?", data_pages, want_kb);
	if (errnum == EINVAL && (data_pages & (data_pages - 1))) {
		pev__error_field(err, "pages");
		pev__error_msg(err, "the data area must be a power of two pages, and %zu is not.",
			       data_pages);
		pev__error_hint(err, "use %zu or %zu pages", (size_t)1 << (63 - __builtin_clzll(data_pages)),
				(size_t)1 << (64 - __builtin_clzll(data_pages)));
		return code;
	}
	if (errnum == EPERM || errnum == ENOMEM) {
		bool cpus_known = m->cpus_online > 0;
		uint64_t cpus = cpus_known ? (uint64_t)m->cpus_online : 1;
		bool budget_known = m->mlock_kb != PEV_UNKNOWN && m->mlock_kb >= 0;
		uint64_t budget_kb = budget_known ? (uint64_t)m->mlock_kb * cpus : 0;
		pev__error_field(err, "pages");
		pev__error_msg(err, "the locked-memory budget is exhausted (%s).",
			       errnum == EPERM ? "EPERM" : "ENOMEM");
		if (budget_known && cpus_known)
			pev__error_msg(err, " perf_event_mlock_kb allows %d KiB per CPU, %" PRIu64
					    " KiB for this user on %" PRIu64 " online CPUs",
				       m->mlock_kb, budget_kb, cpus);
		else if (budget_known)
			pev__error_msg(err, " perf_event_mlock_kb allows %d KiB per online CPU",
				       m->mlock_kb);
		else
			pev__error_msg(err, " The per-CPU budget (kernel.perf_event_mlock_kb) is "
					    "unreadable");
		if (mapped_kb)
			pev__error_msg(err, "; %" PRIu64 " KiB are mapped already", mapped_kb);
		if (m->memlock_soft == PEV_UNLIMITED)
			pev__error_msg(err, ", and RLIMIT_MEMLOCK is unlimited.");
		else
			pev__error_msg(err, ", and RLIMIT_MEMLOCK adds %" PRIu64 " KiB.",
				       m->memlock_soft / 1024);
		if (m->cap_ipc_lock || (m->perf_events && m->paranoid == -1))
			pev__error_msg(err, " This process is privileged (%s), so the budget should "
					    "not apply: the kernel itself may be short of memory.",
				       m->cap_ipc_lock ? "CAP_IPC_LOCK" : "perf_event_paranoid -1");
		else if (pev__privileged(m))
			pev__error_msg(err, " CAP_PERFMON and CAP_SYS_ADMIN do not lift this budget; "
					    "CAP_IPC_LOCK does.");
		/* A smaller power of two that fits what is left, when smaller than the ask. */
		if (budget_known && budget_kb > mapped_kb + page_kb) {
			uint64_t fit = (budget_kb - mapped_kb) / page_kb - 1;
			size_t pow2 = 1;
			while (pow2 * 2 <= fit)
				pow2 *= 2;
			if (pow2 < data_pages)
				pev__error_hint(err, "map fewer pages: %zu data pages fit", pow2);
		} else if (mapped_kb) {
			pev__error_hint(err, "unmap other rings first, or map fewer pages");
		}
		/* The sysctl is per CPU: the user's budget is it times the online CPUs. */
		uint64_t per_cpu = (want_kb + mapped_kb + cpus - 1) / cpus;
		if (budget_known && per_cpu > (uint64_t)m->mlock_kb)
			pev__error_hint(err, "or raise the budget: sysctl kernel.perf_event_mlock_kb=%" PRIu64,
					per_cpu);
		pev__error_hint(err, "or raise RLIMIT_MEMLOCK (ulimit -l), or grant CAP_IPC_LOCK");
		return code;
	}
	pev__error_msg(err, "%s (errno %d).", strerror(errnum), errnum);
	return code;
}

PEV_API int pev_diagnose_call(const char *call, const char *event, int errnum,
			      struct pev_error *err)
{
	int code = pev_error_from_errno(errnum);

	pev__error_clear(err);
	if (errnum <= 0)
		return pev__bad_arg(err, "pev_diagnose_call", "errnum",
				    "is %d; give the positive errno the call failed with", errnum);
	pev__error_start(err, code, errnum, call, event, false);
	pev__error_msg(err, "%s on '%s' failed: ", call ? call : "call", event ? event : "?");
	switch (errnum) {
	case EBADF:
		pev__error_msg(err, "the descriptor is closed (EBADF).");
		break;
	case ENOTTY:
		pev__error_msg(err, "the descriptor is not a perf event (ENOTTY).");
		break;
	case ENOSPC:
		pev__error_msg(err, "the buffer is too small for the event's read_format (ENOSPC).");
		pev__error_hint(err, "size the buffer for every value read_format asks for, and "
				     "for every group member");
		break;
	case EINVAL:
		pev__error_msg(err, "the kernel refused the argument (EINVAL).");
		break;
	case EACCES:
	case EPERM:
		pev__error_msg(err, "not permitted (%s).", errnum == EPERM ? "EPERM" : "EACCES");
		break;
	case EAGAIN:
		pev__error_msg(err, "no data yet (EAGAIN).");
		break;
	default:
		if (errnum > 4000)
			/* A perfev code, passed negated like an errno. */
			pev__error_msg(err, "%s.", pev_strerror(-errnum));
		else
			pev__error_msg(err, "%s (errno %d).", strerror(errnum), errnum);
		break;
	}
	return code;
}

/* SPDX-License-Identifier: MIT */
/*
 * machine.c - reads the facts that decide what perf_event_open can do here.
 *
 * Everything comes from text files in procfs and sysfs, under a root that
 * tests point at a fixture tree, so the diagnosis can be tested for machines
 * this one is not (paranoid 3, a container, a hybrid CPU).
 */
#include "perfev/machine.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "perfev/cpulist.h"
#include "core/machine_internal.h"
#include "core/error_internal.h"
#include "core/sys.h"
#include "core/util.h"

/* Capability numbers (linux/capability.h). */
#define CAP_NUM_SYS_PTRACE 19
#define CAP_NUM_SYS_ADMIN  21
#define CAP_NUM_IPC_LOCK   14
#define CAP_NUM_PERFMON    38

static int read_sysctl(const char *root, const char *name)
{
	char path[512];
	long long v;

	pev__path(path, sizeof(path), root, "/proc/sys/kernel/%s", name);
	if (pev__read_long(path, &v) < 0 || v < INT32_MIN || v > INT32_MAX)
		return PEV_UNKNOWN;
	return (int)v;
}

static void read_kernel(struct pev_machine *m, const char *root)
{
	char path[512];
	int major = 0, minor = 0, patch = 0;
	struct utsname u;

	pev__path(path, sizeof(path), root, "/proc/sys/kernel/osrelease");
	if (pev__read_text(path, m->kernel_release, sizeof(m->kernel_release)) <= 0 &&
	    (!root || !*root) && uname(&u) == 0)
		pev__strlcpy(m->kernel_release, u.release, sizeof(m->kernel_release));
	m->kernel_version = PEV_UNKNOWN;
	if (sscanf(m->kernel_release, "%d.%d.%d", &major, &minor, &patch) >= 2)
		m->kernel_version = major << 16 | minor << 8 | (patch > 255 ? 255 : patch);

	pev__path(path, sizeof(path), root, "/proc/sys/kernel/arch");
	if (pev__read_text(path, m->arch, sizeof(m->arch)) <= 0 && (!root || !*root) &&
	    uname(&u) == 0)
		pev__strlcpy(m->arch, u.machine, sizeof(m->arch));

	pev__path(path, sizeof(path), root, "/proc/sys/kernel/perf_event_paranoid");
	m->perf_events = access(path, R_OK) == 0;
	m->paranoid = read_sysctl(root, "perf_event_paranoid");
	m->max_sample_rate = read_sysctl(root, "perf_event_max_sample_rate");
	m->max_stack = read_sysctl(root, "perf_event_max_stack");
	m->max_contexts_per_stack = read_sysctl(root, "perf_event_max_contexts_per_stack");
	m->mlock_kb = read_sysctl(root, "perf_event_mlock_kb");
	m->cpu_time_max_percent = read_sysctl(root, "perf_cpu_time_max_percent");
	m->nmi_watchdog = read_sysctl(root, "nmi_watchdog");
}

/* Returns the value after "key:" on its own line of text, or NULL. */
static const char *field_value(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *colon = line + klen;
		if (strncmp(line, key, klen) != 0)
			continue;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		if (*colon == ':') {
			const char *v = colon + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			return v;
		}
	}
	return NULL;
}

static void read_status(struct pev_machine *m, const char *root)
{
	char path[512], text[4096];
	const char *v;

	m->euid = (uid_t)-1;
	m->seccomp = PEV_UNKNOWN;
	pev__path(path, sizeof(path), root, "/proc/self/status");
	if (pev__read_text(path, text, sizeof(text)) <= 0)
		return;
	if ((v = field_value(text, "Uid"))) {
		unsigned long real, eff;
		if (sscanf(v, "%lu %lu", &real, &eff) == 2)
			m->euid = (uid_t)eff;
	}
	if ((v = field_value(text, "CapEff"))) {
		unsigned long long caps = strtoull(v, NULL, 16);
		m->cap_perfmon = caps >> CAP_NUM_PERFMON & 1;
		m->cap_sys_admin = caps >> CAP_NUM_SYS_ADMIN & 1;
		m->cap_sys_ptrace = caps >> CAP_NUM_SYS_PTRACE & 1;
		m->cap_ipc_lock = caps >> CAP_NUM_IPC_LOCK & 1;
	}
	if ((v = field_value(text, "Seccomp")))
		m->seccomp = atoi(v);
	if ((v = field_value(text, "NoNewPrivs")))
		m->no_new_privs = atoi(v) != 0;
}

/* Parses one "Max ..." line of /proc/self/limits into soft and hard values. */
static void limit_values(const char *text, const char *name, uint64_t *soft, uint64_t *hard)
{
	const char *line = strstr(text, name);
	char s[32], h[32];

	*soft = *hard = PEV_UNLIMITED;
	if (!line || sscanf(line + strlen(name), " %31s %31s", s, h) != 2)
		return;
	if (strcmp(s, "unlimited") != 0)
		*soft = strtoull(s, NULL, 10);
	if (strcmp(h, "unlimited") != 0)
		*hard = strtoull(h, NULL, 10);
}

static void read_limits(struct pev_machine *m, const char *root)
{
	char path[512], text[4096];
	DIR *d;

	pev__path(path, sizeof(path), root, "/proc/self/limits");
	if (pev__read_text(path, text, sizeof(text)) > 0) {
		limit_values(text, "Max open files", &m->nofile_soft, &m->nofile_hard);
		limit_values(text, "Max locked memory", &m->memlock_soft, &m->memlock_hard);
	} else if (!root || !*root) {
		/* No descriptor to spare (EMFILE is what is being diagnosed): ask directly. */
		struct rlimit rl;
		m->nofile_soft = m->nofile_hard = PEV_UNLIMITED;
		m->memlock_soft = m->memlock_hard = PEV_UNLIMITED;
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
			if (rl.rlim_cur != RLIM_INFINITY)
				m->nofile_soft = rl.rlim_cur;
			if (rl.rlim_max != RLIM_INFINITY)
				m->nofile_hard = rl.rlim_max;
		}
		if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
			if (rl.rlim_cur != RLIM_INFINITY)
				m->memlock_soft = rl.rlim_cur;
			if (rl.rlim_max != RLIM_INFINITY)
				m->memlock_hard = rl.rlim_max;
		}
	} else {
		m->nofile_soft = m->nofile_hard = PEV_UNLIMITED;
		m->memlock_soft = m->memlock_hard = PEV_UNLIMITED;
	}
	m->open_fds = PEV_UNKNOWN;
	pev__path(path, sizeof(path), root, "/proc/self/fd");
	if ((d = opendir(path))) {
		struct dirent *e;
		int n = 0;
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				n++;
		closedir(d);
		/* Do not count the directory stream we just used. */
		m->open_fds = root && *root ? n : n - 1;
	}
}

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || isspace((unsigned char)p[-1])) &&
		    (p[n] == '\0' || isspace((unsigned char)p[n])))
			return true;
	return false;
}

static void copy_field(char *dst, size_t size, const char *v)
{
	size_t n = strcspn(v, "\n");

	if (n >= size)
		n = size - 1;
	memcpy(dst, v, n);
	dst[n] = '\0';
}

/*
 * Arm's /proc/cpuinfo names no vendor or model: its CPU implementer (a
 * vendor code) and part, variant and revision (the model) make them.
 */
static void read_arm_cpu(struct pev_machine *m, const char *text)
{
	static const struct {
		unsigned code;
		const char *name;
	} vendors[] = {
		{0x41, "ARM"},     {0x42, "Broadcom"}, {0x43, "Cavium"},   {0x46, "Fujitsu"},
		{0x48, "HiSilicon"}, {0x4e, "NVIDIA"}, {0x50, "APM"},      {0x51, "Qualcomm"},
		{0x61, "Apple"},   {0xc0, "Ampere"},
	};
	const char *impl = field_value(text, "CPU implementer");
	const char *part = field_value(text, "CPU part");
	const char *var = field_value(text, "CPU variant");
	const char *rev = field_value(text, "CPU revision");
	unsigned long code;

	if (!impl || !part)
		return;
	code = strtoul(impl, NULL, 0);
	for (size_t i = 0; i < sizeof(vendors) / sizeof(vendors[0]); i++)
		if (vendors[i].code == code)
			pev__strlcpy(m->cpu_vendor, vendors[i].name, sizeof(m->cpu_vendor));
	/* An implementer without a name (QEMU's max CPU has 0) shows as its code. */
	if (!m->cpu_vendor[0])
		snprintf(m->cpu_model, sizeof(m->cpu_model), "implementer 0x%02lx, ", code & 0xff);
	size_t used = strlen(m->cpu_model);
	snprintf(m->cpu_model + used, sizeof(m->cpu_model) - used, "part 0x%03lx r%lup%lu",
		 strtoul(part, NULL, 0), var ? strtoul(var, NULL, 0) : 0,
		 rev ? strtoul(rev, NULL, 0) : 0);
}

/*
 * A virtual machine that no CPU flag shows (arm64 has no "hypervisor"
 * flag): QEMU's DMI vendor (UEFI boots), the device tree of QEMU's "virt"
 * board, or a hypervisor node in the device tree (Xen, KVM).
 */
static bool virtual_board(const char *root)
{
	char path[512], text[256];
	ssize_t n;

	pev__path(path, sizeof(path), root, "/sys/class/dmi/id/sys_vendor");
	if (pev__read_text(path, text, sizeof(text)) > 0 && strncmp(text, "QEMU", 4) == 0)
		return true;
	pev__path(path, sizeof(path), root, "/proc/device-tree/hypervisor");
	if (access(path, F_OK) == 0)
		return true;
	/* compatible: NUL-separated strings; the virt board's is linux,dummy-virt. */
	pev__path(path, sizeof(path), root, "/proc/device-tree/compatible");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n > 0)
		text[n] = '\0';
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(text + i) + 1) {
		if (strcmp(text + i, "linux,dummy-virt") == 0)
			return true;
	}
	return false;
}

static void read_cpu(struct pev_machine *m, const char *root)
{
	char path[512];
	const size_t text_size = 1 << 18;
	char *text = malloc(text_size);
	const char *v;

	pev__path(path, sizeof(path), root, "/proc/cpuinfo");
	if (text && pev__read_text(path, text, text_size) > 0) {
		const char *flags = field_value(text, "flags");
		if (flags) {
			char line[4096];
			copy_field(line, sizeof(line), flags);
			m->hypervisor = has_word(line, "hypervisor");
			m->arch_perfmon = has_word(line, "arch_perfmon");
		}
		if ((v = field_value(text, "vendor_id")))
			copy_field(m->cpu_vendor, sizeof(m->cpu_vendor), v);
		if ((v = field_value(text, "model name")))
			copy_field(m->cpu_model, sizeof(m->cpu_model), v);
		if (!m->cpu_vendor[0])
			read_arm_cpu(m, text);
	}
	free(text);
	if (!m->hypervisor)
		m->hypervisor = virtual_board(root);
	if (m->hypervisor) {
		char vendor[64] = "", product[64] = "";
		pev__path(path, sizeof(path), root, "/sys/class/dmi/id/sys_vendor");
		pev__read_text(path, vendor, sizeof(vendor));
		pev__path(path, sizeof(path), root, "/sys/class/dmi/id/product_name");
		pev__read_text(path, product, sizeof(product));
		if (!vendor[0]) {
			pev__path(path, sizeof(path), root, "/sys/hypervisor/type");
			pev__read_text(path, vendor, sizeof(vendor));
		}
		if (!vendor[0]) { /* a device tree's board: "linux,dummy-virt" */
			pev__path(path, sizeof(path), root, "/proc/device-tree/model");
			pev__read_text(path, product, sizeof(product));
		}
		snprintf(m->vm_vendor, sizeof(m->vm_vendor), "%s%s%s", vendor,
			 vendor[0] && product[0] ? " " : "", product);
	}

	pev__path(path, sizeof(path), root, "/sys/devices/system/cpu/online");
	pev__read_text(path, m->cpus_online_list, sizeof(m->cpus_online_list));
	pev__path(path, sizeof(path), root, "/sys/devices/system/cpu/possible");
	pev__read_text(path, m->cpus_possible_list, sizeof(m->cpus_possible_list));
	int n = pev_cpulist_parse(m->cpus_online_list, NULL, 0);
	m->cpus_online = n > 0 ? n : PEV_UNKNOWN;
	if (!m->cpus_possible_list[0])
		pev__strlcpy(m->cpus_possible_list, m->cpus_online_list,
			     sizeof(m->cpus_possible_list));

	/* x86 has four debug registers, DR0-DR3, on every model. */
	if (strcmp(m->arch, "x86_64") == 0 || (m->arch[0] == 'i' && strcmp(m->arch + 2, "86") == 0))
		m->debug_registers = 4;
	m->page_size = (int)sysconf(_SC_PAGESIZE);
}

static int cmp_pmu(const void *a, const void *b)
{
	return strcmp(((const struct pev_machine_pmu *)a)->name,
		      ((const struct pev_machine_pmu *)b)->name);
}

static void read_pmus(struct pev_machine *m, const char *root)
{
	char dir[512], path[1024];
	DIR *d;
	struct dirent *e;

	pev__path(dir, sizeof(dir), root, "/sys/bus/event_source/devices");
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d)) && m->nr_pmus < PEV_MACHINE_MAX_PMUS) {
		long long type;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", dir, e->d_name);
		if (pev__read_long(path, &type) < 0 || type < 0 || type > UINT32_MAX)
			continue;
		struct pev_machine_pmu *p = &m->pmus[m->nr_pmus++];
		pev__strlcpy(p->name, e->d_name, sizeof(p->name));
		p->type = (uint32_t)type;
	}
	closedir(d);
	qsort(m->pmus, (size_t)m->nr_pmus, sizeof(m->pmus[0]), cmp_pmu);

	int cores = 0;
	for (int i = 0; i < m->nr_pmus; i++) {
		const char *name = m->pmus[i].name;
		snprintf(path, sizeof(path), "%s/%s/cpus", dir, name);
		bool core = m->pmus[i].type == PEV_TYPE_RAW || strcmp(name, "cpu") == 0 ||
			    access(path, F_OK) == 0;
		if (core) {
			pev__appendf(m->core_pmus, sizeof(m->core_pmus), "%s%s",
				     cores ? "," : "", name);
			cores++;
		}
		if (strcmp(name, "uprobe") == 0)
			m->has_uprobe_pmu = true;
		if (strcmp(name, "kprobe") == 0)
			m->has_kprobe_pmu = true;
	}
	m->has_core_pmu = cores > 0;
	m->hybrid = cores > 1;
}

static void read_tracing(struct pev_machine *m, const char *root)
{
	char path[512], text[16384];

	pev__path(path, sizeof(path), root, "/proc/filesystems");
	if (pev__read_text(path, text, sizeof(text)) > 0)
		m->tracefs_supported = strstr(text, "\ttracefs") != NULL;
	pev__path(path, sizeof(path), root, "/proc/mounts");
	if (pev__read_text(path, text, sizeof(text)) <= 0)
		return;
	for (char *line = text; line && *line;) {
		char *next = strchr(line, '\n');
		char dev[64], mnt[128], fstype[32];
		if (next)
			*next++ = '\0';
		if (sscanf(line, "%63s %127s %31s", dev, mnt, fstype) == 3 &&
		    strcmp(fstype, "tracefs") == 0) {
			pev__unescape_mount_path(mnt);
			m->tracefs_mounted = true;
			pev__strlcpy(m->tracefs_path, mnt, sizeof(m->tracefs_path));
			if (strcmp(mnt, "/sys/kernel/tracing") == 0)
				break;
		}
		line = next;
	}
}

/*
 * A container: a runtime's marker file, a runtime's name in init's cgroup,
 * or an init that is not pid 1 of the host (a PID namespace). Docker's
 * /.dockerenv alone is not enough: VM images built from container images
 * keep it.
 */
static void read_container(struct pev_machine *m, const char *root)
{
	static const char *const markers[] = {"docker", "kubepods", "lxc", "libpod", "containerd"};
	char path[512], text[4096];
	long host_pid;

	pev__path(path, sizeof(path), root, "/run/.containerenv");
	if (access(path, F_OK) == 0)
		m->in_container = true;
	pev__path(path, sizeof(path), root, "/proc/1/cgroup");
	if (pev__read_text(path, text, sizeof(text)) > 0)
		for (size_t i = 0; i < PEV_ARRAY_SIZE(markers); i++)
			if (strstr(text, markers[i]))
				m->in_container = true;
	pev__path(path, sizeof(path), root, "/proc/1/sched");
	if (pev__read_text(path, text, sizeof(text)) > 0) {
		const char *paren = strchr(text, '(');
		if (paren && sscanf(paren + 1, "%ld,", &host_pid) == 1 && host_pid != 1)
			m->in_container = true;
	}
}

PEV_API int pev_machine_read(struct pev_machine *m, const char *root)
{
	if (!m)
		return pev__bad_arg(NULL, "pev_machine_read", "m", "NULL");
	memset(m, 0, sizeof(*m));
	if (root && !*root)
		root = NULL;
	if (root)
		pev__strlcpy(m->root, root, sizeof(m->root));
	read_kernel(m, root);
	read_status(m, root);
	read_limits(m, root);
	read_cpu(m, root);
	read_pmus(m, root);
	read_tracing(m, root);
	read_container(m, root);
	return 0;
}

PEV_API int pev_machine_probe_attr_size(struct pev_machine *m)
{
	/* A block one page long with a non-zero last byte: every kernel refuses it. */
	union {
		struct pev_attr attr;
		unsigned char bytes[4096];
	} probe;

	if (!m)
		return pev__bad_arg(NULL, "pev_machine_probe_attr_size", "m", "NULL");
	memset(&probe, 0, sizeof(probe));
	probe.attr.type = PEV_TYPE_SOFTWARE;
	probe.attr.config = PEV_SW_DUMMY;
	probe.attr.size = sizeof(probe.bytes);
	probe.attr.flags = PEV_ATTR_DISABLED | PEV_ATTR_EXCLUDE_KERNEL | PEV_ATTR_EXCLUDE_HV;
	probe.bytes[sizeof(probe.bytes) - 1] = 1;
	int fd = pev__sys_perf_event_open(&probe.attr, 0, -1, -1, PEV_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		/* A kernel that reads a whole page: it knows every field we could send. */
		pev__sys_close(fd);
		m->attr_size = (int)sizeof(probe.bytes);
		return m->attr_size;
	}
	if (fd != -E2BIG)
		return fd;
	m->attr_size = (int)probe.attr.size;
	return m->attr_size;
}

PEV_API bool pev_machine_cpu_online(const struct pev_machine *m, int cpu)
{
	return m && pev_cpulist_contains(m->cpus_online_list, cpu);
}

PEV_API bool pev_machine_cpu_possible(const struct pev_machine *m, int cpu)
{
	return m && pev_cpulist_contains(m->cpus_possible_list, cpu);
}

PEV_API const char *pev_machine_pmu_name(const struct pev_machine *m, uint32_t type)
{
	if (!m)
		return NULL;
	for (int i = 0; i < m->nr_pmus; i++)
		if (m->pmus[i].type == type)
			return m->pmus[i].name;
	return NULL;
}

PEV_API const char *pev_paranoid_meaning(int level)
{
	if (level == PEV_UNKNOWN)
		return "unknown (perf_event_paranoid unreadable)";
	if (level <= -1)
		return "no restrictions: unprivileged users may use every event";
	if (level == 0)
		return "unprivileged users may count and sample the kernel and whole CPUs, but not read raw tracepoint data";
	if (level == 1)
		return "unprivileged users may count and sample the kernel in their own processes, but not whole CPUs";
	if (level == 2)
		return "unprivileged users may measure user space only, in their own processes";
	return "unprivileged users may not use perf_event_open at all (kernels with Debian's or "
	       "Android's patch; other kernels treat it as 2)";
}

void pev__machine_read_for_check(struct pev_machine *m, const struct pev_attr *attr, bool cpus)
{
	struct utsname u;

	memset(m, 0, sizeof(*m));
	m->paranoid = m->max_sample_rate = m->max_stack = m->mlock_kb = PEV_UNKNOWN;
	if (uname(&u) == 0)
		pev__strlcpy(m->arch, u.machine, sizeof(m->arch));
	if (cpus) {
		pev__read_text("/sys/devices/system/cpu/online", m->cpus_online_list,
			       sizeof(m->cpus_online_list));
		pev__read_text("/sys/devices/system/cpu/possible", m->cpus_possible_list,
			       sizeof(m->cpus_possible_list));
		int n = pev_cpulist_parse(m->cpus_online_list, NULL, 0);
		m->cpus_online = n > 0 ? n : PEV_UNKNOWN;
	}
	if (attr && (attr->flags & PEV_ATTR_FREQ))
		m->max_sample_rate = read_sysctl(NULL, "perf_event_max_sample_rate");
	if (attr && (attr->sample_type & PEV_SAMPLE_CALLCHAIN))
		m->max_stack = read_sysctl(NULL, "perf_event_max_stack");
}

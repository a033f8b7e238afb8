/* SPDX-License-Identifier: MIT */
/*
 * perfev/machine.h - facts about this machine that decide what
 * perf_event_open can do, and the diagnosis built from them.
 *
 * pev_machine_read() gathers the facts from procfs and sysfs (under a root
 * directory that tests point at a fixture). pev_attr_check() finds the known
 * causes of EINVAL, EOVERFLOW, ENODEV before the syscall, and
 * pev_diagnose_open() turns an errno into a message that names the event,
 * the cause on this machine and the fix.
 */
#ifndef PERFEV_MACHINE_H
#define PERFEV_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perfev/abi.h"
#include "perfev/common.h"
#include "perfev/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A fact that could not be read. */
#define PEV_UNKNOWN (-0x7fffffff - 1)
/** An unlimited resource limit. */
#define PEV_UNLIMITED UINT64_MAX
/** Most PMUs pev_machine records. */
#define PEV_MACHINE_MAX_PMUS 64

/** One PMU under /sys/bus/event_source/devices. */
struct pev_machine_pmu {
	char name[48]; /**< its directory name, e.g. "cpu" or "uprobe" */
	uint32_t type; /**< its type number, for pev_attr.type */
};

/** What perfev knows about the machine. Filled by pev_machine_read(). */
struct pev_machine {
	char root[128]; /**< the root the facts were read under; "" is the real one */

	/* Kernel. */
	char kernel_release[65]; /**< e.g. "6.18.44" */
	int kernel_version;      /**< major << 16 | minor << 8 | patch, or PEV_UNKNOWN */
	char arch[16];           /**< e.g. "x86_64" */
	bool perf_events;        /**< the kernel has perf events (perf_event_paranoid exists) */
	int attr_size;           /**< attr size the kernel expects; 0 until pev_machine_probe_attr_size() */

	/* Sysctls (PEV_UNKNOWN when unreadable). */
	int paranoid;             /**< kernel.perf_event_paranoid */
	int max_sample_rate;      /**< kernel.perf_event_max_sample_rate (Hz) */
	int max_stack;            /**< kernel.perf_event_max_stack (frames) */
	int max_contexts_per_stack; /**< kernel.perf_event_max_contexts_per_stack */
	int mlock_kb;             /**< kernel.perf_event_mlock_kb (per CPU) */
	int cpu_time_max_percent; /**< kernel.perf_cpu_time_max_percent */
	int nmi_watchdog;         /**< kernel.nmi_watchdog (holds a hardware counter when 1) */

	/* The calling process. */
	uid_t euid;          /**< effective user id, (uid_t)-1 if unknown */
	bool cap_perfmon;    /**< effective CAP_PERFMON */
	bool cap_sys_admin;  /**< effective CAP_SYS_ADMIN */
	bool cap_sys_ptrace; /**< effective CAP_SYS_PTRACE */
	bool cap_ipc_lock;   /**< effective CAP_IPC_LOCK (lifts the mlock limit) */
	int seccomp;         /**< 0 none, 1 strict, 2 filter, PEV_UNKNOWN */
	bool no_new_privs;   /**< prctl no_new_privs is set: exec gains no privileges */
	bool in_container;   /**< looks like a container (docker, podman, lxc, k8s) */
	uint64_t nofile_soft, nofile_hard;   /**< RLIMIT_NOFILE */
	uint64_t memlock_soft, memlock_hard; /**< RLIMIT_MEMLOCK, bytes */
	int open_fds;        /**< descriptors open now, or PEV_UNKNOWN */

	/* Hardware. */
	bool hypervisor;         /**< runs under a hypervisor: x86's CPU flag, or a QEMU DMI vendor, device tree board or hypervisor node */
	char vm_vendor[64];      /**< DMI system vendor/product when virtual, or "" */
	char cpu_vendor[16];     /**< "GenuineIntel", "AuthenticAMD", ...; Arm: the implementer's name ("ARM") */
	char cpu_model[80];      /**< "model name"; Arm: "part 0xd08 r0p3" (after "implementer 0x00, " when it has no name) */
	bool arch_perfmon;       /**< x86: the CPU advertises architectural perfmon */
	bool has_core_pmu;       /**< a PMU for hardware events exists */
	bool hybrid;             /**< more than one core PMU (cpu_core / cpu_atom) */
	char core_pmus[96];      /**< their names, comma-separated */
	int debug_registers;     /**< hardware breakpoint slots per task/CPU, 0 if unknown */
	int page_size;           /**< bytes of a memory page */

	/* CPUs. */
	int cpus_online;         /**< count */
	char cpus_online_list[256];   /**< e.g. "0-3,6" */
	char cpus_possible_list[256]; /**< e.g. "0-7" */

	/* PMUs. */
	int nr_pmus;             /**< entries used in pmus[] */
	struct pev_machine_pmu pmus[PEV_MACHINE_MAX_PMUS]; /**< the PMUs, sorted by name */
	bool has_uprobe_pmu;     /**< the "uprobe" PMU exists */
	bool has_kprobe_pmu;     /**< the "kprobe" PMU exists */

	/* Tracing. */
	bool tracefs_supported;  /**< the kernel knows tracefs */
	bool tracefs_mounted;    /**< tracefs is mounted somewhere */
	char tracefs_path[128];  /**< where it is mounted, or "" */
};

/**
 * Fills m with the facts of this machine, reading procfs and sysfs under
 * `root` (NULL means the real root "/", a directory holding proc/ and sys/
 * lets tests fake a machine). Facts that cannot be read are PEV_UNKNOWN or
 * false. Returns 0, or PEV_EBADARG for a NULL m.
 */
PEV_API int pev_machine_read(struct pev_machine *m, const char *root);

/**
 * Asks the kernel which attr size it expects (an open with an oversized
 * attribute block that the kernel refuses with E2BIG, writing its size back)
 * and stores it in m->attr_size. Returns the size, or a negative code.
 */
PEV_API int pev_machine_probe_attr_size(struct pev_machine *m);

/** Returns true when `cpu` is in m's online CPU list. */
PEV_API bool pev_machine_cpu_online(const struct pev_machine *m, int cpu);

/** Returns true when `cpu` is in m's possible CPU list. */
PEV_API bool pev_machine_cpu_possible(const struct pev_machine *m, int cpu);

/** Returns the name of the PMU with dynamic type `type`, or NULL. */
PEV_API const char *pev_machine_pmu_name(const struct pev_machine *m, uint32_t type);

/** Returns a one-line description of what paranoid level `level` allows unprivileged users. */
PEV_API const char *pev_paranoid_meaning(int level);

/** One perf_event_open request, as perfev or the caller is about to make it. */
struct pev_open_request {
	const struct pev_attr *attr; /**< the attribute block */
	pid_t pid;                   /**< as for perf_event_open */
	int cpu;                     /**< as for perf_event_open */
	int group_fd;                /**< as for perf_event_open */
	unsigned long flags;         /**< PEV_FLAG_* */
	const char *event;           /**< the event's name for messages, or NULL */
	const char *cgroup;          /**< the cgroup path when pid is a cgroup fd, or NULL */
	int fds_needed;              /**< descriptors the whole request opens (>= 1) */
};

/**
 * Checks a request against the known rules of perf_event_open and the limits
 * of machine m before the syscall: frequency above the sysctl maximum, a CPU
 * that does not exist or is offline, pid -1 with cpu -1, pinned/exclusive on
 * a group member, breakpoint length and kind, reserved bits and unknown flags,
 * sample_max_stack above the limit, and more (share/doc/perfev/ERRORS.md lists them).
 * Returns 0 or the code the kernel would return (PEV_EINVAL, PEV_EOVERFLOW,
 * PEV_ENODEV, PEV_E2BIG), with err naming the field and the limit.
 */
PEV_API int pev_attr_check(const struct pev_machine *m, const struct pev_open_request *req,
			   struct pev_error *err);

/**
 * Explains why perf_event_open failed with errno `errnum` (positive) for
 * request req on machine m, and what to do. size_back is the attr size the
 * kernel wrote back (E2BIG) or 0. Fills err; returns err->code.
 */
PEV_API int pev_diagnose_open(const struct pev_machine *m, const struct pev_open_request *req,
			      int errnum, uint32_t size_back, struct pev_error *err);

/**
 * Explains why mapping a ring buffer of 1 + `data_pages` pages for `event`
 * failed with errno `errnum`, given `mapped_kb` KiB already locked by this
 * user's other perf mappings (0 when unknown): the perf_event_mlock_kb and
 * RLIMIT_MEMLOCK budget against the pages asked. Fills err; returns err->code.
 */
PEV_API int pev_diagnose_mmap(const struct pev_machine *m, const char *event, size_t data_pages,
			      uint64_t mapped_kb, int errnum, struct pev_error *err);

/**
 * Explains why an ioctl, read or other call on an event fd failed:
 * `call` names it ("ioctl(ENABLE)", "read"). Fills err; returns err->code.
 */
PEV_API int pev_diagnose_call(const char *call, const char *event, int errnum,
			      struct pev_error *err);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_MACHINE_H */

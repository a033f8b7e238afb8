/* SPDX-License-Identifier: MIT */
/*
 * perfev/counter.h - opening an event on a target, and the handle that owns it.
 *
 * A struct pev_counter is one event opened on a target: one file descriptor
 * per (CPU, task) pair the target expands to. It owns every descriptor;
 * pev_counter_close() releases them all. Descriptors are close-on-exec.
 *
 * Threads (share/doc/perfev/API.md): the reads (pev_counter_read*, pev_counter_id and
 * the other getters) and the control calls (enable, disable, reset, their
 * group forms, refresh, set_period, set_filter, set_bpf, query_bpf,
 * pause_output) change nothing in the object: any number of them may run at
 * once, from any threads, on one counter or group. pev_counter_modify
 * changes the attributes pev_counter_attr() returns; opening a member into
 * a group changes the leader, and closing changes the counter and its
 * group: those need the counter (for the last two, the whole group) to
 * themselves. Distinct counters are independent.
 */
#ifndef PERFEV_COUNTER_H
#define PERFEV_COUNTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perfev/abi.h"
#include "perfev/common.h"
#include "perfev/error.h"
#include "perfev/event.h"
#include "perfev/opts.h"

#ifdef __cplusplus
extern "C" {
#endif

/** target.pid: the calling thread. */
#define PEV_PID_SELF 0
/** target.pid: every task on the target CPUs (CPU-wide counting). */
#define PEV_PID_ANY (-1)
/** target.cpu: wherever the task runs (one descriptor). */
#define PEV_CPU_ANY (-1)
/** target.cpu: one descriptor on each online CPU. */
#define PEV_CPU_ALL (-2)

/**
 * Where to count: a task, a process's threads, a CPU, a list of CPUs, every
 * CPU, or a cgroup. The target expands to one descriptor per (CPU, thread).
 */
struct pev_target {
	pid_t pid;          /**< PEV_PID_SELF, a thread id (a process id with all_threads), or PEV_PID_ANY */
	int cpu;            /**< a CPU number, PEV_CPU_ANY or PEV_CPU_ALL; ignored when cpus is set */
	const char *cgroup; /**< a cgroup directory (cgroup v2 path), or NULL */
	const char *cpus;   /**< a CPU list ("0-3,7") to count on, or NULL */
	bool all_threads;   /**< pid is a process: one descriptor per thread in /proc/<pid>/task */
	/**
	 * Zero. The struct's size is frozen: fields of later versions take this
	 * room, and a library that does not know them refuses a non-zero one
	 * (PEV_EBADARG).
	 */
	uint64_t reserved[2];
};

/** The calling thread, on whatever CPU it runs. */
static inline struct pev_target pev_target_self(void)
{
	struct pev_target t = {PEV_PID_SELF, PEV_CPU_ANY, NULL, NULL, false, {0}};
	return t;
}

/** Thread (or single-threaded process) `tid`, on whatever CPU it runs. */
static inline struct pev_target pev_target_thread(pid_t tid)
{
	struct pev_target t = {tid, PEV_CPU_ANY, NULL, NULL, false, {0}};
	return t;
}

/** Every thread process `pid` has now (one descriptor each), on whatever CPU they run. */
static inline struct pev_target pev_target_process(pid_t pid)
{
	struct pev_target t = {pid, PEV_CPU_ANY, NULL, NULL, true, {0}};
	return t;
}

/** Every task on one CPU. */
static inline struct pev_target pev_target_cpu(int cpu)
{
	struct pev_target t = {PEV_PID_ANY, cpu, NULL, NULL, false, {0}};
	return t;
}

/** Every task on the CPUs of a list such as "0-3,7". */
static inline struct pev_target pev_target_cpu_list(const char *cpus)
{
	struct pev_target t = {PEV_PID_ANY, PEV_CPU_ANY, NULL, cpus, false, {0}};
	return t;
}

/** Every task on every online CPU (one descriptor per CPU). */
static inline struct pev_target pev_target_all_cpus(void)
{
	struct pev_target t = {PEV_PID_ANY, PEV_CPU_ALL, NULL, NULL, false, {0}};
	return t;
}

/** Tasks of a cgroup (v2 directory path), on every online CPU. */
static inline struct pev_target pev_target_cgroup(const char *path)
{
	struct pev_target t = {PEV_PID_ANY, PEV_CPU_ALL, path, NULL, false, {0}};
	return t;
}

/** An opened event. Opaque. */
struct pev_counter;

/**
 * Opens event ev with options opts (NULL: defaults) on target (NULL: the
 * calling thread). The read format is opts->read_format plus
 * PEV_FORMAT_TOTAL_TIME_ENABLED and PEV_FORMAT_TOTAL_TIME_RUNNING, so that
 * reads are scaled for multiplexing and tell a counter that never ran;
 * PEV_OPEN_EXACT_READ_FORMAT in opts->open_flags sends read_format as it is
 * (pev_counter_attr() shows what was sent). With a non-NULL group, the event joins that group
 * leader on each of its descriptors (target must expand to the same CPUs
 * and threads) and is read with it by pev_counter_read_group(). A thread of
 * an all_threads target that exits before its descriptor opens is left out.
 * Privilege levels: where opts exclude none, the event counts the kernel
 * too when the caller may, and user space only when the kernel refuses
 * that (pev_counter_attr() shows exclude_kernel then; PEV_OPEN_EXACT_LEVELS
 * turns this off). An event that counts only in the kernel
 * (context-switches, cpu-migrations, cgroup-switches, tracepoints but
 * syscalls:* and uprobes) never falls back: it fails with PEV_EACCES saying
 * so, and with exclude_kernel set by the caller it is refused (PEV_EINVAL,
 * field exclude_kernel) because it would always read 0.
 * Before the syscall the request is checked against this machine
 * (pev_attr_check); when the kernel refuses, err receives a diagnosis.
 * On success stores the handle in *out and returns 0; on failure nothing
 * stays open and a negative PEV_E* code is returned. Thread-safe, but with a
 * group it changes the leader's member list: no other call may use the
 * group meanwhile.
 */
PEV_API int pev_counter_open(const struct pev_event *ev, const struct pev_opts *opts,
			     const struct pev_target *target, struct pev_counter *group,
			     struct pev_counter **out, struct pev_error *err);

/**
 * Opens a ready-made attribute block: `attr` points to attr_len bytes whose
 * first bytes are a struct pev_attr; attr->size bytes are passed to the
 * kernel as they are, read_format included (so callers can test sizes and
 * tails the kernel must refuse).
 * flags are PEV_OPEN_*. Otherwise as pev_counter_open().
 */
PEV_API int pev_counter_open_attr(const void *attr, size_t attr_len,
				  const struct pev_target *target, struct pev_counter *group,
				  unsigned flags, struct pev_counter **out, struct pev_error *err);

/**
 * Closes every descriptor of c and frees it. NULL is ignored. Closing a
 * group leader leaves its members open but no longer grouped for reading.
 * No other call may use c, or its group, while it runs or after.
 */
PEV_API void pev_counter_close(struct pev_counter *c);

/** Returns how many descriptors c holds (CPUs x threads), or PEV_EBADARG for NULL. */
PEV_API int pev_counter_nr_fds(const struct pev_counter *c);

/** Returns descriptor i of c (owned by c), or PEV_EBADARG when i is out of range. */
PEV_API int pev_counter_fd(const struct pev_counter *c, int i);

/** Returns the CPU of descriptor i (-1 when it follows the task), or PEV_EBADARG. */
PEV_API int pev_counter_cpu(const struct pev_counter *c, int i);

/** Returns the thread of descriptor i (-1 for every task of a CPU, the cgroup's fd never), or PEV_EBADARG. */
PEV_API pid_t pev_counter_tid(const struct pev_counter *c, int i);

/** Returns the attribute block c was opened with (owned by c). */
PEV_API const struct pev_attr *pev_counter_attr(const struct pev_counter *c);

/** Returns the name c was opened under ("task-clock", ...). Owned by c. */
PEV_API const char *pev_counter_name(const struct pev_counter *c);

/** Returns c's group leader, c itself when it leads a group, or NULL when alone. */
PEV_API struct pev_counter *pev_counter_leader(const struct pev_counter *c);

/** Stores the kernel's unique id of descriptor i in *id. Returns 0 or a negative code. */
PEV_API int pev_counter_id(const struct pev_counter *c, int i, uint64_t *id);

/* ---- control (ioctls on every descriptor of the counter) ----------------
 * Each may run concurrently with reads and with each other (the kernel
 * orders them per event); a read sees the count before or after a change. */

/** Enables counting on every descriptor. Returns 0 or a negative code. */
PEV_API int pev_counter_enable(struct pev_counter *c);

/** Disables counting on every descriptor. Returns 0 or a negative code. */
PEV_API int pev_counter_disable(struct pev_counter *c);

/** Resets the count of every descriptor to zero. Returns 0 or a negative code. */
PEV_API int pev_counter_reset(struct pev_counter *c);

/** Enables c's whole group (c may be the leader or any member). */
PEV_API int pev_counter_enable_group(struct pev_counter *c);

/** Disables c's whole group. */
PEV_API int pev_counter_disable_group(struct pev_counter *c);

/** Resets the counts of c's whole group. */
PEV_API int pev_counter_reset_group(struct pev_counter *c);

/**
 * Adds n to the number of overflows after which a sampling event disables
 * itself (PERF_EVENT_IOC_REFRESH), and enables it. Returns 0 or a code.
 */
PEV_API int pev_counter_refresh(struct pev_counter *c, int n);

/** Sets a sampling event's period (or frequency, for freq events). Returns 0 or a code. */
PEV_API int pev_counter_set_period(struct pev_counter *c, uint64_t period);

/** Sets a tracepoint's ftrace filter ("prev_pid == 1"). Returns 0 or a code. */
PEV_API int pev_counter_set_filter(struct pev_counter *c, const char *filter);

/** Attaches BPF program prog_fd to a tracepoint or probe event. Returns 0 or a code. */
PEV_API int pev_counter_set_bpf(struct pev_counter *c, int prog_fd);

/**
 * Reads the ids of the BPF programs attached to descriptor 0's tracepoint
 * into ids (room for max), and their total number into *count. Returns 0 or a code.
 */
PEV_API int pev_counter_query_bpf(const struct pev_counter *c, uint32_t *ids, uint32_t max,
				  uint32_t *count);

/** Pauses (true) or resumes (false) writing to the ring buffers. Returns 0 or a code. */
PEV_API int pev_counter_pause_output(struct pev_counter *c, bool pause);

/**
 * Changes the attributes of an open event (PERF_EVENT_IOC_MODIFY_ATTRIBUTES:
 * the kernel allows it for breakpoints: address, length, kind). attr is a
 * complete attribute block of the same type. The kernel also takes the
 * disabled bit from attr: a breakpoint is left counting only when attr has
 * PEV_ATTR_DISABLED clear (a copy of pev_counter_attr() of a counter opened
 * disabled switches it off). Other types: PEV_EINVAL (Linux 6.x) or
 * PEV_EOPNOTSUPP (older). Returns 0 or a code. It updates the block
 * pev_counter_attr() returns: not concurrently with another modify of c or
 * with a reader of that block (reads and control calls are fine).
 */
PEV_API int pev_counter_modify(struct pev_counter *c, const struct pev_attr *attr);

/** Enables every counter attached to the calling process (prctl). Returns 0 or a code. */
PEV_API int pev_process_counters_enable(void);

/** Disables every counter attached to the calling process (prctl). Returns 0 or a code. */
PEV_API int pev_process_counters_disable(void);

/* ---- reading ---------------------------------------------------------------
 * Reads write only the caller's memory: any number may run at once, with
 * each other and with the control calls, on one counter or group. */

/** A count, as read and as estimated when the counter was multiplexed. */
struct pev_count {
	uint64_t value;        /**< the raw count (summed over descriptors) */
	uint64_t time_enabled; /**< ns enabled (0 unless read_format asks for it) */
	uint64_t time_running; /**< ns on the PMU (0 unless read_format asks for it) */
	uint64_t lost;         /**< lost samples (PEV_FORMAT_LOST) */
	uint64_t id;           /**< the kernel's id, when one descriptor was read with PEV_FORMAT_ID */
	uint64_t scaled;       /**< value x enabled / running: the estimate of the full count */
	double running;        /**< time_running / time_enabled, 1.0 when times were not read */
	bool counted;          /**< false when the counter never ran (time_running 0): no count, not 0 */
	/**
	 * Zeroed by every read. The struct's size is frozen (it is filled as an
	 * array): fields of later versions take this room, so a caller built
	 * against this header always has space for what a newer library writes.
	 */
	uint64_t reserved[4];
};

/**
 * Fills count->scaled, ->running and ->counted from value and the times, as
 * read with both PEV_FORMAT_TOTAL_TIME_* bits: never ran (running 0, also
 * when never enabled) → counted false, scaled 0, running 0.0; otherwise
 * counted true and scaled = value x enabled / running (exact, without
 * overflow; the value itself when running >= enabled).
 */
PEV_API void pev_count_scale(struct pev_count *count);

/**
 * Reads c's count, summed over its descriptors, and scales it
 * (pev_count_scale). For a counter opened with PEV_FORMAT_GROUP, its own
 * entry of the group (matched by id). counted is false when the running
 * time is 0: opened disabled and never enabled, or never scheduled. When
 * the read format lacks PEV_FORMAT_TOTAL_TIME_RUNNING (only with
 * PEV_OPEN_EXACT_READ_FORMAT or pev_counter_open_attr) nothing tells: counted
 * is true and scaled the value; without PEV_FORMAT_TOTAL_TIME_ENABLED, a
 * counter that ran is not scaled. Returns 0 or a negative code.
 */
PEV_API int pev_counter_read(const struct pev_counter *c, struct pev_count *out);

/** Reads descriptor i alone (one CPU, one thread) and scales it. Returns 0 or a code. */
PEV_API int pev_counter_read_fd(const struct pev_counter *c, int i, struct pev_count *out);

/**
 * Reads a whole group with one read(2) per descriptor of the leader (which
 * needs PEV_FORMAT_GROUP in its read_format): out[0] is the leader, then its
 * members in the order they were opened, each summed over descriptors and
 * scaled. Members are matched by id when PEV_FORMAT_ID is set, by position
 * otherwise. Returns the number of entries filled (at most max), or a code.
 */
PEV_API int pev_counter_read_group(const struct pev_counter *leader, struct pev_count *out,
				   int max);

/** One counter's value in a read(2) result. */
struct pev_read_value {
	uint64_t value; /**< the count as read, not scaled */
	uint64_t id;    /**< with PEV_FORMAT_ID, else 0 */
	uint64_t lost;  /**< with PEV_FORMAT_LOST, else 0 */
};

/**
 * Decodes the bytes read(2) returned for an event with `read_format` (any
 * combination of PEV_FORMAT_*): the times into *time_enabled and
 * *time_running (0 when absent; either pointer may be NULL), the values into
 * values (room for max). Returns how many values the bytes hold (1 without
 * PEV_FORMAT_GROUP), which may exceed max, PEV_EBADARG for a NULL buf, or
 * PEV_EFORMAT when len does not match the layout. With PEV_FORMAT_TOTAL_TIME_RUNNING, a *time_running of
 * 0 means the event never ran (opened disabled and never enabled, or never
 * scheduled): its values are no counts (pev_count.counted false), and
 * pev_count_scale() scales the others.
 */
PEV_API int pev_read_decode(const void *buf, size_t len, uint64_t read_format,
			    uint64_t *time_enabled, uint64_t *time_running,
			    struct pev_read_value *values, size_t max);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_COUNTER_H */

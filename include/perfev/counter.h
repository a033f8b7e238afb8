/* SPDX-License-Identifier: MIT */
/*
 * perfev/counter.h - opening an event on a target, and the handle that owns it.
 *
 * A struct pev_counter is one event opened on a target: one file descriptor
 * per (CPU, task) pair the target expands to. It owns every descriptor;
 * pev_counter_close() releases them all. Descriptors are close-on-exec.
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

/** Where to count: a task, a CPU, both, or a cgroup. */
struct pev_target {
	pid_t pid;          /**< PEV_PID_SELF, a thread id, or PEV_PID_ANY */
	int cpu;            /**< a CPU number, PEV_CPU_ANY or PEV_CPU_ALL */
	const char *cgroup; /**< a cgroup directory (cgroup v2 path), or NULL */
};

/** The calling thread, on whatever CPU it runs. */
static inline struct pev_target pev_target_self(void)
{
	struct pev_target t = {PEV_PID_SELF, PEV_CPU_ANY, NULL};
	return t;
}

/** Thread (or single-threaded process) `tid`, on whatever CPU it runs. */
static inline struct pev_target pev_target_thread(pid_t tid)
{
	struct pev_target t = {tid, PEV_CPU_ANY, NULL};
	return t;
}

/** Every task on one CPU. */
static inline struct pev_target pev_target_cpu(int cpu)
{
	struct pev_target t = {PEV_PID_ANY, cpu, NULL};
	return t;
}

/** Every task on every online CPU (one descriptor per CPU). */
static inline struct pev_target pev_target_all_cpus(void)
{
	struct pev_target t = {PEV_PID_ANY, PEV_CPU_ALL, NULL};
	return t;
}

/** Tasks of a cgroup (v2 directory path), on every online CPU. */
static inline struct pev_target pev_target_cgroup(const char *path)
{
	struct pev_target t = {PEV_PID_ANY, PEV_CPU_ALL, path};
	return t;
}

/** An opened event. Opaque. */
struct pev_counter;

/**
 * Opens event ev with options opts (NULL: defaults) on target (NULL: the
 * calling thread). With a non-NULL group, the event joins group's leader
 * on each of its descriptors, and target must expand the same way.
 * Before the syscall the request is checked against this machine
 * (pev_attr_check); when the kernel refuses, err receives a diagnosis.
 * On success stores the handle in *out and returns 0; on failure nothing
 * stays open and a negative PEV_E* code is returned.
 */
PEV_API int pev_counter_open(const struct pev_event *ev, const struct pev_opts *opts,
			     const struct pev_target *target, const struct pev_counter *group,
			     struct pev_counter **out, struct pev_error *err);

/**
 * Opens a ready-made attribute block: `attr` points to attr_len bytes whose
 * first bytes are a struct pev_attr; attr->size bytes are passed to the
 * kernel (so callers can test sizes and tails the kernel must refuse).
 * flags are PEV_OPEN_*. Otherwise as pev_counter_open().
 */
PEV_API int pev_counter_open_attr(const void *attr, size_t attr_len,
				  const struct pev_target *target, const struct pev_counter *group,
				  unsigned flags, struct pev_counter **out, struct pev_error *err);

/** Closes every descriptor of c and frees it. NULL is ignored. */
PEV_API void pev_counter_close(struct pev_counter *c);

/** Returns how many descriptors c holds (CPUs x tasks). */
PEV_API int pev_counter_nr_fds(const struct pev_counter *c);

/** Returns descriptor i of c (owned by c), or PEV_EBADARG when i is out of range. */
PEV_API int pev_counter_fd(const struct pev_counter *c, int i);

/** Returns the CPU of descriptor i (-1 when it follows the task), or PEV_EBADARG. */
PEV_API int pev_counter_cpu(const struct pev_counter *c, int i);

/** Returns the attribute block c was opened with (owned by c). */
PEV_API const struct pev_attr *pev_counter_attr(const struct pev_counter *c);

/** Returns the name c was opened under ("task-clock", ...). Owned by c. */
PEV_API const char *pev_counter_name(const struct pev_counter *c);

/** Enables counting on every descriptor. Returns 0 or a negative code. */
PEV_API int pev_counter_enable(struct pev_counter *c);

/** Disables counting on every descriptor. Returns 0 or a negative code. */
PEV_API int pev_counter_disable(struct pev_counter *c);

/** Resets the count of every descriptor to zero. Returns 0 or a negative code. */
PEV_API int pev_counter_reset(struct pev_counter *c);

/** Stores the kernel's unique id of descriptor i in *id. Returns 0 or a negative code. */
PEV_API int pev_counter_id(const struct pev_counter *c, int i, uint64_t *id);

/** A count summed over a counter's descriptors. */
struct pev_count {
	uint64_t value;        /**< the raw count */
	uint64_t time_enabled; /**< ns enabled (0 unless read_format asks for it) */
	uint64_t time_running; /**< ns on the PMU (0 unless read_format asks for it) */
	uint64_t lost;         /**< lost samples (PEV_FORMAT_LOST) */
};

/**
 * Reads c's count, summed over its descriptors. With PEV_FORMAT_GROUP the
 * kernel returns the whole group; the value taken is c's own when read_format
 * also has PEV_FORMAT_ID, else the leader's. Returns 0 or a negative code.
 */
PEV_API int pev_counter_read(const struct pev_counter *c, struct pev_count *out);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_COUNTER_H */

/* SPDX-License-Identifier: MIT */
/**
 * @file capability.h
 * What perf_event_open really does on this machine, proved by making it happen.
 *
 * Opening an event is not the same as the event working: a hypervisor may
 * let a hardware breakpoint open and never deliver its debug exceptions, a
 * PMU may open and never count. Each probe here opens one class of event on
 * the calling thread, makes the event happen a known number of times (N
 * writes to a watched variable, N calls of a probed function, N system
 * calls, busy work to sample), reads back what the kernel counted or
 * delivered, and compares. The verdict says whether the class works, works
 * only in part, opens but delivers nothing, or cannot be opened, with the
 * figures measured, the cause and the fix.
 *
 * The probes run on the calling thread, close everything they open, and
 * take a few milliseconds each (all of them together well under a second).
 * They need no privilege: they report what the caller can do.
 */
#ifndef PERFEV_CAPABILITY_H
#define PERFEV_CAPABILITY_H

#include <stddef.h>
#include <stdint.h>

#include "perfev/common.h"
#include "perfev/error.h"
#include "perfev/machine.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The classes a probe can prove. Values are stable; new ones are added at the end. */
enum pev_cap {
	PEV_CAP_SOFTWARE = 0,        /**< task-clock counts the time of busy work */
	PEV_CAP_HARDWARE = 1,        /**< instructions (user space) count a loop */
	PEV_CAP_CACHE = 2,           /**< L1-dcache-loads (user space) count a loop */
	PEV_CAP_TRACEPOINT = 3,      /**< a syscall tracepoint fires N times for N system calls */
	PEV_CAP_BREAKPOINT = 4,      /**< a write watchpoint hits N times for N writes */
	PEV_CAP_UPROBE = 5,          /**< a uprobe hits N times for N calls of a function */
	PEV_CAP_KPROBE = 6,          /**< a kprobe on vfs_read hits for N read(2) calls */
	PEV_CAP_CPU_WIDE = 7,        /**< cpu-clock counted on one CPU, every task */
	PEV_CAP_SAMPLING = 8,        /**< task-clock samples arrive for busy work */
	PEV_CAP_CALLCHAIN = 9,       /**< sampled callchains resolve to the busy function */
	PEV_CAP_KERNEL_SAMPLING = 10, /**< samples taken in system calls carry kernel addresses */
	PEV_CAP_RING = 11,           /**< the ring delivers one record per page fault of N */
	PEV_CAP_OFFCPU = 12,         /**< context switches sampled with stacks for N sleeps (off-CPU profiles) */
};

/** The number of classes (one past the last enum pev_cap value). */
#define PEV_CAP_COUNT 13

/** How many times a counting probe makes its event happen (N above). */
#define PEV_CAP_REPEAT 100

/** What a probe found. */
enum pev_cap_verdict {
	/** It happened as it should: the count or the records are what was caused. */
	PEV_CAP_WORKS = 0,
	/**
	 * It works with a restriction: user space only (the kernel side is
	 * refused), or it counted something other than what was caused.
	 * detail says which.
	 */
	PEV_CAP_PARTIAL = 1,
	/** It opens, but counts or delivers nothing for what was caused. */
	PEV_CAP_SILENT = 2,
	/** It cannot be opened here: code and detail give the diagnosis, fix the remedy. */
	PEV_CAP_UNAVAILABLE = 3,
};

/** The result of one probe. Initialize with PEV_CAPABILITY_INIT. */
struct pev_capability {
	size_t sz;                     /**< sizeof(struct pev_capability), set by the INIT macro */
	enum pev_cap cap;              /**< the class probed */
	enum pev_cap_verdict verdict;  /**< what was found */
	/** 0, or the PEV_E* code of the failure that makes the class unavailable or partial. */
	int code;
	/** What was caused: writes, calls, system calls, page faults; for the
	 *  timed probes (software, cpu-wide, sampling) the busy time in ns. 0 when nothing was. */
	uint64_t expected;
	/** What the kernel counted or delivered: a count, ns, or samples. */
	uint64_t measured;
	/** Samples whose IP or callchain showed what was asked (the sampling probes), else 0. */
	uint64_t matched;
	uint64_t elapsed_ns;           /**< how long the probe took */
	/** What was done and what happened, in words ("100 of 100 writes counted"). */
	char detail[PEV_ERROR_MESSAGE_MAX];
	/** The cause and what to do when the verdict is not WORKS; lines separated by '\n'. */
	char fix[PEV_ERROR_MESSAGE_MAX];
};

/** An initializer for struct pev_capability. */
#define PEV_CAPABILITY_INIT PEV_SIZED_INIT(struct pev_capability)

/**
 * Runs the probe of class cap on the calling thread and writes the result
 * into *out (whose sz the caller sets). m is the machine's facts
 * (pev_machine_read); NULL reads them. A failure of the class is a verdict,
 * not an error. Returns 0 when *out was filled; PEV_EBADARG for a NULL out,
 * an out->sz too small, or an unknown cap; PEV_ENOMEM.
 */
PEV_API int pev_capability_probe(enum pev_cap cap, const struct pev_machine *m,
				 struct pev_capability *out);

/**
 * The stable name of class cap: "software", "hardware", "cache",
 * "tracepoint", "breakpoint", "uprobe", "kprobe", "cpu_wide", "sampling",
 * "callchains", "kernel_sampling", "ring_buffer"; NULL for an unknown cap.
 */
PEV_API const char *pev_capability_name(enum pev_cap cap);

/**
 * The name of a verdict: "works", "partial", "opens_never_fires" (SILENT),
 * "unavailable"; NULL for an unknown value.
 */
PEV_API const char *pev_capability_verdict_name(enum pev_cap_verdict verdict);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_CAPABILITY_H */

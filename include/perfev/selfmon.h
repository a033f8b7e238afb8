/* SPDX-License-Identifier: MIT */
/*
 * perfev/selfmon.h - measuring a region of code from inside the program,
 * with as little overhead as the machine allows.
 *
 *   struct pev_selfmon *s;
 *   struct pev_count c[2];
 *   pev_selfmon_open("instructions,cycles", &s, &err);
 *   pev_selfmon_start(s);
 *   work();
 *   pev_selfmon_stop(s);
 *   pev_selfmon_read(s, c, 2);   // c[0].scaled instructions, c[1].scaled cycles
 *   pev_selfmon_close(s);
 *
 * Every event counts the calling thread, always enabled, with its control
 * page (struct pev_mmap_page) mapped. Where the kernel lets user space read
 * a counter (cap_user_rdpmc and cap_user_time set, the event on the PMU),
 * start and stop read it with the rdpmc instruction (arm64: mrs of the
 * counter register; each event asks for it with config1 bit 1 and the
 * sysctl kernel.perf_user_access must be 1) and make no system call.
 * Otherwise they read the whole set with one read(2) of the group;
 * pev_selfmon_rdpmc_error() says why.
 * share/doc/perfev/SELFMON.md has the details.
 */
#ifndef PERFEV_SELFMON_H
#define PERFEV_SELFMON_H

#include <stdbool.h>

#include "perfev/abi.h"
#include "perfev/common.h"
#include "perfev/counter.h"
#include "perfev/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Reads a counter through its mapped control page, without a system call:
 * the seqlock loop of the kernel's ABI (lock, then index, offset, pmc_width
 * and the time fields, then lock again, retried while it changed), the
 * rdpmc instruction on counter index - 1 (arm64: mrs of PMEVCNTR<index-1>_EL0,
 * PMCCNTR_EL0 for index 32) sign-extended from pmc_width bits
 * and added to offset, and, with cap_user_time, the time since the page's
 * last update (rdtsc through time_offset, time_mult and time_shift, and
 * time_cycles/time_mask with cap_user_time_short; arm64 reads CNTVCT_EL0) added to time_enabled and
 * time_running. Without cap_user_time the times are those of the page's
 * last update. The result is scaled (pev_count_scale), and counted (the
 * event is on the PMU) even where the page's times are 0; id and lost are 0.
 *
 * Only meaningful for an event that counts the calling thread (or the CPU
 * it runs on) and whose page is mapped in this process.
 *
 * Returns 0, PEV_EAGAIN when user space cannot read this counter now (the
 * page lacks cap_user_rdpmc, index is 0 because the event is not on the
 * PMU (every software event), the page is inconsistent, or the CPU is
 * neither x86-64 nor arm64): the caller then reads the event with read(2), e.g.
 * pev_counter_read(). PEV_EBADARG for a NULL argument.
 */
PEV_API int pev_mmap_read(const struct pev_mmap_page *pc, struct pev_count *out);

/** A set of events counting the calling thread, for start/stop measurements. Opaque. */
struct pev_selfmon;

/**
 * Opens the events of `events` (perfev's event syntax, share/doc/perfev/EVENTS.md, e.g.
 * "instructions,cycles" or "task-clock,page-faults") on the calling thread,
 * as one group led by the first event, enabled at once, and maps each
 * event's control page (one page, read-only; when the mapping is refused
 * the event is read with read(2)). Braces in `events` are ignored: every
 * event joins the one group, so they must be able to share one (events of
 * one hardware PMU, plus any software events). An event without a privilege
 * modifier counts the kernel too where the caller may, and user space only
 * where it may not (pev_counter_open()'s rule, API.md "Privilege levels"):
 * write ":u" for user space only everywhere, ":uk" to require the kernel.
 * An event that counts only in the kernel (context-switches,
 * cpu-migrations) fails with PEV_EACCES where the kernel may not be counted,
 * and with ":u" it is refused (PEV_EINVAL): it would always read 0. Sampling
 * terms are kept, inherit and enable-on-exec are dropped.
 *
 * Use the set from the thread that opened it. Stores the set in *out and
 * returns 0; on failure nothing stays open, err (optional) says why, and
 * a negative code is returned.
 */
PEV_API int pev_selfmon_open(const char *events, struct pev_selfmon **out,
			     struct pev_error *err);

/** Closes every event of s and unmaps their pages. NULL is ignored. */
PEV_API void pev_selfmon_close(struct pev_selfmon *s);

/** Returns how many events s holds, or PEV_EBADARG for NULL. */
PEV_API int pev_selfmon_count(const struct pev_selfmon *s);

/** Returns the name of event i ("cycles"), owned by s, or NULL when i is out of range. */
PEV_API const char *pev_selfmon_name(const struct pev_selfmon *s, int i);

/**
 * Returns true when event i can be read now without a system call (rdpmc
 * through its control page); false when it is read with read(2), or when
 * i is out of range. An event on the PMU can move between the two when the
 * kernel multiplexes it.
 */
PEV_API bool pev_selfmon_uses_rdpmc(const struct pev_selfmon *s, int i);

/**
 * Says why event i is read with read(2) and not through its control page.
 * Returns 0 when it is read without a system call now (as
 * pev_selfmon_uses_rdpmc() says); otherwise a negative code, with err
 * (optional) saying why and, where something can be done, what:
 * PEV_EACCES when the kernel withholds user-space counter reads (arm64:
 * the sysctl kernel.perf_user_access is 0; x86:
 * /sys/bus/event_source/devices/cpu/rdpmc is 0), its hint naming the
 * setting that grants them; PEV_EUNSUPPORTED for an event no hardware
 * counter holds (software, tracepoint and breakpoint events), a CPU perfev
 * has no counter-read instruction for (only x86-64 and arm64 have one), an
 * unmapped control page or one without cap_user_time; PEV_EAGAIN when the
 * event is not on the PMU now (the kernel multiplexes it); PEV_EBADARG for
 * a NULL s or i out of range.
 */
PEV_API int pev_selfmon_rdpmc_error(const struct pev_selfmon *s, int i, struct pev_error *err);

/**
 * Records every event's count: the start of the region. No system call
 * when every event is readable with rdpmc, else one read(2) for the group.
 * Returns 0 or a negative code.
 */
PEV_API int pev_selfmon_start(struct pev_selfmon *s);

/**
 * Records every event's count again: the end of the region (as start).
 * Returns 0, PEV_EBADARG when s was never started, or a negative code.
 */
PEV_API int pev_selfmon_stop(struct pev_selfmon *s);

/**
 * Fills out (room for max) with what each event counted between the last
 * start and the stop after it: value, time_enabled and time_running are
 * differences, then scaled (pev_count_scale) for multiplexing; id is the
 * kernel's id of the event. Needs no system call. Returns the number of
 * entries filled, or PEV_EBADARG when there is no stop after a start.
 */
PEV_API int pev_selfmon_read(const struct pev_selfmon *s, struct pev_count *out, int max);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_SELFMON_H */

/* SPDX-License-Identifier: MIT */
/*
 * target.h - expanding a target into the CPUs and threads to open on.
 */
#ifndef PERFEV_TARGET_H
#define PERFEV_TARGET_H

#include "perfev/counter.h"
#include "perfev/machine.h"

/* The CPUs and threads a target expands to: one descriptor per pair. */
struct pev__plan {
	int *cpus;  /* CPU numbers, or a single -1 (any CPU) */
	int nr_cpus;
	pid_t *tids; /* thread ids, or a single pid value to pass as is (0, -1, a tid) */
	int nr_tids;
};

/*
 * Expands t: a CPU list, the online CPUs of m (PEV_CPU_ALL, cgroups), or one
 * CPU; the threads of /proc/<pid>/task (all_threads), or the one pid.
 * Returns 0 or a negative code (PEV_EBADARG for a bad CPU list, PEV_ESRCH
 * for a process that does not exist) with err filled.
 */
int pev__target_expand(const struct pev_target *t, const struct pev_machine *m,
		       struct pev__plan *plan, struct pev_error *err);

/* Frees what pev__target_expand allocated. */
void pev__plan_free(struct pev__plan *plan);

#endif /* PERFEV_TARGET_H */

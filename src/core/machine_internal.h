/* SPDX-License-Identifier: MIT */
/*
 * machine_internal.h - the cheap subset of machine facts the open path needs.
 */
#ifndef PERFEV_MACHINE_INTERNAL_H
#define PERFEV_MACHINE_INTERNAL_H

#include "perfev/machine.h"

/*
 * Fills m with only what pev_attr_check() consults for attr: the
 * architecture, the CPU lists when `cpus` is true, the sample-rate limit when
 * attr samples by frequency and the stack limit when it samples callchains.
 * Everything else is zero. A handful of small reads, no directory scans.
 */
void pev__machine_read_for_check(struct pev_machine *m, const struct pev_attr *attr, bool cpus);

#endif /* PERFEV_MACHINE_INTERNAL_H */

/* SPDX-License-Identifier: MIT */
/*
 * probe.h - naming the attribute field the kernel refuses, by retrying.
 */
#ifndef PERFEV_PROBE_H
#define PERFEV_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "perfev/abi.h"

/*
 * Retries perf_event_open(attr, pid, cpu, group_fd, flags) with one optional
 * field cleared at a time (each retry disabled and closed at once). When one
 * is accepted, writes its name into field ("sample_type PEV_SAMPLE_REGS_USER",
 * "sigtrap", ...) and returns true. Returns false when no single field
 * explains the refusal.
 */
bool pev__probe_refused_field(const struct pev_attr *attr, pid_t pid, int cpu, int group_fd,
			      unsigned long flags, char *field, size_t size);

/* Every privilege-level exclusion bit (exclude_user ... exclude_guest). */
#define PEV__EXCLUDE_LEVELS                                                                        \
	(PEV_ATTR_EXCLUDE_USER | PEV_ATTR_EXCLUDE_KERNEL | PEV_ATTR_EXCLUDE_HV |                   \
	 PEV_ATTR_EXCLUDE_IDLE | PEV_ATTR_EXCLUDE_HOST | PEV_ATTR_EXCLUDE_GUEST)

/*
 * For a refusal a PMU that cannot filter by privilege level gives (EPERM on
 * some architectures): retries without the attr's exclude_* bits. When that
 * is accepted, writes the bit to drop ("exclude_hv"), or a description of
 * the set when only dropping several helps, and returns true. Returns false
 * when the attr has no such bit or the kernel refuses it without them too.
 */
bool pev__probe_refused_exclusions(const struct pev_attr *attr, pid_t pid, int cpu, int group_fd,
				   unsigned long flags, char *field, size_t size);

#endif /* PERFEV_PROBE_H */

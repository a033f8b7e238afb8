/* SPDX-License-Identifier: MIT */
/*
 * cpulist.h - the kernel's CPU list syntax ("0-3,8,10-11").
 */
#ifndef PERFEV_CPULIST_H
#define PERFEV_CPULIST_H

#include <stdbool.h>

/*
 * Parses a CPU list into cpus[] (at most max entries, ascending as written).
 * Returns the number of CPUs in the list (which may exceed max), or -EINVAL
 * for a malformed list.
 */
int pev__cpulist_parse(const char *list, int *cpus, int max);

/* Returns true when cpu appears in a well-formed list. */
bool pev__cpulist_contains(const char *list, int cpu);

#endif /* PERFEV_CPULIST_H */

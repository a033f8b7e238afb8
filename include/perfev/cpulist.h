/* SPDX-License-Identifier: MIT */
/*
 * perfev/cpulist.h - the kernel's CPU list syntax ("0-3,8,10-11"), as in
 * /sys/devices/system/cpu/online, a PMU's cpumask, and perf's -C option.
 */
#ifndef PERFEV_CPULIST_H
#define PERFEV_CPULIST_H

#include <stdbool.h>

#include "perfev/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Parses a CPU list into cpus[] (at most max entries, in the order written;
 * cpus may be NULL to count). CPU numbers go up to 2^20. Surrounding blanks
 * and a final newline are allowed, an empty list has 0 CPUs. Returns the
 * number of CPUs in the list (which may exceed max), PEV_EINVAL for a
 * malformed list, or PEV_EBADARG for a NULL list.
 */
PEV_API int pev_cpulist_parse(const char *list, int *cpus, int max);

/** Returns true when cpu appears in a well-formed list. */
PEV_API bool pev_cpulist_contains(const char *list, int cpu);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_CPULIST_H */

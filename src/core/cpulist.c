/* SPDX-License-Identifier: MIT */
/*
 * cpulist.c - parsing the kernel's CPU list syntax.
 */
#include "perfev/cpulist.h"
#include "perfev/error.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "core/error_internal.h"

/* Reads a non-negative decimal number; returns false when none is there. */
static bool read_number(const char **s, long *out)
{
	char *end;

	if (!isdigit((unsigned char)**s))
		return false;
	errno = 0;
	*out = strtol(*s, &end, 10);
	if (errno || *out > 1 << 20)
		return false;
	*s = end;
	return true;
}

PEV_API int pev_cpulist_parse(const char *list, int *cpus, int max)
{
	const char *s = list;
	int n = 0;

	if (!s)
		return pev__bad_arg(NULL, "pev_cpulist_parse", "list", "NULL");
	while (*s == ' ' || *s == '\n')
		s++;
	if (!*s)
		return 0;
	for (;;) {
		long lo, hi;
		if (!read_number(&s, &lo))
			return PEV_EINVAL;
		hi = lo;
		if (*s == '-') {
			s++;
			if (!read_number(&s, &hi) || hi < lo)
				return PEV_EINVAL;
		}
		for (long c = lo; c <= hi; c++, n++)
			if (cpus && n < max)
				cpus[n] = (int)c;
		if (*s == ',') {
			s++;
			continue;
		}
		while (*s == ' ' || *s == '\n')
			s++;
		return *s ? PEV_EINVAL : n;
	}
}

PEV_API bool pev_cpulist_contains(const char *list, int cpu)
{
	const char *s = list;

	if (!s || cpu < 0)
		return false;
	while (*s) {
		long lo, hi;
		if (!read_number(&s, &lo))
			return false;
		hi = lo;
		if (*s == '-') {
			s++;
			if (!read_number(&s, &hi))
				return false;
		}
		if (cpu >= lo && cpu <= hi)
			return true;
		if (*s != ',')
			return false;
		s++;
	}
	return false;
}

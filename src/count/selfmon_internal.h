/* SPDX-License-Identifier: MIT */
/*
 * selfmon_internal.h - the seam in front of the rdpmc and rdtsc
 * instructions, so that tests can check pev_mmap_read() with hand-built
 * control pages on any machine, PMU or not.
 */
#ifndef PERFEV_SELFMON_INTERNAL_H
#define PERFEV_SELFMON_INTERNAL_H

#include <stdint.h>

/*
 * Stand-ins for the two instructions. rdpmc gets the counter number
 * (the page's index - 1); a NULL rdpmc means "no user-space counter access"
 * (pev_mmap_read returns PEV_EAGAIN), a NULL rdtsc reads 0.
 */
struct pev__pmc_ops {
	uint64_t (*rdpmc)(uint32_t counter);
	uint64_t (*rdtsc)(void);
};

/*
 * Installs ops (NULL: the real instructions, the default). Returns the
 * table it replaced. Process-wide, like the syscall seam: set it before use.
 */
const struct pev__pmc_ops *pev__pmc_set(const struct pev__pmc_ops *ops);

#endif /* PERFEV_SELFMON_INTERNAL_H */

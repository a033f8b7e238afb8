/* SPDX-License-Identifier: MIT */
/*
 * diag_internal.h - pieces shared by validation (validate.c) and the
 * diagnosis of kernel errors (diagnose.c), defined in open_error.c.
 */
#ifndef PERFEV_DIAG_INTERNAL_H
#define PERFEV_DIAG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error_internal.h"
#include "perfev/event.h"
#include "perfev/machine.h"

/* Writes "on the calling thread", "on every task of CPU 3", ... for req. */
void pev__describe_target(const struct pev_open_request *req, char *buf, size_t size);

/*
 * Starts an open error: code, errno, "perf_event_open", the event name, and
 * the message prefix "cannot open '<event>' <target>: ". Returns code.
 */
int pev__open_error(struct pev_error *err, const struct pev_machine *m,
		    const struct pev_open_request *req, int code, bool before_syscall);

/* Returns the event name of req, or a description of its attr (PMU names from m, may be NULL). */
const char *pev__request_event(const struct pev_machine *m, const struct pev_open_request *req,
			       char *buf, size_t size);

/*
 * What a software event that fires only in kernel context counts
 * ("context switches", "CPU migrations", "cgroup switches"), or NULL for
 * every other event. The kernel takes such an event with the registers of
 * kernel code, so with exclude_kernel set it opens and always reads 0.
 */
const char *pev__kernel_only_software(const struct pev_attr *a);

/* True when the caller may do what perf_event_paranoid forbids (CAP_PERFMON or CAP_SYS_ADMIN). */
bool pev__privileged(const struct pev_machine *m);

/*
 * The word size of x86 machine m in bytes (8 for x86_64, 4 for i386/i686),
 * or 0 when m is not x86. A NULL m means the architecture perfev runs on.
 */
int pev__x86_word_size(const struct pev_machine *m);

/* True when addr lies in the kernel's half of the address space on m's architecture. */
bool pev__kernel_address(const struct pev_machine *m, uint64_t addr);

/* True when attr's type is a hardware event kind (generic, cache, raw or a core PMU). */
bool pev__is_hardware_type(const struct pev_machine *m, uint32_t type);

/* The name of attr's PMU: "software", "cpu", a sysfs name, or "type N". */
const char *pev__pmu_of(const struct pev_machine *m, uint32_t type, char *buf, size_t size);


#endif /* PERFEV_DIAG_INTERNAL_H */

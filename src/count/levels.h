/* SPDX-License-Identifier: MIT */
/*
 * levels.h - which privilege levels an event can count in, and the rule
 * pev_counter_open follows when the caller names none.
 */
#ifndef PERFEV_LEVELS_H
#define PERFEV_LEVELS_H

#include <stdbool.h>

#include "perfev/error.h"
#include "perfev/opts.h"

/* Where an event fires: what exclude_kernel leaves of it. */
enum pev__event_side {
	PEV__SIDE_UNKNOWN,     /* a tracepoint perfev cannot place (no "system:name") */
	PEV__SIDE_USER_TOO,    /* counts in user space too: excluding the kernel leaves a count */
	PEV__SIDE_KERNEL_ONLY, /* fires only in kernel context: exclude_kernel reads 0 */
};

/* True when o excludes a privilege level: the caller chose the levels. */
bool pev__levels_chosen(const struct pev_opts *o);

/*
 * Places the event of attr a, named name (the parser's "sched:sched_switch:u",
 * or NULL): software events by config; tracepoints by their system
 * (syscalls:* fire with the caller's user registers, a uprobe event listed in
 * tracefs's uprobe_events fires in user space, any other is kernel only); the
 * kprobe PMU's events are kernel only; everything else counts user space too.
 */
enum pev__event_side pev__event_side(const struct pev_attr *a, const char *name);

/*
 * Refuses an event that fires only in the kernel when a excludes the kernel:
 * it would open and always read 0.
 * Returns 0, or PEV_EINVAL with err naming exclude_kernel.
 */
int pev__check_kernel_only(const struct pev_attr *a, const char *name, struct pev_error *err);

#endif /* PERFEV_LEVELS_H */

/* SPDX-License-Identifier: MIT */
/*
 * levels.c - privilege levels: which events exclude_kernel empties.
 *
 * The kernel filters a software or tracepoint event by the registers it is
 * raised with. Context switches, migrations and most tracepoints are raised
 * with the registers of kernel code, so with exclude_kernel they open and
 * never count; syscalls:* tracepoints and uprobes are raised with the user's
 * registers, and page faults and the clocks count user space as well.
 */
#include "count/levels.h"

#include <stdio.h>
#include <string.h>

#include "core/diag_internal.h"
#include "core/util.h"
#include "perfev/tracepoint.h"

bool pev__levels_chosen(const struct pev_opts *o)
{
	return o->exclude_user || o->exclude_kernel || o->exclude_hv;
}

/* True when tracefs's uprobe_events defines system/event (lines "p:SYSTEM/EVENT TARGET"). */
static int is_uprobe(const char *system, size_t sys_len, const char *event, size_t ev_len)
{
	char tracefs[256], path[300], line[1024];
	int found = 0;
	FILE *f;

	if (pev_tracefs_path(false, tracefs, sizeof(tracefs), NULL) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/uprobe_events", tracefs);
	if (!(f = fopen(path, "re")))
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *s = strchr(line, ':');
		if (!s || (line[0] != 'p' && line[0] != 'r'))
			continue;
		s++;
		found = strncmp(s, system, sys_len) == 0 && s[sys_len] == '/' &&
			strncmp(s + sys_len + 1, event, ev_len) == 0 &&
			(s[sys_len + 1 + ev_len] == ' ' || s[sys_len + 1 + ev_len] == '\n');
	}
	fclose(f);
	return found;
}

static enum pev__event_side tracepoint_side(const char *name)
{
	const char *colon = name ? strchr(name, ':') : NULL;
	const char *event, *end;

	if (!colon || colon == name)
		return PEV__SIDE_UNKNOWN;
	if ((size_t)(colon - name) == strlen("syscalls") && strncmp(name, "syscalls", 8) == 0)
		return PEV__SIDE_USER_TOO;
	event = colon + 1;
	end = strchr(event, ':');
	if (!end)
		end = event + strlen(event);
	if (end == event)
		return PEV__SIDE_UNKNOWN;
	switch (is_uprobe(name, (size_t)(colon - name), event, (size_t)(end - event))) {
	case 1:
		return PEV__SIDE_USER_TOO;
	case 0:
		return PEV__SIDE_KERNEL_ONLY;
	default:
		/* tracefs unreadable: a uprobe cannot be ruled out. */
		return PEV__SIDE_UNKNOWN;
	}
}

/* True when type is the kprobe PMU's (perf_kprobe: events made with a kprobe_func). */
static bool is_kprobe_pmu(uint32_t type)
{
	long long t;

	return type >= PEV_TYPE_FIXED_MAX &&
	       pev__read_long("/sys/bus/event_source/devices/kprobe/type", &t) == 0 &&
	       t == (long long)type;
}

enum pev__event_side pev__event_side(const struct pev_attr *a, const char *name)
{
	if (pev__kernel_only_software(a))
		return PEV__SIDE_KERNEL_ONLY;
	if (a->type == PEV_TYPE_TRACEPOINT)
		return tracepoint_side(name);
	if (is_kprobe_pmu(a->type))
		return PEV__SIDE_KERNEL_ONLY;
	return PEV__SIDE_USER_TOO;
}

int pev__check_kernel_only(const struct pev_attr *a, const char *name, struct pev_error *err)
{
	const char *what;

	if (!(a->flags & PEV_ATTR_EXCLUDE_KERNEL) ||
	    pev__event_side(a, name) != PEV__SIDE_KERNEL_ONLY)
		return 0;
	what = pev__kernel_only_software(a);
	pev__error_start(err, PEV_EINVAL, 0, "perf_event_open", name, true);
	pev__error_field(err, "exclude_kernel");
	pev__error_msg(err, "cannot open '%s': it counts %s, which the kernel raises only in "
			    "kernel context, and with the kernel excluded (exclude_kernel, ':u') "
			    "it would open and always read 0",
		       name ? name : "the event",
		       what ? what : a->type == PEV_TYPE_TRACEPOINT ? "a tracepoint"
								 : "a kprobe");
	pev__error_hint(err, "count it with the kernel: drop ':u' (opts.exclude_kernel), which "
			     "needs perf_event_paranoid <= 1, CAP_PERFMON or root");
	return PEV_EINVAL;
}

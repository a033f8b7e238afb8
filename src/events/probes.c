/* SPDX-License-Identifier: MIT */
/*
 * probes.c - events whose type the machine decides: a PMU's type number from
 * sysfs, and uprobe and kprobe events on the dynamic probe PMUs.
 */
#include "perfev/event.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/error_internal.h"
#include "core/util.h"

PEV_API int pev_pmu_type(const char *name, const char *sysfs_root)
{
	char path[512];
	long long type;

	if (!name || !*name || strchr(name, '/'))
		return pev__bad_arg(NULL, "pev_pmu_type", "name", "%s", !name ? "NULL"
				    : !*name ? "empty" : "has a '/': give a PMU's name alone");
	pev__path(path, sizeof(path), sysfs_root ? sysfs_root : "/sys",
	          "/bus/event_source/devices/%s/type", name);
	/* The type is returned as an int: one above INT_MAX would read as an error code. */
	if (pev__read_long(path, &type) < 0 || type < 0 || type > INT_MAX)
		return PEV_ENOENT;
	return (int)type;
}

/*
 * Reads the bit a probe PMU uses for "retprobe" from its format file
 * ("config:0" on every kernel so far). Returns the bit, or 0 when unreadable.
 */
static unsigned probe_retprobe_bit(const char *pmu, const char *sysfs_root)
{
	char path[512], text[64];
	unsigned bit;

	pev__path(path, sizeof(path), sysfs_root ? sysfs_root : "/sys",
	          "/bus/event_source/devices/%s/format/retprobe", pmu);
	if (pev__read_text(path, text, sizeof(text)) > 0 && sscanf(text, "config:%u", &bit) == 1 &&
	    bit < 64)
		return bit;
	return 0;
}

static int make_probe(struct pev_event *ev, const char *pmu, const char *what, uint64_t ptr,
                      uint64_t offset, bool retprobe, const char *sysfs_root, struct pev_error *err)
{
	int type = pev_pmu_type(pmu, sysfs_root);

	if (type < 0) {
		pev__error_start(err, PEV_ENOENT, ENOENT, NULL, what, true);
		pev__error_msg(err,
		               "this kernel has no '%s' PMU (no %s/bus/event_source/devices/%s)",
		               pmu, sysfs_root ? sysfs_root : "/sys", pmu);
		pev__error_hint(err,
		                "the kernel needs CONFIG_%s_EVENTS; %s probes can still be "
		                "created through tracefs (%s_events) and used as tracepoints",
		                strcmp(pmu, "uprobe") == 0 ? "UPROBE" : "KPROBE", pmu, pmu);
		return PEV_ENOENT;
	}
	memset(ev, 0, sizeof(*ev));
	ev->type = (uint32_t)type;
	ev->config = retprobe ? 1ULL << probe_retprobe_bit(pmu, sysfs_root) : 0;
	ev->config1 = ptr;
	ev->config2 = offset;
	ev->pmu = strcmp(pmu, "uprobe") == 0 ? "uprobe" : "kprobe";
	return 0;
}

PEV_API int pev_event_uprobe(struct pev_event *ev, const char *path, uint64_t offset, bool retprobe,
                             const char *sysfs_root, struct pev_error *err)
{
	pev__error_clear(err);
	if (!ev)
		return pev__bad_arg(err, "pev_event_uprobe", "ev", "must not be NULL");
	if (!path || !*path)
		return pev__bad_arg(err, "pev_event_uprobe", "path", "must name a file");
	return make_probe(ev, "uprobe", path, (uint64_t)(uintptr_t)path, offset, retprobe,
	                  sysfs_root, err);
}

PEV_API int pev_event_kprobe(struct pev_event *ev, const char *func, uint64_t offset, bool retprobe,
                             const char *sysfs_root, struct pev_error *err)
{
	pev__error_clear(err);
	if (!ev)
		return pev__bad_arg(err, "pev_event_kprobe", "ev", "must not be NULL");
	if (!func || !*func)
		return pev__bad_arg(err, "pev_event_kprobe", "func", "must name a kernel function");
	return make_probe(ev, "kprobe", func, (uint64_t)(uintptr_t)func, offset, retprobe,
	                  sysfs_root, err);
}

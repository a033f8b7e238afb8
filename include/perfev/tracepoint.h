/* SPDX-License-Identifier: MIT */
/*
 * perfev/tracepoint.h - tracepoints by name, through tracefs.
 *
 * A tracepoint event's config is the id tracefs publishes in
 * <tracefs>/events/<system>/<name>/id. tracefs is often not mounted on a
 * fresh machine; pev_tracefs_path() finds it and, when allowed, mounts it.
 */
#ifndef PERFEV_TRACEPOINT_H
#define PERFEV_TRACEPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfev/common.h"
#include "perfev/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Writes the tracefs mount point into buf (at most size bytes): where
 * /proc/self/mounts says tracefs is mounted (/sys/kernel/tracing when it is
 * mounted in several places), else the tracing/ directory of a mounted
 * debugfs. When neither is mounted and may_mount is true, mounts tracefs at
 * /sys/kernel/tracing (nosuid, nodev, noexec; needs CAP_SYS_ADMIN); with
 * may_mount false it never mounts anything. Finding the mount point does not
 * check that its events/ directory is readable: tracefs is root-only by
 * default, and pev_tracepoint_id() explains that when it meets it.
 * Returns 0; PEV_ENOENT when tracefs is not mounted and was not mounted (err
 * says why mounting failed, EPERM meaning the process lacks CAP_SYS_ADMIN,
 * and how to mount it); PEV_EBADARG when buf is NULL or size is too small
 * for the path.
 */
PEV_API int pev_tracefs_path(bool may_mount, char *buf, size_t size, struct pev_error *err);

/** One tracepoint, as tracefs lists it. */
struct pev_tracepoint {
	const char *system; /**< "sched" */
	const char *name;   /**< "sched_switch" */
	uint64_t id;        /**< the tracepoint event's config */
};

/** Called for each tracepoint; a non-zero return stops the walk and is returned. */
typedef int (*pev_tracepoint_fn)(const struct pev_tracepoint *tp, void *ctx);

/**
 * Calls fn for every tracepoint under <tracefs>/events whose system and name
 * match the shell globs (fnmatch(3): '*', '?', '[...]'; NULL matches
 * everything), systems in strcmp order and names in strcmp order within each
 * system. A tracepoint is a directory <system>/<name> holding an id file;
 * other entries (events/enable, header_page, a system's filter, ftrace
 * entries without an id) are skipped. tracefs is a path (from
 * pev_tracefs_path(), or any directory tree shaped like tracefs); it is never
 * looked up or mounted here. The strings in *tp live until fn returns.
 * Returns the number of tracepoints passed to fn (0 when nothing matches),
 * fn's first non-zero return (the walk stops there), or a negative code:
 * PEV_ENOENT when <tracefs>/events does not exist, PEV_EACCES when it cannot
 * be read (err carries the fix), PEV_ENOMEM, or PEV_EBADARG (tracefs or fn
 * NULL).
 */
PEV_API int pev_tracepoints_foreach(const char *tracefs, const char *system_glob,
				    const char *name_glob, pev_tracepoint_fn fn, void *ctx,
				    struct pev_error *err);

/**
 * Reads the id of tracepoint system:name from <tracefs>/events/<system>/
 * <name>/id into *id. Returns 0, or:
 * PEV_ENOTFOUND when there is no such tracepoint (err's message names the
 * tracefs path; its hint suggests the closest event names of the system, or
 * the closest system names when the system does not exist);
 * PEV_ENOENT when <tracefs>/events does not exist (tracefs not mounted there);
 * PEV_EACCES when tracefs is not readable (root-only by default; err says how
 * to open it up);
 * PEV_EFORMAT when the id file does not hold a number;
 * PEV_EBADARG for a NULL argument, or a system or name that is empty, ".",
 * ".." or contains '/'.
 */
PEV_API int pev_tracepoint_id(const char *tracefs, const char *system, const char *name,
			      uint64_t *id, struct pev_error *err);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_TRACEPOINT_H */

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
 * tracefs is mounted (or the tracing directory of a mounted debugfs).
 * When it is not mounted and may_mount is true, mounts it at
 * /sys/kernel/tracing (which needs CAP_SYS_ADMIN). Returns 0; PEV_ENOENT
 * when tracefs is not mounted and was not mounted (err says how to mount it),
 * or PEV_EBADARG.
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
 * match the shell globs (fnmatch: '*', '?', '[...]'), in sorted order.
 * Strings passed to fn live until fn returns. Returns the number of
 * tracepoints passed to fn, fn's non-zero return, or a negative code
 * (PEV_ENOENT when <tracefs>/events does not exist).
 */
PEV_API int pev_tracepoints_foreach(const char *tracefs, const char *system_glob,
				    const char *name_glob, pev_tracepoint_fn fn, void *ctx,
				    struct pev_error *err);

/**
 * Reads the id of tracepoint system:name from <tracefs>/events/<system>/
 * <name>/id into *id. Returns 0, or PEV_ENOTFOUND (err suggests close names
 * when it can), PEV_EACCES when tracefs is not readable, or PEV_EBADARG.
 */
PEV_API int pev_tracepoint_id(const char *tracefs, const char *system, const char *name,
			      uint64_t *id, struct pev_error *err);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_TRACEPOINT_H */

/* SPDX-License-Identifier: MIT */
/*
 * perfev/parse.h - events named as text, in perf's syntax.
 *
 *   cycles:u,instructions             generic events with modifiers
 *   L1-dcache-load-misses             cache events
 *   r3c  cpu/event=0x3c,umask=0/      raw codes and PMU terms (sysfs format/)
 *   msr/tsc/  power/energy-pkg/       PMU event aliases (sysfs events/)
 *   sched:sched_switch  sched:*       tracepoints, with globs
 *   mem:0x1000/8:rw                   hardware breakpoints
 *   uprobe:/bin/bash:readline+4       uprobes (uretprobe:, kprobe:, kretprobe:)
 *   INST_RETIRED:ANY_P                CPU vendor names (libpfm4)
 *   {cycles,instructions}:S           groups, leader sampling
 *
 * share/doc/perfev/EVENTS.md describes the whole syntax. pev_event_parse() turns a string
 * into a list of event specs; a mistake is an error that points at the bad
 * part and suggests the closest known names.
 */
#ifndef PERFEV_PARSE_H
#define PERFEV_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfev/common.h"
#include "perfev/error.h"
#include "perfev/event.h"
#include "perfev/opts.h"
#include "perfev/pmu.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options for pev_event_parse. Zero means the default. */
struct pev_parse_opts {
	size_t sz;                   /**< sizeof(struct pev_parse_opts) */
	const char *sysfs_root;      /**< where sysfs is; NULL: "/sys" */
	const struct pev_pmus *pmus; /**< PMUs to resolve names against; NULL: read sysfs_root */
	const char *tracefs;         /**< tracefs mount point; NULL: find it */
	bool no_mount;               /**< never mount tracefs to resolve a tracepoint */
	bool no_pfm;                 /**< do not try libpfm4 for unknown names */
	/**
	 * Exclude the guest as perf 6.1 does: every event sets exclude_guest
	 * until its own modifiers say otherwise (G, or a modifier string
	 * without u, p or H); a group's u or p sets it unless G or H was given.
	 * Off, perfev adds no default of its own (perf 6.10 and later set none).
	 */
	bool perf_guest;
};

/** Initializer for struct pev_parse_opts. */
#define PEV_PARSE_OPTS_INIT PEV_SIZED_INIT(struct pev_parse_opts)

/** How samples collect callchains (the call-graph= term). */
enum pev_callgraph {
	PEV_CALLGRAPH_DEFAULT = 0, /**< not set in the string */
	PEV_CALLGRAPH_NONE,        /**< call-graph=no */
	PEV_CALLGRAPH_FP,          /**< frame pointers (PEV_SAMPLE_CALLCHAIN) */
	PEV_CALLGRAPH_DWARF,       /**< user stack and registers for unwinding */
	PEV_CALLGRAPH_LBR,         /**< the last-branch record as call stack */
};

/** One event of a parsed string. Strings are owned by the list. */
struct pev_event_spec {
	struct pev_event ev;  /**< what to count; ev.name is the display name */
	struct pev_opts opts; /**< modifiers and terms, applied */
	const char *text;     /**< the part of the input this event came from */
	const char *pmu;      /**< the PMU's sysfs name, or NULL for fixed types */
	int group;            /**< group number (0, 1, ...), or -1 outside braces */
	bool group_leader;    /**< the first event of its group */
	bool leader_sampling; /**< ':S' on a group: only the leader samples, the others are read with it */
	bool weak_group;      /**< ':W': fall back to separate events if the group cannot be scheduled */
	bool max_precise;     /**< ':P': use the highest precise_ip the PMU allows */
	enum pev_callgraph callgraph; /**< call-graph= term */
	uint32_t stack_size;  /**< stack-size= term (dwarf callchains), 0 when not set */
	double scale;         /**< multiply counts by this to get `unit` (sysfs .scale); 1.0 by default */
	const char *unit;     /**< unit of scaled counts ("Joules"), "" by default */
};

/** A parsed list of events. Opaque. */
struct pev_event_list;

/**
 * Parses `text` into a list of event specs (one string may give several
 * events: lists, groups, tracepoint globs, PMU wildcards, and hybrid CPUs
 * where a generic hardware event expands to one event per core PMU).
 * On success stores the list in *out (free with pev_event_list_free) and
 * returns 0. On a mistake returns PEV_EPARSE (bad syntax), PEV_ENOTFOUND
 * (unknown event, PMU, term or tracepoint) or PEV_EINVAL (a value that does
 * not fit), with err->position/length marking the bad part, err->message
 * quoting the input with a caret under it, and err->hint suggesting the
 * closest known names.
 */
PEV_API int pev_event_parse(const char *text, const struct pev_parse_opts *opts,
			    struct pev_event_list **out, struct pev_error *err);

/** Returns how many events the list holds, or PEV_EBADARG for NULL. */
PEV_API int pev_event_list_count(const struct pev_event_list *list);

/** Returns event i of the list, or NULL when out of range. */
PEV_API const struct pev_event_spec *pev_event_list_at(const struct pev_event_list *list, int i);

/** Frees a list and everything it owns. NULL is ignored. */
PEV_API void pev_event_list_free(struct pev_event_list *list);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_PARSE_H */

/* SPDX-License-Identifier: MIT */
/*
 * perfev/counter_list.h - the events of a parsed string, opened as counters.
 *
 *   struct pev_event_list *events;
 *   struct pev_counter_list *l;
 *   struct pev_count counts[8];
 *   pev_event_parse("{task-clock,page-faults},cpu-clock:u", NULL, &events, &err);
 *   pev_counter_list_open(events, NULL, NULL, &l, &err);   (the calling thread)
 *   pev_event_list_free(events);
 *   pev_counter_list_enable(l);  ... the region ...  pev_counter_list_disable(l);
 *   int n = pev_counter_list_read(l, counts, 8);          (one entry per event)
 *   pev_counter_list_close(l);
 *
 * Each event is a struct pev_counter (pev_counter_list_at) opened with its
 * modifiers and terms; the events of a {group} are opened as a group and
 * read together with one read(2) per descriptor.
 *
 * Threads: pev_counter_list_read, _enable, _disable, _reset, _count and _at
 * (and the reads and control calls of the counters it returns) may run at
 * once from any threads; pev_counter_list_close needs the list to itself.
 */
#ifndef PERFEV_COUNTER_LIST_H
#define PERFEV_COUNTER_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "perfev/common.h"
#include "perfev/counter.h"
#include "perfev/error.h"
#include "perfev/opts.h"
#include "perfev/parse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options for pev_counter_list_open. Zero means the default. */
struct pev_counter_list_opts {
	size_t sz;                /**< sizeof(struct pev_counter_list_opts) */
	bool disabled;            /**< open disabled: start with pev_counter_list_enable() */
	bool enable_on_exec;      /**< start counting at the target's next execve (implies disabled) */
	enum pev_inherit inherit; /**< count the target's tasks created after the open too (NONE: the event's own) */
	unsigned open_flags;      /**< PEV_OPEN_NO_VALIDATE, PEV_OPEN_NO_PROBE for every event */
};

/** Initializer for struct pev_counter_list_opts: everything zero, the size set. */
#define PEV_COUNTER_LIST_OPTS_INIT PEV_SIZED_INIT(struct pev_counter_list_opts)

/** The events of a list, opened. Opaque. */
struct pev_counter_list;

/**
 * Opens every event of `events` (from pev_event_parse) as a counter on
 * target (NULL: the calling thread), with its modifiers and terms: the
 * events of a {group} as a group (the first its leader, read with
 * PEV_FORMAT_GROUP), the others alone. A ':W' (weak) group whose members
 * cannot join it is opened as separate events instead. Counters do not
 * sample: period=, freq= and what ':S' asks of samples are left out, as
 * perf stat does. Every event reads both times (counts are scaled, and
 * counted is false for an event that never ran). opts may be NULL
 * (defaults: counting from the open). events may be freed after the call.
 * On success stores the list in *out and returns 0; on failure nothing
 * stays open, *out is NULL, and err (when given) says which event failed
 * and why.
 */
PEV_API int pev_counter_list_open(const struct pev_event_list *events,
				  const struct pev_counter_list_opts *opts,
				  const struct pev_target *target, struct pev_counter_list **out,
				  struct pev_error *err);

/** Closes every counter of l and frees it. NULL is ignored. */
PEV_API void pev_counter_list_close(struct pev_counter_list *l);

/** Returns how many events l holds (the event list's count), or PEV_EBADARG for NULL. */
PEV_API int pev_counter_list_count(const struct pev_counter_list *l);

/**
 * Returns the counter of event i (in the event list's order), owned by l,
 * or NULL when out of range. Its name, descriptors, group leader
 * (pev_counter_leader) and per-descriptor reads are the counter's own.
 */
PEV_API struct pev_counter *pev_counter_list_at(const struct pev_counter_list *l, int i);

/** Enables every event: each group as a whole, then the others. Returns 0 or a code. */
PEV_API int pev_counter_list_enable(struct pev_counter_list *l);

/** Disables every event. Returns 0 or a code. */
PEV_API int pev_counter_list_disable(struct pev_counter_list *l);

/** Resets every count to zero. Returns 0 or a code. */
PEV_API int pev_counter_list_reset(struct pev_counter_list *l);

/**
 * Reads every event into out[i] (i in the event list's order, room for
 * max): each group with one read(2) per descriptor, the others with one
 * each; counts summed over descriptors and scaled (pev_counter_read).
 * Returns the number of entries filled (at most max), or a negative code
 * (out's entries are then undefined).
 */
PEV_API int pev_counter_list_read(const struct pev_counter_list *l, struct pev_count *out,
				  int max);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_COUNTER_LIST_H */

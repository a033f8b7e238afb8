/* SPDX-License-Identifier: MIT */
/*
 * perfev/diff.h - what changed between two profiles: the table of
 * `perf diff`, folded stacks with both counts, and a differential flame
 * graph.
 *
 * Both profiles are struct pev_profile (perfev/report.h), usually loaded
 * with pev_profile_load() from two perf.data files: `a` the baseline (the
 * older run), `b` the one compared with it. Events pair by name. Entries
 * pair by the values of their sort keys as the table shows them: a symbol
 * by its name (an unresolved one by its offset in its file) and its DSO by
 * base name, so the same function matches across two builds of a program
 * even when its address moved.
 *
 *   struct pev_diff_opts o = PEV_DIFF_OPTS_INIT;
 *   o.compute = PEV_DIFF_RATIO;
 *   pev_profile_write_diff(old, new, stdout, &o, &err);  // like perf diff -c ratio
 *
 * share/doc/perfev/DIFF.md describes the outputs.
 */
#ifndef PERFEV_DIFF_H
#define PERFEV_DIFF_H

#include <stdint.h>
#include <stdio.h>

#include "perfev/common.h"
#include "perfev/error.h"
#include "perfev/report.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What the table computes for each entry (perf diff -c). */
enum pev_diff_compute {
	/** New share minus baseline share in percent, sorted by its size (perf's default). */
	PEV_DIFF_DELTA_ABS = 0,
	/** The same, sorted from the largest growth to the largest drop (-c delta). */
	PEV_DIFF_DELTA = 1,
	/** New period divided by the baseline's (-c ratio). */
	PEV_DIFF_RATIO = 2,
	/** New period times w2 minus the baseline's times w1 (-c wdiff:w1,w2). */
	PEV_DIFF_WDIFF = 3,
};

/* pev_diff_opts.flags */
/** Table: the periods too, the baseline's and the new one (perf diff -p). */
#define PEV_DIFF_PERIOD (1u << 0)
/** Table: the formula of each computed value (perf diff -F). */
#define PEV_DIFF_FORMULA (1u << 1)
/** Table: only entries both profiles have (perf diff -b). */
#define PEV_DIFF_BASELINE_ONLY (1u << 2)

/** Options of the diff writers. Initialize with PEV_DIFF_OPTS_INIT. */
struct pev_diff_opts {
	size_t sz; /**< sizeof(struct pev_diff_opts), set by the INIT macro */
	/**
	 * What every writer shares with pev_profile_write_table and the other
	 * report writers, NULL for the defaults: the table reads sort (NULL:
	 * "dso,sym", as perf diff), event (NULL: every event of a that b
	 * has), percent_limit (an entry is left out when both its shares are
	 * below it), the filters and PEV_REPORT_FULL_PATHS and
	 * PEV_REPORT_NO_HEADER; folded stacks and the flame graph read event,
	 * their flags, title, width, frame_height and min_width.
	 */
	const struct pev_report_opts *report;
	enum pev_diff_compute compute; /**< table: the computed column */
	int64_t w1, w2; /**< PEV_DIFF_WDIFF: the weights, both non-zero */
	unsigned flags; /**< PEV_DIFF_* */
};

/** Initializer for struct pev_diff_opts: everything zero (the defaults), the size set. */
#define PEV_DIFF_OPTS_INIT PEV_SIZED_INIT(struct pev_diff_opts)

/**
 * Writes the table of `perf diff`: per event of a that b has (by name), a
 * "# Event 'E'" header, then one line per entry of either profile: the
 * baseline's share ("Baseline", blank for an entry only b has), the
 * computed column ("Delta Abs", "Delta", "Ratio" or "Weighted diff"; blank
 * for an entry only a has, "N/A" for a ratio or weighted diff without a
 * baseline) and the sort keys, sorted as perf diff sorts them. Returns 0;
 * PEV_EBADARG (a, b or out NULL, bad options); PEV_EPARSE (an unknown sort
 * key); PEV_ENOTFOUND (the event named is not in both); PEV_ENOMEM;
 * PEV_EIO (writing failed). err, when not NULL, gets the message.
 */
PEV_API int pev_profile_write_diff(const struct pev_profile *a, const struct pev_profile *b,
				   FILE *out, const struct pev_diff_opts *opts,
				   struct pev_error *err);

/**
 * Writes folded stacks with both counts, "comm;root;...;leaf A B" (the
 * format of difffolded.pl, which flamegraph.pl draws): one line per
 * stack either profile has, 0 where one lacks it, in the order and with
 * the names of pev_profile_write_folded. Returns as pev_profile_write_diff.
 */
PEV_API int pev_profile_write_diff_folded(const struct pev_profile *a,
					  const struct pev_profile *b, FILE *out,
					  const struct pev_diff_opts *opts,
					  struct pev_error *err);

/**
 * Writes a differential flame graph: the flame graph of b (each frame as
 * wide as its share of b), each frame coloured by how its share changed
 * from a: red where it grew, blue where it shrank, the deeper the larger
 * the change (the largest change of the graph is the deepest colour),
 * white where it stayed. Tooltips give both counts and the change.
 * Returns as pev_profile_write_diff.
 */
PEV_API int pev_profile_write_diff_flamegraph(const struct pev_profile *a,
					      const struct pev_profile *b, FILE *out,
					      const struct pev_diff_opts *opts,
					      struct pev_error *err);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_DIFF_H */

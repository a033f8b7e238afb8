/* SPDX-License-Identifier: MIT */
/*
 * profile_timeline.h - markers for a profile's timeline from a replay's
 * side-band records (profile_timeline.c), for pev_profile_load.
 */
#ifndef PERFEV_PROFILE_TIMELINE_H
#define PERFEV_PROFILE_TIMELINE_H

#include "perfev/record.h"
#include "report/report_internal.h"

/* An event's throttled interval, open from its THROTTLE to its UNTHROTTLE. */
struct pev__throttle {
	uint64_t id;    /* the event's id */
	uint64_t since; /* 0: not throttled */
	int32_t pid, tid;
};

/* What the markers are made from: the profile, and what the records told so far. */
struct pev__timeline {
	struct pev_profile *p; /* keeps its timeline */
	uint64_t first, last;  /* the earliest and latest time of a record */
	struct pev__throttle *throttles;
	size_t nr_throttles, cap_throttles;
};

/*
 * A pev__replay_record_fn (ctx: a struct pev__timeline): adds the marker a
 * side-band record tells, if any. Returns 0 or PEV_ENOMEM.
 */
int pev__timeline_record(void *ctx, const struct pev_record *rec);

/*
 * Ends the timeline: intervals still open end with the recording, whose own
 * marker spans its records and the samples between first_sample and
 * last_sample (0: none). Frees what tl holds. Returns 0 or PEV_ENOMEM.
 */
int pev__timeline_finish(struct pev__timeline *tl, uint64_t first_sample, uint64_t last_sample);

#endif /* PERFEV_PROFILE_TIMELINE_H */

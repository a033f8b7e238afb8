/* SPDX-License-Identifier: MIT */
/*
 * profile_timeline.c - the markers a replayed perf.data file gives a
 * profile's timeline (pev_profile_load with PEV_REPLAY_TIMELINE): records
 * lost, sampling throttled, the recording's edges, exec, thread start and
 * end, each from the side-band record that tells it.
 */
#include <stdlib.h>

#include "report/profile_timeline.h"

/* The record's time (0: none) and thread (-1: none) from its sample_id trailer. */
static uint64_t record_time(const struct pev_record *rec)
{
	return (rec->id_fields & PEV_SAMPLE_TIME) ? rec->sample_id.time : 0;
}

static void record_thread(const struct pev_record *rec, int32_t *pid, int32_t *tid)
{
	bool has = (rec->id_fields & PEV_SAMPLE_TID) != 0;

	*pid = has ? (int32_t)rec->sample_id.pid : -1;
	*tid = has ? (int32_t)rec->sample_id.tid : -1;
}

static void see_time(struct pev__timeline *tl, uint64_t t)
{
	if (!t)
		return;
	if (!tl->first || t < tl->first)
		tl->first = t;
	if (t > tl->last)
		tl->last = t;
}

static int add(struct pev__timeline *tl, enum pev_profile_marker_kind kind, int32_t pid,
	       int32_t tid, uint64_t start, uint64_t end, uint64_t value, const char *text)
{
	struct pev_profile_marker m = PEV_PROFILE_MARKER_INIT;

	if (!start) /* a record perf record made from /proc: no time to show it at */
		return 0;
	m.kind = kind;
	m.pid = pid;
	m.tid = tid;
	m.start = start;
	m.end = end;
	m.value = value;
	m.text = text;
	return pev_profile_add_marker(tl->p, &m) == PEV_ENOMEM ? PEV_ENOMEM : 0;
}

/* The throttled interval of event id, opened at a THROTTLE, or NULL. */
static struct pev__throttle *throttle_of(struct pev__timeline *tl, uint64_t id, bool add_it)
{
	for (size_t i = 0; i < tl->nr_throttles; i++)
		if (tl->throttles[i].id == id)
			return &tl->throttles[i];
	if (!add_it || pev__grow((void **)&tl->throttles, &tl->cap_throttles,
				 tl->nr_throttles + 1, sizeof(*tl->throttles)))
		return NULL;
	tl->throttles[tl->nr_throttles] = (struct pev__throttle){.id = id};
	return &tl->throttles[tl->nr_throttles++];
}

static int throttle(struct pev__timeline *tl, const struct pev_record *rec, bool on)
{
	struct pev__throttle *t = throttle_of(tl, rec->throttle.id, on);

	if (!t)
		return on ? PEV_ENOMEM : 0;
	if (on) {
		if (!t->since) {
			t->since = rec->throttle.time;
			record_thread(rec, &t->pid, &t->tid);
		}
		return 0;
	}
	if (!t->since)
		return 0;
	uint64_t since = t->since;
	t->since = 0;
	return add(tl, PEV_PROFILE_MARKER_THROTTLED, t->pid, t->tid, since, rec->throttle.time, 0,
		   NULL);
}

int pev__timeline_record(void *ctx, const struct pev_record *rec)
{
	struct pev__timeline *tl = ctx;
	uint64_t t = record_time(rec);
	int32_t pid, tid;

	see_time(tl, t);
	record_thread(rec, &pid, &tid);
	switch (rec->type) {
	case PEV_RECORD_LOST:
		return add(tl, PEV_PROFILE_MARKER_LOST, pid, tid, t, t, rec->lost.lost, NULL);
	case PEV_RECORD_LOST_SAMPLES:
		return add(tl, PEV_PROFILE_MARKER_LOST, pid, tid, t, t, rec->lost_samples.lost,
			   NULL);
	case PEV_RECORD_THROTTLE:
	case PEV_RECORD_UNTHROTTLE:
		see_time(tl, rec->throttle.time);
		return throttle(tl, rec, rec->type == PEV_RECORD_THROTTLE);
	case PEV_RECORD_COMM:
		if (!pev_record_comm_exec(rec))
			return 0;
		return add(tl, PEV_PROFILE_MARKER_EXEC, (int32_t)rec->comm.pid,
			   (int32_t)rec->comm.tid, t, t, 0, rec->comm.comm);
	case PEV_RECORD_FORK:
		see_time(tl, rec->task.time);
		if (rec->task.tid == rec->task.ptid)
			return 0;
		return add(tl, PEV_PROFILE_MARKER_THREAD_START, (int32_t)rec->task.pid,
			   (int32_t)rec->task.tid, rec->task.time, rec->task.time, rec->task.ptid,
			   NULL);
	case PEV_RECORD_EXIT:
		see_time(tl, rec->task.time);
		return add(tl, PEV_PROFILE_MARKER_THREAD_END, (int32_t)rec->task.pid,
			   (int32_t)rec->task.tid, rec->task.time, rec->task.time, 0, NULL);
	default:
		return 0;
	}
}

int pev__timeline_finish(struct pev__timeline *tl, uint64_t first_sample, uint64_t last_sample)
{
	int rc = 0;

	see_time(tl, first_sample);
	see_time(tl, last_sample);
	/* Throttled until the end: the interval ends with the recording. */
	for (size_t i = 0; i < tl->nr_throttles && !rc; i++)
		if (tl->throttles[i].since)
			rc = add(tl, PEV_PROFILE_MARKER_THROTTLED, tl->throttles[i].pid,
				 tl->throttles[i].tid, tl->throttles[i].since, tl->last, 0, NULL);
	if (!rc && tl->first)
		rc = add(tl, PEV_PROFILE_MARKER_RECORDING, -1, -1, tl->first, tl->last, 0, NULL);
	free(tl->throttles);
	tl->throttles = NULL;
	tl->nr_throttles = tl->cap_throttles = 0;
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * session_read.c - reading a session: flush rounds over its rings, the
 * time-ordered merge, giving space back to the kernel, and the accounting.
 *
 * A round reads every ring's new records (pev_ring_begin and pev_ring_next,
 * the ring copying the one record that may wrap its end) and notes, for
 * each, its time and event; nothing is copied. The round's limit is the
 * oldest "newest time" among the rings that hold undelivered records and
 * whose task is still alive. When a live ring showed nothing, the limit is
 * also capped by the newest time of the previous round: a record that
 * ring's CPU was still writing while it was read is visible by the next
 * round. (A ring that showed records is read up to its head, and what it
 * writes later is newer than what it showed.) Records up to the limit are
 * delivered oldest first (k-way: the oldest head of all rings; each ring in
 * its own order); the others stay
 * where they are, in their ring, until a later round. The ring's space is
 * given back (data_tail) record by record as records are delivered, so a
 * ring never holds more than its data area, and what the kernel cannot
 * write meanwhile it reports as LOST.
 *
 * Since at most one record of the ring's unread window [tail, head) can
 * cross the end of the data area, and a new one can only cross it once the
 * old one is given back, the ring's single copy buffer holds every pending
 * wrapped record for as long as it waits.
 */
#include <stdbool.h>
#include <string.h>

#include "perfev/session.h"
#include "sample/ring_internal.h"
#include "sample/session_internal.h"
#include "core/error_internal.h"

/* Gives the kernel back `bytes` more of a ring: the records delivered from its front. */
static void give_back(struct pev_ring *r, uint64_t bytes)
{
	r->tail += bytes;
	pev__ring_store(&r->page->data_tail, r->tail);
}

/* ---- the rings ordered by their oldest pending record: a binary min-heap ------------------ */

/* True when ring a's oldest pending record goes before ring b's (ties: the lower ring). */
static bool before(const struct pev_session *s, int a, int b)
{
	const struct pev__sring *ra = &s->rings[a], *rb = &s->rings[b];
	uint64_t ta = ra->refs[ra->first].time, tb = rb->refs[rb->first].time;

	return ta < tb || (ta == tb && a < b);
}

static void sift_down(struct pev_session *s, int at)
{
	int *h = s->heap, n = s->heap_n;

	for (;;) {
		int l = 2 * at + 1, r = l + 1, min = at;
		if (l < n && before(s, h[l], h[min]))
			min = l;
		if (r < n && before(s, h[r], h[min]))
			min = r;
		if (min == at)
			return;
		int t = h[at];
		h[at] = h[min];
		h[min] = t;
		at = min;
	}
}

/* Puts every ring that holds pending records into the heap. */
static void heap_build(struct pev_session *s)
{
	s->heap_n = 0;
	for (int i = 0; i < s->nr_rings; i++)
		if (s->rings[i].count)
			s->heap[s->heap_n++] = i;
	for (int at = s->heap_n / 2 - 1; at >= 0; at--)
		sift_down(s, at);
}

/* After the top ring delivered a record: reorders it, or removes it when it holds no more. */
static void heap_top_changed(struct pev_session *s)
{
	if (!s->rings[s->heap[0]].count)
		s->heap[0] = s->heap[--s->heap_n];
	sift_down(s, 0);
}

/* Ends a ring's batch once everything it returned was delivered (nothing left to give back). */
static void settle(struct pev__sring *sr)
{
	if (!sr->count && sr->ring->in_batch && sr->ring->pos == sr->ring->tail)
		pev_ring_end(sr->ring);
}

/*
 * A ring error: drop what it holds and resynchronize at the kernel's head.
 * Every byte dropped is counted in `skipped`: the records read and not yet
 * delivered, and those not read (capped at the data area, for a head that
 * cannot be right).
 */
static void resync(struct pev_session *s, struct pev__sring *sr)
{
	int idx = (int)(sr - s->rings);
	uint64_t from = sr->ring->tail;
	uint64_t dropped;

	if (s->give_ring == idx) {
		from += s->give_size; /* delivered: not dropped */
		s->give_ring = -1;
	}
	s->st.malformed++;
	sr->st.malformed++;
	sr->first = sr->count = 0;
	pev_ring_skip(sr->ring);
	dropped = sr->ring->tail - from;
	if (dropped > pev_ring_data_size(sr->ring))
		dropped = pev_ring_data_size(sr->ring);
	sr->st.skipped += dropped;
	s->st.skipped += dropped;
}

/* Reads a ring's new records into its list of pending ones. */
static void read_ring(struct pev_session *s, struct pev__sring *sr)
{
	const struct pev_record_format *idf = &s->ev[0].fmt;
	struct pev_ring_record rec;
	int got = 0;

	if (sr->broken) {
		/* The records before the malformed one go first; then the ring starts afresh. */
		if (sr->count)
			return;
		sr->broken = false;
		resync(s, sr);
	}
	if (pev_ring_begin(sr->ring) < 0) {
		resync(s, sr);
		return;
	}
	if (sr->first && sr->first + sr->count > sr->cap / 2) {
		memmove(sr->refs, sr->refs + sr->first, sr->count * sizeof(*sr->refs));
		sr->first = 0;
	}
	while (sr->first + sr->count < sr->cap && (got = pev_ring_next(sr->ring, &rec)) == 1) {
		struct pev__sref *ref = &sr->refs[sr->first + sr->count++];
		uint64_t id, t;
		int e = -1;

		if (pev_record_id(idf, rec.header, rec.size, &id) == 1)
			e = pev__session_event_of(s, id);
		ref->p = rec.header;
		ref->size = (uint32_t)rec.size;
		ref->event = e;
		if (e >= 0 && pev_record_time(&s->ev[e].fmt, rec.header, rec.size, &t) == 1) {
			sr->last_time = t;
			if (t > sr->newest)
				sr->newest = t;
			if (t > s->max_seen)
				s->max_seen = t;
		}
		ref->time = sr->last_time;
	}
	if (sr->first + sr->count < sr->cap && got < 0) {
		if (sr->count)
			sr->broken = true;
		else
			resync(s, sr);
	}
}

/* One flush round: read every ring, then set how far this round may deliver. */
static void round_start(struct pev_session *s)
{
	uint64_t limit = UINT64_MAX;

	s->prev_max = s->max_seen;
	for (int i = 0; i < s->nr_rings; i++)
		read_ring(s, &s->rings[i]);
	s->st.rounds++;
	if (!s->stopped) {
		bool idle = false;
		for (int i = 0; i < s->nr_rings; i++) {
			const struct pev__sring *sr = &s->rings[i];
			if (sr->hup)
				continue;
			if (sr->count && sr->newest < limit)
				limit = sr->newest;
			idle |= !sr->count;
		}
		/* A ring that showed nothing may be writing an older record right now. */
		if (idle && limit != UINT64_MAX && s->prev_max < limit)
			limit = s->prev_max;
	}
	s->limit = limit;
	for (int i = 0; i < s->nr_rings; i++) {
		const struct pev__sring *sr = &s->rings[i];
		for (size_t k = 0; k < sr->count; k++)
			s->st.held += sr->refs[sr->first + k].time > limit;
	}
	heap_build(s);
}

static void count(struct pev_session_stats *st, const struct pev_record *r)
{
	st->records++;
	st->by_type[r->type > 0 && r->type < PEV_SESSION_TYPES ? r->type : 0]++;
	switch (r->type) {
	case PEV_RECORD_SAMPLE:
		st->samples++;
		break;
	case PEV_RECORD_LOST:
		st->lost_records++;
		st->lost += r->lost.lost;
		break;
	case PEV_RECORD_LOST_SAMPLES:
		st->lost_samples += r->lost_samples.lost;
		break;
	case PEV_RECORD_THROTTLE:
		st->throttle++;
		break;
	case PEV_RECORD_UNTHROTTLE:
		st->unthrottle++;
		break;
	default:
		break;
	}
}

/* Delivers the oldest record of ring i into out; false when it does not decode (skipped). */
static bool deliver(struct pev_session *s, int i, struct pev_session_record *out)
{
	struct pev__sring *sr = &s->rings[i];
	const struct pev__sref *ref = &sr->refs[sr->first];
	const struct pev_record_format *fmt = &s->ev[ref->event >= 0 ? ref->event : 0].fmt;
	int r = pev_record_decode(fmt, ref->p, ref->size, &out->rec);

	sr->first++;
	sr->count--;
	if (!sr->count)
		sr->first = 0;
	s->give_ring = i;
	s->give_size = ref->size;
	if (r < 0) {
		s->st.malformed++;
		sr->st.malformed++;
		if (ref->event >= 0)
			s->ev[ref->event].st.malformed++;
		return false;
	}
	out->event = ref->event;
	out->ring = i;
	out->cpu = sr->cpu;
	out->time = ref->time;
	if (s->delivered && ref->time < s->last_time) {
		s->st.out_of_order++;
		sr->st.out_of_order++;
	}
	s->last_time = ref->time;
	s->delivered = true;
	count(&s->st, &out->rec);
	count(&sr->st, &out->rec);
	if (ref->event >= 0)
		count(&s->ev[ref->event].st, &out->rec);
	else {
		s->st.unknown_id++;
		sr->st.unknown_id++;
	}
	return true;
}

/* Gives the kernel the space of the record delivered last, if any. */
static void give_back_last(struct pev_session *s)
{
	if (s->give_ring >= 0) {
		struct pev__sring *sr = &s->rings[s->give_ring];
		give_back(sr->ring, s->give_size);
		settle(sr);
		s->give_ring = -1;
	}
}

PEV_API int pev_session_read(struct pev_session *s, struct pev_session_record *out)
{
	bool walked = false;

	if (!s || !out)
		return pev__bad_arg(NULL, "pev_session_read", s ? "out" : "s", "NULL");
	for (;;) {
		give_back_last(s);
		if (s->heap_n) {
			int i = s->heap[0];
			const struct pev__sring *sr = &s->rings[i];
			if (sr->refs[sr->first].time <= s->limit) {
				bool ok = deliver(s, i, out);
				heap_top_changed(s);
				if (ok)
					return 1;
				continue;
			}
		}
		if (walked)
			return 0;
		round_start(s);
		walked = true;
	}
}

PEV_API int pev_session_flush(struct pev_session *s)
{
	if (!s)
		return pev__bad_arg(NULL, "pev_session_flush", "s", "NULL");
	give_back_last(s);
	round_start(s);
	s->limit = UINT64_MAX;
	return 0;
}

PEV_API int pev_session_stats(const struct pev_session *s, enum pev_session_scope scope,
			      int index, struct pev_session_stats *out)
{
	struct pev_session_stats st;

	static const char fn[] = "pev_session_stats";

	if (!s || !out)
		return pev__bad_arg(NULL, fn, s ? "out" : "s", "NULL");
	if (out->sz < sizeof(out->sz))
		return pev__bad_arg(NULL, fn, "out", "out->sz is %zu: initialize it with "
				    "PEV_SESSION_STATS_INIT", out->sz);
	switch (scope) {
	case PEV_SESSION_TOTAL:
		st = s->st;
		break;
	case PEV_SESSION_RING:
		if (index < 0 || index >= s->nr_rings)
			return pev__bad_arg(NULL, fn, "index", "ring %d: the session has %d", index,
					    s->nr_rings);
		st = s->rings[index].st;
		st.rounds = s->st.rounds;
		st.held = s->st.held;
		break;
	case PEV_SESSION_EVENT:
		if (index < 0 || index >= s->nr_events)
			return pev__bad_arg(NULL, fn, "index", "event %d: the session has %d", index,
					    s->nr_events);
		st = s->ev[index].st;
		break;
	default:
		return pev__bad_arg(NULL, fn, "scope", "%d is not a pev_session_scope", (int)scope);
	}
	size_t n = out->sz < sizeof(st) ? out->sz : sizeof(st);
	st.sz = n;
	memcpy(out, &st, n);
	return 0;
}

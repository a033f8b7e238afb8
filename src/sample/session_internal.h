/* SPDX-License-Identifier: MIT */
/*
 * session_internal.h - the inside of struct pev_session, shared by the file
 * that opens and controls sessions (session.c) and the one that reads them
 * (session_read.c).
 */
#ifndef PERFEV_SESSION_INTERNAL_H
#define PERFEV_SESSION_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "perfev/record.h"
#include "perfev/ring.h"
#include "perfev/session.h"

/*
 * A record read from a ring and not yet delivered: where it lies (in the
 * ring's data area, or in the ring's copy of the one record that wraps),
 * its time and the event that wrote it.
 */
struct pev__sref {
	const void *p;
	uint64_t time;
	uint32_t size;
	int32_t event; /* -1: the id matches no event */
};

/* One ring and the records read from it that wait for delivery, oldest first. */
struct pev__sring {
	struct pev_ring *ring;
	int cpu;   /* -1: a per-thread ring */
	pid_t tid; /* per-thread rings: the thread; else -1 */
	struct pev__sref *refs; /* room for cap records: the data area holds no more */
	size_t cap, first, count;
	uint64_t newest;    /* the newest time read from this ring */
	uint64_t last_time; /* the time of the last record read (given to records without one) */
	bool hup;           /* the task exited: what the ring holds is all it will hold */
	bool broken;        /* a malformed record follows the pending ones: skip once they go */
	struct pev_session_stats st;
};

/* An event of the session. */
struct pev__sevent {
	struct pev_counter *c;
	struct pev_record_format fmt;
	struct pev_session_stats st;
};

/* A descriptor's kernel id and the event it belongs to (sorted by id). */
struct pev__sid {
	uint64_t id;
	int event;
};

struct pev_session {
	int nr_events;
	struct pev__sevent *ev;
	int nr_rings;
	struct pev__sring *rings;
	struct pev_ring **ring_ptrs; /* for pev_ring_poll */
	unsigned *ready;
	struct pev__sid *ids;
	size_t nr_ids;
	int *heap;  /* rings holding pending records, a min-heap by their oldest one */
	int heap_n;

	/* The merge. */
	uint64_t limit;     /* records up to this time may be delivered in this round */
	uint64_t max_seen;  /* the newest time read so far, in any ring */
	uint64_t prev_max;  /* max_seen at the end of the previous round */
	bool stopped;       /* disabled: no more records come, deliver everything */
	int give_ring;      /* ring of the record delivered last, -1: none to give back */
	uint32_t give_size; /* its size */
	uint64_t last_time; /* time of the record delivered last */
	bool delivered;     /* something was delivered since open */

	struct pev_session_stats st;
};

/* Finds the event whose descriptor has kernel id `id`; -1 when none. */
int pev__session_event_of(const struct pev_session *s, uint64_t id);

/*
 * A session over rings made by the caller (tests of the merge: rings over
 * memory from pev__ring_new): event i has format fmts[i] and kernel id
 * ids[i]; ring j is on CPU cpus[j]. The session takes the rings (closed by
 * pev_session_close) only on success. No counter: enable, disable and poll
 * are not for it. Returns 0, PEV_EBADARG or PEV_ENOMEM.
 */
int pev__session_synthetic(const struct pev_record_format *fmts, const uint64_t *ids,
			   int nr_events, struct pev_ring *const *rings, const int *cpus,
			   int nr_rings, struct pev_session **out);

#endif /* PERFEV_SESSION_INTERNAL_H */

/* SPDX-License-Identifier: MIT */
/*
 * perfev/session.h - a sampling session: several events over a target, one
 * ring per CPU (or per thread), and their records merged in time order.
 *
 * A session opens each event on the target (pev_counter_open), maps ONE
 * ring per CPU of the target (per thread when the target has no CPUs) and
 * redirects every other descriptor of that CPU into it (SET_OUTPUT). Every
 * event gets PEV_SAMPLE_IDENTIFIER, PEV_SAMPLE_TIME and sample_id_all, so
 * each record names the event that wrote it and carries a timestamp.
 *
 *     pev_session_open(&opts, &s, &err);
 *     pev_session_enable(s);
 *     while (!done) {
 *             pev_session_poll(s, 100);
 *             while (pev_session_read(s, &rec) > 0)
 *                     handle(&rec);            // decoded, with its event and CPU
 *     }
 *     pev_session_disable(s);                  // then read the rest
 *     while (pev_session_read(s, &rec) > 0)
 *             handle(&rec);
 *     pev_session_close(s);
 *
 * Records come out in time order across rings through flush rounds: a
 * round reads what every ring holds, then delivers only records no newer
 * than the oldest "newest timestamp" of the rings that hold records (and,
 * when a ring showed nothing, no newer than the newest timestamp of the
 * previous round); the rest waits in its ring for a later round. Records
 * stay in the ring until delivered, so buffering is bounded by the rings
 * themselves. share/doc/perfev/SAMPLING.md has the model, the ordering guarantee and
 * the accounting.
 *
 * The session starts no thread and never blocks except in
 * pev_session_poll(). It is not locked: use it from one thread at a time.
 */
#ifndef PERFEV_SESSION_H
#define PERFEV_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perfev/common.h"
#include "perfev/counter.h"
#include "perfev/error.h"
#include "perfev/event.h"
#include "perfev/opts.h"
#include "perfev/parse.h"
#include "perfev/record.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A sampling session. Opaque. */
struct pev_session;

/**
 * One event of a session, given as a description and its options. The
 * options come last so that an element grows only with struct pev_opts:
 * pev_session_opts.event_sz tells the library the caller's element size,
 * and opts.sz the size of the options inside it.
 */
struct pev_session_event {
	struct pev_event ev;  /**< what to sample (its strings borrowed until open returns) */
	struct pev_opts opts; /**< how (opts.sz set, e.g. from PEV_OPTS_INIT); stays the last field */
};

/**
 * How to open a session. Initialize with PEV_SESSION_OPTS_INIT; like every
 * perfev option struct it carries its size.
 */
struct pev_session_opts {
	size_t sz; /**< sizeof(struct pev_session_opts), for compatibility */
	/**
	 * Events given as structs (nr_events of them), opened first; may be NULL.
	 * The array is walked event_sz bytes at a time.
	 */
	const struct pev_session_event *events;
	int nr_events; /**< entries of events */
	/** Events in perf's syntax ("cpu-clock,sched:sched_switch"), after `events`; or NULL. */
	const char *event_text;
	const struct pev_parse_opts *parse_opts; /**< for event_text; NULL: defaults */
	/**
	 * Events from event_text that set neither a period nor a frequency sample
	 * every sample_period events, or sample_freq times a second; both 0: 1000 Hz.
	 */
	uint64_t sample_period;
	uint64_t sample_freq; /**< samples per second; not with sample_period */
	/** PEV_SAMPLE_* bits added to every event (IDENTIFIER and TIME always are). */
	uint64_t sample_type;
	/** Where to sample; NULL: the calling thread. Copied. */
	const struct pev_target *target;
	/** Data pages of each ring: a power of two; 0: 64. */
	size_t data_pages;
	/** The first event also writes MMAP2, COMM (exec flagged) and FORK/EXIT records. */
	bool track;
	/**
	 * The caller's sizeof(struct pev_session_event): the stride of `events`
	 * (PEV_SESSION_OPTS_INIT sets it). 0, as from a caller built before this
	 * field, means offsetof(struct pev_session_event, opts) + events[0].opts.sz:
	 * the element size such a caller compiled. Every element's opts.sz must
	 * fit in it; a larger opts.sz than this library knows is accepted when the
	 * unknown tail is zero, as for any option struct.
	 */
	size_t event_sz;
};

/**
 * Initializer for struct pev_session_opts: everything zero, the sizes set.
 * Positional, so that it is valid C and C++ alike.
 */
#define PEV_SESSION_OPTS_INIT                                                                      \
	{sizeof(struct pev_session_opts), NULL, 0, NULL, NULL, 0, 0, 0, NULL, 0, false,            \
	 sizeof(struct pev_session_event)}

/**
 * Opens every event of opts on opts->target, disabled (events with
 * enable_on_exec start at the target's exec; the others at
 * pev_session_enable()), maps one ring per CPU (or per thread) and points
 * the other descriptors of that CPU (thread) at it. Events with
 * write_backward are refused with PEV_EBADARG: a session reads forward
 * rings. Parsed groups are opened as groups.
 * On success stores the session in *out and returns 0. On failure nothing
 * stays open or mapped, *out is NULL and a negative PEV_E* code is
 * returned, err (optional) saying which event or ring failed and why.
 */
PEV_API int pev_session_open(const struct pev_session_opts *opts, struct pev_session **out,
			     struct pev_error *err);

/** Unmaps every ring, closes every event and frees s. NULL is ignored. */
PEV_API void pev_session_close(struct pev_session *s);

/** Enables every event. Returns 0 or a negative code. */
PEV_API int pev_session_enable(struct pev_session *s);

/**
 * Disables every event. No record is written after it returns, so the
 * reader then delivers everything left, in time order, without waiting for
 * a later round. Returns 0 or a negative code.
 */
PEV_API int pev_session_disable(struct pev_session *s);

/* ---- what the session holds ------------------------------------------------- */

/** Returns the number of events, or PEV_EBADARG for NULL. */
PEV_API int pev_session_nr_events(const struct pev_session *s);

/** Returns event i's counter (owned by s: read it, filter it, do not close it), or NULL. */
PEV_API struct pev_counter *pev_session_counter(const struct pev_session *s, int i);

/** Returns the number of rings, or PEV_EBADARG for NULL. */
PEV_API int pev_session_nr_rings(const struct pev_session *s);

/**
 * Returns ring i's descriptor (owned by s) for the caller's poll(2) or
 * epoll(7), or PEV_EBADARG. A caller that polls these itself, rather than
 * with pev_session_poll(), calls pev_session_flush() once the tasks have
 * exited (POLLHUP) so that the last records are not held for a round.
 */
PEV_API int pev_session_ring_fd(const struct pev_session *s, int i);

/** Returns the CPU of ring i (-1 for a per-thread ring), or PEV_EBADARG. */
PEV_API int pev_session_ring_cpu(const struct pev_session *s, int i);

/** Returns the thread of a per-thread ring i (-1 for a CPU's ring), or PEV_EBADARG. */
PEV_API pid_t pev_session_ring_tid(const struct pev_session *s, int i);

/* ---- waiting and reading ---------------------------------------------------- */

/**
 * Waits with poll(2) until a ring is readable, its task exited, or
 * timeout_ms passes (-1: no limit). Returns at once when records read
 * earlier are waiting for the next round. A ring whose task exited (HUP)
 * holds its final records: the reader no longer waits for it. Returns the
 * number of rings with something to report (0 on timeout), PEV_EINTR when
 * a signal came, or another negative code.
 */
PEV_API int pev_session_poll(struct pev_session *s, int timeout_ms);

/**
 * True when every ring reported HUP: all the target's tasks exited (per-task
 * targets only; CPU rings never hang up). Read until pev_session_read()
 * returns 0 to drain them.
 */
PEV_API bool pev_session_finished(const struct pev_session *s);

/** One record as pev_session_read() delivers it. */
struct pev_session_record {
	struct pev_record rec; /**< decoded; its pointers are valid until the next read */
	int event;     /**< index of the event that wrote it, -1 when its id matches none */
	int ring;      /**< the ring it came from */
	int cpu;       /**< the ring's CPU, -1 for a per-thread ring */
	uint64_t time; /**< its timestamp; a record without one has its ring's previous time */
};

/**
 * Delivers the next record in time order into *out and returns 1; returns
 * 0 when no record may be delivered yet: none was written, or those read
 * wait for the next round (pev_session_poll() then returns at once). Each call
 * gives back to the kernel the space of the record delivered before it.
 * Allocates nothing. Records that do not decode are skipped and counted
 * (stats.malformed). Returns a negative code only for bad arguments.
 */
PEV_API int pev_session_read(struct pev_session *s, struct pev_session_record *out);

/**
 * Reads every ring now and makes all it holds deliverable, in time order,
 * without waiting for a later round: for the end of a session that is not
 * disabled, or a caller that watches the ring descriptors with its own
 * epoll and saw every task hang up. Records written after the call wait
 * for rounds as usual. Returns 0 or PEV_EBADARG.
 */
PEV_API int pev_session_flush(struct pev_session *s);

/* ---- accounting -------------------------------------------------------------- */

/** Record types counted one by one in pev_session_stats.by_type. */
#define PEV_SESSION_TYPES 32

/** What a session (or one ring, or one event) delivered. */
struct pev_session_stats {
	size_t sz;             /**< sizeof(struct pev_session_stats) (PEV_SESSION_STATS_INIT) */
	uint64_t records;      /**< records delivered */
	uint64_t samples;      /**< of them SAMPLE records */
	uint64_t lost;         /**< records the kernel dropped: the sum of LOST records' counts */
	uint64_t lost_records; /**< LOST records */
	uint64_t lost_samples; /**< samples the PMU dropped: the sum of LOST_SAMPLES counts */
	uint64_t throttle;     /**< THROTTLE records */
	uint64_t unthrottle;   /**< UNTHROTTLE records */
	uint64_t unknown_id;   /**< records whose event id matches no event of the session */
	uint64_t malformed;    /**< records that did not decode, or ring errors resynchronized */
	uint64_t skipped;      /**< bytes dropped after a ring error */
	uint64_t out_of_order; /**< records delivered older than one delivered before them */
	uint64_t rounds;       /**< flush rounds (rings read) */
	uint64_t held;         /**< records rounds kept back for a later one (summed) */
	uint64_t by_type[PEV_SESSION_TYPES]; /**< records per type; [0]: types outside 1..31 */
};

/** Initializer for struct pev_session_stats: everything zero, the size set. */
#define PEV_SESSION_STATS_INIT PEV_SIZED_INIT(struct pev_session_stats)

/** pev_session_stats() scopes. */
enum pev_session_scope {
	PEV_SESSION_TOTAL = 0, /**< the whole session (index ignored) */
	PEV_SESSION_RING = 1,  /**< ring `index` */
	PEV_SESSION_EVENT = 2, /**< event `index` (records of unknown events count in TOTAL only) */
};

/**
 * Copies the statistics of the scope into *out: reads out->sz first, fills
 * at most that many bytes and sets out->sz to what it filled. rounds and
 * held are session-wide (0 for an event). Returns 0, or PEV_EBADARG for
 * NULL arguments, out->sz below sizeof(size_t) or an index out of range.
 */
PEV_API int pev_session_stats(const struct pev_session *s, enum pev_session_scope scope,
			      int index, struct pev_session_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_SESSION_H */

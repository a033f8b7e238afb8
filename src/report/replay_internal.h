/* SPDX-License-Identifier: MIT */
/*
 * replay_internal.h - what the files of the replay share:
 *
 *   replay.c        the object, side-band records, samples to frames
 *   replay_queue.c  records held back and sorted by time, round by round
 *   profile_load.c  a whole file into a struct pev_profile
 *   read_periods.c  the periods of samples that read counters
 */
#ifndef PERFEV_REPLAY_INTERNAL_H
#define PERFEV_REPLAY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfev/replay.h"

struct pev_replay;

/*
 * A value per key (id, sub), by open addressing (read_periods.c): the last
 * count read of each counter id and thread, and other per-thread state.
 */
struct pev__last_reads {
	uint64_t *id, *sub, *value; /* id 0: a free slot (keys start at 1) */
	size_t cap;                 /* a power of two, or 0 */
	size_t len;
};

/* The slot of key (id, sub), id > 0 (added with value 0 when new), or NULL without memory. */
uint64_t *pev__last_read(struct pev__last_reads *l, uint64_t id, uint64_t sub);

/* Frees l's slots and empties it. */
void pev__last_reads_free(struct pev__last_reads *l);

/* The off of an entry whose bytes the queue does not hold. */
#define PEV__RQ_NOT_HELD SIZE_MAX

/* One record held in the queue: a copy of its bytes and what the reader said of it. */
struct pev__rq_entry {
	uint64_t time;
	uint64_t seq;    /* arrival order: ties keep it */
	size_t off;      /* where its bytes are in the queue's buffer; PEV__RQ_NOT_HELD: not copied */
	size_t len;
	uint64_t file_offset;
	const struct pev_perfdata_event *event;
};

/*
 * Records waiting to be handed out in time order. Records are pushed as
 * they are read; pev__rq_release() makes those up to a time ready (sorted),
 * and pev__rq_pop() hands them out. The bytes of a popped entry stay
 * valid until the next push or release.
 */
struct pev__rq {
	uint64_t *buf;            /* record copies, 8-aligned */
	size_t used, cap;         /* bytes */
	uint64_t *spare;          /* cap bytes too: where compaction copies to (pages stay mapped) */
	struct pev__rq_entry *ents;
	size_t nr, cap_ents;
	size_t next;              /* first entry not handed out */
	size_t ready;             /* entries [next, ready) are sorted and may go */
	uint64_t seq;
};

/*
 * Queues a record (len bytes, a multiple of 8), copying its bytes unless
 * hold is false (the caller can read them again at file_offset). Returns 0
 * or PEV_ENOMEM.
 */
int pev__rq_push(struct pev__rq *q, const void *bytes, size_t len, uint64_t time,
		 uint64_t file_offset, const struct pev_perfdata_event *event, bool hold);

/*
 * Forgets what was handed out, sorts what is left by time and makes every
 * entry with time <= limit ready. Returns 0 or PEV_ENOMEM.
 */
int pev__rq_release(struct pev__rq *q, uint64_t limit);

/* The next ready entry (its bytes in *bytes, NULL when not held), or NULL when none is ready. */
const struct pev__rq_entry *pev__rq_pop(struct pev__rq *q, const void **bytes);

void pev__rq_free(struct pev__rq *q);

/*
 * Told of each context switch replayed (SWITCH, SWITCH_CPU_WIDE records
 * with the task's id and time): the thread, when, and whether it left the
 * CPU (else it came back). Returns 0 or PEV_ENOMEM, which ends the replay.
 */
typedef int (*pev__replay_switch_fn)(void *ctx, int32_t tid, uint64_t time, bool out);

/* Sets the function told of context switches (NULL: none), with ctx. */
void pev__replay_on_switch(struct pev_replay *r, pev__replay_switch_fn fn, void *ctx);
/*
 * Told of each side-band record (every record but samples) in the order
 * replayed, before the replay takes it in: a FORK is told before the new
 * thread is known, an EXIT before it is forgotten. Returns 0 or PEV_ENOMEM,
 * which ends the replay.
 */
typedef int (*pev__replay_record_fn)(void *ctx, const struct pev_record *rec);

/* Sets the function told of side-band records (NULL: none), with ctx. */
void pev__replay_on_record(struct pev_replay *r, pev__replay_record_fn fn, void *ctx);

/* A file mapping (MMAP, MMAP2) the replay met, or a build id the symbolizer read (len 0). */
struct pev__replay_map {
	const char *path;
	int32_t pid; /* -1: the kernel's */
	uint64_t start, len, pgoff;
	const unsigned char *build_id; /* or NULL */
	size_t build_id_size;
};

/* Called for each; a negative return (PEV_ENOMEM) ends the replay with it. */
typedef int (*pev__replay_map_fn)(void *ctx, const struct pev__replay_map *m);

/* Sets the function told of every mapping from now on (NULL: none). */
void pev__replay_on_map(struct pev_replay *r, pev__replay_map_fn fn, void *ctx);

/*
 * The program process pid runs at this point of the replay: the first file
 * it mapped after its exec that is not named like a shared library, or
 * NULL. Equal paths give the same pointer, valid until pev_replay_close.
 */
const char *pev__replay_program(const struct pev_replay *r, int32_t pid);

/*
 * The name thread tid has at this point of the replay (after the last
 * record: its last name), or NULL when no record named it.
 */
const char *pev__replay_thread_name(const struct pev_replay *r, int32_t tid);

/*
 * The name the first COMM record of thread tid gave it while it had none
 * (no FORK had named it after its parent), or NULL. perf names the
 * thread's earlier samples by it in reports.
 */
const char *pev__replay_first_name(const struct pev_replay *r, int32_t tid);

#endif /* PERFEV_REPLAY_INTERNAL_H */

/* SPDX-License-Identifier: MIT */
/*
 * ring_internal.h - the inside of struct pev_ring, shared by the files that
 * map rings (ring.c), read them (ring_read.c), their AUX areas (ring_aux.c),
 * and share and poll them (ring_output.c); and the way to run a ring reader
 * over memory the caller provides (tests, fuzz_ring), without syscalls.
 */
#ifndef PERFEV_RING_INTERNAL_H
#define PERFEV_RING_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perfev/ring.h"

/* The largest record: header.size is 16 bits, so 65528 bytes (8-aligned) fit in 64 KiB. */
#define PEV__RING_SCRATCH_MAX 65536

/* The largest data or AUX area, in bytes. */
#define PEV__RING_AREA_MAX ((size_t)1 << 30)

struct pev_ring {
	struct pev_mmap_page *page; /* the control page */
	unsigned char *data;        /* the data area (page + data offset) */
	size_t data_size;           /* a power of two */
	uint64_t mask;              /* data_size - 1 */
	size_t map_size;            /* bytes mapped at page; 0: caller's memory (synthetic) */
	int fd;                     /* the descriptor mapped, -1 for a synthetic ring */
	bool overwrite;             /* written backward, read-only: never store data_tail */
	size_t locked_pages;        /* pages this ring charged to the locked-memory budget */

	/* Reader state. */
	bool in_batch;
	bool paused;   /* an overwrite batch paused the kernel's output */
	uint64_t head; /* data_head as the batch saw it */
	uint64_t tail; /* forward: what the kernel has been given back */
	uint64_t pos;  /* forward: the next record; overwrite: bytes walked from head */
	uint64_t prev; /* overwrite: head of the previous batch */
	uint64_t window;      /* overwrite: bytes the batch may walk */
	bool window_wrapped;  /* overwrite: the window is the whole data area, oldest record partial */
	unsigned char *scratch; /* wrapped records, min(data_size, 64 KiB) bytes */
	size_t scratch_size;

	/* The AUX area. */
	unsigned char *aux;
	size_t aux_size;     /* 0: none */
	uint64_t aux_mask;
	bool aux_mapped;     /* aux is a mapping of fd (else caller's memory) */
	bool aux_snapshot;
	uint64_t aux_tail;   /* forward: given back; snapshot: head of the previous read */
	uint64_t aux_shown;  /* bytes the last pev_ring_aux_begin showed */
	uint64_t aux_head;   /* head the last pev_ring_aux_begin saw */
	bool aux_in_read;

	/* The event behind the ring, for diagnosing SET_OUTPUT. */
	char name[96];
	int cpu;
	pid_t tid;
	uint64_t attr_flags;
	int32_t clockid;

	struct pev_ring_stats stats;
};

/*
 * A ring over caller-provided memory: page is a control page, data an
 * 8-aligned data area of data_size bytes (a power of two, 8 to 1 GiB).
 * overwrite selects the backward reader (no ioctls: the caller holds the
 * writer still). The reader starts at page->data_tail (forward) or
 * page->data_head (overwrite). Nothing is mapped; pev_ring_close() frees
 * only the ring. Returns 0 or PEV_EBADARG / PEV_ENOMEM.
 */
int pev__ring_new(struct pev_mmap_page *page, void *data, size_t data_size, bool overwrite,
		  struct pev_ring **out);

/*
 * Gives a synthetic ring an AUX area of aux_size bytes (a power of two, 1
 * to 1 GiB) in caller memory; snapshot selects the read-only mode. The
 * reader starts at page->aux_tail (forward) or page->aux_head (snapshot).
 * Returns 0 or PEV_EBADARG.
 */
int pev__ring_set_aux(struct pev_ring *r, void *aux, size_t aux_size, bool snapshot);

/* Allocates a ring and its scratch buffer for data_size bytes; NULL when out of memory. */
struct pev_ring *pev__ring_alloc(size_t data_size);

/* Sets the reader's starting point from the control page (after mapping). */
void pev__ring_reset_reader(struct pev_ring *r);

/* True when x is a power of two (and not 0). */
static inline bool pev__is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* Acquire load / release store of a control page word the kernel shares. */
static inline uint64_t pev__ring_load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void pev__ring_store(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/*
 * The pages this process has locked through perfev rings (all rings,
 * process-wide; a forked child starts from 0): adds delta (may be negative).
 */
void pev__ring_locked_add(long delta);
/* Returns the pages locked through perfev rings by this process. */
size_t pev__ring_locked_pages(void);

#endif /* PERFEV_RING_INTERNAL_H */

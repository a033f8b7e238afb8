/* SPDX-License-Identifier: MIT */
/*
 * perfev/ring.h - the mmap'd ring buffer of a sampling event.
 *
 * A ring is 1 + 2^n pages mapped from one descriptor of a counter: the
 * control page (struct pev_mmap_page) followed by the data area the kernel
 * writes records into, and optionally an AUX area after it. share/doc/perfev/RING.md
 * walks through the API; in short:
 *
 *     pev_ring_begin(r);                          // snapshot the kernel's head
 *     while ((n = pev_ring_next(r, &rec)) > 0)    // one record, 8-aligned
 *             handle(rec.header, rec.size);
 *     pev_ring_end(r);                            // give the space back
 *
 * Records are read in place (zero copy); only a record that wraps the end of
 * the data area is copied, into a buffer the ring owns. Data the kernel (or
 * a corrupted buffer) presents that cannot be a valid ring gives PEV_EFORMAT
 * and is never read outside the mapping; pev_ring_skip() resynchronizes.
 *
 * A ring is not locked: use it from one thread at a time.
 */
#ifndef PERFEV_RING_H
#define PERFEV_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfev/abi.h"
#include "perfev/common.h"
#include "perfev/counter.h"
#include "perfev/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A mapped ring buffer. Opaque. */
struct pev_ring;

/* ---- opening -------------------------------------------------------------- */

/** pev_ring_opts.flags: skip the locked-memory pre-check and let the kernel decide. */
#define PEV_RING_NO_BUDGET_CHECK 0x1U

/**
 * How to map a ring. Initialize with PEV_RING_OPTS_INIT; zero fields keep
 * their defaults. Like every perfev option struct it carries its size.
 */
struct pev_ring_opts {
	size_t sz;         /**< sizeof(struct pev_ring_opts), for compatibility */
	size_t data_pages; /**< pages of the data area: a power of two (1, 2, 4, ...) below 1 GiB */
	size_t aux_pages;  /**< pages of the AUX area: 0 for none, else a power of two below 1 GiB */
	bool aux_snapshot; /**< map the AUX area read-only: the PMU overwrites it (snapshot mode) */
	unsigned flags;    /**< PEV_RING_* */
};

/** Initializer for struct pev_ring_opts: everything zero, the size set. */
#define PEV_RING_OPTS_INIT PEV_SIZED_INIT(struct pev_ring_opts)

/**
 * Maps 1 + data_pages pages of descriptor `fd_index` of counter c
 * (data_pages a power of two). Same as pev_ring_open_opts() with only
 * data_pages set.
 */
PEV_API int pev_ring_open(const struct pev_counter *c, int fd_index, size_t data_pages,
			  struct pev_ring **out, struct pev_error *err);

/**
 * Maps the ring of descriptor `fd_index` of counter c as opts says (NULL is
 * refused: data_pages has no default).
 *
 * A counter opened with write_backward gets an overwrite ring: mapped
 * read-only, the kernel writes over old records and never waits for the
 * reader (see pev_ring_begin). Any other counter gets a forward ring,
 * mapped writable: the kernel writes only into space the reader has given
 * back, and drops (and later reports in a LOST record) what does not fit.
 *
 * Before mmap the locked-memory budget is checked: for a process without
 * CAP_IPC_LOCK, while perf_event_paranoid is above -1, the kernel allows
 * perf_event_mlock_kb x online CPUs plus RLIMIT_MEMLOCK, less what is
 * locked already. When the ring plus the rings this process already mapped
 * through perfev cannot fit, the call fails with PEV_EPERM before the
 * syscall (err->before_syscall set), exactly as the kernel would; with
 * PEV_RING_NO_BUDGET_CHECK the kernel decides. When mmap fails, err
 * explains the budget (pev_diagnose_mmap) or the rule the kernel applied.
 *
 * With aux_pages, the AUX area is mapped after the data area
 * (aux_offset/aux_size in the control page) writable, or read-only with
 * aux_snapshot. Only PMUs that trace into an AUX area (intel_pt, arm_spe,
 * cs_etm, ...) accept it; others fail with PEV_EOPNOTSUPP and an
 * explanation. An overwrite ring cannot have one (its control page is
 * read-only): PEV_EBADARG.
 *
 * The ring borrows the counter's descriptor: keep the counter open while
 * the ring is used, and close the ring first. Stores the ring in *out and
 * returns 0, or returns a negative code with nothing mapped.
 */
PEV_API int pev_ring_open_opts(const struct pev_counter *c, int fd_index,
			       const struct pev_ring_opts *opts, struct pev_ring **out,
			       struct pev_error *err);

/** Unmaps the ring (and its AUX area) and frees it. NULL is ignored. The counter stays open. */
PEV_API void pev_ring_close(struct pev_ring *r);

/** Returns the ring's control page (owned by the ring), or NULL for a NULL ring. */
PEV_API const struct pev_mmap_page *pev_ring_page(const struct pev_ring *r);

/** Returns the bytes of the data area, or 0 for a NULL ring. */
PEV_API size_t pev_ring_data_size(const struct pev_ring *r);

/**
 * Returns the descriptor the ring is mapped from (owned by the counter), for
 * poll(2) or epoll(7), or PEV_EBADARG for a NULL ring or one without a
 * descriptor.
 */
PEV_API int pev_ring_fd(const struct pev_ring *r);

/** Returns true when r is an overwrite ring (its counter writes backward). */
PEV_API bool pev_ring_overwrite(const struct pev_ring *r);

/* ---- reading records -------------------------------------------------------- */

/**
 * One record of the ring. header and size are what a decoder takes as
 * (bytes, len): header is 8-aligned and size bytes are readable there.
 * Use size, not header->size: size is the value the ring checked.
 */
struct pev_ring_record {
	const struct pev_event_header *header; /**< the record's first byte */
	size_t size;  /**< bytes of the record, header included: a multiple of 8, at least 8 */
	bool wrapped; /**< the record crossed the end of the data area: header points to the ring's copy */
};

/**
 * Starts (or extends) a batch: snapshots the kernel's data_head with
 * acquire ordering. Forward rings: the batch holds every record between
 * the reader's tail and that head, oldest first. Overwrite rings: pauses
 * the kernel's output (PERF_EVENT_IOC_PAUSE_OUTPUT) and the batch holds
 * the records written since the previous batch, newest first, as far back
 * as the data area still holds whole records (a ring wrapped since then
 * yields its newest complete window; the partly overwritten oldest record
 * is dropped and counted in pev_ring_stats.partial). Records arriving
 * while an overwrite ring is paused are lost (the kernel counts them in a
 * LOST record). Calling begin again inside a batch refreshes a forward
 * ring's head and leaves an overwrite ring's window as it is.
 * Returns the bytes the batch holds (>= 0), or PEV_EFORMAT when the head
 * cannot be right (behind the tail, more than the data area ahead of it,
 * not 8-aligned), or the ioctl's error.
 */
PEV_API int pev_ring_begin(struct pev_ring *r);

/**
 * Fills *rec with the next record of the batch and returns 1; returns 0
 * when the batch holds no more. A record within the data area is read in
 * place; one that wraps its end is copied into a 64 KiB buffer the ring
 * owns. rec stays valid until the next call of pev_ring_next(),
 * pev_ring_consume(), pev_ring_end() or pev_ring_skip() on r; a record read
 * in place (rec.wrapped false) of a forward ring stays valid until the next
 * consume, end or skip, so a batch can be kept and processed whole.
 * Returns PEV_EFORMAT, and stays at that record, when its size is below 8,
 * not a multiple of 8, or larger than the bytes the batch holds (for an
 * overwrite ring: than what the previous batch left); call pev_ring_skip().
 * Returns PEV_EBADARG outside a batch.
 */
PEV_API int pev_ring_next(struct pev_ring *r, struct pev_ring_record *rec);

/**
 * Forward rings: gives the kernel back the space of every record
 * pev_ring_next() returned so far (stores data_tail with release ordering)
 * without ending the batch: consuming record by record. Overwrite rings
 * have nothing to give back: no effect. Returns 0 or PEV_EBADARG.
 */
PEV_API int pev_ring_consume(struct pev_ring *r);

/**
 * Ends the batch. Forward rings: consumes what pev_ring_next() returned;
 * records not yet returned stay for the next batch. Overwrite rings:
 * records of the window not yet returned are dropped (the next batch starts
 * at this batch's head), and the kernel's output resumes. Outside a batch
 * it does nothing. Returns 0, or the resume ioctl's error.
 */
PEV_API int pev_ring_end(struct pev_ring *r);

/**
 * Resynchronizes after PEV_EFORMAT, or drops what is unread: ends any
 * batch and moves the reader to the kernel's current data_head, giving
 * back (forward rings) everything before it. The bytes dropped are counted
 * in pev_ring_stats.skipped. Returns 0, or the resume ioctl's error.
 */
PEV_API int pev_ring_skip(struct pev_ring *r);

/**
 * Returns the bytes waiting to be read without starting a batch: forward
 * rings, data_head - tail; overwrite rings, what a batch would hold at most
 * (the bytes written since the last batch, capped at the data area).
 * Returns PEV_EFORMAT for a head that cannot be right, PEV_EBADARG for NULL.
 */
PEV_API int pev_ring_pending(const struct pev_ring *r);

/* ---- statistics ------------------------------------------------------------ */

/** What a ring has read since it was opened. */
struct pev_ring_stats {
	size_t sz;          /**< set to sizeof(struct pev_ring_stats) (PEV_RING_STATS_INIT) */
	uint64_t records;   /**< records pev_ring_next() returned */
	uint64_t bytes;     /**< bytes of those records */
	uint64_t wrapped;   /**< of those, records copied because they wrapped the end */
	uint64_t batches;   /**< successful pev_ring_begin() calls */
	uint64_t malformed; /**< PEV_EFORMAT results of begin, next and pending */
	uint64_t skipped;   /**< bytes dropped by pev_ring_skip() or an early end of an overwrite batch */
	uint64_t overwritten; /**< overwrite rings: bytes the kernel wrote over before they were read */
	uint64_t partial;   /**< overwrite rings: oldest records dropped because they were partly overwritten */
	uint64_t aux_bytes; /**< AUX bytes consumed (forward) or shown (snapshot) */
};

/** Initializer for struct pev_ring_stats: everything zero, the size set. */
#define PEV_RING_STATS_INIT PEV_SIZED_INIT(struct pev_ring_stats)

/**
 * Copies r's statistics into *out. Reads out->sz first and fills at most
 * that many bytes, then sets out->sz to what it filled. Returns 0, or
 * PEV_EBADARG for NULL arguments or out->sz below sizeof(size_t).
 */
PEV_API int pev_ring_stats(const struct pev_ring *r, struct pev_ring_stats *out);

/* ---- the AUX area ------------------------------------------------------------ */

/**
 * AUX bytes ready to read: up to two parts, because the area wraps. Read
 * data[0] (size[0] bytes) then data[1] (size[1] bytes, 0 when the bytes do
 * not wrap). Pointers stay valid until pev_ring_aux_end() or pev_ring_close().
 */
struct pev_ring_aux {
	const void *data[2]; /**< the bytes, in order */
	size_t size[2];      /**< bytes of each part */
	uint64_t offset;     /**< position of data[0] in the AUX stream (running count since open) */
	uint64_t head;       /**< the aux_head snapshot */
	bool snapshot;       /**< the area is in snapshot (overwrite) mode */
};

/** Returns the bytes of the AUX area (0 when the ring has none or r is NULL). */
PEV_API size_t pev_ring_aux_size(const struct pev_ring *r);

/**
 * Snapshots aux_head with acquire ordering and fills *out with the bytes to
 * read. Forward (writable) AUX areas: every byte between aux_tail and the
 * head. Snapshot areas: the bytes written since the previous
 * pev_ring_aux_end(), capped at the newest aux_size bytes; stop the
 * PMU first (pev_counter_disable) so that the head holds still, and expect
 * PMU-specific framing (the AUX records of the data ring tell where each
 * snapshot lies). Returns the bytes shown (>= 0), PEV_EFORMAT when a
 * forward area's head is behind its tail or more than aux_size ahead, or
 * PEV_EBADARG when the ring has no AUX area.
 */
PEV_API int pev_ring_aux_begin(struct pev_ring *r, struct pev_ring_aux *out);

/**
 * Ends an AUX read. Forward areas: gives the first `consumed` bytes shown
 * back to the PMU (stores aux_tail with release ordering); consumed must
 * not exceed what pev_ring_aux_begin() showed (else PEV_EBADARG). Snapshot
 * areas: marks everything shown as read (consumed is ignored). Returns 0 or
 * a negative code.
 */
PEV_API int pev_ring_aux_end(struct pev_ring *r, size_t consumed);

/* ---- sharing one ring: SET_OUTPUT ---------------------------------------- */

/**
 * Sends the records of descriptor `fd_index` of counter c into ring r
 * (PERF_EVENT_IOC_SET_OUTPUT), so several events share one ring; records
 * are told apart by PEV_SAMPLE_IDENTIFIER or PEV_SAMPLE_ID. The kernel
 * allows it only between events on the same CPU (per-task events: of the
 * same task), with the same clock and the same direction (write_backward),
 * to a descriptor that has no ring of its own mapped. When it refuses, err
 * names the mismatch. Returns 0 or a negative code.
 */
PEV_API int pev_ring_redirect(struct pev_ring *r, const struct pev_counter *c, int fd_index,
			      struct pev_error *err);

/* ---- poll ------------------------------------------------------------------ */

/* Bits pev_ring_poll() reports per ring. */
#define PEV_RING_READABLE 0x1U /**< the kernel woke readers (wakeup_events / wakeup_bytes / half the ring reached) */
#define PEV_RING_HUP      0x2U /**< the monitored task exited: drain what is left, then close */
#define PEV_RING_ERROR    0x4U /**< the descriptor is in error (POLLERR or POLLNVAL) */

/**
 * Waits until one of n rings is ready or timeout_ms passes (-1: no limit,
 * 0: just look), with poll(2) in the calling thread. ready[i] receives the
 * PEV_RING_* bits of rings[i]. The kernel raises READABLE once per wake-up
 * (each wakeup_events samples or wakeup_bytes bytes, or, with both 0, each
 * time half the data area has filled; see struct pev_opts),
 * not while data is unread: read a ring until its batch is empty when it
 * reports READABLE. HUP stays raised once the task has exited; its records
 * are all in the ring by then. Returns how many rings have bits set
 * (0: timeout), PEV_EINTR when a signal arrived, PEV_EBADARG when n > 0
 * and rings or ready is NULL, or another negative code. With n 0 (rings
 * and ready may then be NULL) it only waits timeout_ms and returns 0.
 */
PEV_API int pev_ring_poll(struct pev_ring *const *rings, size_t n, int timeout_ms,
			  unsigned *ready);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_RING_H */

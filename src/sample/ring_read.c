/* SPDX-License-Identifier: MIT */
/*
 * ring_read.c - reading records out of a ring: forward rings (the kernel
 * writes after the reader's tail and waits for it) and overwrite rings (the
 * kernel writes backward over old records; the reader pauses it and walks
 * from the newest record to the oldest whole one).
 *
 * Positions are the kernel's 64-bit running counters; a position's byte in
 * the data area is pos & mask. Every length is checked against what the
 * batch holds before a byte is read, so a head or size from a corrupted
 * buffer never leads outside the data area: a record is read at
 * [off, off + size) when that fits, else in two parts [off, data_size) and
 * [0, size - (data_size - off)), with size <= data_size.
 */
#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "perfev/ring.h"
#include "sample/ring_internal.h"
#include "core/error_internal.h"
#include "core/sys.h"

/* ---- shared pieces --------------------------------------------------------- */

/* Reads the size field of the header at byte off (8-aligned, so the header never wraps). */
static uint16_t header_size_at(const struct pev_ring *r, uint64_t off)
{
	struct pev_event_header h;

	memcpy(&h, r->data + off, sizeof(h));
	return h.size;
}

/* Points rec at the size bytes at position pos: in place, or copied when they wrap. */
static void fill_record(struct pev_ring *r, uint64_t pos, size_t size, struct pev_ring_record *rec)
{
	uint64_t off = pos & r->mask;

	if (off + size <= r->data_size) {
		rec->header = (const struct pev_event_header *)(const void *)(r->data + off);
		rec->wrapped = false;
	} else {
		size_t first = (size_t)(r->data_size - off);
		memcpy(r->scratch, r->data + off, first);
		memcpy(r->scratch + first, r->data, size - first);
		rec->header = (const struct pev_event_header *)(const void *)r->scratch;
		rec->wrapped = true;
		r->stats.wrapped++;
	}
	rec->size = size;
	r->stats.records++;
	r->stats.bytes += size;
}

static bool bad_size(uint64_t size)
{
	return size < sizeof(struct pev_event_header) || (size & 7);
}

/* Counts a record or head that cannot be right, and says so in pev_last_error(). */
static int malformed(struct pev_ring *r)
{
	r->stats.malformed++;
	pev__error_start(NULL, PEV_EFORMAT, 0, NULL, NULL, true);
	pev__error_msg(NULL, "the ring (descriptor %d) holds a malformed record or head; "
		       "%" PRIu64 " so far", r->fd, r->stats.malformed);
	return PEV_EFORMAT;
}

static int clamp_int(uint64_t v)
{
	return v > INT_MAX ? INT_MAX : (int)v;
}

/* Pauses (true) or resumes a live overwrite ring's output; synthetic rings have no kernel. */
static int pause_output(struct pev_ring *r, bool pause)
{
	if (r->fd < 0)
		return 0;
	int rc = pev__sys_ioctl(r->fd, PEV_IOC_PAUSE_OUTPUT, pause ? 1 : 0);
	return rc < 0 ? pev_error_from_errno(-rc) : 0;
}

/* ---- forward rings ------------------------------------------------------------ */

/*
 * Checks a head against the tail: it may not be behind the records already
 * returned, nor more than the data area ahead of the tail, and it keeps the
 * 8-byte alignment of every record.
 */
static bool forward_head_ok(const struct pev_ring *r, uint64_t head, uint64_t from)
{
	uint64_t avail = head - r->tail;

	return avail <= r->data_size && avail >= from - r->tail && !(avail & 7) && !(r->tail & 7);
}

static int forward_begin(struct pev_ring *r)
{
	uint64_t head = pev__ring_load(&r->page->data_head);
	uint64_t from = r->in_batch ? r->pos : r->tail;

	if (!forward_head_ok(r, head, from))
		return malformed(r);
	if (!r->in_batch)
		r->pos = r->tail;
	r->head = head;
	r->in_batch = true;
	r->stats.batches++;
	return clamp_int(head - r->pos);
}

static int forward_next(struct pev_ring *r, struct pev_ring_record *rec)
{
	uint64_t avail = r->head - r->pos;

	if (!avail)
		return 0;
	if (avail < sizeof(struct pev_event_header))
		return malformed(r);
	uint64_t size = header_size_at(r, r->pos & r->mask);
	if (bad_size(size) || size > avail)
		return malformed(r);
	fill_record(r, r->pos, (size_t)size, rec);
	r->pos += size;
	return 1;
}

static void forward_publish(struct pev_ring *r)
{
	if (r->tail != r->pos) {
		r->tail = r->pos;
		pev__ring_store(&r->page->data_tail, r->tail);
	}
}

static int forward_skip(struct pev_ring *r)
{
	uint64_t head = pev__ring_load(&r->page->data_head);
	uint64_t from = r->in_batch ? r->pos : r->tail;
	uint64_t dropped = head - from;

	/* A head that cannot be right drops at most what the data area holds. */
	r->stats.skipped += dropped <= r->data_size ? dropped : r->data_size;
	r->in_batch = false;
	r->pos = head;
	r->tail = head;
	pev__ring_store(&r->page->data_tail, head);
	return 0;
}

/* ---- overwrite rings ---------------------------------------------------------- */

/*
 * The kernel writes a backward ring downwards: data_head decreases by each
 * record's size and the record lies at [head, old head). So from head
 * upwards lie the records newest first; those written since the previous
 * batch fill [head, prev) exactly. When more than the data area was written
 * since, the area holds the newest data_size bytes [head, head + size): the
 * records from head are whole until the one that crosses head + size, whose
 * end the newest records overwrote.
 */
static int overwrite_window(const struct pev_ring *r, uint64_t head, uint64_t *window, bool *wrapped)
{
	uint64_t written = r->prev - head;

	if (head & 7 || r->prev & 7)
		return PEV_EFORMAT;
	*wrapped = written > r->data_size;
	*window = *wrapped ? r->data_size : written;
	return 0;
}

static int overwrite_begin(struct pev_ring *r)
{
	uint64_t head, window;
	bool wrapped;
	int rc;

	if (r->in_batch)
		return clamp_int(r->window - r->pos);
	if ((rc = pause_output(r, true)) < 0)
		return rc;
	head = pev__ring_load(&r->page->data_head);
	if (overwrite_window(r, head, &window, &wrapped) < 0) {
		pause_output(r, false);
		return malformed(r);
	}
	if (wrapped)
		r->stats.overwritten += r->prev - head - r->data_size;
	r->paused = r->fd >= 0;
	r->head = head;
	r->window = window;
	r->window_wrapped = wrapped;
	r->pos = 0;
	r->in_batch = true;
	r->stats.batches++;
	return clamp_int(window);
}

static int overwrite_next(struct pev_ring *r, struct pev_ring_record *rec)
{
	uint64_t left = r->window - r->pos;
	uint64_t at = r->head + r->pos;

	if (!left)
		return 0;
	if (left < sizeof(struct pev_event_header)) {
		if (!r->window_wrapped)
			return malformed(r);
		goto partial;
	}
	uint64_t size = header_size_at(r, at & r->mask);
	if (bad_size(size))
		return malformed(r);
	if (size > left) {
		if (!r->window_wrapped)
			return malformed(r);
		goto partial;
	}
	fill_record(r, at, (size_t)size, rec);
	r->pos += size;
	return 1;

partial:
	/* The oldest record of a wrapped window: its end was overwritten. */
	r->stats.partial++;
	r->pos = r->window;
	return 0;
}

static int overwrite_end(struct pev_ring *r)
{
	int rc = 0;

	if (r->in_batch) {
		r->stats.skipped += r->window - r->pos;
		r->prev = r->head;
		r->in_batch = false;
	}
	if (r->paused) {
		r->paused = false;
		rc = pause_output(r, false);
	}
	return rc;
}

static int overwrite_skip(struct pev_ring *r)
{
	if (!r->in_batch) {
		uint64_t head = pev__ring_load(&r->page->data_head);
		uint64_t written = r->prev - head;
		r->stats.skipped += written <= r->data_size ? written : r->data_size;
		r->prev = head;
	}
	return overwrite_end(r);
}

/* ---- the API ------------------------------------------------------------------ */

PEV_API int pev_ring_begin(struct pev_ring *r)
{
	if (!r)
		return pev__bad_arg(NULL, "pev_ring_begin", "r", "NULL");
	return r->overwrite ? overwrite_begin(r) : forward_begin(r);
}

PEV_API int pev_ring_next(struct pev_ring *r, struct pev_ring_record *rec)
{
	static const char fn[] = "pev_ring_next";

	if (!r || !rec)
		return pev__bad_arg(NULL, fn, r ? "rec" : "r", "NULL");
	if (!r->in_batch)
		return pev__bad_arg(NULL, fn, "r", "no batch begun: call pev_ring_begin() first");
	return r->overwrite ? overwrite_next(r, rec) : forward_next(r, rec);
}

PEV_API int pev_ring_consume(struct pev_ring *r)
{
	if (!r)
		return pev__bad_arg(NULL, "pev_ring_consume", "r", "NULL");
	if (!r->overwrite && r->in_batch)
		forward_publish(r);
	return 0;
}

PEV_API int pev_ring_end(struct pev_ring *r)
{
	if (!r)
		return pev__bad_arg(NULL, "pev_ring_end", "r", "NULL");
	if (r->overwrite)
		return overwrite_end(r);
	if (r->in_batch) {
		forward_publish(r);
		r->in_batch = false;
	}
	return 0;
}

PEV_API int pev_ring_skip(struct pev_ring *r)
{
	if (!r)
		return pev__bad_arg(NULL, "pev_ring_skip", "r", "NULL");
	return r->overwrite ? overwrite_skip(r) : forward_skip(r);
}

PEV_API int pev_ring_pending(const struct pev_ring *r)
{
	if (!r)
		return pev__bad_arg(NULL, "pev_ring_pending", "r", "NULL");
	uint64_t head = pev__ring_load(&r->page->data_head);
	if (r->overwrite) {
		uint64_t window;
		bool wrapped;
		if (overwrite_window(r, head, &window, &wrapped) < 0)
			return PEV_EFORMAT;
		return clamp_int(window);
	}
	uint64_t from = r->in_batch ? r->pos : r->tail;
	if (!forward_head_ok(r, head, from))
		return PEV_EFORMAT;
	return clamp_int(head - from);
}

PEV_API int pev_ring_stats(const struct pev_ring *r, struct pev_ring_stats *out)
{
	static const char fn[] = "pev_ring_stats";

	if (!r || !out)
		return pev__bad_arg(NULL, fn, r ? "out" : "r", "NULL");
	if (out->sz < sizeof(out->sz))
		return pev__bad_arg(NULL, fn, "out", "out->sz is %zu: initialize it with "
				    "PEV_RING_STATS_INIT", out->sz);
	size_t n = out->sz < sizeof(*out) ? out->sz : sizeof(*out);
	struct pev_ring_stats s = r->stats;
	s.sz = n;
	memcpy(out, &s, n);
	return 0;
}

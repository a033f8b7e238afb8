/* SPDX-License-Identifier: MIT */
/*
 * ring_aux.c - reading the AUX area: raw PMU trace bytes (no records) with
 * their own head and tail in the control page. A writable area is a forward
 * ring of bytes: the PMU writes after aux_tail and the reader gives bytes back
 * by storing aux_tail. A read-only one is in snapshot mode: the PMU writes
 * over old data, and the reader takes the newest bytes ending at aux_head.
 */
#include "perfev/ring.h"
#include "sample/ring_internal.h"
#include "core/error_internal.h"

PEV_API size_t pev_ring_aux_size(const struct pev_ring *r)
{
	return r ? r->aux_size : 0;
}

PEV_API int pev_ring_aux_begin(struct pev_ring *r, struct pev_ring_aux *out)
{
	uint64_t head, avail, start;

	static const char fn[] = "pev_ring_aux_begin";

	if (!r || !out)
		return pev__bad_arg(NULL, fn, r ? "out" : "r", "NULL");
	if (!r->aux_size)
		return pev__bad_arg(NULL, fn, "r", "the ring has no AUX area: open it with "
				    "pev_ring_opts.aux_pages");
	head = pev__ring_load(&r->page->aux_head);
	avail = head - r->aux_tail;
	if (r->aux_snapshot) {
		/* What was written since the last read, as far as the area still holds it. */
		if (avail > r->aux_size)
			avail = r->aux_size;
	} else if (avail > r->aux_size) {
		r->stats.malformed++;
		return PEV_EFORMAT;
	}
	start = head - avail;

	uint64_t off = start & r->aux_mask;
	size_t first = avail <= r->aux_size - off ? (size_t)avail : (size_t)(r->aux_size - off);
	out->data[0] = r->aux + off;
	out->size[0] = first;
	out->data[1] = r->aux;
	out->size[1] = (size_t)avail - first;
	out->offset = start;
	out->head = head;
	out->snapshot = r->aux_snapshot;
	r->aux_head = head;
	r->aux_shown = avail;
	r->aux_in_read = true;
	return (int)avail; /* at most aux_size, below 1 GiB */
}

PEV_API int pev_ring_aux_end(struct pev_ring *r, size_t consumed)
{
	static const char fn[] = "pev_ring_aux_end";

	if (!r)
		return pev__bad_arg(NULL, fn, "r", "NULL");
	if (!r->aux_size || !r->aux_in_read)
		return pev__bad_arg(NULL, fn, "r", "no AUX read begun: call pev_ring_aux_begin() "
				    "first");
	if (r->aux_snapshot) {
		r->stats.aux_bytes += r->aux_shown;
		r->aux_tail = r->aux_head;
	} else {
		if (consumed > r->aux_shown)
			return pev__bad_arg(NULL, fn, "consumed", "%zu bytes of the %zu shown", consumed,
					    (size_t)r->aux_shown);
		r->stats.aux_bytes += consumed;
		r->aux_tail = r->aux_head - r->aux_shown + consumed;
		pev__ring_store(&r->page->aux_tail, r->aux_tail);
	}
	r->aux_in_read = false;
	return 0;
}

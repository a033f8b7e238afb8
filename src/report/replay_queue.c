/* SPDX-License-Identifier: MIT */
/*
 * replay_queue.c - records held back until they can be handed out in time
 * order. perf writes the records of each CPU's ring as it drains them, so
 * the file is ordered only within a round: after a FINISHED_ROUND marker no
 * record is older than what preceded the round before it. The replay pushes
 * every record, and at each marker releases those up to the newest time
 * seen at the previous marker; at the end of the file it releases all.
 * A round of --call-graph dwarf samples (8 KiB of stack each) can hold tens
 * of megabytes: from a file, big records are not copied but read again
 * when their turn comes (the page cache still holds them).
 */
#include <stdlib.h>
#include <string.h>

#include "report/replay_internal.h"

int pev__rq_push(struct pev__rq *q, const void *bytes, size_t len, uint64_t time,
		 uint64_t file_offset, const struct pev_perfdata_event *event, bool hold)
{
	size_t need = hold ? (len + 7) & ~(size_t)7 : 0;

	if (q->used + need > q->cap) {
		size_t cap = q->cap ? q->cap : 256 * 1024;
		while (cap < q->used + need)
			cap *= 2;
		void *b = realloc(q->buf, cap);
		if (!b)
			return PEV_ENOMEM;
		q->buf = b;
		free(q->spare);
		q->spare = NULL;
		q->cap = cap;
	}
	if (q->nr == q->cap_ents) {
		size_t cap = q->cap_ents ? q->cap_ents * 2 : 4096;
		void *e = realloc(q->ents, cap * sizeof(*q->ents));
		if (!e)
			return PEV_ENOMEM;
		q->ents = e;
		q->cap_ents = cap;
	}
	if (hold)
		memcpy((unsigned char *)q->buf + q->used, bytes, len);
	q->ents[q->nr++] = (struct pev__rq_entry){
		.time = time,
		.seq = q->seq++,
		.off = hold ? q->used : PEV__RQ_NOT_HELD,
		.len = len,
		.file_offset = file_offset,
		.event = event,
	};
	q->used += need;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct pev__rq_entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Drops the entries handed out and moves the bytes of the rest to the front. */
static int compact(struct pev__rq *q)
{
	size_t left = q->nr - q->next, bytes = 0;

	if (q->next == 0)
		return 0;
	for (size_t i = q->next; i < q->nr; i++)
		if (q->ents[i].off != PEV__RQ_NOT_HELD)
			bytes += (q->ents[i].len + 7) & ~(size_t)7;
	if (left && bytes) {
		/* Copy into the spare buffer and swap: no fresh pages to fault in each round. */
		uint64_t *nb = q->spare ? q->spare : malloc(q->cap);
		size_t at = 0;
		if (!nb)
			return PEV_ENOMEM;
		for (size_t i = q->next; i < q->nr; i++) {
			struct pev__rq_entry *e = &q->ents[i];
			if (e->off == PEV__RQ_NOT_HELD)
				continue;
			memcpy((unsigned char *)nb + at, (unsigned char *)q->buf + e->off, e->len);
			e->off = at;
			at += (e->len + 7) & ~(size_t)7;
		}
		q->spare = q->buf;
		q->buf = nb;
	}
	memmove(q->ents, q->ents + q->next, left * sizeof(*q->ents));
	q->nr = left;
	q->used = bytes;
	q->next = 0;
	q->ready = 0;
	return 0;
}

int pev__rq_release(struct pev__rq *q, uint64_t limit)
{
	int rc = compact(q);
	size_t i;

	if (rc)
		return rc;
	/* One CPU's records (or several already merged) come in order: sort only when not. */
	for (i = 1; i < q->nr && cmp_entry(&q->ents[i - 1], &q->ents[i]) < 0; i++)
		;
	if (i < q->nr)
		qsort(q->ents, q->nr, sizeof(*q->ents), cmp_entry);
	for (i = q->next; i < q->nr && q->ents[i].time <= limit; i++)
		;
	q->ready = i;
	return 0;
}

const struct pev__rq_entry *pev__rq_pop(struct pev__rq *q, const void **bytes)
{
	const struct pev__rq_entry *e;

	if (q->next >= q->ready)
		return NULL;
	e = &q->ents[q->next++];
	*bytes = e->off == PEV__RQ_NOT_HELD ? NULL : (const unsigned char *)q->buf + e->off;
	return e;
}

void pev__rq_free(struct pev__rq *q)
{
	free(q->buf);
	free(q->spare);
	free(q->ents);
	memset(q, 0, sizeof(*q));
}

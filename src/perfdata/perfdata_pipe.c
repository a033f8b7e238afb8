/* SPDX-License-Identifier: MIT */
/*
 * perfdata_pipe.c - pipe mode's leading records. A pipe-mode stream has no
 * attr section and no features: perf sends HEADER_ATTR, HEADER_FEATURE,
 * EVENT_UPDATE, tracing data and the like as records before the kernel's.
 * The open call reads them (up to the first kernel record, which it reads
 * too) so that the events and features are known before the caller's
 * first record; pev_perfdata_next() then hands those records out again,
 * in order, before reading on.
 */
#include "perfdata/perfdata_internal.h"

#include <stdlib.h>
#include <string.h>

/* Leading records kept for replay, at most (a stream that never gets to its samples). */
#define PD_PREAMBLE_MAX ((size_t)64 << 20)

static int queue(struct pev_perfdata *pd, const struct pev_perfdata_record *rec,
		 struct pev_error *err)
{
	if (pd->nr_replay == pd->cap_replay) {
		size_t cap = pd->cap_replay ? 2 * pd->cap_replay : 32;
		struct pd_replay *n = realloc(pd->replay, cap * sizeof(*n));
		if (!n)
			return pev__pd_fail(pd, err, PEV_ENOMEM, "data",
					    "out of memory for the leading records");
		pd->replay = n;
		pd->cap_replay = cap;
	}
	unsigned char *bytes = pev__pd_alloc(pd, rec->size);
	if (!bytes)
		return pev__pd_fail(pd, err, PEV_ENOMEM, "data",
				    "out of memory for the leading records");
	memcpy(bytes, rec->header, rec->size);
	struct pd_replay *q = &pd->replay[pd->nr_replay++];
	q->rec = *rec;
	q->rec.header = (const struct pev_event_header *)bytes;
	q->bytes = bytes;
	return 0;
}

int pev__pd_pipe_preamble(struct pev_perfdata *pd, struct pev_error *err)
{
	struct pev_perfdata_record rec;
	size_t kept = 0;

	for (;;) {
		int rc = pev__pd_record_read(pd, &rec, err);
		if (rc <= 0)
			return rc;
		rc = queue(pd, &rec, err);
		if (rc)
			return rc;
		kept += rec.size;
		if (rec.type < PEV_RECORD_USER_TYPE_START || kept > PD_PREAMBLE_MAX)
			return 0;
	}
}

int pev__pd_pipe_replay(struct pev_perfdata *pd, struct pev_perfdata_record *rec)
{
	if (pd->replay_at >= pd->nr_replay)
		return 0;
	*rec = pd->replay[pd->replay_at++].rec;
	return 1;
}

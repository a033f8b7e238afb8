/* SPDX-License-Identifier: MIT */
/*
 * read_periods.c - the periods of a sample that read counters
 * (PERF_SAMPLE_READ, a ':S' group's leader), one per counter it read, as
 * perf report and perf script weigh them: how much that counter (found by
 * its id) grew since the id's read before. As perf 7.2 does, an inherited
 * event whose samples carry their thread (perf 7's ':S' groups; kernels
 * read such counters in samples since 6.12) is read per thread: each
 * thread's counter grows on its own. A count smaller than the read before
 * it is bad input (a counter never goes back): perf takes the difference
 * modulo 2^64; here that read counts for nothing and is counted (the next
 * read grows from it, as perf's does). pev_profile_load and perfev script
 * both take their periods from here.
 *
 * Also the map of (key, sub) to a value the file's other per-thread state
 * uses (pev__last_read).
 */
#include <stdlib.h>

#include "core/error_internal.h"
#include "perfdata/perfdata_internal.h"
#include "report/replay_internal.h"
#include "report/report_internal.h"

static size_t key_slot(uint64_t id, uint64_t sub, size_t cap)
{
	return (size_t)pev__hash_u64(pev__hash_u64(PEV__HASH_SEED, id), sub) & (cap - 1);
}

void pev__last_reads_free(struct pev__last_reads *l)
{
	free(l->id);
	free(l->sub);
	free(l->value);
	*l = (struct pev__last_reads){0};
}

uint64_t *pev__last_read(struct pev__last_reads *l, uint64_t id, uint64_t sub)
{
	if (2 * (l->len + 1) > l->cap) {
		struct pev__last_reads n = {.cap = l->cap ? 2 * l->cap : 64, .len = l->len};
		n.id = calloc(n.cap, sizeof(*n.id));
		n.sub = calloc(n.cap, sizeof(*n.sub));
		n.value = calloc(n.cap, sizeof(*n.value));
		if (!n.id || !n.sub || !n.value) {
			pev__last_reads_free(&n);
			return NULL;
		}
		for (size_t i = 0; i < l->cap; i++) {
			if (!l->id[i])
				continue;
			size_t j = key_slot(l->id[i], l->sub[i], n.cap);
			while (n.id[j])
				j = (j + 1) & (n.cap - 1);
			n.id[j] = l->id[i];
			n.sub[j] = l->sub[i];
			n.value[j] = l->value[i];
		}
		pev__last_reads_free(l);
		*l = n;
	}
	size_t j = key_slot(id, sub, l->cap);
	while (l->id[j] && (l->id[j] != id || l->sub[j] != sub))
		j = (j + 1) & (l->cap - 1);
	if (!l->id[j]) {
		l->id[j] = id;
		l->sub[j] = sub;
		l->len++;
	}
	return &l->value[j];
}

struct pev_read_periods {
	struct pev_perfdata *pd;
	struct pev__last_reads last;
	uint64_t reads, backwards;
};

int pev_read_periods_new(struct pev_perfdata *pd, struct pev_read_periods **out)
{
	if (!out)
		return pev__bad_arg(NULL, "pev_read_periods_new", "out", "NULL");
	*out = NULL;
	if (!pd)
		return pev__bad_arg(NULL, "pev_read_periods_new", "pd", "NULL");
	if (!(*out = calloc(1, sizeof(**out))))
		return PEV_ENOMEM;
	(*out)->pd = pd;
	return 0;
}

void pev_read_periods_free(struct pev_read_periods *rp)
{
	if (!rp)
		return;
	pev__last_reads_free(&rp->last);
	free(rp);
}

/*
 * Whether the counts an event's samples read are per thread, as perf 7.2
 * takes them: an inherited event (each thread its own counter) whose
 * samples carry their thread.
 */
static bool per_thread_reads(const struct pev_perfdata_event *ev)
{
	return (ev->attr.flags & PEV_ATTR_INHERIT) && (ev->attr.sample_type & PEV_SAMPLE_TID);
}

int pev_read_periods_take(struct pev_read_periods *rp, const struct pev_replay_sample *s,
                          uint64_t i, struct pev_read_period *out)
{
	const struct pev_read_data *rd;
	const struct pev_perfdata_event *ev;
	struct pev_read_value v;
	uint64_t *last, before, sub;

	if (!rp || !s || !out)
		return pev__bad_arg(NULL, "pev_read_periods_take", !rp ? "rp" : !s ? "s" : "out",
				    "NULL");
	if (!s->event || !s->record)
		return pev__bad_arg(NULL, "pev_read_periods_take", "s", "a sample without %s: "
				    "give one pev_replay_next() returned",
				    !s->event ? "its event" : "its record");
	rd = &s->record->sample.read;
	if (!(s->record->sample.fields & PEV_SAMPLE_READ) || i >= rd->nr ||
	    pev_read_data_value(rd, i, &v) || !v.id ||
	    !(ev = pev_perfdata_event_by_id(rp->pd, v.id)))
		return 0;
	sub = per_thread_reads(s->event) ? (uint64_t)(uint32_t)s->tid + 1 : 0;
	if (!(last = pev__last_read(&rp->last, v.id, sub)))
		return PEV_ENOMEM;
	before = *last;
	*last = v.value;
	rp->reads++;
	if (v.value < before) {
		rp->backwards++;
		return 0;
	}
	out->event = ev;
	out->period = v.value - before;
	return out->period != 0;
}

uint64_t pev_read_periods_backwards(const struct pev_read_periods *rp, uint64_t *reads)
{
	if (reads)
		*reads = rp ? rp->reads : 0;
	return rp ? rp->backwards : 0;
}

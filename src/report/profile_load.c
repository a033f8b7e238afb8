/* SPDX-License-Identifier: MIT */
/*
 * profile_load.c - a whole perf.data file into a struct pev_profile: one
 * profile event per file event, every sample replayed and symbolized, the
 * lost count and the recording's times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "report/replay_internal.h"

/* Profile event index per file event index (-1: not added yet). */
struct event_map {
	int *idx;
	size_t nr;
};

/* Adds file event ev to the profile under a name no other event has. */
static int add_event(struct pev_profile *p, const struct pev_perfdata_event *ev)
{
	struct pev_profile_event pe = PEV_PROFILE_EVENT_INIT;
	char base[256], name[300];
	int rc;

	pev_replay_event_name(ev, base, sizeof(base));
	pe.name = name;
	pe.unit = pev_replay_event_unit(ev);
	if (!(ev->attr.flags & PEV_ATTR_FREQ))
		pe.period = ev->attr.sample_period;
	snprintf(name, sizeof(name), "%s", base);
	for (int n = 2; (rc = pev_profile_add_event(p, &pe)) == PEV_EBADARG && n < 65536; n++)
		snprintf(name, sizeof(name), "%s#%d", base, n);
	return rc;
}

static int event_index(struct pev_profile *p, struct event_map *m,
		       const struct pev_perfdata_event *ev)
{
	size_t i = (size_t)ev->index;

	if (i >= m->nr) {
		size_t n = i + 8;
		int *idx = realloc(m->idx, n * sizeof(*idx));
		if (!idx)
			return PEV_ENOMEM;
		for (size_t k = m->nr; k < n; k++)
			idx[k] = -1;
		m->idx = idx;
		m->nr = n;
	}
	if (m->idx[i] < 0)
		m->idx[i] = add_event(p, ev);
	return m->idx[i];
}

static int load(struct pev_perfdata *pd, struct pev_replay *r, struct pev_profile *p,
		struct event_map *m, struct pev_error *err)
{
	struct pev_replay_sample s;
	uint64_t first = 0, last = 0;
	int rc;

	/*
	 * Every event of the file, in file order, even those without samples,
	 * but for the dummy events perf adds for side-band records (-a, ...).
	 */
	for (int i = 0; i < pev_perfdata_nr_events(pd); i++) {
		const struct pev_perfdata_event *ev = pev_perfdata_event(pd, i);
		if (ev->attr.type == PEV_TYPE_SOFTWARE && ev->attr.config == PEV_SW_DUMMY)
			continue;
		if ((rc = event_index(p, m, ev)) < 0)
			return pev__error_start(err, rc, 0, NULL, NULL, true);
	}
	while ((rc = pev_replay_next(r, &s, err)) == 1) {
		struct pev_profile_sample ps = PEV_PROFILE_SAMPLE_INIT;
		int e = event_index(p, m, s.event);

		if (e < 0)
			return pev__error_start(err, e, 0, NULL, NULL, true);
		ps.event = (unsigned)e;
		ps.period = s.period;
		ps.comm = s.comm;
		ps.pid = s.pid;
		ps.tid = s.tid;
		ps.cpu = s.cpu;
		ps.time = s.time;
		ps.frames = s.frames;
		ps.nr_frames = s.nr_frames > 65535 ? 65535 : s.nr_frames;
		if ((rc = pev_profile_add_sample(p, &ps)))
			return pev__error_start(err, rc, 0, NULL, NULL, true);
		if (s.time && (!first || s.time < first))
			first = s.time;
		if (s.time > last)
			last = s.time;
	}
	if (rc < 0)
		return rc;
	pev_profile_set_lost(p, pev_replay_lost(r));
	if (last > first)
		pev_profile_set_time(p, 0, last - first);
	return 0;
}

int pev_profile_load(struct pev_perfdata *pd, const struct pev_replay_opts *opts,
		     struct pev_profile **out, struct pev_error *err)
{
	struct event_map m = {0};
	struct pev_replay *r = NULL;
	struct pev_profile *p = NULL;
	int rc;

	if (!out)
		return pev__bad_arg(err, "pev_profile_load", "out", "is NULL");
	*out = NULL;
	if ((rc = pev_replay_open(pd, opts, &r, err)))
		return rc;
	if ((rc = pev_profile_new(&p))) {
		pev_replay_close(r);
		return pev__error_start(err, rc, 0, NULL, NULL, true);
	}
	rc = load(pd, r, p, &m, err);
	pev_replay_close(r);
	free(m.idx);
	if (rc) {
		pev_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

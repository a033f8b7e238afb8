/* SPDX-License-Identifier: MIT */
/*
 * session.c - opening a sampling session (events over a target, one ring
 * per CPU or thread, the other descriptors redirected into it), its ids,
 * enabling and disabling it, polling, and what it holds. Reading and the
 * merge are in session_read.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "core/log_internal.h"
#include "core/util.h"
#include "perfev/parse.h"
#include "perfev/session.h"
#include "sample/session_internal.h"

#define DEFAULT_DATA_PAGES 64
#define DEFAULT_FREQ 1000

/*
 * The rate of events given none, by the event string or the options:
 * DEFAULT_FREQ, or kernel.perf_event_max_sample_rate where that limit is
 * lower (the kernel lowers it when sampling interrupts take too long), so
 * that a rate the caller never asked for does not make the open fail.
 */
static uint64_t default_freq(void)
{
	long long max;

	if (pev__read_long("/proc/sys/kernel/perf_event_max_sample_rate", &max) == 0 && max > 0 &&
	    max < DEFAULT_FREQ) {
		pev__log(PEV_LOG_INFO,
			 "sampling at %lld Hz (kernel.perf_event_max_sample_rate), not at the "
			 "default %d Hz",
			 max, DEFAULT_FREQ);
		return (uint64_t)max;
	}
	return DEFAULT_FREQ;
}

/* ---- closing -------------------------------------------------------------------- */

PEV_API void pev_session_close(struct pev_session *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nr_rings; i++) {
		pev_ring_close(s->rings[i].ring);
		free(s->rings[i].refs);
	}
	/* Members before their leaders, as they were opened in reverse. */
	for (int i = s->nr_events - 1; i >= 0; i--)
		pev_counter_close(s->ev[i].c);
	free(s->rings);
	free(s->ring_ptrs);
	free(s->ready);
	free(s->heap);
	free(s->ids);
	free(s->ev);
	free(s);
}

/* ---- opening the events ------------------------------------------------------------ */

static int no_memory(struct pev_error *err, const char *what)
{
	pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, NULL, true);
	pev__error_msg(err, "out of memory for the session's %s", what);
	return PEV_ENOMEM;
}

/* The options a session opens an event with: identifier, time and trailer forced. */
static int session_event_opts(const struct pev_session_opts *so, const struct pev_event *ev,
			      const struct pev_opts *in, bool first, struct pev_opts *o,
			      struct pev_error *err)
{
	char name[96];
	int r;

	if (!in || in->sz == 0) {
		pev_event_describe(ev, name, sizeof(name));
		pev__error_start(err, PEV_EBADARG, 0, NULL, name, true);
		pev__error_field(err, "opts.sz");
		pev__error_msg(err, "pev_session_open: the options of an event have no size");
		pev__error_hint(err, "initialize each event's options with PEV_OPTS_INIT");
		return PEV_EBADARG;
	}
	/* A smaller struct from an older caller reads as zero past its end. */
	if ((r = pev__opts_copy_sized(o, sizeof(*o), in, "pev_session_open", "PEV_OPTS_INIT",
				      err)) < 0)
		return r;
	if (o->write_backward) {
		pev_event_describe(ev, name, sizeof(name));
		pev__error_start(err, PEV_EBADARG, 0, NULL, name, true);
		pev__error_field(err, "write_backward");
		pev__error_msg(err, "pev_session_open: a session reads forward rings, and this "
				    "event writes backward");
		pev__error_hint(err, "clear write_backward, or read an overwrite ring with "
				     "pev_ring_open() yourself");
		return PEV_EBADARG;
	}
	/* Records carry read_format's layout (PEV_SAMPLE_READ): as asked, like perf record. */
	o->open_flags |= PEV_OPEN_EXACT_READ_FORMAT;
	o->sample_type |= so->sample_type | PEV_SAMPLE_IDENTIFIER | PEV_SAMPLE_TIME;
	o->sample_id_all = true;
	if (!o->enable_on_exec)
		o->disabled = true;
	if (first && so->track) {
		o->mmap = true; /* mmap2 only changes the format of MMAP records */
		o->mmap2 = true;
		o->comm = true;
		o->comm_exec = true;
		o->task = true;
	}
	return 0;
}

static int open_one(struct pev_session *s, const struct pev_session_opts *so,
		    const struct pev_event *ev, const struct pev_opts *in,
		    const struct pev_target *t, struct pev_counter *group, struct pev_error *err)
{
	struct pev_opts o;
	int i = s->nr_events;
	int r = session_event_opts(so, ev, in, i == 0, &o, err);

	if (r < 0)
		return r;
	if ((r = pev_counter_open(ev, &o, t, group, &s->ev[i].c, err)) < 0)
		return r;
	s->nr_events++;
	if ((r = pev_record_format_from_attr(pev_counter_attr(s->ev[i].c), &s->ev[i].fmt)) < 0) {
		pev__error_start(err, r, 0, NULL, pev_counter_name(s->ev[i].c), true);
		pev__error_msg(err, "pev_session_open: the records of %s cannot be decoded",
			       pev_counter_name(s->ev[i].c));
		return r;
	}
	s->ev[i].st.sz = sizeof(s->ev[i].st);
	return 0;
}

/* Opens the events of the parsed list, groups as groups. */
static int open_parsed(struct pev_session *s, const struct pev_session_opts *so,
		       const struct pev_event_list *list, const struct pev_target *t,
		       struct pev_error *err)
{
	int n = pev_event_list_count(list);
	int base = s->nr_events;
	uint64_t dflt = 0; /* read once, when an event needs it */

	for (int k = 0; k < n; k++) {
		const struct pev_event_spec *sp = pev_event_list_at(list, k);
		struct pev_counter *group = NULL;
		struct pev_opts o = sp->opts;
		bool member = sp->group >= 0 && !sp->group_leader;

		if (member) {
			for (int j = k - 1; j >= 0 && !group; j--) {
				const struct pev_event_spec *lj = pev_event_list_at(list, j);
				if (lj->group == sp->group && lj->group_leader)
					group = s->ev[base + j].c;
			}
		}
		if (!o.sample_period && !o.sample_freq && !(member && sp->leader_sampling)) {
			o.sample_period = so->sample_period;
			o.sample_freq = so->sample_freq;
			if (!o.sample_period && !o.sample_freq)
				o.sample_freq = dflt ? dflt : (dflt = default_freq());
		}
		int r = open_one(s, so, &sp->ev, &o, t, group, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- rings ------------------------------------------------------------------------- */

/* The ring descriptor i of c writes into: its CPU's, or its thread's for per-thread descriptors. */
static int ring_for(const struct pev_session *s, int cpu, pid_t tid)
{
	for (int i = 0; i < s->nr_rings; i++) {
		const struct pev__sring *sr = &s->rings[i];
		if (cpu >= 0 ? sr->cpu == cpu : sr->cpu < 0 && sr->tid == tid)
			return i;
	}
	return -1;
}

static int add_ring(struct pev_session *s, const struct pev_counter *c, int fd_index,
		    size_t pages, struct pev_error *err)
{
	struct pev__sring *sr = &s->rings[s->nr_rings];
	int r;

	memset(sr, 0, sizeof(*sr));
	if ((r = pev_ring_open(c, fd_index, pages, &sr->ring, err)) < 0)
		return r;
	s->nr_rings++;
	sr->cpu = pev_counter_cpu(c, fd_index);
	sr->tid = sr->cpu >= 0 ? -1 : pev_counter_tid(c, fd_index);
	/* Every record has a header and an identifier: 16 bytes at least. */
	sr->cap = pev_ring_data_size(sr->ring) / 16;
	sr->refs = calloc(sr->cap, sizeof(*sr->refs));
	sr->st.sz = sizeof(sr->st);
	return sr->refs ? 0 : no_memory(err, "ring index");
}

static int id_failed(struct pev_error *err, const struct pev_counter *c, int r)
{
	const char *name = pev_counter_name(c);

	pev__error_start(err, r, -r, "ioctl(ID)", name, false);
	pev__error_msg(err, "cannot read the id of %s: %s", name, pev_strerror(r));
	return r;
}

static int map_rings(struct pev_session *s, size_t pages, struct pev_error *err)
{
	int fds = 0;

	for (int e = 0; e < s->nr_events; e++)
		fds += pev_counter_nr_fds(s->ev[e].c);
	s->rings = calloc((size_t)fds, sizeof(*s->rings));
	s->ids = calloc((size_t)fds, sizeof(*s->ids));
	if (!s->rings || !s->ids)
		return no_memory(err, "rings");
	for (int e = 0; e < s->nr_events; e++) {
		const struct pev_counter *c = s->ev[e].c;
		for (int i = 0; i < pev_counter_nr_fds(c); i++) {
			int cpu = pev_counter_cpu(c, i), at, r;
			pid_t tid = pev_counter_tid(c, i);
			uint64_t id;

			if ((at = ring_for(s, cpu, tid)) < 0)
				r = add_ring(s, c, i, pages, err);
			else
				r = pev_ring_redirect(s->rings[at].ring, c, i, err);
			if (r < 0)
				return r;
			if ((r = pev_counter_id(c, i, &id)) < 0)
				return id_failed(err, c, r);
			s->ids[s->nr_ids].id = id;
			s->ids[s->nr_ids++].event = e;
		}
	}
	s->ring_ptrs = calloc((size_t)s->nr_rings, sizeof(*s->ring_ptrs));
	s->ready = calloc((size_t)s->nr_rings, sizeof(*s->ready));
	s->heap = calloc((size_t)s->nr_rings, sizeof(*s->heap));
	if (!s->ring_ptrs || !s->ready || !s->heap)
		return no_memory(err, "poll set");
	for (int i = 0; i < s->nr_rings; i++)
		s->ring_ptrs[i] = s->rings[i].ring;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct pev__sid *)a)->id, y = ((const struct pev__sid *)b)->id;

	return x < y ? -1 : x > y;
}

int pev__session_event_of(const struct pev_session *s, uint64_t id)
{
	size_t lo = 0, hi = s->nr_ids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->ids[mid].id < id)
			lo = mid + 1;
		else if (s->ids[mid].id > id)
			hi = mid;
		else
			return s->ids[mid].event;
	}
	return -1;
}

/* ---- pev_session_open ------------------------------------------------------------------ */

/* Where the options of an element start: the element grows only with them. */
#define EVENT_OPTS_AT offsetof(struct pev_session_event, opts)

/* Event i of the caller's array, whose elements are o->event_sz bytes apart. */
static const struct pev_session_event *event_at(const struct pev_session_opts *o, int i)
{
	return (const struct pev_session_event *)((const char *)o->events +
						  (size_t)i * o->event_sz);
}

/*
 * Settles o->event_sz, the caller's element size (0: the one a caller built
 * before the field compiled, from the first element's opts.sz), and checks
 * that every element's options fit in it.
 */
static int check_event_sz(struct pev_session_opts *o, struct pev_error *err)
{
	static const char func[] = "pev_session_open";
	size_t first;

	memcpy(&first, (const char *)o->events + EVENT_OPTS_AT, sizeof(first));
	if (o->event_sz == 0)
		o->event_sz = EVENT_OPTS_AT + first;
	if (o->event_sz < EVENT_OPTS_AT + sizeof(size_t) ||
	    o->event_sz % _Alignof(struct pev_session_event))
		return pev__bad_arg(err, func, "event_sz",
				    "is %zu, not the size of a struct pev_session_event; "
				    "initialize the options with PEV_SESSION_OPTS_INIT",
				    o->event_sz);
	for (int i = 0; i < o->nr_events; i++) {
		size_t sz;

		memcpy(&sz, (const char *)event_at(o, i) + EVENT_OPTS_AT, sizeof(sz));
		if (sz > o->event_sz - EVENT_OPTS_AT)
			return pev__bad_arg(err, func, "events",
					    "events[%d].opts.sz is %zu, more than the %zu bytes "
					    "event_sz %zu leaves for it",
					    i, sz, o->event_sz - EVENT_OPTS_AT, o->event_sz);
	}
	return 0;
}

/* Copies the caller's options into o (see pev__opts_copy_sized) and checks them. */
static int check_opts(const struct pev_session_opts *in, struct pev_session_opts *o,
		      struct pev_session **out, struct pev_error *err)
{
	static const char func[] = "pev_session_open";
	int r;

	if (!out)
		return pev__bad_arg(err, func, "out", "must not be NULL");
	*out = NULL;
	if (!in)
		return pev__bad_arg(err, func, "opts", "must not be NULL");
	if ((r = pev__opts_copy_sized(o, sizeof(*o), in, func, "PEV_SESSION_OPTS_INIT", err)))
		return r;
	if (o->nr_events < 0 || (o->nr_events > 0 && !o->events))
		return pev__bad_arg(err, func, "events", "%d events at %p", o->nr_events,
				    (const void *)o->events);
	if (o->nr_events > 0 && (r = check_event_sz(o, err)) < 0)
		return r;
	if (o->nr_events == 0 && !o->event_text)
		return pev__bad_arg(err, func, "events",
				    "no event: set events and nr_events, or event_text");
	if (o->sample_period && o->sample_freq)
		return pev__bad_arg(err, func, "sample_freq",
				    "set sample_period or sample_freq, not both");
	if (o->data_pages & (o->data_pages - 1))
		return pev__bad_arg(err, func, "data_pages", "is %zu, not a power of two",
				    o->data_pages);
	return 0;
}

PEV_API int pev_session_open(const struct pev_session_opts *user_opts, struct pev_session **out,
			     struct pev_error *err)
{
	struct pev_session_opts copy;
	const struct pev_session_opts *opts = &copy;
	struct pev_event_list *list = NULL;
	struct pev_session *s;
	struct pev_target t;
	int n, r;

	pev__error_clear(err);
	if ((r = check_opts(user_opts, &copy, out, err)) < 0)
		return r;
	t = opts->target ? *opts->target : pev_target_self();
	if (opts->event_text && (r = pev_event_parse(opts->event_text, opts->parse_opts, &list,
						     err)) < 0)
		return r;
	n = opts->nr_events + (list ? pev_event_list_count(list) : 0);
	if (n < 1) {
		pev_event_list_free(list);
		return pev__bad_arg(err, "pev_session_open", "event_text", "'%s' names no event",
				    opts->event_text);
	}
	s = calloc(1, sizeof(*s));
	if (!s || !(s->ev = calloc((size_t)n, sizeof(*s->ev)))) {
		free(s);
		pev_event_list_free(list);
		return no_memory(err, "events");
	}
	s->give_ring = -1;
	s->st.sz = sizeof(s->st);
	for (int i = 0; i < opts->nr_events && r == 0; i++) {
		const struct pev_session_event *e = event_at(opts, i);
		r = open_one(s, opts, &e->ev, &e->opts, &t, NULL, err);
	}
	if (r == 0 && list)
		r = open_parsed(s, opts, list, &t, err);
	pev_event_list_free(list);
	if (r == 0)
		r = map_rings(s, opts->data_pages ? opts->data_pages : DEFAULT_DATA_PAGES, err);
	if (r < 0) {
		pev_session_close(s);
		return r;
	}
	qsort(s->ids, s->nr_ids, sizeof(*s->ids), cmp_id);
	*out = s;
	return 0;
}

int pev__session_synthetic(const struct pev_record_format *fmts, const uint64_t *ids,
			   int nr_events, struct pev_ring *const *rings, const int *cpus,
			   int nr_rings, struct pev_session **out)
{
	struct pev_session *s;

	static const char fn[] = "pev__session_synthetic";

	if (!out || !fmts || !ids || !rings || !cpus)
		return pev__bad_arg(NULL, fn, !out ? "out" : !fmts ? "fmts" : !ids ? "ids"
					      : !rings ? "rings" : "cpus", "NULL");
	if (nr_events < 1 || nr_rings < 1)
		return pev__bad_arg(NULL, fn, nr_events < 1 ? "nr_events" : "nr_rings",
				    "%d events and %d rings: one of each at least", nr_events,
				    nr_rings);
	*out = NULL;
	if (!(s = calloc(1, sizeof(*s))))
		return PEV_ENOMEM;
	s->ev = calloc((size_t)nr_events, sizeof(*s->ev));
	s->ids = calloc((size_t)nr_events, sizeof(*s->ids));
	s->rings = calloc((size_t)nr_rings, sizeof(*s->rings));
	s->ring_ptrs = calloc((size_t)nr_rings, sizeof(*s->ring_ptrs));
	s->ready = calloc((size_t)nr_rings, sizeof(*s->ready));
	s->heap = calloc((size_t)nr_rings, sizeof(*s->heap));
	for (int j = 0; s->rings && j < nr_rings; j++) {
		struct pev__sring *sr = &s->rings[j];
		sr->cap = pev_ring_data_size(rings[j]) / 16;
		if (!(sr->refs = calloc(sr->cap ? sr->cap : 1, sizeof(*sr->refs))))
			break;
	}
	if (!s->ev || !s->ids || !s->rings || !s->ring_ptrs || !s->ready || !s->heap ||
	    !s->rings[nr_rings - 1].refs) {
		for (int j = 0; s->rings && j < nr_rings; j++)
			free(s->rings[j].refs);
		pev_session_close(s); /* no ring and no counter taken yet */
		return PEV_ENOMEM;
	}
	s->give_ring = -1;
	s->st.sz = sizeof(s->st);
	s->nr_events = nr_events;
	for (int i = 0; i < nr_events; i++) {
		s->ev[i].fmt = fmts[i];
		s->ev[i].st.sz = sizeof(s->ev[i].st);
		s->ids[i].id = ids[i];
		s->ids[i].event = i;
	}
	s->nr_ids = (size_t)nr_events;
	qsort(s->ids, s->nr_ids, sizeof(*s->ids), cmp_id);
	s->nr_rings = nr_rings;
	for (int j = 0; j < nr_rings; j++) {
		s->rings[j].ring = s->ring_ptrs[j] = rings[j];
		s->rings[j].cpu = cpus[j];
		s->rings[j].tid = -1;
		s->rings[j].st.sz = sizeof(s->rings[j].st);
	}
	*out = s;
	return 0;
}

/* ---- control ---------------------------------------------------------------------------- */

/*
 * Enables or disables one event. A group goes in one go through its leader
 * (a member enabled on its own into a running group may wait for the next
 * context switch to be scheduled); members are left to it.
 */
static int control(struct pev_counter *c, bool on)
{
	struct pev_counter *leader = pev_counter_leader(c);

	if (leader == c)
		return on ? pev_counter_enable_group(c) : pev_counter_disable_group(c);
	if (leader)
		return 0;
	return on ? pev_counter_enable(c) : pev_counter_disable(c);
}

PEV_API int pev_session_enable(struct pev_session *s)
{
	if (!s)
		return pev__bad_arg(NULL, "pev_session_enable", "s", "NULL");
	s->stopped = false;
	for (int i = 0; i < s->nr_events; i++) {
		int r = control(s->ev[i].c, true);
		if (r < 0)
			return r;
	}
	return 0;
}

PEV_API int pev_session_disable(struct pev_session *s)
{
	int rc = 0;

	if (!s)
		return pev__bad_arg(NULL, "pev_session_disable", "s", "NULL");
	for (int i = 0; i < s->nr_events; i++) {
		int r = control(s->ev[i].c, false);
		if (r < 0 && rc == 0)
			rc = r;
	}
	if (rc == 0)
		s->stopped = true;
	return rc;
}

PEV_API int pev_session_poll(struct pev_session *s, int timeout_ms)
{
	bool held = false;
	int r;

	if (!s)
		return pev__bad_arg(NULL, "pev_session_poll", "s", "NULL");
	for (int i = 0; i < s->nr_rings && !held; i++)
		held = s->rings[i].count > 0;
	r = pev_ring_poll(s->ring_ptrs, (size_t)s->nr_rings, held ? 0 : timeout_ms, s->ready);
	if (r < 0)
		return r;
	for (int i = 0; i < s->nr_rings; i++)
		if (s->ready[i] & PEV_RING_HUP)
			s->rings[i].hup = true;
	return r;
}

PEV_API bool pev_session_finished(const struct pev_session *s)
{
	if (!s || !s->nr_rings)
		return false;
	for (int i = 0; i < s->nr_rings; i++)
		if (!s->rings[i].hup)
			return false;
	return true;
}

/* ---- accessors ----------------------------------------------------------------------------- */

PEV_API int pev_session_nr_events(const struct pev_session *s)
{
	return s ? s->nr_events : pev__bad_arg(NULL, "pev_session_nr_events", "s", "NULL");
}

PEV_API struct pev_counter *pev_session_counter(const struct pev_session *s, int i)
{
	return s && i >= 0 && i < s->nr_events ? s->ev[i].c : NULL;
}

PEV_API int pev_session_nr_rings(const struct pev_session *s)
{
	return s ? s->nr_rings : pev__bad_arg(NULL, "pev_session_nr_rings", "s", "NULL");
}

PEV_API int pev_session_ring_fd(const struct pev_session *s, int i)
{
	return s && i >= 0 && i < s->nr_rings
		   ? pev_ring_fd(s->rings[i].ring)
		   : pev__bad_index("pev_session_ring_fd", s, "s", i, s ? s->nr_rings : 0);
}

PEV_API int pev_session_ring_cpu(const struct pev_session *s, int i)
{
	return s && i >= 0 && i < s->nr_rings
		   ? s->rings[i].cpu
		   : pev__bad_index("pev_session_ring_cpu", s, "s", i, s ? s->nr_rings : 0);
}

PEV_API pid_t pev_session_ring_tid(const struct pev_session *s, int i)
{
	return s && i >= 0 && i < s->nr_rings
		   ? s->rings[i].tid
		   : pev__bad_index("pev_session_ring_tid", s, "s", i, s ? s->nr_rings : 0);
}

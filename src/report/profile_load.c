/* SPDX-License-Identifier: MIT */
/*
 * profile_load.c - a whole perf.data file into a struct pev_profile: one
 * profile event per file event, its groups (GROUP_DESC), every sample
 * replayed and symbolized, the lost count and the recording's times.
 *
 * A sample that reads counters (PERF_SAMPLE_READ, a ':S' group's leader)
 * counts for each event it read, as perf report counts it: weighted by how
 * much that event's count grew since its previous read (read_periods.c,
 * per thread as perf 7.2), left out when it did not grow. A count smaller
 * than the read before it is bad input: perf takes the difference modulo
 * 2^64, an overhead of trillions of percent; here the sample is left out
 * for that event, counted, and said once (a warning through the log). So
 * is a period that would take its event's total past 2^64 - 1: every share
 * of a total then stays at or below 100%.
 *
 * Off-CPU time (`perfev record --off-cpu`, or perf's `-e cs -c 1 -g
 * --switch-events`): a context-switches sample taken at every switch-out,
 * in a file with SWITCH records, becomes a sample of "offcpu-time" weighted
 * by the nanoseconds from that switch-out to the thread's next switch-in.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "core/log_internal.h"
#include "perfdata/perfdata_internal.h"
#include "report/profile_timeline.h"
#include "report/replay_internal.h"
#include "report/report_internal.h"

/* Profile event index per file event index (-1: not added yet). */
struct event_map {
	int *idx;
	size_t nr;
};

/* Samples, or parts of them, left out as bad input; said once at the end. */
struct left_out {
	uint64_t samples;   /* samples (or read values) with a period */
	uint64_t overflow;  /* of them, with a period past what their event's total can add */
};

/* Whether period fits in event e's total (which then stays at most 2^64 - 1). */
static bool period_fits(const struct pev_profile *p, int e, uint64_t period, struct left_out *lo)
{
	lo->samples++;
	if (period <= UINT64_MAX - p->events[e].total)
		return true;
	lo->overflow++;
	return false;
}

/*
 * Threads switched out at an off-CPU sample, waiting for their switch-in;
 * and since when each thread's on-CPU time is accounted for.
 */
struct offcpu {
	struct pev_profile *p;
	bool file_switches; /* some event of the file records context switches */
	struct pev__last_reads index; /* tid + 1 -> index + 1 in wait[] */
	struct thread_time {
		uint64_t time; /* of the switch-out */
		uint32_t slot; /* the stored sample it weighs */
		bool waiting;
		bool on;         /* on a CPU since on_since (a switch-in or an on-CPU sample) */
		bool on_sampled; /* on_slot holds its last on-CPU sample since the switch-in */
		uint32_t on_slot;
		uint64_t on_since;
		/* The timeline (PEV_REPLAY_TIMELINE): the off-CPU sample waiting for
		 * its switch-in, and the CPU time since the thread's last sample. */
		size_t tl_wait;
		bool cpu_known;     /* a switch-in was seen: cpu_since and ran are right */
		uint64_t cpu_since; /* on a CPU since then (its last sample or switch-in) */
		uint64_t ran;       /* CPU time before cpu_since, since its last sample */
	} *wait;
	size_t nr, cap;
};

/* Whether ev is a context-switches event sampling every switch, in a file that has switch records. */
static bool is_offcpu(const struct offcpu *oc, const struct pev_perfdata_event *ev)
{
	return oc->file_switches && ev->attr.type == PEV_TYPE_SOFTWARE &&
	       ev->attr.config == PEV_SW_CONTEXT_SWITCHES && !(ev->attr.flags & PEV_ATTR_FREQ) &&
	       ev->attr.sample_period == 1;
}

/* tid's entry in the index (its wait's index + 1), or NULL: none yet (add false), no memory. */
static uint64_t *offcpu_wait(struct offcpu *oc, int32_t tid, bool add)
{
	uint64_t *at;

	if (!add && !oc->index.cap)
		return NULL;
	if (!(at = pev__last_read(&oc->index, (uint64_t)(uint32_t)tid + 1, 0)))
		return NULL;
	if (!*at) {
		if (!add || pev__grow((void **)&oc->wait, &oc->cap, oc->nr + 1, sizeof(*oc->wait)))
			return NULL;
		memset(&oc->wait[oc->nr], 0, sizeof(*oc->wait));
		*at = ++oc->nr;
	}
	return at;
}

/*
 * A switch-in ends the thread's wait: its off-CPU sample gets the time
 * waited; its time on the CPU counts from there. A switch-out ends that
 * time: what is left of it since the last on-CPU sample is that sample's.
 */
static int offcpu_switch(void *ctx, int32_t tid, uint64_t time, bool out)
{
	struct offcpu *oc = ctx;
	uint64_t *at;

	if (!(at = offcpu_wait(oc, tid, !out)))
		return out ? 0 : PEV_ENOMEM;
	struct thread_time *t = &oc->wait[*at - 1];
	if (out && t->on && t->on_sampled && time >= t->on_since)
		pev__profile_add_wall(oc->p, t->on_slot, time - t->on_since);
	if (out && t->on && t->cpu_known && time >= t->cpu_since)
		t->ran += time - t->cpu_since;
	if (!out) {
		t->cpu_known = true;
		t->cpu_since = time;
	}
	t->on = !out;
	t->on_sampled = false;
	t->on_since = time;
	if (out)
		return 0;
	if (t->waiting && time >= t->time) {
		pev__profile_add_period(oc->p, t->slot, time - t->time);
		if (oc->p->timeline && t->tl_wait < oc->p->nr_tl)
			oc->p->tl[t->tl_wait].weight = time - t->time;
	}
	t->waiting = false;
	return 0;
}

/*
 * Stores ps; *t: its thread's entry, or NULL where the sample has no time
 * or is an idle thread's (tid 0, shared by the idle threads of all CPUs).
 */
static int store_for_thread(struct offcpu *oc, struct pev_profile_sample *ps, uint32_t *slot,
			    struct thread_time **t)
{
	uint64_t *at;
	int rc;

	*t = NULL;
	if ((rc = pev__profile_add_sample_slot(oc->p, ps, slot)))
		return rc;
	if (!ps->time || ps->tid <= 0)
		return 0;
	if (!(at = offcpu_wait(oc, ps->tid, true)))
		return PEV_ENOMEM;
	*t = &oc->wait[*at - 1];
	return 0;
}

/*
 * Adds an on-CPU sample in nanoseconds (cpu-clock, task-clock) of a file
 * with switch records. Its period is the time between two timer ticks; a
 * tick that comes late (a virtual CPU the host did not run: steal time,
 * an emulator) is one sample for the ticks it missed, as the kernel forwards
 * the timer past them. The wall-clock event weighs the sample instead by
 * the time since the thread's last on-CPU sample or switch-in, where the
 * thread stayed on the CPU since (else, and for idle threads: the period),
 * and the last sample before a switch-out by the time until it too.
 */
static int add_oncpu_sample(struct offcpu *oc, struct pev_profile_sample *ps)
{
	struct thread_time *t;
	uint32_t slot;
	int rc = store_for_thread(oc, ps, &slot, &t);

	if (rc || !t)
		return rc;
	pev__profile_add_wall(oc->p, slot,
			      t->on && ps->time >= t->on_since ? ps->time - t->on_since
							       : ps->period);
	t->on = true;
	t->on_sampled = true;
	t->on_slot = slot;
	t->on_since = ps->time;
	return 0;
}

/* Adds an off-CPU sample (weight 0 until its thread's switch-in). */
static int add_offcpu_sample(struct offcpu *oc, struct pev_profile_sample *ps)
{
	struct thread_time *t;
	uint32_t slot;
	int rc;

	ps->period = 0;
	if ((rc = store_for_thread(oc, ps, &slot, &t)) || !t)
		return rc;
	t->time = ps->time;
	t->slot = slot;
	t->tl_wait = oc->p->nr_tl - 1; /* the sample's entry, when the timeline is kept */
	t->waiting = true;
	return 0;
}

/*
 * The timeline: the CPU time thread tid used since its previous sample,
 * for its sample at time; UINT64_MAX before the file showed the
 * thread come onto a CPU. The next sample counts from this one.
 */
static uint64_t thread_cpu(struct offcpu *oc, int32_t tid, uint64_t time)
{
	uint64_t *at, cpu;

	if (tid <= 0 || !time || !(at = offcpu_wait(oc, tid, false)))
		return UINT64_MAX;
	struct thread_time *t = &oc->wait[*at - 1];
	if (!t->cpu_known)
		return UINT64_MAX;
	cpu = t->ran + (t->on && time >= t->cpu_since ? time - t->cpu_since : 0);
	t->ran = 0;
	if (time > t->cpu_since)
		t->cpu_since = time;
	return cpu;
}

/* Adds file event ev to the profile under a name no other event has. */
static int add_event(struct pev_profile *p, const struct offcpu *oc,
		     const struct pev_perfdata_event *ev)
{
	struct pev_profile_event pe = PEV_PROFILE_EVENT_INIT;
	char base[256], name[300];
	int rc;

	pev_replay_event_name(ev, base, sizeof(base));
	pe.name = name;
	pe.unit = pev_replay_event_unit(ev);
	if (!(ev->attr.flags & PEV_ATTR_FREQ))
		pe.period = ev->attr.sample_period;
	if (is_offcpu(oc, ev)) {
		snprintf(base, sizeof(base), "offcpu-time");
		pe.unit = PEV_PROFILE_UNIT_NANOSECONDS;
		pe.period = 0;
		pe.flags = PEV_PROFILE_EVENT_OFFCPU;
		pe.value_type = "offcpu";
	}
	snprintf(name, sizeof(name), "%s", base);
	for (int n = 2; (rc = pev_profile_add_event(p, &pe)) == PEV_EBADARG && n < 65536; n++)
		snprintf(name, sizeof(name), "%s#%d", base, n);
	return rc;
}

static int event_index(struct pev_profile *p, struct event_map *m, const struct offcpu *oc,
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
		m->idx[i] = add_event(p, oc, ev);
	return m->idx[i];
}

/*
 * The file's groups (GROUP_DESC) into the profile. A group whose events did
 * not become consecutive profile events (a dummy event among them) stays
 * out.
 */
static int add_groups(struct pev_perfdata *pd, struct pev_profile *p, const struct event_map *m)
{
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);

	for (uint32_t g = 0; g < f->nr_groups; g++) {
		const struct pev_perfdata_group *grp = &f->groups[g];
		uint32_t n = grp->nr_members;
		bool consecutive = n >= 2 && grp->leader < m->nr && n <= m->nr - grp->leader;

		for (uint32_t i = 1; consecutive && i < n; i++)
			consecutive = m->idx[grp->leader] >= 0 &&
				      m->idx[grp->leader + i] == m->idx[grp->leader] + (int)i;
		if (!consecutive)
			continue;
		const char *name = strcmp(grp->name, "{anon_group}") == 0 ? NULL : grp->name;
		int rc = pev_profile_set_group(p, (unsigned)m->idx[grp->leader], n, name);
		if (rc == PEV_ENOMEM)
			return rc;
	}
	return 0;
}

/*
 * An off-CPU event right after an on-CPU one in nanoseconds (cpu-clock,
 * task-clock), neither in a group, joins it in one: the table then shows
 * a column each. 0 or PEV_ENOMEM.
 */
static int group_offcpu(struct pev_profile *p)
{
	for (unsigned e = 1; e < p->nr_events; e++) {
		const struct pev__event *on = &p->events[e - 1], *off = &p->events[e];
		if (!(off->flags & PEV_PROFILE_EVENT_OFFCPU) || (on->flags & PEV_PROFILE_EVENT_OFFCPU) ||
		    on->unit != PEV_PROFILE_UNIT_NANOSECONDS)
			continue;
		int rc = pev_profile_set_group(p, e - 1, 2, NULL);
		if (rc == PEV_ENOMEM)
			return rc;
	}
	return 0;
}

/*
 * Adds a sample that read counters (PERF_SAMPLE_READ) once for each event
 * it read whose count grew, weighted by the growth (pev_read_periods_take).
 * 0 or a negative code.
 */
static int add_read_sample(struct pev_profile *p, struct event_map *m, const struct offcpu *oc,
			   struct pev_read_periods *reads, struct left_out *lo,
			   struct pev_profile_sample *ps, const struct pev_replay_sample *s)
{
	for (uint64_t i = 0; i < s->record->sample.read.nr; i++) {
		struct pev_read_period rp;
		int e, rc;

		if ((rc = pev_read_periods_take(reads, s, i, &rp)) <= 0) {
			if (rc < 0)
				return rc;
			continue;
		}
		if ((e = event_index(p, m, oc, rp.event)) < 0)
			return e;
		if (!period_fits(p, e, rp.period, lo))
			continue;
		ps->event = (unsigned)e;
		ps->period = rp.period;
		if ((rc = pev_profile_add_sample(p, ps)))
			return rc;
	}
	return 0;
}

/* What load() left out, said once through the log (the CLI's warnings). */
static void say_left_out(const struct pev_perfdata *pd, const struct pev_read_periods *reads,
			 const struct left_out *lo)
{
	uint64_t nr, backwards = pev_read_periods_backwards(reads, &nr);

	if (backwards)
		pev__log(PEV_LOG_WARN,
			 "%s: %" PRIu64 " of %" PRIu64 " counter values read in samples "
			 "(PERF_SAMPLE_READ) are smaller than the same counter's read before; "
			 "a counter never goes back: left out of the profile",
			 pd->name, backwards, nr);
	if (lo->overflow)
		pev__log(PEV_LOG_WARN,
			 "%s: %" PRIu64 " of %" PRIu64 " samples have a period that would take "
			 "their event's total past 2^64 - 1: left out of the profile",
			 pd->name, lo->overflow, lo->samples);
}

/* ---- pprof's mappings ------------------------------------------------------------ */

#define KERNEL_DSO "[kernel.kallsyms]"

/*
 * A file mapping or build id the replay met, into the profile in the
 * numbering of the DSO's frames: offsets in the file for user files and the
 * vDSO, run-time addresses for the kernel (the symbolizer's choice).
 */
static int add_map(void *ctx, const struct pev__replay_map *r)
{
	struct pev_profile_mapping m = PEV_PROFILE_MAPPING_INIT;
	bool kernel = strncmp(r->path, KERNEL_DSO, strlen(KERNEL_DSO)) == 0;
	int rc;

	if (!kernel && !(r->path[0] == '/' && r->path[1] != '/') && strcmp(r->path, "[vdso]") != 0)
		return 0;
	m.dso = kernel ? KERNEL_DSO : r->path;
	m.build_id = r->build_id;
	m.build_id_size = r->build_id_size;
	if (r->len && kernel && r->pid == -1) {
		m.start = r->start;
		m.limit = r->start + r->len;
		m.file_offset = r->pgoff;
	} else if (r->len && !kernel) {
		m.start = m.file_offset = r->pgoff;
		m.limit = r->pgoff + r->len;
	}
	rc = pev_profile_add_mapping(ctx, &m);
	return rc == PEV_ENOMEM ? rc : 0;
}

/* The build ids of the file's header (the BUILD_ID feature), the host's. */
static int add_header_build_ids(struct pev_perfdata *pd, struct pev_profile *p)
{
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);

	for (size_t i = 0; i < f->nr_build_ids; i++) {
		const struct pev_perfdata_build_id *b = &f->build_ids[i];
		struct pev__replay_map m = {.path = b->filename, .pid = -1,
					    .build_id = b->build_id, .build_id_size = b->size};
		int rc;
		if (b->filename && b->pid == -1 && b->size && (rc = add_map(p, &m)) < 0)
			return rc;
	}
	return 0;
}

/* Samples per program (pev__replay_program's pointers). */
struct prog_count {
	const char *path;
	uint64_t samples;
};

struct programs {
	struct prog_count *v;
	size_t n, cap;
	size_t last; /* index of the last one counted: samples come in runs */
};

static int count_program(struct programs *pc, const char *path)
{
	size_t i;

	if (!path)
		return 0;
	if (pc->last < pc->n && pc->v[pc->last].path == path) {
		pc->v[pc->last].samples++;
		return 0;
	}
	for (i = 0; i < pc->n && pc->v[i].path != path; i++)
		;
	if (i == pc->n) {
		if (pev__grow((void **)&pc->v, &pc->cap, pc->n + 1, sizeof(*pc->v)))
			return PEV_ENOMEM;
		pc->v[pc->n++] = (struct prog_count){path, 0};
	}
	pc->v[i].samples++;
	pc->last = i;
	return 0;
}

/* The program with the most samples becomes the profile's main mapping. */
static int set_main(struct pev_profile *p, const struct programs *pc)
{
	struct pev_profile_mapping m = PEV_PROFILE_MAPPING_INIT;
	size_t best = 0;

	if (!pc->n)
		return 0;
	for (size_t i = 1; i < pc->n; i++)
		if (pc->v[i].samples > pc->v[best].samples)
			best = i;
	m.dso = pc->v[best].path;
	m.flags = PEV_PROFILE_MAPPING_MAIN;
	return pev_profile_add_mapping(p, &m);
}

/*
 * Threads named as perf report names them: a sample taken before its
 * thread had a name (":TID") by the name the thread's first COMM gave it
 * (perf overrides a thread's default name), and each thread, for the pid
 * and tid keys, by its last name (a process by its first thread's).
 */
static int name_threads(struct pev_profile *p, const struct pev_replay *r)
{
	char unnamed[24];

	for (uint32_t i = 0; i < p->nr_samples; i++) {
		struct pev__sample *s = &p->samples[i];
		const char *comm = pev__strtab_get(&p->str, s->comm), *first;
		int32_t ids[2] = {s->tid, s->pid};

		if (comm && comm[0] == ':' && (first = pev__replay_first_name(r, s->tid))) {
			snprintf(unnamed, sizeof(unnamed), ":%" PRId32, s->tid);
			if (strcmp(comm, unnamed) == 0 &&
			    pev__strtab_intern_str(&p->str, first, &s->comm))
				return PEV_ENOMEM;
		}
		for (int k = 0; k < 2; k++) {
			const char *name = pev__replay_thread_name(r, ids[k]);
			if (name && !pev__profile_thread_name(p, ids[k]) &&
			    pev__profile_name_thread(p, ids[k], name))
				return PEV_ENOMEM;
		}
	}
	return 0;
}

static int load(struct pev_perfdata *pd, struct pev_replay *r, struct pev_profile *p,
		struct event_map *m, struct offcpu *oc, const struct pev_replay_opts *o,
		struct pev_error *err)
{
	struct pev_read_periods *reads = NULL;
	struct left_out lo = {0};
	struct programs progs = {0};
	struct pev_replay_sample s;
	uint64_t first = 0, last = 0;
	bool adding = false; /* rc is a failure to add a sample, not the replay's */
	int rc;

	/*
	 * Every event of the file, in file order, even those without samples,
	 * but for the dummy events perf adds for side-band records (-a, ...).
	 */
	for (int i = 0; i < pev_perfdata_nr_events(pd); i++) {
		const struct pev_perfdata_event *ev = pev_perfdata_event(pd, i);
		if (ev->attr.type == PEV_TYPE_SOFTWARE && ev->attr.config == PEV_SW_DUMMY)
			continue;
		if ((rc = event_index(p, m, oc, ev)) < 0)
			return pev__error_start(err, rc, 0, NULL, NULL, true);
	}
	if ((rc = add_groups(pd, p, m)) < 0 || (rc = group_offcpu(p)) < 0 ||
	    (rc = add_header_build_ids(pd, p)) < 0)
		return pev__error_start(err, rc, 0, NULL, NULL, true);
	if ((rc = pev_read_periods_new(pd, &reads)) < 0)
		return pev__error_start(err, rc, 0, NULL, NULL, true);
	pev__replay_on_map(r, add_map, p);
	while ((rc = pev_replay_next(r, &s, err)) == 1) {
		struct pev_profile_sample ps = PEV_PROFILE_SAMPLE_INIT;
		int e = event_index(p, m, oc, s.event);

		if (e < 0) {
			rc = e;
			adding = true;
			break;
		}
		ps.event = (unsigned)e;
		ps.period = s.period;
		ps.comm = s.comm;
		ps.pid = s.pid;
		ps.tid = s.tid;
		ps.cpu = s.cpu;
		ps.time = s.time;
		ps.frames = s.frames;
		ps.nr_frames = s.nr_frames > 65535 ? 65535 : s.nr_frames;
		if (o->sample_text)
			ps.trace = o->sample_text(o->sample_text_ctx, &s);
		ps.cgroup = pev_replay_sample_cgroup(r, &s);
		ps.cgroup_id = ps.cgroup ? s.record->sample.cgroup : 0;
		size_t entries = p->nr_tl;
		uint64_t cpu = p->timeline && oc->file_switches &&
					       !(s.record->sample.fields & PEV_SAMPLE_READ)
				       ? thread_cpu(oc, s.tid, s.time)
				       : UINT64_MAX;
		if (s.record->sample.fields & PEV_SAMPLE_READ)
			rc = add_read_sample(p, m, oc, reads, &lo, &ps, &s);
		else if (is_offcpu(oc, s.event))
			rc = add_offcpu_sample(oc, &ps);
		else if (oc->file_switches && p->events[e].unit == PEV_PROFILE_UNIT_NANOSECONDS &&
			 period_fits(p, e, ps.period, &lo))
			rc = add_oncpu_sample(oc, &ps);
		else if (period_fits(p, e, ps.period, &lo))
			rc = pev_profile_add_sample(p, &ps);
		else
			rc = 0;
		if (!rc && p->nr_tl == entries + 1)
			p->tl[entries].cpu = cpu == UINT64_MAX       ? PEV__TL_CPU_UNKNOWN
					     : cpu > PEV__TL_CPU_MAX    ? PEV__TL_CPU_MAX
									: (uint32_t)cpu;
		if (!rc)
			rc = count_program(&progs, pev__replay_program(r, s.pid));
		if ((adding = rc != 0))
			break;
		if (s.time && (!first || s.time < first))
			first = s.time;
		if (s.time > last)
			last = s.time;
	}
	if (rc == 0 && ((rc = set_main(p, &progs)) < 0 || (rc = name_threads(p, r)) < 0))
		adding = true;
	free(progs.v);
	if (rc < 0) { /* the replay's own failures (rc < 0 ending the loop) come with err filled */
		pev_read_periods_free(reads);
		return adding ? pev__error_start(err, rc, 0, NULL, NULL, true) : rc;
	}
	pev_profile_set_lost(p, pev_replay_lost(r));
	say_left_out(pd, reads, &lo);
	pev_read_periods_free(reads);
	if (last > first) {
		/* CLOCK_DATA (perf record -k) ties the event clock to the wall clock. */
		const struct pev_perfdata_features *f = pev_perfdata_features(pd);
		uint64_t start = 0;
		if (f->clock_data_tod_ns && f->clock_data_clock_ns &&
		    f->clock_data_tod_ns + first > f->clock_data_clock_ns)
			start = f->clock_data_tod_ns + first - f->clock_data_clock_ns;
		pev_profile_set_time(p, start, last - first);
	}
	return 0;
}

int pev_profile_load(struct pev_perfdata *pd, const struct pev_replay_opts *opts,
		     struct pev_profile **out, struct pev_error *err)
{
	struct pev_replay_opts o = PEV_REPLAY_OPTS_INIT;
	struct event_map m = {0};
	struct offcpu oc = {0};
	struct pev_replay *r = NULL;
	struct pev_profile *p = NULL;
	int rc;

	pev__error_clear(err);
	if (!out)
		return pev__bad_arg(err, "pev_profile_load", "out", "is NULL");
	*out = NULL;
	if ((rc = pev_replay_open(pd, opts, &r, err)))
		return rc;
	/* pev_replay_open accepted opts: this copy cannot fail. */
	pev__opts_copy_sized(&o, sizeof(o), opts, "pev_profile_load", "PEV_REPLAY_OPTS_INIT", NULL);
	if ((rc = pev_profile_new(&p))) {
		pev_replay_close(r);
		return pev__error_start(err, rc, 0, NULL, NULL, true);
	}
	oc.p = p;
	for (int i = 0; i < pev_perfdata_nr_events(pd); i++)
		oc.file_switches |= (pev_perfdata_event(pd, i)->attr.flags & PEV_ATTR_CONTEXT_SWITCH) != 0;
	if (oc.file_switches)
		pev__replay_on_switch(r, offcpu_switch, &oc);
	struct pev__timeline tl = {.p = p};
	if (o.flags & PEV_REPLAY_TIMELINE) {
		pev_profile_keep_timeline(p); /* cannot fail on a new profile */
		pev__replay_on_record(r, pev__timeline_record, &tl);
		/*
		 * Room for every sample the data section can hold (a sample record takes
		 * more than 40 bytes), reserved at once: pages are touched only as entries
		 * fill them, and the array is never copied to grow. A pipe grows it.
		 */
		const struct pev_perfdata_layout *l = pev_perfdata_layout(pd);
		size_t most = l->data_size / 40 < (1u << 26) ? (size_t)(l->data_size / 40) : (1u << 26);
		if (most && pev__grow((void **)&p->tl, &p->cap_tl, most, sizeof(*p->tl)))
			rc = PEV_ENOMEM;
	}
	rc = rc ? pev__error_start(err, rc, 0, NULL, NULL, true) : load(pd, r, p, &m, &oc, &o, err);
	if (!rc && p->timeline &&
	    (rc = pev__timeline_finish(&tl, p->has_time ? p->min_time : 0,
				       p->has_time ? p->max_time : 0)))
		rc = pev__error_start(err, rc, 0, NULL, NULL, true);
	free(tl.throttles);
	pev_replay_close(r);
	free(m.idx);
	pev__last_reads_free(&oc.index);
	free(oc.wait);
	if (rc) {
		pev_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

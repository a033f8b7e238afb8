/* SPDX-License-Identifier: MIT */
/*
 * profile.c - the profile model: events, interned symbols and frames, and
 * samples stored flat, alike ones once with a count (see report_internal.h
 * for the layout).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "report/report_internal.h"

int pev_profile_new(struct pev_profile **out)
{
	struct pev_profile *p;

	if (!out)
		return pev__bad_arg(NULL, "pev_profile_new", "out", "NULL");
	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return PEV_ENOMEM;
	/* syms[0]: the symbol of samples that have no frame at all. */
	if (pev__grow((void **)&p->syms, &p->cap_syms, 1, sizeof(*p->syms))) {
		free(p);
		return PEV_ENOMEM;
	}
	memset(&p->syms[0], 0, sizeof(p->syms[0]));
	p->nr_syms = 1;
	p->nr_frames = 1; /* frame ids start at 1 */
	*out = p;
	return 0;
}

void pev_profile_free(struct pev_profile *p)
{
	if (!p)
		return;
	pev__strtab_free(&p->str);
	free(p->syms);
	pev__idset_free(&p->sym_set);
	free(p->frames);
	pev__idset_free(&p->frame_set);
	free(p->samples);
	pev__idset_free(&p->sample_set);
	free(p->stack);
	free(p->events);
	free(p->maps);
	pev__idset_free(&p->map_set);
	free(p->thread_names);
	free(p->tl);
	free(p->markers);
	free(p->cgroup_ids);
	free(p);
}

/* Index of the first entry of p->thread_names whose tid is not below tid. */
static uint32_t thread_name_at(const struct pev_profile *p, int32_t tid)
{
	uint32_t lo = 0, hi = p->nr_thread_names;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->thread_names[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int pev__profile_name_thread(struct pev_profile *p, int32_t tid, const char *comm)
{
	uint32_t at = thread_name_at(p, tid), id;

	if (pev__strtab_intern_str(&p->str, comm, &id))
		return PEV_ENOMEM;
	if (at < p->nr_thread_names && p->thread_names[at].tid == tid) {
		p->thread_names[at].comm = id;
		return 0;
	}
	if (pev__grow((void **)&p->thread_names, &p->cap_thread_names,
		      (size_t)p->nr_thread_names + 1, sizeof(*p->thread_names)))
		return PEV_ENOMEM;
	memmove(p->thread_names + at + 1, p->thread_names + at,
		(p->nr_thread_names - at) * sizeof(*p->thread_names));
	p->thread_names[at] = (struct pev__thread_name){tid, id};
	p->nr_thread_names++;
	return 0;
}

uint32_t pev__profile_thread_name(const struct pev_profile *p, int32_t tid)
{
	uint32_t at = thread_name_at(p, tid);

	return at < p->nr_thread_names && p->thread_names[at].tid == tid ?
		       p->thread_names[at].comm : 0;
}

int pev_profile_add_event(struct pev_profile *p, const struct pev_profile_event *ev)
{
	struct pev_profile_event e;
	struct pev__event *d;
	uint32_t name, vt;

	static const char fn[] = "pev_profile_add_event";
	int r;

	if (!p || !ev)
		return pev__bad_arg(NULL, fn, p ? "ev" : "p", "NULL");
	if ((r = pev__opts_copy_sized(&e, sizeof(e), ev, fn, "PEV_PROFILE_EVENT_INIT", NULL)) < 0)
		return r;
	if (!e.name || !e.name[0])
		return pev__bad_arg(NULL, fn, "ev", "the event has no name");
	if ((unsigned)e.unit > PEV_PROFILE_UNIT_BYTES)
		return pev__bad_arg(NULL, fn, "ev", "'%s' has unit %u, not a pev_profile_unit",
				    e.name, (unsigned)e.unit);
	if (p->nr_events >= PEV__PROFILE_MAX_EVENTS)
		return pev__bad_arg(NULL, fn, "ev", "'%s' would be event %u; a profile holds %u",
				    e.name, p->nr_events + 1, PEV__PROFILE_MAX_EVENTS);
	for (unsigned i = 0; i < p->nr_events; i++)
		if (strcmp(pev__event_name(p, i), e.name) == 0)
			return pev__bad_arg(NULL, fn, "ev", "'%s' is event %u already", e.name, i);
	if (pev__strtab_intern_str(&p->str, e.name, &name) ||
	    pev__strtab_intern_str(&p->str, e.value_type && e.value_type[0] ? e.value_type : NULL,
				   &vt) ||
	    pev__grow((void **)&p->events, &p->cap_events, p->nr_events + 1, sizeof(*p->events)))
		return PEV_ENOMEM;
	d = &p->events[p->nr_events];
	memset(d, 0, sizeof(*d));
	d->name = name;
	d->value_type = vt;
	d->unit = e.unit;
	d->period = e.period;
	d->flags = e.flags & PEV_PROFILE_EVENT_OFFCPU;
	d->leader = p->nr_events;
	d->nr_members = 1;
	return (int)p->nr_events++;
}

int pev_profile_set_group(struct pev_profile *p, unsigned leader, unsigned nr_members,
			  const char *name)
{
	static const char fn[] = "pev_profile_set_group";
	uint32_t id;

	if (!p)
		return pev__bad_arg(NULL, fn, "p", "NULL");
	if (nr_members < 2)
		return pev__bad_arg(NULL, fn, "nr_members", "%u: a group has 2 events or more",
				    nr_members);
	if (leader >= p->nr_events || nr_members > p->nr_events - leader)
		return pev__bad_arg(NULL, fn, "leader", "events %u to %u: the profile has %u",
				    leader, leader + nr_members - 1, p->nr_events);
	for (unsigned i = leader; i < leader + nr_members; i++)
		if (p->events[i].leader != i || p->events[i].nr_members != 1)
			return pev__bad_arg(NULL, fn, "leader", "event %u is in a group already", i);
	if (pev__strtab_intern_str(&p->str, name, &id))
		return PEV_ENOMEM;
	for (unsigned i = leader; i < leader + nr_members; i++)
		p->events[i].leader = leader;
	p->events[leader].nr_members = nr_members;
	p->events[leader].group_name = id;
	return 0;
}

/* ---- interning symbols and frames ------------------------------------------------------- */

static bool sym_eq(const void *owner, uint32_t id, const void *key)
{
	const struct pev_profile *p = owner;
	const struct pev__sym *a = &p->syms[id], *b = key;

	return a->name == b->name && a->dso == b->dso && a->kernel == b->kernel &&
	       a->inlined == b->inlined && a->address == b->address;
}

static int sym_intern(struct pev_profile *p, struct pev__sym *k, uint32_t *id)
{
	uint64_t h = pev__hash_u64(PEV__HASH_SEED, k->address);

	h = pev__hash_u64(h, (uint64_t)k->name << 32 | k->dso);
	h = pev__hash_u64(h, (uint64_t)k->inlined << 16 | k->kernel);
	k->hash = (uint32_t)h;
	if (k->name == 0 && k->dso == 0 && k->address == 0 && k->kernel == 0) {
		*id = PEV__SYM_NONE; /* the same as "no frame": an address 0 in nothing known */
		return 0;
	}
	*id = pev__idset_find(&p->sym_set, k->hash, sym_eq, p, k);
	if (*id)
		return 0;
	if (pev__grow((void **)&p->syms, &p->cap_syms, (size_t)p->nr_syms + 1, sizeof(*p->syms)) ||
	    pev__idset_add(&p->sym_set, k->hash, p->nr_syms))
		return -ENOMEM;
	p->syms[p->nr_syms] = *k;
	*id = p->nr_syms++;
	return 0;
}

static bool frame_eq(const void *owner, uint32_t id, const void *key)
{
	const struct pev_profile *p = owner;
	const struct pev__frame *a = &p->frames[id], *b = key;

	return a->address == b->address && a->sym == b->sym && a->gsym == b->gsym &&
	       a->esym == b->esym && a->offset == b->offset &&
	       a->file == b->file && a->line == b->line && a->flags == b->flags &&
	       a->dso_offset == b->dso_offset;
}

/*
 * Where f's function starts, as one number for every process: in its DSO's
 * file when the frame has the offset there (PEV_FRAME_DSO_OFFSET), else in
 * the address space (the kernel's, a JIT map's).
 */
static uint64_t function_start(const struct pev_profile_frame *f, size_t frame_sz)
{
	bool in_file = frame_sz >= offsetof(struct pev_profile_frame, dso_offset) +
					   sizeof(f->dso_offset) &&
		       (f->flags & PEV_FRAME_DSO_OFFSET);

	return (in_file ? f->dso_offset : f->address) - f->offset;
}

/*
 * Interns frame f; holder: the frame holding f's inlined code (the next
 * frame not inlined), or NULL.
 */
static int frame_intern(struct pev_profile *p, const struct pev_profile_frame *f,
			size_t frame_sz, const struct pev_profile_frame *holder, uint32_t *id)
{
	struct pev__sym sk = {0};
	struct pev__frame k = {0};
	uint64_t h;

	/* A caller's struct may be older (shorter) than ours: read what it has. */
	k.address = f->address;
	k.offset = f->offset;
	if (pev__strtab_intern_str(&p->str, f->symbol, &sk.name) ||
	    pev__strtab_intern_str(&p->str, f->dso, &sk.dso))
		return -ENOMEM;
	if (frame_sz >= offsetof(struct pev_profile_frame, line) + sizeof(f->line)) {
		if (pev__strtab_intern_str(&p->str, f->file, &k.file))
			return -ENOMEM;
		k.line = f->line;
	}
	if (frame_sz >= offsetof(struct pev_profile_frame, flags) + sizeof(f->flags))
		k.flags = f->flags & (PEV_FRAME_KERNEL | PEV_FRAME_INLINED | PEV_FRAME_LINK_REGISTER);
	if (frame_sz >= offsetof(struct pev_profile_frame, dso_offset) + sizeof(f->dso_offset) &&
	    (f->flags & PEV_FRAME_DSO_OFFSET)) {
		k.flags |= PEV_FRAME_DSO_OFFSET;
		k.dso_offset = f->dso_offset;
	}
	sk.kernel = (k.flags & PEV_FRAME_KERNEL) ? 1 : 0;
	sk.inlined = (k.flags & PEV_FRAME_INLINED) ? 1 : 0;
	/*
	 * An unresolved address is one symbol per spot of its file, whatever the
	 * process; a function is one symbol per start in its file (as perf keeps
	 * them: C++ overloads with one short name, a method JIT-compiled twice,
	 * are two entries). An inlined function has no start: its name is it.
	 */
	sk.address = (k.flags & PEV_FRAME_DSO_OFFSET) ? k.dso_offset : f->address;
	if (sk.name)
		sk.address = sk.inlined ? 0 : function_start(f, frame_sz);
	if (sym_intern(p, &sk, &k.sym))
		return -ENOMEM;
	/* The function as its debuginfo names it, where that differs: an "inlined" symbol of its own. */
	k.gsym = k.esym = k.sym;
	/* As perf: an inlined function named as the symbol holding it is that symbol. */
	if (sk.inlined && sk.name && holder && holder->symbol &&
	    strcmp(f->symbol, holder->symbol) == 0) {
		sk.inlined = 0;
		sk.address = function_start(holder, frame_sz);
		if (sym_intern(p, &sk, &k.gsym))
			return -ENOMEM;
		k.esym = k.gsym;
	} else if (sk.inlined && sk.name) {
		/*
		 * perf gives an inlined function the range of the function holding
		 * it, and two of one name are one entry where the ranges meet: an
		 * entry per holder (its start standing for its range).
		 */
		sk.address = holder ? function_start(holder, frame_sz) : 0;
		if (sym_intern(p, &sk, &k.esym))
			return -ENOMEM;
	}
	sk.inlined = (k.flags & PEV_FRAME_INLINED) ? 1 : 0;
	if (frame_sz >= offsetof(struct pev_profile_frame, debug_name) + sizeof(f->debug_name) &&
	    f->debug_name && sk.name && !sk.inlined &&
	    (!f->symbol || strcmp(f->debug_name, f->symbol) != 0)) {
		if (pev__strtab_intern_str(&p->str, f->debug_name, &sk.name))
			return -ENOMEM;
		sk.inlined = 1;
		sk.address = 0;
		if (sym_intern(p, &sk, &k.gsym))
			return -ENOMEM;
		/* Its entry: the name with the symbol's range (perf's). */
		sk.address = function_start(f, frame_sz);
		if (sym_intern(p, &sk, &k.esym))
			return -ENOMEM;
	}

	h = pev__hash_u64(PEV__HASH_SEED, k.address);
	h = pev__hash_u64(h, (uint64_t)k.sym << 32 | k.file);
	h = pev__hash_u64(h, (k.offset ^ k.dso_offset) + k.gsym + ((uint64_t)k.esym << 32));
	h = pev__hash_u64(h, (uint64_t)k.line << 32 | k.flags);
	k.hash = (uint32_t)h;
	*id = pev__idset_find(&p->frame_set, k.hash, frame_eq, p, &k);
	if (*id)
		return 0;
	if (p->nr_frames == UINT32_MAX ||
	    pev__grow((void **)&p->frames, &p->cap_frames, (size_t)p->nr_frames + 1,
		      sizeof(*p->frames)) ||
	    pev__idset_add(&p->frame_set, k.hash, p->nr_frames))
		return -ENOMEM;
	p->frames[p->nr_frames] = k;
	*id = p->nr_frames++;
	return 0;
}

/* Whether frame i of c is inlined (a caller's older struct: never). */
static bool frame_inlined(const struct pev_profile_sample *c, size_t i)
{
	const struct pev_profile_frame *f = (const void *)((const char *)c->frames + i * c->frame_sz);

	return c->frame_sz >= offsetof(struct pev_profile_frame, flags) + sizeof(f->flags) &&
	       (f->flags & PEV_FRAME_INLINED);
}

static bool sample_eq(const void *owner, uint32_t id, const void *key)
{
	const struct pev_profile *p = owner;
	const struct pev__sample *a = &p->samples[id - 1], *b = key;

	return a->nr == b->nr && a->event == b->event && a->offcpu == b->offcpu &&
	       a->comm == b->comm && a->pid == b->pid &&
	       a->tid == b->tid && a->cpu == b->cpu && a->trace == b->trace &&
	       a->cgroup == b->cgroup &&
	       (b->nr == 0 || /* no stack at all yet: p->stack may be NULL */
		memcmp(p->stack + a->frames, p->stack + b->frames, b->nr * sizeof(*p->stack)) == 0);
}

int pev_profile_add_sample(struct pev_profile *p, const struct pev_profile_sample *s)
{
	uint32_t slot;

	return pev__profile_add_sample_slot(p, s, &slot);
}

/*
 * a + b, held at UINT64_MAX rather than wrapping: periods of a damaged file
 * can add past 2^64, and a total that wrapped would be smaller than its
 * parts (percentages above 100). Saturated, a part never exceeds its total.
 */
static uint64_t sum_periods(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
 * Stores sample k (its frames already at k->frames in the stack) with the
 * alike samples, or as a new one (its nr frames then kept), hash h.
 */
static int store_sample(struct pev_profile *p, const struct pev__sample *k, uint64_t h,
			uint64_t period, uint32_t *slot)
{
	uint32_t id = pev__idset_find(&p->sample_set, (uint32_t)h, sample_eq, p, k);
	struct pev__sample *d;

	if (id && p->samples[id - 1].count < UINT32_MAX) {
		d = &p->samples[id - 1];
	} else {
		if (pev__grow((void **)&p->samples, &p->cap_samples, (size_t)p->nr_samples + 1,
			      sizeof(*p->samples)) ||
		    (!id && pev__idset_add(&p->sample_set, (uint32_t)h, p->nr_samples + 1)))
			return PEV_ENOMEM;
		d = &p->samples[p->nr_samples++];
		*d = *k;
		d->period = 0;
		d->count = 0;
		if (k->frames == p->nr_stack)
			p->nr_stack += k->nr;
	}
	d->period = sum_periods(d->period, period);
	d->count++;
	p->events[k->event].samples++;
	p->events[k->event].total = sum_periods(p->events[k->event].total, period);
	*slot = (uint32_t)(d - p->samples);
	return 0;
}

/* The hash of a sample's fields but its frames, continuing from h (the frames'). */
static uint64_t sample_hash(uint64_t h, const struct pev__sample *k)
{
	h = pev__hash_u64(h, (uint64_t)k->comm << 32 | k->event | (uint64_t)k->offcpu << 16);
	h = pev__hash_u64(h, (uint64_t)(uint32_t)k->pid << 32 | (uint32_t)k->tid);
	h = pev__hash_u64(h, k->cgroup);
	return pev__hash_u64(h, (uint64_t)k->trace << 32 | (uint32_t)k->cpu);
}

/* Where path is, or would go, in p->cgroup_ids (kept sorted by path). */
static size_t cgroup_id_at(const struct pev_profile *p, uint32_t path)
{
	size_t lo = 0, hi = p->nr_cgroup_ids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->cgroup_ids[mid].path < path)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Remembers the first id given for cgroup path (string id). Returns 0 or -ENOMEM. */
static int note_cgroup_id(struct pev_profile *p, uint32_t path, uint64_t id)
{
	size_t at = cgroup_id_at(p, path);

	if (at < p->nr_cgroup_ids && p->cgroup_ids[at].path == path)
		return 0;
	if (pev__grow((void **)&p->cgroup_ids, &p->cap_cgroup_ids, p->nr_cgroup_ids + 1,
		      sizeof(*p->cgroup_ids)))
		return -ENOMEM;
	memmove(p->cgroup_ids + at + 1, p->cgroup_ids + at,
		(p->nr_cgroup_ids - at) * sizeof(*p->cgroup_ids));
	p->cgroup_ids[at] = (struct pev__cgroup_id){.path = path, .id = id};
	p->nr_cgroup_ids++;
	return 0;
}

int pev__profile_add_sample_slot(struct pev_profile *p, const struct pev_profile_sample *s,
				 uint32_t *slot)
{
	struct pev_profile_sample c;
	struct pev__sample k = {0};
	const size_t min_frame = offsetof(struct pev_profile_frame, dso) + sizeof(const char *);
	size_t base;
	uint64_t h;

	static const char fn[] = "pev_profile_add_sample";
	int r;

	if (!p || !s)
		return pev__bad_arg(NULL, fn, p ? "s" : "p", "NULL");
	if ((r = pev__opts_copy_sized(&c, sizeof(c), s, fn, "PEV_PROFILE_SAMPLE_INIT", NULL)) < 0)
		return r;
	if (c.event >= p->nr_events)
		return pev__bad_arg(NULL, fn, "s", "event %u: the profile has %u", c.event,
				    p->nr_events);
	if (c.nr_frames && !c.frames)
		return pev__bad_arg(NULL, fn, "s", "frames is NULL with nr_frames %u",
				    (unsigned)c.nr_frames);
	if (c.nr_frames > PEV__PROFILE_MAX_FRAMES)
		return pev__bad_arg(NULL, fn, "s", "%u frames; a sample holds %u",
				    (unsigned)c.nr_frames, PEV__PROFILE_MAX_FRAMES);
	if (c.nr_frames && c.frame_sz < min_frame)
		return pev__bad_arg(NULL, fn, "s", "frame_sz %zu is smaller than a frame (%zu): "
				    "initialize with PEV_PROFILE_SAMPLE_INIT", c.frame_sz, min_frame);
	if (c.period > UINT64_MAX - p->events[c.event].total)
		return pev__bad_arg(NULL, fn, "s", "period %" PRIu64 " overflows the event's total",
				    c.period);
	if (p->nr_samples == UINT32_MAX || p->nr_stack + c.nr_frames > UINT32_MAX)
		return PEV_ENOMEM;
	if (pev__grow((void **)&p->stack, &p->cap_stack, p->nr_stack + c.nr_frames,
		      sizeof(*p->stack)))
		return PEV_ENOMEM;
	/* The frames go after the stored ones: kept only when no alike sample has them. */
	base = p->nr_stack;
	h = pev__hash_u64(PEV__HASH_SEED, c.nr_frames);
	for (size_t i = 0, hi = 0; i < c.nr_frames; i++) {
		const struct pev_profile_frame *f =
			(const void *)((const char *)c.frames + i * c.frame_sz);
		const struct pev_profile_frame *holder;

		for (hi = hi > i ? hi : i; hi + 1 < c.nr_frames && frame_inlined(&c, hi); hi++)
			;
		holder = (const void *)((const char *)c.frames + hi * c.frame_sz);
		if (frame_intern(p, f, c.frame_sz, hi > i ? holder : NULL,
				 &p->stack[base + i]))
			return PEV_ENOMEM; /* nothing of the sample is kept: nr_stack is unchanged */
		h = pev__hash_u64(h, p->stack[base + i]);
	}
	if (pev__strtab_intern_str(&p->str, c.comm ? c.comm : "[unknown]", &k.comm) ||
	    pev__strtab_intern_str(&p->str, c.trace, &k.trace) ||
	    pev__strtab_intern_str(&p->str, c.cgroup, &k.cgroup))
		return PEV_ENOMEM;
	p->has_cgroup |= k.cgroup != 0;
	if (k.cgroup && c.cgroup_id && note_cgroup_id(p, k.cgroup, c.cgroup_id))
		return PEV_ENOMEM;
	k.frames = (uint32_t)base;
	k.nr = (uint16_t)c.nr_frames;
	k.event = (uint16_t)c.event;
	k.offcpu = (p->events[c.event].flags & PEV_PROFILE_EVENT_OFFCPU) != 0;
	k.pid = c.pid;
	k.tid = c.tid;
	k.cpu = c.cpu;
	if (p->timeline && pev__grow((void **)&p->tl, &p->cap_tl, p->nr_tl + 1, sizeof(*p->tl)))
		return PEV_ENOMEM;
	if (store_sample(p, &k, sample_hash(h, &k), c.period, slot))
		return PEV_ENOMEM;
	if (p->timeline)
		p->tl[p->nr_tl++] = (struct pev__tl_entry){
			.time = c.time, .weight = c.period, .cpu = PEV__TL_CPU_UNKNOWN, .slot = *slot};
	if (c.time) {
		if (!p->has_time || c.time < p->min_time)
			p->min_time = c.time;
		if (!p->has_time || c.time > p->max_time)
			p->max_time = c.time;
		p->has_time = true;
	}
	return 0;
}

void pev__profile_add_period(struct pev_profile *p, uint32_t slot, uint64_t period)
{
	p->samples[slot].period = sum_periods(p->samples[slot].period, period);
	p->events[p->samples[slot].event].total =
		sum_periods(p->events[p->samples[slot].event].total, period);
}

void pev__profile_add_wall(struct pev_profile *p, uint32_t slot, uint64_t ns)
{
	p->samples[slot].wall = sum_periods(p->samples[slot].wall, ns);
}

int pev_profile_event_flags(const struct pev_profile *p, unsigned event, uint32_t *flags)
{
	static const char fn[] = "pev_profile_event_flags";

	if (!p || !flags)
		return pev__bad_arg(NULL, fn, p ? "flags" : "p", "NULL");
	if (event >= p->nr_events)
		return pev__bad_arg(NULL, fn, "event", "%u: the profile has %u", event,
				    p->nr_events);
	*flags = p->events[event].flags;
	return 0;
}

int pev_profile_add_wall_clock(struct pev_profile *p, unsigned *event)
{
	struct pev_profile_event ev = PEV_PROFILE_EVENT_INIT;
	uint32_t n, slot;
	bool offcpu = false;
	int w;

	if (!p)
		return pev__bad_arg(NULL, "pev_profile_add_wall_clock", "p", "NULL");
	for (unsigned e = 0; e < p->nr_events; e++)
		offcpu |= (p->events[e].flags & PEV_PROFILE_EVENT_OFFCPU) != 0;
	if (!offcpu)
		return PEV_ENOENT;
	ev.name = "wall-clock";
	ev.unit = PEV_PROFILE_UNIT_NANOSECONDS;
	ev.value_type = "wall";
	if ((w = pev_profile_add_event(p, &ev)) < 0)
		return w;
	p->events[w].wall = true;
	/* Copies share their frames with the originals: alike only with each other. */
	n = p->nr_samples;
	for (uint32_t i = 0; i < n; i++) {
		struct pev__sample k = p->samples[i];
		const uint32_t *st = pev__sample_stack(p, &k);
		uint64_t h = pev__hash_u64(PEV__HASH_SEED, k.nr);

		if (p->events[k.event].unit != PEV_PROFILE_UNIT_NANOSECONDS || !k.period)
			continue;
		for (unsigned f = 0; f < k.nr; f++)
			h = pev__hash_u64(h, st[f]);
		k.event = (uint32_t)w;
		/* On the CPU: the time the samples stood for, where the file told it. */
		uint64_t ns = k.wall ? k.wall : k.period;
		k.wall = 0;
		if (store_sample(p, &k, sample_hash(h, &k), ns, &slot))
			return PEV_ENOMEM;
		/* One copy stands for all the samples it copies. */
		p->samples[slot].count += k.count - 1;
		p->events[w].samples += k.count - 1;
	}
	if (event)
		*event = (unsigned)w;
	return 0;
}

int pev_profile_keep_timeline(struct pev_profile *p)
{
	static const char fn[] = "pev_profile_keep_timeline";

	if (!p)
		return pev__bad_arg(NULL, fn, "p", "NULL");
	if (p->nr_samples && !p->timeline)
		return pev__bad_arg(NULL, fn, "p", "already holds samples: keep the timeline "
				    "before adding the first");
	p->timeline = true;
	return 0;
}

int pev_profile_add_marker(struct pev_profile *p, const struct pev_profile_marker *m)
{
	static const char fn[] = "pev_profile_add_marker";
	struct pev_profile_marker c;
	struct pev__marker *d;
	uint32_t text;
	int r;

	if (!p || !m)
		return pev__bad_arg(NULL, fn, p ? "m" : "p", "NULL");
	if ((r = pev__opts_copy_sized(&c, sizeof(c), m, fn, "PEV_PROFILE_MARKER_INIT", NULL)) < 0)
		return r;
	if (c.kind < PEV_PROFILE_MARKER_LOST || c.kind > PEV_PROFILE_MARKER_THREAD_END)
		return pev__bad_arg(NULL, fn, "m", "kind %d perfev does not know", (int)c.kind);
	if (!p->timeline)
		return pev__bad_arg(NULL, fn, "p", "keeps no timeline: call "
				    "pev_profile_keep_timeline() first");
	if (pev__strtab_intern_str(&p->str, c.text, &text) ||
	    pev__grow((void **)&p->markers, &p->cap_markers, p->nr_markers + 1,
		      sizeof(*p->markers)))
		return PEV_ENOMEM;
	d = &p->markers[p->nr_markers++];
	*d = (struct pev__marker){.kind = c.kind, .pid = c.pid, .tid = c.tid, .start = c.start,
				  .end = c.end > c.start ? c.end : c.start, .value = c.value,
				  .text = text};
	return 0;
}

int pev_profile_set_lost(struct pev_profile *p, uint64_t lost)
{
	if (!p)
		return pev__bad_arg(NULL, "pev_profile_set_lost", "p", "NULL");
	p->lost = lost;
	return 0;
}

int pev_profile_set_time(struct pev_profile *p, uint64_t start_ns, uint64_t duration_ns)
{
	if (!p)
		return pev__bad_arg(NULL, "pev_profile_set_time", "p", "NULL");
	p->start_ns = start_ns;
	p->duration_ns = duration_ns;
	p->time_set = true;
	return 0;
}

/* ---- mappings ------------------------------------------------------------------------- */

static bool map_eq(const void *owner, uint32_t id, const void *key)
{
	const struct pev_profile *p = owner;

	return p->maps[id - 1].dso == *(const uint32_t *)key;
}

static uint32_t map_hash(uint32_t dso)
{
	return (uint32_t)pev__hash_u64(PEV__HASH_SEED, dso);
}

const struct pev__mapinfo *pev__profile_mapinfo(const struct pev_profile *p, uint32_t dso)
{
	uint32_t id = dso ? pev__idset_find(&p->map_set, map_hash(dso), map_eq, p, &dso) : 0;

	return id ? &p->maps[id - 1] : NULL;
}

int pev_profile_add_mapping(struct pev_profile *p, const struct pev_profile_mapping *m)
{
	struct pev_profile_mapping c;
	struct pev__mapinfo *d;
	char hex[2 * 64 + 1];
	uint32_t dso, id;

	static const char fn[] = "pev_profile_add_mapping";
	int r;

	if (!p || !m)
		return pev__bad_arg(NULL, fn, p ? "m" : "p", "NULL");
	if ((r = pev__opts_copy_sized(&c, sizeof(c), m, fn, "PEV_PROFILE_MAPPING_INIT", NULL)) < 0)
		return r;
	if (!c.dso || !c.dso[0])
		return pev__bad_arg(NULL, fn, "m", "the mapping has no dso");
	if (c.limit < c.start)
		return pev__bad_arg(NULL, fn, "m", "'%s' ends (%#" PRIx64 ") before it starts (%#"
				    PRIx64 ")", c.dso, c.limit, c.start);
	if (c.build_id_size > 64 || (c.build_id_size && !c.build_id))
		return pev__bad_arg(NULL, fn, "m", "'%s': a build id of %zu bytes at %p", c.dso,
				    (size_t)c.build_id_size, (const void *)c.build_id);
	if (c.flags & ~PEV_PROFILE_MAPPING_MAIN)
		return pev__bad_arg(NULL, fn, "m", "'%s': flags %#x perfev does not know", c.dso,
				    (unsigned)(c.flags & ~PEV_PROFILE_MAPPING_MAIN));
	if (pev__strtab_intern_str(&p->str, c.dso, &dso))
		return PEV_ENOMEM;
	id = pev__idset_find(&p->map_set, map_hash(dso), map_eq, p, &dso);
	if (!id) {
		if (p->nr_maps == UINT32_MAX - 1 ||
		    pev__grow((void **)&p->maps, &p->cap_maps, (size_t)p->nr_maps + 1,
			      sizeof(*p->maps)) ||
		    pev__idset_add(&p->map_set, map_hash(dso), p->nr_maps + 1))
			return PEV_ENOMEM;
		memset(&p->maps[p->nr_maps], 0, sizeof(p->maps[0]));
		p->maps[p->nr_maps].dso = dso;
		id = ++p->nr_maps;
	}
	d = &p->maps[id - 1];
	d->flags |= c.flags;
	if (c.build_id_size && !d->build_id) {
		for (size_t i = 0; i < c.build_id_size; i++)
			snprintf(hex + 2 * i, 3, "%02x", c.build_id[i]);
		if (pev__strtab_intern_str(&p->str, hex, &d->build_id))
			return PEV_ENOMEM;
	}
	if (c.limit > c.start) {
		if (!d->limit || c.start < d->start) {
			d->file_offset = c.file_offset;
			d->start = c.start;
		}
		if (c.limit > d->limit)
			d->limit = c.limit;
	}
	return 0;
}

int pev_profile_time(const struct pev_profile *p, uint64_t *start_ns, uint64_t *duration_ns)
{
	if (!p)
		return pev__bad_arg(NULL, "pev_profile_time", "p", "NULL");
	if (start_ns)
		*start_ns = p->time_set ? p->start_ns : 0;
	if (duration_ns)
		*duration_ns = p->time_set ? p->duration_ns
			       : p->has_time ? p->max_time - p->min_time
					     : 0;
	return 0;
}

unsigned pev_profile_nr_events(const struct pev_profile *p)
{
	return p ? p->nr_events : 0;
}

int pev_profile_totals(const struct pev_profile *p, unsigned event, uint64_t *samples,
		       uint64_t *period)
{
	if (!p)
		return pev__bad_arg(NULL, "pev_profile_totals", "p", "NULL");
	if (event >= p->nr_events)
		return pev__bad_arg(NULL, "pev_profile_totals", "event", "%u: the profile has %u",
				    event, p->nr_events);
	if (samples)
		*samples = p->events[event].samples;
	if (period)
		*period = p->events[event].total;
	return 0;
}

uint64_t pev__profile_cgroup_id(const struct pev_profile *p, uint32_t path)
{
	size_t at = cgroup_id_at(p, path);

	return at < p->nr_cgroup_ids && p->cgroup_ids[at].path == path ? p->cgroup_ids[at].id : 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * report_speedscope.c - the profile in speedscope's file format: the
 * frames every profile shares, then one "sampled" profile per thread of
 * one event, each sample a stack (frame indices, root first) with its
 * weight in the event's unit.
 *
 * With the profile's timeline a thread's samples come in time order, two
 * in a row with the same stack as one (their weights summed: speedscope
 * would draw them as one box anyway); without it, one per distinct stack.
 * Frames are the profile's symbols; an off-CPU sample's stack ends in
 * "[off-cpu]", as the folded stacks' do. The wall-clock event
 * (pev_profile_add_wall_clock) is made of the timeline's samples in
 * nanoseconds: on-CPU ones weigh the CPU time their thread used since its
 * previous sample (where the file's switch records tell it; the time
 * before a switch-out goes to the thread's last on-CPU sample), off-CPU
 * ones the time waited.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "perfev/common.h"
#include "report/report_timeline.h"

/* A sample to write: its stored sample (stack, thread) and weight. */
struct item {
	uint32_t slot;
	uint64_t weight;
};

struct speedscope {
	const struct pev_profile *p;
	struct pev__jbuf jb; /* the output, buffered */
	unsigned flags;      /* PEV_REPORT_* */
	uint32_t *sym_frame; /* per symbol: its index in shared.frames + 1, 0: not written */
	uint32_t *frame_sym; /* shared frame -> symbol, UINT32_MAX: "[off-cpu]" */
	uint32_t nr_frames;
	uint32_t offcpu_frame; /* + 1, 0: none yet */
	struct item *items;
	size_t nr_items, cap_items;
};

/* The shared frame of symbol sym, or of "[off-cpu]" (sym UINT32_MAX). */
static uint32_t frame_of(struct speedscope *s, uint32_t sym)
{
	uint32_t *at = sym == UINT32_MAX ? &s->offcpu_frame : &s->sym_frame[sym];

	if (!*at) {
		s->frame_sym[s->nr_frames] = sym;
		*at = ++s->nr_frames;
	}
	return *at - 1;
}

/* Writes the stack of stored sample slot, root first. */
static void write_stack(struct speedscope *s, uint32_t slot)
{
	const struct pev__sample *x = &s->p->samples[slot];
	const uint32_t *st = pev__sample_stack(s->p, x);
	struct pev__jbuf *out = &s->jb;
	bool first = true;

	pev__jb_char(out, '[');
	for (unsigned i = x->nr; i-- > 0;) {
		const struct pev__frame *f = &s->p->frames[st[i]];

		if ((s->flags & PEV_REPORT_NO_INLINE) && (f->flags & PEV_FRAME_INLINED))
			continue;
		if (!first)
			pev__jb_char(out, ',');
		pev__jb_u64(out, frame_of(s, f->sym));
		first = false;
	}
	if (x->offcpu) {
		if (!first)
			pev__jb_char(out, ',');
		pev__jb_u64(out, frame_of(s, UINT32_MAX));
	}
	pev__jb_char(out, ']');
}

/* Whether stored samples a and b have the same stack and off-CPU mark. */
static bool same_stack(const struct pev_profile *p, uint32_t a, uint32_t b)
{
	const struct pev__sample *x = &p->samples[a], *y = &p->samples[b];

	return a == b || (x->nr == y->nr && x->offcpu == y->offcpu &&
			  (!x->nr || memcmp(pev__sample_stack(p, x), pev__sample_stack(p, y),
					    x->nr * sizeof(uint32_t)) == 0));
}

/* Adds a sample; one with the stack of the one before it adds to its weight. */
static int add_item(struct speedscope *s, uint32_t slot, uint64_t w)
{
	struct item *last = s->nr_items ? &s->items[s->nr_items - 1] : NULL;

	if (last && same_stack(s->p, last->slot, slot)) {
		last->weight = last->weight > UINT64_MAX - w ? UINT64_MAX : last->weight + w;
		return 0;
	}
	if (pev__grow((void **)&s->items, &s->cap_items, s->nr_items + 1, sizeof(*s->items)))
		return -1;
	s->items[s->nr_items++] = (struct item){slot, w};
	return 0;
}

/*
 * The samples of thread th: of event e, or for the wall-clock event those
 * of the events in nanoseconds, weighed as the top of the file says.
 */
static int thread_items(struct speedscope *s, const struct pev__tl_entry *tl,
			const struct pev__tl_threads *t, const struct pev__tl_thread *th,
			bool wall)
{
	const struct pev_profile *p = s->p;
	size_t last_on = SIZE_MAX; /* the item of the last on-CPU sample */

	s->nr_items = 0;
	for (size_t i = 0; i < th->count; i++) {
		const struct pev__tl_entry *e = &tl[t->order[th->first + i]];
		const struct pev__sample *x = &p->samples[e->slot];
		uint64_t w = e->weight;

		if (wall && !x->offcpu && e->cpu != PEV__TL_CPU_UNKNOWN && e->cpu)
			w = e->cpu;
		if (wall && x->offcpu && e->cpu != PEV__TL_CPU_UNKNOWN && last_on != SIZE_MAX)
			s->items[last_on].weight += e->cpu; /* its time until the switch-out */
		if (!w)
			continue;
		if (add_item(s, e->slot, w))
			return -1;
		last_on = x->offcpu ? SIZE_MAX : s->nr_items - 1;
	}
	return 0;
}

/* Writes thread th's profile of the samples gathered; returns their total weight. */
static uint64_t write_profile(struct speedscope *s, const struct pev__tl_thread *th,
			      const char *unit, bool comma)
{
	struct pev__jbuf *out = &s->jb;
	const char *comm = pev__strtab_get(&s->p->str, th->comm);
	uint64_t total = 0;

	for (size_t i = 0; i < s->nr_items; i++)
		total += s->items[i].weight;
	pev__jb_str(out, comma ? ",{\"type\":\"sampled\",\"name\":\""
			       : "{\"type\":\"sampled\",\"name\":\"");
	pev__jb_json_chars(out, comm ? comm : "[unknown]");
	pev__jb_printf(out, " %" PRId32 "/%" PRId32, th->pid, th->tid);
	if (th->cgroup) {
		pev__jb_str(out, " [");
		pev__jb_json_chars(out, pev__strtab_get(&s->p->str, th->cgroup));
		pev__jb_char(out, ']');
	}
	pev__jb_printf(out, "\",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64
		       ",\"samples\":[",
		       unit, total);
	for (size_t i = 0; i < s->nr_items; i++) {
		if (i)
			pev__jb_char(out, ',');
		write_stack(s, s->items[i].slot);
	}
	pev__jb_str(out, "],\"weights\":[");
	for (size_t i = 0; i < s->nr_items; i++) {
		if (i)
			pev__jb_char(out, ',');
		pev__jb_u64(out, s->items[i].weight);
	}
	pev__jb_str(out, "]}");
	return total;
}

static void write_frames(struct speedscope *s)
{
	struct pev__jbuf *out = &s->jb;
	char buf[32];

	pev__jb_str(out, "],\"shared\":{\"frames\":[");
	for (uint32_t i = 0; i < s->nr_frames; i++) {
		uint32_t sym = s->frame_sym[i];

		pev__jb_str(out, i ? ",{\"name\":" : "{\"name\":");
		if (sym == UINT32_MAX) {
			pev__jb_str(out, "\"[off-cpu]\"}");
			continue;
		}
		const struct pev__sym *y = &s->p->syms[sym];
		const char *dso = pev__strtab_get(&s->p->str, y->dso);
		pev__jb_json_string(out, pev__sym_label(s->p, sym, true, buf, sizeof(buf)));
		if (dso) {
			pev__jb_str(out, ",\"file\":");
			pev__jb_json_string(out, dso);
		}
		pev__jb_char(out, '}');
	}
	pev__jb_str(out, "]}");
}

/* Entries made from the stored samples, for a profile without its timeline. */
static struct pev__tl_entry *stored_entries(const struct pev_profile *p)
{
	struct pev__tl_entry *tl = malloc((p->nr_samples ? p->nr_samples : 1) * sizeof(*tl));

	for (uint32_t i = 0; tl && i < p->nr_samples; i++)
		tl[i] = (struct pev__tl_entry){.weight = p->samples[i].period,
					       .cpu = PEV__TL_CPU_UNKNOWN, .slot = i};
	return tl;
}

int pev_profile_write_speedscope(const struct pev_profile *p, FILE *out,
				 const struct pev_report_opts *opts, struct pev_error *err)
{
	static const char func[] = "pev_profile_write_speedscope";
	struct speedscope s = {.p = p};
	struct pev__tl_threads t = {0};
	struct pev__tl_entry *own = NULL;
	const struct pev__tl_entry *tl;
	struct pev_report_opts o;
	size_t nr_tl, heaviest = 0;
	uint64_t most = 0;
	bool *want = NULL, wall;
	int event, r = -1;

	pev__error_clear(err);
	if ((r = pev__report_begin(p, out, opts, &o, &event, func, err)) < 0)
		return r;
	r = -1;
	s.flags = o.flags;
	if (!(s.jb.out = pev__report_stream(out, o.flags)))
		return pev__report_nomem(err, func);
	if (event < 0)
		event = 0;
	wall = p->nr_events && p->events[event].wall && p->timeline;
	if (!(want = pev__tl_events(p, p->nr_events ? event : -1)))
		goto out;
	if (wall)
		for (unsigned e = 0; e < p->nr_events; e++)
			want[e] = p->events[e].unit == PEV_PROFILE_UNIT_NANOSECONDS &&
				  !p->events[e].wall;
	tl = p->tl;
	nr_tl = p->nr_tl;
	if (!p->timeline) {
		if (!(own = stored_entries(p)))
			goto out;
		tl = own;
		nr_tl = p->nr_samples;
	}
	s.sym_frame = calloc(p->nr_syms ? p->nr_syms : 1, sizeof(*s.sym_frame));
	s.frame_sym = malloc(((size_t)p->nr_syms + 1) * sizeof(*s.frame_sym));
	if (!s.sym_frame || !s.frame_sym || pev__tl_threads_build(p, tl, nr_tl, want, false, &t))
		goto out;
	pev__jb_printf(&s.jb, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		"\"exporter\":\"perfev %s\",\"name\":", pev_version());
	pev__jb_json_string(&s.jb, p->nr_events ? pev__event_name(p, (unsigned)event) : "perfev");
	pev__jb_str(&s.jb, ",\"profiles\":[");
	for (size_t i = 0; i < t.nr_threads; i++) {
		if (thread_items(&s, tl, &t, &t.threads[i], wall))
			goto out;
		uint64_t total = write_profile(
			&s, &t.threads[i],
			pev__tl_unit_name(p->nr_events ? p->events[event].unit : PEV_PROFILE_UNIT_COUNT),
			i > 0);
		if (total > most) {
			most = total;
			heaviest = i;
		}
	}
	write_frames(&s);
	pev__jb_printf(&s.jb, ",\"activeProfileIndex\":%zu}\n", heaviest);
	pev__jb_flush(&s.jb);
	r = 0;
out:
	free(s.sym_frame);
	free(s.frame_sym);
	free(s.items);
	free(own);
	free(want);
	pev__tl_threads_free(&t);
	if (r)
		r = pev__report_nomem(err, func);
	pev__jb_flush(&s.jb);
	return pev__report_finish(s.jb.out, out, r, func, err);
}

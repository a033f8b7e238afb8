/* SPDX-License-Identifier: MIT */
/*
 * report_gecko.c - the profile as the Firefox Profiler's Gecko profile
 * format (version 24, presymbolicated): meta, and a thread per recorded
 * thread with its samples in time order, the CPU time each used, its
 * stack, frame and string tables and its markers.
 *
 * A thread's tables are its own (the format's rule): frame rows are the
 * thread's distinct functions, "name (in library)", the string table holds
 * their names (string i is row i's) and then the markers' names; stacks
 * are (prefix, frame row) pairs, a sample's stack its leaf's. Times are
 * milliseconds since the earliest sample or marker, with microsecond
 * digits; meta.startTime is that instant on the wall clock when the file
 * tells it (perf record -k), else 0.
 *
 * The CPU time of a sample (threadCPUDelta, nanoseconds) is what its
 * thread ran since its previous sample: known from context-switch
 * records; else, for an event in nanoseconds (cpu-clock), its period, or
 * the time since the thread's previous sample where that is shorter; for
 * an off-CPU sample the time since the thread's previous sample; else
 * null. An off-CPU sample (taken at a switch-out) is also an "Off-CPU"
 * interval marker spanning the wait, whose stack is the sample's.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "perfev/common.h"
#include "report/report_timeline.h"

/* The categories frames and markers name, in meta.categories' order. */
enum { CAT_USER, CAT_KERNEL, CAT_OTHER };

/*
 * What each kind of marker is called, its payload's type, and the schema
 * telling the Profiler how to show it. Index 0 is the off-CPU interval,
 * then the pev_profile_marker_kind values (LOST = 1 .. THREAD_END = 6). A
 * thread's string table holds the names after its frame rows'.
 */
static const struct marker_kind {
	const char *name, *type, *schema;
} kinds[] = {
	{"Off-CPU", "OffCPU",
	 "{\"name\":\"OffCPU\",\"tooltipLabel\":\"Off-CPU\",\"tableLabel\":\"off-CPU\","
	 "\"chartLabel\":\"off-CPU\",\"display\":[\"marker-chart\",\"marker-table\","
	 "\"timeline-overview\"],\"data\":[]}"},
	[PEV_PROFILE_MARKER_LOST] = {"Lost records", "Lost",
	 "{\"name\":\"Lost\",\"tooltipLabel\":\"Lost records: {marker.data.count}\","
	 "\"tableLabel\":\"{marker.data.count} records lost\",\"display\":[\"marker-chart\","
	 "\"marker-table\",\"timeline-overview\"],\"data\":[{\"key\":\"count\",\"label\":"
	 "\"Records lost\",\"format\":\"integer\"}]}"},
	[PEV_PROFILE_MARKER_THROTTLED] = {"Throttled", "Throttled",
	 "{\"name\":\"Throttled\",\"tooltipLabel\":\"Sampling throttled\",\"display\":"
	 "[\"marker-chart\",\"marker-table\",\"timeline-overview\"],\"data\":[]}"},
	[PEV_PROFILE_MARKER_RECORDING] = {"Recording", "Recording",
	 "{\"name\":\"Recording\",\"tooltipLabel\":\"Recording\",\"display\":"
	 "[\"marker-chart\",\"marker-table\"],\"data\":[]}"},
	[PEV_PROFILE_MARKER_EXEC] = {"Exec", "Exec",
	 "{\"name\":\"Exec\",\"tooltipLabel\":\"exec {marker.data.name}\",\"tableLabel\":"
	 "\"exec {marker.data.name}\",\"display\":[\"marker-chart\",\"marker-table\","
	 "\"timeline-overview\"],\"data\":[{\"key\":\"name\",\"label\":\"Program\","
	 "\"format\":\"string\",\"searchable\":true}]}"},
	[PEV_PROFILE_MARKER_THREAD_START] = {"Thread start", "ThreadStart",
	 "{\"name\":\"ThreadStart\",\"tooltipLabel\":\"Thread start\",\"display\":"
	 "[\"marker-chart\",\"marker-table\"],\"data\":[{\"key\":\"parent\",\"label\":"
	 "\"Parent thread\",\"format\":\"integer\"}]}"},
	[PEV_PROFILE_MARKER_THREAD_END] = {"Thread end", "ThreadEnd",
	 "{\"name\":\"ThreadEnd\",\"tooltipLabel\":\"Thread end\",\"display\":"
	 "[\"marker-chart\",\"marker-table\"],\"data\":[]}"},
};
#define NR_KINDS (sizeof(kinds) / sizeof(kinds[0]))
#define KIND_OFFCPU 0u

/* An off-CPU sample of the thread being written: its timeline entry and stack. */
struct offcpu {
	uint32_t entry, stack;
};

/* A stack of the thread being written: its caller's stack (UINT32_MAX: none) and frame row. */
struct stack {
	uint32_t prefix, row;
};

/* Per thread: its frame rows and stacks, reused from one thread to the next. */
struct gecko {
	const struct pev_profile *p;
	struct pev__jbuf jb; /* the output, buffered */
	unsigned flags;      /* PEV_REPORT_* */
	uint64_t zero;       /* the time written as 0 */

	uint32_t stamp;      /* the thread being written, from 1 */
	uint32_t *sym_stamp; /* per symbol: the thread whose row sym_row is */
	uint32_t *sym_row;
	uint32_t *rows;      /* row -> symbol */
	uint32_t nr_rows;

	uint32_t *slot_stamp; /* per stored sample: the thread whose stack slot_stack is */
	uint32_t *slot_stack; /* its stack, UINT32_MAX: none (no frames) */

	struct pev__pairmap stack_map; /* (prefix + 1, row) -> stack */
	struct stack *stacks;
	size_t nr_stacks, cap_stacks;

	struct offcpu *offcpu; /* the thread's off-CPU samples */
	size_t nr_offcpu, cap_offcpu;
};

/* Writes ns since g->zero as milliseconds, to the microsecond. */
static void put_ms(struct gecko *g, uint64_t t)
{
	uint64_t us = (t > g->zero ? t - g->zero : 0) / 1000;
	unsigned frac = (unsigned)(us % 1000);
	char *at;

	pev__jb_u64(&g->jb, us / 1000);
	pev__jb_room(&g->jb, 4);
	at = g->jb.b + g->jb.n;
	at[0] = '.';
	at[1] = (char)('0' + frac / 100);
	at[2] = (char)('0' + frac / 10 % 10);
	at[3] = (char)('0' + frac % 10);
	g->jb.n += 4;
}

/* The frame row of symbol sym in this thread, made on first use. */
static uint32_t row_of(struct gecko *g, uint32_t sym)
{
	if (g->sym_stamp[sym] != g->stamp) {
		g->sym_stamp[sym] = g->stamp;
		g->sym_row[sym] = g->nr_rows;
		g->rows[g->nr_rows++] = sym;
	}
	return g->sym_row[sym];
}

/* The stack (prefix, row), made on first use. */
static int stack_of(struct gecko *g, uint32_t prefix, uint32_t row, uint32_t *stack)
{
	uint32_t a = prefix == UINT32_MAX ? 0 : prefix + 1;
	uint32_t s = pev__pairmap_get(&g->stack_map, a, row);

	if (s != UINT32_MAX) {
		*stack = s;
		return 0;
	}
	if (pev__grow((void **)&g->stacks, &g->cap_stacks, g->nr_stacks + 1, sizeof(*g->stacks)) ||
	    pev__pairmap_put(&g->stack_map, a, row, (uint32_t)g->nr_stacks))
		return -1;
	g->stacks[g->nr_stacks] = (struct stack){prefix, row};
	*stack = (uint32_t)g->nr_stacks++;
	return 0;
}

/* The stack of stored sample slot in this thread: its frames from the outermost in. */
static int sample_stack(struct gecko *g, uint32_t slot, uint32_t *stack)
{
	const struct pev__sample *s = &g->p->samples[slot];
	const uint32_t *st = pev__sample_stack(g->p, s);
	uint32_t cur = UINT32_MAX;

	if (g->slot_stamp[slot] == g->stamp) {
		*stack = g->slot_stack[slot];
		return 0;
	}
	for (unsigned i = s->nr; i-- > 0;) {
		const struct pev__frame *f = &g->p->frames[st[i]];

		if ((g->flags & PEV_REPORT_NO_INLINE) && (f->flags & PEV_FRAME_INLINED))
			continue;
		if (stack_of(g, cur, row_of(g, f->sym), &cur))
			return -1;
	}
	g->slot_stamp[slot] = g->stamp;
	g->slot_stack[slot] = cur;
	*stack = cur;
	return 0;
}

/* The CPU time of entry e (see the top of the file), or UINT64_MAX for null. */
static uint64_t cpu_delta(const struct gecko *g, const struct pev__tl_entry *e,
			  const struct pev__tl_entry *prev)
{
	const struct pev__sample *s = &g->p->samples[e->slot];
	const struct pev__event *ev = &g->p->events[s->event];

	if (e->cpu != PEV__TL_CPU_UNKNOWN)
		return e->cpu;
	/* Taken at a switch-out: the thread ran since its previous sample. */
	if (s->offcpu)
		return prev && e->time >= prev->time ? e->time - prev->time : UINT64_MAX;
	if (ev->unit != PEV_PROFILE_UNIT_NANOSECONDS)
		return UINT64_MAX;
	if (prev && e->time >= prev->time && e->time - prev->time < e->weight)
		return e->time - prev->time;
	return e->weight;
}

static int write_samples(struct gecko *g, const struct pev__tl_threads *t,
			 const struct pev__tl_thread *th)
{
	struct pev__jbuf *out = &g->jb;
	const struct pev__tl_entry *prev = NULL;

	g->nr_offcpu = 0;
	pev__jb_str(out, "\"samples\":{\"schema\":{\"stack\":0,\"time\":1,\"eventDelay\":2,"
		    "\"threadCPUDelta\":3},\"data\":[");
	for (size_t i = 0; i < th->count; i++) {
		uint32_t idx = t->order[th->first + i];
		const struct pev__tl_entry *e = &g->p->tl[idx];
		uint32_t stack;
		uint64_t cpu;

		if (sample_stack(g, e->slot, &stack))
			return -1;
		pev__jb_str(out, i ? ",[" : "[");
		if (stack == UINT32_MAX)
			pev__jb_str(out, "null");
		else
			pev__jb_u64(out, stack);
		pev__jb_char(out, ',');
		put_ms(g, e->time);
		cpu = cpu_delta(g, e, prev);
		if (cpu == UINT64_MAX) {
			pev__jb_str(out, ",0,null]");
		} else {
			pev__jb_str(out, ",0,");
			pev__jb_u64(out, cpu);
			pev__jb_char(out, ']');
		}
		prev = e;
		if (g->p->samples[e->slot].offcpu && e->weight) {
			if (pev__grow((void **)&g->offcpu, &g->cap_offcpu, g->nr_offcpu + 1,
				      sizeof(*g->offcpu)))
				return -1;
			g->offcpu[g->nr_offcpu++] = (struct offcpu){idx, stack};
		}
	}
	pev__jb_str(out, "]}");
	return 0;
}

/*
 * Begins a marker tuple of kind k (an index into kinds[]): its name, times,
 * phase, category, and its payload up to its type.
 */
static void marker_begin(struct gecko *g, bool *first, unsigned k, uint64_t start, uint64_t end)
{
	struct pev__jbuf *out = &g->jb;
	bool interval = end > start;

	pev__jb_str(out, *first ? "[" : ",[");
	*first = false;
	pev__jb_printf(out, "%" PRIu32 ",", g->nr_rows + k);
	put_ms(g, start);
	pev__jb_char(out, ',');
	if (interval)
		put_ms(g, end);
	else
		pev__jb_str(out, "null");
	pev__jb_printf(out, ",%d,%d,{\"type\":\"%s\"", interval ? 1 : 0, CAT_OTHER,
		       kinds[k].type);
}

static void write_marker(struct gecko *g, bool *first, const struct pev__marker *m)
{
	struct pev__jbuf *out = &g->jb;

	marker_begin(g, first, (unsigned)m->kind, m->start, m->end);
	switch (m->kind) {
	case PEV_PROFILE_MARKER_LOST:
		pev__jb_printf(out, ",\"count\":%" PRIu64, m->value);
		break;
	case PEV_PROFILE_MARKER_EXEC:
		pev__jb_str(out, ",\"name\":");
		pev__jb_json_string(out, pev__strtab_get(&g->p->str, m->text));
		break;
	case PEV_PROFILE_MARKER_THREAD_START:
		pev__jb_printf(out, ",\"parent\":%" PRIu64, m->value);
		break;
	default:
		break;
	}
	pev__jb_str(out, "}]");
}

/*
 * The thread's markers: its off-CPU intervals, what pev_profile_add_marker
 * said of it, and (global) the recording's own markers. Notes when the
 * thread started and ended.
 */
static void write_markers(struct gecko *g, const struct pev__tl_thread *th, bool global,
			  uint64_t *registered, uint64_t *unregistered)
{
	struct pev__jbuf *out = &g->jb;
	bool first = true;

	pev__jb_str(out, ",\"markers\":{\"schema\":{\"name\":0,\"startTime\":1,\"endTime\":2,"
		    "\"phase\":3,\"category\":4,\"data\":5},\"data\":[");
	for (size_t i = 0; i < g->nr_offcpu; i++) {
		const struct pev__tl_entry *e = &g->p->tl[g->offcpu[i].entry];

		marker_begin(g, &first, KIND_OFFCPU, e->time, e->time + e->weight);
		if (g->offcpu[i].stack != UINT32_MAX) {
			pev__jb_printf(out, ",\"stack\":{\"tid\":%" PRId32 ",\"samples\":{\"schema\":"
				       "{\"stack\":0,\"time\":1},\"data\":[[%" PRIu32 ",",
				       th->tid, g->offcpu[i].stack);
			put_ms(g, e->time);
			pev__jb_str(out, "]]}}");
		}
		pev__jb_str(out, "}]");
	}
	for (size_t i = 0; i < g->p->nr_markers; i++) {
		const struct pev__marker *m = &g->p->markers[i];

		if (m->tid < 0 ? !global : (m->tid != th->tid || m->pid != th->pid))
			continue;
		write_marker(g, &first, m);
		if (m->kind == PEV_PROFILE_MARKER_THREAD_START && m->tid >= 0 && m->start < *registered)
			*registered = m->start;
		if (m->kind == PEV_PROFILE_MARKER_THREAD_END && m->tid >= 0)
			*unregistered = m->start;
	}
	pev__jb_str(out, "]}");
}

/* The frame, stack and string tables of the thread just written. */
static void write_tables(struct gecko *g)
{
	struct pev__jbuf *out = &g->jb;
	char buf[32], dso[256];

	pev__jb_str(out, ",\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[");
	for (size_t i = 0; i < g->nr_stacks; i++) {
		pev__jb_str(out, i ? ",[" : "[");
		if (g->stacks[i].prefix == UINT32_MAX)
			pev__jb_str(out, "null");
		else
			pev__jb_u64(out, g->stacks[i].prefix);
		pev__jb_char(out, ',');
		pev__jb_u64(out, g->stacks[i].row);
		pev__jb_char(out, ']');
	}
	pev__jb_str(out, "]},\"frameTable\":{\"schema\":{\"location\":0,\"relevantForJS\":1,"
		    "\"innerWindowID\":2,\"implementation\":3,\"line\":4,\"column\":5,\"category\":6,"
		    "\"subcategory\":7},\"data\":[");
	for (uint32_t r = 0; r < g->nr_rows; r++) {
		const struct pev__sym *s = &g->p->syms[g->rows[r]];

		/* No line: a row is a function, not one of its lines. */
		pev__jb_printf(out, "%s[%" PRIu32 ",false,0,null,null,null,%d,0]", r ? "," : "", r,
			       s->kernel ? CAT_KERNEL : CAT_USER);
	}
	pev__jb_str(out, "]},\"stringTable\":[");
	for (uint32_t r = 0; r < g->nr_rows; r++) {
		const struct pev__sym *s = &g->p->syms[g->rows[r]];
		const char *d = pev__strtab_get(&g->p->str, s->dso);

		/* "name (in library)": the Profiler's form of a native function. */
		pev__jb_str(out, r ? ",\"" : "\"");
		pev__jb_json_chars(out, pev__sym_label(g->p, g->rows[r], true, buf, sizeof(buf)));
		pev__jb_str(out, " (in ");
		pev__jb_json_chars(out, d ? pev__dso_base(d, dso, sizeof(dso)) : "[unknown]");
		pev__jb_str(out, ")\"");
	}
	for (size_t k = 0; k < NR_KINDS; k++)
		pev__jb_printf(out, "%s\"%s\"", g->nr_rows || k ? "," : "", kinds[k].name);
	pev__jb_str(out, "]");
}

static int write_thread(struct gecko *g, const struct pev__tl_threads *t,
			const struct pev__tl_thread *th, bool global)
{
	struct pev__jbuf *out = &g->jb;
	const struct pev__tl_thread *main_thread = pev__tl_thread_find(t, th->pid, th->pid);
	uint32_t proc = main_thread ? main_thread->comm : pev__profile_thread_name(g->p, th->pid);
	const char *name = pev__strtab_get(&g->p->str, th->comm);
	uint64_t registered = th->start, unregistered = 0;

	g->stamp++;
	g->nr_rows = 0;
	g->nr_stacks = 0;
	pev__pairmap_clear(&g->stack_map);
	pev__jb_str(out, "{\"name\":");
	pev__jb_json_string(out, name ? name : "[unknown]");
	pev__jb_str(out, ",\"processName\":");
	const char *pname = proc ? pev__strtab_get(&g->p->str, proc) : name ? name : "[unknown]";
	if (th->cgroup) {
		/* The container a thread ran in shows in its process's track: "nginx [/docker/ID]". */
		pev__jb_str(out, "\"");
		pev__jb_json_chars(out, pname);
		pev__jb_str(out, " [");
		pev__jb_json_chars(out, pev__strtab_get(&g->p->str, th->cgroup));
		pev__jb_str(out, "]\"");
	} else {
		pev__jb_json_string(out, pname);
	}
	pev__jb_printf(out, ",\"processType\":\"default\",\"pid\":%" PRId32 ",\"tid\":%" PRId32
		       ",", th->pid, th->tid);
	if (write_samples(g, t, th))
		return -1;
	write_markers(g, th, global, &registered, &unregistered);
	write_tables(g);
	pev__jb_str(out, ",\"registerTime\":");
	put_ms(g, registered);
	pev__jb_str(out, ",\"unregisterTime\":");
	if (unregistered)
		put_ms(g, unregistered);
	else
		pev__jb_str(out, "null");
	pev__jb_char(out, '}');
	return 0;
}

/* The marker schemas: how the Profiler shows each payload type. */
static void write_marker_schema(struct pev__jbuf *out)
{
	pev__jb_str(out, "\"markerSchema\":[");
	for (size_t k = 0; k < NR_KINDS; k++) {
		if (k)
			pev__jb_char(out, ',');
		pev__jb_str(out, kinds[k].schema);
	}
	pev__jb_char(out, ']');
}

static void write_meta(struct gecko *g, const bool *want, const struct pev__tl_threads *t)
{
	const struct pev_profile *p = g->p;
	struct pev__jbuf *out = &g->jb;
	uint64_t interval_ns = 1000000, start_ms = 0, last = g->zero;

	for (unsigned e = 0; e < p->nr_events; e++)
		if (want[e] && p->events[e].unit == PEV_PROFILE_UNIT_NANOSECONDS &&
		    p->events[e].period && !(p->events[e].flags & PEV_PROFILE_EVENT_OFFCPU)) {
			interval_ns = p->events[e].period;
			break;
		}
	/* The wall clock at g->zero, where the file ties its clock to it (start_ns is
	 * the first sample's; g->zero may be earlier, or later with one event written). */
	if (p->time_set && p->start_ns && p->has_time) {
		uint64_t at = g->zero <= p->min_time ? p->start_ns - (p->min_time - g->zero)
						     : p->start_ns + (g->zero - p->min_time);
		start_ms = at / 1000000;
	}
	for (size_t i = 0; i < t->nr_order; i++)
		if (p->tl[t->order[i]].time > last)
			last = p->tl[t->order[i]].time;
	for (size_t i = 0; i < p->nr_markers; i++)
		if (p->markers[i].end > last)
			last = p->markers[i].end;
	pev__jb_printf(out, "{\"meta\":{\"version\":24,\"interval\":%" PRIu64 ".%06u,"
		       "\"startTime\":%" PRIu64 ",\"shutdownTime\":null,",
		       interval_ns / 1000000, (unsigned)(interval_ns % 1000000), start_ms);
	pev__jb_str(out, "\"profilingStartTime\":0,\"profilingEndTime\":");
	put_ms(g, last);
	pev__jb_printf(out, ",\"processType\":0,\"product\":\"perfev %s\",\"platform\":\"Linux\","
		       "\"stackwalk\":1,\"debug\":0,\"gcpoison\":0,\"asyncstack\":0,"
		       "\"presymbolicated\":true,",
		       pev_version());
	pev__jb_str(out, "\"categories\":[{\"name\":\"User\",\"color\":\"yellow\",\"subcategories\":"
		    "[\"Other\"]},{\"name\":\"Kernel\",\"color\":\"orange\",\"subcategories\":"
		    "[\"Other\"]},{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":"
		    "[\"Other\"]}],\"sampleUnits\":{\"time\":\"ms\",\"eventDelay\":\"ms\","
		    "\"threadCPUDelta\":\"ns\"},");
	write_marker_schema(out);
	pev__jb_str(out, "},\"libs\":[],\"pausedRanges\":[],\"processes\":[],\"threads\":[");
}

static void gecko_free(struct gecko *g)
{
	free(g->sym_stamp);
	free(g->sym_row);
	free(g->rows);
	free(g->slot_stamp);
	free(g->slot_stack);
	pev__pairmap_free(&g->stack_map);
	free(g->stacks);
	free(g->offcpu);
}

static int gecko_alloc(struct gecko *g)
{
	size_t syms = g->p->nr_syms ? g->p->nr_syms : 1;
	size_t slots = g->p->nr_samples ? g->p->nr_samples : 1;

	g->sym_stamp = calloc(syms, sizeof(*g->sym_stamp));
	g->sym_row = malloc(syms * sizeof(*g->sym_row));
	g->rows = malloc(syms * sizeof(*g->rows));
	g->slot_stamp = calloc(slots, sizeof(*g->slot_stamp));
	g->slot_stack = malloc(slots * sizeof(*g->slot_stack));
	return g->sym_stamp && g->sym_row && g->rows && g->slot_stamp && g->slot_stack ? 0 : -1;
}

/* The earliest time written: of the samples and markers. */
static uint64_t earliest(const struct pev_profile *p, const struct pev__tl_threads *t)
{
	uint64_t z = UINT64_MAX;

	for (size_t i = 0; i < t->nr_order; i++)
		if (p->tl[t->order[i]].time < z)
			z = p->tl[t->order[i]].time;
	for (size_t i = 0; i < p->nr_markers; i++)
		if (p->markers[i].start && p->markers[i].start < z)
			z = p->markers[i].start;
	return z == UINT64_MAX ? 0 : z;
}

int pev_profile_write_gecko(const struct pev_profile *p, FILE *out,
			    const struct pev_report_opts *opts, struct pev_error *err)
{
	static const char func[] = "pev_profile_write_gecko";
	struct pev_report_opts o;
	struct pev__tl_threads t;
	struct gecko g = {0};
	bool *want;
	int event, r;

	pev__error_clear(err);
	if ((r = pev__report_begin(p, out, opts, &o, &event, func, err)) < 0)
		return r;
	if (!p->timeline)
		return pev__bad_arg(err, func, "p", "keeps no timeline: call "
				    "pev_profile_keep_timeline() before adding samples, or load "
				    "it with PEV_REPLAY_TIMELINE");
	if (!(want = pev__tl_events(p, event)))
		return pev__report_nomem(err, func);
	if (pev__tl_threads_build(p, p->tl, p->nr_tl, want, true, &t)) {
		free(want);
		return pev__report_nomem(err, func);
	}
	g.p = p;
	g.jb.out = pev__report_stream(out, o.flags);
	g.flags = o.flags;
	g.zero = earliest(p, &t);
	r = g.jb.out ? gecko_alloc(&g) : -1;
	if (!r) {
		write_meta(&g, want, &t);
		for (size_t i = 0; i < t.nr_threads && !r; i++) {
			if (i)
				pev__jb_char(&g.jb, ',');
			r = write_thread(&g, &t, &t.threads[i], i == 0);
		}
		pev__jb_str(&g.jb, "]}\n");
		pev__jb_flush(&g.jb);
	}
	gecko_free(&g);
	pev__tl_threads_free(&t);
	free(want);
	if (r)
		r = pev__report_nomem(err, func);
	return g.jb.out ? pev__report_finish(g.jb.out, out, r, func, err) : r;
}

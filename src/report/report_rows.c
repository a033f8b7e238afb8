/* SPDX-License-Identifier: MIT */
/*
 * report_rows.c - the entries of the overhead table: samples grouped by
 * the sort keys, with self and inclusive (children) periods, filtered by
 * the percentage limit and sorted as perf sorts them. The table, its call
 * graphs and the JSON writer all start from here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "report/report_internal.h"

static const struct {
	const char *name;
	enum pev__key key;
} key_names[] = {
	{"comm", PEV__KEY_COMM}, {"pid", PEV__KEY_PID}, {"process", PEV__KEY_PROCESS},
	{"tid", PEV__KEY_TID},   {"cpu", PEV__KEY_CPU}, {"dso", PEV__KEY_DSO},
	{"sym", PEV__KEY_SYM},   {"symbol", PEV__KEY_SYM}, {"srcline", PEV__KEY_SRCLINE},
	{"trace", PEV__KEY_TRACE}, {"cgroup", PEV__KEY_CGROUP},
};

const char *pev__key_name(enum pev__key k)
{
	for (size_t i = 0; i < PEV_ARRAY_SIZE(key_names); i++)
		if (key_names[i].key == k)
			return key_names[i].name;
	return "?";
}

int pev__keys_parse(const char *sort, struct pev__keys *keys, const char *func,
		    struct pev_error *err)
{
	const char *s = sort ? sort : "comm,dso,sym";

	keys->n = 0;
	while (*s) {
		size_t len = strcspn(s, ",");
		size_t i;

		for (i = 0; i < PEV_ARRAY_SIZE(key_names); i++)
			if (strlen(key_names[i].name) == len &&
			    strncmp(key_names[i].name, s, len) == 0)
				break;
		if (i == PEV_ARRAY_SIZE(key_names) || keys->n == PEV__MAX_KEYS) {
			pev__error_start(err, PEV_EPARSE, 0, NULL, NULL, true);
			pev__error_field(err, "opts.sort");
			pev__error_of(err)->position = (int)(s - (sort ? sort : ""));
			pev__error_of(err)->length = (int)len;
			if (i == PEV_ARRAY_SIZE(key_names)) {
				pev__error_msg(err, "%s: unknown sort key '%.*s'", func, (int)len, s);
				pev__error_hint(err, "sort keys are comm, pid, process, tid, cpu, dso, "
						     "sym, srcline, trace and cgroup, separated by "
						     "commas (\"comm,dso,sym\")");
			} else {
				pev__error_msg(err, "%s: more than %d sort keys", func,
					       PEV__MAX_KEYS);
			}
			return PEV_EPARSE;
		}
		keys->k[keys->n++] = key_names[i].key;
		s += len;
		if (*s == ',')
			s++;
	}
	if (keys->n == 0) {
		pev__error_start(err, PEV_EPARSE, 0, NULL, NULL, true);
		pev__error_field(err, "opts.sort");
		pev__error_msg(err, "%s: no sort key given", func);
		pev__error_hint(err, "use for example \"comm,dso,sym\"");
		return PEV_EPARSE;
	}
	return 0;
}

static bool has_key(const struct pev__keys *k, enum pev__key key)
{
	for (unsigned i = 0; i < k->n; i++)
		if (k->k[i] == key)
			return true;
	return false;
}

/* The key values a sample's frame (or no frame: sym PEV__SYM_NONE) gives. */
struct row_key {
	uint32_t comm, dso, sym;
	int32_t pid, tid, cpu;
	uint32_t src_file, src_pos;
	uint32_t trace;
	uint32_t cgroup;
};

static bool row_eq(const void *owner, uint32_t id, const void *key)
{
	const struct pev__rows *r = owner;
	const struct pev__row *a = &r->row[id - 1];
	const struct row_key *b = key;

	return a->comm == b->comm && a->dso == b->dso && a->sym == b->sym && a->pid == b->pid &&
	       a->tid == b->tid && a->cpu == b->cpu && a->src_file == b->src_file &&
	       a->src_pos == b->src_pos && a->trace == b->trace && a->cgroup == b->cgroup;
}

struct key_mask {
	bool comm, pid, tid, cpu, dso, sym, srcline, trace, cgroup;
};

static void make_key(const struct pev_profile *p, const struct key_mask *m,
		     const struct pev__sample *s, uint32_t sym, uint32_t frame, struct row_key *k)
{
	const struct pev__frame *f = m->srcline && frame ? &p->frames[frame] : NULL;

	/* A line where the frame has one, else the frame itself (perf: "sym+offset"). */
	k->src_file = f && f->line ? f->file : 0;
	k->src_pos = !f ? 0 : f->line ? f->line : frame;
	k->comm = m->comm ? s->comm : 0;
	k->pid = m->pid ? s->pid : 0;
	k->tid = m->tid ? s->tid : 0;
	k->cpu = m->cpu ? s->cpu : 0;
	k->dso = m->dso ? p->syms[sym].dso : 0;
	k->sym = m->sym ? sym : 0;
	k->trace = m->trace ? s->trace : 0;
	k->cgroup = m->cgroup ? s->cgroup : 0;
}

/*
 * Finds or adds the row of key k, first met in sample s at symbol sym;
 * returns its index + 1, 0 on ENOMEM.
 */
static uint32_t row_get(struct pev__rows *r, const struct row_key *k, const struct pev__sample *s,
			uint32_t sym)
{
	uint64_t h = pev__hash_u64(PEV__HASH_SEED, (uint64_t)k->comm << 32 | k->dso);
	uint32_t id;

	h = pev__hash_u64(h, (uint64_t)k->sym << 32 | (uint32_t)k->pid);
	h = pev__hash_u64(h, (uint64_t)(uint32_t)k->tid << 32 | (uint32_t)k->cpu);
	h = pev__hash_u64(h, (uint64_t)k->src_file << 32 | k->src_pos);
	h = pev__hash_u64(h, (uint64_t)k->cgroup << 32 | k->trace);
	id = pev__idset_find(&r->set, (uint32_t)h, row_eq, r, k);
	if (id)
		return id;
	/* Row ids start at 1 in the set; row[] is indexed by id - 1. */
	if (r->n == UINT32_MAX - 1 ||
	    pev__grow((void **)&r->row, &r->cap, (size_t)r->n + 1, sizeof(*r->row)))
		return 0;
	memset(&r->row[r->n], 0, sizeof(r->row[r->n]));
	r->row[r->n].comm = k->comm;
	r->row[r->n].dso = k->dso;
	r->row[r->n].sym = k->sym;
	r->row[r->n].pid = k->pid;
	r->row[r->n].tid = k->tid;
	r->row[r->n].cpu = k->cpu;
	r->row[r->n].src_file = k->src_file;
	r->row[r->n].src_pos = k->src_pos;
	r->row[r->n].trace = k->trace;
	r->row[r->n].cgroup = k->cgroup;
	r->row[r->n].shown_comm = s->comm;
	r->row[r->n].shown_tid = s->tid;
	r->row[r->n].first_unresolved = !r->p->syms[sym].name;
	r->row[r->n].hash = (uint32_t)h;
	if (pev__idset_add(&r->set, (uint32_t)h, r->n + 1))
		return 0;
	if (r->nr_members > 1) {
		size_t per = (size_t)r->nr_members * 2;
		if (pev__grow((void **)&r->sums, &r->cap_sums, (r->n + 1) * per, sizeof(*r->sums)))
			return 0;
		memset(r->sums + r->n * per, 0, per * sizeof(*r->sums));
	}
	return ++r->n;
}

/*
 * The symbol a frame of a sample's chain gives an entry of children mode:
 * with PEV_REPORT_INLINE_MARKS, as perf, every frame's, inlined ones and
 * debuginfo names included (one entry per function holding them); else the symbol of every frame not inlined
 * (PEV__SYM_NONE for an inlined one: none).
 */
static uint32_t chain_sym(const struct pev_profile *p, uint32_t frame, unsigned flags)
{
	const struct pev__frame *f = &p->frames[frame];

	if (flags & PEV_REPORT_INLINE_MARKS)
		return f->esym;
	return (f->flags & PEV_FRAME_INLINED) ? UINT32_MAX : f->sym;
}

/* Calls back for each (row, position) a sample contributes to. */
struct walk {
	struct pev__rows *r;
	struct key_mask m;
	int pass; /* 0: sums, 1: count members, 2: fill members */
	uint32_t *fill;
};

static int contribute(struct walk *w, uint32_t si, uint32_t row, uint32_t pos, bool self)
{
	struct pev__rows *r = w->r;
	struct pev__row *x = &r->row[row - 1];
	const struct pev__sample *s = &r->p->samples[si];
	bool leader = s->event == r->event;

	/* A group's call graphs are its leader's. */
	if (w->pass && !leader)
		return 0;
	if (r->children) {
		if (x->stamp == si + 1)
			return 0;
		x->stamp = si + 1;
	} else if (!self) {
		return 0;
	}
	switch (w->pass) {
	case 0:
		if (r->nr_members > 1) {
			uint64_t *sum = r->sums + ((size_t)(row - 1) * r->nr_members +
						   (s->event - r->event)) * 2;
			sum[0] += self ? s->period : 0;
			sum[1] += r->children ? s->period : 0;
		}
		if (!leader)
			break;
		if (self) {
			x->self += s->period;
			x->self_samples += s->count;
		}
		if (r->children) {
			x->children += s->period;
			x->children_samples += s->count;
		}
		break;
	case 1:
		r->mem_off[row]++;
		break;
	default: {
		struct pev__member *m = &r->mem[w->fill[row - 1]++];
		m->sample = si;
		m->pos = pos & 0x7fffffffu;
		m->self = self;
		break;
	}
	}
	return 0;
}

static int walk_samples(struct walk *w)
{
	struct pev__rows *r = w->r;
	const struct pev_profile *p = r->p;
	bool frame_keys = w->m.dso || w->m.sym || w->m.srcline;

	for (uint32_t si = 0; si < p->nr_samples; si++) {
		const struct pev__sample *s = &p->samples[si];
		const uint32_t *st = pev__sample_stack(p, s);
		unsigned self = pev__sample_self(p, s), lo, hi;
		uint32_t sym = s->nr ? p->frames[st[self]].sym : PEV__SYM_NONE;
		struct row_key k;
		uint32_t row;

		if (s->event < r->event || s->event - r->event >= r->nr_members ||
		    !pev__filter_sample(&r->filter, p, s))
			continue;
		/* srcline: the line of the sampled address, inlined code's own (perf's). */
		make_key(p, &w->m, s, sym, s->nr ? st[0] : 0, &k);
		if (!(row = row_get(r, &k, s, sym)))
			return -ENOMEM;
		/* The self row first: in children mode its position is the self frame. */
		if (pev__filter_sym(&r->filter, sym))
			contribute(w, si, row, self, true);
		if (!r->children || !frame_keys)
			continue;
		pev__rows_window(r, s, &lo, &hi);
		for (unsigned j = lo; j < hi; j++) {
			unsigned i = r->win.root_first ? hi - 1 - (j - lo) : j;

			uint32_t csym = chain_sym(p, st[i], r->flags);

			if ((i == self && csym == sym) || csym == UINT32_MAX ||
			    !pev__filter_sym(&r->filter, csym))
				continue;
			make_key(p, &w->m, s, csym, st[i], &k);
			if (!(row = row_get(r, &k, s, csym)))
				return -ENOMEM;
			contribute(w, si, row, i, false);
		}
	}
	return 0;
}

struct sort_ctx {
	const struct pev__rows *r;
};

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b ? 1 : 0;
}

static int cmp_rows(const void *a, const void *b, void *ctx)
{
	const struct pev__rows *r = ctx;
	const struct pev__row *x = &r->row[*(const uint32_t *)a], *y = &r->row[*(const uint32_t *)b];
	char bx[64], by[64];
	int c;

	if ((c = cmp_u64_desc(pev__row_period(r, x), pev__row_period(r, y))))
		return c;
	if ((c = cmp_u64_desc(x->self, y->self)))
		return c;
	/* A group's members by their self periods in turn (perf: not their children's). */
	for (unsigned k = 1; k < r->nr_members; k++)
		if ((c = cmp_u64_desc(pev__row_sum(r, (uint32_t)(x - r->row), k, false),
				      pev__row_sum(r, (uint32_t)(y - r->row), k, false))))
			return c;
	for (unsigned i = 0; i < r->keys.n; i++) {
		enum pev__key k = r->keys.k[i];
		/* As perf: cgroups that weigh the same by their ids (then by path). */
		if (k == PEV__KEY_CGROUP &&
		    (c = pev__cmp_u64(pev__profile_cgroup_id(r->p, x->cgroup),
				      pev__profile_cgroup_id(r->p, y->cgroup))))
			return c;
		switch (k) {
		case PEV__KEY_PROCESS:
			c = (x->pid > y->pid) - (x->pid < y->pid);
			break;
		case PEV__KEY_PID:
		case PEV__KEY_TID:
			c = (x->tid > y->tid) - (x->tid < y->tid);
			break;
		case PEV__KEY_CPU:
			c = (x->cpu > y->cpu) - (x->cpu < y->cpu);
			break;

		case PEV__KEY_SYM: {
			const struct pev__sym *sx = &r->p->syms[x->sym], *sy = &r->p->syms[y->sym];
			/* As perf: named symbols before unresolved addresses. */
			c = !sx->name - !sy->name;
			if (c)
				break;
			/* Unresolved ones shown as zero-padded hex: in the order of their addresses. */
			if (!sx->name) {
				c = pev__cmp_u64(sx->address, sy->address);
				if (!c)
					c = (x->sym > y->sym) - (x->sym < y->sym);
				break;
			}
		}
			/* fall through */
		default:
			c = strcmp(pev__row_text(r, x, k, bx, sizeof(bx)),
				   pev__row_text(r, y, k, by, sizeof(by)));
			if (!c && k == PEV__KEY_SYM)
				c = (x->sym > y->sym) - (x->sym < y->sym);
			break;
		}
		if (c)
			return c;
	}
	return (x > y) - (x < y);
}

/* perf's srcline: "file.c:42" (the file's base name), else "function+offset", else "??:0". */
static const char *srcline_text(const struct pev_profile *p, const struct pev__row *row,
				char *buf, size_t size)
{
	const struct pev__frame *f;
	const char *name;

	if (row->src_file) {
		const char *file = pev__strtab_get(&p->str, row->src_file);
		const char *slash = strrchr(file, '/');
		snprintf(buf, size, "%s:%" PRIu32, slash ? slash + 1 : file, row->src_pos);
		return buf;
	}
	f = row->src_pos ? &p->frames[row->src_pos] : NULL;
	name = f ? pev__strtab_get(&p->str, p->syms[f->sym].name) : NULL;
	if (name)
		snprintf(buf, size, "%s+%" PRIu64, name, f->offset);
	else
		pev__strlcpy(buf, "??:0", size);
	return buf;
}

const char *pev__row_text(const struct pev__rows *r, const struct pev__row *row, enum pev__key k,
			  char *buf, size_t size)
{
	const struct pev_profile *p = r->p;
	uint32_t name;

	switch (k) {
	case PEV__KEY_COMM:
		return pev__strtab_get(&p->str, row->comm);
	case PEV__KEY_PROCESS:
	case PEV__KEY_PID:
	case PEV__KEY_TID: {
		/* As perf: a thread by its last name (a process by its first thread's),
		 * not the one it had at a sample (before an exec, ...). */
		int32_t id = k == PEV__KEY_PROCESS ? row->pid : row->tid;
		name = pev__profile_thread_name(p, id);
		snprintf(buf, size, "%7" PRId32 ":%s", id,
			 pev__strtab_get(&p->str, name ? name : row->shown_comm));
		return buf;
	}
	case PEV__KEY_CPU:
		snprintf(buf, size, "%03" PRId32, row->cpu);
		return buf;
	case PEV__KEY_DSO:
		if (!row->dso)
			return "[unknown]";
		if (r->flags & PEV_REPORT_FULL_PATHS)
			return pev__strtab_get(&p->str, row->dso);
		return pev__dso_base(pev__strtab_get(&p->str, row->dso), buf, size);
	case PEV__KEY_SYM: {
		const struct pev__sym *y = &p->syms[row->sym];
		if (y->name)
			return pev__strtab_get(&p->str, y->name);
		snprintf(buf, size, "%#.16" PRIx64, y->address); /* as perf: 16 zeros for zero */
		return buf;
	}
	case PEV__KEY_SRCLINE:
		return srcline_text(p, row, buf, size);
	case PEV__KEY_TRACE: {
		const char *t = pev__strtab_get(&p->str, row->trace);
		return t ? t : "";
	}
	case PEV__KEY_CGROUP: {
		/* As perf: "N/A" for a sample that carries no cgroup. */
		const char *t = pev__strtab_get(&p->str, row->cgroup);
		return t ? t : "N/A";
	}
	}
	return "";
}

bool pev__row_used(const struct pev__rows *r, uint32_t i)
{
	const struct pev__row *x = &r->row[i];

	if (pev__row_period(r, x) || x->self_samples || x->children_samples)
		return true;
	for (unsigned k = 1; k < r->nr_members; k++)
		if (pev__row_sum(r, i, k, false) || pev__row_sum(r, i, k, true))
			return true;
	return false;
}

int pev__rows_build(const struct pev_profile *p, unsigned event, const struct pev__keys *keys,
		    bool children, const struct pev__window *win, double percent_limit,
		    bool members, struct pev__rows *rows, const struct pev_report_opts *o)
{
	return pev__rows_build_group(p, event, 1, keys, children, win, percent_limit, members,
				     rows, o);
}

int pev__rows_build_group(const struct pev_profile *p, unsigned event, unsigned nr_members,
			  const struct pev__keys *keys, bool children,
			  const struct pev__window *win, double percent_limit, bool members,
			  struct pev__rows *rows, const struct pev_report_opts *o)
{
	struct walk w = {.r = rows};
	uint32_t *fill = NULL;

	memset(rows, 0, sizeof(*rows));
	rows->p = p;
	rows->keys = *keys;
	rows->children = children;
	if (win)
		rows->win = *win;
	rows->event = event;
	rows->nr_members = nr_members ? nr_members : 1;
	rows->total = p->events[event].total;
	rows->samples = p->events[event].samples;
	rows->flags = o ? o->flags : 0;
	if (pev__filter_init(&rows->filter, p, o))
		goto nomem;
	w.m.comm = has_key(keys, PEV__KEY_COMM);
	/* A thread belongs to one process: perf's pid key keeps both ids. */
	w.m.pid = has_key(keys, PEV__KEY_PROCESS) || has_key(keys, PEV__KEY_PID);
	w.m.tid = has_key(keys, PEV__KEY_PID) || has_key(keys, PEV__KEY_TID);
	w.m.cpu = has_key(keys, PEV__KEY_CPU);
	w.m.dso = has_key(keys, PEV__KEY_DSO);
	w.m.sym = has_key(keys, PEV__KEY_SYM);
	w.m.srcline = has_key(keys, PEV__KEY_SRCLINE);
	w.m.trace = has_key(keys, PEV__KEY_TRACE);
	w.m.cgroup = has_key(keys, PEV__KEY_CGROUP);
	if (walk_samples(&w))
		goto nomem;
	/* Children without frame keys: every row's inclusive sum is its self sum. */
	if (children && !(w.m.dso || w.m.sym || w.m.srcline))
		for (uint32_t i = 0; i < rows->n; i++) {
			rows->row[i].children = rows->row[i].self;
			rows->row[i].children_samples = rows->row[i].self_samples;
			for (unsigned k = 0; k < rows->nr_members && rows->nr_members > 1; k++) {
				uint64_t *sum = rows->sums + ((size_t)i * rows->nr_members + k) * 2;
				sum[1] = sum[0];
			}
		}

	rows->order = malloc((rows->n ? rows->n : 1) * sizeof(*rows->order));
	if (!rows->order)
		goto nomem;
	for (uint32_t i = 0; i < rows->n; i++) {
		const struct pev__row *x = &rows->row[i];
		if (!pev__row_used(rows, i))
			continue;
		if (percent_limit > 0 &&
		    pev__percent(pev__row_period(rows, x), rows->total) < percent_limit)
			continue;
		rows->order[rows->nr_order++] = i;
	}
	qsort_r(rows->order, rows->nr_order, sizeof(*rows->order), cmp_rows, rows);

	if (!members)
		return 0;
	/* Members by counting sort: count per row, prefix sums, fill. */
	rows->mem_off = calloc((size_t)rows->n + 1, sizeof(*rows->mem_off));
	fill = malloc((rows->n ? rows->n : 1) * sizeof(*fill));
	if (!rows->mem_off || !fill)
		goto nomem;
	for (uint32_t i = 0; i < rows->n; i++)
		rows->row[i].stamp = 0;
	w.pass = 1;
	if (walk_samples(&w))
		goto nomem;
	for (uint32_t i = 0; i < rows->n; i++) {
		rows->mem_off[i + 1] += rows->mem_off[i];
		fill[i] = rows->mem_off[i];
		rows->row[i].stamp = 0;
	}
	rows->mem = malloc((rows->mem_off[rows->n] ? rows->mem_off[rows->n] : 1) *
			   sizeof(*rows->mem));
	if (!rows->mem)
		goto nomem;
	w.pass = 2;
	w.fill = fill;
	if (walk_samples(&w))
		goto nomem;
	free(fill);
	return 0;
nomem:
	free(fill);
	pev__rows_free(rows);
	return -ENOMEM;
}

void pev__rows_free(struct pev__rows *rows)
{
	free(rows->row);
	pev__idset_free(&rows->set);
	free(rows->order);
	free(rows->mem);
	free(rows->mem_off);
	free(rows->sums);
	pev__filter_free(&rows->filter);
	memset(rows, 0, sizeof(*rows));
}

void pev__rows_window(const struct pev__rows *r, const struct pev__sample *s, unsigned *lo,
		      unsigned *hi)
{
	const uint32_t *st = pev__sample_stack(r->p, s);
	unsigned n = s->nr, counted = 0;

	if (r->win.max_stack && r->win.max_stack < s->nr) {
		for (n = 0; n < s->nr; n++) {
			unsigned i = r->win.root_first ? s->nr - 1 - n : n;
			uint32_t f = r->p->frames[st[i]].flags;
			/* From the root, an address's inlined functions follow it. */
			if (counted == r->win.max_stack && !(r->win.root_first && (f & PEV_FRAME_INLINED)))
				break;
			if (!(f & (PEV_FRAME_INLINED | PEV_FRAME_LINK_REGISTER)))
				counted++;
		}
	}
	*lo = r->win.root_first ? s->nr - n : 0;
	*hi = r->win.root_first ? s->nr : n;
}


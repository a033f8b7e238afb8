/* SPDX-License-Identifier: MIT */
/*
 * report_callgraph.c - the call graph of one table entry: the stacks of
 * its samples merged function by function into a tree, and drawn as perf
 * draws it in one of its print types (graph, fractal, flat, folded):
 *
 *     87.00%  w  w  [.] leaf
 *             |
 *             ---leaf
 *                |
 *                |--74.96%--a
 *                |          main
 *                |
 *                 --12.04%--main
 *
 * The stacks run from the entry's frame to its callers (callee order) or
 * from the outermost caller down (caller order). With children, the
 * samples the entry took itself give their whole chain, so its graph
 * starts with the branch of its own callers; the samples of its callees
 * give the chain from the entry on.
 *
 * A node with one child and no stack ending in it continues on the next
 * line without a new branch (perf's merged chain node).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

static bool node_eq(const void *owner, uint32_t id, const void *key)
{
	const struct pev__cgraph *g = owner;
	const uint32_t *k = key;

	return g->node[id].parent == k[0] && g->node[id].key == k[1];
}

/* The child of parent with key; added when absent. Returns its index, 0 on ENOMEM. */
static uint32_t child_get(struct pev__cgraph *g, uint32_t parent, uint32_t key)
{
	uint32_t k[2] = {parent, key};
	uint32_t h = (uint32_t)pev__hash_u64(PEV__HASH_SEED, (uint64_t)parent << 32 | key);
	uint32_t id = pev__idset_find(&g->set, h, node_eq, g, k);
	struct pev__cg_node *n;

	if (id)
		return id;
	if (g->n == UINT32_MAX ||
	    pev__grow((void **)&g->node, &g->cap, (size_t)g->n + 1, sizeof(*g->node)) ||
	    pev__idset_add(&g->set, h, g->n))
		return 0;
	n = &g->node[g->n];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->key = key;
	n->hash = h;
	return g->n++;
}

static uint32_t frame_key(const struct pev_profile *p, uint32_t frame, unsigned flags)
{
	uint32_t sym = (flags & PEV_REPORT_INLINE_MARKS) ? p->frames[frame].gsym : p->frames[frame].sym;

	if (!p->syms[sym].name && !(flags & PEV_REPORT_ADDRESSES))
		return PEV__CG_UNKNOWN;
	return sym;
}

const char *pev__cg_label(const struct pev_profile *p, const struct pev__cg_node *n,
			  unsigned flags, char *buf, size_t size)
{
	if (n->key == PEV__CG_UNKNOWN)
		return "[unknown]";
	/* As perf: an unresolved frame by its run-time address, not its offset in a file. */
	if (!p->syms[n->key].name && (flags & PEV_REPORT_ADDRESSES) && n->address) {
		snprintf(buf, size, "%#" PRIx64, n->address);
		return buf;
	}
	if ((flags & PEV_REPORT_INLINE_MARKS) && p->syms[n->key].inlined) {
		snprintf(buf, size, "%s (inlined)", pev__strtab_get(&p->str, p->syms[n->key].name));
		return buf;
	}
	return pev__sym_label(p, n->key, flags & PEV_REPORT_ADDRESSES, buf, size);
}

struct sort_ctx {
	const struct pev_profile *p;
	const struct pev__cgraph *g;
	unsigned flags;
};

static int cmp_kids(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	const struct pev__cg_node *x = &c->g->node[*(const uint32_t *)a];
	const struct pev__cg_node *y = &c->g->node[*(const uint32_t *)b];
	char bx[512], by[512];
	int r;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	r = strcmp(pev__cg_label(c->p, x, c->flags, bx, sizeof(bx)),
		   pev__cg_label(c->p, y, c->flags, by, sizeof(by)));
	if (r)
		return r;
	return (x->key > y->key) - (x->key < y->key);
}

int pev__cgraph_build(const struct pev__rows *r, uint32_t row, enum pev_report_callgraph mode,
		      unsigned flags, struct pev__cgraph *g)
{
	const struct pev_profile *p = r->p;
	struct sort_ctx sc = {p, g, flags};
	uint32_t *fill = NULL;

	memset(g, 0, sizeof(*g));
	if (pev__grow((void **)&g->node, &g->cap, 1, sizeof(*g->node)))
		return -ENOMEM;
	memset(&g->node[0], 0, sizeof(g->node[0]));
	g->n = 1;
	for (uint32_t m = r->mem_off[row]; m < r->mem_off[row + 1]; m++) {
		const struct pev__sample *s = &p->samples[r->mem[m].sample];
		const uint32_t *st = pev__sample_stack(p, s);
		int pos = (int)r->mem[m].pos, self = (int)pev__sample_self(p, s), end, step;
		unsigned lo, hi;
		uint32_t node = 0;

		/*
		 * As perf: the sampled address's inline frames lead its chain. The
		 * self frame's inline name (libc's clock_gettime@@GLIBC_2.17 is
		 * "__clock_gettime (inlined)" in chains) is a callee's entry there:
		 * its graph runs from it down, not from the outermost caller.
		 */
		if (pos == self && !r->mem[m].self)
			self = -1;
		else if ((flags & PEV_REPORT_INLINE_MARKS) && pos == self)
			pos = self = 0;
		/* The entry's own samples give their whole chain (within the window)
		 * down to the self frame; those of its callees the chain from the entry. */
		pev__rows_window(r, s, &lo, &hi);
		if (mode == PEV_REPORT_CALLGRAPH_CALLEE) {
			/* from the entry up to the outermost caller */
			pos = pos > (int)lo ? pos : (int)lo;
			end = (int)hi;
			step = 1;
		} else if (pos == self) {
			/* from the outermost caller down to the self frame */
			pos = (int)hi - 1;
			end = (self > (int)lo ? self : (int)lo) - 1;
			step = -1;
		} else {
			/* from the entry down to the leaf */
			end = (int)lo - 1;
			step = -1;
		}
		g->node[0].period += s->period;
		g->node[0].samples += s->count;
		if (s->nr == 0) {
			/* A sample without frames: its entry is the unknown symbol. */
			if (!(node = child_get(g, 0, PEV__CG_UNKNOWN)))
				goto nomem;
			g->node[node].period += s->period;
			g->node[node].samples += s->count;
			continue;
		}
		for (int i = pos; step > 0 ? i < end : i > end; i += step) {
			if ((flags & PEV_REPORT_NO_INLINE) && (p->frames[st[i]].flags & PEV_FRAME_INLINED))
				continue;
			if (!(node = child_get(g, node, frame_key(p, st[i], flags))))
				goto nomem;
			if (!g->node[node].address)
				g->node[node].address = p->frames[st[i]].address;
			g->node[node].period += s->period;
			g->node[node].samples += s->count;
		}
	}
	/* Children lists: count, prefix sums, fill, sort. */
	g->kids = malloc(g->n * sizeof(*g->kids));
	fill = calloc(g->n, sizeof(*fill));
	if (!g->kids || !fill)
		goto nomem;
	for (uint32_t i = 1; i < g->n; i++)
		g->node[g->node[i].parent].nr++;
	for (uint32_t i = 0, at = 0; i < g->n; i++) {
		g->node[i].child = at;
		fill[i] = at;
		at += g->node[i].nr;
	}
	for (uint32_t i = 1; i < g->n; i++)
		g->kids[fill[g->node[i].parent]++] = i;
	for (uint32_t i = 0; i < g->n; i++)
		if (g->node[i].nr > 1)
			qsort_r(g->kids + g->node[i].child, g->node[i].nr, sizeof(*g->kids), cmp_kids,
				&sc);
	free(fill);
	return 0;
nomem:
	free(fill);
	pev__cgraph_free(g);
	return -ENOMEM;
}

void pev__cgraph_free(struct pev__cgraph *g)
{
	free(g->node);
	free(g->kids);
	pev__idset_free(&g->set);
	memset(g, 0, sizeof(*g));
}

/* ---- drawing ------------------------------------------------------------------------------ */

struct draw {
	FILE *out;
	const struct pev_profile *p;
	const struct pev__cgraph *g;
	const struct pev__cg_style *st;
	uint64_t abs_min; /* graph, flat, folded: the least period shown */
	unsigned margin;  /* spaces after the fixed 12 */
	char *bar;        /* per level: whether its line ("|") continues */
	bool printed;
	char name[1024]; /* the label being printed ("name (inlined)" does not fit callers' bufs) */
	char shown[4096]; /* a label with control bytes, escaped (pev_text_escape) */
};

/* The node a chain continues to: its only child, when no stack ends at node. */
static uint32_t chain_next(const struct pev__cgraph *g, uint32_t node)
{
	const struct pev__cg_node *n = &g->node[node];

	if (n->nr == 1 && g->node[g->kids[n->child]].period == n->period &&
	    g->node[g->kids[n->child]].samples == n->samples)
		return g->kids[n->child];
	return 0;
}

/* The last node of the chain that starts at node. */
static uint32_t chain_last(const struct pev__cgraph *g, uint32_t node)
{
	for (uint32_t c = chain_next(g, node); c; c = chain_next(g, node))
		node = c;
	return node;
}

/* The period and samples of the stacks that go on below node. */
static void below(const struct pev__cgraph *g, uint32_t node, uint64_t *period, uint64_t *samples)
{
	const struct pev__cg_node *n = &g->node[node];

	*period = *samples = 0;
	for (uint32_t i = 0; i < n->nr; i++) {
		*period += g->node[g->kids[n->child + i]].period;
		*samples += g->node[g->kids[n->child + i]].samples;
	}
}

/* A node's label as printed: control bytes and invalid UTF-8 escaped. */
static const char *label(struct draw *d, uint32_t node, char *buf, size_t size)
{
	const struct pev__cg_node *n = &d->g->node[node];
	const char *t;

	if (n->key != PEV__CG_UNKNOWN && d->p->syms[n->key].inlined)
		t = pev__cg_label(d->p, n, d->st->flags, d->name, sizeof(d->name));
	else
		t = pev__cg_label(d->p, n, d->st->flags, buf, size);
	if (pev_text_is_clean(t))
		return t;
	pev_text_escape(d->shown, sizeof(d->shown), t, 0);
	return d->shown;
}

static void value(const struct draw *d, uint64_t period, uint64_t samples, uint64_t total)
{
	switch (d->st->value) {
	case PEV_REPORT_CG_PERIOD:
		fprintf(d->out, "%" PRIu64, period);
		break;
	case PEV_REPORT_CG_COUNT:
		fprintf(d->out, "%" PRIu64, samples);
		break;
	default:
		fprintf(d->out, "%.2f%%", pev__percent(period, total));
		break;
	}
}

static void left(const struct draw *d)
{
	fprintf(d->out, "            %*s", (int)d->margin, "");
}

/*
 * The children of `parent` a graph shows, at most max: those at or above
 * the graph's threshold, of the total (graph) or of the stacks going on
 * below parent (fractal). Returns how many, written to kids[].
 */
static uint32_t shown_kids(const struct draw *d, uint32_t parent, uint32_t *kids)
{
	const struct pev__cg_node *n = &d->g->node[parent];
	uint64_t min = d->abs_min, sum, cnt;
	uint32_t k = 0;

	if (d->st->print == PEV_REPORT_CG_FRACTAL) {
		below(d->g, parent, &sum, &cnt);
		double x = d->st->limit < 0 ? 0 : (double)sum * d->st->limit / 100.0;

		min = (uint64_t)x;
		min += (double)min < x; /* rounded up */
	}
	for (uint32_t i = 0; i < n->nr; i++)
		if (d->g->node[d->g->kids[n->child + i]].period >= min)
			kids[k++] = d->g->kids[n->child + i];
	return k;
}

/* One frame of a branch: its bars, and on the branch's first line "--value--". */
static void frame_line(struct draw *d, unsigned depth, bool first, uint64_t period,
		       uint64_t samples, uint64_t total, const char *name)
{
	left(d);
	for (unsigned i = 0; i < depth; i++) {
		fputc(d->bar[i] ? '|' : ' ', d->out);
		if (first && i == depth - 1) {
			fputs("--", d->out);
			value(d, period, samples, total);
			fputs("--", d->out);
		} else {
			fputs("          ", d->out);
		}
	}
	fprintf(d->out, "%s\n", name);
	d->printed = true;
}

/* The branches below parent at level depth (1 for the first). */
static int branches(struct draw *d, uint32_t parent, uint64_t total, unsigned depth)
{
	bool fractal = d->st->print == PEV_REPORT_CG_FRACTAL;
	uint32_t *kids, n, shown = 0;
	uint64_t remaining = total, count = 0;
	char buf[32];

	if (!d->g->node[parent].nr)
		return 0;
	if (!(kids = malloc(d->g->node[parent].nr * sizeof(*kids))))
		return -ENOMEM;
	n = shown_kids(d, parent, kids);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = kids[i], last = chain_last(d->g, k);
		uint64_t next_total = total, cnt;

		remaining -= d->g->node[k].period;
		count += d->g->node[k].samples;
		/* The separator keeps this level's bar; the branch drops it when last. */
		d->bar[depth - 1] = 1;
		left(d);
		for (unsigned j = 0; j < depth; j++)
			fputs(d->bar[j] ? "|          " : "           ", d->out);
		fputc('\n', d->out);
		if (i + 1 == n && (!fractal || !remaining))
			d->bar[depth - 1] = 0;
		for (uint32_t c = k, first = 1; c; c = chain_next(d->g, c), first = 0)
			frame_line(d, depth, first, d->g->node[c].period, d->g->node[c].samples,
				   total, label(d, c, buf, sizeof(buf)));
		if (fractal)
			below(d->g, last, &next_total, &cnt);
		d->bar[depth] = 1;
		if (branches(d, last, next_total, depth + 1)) {
			free(kids);
			return -ENOMEM;
		}
		if (++shown == d->st->print_limit)
			break;
	}
	/* Fractal: what the branches shown leave out of their parent, as "[...]". */
	if (fractal && remaining && remaining != total) {
		uint64_t sum, cnt;

		below(d->g, parent, &sum, &cnt);
		if (d->st->value != PEV_REPORT_CG_COUNT || cnt > count) {
			d->bar[depth - 1] = 0;
			frame_line(d, depth, true, remaining, cnt - count, total, "[...]");
		}
	}
	free(kids);
	return 0;
}

static int draw_graph(struct draw *d)
{
	const struct pev__cgraph *g = d->g;
	uint32_t *top = NULL, parent = 0;
	uint64_t total = d->st->print == PEV_REPORT_CG_FRACTAL ? d->st->entry : d->st->total;
	char buf[32];
	int r;

	if (g->node[0].nr && !(top = malloc(g->node[0].nr * sizeof(*top))))
		return -ENOMEM;
	/* One chain holding the whole entry: "---name" and its frames, no value. */
	if (top && shown_kids(d, 0, top) && g->node[top[0]].period == d->st->entry) {
		unsigned frames = 0;
		bool started = false;

		for (uint32_t c = top[0], i = 0; c; c = chain_next(g, c), i++) {
			if (i == 0 && d->st->skip_first)
				continue;
			left(d);
			if (!started) {
				fputs("|\n", d->out);
				left(d);
				fputs("---", d->out);
				d->margin += 3;
				started = true;
			}
			fprintf(d->out, "%s\n", label(d, c, buf, sizeof(buf)));
			d->printed = true;
			if (++frames == d->st->print_limit)
				break;
		}
		parent = chain_last(g, top[0]);
	}
	free(top);
	d->bar[0] = 1;
	r = branches(d, parent, total, 1);
	if (d->printed)
		fputc('\n', d->out);
	return r;
}

/* A node's own stacks: those that end at it. */
static void own(const struct pev__cgraph *g, uint32_t node, uint64_t *period, uint64_t *samples)
{
	below(g, node, period, samples);
	*period = g->node[node].period - *period;
	*samples = g->node[node].samples - *samples;
}

struct chain_order {
	const uint64_t *own;  /* per node: the period of the stacks ending there */
	const uint32_t *rank; /* per node: its place in drawing order */
};

static int cmp_chains(const void *a, const void *b, void *arg)
{
	const struct chain_order *c = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (c->own[x] != c->own[y])
		return c->own[x] > c->own[y] ? -1 : 1;
	return (c->rank[x] > c->rank[y]) - (c->rank[x] < c->rank[y]);
}

/* The frames from the top down to node, each after `before`, separated by sep. */
static void path(struct draw *d, uint32_t node, const char *before, const char *sep)
{
	char buf[32];

	if (d->g->node[node].parent) {
		path(d, d->g->node[node].parent, before, sep);
		fputs(sep, d->out);
	}
	fprintf(d->out, "%s%s", before, label(d, node, buf, sizeof(buf)));
}

/* Flat and folded: every chain some stacks end in, most own weight first. */
static int draw_chains(struct draw *d)
{
	const struct pev__cgraph *g = d->g;
	uint32_t *list = malloc(g->n * sizeof(*list)), *rank = malloc(g->n * sizeof(*rank));
	uint64_t *ownp = malloc(g->n * sizeof(*ownp));
	struct chain_order co = {ownp, rank};
	bool folded = d->st->print == PEV_REPORT_CG_FOLDED;
	uint32_t n = 0, top = 0, k = 0;

	if (!list || !ownp || !rank) {
		free(list);
		free(ownp);
		free(rank);
		return -ENOMEM;
	}
	/* Depth first in drawing order (list doubles as the work stack), so that
	 * ties keep the graph's order. */
	list[top++] = 0;
	while (top) {
		uint32_t node = list[--top];
		const struct pev__cg_node *x = &g->node[node];

		rank[node] = n++;
		for (uint32_t i = x->nr; i-- > 0;)
			list[top++] = g->kids[x->child + i];
	}
	for (uint32_t i = 1; i < g->n; i++) {
		uint64_t samples;

		own(g, i, &ownp[i], &samples);
		if (ownp[i] && ownp[i] >= d->abs_min)
			list[k++] = i;
	}
	qsort_r(list, k, sizeof(*list), cmp_chains, &co);
	for (uint32_t i = 0; i < k && (!d->st->print_limit || i < d->st->print_limit); i++) {
		uint32_t c = list[i];
		uint64_t op, os;

		if (folded) {
			own(g, c, &op, &os);
			value(d, op, os, d->st->total);
			fputc(' ', d->out);
			path(d, c, "", ";");
			fputc('\n', d->out);
		} else {
			fputs("           ", d->out);
			value(d, g->node[c].period, g->node[c].samples, d->st->total);
			fputc('\n', d->out);
			path(d, c, "                ", "\n");
			fputs("\n\n", d->out);
		}
	}
	free(list);
	free(ownp);
	free(rank);
	return 0;
}

int pev__cgraph_print(FILE *out, const struct pev_profile *p, const struct pev__cgraph *g,
		      const struct pev__cg_style *st)
{
	struct draw d = {.out = out, .p = p, .g = g, .st = st};
	int r;

	if (st->limit > 0)
		d.abs_min = (uint64_t)((double)st->total * (st->limit / 100.0));
	if (st->print == PEV_REPORT_CG_FLAT || st->print == PEV_REPORT_CG_FOLDED)
		return draw_chains(&d);
	if (!(d.bar = calloc((size_t)g->n + 2, 1)))
		return -ENOMEM;
	r = draw_graph(&d);
	free(d.bar);
	return r;
}

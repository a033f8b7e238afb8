/* SPDX-License-Identifier: MIT */
/*
 * report_callgraph.c - the call graph of one table entry: the stacks of
 * its samples merged function by function into a tree, and drawn as perf
 * draws its "graph" mode:
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
 * A node with one child and no stack ending in it continues on the next
 * line without a new branch; percentages are of the event's total period.
 */
#include <errno.h>
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
	uint32_t sym = p->frames[frame].sym;

	if (!p->syms[sym].name && !(flags & PEV_REPORT_ADDRESSES))
		return PEV__CG_UNKNOWN;
	return sym;
}

const char *pev__cg_label(const struct pev_profile *p, const struct pev__cg_node *n,
			  unsigned flags, char *buf, size_t size)
{
	if (n->key == PEV__CG_UNKNOWN)
		return "[unknown]";
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
	char bx[32], by[32];
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
		int pos = (int)r->mem[m].pos, end, step;
		uint32_t node = 0;

		if (mode == PEV_REPORT_CALLGRAPH_CALLEE) {
			end = s->nr;
			step = 1;
		} else if (!r->children) {
			/* From the outermost caller down to the entry. */
			end = pos - 1;
			pos = (int)s->nr - 1;
			step = -1;
		} else {
			end = -1;
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
		for (int i = pos; i != end; i += step) {
			if ((flags & PEV_REPORT_NO_INLINE) && (p->frames[st[i]].flags & PEV_FRAME_INLINED))
				continue;
			if (!(node = child_get(g, node, frame_key(p, st[i], flags))))
				goto nomem;
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
	uint64_t total;
	double limit;
	unsigned flags;
	char *prefix; /* the bars and spaces in front of the current level */
	size_t len, cap;
};

static bool shown(const struct draw *d, uint32_t node)
{
	return d->limit < 0 || pev__percent(d->g->node[node].period, d->total) >= d->limit;
}

/* The node a chain continues to: its only child, when no stack ends at node. */
static uint32_t chain_next(const struct pev__cgraph *g, uint32_t node)
{
	const struct pev__cg_node *n = &g->node[node];

	if (n->nr == 1 && g->node[g->kids[n->child]].period == n->period &&
	    g->node[g->kids[n->child]].samples == n->samples)
		return g->kids[n->child];
	return 0;
}

static int push(struct draw *d, const char *s)
{
	size_t l = strlen(s);

	if (pev__grow((void **)&d->prefix, &d->cap, d->len + l + 1, 1))
		return -ENOMEM;
	memcpy(d->prefix + d->len, s, l + 1);
	d->len += l;
	return 0;
}

static const char *label(const struct draw *d, uint32_t node, char *buf, size_t size)
{
	return pev__cg_label(d->p, &d->g->node[node], d->flags, buf, size);
}

static int branches(struct draw *d, uint32_t node)
{
	const struct pev__cg_node *n = &d->g->node[node];
	uint32_t last = UINT32_MAX;
	char buf[32];

	for (uint32_t i = 0; i < n->nr; i++)
		if (shown(d, d->g->kids[n->child + i]))
			last = i;
	for (uint32_t i = 0; last != UINT32_MAX && i <= last; i++) {
		uint32_t k = d->g->kids[n->child + i], c;
		size_t keep = d->len;

		if (!shown(d, k))
			continue;
		fprintf(d->out, "%s|          \n", d->prefix);
		fprintf(d->out, "%s%c--%.2f%%--%s\n", d->prefix, i == last ? ' ' : '|',
			pev__percent(d->g->node[k].period, d->total), label(d, k, buf, sizeof(buf)));
		if (push(d, i == last ? "           " : "|          "))
			return -ENOMEM;
		for (c = chain_next(d->g, k); c; k = c, c = chain_next(d->g, k))
			fprintf(d->out, "%s%s\n", d->prefix, label(d, c, buf, sizeof(buf)));
		if (branches(d, k))
			return -ENOMEM;
		d->len = keep;
		d->prefix[keep] = '\0';
	}
	return 0;
}

int pev__cgraph_print(FILE *out, const struct pev_profile *p, const struct pev__cgraph *g,
		      uint64_t total, double limit, unsigned flags)
{
	struct draw d = {out, p, g, total, limit, flags, NULL, 0, 0};
	const struct pev__cg_node *root = &g->node[0];
	bool any = false;
	char buf[32];
	int r;

	for (uint32_t i = 0; i < root->nr; i++)
		any |= shown(&d, g->kids[root->child + i]);
	if (!any)
		return 0;
	if ((r = push(&d, "            ")))
		return r;
	if (root->nr == 1 && g->node[g->kids[root->child]].period == root->period) {
		/* One chain holds everything: "---name", its continuation, then branches. */
		uint32_t k = g->kids[root->child], c;

		fprintf(out, "%s|\n", d.prefix);
		fprintf(out, "%s---%s\n", d.prefix, label(&d, k, buf, sizeof(buf)));
		if ((r = push(&d, "   ")))
			goto out;
		for (c = chain_next(g, k); c; k = c, c = chain_next(g, k))
			fprintf(out, "%s%s\n", d.prefix, label(&d, c, buf, sizeof(buf)));
		r = branches(&d, k);
	} else {
		r = branches(&d, 0);
	}
	fputc('\n', out);
out:
	free(d.prefix);
	return r;
}

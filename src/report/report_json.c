/* SPDX-License-Identifier: MIT */
/*
 * report_json.c - the table (and optionally each entry's call graph) as
 * JSON, through json-c (loaded on first use, report_dl.c). Numbers are
 * JSON numbers: periods and counts integers, percentages with two
 * decimals. docs/REPORT.md shows the layout.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "report/report_dl.h"
#include "report/report_internal.h"

struct jctx {
	const struct pev__jsonc *j;
	const struct pev_profile *p;
	unsigned flags;
	double limit;
	uint64_t total;
	bool failed;
};

/* Adds val under key; a NULL val (json-c out of memory) marks the output failed. */
static void put(struct jctx *c, json_object *obj, const char *key, json_object *val)
{
	if (!val || !obj) {
		c->failed = true;
		if (val)
			c->j->put(val);
		return;
	}
	if (c->j->object_add(obj, key, val) < 0) {
		c->failed = true;
		c->j->put(val);
	}
}

static void push(struct jctx *c, json_object *arr, json_object *val)
{
	if (!val || !arr) {
		c->failed = true;
		if (val)
			c->j->put(val);
		return;
	}
	if (c->j->array_add(arr, val) < 0) {
		c->failed = true;
		c->j->put(val);
	}
}

/*
 * A JSON string of s, made valid UTF-8 first (pev_text_utf8: a byte that is
 * not UTF-8 becomes U+FFFD; json-c escapes control characters as \u00XX).
 */
static json_object *str(struct jctx *c, const char *s)
{
	char small[512], *t = small;
	size_t n;
	json_object *o;

	n = pev_text_utf8(small, sizeof(small), s);
	if (!s || n == strlen(s))
		return c->j->new_string(s ? s : "");
	if (n >= sizeof(small)) {
		if (!(t = malloc(n + 1)))
			return NULL;
		pev_text_utf8(t, n + 1, s);
	}
	o = c->j->new_string(t);
	if (t != small)
		free(t);
	return o;
}

static json_object *num(struct jctx *c, uint64_t v)
{
	return c->j->new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static json_object *percent(struct jctx *c, uint64_t part, uint64_t total)
{
	double v = pev__percent(part, total);
	char text[32];

	snprintf(text, sizeof(text), "%.2f", v);
	return c->j->new_double_s(v, text);
}

static json_object *cg_node(struct jctx *c, const struct pev__cgraph *g, uint32_t i)
{
	const struct pev__cg_node *n = &g->node[i];
	json_object *o = c->j->new_object(), *kids;
	char buf[32];

	if (!o) {
		c->failed = true;
		return NULL;
	}
	if (i) {
		put(c, o, "symbol", str(c, pev__cg_label(c->p, n, c->flags, buf, sizeof(buf))));
		if (n->key != PEV__CG_UNKNOWN)
			put(c, o, "kernel", c->j->new_boolean(c->p->syms[n->key].kernel));
	}
	put(c, o, "percent", percent(c, n->period, c->total));
	put(c, o, "period", num(c, n->period));
	put(c, o, "samples", num(c, n->samples));
	kids = c->j->new_array();
	for (uint32_t k = 0; kids && k < n->nr; k++) {
		uint32_t ch = g->kids[n->child + k];
		if (c->limit < 0 || pev__percent(g->node[ch].period, c->total) >= c->limit)
			push(c, kids, cg_node(c, g, ch));
	}
	put(c, o, "children", kids);
	return o;
}

static json_object *row_object(struct jctx *c, const struct pev__rows *r, uint32_t ri,
			       const struct pev_report_opts *o)
{
	const struct pev__row *row = &r->row[ri];
	json_object *obj = c->j->new_object();
	char buf[64];

	if (!obj) {
		c->failed = true;
		return NULL;
	}
	put(c, obj, "overhead", percent(c, row->self, r->total));
	if (r->children)
		put(c, obj, "children", percent(c, row->children, r->total));
	put(c, obj, "period", num(c, row->self));
	put(c, obj, "samples", num(c, row->self_samples));
	if (r->children) {
		put(c, obj, "children_period", num(c, row->children));
		put(c, obj, "children_samples", num(c, row->children_samples));
	}
	for (unsigned k = 0; k < r->keys.n; k++) {
		switch (r->keys.k[k]) {
		case PEV__KEY_COMM:
			put(c, obj, "comm", str(c, pev__row_text(r, row, PEV__KEY_COMM, buf,
									   sizeof(buf))));
			break;
		case PEV__KEY_PROCESS:
			put(c, obj, "pid", c->j->new_int64(row->pid));
			break;
		case PEV__KEY_PID: /* perf's: the thread */
			put(c, obj, "pid", c->j->new_int64(row->pid));
			put(c, obj, "tid", c->j->new_int64(row->tid));
			break;
		case PEV__KEY_TID:
			put(c, obj, "tid", c->j->new_int64(row->tid));
			break;
		case PEV__KEY_CPU:
			put(c, obj, "cpu", c->j->new_int64(row->cpu));
			break;
		case PEV__KEY_DSO:
			put(c, obj, "dso", str(c, pev__row_text(r, row, PEV__KEY_DSO, buf,
									  sizeof(buf))));
			break;
		case PEV__KEY_TRACE:
			put(c, obj, "trace", str(c, pev__row_text(r, row, PEV__KEY_TRACE,
									 buf, sizeof(buf))));
			break;
		case PEV__KEY_CGROUP:
			put(c, obj, "cgroup", str(c, pev__row_text(r, row, PEV__KEY_CGROUP,
									  buf, sizeof(buf))));
			break;
		case PEV__KEY_SRCLINE:
			put(c, obj, "srcline", str(c, pev__row_text(r, row, PEV__KEY_SRCLINE,
									      buf, sizeof(buf))));
			break;
		case PEV__KEY_SYM: {
			const struct pev__sym *y = &c->p->syms[row->sym];
			put(c, obj, "symbol", str(c, pev__row_text(r, row, PEV__KEY_SYM, buf,
									     sizeof(buf))));
			put(c, obj, "kernel", c->j->new_boolean(y->kernel));
			if (!y->name)
				put(c, obj, "address", num(c, y->address));
			break;
		}
		}
	}
	if (o->callgraph != PEV_REPORT_CALLGRAPH_NONE) {
		struct pev__cgraph g;
		json_object *tree;

		if (pev__cgraph_build(r, ri, o->callgraph, o->flags, &g)) {
			c->failed = true;
			return obj;
		}
		tree = cg_node(c, &g, 0);
		put(c, tree, "mode",
		    str(c, o->callgraph == PEV_REPORT_CALLGRAPH_CALLEE ? "callee" : "caller"));
		put(c, obj, "callgraph", tree);
		pev__cgraph_free(&g);
	}
	return obj;
}

static const char *unit_name(enum pev_profile_unit u)
{
	return u == PEV_PROFILE_UNIT_NANOSECONDS ? "nanoseconds"
	       : u == PEV_PROFILE_UNIT_BYTES    ? "bytes"
						: "count";
}

int pev_profile_write_json(const struct pev_profile *p, FILE *out,
			   const struct pev_report_opts *opts, struct pev_error *err)
{
	pev__error_clear(err);
	static const char func[] = "pev_profile_write_json";
	struct pev_report_opts o;
	struct pev__keys keys;
	struct jctx c = {0};
	json_object *root, *events, *sort;
	const char *text;
	size_t len = 0;
	int event, r;

	if ((r = pev__report_begin(p, out, opts, &o, &event, func, err)) < 0)
		return r;
	if ((r = pev__keys_parse(o.sort, &keys, func, err)) < 0)
		return r;
	if ((r = pev__report_dl_jsonc(func, err, &c.j)) < 0)
		return r;
	c.p = p;
	c.flags = o.flags;
	c.limit = o.callgraph_limit == 0 ? 0.5 : o.callgraph_limit;
	if (!(root = c.j->new_object()))
		return pev__report_nomem(err, func);
	put(&c, root, "lost", num(&c, p->lost));
	sort = c.j->new_array();
	for (unsigned k = 0; sort && k < keys.n; k++)
		push(&c, sort, str(&c, pev__key_name(keys.k[k])));
	put(&c, root, "sort", sort);
	events = c.j->new_array();
	put(&c, root, "events", events);
	for (unsigned e = 0; events && !c.failed && e < p->nr_events; e++) {
		struct pev__rows rows;
		json_object *ev, *list;

		if (event >= 0 && (unsigned)event != e)
			continue;
		/* JSON names each DSO by its full path: two files of one base name stay apart. */
		o.flags |= PEV_REPORT_FULL_PATHS;
		if (pev__rows_build(p, e, &keys, o.flags & PEV_REPORT_CHILDREN, NULL, o.percent_limit,
				    o.callgraph != PEV_REPORT_CALLGRAPH_NONE, &rows, &o)) {
			c.failed = true;
			break;
		}
		c.total = rows.total;
		ev = c.j->new_object();
		put(&c, ev, "name", str(&c, pev__event_name(p, e)));
		put(&c, ev, "unit", str(&c, unit_name(p->events[e].unit)));
		put(&c, ev, "samples", num(&c, rows.samples));
		put(&c, ev, "period", num(&c, rows.total));
		list = c.j->new_array();
		for (uint32_t i = 0; list && !c.failed && i < rows.nr_order; i++)
			push(&c, list, row_object(&c, &rows, rows.order[i], &o));
		put(&c, ev, "rows", list);
		push(&c, events, ev);
		pev__rows_free(&rows);
	}
	if (c.failed) {
		c.j->put(root);
		return pev__report_nomem(err, func);
	}
	text = c.j->to_string(root,
			      ((o.flags & PEV_REPORT_PRETTY) ? JSON_C_TO_STRING_PRETTY
							     : JSON_C_TO_STRING_PLAIN) |
				      JSON_C_TO_STRING_NOSLASHESCAPE,
			      &len);
	if (!text) {
		c.j->put(root);
		return pev__report_nomem(err, func);
	}
	fwrite(text, 1, len, out);
	fputc('\n', out);
	c.j->put(root);
	return pev__report_end(out, 0, func, err);
}

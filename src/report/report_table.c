/* SPDX-License-Identifier: MIT */
/*
 * report_table.c - the overhead table, laid out as `perf report --stdio`:
 *
 *     # Samples: 8K of event 'cpu-clock'
 *     # Event count (approx.): 2163500000
 *     #
 *     # Overhead  Command  Shared Object  Symbol
 *     # ........  .......  .............  ......
 *     #
 *         87.00%  w        w              [.] leaf
 *
 * Columns are two spaces apart and as wide as their widest cell; text
 * columns are left-aligned, numbers right-aligned; the last column is not
 * padded. Each event gets its own section, two blank lines apart. Under
 * PEV_REPORT_GROUP an event group is one section, its header summing the
 * group's samples and periods, with one percentage per event (the leader
 * first, each of its own event's total) in each percentage column:
 *
 *     # Samples: 2K of events 'anon group { cpu-clock, task-clock }'
 *     #         Overhead  Command  Shared Object  Symbol
 *         19.73%  19.73%  sh       libc.so.6      [.] __strcmp_evex
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "report/report_internal.h"

const char *pev__key_title(enum pev__key k)
{
	switch (k) {
	case PEV__KEY_COMM:
		return "Command";
	/* perf's thread column: its title right-aligned over "pid:" and a 7-wide comm. */
	case PEV__KEY_PID:
		return "    Pid:Command";
	case PEV__KEY_PROCESS:
		return "Process:Command";
	case PEV__KEY_TID:
		return "    Tid:Command";
	case PEV__KEY_CPU:
		return "CPU";
	case PEV__KEY_DSO:
		return "Shared Object";
	case PEV__KEY_SYM:
		return "Symbol";
	case PEV__KEY_SRCLINE:
		return "Source:Line";
	case PEV__KEY_TRACE:
		return "Trace output";
	case PEV__KEY_CGROUP:
		return "Cgroup";
	}
	return "";
}

static bool right_aligned(enum pev__key k)
{
	return k == PEV__KEY_CPU;
}

const char *pev__row_cell(const struct pev__rows *r, const struct pev__row *row,
			  enum pev__key k, char *buf, size_t size)
{
	char tmp[512], shown[2048];
	const char *t = pev__row_text(r, row, k, tmp, sizeof(tmp));

	/* Names from the file may hold control bytes: a cell is one line. */
	if (!pev_text_is_clean(t)) {
		pev_text_escape(shown, sizeof(shown), t, 0);
		t = shown;
	}
	if (k != PEV__KEY_SYM)
		return t == tmp || t == shown ? (pev__strlcpy(buf, t, size), buf) : t;
	snprintf(buf, size, "[%c] %s%s", r->p->syms[row->sym].kernel ? 'k' : '.', t,
		 (r->flags & PEV_REPORT_INLINE_MARKS) && r->p->syms[row->sym].inlined ? " (inlined)"
											 : "");
	return buf;
}

size_t pev__row_width(const struct pev__rows *r, const struct pev__row *row, enum pev__key k,
		      const char *cell)
{
	uint32_t name;

	if (k != PEV__KEY_COMM)
		return strlen(cell);
	name = pev__profile_thread_name(r->p, row->shown_tid);
	return pev_text_escape(NULL, 0, pev__strtab_get(&r->p->str, name ? name : row->shown_comm), 0);
}

/* perf's short sample count: 869, 8K, 12M. */
static void short_count(uint64_t n, char *buf, size_t size)
{
	char unit = ' ';

	if (n > 1000) {
		n /= 1000;
		unit = 'K';
	}
	if (n > 1000) {
		n /= 1000;
		unit = 'M';
	}
	if (n > 1000) {
		n /= 1000;
		unit = 'G';
	}
	snprintf(buf, size, "%" PRIu64 "%c", n, unit);
}


/* The filter of one name that leaves key k's column out (perf's elision), or NULL. */
static const char *elided_by(const struct pev_report_opts *o, enum pev__key k)
{
	const char *list = k == PEV__KEY_COMM ? o->comms
			   : k == PEV__KEY_DSO ? o->dsos
			   : k == PEV__KEY_SYM ? o->symbols
					       : NULL;

	if (o->flags & PEV_REPORT_FILTER_SHOWN)
		return list && *list ? list : NULL;
	return pev__list_single(list) ? list : NULL;
}

/*
 * As perf: an entry first met at an unresolved address makes the DSO column
 * at least this wide (an address's hex digits), unless --dsos filters.
 */
#define UNRESOLVED_DSO_WIDTH 16

/* What a column shows: a sort key's text or one of the entry's numbers. */
enum col_kind { COL_KEY, COL_OVERHEAD, COL_CHILDREN, COL_SAMPLE, COL_PERIOD };

struct column {
	enum col_kind kind;
	enum pev__key key; /* COL_KEY */
	size_t width;
};

/* The columns of a table, left to right, and the order its entries are sorted in. */
struct layout {
	struct column col[PEV__MAX_KEYS + 4];
	unsigned n;
	bool fields;               /* given by opts.fields (perf -F): sorted by `by` */
	struct column by[PEV__MAX_KEYS + 4];
	unsigned nr_by;
	struct column last; /* the last column before elision: perf leaves it unpadded */
	const struct pev__rows *rows;
};

static const char *const value_fields[] = {
	[COL_OVERHEAD] = "overhead",
	[COL_CHILDREN] = "overhead_children",
	[COL_SAMPLE] = "sample",
	[COL_PERIOD] = "period",
};

static const char *col_title(const struct column *c, bool self)
{
	switch (c->kind) {
	case COL_OVERHEAD:
		return self ? "Self" : "Overhead";
	case COL_CHILDREN:
		return "Children";
	case COL_SAMPLE:
		return "Samples";
	case COL_PERIOD:
		return "Period";
	default:
		return pev__key_title(c->key);
	}
}

static bool col_right(const struct column *c)
{
	return c->kind != COL_KEY || right_aligned(c->key);
}

/*
 * A percentage column's cell: the row's self or inclusive share of its
 * event's total, or in a group table one such share per event ("  19.73%
 * 19.73%"), each 8 characters wide.
 */
static const char *percent_cell(const struct pev__rows *r, const struct pev__row *row,
				bool children, char *buf, size_t size)
{
	uint32_t i = (uint32_t)(row - r->row);
	size_t at = 0;

	if (r->nr_members < 2) {
		snprintf(buf, size, "%.2f%%", pev__percent(children ? row->children : row->self,
							   r->total));
		return buf;
	}
	buf[0] = '\0';
	for (unsigned k = 0; k < r->nr_members && at < size; k++)
		at += (size_t)snprintf(buf + at, size - at, "%7.2f%%",
				       pev__percent(pev__row_sum(r, i, k, children),
						    r->p->events[r->event + k].total));
	return buf;
}

/* The text of column c for row. */
static const char *col_cell(const struct pev__rows *r, const struct pev__row *row,
			    const struct column *c, char *buf, size_t size)
{
	switch (c->kind) {
	case COL_OVERHEAD:
		return percent_cell(r, row, false, buf, size);
	case COL_CHILDREN:
		return percent_cell(r, row, true, buf, size);
	case COL_SAMPLE:
		snprintf(buf, size, "%" PRIu64, row->self_samples);
		return buf;
	case COL_PERIOD:
		snprintf(buf, size, "%" PRIu64, row->self);
		return buf;
	default:
		return pev__row_cell(r, row, c->key, buf, size);
	}
}

/* perf -F: entries in the order of the sort keys, then of the other fields. */
static int cmp_fields(const void *a, const void *b, void *ctx)
{
	const struct layout *l = ctx;
	const struct pev__rows *r = l->rows;
	const struct pev__row *x = &r->row[*(const uint32_t *)a], *y = &r->row[*(const uint32_t *)b];
	char bx[4200], by[4200];
	int c = 0;

	for (unsigned i = 0; i < l->nr_by && !c; i++) {
		const struct column *k = &l->by[i];
		switch (k->kind) {
		case COL_OVERHEAD:
		case COL_PERIOD:
			c = (x->self < y->self) - (x->self > y->self);
			break;
		case COL_CHILDREN:
			c = (x->children < y->children) - (x->children > y->children);
			break;
		case COL_SAMPLE:
			c = (x->self_samples < y->self_samples) - (x->self_samples > y->self_samples);
			break;
		default:
			if (k->key == PEV__KEY_PID || k->key == PEV__KEY_TID)
				c = (x->tid > y->tid) - (x->tid < y->tid);
			else if (k->key == PEV__KEY_PROCESS)
				c = (x->pid > y->pid) - (x->pid < y->pid);
			else if (k->key == PEV__KEY_CPU)
				c = (x->cpu > y->cpu) - (x->cpu < y->cpu);
			else
				c = strcmp(pev__row_text(r, x, k->key, bx, sizeof(bx)),
					   pev__row_text(r, y, k->key, by, sizeof(by)));
			break;
		}
	}
	return c ? c : (x > y) - (x < y);
}

/*
 * The "# Samples" line's event: the event's name, or a group's as perf
 * describes it ("anon group { a, b }", "NAME { a, b }"; all events of a
 * profile without groups: "a, b").
 */
static void section_name(FILE *out, const struct pev_profile *p, unsigned e, unsigned n,
			 bool all)
{
	const char *group = pev__strtab_get(&p->str, p->events[e].group_name);

	if (n > 1 && !all) {
		pev_text_fputs(group ? group : "anon group", out);
		fputs(" { ", out);
	}
	for (unsigned k = 0; k < n; k++) {
		fputs(k ? ", " : "", out);
		pev_text_fputs(pev__event_name(p, e + k), out);
	}
	if (n > 1 && !all)
		fputs(" }", out);
}

/*
 * Writes the section of events e .. e + n - 1 (n > 1: a group shown as
 * one; all: every event of a profile without groups).
 */
static int section(FILE *out, const struct pev_profile *p, unsigned e, unsigned n, bool all,
		   const struct pev__keys *sort_keys, struct layout *lay,
		   const struct pev_report_opts *o, const char *func, struct pev_error *err)
{
	bool children = o->flags & PEV_REPORT_CHILDREN;
	bool header = !(o->flags & PEV_REPORT_NO_HEADER);
	double cg_limit = o->callgraph_limit == 0 ? 0.5 : o->callgraph_limit;
	struct pev__rows rows;
	uint64_t samples = 0, total = 0;
	char buf[4200], cnt[32];
	struct pev__window win = {o->max_stack, o->callgraph == PEV_REPORT_CALLGRAPH_CALLER};
	struct pev__cg_style style = {
		.print = o->callgraph_print,
		.value = o->callgraph_value,
		.limit = cg_limit,
		.print_limit = o->callgraph_print_limit,
		/* perf leaves out a lone chain's first frame when sorted by symbol first */
		.skip_first = o->sort && strncmp(o->sort, "sym", 3) == 0,
		.flags = o->flags,
	};

	if (pev__rows_build_group(p, e, n, sort_keys, children, &win, o->percent_limit,
				  o->callgraph != PEV_REPORT_CALLGRAPH_NONE, &rows, o))
		return pev__report_nomem(err, func);
	for (unsigned k = 0; k < n; k++) {
		samples += p->events[e + k].samples;
		/* Each total fits; their sum, only shown, stops at 2^64 - 1. */
		if (__builtin_add_overflow(total, p->events[e + k].total, &total))
			total = UINT64_MAX;
	}
	lay->rows = &rows;
	if (lay->fields)
		qsort_r(rows.order, rows.nr_order, sizeof(*rows.order), cmp_fields, lay);
	for (unsigned k = 0; k < lay->n; k++) {
		struct column *c = &lay->col[k];

		c->width = strlen(col_title(c, children && !lay->fields));
		if (c->kind == COL_OVERHEAD || c->kind == COL_CHILDREN)
			c->width = 8 * n;
		else if (c->kind != COL_KEY)
			c->width = 12;
		/* As perf: as wide as every entry, those under --percent-limit too. */
		for (uint32_t i = 0; c->kind == COL_KEY && i < rows.n; i++) {
			const struct pev__row *row = &rows.row[i];
			size_t l;

			if (!pev__row_used(&rows, i))
				continue;
			l = pev__row_width(&rows, row, c->key,
					   pev__row_cell(&rows, row, c->key, buf, sizeof(buf)));
			if (c->key == PEV__KEY_DSO && row->first_unresolved && !(o->dsos && *o->dsos))
				l = l > UNRESOLVED_DSO_WIDTH ? l : UNRESOLVED_DSO_WIDTH;
			if (l > c->width)
				c->width = l;
		}
	}
	if (header) {
		short_count(samples, cnt, sizeof(cnt));
		/* perf says "events" for a group's leader, shown as a group or not. */
		fprintf(out, "# Samples: %s of event%s '", cnt,
			p->events[e].nr_members > 1 || all ? "s" : "");
		section_name(out, p, e, n, all);
		fprintf(out, "'\n# Event count (approx.): %" PRIu64 "\n#\n", total);
		for (unsigned k = 0; k < lay->n; k++) {
			const struct column *c = &lay->col[k];
			const char *t = col_title(c, children && !lay->fields);

			fputs(k ? "  " : "# ", out);
			if (col_right(c))
				pev__pad(out, ' ', c->width, strlen(t));
			fputs(t, out);
			if (!col_right(c))
				pev__pad(out, ' ', c->width, strlen(t));
		}
		for (unsigned k = 0; k < lay->n; k++) {
			fputs(k ? "  " : "\n# ", out);
			pev__pad(out, '.', lay->col[k].width, 0);
		}
		fputs("\n#\n", out);
	}
	for (uint32_t i = 0; i < rows.nr_order && (!o->max_entries || i < o->max_entries); i++) {
		const struct pev__row *row = &rows.row[rows.order[i]];

		for (unsigned k = 0; k < lay->n; k++) {
			const struct column *c = &lay->col[k];
			const char *t = col_cell(&rows, row, c, buf, sizeof(buf));
			size_t l = strlen(t);
			/*
			 * perf pads every column but a symbol, line, trace text or cgroup at the
			 * end of the line, and only when no column left out by a filter
			 * follows it.
			 */
			bool last = k + 1 == lay->n && c->kind == COL_KEY &&
				    lay->last.kind == COL_KEY && lay->last.key == c->key &&
				    (c->key == PEV__KEY_SYM || c->key == PEV__KEY_SRCLINE ||
				     c->key == PEV__KEY_TRACE || c->key == PEV__KEY_CGROUP);

			/* As perf: a command longer than its thread's last name is cut. */
			if (c->kind == COL_KEY && l > c->width)
				l = c->width;
			fputs("  ", out);
			if (col_right(c))
				pev__pad(out, ' ', c->width, l);
			fwrite(t, 1, l, out);
			if (!col_right(c) && !last)
				pev__pad(out, ' ', c->width, l);
		}
		fputc('\n', out);
		/* An entry below an absolute limit would draw nothing: skip building its graph. */
		style.total = rows.total;
		style.entry = pev__row_period(&rows, row);
		if (o->callgraph != PEV_REPORT_CALLGRAPH_NONE &&
		    (cg_limit <= 0 || o->callgraph_print == PEV_REPORT_CG_FRACTAL ||
		     style.entry >= (uint64_t)((double)rows.total * (cg_limit / 100.0)))) {
			struct pev__cgraph g;
			int r;

			if (pev__cgraph_build(&rows, rows.order[i], o->callgraph, o->flags, &g)) {
				pev__rows_free(&rows);
				return pev__report_nomem(err, func);
			}
			r = pev__cgraph_print(out, p, &g, &style);
			pev__cgraph_free(&g);
			if (r) {
				pev__rows_free(&rows);
				return pev__report_nomem(err, func);
			}
		}
	}
	fputs("\n\n", out);
	pev__rows_free(&rows);
	return 0;
}

static bool has_key(const struct pev__keys *keys, enum pev__key k)
{
	for (unsigned i = 0; i < keys->n; i++)
		if (keys->k[i] == k)
			return true;
	return false;
}

static void add_col(struct column *cols, unsigned *n, enum col_kind kind, enum pev__key key)
{
	for (unsigned i = 0; i < *n; i++)
		if (cols[i].kind == kind && (kind != COL_KEY || cols[i].key == key))
			return;
	if (*n < PEV__MAX_KEYS + 4)
		cols[(*n)++] = (struct column){.kind = kind, .key = key};
}

/*
 * perf's columns: without fields the overhead (Children and Self with
 * children), Samples with PEV_REPORT_NR_SAMPLES, then the sort keys but
 * those a filter of one name fixes. With fields (perf -F): the fields in
 * their order, then the sort keys named in opts.sort; the entries are
 * grouped by every key among them and sorted by the sort keys, then by the
 * other fields. *keys gets the grouping keys.
 */
static int make_layout(const struct pev_report_opts *o, struct pev__keys *keys, struct layout *l,
		       const char *func, struct pev_error *err)
{
	struct pev__keys sorted = {0}, one;
	unsigned kept = 0;
	int r;

	memset(l, 0, sizeof(*l));
	if (!o->fields) {
		if ((r = pev__keys_parse(o->sort, keys, func, err)) < 0)
			return r;
		if (o->flags & PEV_REPORT_CHILDREN)
			add_col(l->col, &l->n, COL_CHILDREN, 0);
		add_col(l->col, &l->n, COL_OVERHEAD, 0);
		if (o->flags & PEV_REPORT_NR_SAMPLES)
			add_col(l->col, &l->n, COL_SAMPLE, 0);
		l->last = (struct column){.kind = COL_KEY, .key = keys->k[keys->n - 1]};
		for (unsigned k = 0; k < keys->n; k++)
			if (!elided_by(o, keys->k[k]))
				add_col(l->col, &l->n, COL_KEY, keys->k[k]);
		if (l->n == ((o->flags & PEV_REPORT_CHILDREN) ? 2u : 1u) +
				    !!(o->flags & PEV_REPORT_NR_SAMPLES))
			for (unsigned k = 0; k < keys->n; k++)
				add_col(l->col, &l->n, COL_KEY, keys->k[k]);
		return 0;
	}
	l->fields = true;
	if (o->sort && (r = pev__keys_parse(o->sort, &sorted, func, err)) < 0)
		return r;
	for (const char *f = o->fields; *f;) {
		size_t len = strcspn(f, ","), v;
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)(len < 63 ? len : 63), f);
		for (v = COL_OVERHEAD; v <= COL_PERIOD && strcmp(name, value_fields[v]) != 0; v++)
			;
		if (v <= COL_PERIOD) {
			add_col(l->col, &l->n, (enum col_kind)v, 0);
		} else {
			if ((r = pev__keys_parse(name, &one, func, NULL)) < 0) {
				pev__error_start(err, PEV_EPARSE, 0, NULL, NULL, true);
				pev__error_field(err, "opts.fields");
				pev__error_msg(err, "%s: unknown field '%s'", func, name);
				pev__error_hint(err, "fields are overhead, overhead_children, sample, "
						     "period and the sort keys (comm, pid, process, "
						     "tid, cpu, dso, sym, srcline)");
				return r;
			}
			add_col(l->col, &l->n, COL_KEY, one.k[0]);
		}
		f += len + (f[len] == ',');
	}
	for (unsigned k = 0; k < sorted.n; k++)
		add_col(l->col, &l->n, COL_KEY, sorted.k[k]);
	/* Sorted by the sort keys first, then by the fields left to right. */
	for (unsigned k = 0; k < sorted.n; k++)
		add_col(l->by, &l->nr_by, COL_KEY, sorted.k[k]);
	for (unsigned k = 0; k < l->n; k++)
		add_col(l->by, &l->nr_by, l->col[k].kind, l->col[k].key);
	keys->n = 0;
	for (unsigned k = 0; k < l->n; k++)
		if (l->col[k].kind == COL_KEY && !has_key(keys, l->col[k].key) &&
		    keys->n < PEV__MAX_KEYS)
			keys->k[keys->n++] = l->col[k].key;
	l->last = l->col[l->n - 1];
	/* A filter of one name leaves its column out here too, unless every key's would go. */
	for (unsigned k = 0; k < keys->n; k++)
		kept += !elided_by(o, keys->k[k]);
	for (unsigned k = 0, n = l->n; kept && k < n; k++) {
		if (k == 0)
			l->n = 0;
		if (l->col[k].kind == COL_KEY && elided_by(o, l->col[k].key))
			continue;
		l->col[l->n++] = l->col[k];
	}
	return 0;
}

static bool has_groups(const struct pev_profile *p)
{
	for (unsigned e = 0; e < p->nr_events; e++)
		if (p->events[e].nr_members > 1)
			return true;
	return false;
}

int pev_profile_write_table(const struct pev_profile *p, FILE *out,
			    const struct pev_report_opts *opts, struct pev_error *err)
{
	static const char func[] = "pev_profile_write_table";
	struct pev_report_opts o;
	struct pev__keys keys;
	struct layout lay;
	int event, r;

	pev__error_clear(err);
	if ((r = pev__report_begin(p, out, opts, &o, &event, func, err)) < 0)
		return r;
	if ((r = make_layout(&o, &keys, &lay, func, err)) < 0)
		return r;
	/* perf names the sort keys a filter of one name fixes, -q or not. */
	for (unsigned k = 0; k < keys.n; k++)
		if (elided_by(&o, keys.k[k])) {
			fprintf(out, "# %s: ", keys.k[k] == PEV__KEY_SYM ? "symbol"
					       : pev__key_name(keys.k[k]));
			pev_text_fputs(elided_by(&o, keys.k[k]), out);
			fputc('\n', out);
		}
	if (!(o.flags & PEV_REPORT_NO_HEADER))
		fprintf(out, "#\n# Total Lost Samples: %" PRIu64 "\n#\n", p->lost);
	if (event >= 0)
		r = section(out, p, (unsigned)event, 1, false, &keys, &lay, &o, func, err);
	else if (!(o.flags & PEV_REPORT_GROUP))
		for (unsigned e = 0; e < p->nr_events && r == 0; e++)
			r = section(out, p, e, 1, false, &keys, &lay, &o, func, err);
	else if (!has_groups(p) && p->nr_events > 1)
		r = section(out, p, 0, p->nr_events, true, &keys, &lay, &o, func, err);
	else
		for (unsigned e = 0; e < p->nr_events && r == 0; e += p->events[e].nr_members)
			r = section(out, p, e, p->events[e].nr_members, false, &keys, &lay, &o,
				    func, err);
	return pev__report_end(out, r, func, err);
}

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

static const char *key_title(enum pev__key k)
{
	switch (k) {
	case PEV__KEY_COMM:
		return "Command";
	case PEV__KEY_PID:
		return "Pid:Command";
	case PEV__KEY_TID:
		return "Tid:Command";
	case PEV__KEY_CPU:
		return "CPU";
	case PEV__KEY_DSO:
		return "Shared Object";
	case PEV__KEY_SYM:
		return "Symbol";
	}
	return "";
}

static bool right_aligned(enum pev__key k)
{
	return k == PEV__KEY_PID || k == PEV__KEY_TID || k == PEV__KEY_CPU;
}

/* A cell: the key's text, with "[.] " or "[k] " in front of a symbol. */
static const char *cell(const struct pev__rows *r, const struct pev__row *row, enum pev__key k,
			char *buf, size_t size)
{
	char tmp[64];
	const char *t = pev__row_text(r, row, k, tmp, sizeof(tmp));

	if (k != PEV__KEY_SYM)
		return t == tmp ? (pev__strlcpy(buf, tmp, size), buf) : t;
	snprintf(buf, size, "[%c] %s", r->p->syms[row->sym].kernel ? 'k' : '.', t);
	return buf;
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

static void pad(FILE *out, char c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputc(c, out);
}

/* A title right-aligned over a percentage column of n events (8 characters each). */
static void percent_title(FILE *out, const char *title, unsigned n)
{
	pad(out, ' ', 8 * n - strlen(title));
	fputs(title, out);
}

/* One percentage per event of the section: the self or inclusive share of each one's total. */
static void percents(FILE *out, const struct pev_profile *p, const struct pev__rows *rows,
		     uint32_t i, bool children)
{
	for (unsigned k = 0; k < rows->nr_members; k++)
		fprintf(out, " %6.2f%%",
			pev__percent(pev__row_sum(rows, i, k, children),
				     p->events[rows->event + k].total));
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

	if (n > 1 && !all)
		fprintf(out, "%s { ", group ? group : "anon group");
	for (unsigned k = 0; k < n; k++)
		fprintf(out, "%s%s", k ? ", " : "", pev__event_name(p, e + k));
	if (n > 1 && !all)
		fputs(" }", out);
}

/*
 * Writes the section of events e .. e + n - 1 (n > 1: a group shown as
 * one; all: every event of a profile without groups).
 */
static int section(FILE *out, const struct pev_profile *p, unsigned e, unsigned n, bool all,
		   const struct pev__keys *keys, const struct pev_report_opts *o, const char *func,
		   struct pev_error *err)
{
	bool children = o->flags & PEV_REPORT_CHILDREN;
	bool header = !(o->flags & PEV_REPORT_NO_HEADER);
	double cg_limit = o->callgraph_limit == 0 ? 0.5 : o->callgraph_limit;
	size_t width[PEV__MAX_KEYS];
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

	if (pev__rows_build_group(p, e, n, keys, children, &win, o->percent_limit,
				  o->callgraph != PEV_REPORT_CALLGRAPH_NONE, &rows))
		return pev__report_nomem(err, func);
	for (unsigned k = 0; k < n; k++) {
		samples += p->events[e + k].samples;
		total += p->events[e + k].total;
	}
	for (unsigned k = 0; k < keys->n; k++) {
		width[k] = strlen(key_title(keys->k[k]));
		for (uint32_t i = 0; i < rows.nr_order; i++) {
			size_t l = strlen(cell(&rows, &rows.row[rows.order[i]], keys->k[k], buf,
					       sizeof(buf)));
			if (l > width[k])
				width[k] = l;
		}
	}
	if (header) {
		short_count(samples, cnt, sizeof(cnt));
		/* perf says "events" for a group's leader, shown as a group or not. */
		fprintf(out, "# Samples: %s of event%s '", cnt,
			p->events[e].nr_members > 1 || all ? "s" : "");
		section_name(out, p, e, n, all);
		fprintf(out, "'\n# Event count (approx.): %" PRIu64 "\n#\n# ", total);
		if (children) {
			percent_title(out, "Children", n);
			fputs("  ", out);
			percent_title(out, "Self", n);
		} else {
			percent_title(out, "Overhead", n);
		}
		for (unsigned k = 0; k < keys->n; k++) {
			const char *t = key_title(keys->k[k]);
			fputs("  ", out);
			if (right_aligned(keys->k[k]))
				pad(out, ' ', width[k] - strlen(t));
			fputs(t, out);
			if (!right_aligned(keys->k[k]))
				pad(out, ' ', width[k] - strlen(t));
		}
		fputs("\n# ", out);
		pad(out, '.', 8 * n);
		if (children) {
			fputs("  ", out);
			pad(out, '.', 8 * n);
		}
		for (unsigned k = 0; k < keys->n; k++) {
			fputs("  ", out);
			pad(out, '.', width[k]);
		}
		fputs("\n#\n", out);
	}
	for (uint32_t i = 0; i < rows.nr_order; i++) {
		const struct pev__row *row = &rows.row[rows.order[i]];

		fputs("  ", out);
		if (children) {
			percents(out, p, &rows, rows.order[i], true);
			fputs("  ", out);
		}
		percents(out, p, &rows, rows.order[i], false);
		for (unsigned k = 0; k < keys->n; k++) {
			const char *t = cell(&rows, row, keys->k[k], buf, sizeof(buf));
			size_t l = strlen(t);
			bool last = k + 1 == keys->n;

			fputs("  ", out);
			if (right_aligned(keys->k[k]))
				pad(out, ' ', width[k] - l);
			fputs(t, out);
			if (!right_aligned(keys->k[k]) && !last)
				pad(out, ' ', width[k] - l);
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
	int event, r;

	if ((r = pev__report_begin(p, out, opts, &o, &event, func, err)) < 0)
		return r;
	if ((r = pev__keys_parse(o.sort, &keys, func, err)) < 0)
		return r;
	if (!(o.flags & PEV_REPORT_NO_HEADER))
		fprintf(out, "#\n# Total Lost Samples: %" PRIu64 "\n#\n", p->lost);
	if (event >= 0)
		r = section(out, p, (unsigned)event, 1, false, &keys, &o, func, err);
	else if (!(o.flags & PEV_REPORT_GROUP))
		for (unsigned e = 0; e < p->nr_events && r == 0; e++)
			r = section(out, p, e, 1, false, &keys, &o, func, err);
	else if (!has_groups(p) && p->nr_events > 1)
		r = section(out, p, 0, p->nr_events, true, &keys, &o, func, err);
	else
		for (unsigned e = 0; e < p->nr_events && r == 0; e += p->events[e].nr_members)
			r = section(out, p, e, p->events[e].nr_members, false, &keys, &o, func, err);
	return pev__report_end(out, r, func, err);
}

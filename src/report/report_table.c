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
 * padded. Each event gets its own section, two blank lines apart.
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
	}
	return "";
}

static bool right_aligned(enum pev__key k)
{
	return k == PEV__KEY_CPU;
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

/* The filter of one name that leaves key k's column out (perf's elision), or NULL. */
static const char *elided_by(const struct pev_report_opts *o, enum pev__key k)
{
	const char *list = k == PEV__KEY_COMM ? o->comms
			   : k == PEV__KEY_DSO ? o->dsos
			   : k == PEV__KEY_SYM ? o->symbols
					       : NULL;

	return pev__list_single(list) ? list : NULL;
}

/*
 * The columns shown: the sort keys less those a filter of one name leaves
 * out, unless that would leave none (perf then shows them all).
 */
static void shown_keys(const struct pev__keys *keys, const struct pev_report_opts *o,
		       struct pev__keys *shown)
{
	shown->n = 0;
	for (unsigned k = 0; k < keys->n; k++)
		if (!elided_by(o, keys->k[k]))
			shown->k[shown->n++] = keys->k[k];
	if (shown->n == 0)
		*shown = *keys;
}

static int section(FILE *out, const struct pev_profile *p, unsigned e,
		   const struct pev__keys *sort_keys, const struct pev_report_opts *o,
		   const char *func, struct pev_error *err)
{
	bool children = o->flags & PEV_REPORT_CHILDREN;
	bool header = !(o->flags & PEV_REPORT_NO_HEADER);
	bool nr_samples = o->flags & PEV_REPORT_NR_SAMPLES;
	struct pev__keys shown;
	const struct pev__keys *keys = &shown;
	double cg_limit = o->callgraph_limit == 0 ? 0.5 : o->callgraph_limit;
	size_t width[PEV__MAX_KEYS];
	struct pev__rows rows;
	char buf[4200], cnt[32];

	shown_keys(sort_keys, o, &shown);
	if (pev__rows_build(p, e, sort_keys, children, o->percent_limit,
			    o->callgraph != PEV_REPORT_CALLGRAPH_NONE, &rows, o))
		return pev__report_nomem(err, func);
	for (unsigned k = 0; k < keys->n; k++) {
		width[k] = strlen(key_title(keys->k[k]));
		/* As perf: as wide as every entry, those under --percent-limit too. */
		for (uint32_t i = 0; i < rows.n; i++) {
			const struct pev__row *row = &rows.row[i];
			size_t l;

			if (!pev__row_period(&rows, row) && !row->self_samples &&
			    !row->children_samples)
				continue;
			l = strlen(cell(&rows, row, keys->k[k], buf, sizeof(buf)));
			if (l > width[k])
				width[k] = l;
		}
	}
	if (header) {
		short_count(rows.samples, cnt, sizeof(cnt));
		fprintf(out, "# Samples: %s of event '%s'\n", cnt, pev__event_name(p, e));
		fprintf(out, "# Event count (approx.): %" PRIu64 "\n#\n", rows.total);
		fputs(children ? "# Children      Self" : "# Overhead", out);
		if (nr_samples)
			fputs("       Samples", out);
		for (unsigned k = 0; k < keys->n; k++) {
			const char *t = key_title(keys->k[k]);
			fputs("  ", out);
			if (right_aligned(keys->k[k]))
				pad(out, ' ', width[k] - strlen(t));
			fputs(t, out);
			if (!right_aligned(keys->k[k]))
				pad(out, ' ', width[k] - strlen(t));
		}
		fputs(children ? "\n# ........  ........" : "\n# ........", out);
		if (nr_samples)
			fputs("  ............", out);
		for (unsigned k = 0; k < keys->n; k++) {
			fputs("  ", out);
			pad(out, '.', width[k]);
		}
		fputs("\n#\n", out);
	}
	for (uint32_t i = 0; i < rows.nr_order; i++) {
		const struct pev__row *row = &rows.row[rows.order[i]];

		if (children)
			fprintf(out, "  %7.2f%%  %7.2f%%", pev__percent(row->children, rows.total),
				pev__percent(row->self, rows.total));
		else
			fprintf(out, "  %7.2f%%", pev__percent(row->self, rows.total));
		if (nr_samples)
			fprintf(out, "  %12" PRIu64, row->self_samples);
		for (unsigned k = 0; k < keys->n; k++) {
			const char *t = cell(&rows, row, keys->k[k], buf, sizeof(buf));
			size_t l = strlen(t);
			/* perf pads every column but a symbol at the end of the line. */
			bool last = k + 1 == keys->n && keys->k[k] == PEV__KEY_SYM;

			fputs("  ", out);
			if (right_aligned(keys->k[k]))
				pad(out, ' ', width[k] - l);
			fputs(t, out);
			if (!right_aligned(keys->k[k]) && !last)
				pad(out, ' ', width[k] - l);
		}
		fputc('\n', out);
		/* An entry below the graph's limit would draw nothing: skip building its graph. */
		if (o->callgraph != PEV_REPORT_CALLGRAPH_NONE &&
		    (cg_limit < 0 || pev__percent(pev__row_period(&rows, row), rows.total) >= cg_limit)) {
			struct pev__cgraph g;
			int r;

			if (pev__cgraph_build(&rows, rows.order[i], o->callgraph, o->flags, &g)) {
				pev__rows_free(&rows);
				return pev__report_nomem(err, func);
			}
			r = pev__cgraph_print(out, p, &g, rows.total, cg_limit, o->flags);
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
	/* perf names the sort keys a filter of one name fixes, -q or not. */
	for (unsigned k = 0; k < keys.n; k++)
		if (elided_by(&o, keys.k[k]))
			fprintf(out, "# %s: %s\n", keys.k[k] == PEV__KEY_SYM ? "symbol"
						   : pev__key_name(keys.k[k]),
				elided_by(&o, keys.k[k]));
	if (!(o.flags & PEV_REPORT_NO_HEADER))
		fprintf(out, "#\n# Total Lost Samples: %" PRIu64 "\n#\n", p->lost);
	for (unsigned e = 0; e < p->nr_events && r == 0; e++)
		if (event < 0 || (unsigned)event == e)
			r = section(out, p, e, &keys, &o, func, err);
	return pev__report_end(out, r, func, err);
}

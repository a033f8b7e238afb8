/* SPDX-License-Identifier: MIT */
/*
 * report_diff.c - two profiles compared: the table of `perf diff` and
 * the entry checks of every diff writer (folded stacks with both counts
 * are in report_folded.c, the differential flame graph in
 * report_flamegraph.c).
 *
 * The table builds each profile's rows for the sort keys (report_rows.c),
 * then pairs rows whose keys show the same text: a symbol by its name, a
 * DSO by its base name, so addresses never matter. Every row of either
 * profile is an entry; perf's order is kept:
 *
 *   1. entries b has before those only a has;
 *   2. (ratio, wdiff) entries a has before those only b has;
 *   3. the computed value, largest first (delta-abs: by its size);
 *   4. the baseline period, largest first;
 *   5. the sort keys' text, ascending (ids numerically).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "perfev/diff.h"
#include "report/report_internal.h"

int pev__diff_begin(const struct pev_profile *a, const struct pev_profile *b, FILE *out,
		    const struct pev_diff_opts *opts, struct pev_diff_opts *d,
		    struct pev_report_opts *o, int *ea, int *eb, const char *func,
		    struct pev_error *err)
{
	struct pev_report_opts ob;
	int r;

	if (!a || !b)
		return pev__bad_arg(err, func, a ? "b" : "a", "the profile is NULL");
	if (opts && (r = pev__opts_copy_sized(d, sizeof(*d), opts, func, "PEV_DIFF_OPTS_INIT",
					      err)) < 0)
		return r;
	if (!opts) {
		memset(d, 0, sizeof(*d));
		d->sz = sizeof(*d);
	}
	if ((unsigned)d->compute > PEV_DIFF_WDIFF)
		return pev__bad_arg(err, func, "opts.compute", "unknown computation %u",
				    (unsigned)d->compute);
	if (d->compute == PEV_DIFF_WDIFF && (!d->w1 || !d->w2))
		return pev__bad_arg(err, func, "opts.w1",
				    "a weighted diff needs two non-zero weights (w1, w2)");
	if (d->flags & ~(PEV_DIFF_PERIOD | PEV_DIFF_FORMULA | PEV_DIFF_BASELINE_ONLY))
		return pev__bad_arg(err, func, "opts.flags", "unknown flags %#x", d->flags);
	if ((r = pev__report_begin(a, out, d->report, o, ea, func, err)) < 0 ||
	    (r = pev__report_begin(b, out, d->report, &ob, eb, func, err)) < 0)
		return r;
	return 0;
}

/*
 * The length of an event's name without its modifiers: "cpu-clock" of
 * "cpu-clock:ppp" (perf record's default on a machine without a PMU), but
 * all of "sched:sched_switch".
 */
static size_t base_len(const char *name)
{
	const char *colon = strrchr(name, ':');

	if (colon && colon[1] && strspn(colon + 1, "ukhGHIpPSDWe") == strlen(colon + 1))
		return (size_t)(colon - name);
	return strlen(name);
}

/*
 * The event of b named as event e of a, or else named so but for the
 * modifiers (perf diff pairs events by type and config: perf's file of
 * cpu-clock:ppp with perfev's of cpu-clock), or -1.
 */
static int event_in(const struct pev_profile *b, const struct pev_profile *a, unsigned e)
{
	const char *want = pev__event_name(a, e);
	size_t len = base_len(want);

	for (unsigned i = 0; i < b->nr_events; i++)
		if (strcmp(pev__event_name(b, i), want) == 0)
			return (int)i;
	for (unsigned i = 0; i < b->nr_events; i++) {
		const char *name = pev__event_name(b, i);
		if (base_len(name) == len && strncmp(name, want, len) == 0)
			return (int)i;
	}
	return -1;
}

int pev__diff_event(const struct pev_profile *a, const struct pev_profile *b, int *ea, int *eb)
{
	if (*ea >= 0)
		return 0;
	for (unsigned e = 0; e < a->nr_events; e++)
		if ((*eb = event_in(b, a, e)) >= 0) {
			*ea = (int)e;
			return 0;
		}
	return -1;
}

/* ---- the table ---------------------------------------------------------------------- */

/* An entry: a row of a, of b, or of both paired. */
struct entry {
	int32_t ra, rb;   /* row index in each table, or -1 */
	uint64_t pa, pb;  /* periods (0 where absent) */
	double delta;     /* new share - baseline share, in percent */
	double ratio;     /* pb / pa (pa 0: / 1) */
	int64_t wdiff;    /* pb * w2 - pa * w1 */
	char *key;        /* the keys' text, joined by '\x1f' */
};

struct table {
	const struct pev__rows *ra, *rb;
	struct entry *e;
	size_t n;
	const struct pev_diff_opts *d;
	uint64_t base_total; /* what the Baseline column's shares are of */
};

/* A row's key text (with the symbol's [.] or [k] mark), malloc'ed, or NULL. */
static char *key_text(const struct pev__rows *r, uint32_t row)
{
	char buf[4200];
	size_t len = 0, cap = 64;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	s[0] = '\0';
	for (unsigned k = 0; k < r->keys.n; k++) {
		const char *t = pev__row_cell(r, &r->row[row], r->keys.k[k], buf, sizeof(buf));
		size_t l = strlen(t);

		if (len + l + 2 > cap) {
			char *n;
			cap = 2 * (len + l + 2);
			if (!(n = realloc(s, cap))) {
				free(s);
				return NULL;
			}
			s = n;
		}
		if (k)
			s[len++] = '\x1f';
		memcpy(s + len, t, l + 1);
		len += l;
	}
	return s;
}

static int cmp_key(const void *x, const void *y)
{
	return strcmp(((const struct entry *)x)->key, ((const struct entry *)y)->key);
}

static int cmp_double_desc(double x, double y)
{
	return (x < y) - (x > y);
}

/* perf's sort key order for two entries' rows (ids as numbers, text as text). */
static int cmp_keys(const struct table *t, const struct entry *x, const struct entry *y)
{
	const struct pev__rows *rx = x->ra >= 0 ? t->ra : t->rb, *ry = y->ra >= 0 ? t->ra : t->rb;
	const struct pev__row *a = &rx->row[x->ra >= 0 ? x->ra : x->rb];
	const struct pev__row *b = &ry->row[y->ra >= 0 ? y->ra : y->rb];
	char ba[4200], bb[4200];
	int c = 0;

	for (unsigned i = 0; i < rx->keys.n && !c; i++) {
		enum pev__key k = rx->keys.k[i];

		if (k == PEV__KEY_PID || k == PEV__KEY_TID)
			c = (a->tid > b->tid) - (a->tid < b->tid);
		else if (k == PEV__KEY_PROCESS)
			c = (a->pid > b->pid) - (a->pid < b->pid);
		else if (k == PEV__KEY_CPU)
			c = (a->cpu > b->cpu) - (a->cpu < b->cpu);
		else if (k == PEV__KEY_SYM && !rx->p->syms[a->sym].name && !ry->p->syms[b->sym].name)
			c = pev__cmp_u64(rx->p->syms[a->sym].address, ry->p->syms[b->sym].address);
		else
			c = strcmp(pev__row_text(rx, a, k, ba, sizeof(ba)),
				   pev__row_text(ry, b, k, bb, sizeof(bb)));
	}
	return c;
}

static int cmp_entries(const void *px, const void *py, void *ctx)
{
	const struct table *t = ctx;
	const struct entry *x = px, *y = py;
	enum pev_diff_compute c = t->d->compute;
	int r;

	if ((x->rb >= 0) != (y->rb >= 0))
		return x->rb >= 0 ? -1 : 1;
	if (x->rb >= 0) {
		if (c == PEV_DIFF_RATIO || c == PEV_DIFF_WDIFF)
			if ((x->ra >= 0) != (y->ra >= 0))
				return x->ra >= 0 ? -1 : 1;
		switch (c) {
		case PEV_DIFF_DELTA_ABS:
			r = cmp_double_desc(fabs(x->delta), fabs(y->delta));
			break;
		case PEV_DIFF_DELTA:
			r = cmp_double_desc(x->delta, y->delta);
			break;
		case PEV_DIFF_RATIO:
			r = cmp_double_desc(x->ratio, y->ratio);
			break;
		default:
			r = (x->wdiff < y->wdiff) - (x->wdiff > y->wdiff);
			break;
		}
		if (r)
			return r;
	}
	if (x->pa != y->pa)
		return x->pa > y->pa ? -1 : 1;
	return cmp_keys(t, x, y);
}

/* Columns of the table, left to right. */
enum col { COL_BASELINE, COL_BASE_PERIOD, COL_COMPUTED, COL_FORMULA, COL_PERIOD, COL_KEY };

static const char *computed_title(enum pev_diff_compute c)
{
	static const char *const t[] = {"Delta Abs", "Delta", "Ratio", "Weighted diff"};
	return t[c];
}

static size_t value_width(enum col c, enum pev_diff_compute comp)
{
	static const size_t computed[] = {9, 7, 14, 14};

	switch (c) {
	case COL_BASELINE:
		return 8;
	case COL_COMPUTED:
		return computed[comp];
	case COL_FORMULA:
		return 70;
	default:
		return 14;
	}
}

/* The text of value column c for entry x (empty where perf leaves it blank). */
static const char *value_cell(const struct table *t, const struct entry *x, enum col c,
			      char *buf, size_t size)
{
	const struct pev_diff_opts *d = t->d;
	uint64_t ta = t->ra->total, tb = t->rb->total;

	buf[0] = '\0';
	switch (c) {
	case COL_BASELINE:
		if (x->ra >= 0)
			snprintf(buf, size, "%.2f%%", pev__percent(x->pa, t->base_total));
		break;
	case COL_BASE_PERIOD:
		snprintf(buf, size, "%" PRIu64, x->pa);
		break;
	case COL_PERIOD:
		if (x->rb >= 0)
			snprintf(buf, size, "%" PRIu64, x->pb);
		break;
	case COL_COMPUTED:
		if (x->rb < 0)
			break;
		if (d->compute <= PEV_DIFF_DELTA)
			snprintf(buf, size, "%+.2f%%", x->delta);
		else if (x->ra < 0)
			snprintf(buf, size, "N/A");
		else if (d->compute == PEV_DIFF_RATIO && x->ratio > 0)
			snprintf(buf, size, "%.6f", x->ratio);
		else if (d->compute == PEV_DIFF_WDIFF) /* 0 too, as perf */
			snprintf(buf, size, "%" PRId64, x->wdiff);
		break;
	case COL_FORMULA:
		if (x->rb < 0)
			break;
		if (d->compute <= PEV_DIFF_DELTA)
			snprintf(buf, size,
				 "(%" PRIu64 " * 100 / %" PRIu64 ") - (%" PRIu64 " * 100 / %" PRIu64
				 ")",
				 x->pb, tb, x->pa, ta);
		else if (d->compute == PEV_DIFF_RATIO)
			snprintf(buf, size, "%" PRIu64 " / %" PRIu64, x->pb, x->pa);
		else
			snprintf(buf, size,
				 "(%" PRIu64 " * %" PRId64 ") - (%" PRIu64 " * %" PRId64 ")", x->pb,
				 d->w2, x->pa, d->w1);
		break;
	default:
		break;
	}
	return buf;
}


/*
 * One table's rows as entries sorted by key text, rows that show the same
 * text merged into one (their periods added), as perf diff does: the
 * copies of a JIT-compiled method (one name at several addresses), or
 * overloads a key shows alike. Returns the count, or -ENOMEM.
 */
static ptrdiff_t keyed_entries(const struct pev__rows *r, bool is_b, struct entry **out)
{
	struct entry *v = calloc((size_t)r->nr_order + 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->nr_order; i++) {
		v[i].ra = is_b ? -1 : (int32_t)r->order[i];
		v[i].rb = is_b ? (int32_t)r->order[i] : -1;
		*(is_b ? &v[i].pb : &v[i].pa) = r->row[r->order[i]].self;
		if (!(v[i].key = key_text(r, r->order[i]))) {
			for (uint32_t j = 0; j < i; j++)
				free(v[j].key);
			free(v);
			return -ENOMEM;
		}
	}
	qsort(v, r->nr_order, sizeof(*v), cmp_key);
	for (uint32_t i = 0; i < r->nr_order; i++) {
		if (n && strcmp(v[n - 1].key, v[i].key) == 0) {
			v[n - 1].pa += v[i].pa;
			v[n - 1].pb += v[i].pb;
			free(v[i].key);
			continue;
		}
		v[n++] = v[i];
	}
	*out = v;
	return (ptrdiff_t)n;
}

/* pb * w2 - pa * w1, held at INT64_MIN or INT64_MAX where it does not fit. */
static int64_t weighted_diff(uint64_t pb, int64_t w2, uint64_t pa, int64_t w1)
{
	/* Each product fits in 128 bits; their difference overflows only when it is far out. */
	__int128 b = (__int128)pb * w2, a = (__int128)pa * w1, d;

	if (__builtin_sub_overflow(b, a, &d))
		return b > a ? INT64_MAX : INT64_MIN;
	return d > INT64_MAX ? INT64_MAX : d < INT64_MIN ? INT64_MIN : (int64_t)d;
}

/* Pairs the rows of both tables into t->e by their keys' text. 0 or -ENOMEM. */
static int pair_rows(struct table *t)
{
	struct entry *as = NULL, *bs = NULL;
	ptrdiff_t na = keyed_entries(t->ra, false, &as);
	ptrdiff_t nb = na < 0 ? -1 : keyed_entries(t->rb, true, &bs);
	bool both_only = t->d->flags & PEV_DIFF_BASELINE_ONLY;
	size_t i = 0, j = 0;

	if (nb < 0 || !(t->e = calloc((size_t)(na + nb) + 1, sizeof(*t->e)))) {
		for (ptrdiff_t k = 0; k < na; k++)
			free(as[k].key);
		for (ptrdiff_t k = 0; k < nb; k++)
			free(bs[k].key);
		free(as);
		free(bs);
		return -ENOMEM;
	}
	/* a merge of the two sorted lists: a key in both is one entry */
	while (i < (size_t)na || j < (size_t)nb) {
		int c = i == (size_t)na ? 1 : j == (size_t)nb ? -1 : strcmp(as[i].key, bs[j].key);
		struct entry x = c <= 0 ? as[i] : bs[j];
		if (c == 0) {
			x.rb = bs[j].rb;
			x.pb = bs[j].pb;
			free(bs[j].key);
		}
		i += c <= 0;
		j += c >= 0;
		if (both_only && (x.ra < 0 || x.rb < 0)) {
			free(x.key);
			continue;
		}
		t->e[t->n++] = x;
	}
	free(as);
	free(bs);
	t->base_total = t->ra->total;
	if (both_only) /* as perf: the baseline of what is left */
		for (size_t k = t->base_total = 0; k < t->n; k++)
			t->base_total += t->e[k].pa;
	for (size_t k = 0; k < t->n; k++) {
		struct entry *x = &t->e[k];
		x->delta = pev__percent(x->pb, t->rb->total) - pev__percent(x->pa, t->ra->total);
		x->ratio = (double)x->pb / (double)(x->pa ? x->pa : 1);
		x->wdiff = weighted_diff(x->pb, t->d->w2, x->pa, t->d->w1);
	}
	return 0;
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->e[i].key);
	free(t->e);
}

/* Writes the section of event ea of a against event eb of b. 0 or -ENOMEM. */
static int section(FILE *out, const struct pev_profile *a, unsigned ea,
		   const struct pev_profile *b, unsigned eb, const struct pev__keys *keys,
		   const struct pev_report_opts *o, const struct pev_diff_opts *d, bool first)
{
	struct pev__rows ra, rb;
	struct table t = {.ra = &ra, .rb = &rb, .d = d};
	enum col cols[5 + PEV__MAX_KEYS];
	size_t width[5 + PEV__MAX_KEYS];
	unsigned nc = 0, nv;
	char buf[4200];
	int rc = -ENOMEM;

	if (pev__rows_build(a, ea, keys, false, NULL, 0, false, &ra, o))
		return -ENOMEM;
	if (pev__rows_build(b, eb, keys, false, NULL, 0, false, &rb, o)) {
		pev__rows_free(&ra);
		return -ENOMEM;
	}
	if (pair_rows(&t))
		goto done;
	qsort_r(t.e, t.n, sizeof(*t.e), cmp_entries, &t);

	cols[nc++] = COL_BASELINE;
	if (d->flags & PEV_DIFF_PERIOD)
		cols[nc++] = COL_BASE_PERIOD;
	cols[nc++] = COL_COMPUTED;
	if (d->flags & PEV_DIFF_FORMULA)
		cols[nc++] = COL_FORMULA;
	if (d->flags & PEV_DIFF_PERIOD)
		cols[nc++] = COL_PERIOD;
	nv = nc;
	for (unsigned k = 0; k < keys->n; k++) {
		width[nc] = strlen(pev__key_title(keys->k[k]));
		cols[nc++] = COL_KEY;
	}
	for (unsigned c = 0; c < nv; c++)
		width[c] = value_width(cols[c], d->compute);
	/* Key columns as wide as every entry's text, as perf. */
	for (size_t i = 0; i < t.n; i++) {
		const struct entry *x = &t.e[i];
		const struct pev__rows *r = x->ra >= 0 ? &ra : &rb;
		const struct pev__row *row = &r->row[x->ra >= 0 ? x->ra : x->rb];

		for (unsigned k = 0; k < keys->n; k++) {
			size_t l = pev__row_width(r, row, keys->k[k],
						  pev__row_cell(r, row, keys->k[k], buf, sizeof(buf)));
			if (l > width[nv + k])
				width[nv + k] = l;
		}
	}

	if (!(o->flags & PEV_REPORT_NO_HEADER)) {
		fprintf(out, "%s# Event '", first ? "" : "\n");
		pev_text_fputs(pev__event_name(a, ea), out);
		fputs("'\n#\n", out);
		for (unsigned c = 0; c < nc; c++) {
			const char *title = cols[c] == COL_BASELINE	   ? "Baseline"
					    : cols[c] == COL_BASE_PERIOD ? "Base period"
					    : cols[c] == COL_COMPUTED	   ? computed_title(d->compute)
					    : cols[c] == COL_FORMULA	   ? "Formula"
					    : cols[c] == COL_PERIOD	   ? "Period"
						: pev__key_title(keys->k[c - nv]);
			bool right = cols[c] != COL_KEY && cols[c] != COL_BASELINE;

			fputs(c ? "  " : "# ", out);
			if (right)
				pev__pad(out, ' ', width[c], strlen(title));
			fputs(title, out);
			if (!right)
				pev__pad(out, ' ', width[c], strlen(title));
		}
		for (unsigned c = 0; c < nc; c++) {
			fputs(c ? "  " : "\n# ", out);
			pev__pad(out, '.', width[c], 0);
		}
		fputs("\n#\n", out);
	}
	for (size_t i = 0; i < t.n; i++) {
		const struct entry *x = &t.e[i];
		const struct pev__rows *r = x->ra >= 0 ? &ra : &rb;
		const struct pev__row *row = &r->row[x->ra >= 0 ? x->ra : x->rb];

		if (pev__percent(x->pa, ra.total) < o->percent_limit &&
		    pev__percent(x->pb, rb.total) < o->percent_limit)
			continue;
		for (unsigned c = 0; c < nc; c++) {
			const char *v = cols[c] == COL_KEY
						? pev__row_cell(r, row, keys->k[c - nv], buf, sizeof(buf))
						: value_cell(&t, x, cols[c], buf, sizeof(buf));
			size_t l = strlen(v);

			fputs("  ", out);
			if (cols[c] == COL_KEY) {
				enum pev__key k = keys->k[c - nv];
				/* As perf: a command longer than its thread's last name is cut. */
				if (l > width[c])
					l = width[c];
				fwrite(v, 1, l, out);
				/* as perf: a symbol, line or trace text that ends the line is not padded */
				if (c + 1 < nc || (k != PEV__KEY_SYM && k != PEV__KEY_SRCLINE &&
						   k != PEV__KEY_TRACE))
					pev__pad(out, ' ', width[c], l);
			} else {
				pev__pad(out, ' ', width[c], l);
				fputs(v, out);
			}
		}
		fputc('\n', out);
	}
	rc = 0;
done:
	table_free(&t);
	pev__rows_free(&ra);
	pev__rows_free(&rb);
	return rc;
}

int pev_profile_write_diff(const struct pev_profile *a, const struct pev_profile *b, FILE *out,
			   const struct pev_diff_opts *opts, struct pev_error *err)
{
	static const char func[] = "pev_profile_write_diff";
	struct pev_diff_opts d;
	struct pev_report_opts o;
	struct pev__keys keys;
	int ea, eb, r;
	bool first = true;

	pev__error_clear(err);
	if ((r = pev__diff_begin(a, b, out, opts, &d, &o, &ea, &eb, func, err)) < 0)
		return r;
	if ((r = pev__keys_parse(o.sort ? o.sort : "dso,sym", &keys, func, err)) < 0)
		return r;
	for (unsigned e = 0; e < a->nr_events; e++) {
		int other = event_in(b, a, e);

		if (other < 0 || (ea >= 0 && (int)e != ea))
			continue;
		if (section(out, a, e, b, (unsigned)other, &keys, &o, &d, first))
			return pev__report_nomem(err, func);
		first = false;
	}
	return pev__report_end(out, 0, func, err);
}

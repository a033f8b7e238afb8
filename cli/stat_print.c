/* SPDX-License-Identifier: MIT */
/*
 * stat_print.c - how `perfev stat` prints a report: perf stat's text
 * layout, perf's CSV field order (-x), perf's JSON lines (-j), or one JSON
 * document (--json); and the
 * derived metrics (CPUs utilized, rates, IPC, miss ratios) they all share.
 */
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "stat.h"

/* Widths of perf stat's columns. */
#define VALUE_WIDTH  18
#define UNIT_WIDTH   4
#define NAME_WIDTH   32
#define NAME_WIDTH_NOT_COUNTED 25 /* perf narrows the name of a row without a count */
#define METRIC_WIDTH 35
#define MAX_METRICS  2

/* ---- classes and metrics ------------------------------------------------ */

enum stat_class stat_classify(const struct pev_event_spec *spec)
{
	static const enum stat_class hw[] = {
	    [PEV_HW_CPU_CYCLES] = STAT_CLASS_CYCLES,
	    [PEV_HW_INSTRUCTIONS] = STAT_CLASS_INSTRUCTIONS,
	    [PEV_HW_CACHE_REFERENCES] = STAT_CLASS_CACHE_REFS,
	    [PEV_HW_CACHE_MISSES] = STAT_CLASS_CACHE_MISSES,
	    [PEV_HW_BRANCH_INSTRUCTIONS] = STAT_CLASS_BRANCHES,
	    [PEV_HW_BRANCH_MISSES] = STAT_CLASS_BRANCH_MISSES,
	    [PEV_HW_STALLED_CYCLES_FRONTEND] = STAT_CLASS_STALLED_FRONTEND,
	    [PEV_HW_STALLED_CYCLES_BACKEND] = STAT_CLASS_STALLED_BACKEND,
	};
	/* Cache events by level: the class of (read, access) and (read, miss). */
	static const enum stat_class cache[][2] = {
	    [PEV_HW_CACHE_L1D] = {STAT_CLASS_L1D_LOADS, STAT_CLASS_L1D_LOAD_MISSES},
	    [PEV_HW_CACHE_L1I] = {STAT_CLASS_L1I_LOADS, STAT_CLASS_L1I_LOAD_MISSES},
	    [PEV_HW_CACHE_LL] = {STAT_CLASS_LL_LOADS, STAT_CLASS_LL_LOAD_MISSES},
	    [PEV_HW_CACHE_DTLB] = {STAT_CLASS_DTLB_LOADS, STAT_CLASS_DTLB_LOAD_MISSES},
	    [PEV_HW_CACHE_ITLB] = {STAT_CLASS_ITLB_LOADS, STAT_CLASS_ITLB_LOAD_MISSES},
	};
	const struct pev_event *ev = &spec->ev;
	uint64_t config = ev->config & 0xffffffffULL; /* the upper half names a hybrid PMU */

	if (ev->type == PEV_TYPE_SOFTWARE && config == PEV_SW_TASK_CLOCK)
		return STAT_CLASS_TASK_CLOCK;
	if (ev->type == PEV_TYPE_SOFTWARE && config == PEV_SW_CPU_CLOCK)
		return STAT_CLASS_CPU_CLOCK;
	if (ev->type == PEV_TYPE_HARDWARE && config < sizeof(hw) / sizeof(hw[0]) && hw[config])
		return hw[config];
	if (ev->type == PEV_TYPE_HW_CACHE) {
		uint64_t level = config & 0xff, op = (config >> 8) & 0xff,
		         result = (config >> 16) & 0xff;
		if (level < sizeof(cache) / sizeof(cache[0]) && op == PEV_HW_CACHE_OP_READ &&
		    result <= PEV_HW_CACHE_RESULT_MISS)
			return cache[level][result];
	}
	return STAT_CLASS_OTHER;
}

static bool is_clock(enum stat_class c)
{
	return c == STAT_CLASS_TASK_CLOCK || c == STAT_CLASS_CPU_CLOCK;
}

/* One derived number: printed with fmt, then its unit. */
struct metric {
	double value;
	const char *fmt;
	char unit[40];
};

static const struct stat_cell *cell_at(const struct stat_report *r, int e, int k)
{
	return &r->cells[e * r->nkeys + k];
}

/*
 * The count of the first counted event of class c at key k, when it is
 * above 0, among the events that count what event `of` counts (its
 * cgroup: a metric never mixes two cgroups' counts).
 */
static bool input(const struct stat_report *r, int of, enum stat_class c, int k, double *v)
{
	for (int e = 0; e < r->nevents; e++) {
		const struct stat_cell *cell = cell_at(r, e, k);
		if (r->events[e].cls == c && cell->state == STAT_CELL_COUNTED && cell->value > 0 &&
		    stat_cgroup_same(&r->events[e], &r->events[of])) {
			*v = cell->value;
			return true;
		}
	}
	return false;
}

/* ns of task-clock (or cpu-clock) at key k: the base of per-second rates. */
static bool clock_ns(const struct stat_report *r, int of, int k, double *ns)
{
	return input(r, of, STAT_CLASS_TASK_CLOCK, k, ns) ||
	       input(r, of, STAT_CLASS_CPU_CLOCK, k, ns);
}

static void set_metric(struct metric *m, double value, const char *fmt, const char *unit)
{
	m->value = value;
	m->fmt = fmt;
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
}

/* A rate per second of clock time, with perf's K/M/G prefixes. */
static bool rate(const struct stat_report *r, int of, int k, double v, struct metric *m)
{
	double ns;

	if (!clock_ns(r, of, k, &ns))
		return false;
	double per_sec = v * 1e9 / ns;
	const char *unit = "/sec";
	if (per_sec > 1e9) {
		per_sec /= 1e9;
		unit = "G/sec";
	} else if (per_sec > 1e6) {
		per_sec /= 1e6;
		unit = "M/sec";
	} else if (per_sec > 1e3) {
		per_sec /= 1e3;
		unit = "K/sec";
	}
	set_metric(m, per_sec, "%8.3f", unit);
	return true;
}

/* Miss ratios: the class of the misses, of their total, and the unit. */
static const struct ratio_def {
	enum stat_class misses, total;
	const char *fmt, *unit;
} ratios[] = {
    {STAT_CLASS_BRANCH_MISSES, STAT_CLASS_BRANCHES, "%7.2f%%", "of all branches"},
    {STAT_CLASS_CACHE_MISSES, STAT_CLASS_CACHE_REFS, "%8.3f %%", "of all cache refs"},
    {STAT_CLASS_L1D_LOAD_MISSES, STAT_CLASS_L1D_LOADS, "%7.2f%%", "of all L1-dcache accesses"},
    {STAT_CLASS_L1I_LOAD_MISSES, STAT_CLASS_L1I_LOADS, "%7.2f%%", "of all L1-icache accesses"},
    {STAT_CLASS_LL_LOAD_MISSES, STAT_CLASS_LL_LOADS, "%7.2f%%", "of all LL-cache accesses"},
    {STAT_CLASS_DTLB_LOAD_MISSES, STAT_CLASS_DTLB_LOADS, "%7.2f%%", "of all dTLB cache accesses"},
    {STAT_CLASS_ITLB_LOAD_MISSES, STAT_CLASS_ITLB_LOADS, "%7.2f%%", "of all iTLB cache accesses"},
    {STAT_CLASS_STALLED_FRONTEND, STAT_CLASS_CYCLES, "%7.2f%%", "frontend cycles idle"},
    {STAT_CLASS_STALLED_BACKEND, STAT_CLASS_CYCLES, "%7.2f%%", "backend cycles idle"},
};

/*
 * The metrics of event e at key k, where their inputs were counted: CPUs
 * utilized for clocks, GHz for cycles, IPC (and stalled cycles per
 * instruction) for instructions, miss ratios, and otherwise the rate per
 * second of task-clock. Returns how many (at most MAX_METRICS).
 */
static int metrics_of(const struct stat_report *r, int e, int k, struct metric *m)
{
	const struct stat_cell *cell = cell_at(r, e, k);
	enum stat_class cls = r->events[e].cls;
	double v = cell->value, in, in2, ns;

	if (cell->state != STAT_CELL_COUNTED)
		return 0;
	if (is_clock(cls)) {
		if (r->elapsed_ns <= 0)
			return 0;
		set_metric(m, v / r->elapsed_ns, "%8.3f", "CPUs utilized");
		return 1;
	}
	if (cls == STAT_CLASS_CYCLES) {
		if (!clock_ns(r, e, k, &ns))
			return 0;
		set_metric(m, v / ns, "%8.3f", "GHz");
		return 1;
	}
	if (cls == STAT_CLASS_INSTRUCTIONS && input(r, e, STAT_CLASS_CYCLES, k, &in)) {
		int n = 0;
		set_metric(&m[n++], v / in, "%7.2f ", "insn per cycle");
		bool fe = input(r, e, STAT_CLASS_STALLED_FRONTEND, k, &in);
		bool be = input(r, e, STAT_CLASS_STALLED_BACKEND, k, &in2);
		if ((fe || be) && v > 0) {
			double stalled = fe && be ? (in > in2 ? in : in2) : fe ? in : in2;
			set_metric(&m[n++], stalled / v, "%7.2f ", "stalled cycles per insn");
		}
		return n;
	}
	for (size_t i = 0; i < sizeof(ratios) / sizeof(ratios[0]); i++) {
		if (ratios[i].misses == cls && input(r, e, ratios[i].total, k, &in)) {
			set_metric(m, 100.0 * v / in, ratios[i].fmt, ratios[i].unit);
			return 1;
		}
	}
	return rate(r, e, k, v, m);
}

/* ---- shared formatting --------------------------------------------------- */

/* The unit a count is printed in. */
static const char *unit_of(const struct stat_event *ev)
{
	if (is_clock(ev->cls))
		return "msec";
	return ev->spec->unit ? ev->spec->unit : "";
}

/* Rounds to the nearest whole number (perfev does not link libm, to start fast). */
static long long round_ll(double v)
{
	return (long long)(v < 0 ? v - 0.5 : v + 0.5);
}

/* The count in its unit: msec for clocks, sysfs scale for events that have one. */
static double value_in_unit(const struct stat_event *ev, double v)
{
	if (is_clock(ev->cls))
		return v / 1e6;
	return v * ev->spec->scale;
}

/* Whether the value is shown with two decimals rather than as a whole count. */
static bool fractional(const struct stat_event *ev)
{
	return is_clock(ev->cls) || ev->spec->scale != 1.0;
}

static void append(char *line, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * A number printed with %f ("-1234567.25") with sep between the thousands
 * of its whole part ("-1,234,567.25"); sep "" leaves it as it is. With sep,
 * the decimal point is the locale's too ("1.234,56" in de_DE), as perf's.
 */
static void group_number(const char *num, const char *sep, char *buf, size_t size)
{
	char whole[64], grouped[96];
	const char *digits = num + (num[0] == '-');
	size_t n = strspn(digits, "0123456789");

	snprintf(whole, sizeof(whole), "%.*s", (int)n, digits);
	cli_group_digits(whole, sep, grouped, sizeof(grouped));
	buf[0] = '\0';
	append(buf, size, "%s", num[0] == '-' ? "-" : "");
	append(buf, size, "%s", grouped);
	if (sep[0] && digits[n] == '.')
		append(buf, size, "%s%s", cli_decimal_point(), digits + n + 1);
	else
		append(buf, size, "%s", digits + n);
}

/*
 * The count as text: "0.64", "1234567", or with the locale's thousands
 * separator (thousands, "" for none) "1,234,567" and "1,234.56"; or a state.
 */
static void format_value(const struct stat_event *ev, const struct stat_cell *cell,
                         const char *thousands, char *buf, size_t size)
{
	char num[64];

	if (cell->state == STAT_CELL_NOT_SUPPORTED) {
		snprintf(buf, size, "<not supported>");
	} else if (cell->state == STAT_CELL_NOT_COUNTED) {
		snprintf(buf, size, "<not counted>");
	} else {
		snprintf(num, sizeof(num), fractional(ev) ? "%.2f" : "%.0f",
		         value_in_unit(ev, cell->value));
		group_number(num, thousands, buf, size);
	}
}

/* The percentage of enabled time the counter ran (100 when it was never enabled). */
static double percent_running(const struct stat_cell *cell)
{
	return cell->enabled > 0 ? 100.0 * cell->running / cell->enabled : 100.0;
}

/* The diagnosis without its "cannot open 'x' on thread N: " prefix. */
static const char *reason_of(const struct pev_error *err)
{
	const char *p = strstr(err->message, ": ");
	return p ? p + 2 : err->message;
}

/* The first sentence of the reason, for a row. */
static void short_reason(const struct pev_error *err, char *buf, size_t size)
{
	cli_first_sentence(reason_of(err), buf, size);
	size_t n = strlen(buf);
	if (n && buf[n - 1] == '.')
		buf[n - 1] = '\0';
}

/* A row's prefix: the interval's timestamp, then the CPU or the thread. */
static void format_prefix(const struct stat_report *r, int k, char *buf, size_t size)
{
	const char *sep = r->cfg->sep ? r->cfg->sep : " ";
	const struct stat_key *key = &r->keys[k];
	size_t n = 0;

	buf[0] = '\0';
	if (r->timestamp_s >= 0) {
		unsigned long long ns = (unsigned long long)round_ll(r->timestamp_s * 1e9);
		n += (size_t)snprintf(buf + n, size - n, "%6llu.%09llu%s", ns / 1000000000ULL,
		                      ns % 1000000000ULL, sep);
	}
	if (n >= size)
		return;
	if (r->cfg->aggr == STAT_AGGR_CPU)
		snprintf(buf + n, size - n, r->cfg->sep ? "CPU%d%s" : "CPU%-7d%s", key->cpu, sep);
	else if (r->cfg->aggr == STAT_AGGR_THREAD)
		snprintf(buf + n, size - n, r->cfg->sep ? "%s-%d%s" : "%16s-%-8d%s", cli_shown(key->comm),
		         (int)key->tid, sep);
}

/*
 * The padding a "%-*s" gets so that a metric of `used` characters and its
 * unit fill the metric's columns: 0 when they are wider (they overflow the
 * column; a negative width would left-justify instead).
 */
static int metric_room(int used)
{
	return used + 1 < METRIC_WIDTH ? METRIC_WIDTH - used - 1 : 0;
}

/* Appends printf output to a line buffer. */
static void append(char *line, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void append(char *line, size_t size, const char *fmt, ...)
{
	size_t n = strlen(line);
	va_list ap;

	if (n + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(line + n, size - n, fmt, ap);
	va_end(ap);
}

/*
 * Whether any event counts a cgroup: then, as perf, every row has the
 * cgroup's column (empty for an event counted everywhere).
 */
static bool uses_cgroups(const struct stat_report *r)
{
	for (int e = 0; e < r->nevents; e++)
		if (r->events[e].cgroup)
			return true;
	return false;
}

/* An event's cgroup as its column shows it: "" for one counted everywhere. */
static const char *cgroup_of(const struct stat_event *ev)
{
	return ev->cgroup ? cli_shown(ev->cgroup) : "";
}

/* ---- text ------------------------------------------------------------------ */

/*
 * A row as perf's table has it, padding included, so that the metric and
 * any percentages line up and a line compares equal with perf's: the
 * count (18 wide), the unit (4), the name (32 wide, or 25 for a count
 * that could not be taken), then the metric's 35 columns, blank when
 * there is none.
 */
static void text_row(const struct stat_report *r, int e, int k)
{
	const struct stat_event *ev = &r->events[e];
	const struct stat_cell *cell = cell_at(r, e, k);
	bool counted = cell->state == STAT_CELL_COUNTED;
	struct metric m[MAX_METRICS];
	int nm = metrics_of(r, e, k, m);
	char prefix[128], value[64], line[1024];

	format_prefix(r, k, prefix, sizeof(prefix));
	format_value(ev, cell, r->cfg->big_num ? cli_thousands_sep() : "", value, sizeof(value));
	snprintf(line, sizeof(line), "%s%*s %-*s %-*s", prefix, VALUE_WIDTH, value, UNIT_WIDTH,
	         unit_of(ev), counted ? NAME_WIDTH : NAME_WIDTH_NOT_COUNTED, cli_shown(ev->name));
	if (uses_cgroups(r)) /* as perf: the cgroup after the name's column */
		append(line, sizeof(line), " %s", cgroup_of(ev));
	if (nm > 0) {
		char num[48];
		snprintf(num, sizeof(num), m[0].fmt, m[0].value);
		int used = 3 + (int)strlen(num);
		append(line, sizeof(line), " # %s %-*s", num, metric_room(used), m[0].unit);
	} else {
		append(line, sizeof(line), "%-*s", METRIC_WIDTH, "");
	}
	if (counted && cell->noise_pct != 0)
		append(line, sizeof(line), "  ( +-%6.2f%% )", cell->noise_pct);
	if (counted && cell->running < cell->enabled)
		append(line, sizeof(line), "  (%.2f%%)", percent_running(cell));
	if (!counted && ev->open == STAT_OPEN_FAILED) {
		char why[256];
		short_reason(&ev->err, why, sizeof(why));
		append(line, sizeof(line), " # %s", why);
	}
	fprintf(r->cfg->out, "%s\n", line);
	for (int i = 1; i < nm; i++) {
		char num[48];
		snprintf(num, sizeof(num), m[i].fmt, m[i].value);
		int used = 3 + (int)strlen(num);
		fprintf(r->cfg->out, "%*s # %s %-*s\n",
		        (int)strlen(prefix) + VALUE_WIDTH + UNIT_WIDTH + NAME_WIDTH + 2, "", num,
		        metric_room(used), m[i].unit);
	}
}

/* ---- CSV ------------------------------------------------------------------- */

/* A metric as perf's CSV has it: the number without padding or '%'. */
static void csv_metric(const struct metric *m, char *buf, size_t size)
{
	char num[48];
	const char *p = num;

	snprintf(num, sizeof(num), m->fmt, m->value);
	while (*p == ' ')
		p++;
	size_t n = strspn(p, "0123456789.-");
	snprintf(buf, size, "%.*s", (int)n, p);
}

static void csv_row(const struct stat_report *r, int e, int k)
{
	const struct stat_event *ev = &r->events[e];
	const struct stat_cell *cell = cell_at(r, e, k);
	const char *sep = r->cfg->sep;
	struct metric m[MAX_METRICS];
	int nm = metrics_of(r, e, k, m);
	char prefix[128], value[64], num[48] = "";
	FILE *out = r->cfg->out;

	format_prefix(r, k, prefix, sizeof(prefix));
	format_value(ev, cell, "", value, sizeof(value));
	fprintf(out, "%s%s%s%s%s%s", prefix, value, sep, unit_of(ev), sep, cli_shown(ev->name));
	bool cgroups = uses_cgroups(r);
	if (cgroups) /* as perf: a field after the event's */
		fprintf(out, "%s%s", sep, cgroup_of(ev));
	if (r->runs > 1)
		fprintf(out, "%s%.2f%%", sep, cell->noise_pct);
	/* perf's spelling of a row without a count: run time 0, 100.00 percent. */
	bool counted = cell->state == STAT_CELL_COUNTED;
	fprintf(out, "%s%.0f%s%.2f%s", sep, counted ? cell->running : 0, sep,
	        counted ? percent_running(cell) : 100.0, sep);
	if (nm > 0)
		csv_metric(&m[0], num, sizeof(num));
	fprintf(out, "%s%s%s\n", num, sep, nm > 0 ? m[0].unit : "");
	for (int i = 1; i < nm; i++) {
		csv_metric(&m[i], num, sizeof(num));
		fprintf(out, "%s", prefix);
		for (int f = 0; f < (r->runs > 1 ? 6 : 5) + cgroups; f++)
			fputs(sep, out);
		fprintf(out, "%s%s%s\n", num, sep, m[i].unit);
	}
}

/* ---- perf's JSON lines (-j) ---------------------------------------------- */

/*
 * Writes text as the inside of a JSON string: control characters as
 * \u00XX, a byte that is not UTF-8 as U+FFFD (as cli_json_string).
 */
static void json_chars(FILE *out, const char *text)
{
	for (const unsigned char *c = (const unsigned char *)text; *c;) {
		int len = pev_text_utf8_char((const char *)c);

		if (!len)
			fputs("\xef\xbf\xbd", out);
		else if (*c == '"' || *c == '\\')
			fprintf(out, "\\%c", *c);
		else if (*c < 0x20)
			fprintf(out, "\\u%04x", *c);
		else
			fwrite(c, 1, (size_t)len, out);
		c += len ? len : 1;
	}
}

/*
 * One row as perf 6.1's -j prints it: one object on one line, with perf's
 * keys in perf's order and its number formats ("counter-value" a string).
 */
static void json_line_row(const struct stat_report *r, int e, int k)
{
	const struct stat_event *ev = &r->events[e];
	const struct stat_cell *cell = cell_at(r, e, k);
	const struct stat_key *key = &r->keys[k];
	bool counted = cell->state == STAT_CELL_COUNTED;
	struct metric m[MAX_METRICS];
	int nm = metrics_of(r, e, k, m);
	FILE *out = r->cfg->out;

	fputc('{', out);
	if (r->timestamp_s >= 0) {
		unsigned long long ns = (unsigned long long)round_ll(r->timestamp_s * 1e9);
		fprintf(out, "\"interval\" : %llu.%09llu, ", ns / 1000000000ULL,
		        ns % 1000000000ULL);
	}
	if (r->cfg->aggr == STAT_AGGR_CPU)
		fprintf(out, "\"cpu\" : \"%d\", ", key->cpu);
	if (r->cfg->aggr == STAT_AGGR_THREAD) {
		fputs("\"thread\" : \"", out);
		json_chars(out, key->comm);
		fprintf(out, "-%d\", ", (int)key->tid);
	}
	if (counted)
		fprintf(out, "\"counter-value\" : \"%f\", ", value_in_unit(ev, cell->value));
	else
		fprintf(out, "\"counter-value\" : \"%s\", ",
		        cell->state == STAT_CELL_NOT_SUPPORTED ? "<not supported>"
		                                               : "<not counted>");
	fputs("\"unit\" : \"", out);
	json_chars(out, unit_of(ev));
	fputs("\", \"event\" : \"", out);
	json_chars(out, ev->name);
	if (uses_cgroups(r)) {
		fputs("\", \"cgroup\" : \"", out);
		json_chars(out, ev->cgroup ? ev->cgroup : "");
	}
	fputs("\", ", out);
	if (r->runs > 1)
		fprintf(out, "\"variance\" : %.2f, ", cell->noise_pct);
	fprintf(out, "\"event-runtime\" : %.0f, \"pcnt-running\" : %.2f, ",
	        counted ? cell->running : 0, counted ? percent_running(cell) : 100.0);
	fprintf(out, "\"metric-value\" : %f, \"metric-unit\" : \"", nm > 0 ? m[0].value : 0.0);
	json_chars(out, nm > 0 ? m[0].unit : "");
	fputs("\"}\n", out);
}

/* ---- text, CSV and JSON-lines reports ------------------------------------ */

/*
 * Whether event e has a row at key k: a tool event (duration_time) is one
 * measurement, shown at the first CPU or thread only, as perf does.
 */
static bool row_shown(const struct stat_report *r, int e, int k)
{
	return k == 0 || r->events[e].tool == STAT_TOOL_NONE;
}

/* Orders key indexes by an event's counts, largest first (qsort's context). */
static const struct stat_report *order_report;
static int order_event;

static int by_count_desc(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	const struct stat_cell *ca = cell_at(order_report, order_event, a);
	const struct stat_cell *cb = cell_at(order_report, order_event, b);
	double va = ca->state == STAT_CELL_COUNTED ? ca->value : 0;
	double vb = cb->state == STAT_CELL_COUNTED ? cb->value : 0;

	if (va != vb)
		return va < vb ? 1 : -1;
	return (a > b) - (a < b); /* ties keep the threads' order */
}

/*
 * The order of event e's rows: --per-thread shows the busiest threads
 * first, as perf does (ties, and threads not counted, in the threads'
 * order); CPUs stay in CPU order.
 */
static void row_order(const struct stat_report *r, int e, int *order)
{
	for (int k = 0; k < r->nkeys; k++)
		order[k] = k;
	if (r->cfg->aggr != STAT_AGGR_THREAD || r->nkeys < 2)
		return;
	order_report = r;
	order_event = e;
	qsort(order, (size_t)r->nkeys, sizeof(*order), by_count_desc);
}

static void print_rows(const struct stat_report *r)
{
	int *order = cli_xcalloc((size_t)r->nkeys + 1, sizeof(*order));

	for (int e = 0; e < r->nevents; e++) {
		row_order(r, e, order);
		for (int i = 0; i < r->nkeys; i++) {
			int k = order[i];
			if (!row_shown(r, e, k))
				continue;
			if (r->cfg->json_lines)
				json_line_row(r, e, k);
			else if (r->cfg->sep)
				csv_row(r, e, k);
			else
				text_row(r, e, k);
		}
	}
	free(order);
}

/* " Performance counter stats for 'ls -l' (3 runs):" */
static void print_heading(const struct stat_report *r)
{
	const struct stat_config *cfg = r->cfg;
	FILE *out = cfg->out;

	fprintf(out, "\n Performance counter stats for ");
	switch (cfg->target) {
	case STAT_TARGET_COMMAND:
		fputc('\'', out);
		for (int i = 0; cfg->argv[i]; i++)
			fprintf(out, "%s%s", i ? " " : "", cli_shown(cfg->argv[i]));
		fputc('\'', out);
		break;
	case STAT_TARGET_PROCESS:
		fprintf(out, "process id '%s'", cfg->target_text);
		break;
	case STAT_TARGET_THREAD:
		fprintf(out, "thread id '%s'", cfg->target_text);
		break;
	case STAT_TARGET_CPUS:
		fprintf(out, "'CPU(s) %s'", cfg->target_text);
		break;
	case STAT_TARGET_SYSTEM:
		fprintf(out, "'system wide'");
		break;
	}
	if (r->runs > 1)
		fprintf(out, " (%d runs)", r->runs);
	fprintf(out, ":\n\n");
}

/* perf's precision for "+-": two digits more than the spread's first significant one. */
static int precision_of(double sd)
{
	int p = 0;

	if (sd <= 0)
		return 9;
	if (sd > 1)
		return 2;
	while (sd < 1 && p < 15) {
		sd *= 10;
		p++;
	}
	return p + 2;
}

static void print_times(const struct stat_report *r)
{
	FILE *out = r->cfg->out;

	if (r->runs > 1) {
		double avg = r->elapsed_ns / 1e9, sd = r->elapsed_sd_ns / 1e9;
		int p = precision_of(sd);
		fprintf(out, "\n %17.*f +- %.*f seconds time elapsed", p, avg, p, sd);
		if (r->elapsed_noise_pct != 0)
			fprintf(out, "  ( +-%6.2f%% )", r->elapsed_noise_pct);
		fprintf(out, "\n\n");
		return;
	}
	fprintf(out, "\n %17.9f seconds time elapsed\n\n", r->elapsed_ns / 1e9);
	if (r->have_rusage)
		/* perf ends the user and sys times with two blank lines. */
		fprintf(out, " %17.9f seconds user\n %17.9f seconds sys\n\n\n", r->user_s, r->sys_s);
}

static bool same_reason(const struct stat_report *r, int e, int f);

void stat_print_notes(const struct stat_report *r)
{
	FILE *out = r->cfg->out;
	bool *done = calloc((size_t)r->nevents + 1, sizeof(bool));

	if (!done || r->cfg->sep || r->cfg->json_lines) {
		free(done);
		return;
	}
	for (int e = 0; e < r->nevents; e++) {
		const struct stat_event *ev = &r->events[e];
		if (done[e] || ev->open == STAT_OPEN_OK)
			continue;
		/* Events that failed alike share one note, naming them all. */
		int count = 0;
		for (int f = e; f < r->nevents; f++)
			count += same_reason(r, e, f);
		fprintf(out, " note: ");
		for (int f = e, i = 0; f < r->nevents; f++) {
			if (!same_reason(r, e, f))
				continue;
			fprintf(out, "%s%s",
			        i == 0           ? ""
			        : i == count - 1 ? " and "
			                         : ", ",
			        r->events[f].name);
			done[f] = true;
			i++;
		}
		if (ev->open == STAT_OPEN_FAILED) {
			/* A failure in full: the message and every hint. */
			fprintf(out, " could not be counted: %s\n", reason_of(&ev->err));
			for (const char *h = cli_hint(&ev->err); *h;) {
				size_t n = strcspn(h, "\n");
				fprintf(out, " hint: %.*s\n", (int)n, h);
				h += n + (h[n] == '\n');
			}
			continue;
		}
		fprintf(out, " %s not supported here: %s\n", count > 1 ? "are" : "is",
		        reason_of(&ev->err));
		if (ev->err.hint[0])
			fprintf(out, " hint: %.*s\n", (int)strcspn(ev->err.hint, "\n"),
			        ev->err.hint);
	}
	free(done);
}

void stat_print_totals(const struct stat_report *r)
{
	bool table = !r->cfg->sep && !r->cfg->json_lines;

	if (table)
		print_heading(r);
	print_rows(r);
	if (!table)
		return;
	print_times(r);
	stat_print_notes(r);
}

void stat_print_interval(const struct stat_report *r, int nth)
{
	static const char *const headings[] = {
	    [STAT_AGGR_GLOBAL] = "#           time             counts unit events",
	    [STAT_AGGR_CPU] = "#           time CPU                    counts unit events",
	    [STAT_AGGR_THREAD] =
	        "#           time             comm-pid                  counts unit events",
	};

	if (!r->cfg->sep && !r->cfg->json_lines && nth % 25 == 0)
		fprintf(r->cfg->out, "%s\n", headings[r->cfg->aggr]);
	print_rows(r);
	fflush(r->cfg->out);
}

/* ---- JSON ------------------------------------------------------------------ */

struct stat_json {
	json_object *intervals;
};

/* A number with at most `decimals` decimals and no trailing zeros; null if not finite. */
static json_object *jnum(double v, int decimals)
{
	char buf[64];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	if (strchr(buf, '.')) {
		size_t n = strlen(buf);
		while (buf[n - 1] == '0')
			buf[--n] = '\0';
		if (buf[n - 1] == '.')
			buf[--n] = '\0';
	}
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, sizeof(buf), "0");
	return json_object_new_double_s(v, buf);
}

static json_object *json_error(const struct pev_error *err)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(pev_error_name(err->code)));
	json_object_object_add(o, "message", json_object_new_string(reason_of(err)));
	json_object_object_add(o, "hint", json_object_new_string(cli_hint(err)));
	return o;
}

static json_object *json_row(const struct stat_report *r, int e, int k)
{
	const struct stat_event *ev = &r->events[e];
	const struct stat_cell *cell = cell_at(r, e, k);
	const struct stat_key *key = &r->keys[k];
	bool counted = cell->state == STAT_CELL_COUNTED;
	json_object *o = json_object_new_object(), *metrics = json_object_new_array();
	struct metric m[MAX_METRICS];
	int nm = metrics_of(r, e, k, m);

	json_object_object_add(o, "event", cli_json_string(ev->name));
	if (ev->cgroup)
		json_object_object_add(o, "cgroup", cli_json_string(ev->cgroup));
	if (r->cfg->aggr == STAT_AGGR_CPU)
		json_object_object_add(o, "cpu", json_object_new_int(key->cpu));
	if (r->cfg->aggr == STAT_AGGR_THREAD) {
		json_object *t = json_object_new_object();
		json_object_object_add(t, "tid", json_object_new_int((int)key->tid));
		json_object_object_add(t, "comm", cli_json_string(key->comm));
		json_object_object_add(o, "thread", t);
	}
	json_object_object_add(o, "value",
	                       counted ? jnum(value_in_unit(ev, cell->value), 6) : NULL);
	json_object_object_add(o, "unit", json_object_new_string(unit_of(ev)));
	json_object_object_add(
	    o, "count", counted ? json_object_new_int64((int64_t)round_ll(cell->value)) : NULL);
	json_object_object_add(o, "supported",
	                       json_object_new_boolean(cell->state != STAT_CELL_NOT_SUPPORTED));
	json_object_object_add(o, "counted", json_object_new_boolean(counted));
	json_object_object_add(o, "time_enabled_ns",
	                       json_object_new_int64((int64_t)round_ll(cell->enabled)));
	json_object_object_add(o, "time_running_ns",
	                       json_object_new_int64((int64_t)round_ll(cell->running)));
	json_object_object_add(o, "percent_running", jnum(percent_running(cell), 2));
	if (r->runs > 1)
		json_object_object_add(o, "stddev_percent", jnum(cell->noise_pct, 2));
	for (int i = 0; i < nm; i++) {
		json_object *mo = json_object_new_object();
		json_object_object_add(mo, "value", jnum(m[i].value, 6));
		json_object_object_add(mo, "unit", json_object_new_string(m[i].unit));
		json_object_array_add(metrics, mo);
	}
	json_object_object_add(o, "metrics", metrics);
	if (ev->open != STAT_OPEN_OK)
		json_object_object_add(o, "error", json_error(&ev->err));
	return o;
}

static json_object *json_rows(const struct stat_report *r)
{
	json_object *a = json_object_new_array();

	for (int e = 0; e < r->nevents; e++)
		for (int k = 0; k < r->nkeys; k++)
			if (row_shown(r, e, k))
				json_object_array_add(a, json_row(r, e, k));
	return a;
}

/* Whether events e and f were not supported for the same reason. */
/*
 * Whether events e and f failed alike and share one note: both unsupported
 * for the same reason, or both refused with the same reason and the same
 * fixes (40 events over the open-file limit get one note, not 40).
 */
static bool same_reason(const struct stat_report *r, int e, int f)
{
	const struct stat_event *a = &r->events[e], *b = &r->events[f];

	if (a->open != b->open || a->open == STAT_OPEN_OK)
		return false;
	if (strcmp(reason_of(&a->err), reason_of(&b->err)) != 0)
		return false;
	return a->open == STAT_OPEN_UNSUPPORTED || strcmp(a->err.hint, b->err.hint) == 0;
}

/*
 * The notes: one per reason events were not supported or could not be
 * opened (with the events), as the text notes.
 */
static json_object *json_notes(const struct stat_report *r)
{
	json_object *a = json_object_new_array();
	bool *done = calloc((size_t)r->nevents + 1, sizeof(bool));

	for (int e = 0; done && e < r->nevents; e++) {
		const struct stat_event *ev = &r->events[e];
		if (done[e] || ev->open == STAT_OPEN_OK)
			continue;
		json_object *o = json_error(&ev->err), *names = json_object_new_array();
		for (int f = e; f < r->nevents; f++) {
			if (f == e || same_reason(r, e, f)) {
				json_object_array_add(names,
				                      json_object_new_string(r->events[f].name));
				done[f] = true;
			}
		}
		json_object_object_add(o, "events", names);
		json_object_object_add(o, "supported",
		                       json_object_new_boolean(ev->open != STAT_OPEN_UNSUPPORTED));
		json_object_array_add(a, o);
	}
	free(done);
	return a;
}

struct stat_json *stat_json_new(const struct stat_config *cfg)
{
	struct stat_json *j = calloc(1, sizeof(*j));

	if (j && cfg->interval_ms)
		j->intervals = json_object_new_array();
	return j;
}

void stat_json_add_interval(struct stat_json *j, const struct stat_report *r)
{
	json_object *o = json_object_new_object();

	if (!j || !j->intervals)
		return;
	json_object_object_add(o, "time_seconds", jnum(r->timestamp_s, 9));
	json_object_object_add(o, "elapsed_seconds", jnum(r->elapsed_ns / 1e9, 9));
	json_object_object_add(o, "events", json_rows(r));
	json_object_array_add(j->intervals, o);
}

static const char *target_name(enum stat_target t)
{
	switch (t) {
	case STAT_TARGET_COMMAND:
		return "command";
	case STAT_TARGET_PROCESS:
		return "process";
	case STAT_TARGET_THREAD:
		return "thread";
	case STAT_TARGET_CPUS:
		return "cpus";
	case STAT_TARGET_SYSTEM:
		return "system-wide";
	}
	return "?";
}

void stat_json_finish(struct stat_json *j, const struct stat_report *r)
{
	static const char *const aggr[] = {"global", "cpu", "thread"};
	const struct stat_config *cfg = r->cfg;
	json_object *root = json_object_new_object();

	if (cfg->argv) {
		json_object *cmd = json_object_new_array();
		for (int i = 0; cfg->argv[i]; i++)
			json_object_array_add(cmd, cli_json_string(cfg->argv[i]));
		json_object_object_add(root, "command", cmd);
	} else {
		json_object_object_add(root, "command", NULL);
	}
	json_object_object_add(root, "target", json_object_new_string(target_name(cfg->target)));
	if (cfg->nids) {
		json_object *ids = json_object_new_array();
		for (int i = 0; i < cfg->nids; i++)
			json_object_array_add(ids, json_object_new_int((int)cfg->ids[i]));
		json_object_object_add(root, cfg->target == STAT_TARGET_PROCESS ? "pids" : "tids",
		                       ids);
	}
	if (cfg->ncpus) {
		json_object *cpus = json_object_new_array();
		for (int i = 0; i < cfg->ncpus; i++)
			json_object_array_add(cpus, json_object_new_int(cfg->cpus[i]));
		json_object_object_add(root, "cpus", cpus);
	}
	json_object_object_add(root, "aggregation", json_object_new_string(aggr[cfg->aggr]));
	json_object_object_add(root, "runs", json_object_new_int(r->runs));
	if (cfg->interval_ms)
		json_object_object_add(root, "interval_ms", json_object_new_int(cfg->interval_ms));
	json_object_object_add(root, "elapsed_seconds", jnum(r->elapsed_ns / 1e9, 9));
	if (r->runs > 1)
		json_object_object_add(root, "elapsed_stddev_percent",
		                       jnum(r->elapsed_noise_pct, 2));
	if (r->have_rusage) {
		json_object_object_add(root, "user_seconds", jnum(r->user_s, 6));
		json_object_object_add(root, "sys_seconds", jnum(r->sys_s, 6));
	}
	json_object_object_add(root, "exit_status",
	                       r->exit_status >= 0 ? json_object_new_int(r->exit_status) : NULL);
	json_object_object_add(root, "events", json_rows(r));
	if (j && j->intervals) {
		json_object_object_add(root, "intervals", j->intervals);
		j->intervals = NULL;
	}
	json_object_object_add(root, "notes", json_notes(r));
	fprintf(cfg->out, "%s\n",
	        json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
	                                                 JSON_C_TO_STRING_SPACED |
	                                                 JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	stat_json_free(j);
}

void stat_json_free(struct stat_json *j)
{
	if (!j)
		return;
	json_object_put(j->intervals);
	free(j);
}

/* SPDX-License-Identifier: MIT */
/*
 * test_pprof_tool.c - `perfev report --format pprof` read by the real
 * pprof (built from Debian's golang-go and golang-github-google-pprof-dev
 * into the build directory; $PERFEV_PPROF names it). For files perfev and
 * perf record (frame pointers, --call-graph dwarf, C and C++, threads,
 * --sample-cpu), pprof must agree with `perfev report` on the same file:
 *
 *   - `pprof -top -noinlines`: every function with the flat percentage the
 *     table (--no-children --sort sym) gives it;
 *   - `pprof -traces -noinlines -sample_index=samples`: the same stacks,
 *     each with the sample count `perfev report --format folded` gives it;
 *   - `pprof -raw` and `-top`'s header: the main mapping (pprof's "File:")
 *     is the recorded program, with its build id, and Time and Duration are
 *     there (the file's capture time less its samples' span); every file mapping has
 *     one; samples carry comm, pid and tid labels (cpu where recorded);
 *     the sample types are samples/count and cpu/nanoseconds.
 *
 * Without pprof (the packages not installed) every test skips, saying so.
 */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

static void setup(void)
{
	th_leak_init();
	th_suite_dir("pprof");
}

static void teardown(void)
{
	th_leak_fini();
}

TestSuite(pprof_tool, .init = setup, .fini = teardown, .timeout = 120);

/* The pprof the build made, or a skip that says how to get one. */
static const char *pprof_tool(void)
{
	const char *p = getenv("PERFEV_PPROF");

	if (!p || access(p, X_OK) != 0)
		th_skip("no pprof built: install golang-go and golang-github-google-pprof-dev "
			"(scripts/install-deps.sh), then reconfigure the build");
	return p;
}


/* ---- name -> number tables ---------------------------------------------------------- */

#define MAX_ENTRIES 4096

struct entry {
	char *key;
	double value;
};

struct table {
	struct entry e[MAX_ENTRIES];
	size_t n;
};

static void table_add(struct table *t, const char *key, double value)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->e[i].key, key) == 0) {
			t->e[i].value += value;
			return;
		}
	cr_assert_lt(t->n, MAX_ENTRIES, "more than %d entries", MAX_ENTRIES);
	t->e[t->n].key = strdup(key);
	t->e[t->n++].value = value;
}

static const struct entry *table_get(const struct table *t, const char *key)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->e[i].key, key) == 0)
			return &t->e[i];
	return NULL;
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->e[i].key);
	t->n = 0;
}

/* Every key of a with a's value in b (within tol), and no key of b missing from a. */
static void expect_same(const struct table *a, const char *a_name, const struct table *b,
			const char *b_name, double tol, const char *what)
{
	cr_expect_gt(a->n, 0, "%s: %s has no entries", what, a_name);
	for (size_t i = 0; i < a->n; i++) {
		const struct entry *o = table_get(b, a->e[i].key);
		cr_expect(o, "%s: '%s' (%.2f in %s) is missing from %s", what, a->e[i].key,
			  a->e[i].value, a_name, b_name);
		if (o)
			cr_expect(o->value >= a->e[i].value - tol && o->value <= a->e[i].value + tol,
				  "%s: '%s' is %.2f in %s but %.2f in %s", what, a->e[i].key,
				  a->e[i].value, a_name, o->value, b_name);
	}
	for (size_t i = 0; i < b->n; i++)
		cr_expect(table_get(a, b->e[i].key), "%s: '%s' (%.2f in %s) is missing from %s",
			  what, b->e[i].key, b->e[i].value, b_name, a_name);
}

/* ---- parsing ------------------------------------------------------------------------- */

static char *trim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/*
 * An unresolved frame as pprof names it (an address, "<unknown>", or its
 * mapping's name in brackets) or as perfev does ("[unknown]").
 */
static const char *frame_name(const char *name)
{
	const char *hex = name + (strncmp(name, "0x", 2) == 0 ? 2 : 0);
	size_t n = strspn(hex, "0123456789abcdef"), len = strlen(name);

	if ((n >= 4 && hex[n] == 0) || strcmp(name, "<unknown>") == 0 ||
	    (len > 2 && name[0] == '[' && name[len - 1] == ']'))
		return "[unknown]";
	return name;
}

/* `perfev report --stdio --no-children --sort sym -g none` rows: symbol -> percent. */
static void parse_table(char *text, struct table *t)
{
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		double pct;
		int at = 0;
		if (line[0] == '#' || sscanf(line, " %lf%% [%*c] %n", &pct, &at) != 1 || !at)
			continue;
		table_add(t, frame_name(trim(line + at)), pct);
	}
}

/* `pprof -top` rows: function -> flat percent. */
static void parse_top(char *text, struct table *t)
{
	bool rows = false;

	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char flat[64], pct[64], sum[64], cum[64], cumpct[64];
		int at = 0;
		if (!rows) {
			rows = strstr(line, "flat%") != NULL;
			continue;
		}
		if (sscanf(line, " %63s %63s %63s %63s %63s %n", flat, pct, sum, cum, cumpct, &at) != 5 ||
		    !at)
			continue;
		/* Functions only on stacks (flat 0) are not the table's rows. */
		if (strtod(pct, NULL) > 0)
			table_add(t, frame_name(trim(line + at)), strtod(pct, NULL));
	}
}

/*
 * `pprof -traces` samples: "comm;outermost;...;leaf" -> value, labels
 * counted: *tids distinct tid values, *with_cpu samples with a cpu label.
 */
static void parse_traces(char *text, struct table *t, struct table *tids, int *with_cpu)
{
	char stack[65536] = "", frames[256][512];
	char comm[256] = "";
	double value = 0;
	int nf = 0;
	bool in = false;

	*with_cpu = 0;
	for (char *line = strtok(text, "\n");; line = strtok(NULL, "\n")) {
		if (!line || strncmp(line, "-----------+", 12) == 0) {
			if (in && nf) {
				snprintf(stack, sizeof(stack), "%s", comm);
				for (int i = nf; i-- > 0;)
					snprintf(stack + strlen(stack), sizeof(stack) - strlen(stack),
						 ";%s", frames[i]);
				table_add(t, stack, value);
			}
			if (!line)
				break;
			in = true;
			nf = 0;
			comm[0] = 0;
			continue;
		}
		if (!in || strlen(line) < 12)
			continue;
		if (line[10] == ':') { /* "%10s:  %s": a label */
			char *dup = strndup(line, 10), *key = trim(dup), *val = trim(line + 11);
			if (strcmp(key, "comm") == 0)
				snprintf(comm, sizeof(comm), "%s", val);
			else if (strcmp(key, "tid") == 0)
				table_add(tids, val, 1);
			else if (strcmp(key, "cpu") == 0)
				++*with_cpu;
			free(dup);
			continue;
		}
		/* "%10s   %s": a frame; the first of a sample has its value. */
		if (nf == 0)
			value = strtod(line, NULL);
		cr_assert_lt(nf, 256, "a stack deeper than 256 frames");
		char *name = trim(line + 13), *mark = strstr(name, " (inline)");
		if (mark && mark[9] == 0)
			*mark = 0;
		snprintf(frames[nf++], sizeof(frames[0]), "%s", frame_name(name));
	}
}

/* `perfev report --format folded` lines: "comm;...;leaf COUNT". */
static void parse_folded(char *text, struct table *t)
{
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *sp = strrchr(line, ' ');
		if (!sp)
			continue;
		*sp = 0;
		/* Unresolved frames: the same name on both sides. */
		char out[65536] = "";
		for (char *f = line, *end; f; f = end ? end + 1 : NULL) {
			end = strchr(f, ';');
			if (end)
				*end = 0;
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", out[0] ? ";" : "",
				 f == line ? f : frame_name(f));
		}
		table_add(t, out, strtod(sp + 1, NULL));
	}
}

/*
 * The profile's own names: by default pprof shortens C++ names whose
 * system_name is no linkage name (template arguments and parameter lists
 * dropped); a -symbolize=demangle=... option symbolizes again from the
 * binaries, picking other aliases (__clock_gettime for
 * clock_gettime@@GLIBC_2.17).
 */
#define OWN_NAMES "-symbolize=none"

/* ---- the comparison -------------------------------------------------------------------- */

/* What a check expects beyond agreement with perfev report. */
struct expect {
	const char *program; /* the main mapping's file, or NULL: any */
	int min_tids;        /* distinct tid labels at least */
	bool cpu;            /* samples carry a cpu label */
	const char *top;     /* the function with the most flat time, or NULL */
};

static void check_raw(const char *pprof, const char *pb, const struct expect *x)
{
	char *raw = th_sh_okf("'%s' -raw '%s' 2>&1", pprof, pb);
	char *maps = strstr(raw, "\nMappings\n");

	cr_expect(strstr(raw, "samples/count cpu/nanoseconds[dflt]"),
		  "pprof -raw shows no samples/count and cpu/nanoseconds types:\n%.2000s", raw);
	cr_expect(strstr(raw, "PeriodType: cpu nanoseconds"), "no period type:\n%.600s", raw);
	cr_expect(strstr(raw, "comm:[") && strstr(raw, "pid:[") && strstr(raw, "tid:["),
		  "samples lack their comm, pid and tid labels:\n%.2000s", raw);
	cr_expect(!x->cpu || strstr(raw, "cpu:["), "samples lack their cpu label");
	cr_assert(maps, "pprof -raw shows no mappings:\n%.3000s", raw);
	for (char *line = strtok(maps + 10, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned id;
		char range[128], file[PATH_MAX], bid[256] = "";
		if (sscanf(line, "%u: %127s %4095s %255s", &id, range, file, bid) < 3)
			break;
		bool has_bid = strlen(bid) >= 16 && strspn(bid, "0123456789abcdef") == strlen(bid);
		if (id == 1 && x->program) {
			char real[PATH_MAX];
			cr_assert(realpath(x->program, real));
			cr_expect_str_eq(file, real, "the main mapping is %s, not the program %s", file,
					 real);
		}
		if (file[0] == '/' || id == 1)
			cr_expect(has_bid, "mapping %u (%s) has no build id: %s", id, file, line);
	}
	free(raw);
}

/*
 * perfev report of data as pprof, read by pprof: the same profile as the
 * table and the folded stacks perfev report gives for it, and x's checks.
 */
static void check_file(const char *data, const struct expect *x)
{
	const char *pprof = pprof_tool(), *perfev = th_perfev_bin();
	char pb[PATH_MAX];
	struct table ours = {0}, theirs = {0}, tids = {0};
	int with_cpu = 0;
	char *out;

	snprintf(pb, sizeof(pb), "%s.pb.gz", data);
	free(th_sh_okf("'%s' report -i '%s' --format pprof -o '%s' 2>&1", perfev, data, pb));

	/* The header: the main binary and its build id. */
	out = th_sh_okf("'%s' -top -noinlines -nodecount=0 -nodefraction=0 %s '%s' 2>&1", pprof, OWN_NAMES, pb);
	if (x->program) {
		const char *base = strrchr(x->program, '/') ? strrchr(x->program, '/') + 1 : x->program;
		char want[PATH_MAX];
		snprintf(want, sizeof(want), "File: %s\n", base);
		cr_expect(strncmp(out, want, strlen(want)) == 0, "pprof -top does not start with %s:\n%.500s",
			  want, out);
		cr_expect(strstr(out, "\nBuild ID: "), "pprof -top shows no build id:\n%.500s", out);
		cr_expect(strstr(out, "\nTime: ") && strstr(out, "\nDuration: "),
			  "pprof -top shows no time and duration:\n%.500s", out);
	}
	parse_top(out, &theirs);
	free(out);
	out = th_sh_okf("'%s' report -i '%s' --stdio --no-children --sort sym -g none -q 2>&1", perfev, data);
	parse_table(out, &ours);
	free(out);

	/* Both print two decimals: a name the table shows twice (two DSOs) sums two roundings. */
	expect_same(&ours, "perfev report", &theirs, "pprof -top", 0.021, "flat %");
	if (x->top) {
		size_t best = 0;
		for (size_t i = 1; i < theirs.n; i++)
			if (theirs.e[i].value > theirs.e[best].value)
				best = i;
		cr_expect(theirs.n && strcmp(theirs.e[best].key, x->top) == 0,
			  "pprof's top function is %s, not %s", theirs.n ? theirs.e[best].key : "none",
			  x->top);
	}
	table_free(&ours);
	table_free(&theirs);

	/* Stacks and their sample counts, without inlined functions and with them. */
	for (int inl = 0; inl < 2; inl++) {
		out = th_sh_okf("'%s' -traces %s -sample_index=samples %s '%s' 2>&1", pprof,
			 inl ? "" : "-noinlines", OWN_NAMES, pb);
		parse_traces(out, &theirs, &tids, &with_cpu);
		free(out);
		out = th_sh_okf("'%s' report -i '%s' --format folded %s 2>&1", perfev, data,
			 inl ? "--inline" : "--no-inline");
		parse_folded(out, &ours);
		free(out);
		expect_same(&ours, inl ? "perfev report --format folded --inline"
				       : "perfev report --format folded --no-inline",
			    &theirs, inl ? "pprof -traces" : "pprof -traces -noinlines", 0, "stack");
		table_free(&ours);
		table_free(&theirs);
	}
	cr_expect((int)tids.n >= x->min_tids, "%zu distinct tid labels, expected %d at least",
		      tids.n, x->min_tids);
	cr_expect(!x->cpu || with_cpu > 0, "no sample of pprof -traces has a cpu label");
	table_free(&tids);

	check_raw(pprof, pb, x);
}

/* ---- files perfev records ----------------------------------------------------------------- */

static const char *perfev_record(const char *name, const char *args, const char *cmd)
{
	const char *file = th_path_in(name);

	/* cpu-clock as perf's files: the default is cycles where a hardware PMU is (the arm64 lab). */
	free(th_sh_okf("'%s' record -q -e cpu-clock %s -o '%s' -- %s 2>&1", th_perfev_bin(), args, file,
		       cmd));
	return file;
}

Test(pprof_tool, perfev_frame_pointers_c)
{
	const char *prog = th_test_program("report_work");
	char cmd[PATH_MAX + 16];
	struct expect x = {.program = prog, .min_tids = 1, .top = "report_work_a"};

	pprof_tool();
	snprintf(cmd, sizeof(cmd), "'%s' 300", prog);
	check_file(perfev_record("fp.data", "-g", cmd), &x);
}

Test(pprof_tool, perfev_threads)
{
	const char *prog = th_test_program("parity_work");
	char cmd[PATH_MAX + 16];
	struct expect x = {.program = prog, .min_tids = 3};

	pprof_tool();
	snprintf(cmd, sizeof(cmd), "'%s' threads 300", prog);
	check_file(perfev_record("threads.data", "-g", cmd), &x);
}

Test(pprof_tool, perfev_dwarf_cxx)
{
	const char *prog = th_test_program("dwarf_work_cpp");
	char cmd[PATH_MAX + 16];
	struct expect x = {.program = prog, .min_tids = 1};

	pprof_tool();
	snprintf(cmd, sizeof(cmd), "'%s'", prog);
	check_file(perfev_record("dwarf.data", "--call-graph dwarf", cmd), &x);
}

/* ---- files perf records -------------------------------------------------------------------- */

static const char *perf_record(const char *name, const char *args, const char *cmd)
{
	const char *file = th_path_in(name);

	free(th_sh_okf("perf record -q %s -o '%s' -- %s 2>&1", args, file, cmd));
	return file;
}

Test(pprof_tool, perf_frame_pointers)
{
	const char *prog = th_test_program("report_work");
	char cmd[PATH_MAX + 16];
	struct expect x = {.program = prog, .min_tids = 1, .top = "report_work_a"};

	pprof_tool();
	th_need_perf();
	snprintf(cmd, sizeof(cmd), "'%s' 300", prog);
	check_file(perf_record("perf-fp.data", "-g -e cpu-clock", cmd), &x);
}

Test(pprof_tool, perf_dwarf)
{
	const char *prog = th_test_program("dwarf_work");
	char cmd[PATH_MAX + 16];
	struct expect x = {.program = prog, .min_tids = 1};

	pprof_tool();
	th_need_perf();
	snprintf(cmd, sizeof(cmd), "'%s'", prog);
	check_file(perf_record("perf-dwarf.data", "--call-graph dwarf -e cpu-clock", cmd), &x);
}

/* Samples with their CPU (perf record --sample-cpu): a cpu label on each. */
Test(pprof_tool, perf_sample_cpu)
{
	const char *prog = th_test_program("report_work");
	char cmd[PATH_MAX + 16];
	struct expect x = {.program = prog, .min_tids = 1, .cpu = true, .top = "report_work_a"};

	pprof_tool();
	th_need_perf();
	snprintf(cmd, sizeof(cmd), "'%s' 200", prog);
	check_file(perf_record("perf-cpu.data", "-g --sample-cpu -e cpu-clock", cmd), &x);
}

/* SPDX-License-Identifier: MIT */
/*
 * test_parity.c - perfev against perf, line for line. Eight kinds of
 * workload (C calling shared libraries, C++ built -O2 without frame
 * pointers under --call-graph dwarf, threads, a tracepoint on every CPU,
 * Python, a short-lived command, page faults every 1000, an event group)
 * are each recorded twice, by `perf record` and by `perfev record`. For
 * each of the two files, `perfev report --stdio` (children and
 * --no-children) and `perfev script` must print what perf prints, line
 * for line. The only rewriting allowed is the list in normalize_known(),
 * each rule a row of docs/PERF_DIFFERENCES.md. A mismatch prints a
 * unified diff. The tests skip, saying why, where perf, tracefs or Python
 * is missing.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

static const char *dir;

static void make_dir(void)
{
	th_leak_init();
	dir = th_temp_dir("parity");
}

static void remove_dir(void)
{
	th_leak_fini();
}

TestSuite(parity, .init = make_dir, .fini = remove_dir, .timeout = 240);

/* One workload: how both recorders are asked to record it. */
struct workload {
	const char *name;    /* file names */
	const char *options; /* record options, the same for perf and perfev */
	const char *command; /* the workload; "%s" is the tests' build folder */
};

/* ---- differences documented in docs/PERF_DIFFERENCES.md -------------------- */

/*
 * Rewrites, in place, the lines of perf's or perfev's output where the two
 * differ on purpose (docs/PERF_DIFFERENCES.md). Nothing else is touched.
 */
static void normalize_known(char *text)
{
	(void)text;
}

/* ---- running and comparing -------------------------------------------------- */

static char *path_in(const char *name)
{
	char *p = th_path_join(dir, name);

	return p;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "cannot write %s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/*
 * Runs `perf VIEW` and `perfev VIEW` on file; on a difference, appends a
 * unified diff (at most 60 lines) to report and returns false.
 */
static bool same_output(const char *file, const char *view, const char *tag, char **report)
{
	char cmd[8192];
	char *theirs, *ours, *diff = NULL, *err = NULL;
	char *a = NULL, *b = NULL;
	bool same;

	snprintf(cmd, sizeof(cmd), "perf %s -i '%s' 2>/dev/null", view, file);
	theirs = th_sh_ok(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' %s -i '%s'", th_perfev_bin(), view, file);
	ours = th_sh_ok(cmd);
	normalize_known(theirs);
	normalize_known(ours);
	same = strcmp(theirs, ours) == 0;
	if (!same) {
		char name[256];

		snprintf(name, sizeof(name), "%s.perf", tag);
		a = path_in(name);
		snprintf(name, sizeof(name), "%s.perfev", tag);
		b = path_in(name);
		write_text(a, theirs);
		write_text(b, ours);
		snprintf(cmd, sizeof(cmd), "diff -u '%s' '%s' | head -60", a, b);
		th_sh(cmd, &diff, &err);
		size_t old = *report ? strlen(*report) : 0;
		size_t add = strlen(view) + strlen(file) + (diff ? strlen(diff) : 0) + 64;
		*report = realloc(*report, old + add);
		cr_assert_not_null(*report);
		snprintf(*report + old, add, "== %s -i %s\n%s\n", view, file, diff ? diff : "");
	}
	free(theirs);
	free(ours);
	free(diff);
	free(err);
	free(a);
	free(b);
	return same;
}

/* Records w with recorder ("perf" or perfev's path) into a file; returns its path. */
static char *record(const struct workload *w, const char *recorder, const char *tag)
{
	char name[128], command[1024], cmd[8192];
	char *file, *build = strdup(th_test_program("parity_work"));

	*strrchr(build, '/') = '\0';
	snprintf(name, sizeof(name), "%s.%s.data", w->name, tag);
	file = path_in(name);
	snprintf(command, sizeof(command), w->command, build);
	snprintf(cmd, sizeof(cmd), "'%s' record -q %s -o '%s' -- %s >/dev/null 2>&1", recorder,
		 w->options, file, command);
	free(th_sh_ok(cmd));
	free(build);
	return file;
}

/* Records w with perf and with perfev; every view of both files must match. */
static void expect_parity(const struct workload *w)
{
	static const char *const views[][2] = {
		{ "report --stdio", "children" },
		{ "report --stdio --no-children", "self" },
		{ "script", "script" },
	};
	const char *recorders[][2] = { { "perf", "perf" }, { th_perfev_bin(), "perfev" } };
	char *report = NULL;
	int bad = 0, total = 0;

	th_need_perf();
	for (int r = 0; r < 2; r++) {
		char *file = record(w, recorders[r][0], recorders[r][1]);

		for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
			char tag[256];

			snprintf(tag, sizeof(tag), "%s.%s.%s", w->name, recorders[r][1], views[v][1]);
			total++;
			bad += !same_output(file, views[v][0], tag, &report);
		}
		free(file);
	}
	cr_expect_eq(bad, 0, "%s: %d of %d views differ from perf's:\n%s", w->name, bad, total,
		     report ? report : "");
	free(report);
}

/* ---- the workloads ----------------------------------------------------------- */

Test(parity, c_with_shared_libraries)
{
	expect_parity(&(struct workload){ "libs", "-g -e cpu-clock -F 1000",
					  "%s/parity_work libs 300" });
}

Test(parity, cxx_dwarf_call_graph)
{
	expect_parity(&(struct workload){ "cxx", "--call-graph dwarf -e cpu-clock -F 500",
					  "%s/parity_cxx 300" });
}

Test(parity, threads)
{
	expect_parity(&(struct workload){ "threads", "-g -e cpu-clock -F 1000",
					  "%s/parity_work threads 300" });
}

Test(parity, tracepoint_on_every_cpu)
{
	if (!th_tracefs())
		th_skip("tracefs is not mounted: no tracepoints to record");
	expect_parity(&(struct workload){ "tracepoint", "-a -e sched:sched_switch",
					  "sleep 0.2" });
}

Test(parity, python)
{
	if (!th_have_program("python3"))
		th_skip("python3 is not installed");
	expect_parity(&(struct workload){
		"python", "-g -e cpu-clock -F 1000",
		"python3 -c 's=0\nfor i in range(3000000): s+=i*i\nprint(s)'" });
}

Test(parity, short_lived_command)
{
	expect_parity(&(struct workload){ "short", "-e page-faults -c 1", "/bin/true" });
}

Test(parity, page_faults_every_1000)
{
	expect_parity(&(struct workload){ "faults", "-g -e page-faults -c 1000",
					  "%s/parity_work touch 64" });
}

Test(parity, group)
{
	expect_parity(&(struct workload){ "group", "-e '{cpu-clock,task-clock}'",
					  "%s/parity_work libs 200" });
}

/* SPDX-License-Identifier: MIT */
/*
 * test_list.c - `perfev list` as a user runs it: the sections and what this
 * machine marks unavailable (no hardware PMU here), the msr PMU and probe
 * syntax, tracepoints with tracefs mounted and, in a private mount
 * namespace, without it (nothing may get mounted), FILTER globs and
 * substrings, --json against the text, as nobody, and bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

/* Every test checks that it leaves no descriptor or mapping behind. */
TestSuite(list, .init = th_leak_init, .fini = th_leak_fini);

/* ---- reading the text output --------------------------------------------------- */

/*
 * Returns a malloc'ed copy of the text output's line for the row `display`
 * (the name, with " OR alias" for generic events), or NULL when there is none.
 */
static char *row_line(const char *text, const char *display)
{
	size_t n = strlen(display);

	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		if (len >= n + 2 && strncmp(line, "  ", 2) == 0 && strncmp(line + 2, display, n) == 0 &&
		    (line[n + 2] == '\n' || line[n + 2] == ' ' || line[n + 2] == '\0'))
			return strndup(line, len);
		line += len + (line[len] == '\n');
	}
	return NULL;
}

/* Expects the row to exist, and to be marked unavailable (with `reason` in it) or not. */
static void expect_row(const char *text, const char *display, bool available, const char *reason)
{
	char *line = row_line(text, display);

	cr_assert_not_null(line, "no row '%s' in:\n%s", display, text);
	if (available)
		cr_expect_null(strstr(line, "[unavailable:"), "'%s' is marked unavailable: %s",
			       display, line);
	else
		cr_expect_not_null(strstr(line, "[unavailable:"), "'%s' is not marked: %s", display,
				   line);
	if (reason)
		cr_expect_not_null(strstr(line, reason), "'%s' does not say '%s': %s", display,
				   reason, line);
	free(line);
}

/* The row lines of the text output: lines of two spaces and a name, outside notes. */
static int count_lines_starting(const char *text, const char *prefix)
{
	int n = 0;

	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		if (strncmp(line, prefix, strlen(prefix)) == 0)
			n++;
		line += len + (line[len] == '\n');
	}
	return n;
}

/* ---- JSON ------------------------------------------------------------------ */

static json_object *sections_of(json_object *root)
{
	json_object *s = th_json_get(root, "sections");

	cr_assert(json_object_is_type(s, json_type_array));
	return s;
}

/* Returns the section named `name`, or NULL. */
static json_object *section(json_object *root, const char *name)
{
	json_object *all = sections_of(root);

	for (size_t i = 0; i < json_object_array_length(all); i++) {
		json_object *s = json_object_array_get_idx(all, i);
		if (strcmp(th_json_get_str(s, "name"), name) == 0)
			return s;
	}
	return NULL;
}

/* Returns the event called `name` in section `sec`, or NULL. */
static json_object *event_in(json_object *root, const char *sec, const char *name)
{
	json_object *s = section(root, sec);

	if (!s)
		return NULL;
	json_object *events = th_json_get(s, "events");
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		json_object *e = json_object_array_get_idx(events, i);
		if (strcmp(th_json_get_str(e, "name"), name) == 0)
			return e;
	}
	return NULL;
}

static bool available(json_object *e)
{
	json_object *a = th_json_get(e, "available");

	cr_assert(json_object_is_type(a, json_type_boolean));
	return json_object_get_boolean(a);
}

/* Expects event `name` of section `sec` with this availability (and `reason` in its reason). */
static void expect_event(json_object *root, const char *sec, const char *name, bool avail,
			 const char *reason)
{
	json_object *e = event_in(root, sec, name);

	cr_assert_not_null(e, "no event '%s' in section '%s'", name, sec);
	cr_expect_eq(available(e), avail, "'%s' available is %d", name, !avail);
	if (!avail) {
		const char *why = th_json_get_str(e, "reason");
		cr_expect_str_neq(why, "", "'%s' says why not", name);
		if (reason)
			cr_expect(strstr(why, reason), "'%s': reason '%s' lacks '%s'", name, why,
				  reason);
	} else {
		cr_expect_not(json_object_object_get_ex(e, "reason", NULL),
			      "available '%s' has no reason", name);
	}
}

/* ---- running perfev list without tracefs ---------------------------------- */

static bool tracefs_mounted_here(void)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[512], type[64];
	bool found = false;

	if (!f)
		return true;
	while (fscanf(f, "%255s %511s %63s %*[^\n]", dev, dir, type) == 3)
		found = found || strcmp(type, "tracefs") == 0;
	fclose(f);
	return found;
}

/* Exit codes of the namespace child. */
enum {
	NS_UNMOUNTED = 0, /* perfev exited 0 and no tracefs is mounted afterwards */
	NS_MOUNTED = 1,   /* perfev exited 0 and a tracefs is mounted afterwards */
	NS_FAILED = 2,    /* perfev did not exit 0 */
};

/* In a new mount namespace without tracefs: runs perfev, then reports whether tracefs came back. */
static void namespace_child(char *const argv[], int out_fd)
{
	int null = open("/dev/null", O_RDWR), status;

	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 2) < 0)
		_exit(100);
	if (unshare(CLONE_NEWNS) < 0)
		_exit(101);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		_exit(102);
	if (!th_unmount_tracefs() || tracefs_mounted_here())
		_exit(103);
	pid_t pid = fork();
	if (pid < 0)
		_exit(104);
	if (pid == 0) {
		if (dup2(out_fd, 1) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	close(out_fd);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		_exit(NS_FAILED);
	_exit(tracefs_mounted_here() ? NS_MOUNTED : NS_UNMOUNTED);
}

/*
 * Runs `perfev list ARGS` (argv[0] left for the binary) in a private mount
 * namespace with every tracefs unmounted. Stores its stdout in *out and
 * returns the child's exit code (NS_* or a setup step >= 100).
 */
static int list_without_tracefs(const char *const *args, char **out)
{
	const char *bin = th_perfev_bin(); /* before the fork: it may fail the test */
	char *argv[16];
	int pipefd[2], status, n = 0;

	argv[n++] = (char *)bin;
	argv[n++] = "list";
	for (; *args && n < 15; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	cr_assert_eq(pipe2(pipefd, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(pipefd[0]);
		namespace_child(argv, pipefd[1]);
	}
	close(pipefd[1]);
	char *buf = th_read_fd_all(pipefd[0], NULL);
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*out = buf;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- the sections ------------------------------------------------------------ */

Test(list, software_events_are_listed_and_open)
{
	struct th_output r = th_perfev("list");

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.err, "");
	cr_expect(strncmp(r.out, "hardware events\n", 16) == 0, "hardware comes first: %.200s",
		  r.out);
	cr_expect(strstr(r.out, "\nsoftware events\n"), "a software section");
	expect_row(r.out, "task-clock", true, NULL);
	expect_row(r.out, "cpu-clock", true, NULL);
	expect_row(r.out, "page-faults OR faults", true, NULL);
	expect_row(r.out, "context-switches OR cs", true, NULL);
	expect_row(r.out, "cpu-migrations OR migrations", true, NULL);
	expect_row(r.out, "dummy", true, NULL);
	th_output_free(&r);
}

Test(list, sections_come_in_order)
{
	static const char *const titles[] = {"hardware events\n", "\nsoftware events\n",
					     "\nhardware cache events\n", "\nhardware breakpoints\n",
					     "\nprobes\n"};
	struct th_output r = th_perfev("list");
	const char *at = r.out;

	cr_assert_eq(r.status, 0, "%s", r.err);
	for (size_t i = 0; i < sizeof(titles) / sizeof(titles[0]); i++) {
		const char *found = strstr(at, titles[i]);
		cr_expect_not_null(found, "section '%s' missing or out of order", titles[i]);
		if (found)
			at = found;
	}
	th_output_free(&r);
}

Test(list, hardware_and_cache_are_unavailable_without_a_pmu)
{
	if (th_have_core_pmu())
		th_skip("this machine has a hardware PMU");
	struct th_output r = th_perfev("list");

	cr_assert_eq(r.status, 0, "%s", r.err);
	expect_row(r.out, "cycles OR cpu-cycles", false, "no hardware PMU");
	expect_row(r.out, "instructions", false, "no hardware PMU");
	expect_row(r.out, "branches OR branch-instructions", false, "no hardware PMU");
	expect_row(r.out, "L1-dcache-load-misses", false, "no hardware PMU");
	expect_row(r.out, "LLC-loads", false, "no hardware PMU");
	expect_row(r.out, "iTLB-load-misses", false, "no hardware PMU");
	/* Only the operations perf offers: no L1-icache stores, no iTLB prefetches. */
	cr_expect_null(row_line(r.out, "L1-icache-stores"));
	cr_expect_null(row_line(r.out, "iTLB-prefetches"));
	th_output_free(&r);

	r = th_perfev("list", "--json");
	cr_assert_eq(r.status, 0, "%s", r.err);
	json_object *root = th_json_parse(r.out);
	expect_event(root, "hardware", "cycles", false, "no hardware PMU");
	expect_event(root, "cache", "L1-dcache-load-misses", false, "no hardware PMU");
	json_object *aliases = th_json_get(event_in(root, "hardware", "cycles"), "aliases");
	cr_expect_eq(json_object_array_length(aliases), 1);
	cr_expect_str_eq(json_object_get_string(json_object_array_get_idx(aliases, 0)),
			 "cpu-cycles");
	/* Every valid level x operation x result: 7 levels, 16 operations, 2 results each. */
	cr_expect_eq(json_object_array_length(th_json_get(section(root, "cache"), "events")), 32);
	json_object_put(root);
	th_output_free(&r);
}

Test(list, the_msr_pmu_and_probe_syntax_are_listed)
{
	if (!th_sysfs_pmu("msr"))
		th_skip("no msr PMU here");
	th_require_root();
	struct th_output r = th_perfev("list");

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "\nmsr PMU (type "), "an msr section: %s", r.out);
	expect_row(r.out, "msr/tsc/", true, NULL);
	expect_row(r.out, "msr/event=N/", true, "event=config:");
	expect_row(r.out, "mem:ADDR[/LEN][:rwx]", true, NULL);
	expect_row(r.out, "uprobe:PATH:SYMBOL[+OFFSET]", th_sysfs_pmu("uprobe"), NULL);
	expect_row(r.out, "uretprobe:PATH:SYMBOL[+OFFSET]", th_sysfs_pmu("uprobe"), NULL);
	if (!th_sysfs_pmu("kprobe")) {
		expect_row(r.out, "kprobe:FUNCTION[+OFFSET]", false, "no 'kprobe' PMU");
		expect_row(r.out, "kretprobe:FUNCTION[+OFFSET]", false, "no 'kprobe' PMU");
	}
	th_output_free(&r);

	r = th_perfev("list", "--json");
	json_object *root = th_json_parse(r.out);
	json_object *msr = section(root, "pmu:msr");
	cr_assert_not_null(msr);
	cr_expect_str_eq(th_json_get_str(msr, "kind"), "pmu");
	cr_expect(json_object_is_type(th_json_get(msr, "type"), json_type_int), "type is a number");
	cr_expect_eq(json_object_get_int(th_json_get(msr, "type")), pev_pmu_type("msr", NULL));
	json_object *tsc = event_in(root, "pmu:msr", "msr/tsc/");
	cr_assert_not_null(tsc);
	cr_expect_str_eq(th_json_get_str(tsc, "terms"), "event=0x00");
	cr_expect(json_object_is_type(th_json_get(tsc, "scale"), json_type_double), "scale is a number");
	json_object_put(root);
	th_output_free(&r);
}

/* ---- tracepoints --------------------------------------------------------------- */

Test(list, tracepoints_are_listed_when_tracefs_is_mounted)
{
	th_require_root();
	cr_assert(th_tracefs(), "cannot mount tracefs");
	uint64_t id = th_tracepoint_id("sched", "sched_switch");
	cr_assert_neq(id, 0);
	struct th_output r = th_perfev("list");

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "\ntracepoints (tracefs at "), "a tracepoint section");
	expect_row(r.out, "sched:sched_switch", true, NULL);
	expect_row(r.out, "sched:sched_wakeup", true, NULL);
	cr_expect_gt(count_lines_starting(r.out, "  sched:"), 5);
	th_output_free(&r);

	r = th_perfev("list", "--json", "sched:sched_switch");
	json_object *root = th_json_parse(r.out);
	json_object *e = event_in(root, "tracepoint", "sched:sched_switch");
	cr_assert_not_null(e);
	cr_expect(json_object_is_type(th_json_get(e, "id"), json_type_int));
	cr_expect_eq((uint64_t)json_object_get_uint64(th_json_get(e, "id")), id);
	cr_expect(available(e));
	json_object_put(root);
	th_output_free(&r);
}

Test(list, without_tracefs_it_says_how_to_mount_it_and_mounts_nothing)
{
	static const char *const no_args[] = {NULL};
	char *out;

	th_require_root();
	/* Mounted in the real namespace, so the child really has something to unmount. */
	cr_assert(th_tracefs(), "cannot mount tracefs");
	int status = list_without_tracefs(no_args, &out);
	cr_assert_neq(status, NS_FAILED, "perfev list failed: %s", out);
	cr_assert_lt(status, 100, "the child failed at setup step %d", status);
	cr_expect_eq(status, NS_UNMOUNTED, "perfev list mounted tracefs");
	cr_expect(strstr(out, "\ntracepoints\n"), "the tracepoint section is there: %s", out);
	cr_expect(strstr(out, "tracefs is not mounted"), "%s", out);
	cr_expect(strstr(out, "mount -t tracefs nodev /sys/kernel/tracing"), "%s", out);
	cr_expect_null(row_line(out, "sched:sched_switch"));
	expect_row(out, "task-clock", true, NULL);
	free(out);
	/* The real namespace still has it. */
	cr_expect_not_null(th_tracefs());
}

Test(list, tracefs_mount_mounts_it_to_list_tracepoints)
{
	static const char *const args[] = {"--tracefs-mount", "sched:sched_switch", NULL};
	char *out;

	th_require_root();
	cr_assert(th_tracefs(), "cannot mount tracefs");
	int status = list_without_tracefs(args, &out);
	cr_assert_neq(status, NS_FAILED, "perfev list failed: %s", out);
	cr_assert_lt(status, 100, "the child failed at setup step %d", status);
	cr_expect_eq(status, NS_MOUNTED, "--tracefs-mount mounted tracefs");
	expect_row(out, "sched:sched_switch", true, NULL);
	free(out);
}

/* ---- FILTER -------------------------------------------------------------------- */

Test(list, a_glob_keeps_only_matching_names)
{
	th_require_root();
	cr_assert(th_tracefs(), "cannot mount tracefs");
	struct th_output r = th_perfev("list", "sched:*");

	cr_assert_eq(r.status, 0, "%s", r.err);
	expect_row(r.out, "sched:sched_switch", true, NULL);
	cr_expect(strncmp(r.out, "tracepoints (tracefs at ", 24) == 0,
		  "the tracepoint section alone: %.300s", r.out);
	/* Every line but the heading is a sched tracepoint. */
	int lines = count_lines_starting(r.out, ""), sched = count_lines_starting(r.out, "  sched:");
	cr_expect_eq(lines, sched + 1, "only sched tracepoints: %s", r.out);
	cr_expect_null(strstr(r.out, "software events"));
	th_output_free(&r);
}

Test(list, a_substring_matches_anywhere_ignoring_case)
{
	struct th_output r = th_perfev("list", "clock");

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strncmp(r.out, "software events\n", 16) == 0, "%s", r.out);
	expect_row(r.out, "cpu-clock", true, NULL);
	expect_row(r.out, "task-clock", true, NULL);
	cr_expect_null(row_line(r.out, "page-faults OR faults"));
	cr_expect_null(strstr(r.out, "hardware events"), "empty sections are left out: %s", r.out);
	cr_expect_null(strstr(r.out, "\nprobes\n"), "empty sections are left out");
	th_output_free(&r);

	r = th_perfev("list", "CLOCK");
	expect_row(r.out, "task-clock", true, NULL);
	th_output_free(&r);
}

Test(list, a_filter_matches_aliases_too)
{
	struct th_output r = th_perfev("list", "cs");

	cr_assert_eq(r.status, 0, "%s", r.err);
	expect_row(r.out, "context-switches OR cs", true, NULL);
	th_output_free(&r);
}

static int count_vendor_name(const char *pmu, const char *name, const char *description,
			     void *ctx)
{
	(void)pmu, (void)name, (void)description;
	(*(int *)ctx)++;
	return 0;
}

/* `perfev list FILTER` for a filter that matches nothing, with LIBPFM_FORCE_PMU as given. */
static void expect_vendor_note(const char *force_pmu, const char *note)
{
	if (force_pmu)
		setenv("LIBPFM_FORCE_PMU", force_pmu, 1);
	struct th_output r = th_perfev("list", "no-such-event-anywhere");

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, note), "LIBPFM_FORCE_PMU=%s: no '%s' in: %s",
		  force_pmu ? force_pmu : "(unset)", note, r.out);
	cr_expect_null(strstr(r.out, "software events"));
	th_output_free(&r);
}

/* This machine's own note agrees with what libpfm4 says of this CPU. */
Test(list, a_filter_that_matches_nothing_prints_the_notes)
{
	int names = 0;

	if (!pev_pfm_available())
		expect_vendor_note(NULL, "libpfm4 is not available");
	else if (pev_pfm_foreach(count_vendor_name, &names) < 0 || names == 0)
		expect_vendor_note(NULL, "libpfm4 has no event table for this CPU");
	else
		expect_vendor_note(NULL, "'perfev list --vendor' lists them");
}

/* Both notes on every host: a CPU libpfm4 has a table for, and one it has none for. */
Test(list, the_vendor_note_with_a_table)
{
	if (!pev_pfm_available())
		th_skip("built without libpfm4");
	th_need_pfm_x86();
	expect_vendor_note("skl", "(skl); 'perfev list --vendor' lists them");
}

Test(list, the_vendor_note_without_a_table)
{
	if (!pev_pfm_available())
		th_skip("built without libpfm4");
	expect_vendor_note("no-such-pmu", "libpfm4 has no event table for this CPU (set "
					  "LIBPFM_FORCE_PMU to list another CPU's)");
}

/* ---- JSON ------------------------------------------------------------------------ */

/* The text line of a JSON event: its name (and aliases), and the reason when unavailable. */
static void expect_text_row_of(const char *text, json_object *e)
{
	char display[1024], marker[1024];
	json_object *aliases;

	snprintf(display, sizeof(display), "%s", th_json_get_str(e, "name"));
	if (json_object_object_get_ex(e, "aliases", &aliases))
		for (size_t i = 0; i < json_object_array_length(aliases); i++)
			snprintf(display + strlen(display), sizeof(display) - strlen(display),
				 " OR %s",
				 json_object_get_string(json_object_array_get_idx(aliases, i)));
	char *line = row_line(text, display);
	cr_assert_not_null(line, "the text has no row '%s'", display);
	if (available(e)) {
		cr_expect_null(strstr(line, "[unavailable:"), "%s", line);
	} else {
		snprintf(marker, sizeof(marker), "[unavailable: %s]", th_json_get_str(e, "reason"));
		cr_expect_not_null(strstr(line, marker), "'%s' not in: %s", marker, line);
	}
	free(line);
}

Test(list, json_parses_and_agrees_with_the_text)
{
	struct th_output text = th_perfev("list"), json = th_perfev("list", "--json");

	cr_assert_eq(text.status, 0, "%s", text.err);
	cr_assert_eq(json.status, 0, "%s", json.err);
	json_object *root = th_json_parse(json.out), *all = sections_of(root);
	int events = 0;

	cr_expect_str_eq(th_json_get_str(json_object_array_get_idx(all, 0), "name"), "hardware");
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		json_object *s = json_object_array_get_idx(all, i), *list = th_json_get(s, "events");
		char title[512];
		snprintf(title, sizeof(title), "%s%s\n", i ? "\n" : "", th_json_get_str(s, "title"));
		cr_expect(strstr(text.out, title), "the text has section '%s'", th_json_get_str(s, "title"));
		cr_expect(json_object_array_length(list) > 0 ||
				  json_object_object_get_ex(s, "note", NULL),
			  "section '%s' is empty", th_json_get_str(s, "name"));
		for (size_t k = 0; k < json_object_array_length(list); k++)
			expect_text_row_of(text.out, json_object_array_get_idx(list, k));
		events += (int)json_object_array_length(list);
	}
	cr_expect_gt(events, 50);
	json_object_put(root);
	th_output_free(&text);
	th_output_free(&json);
}

/* ---- as nobody --------------------------------------------------------------------- */

Test(list, as_nobody_it_works_and_marks_what_needs_privilege)
{
	th_require_root();
	cr_assert(th_tracefs(), "cannot mount tracefs");
	struct th_output r = th_perfev_nobody("list", "--json");

	cr_assert_eq(r.status, 0, "%s", r.err);
	json_object *root = th_json_parse(r.out);
	/* Software events open user space only: no privilege needed. */
	expect_event(root, "software", "task-clock", true, NULL);
	expect_event(root, "software", "page-faults", true, NULL);
	expect_event(root, "breakpoint", "mem:ADDR[/LEN][:rwx]", true, NULL);
	/* The uprobe PMU wants CAP_PERFMON whatever the paranoid level. */
	if (th_sysfs_pmu("uprobe"))
		expect_event(root, "probe", "uprobe:PATH:SYMBOL[+OFFSET]", false,
			     "needs privilege");
	/* msr refuses ':u', and counting the kernel needs paranoid 1 or CAP_PERFMON. */
	if (th_sysfs_pmu("msr") && th_sysctl("perf_event_paranoid") >= 2)
		expect_event(root, "pmu:msr", "msr/tsc/", false, "needs privilege");
	/* Tracepoints: tracefs is root-only by default, else opening them needs privilege. */
	json_object *tp = section(root, "tracepoint"), *note;
	cr_assert_not_null(tp);
	if (json_object_object_get_ex(tp, "note", &note)) {
		cr_expect(strstr(json_object_get_string(note), "cannot be listed"), "%s",
			  json_object_get_string(note));
	} else if (th_sysctl("perf_event_paranoid") >= 2) {
		expect_event(root, "tracepoint", "sched:sched_switch", false, "needs privilege");
	}
	json_object_put(root);
	th_output_free(&r);

	r = th_perfev_nobody("list");
	cr_assert_eq(r.status, 0, "%s", r.err);
	if (th_sysfs_pmu("uprobe"))
		expect_row(r.out, "uprobe:PATH:SYMBOL[+OFFSET]", false, "needs privilege: ");
	th_output_free(&r);
}

/* ---- vendor names -------------------------------------------------------------------- */

Test(list, vendor_names_are_listed_only_when_asked)
{
	if (!pev_pfm_available())
		th_skip("built without libpfm4");
	/* A CPU with a known table, whatever this one is: */
	th_need_pfm_x86();
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	struct th_output r = th_perfev("list");

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "'perfev list --vendor' lists them"), "%s", r.out);
	cr_expect_null(row_line(r.out, "INST_RETIRED:ANY_P"));
	th_output_free(&r);

	r = th_perfev("list", "--vendor", "INST_RETIRED");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "CPU vendor events of skl (libpfm4)"), "%s", r.out);
	expect_row(r.out, "INST_RETIRED:ANY_P", th_have_core_pmu(),
		   th_have_core_pmu() ? NULL : "no hardware PMU");
	th_output_free(&r);
}

/* ---- usage and speed --------------------------------------------------------------------- */

Test(list, bad_usage_exits_129)
{
	struct th_output r = th_perfev("list", "--bogus");

	cr_expect_eq(r.status, 129);
	cr_expect(strstr(r.err, "usage: perfev list"), "%s", r.err);
	cr_expect_str_eq(r.out, "");
	th_output_free(&r);

	r = th_perfev("list", "one", "two");
	cr_expect_eq(r.status, 129);
	cr_expect(strstr(r.err, "two"), "names the extra argument: %s", r.err);
	cr_expect(strstr(r.err, "usage: perfev list"), "%s", r.err);
	th_output_free(&r);

	r = th_perfev("list", "--help");
	cr_expect_eq(r.status, 0);
	cr_expect(strncmp(r.out, "usage: perfev list", 18) == 0, "%s", r.out);
	th_output_free(&r);
}

Test(list, the_help_of_perfev_names_the_command)
{
	char *argv[] = {(char *)th_perfev_bin(), "--help", NULL}, *out, *err;

	cr_assert_eq(th_run(argv, false, &out, &err), 0);
	cr_expect(strstr(out, "   list "), "%s", out);
	free(out);
	free(err);
}

static double seconds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

Test(list, it_is_fast_even_with_every_tracepoint)
{
	double best = 1e9;

	th_tracefs(); /* mounted when root: the whole list */
	for (int i = 0; i < 3; i++) {
		double t0 = seconds_now();
		struct th_output r = th_perfev("list");
		double t = seconds_now() - t0;
		cr_assert_eq(r.status, 0, "%s", r.err);
		th_output_free(&r);
		if (t < best)
			best = t;
	}
	/*
	 * A bound that only a list reading every tracepoint's format (minutes
	 * on a loaded machine) breaks, not a timing. About 0.05 s here.
	 */
	cr_expect_lt(best, 10.0, "perfev list took %.3f s", best);
}

/* ---- SDT events of perf's build-id cache --------------------------------------- */

/* Writes text to dir/name, making the directories on the way. */
static void write_file_at(const char *dir, const char *name, const char *text)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (char *p = strchr(path + strlen(dir) + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path,
			  strerror(errno));
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

/* Caches a binary as perf does: .debug/PATH/BUILD-ID/probes and the .build-id link. */
static void cache_binary(const char *home, const char *path, const char *build_id,
			 const char *probes)
{
	char dir[256], name[512], link[640], target[512];

	snprintf(dir, sizeof(dir), "%s/.debug", home);
	cr_assert(mkdir(dir, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", dir, strerror(errno));
	snprintf(name, sizeof(name), "%s/%s/probes", path + 1, build_id);
	write_file_at(dir, name, probes);
	snprintf(name, sizeof(name), ".build-id/%.2s/x", build_id);
	write_file_at(dir, name, "");
	snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", dir, build_id, build_id + 2);
	snprintf(target, sizeof(target), "../..%s/%s", path, build_id);
	cr_assert_eq(symlink(target, link), 0, "symlink %s: %s", link, strerror(errno));
}

Test(list, sdt_events_of_perfs_build_id_cache)
{
	const char *home = th_temp_dir("sdt-home");
	const char *a = "aa11111111111111111111111111111111111111",
		   *b = "bb22222222222222222222222222222222222222";

	cache_binary(home, "/usr/bin/fake-app", b,
		     "%sdt_demo:start=start\np:sdt_demo/start /usr/bin/fake-app:0x10\n"
		     "%sdt_demo:only_here=only_here\np:sdt_demo/only_here /usr/bin/fake-app:0x20\n");
	cache_binary(home, "/usr/lib/libfake.so.1", a,
		     "%sdt_demo:start=start\np:sdt_demo/start /usr/lib/libfake.so.1:0x30\n");
	unsetenv("PERF_BUILDID_DIR"); /* the cache is $HOME/.debug */
	setenv("HOME", home, 1);
	struct th_output r = th_perfev("list", "sdt_");

	cr_assert_eq(r.status, 0, "%s", r.err);
	/* perf's names: the build id orders an event's binaries; a lone event needs neither. */
	const char *want = "SDT events (perf's build-id cache)\n"
			   "  sdt_demo:only_here ";
	cr_expect(strncmp(r.out, want, strlen(want)) == 0, "%s", r.out);
	char *first = row_line(r.out, "sdt_demo:start@/usr/lib/libfake.so.1(aa1111111111)");
	char *second = row_line(r.out, "sdt_demo:start@/usr/bin/fake-app(bb2222222222)");
	cr_expect_not_null(first, "%s", r.out);
	cr_expect_not_null(second, "%s", r.out);
	cr_expect(first && second && strstr(r.out, first) < strstr(r.out, second), "%s", r.out);
	expect_row(r.out, "sdt_demo:only_here", true, "SDT event in /usr/bin/fake-app");
	free(first);
	free(second);
	th_output_free(&r);
}

Test(list, no_sdt_section_without_a_cache)
{
	unsetenv("PERF_BUILDID_DIR"); /* the cache is $HOME/.debug */
	setenv("HOME", th_temp_dir("empty-home"), 1);
	struct th_output r = th_perfev("list", "--json", "sdt_");

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_null(strstr(r.out, "\"sdt\""), "%s", r.out);
	th_output_free(&r);
}

/* The SDT lines of `perf list sdt` ("  sdt_x:y   [SDT event]"), names only, one per line. */
static void perf_sdt_names(const char *text, char *buf, size_t size)
{
	buf[0] = '\0';
	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		char name[512];
		if (strstr(line, "[SDT event]") && strstr(line, "[SDT event]") < line + len &&
		    sscanf(line, " %511s", name) == 1)
			snprintf(buf + strlen(buf), size - strlen(buf), "%s\n", name);
		line += len + (line[len] == '\n');
	}
}

/* The rows of perfev's SDT section, names only, one per line. */
static void perfev_sdt_names(const char *text, char *buf, size_t size)
{
	const char *s = strstr(text, "SDT events (perf's build-id cache)\n");

	buf[0] = '\0';
	if (!s)
		return;
	for (const char *line = strchr(s, '\n') + 1; strncmp(line, "  ", 2) == 0;) {
		size_t len = strcspn(line, "\n");
		char name[512];
		if (sscanf(line, " %511s", name) == 1)
			snprintf(buf + strlen(buf), size - strlen(buf), "%s\n", name);
		line += len + (line[len] == '\n');
	}
}

Test(list, sdt_events_as_perf_lists_them)
{
	static const char *const candidates[] = {
	    "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/aarch64-linux-gnu/libstdc++.so.6",
	    "/usr/lib64/libstdc++.so.6", "/lib64/libc.so.6"};
	char *perf = th_which("perf"), ours[4096], theirs[4096];
	const char *home = th_temp_dir("sdt-perf-home");

	if (!perf)
		th_skip("Debian's perf (package linux-perf) is not installed: nothing to compare with");
	unsetenv("PERF_BUILDID_DIR"); /* the cache is $HOME/.debug */
	setenv("HOME", home, 1);
	/* perf caches a binary with SDT notes; libstdc++ has them on Debian. */
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		char *out, *err;
		const char *add[] = {perf, "buildid-cache", "--add", candidates[i], NULL};
		if (access(candidates[i], R_OK) != 0)
			continue;
		th_run((char *const *)add, false, &out, &err);
		free(out);
		free(err);
	}
	const char *list[] = {perf, "list", "sdt", NULL};
	char *out, *err;
	th_run((char *const *)list, false, &out, &err);
	perf_sdt_names(out, theirs, sizeof(theirs));
	free(out);
	free(err);
	if (!theirs[0]) {
		free(perf);
		th_skip("none of the usual libraries here has SDT notes (.note.stapsdt) for perf to "
			"cache");
	}
	struct th_output r = th_perfev("list", "sdt");
	perfev_sdt_names(r.out, ours, sizeof(ours));
	cr_expect_str_eq(ours, theirs, "perfev:\n%s\nperf's names:\n%s", r.out, theirs);
	th_output_free(&r);
	free(perf);
}

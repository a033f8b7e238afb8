/* SPDX-License-Identifier: MIT */
/*
 * test_cli.c - the perfev binary as a user runs it: the command table,
 * `perfev check` (text and JSON, as root and as nobody, with and without
 * tracefs) and `perfev stat` (output, exit codes, and counts compared with
 * Debian's perf).
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

/* Every test checks that it leaves no descriptor or mapping behind. */
TestSuite(cli, .init = th_leak_init, .fini = th_leak_fini);

/* ---- reading the output ------------------------------------------------- */

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- the command table -------------------------------------------------- */

Test(cli, version)
{
	struct th_output r = th_perfev("--version");
	char want[64];

	/* The library's version, which is the headers' (test_version). */
	snprintf(want, sizeof(want), "perfev %s\n", pev_version());
	cr_expect_eq(r.status, 0);
	cr_expect_str_eq(r.out, want);
	cr_expect_str_eq(r.err, "");
	th_output_free(&r);
}

Test(cli, help_lists_the_commands)
{
	struct th_output r = th_perfev("--help");

	cr_expect_eq(r.status, 0);
	cr_expect(starts_with(r.out, "usage: perfev"), "%s", r.out);
	cr_expect(strstr(r.out, "   check "), "help lists check: %s", r.out);
	cr_expect(strstr(r.out, "   stat "), "help lists stat: %s", r.out);
	cr_expect_str_eq(r.err, "");
	th_output_free(&r);
}

Test(cli, no_command_prints_help_and_fails)
{
	struct th_output r = th_perfev_as(false, NULL);

	cr_expect_eq(r.status, 129);
	cr_expect(strstr(r.err, "usage: perfev"), "%s", r.err);
	cr_expect_str_eq(r.out, "");
	th_output_free(&r);
}

Test(cli, an_unknown_command_exits_129_and_names_it)
{
	struct th_output r = th_perfev("frobnicate", "--now");

	cr_expect_eq(r.status, 129);
	cr_expect(starts_with(r.err, "perfev: error:"), "%s", r.err);
	cr_expect(strstr(r.err, "frobnicate"), "the message names the command: %s", r.err);
	cr_expect_str_eq(r.out, "");
	th_output_free(&r);
}

/* ---- perfev check ------------------------------------------------------- */

/* The checks perfev reports, in order: id and the human name of the text output. */
static const char *const check_ids[][2] = {
	{"software", "software events"},
	{"hardware", "hardware events"},
	{"cache", "cache events"},
	{"tracepoint", "tracepoints"},
	{"breakpoint", "breakpoints"},
	{"uprobe", "uprobes"},
	{"kprobe", "kprobes"},
	{"cpu_wide", "CPU-wide counting"},
	{"sampling", "sampling"},
	{"callchains", "callchains"},
	{"kernel_sampling", "kernel-side sampling"},
	{"ring_buffer", "ring buffer (mlock budget)"},
	{"off_cpu", "off-CPU (--off-cpu)"},
};
#define NR_CHECKS (sizeof(check_ids) / sizeof(check_ids[0]))

/* Returns the check object with this id. */
static json_object *check_of(json_object *root, const char *id)
{
	json_object *checks = th_json_get(root, "checks");

	cr_assert(json_object_is_type(checks, json_type_array));
	for (size_t i = 0; i < json_object_array_length(checks); i++) {
		json_object *c = json_object_array_get_idx(checks, i);
		if (strcmp(th_json_get_str(c, "id"), id) == 0)
			return c;
	}
	cr_assert_fail("no check '%s'", id);
	return NULL;
}

static void expect_status(json_object *root, const char *id, const char *status)
{
	json_object *c = check_of(root, id);
	const char *got = th_json_get_str(c, "status");

	cr_expect_str_eq(got, status, "check %s is '%s', expected '%s' (detail: %s; fix: %s)", id,
			 got, status, th_json_get_str(c, "detail"), th_json_get_str(c, "fix"));
	cr_expect_eq(json_object_get_boolean(th_json_get(c, "works")), strcmp(status, "no") != 0,
		     "check %s: works agrees with status", id);
	if (strcmp(status, "no") == 0)
		cr_expect_str_neq(th_json_get_str(c, "detail"), "", "check %s says why not", id);
}

/*
 * Sampling works: 'yes', or on a machine whose timer fires late (an emulated
 * one without -icount: the kernel forwards a late hrtimer by whole periods,
 * so fewer task-clock samples come than the period asks for) 'partial' with
 * that reason, which the check tells as it is; logged as checked in part.
 */
static void expect_sampling(json_object *root)
{
	json_object *c = check_of(root, "sampling");
	const char *got = th_json_get_str(c, "status"), *fix = th_json_get_str(c, "fix");

	if (strcmp(got, "partial") == 0 && strstr(fix, "fewer samples arrive") &&
	    json_object_get_int(th_json_get(c, "measured")) > 0) {
		th_skip_log("sampling is partial here: %s (%s)", th_json_get_str(c, "detail"), fix);
		return;
	}
	expect_status(root, "sampling", "yes");
}

/*
 * The breakpoint check tells the truth of this host, as a raw watchpoint
 * opened without perfev sees it: 100 of 100 writes, or opens but never fires.
 */
static void expect_breakpoint(json_object *root)
{
	json_object *c = check_of(root, "breakpoint");
	const char *detail = th_json_get_str(c, "detail");

	cr_expect_eq(json_object_get_int64(th_json_get(c, "expected")), PEV_CAP_REPEAT);
	if (th_breakpoints_fire()) {
		expect_status(root, "breakpoint", "yes");
		cr_expect_str_eq(th_json_get_str(c, "verdict"), "works");
		cr_expect_eq(json_object_get_int64(th_json_get(c, "measured")), PEV_CAP_REPEAT);
		cr_expect(strstr(detail, "counted 100 of 100 writes"), "detail: %s", detail);
	} else {
		expect_status(root, "breakpoint", "no");
		cr_expect_str_eq(th_json_get_str(c, "verdict"), "opens_never_fires");
		cr_expect_eq(json_object_get_int64(th_json_get(c, "measured")), 0);
		cr_expect(strstr(detail, "opens, never fires"), "detail: %s", detail);
		cr_expect(strstr(th_json_get_str(c, "fix"), "debug exceptions"), "fix: %s",
			  th_json_get_str(c, "fix"));
	}
}

static void expect_every_check_once(json_object *root)
{
	json_object *checks = th_json_get(root, "checks");

	cr_expect_eq(json_object_array_length(checks), NR_CHECKS);
	for (size_t i = 0; i < NR_CHECKS && i < json_object_array_length(checks); i++) {
		json_object *c = json_object_array_get_idx(checks, i);
		cr_expect_str_eq(th_json_get_str(c, "id"), check_ids[i][0]);
		cr_expect_str_eq(th_json_get_str(c, "what"), check_ids[i][1]);
		const char *s = th_json_get_str(c, "status");
		cr_expect(strcmp(s, "yes") == 0 || strcmp(s, "partial") == 0 ||
				  strcmp(s, "no") == 0,
			  "status '%s'", s);
		/* The verdict behind the status word, and the figures measured. */
		const char *v = th_json_get_str(c, "verdict");
		cr_expect_str_eq(s, strcmp(v, "works") == 0     ? "yes"
				    : strcmp(v, "partial") == 0 ? "partial"
								: "no",
				 "%s: status %s, verdict %s", check_ids[i][0], s, v);
		cr_expect(strcmp(v, "works") == 0 || strcmp(v, "partial") == 0 ||
				  strcmp(v, "opens_never_fires") == 0 || strcmp(v, "unavailable") == 0,
			  "verdict '%s'", v);
		cr_expect_geq(json_object_get_int64(th_json_get(c, "elapsed_us")), 0);
		if (strcmp(v, "works") == 0)
			cr_expect_gt(json_object_get_int64(th_json_get(c, "measured")), 0,
				     "%s works but measured nothing", check_ids[i][0]);
	}
}

Test(cli, check_text_has_the_machine_and_one_line_per_class)
{
	struct th_output r = th_perfev("check");

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(starts_with(r.out, "machine\n"), "%s", r.out);
	const char *facts[] = {"  kernel ", "  perf_event_paranoid ", "  hardware PMU ",
			       "  CPUs ", "  limits ", "  rlimits ", "  tracefs "};
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
		cr_expect(strstr(r.out, facts[i]), "no '%s' fact: %s", facts[i], r.out);

	const char *section = strstr(r.out, "\nwhat works here (each class made to happen and counted)\n");
	cr_assert(section, "no checks section: %s", r.out);
	for (size_t i = 0; i < NR_CHECKS; i++) {
		/* "  <what>  <padding> yes|partial|no  <detail>" at the start of a line. */
		char head[64];
		int lines = 0;
		snprintf(head, sizeof(head), "\n  %s ", check_ids[i][1]);
		for (const char *p = section; (p = strstr(p, head)); p++)
			lines++;
		cr_expect_eq(lines, 1, "one line for %s: %s", check_ids[i][1], section);
		const char *line = strstr(section, head);
		if (!line)
			continue;
		line += strlen(head);
		line += strspn(line, " ");
		cr_expect(starts_with(line, "yes ") || starts_with(line, "partial ") ||
				  starts_with(line, "no "),
			  "%s: status word: %.80s", check_ids[i][1], line);
	}
	cr_expect_str_eq(r.err, "");
	th_output_free(&r);
}

Test(cli, check_json_as_root_on_this_machine)
{
	th_require_root();
	cr_assert(th_tracefs(), "cannot mount tracefs");
	struct th_output r = th_perfev("check", "--json");

	cr_assert_eq(r.status, 0, "%s", r.err);
	json_object *root = th_json_parse(r.out);
	json_object *m = th_json_get(root, "machine");
	expect_every_check_once(root);

	cr_expect_eq(json_object_get_int(th_json_get(m, "euid")), 0);
	cr_expect(json_object_get_boolean(th_json_get(m, "tracefs_mounted")));
	cr_expect_eq(json_object_get_int(th_json_get(m, "cpus_online")), sysconf(_SC_NPROCESSORS_ONLN));
	cr_expect_eq(json_object_get_boolean(th_json_get(m, "hardware_pmu")), th_have_core_pmu());

	expect_status(root, "software", "yes");
	expect_breakpoint(root);
	expect_status(root, "uprobe", th_sysfs_pmu("uprobe") ? "yes" : "no");
	expect_sampling(root);
	expect_status(root, "cpu_wide", "yes");
	expect_status(root, "kernel_sampling", "yes");
	expect_status(root, "callchains", "yes");
	expect_status(root, "ring_buffer", "yes");
	expect_status(root, "tracepoint", "yes");
	cr_expect(strstr(th_json_get_str(check_of(root, "tracepoint"), "detail"), "/sys/kernel/tracing"),
		  "the tracepoint check says where tracefs is");

	if (th_have_core_pmu()) {
		expect_status(root, "hardware", "yes");
	} else {
		/* This development VM: no PMU, so neither hardware nor cache events. */
		expect_status(root, "hardware", "no");
		expect_status(root, "cache", "no");
		const char *detail = th_json_get_str(check_of(root, "hardware"), "detail");
		cr_expect(strstr(detail, "no hardware PMU"), "hardware detail: %s", detail);
		cr_expect(strstr(th_json_get_str(check_of(root, "hardware"), "fix"), "cpu-clock"),
			  "the fix offers a software event");
		detail = th_json_get_str(check_of(root, "cache"), "detail");
		cr_expect(strstr(detail, "no hardware PMU"), "cache detail: %s", detail);
	}
	if (th_sysfs_pmu("kprobe")) {
		expect_status(root, "kprobe", "yes");
	} else {
		expect_status(root, "kprobe", "no");
		cr_expect(strstr(th_json_get_str(check_of(root, "kprobe"), "detail"), "no kprobe PMU"));
		cr_expect_str_neq(th_json_get_str(check_of(root, "kprobe"), "fix"), "");
	}
	json_object_put(root);
	th_output_free(&r);
}

Test(cli, check_json_as_nobody)
{
	struct th_output r = th_perfev_nobody("check", "--json");

	cr_assert_eq(r.status, 0, "%s", r.err);
	json_object *root = th_json_parse(r.out);
	expect_every_check_once(root);
	cr_expect_eq(json_object_get_int(th_json_get(th_json_get(root, "machine"), "euid")), 65534);
	cr_expect_not(json_object_get_boolean(th_json_get(th_json_get(root, "machine"), "cap_perfmon")));

	int paranoid = json_object_get_int(th_json_get(th_json_get(root, "machine"), "paranoid"));
	if (paranoid >= 2) {
		/* User space only: the kernel part of software events is refused. */
		expect_status(root, "software", "partial");
		const char *detail = th_json_get_str(check_of(root, "software"), "detail");
		cr_expect(strstr(detail, "user space only"), "software detail: %s", detail);
		cr_expect(strstr(th_json_get_str(check_of(root, "software"), "fix"), "perf_event_paranoid"),
			  "the fix names the sysctl");
	}
	if (paranoid >= 1) {
		expect_status(root, "cpu_wide", "no");
		cr_expect_str_neq(th_json_get_str(check_of(root, "cpu_wide"), "fix"), "",
				  "CPU-wide counting as nobody comes with a fix");
	}
	/* The uprobe PMU wants CAP_PERFMON (or CAP_SYS_ADMIN) whatever the paranoid level. */
	expect_status(root, "uprobe", "no");
	cr_expect_str_neq(th_json_get_str(check_of(root, "uprobe"), "fix"), "");
	expect_breakpoint(root);
	expect_status(root, "ring_buffer", "yes");
	expect_sampling(root);
	json_object_put(root);
	th_output_free(&r);
}

/* Runs `perfev check --json` in a private mount namespace with every tracefs unmounted. */
static int check_without_tracefs(char **out)
{
	int pipefd[2], status;

	const char *bin = th_perfev_bin(); /* before the fork: it may fail the test */

	cr_assert_eq(pipe2(pipefd, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		if (null < 0 || dup2(null, 0) < 0 || dup2(null, 2) < 0 || dup2(pipefd[1], 1) < 0)
			_exit(100);
		if (unshare(CLONE_NEWNS) < 0)
			_exit(101);
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(102);
		/* Unmount every tracefs this namespace sees (stacked mounts too). */
		for (int round = 0; round < 16; round++) {
			FILE *f = fopen("/proc/self/mounts", "re");
			char dev[256], dir[512], type[64];
			bool any = false;
			if (!f)
				_exit(103);
			while (fscanf(f, "%255s %511s %63s %*[^\n]", dev, dir, type) == 3)
				if (strcmp(type, "tracefs") == 0) {
					any = true;
					if (umount2(dir, MNT_DETACH) < 0)
						_exit(104);
				}
			fclose(f);
			if (!any)
				break;
		}
		char *const argv[] = {(char *)bin, "check", "--json", NULL};
		execv(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	size_t len = 0, cap = 8192;
	char *buf = malloc(cap);
	cr_assert(buf);
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			cr_assert(buf);
		}
		ssize_t n = read(pipefd[0], buf + len, 4096);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*out = buf;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(cli, check_json_without_tracefs_says_how_to_mount_it)
{
	char *out;

	th_require_root();
	/* Mounted in the real namespace, so the child really has something to unmount. */
	cr_assert(th_tracefs(), "cannot mount tracefs");
	int status = check_without_tracefs(&out);
	cr_assert_eq(status, 0, "the child failed at step %d", status);
	json_object *root = th_json_parse(out);
	cr_expect_not(json_object_get_boolean(th_json_get(th_json_get(root, "machine"), "tracefs_mounted")));
	cr_expect(json_object_get_boolean(th_json_get(th_json_get(root, "machine"), "tracefs_supported")));
	expect_status(root, "tracepoint", "no");
	const char *fix = th_json_get_str(check_of(root, "tracepoint"), "fix");
	cr_expect(strstr(fix, "mount -t tracefs"), "fix: %s", fix);
	cr_expect(strstr(th_json_get_str(check_of(root, "tracepoint"), "detail"), "not mounted"));
	json_object_put(root);
	free(out);
	/* The real namespace still has it. */
	cr_expect_not_null(th_tracefs());
}

Test(cli, check_rejects_extra_arguments)
{
	struct th_output r = th_perfev("check", "extra-arg");

	cr_expect_eq(r.status, 129);
	cr_expect(starts_with(r.err, "perfev: error:"), "%s", r.err);
	cr_expect(strstr(r.err, "extra-arg"), "%s", r.err);
	cr_expect(strstr(r.err, "usage: perfev check"), "%s", r.err);
	cr_expect_str_eq(r.out, "");
	th_output_free(&r);

	r = th_perfev("check", "--bogus");
	cr_expect_eq(r.status, 129);
	th_output_free(&r);
}

/* ---- perfev stat -------------------------------------------------------- */

Test(cli, stat_true_prints_perf_stat_style_counts)
{
	struct th_output r = th_perfev("stat", "--", "true");

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "", "perf stat writes its table to stderr");
	const char *e = r.err;
	cr_expect(strstr(e, "Performance counter stats for 'true'"), "%s", e);
	cr_expect(strstr(e, " msec task-clock "), "task-clock line: %s", e);
	cr_expect(strstr(e, "      page-faults "), "page-faults line: %s", e);
	cr_expect(strstr(e, " seconds time elapsed"), "%s", e);
	if (!th_have_core_pmu()) {
		const char *cycles = strstr(e, "<not supported>      cycles");
		cr_expect(cycles, "cycles is <not supported>: %s", e);
		/* One note for every event missing for the same reason. */
		const char *note = strstr(e, "\n note: cycles, instructions, branches and "
					     "branch-misses are not supported here: ");
		cr_expect(note, "a note explains why: %s", e);
		if (note)
			cr_expect(strstr(note, "hardware PMU"), "the note names the missing PMU: %s",
				  note);
		cr_expect(strstr(e, "\n hint: "), "and what to use instead: %s", e);
	}
	cr_expect_null(strstr(e, "perfev: error"), "%s", e);
	th_output_free(&r);
}

/* Pins this process (and what it starts) to its first allowed CPU; *all gets the old set. */
static void pin_to_one_cpu(cpu_set_t *all)
{
	cpu_set_t one;

	cr_assert_eq(sched_getaffinity(0, sizeof(*all), all), 0);
	CPU_ZERO(&one);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, all)) {
			CPU_SET(cpu, &one);
			break;
		}
	cr_assert_eq(sched_setaffinity(0, sizeof(one), &one), 0);
}

/*
 * perfev opens the counters on itself (inherited, enabled at exec) and
 * spawns the command. Were the command's perf context a clone of perfev's,
 * the kernel could swap the two contexts at a switch between them, the
 * exec would enable perfev's own uprobe event in the command, and that
 * event's filter (its task's mm) would drop every hit: a count of 0. On one
 * CPU the command runs right after perfev blocks in vfork, so without
 * cli_spawn_command's guard nearly every run counts 0.
 */
enum { UPROBE_RUNS = 20, UPROBE_CALLS = 500 };

Test(cli, stat_counts_every_uprobe_hit_of_the_command)
{
	const char *work = th_test_program("uprobe_work");
	char event[PATH_MAX + 64];
	cpu_set_t all;
	int right = 0;

	th_require_root();
	th_require_cap(PEV_CAP_UPROBE);
	snprintf(event, sizeof(event), "uprobe:%s:uprobe_work_target", work);
	pin_to_one_cpu(&all);
	for (int run = 0; run < UPROBE_RUNS; run++) {
		struct th_output r = th_perfev("stat", "-x,", "-e", event, "--", work, "500");
		cr_assert_eq(r.status, 0, "%s", r.err);
		if (strncmp(r.err, "500,", 4) == 0)
			right++;
		else
			cr_log_error("run %d: %d calls, counted: %s", run, UPROBE_CALLS, r.err);
		th_output_free(&r);
	}
	sched_setaffinity(0, sizeof(all), &all);
	cr_expect_eq(right, UPROBE_RUNS, "%d of %d runs counted %d calls exactly", right,
		     UPROBE_RUNS, UPROBE_CALLS);
}

/* The same for sampling: record -c 1 writes one sample per call. */
Test(cli, record_samples_every_uprobe_hit_of_the_command)
{
	const char *work = th_test_program("uprobe_work"), *dir = th_temp_dir("uprobe_record");
	char event[PATH_MAX + 64], file[PATH_MAX];
	cpu_set_t all;
	int right = 0;

	th_require_root();
	th_require_cap(PEV_CAP_UPROBE);
	snprintf(event, sizeof(event), "uprobe:%s:uprobe_work_target", work);
	snprintf(file, sizeof(file), "%s/uprobe.data", dir);
	pin_to_one_cpu(&all);
	for (int run = 0; run < UPROBE_RUNS; run++) {
		struct th_output r = th_perfev("record", "-q", "-c", "1", "-e", event, "-o", file,
					       "--", work, "500");
		cr_assert_eq(r.status, 0, "%s", r.err);
		th_output_free(&r);
		r = th_perfev("script", "-i", file, "-F", "ip");
		cr_assert_eq(r.status, 0, "%s", r.err);
		int samples = 0;
		for (const char *p = r.out; (p = strchr(p, '\n')); p++)
			samples++;
		if (samples == UPROBE_CALLS)
			right++;
		else
			cr_log_error("run %d: %d calls, %d samples", run, UPROBE_CALLS, samples);
		th_output_free(&r);
	}
	sched_setaffinity(0, sizeof(all), &all);
	cr_expect_eq(right, UPROBE_RUNS, "%d of %d runs recorded %d samples for %d calls", right,
		     UPROBE_RUNS, UPROBE_CALLS, UPROBE_CALLS);
}

/* Runs `perfev ARGS` through the shell with REDIRECT; returns the exit status, *err its stderr. */
static int perfev_redirected(const char *args, const char *redirect, char **err)
{
	char cmd[1024];
	char *out = NULL;

	snprintf(cmd, sizeof(cmd), "'%s' %s %s", th_perfev_bin(), args, redirect);
	int status = th_sh(cmd, &out, err);
	free(out);
	return status;
}

/* A report that did not reach its destination is a failure, and says so. */
Test(cli, lost_output_fails_the_command)
{
	static const struct {
		const char *args, *redirect, *says;
	} cases[] = {
		{"list", ">/dev/full", "cannot write standard output"},
		{"check", ">/dev/full", "cannot write standard output"},
		{"--help", ">/dev/full", "cannot write standard output"},
		{"--version", ">/dev/full", "cannot write standard output"},
		{"stat -e task-clock -o /dev/full true", "", "cannot write /dev/full"},
		{"stat -x, -e task-clock -o /dev/full true", "", "cannot write /dev/full"},
		/* stat reports on stderr: nothing can say so, the status does. */
		{"stat -e task-clock true", "2>/dev/full", NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *err = NULL;
		int status = perfev_redirected(cases[i].args, cases[i].redirect, &err);
		cr_expect_eq(status, 1, "perfev %s %s: exit %d (%s)", cases[i].args,
			     cases[i].redirect, status, err);
		if (cases[i].says)
			cr_expect(strstr(err, cases[i].says), "perfev %s %s: %s", cases[i].args,
				  cases[i].redirect, err);
		free(err);
	}
	/* The measured command's own failure stays what stat reports. */
	char *err = NULL;
	cr_expect_eq(perfev_redirected("stat -e task-clock -- sh -c 'exit 3'", "2>/dev/full", &err),
		     3);
	free(err);
	/* And a written report is still a success. */
	cr_expect_eq(perfev_redirected("list", ">/dev/null", &err), 0, "%s", err);
	free(err);
}

/* Every command says what is wrong with its options in perfev's words, not getopt's. */
Test(cli, bad_options_are_perfevs_own_errors)
{
	static const char *const commands[] = {"check", "list", "stat", "report", "script", "record"};

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		struct th_output r = th_perfev(commands[i], "--no-such-option");
		cr_expect_eq(r.status, 129, "%s: exit %d", commands[i], r.status);
		cr_expect(starts_with(r.err, "perfev: error: unknown option '--no-such-option'\n"),
			  "%s: %s", commands[i], r.err);
		cr_expect_null(strstr(r.err, "unrecognized"), "%s: getopt spoke: %s", commands[i],
			       r.err);
		th_output_free(&r);
	}
	struct th_output r = th_perfev("script", "-i");
	cr_expect(starts_with(r.err, "perfev: error: option '-i' needs a value\n"), "%s", r.err);
	th_output_free(&r);
}

/* A number out of range names the range it must be in, and no advice that cannot work. */
Test(cli, out_of_range_numbers_name_their_limits)
{
	struct th_output r = th_perfev("stat", "-r", "99999999999", "true");
	cr_expect_eq(r.status, 129);
	cr_expect(strstr(r.err, "option '-r' needs a number of runs from 1 to 1000000, got "
				"'99999999999'"),
		  "%s", r.err);
	th_output_free(&r);

	r = th_perfev("stat", "-I", "5", "true");
	cr_expect(strstr(r.err, "option '-I' needs a number of milliseconds from 10 to"), "%s",
		  r.err);
	th_output_free(&r);

	/* kernel.perf_event_max_sample_rate is an int: no sysctl allows 2^32 + 1. */
	r = th_perfev("record", "-F", "4294967297", "-o", "/dev/null", "true");
	cr_expect_eq(r.status, 129);
	cr_expect(strstr(r.err, "above the most any machine allows (2147483647)"), "%s", r.err);
	cr_expect_null(strstr(r.err, "sysctl kernel.perf_event_max_sample_rate="), "%s", r.err);
	th_output_free(&r);
}

/* -C takes CPUs in any order, repeated or not, the same way in stat and record. */
Test(cli, cpu_lists_are_read_alike_by_stat_and_record)
{
	const char *dir = th_temp_dir("cpu_lists");
	char file[PATH_MAX];

	th_require_root();
	snprintf(file, sizeof(file), "%s/cpus.data", dir);
	struct th_output r = th_perfev("stat", "-x,", "-C", "0,0,0", "-e", "task-clock", "true");
	cr_expect_eq(r.status, 0, "stat -C 0,0,0: %s", r.err);
	th_output_free(&r);
	r = th_perfev("record", "-q", "-C", "0,0,0", "-o", file, "--", "true");
	cr_expect_eq(r.status, 0, "record -C 0,0,0: %s", r.err);
	cr_expect_null(strstr(r.err, "pev_"), "no library function names: %s", r.err);
	th_output_free(&r);
	static const char *const commands[] = {"stat", "record"};
	for (size_t i = 0; i < 2; i++) {
		r = th_perfev(commands[i], "-C", "0,x", "-o", file, "--", "true");
		cr_expect_eq(r.status, 129);
		cr_expect(strstr(r.err, "option '-C' needs a list of CPUs such as '0-3,7', got '0,x'"),
			  "%s: %s", commands[i], r.err);
		th_output_free(&r);
	}
}

/* Sampling modifiers mean nothing to counting: ":S" counts, as in perf stat. */
Test(cli, stat_counts_an_event_with_a_sampling_modifier)
{
	struct th_output r = th_perfev("stat", "-x,", "-e", "cpu-clock:S", "--", "true");

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_null(strstr(r.err, "<not counted>"), "%s", r.err);
	cr_expect_null(strstr(r.err, "PEV_SAMPLE"), "no library hint: %s", r.err);
	cr_expect(strstr(r.err, ",msec,cpu-clock:S,"), "%s", r.err);
	th_output_free(&r);
}

/* Reads kernel.perf_event_paranoid; 2 when unreadable. */
static long paranoid_level(void)
{
	long v = 2;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

/*
 * Counting CPUs or another user's process with nothing allowed fails at
 * once (exit 1, the refusal explained) instead of counting nothing and
 * succeeding; perf stat and perfev record fail too.
 */
Test(cli, stat_that_can_open_nothing_fails)
{
	static const char *const cases[][6] = {
		{"stat", "-a", "-e", "task-clock", "--", "true"},
		{"stat", "-C", "0", "-e", "task-clock", "true"},
		{"stat", "-p", "1", "-e", "task-clock", NULL},
	};

	th_require_root();
	if (paranoid_level() < 1)
		th_skip("perf_event_paranoid is %ld: nobody may count whole CPUs here",
			paranoid_level());
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct th_output r = th_perfev_nobody(cases[i][0], cases[i][1], cases[i][2],
						      cases[i][3], cases[i][4], cases[i][5]);
		cr_expect_eq(r.status, 1, "%s %s %s: exit %d: %s", cases[i][0], cases[i][1],
			     cases[i][2], r.status, r.err);
		cr_expect(strstr(r.err, "permission denied"), "%s %s: %s", cases[i][0], cases[i][1],
			  r.err);
		th_output_free(&r);
	}
	/* Allowed, the same run succeeds. */
	struct th_output r = th_perfev("stat", "-a", "-e", "task-clock", "--", "true");
	cr_expect_eq(r.status, 0, "%s", r.err);
	th_output_free(&r);
}

/* Events refused alike get one note naming them all, not one note each. */
Test(cli, stat_notes_events_refused_alike_once)
{
	char cmd[1024], *out = NULL, *err = NULL;

	snprintf(cmd, sizeof(cmd),
		 "ulimit -n 12 && '%s' stat -e task-clock,cpu-clock,page-faults,context-switches,"
		 "cpu-migrations,minor-faults,major-faults,alignment-faults,emulation-faults,"
		 "dummy,task-clock,cpu-clock -- true",
		 th_perfev_bin());
	cr_assert_eq(th_sh(cmd, &out, &err), 0, "%s", err);
	int notes = 0;
	for (const char *p = err; (p = strstr(p, " note: ")); p++)
		notes++;
	cr_expect_eq(notes, 1, "one note for every event over the open-file limit: %s", err);
	cr_expect(strstr(err, " could not be counted: too many open files (EMFILE)"), "%s", err);
	/*
	 * Which events miss out depends on the descriptors this libc and host
	 * hold at start; the last ones always do, and share the one note.
	 */
	cr_expect(strstr(err, " and cpu-clock could not be counted"), "%s", err);
	free(out);
	free(err);
}

Test(cli, stat_passes_on_the_exit_status)
{
	struct th_output r = th_perfev("stat", "-e", "task-clock", "--", "sh", "-c", "exit 7");

	cr_expect_eq(r.status, 7, "%s", r.err);
	cr_expect(strstr(r.err, "Performance counter stats for 'sh -c exit 7'"), "%s", r.err);
	th_output_free(&r);
}

Test(cli, stat_of_a_missing_command_exits_127)
{
	struct th_output r = th_perfev("stat", "--", "/nonexistent/perfev-no-such-command");

	cr_expect_eq(r.status, 127, "%s", r.err);
	cr_expect(starts_with(r.err, "perfev: error:"), "%s", r.err);
	cr_expect(strstr(r.err, "cannot run"), "%s", r.err);
	cr_expect(strstr(r.err, "/nonexistent/perfev-no-such-command"), "%s", r.err);
	cr_expect_null(strstr(r.err, "Performance counter stats"), "%s", r.err);
	th_output_free(&r);
}

Test(cli, stat_without_a_command_exits_129)
{
	struct th_output r = th_perfev("stat");

	cr_expect_eq(r.status, 129);
	cr_expect(starts_with(r.err, "perfev: error:"), "%s", r.err);
	cr_expect(strstr(r.err, "usage: perfev stat"), "%s", r.err);
	th_output_free(&r);

	r = th_perfev("stat", "-e", "task-clock");
	cr_expect_eq(r.status, 129, "%s", r.err);
	th_output_free(&r);
}

Test(cli, stat_with_an_unknown_event_exits_129_and_names_it)
{
	struct th_output r = th_perfev("stat", "-e", "bogus-event", "--", "true");

	cr_expect_eq(r.status, 129);
	cr_expect(starts_with(r.err, "perfev: error:"), "%s", r.err);
	cr_expect(strstr(r.err, "bogus-event"), "%s", r.err);
	cr_expect_null(strstr(r.err, "Performance counter stats"), "%s", r.err);
	th_output_free(&r);

	r = th_perfev("stat", "-e", "task-clock,bogus-event", "--", "true");
	cr_expect_eq(r.status, 129);
	cr_expect(strstr(r.err, "bogus-event"), "%s", r.err);
	th_output_free(&r);
}

/*
 * Reads the count of `event` from perfev stat's table ("   1,234      page-faults")
 * or from perf stat -x, ("1234,,page-faults,..."). Returns -1 when absent.
 */
static long long count_of(const char *text, const char *event, bool csv)
{
	char want[96];

	snprintf(want, sizeof(want), csv ? ",%s," : "      %s", event);
	for (const char *line = text, *end; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char buf[512];
		if (len >= sizeof(buf))
			continue;
		memcpy(buf, line, len);
		buf[len] = '\0';
		if (!strstr(buf, want))
			continue;
		long long v = 0;
		bool digits = false;
		for (const char *p = buf + strspn(buf, " "); *p; p++) {
			if (*p >= '0' && *p <= '9') {
				v = v * 10 + (*p - '0');
				digits = true;
			} else if (*p == ',' && !csv) {
				continue; /* perfev groups digits */
			} else {
				break;
			}
		}
		if (digits)
			return v;
	}
	return -1;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

#define RUNS 5

/* Median page faults of `cmd` over RUNS runs, by perfev and by perf. */
static void compare_page_faults(char *perf, char *const cmd[], int ncmd)
{
	long long ours[RUNS], theirs[RUNS];

	for (int i = 0; i < RUNS; i++) {
		const char *a[24];
		int n = 0;
		a[n++] = th_perfev_bin();
		a[n++] = "stat";
		a[n++] = "-e";
		a[n++] = "page-faults";
		a[n++] = "--";
		for (int j = 0; j < ncmd; j++)
			a[n++] = cmd[j];
		a[n] = NULL;
		char *out, *err;
		cr_assert_eq(th_run((char *const *)a, false, &out, &err), 0, "%s", err);
		ours[i] = count_of(err, "page-faults", false);
		cr_assert_geq(ours[i], 0, "no page-faults count in perfev's output: %s", err);
		free(out);
		free(err);

		n = 0;
		a[n++] = perf;
		a[n++] = "stat";
		a[n++] = "-e";
		a[n++] = "page-faults";
		a[n++] = "-x,";
		a[n++] = "--";
		for (int j = 0; j < ncmd; j++)
			a[n++] = cmd[j];
		a[n] = NULL;
		cr_assert_eq(th_run((char *const *)a, false, &out, &err), 0, "%s", err);
		theirs[i] = count_of(err, "page-faults", true);
		if (theirs[i] < 0)
			theirs[i] = count_of(err, "page-faults:u", true);
		cr_assert_geq(theirs[i], 0, "no page-faults count in perf's output: %s", err);
		free(out);
		free(err);
	}
	qsort(ours, RUNS, sizeof(ours[0]), cmp_ll);
	qsort(theirs, RUNS, sizeof(theirs[0]), cmp_ll);
	long long a = ours[RUNS / 2], b = theirs[RUNS / 2];
	long long diff = a > b ? a - b : b - a;
	long long allowed = b * 2 / 100 > 3 ? b * 2 / 100 : 3;
	cr_expect_leq(diff, allowed,
		      "page-faults of '%s': perfev %lld, perf %lld (medians of %d; allowed +-%lld)",
		      cmd[0], a, b, RUNS, allowed);
	cr_expect_gt(a, 0, "a command that runs takes page faults");
}

Test(cli, stat_page_faults_agree_with_perf)
{
	char *perf = th_which("perf");

	if (!perf)
		th_skip("Debian's perf (package linux-perf) is not installed: nothing to "
			     "compare with");
	char *dd[] = {"dd", "if=/dev/zero", "of=/dev/null", "bs=1M", "count=20", "status=none"};
	char *tru[] = {"/bin/true"};
	compare_page_faults(perf, dd, 6);
	compare_page_faults(perf, tru, 1);
	free(perf);
}

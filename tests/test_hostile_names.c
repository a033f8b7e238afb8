/* SPDX-License-Identifier: MIT */
/*
 * test_hostile_names.c - names from files never drive a terminal, split a
 * row or break a machine format (issue 22 item 6).
 *
 * A real program (hostile_work) is recorded: its comm holds ESC [ 2 J, a
 * newline and a byte that is not UTF-8; it runs from a copy of itself at a
 * path with a newline, an escape sequence and 0xff in it (its DSO name);
 * its JIT code is named by /tmp/perf-PID.map with ESC, CR, BEL, a C1
 * control and broken UTF-8. Every human output of the recording (report
 * tables and call graphs, the header, script, diff, error messages) must
 * hold no control byte but newlines and tabs, be valid UTF-8 and keep one
 * row per line; JSON must load with Python's json module and keep the
 * names (a byte that is not UTF-8 as U+FFFD); folded stacks one stack per
 * line; pprof's strings valid UTF-8. The helper itself (perfev/text.h) is
 * checked on its own too.
 *
 * Round two: a library in a directory whose name holds a newline (written
 * "\012" in /proc/PID/maps) or the text "\012" itself (written as it is),
 * loaded by a running process (hostile_dlopen): the symbolizer reading the
 * process and `record -p` name its function, and perf reads the
 * recording's MMAP2 records (the path with its newline) to the same name.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/types.h>
#include <unistd.h>
#include <zlib.h>

#include "helpers.h"
#include "perfev/symbols.h"
#include "perfev/text.h"
#include "report/pprof_shim.h"
#include "report/pprof.pb-c.h"
#include "report/report_dl.h"

/* What the names are shown as (hostile_work.c's bytes, escaped). */
#define SHOWN_COMM "ev\\x1b[2J\\x0ail\\xff"
#define SHOWN_EXE  "hw\\x1b[2J\\xff"
#define SHOWN_DIR  "bin\\x0a\\x1b[31m"
#define SHOWN_JIT  "jit\\x1b[2J\\x0d\\x07\\xc2\\x9b31m\\xff\\xe2\\x82_end"
/* The comm as JSON keeps it: the control bytes, U+FFFD for 0xff (Python's spelling). */
#define JSON_COMM  "ev\\x1b[2J\\nil\\ufffd"

static int map_pid; /* the workload's, whose /tmp/perf-PID.map is removed at the end */

static void remove_map(void)
{
	char map[64];

	if (map_pid > 0) {
		snprintf(map, sizeof(map), "/tmp/perf-%d.map", map_pid);
		unlink(map);
		map_pid = 0;
	}
}

static pid_t loaders[4]; /* workloads still running, killed at the end of the test */

static void stop_loaders(void)
{
	for (size_t i = 0; i < sizeof(loaders) / sizeof(loaders[0]); i++)
		if (loaders[i] > 0) {
			kill(loaders[i], SIGKILL);
			waitpid(loaders[i], NULL, 0);
			loaders[i] = 0;
		}
	remove_map();
}

static void make_dir(void)
{
	th_suite_dir("hostile");
}

TestSuite(hostile_names, .init = make_dir, .fini = remove_map);

/* Copies hostile_work to DIR/"bin\n\e[31m"/"hw\e[2J\xff" once; returns that path. */
static const char *hostile_copy(void)
{
	static char path[PATH_MAX];
	const char *src = th_test_program("hostile_work");
	char dir[PATH_MAX - 16], buf[65536];
	int in, out;
	ssize_t n;

	if (path[0])
		return path;
	snprintf(dir, sizeof(dir), "%s", th_path_in("bin\n\x1b[31m"));
	cr_assert_eq(mkdir(dir, 0755), 0, "mkdir: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/hw\x1b[2J\xff", dir);
	cr_assert_geq(in = open(src, O_RDONLY | O_CLOEXEC), 0, "%s: %s", src, strerror(errno));
	cr_assert_geq(out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755), 0, "%s",
		      strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		cr_assert_eq(write(out, buf, (size_t)n), n);
	cr_assert_eq(n, 0);
	close(in);
	cr_assert_eq(close(out), 0);
	return path;
}

/* Notes the pid the workload printed (its JIT map is removed at the end). */
static void note_pid(const char *out)
{
	const char *pid = strstr(out, "pid ");

	cr_assert_not_null(pid, "the workload's pid: %s", out);
	map_pid = atoi(pid + 4);
}

/* Records the hostile workload with call chains; returns the file (th_path_in). */
static const char *record_hostile(void)
{
	const char *exe = hostile_copy();
	struct th_output r = th_perfev("record", "-e", "cpu-clock", "-F", "1000", "-g", "-o",
				       th_path_in("h.data"), "--", exe, "150");

	cr_assert_eq(r.status, 0, "record: %s", r.err);
	note_pid(r.out);
	th_output_free(&r);
	return th_path_in("h.data");
}

/* A line of text holding every needle (NULL-terminated), or NULL. */
static const char *line_with(const char *text, const char *first, ...)
{
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		char *line = strndup(l, n);
		bool all = true;
		va_list ap;

		va_start(ap, first);
		for (const char *s = first; s && all; s = va_arg(ap, const char *))
			all = strstr(line, s) != NULL;
		va_end(ap);
		free(line);
		if (all)
			return l;
		if (!nl)
			break;
		l = nl + 1;
	}
	return NULL;
}

/* perfev ARGS..., which must succeed; returns its stdout (the caller frees). */
#define run_ok(...) run_ok_((const char *[]){__VA_ARGS__, NULL})
static char *run_ok_(const char **given)
{
	const char *argv[11] = {NULL}; /* at most 10 arguments, the rest NULL */

	for (int i = 0; given[i]; i++) {
		cr_assert_lt(i, 10, "too many arguments");
		argv[i] = given[i];
	}
	struct th_output r = th_perfev_as(false, argv[0], argv[1], argv[2], argv[3], argv[4],
					  argv[5], argv[6], argv[7], argv[8], argv[9], (char *)NULL);
	char *out = r.out;

	cr_assert_eq(r.status, 0, "perfev %s: %s", argv[0], r.err);
	th_expect_clean_text("stderr", r.err);
	free(r.err);
	return out;
}

Test(hostile_names, report_tables_and_call_graphs_escape_names)
{
	const char *f = record_hostile();
	char *out;

	/* One row per entry: comm, DSO and symbol on the line of their numbers. */
	out = run_ok("report", "-i", f, "--stdio", "--sort", "comm,dso,sym", "-g", "none");
	th_expect_clean_text("report --sort comm,dso,sym", out);
	cr_expect(line_with(out, "%", SHOWN_COMM, SHOWN_EXE, "hostile_dso_spin", NULL),
		  "the workload's row, whole: %s", out);
#if defined(__x86_64__)
	cr_expect(line_with(out, "%", SHOWN_COMM, SHOWN_JIT, NULL), "the JIT row, whole: %s", out);
#endif
	free(out);

	/* The default: children with call graphs. */
	out = run_ok("report", "-i", f, "--stdio");
	th_expect_clean_text("report -g", out);
	expect_has(out, SHOWN_COMM);
#if defined(__x86_64__)
	expect_has(out, SHOWN_JIT);
#endif
	free(out);

	out = run_ok("report", "-i", f, "--stdio", "--sort", "pid,dso", "-v", "-g",
		     "caller");
	th_expect_clean_text("report -v", out);
	expect_has(out, SHOWN_DIR "/" SHOWN_EXE);
	free(out);

	out = run_ok("report", "-i", f, "--header-only");
	th_expect_clean_text("report --header-only", out);
	expect_has(out, SHOWN_DIR "/" SHOWN_EXE " 150");
	free(out);

	out = run_ok("diff", f, f);
	th_expect_clean_text("diff", out);
	cr_expect(line_with(out, "%", SHOWN_EXE, "hostile_dso_spin", NULL), "diff's row: %s", out);
	free(out);
	remove_map();
}

Test(hostile_names, script_keeps_one_sample_a_line)
{
	const char *f = record_hostile();
	char *out;

	out = run_ok("script", "-i", f, "-F", "comm,tid,ip,sym,dso", "-G");
	th_expect_clean_text("script -F", out);
	cr_expect(line_with(out, SHOWN_COMM, "hostile_dso_spin", SHOWN_EXE, NULL),
		  "a sample's line, whole: %s", out);
	/* The tail of a comm split by its newline would start a line. */
	cr_expect(!line_with(out, "il\\xff ", NULL) || strncmp(out, "il", 2) != 0, "%s", out);
	for (const char *l = out; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		cr_expect(strncmp(l, "il", 2) != 0, "a row split in two: %.80s", l);
	free(out);

	out = run_ok("script", "-i", f);
	th_expect_clean_text("script", out);
#if defined(__x86_64__)
	cr_expect(line_with(out, SHOWN_JIT, "perf-", NULL), "the JIT frame: %.2000s", out);
#endif
	free(out);
	remove_map();
}

/* Runs python3 over a JSON file: it must load, and check (a Python expression on d) hold. */
static void python_json(const char *path, const char *check)
{
	char cmd[PATH_MAX + 1024], *out = NULL, *err = NULL;
	int st;

	if (!th_have_program("python3"))
		th_skip("python3 is not installed");
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json, sys\n"
		 "d = json.load(open(sys.argv[1], encoding=\"utf-8\"))\n"
		 "assert %s, \"check failed\"' '%s'",
		 check, path);
	st = th_sh(cmd, &out, &err);
	cr_expect_eq(st, 0, "%s does not load in python3 (or the check fails): %s", path, err);
	free(out);
	free(err);
}

Test(hostile_names, json_loads_in_python)
{
	const char *f = record_hostile();
	char json[PATH_MAX];
	struct th_output r;

	snprintf(json, sizeof(json), "%s", th_path_in("h.json"));
	r = th_perfev("report", "-i", f, "--format", "json", "-g", "--sort", "comm,dso,sym", "-o",
		      json);
	cr_assert_eq(r.status, 0, "%s", r.err);
	th_output_free(&r);
	python_json(json, "any(e.get(\"comm\") == \"" JSON_COMM "\" "
			  "for ev in d[\"events\"] for e in ev[\"rows\"])");

	/* stat's JSON document names the command. */
	snprintf(json, sizeof(json), "%s", th_path_in("stat.json"));
	remove_map();
	r = th_perfev("stat", "--json", "-e", "task-clock", "-o", json, "--", hostile_copy(), "20");
	cr_assert_eq(r.status, 0, "%s", r.err);
	note_pid(r.out);
	th_output_free(&r);
	python_json(json, "\"\\ufffd\" in d[\"command\"][0]");
	remove_map();
}

/* Whether s is valid UTF-8 as Python's decoder sees it (the test's own check). */
static bool python_utf8(const char *s)
{
	return pev_text_utf8(NULL, 0, s) == strlen(s);
}

Test(hostile_names, folded_and_pprof_stay_parseable)
{
	const char *f = record_hostile();
	char folded[PATH_MAX], pprof[PATH_MAX];
	struct th_output r;
	size_t len;
	char *text;

	/* Folded: one stack a line, "frames COUNT"; no newline or ';' inside a frame. */
	snprintf(folded, sizeof(folded), "%s", th_path_in("h.folded"));
	r = th_perfev("report", "-i", f, "--format", "folded", "-o", folded);
	cr_assert_eq(r.status, 0, "%s", r.err);
	th_output_free(&r);
	text = th_slurp(folded, &len);
	th_expect_clean_text("folded", text);
	cr_expect(python_utf8(text), "folded is not UTF-8");
	bool comm_frame = false;
	for (char *l = text, *nl; *l; l = nl + 1) {
		cr_assert_not_null(nl = strchr(l, '\n'));
		*nl = '\0';
		char *sp = strrchr(l, ' ');
		cr_expect(sp && sp[1] && strspn(sp + 1, "0123456789") == strlen(sp + 1),
			  "a line without its count: %s", l);
		/* The comm is the first frame: its control bytes blanked, 0xff U+FFFD. */
		if (strncmp(l, "ev [2J il\xef\xbf\xbd;", 13) == 0)
			comm_frame = true;
	}
	cr_expect(comm_frame, "the comm's frame");
	free(text);

	/* pprof: protobuf's strings must be UTF-8. */
	snprintf(pprof, sizeof(pprof), "%s", th_path_in("h.pb.gz"));
	r = th_perfev("report", "-i", f, "--format", "pprof", "-o", pprof);
	cr_assert_eq(r.status, 0, "%s", r.err);
	th_output_free(&r);
	text = th_slurp(pprof, &len);
	size_t n;
	unsigned char *raw = th_gunzip(text, len, &n);
	cr_assert_eq(pev__report_dl_protobuf("test", NULL), 0);
	Pev__Pprof__Profile *prof = pev__pprof__profile__unpack(NULL, n, raw);
	cr_assert_not_null(prof);
	bool comm = false;
	for (size_t i = 0; i < prof->n_string_table; i++) {
		cr_expect(python_utf8(prof->string_table[i]), "string %zu is not UTF-8", i);
		if (strstr(prof->string_table[i], "ev\x1b[2J\nil\xef\xbf\xbd"))
			comm = true;
	}
	cr_expect(comm, "the comm, its 0xff as U+FFFD");
	pev__pprof__profile__free_unpacked(prof, NULL);
	free(raw);
	free(text);
	remove_map();
}

Test(hostile_names, messages_escape_file_names)
{
	char path[PATH_MAX];
	struct th_output r;

	snprintf(path, sizeof(path), "%s", th_path_in("no\n\x1b[2Jsuch\xff.data"));
	r = th_perfev("report", "-i", path);
	cr_expect_neq(r.status, 0);
	th_expect_clean_text("report's error", r.err);
	expect_has(r.err, "no\\x0a\\x1b[2Jsuch\\xff.data: cannot open");
	/* The error and its hint: two lines, the name not split. */
	cr_expect(line_with(r.err, "perfev: error: ", "such\\xff.data", NULL), "%s", r.err);
	th_output_free(&r);

	r = th_perfev("script", "-i", path);
	cr_expect_neq(r.status, 0);
	th_expect_clean_text("script's error", r.err);
	th_output_free(&r);

	/* record's closing line names its file. */
	r = th_perfev("record", "-e", "cpu-clock", "-o", path, "--", "true");
	cr_expect_eq(r.status, 0, "%s", r.err);
	th_expect_clean_text("record's summary", r.err);
	expect_has(r.err, "such\\xff.data");
	th_output_free(&r);

	r = th_perfev("report", "-i", path, "--no-such-option\x1b[2J");
	cr_expect_neq(r.status, 0);
	th_expect_clean_text("an unknown option", r.err);
	th_output_free(&r);
}

/* ---- the helper itself (perfev/text.h) --------------------------------------------------- */

static void expect_escape(const char *in, unsigned flags, const char *want)
{
	char buf[256];
	size_t n = pev_text_escape(buf, sizeof(buf), in, flags);

	cr_expect_str_eq(buf, want);
	cr_expect_eq(n, strlen(want));
}

Test(hostile_names, text_escape)
{
	expect_escape("plain name", 0, "plain name");
	expect_escape("a\nb\tc\rd\x1b[2J\x7f", 0, "a\\x0ab\\x09c\\x0dd\\x1b[2J\\x7f");
	/* Valid UTF-8 (C++, Unicode names) stays; C1 controls do not. */
	expect_escape("std::vector<int> caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0,
		      "std::vector<int> caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	expect_escape("\xc2\x9b" "31m", 0, "\\xc2\\x9b31m");
	/* Invalid: a stray byte, a truncated sequence, overlong, surrogate, > U+10FFFF. */
	expect_escape("\xff\xe2\x82", 0, "\\xff\\xe2\\x82");
	expect_escape("\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80", 0,
		      "\\xc0\\xaf|\\xed\\xa0\\x80|\\xf4\\x90\\x80\\x80");
	expect_escape("caf\xc3\xa9\x1b", PEV_TEXT_ASCII, "caf\\xc3\\xa9\\x1b");
	expect_escape(NULL, 0, "");

	/* Cut short like snprintf: always terminated, the whole length returned. */
	char small[6];
	cr_expect_eq(pev_text_escape(small, sizeof(small), "ab\x1b" "cd", 0), 8);
	cr_expect_str_eq(small, "ab\\x1");
	cr_expect_eq(pev_text_escape(NULL, 0, "\x1b", 0), 4);
}

Test(hostile_names, text_utf8_and_clean)
{
	char buf[64];

	cr_expect_eq(pev_text_utf8(buf, sizeof(buf), "a\xff\x1b\xe2\x82"), 1 + 3 + 1 + 3 + 3);
	cr_expect_str_eq(buf, "a\xef\xbf\xbd\x1b\xef\xbf\xbd\xef\xbf\xbd");
	cr_expect_eq(pev_text_utf8(buf, sizeof(buf), "caf\xc3\xa9"), 5);
	cr_expect_str_eq(buf, "caf\xc3\xa9");

	cr_expect(pev_text_is_clean("caf\xc3\xa9 std::map<>"));
	cr_expect(pev_text_is_clean(NULL));
	cr_expect(!pev_text_is_clean("a\nb"));
	cr_expect(!pev_text_is_clean("a\xff"));
	cr_expect(!pev_text_is_clean("\xc2\x85"));

	cr_expect_eq(pev_text_utf8_char("\xf0\x9f\x98\x80"), 4);
	cr_expect_eq(pev_text_utf8_char("\xe2\x82"), 0);
	cr_expect_eq(pev_text_utf8_char(""), 0);

	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);
	cr_assert_not_null(f);
	cr_expect_geq(pev_text_fputs("ok \xc3\xa9\x1b[2J\n\xff", f), 0);
	fclose(f);
	cr_expect_str_eq(mem, "ok \xc3\xa9\\x1b[2J\\x0a\\xff");
	free(mem);
}

/*
 * Starts the hostile workload for 600 s (killed by stop_loaders) and waits
 * until it runs under its hostile comm; its pid goes into pidarg. Returns
 * the pipe it talks on (the caller closes it).
 */
static FILE *start_hostile(char *pidarg, size_t size)
{
	const char *exe = hostile_copy();
	int pipefd[2];
	char line[64] = "";
	pid_t child;
	FILE *in;

	cr_assert_eq(pipe2(pipefd, O_CLOEXEC), 0);
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		dup2(pipefd[1], STDOUT_FILENO);
		execl(exe, exe, "600000", (char *)NULL);
		_exit(127);
	}
	loaders[0] = child; /* killed even when an assertion ends the test */
	close(pipefd[1]);
	/* It says its pid once it runs; its comm is set right after. */
	in = fdopen(pipefd[0], "r");
	cr_assert_not_null(in);
	cr_assert_not_null(fgets(line, sizeof(line), in), "the workload did not start");
	note_pid(line);
	snprintf(pidarg, size, "%d", (int)child);
	/* Its comm is set just after: wait for it (up to 30 s on a loaded machine). */
	char path[64], comm[32] = "";
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)child);
	for (int tries = 0; tries < 3000 && strncmp(comm, "ev\x1b", 3) != 0; tries++) {
		FILE *f = fopen(path, "re");
		size_t n = f ? fread(comm, 1, sizeof(comm) - 1, f) : 0;
		comm[n] = '\0';
		if (f)
			fclose(f);
		if (strncmp(comm, "ev\x1b", 3) != 0)
			usleep(10000);
	}
	cr_assert(strncmp(comm, "ev\x1b", 3) == 0, "the workload never took its comm");
	return in;
}

/* stat --per-thread names a thread by its whole comm (a newline in it too), escaped. */
Test(hostile_names, stat_per_thread_shows_whole_comm, .fini = stop_loaders)
{
	char pidarg[16];
	FILE *in = start_hostile(pidarg, sizeof(pidarg));
	struct th_output r = th_perfev("stat", "-e", "task-clock", "--per-thread", "-p", pidarg,
				       "--", "sleep", "0.3");

	cr_assert_eq(r.status, 0, "stat: %s", r.err);
	th_expect_clean_text("stat --per-thread", r.out);
	th_expect_clean_text("stat's stderr", r.err);
	cr_expect(line_with(r.err, SHOWN_COMM, "task-clock", NULL) ||
			  line_with(r.out, SHOWN_COMM, "task-clock", NULL),
		  "no row of the thread named " SHOWN_COMM ":\n%s%s", r.out, r.err);
	th_output_free(&r);
	fclose(in);
}

Test(hostile_names, top_stdio_escapes_names, .fini = stop_loaders)
{
	char pidarg[16];
	struct th_output r = {0};
	bool row = false;
	FILE *in = start_hostile(pidarg, sizeof(pidarg));

	/* A loaded machine may give it no CPU in one run: up to 5 runs for its row. */
	for (int i = 0; i < 5 && !row; i++) {
		th_output_free(&r);
		r = th_perfev("top", "--stdio", "-e", "cpu-clock", "-p", pidarg, "-d", "0.5", "-n",
			      "2", "-s", "comm,dso,sym", "-E", "0");
		cr_assert_eq(r.status, 0, "top: %s", r.err);
		th_expect_clean_text("top --stdio", r.out);
		th_expect_clean_text("top's stderr", r.err);
		/*
		 * Its whole comm (newline included: /proc/PID/comm holds it raw),
		 * DSO and symbol on the row of their numbers (the kernel writes the
		 * newline of its path as \012 in /proc/PID/maps: read back, the file
		 * is found and its symbols read).
		 */
		row = line_with(r.out, "%", SHOWN_COMM, SHOWN_EXE, "hostile_dso_spin", NULL);
	}
	cr_expect(row, "the workload's row, whole: %s", r.out);
	th_output_free(&r);
	fclose(in);
}

Test(hostile_names, script_escapes_tracepoint_strings)
{
	const char *exe = hostile_copy();
	struct th_output r;
	char *out;

	if (!th_tracefs())
		th_skip("tracefs cannot be mounted here");
	/* sched_switch's payload holds the comm of the task switched out. */
	r = th_perfev("record", "-e", "sched:sched_switch", "-o", th_path_in("t.data"), "--", exe,
		      "50");
	cr_assert_eq(r.status, 0, "record: %s", r.err);
	note_pid(r.out);
	th_output_free(&r);
	out = run_ok("script", "-i", th_path_in("t.data"));
	th_expect_clean_text("script of sched_switch", out);
	cr_expect(line_with(out, "sched:sched_switch:", "prev_comm=" SHOWN_COMM " prev_pid=", NULL),
		  "the payload's comm, escaped: %.3000s", out);
	free(out);
	remove_map();
}

/* ---- round two: paths with a newline in /proc/PID/maps ------------------------------------ */

/* Copies the built hostile_lib to DIR/sub/libhostile.so (sub made); out gets that path. */
static void lib_copy(const char *sub, char *out, size_t size)
{
	const char *src = th_test_program("libhostile_lib.so");
	char dir[PATH_MAX - 32], buf[65536];
	int in, fd;
	ssize_t n;

	snprintf(dir, sizeof(dir), "%s", th_path_in(sub));
	cr_assert(mkdir(dir, 0755) == 0 || errno == EEXIST, "mkdir: %s", strerror(errno));
	snprintf(out, size, "%s/libhostile.so", dir);
	cr_assert_geq(in = open(src, O_RDONLY | O_CLOEXEC), 0, "%s: %s", src, strerror(errno));
	cr_assert_geq(fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755), 0, "%s",
		      strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		cr_assert_eq(write(fd, buf, (size_t)n), n);
	cr_assert_eq(n, 0);
	close(in);
	cr_assert_eq(close(fd), 0);
}

/*
 * Starts hostile_dlopen on lib and waits for its line (the library is
 * mapped then); returns its pid, and the address of hostile_lib_spin in it.
 */
static pid_t start_loader(const char *lib, uint64_t *spin)
{
	const char *prog = th_test_program("hostile_dlopen");
	char line[128] = "";
	unsigned long long addr = 0;
	int pid = 0, fds[2];
	size_t slot;
	FILE *in;

	for (slot = 0; slot < sizeof(loaders) / sizeof(loaders[0]) && loaders[slot]; slot++)
		;
	cr_assert_lt(slot, sizeof(loaders) / sizeof(loaders[0]));
	cr_assert_eq(pipe2(fds, O_CLOEXEC), 0);
	pid_t child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		dup2(fds[1], STDOUT_FILENO);
		execl(prog, prog, lib, (char *)NULL);
		_exit(127);
	}
	loaders[slot] = child;
	close(fds[1]);
	cr_assert_not_null(in = fdopen(fds[0], "r"));
	cr_assert_not_null(fgets(line, sizeof(line), in), "hostile_dlopen did not start");
	fclose(in);
	cr_assert_eq(sscanf(line, "pid %d spin %llx", &pid, &addr), 2, "its line: %s", line);
	cr_assert_eq(pid, child);
	*spin = addr;
	return child;
}

/* The symbolizer reads the process: the address is hostile_lib_spin in file want. */
static void expect_resolved(pid_t pid, uint64_t addr, const char *want)
{
	struct pev_symbols *s = NULL;
	struct pev_symbol sym = PEV_SYMBOL_INIT;
	struct pev_error err;

	cr_assert_eq(pev_symbols_new(NULL, &s, &err), 0, "%s", err.message);
	cr_assert_eq(pev_symbols_read_process(s, pid, &err), 0, "%s", err.message);
	cr_assert_eq(pev_symbols_resolve(s, pid, addr, &sym), 0);
	cr_expect_eq(sym.status, PEV_SYMBOL_OK, "status %d for %s", (int)sym.status, want);
	cr_expect_str_eq(sym.name ? sym.name : "(null)", "hostile_lib_spin");
	cr_expect_str_eq(sym.dso ? sym.dso : "(null)", want);
	pev_symbols_free(s);
}

Test(hostile_names, maps_newline_path_resolves, .fini = stop_loaders)
{
	char nl[PATH_MAX], text[PATH_MAX], twin_nl[PATH_MAX], twin_text[PATH_MAX];
	char name[PATH_MAX], out[PATH_MAX];
	uint64_t a;
	pid_t p;

	/* A newline in the directory's name: written \012 by the kernel. */
	lib_copy("lib\nnl", nl, sizeof(nl));
	p = start_loader(nl, &a);
	expect_resolved(p, a, nl);

	/* The text \012 in the name: written as it is; no newline in the path. */
	lib_copy("lib\\012text", text, sizeof(text));
	p = start_loader(text, &a);
	expect_resolved(p, a, text);

	/* Both exist: the maps line's inode says which one is mapped. */
	lib_copy("twin\nx", twin_nl, sizeof(twin_nl));
	lib_copy("twin\\012x", twin_text, sizeof(twin_text));
	p = start_loader(twin_text, &a);
	expect_resolved(p, a, twin_text);
	p = start_loader(twin_nl, &a);
	expect_resolved(p, a, twin_nl);

	/* The lookup on its own: with no inode, the newline reading first when both exist. */
	snprintf(name, sizeof(name), "%s", th_path_in("twin\\012x/libhostile.so"));
	cr_expect_eq(pev_maps_name_lookup(name, 0, NULL, out, sizeof(out)), strlen(twin_nl));
	cr_expect_str_eq(out, twin_nl);
	snprintf(name, sizeof(name), "%s", th_path_in("lib\\012text/libhostile.so"));
	pev_maps_name_lookup(name, 0, NULL, out, sizeof(out));
	cr_expect_str_eq(out, text, "only the name's own text exists");
	cr_expect_eq(pev_maps_name_lookup("/gone\\012/x (deleted)", 0, "/", out, sizeof(out)), 18);
	cr_expect_str_eq(out, "/gone\n/x (deleted)", "nothing exists: the newline reading");
	cr_expect_eq(pev_maps_name_lookup("/plain\\011", 7, NULL, out, 4), 10);
	cr_expect_str_eq(out, "/pl", "cut short as snprintf");
}

/* The sum of the percentages that start the lines of text holding needle. */
static double percent_sum(const char *text, const char *needle)
{
	double sum = 0;

	for (const char *l = text; (l = line_with(l, "%", needle, NULL));) {
		sum += strtod(l, NULL);
		l = strchr(l, '\n');
		if (!l)
			break;
	}
	return sum;
}

Test(hostile_names, record_p_names_library_in_newline_dir, .fini = stop_loaders)
{
	char nl[PATH_MAX], text[PATH_MAX], pids[64], data[PATH_MAX], cmd[PATH_MAX + 128];
	struct th_output r;
	uint64_t a;
	char *out, *perf_out = NULL, *perf_err = NULL;

	snprintf(data, sizeof(data), "%s", th_path_in("p.data"));
	lib_copy("rec\nnl", nl, sizeof(nl));
	lib_copy("rec\\012text", text, sizeof(text));
	pid_t p1 = start_loader(nl, &a), p2 = start_loader(text, &a);
	snprintf(pids, sizeof(pids), "%d,%d", (int)p1, (int)p2);
	r = th_perfev("record", "-e", "cpu-clock", "-F", "1000", "-p", pids, "-o", data, "--",
		      "sleep", "1");
	cr_assert_eq(r.status, 0, "record: %s", r.err);
	th_output_free(&r);
	/*
	 * Recorded: the loaders go now, before th_need_perf may skip (Criterion
	 * 2.4 runs no .fini after a skip: they would spin on, holding meson's
	 * stderr).
	 */
	stop_loaders();

	/* Each library by its full path (the newline escaped) with its function. */
	out = run_ok("report", "-i", data, "--stdio", "--sort", "dso,sym", "-v");
	th_expect_clean_text("report -v", out);
	cr_expect(line_with(out, "%", "rec\\x0anl/libhostile.so", "hostile_lib_spin", NULL),
		  "the library in the directory with a newline: %s", out);
	cr_expect(line_with(out, "%", "rec\\012text/libhostile.so", "hostile_lib_spin", NULL),
		  "the library in the directory named \\012: %s", out);
	free(out);
	out = run_ok("report", "-i", data, "--stdio", "--sort", "sym");
	/* perfev keeps the two files' functions apart, perf 6.1 sums them under one name. */
	double ours = percent_sum(out, "[.] hostile_lib_spin");
	cr_expect_gt(ours, 0, "%s", out);
	cr_expect_null(strstr(out, "[.] 0x"), "an unresolved address in the library: %s", out);
	free(out);

	/* perf reads the synthesized MMAP2 records (the path with its newline) to the same name. */
	th_need_perf();
	snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio --sort sym 2>&1", data);
	cr_assert_eq(th_sh(cmd, &perf_out, &perf_err), 0, "perf report: %s", perf_out);
	double perfs = percent_sum(perf_out, "[.] hostile_lib_spin");
	cr_expect_gt(perfs, 0, "perf does not name the function: %s", perf_out);
	cr_expect_lt(ours - perfs < 0 ? perfs - ours : ours - perfs, 0.05,
		     "perfev %.2f%%, perf %.2f%% for hostile_lib_spin", ours, perfs);
	free(perf_out);
	free(perf_err);
}

/* The table of p written with filters (flags added to the options) into a string (caller frees). */
static char *filtered_table(const struct pev_profile *p, unsigned flags, const char *comms,
			    const char *dsos, const char *symbols)
{
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	o.sort = "comm,dso,sym";
	o.flags = flags | PEV_REPORT_NO_HEADER;
	o.comms = comms;
	o.dsos = dsos;
	o.symbols = symbols;
	cr_assert_eq(pev_profile_write_table(p, f, &o, NULL), 0);
	fclose(f);
	return text;
}

Test(hostile_names, filters_match_names_as_shown)
{
	struct pev_profile *p = NULL;
	struct pev_profile_event ev = PEV_PROFILE_EVENT_INIT;
	struct pev_profile_frame bad = {.address = 0x1000, .symbol = "f<int, int>",
					.dso = "/x/a,b\x1b[7m.so"};
	struct pev_profile_frame good = {.address = 0x2000, .symbol = "g", .dso = "/x/good.so"};
	struct pev_profile_sample s = PEV_PROFILE_SAMPLE_INIT;
	char *t;

	cr_assert_eq(pev_profile_new(&p), 0);
	ev.name = "cpu-clock";
	cr_assert_eq(pev_profile_add_event(p, &ev), 0);
	s.period = 10;
	s.comm = "c\n\xff";
	s.frames = &bad;
	s.nr_frames = 1;
	cr_assert_eq(pev_profile_add_sample(p, &s), 0);
	s.comm = "plain";
	s.frames = &good;
	cr_assert_eq(pev_profile_add_sample(p, &s), 0);

	/* As shown: one name each (its commas included), the other entry left out. */
	t = filtered_table(p, PEV_REPORT_FILTER_SHOWN, NULL, "a,b\\x1b[7m.so", NULL);
	cr_expect(strstr(t, "f<int, int>") && !strstr(t, "[.] g"), "%s", t);
	free(t);
	t = filtered_table(p, PEV_REPORT_FILTER_SHOWN, NULL, NULL, "f<int, int>");
	cr_expect(strstr(t, "f<int, int>") && !strstr(t, "[.] g"), "%s", t);
	free(t);
	t = filtered_table(p, PEV_REPORT_FILTER_SHOWN, "c\\x0a\\xff", NULL, NULL);
	cr_expect(strstr(t, "f<int, int>") && !strstr(t, "[.] g"), "%s", t);
	free(t);
	/* The raw name is not what the table shows: nothing passes. */
	t = filtered_table(p, PEV_REPORT_FILTER_SHOWN, "c\n\xff", NULL, NULL);
	cr_expect(!strstr(t, "f<int, int>") && !strstr(t, "[.] g"), "%s", t);
	free(t);
	/* Without the flag, a list: the commas split the names. */
	t = filtered_table(p, 0, NULL, NULL, "f<int, int>");
	cr_expect(!strstr(t, "f<int, int>"), "%s", t);
	free(t);
	t = filtered_table(p, 0, NULL, "good.so,other", NULL);
	cr_expect(strstr(t, "[.] g") && !strstr(t, "f<int"), "%s", t);
	free(t);
	pev_profile_free(p);
}

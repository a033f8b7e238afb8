/* SPDX-License-Identifier: MIT */
/*
 * test_cmd_top.c - `perfev top` on report_work, whose hot functions are
 * known (report_work_a .. _d in the proportions 4:3:2:1).
 *
 * In a real terminal (a tmux pane on a private server, read back with
 * capture-pane): the hottest function is at the head of the table (among
 * the first two rows: a and b, 40% and 30%, may swap in a short interval
 * on a loaded machine),
 * p pauses (the table stops changing) and resumes, s changes the sort
 * keys, d zooms into the selected entry's DSO and out, a resize redraws
 * at the new size, q and SIGTERM end it with the terminal's settings as
 * they were; d and t zoom into a DSO and a command whose names hold ESC, a
 * newline and a byte that is not UTF-8 (hostile_dlopen), and keep their rows. Plain mode (--stdio, or any output that is no terminal):
 * one table per interval with -n, --sort, --percent-limit, -g, -z, -t, -a,
 * several events; the target's exit ends top. Bad options and targets fail
 * with a message that says what to do.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

static pid_t work_pid; /* the workload, killed at the end of each test */

static void fini(void)
{
	if (work_pid > 0) {
		kill(work_pid, SIGKILL);
		waitpid(work_pid, NULL, 0);
		work_pid = 0;
	}
}

TestSuite(cmd_top, .fini = fini, .timeout = 60);

/* Starts report_work burning ms of CPU time; returns its pid (killed by fini). */
/*
 * Starts report_work and returns once it runs its own program: top -p
 * attached during the exec would read the test's maps from /proc while the
 * exec's MMAP2 records come before its events are on (a CI run showed every
 * user sample as [unknown]).
 */
static pid_t start_work(const char *ms)
{
	const char *prog = th_test_program("report_work");
	char path[64], comm[32] = "";
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execl(prog, prog, ms, (char *)NULL);
		_exit(127);
	}
	work_pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	for (int i = 0; i < 10000 && strcmp(comm, "report_work\n") != 0; i++) {
		FILE *f = fopen(path, "re");
		if (f) {
			if (!fgets(comm, sizeof(comm), f))
				comm[0] = '\0';
			fclose(f);
		}
		if (strcmp(comm, "report_work\n") != 0)
			usleep(1000);
	}
	cr_assert_str_eq(comm, "report_work\n", "report_work did not start");
	return pid;
}

static char *itoa_pid(pid_t pid)
{
	static char buf[4][16];
	static int at;
	char *b = buf[at++ % 4];

	snprintf(b, 16, "%d", (int)pid);
	return b;
}

/* The entry rows of a table (lines that start with spaces and a percentage), in order. */
static int table_rows(const char *text, char rows[][256], int max)
{
	int n = 0;

	for (const char *line = text; line && *line && n < max;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		size_t sp = strspn(line, " ");
		if (sp > 0 && sp < len && line[sp] >= '0' && line[sp] <= '9' &&
		    memchr(line, '%', len)) {
			snprintf(rows[n], 256, "%.*s", (int)len, line);
			n++;
		}
		line = end ? end + 1 : NULL;
	}
	return n;
}

/* ---- plain mode --------------------------------------------------------------- */

Test(cmd_top, stdio_tables_show_hottest)
{
	pid_t w = start_work("60000");
	struct th_output r =
	    th_perfev("top", "--stdio", "-d", "0.5", "-n", "2", "-p", itoa_pid(w), "-F", "1000");
	char rows[64][256];

	cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
	/* Two tables, each with its title and the workload's functions. */
	const char *second = strstr(strstr(r.out, "PerfevTop:") + 1, "PerfevTop:");
	cr_assert(second, "one table only:\n%s", r.out);
	cr_assert(strstr(second, "# Overhead  Shared Object"), "%s", r.out);
	cr_assert(strstr(r.out, "# Event 'cpu-clock'") || strstr(r.out, "# Event 'cycles'"),
	          "%s", r.out);
	int n = table_rows(second, rows, 64);
	cr_assert_geq(n, 4, "%s", r.out);
	/* 4:3:2:1: a leads d by far whatever the load (a and b are near enough to swap
	 * in a short, loaded interval). */
	double a = -1, d = -1;
	for (int i = 0; i < n; i++) {
		if (strstr(rows[i], "[.] report_work_a") && strstr(rows[i], "report_work "))
			a = strtod(rows[i], NULL);
		if (strstr(rows[i], "[.] report_work_d"))
			d = strtod(rows[i], NULL);
	}
	cr_assert(a > 0 && d > 0, "report_work_a or _d missing:\n%s", second);
	cr_assert_gt(a, d, "report_work_a below report_work_d:\n%s", second);
	cr_assert(strstr(rows[0], "[.] report_work_a") || strstr(rows[1], "[.] report_work_a"),
	          "report_work_a not among the first two:\n%s", second);
	th_output_free(&r);
}

/* Standard output that is no terminal gets the plain tables without --stdio. */
Test(cmd_top, pipe_means_stdio)
{
	pid_t w = start_work("60000");
	struct th_output r = th_perfev("top", "-d", "0.3", "-n", "1", "-p", itoa_pid(w));

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "PerfevTop:") && strstr(r.out, "report_work_a"), "%s", r.out);
	cr_assert_null(strchr(r.out, '\033'), "escape sequences in plain output:\n%s", r.out);
	th_output_free(&r);
}

Test(cmd_top, sort_and_percent_limit)
{
	pid_t w = start_work("60000");
	struct th_output r = th_perfev("top", "--stdio", "-d", "0.5", "-n", "1", "-p", itoa_pid(w),
	                               "--sort", "pid,sym", "--percent-limit", "15");
	char rows[64][256], want[64];

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "Pid:Command") && strstr(r.out, "Symbol"), "%s", r.out);
	cr_assert_null(strstr(r.out, "Shared Object"), "%s", r.out);
	int n = table_rows(r.out, rows, 64);
	cr_assert_geq(n, 1, "%s", r.out);
	snprintf(want, sizeof(want), "%d:report_work", (int)w);
	for (int i = 0; i < n; i++) {
		cr_assert_geq(strtod(rows[i], NULL), 15.0, "a row under the limit:\n%s", r.out);
		cr_assert(strstr(rows[i], want), "%s", r.out);
	}
	cr_assert(strstr(r.out, "report_work_a"), "%s", r.out);
	th_output_free(&r);
}

Test(cmd_top, callgraph_and_zero)
{
	pid_t w = start_work("60000");
	struct th_output r = th_perfev("top", "--stdio", "-g", "-z", "-d", "0.5", "-n", "1", "-t",
	                               itoa_pid(w));

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "per interval"), "%s", r.out);
	cr_assert(strstr(r.out, "---report_work_a"), "no call graph:\n%s", r.out);
	cr_assert(strstr(r.out, "main"), "no caller:\n%s", r.out);
	th_output_free(&r);
}

Test(cmd_top, all_cpus_two_events)
{
	start_work("60000");
	/* -E 0: every entry, as the workload's may be far down on a busy machine. */
	struct th_output r = th_perfev("top", "--stdio", "-a", "-e", "cpu-clock,task-clock", "-d",
	                               "1", "-n", "1", "--sort", "comm,dso,sym", "-E", "0");

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "# Event 'cpu-clock'"), "%s", r.out);
	cr_assert(strstr(r.out, "# Event 'task-clock'"), "%s", r.out);
	cr_assert(strstr(r.out, "report_work_a"), "%s", r.out);
	th_output_free(&r);
}

/* Plain tables show as many entries as perf top's window: $LINES less 5, or -E. */
Test(cmd_top, entries_as_the_window_has_lines)
{
	pid_t w = start_work("60000");
	char rows[64][256];

	setenv("LINES", "8", 1);
	setenv("COLUMNS", "80", 1);
	struct th_output r = th_perfev("top", "--stdio", "-a", "-d", "0.5", "-n", "1");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(table_rows(r.out, rows, 64), 3, "LINES=8: 3 entries:\n%s", r.out);
	th_output_free(&r);
	unsetenv("LINES");
	r = th_perfev("top", "--stdio", "-a", "-d", "0.5", "-n", "1", "-E", "2");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(table_rows(r.out, rows, 64), 2, "-E 2:\n%s", r.out);
	th_output_free(&r);
	r = th_perfev("top", "--stdio", "-d", "0.5", "-n", "1", "-p", itoa_pid(w), "-E", "0");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_geq(table_rows(r.out, rows, 64), 4, "-E 0, every entry:\n%s", r.out);
	th_output_free(&r);
}

/* A target that exits ends top, which says so. */
/*
 * A process row is named by the process's name now, as report names it by
 * its last: a process that burns CPU as "prework" and then runs report_work
 * is one row, PID:report_work, not the name of its first sample.
 */
Test(cmd_top, process_rows_named_after_exec)
{
	const char *prog = th_test_program("report_work");
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct timespec t0, now;
		volatile unsigned long sink = 0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			/* each rename is a COMM record once top has attached */
			prctl(PR_SET_NAME, "prework");
			for (int i = 0; i < 1000000; i++)
				sink += (unsigned long)i;
			clock_gettime(CLOCK_MONOTONIC, &now);
		} while ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 < 1200);
		if (sink == 1) /* never: the loop's sum is used */
			_exit(1);
		execl(prog, prog, "60000", (char *)NULL);
		_exit(127);
	}
	work_pid = pid;
	struct th_output r = th_perfev("top", "--stdio", "-d", "2.5", "-n", "1", "-p", itoa_pid(pid),
	                               "--sort", "pid");
	char rows[64][256], want[64];

	cr_assert_eq(r.status, 0, "%s", r.err);
	int n = table_rows(r.out, rows, 64);
	cr_assert_eq(n, 1, "one process, one row:\n%s", r.out);
	snprintf(want, sizeof(want), "%d:report_work", (int)pid);
	cr_expect(strstr(rows[0], want), "want %s:\n%s", want, r.out);
	th_output_free(&r);
}

Test(cmd_top, target_exit_ends_top)
{
	pid_t w = start_work("300");
	struct th_output r = th_perfev("top", "--stdio", "-d", "0.2", "-p", itoa_pid(w));

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.err, "the target exited"), "%s", r.err);
	th_output_free(&r);
}

/* ---- errors ------------------------------------------------------------------- */

static void fails_with(const char *want, const char *a, const char *b, const char *c,
                       const char *d)
{
	struct th_output r = th_perfev("top", "--stdio", "-n", "1", a, b, c, d);

	cr_assert_neq(r.status, 0, "'%s %s %s %s' succeeded", a, b, c ? c : "", d ? d : "");
	cr_assert(strstr(r.err, want), "'%s %s': want '%s' in:\n%s", a, b, want, r.err);
	th_output_free(&r);
}

Test(cmd_top, bad_options)
{
	fails_with("option '-p' needs existing processes", "-p", "999999999", NULL, NULL);
	fails_with("option '-p' needs a comma-separated list of process ids", "-p", "abc", NULL,
	           NULL);
	fails_with("option '-t' needs existing threads", "-t", "999999999", NULL, NULL);
	fails_with("option '-d' needs seconds", "-d", "0", NULL, NULL);
	fails_with("option '-d' needs seconds", "-d", "soon", NULL, NULL);
	fails_with("option '--percent-limit' needs a percentage", "--percent-limit", "200", NULL,
	           NULL);
	fails_with("option '--sort'", "--sort", "bogus", NULL, NULL);
	fails_with("options '-F' and '-c' cannot be used together", "-F", "100", "-c", "1000");
	fails_with("options '-p' and '-t' cannot be used together", "-p", "1", "-t", "1");
	fails_with("takes one process", "-p", "1,1", NULL, NULL);
	fails_with("takes no command", "sleep", "1", NULL, NULL);
	fails_with("no-such-event", "-e", "no-such-event", NULL, NULL);
	fails_with("option '-n' needs", "-n", "0", NULL, NULL);
	fails_with("usage: perfev top", "--bogus", NULL, NULL, NULL);
}

/* ---- the terminal (tmux) -------------------------------------------------------- */

static char tmux_socket[64];

static void tmux_kill(void)
{
	char cmd[128];

	if (!tmux_socket[0])
		return;
	snprintf(cmd, sizeof(cmd), "tmux -L %s kill-server >/dev/null 2>&1", tmux_socket);
	if (system(cmd) != 0) {
		/* already gone */
	}
	tmux_socket[0] = '\0';
}

static void tui_fini(void)
{
	tmux_kill();
	fini();
}

/* The pane's text now (malloc'ed). */
static char *pane(void)
{
	char cmd[128], *out = NULL, *err = NULL;

	snprintf(cmd, sizeof(cmd), "tmux -L %s capture-pane -p", tmux_socket);
	th_sh(cmd, &out, &err);
	free(err);
	return out ? out : strdup("");
}

static void keys(const char *k)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "tmux -L %s send-keys %s", tmux_socket, k);
	free(th_sh_ok(cmd));
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/*
 * How long a wait for something top must do may last: it ends as soon as
 * the thing is seen, and only a top that never does it waits this long
 * (a loaded machine can hold a redraw back for seconds).
 */
#define PATIENCE_MS 30000

/* Waits for the pane to hold text (or, with absent, to lack it), PATIENCE_MS at most; returns the pane. */
static char *wait_pane(const char *text, bool absent)
{
	for (int waited = 0;; waited += 100) {
		char *p = pane();
		if ((strstr(p, text) != NULL) != absent || waited >= PATIENCE_MS)
			return p;
		free(p);
		sleep_ms(100);
	}
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char buf[4096];
	size_t n;

	if (!f)
		return strdup("");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strdup(buf);
}

/*
 * Starts `perfev top ARGS` in a 120x30 pane of a private tmux server,
 * inside a shell that saves the terminal's settings (stty -g) before and
 * after, writes perfev's pid and prints "top-exit=STATUS" once it ends
 * (the $ escaped from the shell that starts tmux).
 * Skips when tmux cannot start.
 */
/*
 * Skips a test without tmux. Before the test starts its workload: Criterion
 * 2.4 runs no .fini after a skip, and a workload left running holds meson's
 * pipes open (the arm64 guest, without tmux, waited out cmd_top's 50 minutes).
 */
static void need_tmux(void)
{
	if (!th_have_program("tmux"))
		th_skip("tmux is not installed (scripts/install-deps.sh installs it)");
}

static const char *start_tui(const char *args)
{
	const char *dir = th_temp_dir("top");
	char script[2048], cmd[2600], *out = NULL, *err = NULL;

	need_tmux();
	snprintf(tmux_socket, sizeof(tmux_socket), "perfev-top-test-%d", (int)getpid());
	snprintf(script, sizeof(script),
	         "stty -g > %s/before; sh -c 'echo \\$\\$ > %s/pid; exec %s top %s'; "
	         "echo top-exit=\\$?; stty -g > %s/after; sleep 60",
	         dir, dir, th_perfev_bin(), args, dir);
	snprintf(cmd, sizeof(cmd),
	         "tmux -L %s -f /dev/null new-session -d -x 120 -y 30 \"%s\" 2>&1", tmux_socket,
	         script);
	int st = th_sh(cmd, &out, &err);
	if (st != 0) {
		char why[256];
		snprintf(why, sizeof(why), "tmux cannot start a server: %s", out ? out : "");
		free(out);
		free(err);
		tmux_kill();
		fini(); /* the workload: no .fini runs after a skip */
		th_skip("%s", why);
	}
	free(out);
	free(err);
	return dir;
}

/* After top ended: its status line, and the terminal's settings as before it. */
static void expect_restored(const char *dir)
{
	char *p = wait_pane("top-exit=", false);
	cr_assert(strstr(p, "top-exit=0"), "top did not end well:\n%s", p);
	free(p);
	char path[512], *after = NULL;
	/* The file exists before stty has written its line: wait for the line. */
	snprintf(path, sizeof(path), "%s/after", dir);
	for (int waited = 0; waited < PATIENCE_MS; waited += 100) {
		free(after);
		after = read_file(path);
		if (strchr(after, '\n'))
			break;
		sleep_ms(100);
	}
	char *before = read_file(strcat(strcpy(path, dir), "/before"));
	cr_assert(before[0], "no terminal settings saved");
	cr_assert(strchr(after, '\n'), "stty wrote no settings after top in %d ms", PATIENCE_MS);
	cr_assert_str_eq(before, after, "the terminal was not restored:\nbefore: %safter:  %s",
	                 before, after);
	free(before);
	free(after);
}

/* The last line of text with something on it. */
static const char *last_line(const char *text)
{
	const char *last = text;

	for (const char *c = text; *c; c++)
		if (*c == '\n' && c[1])
			last = c + 1;
	return last;
}

/* The entry rows in the pane. */
static int pane_rows(char rows[][256], int max)
{
	char *p = pane();
	int n = table_rows(p, rows, max);
	free(p);
	return n;
}

Test(cmd_top, tmux_keys, .fini = tui_fini)
{
	need_tmux();
	pid_t w = start_work("60000");
	char args[64], rows[64][256], again[64][256];

	snprintf(args, sizeof(args), "-p %d", (int)w);
	const char *dir = start_tui(args);

	/* The hottest function heads the table (the first refresh is at 1 s). */
	char *p = wait_pane("report_work_a", false);
	cr_assert(strstr(p, "report_work_a"), "no report_work_a after %d ms:\n%s", PATIENCE_MS, p);
	cr_assert(strstr(p, "perfev top:") && strstr(p, "sort dso,sym"), "%s", p);
	free(p);
	int n = pane_rows(rows, 64);
	cr_assert_geq(n, 2);
	cr_assert(strstr(rows[0], "report_work_a") || strstr(rows[1], "report_work_a"),
	          "report_work_a not among the first two rows:\n%s\n%s", rows[0], rows[1]);

	/* p: paused, the table stays as it is across refreshes; p again resumes. */
	keys("p");
	free(wait_pane("[paused]", false));
	n = pane_rows(rows, 64);
	sleep_ms(2500);
	p = pane();
	cr_assert(strstr(p, "[paused]"), "%s", p);
	free(p);
	cr_assert_eq(pane_rows(again, 64), n);
	for (int i = 0; i < n; i++)
		cr_assert_str_eq(rows[i], again[i], "the table changed while paused");
	keys("p");
	p = wait_pane("[paused]", true);
	cr_assert_null(strstr(p, "[paused]"), "%s", p);
	free(p);

	/* d: into the selected entry's DSO (report_work): no kernel rows, no DSO column. */
	keys("d");
	p = wait_pane("DSO: report_work", false);
	cr_assert(strstr(p, "DSO: report_work"), "%s", p);
	free(p);
	sleep_ms(1200); /* a refresh inside the zoom */
	n = pane_rows(rows, 64);
	cr_assert_geq(n, 1);
	for (int i = 0; i < n; i++)
		cr_assert_null(strstr(rows[i], "[k]"), "a kernel row in the zoom: %s", rows[i]);
	p = pane();
	cr_assert_null(strstr(p, "Shared Object"), "%s", p);
	free(p);
	keys("d");
	free(wait_pane("DSO: report_work", true));

	/* s: the next sort (sym alone): no Shared Object column. */
	keys("s");
	p = wait_pane("sort sym", false);
	cr_assert(strstr(p, "sort sym"), "%s", p);
	cr_assert(strstr(p, "Overhead  Symbol"), "%s", p);
	cr_assert_null(strstr(p, "Shared Object"), "%s", p);
	free(p);

	/* A smaller window: the key bar moves to its last line. */
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "tmux -L %s resize-window -x 100 -y 15", tmux_socket);
	free(th_sh_ok(cmd));
	p = NULL;
	for (int waited = 0; waited < PATIENCE_MS; waited += 100) {
		free(p);
		p = pane();
		if (strstr(last_line(p), "q quit"))
			break;
		sleep_ms(100);
	}
	cr_assert(strstr(last_line(p), "q quit"), "key bar not on the last line:\n%s", p);
	free(p);

	/* q: top ends, the terminal as it was. */
	keys("q");
	expect_restored(dir);
}

Test(cmd_top, tmux_sigterm_restores, .fini = tui_fini)
{
	need_tmux();
	pid_t w = start_work("60000");
	char args[64], path[512];

	snprintf(args, sizeof(args), "-g -d 0.5 -t %d", (int)w);
	const char *dir = start_tui(args);
	char *p = wait_pane("report_work_a", false);
	cr_assert(strstr(p, "report_work_a"), "%s", p);
	free(p);
	/* -g: the selected (first) entry's call graph, its caller under it. */
	p = wait_pane("main", false);
	cr_assert(strstr(p, "---report_work_a") && strstr(p, "main"), "%s", p);
	free(p);
	snprintf(path, sizeof(path), "%s/pid", dir);
	char *pid = read_file(path);
	cr_assert_gt(atoi(pid), 0);
	cr_assert_eq(kill(atoi(pid), SIGTERM), 0);
	free(pid);
	expect_restored(dir);
}

/* ---- zooms into hostile names (issue 22) --------------------------------------------------- */

/*
 * Copies the built hostile_lib to a file whose base name holds ESC, an
 * escape sequence and a newline, starts hostile_dlopen on it (its comm is
 * hostile too) and waits for its line; returns its pid (killed by fini).
 */
static pid_t start_hostile_loader(void)
{
	const char *src = th_test_program("libhostile_lib.so");
	const char *prog = th_test_program("hostile_dlopen");
	char *lib = th_path_join(th_temp_dir("topdso"), "lib\x1b[7mhot\nx.so");
	char line[128] = "", *bytes;
	size_t len;
	int fds[2];
	FILE *in, *out;

	bytes = th_slurp(src, &len);
	cr_assert_not_null(out = fopen(lib, "we"), "%s", strerror(errno));
	cr_assert_eq(fwrite(bytes, 1, len, out), len);
	cr_assert_eq(fclose(out), 0);
	free(bytes);
	cr_assert_eq(pipe2(fds, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		execl(prog, prog, lib, (char *)NULL);
		_exit(127);
	}
	work_pid = pid;
	close(fds[1]);
	cr_assert_not_null(in = fdopen(fds[0], "r"));
	cr_assert_not_null(fgets(line, sizeof(line), in), "hostile_dlopen did not start");
	fclose(in);
	free(lib);
	return pid;
}

/* Waits for the pane to show header and, in its first entry row, row_text; returns the pane. */
static char *wait_first_row(const char *header, const char *row_text)
{
	char rows[64][256];

	for (int waited = 0;; waited += 100) {
		char *p = pane();
		int n = table_rows(p, rows, 64);
		if ((strstr(p, header) && n > 0 && strstr(rows[0], row_text)) ||
		    waited >= PATIENCE_MS)
			return p;
		free(p);
		sleep_ms(100);
	}
}

Test(cmd_top, tmux_zoom_into_hostile_names, .fini = tui_fini)
{
	need_tmux();
	pid_t w = start_hostile_loader();
	char args[64], rows[64][256], *p;

	snprintf(args, sizeof(args), "-p %d", (int)w);
	const char *dir = start_tui(args);

	/* The library's function heads the table, its DSO escaped. */
	p = wait_first_row("sort dso,sym", "hostile_lib_spin");
	cr_assert(strstr(p, "lib\\x1b[7mhot\\x0ax.so"), "no hostile_lib_spin row:\n%s", p);
	free(p);

	/* d: into its DSO: the header names it escaped, the row stays. */
	keys("d");
	p = wait_first_row("DSO: lib\\x1b[7mhot\\x0ax.so", "hostile_lib_spin");
	cr_assert(strstr(p, "DSO: lib\\x1b[7mhot\\x0ax.so"), "no zoom in the header:\n%s", p);
	cr_assert_gt(table_rows(p, rows, 64), 0, "the zoom into the DSO shows nothing:\n%s", p);
	free(p);
	keys("d");
	free(wait_pane("DSO: lib", true));

	/* t, sorted by comm: into the command, whose name is hostile too. */
	keys("s");
	free(wait_pane("sort sym", false));
	keys("s");
	p = wait_first_row("sort comm,dso,sym", "hostile_lib_spin");
	cr_assert(strstr(p, "dl\\x1b[7m\\x0ax\\xff"), "no row of the command:\n%s", p);
	free(p);
	keys("t");
	p = wait_first_row("command: dl\\x1b[7m\\x0ax\\xff", "hostile_lib_spin");
	cr_assert(strstr(p, "command: dl\\x1b[7m\\x0ax\\xff"), "no zoom in the header:\n%s", p);
	cr_assert_gt(table_rows(p, rows, 64), 0, "the zoom into the command shows nothing:\n%s",
	             p);
	free(p);

	keys("q");
	expect_restored(dir);
}

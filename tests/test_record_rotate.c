/* SPDX-License-Identifier: MIT */
/*
 * test_record_rotate.c - `perfev record --rotate SECONDS -o DIR/`: one
 * complete file per window (perf.data or pprof), each readable alone with
 * its symbols, nothing half-written under a final name even when the
 * recorder is killed, and memory that stays flat window after window.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

extern char **environ;

/* The files of dir: windows (perfev-*) and dot files, counted; names of the windows sorted. */
struct listing {
	char *names[4096];
	int n;
	int hidden;
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_dir(const char *dir, struct listing *l)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	memset(l, 0, sizeof(*l));
	cr_assert(d, "no directory %s", dir);
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (de->d_name[0] == '.')
			l->hidden++;
		else if (l->n < 4096)
			l->names[l->n++] = th_path_join(dir, de->d_name);
	}
	closedir(d);
	qsort(l->names, (size_t)l->n, sizeof(char *), cmp_name);
}

static void free_listing(struct listing *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->names[i]);
	l->n = 0;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);
	return a >= b && strcmp(s + a - b, tail) == 0;
}

/*
 * Expects path to be a whole perf.data; returns whether its samples name
 * the workload's functions. A window may have none: on a loaded machine
 * the workload can go without the CPU for a whole window (and a last
 * window may hold only its exit), so the callers ask for them in most
 * windows, not in each.
 */
static bool expect_complete_recording(const char *path)
{
	struct th_output o = th_perfev("report", "-i", path, "--no-children", "--sort", "sym",
				       "-g", "none");
	bool hot = strstr(o.out, "[.] report_work_") != NULL;
	bool empty = strstr(o.err, "has no samples") != NULL;

	cr_expect_eq(o.status, 0, "perfev report %s: %s", path, o.err);
	cr_expect(!strstr(o.err, "unfinished") && (empty || !strstr(o.err, "warning")), "%s: %s",
		  path, o.err);
	th_output_free(&o);
	return hot;
}

/* Starts perfev with args (NULL-terminated) in the background; its output to /dev/null. */
static pid_t start_perfev(const char *const *args)
{
	const char *argv[64] = {th_perfev_bin()};
	int n = 1;
	pid_t pid;
	posix_spawn_file_actions_t fa;

	for (; *args && n < 62; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	cr_assert_eq(posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

/*
 * Waits until dir holds at least n windows, up to 30 s plus half a second a
 * window (an emulated machine writes a window in a few tenths of a second),
 * times th_time_scale(); returns how many it holds (0 when they did not come).
 */
static int wait_windows(const char *dir, int n)
{
	struct listing l;

	for (int i = 0; i < (3000 + 50 * n) * th_time_scale(); i++) {
		if (access(dir, F_OK) != 0) { /* perfev has not made it yet */
			usleep(10 * 1000);
			continue;
		}
		list_dir(dir, &l);
		int have = l.n;
		free_listing(&l);
		if (have >= n)
			return have;
		usleep(10 * 1000);
	}
	return 0;
}

TestSuite(record_rotate, .timeout = 180);

Test(record_rotate, each_window_is_a_whole_file_with_its_symbols)
{
	const char *dir = th_temp_dir("rotate");
	char *out = th_path_join(dir, "windows/");
	struct listing l;

	struct th_output o = th_perfev("record", "--rotate", "0.3", "-o", out, "-g", "--",
				       th_test_program("report_work"), "1200");
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_expect(strstr(o.err, " windows of 0.3 s into "), "%s", o.err);
	th_output_free(&o);
	list_dir(out, &l);
	/* 1.2 s of CPU in 0.3 s windows: several windows, all complete, no dot file left. */
	cr_expect_geq(l.n, 3, "only %d windows", l.n);
	cr_expect_eq(l.hidden, 0, "a temporary window was left behind");
	int hot = 0, last_hot = -1;
	for (int i = 0; i < l.n; i++) {
		cr_expect(ends_with(l.names[i], ".data") && strstr(l.names[i], "/perfev-"),
			  "%s", l.names[i]);
		/* The later windows too: their tasks' mappings are made again from /proc. */
		if (expect_complete_recording(l.names[i])) {
			hot++;
			last_hot = i;
		}
	}
	/* 1.2 s of CPU: the workload ran in two windows at least, and was named there. */
	cr_expect_geq(hot, 2, "the workload's functions in %d of %d windows", hot, l.n);
	cr_expect_gt(last_hot, 0, "only the first window names the workload");
	/* perf reads them as well: the last window that perfev saw the workload in. */
	if (th_have_program("perf") && last_hot > 0) {
		char cmd[4096];
		snprintf(cmd, sizeof(cmd), "perf report --stdio -i '%s' --sort sym 2>&1",
			 l.names[last_hot]);
		char *text = th_sh_ok(cmd);
		cr_expect(strstr(text, "[.] report_work_"), "perf report of a window:\n%s", text);
		free(text);
	}
	free_listing(&l);
	free(out);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * python3 -c PROFILE_CHECK FILE START END prints whether the profile names
 * report_work_a, has a "samples" type, and carries a time in [START, END]
 * and a duration shorter than the whole run's, a window's (its top-level
 * varint fields 9 and 10; a slow machine stretches windows past a second).
 */
#define PROFILE_CHECK                                                                              \
	"import gzip,sys\n"                                                                        \
	"d=gzip.open(sys.argv[1]).read(); f={}; i=0\n"                                             \
	"def v():\n"                                                                               \
	"  global i; x=s=0\n"                                                                      \
	"  while True:\n"                                                                          \
	"    b=d[i]; i+=1; x|=(b&127)<<s; s+=7\n"                                                  \
	"    if b<128: return x\n"                                                                 \
	"while i<len(d):\n"                                                                        \
	"  k=v(); t=k&7\n"                                                                         \
	"  if t==0: f[k>>3]=v()\n"                                                                 \
	"  elif t==2: n=v(); i+=n\n"                                                               \
	"  elif t==1: i+=8\n"                                                                      \
	"  else: i+=4\n"                                                                           \
	"a=float(sys.argv[2]); z=float(sys.argv[3])\n"                                            \
	"ok=a<=f.get(9,0)<=z and 0<f.get(10,0)<z-a\n"                                               \
	"print(b\"report_work_a\" in d, b\"samples\" in d, ok)"

Test(record_rotate, pprof_windows)
{
	const char *dir = th_temp_dir("rotate");
	char *out = th_path_join(dir, "pprof");
	struct listing l;

	double start = now_ns();
	struct th_output o = th_perfev("record", "-q", "--rotate", "0.4", "--format", "pprof", "-o",
				       out, "-g", "--", th_test_program("report_work"), "1000");
	double end = now_ns();
	cr_assert_eq(o.status, 0, "%s", o.err);
	th_output_free(&o);
	list_dir(out, &l);
	cr_expect_geq(l.n, 2, "only %d windows", l.n);
	cr_expect_eq(l.hidden, 0, "a temporary window was left behind");
	int hot = 0;
	for (int i = 0; i < l.n; i++) {
		char cmd[4096];
		cr_expect(ends_with(l.names[i], ".pb.gz"), "%s", l.names[i]);
		/*
		 * gzip around a profile.proto whose string table names the hot
		 * functions, with the window's time (time_nanos, field 9: in the
		 * run; duration_nanos, field 10: under a second).
		 */
		snprintf(cmd, sizeof(cmd),
			 "python3 -c '%s' '%s' %.0f %.0f", PROFILE_CHECK, l.names[i], start,
			 end);
		char *text = th_sh_ok(cmd);
		/*
		 * Every window is a profile of its time; the workload may miss
		 * a window on a loaded machine (the last may hold only its exit).
		 */
		cr_expect(strstr(text, " True True\n"), "%s: %s", l.names[i], text);
		hot += strncmp(text, "True ", 5) == 0;
		free(text);
	}
	cr_expect_geq(hot, 1, "no window names report_work_a (%d windows)", l.n);
	free_listing(&l);
	free(out);
}

Test(record_rotate, a_killed_recorder_loses_only_its_current_window)
{
	const char *dir = th_temp_dir("rotate");
	char *out = th_path_join(dir, "killed");
	const char *args[] = {"record", "-q", "--rotate", "0.2", "-o", out, "-g", "--",
			      th_test_program("report_work"), "20000", NULL};
	struct listing l;

	pid_t pid = start_perfev(args);
	cr_assert_geq(wait_windows(out, 3), 3, "fewer than 3 windows in 30 s");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* The workload was perfev's child: it ends when perfev dies (its death signal). */
	list_dir(out, &l);
	cr_expect_leq(l.hidden, 1, "more than the current window unfinished");
	int hot = 0;
	for (int i = 0; i < l.n; i++)
		hot += expect_complete_recording(l.names[i]);
	cr_expect_geq(hot, 1, "no window names the workload (%d windows)", l.n);
	free_listing(&l);
	free(out);
}

Test(record_rotate, memory_stays_flat_window_after_window)
{
	th_no_quarantine();
	const char *dir = th_temp_dir("rotate");
	char *out = th_path_join(dir, "flat");
	const char *args[] = {"record", "-q", "--rotate", "0.1", "-o", out, "-g", "--",
			      th_test_program("report_work"), "60000", NULL};

	/*
	 * 200 windows of 0.1 s: what 200 s of 1-second windows would do to
	 * memory (the tables are rebuilt at every window, whatever its length).
	 * Under emulation (the arm64 lab) a window takes seconds to write: 80
	 * there, within the same bound.
	 */
	int last = getenv("PERFEV_LAB") ? 80 : 200;
	pid_t pid = start_perfev(args);
	cr_assert_geq(wait_windows(out, 20), 20);
	long before = th_rss_kib(pid);
	cr_assert_geq(wait_windows(out, last), last);
	long after = th_rss_kib(pid);
	kill(pid, SIGTERM);
	int status;
	waitpid(pid, &status, 0);
	cr_expect(before > 0 && after - before < 256,
		  "VmRSS %ld KiB at 20 windows, %ld KiB at %d", before, after, last);
	free(out);
}

Test(record_rotate, option_errors)
{
	const char *dir = th_temp_dir("rotate");
	char *file = th_path_join(dir, "file");
	FILE *f = fopen(file, "w");
	fclose(f);

	struct th_output o = th_perfev("record", "--rotate", "1", "true");
	cr_expect_eq(o.status, 129);
	cr_expect(strstr(o.err, "option '--rotate' needs a directory for its files: -o DIR/"), "%s",
		  o.err);
	th_output_free(&o);
	o = th_perfev("record", "--rotate", "0", "-o", dir, "true");
	cr_expect_eq(o.status, 129);
	cr_expect(strstr(o.err, "a number of seconds from 0.1 to 86400, got '0'"), "%s", o.err);
	th_output_free(&o);
	o = th_perfev("record", "--format", "pprof", "-o", dir, "true");
	cr_expect_eq(o.status, 129);
	cr_expect(strstr(o.err, "option '--format' names the files of --rotate"), "%s", o.err);
	th_output_free(&o);
	o = th_perfev("record", "--rotate", "1", "--format", "svg", "-o", dir, "true");
	cr_expect_eq(o.status, 129);
	th_output_free(&o);
	o = th_perfev("record", "--rotate", "1", "-o", "-", "true");
	cr_expect_eq(o.status, 129);
	cr_expect(strstr(o.err, "options '--rotate' and '-o -' cannot be used together"), "%s",
		  o.err);
	th_output_free(&o);
	o = th_perfev("record", "--rotate", "1", "-o", file, "true");
	cr_expect_eq(o.status, 1);
	cr_expect(strstr(o.err, "is not a directory"), "%s", o.err);
	th_output_free(&o);
	free(file);
}

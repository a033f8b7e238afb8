/* SPDX-License-Identifier: MIT */
/*
 * test_pipe.c - pipe mode (`perfev record -o -`), with Debian's perf as the
 * oracle. One recording is written twice, as a file by `perfev record` and
 * as a pipe-mode stream by perfev's writer from the same records, so that
 * the two can be compared line for line: perf report and perf script read
 * the stream through a pipe as they read the file, and so do perfev report
 * and perfev script (from standard input, with no -i). `record -o -` feeds
 * perf and perfev through a real pipe, perf's own pipe output feeds perfev,
 * and a recorder killed mid-stream leaves a stream that reads as unfinished
 * (a warning, exit status 2). Tests that need perf skip when it is missing.
 */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

/* Runs cmd, which must exit 0 without a word on stderr; returns its output. */
static char *sh_quiet_ok(const char *cmd)
{
	char *out, *err;
	int rc = th_sh(cmd, &out, &err);

	cr_assert_eq(rc, 0, "%s: exit %d: %s", cmd, rc, err);
	cr_expect_str_empty(err, "%s wrote on stderr: %s", cmd, err);
	free(err);
	return out;
}

/* Records page-faults, one sample per fault, of the spin workload into path. */
static void record_file(const char *path)
{
	char cmd[PATH_MAX * 2 + 128];

	snprintf(cmd, sizeof(cmd), "'%s' record -q -e page-faults -c 1 -o '%s' -- '%s' 50",
		 th_perfev_bin(), path, th_test_program("perfdata_spin"));
	free(sh_quiet_ok(cmd));
}

/*
 * Writes the recording at file again as a pipe-mode stream at stream, with
 * perfev's writer: the same events and ids, records, build ids and command
 * line.
 */
static void convert_to_pipe(const char *file, const char *stream)
{
	struct pev_perfdata *pd = NULL;
	struct pev_perfdata_writer *w = NULL;
	struct pev_perfdata_record r;
	struct pev_error err;
	int rc;

	cr_assert_eq(pev_perfdata_open(file, 0, &pd, &err), 0, "%s", err.message);
	int fd = open(stream, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pev_perfdata_writer_open_fd(fd, PEV_PERFDATA_WRITER_PIPE, &w, &err), 0, "%s",
		     err.message);
	for (int i = 0; i < pev_perfdata_nr_events(pd); i++) {
		const struct pev_perfdata_event *ev = pev_perfdata_event(pd, i);
		cr_assert_geq(pev_perfdata_writer_add_event(w, &ev->attr, ev->name, ev->ids,
							    ev->nr_ids, &err),
			      0, "%s", err.message);
	}
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	for (size_t i = 0; i < f->nr_build_ids; i++)
		cr_assert_eq(pev_perfdata_writer_add_build_id(
				 w, f->build_ids[i].pid, f->build_ids[i].cpumode,
				 f->build_ids[i].build_id, f->build_ids[i].size,
				 f->build_ids[i].filename),
			     0);
	while ((rc = pev_perfdata_next(pd, &r, &err)) == 1) {
		if (r.type == PEV_RECORD_FINISHED_ROUND)
			rc = pev_perfdata_writer_round(w, &err);
		else if (r.type < PEV_RECORD_USER_TYPE_START || r.type == PEV_RECORD_FINISHED_INIT)
			rc = pev_perfdata_writer_write(w, r.header, r.size, &err);
		else
			continue;
		cr_assert_eq(rc, 0, "%s", err.message);
	}
	cr_assert_eq(rc, 0, "%s", err.message);
	cr_assert_eq(pev_perfdata_writer_finish(w, &err), 0, "%s", err.message);
	pev_perfdata_writer_close(w);
	close(fd);
	pev_perfdata_close(pd);
}

/* Output of `tool ARGS -i file` and of `cat stream | tool ARGS -i -` (or no -i). */
static void both(const char *tool, const char *args, const char *file, const char *stream,
		 bool no_i, char **from_file, char **from_pipe)
{
	char cmd[PATH_MAX * 2 + 512];

	snprintf(cmd, sizeof(cmd), "%s %s -i '%s'", tool, args, file);
	*from_file = sh_quiet_ok(cmd);
	snprintf(cmd, sizeof(cmd), "cat '%s' | %s %s%s", stream, tool, args, no_i ? "" : " -i -");
	*from_pipe = sh_quiet_ok(cmd);
}

/* Drops perf's comment lines ("# ..."): the header differs in pipe mode. */
static void drop_comments(char *text)
{
	char *to = text;

	for (char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		size_t next = len + (line[len] == '\n');
		if (line[0] != '#') {
			memmove(to, line, next);
			to += next;
		}
		line += next;
	}
	*to = '\0';
}

static void expect_same(const char *what, const char *file_out, const char *pipe_out)
{
	cr_expect_gt(strlen(file_out), 100, "%s printed little: %s", what, file_out);
	cr_expect_str_eq(pipe_out, file_out, "%s of the pipe differs from that of the file", what);
}

Test(pipe, perf_reads_the_stream_as_the_file, .init = th_leak_init, .fini = th_leak_fini)
{
	th_need_perf();
	const char *dir = th_temp_dir("pipe_perf");
	char *file = th_path_join(dir, "f.data"), *stream = th_path_join(dir, "p.data");
	char *a, *b, perfev[PATH_MAX];

	record_file(file);
	convert_to_pipe(file, stream);

	both("perf report", "--stdio --sort comm,dso,sym", file, stream, false, &a, &b);
	drop_comments(a);
	drop_comments(b);
	expect_same("perf report", a, b);
	free(a);
	free(b);
	both("perf script", "", file, stream, false, &a, &b);
	expect_same("perf script", a, b);
	free(a);
	free(b);
	both("perf script", "-F comm,tid,event,period,ip,sym,dso", file, stream, false, &a, &b);
	expect_same("perf script -F", a, b);
	free(a);
	free(b);

	/* perfev's own commands, reading standard input when it is a pipe. */
	snprintf(perfev, sizeof(perfev), "'%s' report", th_perfev_bin());
	both(perfev, "", file, stream, true, &a, &b);
	expect_same("perfev report", a, b);
	free(a);
	free(b);
	snprintf(perfev, sizeof(perfev), "'%s' script", th_perfev_bin());
	both(perfev, "", file, stream, true, &a, &b);
	expect_same("perfev script", a, b);
	free(a);
	free(b);
	free(stream);
	free(file);
}

Test(pipe, stream_has_perfs_records_in_perfs_order, .init = th_leak_init, .fini = th_leak_fini)
{
	const char *dir = th_temp_dir("pipe_order");
	char *file = th_path_join(dir, "f.data"), *stream = th_path_join(dir, "p.data");
	struct pev_perfdata *pd = NULL;
	struct pev_perfdata_record r;
	struct pev_error err;
	unsigned long attrs = 0, features = 0, build_ids = 0, kernel = 0;
	uint32_t last = 0;
	int rc;

	record_file(file);
	convert_to_pipe(file, stream);
	cr_assert_eq(pev_perfdata_open(stream, 0, &pd, &err), 0, "%s", err.message);
	cr_expect(pev_perfdata_pipe_mode(pd));
	while ((rc = pev_perfdata_next(pd, &r, &err)) == 1) {
		if (r.type == PEV_RECORD_HEADER_ATTR) {
			cr_expect_eq(features + kernel, 0, "HEADER_ATTR after other records");
			attrs++;
		} else if (r.type == PEV_RECORD_HEADER_FEATURE) {
			cr_expect_eq(kernel, 0, "HEADER_FEATURE after the kernel's records");
			features++;
		} else if (r.type == PEV_RECORD_HEADER_BUILD_ID) {
			build_ids++;
		} else if (r.type < PEV_RECORD_USER_TYPE_START) {
			kernel++;
		}
		last = r.type;
	}
	cr_assert_eq(rc, 0, "%s", err.message);
	cr_expect_eq(attrs, 1);
	cr_expect_gt(features, 5, "host name, OS release, CPUs, command line, events ...");
	cr_expect_gt(build_ids, 0, "the hit binaries' build ids");
	cr_expect_gt(kernel, 10);
	cr_expect_eq(last, PEV_RECORD_FINISHED_ROUND, "a finished stream ends with a round");
	cr_expect_not(pev_perfdata_unfinished(pd));
	cr_expect_eq(pev_perfdata_nr_notes(pd), 0, "note: %s", pev_perfdata_note(pd, 0));
	cr_expect_str_eq(pev_perfdata_event(pd, 0)->name, "page-faults");
	cr_expect_not_null(pev_perfdata_features(pd)->hostname, "HOSTNAME from its record");
	pev_perfdata_close(pd);
	free(stream);
	free(file);
}

/* `perfev record -o -` into a pipe, read by perf and by perfev on the other end. */
Test(pipe, record_to_standard_output_feeds_perf_and_perfev, .init = th_leak_init,
     .fini = th_leak_fini)
{
	th_need_perf();
	const char *spin = th_test_program("perfdata_spin");
	char cmd[PATH_MAX * 2 + 256], *out;

	snprintf(cmd, sizeof(cmd),
		 "'%s' record -q -o - -e cpu-clock -F 2000 -g -- '%s' 300 | perf report -i - "
		 "--stdio --no-children --sort sym",
		 th_perfev_bin(), spin);
	out = sh_quiet_ok(cmd);
	expect_has(out, "perfdata_spin_hot");
	free(out);
	snprintf(cmd, sizeof(cmd),
		 "'%s' record -q -o - -e cpu-clock -F 2000 -- '%s' 100 | perf script -i -",
		 th_perfev_bin(), spin);
	out = sh_quiet_ok(cmd);
	expect_has(out, "perfdata_spin_hot");
	free(out);
	snprintf(cmd, sizeof(cmd),
		 "'%s' record -q -o - -e cpu-clock -F 2000 -- '%s' 100 | '%s' report -i - --sort sym",
		 th_perfev_bin(), spin, th_perfev_bin());
	out = sh_quiet_ok(cmd);
	expect_has(out, "perfdata_spin_hot");
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' record -q -o - -e cpu-clock -F 2000 -- '%s' 100 | '%s' script",
		 th_perfev_bin(), spin, th_perfev_bin());
	out = sh_quiet_ok(cmd);
	expect_has(out, "perfdata_spin_hot");
	free(out);

	/* The command's output goes to standard error, not into the stream. */
	char *err;
	snprintf(cmd, sizeof(cmd), "'%s' record -q -o - -e page-faults -- echo from-the-command | "
		 "'%s' script > /dev/null", th_perfev_bin(), th_perfev_bin());
	cr_assert_eq(th_sh(cmd, &out, &err), 0, "%s", err);
	expect_has(err, "from-the-command");
	free(out);
	free(err);
}

/* perf's own pipe output, read by perfev. */
Test(pipe, perfs_stream_feeds_perfev, .init = th_leak_init, .fini = th_leak_fini)
{
	th_need_perf();
	const char *spin = th_test_program("perfdata_spin");
	char cmd[PATH_MAX * 2 + 256], *out;

	snprintf(cmd, sizeof(cmd),
		 "perf record -q -o - -e cpu-clock -F 2000 -- '%s' 200 2>/dev/null | '%s' report "
		 "--sort sym",
		 spin, th_perfev_bin());
	out = sh_quiet_ok(cmd);
	expect_has(out, "perfdata_spin_hot");
	free(out);
	snprintf(cmd, sizeof(cmd),
		 "perf record -q -o - -e cpu-clock -F 2000 -- '%s' 100 2>/dev/null | '%s' script",
		 spin, th_perfev_bin());
	out = sh_quiet_ok(cmd);
	expect_has(out, "perfdata_spin_hot");
	free(out);
}

/* The stream's size, once it has grown past min bytes (or the recorder ended). */
static off_t wait_for_bytes(const char *path, pid_t recorder, off_t min)
{
	struct stat st = {0};

	for (;;) {
		if (stat(path, &st) == 0 && st.st_size >= min)
			return st.st_size;
		if (waitpid(recorder, NULL, WNOHANG) == recorder)
			return -1;
		struct timespec ms5 = {0, 5000000};
		nanosleep(&ms5, NULL);
	}
}

Test(pipe, a_killed_recorder_leaves_an_unfinished_stream, .init = th_leak_init,
     .fini = th_leak_fini)
{
	const char *dir = th_temp_dir("pipe_killed");
	char *stream = th_path_join(dir, "p.data"), cmd[PATH_MAX * 2 + 256];
	const char *spin = th_test_program("perfdata_spin");

	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd = open(stream, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(fd, 1);
		dup2(null, 2);
		execl(th_perfev_bin(), th_perfev_bin(), "record", "-q", "-o", "-", "-e",
		      "cpu-clock", "-F", "4000", "-g", "--", spin, "60000", (char *)NULL);
		_exit(127);
	}
	/* The writer sends 256 KiB at a time: killed once some went out. */
	off_t size = wait_for_bytes(stream, pid, 64 << 10);
	cr_assert_gt(size, 0, "perfev record ended before writing 64 KiB");
	cr_assert_eq(kill(pid, SIGKILL), 0);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);

	const char *cmds[] = {"report", "script"};
	for (int i = 0; i < 2; i++) {
		char *out, *err;
		snprintf(cmd, sizeof(cmd), "cat '%s' | '%s' %s", stream, th_perfev_bin(), cmds[i]);
		int rc = th_sh(cmd, &out, &err);
		cr_expect_eq(rc, 2, "%s: exit %d: %s", cmds[i], rc, err);
		expect_has(err, "is unfinished: the stream ends without its last round");
		cr_expect_gt(strlen(out), 0, "%s printed nothing of what was there", cmds[i]);
		free(out);
		free(err);
	}
	free(stream);
}

Test(pipe, writer_refuses_no_descriptor_and_takes_any_other)
{
	struct pev_perfdata_writer *w = NULL;
	struct pev_error err;
	int fds[2];

	cr_expect_eq(pev_perfdata_writer_open_fd(-1, PEV_PERFDATA_WRITER_PIPE, &w, &err),
		     PEV_EBADARG);
	cr_expect_null(w);
	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(pev_perfdata_writer_open_fd(fds[1], PEV_PERFDATA_WRITER_PIPE, &w, &err), 0,
		     "%s", err.message);
	cr_assert_eq(pev_perfdata_writer_finish(w, &err), 0, "%s", err.message);
	pev_perfdata_writer_close(w);
	close(fds[1]);
	unsigned char buf[64];
	cr_assert_geq(read(fds[0], buf, sizeof(buf)), 16);
	cr_expect_eq(memcmp(buf, "PERFILE2", 8), 0);
	uint64_t size;
	memcpy(&size, buf + 8, 8);
	cr_expect_eq(size, 16);
	close(fds[0]);
}

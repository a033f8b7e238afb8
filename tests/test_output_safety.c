/* SPDX-License-Identifier: MIT */
/*
 * test_output_safety.c - where perfev writes: an output (-o) that is a
 * FIFO never blocks it, a link is followed only to perfev's own outputs or
 * /dev/null-like devices, nothing another user planted in a sticky shared
 * directory is written, --rotate's temporaries cannot be hijacked, and a
 * killed rotating recorder's windows are recovered by the next one.
 *
 * Every perfev run here is bounded (run_bounded: a hung perfev is killed
 * and the test fails), never timed. "Another user" is uid 65534 (nobody):
 * the planted entries are chown'ed to it, as root.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

#define NOBODY  65534
#define BOUND_S 90 /* what any perfev run here may take before it counts as hung */

/* How a bounded run ended. */
struct run {
	int status; /* exit status; -1 when killed by a signal, -2 when it hung (killed) */
	char *out, *err;
};

/* Reads a whole file into a malloc'ed string ("" when missing). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *s = NULL;
	size_t n = 0;

	if (!f)
		return strdup("");
	FILE *m = open_memstream(&s, &n);
	int c;
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return s;
}

/*
 * Runs perfev with args (NULL-terminated) in dir's shadow files, its
 * stdout and stderr kept; before it starts, ready(pid, ctx) runs with the
 * pid it will have (perfev is exec'ed in the forked child only then). Waits
 * for it at most BOUND_S seconds (SIGCHLD, no polling); a perfev still
 * running then is killed and reported as hung.
 */
static struct run run_bounded(const char *dir, const char *const *args,
                              void (*ready)(pid_t pid, void *ctx), void *ctx)
{
	const char *argv[64] = {th_perfev_bin()};
	char *out = th_path_join(dir, ".run-out"), *err = th_path_join(dir, ".run-err");
	struct run r = {.status = -1};
	sigset_t chld, old;
	int go[2];
	int n = 1;

	for (; *args && n < 62; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char c;
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		int in = open("/dev/null", O_RDONLY);
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(127);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(go[0]);
	if (ready)
		ready(pid, ctx);
	cr_assert_eq(write(go[1], "g", 1), 1);
	close(go[1]);

	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += BOUND_S;
	int status = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		struct timespec now, left;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = deadline.tv_sec - now.tv_sec;
		left.tv_nsec = deadline.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0 || (sigtimedwait(&chld, NULL, &left) < 0 && errno == EAGAIN)) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			r.status = -2;
			break;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (r.status != -2)
		r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	r.out = slurp(out);
	r.err = slurp(err);
	unlink(out);
	unlink(err);
	free(out);
	free(err);
	return r;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

/* A sticky directory writable by all (as /tmp) in the test's directory. */
static char *sticky_dir(const char *name)
{
	char *d = th_path_join(th_temp_dir("outsafe"), name);

	cr_assert_eq(mkdir(d, 0755), 0, "%s: %s", d, strerror(errno));
	cr_assert_eq(chmod(d, 01777), 0);
	return d;
}

/* A small recording to report on, made once per test in dir. */
static char *small_recording(const char *dir)
{
	char *f = th_path_join(dir, "in.data");
	const char *args[] = {"record", "-q", "-e", "cpu-clock",
	                      "-o",     f,    "--", th_test_program("report_work"),
	                      "50",     NULL};
	struct run r = run_bounded(dir, args, NULL, NULL);

	cr_assert_eq(r.status, 0, "record: %d %s", r.status, r.err);
	run_free(&r);
	return f;
}

/* Runs perfev report -i in -o out, bounded. */
static struct run report_to(const char *dir, const char *in, const char *out)
{
	const char *args[] = {"report", "-q", "-i", in, "--sort", "sym", "-o", out, NULL};

	return run_bounded(dir, args, NULL, NULL);
}

/* Makes a FIFO at path owned by owner. */
static void make_fifo(const char *path, uid_t owner)
{
	cr_assert_eq(mkfifo(path, 0666), 0, "mkfifo %s: %s", path, strerror(errno));
	cr_assert_eq(chown(path, owner, owner), 0);
}

TestSuite(output_safety, .timeout = 300);

/* report -o FIFO with no reader: an error naming the FIFO at once, never a wait. */
Test(output_safety, report_to_a_fifo_nobody_reads_fails_at_once)
{
	const char *dir = th_temp_dir("outsafe");
	char *in = small_recording(dir), *fifo = th_path_join(dir, "fifo");

	make_fifo(fifo, 0);
	struct run r = report_to(dir, in, fifo);
	cr_expect_neq(r.status, -2, "report -o FIFO hung (killed after %d s)", BOUND_S);
	cr_expect_eq(r.status, 1, "%s", r.err);
	expect_has(r.err, "nothing reads the FIFO");
	expect_has(r.err, fifo);
	run_free(&r);

	/* With a reader, the report goes into it (a FIFO the user names is an output). */
	int rd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	cr_assert_geq(rd, 0);
	r = report_to(dir, in, fifo);
	cr_expect_eq(r.status, 0, "%d %s", r.status, r.err);
	char buf[4096];
	ssize_t n = read(rd, buf, sizeof(buf) - 1);
	cr_expect_gt(n, 0, "nothing came through the FIFO");
	close(rd);
	run_free(&r);
	free(in);
	free(fifo);
}

/*
 * -o LINK: followed to /dev/null and to perfev's own standard output, never
 * to another character device (/dev/random stands for a terminal or
 * /dev/kmsg), nor to a regular file.
 */
Test(output_safety, report_links_followed_only_to_own_outputs)
{
	const char *dir = th_temp_dir("outsafe");
	char *in = small_recording(dir);
	char *to_null = th_path_join(dir, "to-null"), *to_dev = th_path_join(dir, "to-random");
	char other[PATH_MAX];

	cr_assert_eq(symlink("/dev/null", to_null), 0);
	cr_assert_eq(symlink("/dev/random", to_dev), 0);
	struct run r = report_to(dir, in, to_null);
	cr_expect_eq(r.status, 0, "a link to /dev/null: %s", r.err);
	run_free(&r);

	r = report_to(dir, in, "/dev/stdout");
	cr_expect_eq(r.status, 0, "/dev/stdout: %s", r.err);
	expect_has(r.out, "report_work");
	run_free(&r);

	r = report_to(dir, in, to_dev);
	cr_expect_eq(r.status, 1, "a link to /dev/random was written through: %s", r.err);
	expect_has(r.err, "is a symbolic link to a character device");
	expect_has(r.err, to_dev);
	run_free(&r);

	r = report_to(dir, in, "/dev/random");
	cr_expect_eq(r.status, 1, "/dev/random was written: %s", r.err);
	expect_has(r.err, "is a character device that is not perfev's own terminal");
	run_free(&r);

	const char *link = th_link_to_keep(dir, "to-file", other, sizeof(other));
	r = report_to(dir, in, link);
	cr_expect_eq(r.status, 1, "%s", r.err);
	expect_has(r.err, "is a symbolic link");
	th_expect_kept(other);
	run_free(&r);
	free(in);
	free(to_null);
	free(to_dev);
}

/*
 * In a sticky directory writable by all, what another user put there is
 * never written: a file of theirs (it would hand them the report), their
 * link (even to /dev/null), their FIFO (read by them).
 */
Test(output_safety, nothing_planted_in_a_sticky_directory_is_written)
{
	th_require_root();
	const char *dir = th_temp_dir("outsafe");
	char *in = small_recording(dir), *shared = sticky_dir("shared");
	char *file = th_path_join(shared, "report.txt"), *link = th_path_join(shared, "link");
	char *fifo = th_path_join(shared, "fifo"), *data = th_path_join(shared, "perf.data");
	struct stat st;

	FILE *f = fopen(file, "we");
	cr_assert(f);
	fputs("keep\n", f);
	fclose(f);
	cr_assert_eq(chown(file, NOBODY, NOBODY), 0);
	cr_assert_eq(symlink("/dev/null", link), 0);
	cr_assert_eq(lchown(link, NOBODY, NOBODY), 0);
	make_fifo(fifo, NOBODY);
	int rd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* the planter reads */
	cr_assert_geq(rd, 0);

	const char *targets[] = {file, link, fifo};
	for (int i = 0; i < 3; i++) {
		struct run r = report_to(dir, in, targets[i]);
		cr_expect_eq(r.status, 1, "%s was written: %s", targets[i], r.err);
		expect_has(r.err, "of user 65534 in the shared directory");
		expect_has(r.err, targets[i]);
		run_free(&r);
	}
	th_expect_kept(file);
	char buf[64];
	cr_expect_leq(read(rd, buf, sizeof(buf)), 0, "the planted FIFO was handed the report");
	close(rd);

	/* record -o the planted file: refused as well, the file as it was. */
	cr_assert_eq(rename(file, data), 0);
	const char *args[] = {"record", "-q", "-e", "cpu-clock", "-o", data, "--", "true", NULL};
	struct run r = run_bounded(dir, args, NULL, NULL);
	cr_expect_eq(r.status, 1, "%s", r.err);
	expect_has(r.err, "of user 65534 in the shared directory");
	run_free(&r);
	th_expect_kept(data);
	cr_expect_eq(lstat(data, &st), 0);
	cr_expect_eq(st.st_uid, NOBODY);
	free(in);
	free(shared);
	free(file);
	free(link);
	free(fifo);
	free(data);
}

/* ---- record --rotate ------------------------------------------------------- */

/* What a planted run of --rotate puts where perfev's temporaries were predictable. */
struct plant {
	const char *dir;
	bool link;             /* a link at the .data name too (else the FIFO alone) */
	char victim[PATH_MAX]; /* what the planted link points to */
};

/*
 * Plants, for the recorder that will have pid, what another user would
 * at the names perfev used to give its windows: a FIFO at
 * .perfev-window-PID.pb.gz (it blocked the recorder forever) and, with
 * p->link, a link to a file of theirs at .perfev-window-PID.data (it made
 * the recorder give up).
 */
static void plant_for(pid_t pid, void *ctx)
{
	struct plant *p = ctx;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/.perfev-window-%d.pb.gz", p->dir, (int)pid);
	make_fifo(path, NOBODY);
	if (!p->link)
		return;
	snprintf(path, sizeof(path), "%s/.perfev-window-%d.data", p->dir, (int)pid);
	cr_assert_eq(symlink(p->victim, path), 0);
	cr_assert_eq(lchown(path, NOBODY, NOBODY), 0);
}

/* The names in dir starting with prefix, sorted, in names (at most max); returns how many. */
static int names_in(const char *dir, const char *prefix, char **names, int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && n < max)
			names[n++] = th_path_join(dir, e->d_name);
	closedir(d);
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	return n;
}

/* Expects every window in dir to be a regular file of ours that perf (or gzip) reads whole. */
static void expect_windows_readable(const char *dir, bool pprof, int at_least)
{
	char *w[256], cmd[PATH_MAX + 128];
	int n = names_in(dir, "perfev-", w, 256);
	struct stat st;

	cr_expect_geq(n, at_least, "%d windows in %s", n, dir);
	for (int i = 0; i < n; i++) {
		cr_expect(lstat(w[i], &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		              (st.st_mode & 077) == 0,
		          "%s is not a private regular file", w[i]);
		if (pprof)
			snprintf(cmd, sizeof(cmd), "gzip -t '%s' 2>&1", w[i]);
		else
			snprintf(cmd, sizeof(cmd),
			         "perf report --stdio -i '%s' --sort sym >/dev/null 2>&1", w[i]);
		char *out = NULL, *err = NULL;
		cr_expect_eq(th_sh(cmd, &out, &err), 0, "%s: %s%s", cmd, out, err);
		free(out);
		free(err);
		free(w[i]);
	}
}

/*
 * A sticky shared directory where another user planted a FIFO and a link
 * at the names of the recorder's window files: the recorder neither blocks
 * nor writes through them, and every window is whole and private.
 */
Test(output_safety, rotate_temporaries_cannot_be_planted)
{
	th_require_root();
	th_need_perf();
	const char *formats[] = {"pprof", "perf"};

	for (int k = 0; k < 2; k++) {
		char name[32];
		snprintf(name, sizeof(name), "spool-%s", formats[k]);
		char *shared = sticky_dir(name);
		struct plant p = {.dir = shared, .link = k == 1};
		snprintf(p.victim, sizeof(p.victim), "%s/theirs", shared);
		FILE *f = fopen(p.victim, "we");
		cr_assert(f);
		fputs("keep\n", f);
		fclose(f);
		cr_assert_eq(chown(p.victim, NOBODY, NOBODY), 0);

		const char *args[] = {"record",    "-q",       "-e",
		                      "cpu-clock", "--rotate", "0.3",
		                      "--format",  formats[k], "-o",
		                      shared,      "--",       th_test_program("report_work"),
		                      "700",       NULL};
		struct run r = run_bounded(th_temp_dir("outsafe"), args, plant_for, &p);
		cr_expect_neq(r.status, -2, "%s: the recorder hung on the planted FIFO",
		              formats[k]);
		cr_expect_eq(r.status, 0, "%s: %d %s", formats[k], r.status, r.err);
		run_free(&r);
		th_expect_kept(p.victim);
		char *planted[4];
		int n = names_in(shared, ".perfev-window-", planted, 4);
		/* The planted entries, as they were; no temporary of perfev's left. */
		cr_expect_eq(n, p.link ? 2 : 1, "%s: %d dot files", formats[k], n);
		for (int i = 0; i < n; i++) {
			struct stat st;
			cr_expect(lstat(planted[i], &st) == 0 && st.st_uid == NOBODY &&
			              (S_ISFIFO(st.st_mode) || S_ISLNK(st.st_mode)),
			          "%s was replaced", planted[i]);
			free(planted[i]);
		}
		expect_windows_readable(shared, k == 0, 2);
		free(shared);
	}
}

/* The size of the first file in dir whose name starts with prefix, or 0. */
static off_t first_size(const char *dir, const char *prefix)
{
	char *w[4];
	struct stat st;
	off_t size = 0;
	int n = names_in(dir, prefix, w, 4);

	if (n > 0 && stat(w[0], &st) == 0)
		size = st.st_size;
	for (int i = 0; i < n; i++)
		free(w[i]);
	return size;
}

/* Writes text to dir/name, owned by owner. */
static void put_file(const char *dir, const char *name, const char *text, uid_t owner)
{
	char *path = th_path_join(dir, name);
	FILE *f = fopen(path, "we");

	cr_assert(f);
	fputs(text, f);
	fclose(f);
	cr_assert_eq(chown(path, owner, owner), 0);
	free(path);
}

/*
 * A rotating recorder killed with SIGKILL: the next one started in the
 * directory finishes its window as a file perf reads (*.recovered.data),
 * removes what cannot be read, leaves what is not a killed recorder's, and
 * says so.
 */
Test(output_safety, killed_rotate_windows_are_recovered_on_start)
{
	th_require_root();
	th_need_perf();
	const char *tmp = th_temp_dir("outsafe");
	char *spool = th_path_join(tmp, "spool"), name[128];
	/* -c: a fixed period, which the kernel's lowered sample-rate limit (under load) cannot
	 * refuse. */
	const char *args[] = {"record",
	                      "-q",
	                      "-e",
	                      "cpu-clock",
	                      "-c",
	                      "100000",
	                      "-g",
	                      "--rotate",
	                      "600",
	                      "-o",
	                      spool,
	                      "--",
	                      th_test_program("report_work"),
	                      "60000",
	                      NULL};
	const char *argv[64] = {th_perfev_bin()};
	int n = 1;

	for (const char *const *a = args; *a; a++)
		argv[n++] = *a;
	pid_t rec = fork();
	cr_assert_geq(rec, 0);
	if (rec == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	/*
	 * More than the writer's 256 KiB buffer on disk: records to recover,
	 * with the workload's functions among them (its user time past its
	 * system time: loading it over 9p in the arm64 lab fills a window
	 * with the kernel's samples first).
	 */
	off_t size = 0;
	long hz = sysconf(_SC_CLK_TCK);
	unsigned long utime = 0, stime = 0;
	char comm[32];
	for (int i = 0; i < 9000 * th_time_scale() &&
			(size <= 300 << 10 || utime < (unsigned long)hz / 2 || utime < stime);
	     i++) {
		usleep(10 * 1000);
		size = first_size(spool, ".perfev-window-");
		pid_t work = th_first_child(rec);
		if (!work || !th_cpu_ticks(work, comm, &utime, &stime) ||
		    strcmp(comm, "report_work") != 0)
			utime = stime = 0;
	}
	kill(rec, SIGKILL);
	waitpid(rec, NULL, 0);
	cr_assert_gt(size, 300 << 10, "the window never reached 300 KiB");
	cr_assert_geq(utime, (unsigned long)hz / 2, "the workload ran for %lu ticks", utime);

	/* Leftovers of other dead recorders, and what is no killed recorder's. */
	pid_t dead = th_reaped_pid();
	snprintf(name, sizeof(name), ".perfev-window-%d.pb.gz", (int)dead);
	put_file(spool, name, "half a gzip", 0);
	snprintf(name, sizeof(name), ".perfev-window-%d-AbCdEfGh.data", (int)dead);
	put_file(spool, name, "not a perf.data", 0);
	snprintf(name, sizeof(name), ".perfev-window-%d-theirs00.data", (int)dead);
	put_file(spool, name, "keep\n", NOBODY);
	snprintf(name, sizeof(name), ".perfev-window-%d-alive000.data", (int)getpid());
	put_file(spool, name, "keep\n", 0);

	const char *again[] = {"record", "-q",  "-e", "cpu-clock", "--rotate", "0.2",
	                       "-o",     spool, "--", "true",      NULL};
	struct run r = run_bounded(tmp, again, NULL, NULL);
	cr_expect_eq(r.status, 0, "%d %s", r.status, r.err);
	char pidtext[32];
	snprintf(pidtext, sizeof(pidtext), "recorder %d was killed", (int)rec);
	expect_has(r.err, pidtext);
	expect_has(r.err, "recovered as");
	expect_has(r.err, "removed it (nothing in it could be read)");
	expect_has(r.err, "removed it (a pprof half made");
	run_free(&r);

	char *left[8];
	int nleft = names_in(spool, ".perfev-window-", left, 8);
	cr_expect_eq(nleft, 2, "%d dot files left (the other user's and the live one's)", nleft);
	for (int i = 0; i < nleft; i++) {
		cr_expect(strstr(left[i], "-theirs00.data") || strstr(left[i], "-alive000.data"),
		          "%s was left", left[i]);
		th_expect_kept(left[i]);
		free(left[i]);
	}
	char *rec_files[4];
	int nrec = names_in(spool, "perfev-", rec_files, 4);
	int recovered = 0;
	for (int i = 0; i < nrec; i++) {
		if (!strstr(rec_files[i], ".recovered.data")) {
			free(rec_files[i]);
			continue;
		}
		recovered++;
		char cmd[PATH_MAX + 128], *out = NULL, *err = NULL;
		snprintf(cmd, sizeof(cmd), "perf report --stdio -i '%s' --sort sym -g none 2>&1",
		         rec_files[i]);
		cr_expect_eq(th_sh(cmd, &out, &err), 0, "%s: %s", cmd, out);
		expect_has(out, "[.] report_work_");
		free(out);
		free(err);
		const char *rep[] = {"report", "-i", rec_files[i], "--sort",
		                     "sym",    "-g", "none",       NULL};
		struct run o = run_bounded(tmp, rep, NULL, NULL);
		cr_expect_eq(o.status, 0, "perfev report: %d %s", o.status, o.err);
		expect_has(o.out, "[.] report_work_");
		run_free(&o);
		free(rec_files[i]);
	}
	cr_expect_eq(recovered, 1, "%d recovered windows", recovered);
	free(spool);
}

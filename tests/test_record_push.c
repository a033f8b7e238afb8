/* SPDX-License-Identifier: MIT */
/*
 * test_record_push.c - `perfev record --rotate SECS -o DIR/ --push URL`:
 * every finished window reaches the store exactly once, in order, even
 * when the store is down for a while, answers 503, hangs, or restarts; a
 * window the store refuses (400) is set aside and not sent again; the
 * queue on disk keeps its bound by dropping the oldest; windows an earlier
 * run left are sent first; Pyroscope's query (name with labels, from,
 * until, format) is percent-encoded; the option errors say what to do.
 *
 * The store is scripts/push_receiver.py, a loopback HTTP server that logs
 * every request (one JSON line) and can refuse, fail or hang on request.
 * Every wait is for an event (a file, a log line, a process's exit) with a
 * deadline of tens of seconds: nothing depends on timing luck. Each test
 * stops its receiver and perfev, and th_temp_dir removes their files.
 *
 * The URL parser and the window names are unit-tested with cli/http_client.c
 * and cli/push_queue.c compiled in.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "http_client.h"
#include "push_queue.h"

extern char **environ;

TestSuite(record_push, .init = th_leak_init, .fini = th_leak_fini, .timeout = 300);

/* ---- waiting ----------------------------------------------------------------------------- */

/* The deadline of a wait: 60 s, times th_time_scale(). */
static double deadline_in(double s)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + s * th_time_scale();
}

static bool passed(double deadline)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 > deadline;
}

/* ---- processes --------------------------------------------------------------------------- */

/* Starts argv (NULL-terminated) with stdin and stdout on /dev/null, stderr into err_path. */
static pid_t spawn(const char *const *argv, const char *err_path)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, err_path ? err_path : "/dev/null",
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_eq(posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ), 0,
		     "cannot start %s", argv[0]);
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

/* Waits for pid to exit, up to s seconds (scaled); returns its status. Fails the test on timeout. */
static int wait_exit(pid_t pid, double s)
{
	double deadline = deadline_in(s);
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return status;
		if (passed(deadline)) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			cr_assert_fail("process %d did not exit in %.0f s", (int)pid, s);
		}
		usleep(20 * 1000);
	}
}

/* Whether pid has exited (reaped into *status then). */
static bool exited(pid_t pid, int *status)
{
	return waitpid(pid, status, WNOHANG) == pid;
}

/* ---- the receiver ----------------------------------------------------------------------- */

struct receiver {
	pid_t pid;
	int port;
	char url[64];
	char *dir;    /* its files */
	char *log;    /* its log: one JSON line per request */
	char *bodies; /* the bodies it accepted, one file per window */
	char *go;     /* --down-until / --pause-after's file */
};

/* Starts scripts/push_receiver.py with the extra options (NULL-terminated) in dir/NAME. */
static void receiver_start(struct receiver *r, const char *base, const char *name,
			   const char *const *extra)
{
	const char *root = getenv("PERFEV_SOURCE_ROOT");
	char script[4096], *port_file;
	const char *argv[32];
	int n = 0;

	cr_assert(root, "PERFEV_SOURCE_ROOT is not set (run the tests through meson)");
	snprintf(script, sizeof(script), "%s/scripts/push_receiver.py", root);
	memset(r, 0, sizeof(*r));
	r->dir = th_path_join(base, name);
	cr_assert_eq(mkdir(r->dir, 0700), 0);
	r->log = th_path_join(r->dir, "log");
	r->bodies = th_path_join(r->dir, "bodies");
	r->go = th_path_join(r->dir, "go");
	port_file = th_path_join(r->dir, "port");
	cr_assert_eq(mkdir(r->bodies, 0700), 0);
	argv[n++] = "/usr/bin/python3";
	argv[n++] = script;
	argv[n++] = "--port-file";
	argv[n++] = port_file;
	argv[n++] = "--log";
	argv[n++] = r->log;
	argv[n++] = "--save-dir";
	argv[n++] = r->bodies;
	char with_go[4][4096];
	int nwith = 0;
	for (; extra && *extra && n < 30; extra++) {
		size_t len = strlen(*extra);
		if (strcmp(*extra, "GO") == 0) {
			argv[n++] = r->go;
		} else if (len > 3 && strcmp(*extra + len - 3, ":GO") == 0 && nwith < 4) {
			/* N:GO: the count, then the file */
			snprintf(with_go[nwith], sizeof(with_go[nwith]), "%.*s:%s", (int)(len - 3),
				 *extra, r->go);
			argv[n++] = with_go[nwith++];
		} else {
			argv[n++] = *extra;
		}
	}
	argv[n] = NULL;
	char *err = th_path_join(r->dir, "stderr");
	r->pid = spawn(argv, err);
	double deadline = deadline_in(60);
	while (access(port_file, F_OK) != 0) {
		int status;
		cr_assert(!exited(r->pid, &status), "the receiver exited: %s", th_slurp(err, NULL));
		cr_assert(!passed(deadline), "the receiver did not start in 60 s");
		usleep(10 * 1000);
	}
	char *text = th_slurp(port_file, NULL);
	r->port = atoi(text);
	cr_assert_gt(r->port, 0, "port file: '%s'", text);
	snprintf(r->url, sizeof(r->url), "http://127.0.0.1:%d", r->port);
	free(text);
	free(port_file);
	free(err);
}

/* Lets a receiver started with --down-until GO (or paused) listen. */
static void receiver_go(struct receiver *r)
{
	th_write_file(r->go, "");
}

/* Stops the receiver (SIGTERM) and waits for it; frees what r holds but its files. */
static void receiver_stop(struct receiver *r)
{
	if (r->pid > 0) {
		kill(r->pid, SIGTERM);
		int status = wait_exit(r->pid, 60);
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "receiver status %d",
			  status);
		r->pid = 0;
	}
	free(r->dir);
	free(r->log);
	free(r->bodies);
	free(r->go);
}

/* One request the receiver logged. */
struct request {
	char window[128];
	char status[16]; /* "200", "503", "hang" ... */
	char name[512], format[32], raw_query[2048], content_type[64];
	long long from, until;
	long size;
};

static const char *member(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return "";
	return json_object_get_string(v);
}

/* Reads the receiver's log into *out (malloc'ed); returns how many requests. */
static int read_log(const struct receiver *r, struct request **out)
{
	char *text = th_slurp(r->log, NULL);
	int n = 0, cap = 64;
	struct request *list = calloc((size_t)cap, sizeof(*list));

	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		struct json_object *o = th_json_parse(line), *q = th_json_get(o, "query");
		if (n == cap)
			list = realloc(list, (size_t)(cap *= 2) * sizeof(*list));
		struct request *e = &list[n++];
		memset(e, 0, sizeof(*e));
		snprintf(e->window, sizeof(e->window), "%s", member(o, "window"));
		snprintf(e->status, sizeof(e->status), "%s", member(o, "status"));
		snprintf(e->raw_query, sizeof(e->raw_query), "%s", member(o, "raw_query"));
		snprintf(e->content_type, sizeof(e->content_type), "%s", member(o, "content_type"));
		snprintf(e->name, sizeof(e->name), "%s", member(q, "name"));
		snprintf(e->format, sizeof(e->format), "%s", member(q, "format"));
		e->from = atoll(member(q, "from"));
		e->until = atoll(member(q, "until"));
		e->size = atol(member(o, "size"));
		json_object_put(o);
	}
	free(text);
	*out = list;
	return n;
}

/* How many requests the receiver answered 200. */
static int accepted(const struct receiver *r)
{
	struct request *list;
	int n = read_log(r, &list), ok = 0;

	for (int i = 0; i < n; i++)
		ok += strcmp(list[i].status, "200") == 0;
	free(list);
	return ok;
}

/* ---- perfev ------------------------------------------------------------------------------ */

/* Starts perfev with args (NULL-terminated), its stderr into err_path. */
static pid_t perfev_start(const char *const *args, const char *err_path)
{
	const char *argv[64] = {th_perfev_bin()};
	int n = 1;

	for (; *args && n < 62; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	return spawn(argv, err_path);
}

/* The finished windows in dir (a missing dir has none); their names sorted into names when not NULL. */
static int windows_in(const char *dir, char names[][128], int max)
{
	struct push_window *list;
	size_t n;

	if (push_queue_scan(dir, &list, &n) != 0)
		return 0;
	for (size_t i = 0; names && i < n && (int)i < max; i++)
		snprintf(names[i], 128, "%.127s", list[i].name);
	free(list);
	return (int)n;
}

/* Files in dir whose name ends with tail. */
static int files_ending(const char *dir, const char *tail)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t a = strlen(e->d_name), b = strlen(tail);
		n += a > b && strcmp(e->d_name + a - b, tail) == 0;
	}
	closedir(d);
	return n;
}

/* What the summary lines said. */
struct summary {
	long wrote, sent, retries, dropped, rejected, left;
};

static struct summary read_summary(const char *err)
{
	struct summary s = {-1, -1, -1, -1, -1, -1};
	const char *w = strstr(err, "[ perfev record: Wrote "), *p = strstr(err, "[ perfev record: pushed ");

	cr_assert(w, "no summary:\n%s", err);
	cr_assert(p, "no push summary:\n%s", err);
	cr_assert_eq(sscanf(w, "[ perfev record: Wrote %ld windows", &s.wrote), 1, "%s", err);
	cr_assert_eq(sscanf(p, "[ perfev record: pushed %ld window%*[s ]to %*s (%ld retr%*[a-z], %ld "
			       "dropped, %ld rejected), %ld left",
			    &s.sent, &s.retries, &s.dropped, &s.rejected, &s.left),
		     5, "%s", p);
	return s;
}

/* Start of a window from its name, in seconds. */
static long long window_start_s(const char *name)
{
	uint64_t ns;
	bool pprof;

	cr_assert(push_window_parse(name, &ns, &pprof), "not a window's name: '%s'", name);
	return (long long)(ns / 1000000000u);
}

/*
 * Expects the requests answered 200 to be the windows in order, each once,
 * their from/until the window's (from its name, consecutive; Pyroscope's
 * query: an OTLP request has none); returns how many.
 */
static int expect_each_window_once(const struct request *list, int n)
{
	int ok = 0;
	const struct request *prev = NULL;

	for (int i = 0; i < n; i++) {
		const struct request *e = &list[i];
		if (strcmp(e->status, "200") != 0)
			continue;
		ok++;
		for (int j = 0; j < i; j++)
			cr_expect(strcmp(list[j].status, "200") != 0 ||
				      strcmp(list[j].window, e->window) != 0,
				  "window %s accepted twice", e->window);
		if (prev)
			cr_expect_gt(strcmp(e->window, prev->window), 0, "%s sent after %s",
				     e->window, prev->window);
		if (!e->raw_query[0]) {
			prev = e;
			continue;
		}
		cr_expect_eq(e->from, window_start_s(e->window), "%s: from=%lld", e->window, e->from);
		cr_expect_gt(e->until, e->from, "%s: until=%lld from=%lld", e->window, e->until,
			     e->from);
		if (prev) {
			cr_expect_geq(e->from, prev->from, "%s", e->window);
			/* Consecutive: a window ends (rounded up) about when the next starts. */
			cr_expect_leq(prev->until, e->from + 2, "%s until %lld, %s from %lld",
				      prev->window, prev->until, e->window, e->from);
		}
		prev = e;
	}
	return ok;
}

/* Expects the body of window saved by the receiver to be a gzipped pprof that decodes. */
static void expect_pprof_body(const struct receiver *r, const char *window)
{
	char name[256];
	size_t len, raw_len;

	snprintf(name, sizeof(name), "%s.body", window);
	char *path = th_path_join(r->bodies, name);
	char *gz = th_slurp(path, &len);
	unsigned char *raw = th_gunzip(gz, len, &raw_len);
	/* profile.proto: field 1 (sample_type, a message) first, "samples" among its strings. */
	cr_expect(raw_len > 2 && raw[0] == 0x0a, "%s: not a profile.proto", path);
	cr_expect(memmem(raw, raw_len, "samples", 7), "%s: no 'samples' type", path);
	const char *pprof = getenv("PERFEV_PPROF");
	if (pprof && access(pprof, X_OK) == 0) {
		char *out = th_sh_okf("'%s' -raw '%s' 2>&1", pprof, path);
		cr_expect(strstr(out, "PeriodType:") || strstr(out, "Samples:"), "pprof -raw %s:\n%s",
			  path, out);
		free(out);
	}
	free(raw);
	free(gz);
	free(path);
}

/* A python3 loop that keeps a CPU busy for secs seconds of wall time. */
#define BUSY_LOOP(secs) "import time\nt=time.time()\nwhile time.time()-t<" secs ": pass\n"

/*
 * Expects every window of run s to be accounted for: sent, rejected,
 * dropped, or still in the directory (a loaded machine may not send them
 * all in the time the end allows). What is left is sent by one more short
 * recording into the directory (the store is up), as a user's next run
 * would: returns the windows that run wrote (0 when nothing was left).
 */
static long send_leftovers(const struct receiver *r, const char *base, const char *dir,
			   const struct summary *s, const char *const *more, const char *text)
{
	int status;

	cr_expect_eq(s->sent + s->rejected + s->dropped + s->left, s->wrote, "%s", text);
	cr_expect_eq(windows_in(dir, NULL, 0), s->left, "%s", text);
	if (s->left == 0)
		return 0;
	const char *args[48] = {"record", "--rotate", "0.5", "-o", dir, "--push", r->url};
	int n = 7;
	for (; more && *more && n < 40; more++)
		if (strcmp(*more, "--push-timeout") == 0)
			more++; /* time enough to send them all */
		else
			args[n++] = *more;
	args[n++] = "--push-timeout";
	args[n++] = "30";
	args[n++] = "--";
	args[n++] = "/bin/true";
	args[n] = NULL;
	char *err = th_path_join(base, "leftovers.err");
	pid_t pid = perfev_start(args, err);
	status = wait_exit(pid, 180);
	char *again = th_slurp(err, NULL);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", again);
	struct summary s2 = read_summary(again);
	cr_expect(strstr(again, "an earlier recording left in"), "%s", again);
	cr_expect_eq(s2.left, 0, "%s", again);
	cr_expect_eq(s2.sent, s2.wrote + s->left, "%s", again);
	free(again);
	free(err);
	return s2.wrote;
}

/* ---- the fixture ------------------------------------------------------------------------------ */

/*
 * One recording pushed to a receiver, and what came of it: most tests
 * below are push_run(), their own checks, push_run_end(). The parts
 * (push_run_begin, push_run_record or push_run_ended, push_run_collect)
 * serve the tests that do something between them.
 */
struct pushed_run {
	const char *base;          /* the test's temporary directory */
	char *dir;                 /* the windows' directory, base/w/ */
	char *err;                 /* perfev's stderr, base/perfev.err */
	struct receiver r;         /* the store */
	const char *const *more;   /* the recording's extra options (for the leftovers too) */
	char *text;                /* perfev's stderr, read */
	struct summary s;          /* its summary lines */
	long total;                /* windows written: the run's and the leftovers run's */
	struct request *list;      /* the requests the receiver logged */
	int n;                     /* how many */
	int ok;                    /* those answered 200, each window once, in order */
};

/* Makes the test's directory and starts the receiver `name` there with extra (NULL-terminated). */
static void push_run_begin(struct pushed_run *p, const char *name, const char *const *extra)
{
	memset(p, 0, sizeof(*p));
	p->base = th_temp_dir("push");
	p->dir = th_path_join(p->base, "w/");
	p->err = th_path_join(p->base, "perfev.err");
	receiver_start(&p->r, p->base, name, extra);
}

/* Takes the end of a perfev run (its wait status): asserts it exited 0, reads p->text and p->s. */
static void push_run_ended(struct pushed_run *p, int status)
{
	free(p->text);
	p->text = th_slurp(p->err, NULL);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d:\n%s", status, p->text);
	p->s = read_summary(p->text);
}

/*
 * Records report_work for ms milliseconds of CPU in windows of rotate s into
 * p->dir, pushed to p->r with more (NULL-terminated, kept in p->more); then
 * push_run_ended.
 */
static void push_run_record(struct pushed_run *p, const char *rotate, const char *ms,
			    const char *const *more)
{
	const char *args[48] = {"record", "--rotate", rotate, "-o", p->dir, "--push", p->r.url};
	int n = 7;

	p->more = more;
	for (; more && *more && n < 40; more++)
		args[n++] = *more;
	args[n++] = "-g";
	args[n++] = "--";
	args[n++] = th_test_program("report_work");
	args[n++] = ms;
	args[n] = NULL;
	pid_t pid = perfev_start(args, p->err);
	push_run_ended(p, wait_exit(pid, 180));
}

/*
 * After the run: sends what it left (send_leftovers, with p->more), sets
 * p->total, reads the receiver's log into p->list and p->n, and checks the
 * windows it accepted (expect_each_window_once: p->ok, to compare with
 * p->total).
 */
static void push_run_collect(struct pushed_run *p)
{
	p->total = p->s.wrote + send_leftovers(&p->r, p->base, p->dir, &p->s, p->more, p->text);
	p->n = read_log(&p->r, &p->list);
	p->ok = expect_each_window_once(p->list, p->n);
}

/*
 * The whole run: a receiver "store" started with receiver_extra, a
 * recording of report_work (push_run_record's rotate, ms, more) that exits
 * 0, its leftovers sent and the log read (push_run_collect).
 */
static void push_run(struct pushed_run *p, const char *const *receiver_extra, const char *rotate,
		     const char *ms, const char *const *more)
{
	push_run_begin(p, "store", receiver_extra);
	push_run_record(p, rotate, ms, more);
	push_run_collect(p);
}

/* Stops the receiver and frees what p holds (th_temp_dir removes the files). */
static void push_run_end(struct pushed_run *p)
{
	free(p->list);
	receiver_stop(&p->r);
	free(p->text);
	free(p->err);
	free(p->dir);
}

/* ---- the acceptance test -------------------------------------------------------------------- */

Test(record_push, store_down_for_the_first_half_loses_nothing)
{
	const char *extra[] = {"--down-until", "GO", NULL};
	struct pushed_run p;
	int status;

	push_run_begin(&p, "store", extra);
	const char *args[] = {"record", "--rotate", "0.5", "-o", p.dir, "--push", p.r.url,
			      "--push-timeout", "5", "-g", "--", "/usr/bin/python3", "-c",
			      BUSY_LOOP("4"), NULL};
	pid_t pid = perfev_start(args, p.err);
	/* The store is down until windows pile up (the first half of the run). */
	double deadline = deadline_in(60);
	bool done = false;
	while (windows_in(p.dir, NULL, 0) < 3 && !(done = exited(pid, &status))) {
		cr_assert(!passed(deadline), "no 3 windows in 60 s");
		usleep(20 * 1000);
	}
	cr_expect(!done, "the workload ended before the store came up (a very slow machine?)");
	receiver_go(&p.r);
	if (!done)
		status = wait_exit(pid, 120);
	push_run_ended(&p, status);
	cr_expect_geq(p.s.wrote, 6, "%s", p.text);
	cr_expect_geq(p.s.retries, 1, "the store was down, yet no retry:\n%s", p.text);
	cr_expect_eq(p.s.dropped, 0, "%s", p.text);
	cr_expect_eq(p.s.rejected, 0, "%s", p.text);
	cr_expect(strstr(p.text, "Connection refused"), "%s", p.text);
	push_run_collect(&p);
	cr_expect_eq(windows_in(p.dir, NULL, 0), 0, "windows left in the directory");
	cr_expect_eq(p.ok, p.total, "%s", p.text);
	int checked = 0;
	for (int i = 0; i < p.n; i++) {
		if (strcmp(p.list[i].status, "200") != 0)
			continue;
		cr_expect_str_eq(p.list[i].name, "python3");
		cr_expect_str_eq(p.list[i].format, "pprof");
		cr_expect_str_eq(p.list[i].content_type, "application/octet-stream");
		if (checked++ < 3) /* pprof -raw takes a while: the first three */
			expect_pprof_body(&p.r, p.list[i].window);
	}
	push_run_end(&p);
}

/* ---- retries ---------------------------------------------------------------------------------- */

Test(record_push, a_503_is_retried_and_order_kept)
{
	const char *extra[] = {"--status-first", "2:503", NULL};
	struct pushed_run p;

	push_run(&p, extra, "0.3", "900", NULL);
	cr_expect_geq(p.s.retries, 2, "%s", p.text);
	cr_expect(strstr(p.text, "the store answered 503"), "%s", p.text);
	cr_assert_geq(p.n, 3);
	/* The first window, refused twice, is sent again before any other. */
	cr_expect_str_eq(p.list[0].status, "503");
	cr_expect_str_eq(p.list[1].status, "503");
	cr_expect_str_eq(p.list[1].window, p.list[0].window);
	cr_expect_str_eq(p.list[2].window, p.list[0].window);
	cr_expect_str_eq(p.list[2].status, "200");
	cr_expect_eq(p.ok, p.total);
	push_run_end(&p);
}

Test(record_push, a_store_that_hangs_times_out_and_is_retried)
{
	const char *extra[] = {"--hang-first", "1", NULL};
	const char *more[] = {"--push-timeout", "1", NULL};
	struct pushed_run p;

	push_run(&p, extra, "0.3", "900", more);
	cr_expect_geq(p.s.retries, 1, "%s", p.text);
	cr_expect(strstr(p.text, "no answer in time"), "%s", p.text);
	cr_assert_geq(p.n, 2);
	cr_expect_str_eq(p.list[0].status, "hang");
	cr_expect_str_eq(p.list[1].window, p.list[0].window);
	cr_expect_eq(p.ok, p.total);
	push_run_end(&p);
}

Test(record_push, a_400_sets_the_window_aside_for_good)
{
	const char *extra[] = {"--status-first", "1:400", NULL};
	struct pushed_run p;

	push_run(&p, extra, "0.3", "900", NULL);
	cr_expect_eq(p.s.rejected, 1, "%s", p.text);
	cr_expect_eq(p.s.retries, 0, "%s", p.text);
	/* The message names the status and what the store said. */
	cr_expect(strstr(p.text, "the store answered 400 (\"refused by the test receiver: 400\")"),
		  "%s", p.text);
	cr_expect_eq(files_ending(p.dir, ".rejected"), 1);
	cr_assert_geq(p.n, 1);
	cr_expect_str_eq(p.list[0].status, "400");
	char aside[256];
	snprintf(aside, sizeof(aside), "%s%s.rejected", p.dir, p.list[0].window);
	cr_expect_eq(access(aside, F_OK), 0, "no %s", aside);
	for (int i = 1; i < p.n; i++)
		cr_expect_str_neq(p.list[i].window, p.list[0].window, "a rejected window sent again");
	cr_expect_eq(p.ok, p.total - 1);
	push_run_end(&p);
}

/* ---- the queue -------------------------------------------------------------------------------- */

Test(record_push, the_queue_keeps_its_bound_by_dropping_the_oldest)
{
	const char *extra[] = {"--down-until", "GO", NULL}; /* never up */
	const char *more[] = {"--push-queue", "2", "--push-timeout", "0.5", NULL};
	struct pushed_run p;
	char left[8][128];

	push_run_begin(&p, "store", extra);
	push_run_record(&p, "0.2", "1200", more);
	cr_expect_geq(p.s.wrote, 4, "%s", p.text);
	cr_expect_eq(p.s.sent, 0, "%s", p.text);
	cr_expect_eq(p.s.left, 2, "%s", p.text);
	cr_expect_eq(p.s.dropped, p.s.wrote - 2, "%s", p.text);
	cr_expect_eq(windows_in(p.dir, left, 8), 2);
	cr_expect(strstr(p.text, "2 windows not sent stay in"), "%s", p.text);
	/* Each drop said, naming a window older than the two kept. */
	int said = 0;
	for (const char *q = p.text; (q = strstr(q, "dropped the oldest, ")); said++) {
		q += strlen("dropped the oldest, ");
		cr_expect_lt(strncmp(q, left[0], strlen(left[0])), 0, "dropped %.40s, kept %s", q,
			     left[0]);
	}
	cr_expect_eq(said, p.s.dropped, "%s", p.text);
	cr_expect_eq(accepted(&p.r), 0);
	push_run_end(&p);
}

Test(record_push, windows_left_by_an_earlier_run_go_first)
{
	const char *down[] = {"--down-until", "GO", NULL}; /* never up */
	const char *more[] = {"--push-timeout", "0.3", NULL};
	struct pushed_run p;
	char earlier[64][128];

	/* The first run, to a store that is down, leaves its windows. */
	push_run_begin(&p, "down", down);
	push_run_record(&p, "0.3", "600", more);
	cr_expect_eq(p.s.sent, 0, "%s", p.text);
	cr_expect_gt(p.s.left, 0, "%s", p.text);
	cr_expect(strstr(p.text, "the next `perfev record --rotate ... -o "), "%s", p.text);
	receiver_stop(&p.r);
	int n_earlier = windows_in(p.dir, earlier, 64);
	cr_assert_eq(n_earlier, p.s.left);

	/* The second, to a store that is up, sends them before its own. */
	receiver_start(&p.r, p.base, "up", NULL);
	push_run_record(&p, "0.3", "300", NULL);
	cr_expect(strstr(p.text, "an earlier recording left in"), "%s", p.text);
	p.s.wrote += n_earlier; /* what there was to send */
	push_run_collect(&p);
	cr_expect_eq(p.ok, p.total);
	for (int i = 0; i < n_earlier && i < p.n; i++)
		cr_expect_str_eq(p.list[i].window, earlier[i], "request %d", i);
	push_run_end(&p);
}

Test(record_push, a_store_that_restarts_loses_nothing)
{
	const char *extra[] = {"--pause-after", "2:GO", NULL};
	struct pushed_run p;
	int status;

	push_run_begin(&p, "store", extra);
	const char *args[] = {"record", "--rotate", "0.3", "-o", p.dir, "--push", p.r.url,
			      "--push-timeout", "2", "-g", "--", th_test_program("report_work"),
			      "2000", NULL};
	pid_t pid = perfev_start(args, p.err);
	/* Two windows taken, then the store goes away; back once two more wait. */
	double deadline = deadline_in(60);
	bool done = false;
	while (!(accepted(&p.r) >= 2 && windows_in(p.dir, NULL, 0) >= 2) &&
	       !(done = exited(pid, &status))) {
		cr_assert(!passed(deadline), "the store's pause did not come in 60 s");
		usleep(20 * 1000);
	}
	receiver_go(&p.r);
	if (!done)
		status = wait_exit(pid, 120);
	push_run_ended(&p, status);
	push_run_collect(&p);
	cr_expect_eq(p.ok, p.total);
	push_run_end(&p);
}

/* ---- what is sent ------------------------------------------------------------------------------ */

Test(record_push, folded_bodies_and_labels_percent_encoded)
{
	const char *more[] = {"-F", "999", "--push-format", "folded", "--push-name", "my-app/svc",
			      "--push-label", "env=prod", "--push-label", "zone=eu west.1=a", NULL};
	struct pushed_run p;
	int hot = 0;

	push_run(&p, NULL, "0.3", "600", more);
	cr_assert_eq(p.ok, p.total);
	for (int i = 0; i < p.n; i++) {
		const struct request *e = &p.list[i];
		cr_expect_str_eq(e->name, "my-app/svc{env=prod,zone=eu west.1=a}");
		cr_expect(strncmp(e->raw_query,
				  "name=my-app%2Fsvc%7Benv%3Dprod%2Czone%3Deu%20west.1%3Da%7D&from=",
				  63) == 0,
			  "%s", e->raw_query);
		cr_expect(strstr(e->raw_query, "&format=folded&spyName=perfev&units=samples&"
					       "aggregationType=sum&sampleRate=999"),
			  "%s", e->raw_query);
		cr_expect_str_eq(e->content_type, "text/plain; charset=utf-8");
		/* Each line "stack count"; the workload's functions among the stacks. */
		char name[256];
		snprintf(name, sizeof(name), "%s.body", e->window);
		char *path = th_path_join(p.r.bodies, name);
		char *body = th_slurp(path, NULL);
		for (char *line = strtok(body, "\n"); line; line = strtok(NULL, "\n")) {
			char *sp = strrchr(line, ' ');
			cr_expect(sp && sp > line && strspn(sp + 1, "0123456789") == strlen(sp + 1) &&
				      sp[1],
				  "not a folded line: '%s'", line);
			hot += strstr(line, "report_work_") != NULL;
		}
		free(body);
		free(path);
	}
	cr_expect_gt(hot, 0, "no stack names report_work's functions");
	push_run_end(&p);
}

/*
 * An OpenTelemetry collector's endpoint: each window an ExportProfilesServiceRequest as
 * application/x-protobuf, which the protobuf decoder of scripts/otlp_check.py reads and
 * checks by the signal's rules, every sample at a time inside its window.
 */
Test(record_push, otlp_bodies_to_a_collector)
{
	const char *root = getenv("PERFEV_SOURCE_ROOT");
	struct pushed_run p;
	int hot = 0;

	push_run_begin(&p, "collector", NULL);
	strncat(p.r.url, "/v1development/profiles", sizeof(p.r.url) - strlen(p.r.url) - 1);
	push_run_record(&p, "0.3", "600", NULL);
	push_run_collect(&p);
	cr_assert_eq(p.ok, p.total);
	bool decode = th_sh("/usr/bin/python3 -c 'import google.protobuf' && command -v protoc",
			    NULL, NULL) == 0;
	for (int i = 0; i < p.n; i++) {
		const struct request *e = &p.list[i];
		cr_expect_str_eq(e->content_type, "application/x-protobuf");
		cr_expect_eq(e->raw_query[0], '\0', "a query for OTLP: %s", e->raw_query);
		if (!decode || strcmp(e->status, "200") != 0)
			continue;
		char name[256];
		snprintf(name, sizeof(name), "%s.body", e->window);
		char *path = th_path_join(p.r.bodies, name);
		char *sum = th_sh_okf("/usr/bin/python3 '%s/scripts/otlp_check.py' --samples '%s'",
				      root, path);
		struct json_object *doc = th_json_parse(sum);
		struct json_object *prof = json_object_array_get_idx(th_json_get(doc, "profiles"), 0);
		cr_expect(json_object_get_boolean(th_json_get(prof, "timed")), "%s: untimed",
			  e->window);
		/* Its samples' times fall in the window (the name's start, the rotation's length). */
		double t0 = (double)window_start_s(e->window) * 1e9;
		double t = json_object_get_double(th_json_get(prof, "time"));
		cr_expect(t >= t0 - 1e9 && t <= t0 + 2e9, "%s: profile time %.0f", e->window, t);
		hot += strstr(sum, "report_work_") != NULL;
		json_object_put(doc);
		free(sum);
		free(path);
	}
	cr_expect(!decode || hot > 0, "no window names report_work's functions");
	push_run_end(&p);
}

/* ---- errors ----------------------------------------------------------------------------------- */

/* Expects perfev record with args to exit 129 saying text. */
static void expect_refused(const char *text, const char *first, ...)
{
	const char *args[32] = {first};
	int n = 1;
	va_list ap;

	va_start(ap, first);
	while (n < 31 && (args[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	args[n] = NULL;
	static const char *base;
	if (!base)
		base = th_temp_dir("push-err");
	char *err = th_path_join(base, "err");
	pid_t pid = perfev_start(args, err);
	int status = wait_exit(pid, 60);
	char *out = th_slurp(err, NULL);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 129, "%s: status %d: %s", args[1],
		  status, out);
	cr_expect(strstr(out, text), "expected '%s' in: %s", text, out);
	free(out);
	free(err);
}

Test(record_push, option_errors_say_what_to_do)
{
	expect_refused("option '--push' sends the windows of --rotate: give --rotate SECONDS",
		       "record", "--push", "http://127.0.0.1:4040", "true", NULL);
	expect_refused("https:// is not supported: perfev speaks plain HTTP only", "record",
		       "--rotate", "1", "-o", "/tmp/x/", "--push", "https://example.com", "true", NULL);
	expect_refused("it is not an http:// URL", "record", "--rotate", "1", "-o", "/tmp/x/",
		       "--push", "localhost:4040", "true", NULL);
	expect_refused("its port is not a number from 1 to 65535", "record", "--rotate", "1", "-o",
		       "/tmp/x/", "--push", "http://localhost:99999", "true", NULL);
	expect_refused("it names no host", "record", "--rotate", "1", "-o", "/tmp/x/", "--push",
		       "http:///ingest", "true", NULL);
	expect_refused("option '--push-format' needs pprof, folded or otlp, got 'svg'", "record",
		       "--rotate", "1", "-o", "/tmp/x/", "--push", "http://h", "--push-format", "svg",
		       "true", NULL);
	expect_refused("Pyroscope's name syntax has no escape", "record", "--rotate", "1", "-o",
		       "/tmp/x/", "--push", "http://h", "--push-label", "env=a,b", "true", NULL);
	expect_refused("a KEY with a character other than", "record", "--rotate", "1", "-o",
		       "/tmp/x/", "--push", "http://h", "--push-label", "my-env=a", "true", NULL);
	expect_refused("the KEY __name__", "record", "--rotate", "1", "-o", "/tmp/x/", "--push",
		       "http://h", "--push-label", "__name__=a", "true", NULL);
	expect_refused("option '--push-name' needs a Pyroscope application name", "record",
		       "--rotate", "1", "-o", "/tmp/x/", "--push", "http://h", "--push-name",
		       "my app", "true", NULL);
	expect_refused("give --push URL too", "record", "--rotate", "1", "-o", "/tmp/x/",
		       "--push-label", "a=b", "true", NULL);
	expect_refused("'--format pprof' and '--push-format folded' cannot be used together",
		       "record", "--rotate", "1", "-o", "/tmp/x/", "--format", "pprof", "--push",
		       "http://h", "--push-format", "folded", "true", NULL);
	expect_refused("option '--push-queue' needs a number of windows from 1", "record",
		       "--rotate", "1", "-o", "/tmp/x/", "--push", "http://h", "--push-queue", "0",
		       "true", NULL);
}

Test(record_push, one_sender_per_directory)
{
	const char *base = th_temp_dir("push");
	char *dir = th_path_join(base, "w/"), *err1 = th_path_join(base, "1.err");
	const char *extra[] = {"--down-until", "GO", NULL};
	struct receiver r;

	receiver_start(&r, base, "store", extra);
	const char *args[] = {"record", "-q", "--rotate", "0.2", "-o", dir, "--push", r.url,
			      "--push-timeout", "0.3", "--", "/usr/bin/python3", "-c",
			      BUSY_LOOP("60"), NULL};
	pid_t first = perfev_start(args, err1);
	/* Its first window is there: it holds the directory. */
	double deadline = deadline_in(60);
	while (windows_in(dir, NULL, 0) < 1) {
		int status;
		cr_assert(!exited(first, &status), "%s", th_slurp(err1, NULL));
		cr_assert(!passed(deadline), "no window in 60 s");
		usleep(20 * 1000);
	}
	struct th_output o = th_perfev("record", "--rotate", "0.2", "-o", dir, "--push", r.url,
				       "true");
	cr_expect_eq(o.status, 1, "%s", o.err);
	cr_expect(strstr(o.err, "another perfev record --push is sending the windows of"), "%s",
		  o.err);
	th_output_free(&o);
	kill(first, SIGINT);
	int status = wait_exit(first, 60);
	cr_expect(WIFEXITED(status), "status %d", status);
	receiver_stop(&r);
	free(dir);
	free(err1);
}

/* ---- units ------------------------------------------------------------------------------------ */

Test(record_push, url_parser)
{
	struct http_url u;
	char why[256];

	cr_assert(http_url_parse("http://localhost:4040", &u, why, sizeof(why)), "%s", why);
	cr_expect_str_eq(u.host, "localhost");
	cr_expect_str_eq(u.port, "4040");
	cr_expect_str_eq(u.path, "/");
	cr_assert(http_url_parse("HTTP://[::1]/v1development/profiles", &u, why, sizeof(why)),
		  "%s", why);
	cr_expect_str_eq(u.host, "::1");
	cr_expect(u.ipv6_literal);
	cr_expect_str_eq(u.port, "80");
	cr_expect_str_eq(u.path, "/v1development/profiles");
	cr_assert(http_url_parse("http://10.0.0.1:8080/pyroscope/", &u, why, sizeof(why)));
	cr_expect_str_eq(u.path, "/pyroscope/");
	cr_expect_not(http_url_parse("https://x", &u, why, sizeof(why)));
	cr_expect(strstr(why, "https:// is not supported"), "%s", why);
	cr_expect_not(http_url_parse("http://user:pw@x/", &u, why, sizeof(why)));
	cr_expect_not(http_url_parse("http://x:0/", &u, why, sizeof(why)));
	cr_expect_not(http_url_parse("http://x:80a/", &u, why, sizeof(why)));
	cr_expect_not(http_url_parse("http://[::1/", &u, why, sizeof(why)));
	cr_expect_not(http_url_parse("http://x/a b", &u, why, sizeof(why)));
	cr_expect_not(http_url_parse("http://x/#frag", &u, why, sizeof(why)));
	cr_expect_not(http_url_parse("ftp://x/", &u, why, sizeof(why)));
}

Test(record_push, window_names)
{
	uint64_t ns;
	bool pprof;

	cr_assert(push_window_parse("perfev-20240102T030405.678Z.data", &ns, &pprof));
	cr_expect_eq(ns, 1704164645678000000ull);
	cr_expect_not(pprof);
	cr_assert(push_window_parse("perfev-20240102T030405.678Z.recovered.pb.gz", &ns, &pprof));
	cr_expect(pprof);
	cr_expect_not(push_window_parse("perfev-20240102T030405.678Z.data.rejected", &ns, &pprof));
	cr_expect_not(push_window_parse(".perfev-window-12-abc.data", &ns, &pprof));
	cr_expect_not(push_window_parse("perfev-2024010XT030405.678Z.data", &ns, &pprof));
	cr_expect_not(push_window_parse("perfev-20240102T030405.678Z.svg", &ns, &pprof));
}

/* A one-answer server for the client's unit test: takes one request, answers `answer`. */
struct canned {
	int listen_fd;
	const char *answer; /* NULL: close without answering */
	char request[8192]; /* what came, NUL-terminated */
};

static void *serve_once(void *arg)
{
	struct canned *c = arg;
	int fd = accept(c->listen_fd, NULL, NULL);
	size_t have = 0;

	if (fd < 0)
		return NULL;
	for (;;) { /* the headers, then Content-Length bytes of body */
		ssize_t n = read(fd, c->request + have, sizeof(c->request) - 1 - have);
		if (n <= 0)
			break;
		have += (size_t)n;
		c->request[have] = '\0';
		char *end = strstr(c->request, "\r\n\r\n"), *cl = strstr(c->request, "Content-Length: ");
		if (end && cl && have >= (size_t)(end + 4 - c->request) + (size_t)atol(cl + 16))
			break;
	}
	if (c->answer && write(fd, c->answer, strlen(c->answer)) < 0)
		cr_log_warn("write: %s", strerror(errno));
	close(fd);
	return NULL;
}

/* Posts "hello body" to a server answering answer; returns the reply, the request in *c. */
static struct http_reply post_to_canned(struct canned *c, const char *answer)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	struct http_url url;
	struct http_reply reply;
	char text[64], why[256];
	pthread_t t;

	memset(c, 0, sizeof(*c));
	c->answer = answer;
	c->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(c->listen_fd, 0);
	cr_assert_eq(bind(c->listen_fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(c->listen_fd, 1), 0);
	cr_assert_eq(getsockname(c->listen_fd, (struct sockaddr *)&a, &len), 0);
	snprintf(text, sizeof(text), "http://127.0.0.1:%d/base", ntohs(a.sin_port));
	cr_assert(http_url_parse(text, &url, why, sizeof(why)), "%s", why);
	cr_assert_eq(pthread_create(&t, NULL, serve_once, c), 0);
	struct http_post req = {.url = &url, .target = "/base/ingest?name=a%7B%7D",
				.content_type = "text/plain", .extra_header = "X-Test: 1",
				.body = "hello body", .len = 10, .timeout_ms = 30000 * th_time_scale()};
	http_post(&req, &reply);
	pthread_join(t, NULL);
	close(c->listen_fd);
	return reply;
}

Test(record_push, http_client_reads_answers_of_every_shape)
{
	struct canned c;
	struct http_reply r;

	r = post_to_canned(&c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			       "5\r\nhello\r\n0\r\n\r\n");
	cr_expect_eq(r.outcome, HTTP_ANSWERED, "%s", r.why);
	cr_expect_eq(r.status, 200);
	cr_expect_str_eq(r.excerpt, "hello");
	/* The request as sent: line, Host with the port, type, length, extra header, body. */
	cr_expect(strncmp(c.request, "POST /base/ingest?name=a%7B%7D HTTP/1.1\r\n", 41) == 0, "%s",
		  c.request);
	cr_expect(strstr(c.request, "\r\nHost: 127.0.0.1:"), "%s", c.request);
	cr_expect(strstr(c.request, "\r\nContent-Type: text/plain\r\n"), "%s", c.request);
	cr_expect(strstr(c.request, "\r\nContent-Length: 10\r\n"), "%s", c.request);
	cr_expect(strstr(c.request, "\r\nX-Test: 1\r\n"), "%s", c.request);
	cr_expect(strstr(c.request, "\r\n\r\nhello body"), "%s", c.request);

	r = post_to_canned(&c, "HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain\r\n\r\n"
			       "no such format");
	cr_expect_eq(r.outcome, HTTP_ANSWERED, "%s", r.why);
	cr_expect_eq(r.status, 400);
	cr_expect_str_eq(r.excerpt, "no such format");

	r = post_to_canned(&c, "HTTP/1.1 503 Busy\r\nContent-Length: 4\r\n\r\nbusyEXTRA");
	cr_expect_eq(r.status, 503);
	cr_expect_str_eq(r.excerpt, "busy");

	r = post_to_canned(&c, "SSH-2.0-OpenSSH\r\n\r\n");
	cr_expect_eq(r.outcome, HTTP_FAILED);
	cr_expect(strstr(r.why, "not HTTP"), "%s", r.why);

	r = post_to_canned(&c, NULL);
	cr_expect_eq(r.outcome, HTTP_FAILED);
	cr_expect(strstr(r.why, "closed without an answer"), "%s", r.why);
}

Test(record_push, http_client_says_when_nobody_listens)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	struct http_url url;
	struct http_reply r;
	char text[64], why[256];

	/* A port bound and not listening: connections to it are refused. */
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	snprintf(text, sizeof(text), "http://127.0.0.1:%d", ntohs(a.sin_port));
	cr_assert(http_url_parse(text, &url, why, sizeof(why)));
	struct http_post req = {.url = &url, .content_type = "text/plain", .body = "x", .len = 1,
				.timeout_ms = 30000};
	cr_expect_eq(http_post(&req, &r), HTTP_UNREACHABLE);
	cr_expect(strstr(r.why, "Connection refused"), "%s", r.why);
	close(fd);

	cr_assert(http_url_parse("http://no-such-host.invalid", &url, why, sizeof(why)));
	cr_expect_eq(http_post(&req, &r), HTTP_UNREACHABLE);
	cr_expect(strstr(r.why, "cannot resolve the host 'no-such-host.invalid'"), "%s", r.why);
}

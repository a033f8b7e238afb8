/* SPDX-License-Identifier: MIT */
/*
 * stat_run.c - running `perfev stat`: the signals that end counting, the
 * -p / -t targets watched for their exit, the command started with its
 * counters enabled at exec, the wait with -I intervals, and one whole run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stat.h"

double stat_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Whether process or thread id exists (a zombie does not count). */
bool stat_task_exists(pid_t id)
{
	char path[64], buf[512];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)id);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

bool stat_process_alive(pid_t pid)
{
	char path[64];
	struct dirent *de;
	bool alive = false;
	DIR *d;

	if (stat_task_exists(pid))
		return true;
	/* The leader may have exited (pthread_exit in main) while other threads run. */
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return false;
	while (!alive && (de = readdir(d))) {
		long tid = strtol(de->d_name, NULL, 10);
		alive = tid > 0 && tid != pid && stat_task_exists((pid_t)tid);
	}
	closedir(d);
	return alive;
}

/* The -p / -t targets, watched for their exit. */
struct watch {
	int *pidfds; /* -1 where pidfd_open failed: poll with kill(2) and /proc */
	bool *gone;
	int n;
};

/* Watches the -p / -t targets when no command decides when counting ends. */
static void watch_open(struct watch *w, const struct stat_config *cfg)
{
	bool targets = cfg->target == STAT_TARGET_PROCESS || cfg->target == STAT_TARGET_THREAD;

	w->n = targets && !cfg->argv ? cfg->nids : 0;
	w->pidfds = cli_xcalloc((size_t)w->n, sizeof(int));
	w->gone = cli_xcalloc((size_t)w->n, sizeof(bool));
	for (int i = 0; i < w->n; i++) {
#ifdef SYS_pidfd_open
		w->pidfds[i] = (int)syscall(SYS_pidfd_open, cfg->ids[i], 0);
		if (w->pidfds[i] >= 0)
			fcntl(w->pidfds[i], F_SETFD, FD_CLOEXEC);
#else
		w->pidfds[i] = -1;
#endif
	}
}

static void watch_close(struct watch *w)
{
	for (int i = 0; i < w->n; i++)
		if (w->pidfds[i] >= 0)
			close(w->pidfds[i]);
	free(w->pidfds);
	free(w->gone);
}

/* Whether some target has no pidfd (and must be polled). */
static bool watch_polls(const struct watch *w)
{
	for (int i = 0; i < w->n; i++)
		if (w->pidfds[i] < 0 && !w->gone[i])
			return true;
	return false;
}

/* Marks the targets that exited; returns true when all have. */
static bool watch_all_gone(struct watch *w, const struct stat_config *cfg, const struct pollfd *fds)
{
	bool all = w->n > 0;

	for (int i = 0; i < w->n; i++) {
		if (w->pidfds[i] >= 0 && (fds[1 + i].revents & (POLLIN | POLLHUP | POLLERR)))
			w->gone[i] = true;
		if (w->pidfds[i] < 0 && !w->gone[i] &&
		    ((kill(cfg->ids[i], 0) < 0 && errno == ESRCH) ||
		     !(cfg->target == STAT_TARGET_PROCESS ? stat_process_alive(cfg->ids[i])
							  : stat_task_exists(cfg->ids[i]))))
			w->gone[i] = true;
		all = all && w->gone[i];
	}
	return all;
}

/* The interval printer: reads the counters and prints the deltas since the last tick. */
struct ticker {
	struct raw *prev, *now;
	struct stat_cell *cells;
	double start_ns, last_ns;
	int nth;
	struct stat_json *json;
};

static void tick(struct stat_state *s, struct ticker *t)
{
	double now = stat_now_ns();

	stat_read_all(s, t->now);
	stat_make_cells(s, t->now, t->prev, t->cells);
	struct stat_report r = stat_make_report(s, t->cells);
	r.elapsed_ns = now - t->last_ns;
	r.timestamp_s = (now - t->start_ns) / 1e9;
	if (t->json)
		stat_json_add_interval(t->json, &r);
	else
		stat_print_interval(&r, t->nth);
	t->nth++;
	t->last_ns = now;
	struct raw *swap = t->prev;
	t->prev = t->now;
	t->now = swap;
}

/*
 * Waits until counting ends: the command exits (with a command), every -p
 * or -t target has exited, or SIGINT / SIGTERM arrives (without a command;
 * with one, SIGTERM is passed on to it). With -I, prints intervals meanwhile.
 * With a command, reaps it into *status and *ru.
 */
static void wait_loop(struct stat_state *s, pid_t child, struct ticker *t, int *status,
                      struct rusage *ru)
{
	struct watch w;
	double next = t ? t->start_ns + s->cfg.interval_ms * 1e6 : 0;
	bool forwarded = false;

	watch_open(&w, &s->cfg);
	struct pollfd *fds =
	    cli_xcalloc((size_t)w.n + 1 + (size_t)stat_serve_max_pollfds(), sizeof(*fds));
	struct pollfd *served = fds + w.n + 1; /* --serve's descriptors follow the others */
	fds[0].fd = cli_wake_fd();
	fds[0].events = POLLIN;
	for (int i = 0; i < w.n; i++) {
		fds[1 + i].fd = w.pidfds[i];
		fds[1 + i].events = POLLIN;
	}
	for (;;) {
		int timeout = -1, server_ms = stat_serve_timeout_ms(s->server);
		int nserved = stat_serve_pollfds(s->server, served);
		if (t) {
			double left = (next - stat_now_ns()) / 1e6;
			timeout = left <= 0 ? 0 : (int)left + 1;
		}
		if (watch_polls(&w) && (timeout < 0 || timeout > TARGET_POLL_MS))
			timeout = TARGET_POLL_MS;
		if (server_ms >= 0 && (timeout < 0 || timeout > server_ms))
			timeout = server_ms;
		int n = poll(fds, (nfds_t)(w.n + 1 + nserved), timeout);
		if (n < 0 && errno != EINTR) {
			cli_warning("poll: %s", strerror(errno));
			break;
		}
		cli_wake_drain();
		if (nserved) /* also on a timeout: the server's deadlines */
			stat_serve_handle(s->server, s, n > 0 ? served : NULL);
		if (child > 0 && wait4(child, status, WNOHANG, ru) == child)
			break;
		if (cli_stop_signal() && child <= 0)
			break;
		if (cli_stop_signal() == SIGTERM && child > 0 && !forwarded) {
			kill(child, SIGTERM);
			forwarded = true;
		}
		if (child <= 0 && watch_all_gone(&w, &s->cfg, fds))
			break;
		if (t && stat_now_ns() >= next) {
			tick(s, t);
			next += s->cfg.interval_ms * 1e6;
			if (next < stat_now_ns()) /* late (a stopped perfev): skip, do not burst */
				next = stat_now_ns() + s->cfg.interval_ms * 1e6;
		}
	}
	free(fds);
	watch_close(&w);
}

/*
 * One run: starts the command (if any), opens the counters, counts until
 * the end, and returns the totals (nevents x nkeys cells, malloc'ed; NULL
 * when the command could not start). Prints intervals with -I.
 */
struct stat_cell *stat_run_once(struct stat_state *s, struct stat_json *json,
                                  struct run_result *res)
{
	struct stat_config *cfg = &s->cfg;
	struct stat_cell *cells = NULL;
	int status = 0;
	pid_t child = -1;

	memset(res, 0, sizeof(*res));
	stat_open_events(s);
	res->nothing_open = true;
	for (int e = 0; e < s->nevents; e++)
		if (s->events[e].open == STAT_OPEN_OK)
			res->nothing_open = false;
	stat_make_keys(s);
	if (cfg->target != STAT_TARGET_COMMAND)
		stat_enable_all(s);

	size_t ncells = (size_t)s->nevents * (size_t)s->nkeys;
	struct ticker t = {0}, *tp = NULL;
	double t0 = stat_now_ns();
	s->start_ns = t0;
	s->end_ns = 0;
	s->have_rusage = false;
	if (cfg->interval_ms) {
		t.prev = cli_xcalloc(ncells, sizeof(struct raw));
		t.now = cli_xcalloc(ncells, sizeof(struct raw));
		t.cells = cli_xcalloc(ncells, sizeof(struct stat_cell));
		t.start_ns = t.last_ns = t0;
		t.json = json;
		tp = &t;
	}
	/*
	 * Counting CPUs or other processes with nothing open has nothing to wait
	 * for: report the refusals at once instead of running the command or
	 * waiting for the processes to exit.
	 */
	bool counting = !(res->nothing_open && cfg->target != STAT_TARGET_COMMAND);
	if (cfg->argv && counting) {
		int e = cli_spawn_command(cfg->argv, cfg->path, &child);
		if (e != 0) {
			res->exit_code = cli_exec_error(cfg->argv[0], e);
			res->exec_failed = true;
			goto out;
		}
	}
	if (counting)
		wait_loop(s, child, tp, &status, &res->ru);
	s->end_ns = stat_now_ns();
	res->elapsed_ns = s->end_ns - t0;
	s->ru = res->ru;
	s->have_rusage = child > 0 && cfg->target == STAT_TARGET_COMMAND;
	if (tp)
		tick(s, tp); /* the last, partial interval */
	struct raw *totals = cli_xcalloc(ncells, sizeof(struct raw));
	cells = cli_xcalloc(ncells, sizeof(struct stat_cell));
	stat_read_all(s, totals);
	stat_make_cells(s, totals, NULL, cells);
	free(totals);
	if (child > 0) {
		res->have_rusage = cfg->target == STAT_TARGET_COMMAND;
		if (WIFSIGNALED(status)) {
			int sig = WTERMSIG(status);
			fprintf(stderr, "%s: %s\n", cfg->argv[0], strsignal(sig));
			res->exit_code = 128 + sig;
			res->interrupted = sig == SIGINT || sig == SIGTERM || cli_stop_signal();
		} else {
			res->exit_code = WEXITSTATUS(status);
			res->interrupted = cli_stop_signal() != 0;
		}
	}
out:
	free(t.prev);
	free(t.now);
	free(t.cells);
	return cells;
}

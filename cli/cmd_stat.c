/* SPDX-License-Identifier: MIT */
/*
 * cmd_stat.c - `perfev stat [-e EVENTS] [--] COMMAND [ARGS]`: run a command
 * with counters that start at its exec, and print the counts as perf stat does.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static const char usage[] = "perfev stat [-e EVENT[,EVENT...]] [--] COMMAND [ARGS]";

static const char *const default_events[] = {
	"task-clock", "context-switches", "cpu-migrations", "page-faults",
	"cycles",     "instructions",     "branches",       "branch-misses",
};

#define MAX_EVENTS 64

enum row_state { ROW_COUNTED, ROW_NOT_SUPPORTED, ROW_ERROR };

struct row {
	char name[96];      /* as printed, with ":u" when perfev had to add it */
	struct pev_event ev;
	struct pev_counter *counter;
	enum row_state state;
	struct pev_error err;
	struct pev_count count;
};

/* Splits "EVENT[:MOD]" and looks the event up. Returns 0 or an exit status. */
static int parse_event(const char *text, struct row *row)
{
	char base[96];
	const char *colon = strchr(text, ':');
	size_t n = colon ? (size_t)(colon - text) : strlen(text);

	if (n == 0 || n >= sizeof(base)) {
		cli_error("event '%s' is empty or too long", text);
		return 129;
	}
	memcpy(base, text, n);
	base[n] = '\0';
	if (pev_event_lookup(base, &row->ev) < 0) {
		cli_error("unknown event '%s'; this version of perfev stat knows perf's generic "
			  "hardware, software and cache event names",
			  base);
		return 129;
	}
	snprintf(row->name, sizeof(row->name), "%s", text);
	row->ev.name = row->name;
	return 0;
}

/* Applies the u/k modifiers of "EVENT:MODS" to opts. Returns false on an unknown one. */
static bool apply_modifiers(const char *name, struct pev_opts *o)
{
	const char *colon = strchr(name, ':');

	if (!colon)
		return true;
	bool u = strchr(colon + 1, 'u'), k = strchr(colon + 1, 'k');
	if (strspn(colon + 1, "uk") != strlen(colon + 1))
		return false;
	if (u && !k) {
		o->exclude_kernel = true;
		o->exclude_hv = true;
	} else if (k && !u) {
		o->exclude_user = true;
		o->exclude_hv = true;
	}
	return true;
}

/* Adds the events of one -e list to rows. Returns 0 or an exit status. */
static int add_events(const char *list, struct row *rows, int *nrows)
{
	char *copy = strdup(list), *save = NULL;
	int r = 0, added = 0;

	if (!copy) {
		cli_error("out of memory");
		return 1;
	}
	for (char *tok = strtok_r(copy, ",", &save); tok && r == 0;
	     tok = strtok_r(NULL, ",", &save)) {
		struct pev_opts check = PEV_OPTS_INIT;
		if (*nrows == MAX_EVENTS) {
			cli_error("too many events (at most %d)", MAX_EVENTS);
			r = 129;
		} else if ((r = parse_event(tok, &rows[*nrows])) == 0) {
			if (!apply_modifiers(rows[*nrows].name, &check)) {
				cli_error("unknown modifier in '%s' (this version knows u and k)", tok);
				r = 129;
			} else {
				(*nrows)++;
				added++;
			}
		}
	}
	if (r == 0 && added == 0) {
		cli_error("option '-e' needs at least one event, got '%s'", list);
		r = 129;
	}
	free(copy);
	return r;
}

static bool unsupported_here(int code)
{
	return code == PEV_ENOENT || code == PEV_ENODEV || code == PEV_EOPNOTSUPP;
}

/* Opens one row's counter on pid; retries user-space only when the kernel part is refused. */
static void open_row(struct row *row, pid_t pid)
{
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target target = pev_target_thread(pid);

	o.enable_on_exec = true;
	o.inherit = PEV_INHERIT_ALL;
	o.read_format = PEV_FORMAT_TOTAL_TIME_ENABLED | PEV_FORMAT_TOTAL_TIME_RUNNING;
	apply_modifiers(row->name, &o);
	int r = pev_counter_open(&row->ev, &o, &target, NULL, &row->counter, &row->err);
	/* Like perf: an event named without modifiers falls back to user space only. */
	if ((r == PEV_EACCES || r == PEV_EPERM) && !strchr(row->name, ':')) {
		o.exclude_kernel = true;
		o.exclude_hv = true;
		struct pev_error user_err;
		if (pev_counter_open(&row->ev, &o, &target, NULL, &row->counter, &user_err) == 0) {
			strncat(row->name, ":u", sizeof(row->name) - strlen(row->name) - 1);
			r = 0;
		}
	}
	if (r == 0)
		row->state = ROW_COUNTED;
	else
		row->state = unsupported_here(r) ? ROW_NOT_SUPPORTED : ROW_ERROR;
}

/* Formats a rate per second with perf's K/M/G prefixes. */
static void format_rate(double per_sec, char *buf, size_t size)
{
	if (per_sec >= 1e9)
		snprintf(buf, size, "%8.3f G/sec", per_sec / 1e9);
	else if (per_sec >= 1e6)
		snprintf(buf, size, "%8.3f M/sec", per_sec / 1e6);
	else if (per_sec >= 1e3)
		snprintf(buf, size, "%8.3f K/sec", per_sec / 1e3);
	else
		snprintf(buf, size, "%8.3f /sec", per_sec);
}

static bool is_task_clock(const struct row *row)
{
	return row->ev.type == PEV_TYPE_SOFTWARE &&
	       (row->ev.config == PEV_SW_TASK_CLOCK || row->ev.config == PEV_SW_CPU_CLOCK);
}

/* One counted row: value, name, and the metric column only when there is one. */
static void print_row(FILE *out, const char *value, const char *gap, const char *name,
		      const char *metric, const char *running)
{
	if (metric[0] || running[0])
		fprintf(out, "%s%s%-32s %s%s\n", value, gap, name, metric, running);
	else
		fprintf(out, "%s%s%s\n", value, gap, name);
}

static void print_rows(FILE *out, struct row *rows, int n, double elapsed_ns)
{
	double task_ns = 0;

	for (int i = 0; i < n; i++)
		if (rows[i].state == ROW_COUNTED && is_task_clock(&rows[i]) &&
		    rows[i].ev.config == PEV_SW_TASK_CLOCK)
			task_ns = (double)rows[i].count.value;
	for (int i = 0; i < n; i++) {
		struct row *r = &rows[i];
		char value[48], metric[64] = "", running[32] = "";
		if (r->state == ROW_NOT_SUPPORTED) {
			fprintf(out, "   %15s      %s\n", "<not supported>", r->name);
			continue;
		}
		if (r->state == ROW_ERROR) {
			fprintf(out, "   %15s      %s\n", "<not counted>", r->name);
			continue;
		}
		if (r->count.time_enabled && r->count.time_running == 0) {
			fprintf(out, "   %15s      %s\n", "<not counted>", r->name);
			continue;
		}
		double v = (double)r->count.value;
		if (r->count.time_running && r->count.time_running < r->count.time_enabled) {
			v = v * (double)r->count.time_enabled / (double)r->count.time_running;
			snprintf(running, sizeof(running), "  (%.2f%%)",
				 100.0 * (double)r->count.time_running / (double)r->count.time_enabled);
		}
		if (is_task_clock(r)) {
			snprintf(value, sizeof(value), "%18.2f msec", v / 1e6);
			if (elapsed_ns > 0)
				snprintf(metric, sizeof(metric), "#  %8.3f CPUs utilized", v / elapsed_ns);
			print_row(out, value, " ", r->name, metric, running);
			continue;
		}
		cli_group_digits((uint64_t)(v + 0.5), value, sizeof(value));
		if (task_ns > 0) {
			char rate[32];
			format_rate(v / (task_ns / 1e9), rate, sizeof(rate));
			snprintf(metric, sizeof(metric), "#  %s", rate);
		}
		char padded[64];
		snprintf(padded, sizeof(padded), "%18s", value);
		print_row(out, padded, "      ", r->name, metric, running);
	}
}

/* Prints the first reason why events were not supported, once. */
static void print_notes(FILE *out, struct row *rows, int n)
{
	bool noted = false;

	for (int i = 0; i < n; i++) {
		if (rows[i].state == ROW_ERROR)
			cli_print_error(&rows[i].err);
		if (rows[i].state == ROW_NOT_SUPPORTED && !noted) {
			const char *reason = strstr(rows[i].err.message, ": ");
			char hint[256];
			fprintf(out, "\n note: %s is not supported here: %s\n", rows[i].name,
				reason ? reason + 2 : rows[i].err.message);
			if (rows[i].err.hint[0]) {
				size_t len = strcspn(rows[i].err.hint, "\n");
				snprintf(hint, sizeof(hint), "%.*s", (int)len, rows[i].err.hint);
				fprintf(out, " hint: %s\n", hint);
			}
			noted = true;
		}
	}
}

static double seconds(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/*
 * Forks a child that waits on go[0], then execs argv. Exec failures come
 * back through err_pipe as an errno. Returns the pid or -1.
 */
static pid_t start_child(char **argv, int go[2], int err_pipe[2])
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	char c;
	close(go[1]);
	close(err_pipe[0]);
	signal(SIGINT, SIG_DFL);
	if (read(go[0], &c, 1) != 1)
		_exit(127);
	execvp(argv[0], argv);
	int e = errno;
	if (write(err_pipe[1], &e, sizeof(e)) != (ssize_t)sizeof(e))
		_exit(127);
	_exit(127);
}

int cmd_stat(int argc, char **argv)
{
	static const struct option options[] = {
		{"event", required_argument, NULL, 'e'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct row *rows = calloc(MAX_EVENTS, sizeof(*rows));
	int nrows = 0, opt, status = 0, r = 0;
	bool any_events = false;

	if (!rows)
		return 1;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+e:h", options, NULL)) != -1) {
		switch (opt) {
		case 'e':
			any_events = true;
			if ((r = add_events(optarg, rows, &nrows)) != 0) {
				free(rows);
				return r;
			}
			break;
		case 'h':
			printf("usage: %s\n\nRuns COMMAND and prints the counts of EVENTS (by default "
			       "perf stat's set).\n",
			       usage);
			free(rows);
			return 0;
		default:
			free(rows);
			return cli_usage(usage);
		}
	}
	if (optind >= argc) {
		cli_error("no command to run");
		free(rows);
		return cli_usage(usage);
	}
	if (!any_events)
		for (size_t i = 0; i < sizeof(default_events) / sizeof(default_events[0]); i++)
			parse_event(default_events[i], &rows[nrows++]);

	int go[2], err_pipe[2];
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err_pipe, O_CLOEXEC) < 0) {
		cli_error("cannot create a pipe: %s", strerror(errno));
		free(rows);
		return 1;
	}
	struct sigaction ignore = {.sa_handler = SIG_IGN}, old_int;
	sigaction(SIGINT, &ignore, &old_int);
	pid_t child = start_child(argv + optind, go, err_pipe);
	if (child < 0) {
		cli_error("cannot fork: %s", strerror(errno));
		free(rows);
		return 1;
	}
	close(go[0]);
	close(err_pipe[1]);
	for (int i = 0; i < nrows; i++)
		open_row(&rows[i], child);

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (write(go[1], "x", 1) != 1)
		cli_warning("cannot start the command: %s", strerror(errno));
	close(go[1]);
	int exec_errno = 0;
	if (read(err_pipe[0], &exec_errno, sizeof(exec_errno)) != (ssize_t)sizeof(exec_errno))
		exec_errno = 0;
	close(err_pipe[0]);
	struct rusage ru;
	while (wait4(child, &status, 0, &ru) < 0 && errno == EINTR)
		;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sigaction(SIGINT, &old_int, NULL);

	int exit_code;
	if (exec_errno) {
		cli_error("cannot run '%s': %s", argv[optind], strerror(exec_errno));
		exit_code = exec_errno == ENOENT ? 127 : 126;
	} else {
		double elapsed_ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 +
				    (double)(t1.tv_nsec - t0.tv_nsec);
		for (int i = 0; i < nrows; i++) {
			int rr = rows[i].state == ROW_COUNTED
					 ? pev_counter_read(rows[i].counter, &rows[i].count)
					 : 0;
			if (rr < 0) {
				pev_diagnose_call("read", rows[i].name, -rr, &rows[i].err);
				rows[i].state = ROW_ERROR;
			}
		}
		fprintf(stderr, "\n Performance counter stats for '");
		for (int i = optind; i < argc; i++)
			fprintf(stderr, "%s%s", i > optind ? " " : "", argv[i]);
		fprintf(stderr, "':\n\n");
		print_rows(stderr, rows, nrows, elapsed_ns);
		fprintf(stderr, "\n%18.9f seconds time elapsed\n\n", elapsed_ns / 1e9);
		fprintf(stderr, "%18.9f seconds user\n", seconds(&ru.ru_utime));
		fprintf(stderr, "%18.9f seconds sys\n", seconds(&ru.ru_stime));
		print_notes(stderr, rows, nrows);
		fprintf(stderr, "\n");
		exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	for (int i = 0; i < nrows; i++)
		pev_counter_close(rows[i].counter);
	free(rows);
	return exit_code;
}

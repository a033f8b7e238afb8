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

static const char usage[] = "perfev stat [-e EVENTS]... [--] COMMAND [ARGS]";

/* perf stat's default set. */
static const char default_events[] = "task-clock,context-switches,cpu-migrations,page-faults,"
				     "cycles,instructions,branches,branch-misses";

/* Most -e options one run takes. */
#define MAX_LISTS 64

enum row_state { ROW_COUNTED, ROW_NOT_SUPPORTED, ROW_ERROR };

struct row {
	char name[160];                    /* as printed, ":u" added when perfev fell back */
	const struct pev_event_spec *spec; /* owned by the event lists */
	int leader;                        /* row of this event's group leader, or -1 */
	struct pev_counter *counter;
	enum row_state state;
	struct pev_error err;
	struct pev_count count;
};

/* The events of a run: the parsed lists and one row per event. */
struct events {
	struct pev_event_list *lists[MAX_LISTS];
	int nlists;
	struct row *rows;
	int n, cap;
};

static void events_free(struct events *e)
{
	for (int i = 0; i < e->n; i++)
		pev_counter_close(e->rows[i].counter);
	for (int i = 0; i < e->nlists; i++)
		pev_event_list_free(e->lists[i]);
	free(e->rows);
}

/* Parses one -e list and adds a row per event. Returns 0 or an exit status. */
static int add_events(struct events *e, const char *text)
{
	struct pev_event_list *list;
	struct pev_error err;
	int leader = -1;

	if (e->nlists == MAX_LISTS) {
		cli_error("too many -e options (at most %d)", MAX_LISTS);
		return 129;
	}
	if (pev_event_parse(text, NULL, &list, &err) < 0) {
		cli_print_error(&err);
		return 129;
	}
	e->lists[e->nlists++] = list;
	for (int i = 0; i < pev_event_list_count(list); i++) {
		const struct pev_event_spec *spec = pev_event_list_at(list, i);
		if (e->n == e->cap) {
			int cap = e->cap ? e->cap * 2 : 16;
			struct row *rows = realloc(e->rows, sizeof(*rows) * (size_t)cap);
			if (!rows) {
				cli_error("out of memory");
				return 1;
			}
			e->rows = rows;
			e->cap = cap;
		}
		struct row *row = &e->rows[e->n];
		memset(row, 0, sizeof(*row));
		row->spec = spec;
		snprintf(row->name, sizeof(row->name), "%s", spec->ev.name);
		if (spec->group_leader)
			leader = e->n;
		row->leader = spec->group >= 0 && !spec->group_leader ? leader : -1;
		e->n++;
	}
	return 0;
}

static bool unsupported_here(int code)
{
	return code == PEV_ENOENT || code == PEV_ENODEV || code == PEV_EOPNOTSUPP;
}

/* Whether the event string chose privilege levels itself. */
static bool chose_levels(const struct pev_opts *o)
{
	return o->exclude_user || o->exclude_kernel || o->exclude_hv;
}

/*
 * Opens one row's counter on pid (in its leader's group, when it has one).
 * Like perf, an event whose string chose no privilege levels falls back to
 * user space only when counting the kernel is refused; tracepoints do not,
 * since they fire in the kernel.
 */
static void open_row(struct events *e, struct row *row, pid_t pid)
{
	const struct pev_event_spec *spec = row->spec;
	struct pev_opts o = spec->opts;
	struct pev_target target = pev_target_thread(pid);
	struct pev_counter *group = NULL;
	int r;

	if (row->leader >= 0) {
		struct row *leader = &e->rows[row->leader];
		if (leader->state != ROW_COUNTED) {
			row->state = leader->state;
			row->err = leader->err;
			snprintf(row->err.message, sizeof(row->err.message),
				 "cannot open '%s': its group leader '%s' is not open", row->name,
				 leader->name);
			return;
		}
		group = leader->counter;
	}
	/* The leader starts the group at exec; members follow it. */
	o.enable_on_exec = !group;
	o.inherit = PEV_INHERIT_ALL;
	o.read_format |= PEV_FORMAT_TOTAL_TIME_ENABLED | PEV_FORMAT_TOTAL_TIME_RUNNING;
	r = pev_counter_open(&spec->ev, &o, &target, group, &row->counter, &row->err);
	if ((r == PEV_EACCES || r == PEV_EPERM) && !chose_levels(&spec->opts) &&
	    spec->ev.type != PEV_TYPE_TRACEPOINT) {
		o.exclude_kernel = true;
		o.exclude_hv = true;
		struct pev_error user_err;
		if (pev_counter_open(&spec->ev, &o, &target, group, &row->counter, &user_err) == 0) {
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
	const struct pev_event *ev = &row->spec->ev;
	return ev->type == PEV_TYPE_SOFTWARE &&
	       (ev->config == PEV_SW_TASK_CLOCK || ev->config == PEV_SW_CPU_CLOCK);
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
		    rows[i].spec->ev.config == PEV_SW_TASK_CLOCK)
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
		if (r->spec->scale != 1.0 || r->spec->unit[0]) {
			/* A sysfs event with a scale and unit (Joules, MiB). */
			snprintf(value, sizeof(value), "%18.2f %s", v * r->spec->scale, r->spec->unit);
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
	struct events ev = {0};
	int opt, status = 0, r = 0;
	bool any_events = false;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+e:h", options, NULL)) != -1) {
		switch (opt) {
		case 'e':
			any_events = true;
			if ((r = add_events(&ev, optarg)) != 0) {
				events_free(&ev);
				return r;
			}
			break;
		case 'h':
			printf("usage: %s\n\nRuns COMMAND and prints the counts of EVENTS (by default "
			       "perf stat's set).\n",
			       usage);
			events_free(&ev);
			return 0;
		default:
			events_free(&ev);
			return cli_usage(usage);
		}
	}
	if (optind >= argc) {
		cli_error("no command to run");
		events_free(&ev);
		return cli_usage(usage);
	}
	if (!any_events && (r = add_events(&ev, default_events)) != 0) {
		events_free(&ev);
		return r;
	}
	struct row *rows = ev.rows;
	int nrows = ev.n;

	int go[2], err_pipe[2];
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err_pipe, O_CLOEXEC) < 0) {
		cli_error("cannot create a pipe: %s", strerror(errno));
		events_free(&ev);
		return 1;
	}
	struct sigaction ignore = {.sa_handler = SIG_IGN}, old_int;
	sigaction(SIGINT, &ignore, &old_int);
	pid_t child = start_child(argv + optind, go, err_pipe);
	if (child < 0) {
		cli_error("cannot fork: %s", strerror(errno));
		events_free(&ev);
		return 1;
	}
	close(go[0]);
	close(err_pipe[1]);
	for (int i = 0; i < nrows; i++)
		open_row(&ev, &rows[i], child);

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
	events_free(&ev);
	return exit_code;
}

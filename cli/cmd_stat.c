/* SPDX-License-Identifier: MIT */
/*
 * cmd_stat.c - `perfev stat`: count events on a command perfev runs, on
 * existing processes or threads, or on CPUs, and print the counts as perf
 * stat does (stat_print.c prints). This file reads the options, opens the
 * counters, runs the command (once, or -r times), waits for the end of
 * counting while printing intervals, and reads the counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stat.h"

extern char **environ;

static const char usage[] =
    "perfev stat [-e EVENTS] [-a] [-C CPUS] [-p PID] [-t TID] [-A] [--per-thread]\n"
    "                   [-r N] [-I MS] [-x SEP] [-j] [-o FILE] [--] [COMMAND [ARGS]]";

/* perf stat's default set. */
static const char default_events[] = "task-clock,context-switches,cpu-migrations,page-faults,"
                                     "cycles,instructions,branches,branch-misses";

#define MAX_LISTS       64    /* most -e options */
#define MAX_CPU         65535 /* highest CPU number -C takes */
#define MIN_INTERVAL_MS 10    /* -I */
#define MAX_INTERVAL_MS 86400000
#define MAX_REPEAT      1000000 /* -r */
#define TARGET_POLL_MS  100     /* how often to look for exited targets without pidfds */

/* Everything one `perfev stat` holds. */
struct stat_state {
	struct stat_config cfg;
	struct pev_event_list *lists[MAX_LISTS];
	int nlists;
	struct stat_event *events;
	int nevents, cap;
	struct pev_target *units; /* what each event is opened on: one per pid, tid, or CPU set */
	int nunits;
	struct stat_key *keys; /* the rows of each event */
	int nkeys;
	int key_cap;
};

/* One count as read: sums over descriptors and units. */
struct raw {
	uint64_t value, enabled, running;
};

/* Running statistics of one cell over -r runs (Welford). */
struct acc {
	int n;
	double mean, m2;
	double enabled, running;
};

/* How one run ended. */
struct run_result {
	int exit_code;    /* what perfev exits with */
	bool exec_failed; /* the command could not be started: nothing to print */
	bool interrupted; /* stop repeating: a signal ended the run */
	double elapsed_ns;
	struct rusage ru;
	bool have_rusage;
};

/* ---- small helpers ------------------------------------------------------ */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		cli_error("out of memory");
		exit(1);
	}
	return p;
}

/* "option '-I' needs ..., got '...'" and the usage status. */
static int bad_value(char opt, const char *needs, const char *got)
{
	cli_error("option '-%c' needs %s, got '%s'", opt, needs, got);
	return 129;
}

static int conflict(const char *a, const char *b)
{
	cli_error("options '%s' and '%s' cannot be used together", a, b);
	return 129;
}

/* ---- option values ------------------------------------------------------ */

/* Whether process or thread id exists (a zombie does not count). */
static bool task_exists(pid_t id)
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

/* Parses -p or -t: a comma-separated list of existing process or thread ids. */
static int parse_ids(char opt, const char *text, pid_t **out, int *n)
{
	const char *what = opt == 'p' ? "a comma-separated list of process ids"
	                              : "a comma-separated list of thread ids";
	int count = 1;

	for (const char *p = text; *p; p++)
		count += *p == ',';
	*out = xcalloc((size_t)count, sizeof(pid_t));
	*n = 0;
	for (const char *p = text;; p++) {
		long v;
		if (!cli_parse_long(p, ",", 1, INT_MAX, &v))
			return bad_value(opt, what, text);
		for (int i = 0; i < *n; i++)
			if ((*out)[i] == (pid_t)v) {
				cli_error("option '-%c' names %ld twice, got '%s'", opt, v, text);
				return 129;
			}
		if (!task_exists((pid_t)v)) {
			cli_error("option '-%c' needs existing %s, got '%s' (no %s %ld)", opt,
			          opt == 'p' ? "processes" : "threads", text,
			          opt == 'p' ? "process" : "thread", v);
			return 129;
		}
		(*out)[(*n)++] = (pid_t)v;
		p = strchr(p, ',');
		if (!p)
			break;
	}
	return 0;
}

/* Reads the online CPU list into list; "0" when sysfs says nothing usable. */
static void online_cpus(char *list, size_t size)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");

	list[0] = '\0';
	if (f) {
		if (!fgets(list, (int)size, f))
			list[0] = '\0';
		fclose(f);
	}
	list[strcspn(list, "\n")] = '\0';
	if (pev_cpulist_parse(list, NULL, 0) <= 0)
		snprintf(list, size, "0");
}

/*
 * Sets cfg's CPUs from a -C list (NULL: every online CPU), ascending and
 * each once. Returns 0, or 129 for a malformed list or an offline CPU.
 */
static int parse_cpus(struct stat_config *cfg, const char *text)
{
	static unsigned char want[MAX_CPU / 8 + 1];
	char online[256], needs[320];
	const char *list = text ? text : online;
	int n, *cpus;

	online_cpus(online, sizeof(online));
	if ((n = pev_cpulist_parse(list, NULL, 0)) <= 0)
		return bad_value('C', "a list of CPUs such as '0-3,7'", text);
	cpus = xcalloc((size_t)n, sizeof(int));
	pev_cpulist_parse(list, cpus, n);
	memset(want, 0, sizeof(want));
	for (int i = 0; i < n; i++) {
		if (cpus[i] > MAX_CPU || !pev_cpulist_contains(online, cpus[i])) {
			snprintf(needs, sizeof(needs), "online CPUs (%s here; CPU %d is not)", online,
			         cpus[i]);
			free(cpus);
			return bad_value('C', needs, text);
		}
		want[cpus[i] / 8] |= (unsigned char)(1U << (cpus[i] % 8));
	}
	free(cpus);
	cfg->cpus = xcalloc(MAX_CPU + 1, sizeof(int));
	cfg->cpu_list = xcalloc(MAX_CPU + 1, 8);
	size_t used = 0;
	for (int c = 0; c <= MAX_CPU; c++) {
		if (!(want[c / 8] & (1U << (c % 8))))
			continue;
		used += (size_t)sprintf(cfg->cpu_list + used, "%s%d", cfg->ncpus ? "," : "", c);
		cfg->cpus[cfg->ncpus++] = c;
	}
	return 0;
}

/* ---- events -------------------------------------------------------------- */

static void free_counters(struct stat_state *s)
{
	/* Members before their leaders: a leader closed first would leave them ungrouped. */
	for (int e = s->nevents - 1; e >= 0; e--) {
		struct stat_event *ev = &s->events[e];
		for (int u = 0; ev->counters && u < s->nunits; u++)
			pev_counter_close(ev->counters[u]);
		free(ev->counters);
		ev->counters = NULL;
	}
}

static void state_free(struct stat_state *s)
{
	free_counters(s);
	for (int i = 0; i < s->nlists; i++)
		pev_event_list_free(s->lists[i]);
	free(s->events);
	free(s->units);
	free(s->keys);
	free(s->cfg.ids);
	free(s->cfg.cpus);
	free(s->cfg.cpu_list);
	if (s->cfg.out && s->cfg.out != stderr)
		fclose(s->cfg.out);
}

/* Parses one -e list and adds its events. Returns 0 or an exit status. */
static int add_events(struct stat_state *s, const char *text)
{
	struct pev_event_list *list;
	struct pev_error err;
	int leader = -1;

	if (s->nlists == MAX_LISTS) {
		cli_error("too many -e options (at most %d)", MAX_LISTS);
		return 129;
	}
	if (pev_event_parse(text, NULL, &list, &err) < 0) {
		cli_print_error(&err);
		return 129;
	}
	s->lists[s->nlists++] = list;
	for (int i = 0; i < pev_event_list_count(list); i++) {
		const struct pev_event_spec *spec = pev_event_list_at(list, i);
		if (s->nevents == s->cap) {
			s->cap = s->cap ? s->cap * 2 : 16;
			s->events = realloc(s->events, sizeof(*s->events) * (size_t)s->cap);
			if (!s->events) {
				cli_error("out of memory");
				exit(1);
			}
		}
		struct stat_event *ev = &s->events[s->nevents];
		memset(ev, 0, sizeof(*ev));
		ev->spec = spec;
		ev->cls = stat_classify(spec);
		snprintf(ev->name, sizeof(ev->name), "%s", spec->ev.name);
		if (spec->group_leader)
			leader = s->nevents;
		ev->leader = spec->group >= 0 && !spec->group_leader ? leader : -1;
		if (ev->leader >= 0)
			s->events[ev->leader].has_members = true;
		s->nevents++;
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
 * Opens event e on unit u (in its leader's group there). Every counter
 * starts disabled: group leaders and lone events are enabled at the
 * command's exec (command targets) or by enable_all(); members follow their
 * leader. Like perf, an event whose string chose no privilege levels falls
 * back to user space only when counting the kernel is refused; tracepoints
 * do not, since they fire in the kernel. Returns 0 or the error code.
 */
static int open_on_unit(struct stat_state *s, int e, int u, struct pev_error *err)
{
	struct stat_event *ev = &s->events[e];
	const struct pev_event_spec *spec = ev->spec;
	const struct pev_target *target = &s->units[u];
	struct pev_opts o = spec->opts;
	struct pev_counter *group = NULL;

	if (ev->leader >= 0) {
		group = s->events[ev->leader].counters[u];
		if (!group) {
			memset(err, 0, sizeof(*err));
			err->code = PEV_EBADF;
			snprintf(err->event, sizeof(err->event), "%.*s",
			         (int)sizeof(err->event) - 1, ev->name);
			snprintf(err->message, sizeof(err->message),
			         "cannot open '%s': its group leader '%s' is not open", ev->name,
			         s->events[ev->leader].name);
			return PEV_EBADF;
		}
	}
	bool command = s->cfg.target == STAT_TARGET_COMMAND;
	o.disabled = !group;
	o.enable_on_exec = !group && command;
	if (target->pid != PEV_PID_ANY)
		o.inherit = PEV_INHERIT_ALL;
	o.read_format |= PEV_FORMAT_TOTAL_TIME_ENABLED | PEV_FORMAT_TOTAL_TIME_RUNNING;
	if (ev->has_members || group)
		o.read_format |= PEV_FORMAT_ID;
	if (ev->has_members)
		o.read_format |= PEV_FORMAT_GROUP;
	int r = pev_counter_open(&spec->ev, &o, target, group, &ev->counters[u], err);
	if ((r == PEV_EACCES || r == PEV_EPERM) && !chose_levels(&spec->opts) &&
	    spec->ev.type != PEV_TYPE_TRACEPOINT) {
		struct pev_error user_err;
		o.exclude_kernel = true;
		o.exclude_hv = true;
		if (pev_counter_open(&spec->ev, &o, target, group, &ev->counters[u], &user_err) ==
		    0) {
			if (!strstr(ev->name, ":u"))
				strncat(ev->name, ":u", sizeof(ev->name) - strlen(ev->name) - 1);
			r = 0;
		}
	}
	return r;
}

/* Opens every event on every unit. An event that opens on no unit is marked so. */
static void open_events(struct stat_state *s)
{
	for (int e = 0; e < s->nevents; e++) {
		struct stat_event *ev = &s->events[e];
		struct pev_error err;
		int code = 0, opened = 0;

		ev->counters = xcalloc((size_t)s->nunits, sizeof(*ev->counters));
		for (int u = 0; u < s->nunits; u++) {
			int r = open_on_unit(s, e, u, &err);
			if (r == 0) {
				opened++;
			} else if (!code) {
				code = r;
				ev->err = err;
			}
		}
		if (opened)
			ev->open = STAT_OPEN_OK;
		else
			ev->open =
			    unsupported_here(code) ? STAT_OPEN_UNSUPPORTED : STAT_OPEN_FAILED;
	}
}

/* Enables every leader and lone event (the members follow). */
static void enable_all(struct stat_state *s)
{
	for (int e = 0; e < s->nevents; e++) {
		struct stat_event *ev = &s->events[e];
		for (int u = 0; ev->leader < 0 && u < s->nunits; u++)
			if (ev->counters[u] && pev_counter_enable(ev->counters[u]) < 0)
				cli_warning("cannot enable '%s': %s", ev->name, strerror(errno));
	}
}

/* The name of thread tid (its comm), or "?" when it is gone. */
static void read_comm(pid_t tid, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	FILE *f = fopen(path, "re");
	if (!f || !fgets(buf, (int)size, f))
		snprintf(buf, size, "?");
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

static int find_key(const struct stat_state *s, int cpu, pid_t tid)
{
	for (int k = 0; k < s->nkeys; k++)
		if (s->keys[k].cpu == cpu && s->keys[k].tid == tid)
			return k;
	return -1;
}

static void add_key(struct stat_state *s, int cpu, pid_t tid)
{
	if (find_key(s, cpu, tid) >= 0)
		return;
	if (s->nkeys == s->key_cap) {
		s->key_cap = s->key_cap ? s->key_cap * 2 : 16;
		s->keys = realloc(s->keys, sizeof(*s->keys) * (size_t)s->key_cap);
		if (!s->keys) {
			cli_error("out of memory");
			exit(1);
		}
	}
	struct stat_key *k = &s->keys[s->nkeys++];
	memset(k, 0, sizeof(*k));
	k->cpu = cpu;
	k->tid = tid;
	if (tid >= 0)
		read_comm(tid, k->comm, sizeof(k->comm));
}

/* The rows of each event: one; one per CPU; or one per thread the counters hold. */
static void make_keys(struct stat_state *s)
{
	s->nkeys = 0;
	if (s->cfg.aggr == STAT_AGGR_GLOBAL) {
		add_key(s, -1, -1);
	} else if (s->cfg.aggr == STAT_AGGR_CPU) {
		for (int i = 0; i < s->cfg.ncpus; i++)
			add_key(s, s->cfg.cpus[i], -1);
	} else {
		for (int e = 0; e < s->nevents; e++)
			for (int u = 0; s->events[e].counters && u < s->nunits; u++) {
				struct pev_counter *c = s->events[e].counters[u];
				for (int i = 0; c && i < pev_counter_nr_fds(c); i++)
					add_key(s, -1, pev_counter_tid(c, i));
			}
		if (s->nkeys == 0)
			add_key(s, -1, -1);
	}
}

/* ---- reading ------------------------------------------------------------- */

static void add_count(struct raw *r, const struct pev_count *c)
{
	r->value += c->value;
	r->enabled += c->time_enabled;
	r->running += c->time_running;
}

/* A failed read: the event shows <not counted> with the diagnosis. */
static void read_failed(struct stat_event *ev, int code)
{
	pev_diagnose_call("read", ev->name, -code, &ev->err);
	ev->open = STAT_OPEN_FAILED;
}

/* Reads a whole group on unit u with one read per descriptor into out[]. */
static void read_group(struct stat_state *s, int e, int u, struct raw *out)
{
	struct pev_count counts[64];
	int members[64], n = 0;

	members[n++] = e;
	for (int m = e + 1; m < s->nevents && n < 64; m++)
		if (s->events[m].leader == e && s->events[m].counters[u])
			members[n++] = m;
	int got = pev_counter_read_group(s->events[e].counters[u], counts, n);
	if (got < 0) {
		for (int i = 0; i < n; i++)
			read_failed(&s->events[members[i]], got);
		return;
	}
	for (int i = 0; i < got; i++)
		add_count(&out[members[i] * s->nkeys], &counts[i]);
}

/* Reads every open counter into out[event * nkeys + key] (zeroed first). */
static void read_all(struct stat_state *s, struct raw *out)
{
	memset(out, 0, sizeof(*out) * (size_t)s->nevents * (size_t)s->nkeys);
	for (int e = 0; e < s->nevents; e++) {
		struct stat_event *ev = &s->events[e];
		if (ev->open != STAT_OPEN_OK)
			continue;
		for (int u = 0; u < s->nunits; u++) {
			struct pev_counter *c = ev->counters[u];
			struct pev_count count;
			int r = 0;
			if (!c)
				continue;
			if (s->cfg.aggr == STAT_AGGR_GLOBAL) {
				if (ev->has_members)
					read_group(s, e, u, out);
				else if (ev->leader < 0 && (r = pev_counter_read(c, &count)) == 0)
					add_count(&out[e * s->nkeys], &count);
			} else {
				for (int i = 0; r == 0 && i < pev_counter_nr_fds(c); i++) {
					int cpu = s->cfg.aggr == STAT_AGGR_CPU
					              ? pev_counter_cpu(c, i)
					              : -1;
					pid_t tid = s->cfg.aggr == STAT_AGGR_THREAD
					                ? pev_counter_tid(c, i)
					                : -1;
					int k = find_key(s, cpu, tid);
					if (k >= 0 && (r = pev_counter_read_fd(c, i, &count)) == 0)
						add_count(&out[e * s->nkeys + k], &count);
				}
			}
			if (r < 0) {
				read_failed(ev, r);
				break;
			}
		}
	}
}

/* Turns counts (or the deltas now - prev) into cells. */
static void make_cells(const struct stat_state *s, const struct raw *now, const struct raw *prev,
                       struct stat_cell *cells)
{
	for (int e = 0; e < s->nevents; e++) {
		for (int k = 0; k < s->nkeys; k++) {
			int i = e * s->nkeys + k;
			struct stat_cell *cell = &cells[i];
			memset(cell, 0, sizeof(*cell));
			if (s->events[e].open != STAT_OPEN_OK) {
				cell->state = s->events[e].open == STAT_OPEN_UNSUPPORTED
				                  ? STAT_CELL_NOT_SUPPORTED
				                  : STAT_CELL_NOT_COUNTED;
				continue;
			}
			struct pev_count c = {0};
			c.value = now[i].value - (prev ? prev[i].value : 0);
			c.time_enabled = now[i].enabled - (prev ? prev[i].enabled : 0);
			c.time_running = now[i].running - (prev ? prev[i].running : 0);
			pev_count_scale(&c);
			/*
			 * Both times are always read, so no running time means no count,
			 * as in perf: a task's times stand still while it sleeps.
			 */
			if (c.time_running == 0)
				c.counted = false;
			cell->state = c.counted ? STAT_CELL_COUNTED : STAT_CELL_NOT_COUNTED;
			cell->value = c.counted ? (double)c.scaled : 0;
			cell->enabled = (double)c.time_enabled;
			cell->running = (double)c.time_running;
		}
	}
}

/* The square root by Newton's method: perfev does not link libm, to start fast. */
static double square_root(double x)
{
	double r = x > 1 ? x : 1;

	if (x <= 0)
		return 0;
	for (int i = 0; i < 200; i++) {
		double next = (r + x / r) / 2;
		if (next >= r)
			break;
		r = next;
	}
	return r;
}

/* The standard deviation of the mean (0 for fewer than two values). */
static double sd_of_mean(const struct acc *a)
{
	return a->n < 2 ? 0 : square_root(a->m2 / (a->n - 1) / a->n);
}

/* The standard deviation of the mean, in % of the mean (perf's "+-"). */
static double noise_pct(const struct acc *a)
{
	if (a->n < 2 || a->mean == 0)
		return 0;
	return 100.0 * sd_of_mean(a) / (a->mean < 0 ? -a->mean : a->mean);
}

/* The -r means into cells (states from the last run where nothing counted). */
static void acc_cells(const struct acc *a, struct stat_cell *cells, int n)
{
	for (int i = 0; i < n; i++) {
		if (a[i].n == 0)
			continue;
		cells[i].state = STAT_CELL_COUNTED;
		cells[i].value = a[i].mean;
		cells[i].enabled = a[i].enabled;
		cells[i].running = a[i].running;
		cells[i].noise_pct = noise_pct(&a[i]);
	}
}

/* ---- waiting ------------------------------------------------------------- */

static int wake_pipe[2] = {-1, -1};
static volatile sig_atomic_t stop_signal;

/* SIGCHLD, SIGINT (without a command) and SIGTERM wake the loop up. */
static void on_signal(int sig)
{
	int saved = errno;

	if (sig != SIGCHLD)
		stop_signal = sig;
	if (write(wake_pipe[1], "", 1) < 0) {
		/* The pipe is full: the loop is awake already. */
	}
	errno = saved;
}

static void drain_wake_pipe(void)
{
	char buf[64];

	while (read(wake_pipe[0], buf, sizeof(buf)) > 0)
		;
}

/*
 * Installs the handlers. With a command, SIGINT is ignored: the terminal
 * sends it to the command too, which ends, and perfev prints the counts.
 */
static int signals_setup(bool command)
{
	struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_NOCLDSTOP};
	struct sigaction ign = {.sa_handler = SIG_IGN};

	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		cli_error("cannot create a pipe: %s", strerror(errno));
		return 1;
	}
	sigemptyset(&sa.sa_mask);
	sigemptyset(&ign.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, command ? &ign : &sa, NULL);
	return 0;
}

static void signals_restore(void)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};

	sigemptyset(&dfl.sa_mask);
	sigaction(SIGCHLD, &dfl, NULL);
	sigaction(SIGTERM, &dfl, NULL);
	sigaction(SIGINT, &dfl, NULL);
	close(wake_pipe[0]);
	close(wake_pipe[1]);
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
	w->pidfds = xcalloc((size_t)w->n, sizeof(int));
	w->gone = xcalloc((size_t)w->n, sizeof(bool));
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
		    ((kill(cfg->ids[i], 0) < 0 && errno == ESRCH) || !task_exists(cfg->ids[i])))
			w->gone[i] = true;
		all = all && w->gone[i];
	}
	return all;
}

/* ---- running --------------------------------------------------------------- */

/*
 * Starts the command with posix_spawnp (no fork of perfev's whole address
 * space): default SIGINT, SIGTERM and SIGCHLD, no blocked signals. With the
 * command as the target, the counters were opened on perfev itself with
 * inherit and enable_on_exec: the child inherits them, and they start at
 * its exec, while perfev's own copies never run. Returns 0 or an errno.
 */
static int spawn_command(char **argv, pid_t *child)
{
	posix_spawnattr_t attr;
	sigset_t none, dfl;

	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGCHLD);
	int r = posix_spawnattr_init(&attr);
	if (r != 0)
		return r;
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	r = posix_spawnp(child, argv[0], NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	return r;
}

/* Says why the command could not start; returns 127 (not found) or 126. */
static int exec_error(const char *cmd, int e)
{
	if (e == ENOENT && !strchr(cmd, '/')) {
		cli_error("cannot run '%s': command not found (not in PATH)", cmd);
		return 127;
	}
	if (e == ENOENT) {
		cli_error("cannot run '%s': no such file", cmd);
		return 127;
	}
	if (e == EACCES)
		cli_error("cannot run '%s': permission denied (not an executable file, or no "
		          "execute permission)",
		          cmd);
	else if (e == ENOEXEC)
		cli_error("cannot run '%s': not an executable format", cmd);
	else
		cli_error("cannot run '%s': %s", cmd, strerror(e));
	return 126;
}

/* What make_report needs besides the cells. */
static struct stat_report make_report(const struct stat_state *s, const struct stat_cell *cells)
{
	struct stat_report r;

	memset(&r, 0, sizeof(r));
	r.cfg = &s->cfg;
	r.events = s->events;
	r.nevents = s->nevents;
	r.keys = s->keys;
	r.nkeys = s->nkeys;
	r.cells = cells;
	r.timestamp_s = -1;
	r.exit_status = -1;
	return r;
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
	double now = now_ns();

	read_all(s, t->now);
	make_cells(s, t->now, t->prev, t->cells);
	struct stat_report r = make_report(s, t->cells);
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
	struct pollfd *fds = xcalloc((size_t)w.n + 1, sizeof(*fds));
	fds[0].fd = wake_pipe[0];
	fds[0].events = POLLIN;
	for (int i = 0; i < w.n; i++) {
		fds[1 + i].fd = w.pidfds[i];
		fds[1 + i].events = POLLIN;
	}
	for (;;) {
		int timeout = -1;
		if (t) {
			double left = (next - now_ns()) / 1e6;
			timeout = left <= 0 ? 0 : (int)left + 1;
		}
		if (watch_polls(&w) && (timeout < 0 || timeout > TARGET_POLL_MS))
			timeout = TARGET_POLL_MS;
		int n = poll(fds, (nfds_t)w.n + 1, timeout);
		if (n < 0 && errno != EINTR) {
			cli_warning("poll: %s", strerror(errno));
			break;
		}
		drain_wake_pipe();
		if (child > 0 && wait4(child, status, WNOHANG, ru) == child)
			break;
		if (stop_signal && child <= 0)
			break;
		if (stop_signal == SIGTERM && child > 0 && !forwarded) {
			kill(child, SIGTERM);
			forwarded = true;
		}
		if (child <= 0 && watch_all_gone(&w, &s->cfg, fds))
			break;
		if (t && now_ns() >= next) {
			tick(s, t);
			next += s->cfg.interval_ms * 1e6;
			if (next < now_ns()) /* late (a stopped perfev): skip, do not burst */
				next = now_ns() + s->cfg.interval_ms * 1e6;
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
static struct stat_cell *run_once(struct stat_state *s, struct stat_json *json,
                                  struct run_result *res)
{
	struct stat_config *cfg = &s->cfg;
	struct stat_cell *cells = NULL;
	int status = 0;
	pid_t child = -1;

	memset(res, 0, sizeof(*res));
	open_events(s);
	make_keys(s);
	if (cfg->target != STAT_TARGET_COMMAND)
		enable_all(s);

	size_t ncells = (size_t)s->nevents * (size_t)s->nkeys;
	struct ticker t = {0}, *tp = NULL;
	double t0 = now_ns();
	if (cfg->interval_ms) {
		t.prev = xcalloc(ncells, sizeof(struct raw));
		t.now = xcalloc(ncells, sizeof(struct raw));
		t.cells = xcalloc(ncells, sizeof(struct stat_cell));
		t.start_ns = t.last_ns = t0;
		t.json = json;
		tp = &t;
	}
	if (cfg->argv) {
		int e = spawn_command(cfg->argv, &child);
		if (e != 0) {
			res->exit_code = exec_error(cfg->argv[0], e);
			res->exec_failed = true;
			goto out;
		}
	}
	wait_loop(s, child, tp, &status, &res->ru);
	res->elapsed_ns = now_ns() - t0;
	if (tp)
		tick(s, tp); /* the last, partial interval */
	struct raw *totals = xcalloc(ncells, sizeof(struct raw));
	cells = xcalloc(ncells, sizeof(struct stat_cell));
	read_all(s, totals);
	make_cells(s, totals, NULL, cells);
	free(totals);
	if (child > 0) {
		res->have_rusage = cfg->target == STAT_TARGET_COMMAND;
		if (WIFSIGNALED(status)) {
			int sig = WTERMSIG(status);
			fprintf(stderr, "%s: %s\n", cfg->argv[0], strsignal(sig));
			res->exit_code = 128 + sig;
			res->interrupted = sig == SIGINT || sig == SIGTERM || stop_signal;
		} else {
			res->exit_code = WEXITSTATUS(status);
			res->interrupted = stop_signal != 0;
		}
	}
out:
	free(t.prev);
	free(t.now);
	free(t.cells);
	return cells;
}

static void acc_value(struct acc *a, double v)
{
	a->n++;
	double d = v - a->mean;
	a->mean += d / a->n;
	a->m2 += d * (v - a->mean);
}

/* Runs cfg->repeat times (or once, printing intervals) and prints the counts. */
static int run_all(struct stat_state *s)
{
	struct stat_config *cfg = &s->cfg;
	struct stat_json *json = cfg->json ? stat_json_new(cfg) : NULL;
	struct stat_cell *cells = NULL;
	struct acc *acc = NULL, elapsed = {0};
	struct run_result res = {0};
	size_t ncells = 0;
	int runs = 0;

	for (int i = 0; i < cfg->repeat; i++) {
		if (i > 0)
			free_counters(s);
		free(cells);
		cells = run_once(s, json, &res);
		if (res.exec_failed) {
			free(cells);
			free(acc);
			stat_json_free(json);
			return res.exit_code;
		}
		runs++;
		/* -r keeps the same keys run after run: one, or the CPUs. */
		ncells = (size_t)s->nevents * (size_t)s->nkeys;
		if (!acc)
			acc = xcalloc(ncells, sizeof(*acc));
		for (size_t k = 0; k < ncells; k++) {
			if (cells[k].state != STAT_CELL_COUNTED)
				continue;
			acc_value(&acc[k], cells[k].value);
			acc[k].enabled += (cells[k].enabled - acc[k].enabled) / acc[k].n;
			acc[k].running += (cells[k].running - acc[k].running) / acc[k].n;
		}
		acc_value(&elapsed, res.elapsed_ns);
		if (res.interrupted)
			break;
	}
	if (runs > 1)
		acc_cells(acc, cells, (int)ncells);

	struct stat_report r = make_report(s, cells);
	r.runs = runs;
	r.elapsed_ns = elapsed.mean;
	r.elapsed_noise_pct = noise_pct(&elapsed);
	r.elapsed_sd_ns = sd_of_mean(&elapsed);
	r.have_rusage = runs == 1 && res.have_rusage;
	r.user_s = (double)res.ru.ru_utime.tv_sec + (double)res.ru.ru_utime.tv_usec / 1e6;
	r.sys_s = (double)res.ru.ru_stime.tv_sec + (double)res.ru.ru_stime.tv_usec / 1e6;
	r.exit_status = cfg->argv ? res.exit_code : -1;
	if (json)
		stat_json_finish(json, &r);
	else if (cfg->interval_ms)
		stat_print_notes(&r);
	else
		stat_print_totals(&r);
	fflush(cfg->out);
	free(cells);
	free(acc);
	return cfg->argv ? res.exit_code : 0;
}

/* ---- options ---------------------------------------------------------------- */

static void print_help(void)
{
	printf("usage: %s\n\n"
	       "Counts EVENTS (by default perf stat's set) while COMMAND runs, or on existing\n"
	       "processes (-p), threads (-t) or CPUs (-a, -C) until they exit or Ctrl-C, and\n"
	       "prints the counts as perf stat does.\n\n"
	       "  -e, --event EVENTS        events to count (perf's syntax; repeatable)\n"
	       "  -a, --all-cpus            count every task on every CPU\n"
	       "  -C, --cpu CPUS            count every task on these CPUs (\"0-3,7\")\n"
	       "  -p, --pid PIDS            count existing processes (comma-separated)\n"
	       "  -t, --tid TIDS            count existing threads (comma-separated)\n"
	       "  -A, --no-aggr             one row per CPU (with -a or -C)\n"
	       "      --per-thread          one row per thread (with -p or -t)\n"
	       "  -r, --repeat N            run COMMAND N times; print means and +- spread\n"
	       "  -I, --interval-print MS   print the counts of every MS milliseconds (>= %d)\n"
	       "  -x, --field-separator SEP print perf's CSV, fields separated by SEP\n"
	       "  -j, --json                print one JSON document\n"
	       "  -o, --output FILE         write to FILE instead of standard error\n"
	       "  -h, --help                print this help\n\n"
	       "'man perfev-stat' has the details.\n",
	       usage, MIN_INTERVAL_MS);
}

enum { OPT_PER_THREAD = 256 };

/* Reads the options into s. Returns 0, or the exit status to stop with. */
static int parse_options(struct stat_state *s, int argc, char **argv, bool *help)
{
	static const struct option options[] = {
	    {"event", required_argument, NULL, 'e'},
	    {"all-cpus", no_argument, NULL, 'a'},
	    {"cpu", required_argument, NULL, 'C'},
	    {"pid", required_argument, NULL, 'p'},
	    {"tid", required_argument, NULL, 't'},
	    {"no-aggr", no_argument, NULL, 'A'},
	    {"per-thread", no_argument, NULL, OPT_PER_THREAD},
	    {"repeat", required_argument, NULL, 'r'},
	    {"interval-print", required_argument, NULL, 'I'},
	    {"field-separator", required_argument, NULL, 'x'},
	    {"json", no_argument, NULL, 'j'},
	    {"json-output", no_argument, NULL, 'j'},
	    {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct stat_config *cfg = &s->cfg;
	const char *pids = NULL, *tids = NULL, *cpus = NULL, *output = NULL;
	bool all = false, no_aggr = false, per_thread = false, any_events = false;
	long v;
	int opt, r;

	cfg->repeat = 1;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:e:aC:p:t:Ar:I:x:jo:h", options, NULL)) != -1) {
		switch (opt) {
		case 'e':
			any_events = true;
			if ((r = add_events(s, optarg)) != 0)
				return r;
			break;
		case 'a':
			all = true;
			break;
		case 'C':
			cpus = optarg;
			break;
		case 'p':
			pids = optarg;
			break;
		case 't':
			tids = optarg;
			break;
		case 'A':
			no_aggr = true;
			break;
		case OPT_PER_THREAD:
			per_thread = true;
			break;
		case 'r':
			if (!cli_parse_long(optarg, "", 1, MAX_REPEAT, &v))
				return bad_value('r', "a number of runs >= 1", optarg);
			cfg->repeat = (int)v;
			break;
		case 'I':
			if (!cli_parse_long(optarg, "", MIN_INTERVAL_MS, MAX_INTERVAL_MS, &v))
				return bad_value('I', "a number of milliseconds >= 10", optarg);
			cfg->interval_ms = (int)v;
			break;
		case 'x':
			if (!optarg[0])
				return bad_value('x', "a separator of one or more characters",
				                 optarg);
			cfg->sep = optarg;
			break;
		case 'j':
			cfg->json = true;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			*help = true;
			return 0;
		case ':':
			cli_error("option '%s' needs a value", argv[optind - 1]);
			return cli_usage(usage);
		default:
			if (optopt)
				cli_error("unknown option '-%c'", optopt);
			else
				cli_error("unknown option '%s'", argv[optind - 1]);
			return cli_usage(usage);
		}
	}
	if (optind < argc)
		cfg->argv = argv + optind;

	/* Combinations. */
	if (pids && tids)
		return conflict("-p", "-t");
	if ((pids || tids) && (all || cpus))
		return conflict(pids ? "-p" : "-t", all ? "-a" : "-C");
	if (no_aggr && per_thread)
		return conflict("-A", "--per-thread");
	if (no_aggr && !all && !cpus) {
		cli_error("option '-A' needs CPU-wide counting (-a or -C)");
		return cli_usage(usage);
	}
	if (per_thread && !pids && !tids) {
		cli_error("option '--per-thread' needs threads to count (-p or -t)");
		return cli_usage(usage);
	}
	if (cfg->sep && cfg->json)
		return conflict("-x", "-j");
	if (cfg->interval_ms && cfg->repeat > 1)
		return conflict("-I", "-r");
	if (per_thread && cfg->repeat > 1)
		return conflict("--per-thread", "-r");
	if (!cfg->argv && !pids && !tids && !all && !cpus) {
		cli_error("no command to run (and no -p, -t, -a or -C to count instead)");
		return cli_usage(usage);
	}
	if (!cfg->argv && cfg->repeat > 1) {
		cli_error("option '-r' needs a command to repeat");
		return cli_usage(usage);
	}

	/* Values. */
	if (pids) {
		cfg->target = STAT_TARGET_PROCESS;
		cfg->target_text = pids;
		if ((r = parse_ids('p', pids, &cfg->ids, &cfg->nids)) != 0)
			return r;
	} else if (tids) {
		cfg->target = STAT_TARGET_THREAD;
		cfg->target_text = tids;
		if ((r = parse_ids('t', tids, &cfg->ids, &cfg->nids)) != 0)
			return r;
	} else if (all || cpus) {
		cfg->target = all ? STAT_TARGET_SYSTEM : STAT_TARGET_CPUS;
		cfg->target_text = cpus;
		if ((r = parse_cpus(cfg, cpus)) != 0)
			return r;
	}
	cfg->aggr = no_aggr ? STAT_AGGR_CPU : per_thread ? STAT_AGGR_THREAD : STAT_AGGR_GLOBAL;
	if (!any_events && (r = add_events(s, default_events)) != 0)
		return r;
	cfg->out = stderr;
	if (output && !(cfg->out = fopen(output, "we"))) {
		cli_error("option '-o': cannot open '%s' for writing: %s", output, strerror(errno));
		cfg->out = NULL;
		return 1;
	}
	return 0;
}

/* The units each event opens on. */
static void make_units(struct stat_state *s)
{
	const struct stat_config *cfg = &s->cfg;

	s->nunits =
	    cfg->target == STAT_TARGET_PROCESS || cfg->target == STAT_TARGET_THREAD ? cfg->nids : 1;
	s->units = xcalloc((size_t)s->nunits, sizeof(*s->units));
	for (int u = 0; u < s->nunits; u++) {
		switch (cfg->target) {
		case STAT_TARGET_COMMAND:
			/* perfev itself: the command inherits the counters (spawn_command). */
			s->units[u] = pev_target_self();
			break;
		case STAT_TARGET_PROCESS:
			s->units[u] = pev_target_process(cfg->ids[u]);
			break;
		case STAT_TARGET_THREAD:
			s->units[u] = pev_target_thread(cfg->ids[u]);
			break;
		case STAT_TARGET_CPUS:
		case STAT_TARGET_SYSTEM:
			s->units[u] = pev_target_cpu_list(cfg->cpu_list);
			break;
		}
	}
}

int cmd_stat(int argc, char **argv)
{
	struct stat_state s;
	bool help = false;
	int r;

	memset(&s, 0, sizeof(s));
	r = parse_options(&s, argc, argv, &help);
	if (help) {
		print_help();
		state_free(&s);
		return 0;
	}
	if (r != 0) {
		state_free(&s);
		return r;
	}
	make_units(&s);
	if (signals_setup(s.cfg.argv != NULL) != 0) {
		state_free(&s);
		return 1;
	}
	r = run_all(&s);
	signals_restore();
	state_free(&s);
	return r;
}

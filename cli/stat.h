/* SPDX-License-Identifier: MIT */
/*
 * stat.h - what `perfev stat` counts (cmd_stat.c) and prints (stat_print.c)
 * share: the configuration from the command line, the events, and one
 * report: a table of cells, one per event and aggregation key (the whole
 * target, a CPU, or a thread).
 */
#ifndef PERFEV_CLI_STAT_H
#define PERFEV_CLI_STAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cli.h"

/* What the counters are attached to. */
enum stat_target {
	STAT_TARGET_COMMAND, /* the command perfev runs, and its descendants */
	STAT_TARGET_PROCESS, /* -p: every thread of existing processes */
	STAT_TARGET_THREAD,  /* -t: existing threads */
	STAT_TARGET_CPUS,    /* -C without -a: every task on some CPUs */
	STAT_TARGET_SYSTEM,  /* -a: every task on every (or -C's) CPU */
};

/* How counts are summed for printing. */
enum stat_aggr {
	STAT_AGGR_GLOBAL, /* one row per event */
	STAT_AGGR_CPU,    /* -A: one row per event and CPU */
	STAT_AGGR_THREAD, /* --per-thread: one row per event and thread */
};

/* The command line, checked. */
struct stat_config {
	char **argv; /* the command and its arguments, NULL-terminated; NULL if none */
	char *path;  /* the file argv[0] names, as cli_check_command found it (owned) */
	enum stat_target target;
	const char *target_text; /* -p, -t or -C as given (for the heading) */
	pid_t *ids;              /* -p pids or -t tids */
	int nids;
	int *cpus; /* -a / -C: the CPUs, ascending */
	int ncpus;
	char *cpu_list; /* the same as a list for pev_target_cpu_list ("0,1") */
	enum stat_aggr aggr;
	int repeat;      /* -r: runs of the command (1 without -r) */
	int interval_ms; /* -I, or 0 */
	const char *sep; /* -x: CSV output with this separator, or NULL */
	bool json;       /* --json: one document */
	bool json_lines; /* -j: perf's JSON, one object per line */
	bool big_num;    /* text: the locale's thousands separators (--no-big-num: off) */
	FILE *out;       /* -o FILE, or stderr */
	const char *out_name; /* -o FILE's name, for messages; NULL for stderr */
	const char *serve;    /* --serve [ADDR:]PORT, or NULL */
};

/* Events whose counts feed a metric of another event. */
enum stat_class {
	STAT_CLASS_OTHER,
	STAT_CLASS_TASK_CLOCK,
	STAT_CLASS_CPU_CLOCK,
	STAT_CLASS_CYCLES,
	STAT_CLASS_INSTRUCTIONS,
	STAT_CLASS_BRANCHES,
	STAT_CLASS_BRANCH_MISSES,
	STAT_CLASS_CACHE_REFS,
	STAT_CLASS_CACHE_MISSES,
	STAT_CLASS_STALLED_FRONTEND,
	STAT_CLASS_STALLED_BACKEND,
	STAT_CLASS_L1D_LOADS,
	STAT_CLASS_L1D_LOAD_MISSES,
	STAT_CLASS_L1I_LOADS,
	STAT_CLASS_L1I_LOAD_MISSES,
	STAT_CLASS_LL_LOADS,
	STAT_CLASS_LL_LOAD_MISSES,
	STAT_CLASS_DTLB_LOADS,
	STAT_CLASS_DTLB_LOAD_MISSES,
	STAT_CLASS_ITLB_LOADS,
	STAT_CLASS_ITLB_LOAD_MISSES,
	STAT_CLASS_COUNT
};

/* Whether an event could be opened. */
enum stat_open {
	STAT_OPEN_OK,
	STAT_OPEN_UNSUPPORTED, /* this machine lacks it: <not supported> */
	STAT_OPEN_FAILED,      /* any other failure, or a failed read: <not counted> */
};

/* perf's tool events: measured by perfev, not opened (stat_tool.c). */
enum stat_tool {
	STAT_TOOL_NONE,     /* a perf_event_open(2) event */
	STAT_TOOL_DURATION, /* duration_time: wall time, ns */
	STAT_TOOL_USER,     /* user_time: the command's user CPU time, ns */
	STAT_TOOL_SYSTEM,   /* system_time: the command's kernel CPU time, ns */
};

/* One event of the -e lists. */
struct stat_event {
	enum stat_tool tool;               /* STAT_TOOL_NONE but for tool events */
	char name[160];                    /* as printed: ":u" added when perfev fell back */
	const struct pev_event_spec *spec; /* owned by the parsed lists */
	int leader;                        /* index of its group leader, -1 outside groups */
	bool has_members;                  /* leads a group with members */
	enum stat_class cls;
	enum stat_open open;
	struct pev_error err;          /* why it is not open (open != STAT_OPEN_OK) */
	struct pev_counter **counters; /* one per target unit; NULL where it did not open */
	char *cgroup;     /* -G, --for-each-cgroup: the cgroup's name as given (owned), or NULL */
	char *cgroup_dir; /* its directory (owned) */
};

/* What a row is about besides its event: a CPU (-A) or a thread (--per-thread). */
struct stat_key {
	int cpu;       /* -1 when not per CPU */
	pid_t tid;     /* -1 when not per thread */
	char comm[17]; /* the thread's name */
};

/* The state of one cell of the report. */
enum stat_cell_state {
	STAT_CELL_COUNTED,
	STAT_CELL_NOT_COUNTED,   /* never ran (or the event failed to open or read) */
	STAT_CELL_NOT_SUPPORTED, /* the event does not exist here */
};

/* One event at one key: the count and its times, means over the runs. */
struct stat_cell {
	enum stat_cell_state state;
	double value;     /* the count, scaled for multiplexing */
	double enabled;   /* ns the counter was enabled */
	double running;   /* ns it was on the PMU */
	double noise_pct; /* -r: standard deviation of the mean, % of the mean; 0 otherwise */
};

/* Everything one printout needs. */
struct stat_report {
	const struct stat_config *cfg;
	const struct stat_event *events;
	int nevents;
	const struct stat_key *keys;
	int nkeys;
	const struct stat_cell *cells; /* cells[event * nkeys + key] */
	int runs;                      /* runs that finished */
	double elapsed_ns;             /* wall time (mean over runs), or the interval's length */
	double elapsed_noise_pct;      /* -r: of the elapsed time */
	double elapsed_sd_ns;          /* -r: standard deviation of its mean */
	bool have_rusage;              /* user_s and sys_s are the command's */
	double user_s, sys_s;
	double timestamp_s; /* -I: seconds since counting started; < 0 for totals */
	int exit_status;    /* the command's, or -1 without a command */
};

/* Returns the class of an event spec (what metrics it feeds or has). */
enum stat_class stat_classify(const struct pev_event_spec *spec);

/* Text and CSV: the counts of a finished run (or runs): heading, rows, times, notes. */
void stat_print_totals(const struct stat_report *r);

/* Text and CSV: one interval's rows (the heading line every 25 intervals). */
void stat_print_interval(const struct stat_report *r, int nth);

/* Text: the notes that explain <not supported> and <not counted> rows. */
void stat_print_notes(const struct stat_report *r);

/* JSON: collects intervals, then prints the one document at the end. */
struct stat_json;
struct stat_json *stat_json_new(const struct stat_config *cfg);
void stat_json_add_interval(struct stat_json *j, const struct stat_report *r);
/* Prints the document with r's totals, and frees j. */
void stat_json_finish(struct stat_json *j, const struct stat_report *r);
void stat_json_free(struct stat_json *j);

/* ---- counting and running (stat_count.c, stat_run.c, cmd_stat.c) ---------------- */

#include <sys/resource.h>

#define MAX_LISTS       64      /* most -e options */
#define MIN_INTERVAL_MS 10      /* -I */
#define MAX_INTERVAL_MS 86400000
#define MAX_REPEAT      1000000 /* -r */
#define TARGET_POLL_MS  100     /* how often to look for exited targets without pidfds */

struct stat_server;

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
	double start_ns;   /* when this run's counting started (duration_time) */
	double end_ns;     /* when it ended; 0 while it runs */
	bool have_rusage;  /* ru is the ended command's (user_time, system_time) */
	struct rusage ru;
	struct stat_server *server; /* --serve's, or NULL */
	int ncgroups;                /* -G names given so far, empty ones included */
	const char *pending_cgroups; /* a -G given before any -e: for the default events */
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
	bool nothing_open; /* no event could be opened on any target unit */
};

/* stat_count.c: the events, the counters on the target units, the rows, the counts. */

/* Closes every counter (members before their leaders). */
void stat_counters_free(struct stat_state *s);

/* Frees everything s holds, closing -o's file. */
int stat_state_free(struct stat_state *s);

/* Adds a cleared event at the end of s's events and returns it. */
struct stat_event *stat_new_event(struct stat_state *s);

/* Parses one event list (no tool events) and adds its events. Returns 0 or an exit status. */
int stat_add_parsed_events(struct stat_state *s, const char *text);

/* Sets the units each event opens on from the target. */
void stat_make_units(struct stat_state *s);

/* Opens every event on every unit; a failure is kept in the event's row. */
void stat_open_events(struct stat_state *s);

/* Enables every leader and lone event (the members follow). */
void stat_enable_all(struct stat_state *s);

/* Sets the rows of each event: one; one per CPU; or one per thread the counters hold. */
void stat_make_keys(struct stat_state *s);

/* Reads every open counter into out[event * nkeys + key] (zeroed first). */
void stat_read_all(struct stat_state *s, struct raw *out);

/* Turns counts (or the deltas now - prev) into cells. */
void stat_make_cells(const struct stat_state *s, const struct raw *now, const struct raw *prev,
                     struct stat_cell *cells);

/* Adds one value to a -r accumulator. */
void stat_acc_value(struct acc *a, double v);

/* The standard deviation of the mean (0 for fewer than two values). */
double stat_sd_of_mean(const struct acc *a);

/* The standard deviation of the mean, in % of the mean (perf's "+-"). */
double stat_noise_pct(const struct acc *a);

/* The -r means into cells (states from the last run where nothing counted). */
void stat_acc_cells(const struct acc *a, struct stat_cell *cells, int n);

/* A report of s with these cells, the rest of its fields cleared. */
struct stat_report stat_make_report(const struct stat_state *s, const struct stat_cell *cells);

/* stat_cgroup.c: -G and --for-each-cgroup. */

/* -G LIST: gives the events named so far their cgroups. Returns 0 or an exit status (said). */
int stat_cgroup_option(struct stat_state *s, const char *list);

/* Applies a -G given before any event, to the (default) events now there. 0 or an exit status. */
int stat_cgroup_pending(struct stat_state *s);

/* --for-each-cgroup LIST: every event once per cgroup. Returns 0 or an exit status (said). */
int stat_for_each_cgroup(struct stat_state *s, const char *list);

/* Whether two events count the same cgroup (or none). */
bool stat_cgroup_same(const struct stat_event *a, const struct stat_event *b);

/* stat_tool.c: duration_time, user_time, system_time. */

/*
 * Adds the events of one -e list: tool events by name, the rest parsed.
 * Returns 0 or an exit status.
 */
int stat_add_events(struct stat_state *s, const char *text);

/* Sets the tool events' rows of out to their values now (all keys alike). */
void stat_read_tools(const struct stat_state *s, struct raw *out);

/* stat_run.c: running the command, waiting for the end of counting, intervals. */

/* CLOCK_MONOTONIC in nanoseconds. */
double stat_now_ns(void);

/* Whether process or thread id exists (a zombie does not count). */
bool stat_task_exists(pid_t id);

/* True when some thread of process pid runs, its leader exited or not. */
bool stat_process_alive(pid_t pid);

/*
 * One run: starts the command (if any), opens the counters, counts until
 * the end, and returns the totals (nevents x nkeys cells, malloc'ed; NULL
 * when the command could not start). Prints intervals with -I.
 */
struct stat_cell *stat_run_once(struct stat_state *s, struct stat_json *json,
                                struct run_result *res);

/* stat_serve.c: --serve, the counts as Prometheus metrics over HTTP. */

struct pollfd;

/*
 * Listens on spec ("[ADDR:]PORT", loopback by default) and says where on
 * standard error. Returns 0 with *out set, or an exit status after an error
 * message.
 */
int stat_serve_open(const char *spec, struct stat_server **out);

/* Closes the listening socket and every connection; NULL is a no-op. */
void stat_serve_close(struct stat_server *sv);

/* The most descriptors stat_serve_pollfds fills. */
int stat_serve_max_pollfds(void);

/* Fills fds with the server's descriptors to poll; returns how many (0 for NULL). */
int stat_serve_pollfds(const struct stat_server *sv, struct pollfd *fds);

/*
 * Accepts, reads and answers what fds (as filled, then polled) say is ready,
 * and ends the connections whose deadlines have passed. Call it after every
 * poll, with fds NULL when poll failed (deadlines only).
 */
void stat_serve_handle(struct stat_server *sv, struct stat_state *s, const struct pollfd *fds);

/* The longest poll may wait for the server's sake (ms: its nearest deadline), or -1 for none. */
int stat_serve_timeout_ms(const struct stat_server *sv);

#endif /* PERFEV_CLI_STAT_H */

/* SPDX-License-Identifier: MIT */
/*
 * cmd_stat.c - `perfev stat`: count events on a command perfev runs, on
 * existing processes or threads, or on CPUs, and print the counts as perf
 * stat does. This file reads the options and runs the whole job (once, or
 * -r times); stat_count.c opens and reads the counters, stat_run.c runs the
 * command and waits, stat_print.c prints.
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
    "                   [-r N] [-I MS] [-x SEP | -j | --json] [-B | --no-big-num]\n"
    "                   [-G CGROUPS | --for-each-cgroup CGROUPS]\n"
    "                   [-o FILE] [--serve [ADDR:]PORT] [--] [COMMAND [ARGS]]";

/*
 * perf stat's default set. CPU-wide counting (-a, -C) counts cpu-clock
 * where a command or task counts task-clock, as perf does: on a CPU the
 * time is the CPU's, not a task's.
 */
static const char default_events[] = "task-clock,context-switches,cpu-migrations,page-faults,"
                                     "cycles,instructions,branches,branch-misses";
static const char default_cpu_events[] = "cpu-clock,context-switches,cpu-migrations,page-faults,"
                                         "cycles,instructions,branches,branch-misses";


/* ---- small helpers ------------------------------------------------------ */

/* "option '-I' needs ..., got '...'" and the usage status. */
/* A numeric macro as a string literal: STR(MAX_REPEAT) is "1000000". */
#define STR_(x) #x
#define STR(x) STR_(x)

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

/* Parses -p or -t: a comma-separated list of existing process or thread ids. */
static int parse_ids(char opt, const char *text, pid_t **out, int *n)
{
	const char *what = opt == 'p' ? "a comma-separated list of process ids"
	                              : "a comma-separated list of thread ids";
	int count = 1;

	for (const char *p = text; *p; p++)
		count += *p == ',';
	*out = cli_xcalloc((size_t)count, sizeof(pid_t));
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
		if (!(opt == 'p' ? stat_process_alive((pid_t)v) : stat_task_exists((pid_t)v))) {
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

/* Sets cfg's CPUs from a -C list (NULL: every online CPU), ascending and each once. */
static int parse_cpus(struct stat_config *cfg, const char *text)
{
	return cli_parse_cpus(text, &cfg->cpu_list, &cfg->cpus, &cfg->ncpus);
}

/* ---- events -------------------------------------------------------------- */

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
			stat_counters_free(s);
		free(cells);
		cells = stat_run_once(s, json, &res);
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
			acc = cli_xcalloc(ncells, sizeof(*acc));
		for (size_t k = 0; k < ncells; k++) {
			if (cells[k].state != STAT_CELL_COUNTED)
				continue;
			stat_acc_value(&acc[k], cells[k].value);
			acc[k].enabled += (cells[k].enabled - acc[k].enabled) / acc[k].n;
			acc[k].running += (cells[k].running - acc[k].running) / acc[k].n;
		}
		stat_acc_value(&elapsed, res.elapsed_ns);
		if (res.interrupted)
			break;
	}
	if (runs > 1)
		stat_acc_cells(acc, cells, (int)ncells);

	struct stat_report r = stat_make_report(s, cells);
	r.runs = runs;
	r.elapsed_ns = elapsed.mean;
	r.elapsed_noise_pct = stat_noise_pct(&elapsed);
	r.elapsed_sd_ns = stat_sd_of_mean(&elapsed);
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
	/*
	 * Counting CPUs or other processes, the counts are the whole result:
	 * when not one event could be opened (a refused -a, -C or another
	 * user's -p), the run failed, as it does for perf stat and perfev record.
	 */
	if (res.nothing_open && cfg->target != STAT_TARGET_COMMAND)
		return 1;
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
	       "  -j, --json-output         print perf's JSON: one object per row and line\n"
	       "      --json                print one JSON document (perfev's schema)\n"
	       "  -B, --big-num             thousands separators from the locale (the default)\n"
	       "      --no-big-num          no thousands separators\n"
	       "  -o, --output FILE         write to FILE instead of standard error\n"
	       "      --serve [ADDR:]PORT   serve the counts to Prometheus at /metrics while\n"
	       "                            counting (loopback unless ADDR says otherwise)\n"
	       "  -G, --cgroup LIST         count only the tasks of these cgroups (with -a or\n"
	       "                            -C): one name per event named before, in order\n"
	       "      --for-each-cgroup LIST  count every event once in each cgroup\n"
	       "  -h, --help                print this help\n\n"
	       "'man perfev-stat' has the details.\n",
	       usage, MIN_INTERVAL_MS);
}

enum { OPT_PER_THREAD = 256, OPT_JSON_DOCUMENT, OPT_NO_BIG_NUM, OPT_SERVE, OPT_FOR_EACH_CGROUP };

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
	    {"json-output", no_argument, NULL, 'j'},
	    {"json", no_argument, NULL, OPT_JSON_DOCUMENT},
	    {"big-num", no_argument, NULL, 'B'},
	    {"no-big-num", no_argument, NULL, OPT_NO_BIG_NUM},
	    {"output", required_argument, NULL, 'o'},
	    {"serve", required_argument, NULL, OPT_SERVE},
	    {"cgroup", required_argument, NULL, 'G'},
	    {"for-each-cgroup", required_argument, NULL, OPT_FOR_EACH_CGROUP},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct stat_config *cfg = &s->cfg;
	const char *pids = NULL, *tids = NULL, *cpus = NULL, *output = NULL, *for_each = NULL;
	bool cgroups = false;
	bool all = false, no_aggr = false, per_thread = false, any_events = false;
	long v;
	int opt, r;

	cfg->repeat = 1;
	cfg->big_num = true;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:e:aC:p:t:Ar:I:x:jBo:G:h", options, NULL)) != -1) {
		switch (opt) {
		case 'e':
			any_events = true;
			if (s->pending_cgroups) {
				cli_error("option '-G' applies to the events named before it: "
					  "give -e EVENTS first, then -G CGROUPS");
				return 129;
			}
			if ((r = stat_add_events(s, optarg)) != 0)
				return r;
			break;
		case 'G':
			cgroups = true;
			if ((r = stat_cgroup_option(s, optarg)) != 0)
				return r;
			break;
		case OPT_FOR_EACH_CGROUP:
			for_each = optarg;
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
				return bad_value('r', "a number of runs from 1 to " STR(MAX_REPEAT),
						 optarg);
			cfg->repeat = (int)v;
			break;
		case 'I':
			if (!cli_parse_long(optarg, "", MIN_INTERVAL_MS, MAX_INTERVAL_MS, &v))
				return bad_value('I',
						 "a number of milliseconds from " STR(MIN_INTERVAL_MS)
						 " to " STR(MAX_INTERVAL_MS),
						 optarg);
			cfg->interval_ms = (int)v;
			break;
		case 'x':
			if (!optarg[0])
				return bad_value('x', "a separator of one or more characters",
				                 optarg);
			cfg->sep = optarg;
			break;
		case 'j':
			cfg->json_lines = true;
			break;
		case OPT_JSON_DOCUMENT:
			cfg->json = true;
			break;
		case 'B':
			cfg->big_num = true;
			break;
		case OPT_NO_BIG_NUM:
			cfg->big_num = false;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_SERVE:
			cfg->serve = optarg;
			break;
		case 'h':
			*help = true;
			return 0;
		default:
			return cli_bad_option(opt, argv, usage);
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
	if (cgroups && for_each)
		return conflict("-G", "--for-each-cgroup");
	if ((cgroups || for_each) && !all && !cpus) {
		/* A cgroup is counted on CPUs: the kernel takes no task with it. */
		cli_error("option '%s' counts a cgroup's tasks on every CPU: add -a (or -C CPUS)",
			  cgroups ? "-G" : "--for-each-cgroup");
		return cli_usage(usage);
	}
	if (no_aggr && !all && !cpus) {
		cli_error("option '-A' needs CPU-wide counting (-a or -C)");
		return cli_usage(usage);
	}
	if (per_thread && !pids && !tids) {
		cli_error("option '--per-thread' needs threads to count (-p or -t)");
		return cli_usage(usage);
	}
	if (cfg->sep && cfg->json_lines)
		return conflict("-x", "-j");
	if (cfg->sep && cfg->json)
		return conflict("-x", "--json");
	if (cfg->json_lines && cfg->json)
		return conflict("-j", "--json");
	if (cfg->json && !cli_json_available("--json"))
		return 1;
	if (cfg->interval_ms && cfg->repeat > 1)
		return conflict("-I", "-r");
	if (per_thread && cfg->repeat > 1)
		return conflict("--per-thread", "-r");
	/* Each run opens new counters: a served counter would go back to zero. */
	if (cfg->serve && cfg->repeat > 1)
		return conflict("--serve", "-r");
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
	if (!any_events &&
	    (r = stat_add_events(s, all || cpus ? default_cpu_events : default_events)) != 0)
		return r;
	if ((r = stat_cgroup_pending(s)) != 0 ||
	    (for_each && (r = stat_for_each_cgroup(s, for_each)) != 0))
		return r;
	cfg->out = stderr;
	cfg->out_name = output;
	if (output && !(cfg->out = cli_open_output("-o", output))) {
		cfg->out = NULL;
		return 1;
	}
	return 0;
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
		stat_state_free(&s);
		return 0;
	}
	if (r != 0) {
		stat_state_free(&s);
		return r;
	}
	/* A command that cannot start is said so before anything is opened. */
	if (s.cfg.argv && (r = cli_check_command(s.cfg.argv[0], &s.cfg.path)) != 0) {
		r = cli_exec_error(s.cfg.argv[0], r);
		stat_state_free(&s);
		return r;
	}
	stat_make_units(&s);
	if (s.cfg.serve && (r = stat_serve_open(s.cfg.serve, &s.server)) != 0) {
		stat_state_free(&s);
		return r;
	}
	if (cli_wake_setup(s.cfg.argv != NULL) != 0) {
		stat_serve_close(s.server);
		stat_state_free(&s);
		return 1;
	}
	r = run_all(&s);
	cli_wake_restore();
	stat_serve_close(s.server);
	s.server = NULL;
	/* Counts that did not reach -o make a run that otherwise succeeded fail. */
	if (stat_state_free(&s) != 0 && r == 0)
		r = 1;
	return r;
}

/* SPDX-License-Identifier: MIT */
/*
 * cmd_record.c - `perfev record`: sample events on a command perfev runs,
 * on existing processes or threads, or on CPUs, and write perf.data as
 * perf record does. This file reads the options and runs the whole job;
 * record_open.c opens the events, record_synth.c describes what ran
 * already, record_run.c drains the rings, record_dsos.c finds the build ids.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

static const char usage[] =
    "perfev record [-e EVENTS] [-F HZ | -c PERIOD] [-g | --call-graph fp|dwarf[,SIZE]]\n"
    "                     [-a | -C CPUS | -p PID | -t TID] [-m PAGES] [-o FILE] [-q]\n"
    "                     [--rotate SECONDS -o DIR/ [--format perf|pprof]\n"
    "                      [--push URL [--push-format pprof|folded|otlp] [--push-name APP]\n"
    "                       [--push-label KEY=VALUE]... [--push-queue N] [--push-timeout SECS]]]\n"
    "                     [--off-cpu] [-N] [-G CGROUPS] [--all-cgroups]\n"
    "                     [--] [COMMAND [ARGS]]";

#define MAX_PAGES (1UL << 18) /* -m: 1 GiB of 4 KiB pages */

static int bad_value(const char *opt, const char *needs, const char *got)
{
	cli_error("option '%s' needs %s, got '%s'", opt, needs, got);
	return 129;
}

static int conflict(const char *a, const char *b)
{
	cli_error("options '%s' and '%s' cannot be used together", a, b);
	return 129;
}

/* kernel.perf_event_max_sample_rate, or 0 when unreadable. */
static long max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	long v = 0;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

uint64_t rec_default_freq(uint64_t dflt)
{
	long max = max_sample_rate();

	if (max <= 0 || (uint64_t)max >= dflt)
		return dflt;
	cli_warning("sampling at %ld Hz, this machine's limit (kernel.perf_event_max_sample_rate, "
		    "which the kernel lowers when sampling interrupts take too long), not at the "
		    "default %" PRIu64 " Hz",
		    max, dflt);
	return (uint64_t)max;
}

/* -F: a rate from 1 to the kernel's limit, or "max". */
int rec_parse_freq(struct rec_config *cfg, const char *text)
{
	long max = max_sample_rate(), v;

	if (strcmp(text, "max") == 0) {
		if (max <= 0) {
			cli_error("option '-F max': cannot read kernel.perf_event_max_sample_rate");
			return 1;
		}
		cfg->freq = (uint64_t)max;
		return 0;
	}
	if (!cli_parse_long(text, "", 1, LONG_MAX, &v))
		return bad_value("-F", "a number of samples a second >= 1 (or 'max')", text);
	if (max > 0 && v > max && v > INT_MAX) {
		/* The sysctl is an int: no setting allows this rate. */
		cli_error("option '-F' asks for %ld samples a second, above the most any machine "
			  "allows (%d); use -F %ld or less (this machine's limit, "
			  "kernel.perf_event_max_sample_rate)",
			  v, INT_MAX, max);
		return 129;
	}
	if (max > 0 && v > max) {
		cli_error(
		    "option '-F' asks for %ld samples a second, above this machine's limit of "
		    "%ld (kernel.perf_event_max_sample_rate); use -F %ld or less, or raise "
		    "the limit: sysctl kernel.perf_event_max_sample_rate=%ld",
		    v, max, max, v);
		return 129;
	}
	cfg->freq = (uint64_t)v;
	return 0;
}

/* --call-graph fp | dwarf[,SIZE] | no. */
static int parse_callgraph(struct rec_config *cfg, const char *text)
{
	static const char needs[] = "'fp', 'dwarf', 'dwarf,SIZE' (bytes of stack, up to 65528) or "
	                            "'no'";
	long v;

	if (strcmp(text, "fp") == 0) {
		cfg->callgraph = REC_CG_FP;
	} else if (strcmp(text, "no") == 0) {
		cfg->callgraph = REC_CG_NONE;
	} else if (strcmp(text, "dwarf") == 0) {
		cfg->callgraph = REC_CG_DWARF;
	} else if (strncmp(text, "dwarf,", 6) == 0) {
		if (!cli_parse_long(text + 6, "", 8, REC_MAX_STACK, &v))
			return bad_value("--call-graph", needs, text);
		cfg->callgraph = REC_CG_DWARF;
		cfg->stack_size = (uint32_t)((v + 7) & ~7L); /* perf rounds up to whole words */
	} else {
		return bad_value("--call-graph", needs, text);
	}
	return 0;
}

/* -p or -t: a comma-separated list of existing process or thread ids. */
int rec_parse_ids(struct rec_config *cfg, char opt, const char *text)
{
	const char *name = opt == 'p' ? "-p" : "-t";
	const char *what = opt == 'p' ? "a comma-separated list of process ids"
	                              : "a comma-separated list of thread ids";
	int count = 1;

	for (const char *p = text; *p; p++)
		count += *p == ',';
	cfg->ids = cli_xcalloc((size_t)count, sizeof(pid_t));
	for (const char *p = text;; p++) {
		long v;
		char path[64];
		struct stat st;
		if (!cli_parse_long(p, ",", 1, INT_MAX, &v))
			return bad_value(name, what, text);
		snprintf(path, sizeof(path), "/proc/%ld", v);
		if (stat(path, &st) != 0) {
			cli_error("option '%s' needs existing %s, got '%s' (no %s %ld)", name,
			          opt == 'p' ? "processes" : "threads", text,
			          opt == 'p' ? "process" : "thread", v);
			return 129;
		}
		cfg->ids[cfg->nids++] = (pid_t)v;
		p = strchr(p, ',');
		if (!p)
			break;
	}
	return 0;
}

/* -k CLOCK: perf's names (with or without CLOCK_, any case) or a number. */
static int parse_clockid(struct rec_config *cfg, const char *arg)
{
	static const struct {
		const char *name;
		int32_t id;
	} clocks[] = {
	    {"monotonic", CLOCK_MONOTONIC}, {"mono", CLOCK_MONOTONIC},
	    {"monotonic_raw", CLOCK_MONOTONIC_RAW}, {"raw", CLOCK_MONOTONIC_RAW},
	    {"realtime", CLOCK_REALTIME}, {"real", CLOCK_REALTIME},
	    {"boottime", CLOCK_BOOTTIME}, {"boot", CLOCK_BOOTTIME},
	    {"tai", CLOCK_TAI},
	};
	const char *name = strncasecmp(arg, "CLOCK_", 6) == 0 ? arg + 6 : arg;
	long v;

	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (strcasecmp(name, clocks[i].name) == 0) {
			cfg->use_clockid = true;
			cfg->clockid = clocks[i].id;
			return 0;
		}
	if (!cli_parse_long(arg, "", 0, INT32_MAX, &v))
		return bad_value("-k", "a clock: monotonic, monotonic_raw, realtime, boottime, "
				       "tai or a clock number",
				 arg);
	cfg->use_clockid = true;
	cfg->clockid = (int32_t)v;
	return 0;
}

static void print_help(void)
{
	printf("usage: %s\n\n"
	       "Samples EVENTS (by default cycles, or cpu-clock without a hardware PMU) while\n"
	       "COMMAND runs, or on existing processes (-p), threads (-t) or CPUs (-a, -C)\n"
	       "until they exit or Ctrl-C, and writes perf.data for perf report, perf script\n"
	       "or perfev report.\n\n"
	       "  -e, --event EVENTS        events to sample (perf's syntax; repeatable;\n"
	       "                            '{a,b}' a group, '{a,b}:S' the leader samples it)\n"
	       "  -F, --freq HZ             samples a second (default %d; 'max': the limit)\n"
	       "  -c, --count PERIOD        a sample every PERIOD events instead\n"
	       "  -g                        call chains from frame pointers\n"
	       "      --call-graph MODE     fp, dwarf[,SIZE] (user stack copies) or no\n"
	       "  -a, --all-cpus            every task on every CPU\n"
	       "  -C, --cpu CPUS            every task on these CPUs (\"0-3,7\")\n"
	       "  -p, --pid PIDS            existing processes (comma-separated)\n"
	       "  -t, --tid TIDS            existing threads (comma-separated)\n"
	       "  -m, --mmap-pages PAGES    data pages of each ring: a power of two (default %d)\n"
	       "  -o, --output FILE         where to write (default perf.data; '-': standard\n"
	       "                            output, in pipe mode)\n"
	       "      --off-cpu             also where threads wait: every context switch out\n"
	       "                            with its call chain (wall-clock profiles)\n"
	       "  -G, --cgroup LIST         only the tasks of these cgroups (with -a or -C): one\n"
	       "                            name per event, in order; one name for all\n"
	       "      --all-cgroups         record each sample's cgroup (perfev report can sort\n"
	       "                            by it)\n"
	       "  -k, --clockid CLOCK       sample times from CLOCK: monotonic (what jitdump\n"
	       "                            files count in), monotonic_raw, realtime,\n"
	       "                            boottime, tai, or its number\n"
	       "  -q, --quiet               no status line and no summary\n"
	       "  -N, --no-buildid-cache    do not add the files samples hit to perf's build-id\n"
	       "                            cache ($PERF_BUILDID_DIR, else ~/.debug)\n"
	       "      --rotate SECONDS      one complete file per window of SECONDS into the\n"
	       "                            directory -o DIR/ names (continuous profiling)\n"
	       "      --format FORMAT       --rotate's files: perf (perf.data, the default) or\n"
	       "                            pprof (gzipped profile.proto)\n"
	       REC_PUSH_HELP
	       "  -h, --help                print this help\n\n"
	       "'man perfev-record' has the details.\n",
	       usage, REC_DEFAULT_FREQ, REC_DEFAULT_PAGES);
}

enum { OPT_CALL_GRAPH = 256, OPT_ROTATE, OPT_FORMAT, OPT_OFF_CPU, OPT_ALL_CGROUPS };

#define MIN_ROTATE_S 0.1   /* --rotate */
#define MAX_ROTATE_S 86400.0

/* Reads the options into cfg. Returns 0, or the exit status to stop with. */
static int parse_options(struct rec_config *cfg, int argc, char **argv, bool *help)
{
	static const struct option options[] = {
	    {"event", required_argument, NULL, 'e'},
	    {"freq", required_argument, NULL, 'F'},
	    {"count", required_argument, NULL, 'c'},
	    {"call-graph", required_argument, NULL, OPT_CALL_GRAPH},
	    {"all-cpus", no_argument, NULL, 'a'},
	    {"cpu", required_argument, NULL, 'C'},
	    {"pid", required_argument, NULL, 'p'},
	    {"tid", required_argument, NULL, 't'},
	    {"mmap-pages", required_argument, NULL, 'm'},
	    {"output", required_argument, NULL, 'o'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"no-buildid-cache", no_argument, NULL, 'N'},
	    {"clockid", required_argument, NULL, 'k'},
	    {"rotate", required_argument, NULL, OPT_ROTATE},
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"off-cpu", no_argument, NULL, OPT_OFF_CPU},
	    {"cgroup", required_argument, NULL, 'G'},
	    {"all-cgroups", no_argument, NULL, OPT_ALL_CGROUPS},
	    {"push", required_argument, NULL, REC_OPT_PUSH},
	    {"push-format", required_argument, NULL, REC_OPT_PUSH_FORMAT},
	    {"push-name", required_argument, NULL, REC_OPT_PUSH_NAME},
	    {"push-label", required_argument, NULL, REC_OPT_PUSH_LABEL},
	    {"push-queue", required_argument, NULL, REC_OPT_PUSH_QUEUE},
	    {"push-timeout", required_argument, NULL, REC_OPT_PUSH_TIMEOUT},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *pids = NULL, *tids = NULL, *freq = NULL, *period = NULL, *format = NULL;
	bool all = false, cg_given = false;
	long v;
	int opt, r;

	cfg->pages = REC_DEFAULT_PAGES;
	cfg->stack_size = REC_DEFAULT_STACK;
	cfg->output = "perf.data";
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:e:F:c:gaC:p:t:m:o:qNk:G:h", options, NULL)) != -1) {
		switch (opt) {
		case 'e':
			if (cfg->nevent_text == REC_MAX_LISTS) {
				cli_error(
				    "too many -e options (at most %d); list events with commas",
				    REC_MAX_LISTS);
				return 129;
			}
			cfg->event_text[cfg->nevent_text++] = optarg;
			break;
		case 'F':
			freq = optarg;
			break;
		case 'c':
			period = optarg;
			if (!cli_parse_long(optarg, "", 1, LONG_MAX, &v))
				return bad_value("-c", "a number of events >= 1", optarg);
			cfg->period = (uint64_t)v;
			break;
		case 'g':
			cfg->callgraph = REC_CG_FP;
			cg_given = true;
			break;
		case OPT_CALL_GRAPH:
			if ((r = parse_callgraph(cfg, optarg)) != 0)
				return r;
			cg_given = true;
			break;
		case 'a':
			all = true;
			break;
		case 'C':
			free(cfg->cpus);
			cfg->cpus = NULL;
			if ((r = cli_parse_cpus(optarg, &cfg->cpus, NULL, NULL)) != 0)
				return r;
			break;
		case 'p':
			pids = optarg;
			break;
		case 't':
			tids = optarg;
			break;
		case 'm':
			if (!cli_parse_long(optarg, "", 1, (long)MAX_PAGES, &v) || (v & (v - 1)))
				return bad_value("-m",
				                 "a power of two number of pages (1, 2, 4, ... "
				                 "262144)",
				                 optarg);
			cfg->pages = (size_t)v;
			break;
		case 'o':
			if (!optarg[0])
				return bad_value("-o", "a file name", optarg);
			cfg->output = optarg;
			cfg->output_given = true;
			cfg->pipe = strcmp(optarg, "-") == 0;
			break;
		case 'q':
			cfg->quiet = true;
			break;
		case 'N':
			cfg->no_buildid_cache = true;
			break;
		case 'k':
			if ((r = parse_clockid(cfg, optarg)) != 0)
				return r;
			break;
		case OPT_ROTATE:
			if (!cli_parse_double(optarg, MIN_ROTATE_S, MAX_ROTATE_S, &cfg->rotate_s))
				return bad_value("--rotate", "a number of seconds from 0.1 to 86400",
						 optarg);
			break;
		case OPT_FORMAT:
			format = optarg;
			if (strcmp(optarg, "perf") != 0 && strcmp(optarg, "pprof") != 0)
				return bad_value("--format", "perf or pprof", optarg);
			cfg->rotate_pprof = strcmp(optarg, "pprof") == 0;
			break;
		case OPT_OFF_CPU:
			cfg->off_cpu = true;
			break;
		case 'G':
			if ((r = rec_add_cgroups(cfg, optarg)) != 0)
				return r;
			break;
		case OPT_ALL_CGROUPS:
			cfg->all_cgroups = true;
			break;
		case REC_OPT_PUSH:
		case REC_OPT_PUSH_FORMAT:
		case REC_OPT_PUSH_NAME:
		case REC_OPT_PUSH_LABEL:
		case REC_OPT_PUSH_QUEUE:
		case REC_OPT_PUSH_TIMEOUT:
			if ((r = rec_push_option(&cfg->push, opt, optarg)) != 0)
				return r;
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

	if (freq && period)
		return conflict("-F", "-c");
	if (format && !cfg->rotate_s) {
		cli_error("option '--format' names the files of --rotate; give --rotate SECONDS "
			  "too (one file: perfev report --format pprof converts it)");
		return cli_usage(usage);
	}
	if (cfg->rotate_s && cfg->pipe)
		return conflict("--rotate", "-o -");
	if (cfg->rotate_s && !cfg->output_given) {
		cli_error("option '--rotate' needs a directory for its files: -o DIR/");
		return cli_usage(usage);
	}
	if (cfg->rotate_s)
		cfg->rotate_dir = cfg->output;
	if ((r = rec_push_check(cfg)) != 0)
		return r;
	if (pids && tids)
		return conflict("-p", "-t");
	if (cfg->cgroups && !all && !cfg->cpus) {
		/* A cgroup is sampled on CPUs: the kernel takes no task with it. */
		cli_error("option '-G' samples a cgroup's tasks on every CPU: add -a (or -C CPUS)");
		return cli_usage(usage);
	}
	if ((pids || tids) && (all || cfg->cpus))
		return conflict(pids ? "-p" : "-t", all ? "-a" : "-C");
	if (!cfg->argv && !pids && !tids && !all && !cfg->cpus) {
		cli_error("no command to run (and no -p, -t, -a or -C to record instead)");
		return cli_usage(usage);
	}
	cfg->rate_given = freq || period;
	/* A wall-clock profile wants the on-CPU stacks too: -g unless a mode was chosen. */
	if (cfg->off_cpu && !cg_given)
		cfg->callgraph = REC_CG_FP;
	if (!period) {
		cfg->freq = REC_DEFAULT_FREQ;
		if (freq && (r = rec_parse_freq(cfg, freq)) != 0)
			return r;
		if (!freq)
			cfg->freq = rec_default_freq(REC_DEFAULT_FREQ);
	}
	if (pids) {
		cfg->target = REC_TARGET_PROCESS;
		return rec_parse_ids(cfg, 'p', pids);
	}
	if (tids) {
		cfg->target = REC_TARGET_THREAD;
		return rec_parse_ids(cfg, 't', tids);
	}
	cfg->target = all || cfg->cpus ? REC_TARGET_CPUS : REC_TARGET_COMMAND;
	return 0;
}

/* The two summary lines perf record prints. */
static void print_summary(const struct rec_state *s)
{
	struct stat st;
	double mb = stat(s->cfg.output, &st) == 0 ? (double)st.st_size / (1024.0 * 1024.0) : 0;

	if (s->cfg.pipe) /* what went down the pipe: the records */
		mb = (double)pev_perfdata_writer_data_size(s->writer) / (1024.0 * 1024.0);
	if (s->cfg.rotate_s) {
		fprintf(stderr,
			"[ perfev record: Wrote %lu windows of %g s into %s (%llu samples, %llu "
			"lost) ]\n",
			rec_rotate_done(s), s->cfg.rotate_s, cli_shown(s->cfg.rotate_dir),
			(unsigned long long)s->stats.samples, (unsigned long long)s->stats.lost);
		return;
	}

	fprintf(stderr, "[ perfev record: Woken up %llu times to write data ]\n",
	        (unsigned long long)s->stats.wakeups);
	fprintf(stderr,
	        "[ perfev record: Captured and wrote %.3f MB %s (%llu samples, %llu lost) ]\n", mb,
	        cli_shown(s->cfg.output), (unsigned long long)s->stats.samples,
	        (unsigned long long)s->stats.lost);
}

/* Opens, records until the end, finishes the file. Returns perfev's exit status. */
static int record(struct rec_state *s)
{
	struct pev_error err;
	pid_t child = -1;
	int status = 0, r;

	/* A command that cannot start leaves the outputs (and FILE.old) as they were. */
	if (s->cfg.argv && (r = cli_check_command(s->cfg.argv[0], &s->cfg.path)) != 0)
		return cli_exec_error(s->cfg.argv[0], r);
	if (s->cfg.rotate_s && (r = rec_rotate_begin(s)) != 0)
		return r;
	if (rec_push_begin(s) != 0)
		return 1;
	if ((r = rec_open(s)) != 0)
		return r;
	/* A pipe's reader needs the tracepoints' formats before the first record. */
	if (s->cfg.pipe && rec_tracing_data(s) != 0)
		return 1;
	/*
	 * Running processes: enabled before /proc is read, so that one that
	 * execs between the two has its new mappings in the ring (a disabled
	 * event writes no MMAP2), as perf's events, opened enabled, do.
	 */
	if (s->cfg.target != REC_TARGET_COMMAND)
		rec_enable(s);
	if (rec_synthesize(s) != 0)
		return 1;
	if (s->cfg.pipe && rec_finished_init(s) != 0)
		return 1;
	if (s->cfg.argv) {
		int e = s->command.pid > 0 ? cli_spawn_resume(&s->command, &child)
		                           : cli_spawn_command(s->cfg.argv, s->cfg.path, &child);
		if (e != 0) {
			pev_perfdata_writer_close(s->writer);
			s->writer = NULL;
			if (!s->cfg.pipe)
				unlink(s->cfg.output);
			return cli_exec_error(s->cfg.argv[0], e);
		}
	}
	if (rec_push_start(s) != 0) /* after the command's fork: no fork in a threaded perfev */
		return 1;
	int sig = rec_loop(s, child, &status);
	if (s->failed)
		return 1;
	if (s->cfg.rotate_s) {
		if (rec_rotate(s, true) != 0)
			return 1;
	} else {
		rec_drain(s);
		rec_dsos_add_build_ids(s);
		if (!s->cfg.pipe && rec_tracing_data(s) != 0)
			return 1;
		if (pev_perfdata_writer_finish(s->writer, &err) != 0) {
			cli_error("cannot finish '%s': %s", s->cfg.output, err.message);
			return 1;
		}
	}
	if (!s->cfg.quiet)
		print_summary(s);
	rec_push_finish(s, s->cfg.quiet);
	if (child > 0 && WIFEXITED(status))
		return WEXITSTATUS(status);
	if (child > 0 && WIFSIGNALED(status)) {
		if (WTERMSIG(status) != SIGTERM || !sig)
			fprintf(stderr, "%s: %s\n", s->cfg.argv[0], strsignal(WTERMSIG(status)));
		return 128 + WTERMSIG(status);
	}
	return sig ? 128 + sig : 0;
}

int cmd_record(int argc, char **argv)
{
	struct rec_state s;
	bool help = false;
	int r;

	memset(&s, 0, sizeof(s));
	s.out_fd = -1;
	s.offcpu = -1;
	r = parse_options(&s.cfg, argc, argv, &help);
	if (help) {
		print_help();
		free(s.cfg.ids);
		free(s.cfg.cpus);
		free(s.cfg.cgroups);
		return 0;
	}
	if (r == 0 && (r = cli_wake_setup(false)) == 0) {
		r = record(&s);
		cli_wake_restore();
	}
	rec_push_free(&s);
	rec_close(&s);
	rec_rotate_free(&s);
	free(s.cfg.ids);
	free(s.cfg.cpus);
	free(s.cfg.cgroups);
	free(s.cfg.path);
	return r;
}

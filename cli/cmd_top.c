/* SPDX-License-Identifier: MIT */
/*
 * cmd_top.c - `perfev top`: a live table of the hottest functions, as perf
 * top. A session samples the events on every CPU (-a, the default), a
 * process (-p) or a thread (-t); its rings are drained every 250 ms into
 * the model (top_model.c); every -d seconds the model becomes a profile
 * that the report writer draws, on the terminal (top_screen.c) or, with
 * --stdio or when standard output is no terminal, as one plain table per
 * interval. docs/TOP.md describes the whole.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "top.h"

static const char usage[] =
    "perfev top [-e EVENTS] [-F HZ | -c PERIOD] [-a | -p PID | -t TID] [-d SECS] [-g]\n"
    "                  [--sort KEYS] [--percent-limit PCT] [-z] [--stdio] [-E N] [-n COUNT]";

#define TOP_DEFAULT_FREQ 4000 /* -F, as perf top */
#define TOP_PAGES        128  /* data pages of each ring */
#define TOP_TICK_MS      250  /* how often the rings are drained (keys wake the loop at once) */

struct top_config {
	struct rec_config rec; /* target, ids, -F/-c (read as record reads them) */
	const char *events;
	const char *sort;
	double percent_limit;
	double delay;
	bool callgraph;
	bool zero;
	bool stdio;
	long count; /* -n: refreshes before exiting; 0: until stopped */
	long entries; /* -E: entries of a plain table; -1: as many as the window has lines */
};

static void print_help(void)
{
	printf("usage: %s\n\n"
	       "Shows the functions that take the most samples, refreshed every -d seconds,\n"
	       "on every CPU (the default), a process (-p) or a thread (-t). On a terminal it is\n"
	       "a live table (keys: q quit, p pause, s next sort, d/t zoom into the selected\n"
	       "entry's DSO/process, g call graph, z per-interval counts, arrows select);\n"
	       "with --stdio, or when standard output is no terminal, one table per interval.\n\n"
	       "  -e, --event EVENTS      events to sample (default cycles, cpu-clock without a PMU)\n"
	       "  -F, --freq HZ           samples a second (default %d; 'max')\n"
	       "  -c, --count PERIOD      a sample every PERIOD events\n"
	       "  -a, --all-cpus          every task on every CPU (the default)\n"
	       "  -p, --pid PID           an existing process\n"
	       "  -t, --tid TID           an existing thread\n"
	       "  -d, --delay SECS        seconds between refreshes (default 1; fractions allowed)\n"
	       "  -g                      call chains: the selected entry's call graph\n"
	       "  -s, --sort KEYS         comm, pid, tid, dso, sym (default dso,sym)\n"
	       "      --percent-limit PCT hide entries below PCT percent\n"
	       "  -z, --zero              per-interval counts instead of decaying ones\n"
	       "      --stdio             plain tables, one per interval\n"
	       "  -E, --entries N         entries of a plain table (default: the terminal's lines,\n"
	       "                          $LINES or 25, less 5, as perf top; 0: all)\n"
	       "  -n, --iterations COUNT  stop after COUNT refreshes\n",
	       usage, TOP_DEFAULT_FREQ);
}

static int bad_value(const char *opt, const char *needs, const char *got)
{
	cli_error("option '%s' needs %s, got '%s'", opt, needs, got);
	return 129;
}

/* A positive decimal number (with a fraction) below max into *out. */
static int parse_args(int argc, char **argv, struct top_config *c)
{
	enum { OPT_STDIO = 256, OPT_PERCENT };
	static const struct option longs[] = {
	    {"event", required_argument, NULL, 'e'},   {"freq", required_argument, NULL, 'F'},
	    {"count", required_argument, NULL, 'c'},   {"all-cpus", no_argument, NULL, 'a'},
	    {"pid", required_argument, NULL, 'p'},     {"tid", required_argument, NULL, 't'},
	    {"delay", required_argument, NULL, 'd'},   {"sort", required_argument, NULL, 's'},
	    {"zero", no_argument, NULL, 'z'},          {"stdio", no_argument, NULL, OPT_STDIO},
	    {"iterations", required_argument, NULL, 'n'}, {"entries", required_argument, NULL, 'E'},
	    {"percent-limit", required_argument, NULL, OPT_PERCENT},
	    {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
	};
	const char *pids = NULL, *tids = NULL, *freq = NULL;
	long v;
	int opt, r;

	c->delay = 1;
	c->sort = "dso,sym";
	c->entries = -1;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":e:F:c:ap:t:d:s:gzn:E:h", longs, NULL)) != -1) {
		switch (opt) {
		case 'e':
			c->events = optarg;
			break;
		case 'F':
			freq = optarg;
			break;
		case 'c':
			if (!cli_parse_long(optarg, "", 1, LONG_MAX, &v))
				return bad_value("-c", "a number of events >= 1", optarg);
			c->rec.period = (uint64_t)v;
			break;
		case 'a':
			break;
		case 'p':
			pids = optarg;
			break;
		case 't':
			tids = optarg;
			break;
		case 'd':
			if (!cli_parse_double(optarg, 0.05, 3600, &c->delay))
				return bad_value("-d", "seconds from 0.05 to 3600", optarg);
			break;
		case 's':
			c->sort = optarg;
			break;
		case 'g':
			c->callgraph = true;
			break;
		case 'z':
			c->zero = true;
			break;
		case 'n':
			if (!cli_parse_long(optarg, "", 1, LONG_MAX, &c->count))
				return bad_value("-n", "a number of refreshes >= 1", optarg);
			break;
		case 'E':
			if (!cli_parse_long(optarg, "", 0, INT_MAX, &c->entries))
				return bad_value("-E", "a number of entries >= 0", optarg);
			break;
		case OPT_STDIO:
			c->stdio = true;
			break;
		case OPT_PERCENT:
			if (!cli_parse_double(optarg, 0, 100, &c->percent_limit))
				return bad_value("--percent-limit", "a percentage from 0 to 100", optarg);
			break;
		case 'h':
			print_help();
			exit(0);
		default:
			return cli_bad_option(opt, argv, usage);
		}
	}
	if (optind < argc) {
		cli_error("perfev top takes no command ('%s'); run it, then use -p PID", argv[optind]);
		return cli_usage(usage);
	}
	if (freq && c->rec.period) {
		cli_error("options '-F' and '-c' cannot be used together");
		return 129;
	}
	if (pids && tids) {
		cli_error("options '-p' and '-t' cannot be used together");
		return 129;
	}
	if (freq && (r = rec_parse_freq(&c->rec, freq)) != 0)
		return r;
	if (!freq && !c->rec.period)
		c->rec.freq = rec_default_freq(TOP_DEFAULT_FREQ);
	c->rec.target = REC_TARGET_CPUS;
	if (pids || tids) {
		if ((r = rec_parse_ids(&c->rec, pids ? 'p' : 't', pids ? pids : tids)) != 0)
			return r;
		if (c->rec.nids > 1) {
			cli_error("option '%s' takes one %s in perfev top, got '%s'", pids ? "-p" : "-t",
			          pids ? "process" : "thread", pids ? pids : tids);
			return 129;
		}
		c->rec.target = pids ? REC_TARGET_PROCESS : REC_TARGET_THREAD;
	}
	if (!c->stdio && !isatty(STDOUT_FILENO))
		c->stdio = true;
	/* The writer checks the keys: an unknown one fails before anything opens. */
	struct pev_profile *p;
	struct pev_report_opts o = PEV_REPORT_OPTS_INIT;
	struct pev_error err;
	FILE *null = fopen("/dev/null", "we");
	o.sort = c->sort;
	if (!null || pev_profile_new(&p) != 0) {
		cli_error("out of memory");
		if (null)
			fclose(null);
		return 1;
	}
	r = pev_profile_write_table(p, null, &o, &err);
	pev_profile_free(p);
	fclose(null);
	if (r != 0) {
		cli_error("option '--sort': %s", err.message);
		return 129;
	}
	return 0;
}

/* Opens the session: the events on the target, with cycles falling back to cpu-clock. */
static int open_session(struct top_config *c, struct pev_session **s)
{
	struct pev_session_opts so = PEV_SESSION_OPTS_INIT;
	struct pev_target t;
	struct pev_error err;
	const char *events = c->events ? c->events : "cycles";
	int r;

	switch (c->rec.target) {
	case REC_TARGET_PROCESS:
		t = pev_target_process(c->rec.ids[0]);
		break;
	case REC_TARGET_THREAD:
		t = pev_target_thread(c->rec.ids[0]);
		break;
	default:
		t = pev_target_all_cpus();
		break;
	}
	so.target = &t;
	so.sample_freq = c->rec.freq;
	so.sample_period = c->rec.period;
	so.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_PERIOD |
	                 (c->callgraph ? PEV_SAMPLE_CALLCHAIN : 0);
	so.data_pages = TOP_PAGES;
	so.track = true;
	so.event_text = events;
	so.parse_opts = cli_event_parse_opts();
	r = pev_session_open(&so, s, &err);
	if (r != 0 && !c->events && (r == PEV_ENOENT || r == -ENOENT || r == -EOPNOTSUPP)) {
		if (c->stdio)
			fprintf(stderr, "perfev: no hardware PMU for cycles: sampling cpu-clock instead\n");
		so.event_text = "cpu-clock";
		r = pev_session_open(&so, s, &err);
	}
	if (r != 0) {
		cli_print_error(&err);
		return 1;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Prints the writer's table without its file-oriented header lines: the
 * sample counts there would be of distinct stacks, not of samples; the
 * event's name stays ("# Event 'cpu-clock'").
 */
static void print_table(const char *text)
{
	for (const char *line = text, *end; line && *line; line = end ? end + 1 : NULL) {
		const char *ev;
		int len;
		end = strchr(line, '\n');
		len = end ? (int)(end - line) : (int)strlen(line);
		ev = line[0] == '#' ? memmem(line, (size_t)len, " of event '", 11) : NULL;
		if (strncmp(line, "# Samples:", 10) == 0 && ev)
			printf("# Event %.*s\n", (int)(line + len - ev - 10), ev + 10);
		else if (strncmp(line, "# Total Lost", 12) != 0 &&
		         strncmp(line, "# Event count", 13) != 0 && !(len == 1 && line[0] == '#'))
			printf("%.*s\n", len, line);
	}
}

/*
 * The entries a plain table shows: -E, else as many as the window has lines
 * less 5, as perf top: the lines of $LINES (with $COLUMNS set), else of the
 * terminal, else 25.
 */
static unsigned plain_entries(long entries)
{
	const char *lines = getenv("LINES"), *cols = getenv("COLUMNS");
	struct winsize ws;
	long rows = 25;

	if (entries >= 0)
		return (unsigned)entries;
	if (lines && cols && atol(lines) > 0 && atol(cols) > 0)
		rows = atol(lines);
	else if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		rows = ws.ws_row;
	return rows > 6 ? (unsigned)(rows - 5) : 1;
}

/* One plain table: a header line, then the report writer's table. */
static int print_stdio(const struct top_view *v, bool callgraph, unsigned entries)
{
	struct pev_report_opts o;
	struct pev_error err;
	time_t t = time(NULL);
	char when[32], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int r;

	if (!f) {
		cli_error("out of memory");
		return 1;
	}
	top_view_report_opts(v, &o);
	o.event = NULL; /* every event, a section each */
	o.callgraph = callgraph ? PEV_REPORT_CALLGRAPH_CALLEE : PEV_REPORT_CALLGRAPH_NONE;
	o.max_entries = entries;
	r = pev_profile_write_table(v->profile, f, &o, &err);
	fclose(f);
	if (r != 0) {
		free(text);
		cli_error("cannot write the table: %s", err.message);
		return 1;
	}
	strftime(when, sizeof(when), "%H:%M:%S", localtime(&t));
	printf("   PerfevTop: %llu samples/s, %llu lost, %s, %s\n"
	       "-------------------------------------------------------------------------------\n",
	       (unsigned long long)(v->interval > 0 ? (double)v->samples / v->interval : 0),
	       (unsigned long long)v->lost, v->zero ? "per interval" : "decaying", when);
	print_table(text);
	free(text);
	putchar('\n');
	return fflush(stdout) != 0 || ferror(stdout);
}

/*
 * Drains the rings into the model for at most the given seconds, so that
 * keys, signals and refreshes are not held up when records come faster
 * than they are symbolized (what stays behind waits, or is counted as
 * lost).
 */
static void drain_for(struct pev_session *s, struct top_model *m, bool drop, double seconds)
{
	struct pev_session_record r;
	double until = now_s() + seconds;

	for (unsigned n = 1; pev_session_read(s, &r) > 0; n++) {
		top_model_feed(m, &r, drop);
		if (!(n & 63) && (now_s() > until || cli_stop_signal()))
			break;
	}
}

/* The drain of one tick: half of it at most. */
static void drain(struct pev_session *s, struct top_model *m, bool drop)
{
	drain_for(s, m, drop, TOP_TICK_MS / 2000.0);
}

/* Whether the comma-separated list has word. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *at = list; (at = strstr(at, word)); at += n)
		if ((at == list || at[-1] == ',') && (at[n] == ',' || !at[n]))
			return true;
	return false;
}

/* What the model's entries must keep apart for the view: its sort keys and zoom. */
static unsigned view_key(const struct top_view *v)
{
	unsigned key = 0;

	if (has_word(v->sort, "comm") || v->zoom_comm[0])
		key |= TOP_KEY_COMM;
	if (has_word(v->sort, "pid") || has_word(v->sort, "process") || v->zoom_pid[0])
		key |= TOP_KEY_PID;
	if (has_word(v->sort, "tid") || v->zoom_tid[0])
		key |= TOP_KEY_TID;
	return key;
}

/* The loop: drain every tick, refresh every delay, keys and signals between. */
static int run(struct top_config *c, struct pev_session *s, struct top_model *m,
               struct top_view *v)
{
	double next = now_s() + c->delay, last = now_s();
	long refreshes = 0;
	int status = 0;
	bool tui = !c->stdio;

	for (;;) {
		struct pollfd fds[2] = {{cli_wake_fd(), POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
		double left = next - now_s();
		int ms = left <= 0 ? 0 : left * 1000 < TOP_TICK_MS ? (int)(left * 1000) : TOP_TICK_MS;
		bool redraw = false;

		if (poll(fds, tui ? 2 : 1, ms) < 0 && errno != EINTR) {
			cli_error("cannot wait for samples: %s", strerror(errno));
			return 1;
		}
		if (cli_stop_signal())
			break;
		if (fds[0].revents)
			cli_wake_drain();
		if (tui && (fds[1].revents & POLLIN)) {
			enum top_action a = top_screen_keys(v);
			if (a == TOP_QUIT)
				break;
			redraw = a == TOP_REDRAW;
		}
		if (tui && top_screen_resized())
			redraw = true;
		top_model_key(m, view_key(v));
		drain(s, m, v->paused);
		pev_session_poll(s, 0); /* notes the rings whose task exited */
		if (pev_session_finished(s)) {
			pev_session_flush(s);
			drain(s, m, v->paused);
			if (tui)
				top_screen_leave();
			fprintf(stderr, "perfev top: the target exited\n");
			break;
		}
		if (now_s() >= next) {
			double t;
			/*
			 * A plain table stands for its whole interval: what the rings
			 * hold is read before it is printed, however long symbols take
			 * to load (a first sample in a big binary can hold the ticks'
			 * drains back for seconds on a loaded machine, and the table
			 * showed a few dozen samples of the interval). An interval
			 * more at most, so that a machine that makes records faster
			 * than they are read still gets its tables.
			 */
			if (!tui && !v->paused)
				drain_for(s, m, false, c->delay);
			t = now_s();
			next = t + c->delay;
			if (!v->paused) {
				struct pev_profile *p = top_model_profile(m, &v->samples);
				if (!p) {
					cli_error("out of memory");
					return 1;
				}
				pev_profile_free(v->profile);
				v->profile = p;
				v->interval = t - last;
				v->lost = top_model_lost(m);
				top_model_decay(m, v->zero);
				redraw = true;
				refreshes++;
				if (!tui && (status = print_stdio(v, c->callgraph, plain_entries(c->entries))) != 0)
					break;
			}
			last = t;
		}
		if (tui && redraw)
			top_screen_draw(v);
		if (c->count && refreshes >= c->count)
			break;
	}
	return status;
}

int cmd_top(int argc, char **argv)
{
	struct top_config c = {0};
	struct pev_session *s = NULL;
	struct top_model *m = NULL;
	struct top_view v = {0};
	const char *names[64];
	int status = parse_args(argc, argv, &c), n;

	if (status != 0)
		goto out;
	if ((status = open_session(&c, &s)) != 0)
		goto out;
	n = pev_session_nr_events(s);
	if (n > 64)
		n = 64;
	for (int i = 0; i < n; i++)
		names[i] = pev_counter_name(pev_session_counter(s, i));
	if (!(m = top_model_new(names, n))) {
		status = 1;
		goto out;
	}
	if ((status = cli_wake_setup(false)) != 0)
		goto out;
	v.event = names[0];
	snprintf(v.sort, sizeof(v.sort), "%s", c.sort);
	v.percent_limit = c.percent_limit;
	v.callgraph = c.callgraph;
	v.zero = c.zero;
	if (!c.stdio && top_screen_enter() != 0) {
		cli_error("cannot set up the terminal: %s; use --stdio", strerror(errno));
		status = 1;
	} else if ((status = pev_session_enable(s)) != 0) {
		cli_error("cannot enable the events: %s", pev_strerror(status));
		status = 1;
	} else {
		/*
		 * What runs already: its names and mappings, as record writes them.
		 * Read after enabling, so that a process that execs meanwhile has
		 * its new mappings in the ring (a disabled event writes no MMAP2).
		 */
		rec_synth_tasks(c.rec.target, c.rec.ids, c.rec.nids, 0, top_model_synth_sink, m);
		if (!c.stdio)
			top_screen_draw(&v);
		status = run(&c, s, m, &v);
	}
	top_screen_leave();
	cli_wake_restore();
out:
	pev_profile_free(v.profile);
	top_model_free(m);
	pev_session_close(s);
	free(c.rec.ids);
	return status;
}

/* SPDX-License-Identifier: MIT */
/*
 * cmd_diff.c - `perfev diff [OLD [NEW]]`: read two perf.data files (perf's
 * or perfev's; perf.data.old and perf.data by default, as perf diff) and
 * show what changed: the table of `perf diff` (baseline share and delta,
 * ratio or weighted diff per symbol), folded stacks with both counts, or a
 * differential flame graph.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "perfev diff [-c delta|delta-abs|ratio|wdiff:W1,W2] [-s KEYS] [--percent-limit P]\n"
    "                   [-p] [-F] [-b] [-e EVENT] [--format table|folded|flamegraph]\n"
    "                   [-o OUT] [--title TEXT] [--no-inline] [-C COMMS] [-d DSOS]\n"
    "                   [-S SYMBOLS] [--pid PIDS] [--tid TIDS] [-q] [-v] [--stdio]\n"
    "                   [OLD [NEW]]";

enum format { FMT_TABLE, FMT_FOLDED, FMT_FLAMEGRAPH };

struct diff_args {
	const char *old, *new_, *output, *title;
	enum format format;
	struct pev_diff_opts d;
	struct pev_report_opts r;
	bool no_inline, quiet;
};

static void print_help(void)
{
	printf("usage: %s\n\n"
	       "Compares two perf.data files (default perf.data.old and perf.data; one name: it\n"
	       "and perf.data.old) and shows what changed.\n\n"
	       "  -c, --compute MODE        delta-abs (default), delta, ratio or wdiff:W1,W2\n"
	       "  -s, --sort KEYS           sort keys, as perfev report takes them (dso,sym)\n"
	       "      --percent-limit P     leave out entries under P percent in both files\n"
	       "  -p, --period              each file's period; folded, flamegraph: weigh by it\n"
	       "  -F, --formula             the formula of each computed value\n"
	       "  -b, --baseline-only       only the entries both files have\n"
	       "  -e, --event EVENT         only this event (it must be in both files)\n"
	       "      --format FORMAT       table, folded or flamegraph\n"
	       "  -o, --output OUT          write to OUT instead of standard output\n"
	       "      --title TEXT          the flame graph's title\n"
	       "      --no-inline           folded stacks, flame graph: no inlined frames\n"
	       "  -C, --comms COMMS         only these commands (comma-separated)\n"
	       "  -d, --dsos DSOS           only functions in these files\n"
	       "  -S, --symbols SYMBOLS     only these functions\n"
	       "      --pid PIDS            only these processes\n"
	       "      --tid TIDS            only these threads\n"
	       "  -q, --quiet               no warnings\n"
	       "  -v, --verbose             full paths in the Shared Object column\n"
	       "      --stdio               accepted for perf's sake: the table is always text\n"
	       "  -h, --help                print this help\n\n"
	       "'man perfev-diff' has the details.\n",
	       usage);
}

static int bad_value(const char *opt, const char *needs, const char *got)
{
	cli_error("option '%s' needs %s, got '%s'", opt, needs, got);
	return 129;
}

/* perf's -c: delta, delta-abs, ratio or wdiff:W1,W2. 0 or the usage status. */
static int parse_compute(const char *arg, struct pev_diff_opts *d)
{
	static const char *const names[] = {"delta-abs", "delta", "ratio"};
	static const enum pev_diff_compute of[] = {PEV_DIFF_DELTA_ABS, PEV_DIFF_DELTA,
						   PEV_DIFF_RATIO};
	char *end, *end2;

	for (size_t i = 0; i < 3; i++)
		if (strcmp(arg, names[i]) == 0) {
			d->compute = of[i];
			return 0;
		}
	if (strncmp(arg, "wdiff:", 6) == 0) {
		errno = 0;
		long long w1 = strtoll(arg + 6, &end, 10), w2 = 0;
		if (*end == ',')
			w2 = strtoll(end + 1, &end2, 10);
		if (!errno && *end == ',' && end2 != end + 1 && !*end2 && w1 && w2) {
			d->compute = PEV_DIFF_WDIFF;
			d->w1 = w1;
			d->w2 = w2;
			return 0;
		}
		return bad_value("-c", "two non-zero weights, as in 'wdiff:1,2'", arg);
	}
	return bad_value("-c", "delta, delta-abs, ratio or wdiff:W1,W2", arg);
}

static int parse_args(int argc, char **argv, struct diff_args *a)
{
	enum { OPT_PERCENT = 256, OPT_FORMAT, OPT_PID, OPT_TID, OPT_NO_INLINE, OPT_TITLE };
	static const struct option options[] = {
		{"compute", required_argument, NULL, 'c'},
		{"sort", required_argument, NULL, 's'},
		{"percent-limit", required_argument, NULL, OPT_PERCENT},
		{"period", no_argument, NULL, 'p'},
		{"formula", no_argument, NULL, 'F'},
		{"baseline-only", no_argument, NULL, 'b'},
		{"event", required_argument, NULL, 'e'},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"output", required_argument, NULL, 'o'},
		{"title", required_argument, NULL, OPT_TITLE},
		{"no-inline", no_argument, NULL, OPT_NO_INLINE},
		{"comms", required_argument, NULL, 'C'},
		{"dsos", required_argument, NULL, 'd'},
		{"symbols", required_argument, NULL, 'S'},
		{"pid", required_argument, NULL, OPT_PID},
		{"tid", required_argument, NULL, OPT_TID},
		{"quiet", no_argument, NULL, 'q'},
		{"verbose", no_argument, NULL, 'v'},
		{"stdio", no_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int opt, rc;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:s:pFbe:o:C:d:S:qvh", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			if ((rc = parse_compute(optarg, &a->d)))
				return rc;
			break;
		case 's':
			a->r.sort = optarg;
			break;
		case OPT_PERCENT:
			if (!cli_parse_double(optarg, 0, 100, &a->r.percent_limit))
				return bad_value("--percent-limit", "a percentage from 0 to 100",
						 optarg);
			break;
		case 'p':
			a->d.flags |= PEV_DIFF_PERIOD;
			break;
		case 'F':
			a->d.flags |= PEV_DIFF_FORMULA;
			break;
		case 'b':
			a->d.flags |= PEV_DIFF_BASELINE_ONLY;
			break;
		case 'e':
			a->r.event = optarg;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "table") == 0)
				a->format = FMT_TABLE;
			else if (strcmp(optarg, "folded") == 0)
				a->format = FMT_FOLDED;
			else if (strcmp(optarg, "flamegraph") == 0)
				a->format = FMT_FLAMEGRAPH;
			else
				return bad_value("--format", "table, folded or flamegraph", optarg);
			break;
		case 'o':
			a->output = optarg;
			break;
		case OPT_TITLE:
			a->title = optarg;
			break;
		case OPT_NO_INLINE:
			a->no_inline = true;
			break;
		case 'C':
			a->r.comms = optarg;
			break;
		case 'd':
			a->r.dsos = optarg;
			break;
		case 'S':
			a->r.symbols = optarg;
			break;
		case OPT_PID:
			a->r.pids = optarg;
			break;
		case OPT_TID:
			a->r.tids = optarg;
			break;
		case 'q':
			a->quiet = true;
			break;
		case 'v':
			a->r.flags |= PEV_REPORT_FULL_PATHS;
			break;
		case 'T':
			break;
		case 'h':
			print_help();
			exit(0);
		default:
			return cli_bad_option(opt, argv, usage);
		}
	}
	switch (argc - optind) {
	case 0:
		break;
	case 1: /* as perf: one file is the new one, against perf.data.old */
		a->new_ = argv[optind];
		break;
	case 2:
		a->old = argv[optind];
		a->new_ = argv[optind + 1];
		break;
	default:
		cli_error("perfev diff compares two files, got %d; name the baseline and the new "
			  "one (perfev diff OLD NEW)",
			  argc - optind);
		return cli_usage(usage);
	}
	return 0;
}

/* Loads one file into *p. 0, or 1 after saying why. */
static int load(const char *path, const struct diff_args *a, struct pev_perfdata **pd,
		struct pev_profile **p)
{
	struct pev_replay_opts ropts = PEV_REPLAY_OPTS_INIT;
	struct pev_symbols_opts sopts = PEV_SYMBOLS_OPTS_INIT;
	struct pev_error err;
	uint64_t samples = 0;

	if (pev_perfdata_open(path, 0, pd, &err)) {
		cli_print_error(&err);
		return 1;
	}
	cli_warn_unfinished(*pd, path);
	sopts.flags |= PEV_SYMBOLS_SHORT_NAMES;
	/* The table needs the sampled frame only; the stacks every frame. */
	if (a->format == FMT_TABLE)
		ropts.flags |= PEV_REPLAY_NO_CALLCHAIN;
	if (a->format == FMT_TABLE || a->no_inline) {
		ropts.flags |= PEV_REPLAY_NO_INLINE;
		/* The srcline key needs lines, if not inline chains. */
		sopts.flags |= a->r.sort && strstr(a->r.sort, "srcline") ? PEV_SYMBOLS_NO_INLINE
									   : PEV_SYMBOLS_NO_SRCLINE;
	}
	ropts.symbols_opts = &sopts;
	if (pev_profile_load(*pd, &ropts, p, &err)) {
		cli_print_error(&err);
		return 1;
	}
	for (unsigned e = 0; e < pev_profile_nr_events(*p); e++) {
		uint64_t n = 0;
		pev_profile_totals(*p, e, &n, NULL);
		samples += n;
	}
	if (!samples && !a->quiet)
		cli_warning("'%s' has no samples; record some with 'perfev record' or "
			    "'perf record'", path);
	return 0;
}

static int run(struct diff_args *a)
{
	struct pev_perfdata *pd[2] = {NULL, NULL};
	struct pev_profile *p[2] = {NULL, NULL};
	struct pev_error err;
	FILE *out = stdout;
	int rc, status = 1;

	if (!a->quiet)
		cli_log_warnings();
	if (load(a->old, a, &pd[0], &p[0]) || load(a->new_, a, &pd[1], &p[1]))
		goto done;
	if (a->output && strcmp(a->output, "-") != 0 && !(out = cli_open_output("-o", a->output)))
		goto done;
	a->r.title = a->title;
	if (a->format == FMT_FOLDED || a->format == FMT_FLAMEGRAPH) {
		/* -p weighs the stacks by period, as it shows periods in the table. */
		if (a->d.flags & PEV_DIFF_PERIOD)
			a->r.flags |= PEV_REPORT_PERIOD;
		if (a->no_inline)
			a->r.flags |= PEV_REPORT_NO_INLINE;
	}
	a->d.report = &a->r;
	if (a->format == FMT_FOLDED)
		rc = pev_profile_write_diff_folded(p[0], p[1], out, &a->d, &err);
	else if (a->format == FMT_FLAMEGRAPH)
		rc = pev_profile_write_diff_flamegraph(p[0], p[1], out, &a->d, &err);
	else
		rc = pev_profile_write_diff(p[0], p[1], out, &a->d, &err);
	if (rc) {
		if (out != stdout)
			fclose(out);
		cli_print_error(&err);
		goto done;
	}
	if (out != stdout && cli_finish_output(out, a->output))
		goto done;
	status = pev_perfdata_unfinished(pd[0]) || pev_perfdata_unfinished(pd[1])
			 ? CLI_STATUS_UNFINISHED
			 : 0;
done:
	for (int i = 0; i < 2; i++) {
		pev_profile_free(p[i]);
		pev_perfdata_close(pd[i]);
	}
	return status;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_args a = {
		.old = "perf.data.old",
		.new_ = "perf.data",
		.d = PEV_DIFF_OPTS_INIT,
		.r = PEV_REPORT_OPTS_INIT,
	};
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc;
	rc = run(&a);
	if (fflush(stdout) == EOF && !rc) {
		cli_error("cannot write the diff: %s", strerror(errno));
		return 1;
	}
	return rc;
}

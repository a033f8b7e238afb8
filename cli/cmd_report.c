/* SPDX-License-Identifier: MIT */
/*
 * cmd_report.c - `perfev report`: read a perf.data file (perf's or
 * perfev's), symbolize its samples and write the profile: the overhead
 * table of `perf report --stdio` with its call graphs, or folded stacks,
 * JSON, pprof, OpenTelemetry profiles (OTLP) or an SVG flame graph.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"
#include "script.h"

static const char usage[] =
    "perfev report [-i FILE] [--sort KEYS] [-g [TYPE,THRESHOLD,LIMIT,ORDER,VALUE]] [-G]\n"
    "                     [--children|--no-children] [--max-stack N] [--percent-limit P]\n"
    "                     [--stdio] [--inline|--no-inline] [-e EVENT] [--group|--no-group]\n"
    "                     [--format table|folded|json|pprof|flamegraph|gecko|speedscope|otlp]\n"
    "                     [-o OUT]\n"
    "                     [-n] [-q] [-v] [--no-demangle] [-c COMMS] [-d DSOS] [-S SYMBOLS]\n"
    "                     [--pid PIDS] [--tid TIDS] [--header|--header-only] [-F FIELDS]\n"
    "                     [--symbol-at-return] [--wall-clock] [--kallsyms FILE]";

enum format {
	FMT_TABLE,
	FMT_FOLDED,
	FMT_JSON,
	FMT_PPROF,
	FMT_FLAMEGRAPH,
	FMT_GECKO,
	FMT_SPEEDSCOPE,
	FMT_OTLP
};

static const char *const format_names[] = {"table", "folded",	  "json",	"pprof",
					    "flamegraph", "gecko", "speedscope", "otlp"};

static const char *const sort_keys[] = {"comm", "pid",	    "process", "tid",	"cpu",	 "dso",
					"sym",	"symbol", "srcline", "trace", "cgroup"};

struct report_opts {
	const char *input;
	const char *output;
	const char *sort;
	const char *event;
	enum format format;
	int callgraph; /* -1: as the file has call chains */
	int order;     /* -1: caller with children, else callee (as perf) */
	int children;  /* -1: with call graphs, as perf */
	bool inverted; /* -G: caller order */
	enum pev_report_cg_print cg_print;
	enum pev_report_cg_value cg_value;
	double cg_limit; /* 0: perf's 0.5; negative: none (set by -g and --percent-limit) */
	unsigned cg_print_limit;
	long max_stack; /* -1: every frame */
	double percent_limit;
	bool no_inline;
	bool inline_frames;
	bool period;
	bool symbol_at_return; /* callers named as perf names them */
	bool zero_frames;      /* call-chain entries of address 0 kept, as perf */
	const char *kallsyms;  /* the kernel's symbols from this file, not /proc/kallsyms */
	int group;     /* -1: as the file has groups */
	bool wall_clock; /* on-CPU and off-CPU time as one event in nanoseconds */
	bool nr_samples, quiet, verbose, no_demangle;
	bool header, header_only;
	const char *comms, *pids, *tids, *dsos, *symbols;
	const char *fields;
};

static void print_help(void)
{
	printf("usage: %s\n\n"
	       "Reads a perf.data file (default ./perf.data, or standard input when that is a\n"
	       "pipe; -i - reads standard input) and writes its profile.\n\n"
	       "  -i, --input FILE          the file to read\n"
	       "  -o, --output OUT          write to OUT instead of standard output\n"
	       "  -s, --sort KEYS           sort keys: comm, pid, process, tid, cpu, dso, sym,\n"
	       "                            srcline, trace\n"
	       "  -g, --call-graph [WORDS]  call graphs: graph|fractal|flat|folded|none,\n"
	       "                            threshold, limit, caller|callee, percent|period|count\n"
	       "  -G, --inverted            call graphs in caller order\n"
	       "      --children            Children column: a function's share with its callees\n"
	       "      --no-children         self overhead only\n"
	       "      --max-stack N         use at most N frames of each call chain\n"
	       "      --percent-limit P     leave out entries below P percent\n"
	       "      --stdio               accepted for perf's sake: the table is always text\n"
	       "      --inline              show the functions inlined at each address\n"
	       "      --no-inline           leave them out (the table does without --inline)\n"
	       "      --symbol-at-return    name each caller by the symbol at its return address\n"
	       "      --zero-frames         keep call-chain entries of address 0, as perf does\n"
	       "      --kallsyms FILE       the kernel's symbols from FILE (a kallsyms list)\n"
	       "  -e, --event EVENT         only this event (by its name in the file)\n"
	       "      --period              folded stacks, flame graph: weigh by period\n"
	       "      --group               one table for a group's events side by side\n"
	       "      --no-group            one table per event\n"
	       "      --format FORMAT       table, folded, json, pprof, flamegraph, gecko\n"
	       "                            (the Firefox Profiler), speedscope or otlp\n"
	       "                            (OpenTelemetry profiles); with -o NAME.gz gecko,\n"
	       "                            speedscope and otlp are compressed\n"
	       "  -n, --show-nr-samples     a Samples column\n"
	       "  -q, --quiet               the entries only: no # header lines, no warnings\n"
	       "  -v, --verbose             full paths of shared objects, C++ parameter lists\n"
	       "      --no-demangle         C++ and Rust names as in the symbol table\n"
	       "  -c, --comms COMMS         only these commands (comma-separated)\n"
	       "      --pid PIDS            only these processes\n"
	       "      --tid TIDS            only these threads\n"
	       "  -d, --dsos DSOS           only functions in these files\n"
	       "  -S, --symbols SYMBOLS     only these functions\n"
	       "  -F, --fields FIELDS       the table's columns, in this order\n"
	       "      --header              the file's header block before the table\n"
	       "      --header-only         the file's header block alone\n"
	       "  -h, --help                print this help\n\n"
	       "'man perfev-report' has the details.\n",
	       usage);
}

static int bad_value(const char *opt, const char *needs, const char *got)
{
	cli_error("option '%s' needs %s, got '%s'", opt, needs, got);
	return 129;
}

/* Checks each key of a --sort list; 0 or the usage status. */
static int check_sort(const char *sort)
{
	const char *s = sort;

	if (!*s)
		return bad_value("--sort",
				 "comma-separated keys (comm, pid, process, tid, cpu, dso, sym, srcline, "
				 "trace)",
				 sort);
	for (;;) {
		size_t len = strcspn(s, ",");
		bool known = false;
		for (size_t i = 0; i < sizeof(sort_keys) / sizeof(sort_keys[0]); i++)
			known |= strlen(sort_keys[i]) == len && strncmp(sort_keys[i], s, len) == 0;
		if (!known) {
			cli_error("unknown sort key '%.*s' in '--sort %s'; use comm, pid, process, "
				  "tid, cpu, dso, sym, srcline, trace or cgroup",
				  (int)len, s, sort);
			return 129;
		}
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

/* Whether tok is a prefix of word, as perf matches -g keywords. */
static bool prefix_of(const char *tok, size_t len, const char *word)
{
	return len <= strlen(word) && strncmp(tok, word, len) == 0;
}

/*
 * Parses perf's -g argument: comma-separated keywords in any order (print
 * type graph, fractal, flat, folded or none; order caller or callee; key
 * function; branch; value percent, period or count) and numbers (the
 * threshold, then the print limit). Returns 0, or the usage status with
 * the message said.
 */
static int parse_callgraph(const char *arg, struct report_opts *o)
{
	static const char *const prints[] = {"graph", "flat", "fractal", "folded"};
	static const enum pev_report_cg_print print_of[] = {PEV_REPORT_CG_GRAPH, PEV_REPORT_CG_FLAT,
							      PEV_REPORT_CG_FRACTAL,
							      PEV_REPORT_CG_FOLDED};
	static const char *const values[] = {"percent", "period", "count"};
	struct report_opts t = *o;
	bool threshold = false;
	const char *s = arg;

	t.callgraph = PEV_REPORT_CALLGRAPH_CALLEE;
	for (;;) {
		size_t len = strcspn(s, ",");
		bool known = len > 0;
		char *end;

		if (!len)
			;
		else if (prefix_of(s, len, "none"))
			t.callgraph = PEV_REPORT_CALLGRAPH_NONE;
		else if (prefix_of(s, len, "callee"))
			t.order = PEV_REPORT_CALLGRAPH_CALLEE;
		else if (prefix_of(s, len, "caller"))
			t.order = PEV_REPORT_CALLGRAPH_CALLER;
		else if (prefix_of(s, len, "function") || prefix_of(s, len, "branch"))
			; /* function is the only key; perfev reads no branch stacks */
		else {
			known = false;
			for (size_t i = 0; i < 4 && !known; i++)
				if ((known = prefix_of(s, len, prints[i])))
					t.cg_print = print_of[i];
			for (size_t i = 0; i < 3 && !known; i++)
				if ((known = prefix_of(s, len, values[i])))
					t.cg_value = (enum pev_report_cg_value)i;
		}
		if (!known && len && !threshold) {
			double v;

			errno = 0;
			v = strtod(s, &end);
			if (!errno && end == s + len && v >= 0 && v <= 100) {
				t.cg_limit = v > 0 ? v : -1;
				threshold = known = true;
			}
		} else if (!known && len) {
			unsigned long v;

			errno = 0;
			v = strtoul(s, &end, 0);
			if (!errno && end == s + len && *s != '-' && v <= UINT32_MAX) {
				t.cg_print_limit = (unsigned)v;
				known = true;
			}
		}
		if (!known && len) {
			if (prefix_of(s, len, "address") || prefix_of(s, len, "srcline")) {
				cli_error("call-graph key '%.*s' in '-g %s' is not supported; perfev "
					  "merges call graphs by function (drop '%.*s')",
					  (int)len, s, arg, (int)len, s);
				return 129;
			}
			cli_error("unknown call-graph word '%.*s' in '-g %s'; use graph, fractal, "
				  "flat, folded or none, a threshold and a print limit, caller or "
				  "callee, function, branch, and percent, period or count",
				  (int)len, s, arg);
			return 129;
		}
		if (!s[len])
			break;
		s += len + 1;
	}
	*o = t;
	return 0;
}

/* Checks each field of a -F list: a number perf shows or a sort key; 0 or the usage status. */
static int check_fields(const char *fields)
{
	static const char *const values[] = {"overhead", "overhead_children", "sample", "period"};

	for (const char *s = fields;;) {
		size_t len = strcspn(s, ",");
		bool known = false;

		for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
			known |= strlen(values[i]) == len && strncmp(values[i], s, len) == 0;
		for (size_t i = 0; i < sizeof(sort_keys) / sizeof(sort_keys[0]); i++)
			known |= strlen(sort_keys[i]) == len && strncmp(sort_keys[i], s, len) == 0;
		if (!known) {
			cli_error("unknown field '%.*s' in '-F %s'; use overhead, overhead_children, "
				  "sample, period or a sort key (comm, pid, process, tid, cpu, dso, sym, "
				  "srcline, trace)",
				  (int)len, s, fields);
			return 129;
		}
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

static int parse_args(int argc, char **argv, struct report_opts *o)
{
	enum { OPT_SORT = 256, OPT_PERCENT, OPT_STDIO, OPT_FORMAT, OPT_CHILDREN,
	       OPT_NO_CHILDREN, OPT_NO_INLINE, OPT_INLINE, OPT_PERIOD, OPT_MAX_STACK,
	       OPT_SYMBOL_AT_RETURN, OPT_ZERO_FRAMES,
	       OPT_GROUP, OPT_NO_GROUP, OPT_PID, OPT_TID, OPT_NO_DEMANGLE, OPT_HEADER,
	       OPT_HEADER_ONLY, OPT_WALL_CLOCK, OPT_KALLSYMS };
	static const struct option options[] = {
		{"input", required_argument, NULL, 'i'},
		{"output", required_argument, NULL, 'o'},
		{"sort", required_argument, NULL, 's'},
		{"event", required_argument, NULL, 'e'},
		{"call-graph", optional_argument, NULL, 'g'},
		{"inverted", no_argument, NULL, 'G'},
		{"max-stack", required_argument, NULL, OPT_MAX_STACK},
		{"percent-limit", required_argument, NULL, OPT_PERCENT},
		{"stdio", no_argument, NULL, OPT_STDIO},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"children", no_argument, NULL, OPT_CHILDREN},
		{"no-children", no_argument, NULL, OPT_NO_CHILDREN},
		{"no-inline", no_argument, NULL, OPT_NO_INLINE},
		{"inline", no_argument, NULL, OPT_INLINE},
		{"period", no_argument, NULL, OPT_PERIOD},
		{"symbol-at-return", no_argument, NULL, OPT_SYMBOL_AT_RETURN},
		{"zero-frames", no_argument, NULL, OPT_ZERO_FRAMES},
		{"kallsyms", required_argument, NULL, OPT_KALLSYMS},
		{"group", no_argument, NULL, OPT_GROUP},
		{"no-group", no_argument, NULL, OPT_NO_GROUP},
		{"wall-clock", no_argument, NULL, OPT_WALL_CLOCK},
		{"show-nr-samples", no_argument, NULL, 'n'},
		{"quiet", no_argument, NULL, 'q'},
		{"verbose", no_argument, NULL, 'v'},
		{"no-demangle", no_argument, NULL, OPT_NO_DEMANGLE},
		{"fields", required_argument, NULL, 'F'},
		{"header", no_argument, NULL, OPT_HEADER},
		{"header-only", no_argument, NULL, OPT_HEADER_ONLY},
		{"comms", required_argument, NULL, 'c'},
		{"dsos", required_argument, NULL, 'd'},
		{"symbols", required_argument, NULL, 'S'},
		{"pid", required_argument, NULL, OPT_PID},
		{"pids", required_argument, NULL, OPT_PID},
		{"tid", required_argument, NULL, OPT_TID},
		{"tids", required_argument, NULL, OPT_TID},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int opt, rc;
	char *end;

	optind = 1;
	opterr = 0; /* perfev's own messages (cli_bad_option), not getopt's */
	while ((opt = getopt_long(argc, argv, ":i:o:s:e:g::Ghnqvc:d:S:F:", options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			o->input = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 's':
			if ((rc = check_sort(optarg)))
				return rc;
			o->sort = optarg;
			break;
		case 'e':
			o->event = optarg;
			break;
		case 'g':
			/* perf's -g takes its value in the next word too: "-g graph,0.5,caller"
			 * (report takes no other words) */
			if (optarg) {
				if ((rc = parse_callgraph(optarg, o)))
					return rc;
			} else if (optind < argc && argv[optind][0] != '-') {
				if ((rc = parse_callgraph(argv[optind++], o)))
					return rc;
			} else {
				o->callgraph = PEV_REPORT_CALLGRAPH_CALLEE;
			}
			break;
		case 'G':
			o->inverted = true;
			break;
		case OPT_MAX_STACK: {
			unsigned long v;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || v > UINT32_MAX)
				return bad_value("--max-stack", "a number of frames", optarg);
			o->max_stack = (long)v;
			break;
		}
		case OPT_PERCENT:
			if (!cli_parse_double(optarg, 0, 100, &o->percent_limit))
				return bad_value("--percent-limit", "a percentage from 0 to 100",
						 optarg);
			/* as perf: the limit is the call graphs' threshold too */
			o->cg_limit = o->percent_limit > 0 ? o->percent_limit : -1;
			break;
		case OPT_STDIO:
			break;
		case OPT_FORMAT: {
			size_t i, n = sizeof(format_names) / sizeof(format_names[0]);
			for (i = 0; i < n && strcmp(optarg, format_names[i]) != 0; i++)
				;
			if (i == n)
				return bad_value("--format",
						 "table, folded, json, pprof, flamegraph, gecko, "
						 "speedscope or otlp",
						 optarg);
			o->format = (enum format)i;
			break;
		}
		case OPT_CHILDREN:
			o->children = 1;
			break;
		case OPT_NO_CHILDREN:
			o->children = 0;
			break;
		case OPT_NO_INLINE:
			o->no_inline = true;
			break;
		case OPT_INLINE:
			o->inline_frames = true;
			break;
		case OPT_PERIOD:
			o->period = true;
			break;
		case OPT_SYMBOL_AT_RETURN:
			o->symbol_at_return = true;
			break;
		case OPT_ZERO_FRAMES:
			o->zero_frames = true;
			break;
		case OPT_KALLSYMS:
			o->kallsyms = optarg;
			break;
		case OPT_GROUP:
			o->group = 1;
			break;
		case OPT_NO_GROUP:
			o->group = 0;
			break;
		case OPT_WALL_CLOCK:
			o->wall_clock = true;
			break;
		case 'n':
			o->nr_samples = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case OPT_NO_DEMANGLE:
			o->no_demangle = true;
			break;
		case OPT_HEADER:
			o->header = true;
			break;
		case 'F':
			if ((rc = check_fields(optarg)))
				return rc;
			o->fields = optarg;
			break;
		case OPT_HEADER_ONLY:
			o->header_only = true;
			break;
		case 'c':
			o->comms = optarg;
			break;
		case 'd':
			o->dsos = optarg;
			break;
		case 'S':
			o->symbols = optarg;
			break;
		case OPT_PID:
			if ((rc = cli_check_ids("--pid", optarg)))
				return rc;
			o->pids = optarg;
			break;
		case OPT_TID:
			if ((rc = cli_check_ids("--tid", optarg)))
				return rc;
			o->tids = optarg;
			break;
		case 'h':
			print_help();
			exit(0);
		default:
			return cli_bad_option(opt, argv, usage);
		}
	}
	if (o->wall_clock && o->event) {
		cli_error("options '--wall-clock' and '-e' cannot be used together (--wall-clock "
			  "writes the event 'wall-clock')");
		return 129;
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s'; name the input file with -i", argv[optind]);
		return cli_usage(usage);
	}
	return 0;
}

/* Whether any event of pd records every field of `need` (PEV_SAMPLE_*). */
static bool events_have(struct pev_perfdata *pd, uint64_t need)
{
	for (int i = 0; i < pev_perfdata_nr_events(pd); i++)
		if ((pev_perfdata_event(pd, i)->attr.sample_type & need) == need)
			return true;
	return false;
}

/* Refuses sort keys the file's samples cannot fill; 0 or 1. */
static int check_sort_fields(struct pev_perfdata *pd, const char *path, const char *sort)
{
	static const struct {
		const char *key;
		uint64_t need;
		const char *fix;
	} needs[] = {
		{"cpu", PEV_SAMPLE_CPU, "record with -a or --sample-cpu"},
		{"pid", PEV_SAMPLE_TID, "record without --no-tid"},
		{"process", PEV_SAMPLE_TID, "record without --no-tid"},
		{"tid", PEV_SAMPLE_TID, "record without --no-tid"},
		{"comm", PEV_SAMPLE_TID, "record without --no-tid"},
		{"cgroup", PEV_SAMPLE_CGROUP, "record with --all-cgroups"},
	};

	if (pev_perfdata_pipe_mode(pd) || pev_perfdata_nr_events(pd) == 0)
		return 0;
	for (const char *s = sort; *s;) {
		size_t len = strcspn(s, ",");
		for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
			if (strlen(needs[i].key) == len && strncmp(s, needs[i].key, len) == 0 &&
			    !events_have(pd, needs[i].need)) {
				cli_error("sort key '%s' needs samples that record it, and the "
					  "events of '%s' do not; %s, or sort by other keys",
					  needs[i].key, path, needs[i].fix);
				return 1;
			}
		s += len + (s[len] == ',');
	}
	return 0;
}

/* Whether the table shows the srcline key (sort keys or fields). */
static bool wants_srcline(const struct report_opts *o)
{
	return (o->sort && strstr(o->sort, "srcline")) || (o->fields && strstr(o->fields, "srcline"));
}

/*
 * Whether the file has events and every one is a tracepoint: perf then
 * sorts by trace, but not in a pipe's format, whose events it learns only
 * after choosing its sort keys.
 */
static bool all_tracepoints(struct pev_perfdata *pd)
{
	int n = pev_perfdata_nr_events(pd);

	if (pev_perfdata_pipe_mode(pd))
		return false;
	for (int i = 0; i < n; i++)
		if (pev_perfdata_event(pd, i)->attr.type != PEV_TYPE_TRACEPOINT)
			return false;
	return n > 0;
}

/* Whether a comma-separated list names key. */
static bool list_names(const char *list, const char *key)
{
	size_t n = strlen(key);

	for (const char *s = list; s && *s;) {
		size_t len = strcspn(s, ",");
		if (len == n && strncmp(s, key, n) == 0)
			return true;
		s += len + (s[len] == ',');
	}
	return false;
}

/*
 * pev_replay_opts.sample_text: a tracepoint sample's payload as perf's trace
 * key shows it; "N/A" for other events' samples, as perf.
 */
struct trace_text {
	struct script_trace *t;
	char *buf;
	size_t len;
};

static const char *sample_trace_text(void *ctx, const struct pev_replay_sample *s)
{
	struct trace_text *tt = ctx;
	FILE *f;
	bool ok;

	free(tt->buf);
	tt->buf = NULL;
	if (s->event->attr.type != PEV_TYPE_TRACEPOINT)
		return "N/A";
	if (!tt->t || !(f = open_memstream(&tt->buf, &tt->len)))
		return NULL;
	ok = script_trace_print(tt->t, f, s);
	if (fclose(f) != 0 || !ok)
		return NULL;
	return tt->buf;
}

/*
 * Off-CPU time in the profile: --wall-clock makes it one event with the
 * on-CPU time ("wall-clock", weighed in nanoseconds, written alone);
 * otherwise a file's off-CPU event is shown next to its on-CPU event (a
 * group, as the loader made it), unless --no-group. Returns 0 or 1.
 */
static int offcpu_view(struct pev_profile *p, const struct report_opts *o,
		       struct pev_report_opts *ro)
{
	bool offcpu = false;
	uint32_t flags;

	for (unsigned e = 0; e < pev_profile_nr_events(p); e++)
		offcpu |= pev_profile_event_flags(p, e, &flags) == 0 &&
			  (flags & PEV_PROFILE_EVENT_OFFCPU);
	if (!o->wall_clock) {
		if (offcpu && o->group < 0)
			ro->flags |= PEV_REPORT_GROUP;
		/* Off-CPU stacks alone: weighed by the time waited, not by switches. */
		if (offcpu && o->event && strncmp(o->event, "offcpu-time", 11) == 0)
			ro->flags |= PEV_REPORT_PERIOD;
		return 0;
	}
	if (!offcpu) {
		cli_error("option '--wall-clock': '%s' has no off-CPU samples; record them with "
			  "'perfev record --off-cpu'",
			  o->input);
		return 1;
	}
	if (pev_profile_add_wall_clock(p, NULL) != 0) {
		cli_error("option '--wall-clock': out of memory");
		return 1;
	}
	ro->event = "wall-clock";
	ro->flags |= PEV_REPORT_PERIOD;
	ro->flags &= ~PEV_REPORT_GROUP;
	return 0;
}

/*
 * pprof's time_nanos and OTLP's time_unix_nano: without the file's own
 * (CLOCK_DATA), when it was
 * captured (its modification time, perf's "captured on") less the span of
 * its samples.
 */
static void pprof_capture_time(struct pev_profile *p, struct pev_perfdata *pd, const char *path)
{
	uint64_t start, duration, mtime;
	struct stat st;

	if (pev_perfdata_pipe_mode(pd) || pev_profile_time(p, &start, &duration) || start ||
	    stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	mtime = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
	if (mtime > duration)
		pev_profile_set_time(p, mtime - duration, duration);
}

static int write_profile(const struct pev_profile *p, FILE *out, const struct report_opts *o,
			 struct pev_report_opts *ro, struct pev_error *err)
{
	switch (o->format) {
	case FMT_FOLDED:
		return pev_profile_write_folded(p, out, ro, err);
	case FMT_JSON:
		return pev_profile_write_json(p, out, ro, err);
	case FMT_PPROF:
		return pev_profile_write_pprof(p, out, ro, err);
	case FMT_FLAMEGRAPH:
		return pev_profile_write_flamegraph(p, out, ro, err);
	case FMT_GECKO:
		return pev_profile_write_gecko(p, out, ro, err);
	case FMT_SPEEDSCOPE:
		return pev_profile_write_speedscope(p, out, ro, err);
	case FMT_OTLP:
		return pev_profile_write_otlp(p, out, ro, err);
	default:
		return pev_profile_write_table(p, out, ro, err);
	}
}

static int run(const struct report_opts *o)
{
	struct pev_replay_opts ropts = PEV_REPLAY_OPTS_INIT;
	struct pev_symbols_opts sopts = PEV_SYMBOLS_OPTS_INIT;
	struct pev_report_opts ro = PEV_REPORT_OPTS_INIT;
	struct trace_text tt = {0};
	struct pev_perfdata *pd = NULL;
	struct pev_profile *p = NULL;
	struct pev_error err;
	uint64_t samples = 0;
	FILE *out = stdout;
	int rc, status = 1;
	bool chains;

	if (!o->quiet)
		cli_log_warnings(); /* what the symbolizer skips is said, not lost (perf -q: not) */
	if (pev_perfdata_open(o->input, 0, &pd, &err)) {
		cli_print_error(&err);
		return 1;
	}
	cli_warn_unfinished(pd, o->input);
	if (o->header_only) {
		report_print_header(stdout, pd, o->input);
		status = pev_perfdata_unfinished(pd) ? CLI_STATUS_UNFINISHED : 0;
		goto done;
	}
	if (o->sort && check_sort_fields(pd, o->input, o->sort))
		goto done;
	chains = events_have(pd, PEV_SAMPLE_CALLCHAIN);
	ro.sort = o->sort;
	/* As perf: a file of tracepoints only is sorted by their payloads. */
	if (!ro.sort && !o->fields && all_tracepoints(pd))
		ro.sort = "trace";
	ro.event = o->event;
	ro.percent_limit = o->percent_limit;
	ro.callgraph = o->callgraph >= 0 ? (enum pev_report_callgraph)o->callgraph
		       : chains && o->format == FMT_TABLE ? PEV_REPORT_CALLGRAPH_CALLEE
							  : PEV_REPORT_CALLGRAPH_NONE;
	/* As perf: --children means nothing without call chains (no Children column). */
	if (chains && (o->children > 0 || (o->children < 0 && ro.callgraph)))
		ro.flags |= PEV_REPORT_CHILDREN;
	/* perf draws the callers' side under Children, and with -G, unless told otherwise. */
	if (ro.callgraph && o->order >= 0)
		ro.callgraph = (enum pev_report_callgraph)o->order;
	else if (ro.callgraph && (o->inverted || (ro.flags & PEV_REPORT_CHILDREN)))
		ro.callgraph = PEV_REPORT_CALLGRAPH_CALLER;
	ro.callgraph_print = o->cg_print;
	ro.callgraph_value = o->cg_value;
	ro.callgraph_limit = o->cg_limit;
	ro.callgraph_print_limit = o->cg_print_limit;
	if (o->max_stack > 0)
		ro.max_stack = (unsigned)o->max_stack;
	/* --max-stack 0, as perf: no frame but the sampled one, the Children column kept */
	if (o->max_stack == 0)
		ro.callgraph = PEV_REPORT_CALLGRAPH_NONE;
	if (o->no_inline)
		ro.flags |= PEV_REPORT_NO_INLINE;
	if (o->period)
		ro.flags |= PEV_REPORT_PERIOD;
	/* As perf's call graphs: an unresolved frame shows its address. */
	if (o->format == FMT_TABLE)
		ro.flags |= PEV_REPORT_ADDRESSES;
	/* As perf: a file's groups are shown as groups unless --no-group. */
	if (o->group > 0 || (o->group < 0 && pev_perfdata_features(pd)->nr_groups))
		ro.flags |= PEV_REPORT_GROUP;
	if (o->nr_samples)
		ro.flags |= PEV_REPORT_NR_SAMPLES;
	if (o->quiet)
		ro.flags |= PEV_REPORT_NO_HEADER;
	if (o->verbose)
		ro.flags |= PEV_REPORT_FULL_PATHS;
	ro.comms = o->comms;
	ro.pids = o->pids;
	ro.tids = o->tids;
	ro.dsos = o->dsos;
	ro.symbols = o->symbols;
	ro.fields = o->fields;
	/* C++ names as perf shows them: short, with parameters under -v, mangled if asked. */
	if (o->no_demangle)
		sopts.flags |= PEV_SYMBOLS_NO_DEMANGLE;
	else if (!o->verbose)
		sopts.flags |= PEV_SYMBOLS_SHORT_NAMES;
	/*
	 * Inline frames need DWARF, the slowest part of symbolizing. The table,
	 * as perf's, shows them in the call chains it unwinds with DWARF (call
	 * graphs and children entries, "name (inlined)"; not in frame-pointer
	 * chains); the other formats have them; --no-inline drops them.
	 */
	bool table_chains = o->format == FMT_TABLE && o->max_stack != 0 &&
			    events_have(pd, PEV_SAMPLE_REGS_USER | PEV_SAMPLE_STACK_USER) &&
			    (ro.callgraph || (ro.flags & PEV_REPORT_CHILDREN));
	if (o->format == FMT_TABLE && !o->no_inline && (table_chains || o->inline_frames))
		ro.flags |= PEV_REPORT_INLINE_MARKS;
	/* The table's inline frames need no source lines: no line tables to read. */
	if (o->format == FMT_TABLE && !wants_srcline(o))
		sopts.flags |= PEV_SYMBOLS_NO_LINES;
	/* The browser formats, as perf 7.2's Gecko export: inline frames in every chain. */
	if (o->no_inline || (o->format == FMT_TABLE && !table_chains && !o->inline_frames)) {
		ropts.flags |= PEV_REPLAY_NO_INLINE;
		/* The srcline key needs lines, if not inline chains. */
		sopts.flags |= wants_srcline(o) ? PEV_SYMBOLS_NO_INLINE : PEV_SYMBOLS_NO_SRCLINE;
	}
	if (!chains || (o->format == FMT_TABLE && o->max_stack == 0) ||
	    (o->format == FMT_TABLE && !ro.callgraph && !(ro.flags & PEV_REPORT_CHILDREN)))
		ropts.flags |= PEV_REPLAY_NO_CALLCHAIN;
	if (o->symbol_at_return)
		ropts.flags |= PEV_REPLAY_SYMBOL_AT_RETURN;
	if (o->zero_frames)
		ropts.flags |= PEV_REPLAY_ZERO_FRAMES;
	/* As perf: chains resolved from the callers (--children, -G, -g caller). */
	if (o->order >= 0 ? o->order == PEV_REPORT_CALLGRAPH_CALLER
			  : o->inverted || (ro.flags & PEV_REPORT_CHILDREN))
		ropts.flags |= PEV_REPLAY_LONE_LEAF_CALLER;
	/* The browser formats lay samples out in time: the profile keeps each one. They
	 * name functions, not lines: no line tables to read. */
	if (o->format == FMT_GECKO || o->format == FMT_SPEEDSCOPE) {
		ropts.flags |= PEV_REPLAY_TIMELINE;
		sopts.flags |= PEV_SYMBOLS_NO_LINES;
	}
	/* OTLP gives each sample its times (and keeps lines, as pprof). */
	if (o->format == FMT_OTLP) {
		ropts.flags |= PEV_REPLAY_TIMELINE;
		/* The recording machine's name, where the file tells it. */
		const char *host = pev_perfdata_features(pd)->hostname;
		ro.host = host ? host : "";
	}
	/* "-o profile.json.gz": compressed, as both viewers open it (OTLP: any reader gunzips). */
	if ((o->format == FMT_GECKO || o->format == FMT_SPEEDSCOPE || o->format == FMT_OTLP) &&
	    o->output &&
	    strlen(o->output) > 3 && strcmp(o->output + strlen(o->output) - 3, ".gz") == 0)
		ro.flags |= PEV_REPORT_GZIP;
	/* Folded stacks and flame graphs sorted by cgroup start at the cgroup. */
	if ((o->format == FMT_FOLDED || o->format == FMT_FLAMEGRAPH) && list_names(ro.sort, "cgroup"))
		ro.flags |= PEV_REPORT_CGROUP;
	sopts.kallsyms = o->kallsyms;
	ropts.symbols_opts = &sopts;
	if (list_names(ro.sort, "trace") || list_names(o->fields, "trace")) {
		char why[512] = "";
		tt.t = script_trace_new(pd, why, sizeof(why));
		if (why[0] && !tt.t)
			cli_warning("tracepoint payloads are left out of the trace column: %s; "
				    "install libtraceevent1 (Debian) to see them",
				    why);
		else if (why[0])
			cli_warning("'%s': %s, so the payloads without a format are left out of the "
				    "trace column; record the file again for them",
				    o->input, why);
		ropts.sample_text = sample_trace_text;
		ropts.sample_text_ctx = &tt;
	}

	if ((rc = pev_profile_load(pd, &ropts, &p, &err))) {
		cli_print_error(&err);
		goto done;
	}
	cli_warn_unfinished(pd, o->input);
	if (offcpu_view(p, o, &ro))
		goto done;
	if (o->format == FMT_PPROF || o->format == FMT_OTLP)
		pprof_capture_time(p, pd, o->input);
	for (unsigned e = 0; e < pev_profile_nr_events(p); e++) {
		uint64_t n = 0;
		pev_profile_totals(p, e, &n, NULL);
		samples += n;
	}
	if (!samples && !o->quiet)
		cli_warning("'%s' has no samples; record some with 'perfev record' or "
			    "'perf record'", o->input);
	if (o->output && strcmp(o->output, "-") != 0) {
		out = cli_open_output("-o", o->output);
		if (!out)
			goto done;
	} else if (o->format == FMT_PPROF && isatty(STDOUT_FILENO)) {
		cli_error("pprof output is binary; name a file with -o (e.g. -o profile.pb.gz)");
		goto done;
	} else if (o->format == FMT_OTLP && isatty(STDOUT_FILENO)) {
		cli_error("OTLP output is binary; name a file with -o (e.g. -o profile.otlp.pb)");
		goto done;
	}
	if (o->format == FMT_TABLE && o->header)
		report_print_header(out, pd, o->input);
	else if (o->format == FMT_TABLE && !o->quiet)
		fputs("# To display the perf.data header info, please use --header/--header-only "
		      "options.\n#\n", out);
	rc = write_profile(p, out, o, &ro, &err);
	if (out != stdout && fclose(out) != 0 && !rc) {
		cli_error("cannot write '%s': %s", o->output, strerror(errno));
		goto done;
	}
	if (rc) {
		cli_print_error(&err);
		goto done;
	}
	status = pev_perfdata_unfinished(pd) ? CLI_STATUS_UNFINISHED : 0;
done:
	script_trace_free(tt.t);
	free(tt.buf);
	pev_profile_free(p);
	pev_perfdata_close(pd);
	return status;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {
		.input = cli_default_input(),
		.callgraph = -1,
		.order = -1,
		.children = -1,
		.max_stack = -1,
		.group = -1,
	};
	int rc = parse_args(argc, argv, &o);

	if (rc)
		return rc;
	if (fflush(stdout) == EOF)
		return 1;
	rc = run(&o);
	if (fflush(stdout) == EOF && !rc) {
		cli_error("cannot write the report: %s", strerror(errno));
		return 1;
	}
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * cmd_script.c - `perfev script`: the samples of a perf.data file, one per
 * line as `perf script` prints them: command, thread, CPU, time, period,
 * event, then the address with its symbol and DSO (or the call chain, one
 * frame per line) and a tracepoint's payload as text. -F picks the fields.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script.h"

static const char usage[] = "perfev script [-i FILE] [-F FIELDS]";

enum field {
	F_COMM = 1u << 0,
	F_TID = 1u << 1,
	F_PID = 1u << 2,
	F_CPU = 1u << 3,
	F_TIME = 1u << 4,
	F_EVENT = 1u << 5,
	F_IP = 1u << 6,
	F_SYM = 1u << 7,
	F_DSO = 1u << 8,
	F_PERIOD = 1u << 9,
	F_ADDR = 1u << 10,
	F_TRACE = 1u << 11,
	F_SYMOFF = 1u << 12,
	F_CALLCHAIN = 1u << 13, /* not a name: ip prints the chain when samples have one */
	F_DEFAULT = 1u << 14,   /* not a name: no -F (tracepoints then show no period) */
};

static const struct {
	const char *name;
	unsigned bit;
	uint64_t need; /* PEV_SAMPLE_* the samples must have */
	const char *fix;
} fields[] = {
	{"comm", F_COMM, PEV_SAMPLE_TID, "record without --no-tid"},
	{"tid", F_TID, PEV_SAMPLE_TID, "record without --no-tid"},
	{"pid", F_PID, PEV_SAMPLE_TID, "record without --no-tid"},
	{"cpu", F_CPU, PEV_SAMPLE_CPU, "record with -a or --sample-cpu"},
	{"time", F_TIME, PEV_SAMPLE_TIME, "record with -T or --timestamp"},
	{"event", F_EVENT, 0, NULL},
	{"ip", F_IP, PEV_SAMPLE_IP, "record without --no-ip"},
	{"sym", F_SYM, PEV_SAMPLE_IP, "record without --no-ip"},
	{"symoff", F_SYMOFF, PEV_SAMPLE_IP, "record without --no-ip"},
	{"dso", F_DSO, PEV_SAMPLE_IP, "record without --no-ip"},
	{"period", F_PERIOD, 0, NULL},
	{"addr", F_ADDR, PEV_SAMPLE_ADDR, "record with -d"},
	{"trace", F_TRACE, 0, NULL},
};

#define NR_FIELDS (sizeof(fields) / sizeof(fields[0]))

struct script_opts {
	const char *input;
	unsigned fields;  /* F_* given with -F; 0: the default set */
	const char *fields_text;
};

/* Parses -F: a comma-separated list of field names. 0 or the usage status. */
static int parse_fields(const char *text, unsigned *out)
{
	const char *s = text;

	*out = 0;
	for (;;) {
		size_t len = strcspn(s, ","), i;
		for (i = 0; i < NR_FIELDS; i++)
			if (strlen(fields[i].name) == len && strncmp(fields[i].name, s, len) == 0)
				break;
		if (i == NR_FIELDS) {
			cli_error("unknown field '%.*s' in '-F %s'; use comm, tid, pid, cpu, time, "
				  "event, ip, sym, symoff, dso, period, addr or trace",
				  (int)len, s, text);
			return 129;
		}
		*out |= fields[i].bit;
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

static int parse_args(int argc, char **argv, struct script_opts *o)
{
	static const struct option options[] = {
		{"input", required_argument, NULL, 'i'},
		{"fields", required_argument, NULL, 'F'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int opt, rc;

	optind = 1;
	opterr = 0; /* perfev's own messages (cli_bad_option), not getopt's */
	while ((opt = getopt_long(argc, argv, ":i:F:h", options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			o->input = optarg;
			break;
		case 'F':
			if ((rc = parse_fields(optarg, &o->fields)))
				return rc;
			o->fields_text = optarg;
			break;
		case 'h':
			printf("usage: %s\n\nPrints the samples of a perf.data file (default "
			       "./perf.data), one per line.\nSee 'man perfev-script'.\n",
			       usage);
			exit(0);
		default:
			return cli_bad_option(opt, argv, usage);
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s'; name the input file with -i", argv[optind]);
		return cli_usage(usage);
	}
	return 0;
}

static bool all_events_have(struct pev_perfdata *pd, uint64_t need)
{
	for (int i = 0; i < pev_perfdata_nr_events(pd); i++)
		if ((pev_perfdata_event(pd, i)->attr.sample_type & need) != need)
			return false;
	return true;
}

static bool any_event_has(struct pev_perfdata *pd, uint64_t need)
{
	for (int i = 0; i < pev_perfdata_nr_events(pd); i++)
		if (pev_perfdata_event(pd, i)->attr.sample_type & need)
			return true;
	return false;
}

/* The fields to print: -F's, checked against the file, or perf's default set. */
static int choose_fields(struct pev_perfdata *pd, const struct script_opts *o, unsigned *out)
{
	if (o->fields) {
		for (size_t i = 0; i < NR_FIELDS; i++) {
			char name[128];
			if (!(o->fields & fields[i].bit) || !fields[i].need ||
			    pev_perfdata_pipe_mode(pd) || all_events_have(pd, fields[i].need))
				continue;
			for (int e = 0; e < pev_perfdata_nr_events(pd); e++) {
				const struct pev_perfdata_event *ev = pev_perfdata_event(pd, e);
				if (ev->attr.sample_type & fields[i].need)
					continue;
				cli_error("field '%s' needs samples that record it, and those of "
					  "event '%s' in '%s' do not; %s, or leave '%s' out of -F",
					  fields[i].name,
					  pev_replay_event_name(ev, name, sizeof(name)), o->input,
					  fields[i].fix, fields[i].name);
				return 1;
			}
		}
		*out = o->fields;
		if ((*out & F_IP) && any_event_has(pd, PEV_SAMPLE_CALLCHAIN))
			*out |= F_CALLCHAIN;
		return 0;
	}
	*out = F_COMM | F_TID | F_TIME | F_EVENT | F_IP | F_SYM | F_SYMOFF | F_DSO | F_PERIOD |
	       F_TRACE | F_DEFAULT;
	if (any_event_has(pd, PEV_SAMPLE_CPU))
		*out |= F_CPU;
	if (any_event_has(pd, PEV_SAMPLE_CALLCHAIN))
		*out |= F_CALLCHAIN;
	return 0;
}

/*
 * One frame: "ADDRESS sym+0xOFF (dso)", as the fields ask. As perf, a call
 * chain's frame in a file shows its offset in the file (what objdump takes),
 * the sample's own line its run-time address.
 */
static void print_frame(FILE *out, unsigned f, const struct pev_profile_frame *fr, bool chain)
{
	bool first = true;

	if (f & F_IP) {
		fprintf(out, "%16" PRIx64,
			chain && (fr->flags & PEV_FRAME_DSO_OFFSET) ? fr->dso_offset : fr->address);
		first = false;
	}
	if (f & (F_SYM | F_SYMOFF)) {
		fputs(first ? "" : " ", out);
		fputs(fr->symbol ? fr->symbol : "[unknown]", out);
		if ((f & F_SYMOFF) && fr->symbol && !(fr->flags & PEV_FRAME_INLINED))
			fprintf(out, "+0x%" PRIx64, fr->offset);
		if (fr->flags & PEV_FRAME_INLINED)
			fputs(" (inlined)", out);
		first = false;
	}
	if (f & F_DSO)
		fprintf(out, "%s(%s)", first ? "" : " ", fr->dso ? fr->dso : "[unknown]");
}

static void print_sample(FILE *out, unsigned f, const struct pev_replay_sample *s,
			 struct script_trace *trace)
{
	bool tracepoint = s->event->attr.type == PEV_TYPE_TRACEPOINT;
	char name[256];

	if (f & F_COMM)
		fprintf(out, "%16s", s->comm);
	if ((f & F_PID) && (f & F_TID))
		fprintf(out, " %5d/%-5d", s->pid, s->tid);
	else if (f & F_PID)
		fprintf(out, " %5d", s->pid);
	else if (f & F_TID)
		fprintf(out, " %5d", s->tid);
	if (f & F_CPU)
		fprintf(out, " [%03d]", s->cpu);
	if (f & F_TIME)
		fprintf(out, " %" PRIu64 ".%06" PRIu64 ":", s->time / 1000000000,
			s->time % 1000000000 / 1000);
	if ((f & F_PERIOD) && !(tracepoint && (f & F_DEFAULT)))
		fprintf(out, " %10" PRIu64, s->period);
	if (f & F_EVENT)
		fprintf(out, " %s:", pev_replay_event_name(s->event, name, sizeof(name)));
	if ((f & F_ADDR) && (s->record->sample.fields & PEV_SAMPLE_ADDR))
		fprintf(out, " %16" PRIx64, s->record->sample.addr);
	if ((f & F_TRACE) && tracepoint) {
		fputc(' ', out);
		if (!script_trace_print(trace, out, s))
			fprintf(out, "[%" PRIu32 " bytes of payload, no format fits it]",
				s->record->sample.raw_size);
	}
	if (!(f & (F_IP | F_SYM | F_SYMOFF | F_DSO)) || !s->nr_frames) {
		fputc('\n', out);
		return;
	}
	if ((f & F_CALLCHAIN) && (s->record->sample.fields & PEV_SAMPLE_CALLCHAIN)) {
		fputc('\n', out);
		for (size_t i = 0; i < s->nr_frames; i++) {
			fputc('\t', out);
			print_frame(out, f, &s->frames[i], true);
			fputc('\n', out);
		}
		fputc('\n', out);
		return;
	}
	/* The sample's own function: skip the frames of code inlined into it. */
	size_t leaf = 0;
	while (leaf + 1 < s->nr_frames && (s->frames[leaf].flags & PEV_FRAME_INLINED))
		leaf++;
	fputs("  ", out);
	print_frame(out, f, &s->frames[leaf], false);
	fputc('\n', out);
}

static int run(const struct script_opts *o)
{
	struct pev_replay_opts ropts = PEV_REPLAY_OPTS_INIT;
	struct pev_symbols_opts sopts = PEV_SYMBOLS_OPTS_INIT;
	struct pev_perfdata *pd = NULL;
	struct pev_replay *r = NULL;
	struct script_trace *trace = NULL;
	struct pev_replay_sample s;
	struct pev_error err;
	unsigned f;
	int rc, status = 1;

	cli_log_warnings(); /* what the symbolizer skips is said, not lost */
	if (pev_perfdata_open(o->input, 0, &pd, &err)) {
		cli_print_error(&err);
		return 1;
	}
	cli_warn_unfinished(pd, o->input);
	if (choose_fields(pd, o, &f))
		goto done;
	if ((f & F_TRACE) && any_event_has(pd, PEV_SAMPLE_RAW)) {
		char why[512] = "";
		trace = script_trace_new(pd, why, sizeof(why));
		if (why[0] && !trace)
			cli_warning("tracepoint payloads show as bytes: %s; install libtraceevent1 "
				    "(Debian) to see them as text",
				    why);
		else if (why[0])
			cli_warning("'%s': %s, so the payloads without a format show as bytes; "
				    "record the file again for them",
				    o->input, why);
	}
	/* C++ names as perf script prints them: geo::Circle::area+0x33. */
	sopts.flags |= PEV_SYMBOLS_NO_SRCLINE | PEV_SYMBOLS_SHORT_NAMES;
	ropts.flags |= PEV_REPLAY_NO_INLINE;
	if (!(f & F_CALLCHAIN))
		ropts.flags |= PEV_REPLAY_NO_CALLCHAIN;
	ropts.symbols_opts = &sopts;
	if (pev_replay_open(pd, &ropts, &r, &err)) {
		cli_print_error(&err);
		goto done;
	}
	while ((rc = pev_replay_next(r, &s, &err)) == 1)
		print_sample(stdout, f, &s, trace);
	if (rc < 0) {
		fflush(stdout);
		cli_print_error(&err);
		goto done;
	}
	status = pev_perfdata_unfinished(pd) ? CLI_STATUS_UNFINISHED : 0;
done:
	script_trace_free(trace);
	pev_replay_close(r);
	pev_perfdata_close(pd);
	return status;
}

int cmd_script(int argc, char **argv)
{
	struct script_opts o = {.input = "perf.data"};
	int rc = parse_args(argc, argv, &o);

	if (rc)
		return rc;
	rc = run(&o);
	if (fflush(stdout) == EOF && !rc) {
		cli_error("cannot write the samples: %s", strerror(errno));
		return 1;
	}
	return rc;
}

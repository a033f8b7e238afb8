/* SPDX-License-Identifier: MIT */
/*
 * cmd_script.c - `perfev script`: the samples of a perf.data file, one per
 * line as `perf script` prints them: command, thread, CPU, time, period,
 * event, a tracepoint's payload as text, then the address with its symbol
 * and DSO (or the call chain, one frame per line); a sample that read a
 * ':S' group, once per member that grew (pev_read_periods_take).
 * script_fields.c chooses the fields (-F); this file prints them in perf's
 * layout.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script.h"

static const char usage[] =
	"perfev script [-i FILE] [-F [KIND:][+-]FIELD,...] [-G] [-c COMMS] [--pid PIDS]\n"
	"                     [--tid TIDS] [--ns] [--symbol-at-return] [--zero-frames]\n"
	"                     [--inline|--no-inline] [--kallsyms FILE]";

struct script_opts {
	const char *input;
	struct script_fields sf;
	bool ns; /* times in nanoseconds */
	bool symbol_at_return; /* callers named as perf names them */
	bool zero_frames;      /* call-chain entries of address 0 kept, as perf */
	bool no_inline;        /* no inline frames in DWARF-unwound chains */
	const char *kallsyms;  /* the kernel's symbols from this file, not /proc/kallsyms */
	/* Only samples of these commands, processes, threads (comma-separated lists, or NULL). */
	const char *comms, *pids, *tids;
};

static int parse_args(int argc, char **argv, struct script_opts *o)
{
	enum { OPT_NS = 256, OPT_SYMBOL_AT_RETURN, OPT_ZERO_FRAMES, OPT_INLINE, OPT_NO_INLINE,
	       OPT_PID, OPT_TID, OPT_KALLSYMS };
	static const struct option options[] = {
		{"input", required_argument, NULL, 'i'},
		{"fields", required_argument, NULL, 'F'},
		{"hide-call-graph", no_argument, NULL, 'G'},
		{"comms", required_argument, NULL, 'c'},
		{"pid", required_argument, NULL, OPT_PID},
		{"pids", required_argument, NULL, OPT_PID},
		{"tid", required_argument, NULL, OPT_TID},
		{"tids", required_argument, NULL, OPT_TID},
		{"ns", no_argument, NULL, OPT_NS},
		{"symbol-at-return", no_argument, NULL, OPT_SYMBOL_AT_RETURN},
		{"zero-frames", no_argument, NULL, OPT_ZERO_FRAMES},
		{"inline", no_argument, NULL, OPT_INLINE},
		{"no-inline", no_argument, NULL, OPT_NO_INLINE},
		{"kallsyms", required_argument, NULL, OPT_KALLSYMS},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int opt, rc;

	optind = 1;
	opterr = 0; /* perfev's own messages (cli_bad_option), not getopt's */
	while ((opt = getopt_long(argc, argv, ":i:F:Gc:h", options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			o->input = optarg;
			break;
		case 'F':
			if ((rc = script_fields_parse(&o->sf, optarg)))
				return rc;
			break;
		case 'G':
			o->sf.hide_callchain = true;
			break;
		case 'c':
			o->comms = optarg;
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
		case OPT_NS:
			o->ns = true;
			break;
		case OPT_SYMBOL_AT_RETURN:
			o->symbol_at_return = true;
			break;
		case OPT_ZERO_FRAMES:
			o->zero_frames = true;
			break;
		case OPT_INLINE:
			o->no_inline = false;
			break;
		case OPT_NO_INLINE:
			o->no_inline = true;
			break;
		case OPT_KALLSYMS:
			o->kallsyms = optarg;
			break;
		case 'h':
			printf("usage: %s\n\n"
			       "Prints the samples of a perf.data file (default ./perf.data, or standard "
			       "input when that is a pipe;\n-i - reads standard input), one per line, as "
			       "perf script does.\n\n"
			       "  -i, --input FILE       the file to read\n"
			       "  -F, --fields FIELDS    the fields to print: comm, tid, pid, cpu, time, "
			       "period,\n"
			       "                         event, addr, trace, ip, sym, symoff, dso; "
			       "+FIELD adds to\n"
			       "                         the default set, -FIELD removes from it, "
			       "KIND:FIELDS sets\n"
			       "                         them for one kind of event (hw, sw, trace, "
			       "hw-cache, raw,\n"
			       "                         break, pmu)\n"
			       "  -G, --hide-call-graph  one line per sample, without its call chain\n"
			       "  -c, --comms COMMS      only the samples of these commands "
			       "(comma-separated)\n"
			       "      --pid PIDS         only the samples of these processes\n"
			       "      --tid TIDS         only the samples of these threads\n"
			       "      --ns               times with nanoseconds\n"
			       "      --symbol-at-return name each caller by the symbol at its return "
			       "address, as perf\n"
			       "                         does (default: by its call instruction)\n"
			       "      --zero-frames      keep call-chain entries of address 0, as perf "
			       "does\n"
			       "      --no-inline        no inlined functions in call chains unwound "
			       "with DWARF\n"
			       "                         (--inline, the default: one line each, "
			       "\"(inlined)\")\n"
			       "      --kallsyms FILE    the kernel's symbols from FILE (a kallsyms "
			       "list)\n\n"
			       "  -h, --help             print this help\n\n"
			       "See 'man perfev-script'.\n",
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

static bool any_event_has(struct pev_perfdata *pd, uint64_t need)
{
	for (int i = 0; i < pev_perfdata_nr_events(pd); i++)
		if (pev_perfdata_event(pd, i)->attr.sample_type & need)
			return true;
	return false;
}

/*
 * The text of the samples is built here and written in large blocks: a
 * call-chain file prints tens of millions of small pieces, and stdio's
 * formatting was two thirds of the time (docs/BENCHMARKS.md).
 */
struct text {
	char *p;
	size_t len, cap;
	FILE *out;
	bool failed; /* out of memory: what did not fit is dropped, the run fails */
};

#define TEXT_FLUSH_AT (256 * 1024)

static void text_flush(struct text *t)
{
	if (t->len)
		fwrite(t->p, 1, t->len, t->out);
	t->len = 0;
}

/* Makes room for n more bytes; false when there is no memory for them. */
static bool text_grow(struct text *t, size_t n)
{
	size_t cap = t->cap ? t->cap : TEXT_FLUSH_AT + 4096;
	char *p;

	while (cap < t->len + n)
		cap *= 2;
	p = realloc(t->p, cap);
	if (!p) {
		t->failed = true;
		return false;
	}
	t->p = p;
	t->cap = cap;
	return true;
}

/* Room for n more bytes; false when there is none. Inline: it runs for every piece. */
static inline bool text_room(struct text *t, size_t n)
{
	return t->len + n <= t->cap || text_grow(t, n);
}

/* Appends n bytes (none: nothing, not even a first buffer: an empty comm is one). */
static inline void put(struct text *t, const char *s, size_t n)
{
	if (n && text_room(t, n)) {
		memcpy(t->p + t->len, s, n);
		t->len += n;
	}
}

static inline void put_str(struct text *t, const char *s)
{
	put(t, s, strlen(s));
}

static inline void put_char(struct text *t, char c)
{
	if (text_room(t, 1))
		t->p[t->len++] = c;
}

/* n spaces; none when n is 0 or less (a cell wider than its column overflows it). */
static void put_spaces(struct text *t, int n)
{
	if (n > 0 && text_room(t, (size_t)n)) {
		memset(t->p + t->len, ' ', (size_t)n);
		t->len += (size_t)n;
	}
}

/*
 * A name from the file (comm, DSO, symbol, event), its control bytes and
 * invalid UTF-8 escaped as \xHH (pev_text_escape): one line stays one line.
 */
static void put_name(struct text *t, const char *s)
{
	size_t n;

	if (pev_text_is_clean(s)) {
		put_str(t, s);
		return;
	}
	n = pev_text_escape(NULL, 0, s, 0);
	if (text_room(t, n + 1)) {
		pev_text_escape(t->p + t->len, n + 1, s, 0);
		t->len += n;
	}
}

/* A name (as put_name) right-aligned in width columns ("%*s"). */
static void put_right(struct text *t, const char *s, int width)
{
	size_t n = pev_text_is_clean(s) ? strlen(s) : pev_text_escape(NULL, 0, s, 0);

	put_spaces(t, width - (int)n);
	put_name(t, s);
}

/* v in decimal (digits 0: as wide as it is; zero: padded with zeros). */
static void put_dec(struct text *t, int64_t v, int width, bool left, bool zero)
{
	char buf[24], *e = buf + sizeof(buf), *p = e;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (zero)
		while (e - p < width && p > buf + 1) /* room left for a '-' */
			*--p = '0';
	if (v < 0)
		*--p = '-';
	if (!left)
		put_spaces(t, width - (int)(e - p));
	put(t, p, (size_t)(e - p));
	if (left)
		put_spaces(t, width - (int)(e - p));
}

/* v in hex, right-aligned in width columns ("%*lx"). */
static void put_hex(struct text *t, uint64_t v, int width)
{
	static const char digits[] = "0123456789abcdef";
	char buf[16], *e = buf + sizeof(buf), *p = e;

	do
		*--p = digits[v & 15];
	while (v >>= 4);
	put_spaces(t, width - (int)(e - p));
	put(t, p, (size_t)(e - p));
}

/* What every sample line prints the same way. */
struct printer {
	struct text text;
	const struct script_fields *sf;
	struct script_trace *trace;
	struct pev_symbols *symbols; /* the replay's, for the addresses of page faults */
	int name_width; /* the longest event name */
	bool ns;
	const struct script_opts *filter; /* -c, --pid, --tid */
};

/* Whether a sample passes -c, --pid and --tid (perf script's filters). */
static bool sample_shown(const struct script_opts *o, const struct pev_replay_sample *s)
{
	if (o->comms && !cli_list_has(o->comms, s->comm ? s->comm : ""))
		return false;
	if (o->pids && !cli_list_has_id(o->pids, s->pid))
		return false;
	return !o->tids || cli_list_has_id(o->tids, s->tid);
}

/*
 * One frame: "ADDRESS sym+0xOFF (dso)", as the fields ask. As perf, a call
 * chain's frame in a file shows its offset in the file (what objdump takes),
 * the sample's own line its run-time address. A chain's inlined function,
 * or a function its debuginfo names otherwise than its symbol, is
 * "ADDRESS name+0xOFF (inlined)", OFF the offset in the holding symbol
 * (holder: the frame of that symbol).
 */
static void print_frame(struct text *t, unsigned f, const struct pev_profile_frame *fr,
			const struct pev_profile_frame *holder, bool chain)
{
	bool first = true;
	/* As perf: an inlined function named as the symbol holding it is that symbol. */
	bool inlined = chain && (fr->debug_name || ((fr->flags & PEV_FRAME_INLINED) &&
						    !(fr->symbol && holder->symbol &&
						      strcmp(fr->symbol, holder->symbol) == 0)));
	const char *name = chain && fr->debug_name ? fr->debug_name : fr->symbol;

	if (f & SF_IP) {
		put_hex(t, chain && (fr->flags & PEV_FRAME_DSO_OFFSET) ? fr->dso_offset
								      : fr->address,
			16);
		first = false;
	}
	if (f & (SF_SYM | SF_SYMOFF)) {
		if (!first)
			put_char(t, ' ');
		put_name(t, name ? name : "[unknown]");
		if ((f & SF_SYMOFF) && holder->symbol) {
			put(t, "+0x", 3);
			put_hex(t, holder->offset, 0);
		}
		if (inlined)
			put_str(t, " (inlined)");
		first = false;
	}
	if ((f & SF_DSO) && !inlined) {
		put(t, " (", first ? 1 : 2);
		put_name(t, fr->dso ? fr->dso : "[unknown]");
		put_char(t, ')');
	}
}

/* Whether a sample's addr is an address in the program: a page fault's, as perf has it. */
static bool addr_is_code_or_data(const struct pev_perfdata_event *ev)
{
	return ev->attr.type == PEV_TYPE_SOFTWARE &&
	       (ev->attr.config == PEV_SW_PAGE_FAULTS || ev->attr.config == PEV_SW_PAGE_FAULTS_MIN ||
		ev->attr.config == PEV_SW_PAGE_FAULTS_MAJ);
}

/* The addr field: the address, and for a page fault its symbol and DSO as the fields ask. */
static void print_addr(struct printer *pr, unsigned f, const struct pev_replay_sample *s)
{
	struct pev_symbol sym = PEV_SYMBOL_INIT;
	struct text *t = &pr->text;
	uint64_t addr = s->record->sample.addr;

	put_hex(t, addr, 16);
	if (!addr_is_code_or_data(s->event) || !(f & (SF_SYM | SF_SYMOFF | SF_DSO)) ||
	    !pr->symbols || pev_symbols_resolve(pr->symbols, s->pid, addr, &sym) != 0)
		return;
	if (f & (SF_SYM | SF_SYMOFF)) {
		put_char(t, ' ');
		put_name(t, sym.name);
		if ((f & SF_SYMOFF) && sym.status == PEV_SYMBOL_OK) {
			put(t, "+0x", 3);
			put_hex(t, sym.offset, 0);
		}
	}
	if (f & SF_DSO) {
		put(t, " (", 2);
		put_name(t, sym.dso ? sym.dso : "[unknown]");
		put_char(t, ')');
	}
}

/*
 * One sample as perf prints it: each field followed by a space, the
 * command padded to 16 columns unless a call chain follows, the event
 * name padded to the longest one's width.
 */
static void print_sample(struct printer *pr, const struct pev_replay_sample *s)
{
	struct text *t = &pr->text;
	const struct pev_sample *smp = &s->record->sample;
	unsigned f = pr->sf->fields[script_kind_of(s->event)];
	bool chain = pr->sf->use_callchain && (f & SF_IP) &&
		     (s->event->attr.sample_type & PEV_SAMPLE_CALLCHAIN);

	if (f & SF_COMM) {
		if (chain)
			put_name(t, s->comm);
		else
			put_right(t, s->comm, 16);
		put_char(t, ' ');
	}
	if ((f & SF_PID) && (f & SF_TID)) {
		put_dec(t, s->pid, 5, false, false);
		put_char(t, '/');
		put_dec(t, s->tid, 5, true, false);
		put_char(t, ' ');
	} else if (f & (SF_PID | SF_TID)) {
		put_dec(t, (f & SF_PID) ? s->pid : s->tid, 5, false, false);
		put_char(t, ' ');
	}
	if (f & SF_CPU) {
		put_char(t, '[');
		put_dec(t, s->cpu, 3, false, true);
		put(t, "] ", 2);
	}
	if (f & SF_TIME) {
		put_dec(t, (int64_t)(s->time / 1000000000), 5, false, false);
		put_char(t, '.');
		if (pr->ns)
			put_dec(t, (int64_t)(s->time % 1000000000), 9, false, true);
		else
			put_dec(t, (int64_t)(s->time % 1000000000 / 1000), 6, false, true);
		put(t, ": ", 2);
	}
	if (f & SF_PERIOD) {
		put_dec(t, (int64_t)s->period, 10, false, false);
		put_char(t, ' ');
	}
	if (f & SF_EVENT) {
		char name[256];
		put_right(t, pev_replay_event_name(s->event, name, sizeof(name)), pr->name_width);
		put(t, ": ", 2);
	}
	if ((f & SF_TRACE) && (smp->fields & PEV_SAMPLE_RAW)) {
		text_flush(t); /* libtraceevent's text goes to the stream */
		if (!script_trace_print(pr->trace, t->out, s))
			fprintf(t->out, "[%" PRIu32 " bytes of payload, no format fits it]",
				smp->raw_size);
	}
	if ((f & SF_ADDR) && (smp->fields & PEV_SAMPLE_ADDR))
		print_addr(pr, f, s);
	if (!(f & (SF_IP | SF_SYM | SF_SYMOFF | SF_DSO)) || !s->nr_frames) {
		put_char(t, '\n');
	} else if (chain && (smp->fields & PEV_SAMPLE_CALLCHAIN)) {
		put_char(t, '\n');
		for (size_t i = 0, h = 0; i < s->nr_frames; i++) {
			h = h > i ? h : i;
			while (h + 1 < s->nr_frames && (s->frames[h].flags & PEV_FRAME_INLINED))
				h++;
			put_char(t, '\t');
			print_frame(t, f, &s->frames[i], &s->frames[h], true);
			put_char(t, '\n');
		}
		put_char(t, '\n');
	} else {
		/* The sample's own function: skip the frames of code inlined into it. */
		size_t leaf = 0;
		while (leaf + 1 < s->nr_frames && (s->frames[leaf].flags & PEV_FRAME_INLINED))
			leaf++;
		put_char(t, ' ');
		print_frame(t, f, &s->frames[leaf], &s->frames[leaf], false);
		put_char(t, '\n');
	}
	if (t->len >= TEXT_FLUSH_AT)
		text_flush(t);
}

/*
 * A sample that read counters (PERF_SAMPLE_READ: a ':S' group's leader) is
 * printed as perf script prints it: one line (or call chain) per counter
 * read that grew, named after its event, with the growth since the
 * counter's read before as its period (pev_read_periods_take, what
 * perfev report weighs). Other samples: one line. 0 or PEV_ENOMEM.
 */
static int print_samples(struct printer *pr, struct pev_read_periods *reads,
			 const struct pev_replay_sample *s)
{
	struct pev_replay_sample each = *s;
	struct pev_read_period rp;
	bool shown = sample_shown(pr->filter, s);
	int rc;

	if (!(s->record->sample.fields & PEV_SAMPLE_READ)) {
		if (shown)
			print_sample(pr, s);
		return 0;
	}
	/* A sample not shown still takes its reads: the next one's periods grow from them. */
	for (uint64_t i = 0; i < s->record->sample.read.nr; i++) {
		if ((rc = pev_read_periods_take(reads, s, i, &rp)) < 0)
			return rc;
		if (!rc)
			continue;
		each.event = rp.event;
		each.period = rp.period;
		if (shown)
			print_sample(pr, &each);
	}
	return 0;
}

/* Counter reads that went back, said once: they print nothing (perf prints 2^64 - the drop). */
static void warn_backwards(const struct pev_read_periods *reads, const char *input)
{
	uint64_t nr, backwards = pev_read_periods_backwards(reads, &nr);

	if (backwards)
		cli_warning("'%s': %" PRIu64 " of %" PRIu64 " counter values read in samples "
			    "(PERF_SAMPLE_READ) are smaller than the same counter's read before; "
			    "a counter never goes back: not printed",
			    input, backwards, nr);
}

static int run(struct script_opts *o)
{
	struct pev_replay_opts ropts = PEV_REPLAY_OPTS_INIT;
	struct pev_symbols_opts sopts = PEV_SYMBOLS_OPTS_INIT;
	struct pev_perfdata *pd = NULL;
	struct pev_replay *r = NULL;
	struct pev_read_periods *reads = NULL;
	struct printer pr = {.text.out = stdout, .sf = &o->sf, .ns = o->ns, .filter = o};
	struct pev_replay_sample s;
	struct pev_error err;
	bool trace = false;
	int rc, status = 1;

	cli_log_warnings(); /* what the symbolizer skips is said, not lost */
	if (pev_perfdata_open(o->input, 0, &pd, &err)) {
		cli_print_error(&err);
		return 1;
	}
	cli_warn_unfinished(pd, o->input);
	if (script_fields_check(&o->sf, pd, o->input))
		goto done;
	pr.name_width = script_fields_name_width(pd);
	for (int k = 0; k < SCRIPT_NR_KINDS; k++)
		trace |= (o->sf.fields[k] & SF_TRACE) != 0;
	if (trace && any_event_has(pd, PEV_SAMPLE_RAW)) {
		char why[512] = "";
		pr.trace = script_trace_new(pd, why, sizeof(why));
		if (why[0] && !pr.trace)
			cli_warning("tracepoint payloads show as bytes: %s; install libtraceevent1 "
				    "(Debian) to see them as text",
				    why);
		else if (why[0])
			cli_warning("'%s': %s, so the payloads without a format show as bytes; "
				    "record the file again for them",
				    o->input, why);
	}
	/* C++ names as perf script prints them: geo::Circle::area+0x33. */
	sopts.flags |= PEV_SYMBOLS_SHORT_NAMES | PEV_SYMBOLS_NO_LINES;
	/* As perf: inline frames in the call chains unwound with DWARF only. */
	if (o->no_inline || !o->sf.use_callchain ||
	    !any_event_has(pd, PEV_SAMPLE_STACK_USER)) {
		ropts.flags |= PEV_REPLAY_NO_INLINE;
		sopts.flags |= PEV_SYMBOLS_NO_SRCLINE;
	}
	if (!o->sf.use_callchain)
		ropts.flags |= PEV_REPLAY_NO_CALLCHAIN;
	if (o->symbol_at_return)
		ropts.flags |= PEV_REPLAY_SYMBOL_AT_RETURN;
	if (o->zero_frames)
		ropts.flags |= PEV_REPLAY_ZERO_FRAMES;
	sopts.kallsyms = o->kallsyms;
	ropts.symbols_opts = &sopts;
	if (pev_replay_open(pd, &ropts, &r, &err)) {
		cli_print_error(&err);
		goto done;
	}
	pr.symbols = pev_replay_symbols(r);
	if ((rc = pev_read_periods_new(pd, &reads)) < 0) {
		cli_error("out of memory while reading '%s'", o->input);
		goto done;
	}
	while ((rc = pev_replay_next(r, &s, &err)) == 1)
		if ((rc = print_samples(&pr, reads, &s)) < 0)
			break;
	text_flush(&pr.text);
	if (rc == PEV_ENOMEM && !pr.text.failed) {
		fflush(stdout);
		cli_error("out of memory while reading '%s'", o->input);
		goto done;
	}
	warn_backwards(reads, o->input);
	if (rc < 0) {
		fflush(stdout);
		cli_print_error(&err);
		goto done;
	}
	cli_warn_unfinished(pd, o->input);
	if (pr.text.failed) {
		cli_error("out of memory while printing the samples of '%s'", o->input);
		goto done;
	}
	status = pev_perfdata_unfinished(pd) ? CLI_STATUS_UNFINISHED : 0;
done:
	free(pr.text.p);
	script_trace_free(pr.trace);
	pev_read_periods_free(reads);
	pev_replay_close(r);
	pev_perfdata_close(pd);
	return status;
}

int cmd_script(int argc, char **argv)
{
	struct script_opts o = {.input = cli_default_input()};
	int rc;

	script_fields_init(&o.sf);
	rc = parse_args(argc, argv, &o);
	if (rc)
		return rc;
	rc = run(&o);
	if (fflush(stdout) == EOF && !rc) {
		cli_error("cannot write the samples: %s", strerror(errno));
		return 1;
	}
	return rc;
}

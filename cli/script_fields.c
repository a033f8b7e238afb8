/* SPDX-License-Identifier: MIT */
/*
 * script_fields.c - which fields `perfev script` prints for each kind of
 * event, as perf script 6.1 chooses them: a default set per kind (hardware,
 * software, raw, breakpoint and PMU events: comm, tid, time, event, ip, sym,
 * symoff, dso, period; tracepoints: comm, tid, cpu, time, event, trace),
 * changed by -F (a list replaces the set, "+f" adds to it, "-f" removes from
 * it, "KIND:..." changes one kind only), then checked against the file: a
 * default field the samples do not record is dropped quietly, a field the
 * user named is refused with the way to record it.
 */
#include <stdio.h>
#include <string.h>

#include "script.h"

static const struct {
	const char *name;
	unsigned bit;
	uint64_t need; /* PEV_SAMPLE_* the samples must have */
	const char *fix;
} fields[] = {
	{"comm", SF_COMM, PEV_SAMPLE_TID, "record without --no-tid"},
	{"tid", SF_TID, PEV_SAMPLE_TID, "record without --no-tid"},
	{"pid", SF_PID, PEV_SAMPLE_TID, "record without --no-tid"},
	{"cpu", SF_CPU, PEV_SAMPLE_CPU, "record with -a or --sample-cpu"},
	{"time", SF_TIME, PEV_SAMPLE_TIME, "record with -T or --timestamp"},
	{"event", SF_EVENT, 0, NULL},
	{"ip", SF_IP, PEV_SAMPLE_IP, "record without --no-ip"},
	{"sym", SF_SYM, PEV_SAMPLE_IP, "record without --no-ip"},
	{"symoff", SF_SYMOFF, PEV_SAMPLE_IP, "record without --no-ip"},
	{"dso", SF_DSO, PEV_SAMPLE_IP, "record without --no-ip"},
	{"period", SF_PERIOD, 0, NULL},
	{"addr", SF_ADDR, PEV_SAMPLE_ADDR, "record with -d"},
	{"trace", SF_TRACE, PEV_SAMPLE_RAW, "record a tracepoint event"},
};

#define NR_FIELDS (sizeof(fields) / sizeof(fields[0]))

/* The names -F takes before a colon, as perf's, indexed by enum script_kind. */
static const char *const kind_names[SCRIPT_NR_KINDS] = {
	"hw", "sw", "trace", "hw-cache", "raw", "break", "pmu",
};

#define DEFAULT_FIELDS                                                                        \
	(SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_EVENT | SF_IP | SF_SYM | SF_SYMOFF | SF_DSO | \
	 SF_PERIOD)
#define TRACE_DEFAULT_FIELDS (SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_EVENT | SF_TRACE)
#define CHAIN_FIELDS (SF_IP | SF_SYM | SF_SYMOFF | SF_DSO)

enum script_kind script_kind_of(const struct pev_perfdata_event *ev)
{
	switch (ev->attr.type) {
	case PEV_TYPE_HARDWARE:
		return SCRIPT_HW;
	case PEV_TYPE_SOFTWARE:
		return SCRIPT_SW;
	case PEV_TYPE_TRACEPOINT:
		return SCRIPT_TRACE;
	case PEV_TYPE_HW_CACHE:
		return SCRIPT_HW_CACHE;
	case PEV_TYPE_RAW:
		return SCRIPT_RAW;
	case PEV_TYPE_BREAKPOINT:
		return SCRIPT_BREAK;
	default:
		return SCRIPT_PMU;
	}
}

void script_fields_init(struct script_fields *sf)
{
	memset(sf, 0, sizeof(*sf));
	for (int k = 0; k < SCRIPT_NR_KINDS; k++)
		sf->fields[k] = k == SCRIPT_TRACE ? TRACE_DEFAULT_FIELDS : DEFAULT_FIELDS;
}

static int field_index(const char *s, size_t len)
{
	for (size_t i = 0; i < NR_FIELDS; i++)
		if (strlen(fields[i].name) == len && strncmp(fields[i].name, s, len) == 0)
			return (int)i;
	return -1;
}

/* Applies one field to kind k: set or add (remove false), or remove. */
static void apply(struct script_fields *sf, int k, unsigned bit, bool remove)
{
	if (remove) {
		sf->fields[k] &= ~bit;
		sf->named[k] &= ~bit;
	} else {
		sf->fields[k] |= bit;
		sf->named[k] |= bit;
	}
	sf->user_set[k] = true;
}

int script_fields_parse(struct script_fields *sf, const char *text)
{
	const char *s = text, *colon = strchr(text, ':');
	int kind = -1; /* -1: every kind */
	enum { UNSET, SET, CHANGE } mode = UNSET;

	if (colon) {
		for (int k = 0; k < SCRIPT_NR_KINDS; k++)
			if (strlen(kind_names[k]) == (size_t)(colon - text) &&
			    strncmp(kind_names[k], text, (size_t)(colon - text)) == 0)
				kind = k;
		if (kind < 0) {
			cli_error("unknown event kind '%.*s' in '-F %s'; use hw, sw, trace, "
				  "hw-cache, raw, break or pmu before the colon",
				  (int)(colon - text), text, text);
			return 129;
		}
		s = colon + 1;
	}
	for (;;) {
		size_t len = strcspn(s, ",");
		bool change = len && (*s == '+' || *s == '-'), remove = change && *s == '-';
		const char *name = change ? s + 1 : s;
		size_t name_len = change ? len - 1 : len;
		int i = field_index(name, name_len);

		if (i < 0) {
			cli_error("unknown field '%.*s' in '-F %s'; use comm, tid, pid, cpu, time, "
				  "event, ip, sym, symoff, dso, period, addr or trace",
				  (int)name_len, name, text);
			return 129;
		}
		if (mode != UNSET && (mode == CHANGE) != change) {
			cli_error("'-F %s' mixes fields with +field or -field; give a list to "
				  "replace the default fields, or only +field and -field to change "
				  "them",
				  text);
			return 129;
		}
		if (mode == UNSET && !change) /* a list: the kinds it names start empty */
			for (int k = 0; k < SCRIPT_NR_KINDS; k++)
				if (kind < 0 || k == kind)
					sf->fields[k] = sf->named[k] = 0;
		mode = change ? CHANGE : SET;
		if (fields[i].bit == SF_TRACE && kind >= 0 && kind != SCRIPT_TRACE) {
			cli_error("field 'trace' in '-F %s' is for tracepoints only; leave it out "
				  "or write trace:%s",
				  text, fields[i].name);
			return 129;
		}
		for (int k = 0; k < SCRIPT_NR_KINDS; k++)
			if ((kind < 0 || k == kind) && (fields[i].bit != SF_TRACE || k == SCRIPT_TRACE))
				apply(sf, k, fields[i].bit, remove);
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

static bool all_of_kind_have(struct pev_perfdata *pd, int kind, uint64_t need)
{
	for (int i = 0; i < pev_perfdata_nr_events(pd); i++) {
		const struct pev_perfdata_event *ev = pev_perfdata_event(pd, i);
		if ((int)script_kind_of(ev) == kind && (ev->attr.sample_type & need) != need)
			return false;
	}
	return true;
}

/* Refuses a field the user named and kind k's samples lack; drops a default one. */
static int check_kind(struct script_fields *sf, struct pev_perfdata *pd, int k, const char *input)
{
	for (size_t i = 0; i < NR_FIELDS; i++) {
		char name[128];
		if (!(sf->fields[k] & fields[i].bit) || !fields[i].need ||
		    all_of_kind_have(pd, k, fields[i].need))
			continue;
		if (!(sf->named[k] & fields[i].bit)) {
			sf->fields[k] &= ~fields[i].bit;
			continue;
		}
		for (int e = 0; e < pev_perfdata_nr_events(pd); e++) {
			const struct pev_perfdata_event *ev = pev_perfdata_event(pd, e);
			if ((int)script_kind_of(ev) != k || (ev->attr.sample_type & fields[i].need))
				continue;
			cli_error("field '%s' needs samples that record it, and those of event "
				  "'%s' in '%s' do not; %s, or leave '%s' out of -F",
				  fields[i].name, pev_replay_event_name(ev, name, sizeof(name)),
				  input, fields[i].fix, fields[i].name);
			return 1;
		}
	}
	return 0;
}

int script_fields_check(struct script_fields *sf, struct pev_perfdata *pd, const char *input)
{
	bool present[SCRIPT_NR_KINDS] = {false}, chain = false, trace_chain = false;

	for (int i = 0; i < pev_perfdata_nr_events(pd); i++) {
		const struct pev_perfdata_event *ev = pev_perfdata_event(pd, i);
		bool has_chain = ev->attr.sample_type & PEV_SAMPLE_CALLCHAIN;
		present[script_kind_of(ev)] = true;
		chain |= has_chain;
		trace_chain |= has_chain && script_kind_of(ev) == SCRIPT_TRACE;
	}
	sf->use_callchain = chain && !sf->hide_callchain;
	/* Tracepoints that carry call chains print them unless -F said otherwise. */
	if (sf->use_callchain && trace_chain && !sf->user_set[SCRIPT_TRACE])
		sf->fields[SCRIPT_TRACE] |= CHAIN_FIELDS;
	for (int k = 0; k < SCRIPT_NR_KINDS; k++) {
		/* A pipe's events are known too: the reader takes its leading records first. */
		if (!present[k])
			continue;
		if (check_kind(sf, pd, k, input))
			return 1;
	}
	return 0;
}

int script_fields_name_width(struct pev_perfdata *pd)
{
	int width = 0;

	for (int i = 0; i < pev_perfdata_nr_events(pd); i++) {
		char name[256];
		int len = (int)strlen(pev_replay_event_name(pev_perfdata_event(pd, i), name,
							    sizeof(name)));
		if (len > width)
			width = len;
	}
	return width;
}

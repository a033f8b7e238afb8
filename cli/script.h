/* SPDX-License-Identifier: MIT */
/*
 * script.h - what `perfev script` (cmd_script.c) uses of script_trace.c:
 * tracepoint payloads formatted as text.
 */
#ifndef PERFEV_CLI_SCRIPT_H
#define PERFEV_CLI_SCRIPT_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"

/* The fields `perfev script` prints (script_fields.c), as bits. */
enum script_field {
	SF_COMM = 1u << 0,
	SF_TID = 1u << 1,
	SF_PID = 1u << 2,
	SF_CPU = 1u << 3,
	SF_TIME = 1u << 4,
	SF_EVENT = 1u << 5,
	SF_IP = 1u << 6,
	SF_SYM = 1u << 7,
	SF_DSO = 1u << 8,
	SF_PERIOD = 1u << 9,
	SF_ADDR = 1u << 10,
	SF_TRACE = 1u << 11,
	SF_SYMOFF = 1u << 12,
};

/* The kinds of event that have a field set each, as perf's -F KIND:fields. */
enum script_kind {
	SCRIPT_HW,
	SCRIPT_SW,
	SCRIPT_TRACE,
	SCRIPT_HW_CACHE,
	SCRIPT_RAW,
	SCRIPT_BREAK,
	SCRIPT_PMU, /* any other PMU (uprobe, msr, ...) */
	SCRIPT_NR_KINDS,
};

/* The fields chosen for each kind of event. */
struct script_fields {
	unsigned fields[SCRIPT_NR_KINDS]; /* SF_* printed */
	unsigned named[SCRIPT_NR_KINDS];  /* SF_* the user asked for: refused when not recorded */
	bool user_set[SCRIPT_NR_KINDS];   /* -F changed this kind's defaults */
	bool hide_callchain;              /* -G: one line per sample */
	bool use_callchain;               /* set by script_fields_check() */
};

/* The kind of ev, for the index of struct script_fields' arrays. */
enum script_kind script_kind_of(const struct pev_perfdata_event *ev);

/* Fills sf with perf script's default fields for each kind. */
void script_fields_init(struct script_fields *sf);

/*
 * Applies one -F argument to sf: "f1,f2" (every kind), "KIND:f1,f2" (one
 * kind), "+f" or "-f" to add or remove. Returns 0, or 129 after saying what
 * is wrong with it.
 */
int script_fields_parse(struct script_fields *sf, const char *text);

/*
 * Fits sf to the events of pd (read from the file named input): drops the
 * default fields their samples lack, adds the call chain to tracepoints
 * that carry one, sets use_callchain. Returns 0, or 1 after naming a field
 * the user asked for that the samples do not record.
 */
int script_fields_check(struct script_fields *sf, struct pev_perfdata *pd, const char *input);

/* The width of the event column: the longest event name of pd, as perf pads it. */
int script_fields_name_width(struct pev_perfdata *pd);

/* The tracepoint formats of one file. */
struct script_trace;

/*
 * Loads libtraceevent and the formats of pd's tracepoints (from the file's
 * TRACING_DATA, else this machine's tracefs). Returns NULL with why filled
 * when libtraceevent cannot be loaded; a malformed feature also fills why
 * but returns what could be read.
 */
struct script_trace *script_trace_new(struct pev_perfdata *pd, char *why, size_t why_size);

/*
 * Loads libtraceevent and the formats of one TRACING_DATA blob (size bytes at
 * data, as perf writes the feature); as script_trace_new() otherwise.
 */
struct script_trace *script_trace_from_data(const void *data, uint64_t size, char *why,
					    size_t why_size);

/*
 * Prints s's payload as its format says; false (nothing printed) when no
 * format fits or the payload does not fit its format.
 */
bool script_trace_print(struct script_trace *t, FILE *out, const struct pev_replay_sample *s);

/*
 * Prints a payload of size bytes of the tracepoint with id `type` (its
 * attr.config); as script_trace_print().
 */
bool script_trace_print_raw(struct script_trace *t, FILE *out, uint64_t type, const void *raw,
			    uint32_t size, int cpu, uint64_t time);

void script_trace_free(struct script_trace *t);

#endif /* PERFEV_CLI_SCRIPT_H */

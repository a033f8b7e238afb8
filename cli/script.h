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

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

/* Prints s's payload as its format says; false (nothing printed) when no format fits. */
bool script_trace_print(struct script_trace *t, FILE *out, const struct pev_replay_sample *s);

void script_trace_free(struct script_trace *t);

#endif /* PERFEV_CLI_SCRIPT_H */

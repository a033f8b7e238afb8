/* SPDX-License-Identifier: MIT */
/*
 * script_trace.c - tracepoint payloads as text for `perfev script` and
 * `perfev report --sort trace`: libperfev's struct pev_tp_printer (perf
 * script's print fmt, through libtraceevent) with the formats of the file's
 * TRACING_DATA feature or, for a file without it (perfev record writes
 * none), this machine's tracefs by the events' names. Strings in the
 * payloads are the traced programs': escaped before they are shown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script.h"

struct script_trace {
	struct pev_tp_printer *p;
};

/* A printer with no formats; NULL with why filled when libtraceevent cannot be loaded. */
static struct script_trace *trace_alloc(char *why, size_t why_size)
{
	struct script_trace *t = calloc(1, sizeof(*t));
	struct pev_error err;

	if (!t) {
		snprintf(why, why_size, "out of memory");
		return NULL;
	}
	if (pev_tp_printer_new(&t->p, &err) < 0) {
		snprintf(why, why_size, "%s", err.message);
		free(t);
		return NULL;
	}
	return t;
}

/* Adds one TRACING_DATA blob to t, filling why when it is malformed or formats were dropped. */
static void add_tracing_data(struct script_trace *t, const void *data, uint64_t size, char *why,
			     size_t why_size)
{
	int dropped = pev_tp_printer_nr_dropped(t->p);

	if (pev_tp_printer_add_tracing_data(t->p, data, (size_t)size, NULL) < 0) {
		snprintf(why, why_size, "its tracing data is malformed");
		return;
	}
	dropped = pev_tp_printer_nr_dropped(t->p) - dropped;
	if (dropped > 0)
		snprintf(why, why_size, "%d event format%s of its tracing data %s malformed and %s dropped",
			 dropped, dropped == 1 ? "" : "s", dropped == 1 ? "is" : "are",
			 dropped == 1 ? "was" : "were");
}

/* Formats of the file's tracepoint events from this machine's tracefs. */
static void formats_from_tracefs(struct script_trace *t, struct pev_perfdata *pd)
{
	for (int i = 0; i < pev_perfdata_nr_events(pd); i++) {
		const struct pev_perfdata_event *ev = pev_perfdata_event(pd, i);
		char sys[128], name[256];
		const char *colon;

		if (ev->attr.type != PEV_TYPE_TRACEPOINT || !ev->name)
			continue;
		colon = strchr(ev->name, ':');
		if (!colon || (size_t)(colon - ev->name) >= sizeof(sys))
			continue;
		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - ev->name), ev->name);
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(colon + 1, ":/"), colon + 1);
		pev_tp_printer_load(t->p, NULL, sys, name, NULL);
	}
}

struct script_trace *script_trace_from_data(const void *data, uint64_t size, char *why,
					    size_t why_size)
{
	struct script_trace *t = trace_alloc(why, why_size);

	if (t)
		add_tracing_data(t, data, size, why, why_size);
	return t;
}

struct script_trace *script_trace_new(struct pev_perfdata *pd, char *why, size_t why_size)
{
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	struct script_trace *t = trace_alloc(why, why_size);

	if (!t)
		return NULL;
	for (size_t i = 0; i < f->nr_sections; i++)
		if (f->sections[i].feature == PEV_HEADER_TRACING_DATA)
			add_tracing_data(t, f->sections[i].data, f->sections[i].size, why, why_size);
	if (!pev_tp_printer_nr_formats(t->p))
		formats_from_tracefs(t, pd);
	return t;
}

bool script_trace_print_raw(struct script_trace *t, FILE *out, uint64_t type, const void *raw,
			    uint32_t size, int cpu, uint64_t time)
{
	char small[1024], *text = small;
	int n;

	if (!t || !raw)
		return false;
	n = pev_tp_printer_print(t->p, type, raw, size, cpu, time, small, sizeof(small));
	if (n < 0)
		return false;
	if ((size_t)n >= sizeof(small)) {
		if (!(text = malloc((size_t)n + 1)))
			return false;
		pev_tp_printer_print(t->p, type, raw, size, cpu, time, text, (size_t)n + 1);
	}
	pev_text_fputs(text, out);
	if (text != small)
		free(text);
	return true;
}

bool script_trace_print(struct script_trace *t, FILE *out, const struct pev_replay_sample *s)
{
	const struct pev_sample *smp = &s->record->sample;

	if (!(smp->fields & PEV_SAMPLE_RAW))
		return false;
	return script_trace_print_raw(t, out, s->event->attr.config, smp->raw, smp->raw_size,
				      s->cpu, s->time);
}

void script_trace_free(struct script_trace *t)
{
	if (!t)
		return;
	pev_tp_printer_free(t->p);
	free(t);
}

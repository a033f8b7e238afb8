/* SPDX-License-Identifier: MIT */
/*
 * stat_tool.c - perf's tool events in `perfev stat -e`: duration_time (the
 * wall time of the run, or of the interval), user_time and system_time (the
 * command's CPU time in user space and in the kernel, from its rusage once
 * it has ended). They are no perf_event_open(2) events: perfev measures
 * them itself and prints them as counts in ns, as perf 6.1 does.
 */
#include <stdlib.h>
#include <string.h>

#include "stat.h"

/* What each tool event is, as a spec for the printing code (unit ns, no PMU). */
static const struct pev_event_spec tool_specs[] = {
    [STAT_TOOL_DURATION] = {.ev = {.type = UINT32_MAX, .name = "duration_time"},
                            .group = -1, .scale = 1.0, .unit = "ns"},
    [STAT_TOOL_USER] = {.ev = {.type = UINT32_MAX, .name = "user_time"},
                        .group = -1, .scale = 1.0, .unit = "ns"},
    [STAT_TOOL_SYSTEM] = {.ev = {.type = UINT32_MAX, .name = "system_time"},
                          .group = -1, .scale = 1.0, .unit = "ns"},
};

/* The tool event named by [s, s + len) (blanks around it ignored), or STAT_TOOL_NONE. */
static enum stat_tool tool_named(const char *s, size_t len)
{
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	for (int t = STAT_TOOL_DURATION; t <= STAT_TOOL_SYSTEM; t++)
		if (strlen(tool_specs[t].ev.name) == len &&
		    strncmp(tool_specs[t].ev.name, s, len) == 0)
			return (enum stat_tool)t;
	return STAT_TOOL_NONE;
}

/* Adds one tool event at the end of s's events. */
static void add_tool(struct stat_state *s, enum stat_tool tool)
{
	struct stat_event *ev = stat_new_event(s);

	ev->spec = &tool_specs[tool];
	ev->tool = tool;
	ev->leader = -1;
	ev->cls = STAT_CLASS_OTHER;
	snprintf(ev->name, sizeof(ev->name), "%s", tool_specs[tool].ev.name);
}

/* Parses [s, s + len) as an event list (not empty). Returns 0 or an exit status. */
static int add_text(struct stat_state *s, const char *text, size_t len)
{
	char *copy = strndup(text, len);
	int r;

	if (!copy) {
		cli_error("out of memory");
		exit(1);
	}
	r = stat_add_parsed_events(s, copy);
	free(copy);
	return r;
}

/*
 * Walks the items of an -e list at the top level (outside braces and a
 * PMU's "/terms/"). With s NULL, only says whether one names a tool event
 * (returns 1) or none does (0). With s, adds the tool events in their
 * places and parses each run of other items between them as one list;
 * returns 0 or an exit status.
 */
static int walk_items(struct stat_state *s, const char *text)
{
	const char *pending = NULL, *pending_end = NULL, *item = text;
	int braces = 0, r;
	bool in_terms = false, colon = false;

	for (const char *p = text;; p++) {
		if (*p && (*p != ',' || braces > 0 || in_terms)) {
			if (*p == '{')
				braces++;
			else if (*p == '}')
				braces--;
			else if (*p == ':')
				colon = true;
			else if (*p == '/' && !colon)
				in_terms = !in_terms;
			continue;
		}
		enum stat_tool tool = tool_named(item, (size_t)(p - item));
		if (!s) {
			if (tool != STAT_TOOL_NONE)
				return 1;
		} else if (strspn(item, " \t") >= (size_t)(p - item)) {
			cli_error("option '-e' has an empty event in '%s' (remove the extra ',')",
			          text);
			return 129;
		} else if (tool == STAT_TOOL_NONE) {
			if (!pending)
				pending = item;
			pending_end = p;
		} else {
			if (pending && (r = add_text(s, pending, (size_t)(pending_end - pending))) != 0)
				return r;
			pending = NULL;
			add_tool(s, tool);
		}
		if (!*p)
			break;
		item = p + 1;
		in_terms = colon = false;
	}
	if (pending)
		return add_text(s, pending, (size_t)(pending_end - pending));
	return 0;
}

int stat_add_events(struct stat_state *s, const char *text)
{
	/* Without tool events the parser sees the list whole, and its errors point into it. */
	if (walk_items(NULL, text) == 0)
		return stat_add_parsed_events(s, text);
	return walk_items(s, text);
}

void stat_read_tools(const struct stat_state *s, struct raw *out)
{
	const struct rusage *ru = &s->ru;

	for (int e = 0; e < s->nevents; e++) {
		double ns = 0;
		switch (s->events[e].tool) {
		case STAT_TOOL_NONE:
			continue;
		case STAT_TOOL_DURATION:
			/* Ended: the same time as "seconds time elapsed". */
			ns = (s->end_ns > 0 ? s->end_ns : stat_now_ns()) - s->start_ns;
			break;
		case STAT_TOOL_USER:
			if (s->have_rusage)
				ns = (double)ru->ru_utime.tv_sec * 1e9 + ru->ru_utime.tv_usec * 1e3;
			break;
		case STAT_TOOL_SYSTEM:
			if (s->have_rusage)
				ns = (double)ru->ru_stime.tv_sec * 1e9 + ru->ru_stime.tv_usec * 1e3;
			break;
		}
		/* Its own time as enabled and running: no time, <not counted>, as in perf. */
		for (int k = 0; k < s->nkeys; k++) {
			struct raw *r = &out[e * s->nkeys + k];
			r->value = r->enabled = r->running = (uint64_t)ns;
		}
	}
}

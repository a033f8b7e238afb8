/* SPDX-License-Identifier: MIT */
/*
 * counter_list.c - a parsed event list opened as counters: groups as
 * groups (their leader reads them all), the rest alone, all or nothing.
 */
#include "perfev/counter_list.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"

/* What a group read returns for at most this many events goes on the stack. */
#define STACK_COUNTS 32

struct list_entry {
	struct pev_counter *c;
	int leader;  /* index of the group's leader (its own for a leader), -1 alone */
	bool split;  /* a weak group that could not be opened whole: opened alone */
};

struct pev_counter_list {
	int n;
	struct list_entry e[];
};

/* Closes the counters of entries [from, to), members before their leaders. */
static void close_range(struct pev_counter_list *l, int from, int to)
{
	for (int i = to - 1; i >= from; i--) {
		pev_counter_close(l->e[i].c);
		l->e[i].c = NULL;
	}
}

PEV_API void pev_counter_list_close(struct pev_counter_list *l)
{
	if (!l)
		return;
	close_range(l, 0, l->n);
	free(l);
}

/* The index of spec i's group leader, or -1 when it is not in a group of two or more. */
static int leader_of(const struct pev_counter_list *l, const struct pev_event_list *events,
		     int i)
{
	const struct pev_event_spec *sp = pev_event_list_at(events, i);
	int first = i;

	if (sp->group < 0 || l->e[i].split)
		return -1;
	while (first > 0 && !pev_event_list_at(events, first)->group_leader &&
	       pev_event_list_at(events, first - 1)->group == sp->group)
		first--;
	/* A group of one is an event alone. */
	if (first == i && (i + 1 >= l->n || pev_event_list_at(events, i + 1)->group != sp->group ||
			   pev_event_list_at(events, i + 1)->group_leader))
		return -1;
	return first;
}

/* The options event i opens with: its own, counting, with the list's life cycle. */
static void entry_opts(const struct pev_event_spec *sp, const struct pev_counter_list_opts *lo,
		       int i, int leader, struct pev_opts *o)
{
	*o = sp->opts;
	o->sz = sizeof(*o);
	/* Counters do not sample (as perf stat): no period, frequency or sample fields. */
	o->sample_period = 0;
	o->sample_freq = 0;
	o->sample_type = 0;
	o->open_flags = lo->open_flags & ~PEV_OPEN_EXACT_READ_FORMAT;
	if (lo->inherit != PEV_INHERIT_NONE)
		o->inherit = lo->inherit;
	if (leader >= 0 && leader != i) {
		/* A member follows its leader: enabled, so that it counts whenever the leader does. */
		o->disabled = false;
		o->enable_on_exec = false;
		o->read_format |= PEV_FORMAT_ID;
		return;
	}
	/*
	 * Disabled until the list is complete, then enabled group by group
	 * (pev_counter_list_open): a member that joins a running leader may
	 * miss counts until the next context switch (see control.c).
	 */
	o->disabled = true;
	o->enable_on_exec = lo->enable_on_exec;
	if (leader == i)
		o->read_format |= PEV_FORMAT_GROUP | PEV_FORMAT_ID;
}

/* Marks the entries of event i's group to be opened alone (a weak group that failed). */
static void split_group(struct pev_counter_list *l, const struct pev_event_list *events, int leader)
{
	int group = pev_event_list_at(events, leader)->group;

	for (int k = leader; k < l->n && pev_event_list_at(events, k)->group == group; k++)
		l->e[k].split = true;
}

PEV_API int pev_counter_list_open(const struct pev_event_list *events,
				  const struct pev_counter_list_opts *user_opts,
				  const struct pev_target *target, struct pev_counter_list **out,
				  struct pev_error *err)
{
	static const char func[] = "pev_counter_list_open";
	struct pev_counter_list_opts lo;
	struct pev_counter_list *l;
	int n;

	if (!out)
		return pev__bad_arg(err, func, "out", "must not be NULL");
	*out = NULL;
	if (!events)
		return pev__bad_arg(err, func, "events", "must not be NULL");
	int r = pev__opts_copy_sized(&lo, sizeof(lo), user_opts, func,
				     "PEV_COUNTER_LIST_OPTS_INIT", err);
	if (r < 0)
		return r;
	n = pev_event_list_count(events);
	if (n < 1)
		return pev__bad_arg(err, func, "events", "the list holds no event");
	l = calloc(1, sizeof(*l) + sizeof(l->e[0]) * (size_t)n);
	if (!l) {
		pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, NULL, true);
		pev__error_msg(err, "%s: no memory for %d events", func, n);
		return PEV_ENOMEM;
	}
	l->n = n;
	for (int i = 0; i < n; i++) {
		const struct pev_event_spec *sp = pev_event_list_at(events, i);
		int leader = leader_of(l, events, i);
		struct pev_counter *group = leader >= 0 && leader != i ? l->e[leader].c : NULL;
		struct pev_opts o;

		entry_opts(sp, &lo, i, leader, &o);
		l->e[i].leader = leader;
		r = pev_counter_open(&sp->ev, &o, target, group, &l->e[i].c, err);
		if (r == 0)
			continue;
		if (group && sp->weak_group) {
			/* ':W': the group cannot be had whole; its events count alone instead. */
			close_range(l, leader, i);
			split_group(l, events, leader);
			i = leader - 1;
			continue;
		}
		pev_counter_list_close(l);
		return r;
	}
	if (!lo.disabled && !lo.enable_on_exec && (r = pev_counter_list_enable(l)) < 0) {
		pev__error_start(err, r, -r, "ioctl(ENABLE)", NULL, false);
		pev__error_msg(err, "%s: cannot enable the counters: %s", func, pev_strerror(r));
		pev_counter_list_close(l);
		return r;
	}
	*out = l;
	return 0;
}

PEV_API int pev_counter_list_count(const struct pev_counter_list *l)
{
	return l ? l->n : pev__bad_arg(NULL, "pev_counter_list_count", "l", "NULL");
}

PEV_API struct pev_counter *pev_counter_list_at(const struct pev_counter_list *l, int i)
{
	return l && i >= 0 && i < l->n ? l->e[i].c : NULL;
}

/* Runs each group's form of an operation on its leader, the plain form on lone events. */
static int each(struct pev_counter_list *l, int (*one)(struct pev_counter *),
		int (*group)(struct pev_counter *), const char *func)
{
	if (!l)
		return pev__bad_arg(NULL, func, "l", "NULL");
	for (int i = 0; i < l->n; i++) {
		int r = 0;
		if (l->e[i].leader < 0)
			r = one(l->e[i].c);
		else if (l->e[i].leader == i)
			r = group(l->e[i].c);
		if (r < 0)
			return r;
	}
	return 0;
}

PEV_API int pev_counter_list_enable(struct pev_counter_list *l)
{
	return each(l, pev_counter_enable, pev_counter_enable_group, "pev_counter_list_enable");
}

PEV_API int pev_counter_list_disable(struct pev_counter_list *l)
{
	return each(l, pev_counter_disable, pev_counter_disable_group, "pev_counter_list_disable");
}

PEV_API int pev_counter_list_reset(struct pev_counter_list *l)
{
	return each(l, pev_counter_reset, pev_counter_reset_group, "pev_counter_list_reset");
}

/* Reads the group led by entry g and spreads its counts over out (room for max). */
static int read_group(const struct pev_counter_list *l, int g, struct pev_count *out, int max)
{
	struct pev_count stack[STACK_COUNTS], *counts = stack;
	int size = 1;

	for (int k = g + 1; k < l->n; k++)
		size += l->e[k].leader == g;
	if (size > STACK_COUNTS && !(counts = calloc((size_t)size, sizeof(*counts))))
		return PEV_ENOMEM;
	int got = pev_counter_read_group(l->e[g].c, counts, size);
	if (got == size) {
		/* The leader, then its members in the order they joined: the list's order. */
		int m = 0;
		for (int k = g; k < l->n && m < got; k++)
			if (l->e[k].leader == g) {
				if (k < max)
					out[k] = counts[m];
				m++;
			}
	} else if (got >= 0) {
		got = PEV_EFORMAT; /* a member was closed behind the list's back */
	}
	if (counts != stack)
		free(counts);
	return got < 0 ? got : 0;
}

PEV_API int pev_counter_list_read(const struct pev_counter_list *l, struct pev_count *out,
				  int max)
{
	static const char fn[] = "pev_counter_list_read";

	if (!l || !out)
		return pev__bad_arg(NULL, fn, l ? "out" : "l", "NULL");
	if (max < 1)
		return pev__bad_arg(NULL, fn, "max", "%d: out needs room for one count at least", max);
	int filled = l->n < max ? l->n : max;
	for (int i = 0; i < filled; i++) {
		int r = 0;
		if (l->e[i].leader < 0)
			r = pev_counter_read(l->e[i].c, &out[i]);
		else if (l->e[i].leader == i)
			r = read_group(l, i, out, max);
		if (r < 0)
			return r;
	}
	return filled;
}

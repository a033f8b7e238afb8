/* SPDX-License-Identifier: MIT */
/*
 * stat_cgroup.c - `perfev stat -G` and `--for-each-cgroup`: counting the
 * tasks of cgroups, on every CPU of the target, as perf stat does.
 *
 * -G LIST gives cgroups to the events named before it, in order: the
 * first name to the first event, the second to the second, an empty name
 * to none ("-G a,,b"); counted over every -G option, as perf counts them.
 * A list of one name, where it is the only one given so far, goes to
 * every event named so far. `-G NAME` without any -e takes the default
 * events (perf refuses it).
 * --for-each-cgroup LIST counts every event once per cgroup: the events,
 * groups kept, repeated for each name in order.
 * Names are paths under the hierarchy perf events use (pev_cgroup_dir):
 * "system.slice/nginx.service", "/" for the root.
 */
#include <stdlib.h>
#include <string.h>

#include "stat.h"

/* Gives event e the cgroup name (copied) and its directory. Returns 0 or 1 (said). */
static int set_cgroup(struct stat_state *s, int e, const char *name, size_t len)
{
	struct stat_event *ev = &s->events[e];
	char dir[4096];
	struct pev_error err;

	free(ev->cgroup);
	free(ev->cgroup_dir);
	ev->cgroup = strndup(name, len);
	if (!ev->cgroup) {
		cli_error("out of memory");
		return 1;
	}
	if (pev_cgroup_dir(ev->cgroup, dir, sizeof(dir), &err) < 0) {
		cli_print_error(&err);
		return 1;
	}
	if (!(ev->cgroup_dir = strdup(dir))) {
		cli_error("out of memory");
		return 1;
	}
	return 0;
}

int stat_cgroup_option(struct stat_state *s, const char *list)
{
	int given_before = s->ncgroups;

	if (s->nevents == 0) {
		/* Before any -e: for the default events, once they are added. */
		if (s->pending_cgroups) {
			cli_error("option '-G' given twice before any event; name the events "
				  "first: -e EVENTS -G CGROUPS");
			return 129;
		}
		s->pending_cgroups = list;
		return 0;
	}
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		if (len) {
			if (s->ncgroups >= s->nevents) {
				cli_error("option '-G': more cgroups than events before it ('%s'); "
					  "each name goes to one event, in order: -e a,b -G "
					  "CGROUP_A,CGROUP_B",
					  list);
				return 129;
			}
			if (set_cgroup(s, s->ncgroups, p, len))
				return 1;
		}
		s->ncgroups++;
		p += len;
		if (!*p)
			break;
	}
	/* One name alone goes to every event so far, as perf gives it. */
	if (given_before == 0 && s->ncgroups == 1 && s->events[0].cgroup)
		for (int e = 1; e < s->nevents; e++)
			if (set_cgroup(s, e, s->events[0].cgroup, strlen(s->events[0].cgroup)))
				return 1;
	return 0;
}

int stat_cgroup_pending(struct stat_state *s)
{
	const char *list = s->pending_cgroups;

	s->pending_cgroups = NULL;
	return list ? stat_cgroup_option(s, list) : 0;
}

int stat_for_each_cgroup(struct stat_state *s, const char *list)
{
	int n = s->nevents, copies = 0;

	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		if (!len) {
			cli_error("option '--for-each-cgroup': an empty cgroup name in '%s'; "
				  "name the root '/'",
				  list);
			return 129;
		}
		/* The first cgroup takes the events themselves, the next ones copies. */
		int base = copies ? s->nevents : 0;
		for (int e = 0; copies && e < n; e++) {
			struct stat_event *ev = stat_new_event(s);
			*ev = s->events[e];
			ev->cgroup = ev->cgroup_dir = NULL;
			if (ev->leader >= 0)
				ev->leader += base;
		}
		for (int e = 0; e < n; e++)
			if (set_cgroup(s, base + e, p, len))
				return 1;
		copies++;
		p += len;
		if (!*p)
			break;
	}
	return 0;
}

bool stat_cgroup_same(const struct stat_event *a, const struct stat_event *b)
{
	if (!a->cgroup || !b->cgroup)
		return !a->cgroup && !b->cgroup;
	return !strcmp(a->cgroup, b->cgroup);
}

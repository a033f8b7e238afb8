/* SPDX-License-Identifier: MIT */
/*
 * record_cgroup.c - `perfev record -G`: which cgroup each event samples.
 *
 * As perf record's -G: the names go to the events in order (the first to
 * the first event, an empty name to none: "-G a,,b"), and a single name to
 * every event. Several -G options add up, in order. Names are paths under
 * the hierarchy perf events use (pev_cgroup_dir). --all-cgroups, which
 * tags every sample with its cgroup, is in record_open.c (the sample type)
 * and record_synth.c (the CGROUP records of the cgroups that exist).
 */
#include <stdlib.h>
#include <string.h>

#include "record.h"

int rec_add_cgroups(struct rec_config *cfg, const char *list)
{
	size_t old = cfg->cgroups ? strlen(cfg->cgroups) : 0;
	char *joined = realloc(cfg->cgroups, old + 1 + strlen(list) + 1);

	if (!joined) {
		cli_error("out of memory");
		return 1;
	}
	if (old)
		joined[old++] = ',';
	strcpy(joined + old, list);
	cfg->cgroups = joined;
	return 0;
}

int rec_cgroup_dir(const struct rec_state *s, int e, char *dir, size_t size)
{
	const char *list = s->cfg.cgroups;
	const char *name = NULL;
	size_t len = 0;
	int count = 0;
	struct pev_error err;

	if (!list)
		return 0;
	for (const char *p = list;; p++) {
		size_t n = strcspn(p, ",");
		if (count == e) {
			name = p;
			len = n;
		}
		count++;
		p += n;
		if (!*p)
			break;
	}
	if (count == 1) { /* one name: every event */
		name = list;
		len = strlen(list);
	} else if (count > s->nevents) {
		cli_error("option '-G': %d cgroups for %d events ('%s'); each name goes to one "
			  "event, in order: -e a,b -G CGROUP_A,CGROUP_B",
			  count, s->nevents, list);
		return -1;
	}
	if (!name || !len)
		return 0;
	char *copy = strndup(name, len);
	if (!copy) {
		cli_error("out of memory");
		return -1;
	}
	int r = pev_cgroup_dir(copy, dir, size, &err);
	free(copy);
	if (r < 0) {
		cli_print_error(&err);
		return -1;
	}
	return 1;
}

/* SPDX-License-Identifier: MIT */
/*
 * target.c - what a target expands to: the CPUs and threads to open on.
 */
#include "count/target.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfev/cpulist.h"
#include "core/error_internal.h"
#include "core/util.h"

void pev__plan_free(struct pev__plan *plan)
{
	free(plan->cpus);
	free(plan->tids);
	memset(plan, 0, sizeof(*plan));
}

/* Parses a CPU list into a fresh array. Returns the count or a negative code. */
static int cpus_from_list(const char *list, const char *what, int **out, struct pev_error *err)
{
	int n = pev_cpulist_parse(list, NULL, 0);

	if (n <= 0) {
		if (n == 0 && what)
			return pev__bad_arg(err, "pev_counter_open", "cpus", "the CPU list '%s' is empty",
					    list);
		if (!what) {
			/* Say why: at the descriptor limit this is EMFILE, not a missing file. */
			char again[64];
			int e = pev__read_text("/sys/devices/system/cpu/online", again, sizeof(again));
			int errnum = e < 0 ? -e : ENOENT;
			int code = pev_error_from_errno(errnum);
			pev__error_start(err, code, errnum, "open", NULL, true);
			pev__error_msg(err, "cannot list the online CPUs: "
					    "/sys/devices/system/cpu/online: %s",
				       strerror(errnum));
			if (errnum == EMFILE)
				pev__error_hint(err, "every descriptor RLIMIT_NOFILE allows is in use: "
						     "close some, or raise the limit (ulimit -n)");
			return code;
		}
		return pev__bad_arg(err, "pev_counter_open", "cpus",
				    "'%s' is not a CPU list (numbers and ranges: \"0-3,7\")", list);
	}
	*out = malloc(sizeof(int) * (size_t)n);
	if (!*out)
		return PEV_ENOMEM;
	pev_cpulist_parse(list, *out, n);
	/*
	 * A CPU named twice would open twice. One bit per CPU number (the parser
	 * caps numbers at 2^20): a long list such as "0-99999" is checked in
	 * linear time, not n^2.
	 */
	int top = 0;
	for (int i = 0; i < n; i++)
		if ((*out)[i] > top)
			top = (*out)[i];
	unsigned char *seen = calloc((size_t)top / 8 + 1, 1);
	if (!seen) {
		free(*out);
		*out = NULL;
		return PEV_ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		int cpu = (*out)[i];
		if (seen[cpu / 8] & (1U << (cpu % 8))) {
			free(seen);
			free(*out);
			*out = NULL;
			return pev__bad_arg(err, "pev_counter_open", "cpus",
					    "CPU %d appears twice in '%s'", cpu, list);
		}
		seen[cpu / 8] |= (unsigned char)(1U << (cpu % 8));
	}
	free(seen);
	return n;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* Lists the threads of process pid from /proc/<pid>/task, sorted. */
static int threads_of(pid_t pid, pid_t **out, struct pev_error *err)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	int n = 0, cap = 16;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path))) {
		int e2 = errno;
		int code = e2 == ENOENT ? PEV_ESRCH : pev_error_from_errno(e2);
		pev__error_start(err, code, e2 == ENOENT ? ESRCH : e2, "open", NULL, true);
		if (e2 == ENOENT)
			pev__error_msg(err, "process %d does not exist (no /proc/%d)", (int)pid,
				       (int)pid);
		else
			pev__error_msg(err, "cannot list the threads of process %d: %s", (int)pid,
				       strerror(e2));
		return code;
	}
	*out = malloc(sizeof(pid_t) * (size_t)cap);
	while (*out && (e = readdir(d))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		if (n == cap) {
			pid_t *more = realloc(*out, sizeof(pid_t) * (size_t)(cap *= 2));
			if (!more) {
				free(*out);
				*out = NULL;
				break;
			}
			*out = more;
		}
		(*out)[n++] = (pid_t)tid;
	}
	closedir(d);
	if (!*out)
		return PEV_ENOMEM;
	qsort(*out, (size_t)n, sizeof(pid_t), cmp_pid);
	return n;
}

int pev__target_expand(const struct pev_target *t, const struct pev_machine *m,
		       struct pev__plan *plan, struct pev_error *err)
{
	int n;

	memset(plan, 0, sizeof(*plan));
	if (t->cpus) {
		n = cpus_from_list(t->cpus, "cpus", &plan->cpus, err);
	} else if (t->cpu == PEV_CPU_ALL || (t->cgroup && t->cpu == PEV_CPU_ANY)) {
		n = cpus_from_list(m->cpus_online_list, NULL, &plan->cpus, err);
	} else {
		plan->cpus = malloc(sizeof(int));
		n = plan->cpus ? 1 : PEV_ENOMEM;
		if (plan->cpus)
			plan->cpus[0] = t->cpu;
	}
	if (n < 0) {
		pev__plan_free(plan);
		return n;
	}
	plan->nr_cpus = n;

	if (t->all_threads && !t->cgroup && t->pid > 0) {
		n = threads_of(t->pid, &plan->tids, err);
	} else {
		plan->tids = malloc(sizeof(pid_t));
		n = plan->tids ? 1 : PEV_ENOMEM;
		if (plan->tids)
			plan->tids[0] = t->pid;
	}
	if (n < 0) {
		pev__plan_free(plan);
		return n;
	}
	plan->nr_tids = n;
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * count_region.c - count the page faults and CPU time of a code region.
 *
 * Build: cc count_region.c $(pkg-config --cflags --libs perfev)
 */
#include <perfev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int open_counter(const char *name, struct pev_counter **out)
{
	struct pev_event ev;
	struct pev_opts opts = PEV_OPTS_INIT;
	struct pev_error err;
	char text[4096];

	if (pev_event_lookup(name, &ev) < 0) {
		fprintf(stderr, "unknown event %s\n", name);
		return -1;
	}
	opts.disabled = true;       /* start when we say so */
	opts.exclude_kernel = true; /* user space only: works unprivileged */
	if (pev_counter_open(&ev, &opts, NULL /* this thread */, NULL, out, &err) < 0) {
		/* The message says what failed on this machine, the hint what to do. */
		fprintf(stderr, "%s", pev_error_format(&err, text, sizeof(text)));
		return -1;
	}
	return 0;
}

int main(void)
{
	struct pev_counter *faults, *clock;
	struct pev_count f, c;

	if (open_counter("page-faults", &faults) < 0 || open_counter("task-clock", &clock) < 0)
		return 1;

	pev_counter_enable(faults);
	pev_counter_enable(clock);
	char *buf = (char *)malloc(64 << 20); /* the region: touch 64 MiB of fresh memory */
	memset(buf, 1, 64 << 20);
	pev_counter_disable(clock);
	pev_counter_disable(faults);

	if (pev_counter_read(faults, &f) < 0 || pev_counter_read(clock, &c) < 0)
		return 1;
	printf("page-faults: %llu\ntask-clock: %.3f ms\n", (unsigned long long)f.value,
	       (double)c.value / 1e6);
	free(buf);
	pev_counter_close(faults);
	pev_counter_close(clock);
	return 0;
}

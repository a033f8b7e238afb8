/* SPDX-License-Identifier: MIT */
/*
 * count_list.c - count a code region with events named as perf names them:
 * a group read with one system call, a modifier, multiplexing scaled.
 *
 * Build: cc count_list.c $(pkg-config --cflags --libs perfev)
 * Run:   ./count_list ['{task-clock,page-faults},cpu-clock:u']
 */
#include <perfev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *text = argc > 1 ? argv[1] : "{task-clock,page-faults},cpu-clock:u";
	struct pev_event_list *events;
	struct pev_counter_list *counters;
	struct pev_count counts[64];
	struct pev_error err;
	char msg[4096];

	if (pev_event_parse(text, NULL, &events, &err) < 0 ||
	    pev_counter_list_open(events, NULL /* counting from now */, NULL /* this thread */,
				  &counters, &err) < 0) {
		fprintf(stderr, "%s", pev_error_format(&err, msg, sizeof(msg)));
		return 1;
	}
	pev_event_list_free(events); /* the counters keep what they need */

	char *buf = (char *)malloc(64 << 20); /* the region: touch 64 MiB of fresh memory */
	if (buf)
		memset(buf, 1, 64 << 20);
	pev_counter_list_disable(counters);

	int n = pev_counter_list_read(counters, counts, 64);
	for (int i = 0; i < n; i++) {
		const char *name = pev_counter_name(pev_counter_list_at(counters, i));
		if (!counts[i].counted)
			printf("%20s  %s\n", "<not counted>", name);
		else
			printf("%20llu  %s%s\n", (unsigned long long)counts[i].scaled, name,
			       counts[i].running < 1.0 ? "  (scaled)" : "");
	}
	free(buf);
	pev_counter_list_close(counters);
	return n > 0 ? 0 : 1;
}

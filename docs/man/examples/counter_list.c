/* Counts a code region with events named as perf names them: a group and a modifier. */
#include <perfev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *text = argc > 1 ? argv[1] : "{task-clock,page-faults},cpu-clock:u";
	struct pev_counter_list_opts o = PEV_COUNTER_LIST_OPTS_INIT;
	struct pev_event_list *events;
	struct pev_counter_list *l;
	struct pev_count counts[16];
	struct pev_error err;
	char msg[4096];

	if (pev_event_parse(text, NULL, &events, &err) < 0) {
		fputs(pev_error_format(&err, msg, sizeof(msg)), stderr);
		return 1;
	}
	o.disabled = true; /* start at pev_counter_list_enable() */
	int rc = pev_counter_list_open(events, &o, NULL /* this thread */, &l, &err);
	pev_event_list_free(events); /* the counters keep what they need */
	if (rc < 0) {
		fputs(pev_error_format(&err, msg, sizeof(msg)), stderr);
		return 1;
	}
	pev_counter_list_enable(l);
	char *buf = malloc(16 << 20);
	if (buf)
		memset(buf, 1, 16 << 20);
	pev_counter_list_disable(l);

	int n = pev_counter_list_read(l, counts, 16);
	for (int i = 0; i < n; i++) {
		const char *name = pev_counter_name(pev_counter_list_at(l, i));
		if (!counts[i].counted)
			printf("%20s  %s\n", "<not counted>", name);
		else
			printf("%20llu  %s\n", (unsigned long long)counts[i].scaled, name);
	}
	printf("%d of %d events read\n", n < 0 ? 0 : n, pev_counter_list_count(l));
	free(buf);
	pev_counter_list_close(l);
	return n > 0 ? 0 : 1;
}

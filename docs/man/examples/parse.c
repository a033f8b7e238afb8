/* Parses an event list in perf's syntax and prints each event's group. */
#include <perfev.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	const char *text = argc > 1 ? argv[1] : "{task-clock,page-faults:u},context-switches";
	struct pev_parse_opts po = PEV_PARSE_OPTS_INIT;
	struct pev_event_list *list;
	struct pev_error err;

	if (pev_event_parse(text, &po, &list, &err) < 0) {
		/* err.position and err.length point at the bad part of the text. */
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	for (int i = 0; i < pev_event_list_count(list); i++) {
		const struct pev_event_spec *s = pev_event_list_at(list, i);
		printf("%-20s group %d%s\n", s->ev.name, s->group, s->group_leader ? " (leader)" : "");
	}
	pev_event_list_free(list);
	return 0;
}

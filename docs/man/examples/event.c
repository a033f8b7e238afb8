/* Looks an event name up and shows what perfev would open for it. */
#include <perfev.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	struct pev_event ev;
	char text[128];

	if (pev_event_lookup(argc > 1 ? argv[1] : "task-clock", &ev) < 0) {
		fprintf(stderr, "no such generic event\n");
		return 1;
	}
	printf("%s: type %u config 0x%llx\n", pev_event_describe(&ev, text, sizeof(text)),
	       (unsigned)ev.type, (unsigned long long)ev.config);
	ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	printf("%s\n", pev_sw_name(ev.config));
	return 0;
}

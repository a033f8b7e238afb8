/* Lists the events of a perf.data file and counts its records by type. */
#include <perfev.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	struct pev_perfdata *pd;
	struct pev_perfdata_record rec;
	struct pev_error err;
	unsigned long samples = 0, others = 0;
	int rc;

	if (pev_perfdata_open(argc > 1 ? argv[1] : "perf.data", 0, &pd, &err) < 0) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	for (int i = 0; i < pev_perfdata_nr_events(pd); i++) {
		const struct pev_perfdata_event *ev = pev_perfdata_event(pd, i);
		printf("event %d: %s\n", i, ev->name ? ev->name : "(no name)");
	}
	while ((rc = pev_perfdata_next(pd, &rec, &err)) == 1) {
		if (rec.type == PEV_RECORD_SAMPLE)
			samples++;
		else
			others++;
	}
	if (rc < 0)
		fprintf(stderr, "%s\n", err.message);
	printf("%lu samples, %lu other records\n", samples, others);
	pev_perfdata_close(pd);
	return rc < 0;
}

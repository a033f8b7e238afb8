/* Prints every sample of a perf.data file with its thread and leaf function. */
#include <perfev.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	struct pev_perfdata *pd;
	struct pev_replay *r;
	struct pev_replay_sample s;
	struct pev_error err;
	int rc;

	if (pev_perfdata_open(argc > 1 ? argv[1] : "perf.data", 0, &pd, &err) < 0 ||
	    pev_replay_open(pd, NULL, &r, &err) < 0) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	while ((rc = pev_replay_next(r, &s, &err)) == 1) {
		const char *sym = s.nr_frames && s.frames[0].symbol ? s.frames[0].symbol : "[unknown]";
		printf("%s %d/%d %llu %s\n", s.comm, (int)s.pid, (int)s.tid,
		       (unsigned long long)s.period, sym);
	}
	if (rc < 0)
		fprintf(stderr, "%s\n", err.message);
	pev_replay_close(r);
	pev_perfdata_close(pd);
	return rc < 0;
}

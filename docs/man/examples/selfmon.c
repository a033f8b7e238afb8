/* Reads counters of this thread around a loop, with rdpmc where the CPU allows. */
#include <perfev.h>
#include <stdio.h>

static volatile unsigned long sink;

int main(void)
{
	struct pev_selfmon *m;
	struct pev_count counts[4];
	struct pev_error err;

	if (pev_selfmon_open("task-clock,page-faults", &m, &err) < 0) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	pev_selfmon_start(m);
	for (unsigned long i = 0; i < 10000000UL; i++)
		sink += i;
	pev_selfmon_stop(m);
	int n = pev_selfmon_read(m, counts, 4);
	for (int i = 0; i < n; i++)
		printf("%-12s %llu%s\n", pev_selfmon_name(m, i), (unsigned long long)counts[i].value,
		       pev_selfmon_uses_rdpmc(m, i) ? " (rdpmc)" : "");
	pev_selfmon_close(m);
	return 0;
}

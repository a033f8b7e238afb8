/* Fills a perf_event_attr block by hand with perfev's ABI definitions. */
#include <perfev.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	struct pev_attr a;
	struct pev_counter *c;
	struct pev_count n;
	struct pev_error err;

	memset(&a, 0, sizeof(a));
	a.type = PEV_TYPE_SOFTWARE;
	a.size = PEV_ATTR_SIZE_VER0;
	a.config = PEV_SW_TASK_CLOCK;
	a.read_format = PEV_FORMAT_TOTAL_TIME_ENABLED | PEV_FORMAT_TOTAL_TIME_RUNNING;
	a.flags = PEV_ATTR_EXCLUDE_KERNEL | PEV_ATTR_EXCLUDE_HV;
	if (pev_counter_open_attr(&a, sizeof(a), NULL, NULL, 0, &c, &err) < 0) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	if (pev_counter_read(c, &n) == 0)
		printf("task-clock: %llu ns\n", (unsigned long long)n.value);
	pev_counter_close(c);
	return 0;
}

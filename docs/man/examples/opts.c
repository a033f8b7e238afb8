/* Encodes options into a perf_event_attr block and decodes it back. */
#include <perfev.h>
#include <stdio.h>

int main(void)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK), back;
	struct pev_opts o = PEV_OPTS_INIT, o2 = PEV_OPTS_INIT;
	struct pev_attr attr;
	struct pev_error err;

	o.exclude_kernel = true;
	o.sample_period = 100000;
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME;
	o.wakeup_events = 1; /* wake a poll(2)er on every sample */
	if (pev_attr_encode(&attr, &ev, &o, &err) < 0) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	printf("attr.size %u (the smallest that fits: %u)\n", (unsigned)attr.size,
	       (unsigned)pev_attr_min_size(&attr));
	if (pev_attr_decode(&attr, sizeof(attr), &back, &o2) < 0)
		return 1;
	printf("period %llu, exclude_kernel %d\n", (unsigned long long)o2.sample_period,
	       (int)o2.exclude_kernel);
	return 0;
}

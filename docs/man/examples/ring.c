/* Samples this thread's page faults into a ring buffer and counts the samples. */
#include <perfev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	struct pev_event ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c;
	struct pev_ring *r;
	struct pev_ring_record rec;
	struct pev_error err;
	unsigned ready;
	int samples = 0;

	o.exclude_kernel = true;
	o.sample_period = 1; /* a sample per fault */
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID;
	o.wakeup_events = 1; /* 0 would wake poll(2) only at half the ring */
	if (pev_counter_open(&ev, &o, NULL, NULL, &c, &err) < 0 ||
	    pev_ring_open(c, 0, 8, &r, &err) < 0) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	char *buf = malloc(1 << 20);
	if (buf)
		memset(buf, 1, 1 << 20);
	if (pev_ring_poll(&r, 1, 1000, &ready) > 0 && pev_ring_begin(r) >= 0) {
		while (pev_ring_next(r, &rec) == 1)
			samples += rec.header->type == PEV_RECORD_SAMPLE;
		pev_ring_end(r);
	}
	printf("%d samples\n", samples);
	free(buf);
	pev_ring_close(r);
	pev_counter_close(c);
	return 0;
}

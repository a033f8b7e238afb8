/* Decodes the records of a ring into typed records and describes each. */
#include <perfev.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	struct pev_event ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_record_format fmt;
	struct pev_counter *c;
	struct pev_ring *r;
	struct pev_ring_record rec;
	struct pev_record out;
	struct pev_error err;
	char text[256];

	o.exclude_kernel = true;
	o.sample_period = 1;
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME;
	if (pev_counter_open(&ev, &o, NULL, NULL, &c, &err) < 0 ||
	    pev_ring_open(c, 0, 4, &r, &err) < 0) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	pev_record_format_from_attr(pev_counter_attr(c), &fmt);
	free(calloc(1, 1 << 20)); /* some faults */
	if (pev_ring_begin(r) >= 0) {
		while (pev_ring_next(r, &rec) == 1)
			if (pev_record_decode(&fmt, rec.header, rec.size, &out) > 0)
				printf("%s\n", pev_record_describe(&out, text, sizeof(text)));
		pev_ring_end(r);
	}
	pev_ring_close(r);
	pev_counter_close(c);
	return 0;
}

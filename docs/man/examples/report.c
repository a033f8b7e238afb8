/* Builds a profile of two made-up samples and writes it as perf report's table. */
#include <perfev.h>
#include <stdio.h>

int main(void)
{
	struct pev_profile *p;
	struct pev_profile_event ev = PEV_PROFILE_EVENT_INIT;
	struct pev_profile_sample s = PEV_PROFILE_SAMPLE_INIT;
	struct pev_profile_frame frames[2] = {
		{.address = 0x401010, .symbol = "compute", .dso = "/usr/bin/app"},
		{.address = 0x401200, .symbol = "main", .dso = "/usr/bin/app"},
	};
	struct pev_error err;

	if (pev_profile_new(&p) < 0)
		return 1;
	ev.name = "cpu-clock";
	ev.unit = PEV_PROFILE_UNIT_NANOSECONDS;
	s.event = (unsigned)pev_profile_add_event(p, &ev);
	s.period = 250000;
	s.comm = "app";
	s.pid = s.tid = 42;
	s.frames = frames; /* leaf first */
	s.nr_frames = 2;
	pev_profile_add_sample(p, &s);
	s.nr_frames = 1;
	s.frames = &frames[1];
	pev_profile_add_sample(p, &s);
	if (pev_profile_write_table(p, stdout, NULL, &err) < 0)
		fprintf(stderr, "%s\n", err.message);
	pev_profile_free(p);
	return 0;
}

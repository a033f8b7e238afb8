/* Reads this machine's facts and checks a request against them before opening. */
#include <perfev.h>
#include <stdio.h>

int main(void)
{
	struct pev_machine m;
	struct pev_event ev = pev_event_software(PEV_SW_CPU_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_attr attr;
	struct pev_error err;

	if (pev_machine_read(&m, NULL) < 0)
		return 1;
	printf("kernel %s, perf_event_paranoid %d: %s\n", m.kernel_release, m.paranoid,
	       pev_paranoid_meaning(m.paranoid));
	o.sample_freq = 1000000; /* above most machines' limit */
	if (pev_attr_encode(&attr, &ev, &o, &err) < 0)
		return 1;
	struct pev_open_request req = {.attr = &attr, .pid = 0, .cpu = -1, .group_fd = -1,
				       .event = "cpu-clock"};
	if (pev_attr_check(&m, &req, &err) < 0)
		printf("refused before the syscall: %s\n", err.message);
	return 0;
}

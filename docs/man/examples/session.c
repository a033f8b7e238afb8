/* Samples this thread with cpu-clock and prints the sampled addresses in time order. */
#include <perfev.h>
#include <stdio.h>

static volatile unsigned long sink;

int main(void)
{
	struct pev_session_opts so = PEV_SESSION_OPTS_INIT;
	struct pev_session *s;
	struct pev_session_record r;
	struct pev_error err;

	so.event_text = "cpu-clock:u";
	so.sample_freq = 1000;
	so.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID;
	if (pev_session_open(&so, &s, &err) < 0) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	pev_session_enable(s);
	for (unsigned long i = 0; i < 100000000UL; i++)
		sink += i;
	pev_session_disable(s);
	pev_session_flush(s);
	while (pev_session_read(s, &r) == 1)
		if (r.rec.type == PEV_RECORD_SAMPLE)
			printf("%llu 0x%llx\n", (unsigned long long)r.time,
			       (unsigned long long)r.rec.sample.ip);
	pev_session_close(s);
	return 0;
}

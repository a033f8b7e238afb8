/* Counts the page faults of a code region in this thread, scaled if multiplexed. */
#include <perfev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	struct pev_event ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_counter *c;
	struct pev_count n;
	struct pev_error err;
	char text[4096];

	o.disabled = true;       /* start at pev_counter_enable() */
	o.exclude_kernel = true; /* user space: allowed at perf_event_paranoid 2 */
	o.read_format = PEV_FORMAT_TOTAL_TIME_ENABLED | PEV_FORMAT_TOTAL_TIME_RUNNING;
	if (pev_counter_open(&ev, &o, &self, NULL, &c, &err) < 0) {
		fputs(pev_error_format(&err, text, sizeof(text)), stderr);
		return 1;
	}
	pev_counter_enable(c);
	char *buf = malloc(16 << 20);
	if (buf)
		memset(buf, 1, 16 << 20);
	pev_counter_disable(c);
	if (pev_counter_read(c, &n) == 0)
		printf("page-faults: %llu (scaled %llu)\n", (unsigned long long)n.value,
		       (unsigned long long)n.scaled);
	free(buf);
	pev_counter_close(c);
	return 0;
}

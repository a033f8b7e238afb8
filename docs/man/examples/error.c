/* Prints the diagnosis of a refused open: what failed here, and how to fix it. */
#include <perfev.h>
#include <stdio.h>

int main(void)
{
	struct pev_event ev = pev_event_hardware(PEV_HW_CPU_CYCLES);
	struct pev_counter *c;
	struct pev_error err;
	char text[4096];
	int rc = pev_counter_open(&ev, NULL, NULL, NULL, &c, &err);

	if (rc < 0) {
		printf("%s (%s, field '%s')\n", pev_strerror(rc), pev_error_name(rc), err.field);
		fputs(pev_error_format(&err, text, sizeof(text)), stdout);
		return 1;
	}
	pev_counter_close(c);
	return 0;
}

/* Lists the PMUs in sysfs with their types and format fields. */
#include <perfev.h>
#include <stdio.h>

int main(void)
{
	struct pev_pmus *pmus;
	struct pev_error err;

	if (pev_pmus_read(NULL, &pmus, &err) < 0) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	for (int i = 0; i < pev_pmus_count(pmus); i++) {
		const struct pev_pmu *p = pev_pmus_at(pmus, i);
		printf("%-12s type %-3u %d format fields%s\n", p->name, (unsigned)p->type,
		       p->nr_formats, p->core ? " (core)" : "");
	}
	pev_pmus_free(pmus);
	return 0;
}

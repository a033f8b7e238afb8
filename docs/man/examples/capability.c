/* Probes whether software events work here, as perfev check does. */
#include <perfev.h>
#include <stdio.h>

int main(void)
{
	struct pev_machine m;
	struct pev_capability cap = PEV_CAPABILITY_INIT;

	if (pev_machine_read(&m, NULL) < 0 || pev_capability_probe(PEV_CAP_SOFTWARE, &m, &cap) < 0)
		return 1;
	printf("%s: %s\n", pev_capability_name(cap.cap), pev_capability_verdict_name(cap.verdict));
	return 0;
}

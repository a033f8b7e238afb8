/* Encodes a CPU vendor event name with libpfm4, when perfev was built with it. */
#include <perfev.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	struct pev_event ev;
	struct pev_error err;

	if (!pev_pfm_available()) {
		printf("no libpfm4 table for this CPU\n");
		return 0;
	}
	if (pev_pfm_encode(argc > 1 ? argv[1] : "INST_RETIRED:ANY_P", &ev, &err) < 0) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	printf("type %u config 0x%llx\n", (unsigned)ev.type, (unsigned long long)ev.config);
	return 0;
}

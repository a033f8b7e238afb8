/* Finds tracefs and prints the id of every sched tracepoint. */
#include <perfev.h>
#include <stdio.h>

static int print(const struct pev_tracepoint *tp, void *ctx)
{
	(void)ctx;
	printf("%s:%s %llu\n", tp->system, tp->name, (unsigned long long)tp->id);
	return 0;
}

int main(void)
{
	char tracefs[256];
	struct pev_error err;

	if (pev_tracefs_path(false, tracefs, sizeof(tracefs), &err) < 0 ||
	    pev_tracepoints_foreach(tracefs, "sched", "*", print, NULL, &err) < 0) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	return 0;
}

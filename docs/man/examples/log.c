/* Sends perfev's log lines (warnings and information) to standard error. */
#include <perfev.h>
#include <stdio.h>

static void to_stderr(enum pev_log_level level, const char *line, void *ctx)
{
	fprintf(stderr, "%s: perfev[%d]: %s\n", (const char *)ctx, (int)level, line);
}

int main(void)
{
	struct pev_machine m;

	pev_set_log(to_stderr, "example", PEV_LOG_INFO);
	if (pev_machine_read(&m, NULL) < 0)
		return 1;
	pev_set_log(NULL, NULL, PEV_LOG_WARN);
	return 0;
}

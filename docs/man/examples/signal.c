/* Gets a real-time signal every 1000 page faults of this thread. */
#include <perfev.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t overflows;

static void on_overflow(int signo, siginfo_t *info, void *uc)
{
	struct pev_siginfo si = PEV_SIGINFO_INIT;

	(void)signo, (void)uc;
	if (pev_siginfo_decode(info, &si) == PEV_SIGINFO_NOTIFY)
		overflows++;
}

int main(void)
{
	struct pev_event ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_notify_opts no = PEV_NOTIFY_OPTS_INIT;
	struct sigaction sa;
	struct pev_counter *c;
	struct pev_error err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_overflow;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGRTMIN, &sa, NULL);
	o.exclude_kernel = true;
	o.sample_period = 1000;
	no.signo = SIGRTMIN; /* queued: one signal per overflow */
	if (pev_counter_open(&ev, &o, NULL, NULL, &c, &err) < 0 ||
	    pev_counter_notify(c, &no, &err) < 0) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	char *buf = malloc(64 << 20);
	if (buf)
		memset(buf, 1, 64 << 20);
	pev_counter_notify_stop(c);
	printf("%d overflows\n", (int)overflows);
	free(buf);
	pev_counter_close(c);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * overflow_signal.c - a signal for every N page faults of a code region.
 *
 * The page-faults counter samples with period N; pev_counter_notify() makes
 * each overflow send a real-time signal (F_SETSIG) to this thread. The
 * handler tells the counter by the descriptor in si_fd. A second run arms
 * the counter with pev_counter_refresh(3): three signals, the last one
 * POLL_HUP, and the counter then stays disabled by itself.
 *
 * Build: cc overflow_signal.c $(pkg-config --cflags --libs perfev)
 * Run:   ./overflow_signal [pages [period]]   (default 256 pages, period 16)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sigaction, siginfo_t, MAP_ANONYMOUS */
#endif
#include <perfev.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static struct pev_counter *faults; /* read by the handler: set before the first signal */

/* What the handler saw. Only async-signal-safe work happens in a handler. */
static volatile sig_atomic_t n_signals, n_hangups, n_foreign, last_fd = -1;

static void on_overflow(int signo, siginfo_t *si, void *uctx)
{
	struct pev_siginfo info = PEV_SIGINFO_INIT;

	(void)signo;
	(void)uctx;
	/* Which counter fired? Its descriptor is in si_fd. */
	if (pev_siginfo_decode(si, &info) != PEV_SIGINFO_NOTIFY ||
	    pev_counter_lookup_fd(faults, info.fd) < 0) {
		n_foreign = n_foreign + 1;
		return;
	}
	n_signals = n_signals + 1;
	if (info.hangup) /* POLL_HUP: the refresh budget ran out, the counter disabled itself */
		n_hangups = n_hangups + 1;
	last_fd = info.fd;
}

/* Touches `pages` fresh pages: one page fault each. */
static int touch_pages(long pages, long page)
{
	char *p = (char *)mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	for (long i = 0; i < pages; i++)
		p[i * page] = 1;
	munmap(p, (size_t)(pages * page));
	return 0;
}

static void reset(void)
{
	n_signals = 0;
	n_hangups = 0;
	n_foreign = 0;
	last_fd = -1;
}

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 256, period = argc > 2 ? atol(argv[2]) : 16;
	long page = sysconf(_SC_PAGESIZE);
	struct pev_event ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_opts opts = PEV_OPTS_INIT;
	struct pev_notify_opts notify = PEV_NOTIFY_OPTS_INIT;
	struct sigaction sa;
	struct pev_error err;
	struct pev_count count;
	char text[4096];
	int sig = SIGRTMIN + 1, ok = 1;

	if (pages < 1 || period < 1) {
		fprintf(stderr, "usage: %s [pages [period]]\n", argv[0]);
		return 2;
	}
	/* The handler first: the default action of a real-time signal ends the process. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_overflow;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);

	opts.disabled = true;
	opts.exclude_kernel = true;             /* user space only: works unprivileged */
	opts.sample_period = (uint64_t)period; /* overflow every `period` faults */
	if (pev_counter_open(&ev, &opts, NULL, NULL, &faults, &err) < 0) {
		fprintf(stderr, "%s", pev_error_format(&err, text, sizeof(text)));
		return 1;
	}
	notify.signo = sig; /* to this thread (owner 0) */
	if (pev_counter_notify(faults, &notify, &err) < 0) {
		fprintf(stderr, "%s", pev_error_format(&err, text, sizeof(text)));
		pev_counter_close(faults);
		return 1;
	}

	/* 1. A signal per overflow. */
	reset();
	pev_counter_enable(faults);
	if (touch_pages(pages, page) < 0)
		return 1;
	pev_counter_disable(faults);
	if (pev_counter_read(faults, &count) < 0)
		return 1;
	printf("pages touched: %ld\n", pages);
	printf("page-faults: %llu\n", (unsigned long long)count.value);
	printf("period: %ld\n", period);
	printf("signals: %d (expected %llu)\n", (int)n_signals,
	       (unsigned long long)(count.value / (uint64_t)period));
	printf("descriptor: %d (counter's %d)\n", (int)last_fd, pev_counter_fd(faults, 0));
	ok &= (uint64_t)n_signals == count.value / (uint64_t)period && n_hangups == 0 &&
	      n_foreign == 0 && last_fd == pev_counter_fd(faults, 0);

	/* 2. Refresh: three overflows allowed, then the counter disables itself. */
	reset();
	pev_counter_reset(faults); /* zeroes the count, not the progress towards the next overflow */
	pev_counter_set_period(faults, (uint64_t)period); /* restarts the period */
	pev_counter_refresh(faults, 3);                   /* enables the counter too */
	if (touch_pages(pages > 4 * period ? pages : 4 * period, page) < 0)
		return 1;
	if (pev_counter_read(faults, &count) < 0)
		return 1;
	printf("refresh 3: %d signals, %d hang-up, counter stopped at %llu page-faults\n",
	       (int)n_signals, (int)n_hangups, (unsigned long long)count.value);
	ok &= n_signals == 3 && n_hangups == 1 && count.value == 3 * (uint64_t)period;

	pev_counter_notify_stop(faults);
	pev_counter_close(faults);
	printf("%s\n", ok ? "ok" : "MISMATCH");
	return ok ? 0 : 1;
}

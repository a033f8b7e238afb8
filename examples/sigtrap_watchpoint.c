/* SPDX-License-Identifier: MIT */
/*
 * sigtrap_watchpoint.c - catch every write to a variable, as it happens.
 *
 * A hardware watchpoint (a breakpoint event on writes to `balance`) opened
 * with sigtrap: each write makes the kernel send SIGTRAP to the writing
 * thread before that thread runs on: right after the store on x86, right
 * before it on arm64, whose watchpoints trap before the access. There the
 * store would run again into the same trap for ever, so the handler
 * disables the watchpoint (a system call, safe in a handler) and the code
 * under watch enables it again before each store. The event's
 * sig_data, here a pointer to a description of the watched variable, comes
 * back in si_perf_data, so one handler can serve many watchpoints.
 * sigtrap needs remove_on_exec: a program exec'd later has no handler.
 *
 * Some machines let a breakpoint open and never fire (hypervisors that do
 * not deliver debug exceptions), so the program first asks
 * pev_capability_probe() whether watchpoints work here, and exits with 77
 * (what test runners read as "skipped") when they do not.
 *
 * Build: cc sigtrap_watchpoint.c $(pkg-config --cflags --libs perfev)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sigaction, siginfo_t, gettid */
#endif
#include <linux/perf_event.h>
#include <perfev.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct watch {
	const char *name;
	volatile long *addr;
};

static volatile long balance;
static const struct watch watch_balance = {"balance", &balance};

/* What the handler saw, one entry per trap (async-signal-safe work only). */
#define MAX_TRAPS 32
static struct {
	uint64_t data;
	void *addr;
	uint32_t type;
	bool async;
	long value;
	pid_t tid;
} traps[MAX_TRAPS];
static volatile sig_atomic_t n_traps, n_foreign;
static int watch_fd = -1; /* the watchpoint's descriptor, for the handler */

static void on_trap(int signo, siginfo_t *si, void *uctx)
{
	struct pev_siginfo info = PEV_SIGINFO_INIT;
	int i;

	(void)signo;
	(void)uctx;
	if (pev_siginfo_decode(si, &info) != PEV_SIGINFO_SIGTRAP) {
		n_foreign = n_foreign + 1;
		return;
	}
	i = n_traps;
	n_traps = i + 1;
	if (i >= MAX_TRAPS)
		return;
	traps[i].data = info.data;
	traps[i].addr = info.addr;
	traps[i].type = info.type;
	traps[i].async = info.async;
	/* sig_data is ours: the watch it describes says what to look at. */
	traps[i].value = *((const struct watch *)(uintptr_t)info.data)->addr;
	traps[i].tid = gettid();
	/* Let the store complete where the trap comes before it (arm64). */
	ioctl(watch_fd, PERF_EVENT_IOC_DISABLE, 0);
}

/* The code under watch: deposits, one store each, the watchpoint enabled before each. */
static __attribute__((noinline)) void deposit(struct pev_counter *watchpoint, int times)
{
	for (int i = 1; i <= times; i++) {
		pev_counter_enable(watchpoint);
		balance = balance + 10 * i;
	}
	pev_counter_disable(watchpoint);
}

int main(void)
{
	struct pev_event ev = pev_event_breakpoint((uintptr_t)&balance, sizeof(balance), PEV_BP_W);
	struct pev_opts opts = PEV_OPTS_INIT;
	struct pev_counter *watchpoint;
	struct pev_error err;
	struct pev_count count;
	struct sigaction sa;
	char text[4096];
	const int writes = 5;
	long expect = 0;
	struct pev_capability cap = PEV_CAPABILITY_INIT;
	int ok;

	/* Opening is not working: make a watchpoint fire before relying on one. */
	if (pev_capability_probe(PEV_CAP_BREAKPOINT, NULL, &cap) == 0 &&
	    cap.verdict != PEV_CAP_WORKS) {
		printf("watchpoints do not work here: %s\n%s\n", cap.detail, cap.fix);
		return 77;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTRAP, &sa, NULL);

	opts.sigtrap = true;
	opts.remove_on_exec = true; /* the kernel requires it with sigtrap */
	opts.sig_data = (uintptr_t)&watch_balance;
	opts.sample_period = 1; /* a trap on every write */
	opts.exclude_kernel = true;
	opts.disabled = true;
	if (pev_counter_open(&ev, &opts, NULL, NULL, &watchpoint, &err) < 0) {
		fprintf(stderr, "%s", pev_error_format(&err, text, sizeof(text)));
		return 1;
	}
	printf("watching %s at %p, sig_data %#llx, on thread %d\n", watch_balance.name,
	       (void *)&balance, (unsigned long long)(uintptr_t)&watch_balance, (int)gettid());

	watch_fd = pev_counter_fd(watchpoint, 0);
	deposit(watchpoint, writes);
	if (pev_counter_read(watchpoint, &count) < 0)
		return 1;

	ok = n_traps == writes && count.value == (uint64_t)writes && n_foreign == 0;
	for (int i = 0; i < n_traps && i < MAX_TRAPS; i++) {
		expect += 10 * (i + 1);
		/* The trap saw the new value (after the store) or the old one (before it). */
		bool after = traps[i].value == expect;
		printf("trap %d: %s = %ld (%s the store), si_addr %p, si_perf_data %#llx, "
		       "si_perf_type %u, %s on thread %d\n",
		       i + 1, ((const struct watch *)(uintptr_t)traps[i].data)->name, traps[i].value,
		       after ? "after" : "before", traps[i].addr, (unsigned long long)traps[i].data,
		       traps[i].type, traps[i].async ? "late" : "synchronous", (int)traps[i].tid);
		ok &= traps[i].data == (uintptr_t)&watch_balance &&
		      traps[i].addr == (void *)&balance && traps[i].type == PEV_TYPE_BREAKPOINT &&
		      !traps[i].async && (after || traps[i].value == expect - 10 * (i + 1)) &&
		      traps[i].tid == gettid();
	}
	ok &= balance == expect;
	printf("writes: %d, balance %ld\n", writes, (long)balance);
	printf("watchpoint count: %llu\n", (unsigned long long)count.value);
	printf("traps: %d\n", (int)n_traps);
	pev_counter_close(watchpoint);
	printf("%s\n", ok ? "ok" : "MISMATCH");
	return ok ? 0 : 1;
}

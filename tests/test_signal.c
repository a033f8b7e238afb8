/* SPDX-License-Identifier: MIT */
/*
 * test_signal.c - signals from perf events: notification by descriptor
 * (pev_counter_notify, F_SETSIG / F_SETOWN_EX / O_ASYNC, with refresh), the
 * synchronous SIGTRAP of sigtrap events, remove_on_exec, the checks before
 * the syscall, pev_siginfo_decode, and the two examples.
 *
 * Live tests use events whose counts are known exactly: page faults of
 * freshly mapped pages, and a watchpoint written a known number of times.
 * Criterion runs each test in a process of its own, so handlers installed
 * here do not outlive the test; threads are joined and children reaped.
 *
 * arm64 watchpoints trap before the store, x86's after it: a signal taken
 * there would run the store again into the same trap for ever. There the
 * handler disables the watchpoint (rearm_fd) and the workload enables it
 * again before its next store, so every store is counted and completes.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "helpers.h"
#include "core/sys.h"

#define NOTIFY_SIG (SIGRTMIN + 1)

#if defined(__SANITIZE_ADDRESS__)
#define PEV_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PEV_TEST_ASAN 1
#endif
#endif
#ifndef PEV_TEST_ASAN
#define PEV_TEST_ASAN 0
#endif

/* ---- workloads ----------------------------------------------------------- */

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* Maps n fresh pages, writes one byte to each (one page fault each) and unmaps them. */
static void touch_pages(int n)
{
	size_t len = (size_t)n * (size_t)page_size();
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert_neq(p, MAP_FAILED);
	for (int i = 0; i < n; i++)
		p[(size_t)i * (size_t)page_size()] = 1;
	munmap(p, len);
}

/* Waits up to 30 s for *n to reach want (signals to another thread arrive asynchronously). */
static void wait_for(volatile sig_atomic_t *n, int want)
{
	for (int i = 0; i < 30000 && *n < want; i++)
		usleep(1000);
}

static volatile sig_atomic_t n_recs;

/*
 * touch_pages for a counter of page faults with this period, refreshed with
 * limit: touches the n pages one at a time and, after each fault that makes
 * an overflow within the limit, waits for its signal (30 s at most) before
 * the next fault. The kernel sends the signal, and disables the counter at
 * the limit, from an interrupt: an emulated machine may take it after the
 * next fault, which then counts too (the arm64 guest, once in a README run).
 * Call prewarm_waits() before the counter counts.
 */
static void touch_pages_to_limit(int n, int period, int limit)
{
	size_t len = (size_t)n * (size_t)page_size();
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int base = n_recs;

	cr_assert_neq(p, MAP_FAILED);
	for (int i = 0; i < n; i++) {
		p[(size_t)i * (size_t)page_size()] = 1;
		if ((i + 1) % period == 0 && (i + 1) / period <= limit)
			wait_for(&n_recs, base + (i + 1) / period);
	}
	munmap(p, len);
}

/*
 * Runs wait_for's and usleep's code once, so that their first call under a
 * counter of page faults (touch_pages_to_limit) faults no page in.
 */
static void prewarm_waits(void)
{
	static volatile sig_atomic_t zero;

	wait_for(&zero, 0);
	usleep(1);
}

/* ---- a handler that records what it gets ---------------------------------- */

#define MAX_REC 512

struct rec {
	int kind;      /* pev_siginfo_decode's result */
	struct pev_siginfo info;
	pid_t tid;     /* the thread that ran the handler */
	int index;     /* pev_counter_lookup_fd(watched, si_fd) */
	long value;    /* *watched_value when the handler ran */
	int step;      /* the workload's step when the handler ran */
};

static struct rec recs[MAX_REC];
static struct pev_counter *watched;    /* for pev_counter_lookup_fd in the handler */
static volatile long *watched_value;   /* read by the handler, if set */
static volatile sig_atomic_t step;     /* set by workloads between stores */

#if defined(__aarch64__)
#define TRAPS_BEFORE_STORE 1
#else
#define TRAPS_BEFORE_STORE 0
#endif
/* The watchpoint the handler disables and the workload enables again, or -1. */
static volatile int rearm_fd = -1;
static volatile sig_atomic_t disarmed;

/* Where the watchpoint traps before the store: lets the store complete (see the top). */
static void disarm(void)
{
	if (rearm_fd >= 0) {
		ioctl(rearm_fd, PERF_EVENT_IOC_DISABLE, 0);
		disarmed = 1;
	}
}

/* Enables the watchpoint the handler disabled, before the next store. */
static void rearm(void)
{
	if (disarmed) {
		disarmed = 0;
		ioctl(rearm_fd, PERF_EVENT_IOC_ENABLE, 0);
	}
}

/* Makes c's watchpoint the one handlers disarm, where it traps before the store. */
static void watch_rearmed(const struct pev_counter *c)
{
	if (TRAPS_BEFORE_STORE)
		rearm_fd = pev_counter_fd(c, 0);
}

static void record(int signo, siginfo_t *si, void *uctx)
{
	int i = n_recs;

	disarm();

	(void)signo;
	(void)uctx;
	if (i < MAX_REC) {
		recs[i].info.sz = sizeof(recs[i].info);
		recs[i].kind = pev_siginfo_decode(si, &recs[i].info);
		recs[i].tid = gettid();
		recs[i].index = watched ? pev_counter_lookup_fd(watched, si->si_fd) : -1;
		recs[i].value = watched_value ? *watched_value : 0;
		recs[i].step = step;
	}
	n_recs = i + 1;
}

/* The variable the watchpoint tests write, and their workload. */
static volatile long target_var;
static volatile sig_atomic_t trapped_at[64]; /* n_recs right after each store */

/* Writes target_var n times; notes after each store how many traps had arrived. */
static __attribute__((noinline)) void store_n(int n)
{
	for (int i = 0; i < n; i++) {
		step = i + 1;
		rearm();
		target_var = 100 + i;
		trapped_at[i] = n_recs;
	}
}

static void install(int signo)
{
	struct sigaction sa;

	/*
	 * Fault the record pages in now: a page fault inside the handler would be
	 * one more overflow, and its standard signal would merge with the one
	 * being handled.
	 */
	memset(recs, 0, sizeof(recs));
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = record;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	cr_assert_eq(sigaction(signo, &sa, NULL), 0);
}

static void block(int signo, bool on)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, signo);
	cr_assert_eq(pthread_sigmask(on ? SIG_BLOCK : SIG_UNBLOCK, &s, NULL), 0);
}

/* ---- counters -------------------------------------------------------------- */

/* Page faults of user space on target (NULL: this thread), sampling every `period`, disabled. */
static struct pev_counter *open_faults(uint64_t period, const struct pev_target *target)
{
	struct pev_event ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c = NULL;
	struct pev_error err;

	o.exclude_kernel = true;
	o.disabled = true;
	o.sample_period = period;
	cr_assert_eq(pev_counter_open(&ev, &o, target, NULL, &c, &err), 0, "%s", err.message);
	return c;
}

/*
 * A write watchpoint on target_var sampling every `period` writes, disabled:
 * its count is exact even where page faults are not (under ASan, whose
 * shadow memory faults too).
 */
static struct pev_counter *open_writes(uint64_t period)
{
	struct pev_event ev = pev_event_breakpoint((uintptr_t)&target_var, sizeof(target_var),
						   PEV_BP_W);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c = NULL;
	struct pev_error err;

	o.exclude_kernel = true;
	o.disabled = true;
	o.sample_period = period;
	cr_assert_eq(pev_counter_open(&ev, &o, NULL, NULL, &c, &err), 0, "%s", err.message);
	watch_rearmed(c);
	return c;
}

static uint64_t count_of(const struct pev_counter *c)
{
	struct pev_count n;

	cr_assert_eq(pev_counter_read(c, &n), 0);
	return n.value;
}

static void notify(struct pev_counter *c, int signo, enum pev_notify_owner owner, pid_t pid)
{
	struct pev_notify_opts n = PEV_NOTIFY_OPTS_INIT;
	struct pev_error err;

	n.signo = signo;
	n.owner = owner;
	n.pid = pid;
	cr_assert_eq(pev_counter_notify(c, &n, &err), 0, "%s", err.message);
}

/* Expects descriptor fd to be set up as perfev leaves it without notification. */
static void expect_quiet(int fd)
{
	struct f_owner_ex o = {F_OWNER_PID, -1};

	cr_expect_eq(fcntl(fd, F_GETFL) & O_ASYNC, 0, "O_ASYNC still set");
	cr_expect_eq(fcntl(fd, F_GETSIG), 0);
	cr_expect_eq(fcntl(fd, F_GETOWN_EX, &o), 0);
	cr_expect_eq(o.pid, 0, "owner %d", o.pid);
}

/* ---- a parked thread -------------------------------------------------------- */

struct parked {
	pthread_t thread;
	volatile pid_t tid;
	volatile bool stop;
	void (*work)(struct parked *p); /* run once before parking, or NULL */
	volatile bool go;               /* work starts when set */
	volatile bool done;             /* work finished */
};

static void *parked_main(void *arg)
{
	struct parked *p = arg;

	p->tid = gettid();
	if (p->work) {
		while (!p->go)
			usleep(100);
		p->work(p);
		p->done = true;
	}
	while (!p->stop)
		usleep(1000);
	return NULL;
}

static void park(struct parked *p, void (*work)(struct parked *p))
{
	memset(p, 0, sizeof(*p));
	p->work = work;
	cr_assert_eq(pthread_create(&p->thread, NULL, parked_main, p), 0);
	while (!p->tid)
		usleep(100);
}

static void unpark(struct parked *p)
{
	p->stop = true;
	pthread_join(p->thread, NULL);
}

/* ---- injection at the fcntl seam ---------------------------------------------- */

static struct pev_sys fcntl_sys;
static int fail_fd, fail_cmd, fail_errno;

static int failing_fcntl(int fd, int cmd, unsigned long arg)
{
	if ((fail_fd < 0 || fd == fail_fd) && cmd == fail_cmd)
		return -fail_errno;
	return pev__sys_real.fcntl(fd, cmd, arg);
}

/* Makes fcntl `cmd` fail with errno e on descriptor fd (-1: on every descriptor). */
static void inject_fcntl(int fd, int cmd, int e)
{
	fcntl_sys = pev__sys_real;
	fcntl_sys.fcntl = failing_fcntl;
	fail_fd = fd;
	fail_cmd = cmd;
	fail_errno = e;
	pev__sys_set(&fcntl_sys);
}

/* ==== notification: one signal per overflow ================================== */

TestSuite(notify, .init = th_leak_init, .fini = th_leak_fini);

/* period 1: every page fault is an overflow, and each sends one real-time signal. */
Test(notify, one_realtime_signal_per_overflow)
{
	struct pev_counter *c = open_faults(1, NULL);
	int fd = pev_counter_fd(c, 0);

	install(NOTIFY_SIG);
	watched = c;
	notify(c, NOTIFY_SIG, PEV_NOTIFY_THREAD, 0);
	pev_counter_enable(c);
	touch_pages(64);
	pev_counter_disable(c);
	uint64_t n = count_of(c);
	cr_expect_geq(n, 64);
	cr_expect_eq((uint64_t)n_recs, n, "%d signals for %" PRIu64 " overflows", (int)n_recs, n);
	for (int i = 0; i < n_recs && i < MAX_REC; i++) {
		cr_expect_eq(recs[i].kind, PEV_SIGINFO_NOTIFY);
		cr_expect_eq(recs[i].info.signo, NOTIFY_SIG);
		cr_expect_eq(recs[i].info.code, POLL_IN);
		cr_expect_eq(recs[i].info.band, POLLIN | POLLRDNORM, "band 0x%lx", recs[i].info.band);
		cr_expect_eq(recs[i].info.fd, fd);
		cr_expect_not(recs[i].info.hangup);
		cr_expect_eq(recs[i].index, 0);
		cr_expect_eq(recs[i].tid, gettid());
	}
	pev_counter_close(c);
}

/* period 4: a signal per 4 page faults, none for the remainder. */
Test(notify, one_signal_per_period)
{
	struct pev_counter *c = open_faults(4, NULL);

	install(NOTIFY_SIG);
	notify(c, NOTIFY_SIG, PEV_NOTIFY_THREAD, 0);
	pev_counter_enable(c);
	touch_pages(64);
	pev_counter_disable(c);
	uint64_t n = count_of(c);
	cr_expect_geq(n, 64);
	cr_expect_eq((uint64_t)n_recs, n / 4, "%d signals for %" PRIu64 " faults", (int)n_recs, n);
	pev_counter_close(c);
}

/* No options: SIGIO to the calling thread, with F_SETSIG set so that si_fd is filled. */
Test(notify, defaults_are_sigio_to_the_calling_thread)
{
	th_require_cap(PEV_CAP_BREAKPOINT);
	struct pev_counter *c = open_writes(1);
	int fd = pev_counter_fd(c, 0);
	struct f_owner_ex o;
	struct pev_error err;

	install(SIGIO);
	cr_assert_eq(pev_counter_notify(c, NULL, &err), 0, "%s", err.message);
	cr_expect_eq(fcntl(fd, F_GETSIG), SIGIO);
	cr_expect_eq(fcntl(fd, F_GETOWN_EX, &o), 0);
	cr_expect_eq(o.type, F_OWNER_TID);
	cr_expect_eq(o.pid, gettid());
	cr_expect_neq(fcntl(fd, F_GETFL) & O_ASYNC, 0);
	pev_counter_enable(c);
	store_n(8);
	pev_counter_disable(c);
	cr_expect_eq(count_of(c), 8);
	cr_assert_eq(n_recs, 8);
	cr_expect_eq(recs[0].info.signo, SIGIO);
	cr_expect_eq(recs[0].info.code, POLL_IN);
	cr_expect_eq(recs[0].info.fd, fd);
	pev_counter_close(c);
}

/*
 * Refresh(k): k overflows signal, the k-th with POLL_HUP (band POLLHUP |
 * POLLERR), and the counter then disables itself until refreshed again.
 */
Test(notify, refresh_gives_k_signals_the_last_pollhup_then_disables)
{
	struct pev_counter *c = open_faults(2, NULL);

	install(NOTIFY_SIG);
	notify(c, NOTIFY_SIG, PEV_NOTIFY_THREAD, 0);
	prewarm_waits();
	cr_assert_eq(pev_counter_refresh(c, 3), 0);
	touch_pages_to_limit(20, 2, 3);
	cr_assert_eq(n_recs, 3, "%d signals", (int)n_recs);
	cr_expect_eq(recs[0].info.code, POLL_IN);
	cr_expect_eq(recs[1].info.code, POLL_IN);
	cr_expect_eq(recs[2].info.code, POLL_HUP);
	cr_expect_eq(recs[2].info.band, POLLHUP | POLLERR, "band 0x%lx", recs[2].info.band);
	cr_expect_not(recs[0].info.hangup);
	cr_expect(recs[2].info.hangup);
	cr_expect_eq(count_of(c), 6, "stopped at the third overflow of period 2");

	touch_pages(20); /* disabled: nothing counts, nothing signals */
	cr_expect_eq(n_recs, 3);
	cr_expect_eq(count_of(c), 6);

	cr_assert_eq(pev_counter_refresh(c, 2), 0);
	touch_pages_to_limit(20, 2, 2);
	cr_assert_eq(n_recs, 5, "%d signals", (int)n_recs);
	cr_expect_eq(recs[3].info.code, POLL_IN);
	cr_expect_eq(recs[4].info.code, POLL_HUP);
	cr_expect_eq(count_of(c), 10);
	pev_counter_close(c);
}

/*
 * Reset zeroes the count but not the progress towards the next overflow;
 * setting the period (PEV_IOC_PERIOD) starts it over (measured on Linux 6.18).
 */
Test(notify, reset_keeps_the_period_progress_set_period_restarts_it)
{
	th_require_cap(PEV_CAP_BREAKPOINT);
	struct pev_counter *c = open_writes(5);

	install(NOTIFY_SIG);
	notify(c, NOTIFY_SIG, PEV_NOTIFY_THREAD, 0);
	pev_counter_enable(c);
	store_n(3); /* 3 of 5 towards the first overflow */
	pev_counter_disable(c);
	cr_assert_eq(count_of(c), 3);
	cr_assert_eq(n_recs, 0);

	pev_counter_reset(c);
	pev_counter_enable(c);
	store_n(2); /* the overflow comes after 2 more, not 5 */
	pev_counter_disable(c);
	cr_expect_eq(count_of(c), 2);
	cr_expect_eq(n_recs, 1);

	pev_counter_enable(c);
	store_n(3); /* 3 of the next 5 */
	pev_counter_disable(c);
	pev_counter_reset(c);
	cr_assert_eq(pev_counter_set_period(c, 5), 0);
	pev_counter_enable(c);
	store_n(4); /* a fresh period: no overflow after 4 */
	pev_counter_disable(c);
	cr_expect_eq(n_recs, 1);
	pev_counter_enable(c);
	store_n(1);
	pev_counter_disable(c);
	cr_expect_eq(n_recs, 2);
	cr_expect_eq(count_of(c), 5);
	pev_counter_close(c);
}

/* The kernel refuses refresh on a counter that does not sample. */
Test(notify, refresh_needs_a_sampling_event)
{
	struct pev_counter *c = open_faults(0, NULL);

	cr_expect_eq(pev_counter_refresh(c, 1), PEV_EINVAL);
	pev_counter_close(c);
}

/*
 * A kernel before Linux 6.10 wakes a ring's readers without a signal (only
 * an overflow set POLL_IN to send): skips, saying so, when the first record
 * woke the ring up (fd polls readable) and no signal came in 10 s.
 */
static void skip_unless_wakeups_signal(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	struct utsname u;

	if (poll(&p, 1, 30000 * th_time_scale()) != 1 || !(p.revents & POLLIN))
		return; /* no wake-up at all: the test's expectations say so */
	for (int i = 0; i < 1000 * th_time_scale() && n_recs == 0; i++)
		usleep(10000);
	if (n_recs == 0 && uname(&u) == 0)
		th_skip("the ring woke up (its fd polls readable) but no POLL_IN came: kernel %s "
			"signals ring wake-ups only from Linux 6.10 on",
			u.release);
}

/*
 * Ring-buffer wake-ups signal too: a dummy event that records MMAP records,
 * waking up at every byte, sends POLL_IN per record. (The ring is mapped by
 * hand here: only the wake-up matters, nothing is read from it.)
 */
Test(notify, ring_wakeups_signal_too)
{
	struct pev_event ev = pev_event_software(PEV_SW_DUMMY);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c;
	struct pev_error err;
	size_t ring_len = 9 * (size_t)page_size();

	o.mmap = true;
	o.wakeup_bytes = 1;
	o.exclude_kernel = true;
	o.disabled = true;
	cr_assert_eq(pev_counter_open(&ev, &o, NULL, NULL, &c, &err), 0, "%s", err.message);
	void *ring = mmap(NULL, ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, pev_counter_fd(c, 0), 0);
	cr_assert_neq(ring, MAP_FAILED);
	install(NOTIFY_SIG);
	notify(c, NOTIFY_SIG, PEV_NOTIFY_THREAD, 0);
	int file = open("/bin/true", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(file, 0);
	pev_counter_enable(c);
	for (int i = 0; i < 5; i++) { /* an executable mapping: one MMAP record each */
		void *p = mmap(NULL, (size_t)page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, file, 0);
		cr_assert_neq(p, MAP_FAILED);
		munmap(p, (size_t)page_size());
		if (i == 0)
			skip_unless_wakeups_signal(pev_counter_fd(c, 0));
		/* Each wake-up on its own: the kernel sends them from irq_work, which an
		 * emulated arm64 machine runs late, so that two records made one wake-up. */
		wait_for(&n_recs, i + 1);
	}
	pev_counter_disable(c);
	close(file);
	cr_expect_eq(n_recs, 5, "5 MMAP records, %d wake-up signals", (int)n_recs);
	for (int i = 0; i < n_recs && i < MAX_REC; i++)
		cr_expect_eq(recs[i].info.code, POLL_IN);
	munmap(ring, ring_len);
	pev_counter_close(c);
}

/* A standard signal merges while pending; a real-time one queues per overflow. */
Test(notify, standard_signals_merge_realtime_signals_queue)
{
	struct pev_counter *c = open_faults(1, NULL);

	install(SIGIO);
	notify(c, SIGIO, PEV_NOTIFY_THREAD, 0);
	block(SIGIO, true);
	pev_counter_enable(c);
	touch_pages(8);
	pev_counter_disable(c);
	uint64_t overflows = count_of(c);
	block(SIGIO, false);
	cr_expect_eq(n_recs, 1, "%d SIGIO for %" PRIu64 " overflows", (int)n_recs, overflows);

	n_recs = 0;
	install(NOTIFY_SIG);
	notify(c, NOTIFY_SIG, PEV_NOTIFY_THREAD, 0);
	pev_counter_reset(c);
	block(NOTIFY_SIG, true);
	pev_counter_enable(c);
	touch_pages(8);
	pev_counter_disable(c);
	overflows = count_of(c);
	block(NOTIFY_SIG, false);
	cr_expect_eq((uint64_t)n_recs, overflows);
	pev_counter_close(c);
}

/* A signal with si_codes of its own (SIGCHLD) comes with SI_SIGIO; the band still tells POLL_HUP. */
Test(notify, signal_with_codes_of_its_own_gets_si_sigio)
{
	struct pev_counter *c = open_faults(1, NULL);
	int fd = pev_counter_fd(c, 0);

	install(SIGCHLD);
	notify(c, SIGCHLD, PEV_NOTIFY_THREAD, 0);
	prewarm_waits();
	cr_assert_eq(pev_counter_refresh(c, 2), 0);
	touch_pages_to_limit(8, 1, 2);
	cr_assert_eq(n_recs, 2, "%d signals", (int)n_recs);
	for (int i = 0; i < 2; i++) {
		cr_expect_eq(recs[i].kind, PEV_SIGINFO_NOTIFY);
		cr_expect_eq(recs[i].info.code, SI_SIGIO);
		cr_expect_eq(recs[i].info.fd, fd);
	}
	cr_expect_not(recs[0].info.hangup);
	cr_expect(recs[1].info.hangup, "band 0x%lx", recs[1].info.band);
	pev_counter_close(c);
}

/* The owner can be another thread: it, and only it, runs the handler. */
Test(notify, owner_thread_receives_the_signals)
{
	struct pev_counter *c = open_faults(1, NULL);
	struct parked p;

	install(NOTIFY_SIG);
	park(&p, NULL);
	notify(c, NOTIFY_SIG, PEV_NOTIFY_THREAD, p.tid);
	pev_counter_enable(c);
	touch_pages(16);
	pev_counter_disable(c);
	uint64_t n = count_of(c);
	wait_for(&n_recs, (int)n);
	unpark(&p);
	cr_expect_eq((uint64_t)n_recs, n);
	for (int i = 0; i < n_recs && i < MAX_REC; i++)
		cr_expect_eq(recs[i].tid, p.tid, "signal %d ran on %d, not %d", i, recs[i].tid,
			     (int)p.tid);
	pev_counter_close(c);
}

/* PEV_NOTIFY_PROCESS with pid 0 is this process (F_OWNER_PID). */
Test(notify, owner_process)
{
	struct pev_counter *c = open_faults(1, NULL);
	struct f_owner_ex o;

	install(NOTIFY_SIG);
	notify(c, NOTIFY_SIG, PEV_NOTIFY_PROCESS, 0);
	cr_expect_eq(fcntl(pev_counter_fd(c, 0), F_GETOWN_EX, &o), 0);
	cr_expect_eq(o.type, F_OWNER_PID);
	cr_expect_eq(o.pid, getpid());
	pev_counter_enable(c);
	touch_pages(8);
	pev_counter_disable(c);
	uint64_t n = count_of(c);
	wait_for(&n_recs, (int)n);
	cr_expect_eq((uint64_t)n_recs, n);
	pev_counter_close(c);
}

struct group_ctx {
	int signals;
	uint64_t overflows;
	int owner_type;
	pid_t owner_pid, pgrp;
};

static void notify_own_group(void *arg)
{
	struct group_ctx *g = arg;
	struct pev_notify_opts n = PEV_NOTIFY_OPTS_INIT;
	struct pev_counter *c;
	struct f_owner_ex o;

	/* A process group of its own, so the signal reaches nobody else. */
	if (setpgid(0, 0) < 0)
		_exit(3);
	g->pgrp = getpgrp();
	install(NOTIFY_SIG);
	c = open_faults(1, NULL);
	n.signo = NOTIFY_SIG;
	n.owner = PEV_NOTIFY_PROCESS_GROUP;
	if (pev_counter_notify(c, &n, NULL) < 0)
		_exit(4);
	fcntl(pev_counter_fd(c, 0), F_GETOWN_EX, &o);
	g->owner_type = o.type;
	g->owner_pid = o.pid;
	pev_counter_enable(c);
	touch_pages(8);
	pev_counter_disable(c);
	g->overflows = count_of(c);
	wait_for(&n_recs, (int)g->overflows);
	g->signals = n_recs;
	pev_counter_close(c);
}

/* PEV_NOTIFY_PROCESS_GROUP with pid 0 is the caller's process group (F_OWNER_PGRP). */
Test(notify, owner_process_group)
{
	struct group_ctx g = {0};

	cr_assert(th_in_child(notify_own_group, &g, sizeof(g)));
	cr_expect_eq(g.owner_type, F_OWNER_PGRP);
	cr_expect_eq(g.owner_pid, g.pgrp);
	cr_expect_geq(g.overflows, 8);
	cr_expect_eq((uint64_t)g.signals, g.overflows);
}

/* Every descriptor of a counter notifies; lookup_fd maps si_fd back to the index. */
Test(notify, every_descriptor_and_lookup_fd)
{
	struct pev_target t = pev_target_process(getpid());
	struct pev_counter *c, *other = open_faults(1, NULL);
	struct parked p;

	park(&p, NULL);
	c = open_faults(1, &t);
	int nr = pev_counter_nr_fds(c);
	cr_assert_geq(nr, 2, "one descriptor per thread");
	notify(c, NOTIFY_SIG, PEV_NOTIFY_THREAD, 0);
	for (int i = 0; i < nr; i++) {
		int fd = pev_counter_fd(c, i);
		cr_expect_eq(fcntl(fd, F_GETSIG), NOTIFY_SIG);
		cr_expect_neq(fcntl(fd, F_GETFL) & O_ASYNC, 0);
		cr_expect_eq(pev_counter_lookup_fd(c, fd), i);
		cr_expect_eq(pev_counter_lookup_fd(other, fd), PEV_ENOTFOUND);
	}
	cr_expect_eq(pev_counter_lookup_fd(c, pev_counter_fd(other, 0)), PEV_ENOTFOUND);
	cr_expect_eq(pev_counter_lookup_fd(c, -1), PEV_ENOTFOUND);
	cr_expect_eq(pev_counter_lookup_fd(NULL, 3), PEV_EBADARG);
	cr_expect_eq(pev_counter_notify_stop(c), 0);
	for (int i = 0; i < nr; i++)
		expect_quiet(pev_counter_fd(c, i));
	pev_counter_close(c);
	pev_counter_close(other);
	unpark(&p);
}

/* After notify_stop the counter still overflows but sends nothing. */
Test(notify, stop_ends_the_signals)
{
	struct pev_counter *c = open_faults(1, NULL);

	install(NOTIFY_SIG);
	notify(c, NOTIFY_SIG, PEV_NOTIFY_THREAD, 0);
	cr_expect_eq(pev_counter_notify_stop(c), 0);
	expect_quiet(pev_counter_fd(c, 0));
	pev_counter_enable(c);
	touch_pages(8);
	pev_counter_disable(c);
	cr_expect_geq(count_of(c), 8);
	cr_expect_eq(n_recs, 0);
	cr_expect_eq(pev_counter_notify_stop(NULL), PEV_EBADARG);
	pev_counter_close(c);
}

/* Notifying again changes the signal: only the new one arrives. */
Test(notify, notify_again_changes_the_signal)
{
	struct pev_counter *c = open_faults(1, NULL);

	install(NOTIFY_SIG);
	install(NOTIFY_SIG + 1);
	notify(c, NOTIFY_SIG, PEV_NOTIFY_THREAD, 0);
	notify(c, NOTIFY_SIG + 1, PEV_NOTIFY_THREAD, 0);
	pev_counter_enable(c);
	touch_pages(8);
	pev_counter_disable(c);
	cr_expect_eq((uint64_t)n_recs, count_of(c));
	for (int i = 0; i < n_recs && i < MAX_REC; i++)
		cr_expect_eq(recs[i].info.signo, NOTIFY_SIG + 1);
	pev_counter_close(c);
}

/* Bad arguments: PEV_EBADARG with the argument named; a newer caller's zero tail is fine. */
Test(notify, null_counter_and_bad_options)
{
	struct pev_counter *c = open_faults(1, NULL);
	struct pev_notify_opts n = PEV_NOTIFY_OPTS_INIT;
	struct {
		struct pev_notify_opts o;
		int future;
	} newer = {.o = PEV_NOTIFY_OPTS_INIT};
	struct pev_error err;

	cr_expect_eq(pev_counter_notify(NULL, &n, &err), PEV_EBADARG);
	expect_has(err.message, "pev_counter_notify: bad argument 'c'");

	n.sz = 0;
	cr_expect_eq(pev_counter_notify(c, &n, &err), PEV_EBADARG);
	expect_has(err.message, "PEV_NOTIFY_OPTS_INIT");

	n.sz = sizeof(n);
	n.owner = (enum pev_notify_owner)7;
	cr_expect_eq(pev_counter_notify(c, &n, &err), PEV_EBADARG);
	expect_has(err.message, "owner 7");
	cr_expect_str_eq(err.field, "opts");

	n.owner = PEV_NOTIFY_THREAD;
	n.pid = -3;
	cr_expect_eq(pev_counter_notify(c, &n, &err), PEV_EBADARG);
	expect_has(err.message, "pid -3 is negative");

	/* A caller built against a newer perfev that sets an unknown field. */
	newer.o.sz = sizeof(newer);
	newer.future = 1;
	cr_expect_eq(pev_counter_notify(c, &newer.o, &err), PEV_EBADARG);
	expect_has(err.message, "upgrade libperfev");
	newer.future = 0; /* unknown but zero: fine */
	newer.o.signo = NOTIFY_SIG;
	install(NOTIFY_SIG);
	cr_expect_eq(pev_counter_notify(c, &newer.o, &err), 0, "%s", err.message);
	cr_expect_eq(fcntl(pev_counter_fd(c, 0), F_GETSIG), NOTIFY_SIG);
	pev_counter_close(c);
}

static char log_text[2048];

static void keep_log(enum pev_log_level level, const char *line, void *ctx)
{
	(void)ctx;
	if (level == PEV_LOG_WARN)
		snprintf(log_text + strlen(log_text), sizeof(log_text) - strlen(log_text), "%s\n",
			 line);
}

/* Notifying the caller with a signal it has no handler for (or ignores) is logged. */
Test(notify, a_signal_without_handler_is_logged)
{
	struct pev_counter *c = open_faults(1, NULL);
	struct sigaction ign;

	pev_set_log(keep_log, NULL, PEV_LOG_DEBUG);
	notify(c, NOTIFY_SIG + 3, PEV_NOTIFY_THREAD, 0); /* default action: end the process */
	expect_has(log_text, "page-faults: signal");
	expect_has(log_text, "has no handler in this process");

	log_text[0] = '\0';
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(NOTIFY_SIG + 3, &ign, NULL);
	notify(c, NOTIFY_SIG + 3, PEV_NOTIFY_THREAD, 0);
	expect_has(log_text, "is ignored in this process");

	log_text[0] = '\0';
	install(NOTIFY_SIG);
	notify(c, NOTIFY_SIG, PEV_NOTIFY_THREAD, 0);
	notify(c, SIGCHLD, PEV_NOTIFY_THREAD, 0); /* default action: ignore, harmless */
	cr_expect_str_eq(log_text, "");
	pev_set_log(NULL, NULL, PEV_LOG_ERROR);
	pev_counter_close(c);
}

/* ==== notification: errors =================================================== */

TestSuite(notify_errors, .init = th_leak_init, .fini = th_leak_fini);

/* The kernel refuses signal 65 (EINVAL): perfev names the field and leaves the fd as it was. */
Test(notify_errors, bad_signal_number_is_einval)
{
	struct pev_counter *c = open_faults(1, NULL);
	struct pev_notify_opts n = PEV_NOTIFY_OPTS_INIT;
	struct pev_error err;
	static const int bad[] = {65, -1, 1000};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n.signo = bad[i];
		cr_expect_eq(pev_counter_notify(c, &n, &err), PEV_EINVAL);
		cr_expect_eq(err.code, PEV_EINVAL);
		cr_expect_eq(err.sys_errno, EINVAL);
		cr_expect_not(err.before_syscall);
		cr_expect_str_eq(err.syscall, "fcntl");
		cr_expect_str_eq(err.field, "signo");
		cr_expect_str_eq(err.event, "page-faults");
		char want[64];
		snprintf(want, sizeof(want), "%d is not a signal number", bad[i]);
		expect_has(err.message, want);
		expect_has(err.message, "cannot make 'page-faults' signal on overflow");
		expect_has(err.hint, "SIGRTMIN+1");
		expect_quiet(pev_counter_fd(c, 0));
	}
	pev_counter_close(c);
}

/* A thread, process or group that does not exist: ESRCH, and F_SETSIG is undone. */
Test(notify_errors, missing_owner_is_esrch_and_rolled_back)
{
	struct pev_counter *c = open_faults(1, NULL);
	struct pev_notify_opts n = PEV_NOTIFY_OPTS_INIT;
	struct pev_error err;
	pid_t gone = th_reaped_pid();
	static const struct {
		enum pev_notify_owner owner;
		const char *word;
	} owners[] = {{PEV_NOTIFY_THREAD, "thread"},
		      {PEV_NOTIFY_PROCESS, "process"},
		      {PEV_NOTIFY_PROCESS_GROUP, "process group"}};

	n.signo = NOTIFY_SIG;
	n.pid = gone;
	for (size_t i = 0; i < sizeof(owners) / sizeof(owners[0]); i++) {
		char want[64];

		n.owner = owners[i].owner;
		cr_expect_eq(pev_counter_notify(c, &n, &err), PEV_ESRCH);
		cr_expect_eq(err.sys_errno, ESRCH);
		cr_expect_str_eq(err.syscall, "fcntl");
		cr_expect_str_eq(err.field, "pid");
		snprintf(want, sizeof(want), "no %s %d exists", owners[i].word, (int)gone);
		expect_has(err.message, want);
		expect_has(err.hint, owners[i].owner == PEV_NOTIFY_THREAD ? "gettid()" : "live");
		expect_quiet(pev_counter_fd(c, 0)); /* F_SETSIG succeeded first, and was undone */
	}
	pev_counter_close(c);
}

/* A failed reconfiguration keeps the notification that worked before. */
Test(notify_errors, failed_renotify_keeps_the_previous_setup)
{
	struct pev_counter *c = open_faults(1, NULL);
	struct pev_notify_opts n = PEV_NOTIFY_OPTS_INIT;
	struct pev_error err;
	int fd = pev_counter_fd(c, 0);
	struct f_owner_ex o;

	install(NOTIFY_SIG);
	notify(c, NOTIFY_SIG, PEV_NOTIFY_THREAD, 0);
	n.signo = NOTIFY_SIG + 2;
	n.pid = th_reaped_pid();
	cr_assert_eq(pev_counter_notify(c, &n, &err), PEV_ESRCH);
	cr_expect_eq(fcntl(fd, F_GETSIG), NOTIFY_SIG);
	cr_expect_eq(fcntl(fd, F_GETOWN_EX, &o), 0);
	cr_expect_eq(o.type, F_OWNER_TID);
	cr_expect_eq(o.pid, gettid());
	cr_expect_neq(fcntl(fd, F_GETFL) & O_ASYNC, 0);
	pev_counter_enable(c);
	touch_pages(4);
	pev_counter_disable(c);
	cr_expect_eq((uint64_t)n_recs, count_of(c));
	cr_expect_gt(n_recs, 0);
	pev_counter_close(c);
}

/*
 * Failures the kernel cannot be made to produce (ENOMEM from O_ASYNC's fasync
 * list, a descriptor closed behind perfev's back), injected at the seam on the
 * second descriptor: the first is put back as it was.
 */
Test(notify_errors, injected_failure_on_a_later_descriptor_rolls_back_the_first)
{
	struct pev_target t = pev_target_process(getpid());
	struct pev_notify_opts n = PEV_NOTIFY_OPTS_INIT;
	struct pev_counter *c;
	struct pev_error err;
	struct parked p;

	park(&p, NULL);
	c = open_faults(1, &t);
	cr_assert_geq(pev_counter_nr_fds(c), 2);
	n.signo = NOTIFY_SIG;

	inject_fcntl(pev_counter_fd(c, 1), F_SETFL, ENOMEM);
	cr_expect_eq(pev_counter_notify(c, &n, &err), PEV_ENOMEM);
	cr_expect_str_eq(err.syscall, "fcntl");
	expect_has(err.message, "fcntl F_SETFL on descriptor");
	expect_has(err.message, "out of memory");
	th_inject_reset();
	for (int i = 0; i < pev_counter_nr_fds(c); i++)
		expect_quiet(pev_counter_fd(c, i));

	inject_fcntl(pev_counter_fd(c, 1), F_GETFL, EBADF);
	cr_expect_eq(pev_counter_notify(c, &n, &err), PEV_EBADF);
	cr_expect_str_eq(err.field, "fd");
	expect_has(err.message, "is not open");
	expect_has(err.hint, "pev_counter_close()");
	th_inject_reset();
	for (int i = 0; i < pev_counter_nr_fds(c); i++)
		expect_quiet(pev_counter_fd(c, i));

	pev_counter_close(c);
	unpark(&p);
}

/* notify_stop goes on past a failing descriptor and returns the first failure. */
Test(notify_errors, injected_failure_in_stop_still_stops_the_others)
{
	struct pev_target t = pev_target_process(getpid());
	struct pev_counter *c;
	struct parked p;

	park(&p, NULL);
	c = open_faults(1, &t);
	cr_assert_geq(pev_counter_nr_fds(c), 2);
	notify(c, NOTIFY_SIG, PEV_NOTIFY_THREAD, 0);
	inject_fcntl(pev_counter_fd(c, 0), F_SETSIG, EIO);
	cr_expect_eq(pev_counter_notify_stop(c), PEV_EIO);
	th_inject_reset();
	for (int i = 1; i < pev_counter_nr_fds(c); i++)
		expect_quiet(pev_counter_fd(c, i));
	cr_expect_eq(fcntl(pev_counter_fd(c, 0), F_GETFL) & O_ASYNC, 0,
		     "O_ASYNC cleared before the failing step");
	pev_counter_close(c);
	unpark(&p);
}

/* ==== sigtrap: synchronous SIGTRAP ============================================ */

TestSuite(sigtrap, .init = th_leak_init, .fini = th_leak_fini);

#define COOKIE UINT64_C(0x5eedc0ffee)


/* A write watchpoint with sigtrap on target_var, for target (NULL: this thread), disabled. */
static struct pev_counter *open_watchpoint(const struct pev_target *target, uint64_t sig_data)
{
	struct pev_event ev = pev_event_breakpoint((uintptr_t)&target_var, sizeof(target_var),
						   PEV_BP_W);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c = NULL;
	struct pev_error err;

	o.sigtrap = true;
	o.remove_on_exec = true;
	o.sig_data = sig_data;
	o.sample_period = 1;
	o.exclude_kernel = true;
	o.disabled = true;
	cr_assert_eq(pev_counter_open(&ev, &o, target, NULL, &c, &err), 0, "%s", err.message);
	watch_rearmed(c);
	return c;
}

/* N writes give N SIGTRAPs, each before the next statement runs, with sig_data and the address. */
Test(sigtrap, watchpoint_hit_n_times_gives_n_synchronous_traps)
{
	th_require_cap(PEV_CAP_BREAKPOINT);
	struct pev_counter *c = open_watchpoint(NULL, COOKIE);

	install(SIGTRAP);
	watched_value = &target_var;
	pev_counter_enable(c);
	store_n(7);
	pev_counter_disable(c);
	cr_expect_eq(count_of(c), 7);
	cr_assert_eq(n_recs, 7);
	for (int i = 0; i < 7; i++) {
		const struct pev_siginfo *s = &recs[i].info;

		cr_expect_eq(recs[i].kind, PEV_SIGINFO_SIGTRAP);
		cr_expect_eq(s->signo, SIGTRAP);
		cr_expect_eq(s->code, PEV_TRAP_PERF);
		cr_expect_eq(s->data, COOKIE, "si_perf_data 0x%" PRIx64, s->data);
		cr_expect_eq(s->type, PEV_TYPE_BREAKPOINT);
		cr_expect_eq(s->flags, 0);
		cr_expect_not(s->async);
		cr_expect_eq(s->addr, (void *)&target_var);
		cr_expect_eq(s->fd, -1);
		cr_expect_eq(recs[i].tid, gettid());
		/* Synchronous: the handler ran right after store i, before store i+1. */
		cr_expect_eq(recs[i].step, i + 1);
		/* The value the store wrote (x86), or the one before it (arm64). */
		if (!TRAPS_BEFORE_STORE)
			cr_expect_eq(recs[i].value, 100 + i);
		else if (i > 0)
			cr_expect_eq(recs[i].value, 100 + i - 1);
		cr_expect_eq(trapped_at[i], i + 1, "trap %d arrived late", i);
	}
	pev_counter_close(c);
}

static void store_five(struct parked *p)
{
	(void)p;
	store_n(5);
}

/* The SIGTRAP goes to the thread that wrote, and only a watched thread traps. */
Test(sigtrap, trap_is_delivered_on_the_faulting_thread)
{
	th_require_cap(PEV_CAP_BREAKPOINT);
	struct pev_counter *c;
	struct parked p;
	struct pev_target t;

	install(SIGTRAP);
	park(&p, store_five);
	t = pev_target_thread(p.tid);
	c = open_watchpoint(&t, COOKIE + 1);
	pev_counter_enable(c);
	target_var = 1; /* this thread is not watched: no trap */
	cr_expect_eq(n_recs, 0);
	p.go = true;
	while (!p.done)
		usleep(100);
	unpark(&p);
	pev_counter_disable(c);
	cr_expect_eq(count_of(c), 5);
	cr_assert_eq(n_recs, 5);
	for (int i = 0; i < 5; i++) {
		cr_expect_eq(recs[i].tid, p.tid, "trap %d on thread %d", i, (int)recs[i].tid);
		cr_expect_eq(recs[i].info.data, COOKIE + 1);
		cr_expect_not(recs[i].info.async);
		cr_expect_eq(trapped_at[i], i + 1);
	}
	pev_counter_close(c);
}

/* A software event traps too: page faults, with the faulting address and type SOFTWARE. */
Test(sigtrap, page_fault_event_traps_with_the_fault_address)
{
	struct pev_event ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c;
	struct pev_error err;
	size_t len = 16 * (size_t)page_size();

	o.sigtrap = true;
	o.remove_on_exec = true;
	o.sig_data = 77;
	o.sample_period = 1;
	o.exclude_kernel = true;
	o.disabled = true;
	cr_assert_eq(pev_counter_open(&ev, &o, NULL, NULL, &c, &err), 0, "%s", err.message);
	install(SIGTRAP);
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(p, MAP_FAILED);
	pev_counter_enable(c);
	for (int i = 0; i < 16; i++)
		p[(size_t)i * (size_t)page_size()] = 1;
	pev_counter_disable(c);
	uint64_t n = count_of(c);
#if PEV_TEST_ASAN
	/* ASan's shadow memory faults inside the handler too, where SIGTRAP is blocked: merged. */
	cr_expect_geq(n_recs, 16);
	cr_expect_leq((uint64_t)n_recs, n);
#else
	cr_expect_eq((uint64_t)n_recs, n);
#endif
	int in_region = 0;
	for (int i = 0; i < n_recs && i < MAX_REC; i++) {
		cr_expect_eq(recs[i].info.type, PEV_TYPE_SOFTWARE);
		cr_expect_eq(recs[i].info.data, 77);
		if ((char *)recs[i].info.addr >= p && (char *)recs[i].info.addr < p + len)
			in_region++;
	}
	cr_expect_eq(in_region, 16, "%d of %d traps name an address in the region", in_region,
		     (int)n_recs);
	munmap(p, len);
	pev_counter_close(c);
}

/* SIGTRAP blocked: the trap waits, merges, and is flagged asynchronous (si_perf_flags). */
Test(sigtrap, blocked_sigtrap_arrives_late_and_says_so)
{
	th_require_cap(PEV_CAP_BREAKPOINT);
	struct pev_counter *c = open_watchpoint(NULL, COOKIE);

	install(SIGTRAP);
	block(SIGTRAP, true);
	pev_counter_enable(c);
	store_n(3);
	pev_counter_disable(c);
	cr_expect_eq(n_recs, 0);
	block(SIGTRAP, false);
	cr_expect_eq(count_of(c), 3);
	cr_assert_eq(n_recs, 1, "a standard signal merges while blocked");
	cr_expect(recs[0].info.async);
	cr_expect_eq(recs[0].info.flags, PEV_TRAP_PERF_FLAG_ASYNC);
	cr_expect_eq(recs[0].info.data, COOKIE);
	pev_counter_close(c);
}

/* The kernel accepts sigtrap with inherit (a forked child keeps the handlers). */
Test(sigtrap, inherit_is_accepted)
{
	struct pev_event ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c;
	struct pev_error err;

	o.sigtrap = o.remove_on_exec = true;
	o.sample_period = 1000;
	o.exclude_kernel = true;
	o.inherit = PEV_INHERIT_ALL;
	cr_expect_eq(pev_counter_open(&ev, &o, NULL, NULL, &c, &err), 0, "%s", err.message);
	pev_counter_close(c);
	o.inherit = PEV_INHERIT_THREADS;
	cr_expect_eq(pev_counter_open(&ev, &o, NULL, NULL, &c, &err), 0, "%s", err.message);
	pev_counter_close(c);
}

/* ==== remove_on_exec ============================================================ */

/*
 * Forks a child that waits for a byte on a pipe, touches `pages` pages and
 * execs a shell that prints "ready". Counts the child's page faults (with or
 * without remove_on_exec) until the shell has printed, and returns the count.
 * (poll cannot tell a removed event: without a ring buffer it reports POLLHUP
 * all along, measured on Linux 6.18.)
 */
static uint64_t faults_across_exec(bool remove, int pages)
{
	struct pev_event ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c;
	struct pev_error err;
	int go[2], out[2], status;
	char buf[16] = "";
	ssize_t got = 0;

	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(out, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char b;
		/* Say "here" only when the copy-on-write faults after fork are over. */
		if (dup2(out[1], 1) < 0 || write(1, "h", 1) != 1 || read(go[0], &b, 1) != 1)
			_exit(2);
		touch_pages(pages);
		execl("/bin/sh", "sh", "-c", "echo ready; exec sleep 5", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	close(out[1]);
	cr_assert_eq(read(out[0], buf, 1), 1);
	cr_assert_eq(buf[0], 'h');
	o.exclude_kernel = true;
	o.remove_on_exec = remove;
	struct pev_target t = pev_target_thread(pid);
	cr_assert_eq(pev_counter_open(&ev, &o, &t, NULL, &c, &err), 0, "%s", err.message);
	cr_assert_eq(write(go[1], "g", 1), 1);
	close(go[1]);
	struct pollfd pfd = {out[0], POLLIN, 0};
	memset(buf, 0, sizeof(buf));
	if (poll(&pfd, 1, 10000) == 1)
		got = read(out[0], buf, sizeof(buf) - 1);
	uint64_t n = count_of(c);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(out[0]);
	pev_counter_close(c);
	cr_assert_eq(got, 6, "the exec'd shell did not print: got %zd bytes", got);
	cr_assert_str_eq(buf, "ready\n");
	return n;
}

TestSuite(remove_on_exec, .init = th_leak_init, .fini = th_leak_fini);

/* With remove_on_exec the event leaves the child at exec: the new program's faults do not count. */
Test(remove_on_exec, event_is_removed_from_the_execd_child)
{
	uint64_t removed = faults_across_exec(true, 64);
	uint64_t kept = faults_across_exec(false, 64);

	cr_expect_geq(removed, 64);
	cr_expect_leq(removed, 64 + 16, "%" PRIu64 " faults: the exec'd program's were counted",
		      removed);
	/* The control: without remove_on_exec the shell's own faults count too. */
	cr_expect_gt(kept, 64 + 16, "only %" PRIu64 " faults with the event kept", kept);
}

struct trap_exec_ctx {
	int traps;
};

static void trap_then_exec(void *arg)
{
	struct trap_exec_ctx *t = arg;
	struct pev_event ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c;

	install(SIGTRAP);
	o.sigtrap = o.remove_on_exec = true;
	o.sample_period = 1;
	o.exclude_kernel = true;
	if (pev_counter_open(&ev, &o, NULL, NULL, &c, NULL) < 0)
		_exit(5);
	touch_pages(4);
	t->traps = n_recs;
	/* The descriptor closes at exec (close-on-exec); the event must go too, or
	 * the first page fault of `true`, which has no SIGTRAP handler, kills it. */
	execl("/bin/true", "true", (char *)NULL);
	_exit(127);
}

/* A sigtrap event does not follow the thread into the program it execs. */
Test(remove_on_exec, sigtrap_event_does_not_reach_the_execd_program)
{
	struct trap_exec_ctx t = {0};

	cr_expect(th_in_child(trap_then_exec, &t, sizeof(t)),
		  "the exec'd program did not exit 0 (killed by SIGTRAP?)");
	cr_expect_geq(t.traps, 4);
}

/* ==== checks before the syscall ================================================== */

TestSuite(sigtrap_check, .init = th_leak_init, .fini = th_leak_fini);

static struct pev_opts sigtrap_opts(void)
{
	struct pev_opts o = PEV_OPTS_INIT;

	o.sigtrap = o.remove_on_exec = true;
	o.sample_period = 1000;
	o.exclude_kernel = true;
	o.disabled = true;
	return o;
}

static void expect_before(const struct pev_error *err, int code, const char *field)
{
	cr_expect_eq(err->code, code, "code %d (%s)", err->code, pev_error_name(err->code));
	cr_expect(err->before_syscall);
	cr_expect_str_eq(err->syscall, "perf_event_open");
	cr_expect_str_eq(err->field, field);
}

/* sigtrap on a CPU-wide event: the kernel's EINVAL, explained before the syscall. */
Test(sigtrap_check, cpu_wide_sigtrap_is_refused)
{
	struct pev_event ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_opts o = sigtrap_opts();
	struct pev_target t = pev_target_cpu(0);
	struct pev_counter *c = NULL;
	struct pev_error err;

	th_require_root();
	cr_expect_eq(pev_counter_open(&ev, &o, &t, NULL, &c, &err), PEV_EINVAL);
	expect_before(&err, PEV_EINVAL, "sigtrap");
	expect_has(err.message, "follows no task");
	expect_has(err.message, "every task of a CPU");
	expect_has(err.hint, "pev_target_self()");
	expect_has(err.hint, "pev_counter_notify()");
	cr_expect_null(c);

	/* The kernel agrees. */
	o.open_flags = PEV_OPEN_NO_VALIDATE | PEV_OPEN_NO_PROBE;
	cr_expect_eq(pev_counter_open(&ev, &o, &t, NULL, &c, &err), PEV_EINVAL);
	cr_expect_not(err.before_syscall);
	cr_expect_null(c);

	/* Without sigtrap the same target opens. */
	o = sigtrap_opts();
	o.sigtrap = false;
	cr_expect_eq(pev_counter_open(&ev, &o, &t, NULL, &c, &err), 0, "%s", err.message);
	pev_counter_close(c);
}

/* remove_on_exec with enable_on_exec: refused before the syscall, and by the kernel. */
Test(sigtrap_check, remove_on_exec_with_enable_on_exec_is_refused)
{
	struct pev_event ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_opts o = sigtrap_opts();
	struct pev_counter *c = NULL;
	struct pev_error err;

	o.enable_on_exec = true;
	cr_expect_eq(pev_counter_open(&ev, &o, NULL, NULL, &c, &err), PEV_EINVAL);
	expect_before(&err, PEV_EINVAL, "enable_on_exec");
	expect_has(err.message, "contradict");
	expect_has(err.hint, "pev_counter_enable()");

	o.sigtrap = false;
	cr_expect_eq(pev_counter_open(&ev, &o, NULL, NULL, &c, &err), PEV_EINVAL);
	expect_has(err.hint, "keep one of enable_on_exec and remove_on_exec");

	o.open_flags = PEV_OPEN_NO_VALIDATE | PEV_OPEN_NO_PROBE;
	cr_expect_eq(pev_counter_open(&ev, &o, NULL, NULL, &c, &err), PEV_EINVAL);
	cr_expect_not(err.before_syscall);
	cr_expect_null(c);
}

static struct pev_machine fixture;

/* Where a checked request counts: perf_event_open's pid, cpu and flags. */
struct target_req {
	pid_t pid;
	int cpu;
	unsigned long flags;
};

/* Checks opts for page-faults on target r against fixture machine `machine`. */
static int check_on(const char *machine, const struct pev_opts *o, const struct target_req *r,
		    struct pev_error *err)
{
	struct pev_event ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_attr a;
	char root[512];

	snprintf(root, sizeof(root), "%s/machines/%s", th_fixtures(), machine);
	cr_assert_eq(pev_machine_read(&fixture, root), 0);
	cr_assert_eq(pev_attr_encode(&a, &ev, o, NULL), 0);
	struct pev_open_request req = {
		.attr = &a,
		.pid = r->pid,
		.cpu = r->cpu,
		.group_fd = -1,
		.flags = PEV_FLAG_FD_CLOEXEC | r->flags,
		.event = "page-faults",
		.fds_needed = 1,
	};
	memset(err, 0, sizeof(*err));
	return pev_attr_check(&fixture, &req, err);
}

/* On Linux 4.19 (fixture) sigtrap cannot work: EINVAL, or E2BIG when sig_data needs attr.size 128. */
Test(sigtrap_check, old_kernel)
{
	struct pev_opts o = sigtrap_opts();
	struct target_req self = {0, -1, 0};
	struct pev_error err;

	cr_expect_eq(check_on("old-kernel", &o, &self, &err), PEV_EINVAL);
	expect_before(&err, PEV_EINVAL, "sigtrap");
	expect_has(err.message, "sigtrap needs Linux 5.13 or later, and this kernel is 4.19.0");
	expect_has(err.hint, "pev_counter_notify()");

	o.sig_data = 1;
	cr_expect_eq(check_on("old-kernel", &o, &self, &err), PEV_E2BIG);
	expect_before(&err, PEV_E2BIG, "sig_data");

	o.sig_data = 0;
	o.sigtrap = false;
	cr_expect_eq(check_on("old-kernel", &o, &self, &err), PEV_EINVAL);
	expect_before(&err, PEV_EINVAL, "remove_on_exec");
	expect_lacks(err.hint, "pev_counter_notify()");

	/* The same requests pass on a 6.18 machine. */
	o = sigtrap_opts();
	o.sig_data = 1;
	cr_expect_eq(check_on("vm-nopmu", &o, &self, &err), 0, "%s", err.message);
}

/* A cgroup event follows no task either. */
Test(sigtrap_check, cgroup_sigtrap_is_refused)
{
	struct pev_opts o = sigtrap_opts();
	struct target_req cg = {5, 0, PEV_FLAG_PID_CGROUP};
	struct pev_error err;

	cr_expect_eq(check_on("vm-nopmu", &o, &cg, &err), PEV_EINVAL);
	expect_before(&err, PEV_EINVAL, "sigtrap");
	expect_has(err.message, "the tasks of a cgroup");
}

/* ==== pev_siginfo_decode on made-up siginfo ======================================== */

TestSuite(siginfo);

/* The kernel's offsets of si_perf_data, si_perf_type, si_perf_flags on 64-bit Linux. */
#if defined(__x86_64__) || defined(__aarch64__)
static void put_perf(siginfo_t *si, uint64_t data, uint32_t type, uint32_t flags)
{
	memcpy((char *)si + 24, &data, 8);
	memcpy((char *)si + 32, &type, 4);
	memcpy((char *)si + 36, &flags, 4);
}

Test(siginfo, sigtrap_fields)
{
	siginfo_t si;
	struct pev_siginfo out = PEV_SIGINFO_INIT;
	int x;

	memset(&si, 0, sizeof(si));
	si.si_signo = SIGTRAP;
	si.si_code = PEV_TRAP_PERF;
	si.si_addr = &x;
	put_perf(&si, UINT64_C(0xfedcba9876543210), PEV_TYPE_BREAKPOINT, PEV_TRAP_PERF_FLAG_ASYNC);
	cr_expect_eq(pev_siginfo_decode(&si, &out), PEV_SIGINFO_SIGTRAP);
	cr_expect_eq(out.kind, PEV_SIGINFO_SIGTRAP);
	cr_expect_eq(out.data, UINT64_C(0xfedcba9876543210));
	cr_expect_eq(out.type, PEV_TYPE_BREAKPOINT);
	cr_expect_eq(out.flags, PEV_TRAP_PERF_FLAG_ASYNC);
	cr_expect(out.async);
	cr_expect_eq(out.addr, (void *)&x);
	cr_expect_eq(out.fd, -1);
	cr_expect_eq(out.sz, sizeof(out));

	put_perf(&si, 1, PEV_TYPE_SOFTWARE, 0);
	cr_expect_eq(pev_siginfo_decode(&si, &out), PEV_SIGINFO_SIGTRAP);
	cr_expect_eq(out.data, 1);
	cr_expect_eq(out.type, PEV_TYPE_SOFTWARE);
	cr_expect_eq(out.flags, 0);
	cr_expect_not(out.async);
}
#endif

Test(siginfo, notifications)
{
	siginfo_t si;
	struct pev_siginfo out = PEV_SIGINFO_INIT;

	memset(&si, 0, sizeof(si));
	si.si_signo = SIGRTMIN + 3;
	si.si_code = POLL_IN;
	si.si_fd = 42;
	si.si_band = POLLIN | POLLRDNORM;
	cr_expect_eq(pev_siginfo_decode(&si, &out), PEV_SIGINFO_NOTIFY);
	cr_expect_eq(out.fd, 42);
	cr_expect_not(out.hangup);
	cr_expect_null(out.addr);

	si.si_code = POLL_HUP;
	si.si_band = POLLHUP | POLLERR;
	cr_expect_eq(pev_siginfo_decode(&si, &out), PEV_SIGINFO_NOTIFY);
	cr_expect(out.hangup);

	/* SIGIO is SIGPOLL: POLL_* codes. */
	si.si_signo = SIGIO;
	si.si_code = POLL_IN;
	si.si_band = POLLIN;
	cr_expect_eq(pev_siginfo_decode(&si, &out), PEV_SIGINFO_NOTIFY);

	/* A signal with codes of its own: SI_SIGIO, the band says hang-up. */
	si.si_signo = SIGSEGV;
	si.si_code = SI_SIGIO;
	si.si_band = POLLHUP | POLLERR;
	cr_expect_eq(pev_siginfo_decode(&si, &out), PEV_SIGINFO_NOTIFY);
	cr_expect(out.hangup);

	/* ...whose own codes are not notifications: SEGV_ACCERR is 2 == POLL_OUT. */
	si.si_code = SEGV_ACCERR;
	cr_expect_eq(pev_siginfo_decode(&si, &out), PEV_SIGINFO_OTHER);
	cr_expect_eq(out.fd, -1);

	/* SIGTRAP's code 6 is TRAP_PERF, not POLL_HUP; its code 4 is TRAP_HWBKPT. */
	si.si_signo = SIGTRAP;
	si.si_code = TRAP_HWBKPT;
	cr_expect_eq(pev_siginfo_decode(&si, &out), PEV_SIGINFO_OTHER);

	/* kill(2) and sigqueue(3). */
	si.si_signo = SIGUSR1;
	si.si_code = SI_USER;
	cr_expect_eq(pev_siginfo_decode(&si, &out), PEV_SIGINFO_OTHER);
	si.si_code = SI_QUEUE;
	cr_expect_eq(pev_siginfo_decode(&si, &out), PEV_SIGINFO_OTHER);
}

Test(siginfo, sz_limits_what_is_written)
{
	siginfo_t si;
	struct {
		struct pev_siginfo info;
		unsigned char guard[16];
	} small;

	memset(&si, 0, sizeof(si));
	si.si_signo = SIGIO;
	si.si_code = POLL_IN;
	si.si_fd = 9;
	memset(&small, 0xa5, sizeof(small));
	small.info.sz = offsetof(struct pev_siginfo, code) + sizeof(int); /* an older caller */
	cr_expect_eq(pev_siginfo_decode(&si, &small.info), PEV_SIGINFO_NOTIFY);
	cr_expect_eq(small.info.sz, offsetof(struct pev_siginfo, code) + sizeof(int));
	cr_expect_eq(small.info.kind, PEV_SIGINFO_NOTIFY);
	cr_expect_eq(small.info.code, POLL_IN);
	const unsigned char *tail = (const unsigned char *)&small.info + small.info.sz;
	for (size_t i = 0; i < sizeof(small) - small.info.sz; i++)
		cr_expect_eq(tail[i], 0xa5, "byte %zu past sz was written", i);

	struct pev_siginfo out = {0};
	cr_expect_eq(pev_siginfo_decode(&si, &out), PEV_EBADARG);
	out.sz = sizeof(out);
	cr_expect_eq(pev_siginfo_decode(NULL, &out), PEV_EBADARG);
	cr_expect_eq(pev_siginfo_decode(&si, NULL), PEV_EBADARG);
}

/* ==== the examples, run and checked ================================================ */

TestSuite(examples);

static const char *example(const char *var)
{
	const char *p = getenv(var);

	cr_assert(p && *p, "%s is not set (meson test sets it)", var);
	return p;
}

/* Finds "label" in out and reads the number after it. */
static long long number_after(const char *out, const char *label)
{
	const char *p = strstr(out, label);

	cr_assert(p, "no \"%s\" in: %s", label, out);
	return strtoll(p + strlen(label), NULL, 0);
}

static void run_overflow_signal(bool as_nobody, const char *pages, const char *period)
{
	char *argv[] = {(char *)example("PERFEV_EXAMPLE_OVERFLOW_SIGNAL"), (char *)pages,
			(char *)period, NULL};
	char *out = NULL, *err = NULL;
	int status = th_run(argv, as_nobody, &out, &err);

	cr_expect_eq(status, 0, "exit %d\nstdout: %s\nstderr: %s", status, out, err);
	long long np = atoll(pages), per = atoll(period);
	long long faults = number_after(out, "page-faults: ");
	cr_expect_geq(faults, np);
	cr_expect_eq(number_after(out, "signals: "), faults / per, "%s", out);
	cr_expect_eq(number_after(out, "period: "), per);
	char want[128];
	snprintf(want, sizeof(want), "refresh 3: 3 signals, 1 hang-up, counter stopped at %lld "
				     "page-faults",
		 3 * per);
	expect_has(out, want);
	expect_has(out, "\nok\n");
	cr_expect_str_eq(err, "");
	free(out);
	free(err);
}

Test(examples, overflow_signal)
{
	run_overflow_signal(false, "256", "16");
	run_overflow_signal(false, "100", "7");
}

Test(examples, overflow_signal_unprivileged)
{
	run_overflow_signal(true, "64", "4");
}

static void run_sigtrap_watchpoint(bool as_nobody)
{
	th_require_cap(PEV_CAP_BREAKPOINT);
	char *argv[] = {(char *)example("PERFEV_EXAMPLE_SIGTRAP_WATCHPOINT"), NULL};
	char *out = NULL, *err = NULL;
	int status = th_run(argv, as_nobody, &out, &err);

	cr_expect_eq(status, 0, "exit %d\nstdout: %s\nstderr: %s", status, out, err);
	cr_expect_eq(number_after(out, "traps: "), 5);
	cr_expect_eq(number_after(out, "watchpoint count: "), 5);
	long long sig_data = number_after(out, "sig_data ");
	cr_expect_neq(sig_data, 0);
	/* The value after each store (x86), or before it (arm64 traps first). */
	static const int after[] = {10, 30, 60, 100, 150}, before[] = {0, 10, 30, 60, 100};
	for (int i = 0; i < 5; i++) {
		char label[32], want[64];
		snprintf(label, sizeof(label), "trap %d: ", i + 1);
		const char *line = strstr(out, label);
		cr_assert(line, "no \"%s\" in: %s", label, out);
		if (TRAPS_BEFORE_STORE)
			snprintf(want, sizeof(want), "balance = %d (before the store),", before[i]);
		else
			snprintf(want, sizeof(want), "balance = %d (after the store),", after[i]);
		cr_expect_eq(strncmp(line + strlen(label), want, strlen(want)), 0, "%s", line);
		cr_expect_eq(number_after(line, "si_perf_data "), sig_data);
		cr_expect_eq(number_after(line, "si_perf_type "), PEV_TYPE_BREAKPOINT);
		const char *eol = strchr(line, '\n');
		const char *sync = strstr(line, "synchronous on thread");
		cr_expect(sync && eol && sync < eol, "%s", line);
	}
	expect_has(out, "\nok\n");
	cr_expect_str_eq(err, "");
	free(out);
	free(err);
}

Test(examples, sigtrap_watchpoint)
{
	run_sigtrap_watchpoint(false);
}

Test(examples, sigtrap_watchpoint_unprivileged)
{
	run_sigtrap_watchpoint(true);
}

/* SPDX-License-Identifier: MIT */
/*
 * bench_session.c - what a merged record costs: pev_session_read over the
 * rings of two CPUs (the time-ordered merge, decoding, the accounting and
 * giving the space back) against the same session over one CPU (no merge),
 * in ns per record of CPU time.
 *
 * The records are real: threads pinned two per CPU call sched_yield in a
 * loop, and the session's event (the dummy software event with
 * context_switch, inherited by the threads) writes a SWITCH record at each
 * switch into the CPU's ring. A batch lets them run for a few milliseconds
 * (20 ms), parks them, disables the session and
 * times the drain: every record read with pev_session_read. The sides
 * alternate batch by batch. Every allocation of the process is counted by
 * an interposer: the drains must make none, or the benchmark fails.
 *
 *   usage: bench_session [BATCHES [PAGES]]     (PAGES per ring, default 64)
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "perfev.h"

#define MAX_BATCHES 101

/* ---- counting allocations (see bench_decode.c) ------------------------------------------- */

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

static unsigned long allocations;

void *malloc(size_t n)
{
	allocations++;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	allocations++;
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	allocations++;
	return __libc_realloc(p, n);
}

/* ---- the workers ------------------------------------------------------------------------- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int phase; /* 0: parked, 1: yielding, 2: exit */
static volatile int running;

static void *yielder(void *arg)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)(intptr_t)arg, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (;;) {
		pthread_mutex_lock(&lock);
		while (phase == 0)
			pthread_cond_wait(&changed, &lock);
		int p = phase;
		pthread_mutex_unlock(&lock);
		if (p == 2)
			return NULL;
		while (running)
			sched_yield();
	}
}

static void set_phase(int p)
{
	pthread_mutex_lock(&lock);
	phase = p;
	running = p == 1;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench_session: %s: %s\n", what, why);
	exit(1);
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- one side ------------------------------------------------------------------------------ */

struct side {
	const char *name;
	struct pev_session *s;
	double ns[MAX_BATCHES];
	unsigned long records, lost, out_of_order;
};

static struct pev_session *open_session(const char *cpus, size_t pages)
{
	struct pev_session_event ev = {pev_event_software(PEV_SW_DUMMY), PEV_OPTS_INIT};
	struct pev_session_opts o = PEV_SESSION_OPTS_INIT;
	struct pev_target t = pev_target_cpu_list(cpus);
	struct pev_session *s;
	struct pev_error err;
	char text[4096];

	t.pid = gettid();
	ev.opts.context_switch = true;
	ev.opts.inherit = PEV_INHERIT_ALL;
	ev.opts.sample_type = PEV_SAMPLE_TID;
	o.events = &ev;
	o.nr_events = 1;
	o.target = &t;
	o.data_pages = pages;
	if (pev_session_open(&o, &s, &err) < 0)
		die("opening the session", pev_error_format(&err, text, sizeof(text)));
	return s;
}

static void batch(struct side *sd, int b)
{
	struct pev_session_record rec;
	struct timespec fill = {0, 20000000};
	unsigned long n = 0, allocs;
	uint64_t sum = 0;

	if (pev_session_enable(sd->s) < 0)
		die(sd->name, "cannot enable");
	set_phase(1);
	nanosleep(&fill, NULL);
	set_phase(0);
	if (pev_session_disable(sd->s) < 0)
		die(sd->name, "cannot disable");
	allocs = allocations;
	uint64_t t0 = cpu_ns();
	while (pev_session_read(sd->s, &rec) > 0) {
		sum += rec.time + (uint64_t)rec.rec.sample_id.tid;
		n++;
	}
	uint64_t t1 = cpu_ns();
	if (allocations != allocs)
		die(sd->name, "reading allocated memory");
	if (!n)
		die(sd->name, "no record was written");
	sd->ns[b] = (double)(t1 - t0) / (double)n;
	sd->records += n;
	(void)sum;
}

int main(int argc, char **argv)
{
	const char *prog = "bench_session";
	int batches =
		argc > 1 ? (int)bench_parse_count(prog, argv[1], 1, MAX_BATCHES - 1, "BATCHES") : 9;
	size_t pages = argc > 2 ? (size_t)bench_parse_count(prog, argv[2], 1, 4096, "PAGES") : 64;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t th[4];

	if (pages & (pages - 1))
		die("PAGES", "must be a power of two");
	bench_print_machine("bench_session");
	if (ncpu < 2) {
		printf("bench_session: one online CPU: no merge to measure\n");
		return 0;
	}
	struct side two = {.name = "2 rings (merged)", .s = open_session("0,1", pages)};
	struct side one = {.name = "1 ring", .s = open_session("1", pages)};
	for (int i = 0; i < 4; i++)
		if (pthread_create(&th[i], NULL, yielder, (void *)(intptr_t)(i & 1)) != 0)
			die("pthread_create", strerror(errno));
	for (int b = 0; b < batches; b++) {
		if (b & 1) {
			batch(&one, b);
			batch(&two, b);
		} else {
			batch(&two, b);
			batch(&one, b);
		}
	}
	set_phase(2);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);

	printf("pev_session_read, SWITCH records, %zu data pages per ring, %d batches of ~20 ms:\n",
	       pages, batches);
	struct side *sides[2] = {&two, &one};
	for (int k = 0; k < 2; k++) {
		struct pev_session_stats st = PEV_SESSION_STATS_INIT;
		pev_session_stats(sides[k]->s, PEV_SESSION_TOTAL, 0, &st);
		bench_print_side(sides[k]->name, bench_summarize(sides[k]->ns, batches));
		printf("      %lu records per batch, %llu lost, %llu rounds, %llu out of order\n",
		       sides[k]->records / (unsigned long)batches, (unsigned long long)st.lost,
		       (unsigned long long)st.rounds, (unsigned long long)st.out_of_order);
		pev_session_close(sides[k]->s);
	}
	printf("allocations while reading: 0\n");
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * report_work.c - the workload the report and script tests profile: it
 * spends its CPU time in four functions in the proportions 4:3:2:1
 * (report_work_a .. report_work_d: the same inlined loop body run 4n, 3n,
 * 2n and n times, so the proportions hold whatever the compiler), each
 * called from main through report_work_step, so that a profile has known
 * top symbols, call chains two levels deep and inline frames.
 *
 *   report_work [MS]   burns MS milliseconds of CPU time (default 300)
 */
#include <stdlib.h>
#include <time.h>

unsigned long report_work_a(unsigned long n);
unsigned long report_work_b(unsigned long n);
unsigned long report_work_c(unsigned long n);
unsigned long report_work_d(unsigned long n);
unsigned long report_work_step(unsigned long n);

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x, unsigned long i)
{
	return x + (i ^ (x >> 3));
}

__attribute__((noinline)) unsigned long report_work_a(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < 4 * n; i++) {
		x = mix(x, i);
		sink = x;
	}
	return x;
}

__attribute__((noinline)) unsigned long report_work_b(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < 3 * n; i++) {
		x = mix(x, i);
		sink = x;
	}
	return x;
}

__attribute__((noinline)) unsigned long report_work_c(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < 2 * n; i++) {
		x = mix(x, i);
		sink = x;
	}
	return x;
}

__attribute__((noinline)) unsigned long report_work_d(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++) {
		x = mix(x, i);
		sink = x;
	}
	return x;
}

__attribute__((noinline)) unsigned long report_work_step(unsigned long n)
{
	return report_work_a(n) + report_work_b(n) + report_work_c(n) + report_work_d(n);
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300;
	double start = cpu_ms();
	unsigned long sum = 0;

	while (cpu_ms() - start < ms)
		sum += report_work_step(20000);
	return sum == 1;
}

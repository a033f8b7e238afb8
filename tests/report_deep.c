/* SPDX-License-Identifier: MIT */
/*
 * report_deep.c - the workload the call-graph report tests profile: one
 * hot function (deep_leaf) reached from three callers along chains up to
 * five levels deep, and a second hot function (deep_other) with one
 * caller, so that call graphs have several branches at several depths:
 *
 *   main -> deep_top_x -> deep_mid -> deep_leaf            (4 parts)
 *   main -> deep_top_x -> deep_leaf                        (2 parts)
 *   main -> deep_top_y -> deep_mid -> deep_inner -> deep_leaf (3 parts)
 *   main -> deep_top_y -> deep_other                       (1 part)
 *
 *   report_deep [MS]   burns MS milliseconds of CPU time (default 300)
 */
#include <stdlib.h>
#include <time.h>

unsigned long deep_leaf(unsigned long n);
unsigned long deep_other(unsigned long n);
unsigned long deep_inner(unsigned long n);
unsigned long deep_mid(unsigned long n, int inner);
unsigned long deep_top_x(unsigned long n);
unsigned long deep_top_y(unsigned long n);

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long deep_leaf(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++)
		sink = x = x + (i ^ (x >> 3));
	return x;
}

__attribute__((noinline)) unsigned long deep_other(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++)
		sink = x = x + (i ^ (x >> 5));
	return x;
}

__attribute__((noinline)) unsigned long deep_inner(unsigned long n)
{
	return deep_leaf(3 * n) + 1;
}

__attribute__((noinline)) unsigned long deep_mid(unsigned long n, int inner)
{
	return (inner ? deep_inner(n) : deep_leaf(4 * n)) + 1;
}

__attribute__((noinline)) unsigned long deep_top_x(unsigned long n)
{
	return deep_mid(n, 0) + deep_leaf(2 * n) + 1;
}

__attribute__((noinline)) unsigned long deep_top_y(unsigned long n)
{
	return deep_mid(n, 1) + deep_other(n) + 1;
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

	while (cpu_ms() - start < ms) {
		deep_top_x(20000);
		deep_top_y(20000);
	}
	return 0;
}

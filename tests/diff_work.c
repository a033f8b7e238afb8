/* SPDX-License-Identifier: MIT */
/*
 * diff_work.c - the workload test_cmd_diff profiles twice: its CPU time
 * goes to two functions, and which one is hot is the argument, so two
 * recordings of it differ in a known way (what `perfev diff` must show).
 *
 *   diff_work x [MS]   diff_work_x runs 4 times as long as diff_work_y
 *   diff_work y [MS]   the other way round
 *
 * MS is the CPU time to burn (default 300). Both functions run the same
 * loop body (through one call each, from main), so the proportions hold
 * whatever the compiler does.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

unsigned long diff_work_x(unsigned long n);
unsigned long diff_work_y(unsigned long n);

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long diff_work_x(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++) {
		x += i ^ (x >> 3);
		sink = x;
	}
	return x;
}

__attribute__((noinline)) unsigned long diff_work_y(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++) {
		x += i ^ (x >> 3);
		sink = x;
	}
	return x;
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	int x_hot = argc < 2 || strcmp(argv[1], "y") != 0;
	long ms = argc > 2 ? atol(argv[2]) : 300;
	unsigned long big = 4 * 100000, small = 100000;
	double start = cpu_ms();

	while (cpu_ms() - start < (double)ms) {
		diff_work_x(x_hot ? big : small);
		diff_work_y(x_hot ? small : big);
	}
	return 0;
}

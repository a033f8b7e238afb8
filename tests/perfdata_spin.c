/* SPDX-License-Identifier: MIT */
/*
 * perfdata_spin.c - the workload test_perfdata profiles: it spends its CPU
 * time in one function, perfdata_spin_hot, so that the top symbol of a
 * profile of it is known.
 *
 *   perfdata_spin [MS]   burns MS milliseconds of CPU time (default 300)
 */
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) unsigned long perfdata_spin_hot(unsigned long n);

__attribute__((noinline)) unsigned long perfdata_spin_hot(unsigned long n)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++)
		x += i ^ (x >> 3);
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
	double ms = argc > 1 ? atof(argv[1]) : 300;
	double start = cpu_ms();
	unsigned long sum = 0;

	while (cpu_ms() - start < ms)
		sum += perfdata_spin_hot(200000);
	return sum == 1;
}
